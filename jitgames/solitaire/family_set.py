"""The exact set of positions of the family searches (:mod:`.family_search`,
:mod:`.family_bestfirst`, :mod:`.family_shortest`).

``slots`` holds ``capacity`` slots of three words (key word 0, key word 1, epoch),
linear probing from a SplitMix64 mix of the key; a slot of an older epoch is empty,
so a new deal costs no clearing (:func:`new_deal`).
"""
from __future__ import annotations

import numpy as np

from .._jit import jit, prefetch
from .._random import mix64
from .family import TO_FOUNDATION, build_key

SLOT_WORDS = 3
EPOCH_WORD = 0                  # meta words
META_SIZE = 2


@jit(leaf=True)
def new_deal(meta):
    """Start a new epoch of the set: every slot counts as empty."""
    meta[EPOCH_WORD] += 1


@jit(leaf=True)
def _first_slot(slots, key0, key1):
    """The slot where the probe sequence of the key ``(key0, key1)`` starts."""
    capacity = slots.shape[0] // SLOT_WORDS
    return np.int64(mix64(np.uint64(key0) ^ mix64(np.uint64(key1))) & np.uint64(capacity - 1))


@jit(leaf=True)
def _prefetch_children(pos, slots, moves, start, n):
    """Ask for the slots of the children that builds lead to (a cache hint only), so
    that their look-ups overlap their cache misses."""
    for i in range(start, start + n):
        move = moves[i]
        if move % 8 != TO_FOUNDATION:
            key0, key1 = build_key(pos, move)
            if key0 >= 0:
                prefetch(slots, _first_slot(slots, key0, key1) * SLOT_WORDS)


@jit(leaf=True)
def _probe(slots, epoch, key0, key1):
    """The first word of the slot holding the key ``(key0, key1)`` this epoch, or of the
    first empty slot of its probe sequence when it is absent (linear probing never
    deletes within an epoch, so a key present is met before that empty slot; the set
    is never full, so there is one)."""
    capacity = slots.shape[0] // SLOT_WORDS
    i = _first_slot(slots, key0, key1)
    while True:
        j = i * SLOT_WORDS
        if slots[j + 2] != epoch or (slots[j] == key0 and slots[j + 1] == key1):
            return j
        i = (i + 1) & (capacity - 1)


@jit(leaf=True)
def insert_key(slots, meta, key0, key1):
    """Add the key ``(key0, key1)`` to the set: 1 if it was new, 0 if present, -1 if full.

    The set is full at 3/4 of its slots (``meta[1]`` counts this epoch's keys).
    """
    epoch = meta[EPOCH_WORD]
    j = _probe(slots, epoch, key0, key1)
    if slots[j + 2] == epoch:
        return 0
    if 4 * (meta[1] + 1) > 3 * (slots.shape[0] // SLOT_WORDS):
        return -1
    slots[j] = key0
    slots[j + 1] = key1
    slots[j + 2] = epoch
    meta[1] += 1
    return 1


@jit(leaf=True)
def contains_key(slots, meta, key0, key1):
    """True when the key ``(key0, key1)`` is in the set (this epoch); adds nothing."""
    return slots[_probe(slots, meta[EPOCH_WORD], key0, key1) + 2] == meta[EPOCH_WORD]
