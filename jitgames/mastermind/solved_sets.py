"""The table of solved sets of the optimal search: consistent set -> its cost.

A key is a 63-bit hash of a consistent set and the guesses left (:func:`set_hash`,
never 0: 0 marks a free slot). An entry packs what the search proved of that set:

    entry = (guess + 1) << GUESS_SHIFT | value << 1 | exact

- ``exact`` (bit 0): ``value`` is the set's least total; else a lower bound of it;
- ``guess``: the first candidate attaining an exact value (-1 for a lower bound, or
  when the code index does not fit, in spaces of ``2 ** 20`` codes or more).

:func:`pack_entry` and :func:`unpack_entry` are the only code that knows this layout;
everything else reads the table through :func:`lookup`. The table is an open-addressing
NumPy array of ``(key, entry)`` rows, a power of two long, that may forget an entry
when full (:func:`cache_put`): that costs only time. A hash collision could in
principle corrupt a value; with 63-bit keys and at most millions of entries its
probability is below 1e-6, and the tests check the results against a cache-free
brute force.
"""
from __future__ import annotations

import numpy as np

from .._jit import jit
from .._random import GOLDEN, mix64

__all__ = ["set_hash", "pack_entry", "unpack_entry", "lookup", "cache_get", "cache_put",
           "merge_cache", "GUESS_SHIFT", "VALUE_MASK", "CACHE_PROBES"]

GUESS_SHIFT = 42
VALUE_MASK = (1 << (GUESS_SHIFT - 1)) - 1
CACHE_PROBES = 16  # slots looked at for a key before the table is taken as full there


@jit(leaf=True)
def set_hash(members, start, end, remaining):
    """63-bit key (never 0) of a consistent set (its increasing members) and the depth
    left."""
    h = mix64(np.uint64(remaining) + GOLDEN)
    for t in range(start, end):
        h = mix64(h ^ np.uint64(members[t]) + GOLDEN)
    return max(np.int64(h >> np.uint64(1)), np.int64(1))  # 0 marks a free cache slot


@jit(leaf=True)
def pack_entry(value, exact, guess):
    """The entry of ``value`` (below ``2 ** 41``), exact or a lower bound, with its
    ``guess`` (-1: none; dropped when it does not fit the entry's top bits)."""
    recorded = guess + 1 if exact and 0 <= guess + 1 < (1 << (62 - GUESS_SHIFT)) else 0
    return (np.int64(recorded) << GUESS_SHIFT) | (np.int64(value) << 1) | np.int64(exact)


@jit(leaf=True)
def unpack_entry(entry):
    """``(value, exact, guess)`` of an entry (guess -1 when none is recorded)."""
    return (entry >> 1) & VALUE_MASK, entry & 1 == 1, (entry >> GUESS_SHIFT) - 1


@jit(leaf=True)
def lookup(cache, key):
    """``(value, exact, guess)`` known of ``key`` (see :func:`unpack_entry`), or
    ``(-1, False, -1)`` when the table holds nothing of it."""
    entry = cache_get(cache, key)
    if entry < 0:
        return np.int64(-1), False, np.int64(-1)
    return unpack_entry(entry)


@jit(leaf=True)
def cache_get(cache, key):
    """The raw entry of ``key`` (> 0) in the table ``cache``, or -1."""
    mask = cache.shape[0] - 1
    i = key & mask
    for _ in range(CACHE_PROBES):
        if cache[i, 0] == key:
            return cache[i, 1]
        if cache[i, 0] == 0:
            return np.int64(-1)
        i = (i + 1) & mask
    return np.int64(-1)


@jit(leaf=True)
def cache_put(cache, key, entry):
    """Set the raw entry of ``key`` (> 0): in its slot or the first free one of the
    CACHE_PROBES slots from ``key mod size``; when none is free, in the first slot,
    forgetting the entry there (probes never stop at a taken slot, so the others
    stay reachable)."""
    mask = cache.shape[0] - 1
    i = key & mask
    for _ in range(CACHE_PROBES):
        if cache[i, 0] == key or cache[i, 0] == 0:
            cache[i, 0], cache[i, 1] = key, entry
            return
        i = (i + 1) & mask
    i = key & mask
    cache[i, 0], cache[i, 1] = key, entry


@jit(leaf=True)
def merge_cache(into, other):
    """Add the entries of table ``other`` to ``into`` (exact values win, else the larger
    lower bound); both hold only true values, so any merge order gives a valid table."""
    for i in range(other.shape[0]):
        key, entry = other[i, 0], other[i, 1]
        if key == 0:
            continue
        value, exact, _ = unpack_entry(entry)
        known, known_exact, _ = lookup(into, key)
        if known < 0 or (exact and not known_exact) or (
                not exact and not known_exact and value > known):
            cache_put(into, key, entry)
