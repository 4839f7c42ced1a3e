"""Rules of the solitaire family (étude, Yukon, Alaska) as a parameter of one set of kernels.

The three games share the layout, the deal numbering, the score (cards on the
foundations, built up by suit from the ace, never taken back) and the rule that any
face-up card moves together with every card covering it; a king-led run may go into
an empty pile. They differ in what a card may be put on and in which foundation
plays are automatic. The rule set is a small integer passed into the kernels:

``ETUDE`` (0)   onto the card of the same suit one rank higher (docs/design.md); every
                card that fits its foundation goes there at once.
``YUKON`` (1)   onto either card of the opposite colour one rank higher.
``ALASKA`` (2)  onto the card of the same suit one rank higher or one rank lower.

So a card has at most two *places*: the two cards it may be put on (``PLACES``, -1
where none). In Yukon and Alaska, playing an exposed card to its foundation is a
move of the player's, made only when it is worth it, except where it is provably
safe:

**Safe automatic play.** A card ``c`` that fits its foundation is played at once
when every card that could ever be put on ``c`` (the cards whose places include
``c``) is already on a foundation. Proof that this never lowers the optimal score:
let P be the position with ``c`` exposed and P' the one with ``c`` on its
foundation. Every line from P is copied from P' by leaving out the moves of ``c``
itself (as the head of a run or as the foundation play) and moving runs that carry
``c`` without it. Each copied move is legal: a move needs only its head card face up
and the destination's exposed card; no destination of the line is ``c`` (nothing can
be put on it); P' has every face-up card and every empty pile of P's position at
the same point (``c`` gone can only turn up the card under it, or empty its pile,
earlier). Each foundation play of the line is then legal from P' as well (the card
is exposed there when it is in P), so P' reaches every foundation set P does, plus
``c``. In the étude this is every card that fits (the card below ``c`` in its suit
fits the foundation first); in Yukon it is a card of rank at most one above the
lower opposite-colour foundation (both cards of the other colour one rank lower
are home), so any ace; in Alaska only kings (the next card of the suit could always be parked on
``c``, so nothing else is provably safe).

A line in Yukon or Alaska may return to a position (a card may go back and forth
between its two places), so the game graph has cycles, unlike the étude's DAG.

Position layout (``POSITION_SIZE`` int64 words)
-----------------------------------------------
``PILES + p * PILE_STRIDE + i``, ``LENGTH + p``, ``DOWN + p``, ``FOUNDATION + s``,
``WHERE + c`` (-1 on a foundation), ``HEIGHT + c``, ``SCORE`` as in :mod:`.rules`;
``RULES`` the rule set; ``BASE + c`` the card ``c`` sat on at the start if that card
was face up then (-1 for the bottom of a pile or a face-down card); ``CODE + c``
where ``c`` sits now: ``STAYED`` (0: on the card it sat on at the start, having never
been the head of a move or having come back to a ``BASE``), ``BOTTOM`` (1: moved to
an empty pile), ``PLACE`` + k (2, 3: moved onto its place ``k``); ``KEY + 0``,
``KEY + 1`` the exact key; ``LOG_LENGTH``, ``LOG + j`` the undo log.

The exact key
-------------
The key packs the four foundation heights and the code of every card not on a
foundation: word ``w`` (suits ``2w`` and ``2w + 1``, cards ``26w .. 26w + 25``) holds
the code of card ``c`` in bits ``2 * (c - 26w)`` and the height of suit ``s`` in bits
``52 + 4 * (s - 2w)`` (60 bits, never negative). The key determines the position up
to the order of the piles: the heights give the foundation cards; every other card
sits on the card its code names; and a card that started face down is still face
down exactly when the card that started on it has code ``STAYED`` (it has never left,
and nothing else can uncover it; a card that comes back onto the card it started on
gets ``STAYED`` again only when that card started face up, so this never misleads).
One key never names two positions, so a table of keys is an exact set of positions;
two keys can name one (a card back on a starting card that started face down: its
code is a place), and the canonical ``STAYED`` for a card back on a face-up ``BASE``
merges the commonest such pair, so the search does not explore it twice.
"""
from __future__ import annotations

import numpy as np

from .._jit import jit
from .rules import N_CARDS, N_PILES, PILE_STRIDE, RANK_OF, SUIT_OF, _carry_run

ETUDE = 0
YUKON = 1
ALASKA = 2
RULE_NAMES = ("etude", "yukon", "alaska")

STAYED = 0
BOTTOM = 1
PLACE = 2

TO_FOUNDATION = 7          # destination "pile" of a foundation move: move = card * 8 + 7
MAX_MOVES = 32             # 7 piles x 2 cards + 4 kings + 7 foundation plays, rounded up
MAX_DEPTH = 1024           # player moves on one search path (longer: the deal is undecided)
LOG_SIZE = MAX_DEPTH + 64  # one entry per player move, plus the automatic plays

PILES = 0
LENGTH = PILES + N_PILES * PILE_STRIDE
DOWN = LENGTH + N_PILES
FOUNDATION = DOWN + N_PILES
WHERE = FOUNDATION + 4
HEIGHT = WHERE + N_CARDS
BASE = HEIGHT + N_CARDS
CODE = BASE + N_CARDS
KEY = CODE + N_CARDS
SCORE = KEY + 2
RULES = SCORE + 1
LOG_LENGTH = RULES + 1
LOG = LOG_LENGTH + 1
POSITION_SIZE = LOG + LOG_SIZE

# undo-log entry kinds
_BUILD = 0       # a player's move of a run onto a card or into an empty pile
_AUTO = 1        # an automatic foundation play
_HOME = 2        # a player's foundation play


def _places(rules: int, card: int) -> tuple[int, int]:
    suit, rank = divmod(card, 13)
    if rules == ETUDE:
        return (card + 1 if rank < 12 else -1), -1
    if rules == YUKON:
        if rank == 12:
            return -1, -1
        other = (1, 2) if suit in (0, 3) else (0, 3)
        return other[0] * 13 + rank + 1, other[1] * 13 + rank + 1
    return (card + 1 if rank < 12 else -1), (card - 1 if rank > 0 else -1)


PLACES = np.array([[_places(r, c) for c in range(N_CARDS)] for r in range(3)], dtype=np.int64)
"""``PLACES[rules, c, k]``: the card that ``c`` may be put on as its place ``k`` (-1: none)."""
ONTO = np.full((3, N_CARDS, 2), -1, dtype=np.int64)
"""``ONTO[rules, e, j]``: the cards that may be put on ``e`` (-1: none), at most two."""
for _r in range(3):
    for _c in range(N_CARDS):
        for _k in range(2):
            _e = PLACES[_r, _c, _k]
            if _e >= 0:
                ONTO[_r, _e, 0 if ONTO[_r, _e, 0] < 0 else 1] = _c
del _r, _c, _k, _e


@jit(leaf=True)
def progress_counts(pos):
    """``(score, face-down cards, empty piles)`` of ``pos``: the measures of progress
    that the searches' probes (a move *makes progress* when it raises the first or the
    third or lowers the second) and the best-first priority are built on."""
    down = 0
    empty = 0
    for p in range(N_PILES):
        down += pos[DOWN + p]
        if pos[LENGTH + p] == 0:
            empty += 1
    return pos[SCORE], down, empty


@jit(leaf=True)
def _code_shift(card):
    """``(key word, bit)`` of ``card``'s code."""
    w = card // 26
    return w, 2 * (card - 26 * w)


@jit(leaf=True)
def _height_shift(suit):
    """``(key word, bit)`` of the foundation height of ``suit``."""
    w = suit // 2
    return w, 52 + 4 * (suit - 2 * w)


@jit(leaf=True)
def _set_code(pos, card, code):
    """Give ``card`` (not on a foundation) ``code``, in ``CODE`` and in the key."""
    w, bit = _code_shift(card)
    old = pos[CODE + card]
    pos[KEY + w] += (code - old) << bit
    pos[CODE + card] = code


@jit(leaf=True)
def _raise_foundation(pos, card, up):
    """Put ``card`` on (``up`` 1) or take it off (-1) its foundation, in the key and score.

    The card's code leaves the key on the foundation and comes back with it.
    """
    suit = SUIT_OF[card]
    w, bit = _code_shift(card)
    hw, hbit = _height_shift(suit)
    pos[KEY + w] -= up * (pos[CODE + card] << bit)
    pos[KEY + hw] += up << hbit
    pos[FOUNDATION + suit] += up
    pos[SCORE] += up


@jit(leaf=True)
def _log(pos, kind, card, pile, flipped, start, code):
    n = pos[LOG_LENGTH]
    pos[LOG + n] = kind + 4 * (card + 64 * (pile + 8 * (flipped + 2 * (start + 64 * code))))
    pos[LOG_LENGTH] = n + 1


@jit(leaf=True)
def _turn_up_if_freed(pos, pile):
    """Turn up the top card of ``pile`` if it is face down; return 1 if turned."""
    n = pos[LENGTH + pile]
    if n > 0 and pos[DOWN + pile] == n:
        pos[DOWN + pile] = n - 1
        return 1
    return 0


@jit(leaf=True)
def _to_foundation(pos, pile, kind):
    """Play the exposed card of ``pile`` to its foundation (it must fit), logged as ``kind``."""
    n = pos[LENGTH + pile] - 1
    card = pos[PILES + pile * PILE_STRIDE + n]
    pos[LENGTH + pile] = n
    pos[WHERE + card] = -1
    _raise_foundation(pos, card, 1)
    flipped = _turn_up_if_freed(pos, pile)
    _log(pos, kind, card, pile, flipped, n, 0)


@jit(leaf=True)
def safe_to_play(pos, card):
    """True when ``card`` fits its foundation and no card that could be put on it is
    off the foundations (the module docstring's safe automatic play)."""
    if RANK_OF[card] != pos[FOUNDATION + SUIT_OF[card]]:
        return False
    rules = pos[RULES]
    for j in range(2):
        other = ONTO[rules, card, j]
        if other >= 0 and pos[WHERE + other] >= 0:
            return False
    return True


@jit(leaf=True)
def _play_safe(pos):
    """Play every exposed card that is safe to play, until none is (logged ``_AUTO``)."""
    changed = True
    while changed:
        changed = False
        for p in range(N_PILES):
            while pos[LENGTH + p] > 0:
                card = pos[PILES + p * PILE_STRIDE + pos[LENGTH + p] - 1]
                if not safe_to_play(pos, card):
                    break
                _to_foundation(pos, p, _AUTO)
                changed = True


@jit(leaf=True)
def start_position(piles, lengths, down, foundations, rules, pos):
    """Fill ``pos`` with a start position of rule set ``rules``.

    ``piles[p, :lengths[p]]`` are pile ``p``'s cards bottom to top, the lowest
    ``down[p]`` face down; ``foundations`` the four heights (the other cards must be
    exactly those in the piles). A face-down card on top is turned up, and the safe
    plays are made; the undo log then starts empty (those cannot be undone).
    """
    pos[:] = 0
    pos[RULES] = rules
    for c in range(N_CARDS):
        pos[WHERE + c] = -1
        pos[BASE + c] = -1
    for s in range(4):
        pos[FOUNDATION + s] = foundations[s]
        pos[SCORE] += foundations[s]
        hw, hbit = _height_shift(s)
        pos[KEY + hw] += foundations[s] << hbit
    for p in range(N_PILES):
        for i in range(lengths[p]):
            card = piles[p, i]
            pos[PILES + p * PILE_STRIDE + i] = card
            pos[WHERE + card] = p
            pos[HEIGHT + card] = i
        pos[LENGTH + p] = lengths[p]
        pos[DOWN + p] = min(down[p], max(lengths[p] - 1, 0))
        for i in range(max(pos[DOWN + p], 0) + 1, lengths[p]):
            pos[BASE + piles[p, i]] = piles[p, i - 1]
    _play_safe(pos)
    pos[LOG_LENGTH] = 0


@jit(leaf=True)
def deal_position(deck, rules, pos):
    """Fill ``pos`` with the position right after dealing ``deck`` (docs/design.md) under
    ``rules``; the safe foundation plays are made (all fitting cards in the étude)."""
    pos[:] = 0
    pos[RULES] = rules
    for c in range(N_CARDS):
        pos[BASE + c] = -1
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
        pos[BASE + card] = pos[PILES + p * PILE_STRIDE + i - 1]
        pos[LENGTH + p] = i + 1
    _play_safe(pos)
    pos[LOG_LENGTH] = 0


@jit(leaf=True)
def legal_moves(pos, out, start):
    """Write the legal moves of ``pos`` into ``out[start:]`` (room for MAX_MOVES); return how many.

    A move is ``card * 8 + destination``: foundation plays first (``destination`` 7,
    each exposed card that fits, by pile), then for each pile's exposed card ``e`` the
    face-up cards of other piles that may be put on ``e``, then each face-up king not
    at the bottom of its pile into the first empty pile, by suit (every empty pile
    gives the same position up to the order of the piles: one move).
    """
    rules = pos[RULES]
    n = 0
    empty = -1
    for p in range(N_PILES):
        length = pos[LENGTH + p]
        if length > 0:
            exposed = pos[PILES + p * PILE_STRIDE + length - 1]
            if RANK_OF[exposed] == pos[FOUNDATION + SUIT_OF[exposed]]:
                out[start + n] = exposed * 8 + TO_FOUNDATION
                n += 1
    for p in range(N_PILES):
        length = pos[LENGTH + p]
        if length == 0:
            if empty < 0:
                empty = p
            continue
        exposed = pos[PILES + p * PILE_STRIDE + length - 1]
        for j in range(2):
            card = ONTO[rules, exposed, j]
            if card < 0:
                continue
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
def _build_code(pos, card, dest):
    """The code ``card`` gets when it is moved onto the exposed card of pile ``dest``
    (or into ``dest`` when that pile is empty)."""
    top = pos[LENGTH + dest]
    if top == 0:
        return BOTTOM
    onto = pos[PILES + dest * PILE_STRIDE + top - 1]
    if onto == pos[BASE + card]:
        return STAYED      # back on a card that started face up (module docstring)
    return PLACE if PLACES[pos[RULES], card, 0] == onto else PLACE + 1


@jit(leaf=True)
def build_key(pos, move):
    """``(key word 0, key word 1)`` of the position that the legal build ``move`` (a run
    onto a card or into an empty pile, not a foundation play) leads to, without making
    it; ``(-1, -1)`` when an automatic foundation play would follow it.

    Why this is the key :func:`apply_move` gives: a build changes one code in the key,
    the moved card's; a card turned up changes nothing in it (face-down cards are
    implied by the codes). It changes no foundation and sends no card home, so
    whether a card is safe to play (:func:`safe_to_play`) is the same before and after
    it; the only card it newly exposes is the one under the moved card (the run's top
    card was exposed already), and every exposed card of a position made by
    :func:`start_position`, :func:`deal_position`, :func:`apply_move` or
    :func:`undo_move` is not safe to play (each ends with the safe plays made, or
    restores such a position). So an automatic play follows exactly when the card under
    the moved card is safe to play. Keys are never negative (60 bits a word).
    """
    card = move // 8
    src = pos[WHERE + card]
    h = pos[HEIGHT + card]
    if h > 0 and safe_to_play(pos, pos[PILES + src * PILE_STRIDE + h - 1]):
        return np.int64(-1), np.int64(-1)
    w, bit = _code_shift(card)
    delta = (_build_code(pos, card, move % 8) - pos[CODE + card]) << bit
    if w == 0:
        return pos[KEY] + delta, pos[KEY + 1]
    return pos[KEY], pos[KEY + 1] + delta


@jit(leaf=True)
def apply_move(pos, move):
    """Make legal ``move`` in place, then the safe foundation plays; all undoable."""
    card = move // 8
    dest = move % 8
    src = pos[WHERE + card]
    start = pos[HEIGHT + card]
    if dest == TO_FOUNDATION:
        _to_foundation(pos, src, _HOME)
    else:
        code = _build_code(pos, card, dest)
        _carry_run(pos, src, start, dest, pos[LENGTH + dest])
        old = pos[CODE + card]
        _set_code(pos, card, code)
        flipped = _turn_up_if_freed(pos, src)
        _log(pos, _BUILD, card, src, flipped, start, old)
        # a build exposes one card, the one it leaves on top of src, and changes no
        # foundation (build_key's docstring): the safe plays can only start there
        n = pos[LENGTH + src]
        if n == 0 or not safe_to_play(pos, pos[PILES + src * PILE_STRIDE + n - 1]):
            return
    _play_safe(pos)


@jit(leaf=True)
def undo_move(pos):
    """Undo the last move made with :func:`apply_move` (and the automatic plays after it)."""
    while True:
        n = pos[LOG_LENGTH] - 1
        pos[LOG_LENGTH] = n
        entry = pos[LOG + n]
        kind = entry % 4
        rest = entry // 4
        card = rest % 64
        rest //= 64
        pile = rest % 8
        rest //= 8
        if rest % 2:
            pos[DOWN + pile] += 1
        rest //= 2
        start = rest % 64
        old = rest // 64
        if kind == _BUILD:
            _carry_run(pos, pos[WHERE + card], pos[HEIGHT + card], pile, pos[LENGTH + pile])
            _set_code(pos, card, old)
            return
        _raise_foundation(pos, card, -1)
        pos[PILES + pile * PILE_STRIDE + start] = card
        pos[WHERE + card] = pile
        pos[HEIGHT + card] = start
        pos[LENGTH + pile] = start + 1
        if kind == _HOME:
            return


def rules_code(name) -> int:
    """The rule-set code of ``name`` (``etude``, ``yukon``, ``alaska``, or the code itself)."""
    from ..errors import InputError

    if isinstance(name, (int, np.integer)) and 0 <= int(name) < len(RULE_NAMES):
        return int(name)
    text = str(name).strip().lower().replace("é", "e")
    if text in RULE_NAMES:
        return RULE_NAMES.index(text)
    raise InputError(f"unknown rules {name!r}: choose from {', '.join(RULE_NAMES)}")


def new_position(deck, rules: int) -> np.ndarray:
    """A fresh position array dealt from validated ``deck`` under rule set ``rules``."""
    pos = np.zeros(POSITION_SIZE, dtype=np.int64)
    deal_position(np.asarray(deck, dtype=np.int64), int(rules), pos)
    return pos


def piles_of(pos: np.ndarray) -> list[tuple[int, list[int]]]:
    """The piles of ``pos`` as ``(face_down_count, cards bottom to top)`` pairs."""
    return [(int(pos[DOWN + p]),
             [int(c) for c in pos[PILES + p * PILE_STRIDE: PILES + p * PILE_STRIDE + pos[LENGTH + p]]])
            for p in range(N_PILES)]
