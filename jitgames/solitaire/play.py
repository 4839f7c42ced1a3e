"""One game of the solitaire for a person, with the exact solver as coach.

A :class:`Game` holds one position array (:mod:`.rules`) and makes and undoes the
player's moves in place with the rule kernels; the solver (:class:`.search.PositionSolver`)
is asked about the position where it stands: the optimal score still reachable from
it (:meth:`Game.reachable`, which never rises as the game goes on and falls when a
move throws cards away) and the first move of a best line from it (:meth:`Game.hint`).
Moves are read the way a player names them (:meth:`Game.parse_move`): by card
(``9c``, ``9♣``, ``10h``, ``Td``, ``K♠``: the card goes with everything on it to its
one possible destination, a king into an empty pile) or by piles (``3 5``: the
movable run of pile 3 onto pile 5; piles are numbered 1 to 7). A move that cannot be
made raises :class:`IllegalMove` whose message says why in one line; so does a card
dropped on a pile it cannot go to (:meth:`Game.move_to`, the web page's drag and click).

The one-line text form of a game (:meth:`Game.text`, read back by
:meth:`Game.from_text`) is the deal as 52 two-character cards (rank ``A23456789TJQK``,
suit ``shdc``: ``Ah2s...``), then the moves played, each as the card and the pile it
went to (``9c>3``), separated by spaces. As this game's position is fixed by the deal
and the moves (every card moves at most once), the text gives the exact position,
and the deal with it (face-down cards included): it is a game record, like PGN, and
pasting it continues the game where it stood.

This module does no input or output; :mod:`.console` is the terminal around it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .._store import shorten
from ..errors import InputError
from .deal import validate_deals
from .rules import (DOWN, FOUNDATION, HEIGHT, LENGTH, MAX_MOVES, N_PILES, ON_FOUNDATION,
                    PILE_STRIDE, PILES, SCORE, WHERE, KEY, apply_move, card_name,
                    legal_moves, new_position, piles_of, undo_move)
from .search import PositionSolver, describe_move, foundation_plays

__all__ = ["Game", "Hint", "IllegalMove", "parse_card", "card_code", "parse_deal"]

_RANKS = {"a": 1, "t": 10, "10": 10, "j": 11, "q": 12, "k": 13,
          **{str(r): r for r in range(2, 10)}}
_SUITS = {"s": 0, "h": 1, "d": 2, "c": 3, "♠": 0, "♥": 1, "♦": 2, "♣": 3,
          "♤": 0, "♡": 1, "♢": 2, "♧": 3}
_CARD = re.compile(r"^(10|[2-9atjqk])\s*([shdc♠♥♦♣♤♡♢♧])$", re.IGNORECASE)
_PILES = re.compile(r"^([0-9]{1,3})\s*(?:\s|-|>|to)\s*([0-9]{1,3})$", re.IGNORECASE)


class IllegalMove(InputError):
    """A move that cannot be made here; the message says why, in one line."""


def parse_card(text: str) -> int | None:
    """Card id of a name like ``9c``, ``9♣``, ``10h``, ``Td``, ``K♠`` (any case), else None."""
    match = _CARD.match(text.strip())
    if not match:
        return None
    rank = _RANKS[match.group(1).lower()]
    return _SUITS[match.group(2).lower()] * 13 + rank - 1


_CODE_RANKS = "A23456789TJQK"
_CODE_SUITS = "shdc"
_MOVE = re.compile(r"^([A2-9TJQK][shdc])>([1-7])$")


def card_code(card: int) -> str:
    """Two ASCII characters of card id ``card``: ``As``, ``Th``, ``Kc``."""
    return _CODE_RANKS[card % 13] + _CODE_SUITS[card // 13]


def _card_of_code(code: str) -> int | None:
    if len(code) != 2 or code[0] not in _CODE_RANKS or code[1] not in _CODE_SUITS:
        return None
    return _CODE_SUITS.index(code[1]) * 13 + _CODE_RANKS.index(code[0])


def parse_deal(text: str) -> np.ndarray:
    """A deal written as 52 card ids (``0..51`` separated by spaces or commas, the deal
    file format) or as 52 two-character cards (``Ah2s...``, spaces allowed).

    Raises
    ------
    InputError
        Saying what is wrong: not 52 cards, an unreadable card, a card twice.
    """
    words = text.replace(",", " ").split()
    # isdecimal, not isdigit: int() refuses "²"; at most 3 digits: int() refuses 5,000
    if words and all(w.isdecimal() and len(w) <= 3 for w in words):
        if len(words) != 52:
            raise InputError(f"a deal has 52 card ids, got {len(words)}")
        return validate_deals(np.array([int(w) for w in words], dtype=np.int64))[0]
    packed = "".join(words)
    if len(packed) != 104:
        raise InputError(f"a deal is 52 card ids (0..51) or 52 cards like Ah2sTd (104 "
                         f"characters), got {len(words)} words, {len(packed)} characters")
    cards = []
    for i in range(0, 104, 2):
        card = _card_of_code(packed[i:i + 2])
        if card is None:
            raise InputError(f"card {i // 2 + 1} of the deal, {packed[i:i + 2]!r}, is not a "
                             "card (rank A23456789TJQK, suit shdc)")
        cards.append(card)
    return validate_deals(np.array(cards, dtype=np.int64))[0]


@dataclass(frozen=True)
class Hint:
    """The solver's advice: ``move`` (a legal move, or None when there is none),
    ``score`` the optimal score still reachable after it, and ``gains`` False when
    the optimal score is already on the foundations (every move keeps it)."""

    move: int | None
    score: int
    gains: bool


class Game:
    """A game of one deal: the position, the moves played, and the coach's counts.

    Parameters
    ----------
    deck : array_like
        One deal in the shared format (docs/design.md).
    solver : PositionSolver, optional
        The solver to ask (a new one with the default table otherwise).

    Attributes
    ----------
    optimum : int
        The deal's optimal score (cards on the foundations with perfect play).
    history : list of int
        Moves (``card * 8 + pile``) on the board since the deal, in order.
    moves_made, hints, undos, restarts : int
        Every move made (undone ones too), hints and ``best`` moves asked for,
        moves taken back, restarts.
    """

    def __init__(self, deck, solver: PositionSolver | None = None):
        self.deck = validate_deals(deck)[0]
        self.pos = new_position(self.deck)
        self._start = self.pos.copy()
        self.solver = solver if solver is not None else PositionSolver()
        self._reachable: dict[int, int] = {}
        self.history: list[int] = []
        self.moves_made = self.hints = self.undos = self.restarts = 0
        self._score = int(self.pos[SCORE])
        self.optimum = self.reachable()

    # ------------------------------------------------------------------ the position

    @property
    def score(self) -> int:
        """Cards on the foundations now (kept apart from the position array, which a
        search in progress changes and restores)."""
        return self._score

    def piles(self) -> list[tuple[int, list[int]]]:
        """``(face_down_count, cards bottom to top)`` of each of the seven piles."""
        return piles_of(self.pos)

    def foundations(self) -> list[int]:
        """Cards on each suit's foundation (its top rank), suits in card-id order."""
        return [int(h) for h in self.pos[FOUNDATION:FOUNDATION + 4]]

    def legal_moves(self) -> list[int]:
        """The legal moves, in :func:`.rules.legal_moves` order (a king's move names
        the first empty pile; any empty pile gives the same position)."""
        buffer = np.zeros(MAX_MOVES, dtype=np.int64)
        return buffer[:legal_moves(self.pos, buffer, 0)].tolist()

    @property
    def over(self) -> bool:
        """True when no move is left."""
        return not self.legal_moves()

    def reachable(self) -> int:
        """The optimal score still reachable from here (exact; remembered per position)."""
        key = int(self.pos[KEY])
        if key not in self._reachable:
            self._reachable[key] = self.solver.score(self.pos)
        return self._reachable[key]

    def describe(self, move: int) -> str:
        """``9♣ (and 3 cards on it) from pile 5 onto 10♣ (pile 2)`` for legal ``move``."""
        card, onto, src, dest, carried = describe_move(self.pos, move)
        where = f"onto {card_name(onto)} (pile {dest + 1})" if onto is not None \
            else f"into the empty pile {dest + 1}"
        cover = f" (and {carried - 1} card{'s' if carried > 2 else ''} on it)" if carried > 1 else ""
        return f"{card_name(card)}{cover} from pile {src + 1} {where}"

    def text(self) -> str:
        """The game in one line (the deal, then the moves played): see the module
        docstring; :meth:`from_text` reads it back."""
        moves = " ".join(f"{card_code(m // 8)}>{m % 8 + 1}" for m in self.history)
        deal = "".join(card_code(int(c)) for c in self.deck)
        return f"{deal} {moves}" if moves else deal

    @classmethod
    def from_text(cls, text: str, solver: PositionSolver | None = None) -> "Game":
        """The game of a :meth:`text` line (its deal, its moves replayed).

        Raises :class:`~jitgames.errors.InputError` saying what is wrong: a bad deal, an
        unreadable move, or a move that is not legal where it stands.
        """
        words = text.split()
        if not words:
            raise InputError("an empty position; expected the deal (52 cards) and moves")
        deal = words[0] if len(words[0]) == 104 else None
        if deal is None:
            raise InputError("a position starts with the deal as 104 characters (Ah2s...), "
                             f"got {words[0][:20]!r}")
        game = cls(parse_deal(deal), solver)
        for number, word in enumerate(words[1:], start=1):
            match = _MOVE.match(word)
            if not match:
                raise InputError(f"move {number}, {word[:20]!r}, is not a card and a pile "
                                 "like 9c>3")
            card = _card_of_code(match.group(1))
            try:
                move = game.move_to(card, int(match.group(2)) - 1)
            except IllegalMove as exc:
                raise InputError(f"move {number} ({word}): {exc}") from None
            game.play(move)
        game.moves_made = 0
        return game

    # ------------------------------------------------------------------ moves

    def move_to(self, card: int, pile: int) -> int:
        """The legal move taking ``card`` (with the cards on it) to pile ``pile``
        (0-based), as the player dropped it there. A king may go into any empty pile
        (all give the same position). Raises :class:`IllegalMove` saying why not."""
        if not 0 <= card < 52:
            raise IllegalMove(f"there is no card {card}")
        if not 0 <= pile < N_PILES:
            raise IllegalMove(f"piles are numbered 1 to {N_PILES}")
        name = card_name(card)
        move = self._move_of_card(card)  # raises when the card cannot move at all
        if int(self.pos[WHERE + card]) == pile:
            raise IllegalMove(f"{name} is already in pile {pile + 1}")
        if card % 13 == 12:
            if self.pos[LENGTH + pile] != 0:
                raise IllegalMove(f"{name} can go only into an empty pile; pile {pile + 1} "
                                  "is not empty")
            return card * 8 + pile
        if move % 8 != pile:
            raise IllegalMove(f"{name} can go only onto {card_name(card + 1)} "
                              f"(pile {move % 8 + 1}), not onto pile {pile + 1}")
        return move

    def play(self, move: int) -> list[int]:
        """Make ``move`` (legal, see :meth:`parse_move`); return the cards it sent to
        the foundations, in order."""
        before = self.score
        apply_move(self.pos, move)
        self._score = int(self.pos[SCORE])
        self.history.append(move)
        self.moves_made += 1
        return list(foundation_plays(self.pos, self.score - before))

    def undo(self) -> bool:
        """Take back the last move (and its foundation plays); False at the deal."""
        if not self.history:
            return False
        undo_move(self.pos)
        self._score = int(self.pos[SCORE])
        self.history.pop()
        self.undos += 1
        return True

    def restart(self) -> None:
        """Back to the position right after the deal (the counts are kept)."""
        self.pos[:] = self._start
        self._score = int(self.pos[SCORE])
        self.history.clear()
        self.restarts += 1

    def hint(self) -> Hint:
        """The solver's best move from here (counted in ``hints``).

        The move starts a line reaching the optimal score still reachable in the
        fewest moves (then decision points); when that score is already on the
        foundations, the first legal move (every move keeps the score).
        """
        self.hints += 1
        legal = self.legal_moves()
        if not legal:
            return Hint(None, self.score, False)
        move = self.solver.best_move(self.pos)
        if move < 0:
            return Hint(legal[0], self.reachable(), False)
        return Hint(move, self.reachable(), True)

    def parse_move(self, text: str) -> int:
        """The legal move that ``text`` names: a card (``9c``, ``K♠``) or two pile
        numbers (``3 5``). Raises :class:`IllegalMove` saying why none is."""
        text = text.strip()
        card = parse_card(text)
        if card is not None:
            return self._move_of_card(card)
        match = _PILES.match(text)
        if match:
            return self._move_between(int(match.group(1)), int(match.group(2)))
        raise IllegalMove(f"{shorten(text)} is neither a card (9c, 10h, K♠) nor two piles (3 5); "
                          f"type help for the commands")

    def _move_of_card(self, card: int) -> int:
        name = card_name(card)
        for move in self.legal_moves():
            if move // 8 == card:
                return move
        pile = int(self.pos[WHERE + card])
        if pile == ON_FOUNDATION:
            raise IllegalMove(f"{name} is on its foundation")
        if self.pos[HEIGHT + card] < self.pos[DOWN + pile]:
            raise IllegalMove(f"{name} is not face up")
        if card % 13 == 12:
            if self.pos[HEIGHT + card] == 0:
                raise IllegalMove(f"{name} is already at the bottom of pile {pile + 1}")
            raise IllegalMove(f"{name} can go only into an empty pile, and there is none")
        target = card + 1
        where = int(self.pos[WHERE + target])
        if where == pile:
            raise IllegalMove(f"{name} can go only onto {card_name(target)}, which is in the "
                              f"same pile")
        raise IllegalMove(f"{name} can go only onto {card_name(target)}, which is not exposed")

    def _move_between(self, source: int, dest: int) -> int:
        for number in (source, dest):
            if not 1 <= number <= N_PILES:
                raise IllegalMove(f"piles are numbered 1 to {N_PILES}, not {number}")
        if source == dest:
            raise IllegalMove(f"a run must move to another pile than {source}")
        src, dst = source - 1, dest - 1
        down, cards = piles_of(self.pos)[src]
        if not cards:
            raise IllegalMove(f"pile {source} is empty")
        face_up = cards[down:]
        length = int(self.pos[LENGTH + dst])
        if length == 0:
            kings = [c for c in face_up if c % 13 == 12 and self.pos[HEIGHT + c] > 0]
            if not kings:
                raise IllegalMove(f"only a king goes into the empty pile {dest}, and pile "
                                  f"{source} has none that can move")
            if len(kings) > 1:
                names = " and ".join(card_name(c) for c in kings)
                raise IllegalMove(f"pile {source} has {names} that could go into pile {dest}; "
                                  f"type the card")
            return kings[0] * 8 + dst
        exposed = int(self.pos[PILES + dst * PILE_STRIDE + length - 1])
        if exposed % 13 == 0:
            raise IllegalMove(f"nothing goes onto an ace ({card_name(exposed)}, pile {dest})")
        wanted = exposed - 1
        if wanted not in face_up:
            raise IllegalMove(f"only {card_name(wanted)} goes onto {card_name(exposed)} "
                              f"(pile {dest}), and it is not face up in pile {source}")
        return wanted * 8 + dst

