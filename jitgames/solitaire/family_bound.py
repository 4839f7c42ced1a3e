"""An upper bound on the optimal score under any rule set of :mod:`.family`.

The search of :mod:`.family_search` can stop as soon as it reaches a score no line
can beat; for a lost deal that bound is what lets it stop before it has seen every
one of its (often millions of) positions.

The bound is the least fixed point of three over-approximations, grown together
from the position where it stands:

- *may be exposed*: the exposed cards; and a card once the card lying on it now
  may lead (it must leave, as the head of a move or to its foundation, before the
  card under it is ever exposed: nothing else is put on a card that is covered);
- *may lead* (may ever be the head of a move or go home): a card face up or that
  may be exposed (to turn it up) that may go home, or has a place
  (:data:`.family.PLACES`) off the foundations that may be exposed, or is a king
  while some pile may be empty;
- *may go home*: a card that may be exposed whose suit's next lower card may go
  home (or is on its foundation already);
- *may empty a pile*: a pile is empty, or the bottom card of a pile may lead
  (not a king: moving a king off the bottom of a pile frees nothing new) or may go
  home.

Each rule is a necessary condition of the first time the event it names happens in
a line, in terms of events that happened before it, so (by induction along the
line) the
cards that may go home include every card any line puts on the foundations, and
their number (with the cards already home) bounds the score from above.
"""
from __future__ import annotations

import numpy as np

from .._jit import jit
from .family import (DOWN, FOUNDATION, HEIGHT, LENGTH, ONTO, PILES, PILE_STRIDE, PLACES, RULES, WHERE)
from .rules import N_CARDS, N_PILES, RANK_OF, SUIT_OF


QUEUE_SIZE = 6 * N_CARDS
"""Room of the work stack of :func:`bound_at_least`: each card is pushed once at the
start, and again at most once when its predecessor goes home, once when it may be
exposed, and by at most two cards that may be put on it, when they may be exposed;
the four kings when a pile may be empty (at most 5 * 52 + 4 pushes)."""


@jit(leaf=True)
def bound_at_least(pos, shows, leads, home, stack, need):
    """Grow the fixed point of the module docstring for ``pos`` until ``need`` cards may
    go home or nothing changes; return the cards that may go home then: the bound
    itself when it is below ``need``, else some number >= ``need`` (at most the bound).

    ``shows``, ``leads``, ``home`` (52 int64 each) are scratch and end as the sets
    may-be-exposed, may-lead and may-go-home grown so far (1 = may); ``stack``
    (:data:`QUEUE_SIZE` int64) is scratch. The sets only grow, so stopping early never
    claims more than the least fixed point: the answer is ``>= need`` exactly when the
    bound is. A work stack holds the cards whose rules may have become true: every card
    at first, then a card again when a premise of its rules turns true (the card under
    a card that may lead may be exposed; a card whose predecessor may go home; the cards
    that may be put on a card that may be exposed; the kings once a pile may be empty),
    so every rule is looked at after its last premise turns true: the result is the
    least fixed point, whatever the order.
    """
    rules = pos[RULES]
    total = 0
    top = 0
    empty = 0
    for p in range(N_PILES):
        if pos[LENGTH + p] == 0:
            empty = 1
    for c in range(N_CARDS):
        p = pos[WHERE + c]
        leads[c] = 0
        if p < 0:
            home[c] = 1
            shows[c] = 1
            total += 1
        else:
            home[c] = 0
            shows[c] = 1 if pos[HEIGHT + c] == pos[LENGTH + p] - 1 else 0
            stack[top] = c
            top += 1
    while top > 0 and total < need:
        top -= 1
        c = stack[top]
        p = pos[WHERE + c]
        h = pos[HEIGHT + c]
        if not home[c] and shows[c]:
            rank = RANK_OF[c]
            if rank == pos[FOUNDATION + SUIT_OF[c]] or (rank > 0 and home[c - 1]):
                home[c] = 1
                total += 1
                if rank < 12 and pos[WHERE + c + 1] >= 0:
                    stack[top] = c + 1
                    top += 1
        if not leads[c] and (h >= pos[DOWN + p] or shows[c]):
            a = PLACES[rules, c, 0]
            b = PLACES[rules, c, 1]
            if home[c] or (a >= 0 and shows[a] and pos[WHERE + a] >= 0) \
                    or (b >= 0 and shows[b] and pos[WHERE + b] >= 0) \
                    or (RANK_OF[c] == 12 and empty):
                leads[c] = 1
                if h > 0:
                    under = pos[PILES + p * PILE_STRIDE + h - 1]
                    if not shows[under]:
                        shows[under] = 1
                        stack[top] = under
                        top += 1
                        for j in range(2):
                            other = ONTO[rules, under, j]
                            if other >= 0 and pos[WHERE + other] >= 0:
                                stack[top] = other
                                top += 1
        if not empty and h == 0 and (home[c] or (leads[c] and RANK_OF[c] != 12)):
            empty = 1
            for suit in range(4):
                if pos[WHERE + suit * 13 + 12] >= 0:
                    stack[top] = suit * 13 + 12
                    top += 1
    return total


@jit(leaf=True)
def score_bound(pos, shows, leads, home, stack):
    """The upper bound of the module docstring for ``pos``; ``shows``, ``leads``,
    ``home`` (52 int64 each) are scratch and end as the sets may-be-exposed, may-lead
    and may-go-home (1 = may); ``stack`` (:data:`QUEUE_SIZE` int64) is scratch."""
    return bound_at_least(pos, shows, leads, home, stack, N_CARDS + 1)


def bound_of(pos) -> int:
    """:func:`score_bound` of ``pos`` with scratch of its own."""
    scratch = np.zeros((4, QUEUE_SIZE), dtype=np.int64)
    return int(score_bound(pos, scratch[0], scratch[1], scratch[2], scratch[3]))
