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


@jit
def moves_to_win_bound(pos):
    """Lower bound on the moves from ``pos`` to 52 foundation cards, or UNREACHABLE.

    One pass up each pile (O(length)): ``lowest`` holds the lowest rank of each suit
    in the pile's segment above the last cut, so card ``x`` starts an unstabbed
    interval exactly when a lower card of its suit lies in that segment.
    """
    if pos[SCORE] == N_CARDS:
        return 0
    cuts = 0
    for p in range(N_PILES):
        base = PILES + p * PILE_STRIDE
        n = pos[LENGTH + p]
        lowest = _NO_CARD
        if n > 0:
            lowest = _lower(lowest, pos[base])
        for j in range(1, n):
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
                    return UNREACHABLE
            cuts += 1
            lowest = _NO_CARD
            for k in range(cut, j + 1):
                lowest = _lower(lowest, pos[base + k])
    return max(cuts, 1)
