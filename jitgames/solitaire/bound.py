"""A lower bound on the moves still needed to put a given set of cards on the foundations.

The *targets* are a set of cards (a mask, bit ``c`` for card ``c``) that a line must
put on the foundations, and no other: all 52 for a win, or the cards of
:func:`.reach.reachable_cards` when a line reaches as many cards as that bound.

Within one pile, take a target card ``z`` and a card ``x`` lying (directly or not)
above it that must leave ``z``'s pile before ``z`` reaches its foundation: a target
of the same suit and higher rank (it can reach its foundation only after ``z``), or
a card that is not a target (it never reaches the foundation). ``x`` can leave only
if some card between ``z`` (excluded) and ``x`` (included) is moved, carrying ``x``
along: a *cut* of the pile there. A cut is the move of one card, and every card
moves at most once, so only cards not yet moved can be cut points (a king at the
bottom of a pile never moves either; it is never inside an interval). A face-down
card turns up only once every card above it has left, so a face-down card strictly
below ``x`` cannot be the cut: a face-down ``x`` must itself move, and an interval
with a face-up ``x`` can only be cut at its face-up cards. A card lying above its own
destination card in the same pile may still move later, after a cut between the
two, so it stays a possible cut point.

The bound is the least number of cuts that separates every such pair, summed over
the piles: the face-down ``x`` of each interval, plus a minimum stabbing set of the
other intervals ``(z, x]`` restricted to the allowed points, found greedily (take
intervals by their upper end; when one is not yet stabbed, cut at its highest
allowed point). When some interval has no allowed point, the targets cannot be
reached and the bound is ``UNREACHABLE``. A position short of its targets needs at
least one move (automatic plays are already done), so the bound is at least 1 there.
Moves made later may create new pairs; they only add to the true count, so the bound
never overestimates.

The greedy runs up each pile with a small state (the cuts so far, whether a target
lies above the last cut and the lowest target of each suit there), so a search can
keep each pile's final state and, after a move, scan only the piles the move changed
(:func:`bound_after_move`; the same value as :func:`moves_bound`). A pile that got
shorter is scanned again from its face-down cards up: they never change, so the
search keeps the state after its ``d`` lowest cards for every ``d`` up to its
face-down count (:func:`record_face_down_states`) and scans only the face-up cards.
"""
from __future__ import annotations

from .._jit import jit
from .rules import (DOWN, LENGTH, LOG_LENGTH, MOVED, N_PILES, PILE_STRIDE, PILES, RANK_OF, SCORE,
                    SUIT_OF, WHERE, last_move_entry, log_entry_card_pile)

UNREACHABLE = 1 << 20


_NO_CARD = 0xDDDD  # four 4-bit fields of 13: no target of any suit seen
_ANY = 1 << 16     # state bit: some target lies above the last cut
_CUTS = 17         # state bits from here up: the cuts so far


@jit(leaf=True)
def _lower(lowest, card):
    """``lowest`` (four 4-bit fields: the lowest rank seen of each suit) with ``card`` added."""
    shift = 4 * SUIT_OF[card]
    if (lowest >> shift) & 15 > RANK_OF[card]:
        lowest = (lowest & ~(15 << shift)) | (RANK_OF[card] << shift)
    return lowest


_START = _NO_CARD  # greedy state of an empty pile: no cut, no card seen


@jit(leaf=True)
def _must_leave(targets, x, below):
    """True when card ``x`` must leave before the target ``below`` (under it) is played."""
    return not (targets >> x) & 1 or (SUIT_OF[x] == SUIT_OF[below] and RANK_OF[x] > RANK_OF[below])


@jit(leaf=True)
def _scan(pos, p, start, end, state, targets):
    """Greedy state of pile ``p`` after height ``end - 1``, resuming after ``start - 1``.

    A state is ``cuts << _CUTS | any << 16 | lowest``: the cuts made so far up the
    pile, whether a target lies in the segment above the last cut and the lowest rank
    of the targets of each suit in that segment (``_START`` before the first card), so
    card ``x`` ends an unstabbed interval exactly when it must leave before a target of
    that segment. ``cuts >= UNREACHABLE`` when some interval has no allowed cut point.
    O(cards scanned).
    """
    base = PILES + p * PILE_STRIDE
    down = pos[DOWN + p]
    cuts = state >> _CUTS
    seen = state & _ANY
    lowest = state & 0xFFFF
    for j in range(start, end):
        card = pos[base + j]
        if (targets >> card) & 1:
            if (lowest >> (4 * SUIT_OF[card])) & 15 > RANK_OF[card]:
                lowest = _lower(lowest, card)
                seen = _ANY
                continue
        elif not seen:
            continue
        if j < down:
            # face down: only its own move separates it from the target below
            cuts += 1
            continue
        # the tightest interval is (z, j]: z the highest target below that it must leave
        cut = j
        if pos[MOVED + card] != 0:
            low = j - 1
            while not ((targets >> pos[base + low]) & 1 and _must_leave(targets, card, pos[base + low])):
                low -= 1
            cut = -1
            for k in range(j - 1, max(low, down - 1), -1):
                if pos[MOVED + pos[base + k]] == 0:
                    cut = k
                    break
            if cut < 0:
                return UNREACHABLE << _CUTS
        cuts += 1
        seen = 0
        lowest = _NO_CARD
        for k in range(cut, j + 1):
            if (targets >> pos[base + k]) & 1:
                lowest = _lower(lowest, pos[base + k])
                seen = _ANY
    return (cuts << _CUTS) | seen | lowest


@jit(leaf=True)
def moves_bound(pos, targets, goal):
    """Lower bound on the moves from ``pos`` to the ``goal`` cards of the mask ``targets``
    on the foundations (``goal`` = their number), or UNREACHABLE.

    One pass up each pile (O(cards)).
    """
    if pos[SCORE] >= goal:
        return 0
    total = 0
    for p in range(N_PILES):
        cuts = _scan(pos, p, 0, pos[LENGTH + p], _START, targets) >> _CUTS
        if cuts >= UNREACHABLE:
            return UNREACHABLE
        total += cuts
    return max(total, 1)


PILE_STATES = 2 * N_PILES + 1
"""Words of one position's pile record (:func:`record_pile_states`)."""
_TOTAL = 2 * N_PILES  # record word: the sum of the piles' cuts

FACE_DOWN_STATES = N_PILES * N_PILES
"""Words of the face-down table (:func:`record_face_down_states`): it comes first in
the ``states`` array of :func:`bound_after_move`, the pile records after it."""


@jit(leaf=True, inline=True)
def record_pile_states(pos, states, at, targets):
    """Write the greedy state (see :func:`_scan`) of every pile of ``pos``, then the pile
    lengths and the sum of their cuts, to ``states[at : at + PILE_STATES]``."""
    total = 0
    for p in range(N_PILES):
        states[at + p] = _scan(pos, p, 0, pos[LENGTH + p], _START, targets)
        states[at + N_PILES + p] = pos[LENGTH + p]
        total += states[at + p] >> _CUTS
    states[at + _TOTAL] = total


@jit(leaf=True, inline=True)
def record_face_down_states(pos, states, targets):
    """Write to ``states[N_PILES * p + d]`` the greedy state of pile ``p`` after its ``d``
    lowest cards, for ``d`` from 0 to its face-down count (< N_PILES).

    Valid for every position reached from ``pos``: face-down cards never move, and the
    piles' face-down counts only fall.
    """
    for p in range(N_PILES):
        state = _START
        states[N_PILES * p] = state
        for d in range(pos[DOWN + p]):
            state = _scan(pos, p, d, d + 1, state, targets)
            states[N_PILES * p + d + 1] = state


@jit(leaf=True)
def _rescan(pos, states, record, p, targets):
    """Bring pile ``p``'s entries of the pile record at ``record`` up to date with
    ``pos``; return the change in its cuts.

    The pile must be a prefix or an extension of the pile the record describes, so
    a pile of unchanged length keeps its state, a shorter one is scanned again from
    its face-down cards up and a longer one resumes from its old state.
    """
    n = pos[LENGTH + p]
    before = states[record + N_PILES + p]
    if n == before:
        return 0
    old = states[record + p]
    if n < before:
        down = pos[DOWN + p]
        state = _scan(pos, p, down, n, states[N_PILES * p + down], targets)
    else:
        state = _scan(pos, p, before, n, old, targets)
    states[record + p] = state
    states[record + N_PILES + p] = n
    return (state >> _CUTS) - (old >> _CUTS)


@jit(leaf=True, inline=True)
def bound_after_move(pos, states, parent, child, targets, goal):
    """:func:`moves_bound` of ``pos`` just after one move, from the pile record (at
    ``parent``) of the position before it; the new record goes to ``child``.
    ``states`` starts with the face-down table of ``pos`` or of a position it was
    reached from (:func:`record_face_down_states`).

    A move and its foundation plays shorten piles (each then a prefix of what it was)
    and put cards on one pile, the destination (some of them, and then some of its
    old cards, may go on to the foundations). The undo log names the piles that
    changed: the move's source and destination and the pile of each play; only they
    are scanned (:func:`_rescan`), the other piles keep their states.
    """
    for i in range(PILE_STATES):
        states[child + i] = states[parent + i]
    total = states[child + _TOTAL]
    first = last_move_entry(pos)
    card, source = log_entry_card_pile(pos, first)
    total += _rescan(pos, states, child, source, targets)
    if pos[WHERE + card] >= 0:  # else its pile is named by its play
        total += _rescan(pos, states, child, pos[WHERE + card], targets)
    for k in range(first + 1, pos[LOG_LENGTH]):
        total += _rescan(pos, states, child, log_entry_card_pile(pos, k)[1], targets)
    states[child + _TOTAL] = total
    if total >= UNREACHABLE:
        return UNREACHABLE
    if pos[SCORE] >= goal:
        return 0
    return max(total, 1)
