"""Position table: a fixed-capacity, set-associative hash table of int64 keys with access counters.

The search stores, for each position it has finished, the position's value (see
:mod:`.search`). Keys are the exact position keys of :mod:`.rules` (56 bits), so a
match is a true match: no collision check is needed.

Layout
------
``slots``: int64 array of ``capacity * SLOT_WORDS`` words; slot ``j`` is two words,
``tag = key | epoch << 56`` (0 = never used) and
``value | last_use << 18 | hits << 42``: the stored value (< 2**18), the clock
reading of its last hit or store (saturating at 2**24 - 1) and its number of hits
(successful lookups, saturating at 2**21 - 1). Slots are grouped in buckets of
``BUCKET`` consecutive slots (64 bytes, one cache line); a key lives in the bucket
``mix64(key) mod (capacity / BUCKET)``. ``capacity`` is a power of two >= BUCKET.

``meta``: int64 array of ``META_SIZE`` words: the current epoch and clock, and the
statistics accumulated over every deal the table has served (lookups, probes,
evictions, stores, and the largest occupancy reached within one deal).

Epochs
------
A table serves many deals, one after another (one table per thread, allocated once).
:func:`table_new_deal` starts a new epoch instead of clearing memory: slots tagged
with an older epoch count as empty. The epoch lives in the top 8 bits of the tag, so
the table is really cleared once every 255 deals. Everything a deal does to the table
(its probes, evictions, occupancy) therefore depends on that deal alone, whatever
thread or chunk it runs in.

Eviction
--------
A store into a full bucket replaces the slot with the fewest hits (successful
lookups), ties broken by the least recently used (its last hit or store). Eviction
only costs time: a position that is not found is searched again and gets the same
value, so answers never depend on the capacity.
"""
from __future__ import annotations

import numpy as np

from ..errors import InputError
from .._jit import jit
from .._random import mix64

BUCKET = 4
SLOT_WORDS = 2
DEFAULT_CAPACITY = 1 << 16
DEFAULT_MAX_CAPACITY = 1 << 24   # 256 MiB: the largest table one deal may grow (see .search)
MAX_CAPACITY = 1 << 28           # 4 GiB: the largest table that may be asked for at all

# meta words
EPOCH = 0
CLOCK = 1
OCCUPANCY = 2
PEAK_OCCUPANCY = 3
LOOKUPS = 4
PROBES = 5
EVICTIONS = 6
STORES = 7
META_SIZE = 8

NOT_FOUND = -1
_EPOCH_SHIFT = np.int64(56)
_VALUE_MASK = np.int64((1 << 18) - 1)
_LAST_SHIFT = np.int64(18)
_LAST_MAX = np.int64((1 << 24) - 1)
_HITS_SHIFT = np.int64(42)
_HITS_MAX = np.int64((1 << 21) - 1)


def validate_capacity(capacity: int) -> int:
    """``capacity`` as an int.

    Raises
    ------
    InputError
        If ``capacity`` is not a power of two from ``BUCKET`` to ``MAX_CAPACITY``.
    """
    capacity = int(capacity)
    if capacity < BUCKET or capacity > MAX_CAPACITY or capacity & (capacity - 1):
        raise InputError(f"table capacity must be a power of two from {BUCKET} to "
                         f"{MAX_CAPACITY:,} (2**{MAX_CAPACITY.bit_length() - 1}), got {capacity}")
    return capacity


def new_table(capacity: int = DEFAULT_CAPACITY) -> tuple[np.ndarray, np.ndarray]:
    """Allocate an empty table ``(slots, meta)`` of ``capacity`` slots (see
    :func:`validate_capacity`)."""
    capacity = validate_capacity(capacity)
    return np.zeros(capacity * SLOT_WORDS, dtype=np.int64), np.zeros(META_SIZE, dtype=np.int64)


def table_bytes(capacity: int) -> int:
    """Memory taken by the slots of a table of ``capacity`` slots, in bytes."""
    return int(capacity) * SLOT_WORDS * 8


@jit(leaf=True)
def table_new_deal(slots, meta):
    """Start a new deal: forget every entry (by a new epoch) and restart the clock."""
    epoch = meta[EPOCH] + 1
    if epoch >= 256:
        slots[:] = 0
        epoch = 1
    meta[EPOCH] = epoch
    meta[CLOCK] = 0
    meta[OCCUPANCY] = 0


@jit(leaf=True)
def _bucket_start(slots, key):
    """Index of the first slot of ``key``'s bucket."""
    buckets = slots.shape[0] // (SLOT_WORDS * BUCKET)
    return np.int64(mix64(np.uint64(key)) & np.uint64(buckets - 1)) * BUCKET


@jit(leaf=True)
def _tick(meta):
    """The clock reading for a hit or store (saturating), then advance the clock."""
    now = min(meta[CLOCK], _LAST_MAX)
    meta[CLOCK] += 1
    return now


@jit(leaf=True)
def table_lookup(slots, meta, key):
    """Value stored for ``key``, or ``NOT_FOUND`` (-1). A hit bumps the slot's counters."""
    tag = key | (meta[EPOCH] << _EPOCH_SHIFT)
    first = _bucket_start(slots, key)
    meta[LOOKUPS] += 1
    for j in range(BUCKET):
        w = (first + j) * SLOT_WORDS
        if slots[w] == tag:
            meta[PROBES] += j + 1
            info = slots[w + 1]
            value = info & _VALUE_MASK
            hits = min((info >> _HITS_SHIFT) + 1, _HITS_MAX)
            slots[w + 1] = value | (_tick(meta) << _LAST_SHIFT) | (hits << _HITS_SHIFT)
            return value
    meta[PROBES] += BUCKET
    return NOT_FOUND


@jit(leaf=True)
def table_store(slots, meta, key, value):
    """Store ``value`` (0 <= value < 2**18) for ``key``, replacing its old value if any.

    A new key uses a free slot of the key's bucket (empty or from an older epoch), else
    evicts the slot with the fewest hits, the least recently used among equals.
    """
    epoch = meta[EPOCH]
    tag = key | (epoch << _EPOCH_SHIFT)
    first = _bucket_start(slots, key)
    for j in range(BUCKET):
        w = (first + j) * SLOT_WORDS
        if slots[w] == tag:
            slots[w + 1] = value | (slots[w + 1] & ~_VALUE_MASK)
            meta[STORES] += 1
            return
    chosen = -1
    for j in range(BUCKET):
        w = (first + j) * SLOT_WORDS
        if (slots[w] >> _EPOCH_SHIFT) & 255 != epoch:
            chosen = w
            break
    if chosen < 0:
        chosen = first * SLOT_WORDS
        for j in range(1, BUCKET):
            w = (first + j) * SLOT_WORDS
            # hits then last use, compared at once: (hits << 24 | last_use)
            if slots[w + 1] >> _LAST_SHIFT < slots[chosen + 1] >> _LAST_SHIFT:
                chosen = w
        meta[EVICTIONS] += 1
    else:
        occupancy = meta[OCCUPANCY] + 1
        meta[OCCUPANCY] = occupancy
        if occupancy > meta[PEAK_OCCUPANCY]:
            meta[PEAK_OCCUPANCY] = occupancy
    meta[STORES] += 1
    slots[chosen] = tag
    slots[chosen + 1] = value | (_tick(meta) << _LAST_SHIFT)
