"""One game of Mastermind as a person plays it: the model behind every front end.

The terminal (:mod:`.play`), the web page (:mod:`jitgames.web`) and the
environments read and change a game only through :class:`Game`, so they cannot
drift apart.

Both roles:

- **breaker** (default): the secret is drawn from ``seed`` (the same draw as
  ``play --secret-seed``: ``below(stream_key(seed, 0), 0, codes)``) or given; the
  person guesses (:meth:`Game.play`); each answer is drawn with the number of codes
  still possible; a guess that cannot be the secret given the earlier answers is
  pointed out with the answer it contradicts (:meth:`Game.contradiction`), and
  still played; :meth:`Game.hint` is the chosen strategy's guess from the position,
  :meth:`Game.best` plays it; at the end the game's guesses stand against the
  strategy's for the same secret (:meth:`Game.strategy_guesses`).
- **maker**: the person keeps a code and the computer (the strategy) breaks it;
  :meth:`Game.pending` is the computer's guess and :meth:`Game.answer` the person's
  blacks and whites. An answer that no code fits together with the earlier ones is
  recorded *flagged* (its ``note`` says which earlier answers it contradicts) and
  the game waits until it is taken back (:meth:`Game.undo`).

:meth:`Game.undo` takes back any number of turns; :meth:`Game.give_up` ends the
game (the secret shown). Strategies and their sizes: :mod:`.advice`.

Codes are typed in the shared format (``"1122"``: colour numbers 1..9, ``A`` for
10) or by colour letter, mixed freely and in either case:

====== ===== ===== ====== ====== ====== ===== ===== ===== =======
number 1     2     3      4      5      6     7     8     9     10 (A)
letter r     g     b      y      o      p     c     w     k     m
colour red   green blue   yellow orange purple cyan white black magenta
====== ===== ===== ====== ====== ====== ===== ===== ===== =======

A position has a one-line text form that :meth:`Game.from_text` reads back (like
FEN in chess)::

    mastermind 4x6 breaker seed=17 strategy=optimal 1122:1-0 3345:0-2

(``secret=CODE`` instead of the seed when the secret was given; ``gave-up`` last if
the person gave up). Reading it replays the game, so a form whose answers do not
follow from the secret (breaker) or whose guesses are not the strategy's (maker) is
refused with the first turn that differs.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .._random import below, stream_key
from . import advice
from .scan import Constraints

__all__ = ["Game", "Turn", "COLOURS", "Colour", "parse_code", "format_code", "parse_answer",
           "check_answer", "feedback",
           "MIN_PEGS", "MAX_PEGS", "MIN_COLOURS", "MAX_COLOURS", "MAX_SEED"]

MIN_PEGS, MAX_PEGS = 2, 8
MIN_COLOURS, MAX_COLOURS = 2, 10
MAX_SEED = 2**62  # seeds stay within the int64 of the kernels (as in the command line)
SYMBOLS = "123456789A"  # the shared written form (:mod:`.codes`), colours 1..10


@dataclass(frozen=True)
class Colour:
    """A peg colour: its letter, name, CSS colour and 256-colour terminal number."""

    letter: str
    name: str
    css: str
    ansi: int


COLOURS = (
    Colour("r", "red", "#d62728", 196),
    Colour("g", "green", "#2ca02c", 34),
    Colour("b", "blue", "#1f5fd6", 27),
    Colour("y", "yellow", "#f5d90a", 226),
    Colour("o", "orange", "#ff8c1a", 208),
    Colour("p", "purple", "#8e44ad", 129),
    Colour("c", "cyan", "#17becf", 51),
    Colour("w", "white", "#f4f4f4", 231),
    Colour("k", "black", "#222222", 236),
    Colour("m", "magenta", "#e84fc0", 201),
)
"""Colour ``i`` (0-based) of every front end."""


def _colour_names(colours: int) -> str:
    return (f"1-{SYMBOLS[colours - 1]} or "
            + " ".join(c.letter for c in COLOURS[:colours]))


def parse_code(text: str, pegs: int, colours: int) -> tuple:
    """0-based colours of a typed code: numbers (``1122``), letters (``rrgg``) or both.

    Spaces and commas are ignored. InputError with a reason a person can act on.
    """
    symbols = "".join(ch for ch in str(text) if ch not in " ,\t")
    if len(symbols) != pegs:
        raise InputError(f"a code has {pegs} pegs, got {len(symbols)}: type {pegs} colours "
                         f"({_colour_names(colours)})")
    digits = []
    for ch in symbols:
        low = ch.lower()
        if ch.upper() in SYMBOLS:
            d = SYMBOLS.index(ch.upper())
        elif low in "rgbyopcwkm":
            d = "rgbyopcwkm".index(low)
        else:
            raise InputError(f"{ch!r} is not a colour: use {_colour_names(colours)}")
        if d >= colours:
            raise InputError(f"colour {SYMBOLS[d]} ({COLOURS[d].name}) is not in this game of "
                             f"{colours} colours: use {_colour_names(colours)}")
        digits.append(d)
    return tuple(digits)


def format_code(code) -> str:
    """The shared written form of a code (``"1122"``)."""
    return "".join(SYMBOLS[d] for d in code)


def parse_answer(text: str, pegs: int) -> tuple[int, int]:
    """``(black, white)`` from ``"1 2"``, ``"12"`` (pegs < 10) or ``"1b2w"``."""
    if "-" in text:
        raise InputError("blacks and whites cannot be negative")
    numbers = re.findall(r"[0-9]+", text)  # ASCII digits: int() refuses others
    if any(len(n) > 3 for n in numbers):  # int() refuses 5,000 digits; no game has 1,000 pegs
        raise InputError(f"blacks plus whites cannot exceed {pegs}")
    if len(numbers) == 1 and len(numbers[0]) == 2 and pegs < 10:
        numbers = list(numbers[0])
    if len(numbers) != 2:
        raise InputError("answer with two numbers: blacks and whites, e.g. '1 2'")
    black, white = int(numbers[0]), int(numbers[1])
    check_answer(black, white, pegs)
    return black, white


def check_answer(black: int, white: int, pegs: int) -> None:
    """InputError unless ``(black, white)`` is an answer some guess can get."""
    if black < 0 or white < 0:
        raise InputError("blacks and whites cannot be negative")
    if black + white > pegs:
        raise InputError(f"blacks plus whites cannot exceed {pegs}")
    if black == pegs - 1 and white == 1:
        raise InputError(f"{pegs - 1} blacks and 1 white is impossible")


def feedback(guess, secret) -> tuple[int, int]:
    """``(black, white)`` of a guess against a secret (0-based colour tuples)."""
    black = sum(a == b for a, b in zip(guess, secret))
    common = sum(min(guess.count(c), secret.count(c)) for c in set(guess))
    return black, common - black


def _value(code, colours: int) -> int:
    value = 0
    for d in code:
        value = value * colours + d
    return value


@dataclass(frozen=True)
class Turn:
    """One guess and its answer.

    ``remaining``: codes still possible after this answer (with all earlier ones);
    ``note``: why the guess could not be the secret (breaker) or which earlier answers
    this answer contradicts (maker); None when there is nothing to point out.
    """

    guess: tuple
    black: int
    white: int
    remaining: int
    note: str | None = None

    def to_dict(self) -> dict:
        return {"guess": format_code(self.guess), "black": self.black, "white": self.white,
                "remaining": self.remaining, "note": self.note}


def _guesses(n: int) -> str:
    return f"{n} guess" if n == 1 else f"{n} guesses"


class Game:
    """A game of ``pegs`` pegs and ``colours`` colours, in ``role`` breaker or maker.

    Parameters
    ----------
    pegs, colours : int
        2..8 pegs, 2..10 colours (repeated colours allowed).
    role : str
        ``"breaker"`` (the person guesses) or ``"maker"`` (the computer guesses).
    seed : int
        0..2^62: draws the breaker's secret; the random strategies' draws.
    strategy : str or None
        The coach (breaker) or the computer's strategy (maker); default
        :func:`.advice.default_strategy` of the size.
    secret : str or None
        The breaker's secret as typed, instead of drawing it from ``seed``.
    """

    def __init__(self, pegs: int = 4, colours: int = 6, role: str = "breaker", seed: int = 0,
                 strategy: str | None = None, secret: str | None = None):
        if not MIN_PEGS <= pegs <= MAX_PEGS:
            raise InputError(f"pegs must be from {MIN_PEGS} to {MAX_PEGS}, got {pegs}")
        if not MIN_COLOURS <= colours <= MAX_COLOURS:
            raise InputError(f"colours must be from {MIN_COLOURS} to {MAX_COLOURS}, "
                             f"got {colours}")
        if role not in ("breaker", "maker"):
            raise InputError(f"role is breaker or maker, got {role!r}")
        if not 0 <= seed <= MAX_SEED:
            raise InputError(f"seed must be from 0 to 2^62, got {seed}")
        self.pegs, self.colours, self.role, self.seed = pegs, colours, role, int(seed)
        self.strategy = advice.check_strategy(
            strategy or advice.default_strategy(pegs, colours), pegs, colours)
        self.given_secret = secret is not None
        self.secret = None
        if role == "breaker":
            if secret is None:
                value, _ = below(np.uint64(stream_key(self.seed, 0)), 0, colours ** pegs)
                self.secret = advice.digits_of(int(value), pegs, colours)
            else:
                self.secret = parse_code(secret, pegs, colours)
        elif secret is not None:
            raise InputError("the maker's secret stays with the person")
        self.turns: list[Turn] = []
        self.gave_up = False
        self._pending = None  # maker: the computer's guess for the next turn

    # --- the position -----------------------------------------------------------------
    @property
    def codes(self) -> int:
        """Number of codes of this size."""
        return self.colours ** self.pegs

    @property
    def solved(self) -> bool:
        """Whether the last answer was all blacks (and, as maker, fits the earlier ones)."""
        return bool(self.turns) and self.turns[-1].black == self.pegs and (
            self.turns[-1].remaining > 0)

    @property
    def contradicted(self) -> bool:
        """Maker: whether the last answer contradicts the earlier ones (take it back)."""
        return self.role == "maker" and bool(self.turns) and self.turns[-1].remaining == 0

    @property
    def finished(self) -> bool:
        """Solved or given up."""
        return self.solved or self.gave_up

    def remaining(self, turns=None) -> int:
        """Codes still possible after ``turns`` (default: the game's)."""
        turns = self.turns if turns is None else turns
        if not turns:
            return self.codes
        return Constraints(self.pegs, self.colours,
                           [(t.guess, t.black, t.white) for t in turns]).scan()[0]

    def _value_turns(self, turns=None):
        turns = self.turns if turns is None else turns
        return [(_value(t.guess, self.colours), t.black, t.white) for t in turns]

    def parse(self, text: str) -> tuple:
        """A typed code of this game (:func:`parse_code`)."""
        return parse_code(text, self.pegs, self.colours)

    def format(self, code) -> str:
        """The written form of ``code``."""
        return format_code(code)

    def status(self) -> str:
        """One line: whose turn it is, or how the game ended."""
        n = len(self.turns)
        if self.role == "breaker":
            if self.solved:
                return f"solved in {_guesses(n)}"
            if self.gave_up:
                return f"given up after {_guesses(n)}; the code was {format_code(self.secret)}"
            return f"guess {n + 1}"
        if self.solved:
            return f"{self.strategy} solved your code in {_guesses(n)}"
        if self.gave_up:
            return f"given up after {n} answer{'' if n == 1 else 's'}"
        if self.contradicted:
            return f"answer {n} contradicts earlier answers: take it back (undo)"
        return f"answer guess {n + 1}"

    # --- breaker ----------------------------------------------------------------------
    def _open(self) -> None:
        if self.finished:
            raise InputError("the game is over: start a new game")

    def contradiction(self, code, turns=None) -> str | None:
        """Why ``code`` cannot be the secret given the answers so far: the first answer
        it contradicts, in words; None if it could be the secret."""
        turns = self.turns if turns is None else turns
        for number, turn in enumerate(turns, 1):
            would = feedback(turn.guess, code)
            if would != (turn.black, turn.white):
                c, e = format_code(code), format_code(turn.guess)
                return (f"{c} cannot be the code: guess {number} ({e}) got {turn.black} black "
                        f"{turn.white} white, but against {c} it would get {would[0]} black "
                        f"{would[1]} white")
        return None

    def play(self, code) -> Turn:
        """Breaker: play ``code`` (text or 0-based colours); its answer is recorded."""
        if self.role != "breaker":
            raise InputError("as codemaker you answer the computer's guesses")
        self._open()
        code = self.parse(code) if isinstance(code, str) else tuple(int(d) for d in code)
        if len(code) != self.pegs or not all(0 <= d < self.colours for d in code):
            raise InputError(f"not a code of {self.pegs} pegs and {self.colours} colours")
        note = self.contradiction(code)
        black, white = feedback(code, self.secret)
        turn = Turn(code, black, white, 0, note)
        turn = Turn(code, black, white, self.remaining(self.turns + [turn]), note)
        self.turns.append(turn)
        return turn

    def hint(self) -> tuple:
        """The strategy's next guess from this position (breaker), or the computer's
        pending guess (maker)."""
        if self.role == "maker":
            return self.pending()
        self._open()
        value = advice.advise(self.strategy, self.pegs, self.colours, self.seed,
                              self._value_turns())
        return advice.digits_of(value, self.pegs, self.colours)

    def best(self) -> Turn:
        """Breaker: play :meth:`hint`."""
        return self.play(self.hint())

    def strategy_guesses(self) -> int | None:
        """Guesses the strategy needs for this game's secret (breaker); in the maker
        role the computer's guesses once solved (else None)."""
        if self.role == "maker":
            return len(self.turns) if self.solved else None
        return advice.strategy_guesses(self.strategy, self.pegs, self.colours, self.seed,
                                       _value(self.secret, self.colours))

    # --- maker ------------------------------------------------------------------------
    def pending(self) -> tuple | None:
        """Maker: the computer's guess waiting for an answer (None once finished, or
        while the last answer contradicts the earlier ones)."""
        if self.role != "maker":
            raise InputError("as codebreaker you make the guesses")
        if self.finished or self.contradicted:
            return None
        if self._pending is None:
            value = advice.advise(self.strategy, self.pegs, self.colours, self.seed,
                                  self._value_turns())
            self._pending = advice.digits_of(value, self.pegs, self.colours)
        return self._pending

    def answer(self, black: int, white: int) -> Turn:
        """Maker: answer the pending guess. An answer that contradicts the earlier ones
        is recorded with a note; nothing else can be done until it is taken back."""
        if self.role != "maker":
            raise InputError("as codebreaker you make the guesses")
        self._open()
        if self.contradicted:
            raise InputError("your last answer contradicts the earlier ones: take it back "
                             "(undo) first")
        check_answer(int(black), int(white), self.pegs)
        guess = self.pending()
        turn = Turn(guess, int(black), int(white), 0)
        left = self.remaining(self.turns + [turn])
        note = None
        if left == 0:
            note = self._which_contradicts(turn)
        self.turns.append(Turn(guess, int(black), int(white), left, note))
        self._pending = None
        return self.turns[-1]

    def _which_contradicts(self, turn: Turn) -> str:
        """Words for a maker's answer that no code fits: the fewest earlier answers
        (the first j) that it contradicts already."""
        j = 0
        while j < len(self.turns) and self.remaining(self.turns[:j] + [turn]) > 0:
            j += 1
        n = len(self.turns) + 1
        said = f"{turn.black} black {turn.white} white to guess {n} ({format_code(turn.guess)})"
        if j == 0:
            return f"no code of this game gets {said}; take it back"
        which = "guess 1" if j == 1 else f"guesses 1 to {j}"
        last = self.turns[j - 1]
        return (f"no code fits {said} together with your answers to {which} (the last of "
                f"them: {last.black} black {last.white} white to "
                f"{format_code(last.guess)}); one of them is wrong: take it back")

    # --- both -------------------------------------------------------------------------
    def set_strategy(self, name: str) -> None:
        """Change the coach (breaker, any time) or the computer's strategy (maker,
        before its first answer: the text form replays one strategy)."""
        if self.role == "maker" and self.turns:
            raise InputError("the computer's strategy is chosen before the first answer "
                             "(start a new game)")
        self.strategy = advice.check_strategy(name, self.pegs, self.colours)
        self._pending = None

    def undo(self, steps: int = 1) -> int:
        """Take back the last ``steps`` turns (fewer if there are fewer); returns how
        many were taken back. A game given up stays over."""
        if self.gave_up:
            raise InputError("the game was given up: start a new game")
        steps = max(0, min(int(steps), len(self.turns)))
        if steps:
            del self.turns[-steps:]
            self._pending = None
        return steps

    def give_up(self) -> None:
        """End the game unsolved (breaker: the secret is shown)."""
        self._open()
        self.gave_up = True

    # --- text form --------------------------------------------------------------------
    def to_text(self) -> str:
        """The one-line form of the position (module docstring)."""
        parts = ["mastermind", f"{self.pegs}x{self.colours}", self.role]
        if self.given_secret:
            parts.append(f"secret={format_code(self.secret)}")
        else:
            parts.append(f"seed={self.seed}")
        parts.append(f"strategy={self.strategy}")
        parts += [f"{format_code(t.guess)}:{t.black}-{t.white}" for t in self.turns]
        if self.gave_up:
            parts.append("gave-up")
        return " ".join(parts)

    @classmethod
    def from_text(cls, text: str) -> "Game":
        """The game of a :meth:`to_text` line; InputError naming what is wrong."""
        words = str(text).split()
        if len(words) < 5 or words[0] != "mastermind":
            raise InputError("a position reads 'mastermind PxK breaker|maker seed=S "
                             "strategy=NAME [CODE:B-W ...]'")
        size = words[1].lower().split("x")
        if len(size) != 2 or not all(s.isdigit() for s in size):
            raise InputError(f"size is PEGSxCOLOURS, got {words[1]!r}")
        pegs, colours = int(size[0]), int(size[1])
        role = words[2]
        seed, secret = 0, None
        if words[3].startswith("seed="):
            if not words[3][5:].isdigit():
                raise InputError(f"seed is a whole number, got {words[3][5:]!r}")
            seed = int(words[3][5:])
        elif words[3].startswith("secret="):
            secret = words[3][7:]
        else:
            raise InputError(f"expected seed=S or secret=CODE, got {words[3]!r}")
        if not words[4].startswith("strategy="):
            raise InputError(f"expected strategy=NAME, got {words[4]!r}")
        game = cls(pegs, colours, role, seed, words[4][9:], secret)
        rest = words[5:]
        gave_up = bool(rest) and rest[-1] == "gave-up"
        if gave_up:
            rest = rest[:-1]
        for number, word in enumerate(rest, 1):
            code, _, said = word.partition(":")
            b, _, w = said.partition("-")
            if not (b.isdigit() and w.isdigit()):
                raise InputError(f"turn {number} is CODE:BLACK-WHITE, got {word!r}")
            black, white = int(b), int(w)
            guess = game.parse(code)
            if role == "breaker":
                turn = game.play(guess)
                if (turn.black, turn.white) != (black, white):
                    raise InputError(f"turn {number}: {code} gets {turn.black}-{turn.white} "
                                     f"from the secret, not {black}-{white}")
            else:
                if game.contradicted or game.finished:
                    raise InputError(f"turn {number}: the game cannot go on after the "
                                     "answer before it")
                if game.pending() != guess:
                    raise InputError(f"turn {number}: {game.strategy} guesses "
                                     f"{format_code(game.pending())} here, not {code}")
                game.answer(black, white)
        if gave_up:
            game.give_up()
        return game

    def to_dict(self, reveal: bool = False) -> dict:
        """JSON-ready state for a front end; the secret only once the game is over
        (or with ``reveal``)."""
        over = self.finished
        out = {"pegs": self.pegs, "colours": self.colours, "role": self.role,
               "seed": self.seed, "strategy": self.strategy,
               "strategies": advice.strategies_for(self.pegs, self.colours),
               "turns": [t.to_dict() for t in self.turns], "remaining":
               self.turns[-1].remaining if self.turns else self.codes,
               "solved": self.solved, "gave_up": self.gave_up, "finished": over,
               "contradicted": self.contradicted, "status": self.status(),
               "text": self.to_text(), "pending": None, "secret": None}
        if self.role == "maker":
            pending = self.pending()
            out["pending"] = None if pending is None else format_code(pending)
        elif over or reveal:
            out["secret"] = format_code(self.secret)
        return out
