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

Kings and empty piles
---------------------
In that fixed point, once one pile may be empty every king may take it, though one
pile holds one king. The bound counts the entries: a king *enters* when it leads into
an empty pile from a card (not from the bottom of a pile). A king enters at most once:
only kings go into empty piles, so a king at the bottom of a pile stays at the bottom
until it goes home. Let ``k_i`` be the time of the ``i``-th entry. The empty piles
change by +1 when the bottom card of a pile leaves (as the head of a move or home) and
by -1 when a king-led run goes into one; a king that leads from the bottom of a pile
into another empty pile gives one of each. So before ``k_i`` (where at least one pile
is empty) the piles empty now, plus the bottom cards other than kings that have led or
gone home (each pile's at most once: no other card becomes a bottom card), plus the
kings that have gone home, number at least ``i`` (the ``i - 1`` entries before took
one each). Every event before ``k_i`` happens in a line in which only the kings of the
first ``i - 1`` entries have entered, so it lies in the fixed point with every other
king lying on a card barred from empty piles (a king at the bottom of a pile is not
barred, but its leading exposes nothing and empties nothing new); and that fixed
point's "may lead" and "may go home" sets over-approximate those events, so its count
of piles that may be emptied is at least ``i``. Hence for the set ``T`` of the kings
that a line makes enter, some order of ``T`` passes these counts, and the line's
foundation cards lie in the fixed point with the kings outside ``T`` barred. The bound
is therefore the most cards that may go home over every set ``T`` some order of which
passes the counts (:func:`_bound_over_entries`); ``T`` of all kings lying on a card
gives the plain fixed point, so this bound is never above it.
"""
from __future__ import annotations

import numpy as np

from .._jit import jit
from .family import (ALASKA, DOWN, ETUDE, FOUNDATION, HEIGHT, LENGTH, PILES, PILE_STRIDE, RULES, WHERE)
from .rules import N_CARDS, N_PILES, RANK_OF, SUIT_OF


# Card sets as 52-bit masks (bit c: card c; suit s holds bits 13s .. 13s + 12).
_RANKS = (1 << 12) - 1     # the ranks below the king of one suit, moved down to bit 0
_ALL = (1 << N_CARDS) - 1
_KINGS = sum(1 << (13 * s + 12) for s in range(4))
_ACES = sum(1 << (13 * s) for s in range(4))
_NOT_ACES = _ALL ^ _ACES
_NOT_KINGS = _ALL ^ _KINGS


@jit(leaf=True)
def _count(x):
    """The number of cards in the 52-bit mask ``x`` (a SWAR population count)."""
    x = x - ((x >> 1) & 0x0005555555555555)
    x = (x & 0x0003333333333333) + ((x >> 2) & 0x0003333333333333)
    x = (x + (x >> 4)) & 0x000F0F0F0F0F0F0F
    x = x + (x >> 8)
    x = x + (x >> 16)
    return (x + (x >> 32)) & 0x7F


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
def _grow(pos, rules, need, barred, in_pile, face_up, bottom, fits, shows, empty):
    """``(home, leads)``: the least fixed point of the module docstring, grown from the
    position's sets until ``need`` cards may go home or nothing changes, with the kings
    of the mask ``barred`` never leading into an empty pile ("Kings that must take an
    empty pile" in the module docstring; 0: the plain bound).

    The sets are 52-bit masks grown in rounds: each round adds every card that a rule
    admits from the sets of the round before (may go home; may lead; the card under a
    card that may lead may be exposed; a pile may be empty), until a round adds nothing:
    the least fixed point. The sets only grow, so stopping early never claims more than
    it: the home set reaches ``need`` cards exactly when the fixed point's does.
    """
    home = _ALL ^ in_pile
    leads = 0
    free_kings = _KINGS & ~barred
    while _count(home) < need:
        new_home = home | (shows & in_pile & (fits | ((home << 1) & _NOT_ACES)))
        kings = free_kings if empty else 0
        new_leads = leads | ((face_up | shows) & in_pile
                             & (new_home | _places_shown(rules, shows & in_pile) | kings))
        fresh = new_leads & ~leads
        new_shows = shows
        while fresh:
            low = fresh & -fresh
            c = _count(low - 1)
            fresh ^= low
            h = pos[HEIGHT + c]
            if h > 0:
                new_shows |= np.int64(1) << pos[PILES + pos[WHERE + c] * PILE_STRIDE + h - 1]
        if not empty and bottom & (new_home | (new_leads & _NOT_KINGS)):
            empty = 1
        elif new_home == home and new_leads == leads and new_shows == shows:
            break
        home, leads, shows = new_home, new_leads, new_shows
    return home, leads


@jit(leaf=True)
def _bound_over_entries(pos, rules, need, in_pile, face_up, bottom, fits, shows, empty, empties,
                        plain):
    """The bound of the module docstring ("Kings and empty piles"), stopped early: the
    most cards that may go home over the sets ``T`` of kings that may have entered
    empty piles from above a card, in an order the count of empty piles allows; the
    first count ``>= need`` found is returned at once. ``empties``: the empty piles now.

    Forward over the subsets ``T`` of the kings now lying on a card (bit ``i`` of ``T``:
    the ``i``-th of them by suit): ``T`` is *feasible* when its kings can have entered
    first, in some order (the empty set is); the fixed point with the other kings barred
    from empty piles bounds every line in which only ``T``'s kings have entered, and from
    a feasible ``T`` one more king may enter when the piles that may have been emptied
    in it number at least ``|T| + 1``.
    """
    movable = 0
    for s in range(4):
        king = 13 * s + 12
        if pos[WHERE + king] >= 0 and pos[HEIGHT + king] > 0:
            movable |= np.int64(1) << king
    k = _count(movable)
    full = (1 << k) - 1
    feasible = np.int64(1)           # bit T: the subset T is feasible; the empty one is
    best = 0
    for t in range(full + 1):
        if not (feasible >> t) & 1:
            continue
        barred = 0
        i = 0
        for s in range(4):
            king = np.int64(1) << (13 * s + 12)
            if movable & king:
                if not (t >> i) & 1:
                    barred |= king
                i += 1
        home, leads = _grow(pos, rules, need, barred, in_pile, face_up, bottom, fits,
                            shows, empty)
        n = _count(home)
        if n >= need:
            return n
        best = max(best, n)
        emptied = empties + _count(bottom & _NOT_KINGS & (home | leads) & in_pile) \
            + _count(_KINGS & home & in_pile)
        size = _count(t)
        if emptied >= k:
            return plain             # every king may enter after T's: the plain fixed point
        if emptied > size:
            for i in range(k):
                if not (t >> i) & 1:
                    feasible |= np.int64(1) << (t | (1 << i))
    return best


@jit(leaf=True)
def bound_at_least(pos, need):
    """The upper bound of the module docstring for ``pos``, stopped early at ``need``
    cards: a number that is >= ``need`` exactly when the bound is, at most the bound
    then, and between the bound and the plain fixed point's count below it (the bound
    itself when ``need`` is above 52).

    The plain fixed point (every king free to take an empty pile) comes first: it is at
    least the bound, so when it is below ``need`` it answers. Otherwise the kings'
    entries into empty piles are counted (:func:`_bound_over_entries`).
    """
    rules = pos[RULES]
    in_pile = 0
    face_up = 0
    fits = 0
    bottom = 0
    shows = 0
    for c in range(N_CARDS):
        p = pos[WHERE + c]
        bit = np.int64(1) << c
        if p < 0:
            shows |= bit
            continue
        h = pos[HEIGHT + c]
        in_pile |= bit
        if h >= pos[DOWN + p]:
            face_up |= bit
        if h == pos[LENGTH + p] - 1:
            shows |= bit
        if h == 0:
            bottom |= bit
        if RANK_OF[c] == pos[FOUNDATION + SUIT_OF[c]]:
            fits |= bit
    empties = 0
    for p in range(N_PILES):
        if pos[LENGTH + p] == 0:
            empties += 1
    empty = 1 if empties else 0
    home, _ = _grow(pos, rules, need, 0, in_pile, face_up, bottom, fits, shows, empty)
    plain = _count(home)
    if plain < need <= N_CARDS:
        return plain
    return _bound_over_entries(pos, rules, need, in_pile, face_up, bottom, fits, shows, empty,
                               empties, plain)


@jit(leaf=True)
def score_bound(pos):
    """The upper bound of the module docstring for ``pos``."""
    return bound_at_least(pos, N_CARDS + 1)


def bound_of(pos) -> int:
    """:func:`score_bound` of ``pos`` as a Python int."""
    return int(score_bound(pos))
