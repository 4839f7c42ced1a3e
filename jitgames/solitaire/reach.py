"""Which cards may still reach the foundations: an upper bound on a position's optimal score.

Three kinds of event can happen to a card ``c`` still in a pile during the rest of a
game: it is *exposed* (on top of its pile) at some time, it is *moved* by the player
at some time, it *reaches* its foundation. Each event has a necessary condition in
terms of other events:

- ``c`` reaches its foundation only when exposed, after ``c - 1`` (if ``c`` is not an ace);
- ``c``, if not exposed now, is exposed only after the card now directly on it
  leaves: that card is moved or reaches its foundation (a move of ``c`` or of a card
  below carries the card on it along);
- ``c`` is moved only if it has never been moved (every card moves at most once),
  while face up (it is now, or it gets exposed), onto ``c + 1`` exposed at some
  time, in another pile: if ``c + 1`` lies in ``c``'s pile now, a card that parts
  them must move first (one between them, or ``c + 1`` itself when it lies above);
- a king is moved only if it is not at the bottom of its pile, into an empty pile:
  one is empty now, or the card now at the bottom of a pile leaves it.

Starting from the cards exposed or on the foundations now, marking every event whose
condition is met until nothing changes marks every event of every continuation of
the game (each event's condition happens before it, so by induction along the
game). The marked foundation cards are therefore a superset of the cards any line
can put there: their number bounds the optimal score from above, and a line that
puts that many cards there puts exactly those cards there.
"""
from __future__ import annotations

import numpy as np

from .._jit import jit
from .rules import (DOWN, HEIGHT, LENGTH, MOVED, N_CARDS, N_PILES, ON_FOUNDATION, PILE_STRIDE,
                    PILES, RANK_OF, WHERE)

ALL_CARDS = (1 << N_CARDS) - 1
"""The mask of every card (bit ``c`` for card ``c``)."""


@jit(leaf=True)
def _apart(pos, moves, c):
    """False when ``c + 1`` lies in ``c``'s pile and none of the cards whose move could
    part them (those between, or ``c + 1`` itself when it lies above) may move."""
    p = pos[WHERE + c]
    if pos[WHERE + c + 1] != p:
        return True
    here = pos[HEIGHT + c]
    there = pos[HEIGHT + c + 1]
    low, high = (there + 1, here) if there < here else (here + 1, there + 1)
    for k in range(low, high):
        if (moves >> pos[PILES + p * PILE_STRIDE + k]) & 1:
            return True
    return False


@jit(leaf=True, inline=True)
def reachable_cards(pos):
    """Mask (bit ``c`` for card ``c``, int64) of the cards that may still reach the
    foundations from ``pos``: every card some line puts there, maybe more (see the
    module docstring). Cards already there are included. O(52) a pass, a few passes.
    """
    one = np.int64(1)
    exposed = np.int64(0)
    moves = np.int64(0)
    reach = np.int64(0)
    for c in range(N_CARDS):
        p = pos[WHERE + c]
        if p == ON_FOUNDATION:
            reach |= one << c
        elif pos[HEIGHT + c] == pos[LENGTH + p] - 1:
            exposed |= one << c
    changed = True
    while changed:
        changed = False
        # an empty pile, now or once the bottom card of a pile leaves it
        empty = False
        for p in range(N_PILES):
            if pos[LENGTH + p] == 0 or (moves | reach) >> pos[PILES + p * PILE_STRIDE] & 1:
                empty = True
        for c in range(N_CARDS):
            bit = one << c
            if reach & bit:
                continue
            p = pos[WHERE + c]
            h = pos[HEIGHT + c]
            if not exposed & bit:
                on = pos[PILES + p * PILE_STRIDE + h + 1]
                if (moves | reach) >> on & 1:
                    exposed |= bit
                    changed = True
            if not moves & bit and pos[MOVED + c] == 0 and (h >= pos[DOWN + p] or exposed & bit):
                if RANK_OF[c] == 12:
                    can = h > 0 and empty
                else:
                    can = (exposed >> (c + 1)) & 1 == 1 and _apart(pos, moves, c)
                if can:
                    moves |= bit
                    changed = True
            if exposed & bit and (RANK_OF[c] == 0 or reach >> (c - 1) & 1):
                reach |= bit
                changed = True
    return reach


@jit(leaf=True)
def card_count(cards):
    """Number of cards in the mask ``cards``."""
    n = 0
    while cards:
        cards &= cards - 1
        n += 1
    return n
