"""An independent checker of solution files: replay a line by the rules and score it.

``python -m jitgames.solitaire check FILE`` and :func:`check_file` read a solution
in the notation of docs/solitaire.md ("Solutions anyone can check"; written by
``--show SEED INDEX --solution FILE``), deal the cards, replay every move line and
report the first illegal move (its line number and why) or the final score and
whether it equals the score the file claims.

Independence. This module shares no code with the solver: it imports nothing from
the rest of :mod:`jitgames.solitaire` (a test walks its imports). Its deck, its
shuffle (SplitMix64 and Fisher-Yates written again here from their definitions), its
deal and its rules are plain Python over lists, written from the rules text:

- Seven piles dealt as docs/design.md says (pile ``j`` gets ``j`` face-down cards and
  one face-up card, then 24 face-up cards four a pile onto piles 2..7).
- A move takes any face-up card with every card on it onto the top card of another
  pile when the rule set allows it there: ``etude`` one rank higher of the same suit;
  ``yukon`` one rank higher of the other colour; ``alaska`` one rank higher or lower
  of the same suit. An empty pile takes only a king (with the cards on it).
- A pile's top card, once face down and uncovered, is turned face up.
- Foundations are built up by suit from the ace; only a pile's top card goes there,
  and nothing ever leaves a foundation. Under ``etude`` every card that fits its
  foundation goes there at once, after the deal and after every move, by itself
  (a move line lists those cards after ``+``); under ``yukon`` and ``alaska`` a
  foundation play is the player's move (a line ``CARD PILE>F CARD``) and nothing is
  played by itself. The solver's provably safe automatic plays under those rules
  (:mod:`.family`) are a shortcut of its search, not a rule a player must follow:
  its writer writes each of them as such a line, so the checker replays them as the
  player's and needs no rule for them (a line that leaves one out is still legal,
  and scores one card lower).
- The score is the number of cards on the foundations.

Outcomes: a file that is not a solution (unreadable, too large, a malformed header
or line) is :class:`SolutionError` (an InputError: one line, exit status 2); a
legal file gives a :class:`CheckReport` with ``legal`` False (the first illegal
move: line number and reason) or True (the final score and the claim).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..errors import InputError

FORMAT_LINE = "jitgames solitaire solution 1"
RULES = ("etude", "yukon", "alaska")
SHUFFLES = ("fisher-yates", "naive")
MAX_BYTES = 1 << 20
"""Largest solution file read (bytes): a line has at most some thousands of moves."""
MAX_MOVE_LINES = 10_000
"""Most move lines replayed (under yukon a card may move many times; 10,000 moves of
at most 52 cards keep a check under a second)."""
MAX_FIELD = 40
"""Longest header value echoed into a message (characters)."""

RANK_LETTERS = "A23456789TJQK"
SUIT_LETTERS = "shdc"
RED_SUITS = (1, 2)  # hearts, diamonds


class SolutionError(InputError):
    """A file that is not a well-formed solution (exit status 2, one line)."""


# ----------------------------------------------------------------------------- cards

def rank_of(card: int) -> int:
    """Rank 1 (ace) .. 13 (king) of card id ``card`` (id = suit * 13 + rank - 1)."""
    return card % 13 + 1


def suit_of(card: int) -> int:
    return card // 13


def name(card: int) -> str:
    """``Ah``, ``Tc``: the notation's name of ``card``."""
    return RANK_LETTERS[rank_of(card) - 1] + SUIT_LETTERS[suit_of(card)]


def parse_card(text: str) -> int | None:
    """Card id of ``As``, ``10h``, ``Td`` (any case), or None."""
    text = text.strip()
    if len(text) not in (2, 3):
        return None
    rank, suit = text[:-1].upper(), text[-1].lower()
    if rank == "10":
        rank = "T"
    if len(rank) != 1 or rank not in RANK_LETTERS or suit not in SUIT_LETTERS:
        return None
    return SUIT_LETTERS.index(suit) * 13 + RANK_LETTERS.index(rank)


# ----------------------------------------------------------------------------- the shuffle

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def _mix(x: int) -> int:
    """SplitMix64's finaliser (Steele, Lea and Flood, OOPSLA 2014), on Python ints."""
    x &= _MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    return x ^ (x >> 31)


class _Stream:
    """The random stream of deal ``index`` of ``seed``: key ``mix(mix(seed + G) xor
    index)``, output ``j`` (from 0) ``mix(key + (j + 1) G)``, G the golden-ratio word."""

    def __init__(self, seed: int, index: int):
        self.key = _mix(_mix(seed + _GOLDEN) ^ index)
        self.count = 0

    def below(self, n: int) -> int:
        """Uniform in ``[0, n)``: outputs below ``2**64 mod n`` are skipped, the rest
        taken modulo ``n``."""
        skip = (1 << 64) % n
        while True:
            self.count += 1
            r = _mix(self.key + self.count * _GOLDEN)
            if r >= skip:
                return r % n


def shuffled_deck(seed: int, index: int, shuffle: str = "fisher-yates") -> list[int]:
    """Deal ``index`` of ``seed`` (docs/design.md): the cards 0..51 in order, then for
    ``i = 51 .. 1`` swap position ``i`` with one uniform in ``0..i`` (Fisher-Yates), or
    for ``i = 0 .. 51`` with one uniform in ``0..51`` (the naive shuffle)."""
    stream, deck = _Stream(seed, index), list(range(52))
    positions = range(51, 0, -1) if shuffle == "fisher-yates" else range(52)
    for i in positions:
        j = stream.below(i + 1 if shuffle == "fisher-yates" else 52)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


# ----------------------------------------------------------------------------- the file

@dataclass(frozen=True)
class Move:
    """One move line: ``card`` from pile ``source`` (0..6) to pile ``target`` (0..6, or
    None for the foundation), the ``moved`` cards as written, the cards written after
    ``+`` (None when there is no ``+``), and its line number in the file."""

    line: int
    card: int
    source: int
    target: int | None
    moved: tuple[int, ...]
    played: tuple[int, ...] | None


@dataclass(frozen=True)
class Solution:
    """A parsed solution file: the rule set, the deal, the claimed score, the moves."""

    rules: str
    deck: tuple[int, ...]
    claimed: int
    moves: tuple[Move, ...]
    source: str
    """Where the deal comes from, for the report (``deal 7 of seed 2026`` or ``the deal line``)."""


def _bad(number: int, why: str) -> SolutionError:
    return SolutionError(f"line {number}: {why}")


def _number(value: str, number: int, what: str, high: int) -> int:
    if not (value.isascii() and value.isdigit()) or len(value) > 20 or int(value) > high:
        raise _bad(number, f"{what} must be an integer from 0 to {high}, got {value[:MAX_FIELD]!r}")
    return int(value)


def _cards(fields, number: int) -> tuple[int, ...]:
    cards = []
    for field in fields:
        card = parse_card(field)
        if card is None:
            raise _bad(number, f"{field[:MAX_FIELD]!r} is not a card (rank A23456789TJQK or 10, "
                               f"suit shdc: As, 10h, Kc)")
        cards.append(card)
    return tuple(cards)


def _pile(text: str, number: int, foundation_ok: bool) -> int | None:
    if foundation_ok and text.upper() == "F":
        return None
    if len(text) == 1 and text in "1234567":
        return int(text) - 1
    raise _bad(number, f"{text[:MAX_FIELD]!r} is not a pile (1 to 7{', or F' if foundation_ok else ''})")


def _move(text: str, number: int) -> Move:
    """Parse ``CARD FROM>TO MOVED... [+ PLAYED...]``."""
    head, plus, tail = text.partition("+")
    fields = head.split()
    if len(fields) < 3 or ">" not in fields[1]:
        raise _bad(number, "a move is CARD FROM>TO MOVED... [+ PLAYED...] (e.g. 9c 5>2 9c 8h)")
    card = _cards(fields[:1], number)[0]
    source, _, target = fields[1].partition(">")
    played = _cards(tail.split(), number) if plus else None
    if plus and not played:
        raise _bad(number, "nothing after '+'")
    return Move(number, card, _pile(source, number, False), _pile(target, number, True),
                _cards(fields[2:], number), played)


HEADER_KEYS = ("rules", "shuffle", "seed", "index", "deal", "score")


def parse_solution(text: str) -> Solution:
    """Parse a solution's text (docs/solitaire.md).

    Raises
    ------
    SolutionError
        Naming the line and the problem: a missing or unknown format line, a header
        key missing, repeated, unknown or out of range, a deal line that is not a
        permutation of 0..51 or that differs from deal INDEX of SEED, a malformed
        move line, more than :data:`MAX_MOVE_LINES` moves.
    """
    lines = text.split("\n")  # line numbers as an editor counts them (no other breaks)
    if lines[0].strip() != FORMAT_LINE:
        raise SolutionError(f"line 1: not a solution file (the first line must be "
                            f"{FORMAT_LINE!r})")
    header: dict[str, str] = {}
    at: dict[str, int] = {}  # the line number of each header key
    moves: list[Move] = []
    for number, raw in enumerate(lines[1:], start=2):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, colon, value = line.partition(":")
        if colon and ">" not in key:
            key = key.strip().lower()
            if moves:
                raise _bad(number, f"header line {key[:MAX_FIELD]!r} after the moves")
            if key not in HEADER_KEYS:
                raise _bad(number, f"unknown header key {key[:MAX_FIELD]!r} (expected one of "
                                   f"{', '.join(HEADER_KEYS)})")
            if key in header:
                raise _bad(number, f"{key!r} given twice")
            header[key], at[key] = value.strip(), number
            continue
        if len(moves) == MAX_MOVE_LINES:
            raise _bad(number, f"more than {MAX_MOVE_LINES:,} moves")
        moves.append(_move(line, number))
    for key in ("rules", "score"):
        if key not in header:
            raise SolutionError(f"no {key!r} line in the header")
    rules = header["rules"].lower()
    if rules not in RULES:
        raise _bad(at["rules"], f"unknown rules {header['rules'][:MAX_FIELD]!r} "
                                f"(expected {', '.join(RULES)})")
    claimed = _number(header["score"], at["score"], "score", 52)
    deck, source = _deal(header, at)
    return Solution(rules, deck, claimed, tuple(moves), source)


def _deal(header: dict, at: dict) -> tuple[tuple[int, ...], str]:
    """The deck of the header: deal INDEX of SEED (shuffled here), the ``deal:`` line,
    or both, which must then agree."""
    derived = given = None
    source = "the deal line"
    if ("seed" in header) != ("index" in header):
        raise SolutionError("the header needs both 'seed' and 'index', or neither")
    if "seed" in header:
        seed = _number(header["seed"], at["seed"], "seed", 2**64 - 1)
        index = _number(header["index"], at["index"], "index", 2**64 - 1)
        shuffle = header.get("shuffle", "fisher-yates").lower()
        if shuffle not in SHUFFLES:
            raise _bad(at["shuffle"], f"unknown shuffle {header['shuffle'][:MAX_FIELD]!r} "
                                      f"(expected {', '.join(SHUFFLES)})")
        derived = tuple(shuffled_deck(seed, index, shuffle))
        source = f"deal {index} of seed {seed} ({shuffle} shuffle)"
    elif "shuffle" in header:
        raise _bad(at["shuffle"], "'shuffle' without 'seed' and 'index'")
    if "deal" in header:
        fields = header["deal"].replace(",", " ").split()
        if len(fields) != 52 or not all(f.isascii() and f.isdigit() and len(f) <= 2
                                        for f in fields):
            raise _bad(at["deal"], "the deal must be 52 card ids (integers 0..51)")
        given = tuple(int(f) for f in fields)
        if sorted(given) != list(range(52)):
            repeated = next(c for c, k in Counter(given).items() if k > 1 or c > 51)
            raise _bad(at["deal"], f"the deal is not a permutation of 0..51 (card {repeated})")
        if derived is not None and given != derived:
            raise _bad(at["deal"], f"the deal line differs from {source}")
    if derived is None and given is None:
        raise SolutionError("the header needs 'deal' or 'seed' and 'index'")
    return derived if derived is not None else given, source


# ----------------------------------------------------------------------------- the replay

@dataclass(frozen=True)
class CheckReport:
    """What replaying a solution found.

    ``legal``: every move line was legal (and listed what the rules did); else
    ``line`` and ``reason`` name the first illegal move. ``score``: the foundation
    cards after the last legal move; ``claimed`` the header's score; ``moves`` the
    legal move lines replayed. ``ok``: legal and the score equals the claim.
    """

    rules: str
    source: str
    legal: bool
    score: int
    claimed: int
    moves: int
    line: int | None = None
    reason: str | None = None

    @property
    def ok(self) -> bool:
        return self.legal and self.score == self.claimed

    def to_dict(self) -> dict:
        return {"rules": self.rules, "deal": self.source, "legal": self.legal,
                "score": self.score, "claimed": self.claimed,
                "score_equals_claim": self.score == self.claimed, "moves": self.moves,
                "illegal_line": self.line, "reason": self.reason, "ok": self.ok}


class _Illegal(Exception):
    """A move the rules do not allow (its reason)."""


class Table:
    """The game on plain lists: ``piles[p]`` bottom to top, ``down[p]`` of them face
    down, ``foundation[s]`` the cards of suit ``s`` played."""

    def __init__(self, deck, rules: str):
        self.rules = rules
        self.piles = [[deck[p * (p + 1) // 2 + i] for i in range(p + 1)] for p in range(7)]
        self.down = list(range(7))
        for k in range(24):
            self.piles[1 + k // 4].append(deck[28 + k])
        self.foundation = [0, 0, 0, 0]

    @property
    def score(self) -> int:
        return sum(self.foundation)

    def where(self, card: int) -> str:
        for p, pile in enumerate(self.piles):
            if card in pile:
                face = "face down" if pile.index(card) < self.down[p] else "face up"
                return f"{face} in pile {p + 1}"
        return "on its foundation"

    def accepts(self, top: int, card: int) -> bool:
        """Whether ``card`` may be put on ``top`` under the rule set."""
        same_suit = suit_of(top) == suit_of(card)
        if self.rules == "etude":
            return same_suit and rank_of(top) == rank_of(card) + 1
        if self.rules == "yukon":
            other_colour = (suit_of(top) in RED_SUITS) != (suit_of(card) in RED_SUITS)
            return other_colour and rank_of(top) == rank_of(card) + 1
        return same_suit and abs(rank_of(top) - rank_of(card)) == 1  # alaska

    def _uncover(self, p: int) -> None:
        if self.piles[p] and self.down[p] == len(self.piles[p]):
            self.down[p] -= 1

    def fits(self, card: int) -> bool:
        return self.foundation[suit_of(card)] == rank_of(card) - 1

    def to_foundation(self, card: int, p: int) -> None:
        pile = self.piles[p]
        if card not in pile:
            raise _Illegal(f"{name(card)} is not in pile {p + 1} (it is {self.where(card)})")
        if pile[-1] != card:
            raise _Illegal(f"{name(card)} is not the top card of pile {p + 1} (only a top "
                           f"card goes to its foundation)")
        if not self.fits(card):
            held = self.foundation[suit_of(card)]
            top = "nothing" if held == 0 else name(suit_of(card) * 13 + held - 1)
            raise _Illegal(f"{name(card)} does not fit its foundation (which holds {top})")
        pile.pop()
        self.foundation[suit_of(card)] += 1
        self._uncover(p)

    def move(self, card: int, p: int, q: int) -> list[int]:
        """Move ``card`` and the cards on it from pile ``p`` onto pile ``q``; return them."""
        pile = self.piles[p]
        if card not in pile:
            raise _Illegal(f"{name(card)} is not in pile {p + 1} (it is {self.where(card)})")
        at = pile.index(card)
        if at < self.down[p]:
            raise _Illegal(f"{name(card)} is face down")
        if p == q:
            raise _Illegal(f"{name(card)} is already in pile {q + 1}")
        target = self.piles[q]
        if not target:
            if rank_of(card) != 13:
                raise _Illegal(f"pile {q + 1} is empty and only a king goes there")
        elif not self.accepts(target[-1], card):
            raise _Illegal(f"{name(card)} does not go on {name(target[-1])} under {self.rules} "
                           f"rules ({BUILD[self.rules]})")
        run = pile[at:]
        del pile[at:]
        target.extend(run)
        self._uncover(p)
        return run

    def automatic_plays(self) -> list[int]:
        """Under ``etude``: play every top card that fits its foundation, until none
        does; return the cards played."""
        played = []
        if self.rules != "etude":
            return played
        again = True
        while again:
            again = False
            for p, pile in enumerate(self.piles):
                if pile and self.fits(pile[-1]):
                    card = pile[-1]
                    self.to_foundation(card, p)
                    played.append(card)
                    again = True
        return played


BUILD = {"etude": "one rank lower of the same suit",
         "yukon": "one rank lower of the other colour",
         "alaska": "one rank lower or higher of the same suit"}
"""What a card may be put on, per rule set (for the messages)."""


def check_solution(solution: Solution) -> CheckReport:
    """Replay ``solution`` (:func:`parse_solution`) under its rules; see :class:`CheckReport`."""
    table = Table(list(solution.deck), solution.rules)
    table.automatic_plays()
    done = 0

    def report(line=None, reason=None):
        return CheckReport(solution.rules, solution.source, line is None, table.score,
                           solution.claimed, done, line, reason)

    for move in solution.moves:
        try:
            _replay(table, move)
        except _Illegal as exc:
            return report(move.line, str(exc))
        done += 1
    return report()


def _replay(table: Table, move: Move) -> None:
    if move.target is None:
        if table.rules == "etude":
            raise _Illegal("under etude rules cards go to the foundations by themselves, "
                           "never as a move")
        if move.moved != (move.card,):
            raise _Illegal(f"a foundation play moves {name(move.card)} alone")
        table.to_foundation(move.card, move.source)
        if move.played is not None:
            raise _Illegal(f"under {table.rules} rules nothing goes to the foundations by "
                           f"itself ('+' lists nothing)")
        return
    run = table.move(move.card, move.source, move.target)
    if tuple(run) != move.moved:
        raise _Illegal(f"the cards moved are {' '.join(map(name, run))}, the line says "
                       f"{' '.join(map(name, move.moved)) or 'none'}")
    played = table.automatic_plays()
    if move.played is not None:
        if table.rules != "etude":
            raise _Illegal(f"under {table.rules} rules nothing goes to the foundations by "
                           f"itself (write each play as a move to F)")
        if Counter(played) != Counter(move.played):
            raise _Illegal(f"the cards that went to the foundations are "
                           f"{' '.join(map(name, played)) or 'none'}, the line says "
                           f"{' '.join(map(name, move.played))}")


def check_text(text: str) -> CheckReport:
    """Parse and replay a solution's text (:func:`parse_solution`, :func:`check_solution`)."""
    return check_solution(parse_solution(text))


def check_file(path) -> CheckReport:
    """Read (a regular file of at most :data:`MAX_BYTES` bytes, UTF-8), parse and
    replay the solution file ``path``.

    Raises
    ------
    SolutionError
        For a file that cannot be read or is not a well-formed solution ("PATH: why").
    """
    from .._store import read_limited

    try:
        data = read_limited(path, "solution file", MAX_BYTES)
    except InputError as exc:
        raise SolutionError(str(exc)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SolutionError(f"solution file {path}: not UTF-8 text (byte {exc.start})") from None
    try:
        return check_text(text)
    except SolutionError as exc:
        raise SolutionError(f"{path}: {exc}") from None


def report_line(report: CheckReport) -> str:
    """The report as the command prints it (one or two lines)."""
    if not report.legal:
        return (f"illegal move at line {report.line}: {report.reason} "
                f"({report.moves} legal move(s) before it, score {report.score})")
    verdict = ("equals the claim" if report.score == report.claimed
               else f"differs from the claimed {report.claimed}")
    return (f"{report.moves} legal move(s) under {report.rules} rules on {report.source}: "
            f"final score {report.score}, which {verdict}")


# ----------------------------------------------------------------------------- command line

PROG = "python -m jitgames.solitaire"
EXIT_WRONG = 1
"""Exit status of a file that is a solution but a wrong one (an illegal move, or a
final score other than the claim)."""


def check_parser():
    from .._cli import ArgumentParser, add_json, display_name

    parser = ArgumentParser(prog=f"{display_name(PROG)} check", description=(
        "Replay a solution file (written by --show SEED INDEX --solution FILE) with a "
        "plain-Python checker that shares no code with the solver: the first illegal "
        "move (status 1), or the final score and whether it equals the claim (status 0 "
        "if it does, 1 if not); a file that is not a solution: status 2. Notation: "
        "docs/solitaire.md."))
    parser.add_argument("file", metavar="FILE", help="the solution file")
    add_json(parser)
    return parser


def check_command(argv) -> int:
    """``check FILE [--json]``: see :func:`check_parser`."""
    from .._cli import emit

    args = check_parser().parse_args(argv)
    report = check_file(args.file)
    emit(args, report.to_dict(), report_line(report))  # "complete": the whole file was read
    return 0 if report.ok else EXIT_WRONG
