"""Rules of the solitaire: one position in one flat int64 array, moves made and undone in place.

The game (docs/design.md, "Solitaire deals") is a Yukon-layout patience: seven piles,
building down by suit, any face-up card may be moved together with every card
covering it, kings (with their cover) into empty piles, and cards go to the
foundations automatically.

Cards
-----
Card id ``c = suit * 13 + (rank - 1)``; a card ``c`` of rank below 13 can only ever be
put on ``c + 1`` (same suit, one rank higher), and a king only into an empty pile, so
every card has at most one destination. Move generation exploits that: for each
pile's exposed card ``e`` the only candidate is ``e - 1``, plus each king when a pile
is empty. A move is encoded ``card * 8 + destination_pile``.

Position layout (``POSITION_SIZE`` int64 words)
-----------------------------------------------
``PILES + p * PILE_STRIDE + i``   card at height ``i`` of pile ``p`` (0 = bottom)
``LENGTH + p``                    number of cards in pile ``p``
``DOWN + p``                      how many of them (the lowest) are face down
``FOUNDATION + s``                cards of suit ``s`` on the foundation (its top rank)
``WHERE + c``                     pile of card ``c``, or ``ON_FOUNDATION`` (-1)
``HEIGHT + c``                    index of card ``c`` in its pile
``MOVED + c``                     1 once card ``c`` has been moved by the player
``KEY``                           exact position key (below)
``SCORE``                         cards on the foundations
``LOG_LENGTH``, ``LOG + j``       undo log of the moves made since the deal

``WHERE``/``HEIGHT`` with ``LENGTH``/``DOWN`` form the card-status vector: card ``c``
is on a foundation, face down, face up inside pile ``p``, or exposed at its end
(:func:`card_status`).

The position key (exact, order-independent)
-------------------------------------------
A non-king card, once moved, sits on ``c + 1`` for ever (it can only move onto
``c + 1``, and ``c + 1`` carries it along); a king once moved sits at the bottom of a
pile and never moves again (moving it to another empty pile is the excluded no-op).
A card never moved still sits on the card it was dealt on, and a face-down card is
still face down exactly when the card dealt on it has never left it. So, for a
given deal, a position *up to the order of the piles* is determined by the set of
moved cards and the four foundation heights. The key packs exactly that: for suit
``s`` with ``f`` cards on its foundation, the 14-bit field at bit ``14 * s`` has a
marker bit at ``13 - f`` and, below it, bit ``13 - r`` set when the card of rank
``r > f`` has been moved. The highest set bit gives ``f``, so the 56-bit key is a
perfect (collision-free) encoding of the position within a deal: two positions
have the same key exactly when they are equal up to the order of the piles. It is
updated incrementally by the moves (each changes one or two bits, like a Zobrist
hash whose random words are unit bits), and the search never needs a collision
check.

Every card moves at most once, so the game graph is a DAG and a line has at most
52 + 4 player moves; the undo log is sized for that.
"""
from __future__ import annotations

import numpy as np

from .._jit import jit

N_PILES = 7
N_CARDS = 52
PILE_STRIDE = 52
ON_FOUNDATION = -1
MAX_MOVES = 16  # at most 7 moves onto exposed cards + 4 kings; rounded up
MAX_LINE = 64   # player moves in one line (each card moves at most once: <= 56)
LOG_SIZE = 128  # undo-log entries: <= 56 player moves + 52 foundation plays

PILES = 0
LENGTH = PILES + N_PILES * PILE_STRIDE
DOWN = LENGTH + N_PILES
FOUNDATION = DOWN + N_PILES
WHERE = FOUNDATION + 4
HEIGHT = WHERE + N_CARDS
MOVED = HEIGHT + N_CARDS
KEY = MOVED + N_CARDS
SCORE = KEY + 1
LOG_LENGTH = SCORE + 1
LOG = LOG_LENGTH + 1
POSITION_SIZE = LOG + LOG_SIZE

# suit and rank - 1 of each card id, read by the kernels: a load is cheaper than
# Numba's signed floor division and remainder by 13 (Python semantics)
SUIT_OF = np.array([c // 13 for c in range(N_CARDS)], dtype=np.int64)
RANK_OF = np.array([c % 13 for c in range(N_CARDS)], dtype=np.int64)

# card_status codes
FACE_DOWN = 0
FOUNDATION_STATUS = 1
FACE_UP = 2
EXPOSED = 3

# undo-log entry kinds
_RUN = 0
_PLAY = 1

SUITS = "♠♥♦♣"
RANKS = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def card_name(card: int) -> str:
    """Readable name of card id ``card``, e.g. ``7♠`` for 6, ``K♣`` for 51."""
    return RANKS[card % 13 + 1] + SUITS[card // 13]


@jit(leaf=True)
def _key_bit(card, rank_offset):
    """Bit of the key field of ``card``'s suit at ``13 - rank_offset`` (an int64)."""
    return np.int64(1) << np.int64(14 * SUIT_OF[card] + 13 - rank_offset)


@jit(leaf=True)
def moved_key_bit(card):
    """The key bit that records that ``card`` (not on its foundation) has been moved."""
    return _key_bit(card, RANK_OF[card] + 1)


@jit(leaf=True)
def _turn_up_if_freed(pos, pile):
    """Turn up the top card of ``pile`` if it is face down; return 1 if turned."""
    n = pos[LENGTH + pile]
    if n > 0 and pos[DOWN + pile] == n:
        pos[DOWN + pile] = n - 1
        return 1
    return 0


@jit(leaf=True)
def _log(pos, entry):
    n = pos[LOG_LENGTH]
    pos[LOG + n] = entry
    pos[LOG_LENGTH] = n + 1


@jit(leaf=True)
def _play_foundations(pos, logged):
    """Move every exposed card that fits its foundation there, until none fits.

    The result does not depend on the order of the plays (it is the unique fixed
    point). When ``logged`` each play is recorded in the undo log.
    """
    changed = True
    while changed:
        changed = False
        for p in range(N_PILES):
            while pos[LENGTH + p] > 0:
                n = pos[LENGTH + p]
                card = pos[PILES + p * PILE_STRIDE + n - 1]
                suit = SUIT_OF[card]
                height = pos[FOUNDATION + suit]
                if RANK_OF[card] != height:
                    break
                pos[LENGTH + p] = n - 1
                pos[WHERE + card] = ON_FOUNDATION
                pos[FOUNDATION + suit] = height + 1
                pos[SCORE] += 1
                # marker moves from 13 - height to 12 - height (the card's own bit)
                pos[KEY] = (pos[KEY] & ~_key_bit(card, height)) | _key_bit(card, height + 1)
                flipped = _turn_up_if_freed(pos, p)
                if logged:
                    _log(pos, _PLAY + 2 * (card + 64 * (p + 8 * flipped)))
                changed = True


@jit(leaf=True)
def position_key(pos):
    """The exact key of ``pos`` computed from scratch (see the module docstring)."""
    key = np.int64(0)
    for suit in range(4):
        height = pos[FOUNDATION + suit]
        key |= np.int64(1) << np.int64(14 * suit + 13 - height)
        for rank in range(height + 1, 14):
            card = suit * 13 + rank - 1
            if pos[MOVED + card]:
                key |= np.int64(1) << np.int64(14 * suit + 13 - rank)
    return key


@jit(leaf=True)
def deal_position(deck, pos):
    """Fill ``pos`` with the position right after dealing ``deck`` (a permutation of 0..51).

    Dealing follows docs/design.md; cards that fit the foundations go there at once. The
    undo log starts empty (the automatic plays after the deal are not undoable).
    """
    pos[:] = 0
    for p in range(N_PILES):
        first = p * (p + 1) // 2
        for i in range(p + 1):
            card = deck[first + i]
            pos[PILES + p * PILE_STRIDE + i] = card
            pos[WHERE + card] = p
            pos[HEIGHT + card] = i
        pos[LENGTH + p] = p + 1
        pos[DOWN + p] = p
    for k in range(24):
        p = 1 + k // 4
        card = deck[28 + k]
        i = pos[LENGTH + p]
        pos[PILES + p * PILE_STRIDE + i] = card
        pos[WHERE + card] = p
        pos[HEIGHT + card] = i
        pos[LENGTH + p] = i + 1
    pos[KEY] = position_key(pos)
    _play_foundations(pos, False)


@jit(leaf=True)
def card_status(pos, card):
    """``FACE_DOWN``, ``FOUNDATION_STATUS``, ``FACE_UP`` (covered) or ``EXPOSED``."""
    p = pos[WHERE + card]
    if p == ON_FOUNDATION:
        return FOUNDATION_STATUS
    h = pos[HEIGHT + card]
    if h < pos[DOWN + p]:
        return FACE_DOWN
    if h == pos[LENGTH + p] - 1:
        return EXPOSED
    return FACE_UP


@jit(leaf=True)
def legal_moves(pos, out, start):
    """Write the legal moves of ``pos`` into ``out[start:]`` (room for MAX_MOVES); return how many.

    Moves onto the exposed card ``e`` of each pile (the only candidate is ``e - 1``,
    when it is face up in another pile) in pile order, then each king that is face up
    and not already at the bottom of its pile into the first empty pile, by suit.
    Moving a king into each of several empty piles gives the same position up to
    the order of the piles, so it is one move.
    """
    n = 0
    empty = -1
    for p in range(N_PILES):
        length = pos[LENGTH + p]
        if length == 0:
            if empty < 0:
                empty = p
            continue
        exposed = pos[PILES + p * PILE_STRIDE + length - 1]
        if RANK_OF[exposed] == 0:
            continue
        card = exposed - 1
        q = pos[WHERE + card]
        if q >= 0 and q != p and pos[HEIGHT + card] >= pos[DOWN + q]:
            out[start + n] = card * 8 + p
            n += 1
    if empty >= 0:
        for suit in range(4):
            king = suit * 13 + 12
            q = pos[WHERE + king]
            h = pos[HEIGHT + king]
            if q >= 0 and h > 0 and h >= pos[DOWN + q]:
                out[start + n] = king * 8 + empty
                n += 1
    return n


@jit(leaf=True)
def _carry_run(pos, src, first, dest, top):
    """Move the cards of pile ``src`` from height ``first`` up, in order, onto pile
    ``dest`` starting at height ``top``; ``src`` then ends below ``first``."""
    end = pos[LENGTH + src]
    for i in range(first, end):
        moving = pos[PILES + src * PILE_STRIDE + i]
        pos[PILES + dest * PILE_STRIDE + top] = moving
        pos[WHERE + moving] = dest
        pos[HEIGHT + moving] = top
        top += 1
    pos[LENGTH + dest] = top
    pos[LENGTH + src] = first


@jit(leaf=True)
def apply_move(pos, move):
    """Make ``move`` (``card * 8 + pile``) in place, then play foundations automatically.

    The move must be legal. Everything needed to undo it is pushed on the undo log.
    """
    card = move // 8
    dest = move % 8
    src = pos[WHERE + card]
    start = pos[HEIGHT + card]
    _carry_run(pos, src, start, dest, pos[LENGTH + dest])
    was_moved = pos[MOVED + card]
    pos[MOVED + card] = 1
    pos[KEY] |= moved_key_bit(card)
    flipped = _turn_up_if_freed(pos, src)
    _log(pos, _RUN + 2 * (card + 64 * (src + 8 * (flipped + 2 * (start + 64 * was_moved)))))
    # Only the uncovered card can fit its foundation: the card now on top of
    # ``dest`` was exposed before and did not fit, and no foundation has changed.
    if start > 0:
        below = pos[PILES + src * PILE_STRIDE + start - 1]
        if RANK_OF[below] == pos[FOUNDATION + SUIT_OF[below]]:
            _play_foundations(pos, True)


@jit(leaf=True)
def last_move_entry(pos):
    """Index in the undo log of the last move's own entry (the entries after it are the
    foundation plays that followed it). At least one move must have been made."""
    k = pos[LOG_LENGTH] - 1
    while pos[LOG + k] % 2 == _PLAY:
        k -= 1
    return k


@jit(leaf=True)
def log_entry_card_pile(pos, k):
    """``(card, pile)`` of undo-log entry ``k``: the card moved and the pile it left, or
    the card played to its foundation and the pile it was on."""
    rest = pos[LOG + k] // 2
    return rest % 64, rest // 64 % 8


@jit(leaf=True)
def undo_move(pos):
    """Undo the last move made with :func:`apply_move` (and its foundation plays)."""
    while True:
        n = pos[LOG_LENGTH] - 1
        pos[LOG_LENGTH] = n
        entry = pos[LOG + n]
        kind = entry % 2
        card, pile = log_entry_card_pile(pos, n)
        rest = entry // (2 * 64 * 8)  # the fields after the kind, card and pile
        flipped = rest % 2
        if flipped:
            pos[DOWN + pile] += 1
        if kind == _PLAY:
            suit = SUIT_OF[card]
            height = pos[FOUNDATION + suit] - 1
            pos[FOUNDATION + suit] = height
            pos[SCORE] -= 1
            top = pos[LENGTH + pile]
            pos[PILES + pile * PILE_STRIDE + top] = card
            pos[WHERE + card] = pile
            pos[HEIGHT + card] = top
            pos[LENGTH + pile] = top + 1
            key = (pos[KEY] & ~_key_bit(card, height + 1)) | _key_bit(card, height)
            if pos[MOVED + card]:
                key |= _key_bit(card, height + 1)
            pos[KEY] = key
        else:
            rest //= 2
            start = rest % 64
            was_moved = rest // 64
            dest = pos[WHERE + card]
            _carry_run(pos, dest, pos[HEIGHT + card], pile, start)
            pos[MOVED + card] = was_moved
            if not was_moved:
                pos[KEY] &= ~moved_key_bit(card)
            return


def new_position(deck) -> np.ndarray:
    """A fresh position array dealt from ``deck`` (validated by the caller)."""
    pos = np.zeros(POSITION_SIZE, dtype=np.int64)
    deal_position(np.asarray(deck, dtype=np.int64), pos)
    return pos


def piles_of(pos: np.ndarray) -> list[tuple[int, list[int]]]:
    """The piles of ``pos`` as ``(face_down_count, cards bottom to top)`` pairs."""
    return [(int(pos[DOWN + p]),
             [int(c) for c in pos[PILES + p * PILE_STRIDE: PILES + p * PILE_STRIDE + pos[LENGTH + p]]])
            for p in range(N_PILES)]


def draw_position(piles, foundations) -> str:
    """The piles (face-down cards in brackets) and foundations as text, as
    ``jitgames solitaire --show`` prints them; ``piles`` as from :func:`piles_of`,
    ``foundations`` the four heights."""
    lines = []
    for p, (down, cards) in enumerate(piles):
        shown = [f"[{card_name(c)}]" if i < down else card_name(c) for i, c in enumerate(cards)]
        lines.append(f"  pile {p + 1}: {' '.join(shown) if shown else '(empty)'}")
    tops = [card_name(suit * 13 + h - 1) if h else f"-{SUITS[suit]}"
            for suit, h in enumerate(foundations)]
    lines.append("  foundations: " + " ".join(tops))
    return "\n".join(lines)
