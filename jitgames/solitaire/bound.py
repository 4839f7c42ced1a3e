"""A lower bound on the moves still needed to put all 52 cards on the foundations.

Within one pile, if a card ``x`` lies (directly or not) above a card ``z`` of the
same suit and lower rank, ``z`` must reach its foundation first, so ``x`` has to
leave ``z``'s pile before that. It cannot go to the foundation first, and the only
other way off is that some card between ``z`` (excluded) and ``x`` (included) is
moved, carrying ``x`` along: a *cut* of the pile there. A cut is the move of one
card, and every card moves at most once, so only cards not yet moved can be cut
points (a king at the bottom of a pile never moves either; it is never inside an
interval). A card lying above its own destination card in the same pile may still
move later, after a cut between the two, so it stays a possible cut point.

The bound is the least number of cuts that separates every such pair, summed over
the piles: a minimum stabbing set of the intervals ``(z, x]`` restricted to the
allowed points, found greedily (take intervals by their upper end; when one is
not yet stabbed, cut at its highest allowed point). When some interval has no
allowed point, 52 cannot be reached and the bound is ``UNREACHABLE``. A position
short of 52 needs at least one move (automatic plays are already done), so the
bound is at least 1 there. Moves made later may create new pairs; they only add
to the true count, so the bound never overestimates.

The greedy runs up each pile with a small state (the cuts so far and the lowest
card of each suit above the last cut), so a search can keep each pile's final
state and, after a move, scan only the piles the move changed
(:func:`bound_after_move`; the same value as :func:`moves_to_win_bound`).
"""
from __future__ import annotations

from .._jit import jit
from .rules import LENGTH, MOVED, N_CARDS, N_PILES, PILE_STRIDE, PILES, SCORE

UNREACHABLE = 1 << 20


_NO_CARD = 0xDDDD  # four 4-bit fields of 13: no card of any suit seen


@jit
def _lower(lowest, card):
    """``lowest`` (four 4-bit fields: the lowest rank seen of each suit) with ``card`` added."""
    shift = 4 * (card // 13)
    if (lowest >> shift) & 15 > card % 13:
        lowest = (lowest & ~(15 << shift)) | ((card % 13) << shift)
    return lowest


_START = _NO_CARD  # greedy state of an empty pile: no cut, no card seen


@jit
def _scan(pos, p, start, state):
    """Greedy state of pile ``p`` after its top card, resuming after height ``start - 1``.

    A state is ``cuts << 16 | lowest``: the cuts made so far up the pile and the lowest
    rank of each suit in the segment above the last cut (``_START`` before the first
    card), so card ``x`` starts an unstabbed interval exactly when a lower card of its
    suit lies in that segment. ``cuts >= UNREACHABLE`` when some interval has no
    allowed cut point. O(cards scanned).
    """
    base = PILES + p * PILE_STRIDE
    cuts = state >> 16
    lowest = state & 0xFFFF
    for j in range(start, pos[LENGTH + p]):
        card = pos[base + j]
        suit = card // 13
        rank = card % 13
        if (lowest >> (4 * suit)) & 15 > rank:
            lowest = _lower(lowest, card)
            continue
        # the tightest interval is (z, j]: z the highest lower card of the suit
        cut = j
        if pos[MOVED + card] != 0:
            low = j - 1
            while not (pos[base + low] // 13 == suit and pos[base + low] % 13 < rank):
                low -= 1
            cut = -1
            for k in range(j - 1, low, -1):
                if pos[MOVED + pos[base + k]] == 0:
                    cut = k
                    break
            if cut < 0:
                return UNREACHABLE << 16
        cuts += 1
        lowest = _NO_CARD
        for k in range(cut, j + 1):
            lowest = _lower(lowest, pos[base + k])
    return (cuts << 16) | lowest


@jit
def moves_to_win_bound(pos):
    """Lower bound on the moves from ``pos`` to 52 foundation cards, or UNREACHABLE.

    One pass up each pile (O(cards)).
    """
    if pos[SCORE] == N_CARDS:
        return 0
    total = 0
    for p in range(N_PILES):
        cuts = _scan(pos, p, 0, _START) >> 16
        if cuts >= UNREACHABLE:
            return UNREACHABLE
        total += cuts
    return max(total, 1)


PILE_STATES = 2 * N_PILES
"""Words of one position's pile record (:func:`record_pile_states`)."""


@jit
def record_pile_states(pos, states, at):
    """Write the greedy state (see :func:`_scan`) of every pile of ``pos``, then the pile
    lengths, to ``states[at : at + PILE_STATES]``."""
    for p in range(N_PILES):
        states[at + p] = _scan(pos, p, 0, _START)
        states[at + N_PILES + p] = pos[LENGTH + p]


@jit
def bound_after_move(pos, states, parent, child):
    """:func:`moves_to_win_bound` of ``pos`` just after one move, from the pile record
    (at ``parent``) of the position before it; the new record goes to ``child``.

    A move and its foundation plays shorten piles (each then a prefix of what it was)
    and put cards on one pile, the destination (if some of them go on to the
    foundations, its old cards are still there). So a pile of unchanged length keeps
    its state, a shorter one is scanned again and the destination's scan resumes
    from its old state: only the changed piles are scanned. The record at ``child``
    is complete unless the bound is UNREACHABLE.
    """
    total = 0
    for p in range(N_PILES):
        n = pos[LENGTH + p]
        before = states[parent + N_PILES + p]
        if n == before:
            state = states[parent + p]
        elif n < before:
            state = _scan(pos, p, 0, _START)
        else:
            state = _scan(pos, p, before, states[parent + p])
        if state >> 16 >= UNREACHABLE:
            return UNREACHABLE
        states[child + p] = state
        states[child + N_PILES + p] = n
        total += state >> 16
    if pos[SCORE] == N_CARDS:
        return 0
    return max(total, 1)
