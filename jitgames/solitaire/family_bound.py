"""An upper bound on the optimal score under any rule set of :mod:`.family`.

The search of :mod:`.family_search` can stop as soon as it reaches a score no line
can beat, and need not expand a position whose bound cannot beat what it looks for;
for a lost deal that is what lets it stop before it has seen every one of its (often
millions of) positions.

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

from .._bits import popcount
from .._jit import jit
from .family import ALASKA, DOWN, ETUDE, HEIGHT, LENGTH, PILES, PILE_STRIDE, RULES, WHERE
from .rules import N_CARDS, N_PILES


# Card sets as 52-bit masks (bit c: card c; suit s holds bits 13s .. 13s + 12).
_RANKS = (1 << 12) - 1     # the ranks below the king of one suit, moved down to bit 0
_SUIT = (1 << 13) - 1      # the ranks of one suit, moved down to bit 0
_ALL = (1 << N_CARDS) - 1
_KINGS = sum(1 << (13 * s + 12) for s in range(4))
_ACES = sum(1 << (13 * s) for s in range(4))
_NOT_ACES = _ALL ^ _ACES
_NOT_KINGS = _ALL ^ _KINGS


@jit(leaf=True)
def _places_shown(rules, x):
    """The cards that have a place (:data:`.family.PLACES`) in the mask ``x``."""
    if rules == ETUDE:
        return (x >> 1) & _NOT_KINGS
    if rules == ALASKA:
        return ((x >> 1) & _NOT_KINGS) | ((x << 1) & _NOT_ACES)
    # Yukon: rank r + 1 of the two suits of the other colour (0 and 3 black)
    black = ((x >> 1) & _RANKS) | ((x >> 40) & _RANKS)
    red = ((x >> 14) & _RANKS) | ((x >> 27) & _RANKS)
    return red | (black << 13) | (black << 26) | (red << 39)


@jit(leaf=True)
def bound_at_least(pos, need):
    """Grow the fixed point of the module docstring for ``pos`` until ``need`` cards may
    go home or nothing changes; return the cards that may go home then: the bound
    itself when it is below ``need``, else some number >= ``need`` (at most the bound).

    The sets are 52-bit masks grown in rounds: each round adds every card that a rule
    admits from the sets of the round before (may go home, as far along each suit as
    the cards that may be exposed run; may lead; the card under a card that may lead
    may be exposed; a pile may be empty), until a round adds nothing: the least fixed
    point. The sets only grow, so stopping early never claims more than it: the answer
    is ``>= need`` exactly when the bound is.
    """
    rules = pos[RULES]
    in_pile = 0
    face_up = 0
    bottom = 0
    shows = 0
    empty = 0
    # one pass over the piles, bottom to top (the cards in piles only, read in order)
    for p in range(N_PILES):
        n = pos[LENGTH + p]
        if n == 0:
            empty = 1
            continue
        first = PILES + p * PILE_STRIDE
        down = pos[DOWN + p]
        for h in range(n):
            bit = np.int64(1) << pos[first + h]
            in_pile |= bit
            if h >= down:
                face_up |= bit
        shows |= np.int64(1) << pos[first + n - 1]
        bottom |= np.int64(1) << pos[first]
    home = _ALL ^ in_pile
    shows |= home
    leads = 0
    while popcount(home) < need:
        # a suit's cards that may go home are a prefix of its ranks (those home, then
        # each whose predecessor may go home and that may be exposed): each suit's
        # prefix runs on through the cards that may be exposed, at once
        new_home = 0
        for s in range(4):
            ranks = (shows >> (13 * s)) & _SUIT
            new_home |= (ranks & ~(ranks + 1)) << (13 * s)
        kings = _KINGS if empty else 0
        new_leads = leads | ((face_up | shows) & in_pile
                             & (new_home | _places_shown(rules, shows & in_pile) | kings))
        fresh = new_leads & ~leads
        new_shows = shows
        while fresh:
            low = fresh & -fresh
            fresh ^= low
            c = popcount(low - 1)
            h = pos[HEIGHT + c]
            if h > 0:
                new_shows |= np.int64(1) << pos[PILES + pos[WHERE + c] * PILE_STRIDE + h - 1]
        if not empty and bottom & (new_home | (new_leads & _NOT_KINGS)):
            empty = 1
        elif new_home == home and new_leads == leads and new_shows == shows:
            break
        home, leads, shows = new_home, new_leads, new_shows
    return popcount(home)


@jit(leaf=True)
def score_bound(pos):
    """The upper bound of the module docstring for ``pos``."""
    return bound_at_least(pos, N_CARDS + 1)


def bound_of(pos) -> int:
    """:func:`score_bound` of ``pos`` as a Python int."""
    return int(score_bound(pos))
