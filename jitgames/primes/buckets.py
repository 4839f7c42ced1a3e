"""Bucket lists for the large sieving primes of the wheel sieve.

A sieving prime much larger than a segment hits it a few times at most, often not at
all; visiting every such prime at every segment (to find that it has nothing to do
there) costs more than its crossing off. Instead each large prime waits in the
*bucket* of the segment that holds its next multiple. A segment empties its own
bucket, crosses off those primes' multiples inside it, and files each prime into
the bucket of the segment of its following multiple, so a segment touches only the
primes that hit it. This is Tomas Oliveira e Silva's cache-friendly bucket sieve, as
used by Kim Walisch's primesieve for its largest primes (the design is followed; no
code is copied).

Storage
-------
A bucket is a stack of blocks of :data:`BLOCK_ENTRIES` entries; only its newest
block is partly filled. An entry is two ``uint32``: the prime, and its *place* =
8 * (byte offset of the next multiple inside the bucket's segment) + wheel index of
the multiplier (see :mod:`.wheel`). Blocks come from a pool sized for the worst
case: every prime in a full block, one partial block per segment, and the block
being emptied, so filing never fails and memory is bounded by
``8 * (n_primes + (n_segments + 2) * BLOCK_ENTRIES)`` bytes.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from jitgames._jit import jit
from jitgames.primes.wheel import (CROSS_CORRECTION, CROSS_MASK, WHEEL_GAP, WHEEL_INDEX,
                                   first_multiple)

__all__ = ["BLOCK_ENTRIES", "Buckets", "new_buckets", "file_prime", "file_primes",
           "empty_bucket", "bucket_sieve", "bucket_bytes"]

#: Entries per block (2 KiB of entries): large enough that walking a bucket reads
#: memory in order, small enough that the partial blocks of all buckets stay small.
BLOCK_ENTRIES = 256


class Buckets(NamedTuple):
    """The buckets of the segments of one chunk (see the module docstring).

    ``primes``/``places``: entries, block ``b`` at ``[b * BLOCK_ENTRIES, ...)``;
    ``next_block``: the next older block of the same bucket (-1: none); ``fill``:
    entries used in each block; ``head``: newest block of each segment's bucket (-1:
    empty); ``free``: ``free[0]`` free blocks, listed in ``free[1:free[0] + 1]``.
    """

    primes: np.ndarray
    places: np.ndarray
    next_block: np.ndarray
    fill: np.ndarray
    head: np.ndarray
    free: np.ndarray


def bucket_bytes(n_primes: int, n_segments: int) -> int:
    """Bytes :func:`new_buckets` allocates for these sizes."""
    n_blocks = n_primes // BLOCK_ENTRIES + n_segments + 2
    return n_blocks * (8 * BLOCK_ENTRIES + 12) + 4 * n_segments + 4


@jit
def new_buckets(n_primes, n_segments):
    """Empty buckets for ``n_segments`` segments, room for ``n_primes`` primes."""
    n_blocks = n_primes // BLOCK_ENTRIES + n_segments + 2
    free = np.empty(n_blocks + 1, dtype=np.int32)
    free[0] = n_blocks
    for b in range(n_blocks):
        free[b + 1] = n_blocks - 1 - b
    return Buckets(np.empty(n_blocks * BLOCK_ENTRIES, dtype=np.uint32),
                   np.empty(n_blocks * BLOCK_ENTRIES, dtype=np.uint32),
                   np.full(n_blocks, -1, dtype=np.int32), np.zeros(n_blocks, dtype=np.int32),
                   np.full(n_segments, -1, dtype=np.int32), free)


@jit
def file_prime(buckets, segment, p, offset, wheel):
    """Put prime ``p`` into the bucket of ``segment``: its next multiple is at byte
    ``offset`` of that segment, multiplier of wheel index ``wheel``."""
    b = buckets.head[segment]
    if b < 0 or buckets.fill[b] == BLOCK_ENTRIES:
        top = buckets.free[0]
        new = buckets.free[top]
        buckets.free[0] = top - 1
        buckets.next_block[new] = b
        buckets.fill[new] = 0
        buckets.head[segment] = new
        b = new
    i = b * BLOCK_ENTRIES + buckets.fill[b]
    buckets.primes[i] = p
    buckets.places[i] = np.uint32(offset * 8 + wheel)
    buckets.fill[b] += 1


@jit
def file_primes(buckets, primes, first_byte, n_bytes, segment_bytes):
    """File every prime of ``primes`` (uint32, > 5) whose first multiple to cross
    (``p m``, ``m >= p`` prime to 30) lies in bytes ``[first_byte, first_byte +
    n_bytes)``, cut into segments of ``segment_bytes``; the others have nothing to do
    there."""
    for j in range(primes.size):
        p = np.int64(primes[j])
        byte, w = first_multiple(p, first_byte)
        offset = byte - first_byte
        if byte >= 0 and offset < n_bytes:
            segment = offset // segment_bytes
            file_prime(buckets, segment, p, offset - segment * segment_bytes, w)


@jit
def empty_bucket(buckets, sieve, segment, length, segment_bytes):
    """Cross off, in ``sieve[:length]`` (segment number ``segment``), the multiples of
    the primes in its bucket, and file each prime under the segment of its next
    multiple (dropped past the last segment). Every segment but the last is
    ``segment_bytes`` long."""
    n_segments = buckets.head.size
    b = buckets.head[segment]
    buckets.head[segment] = -1
    while b >= 0:
        start = b * BLOCK_ENTRIES
        for i in range(start, start + buckets.fill[b]):
            p = np.int64(buckets.primes[i])
            place = np.int64(buckets.places[i])
            at = place >> 3
            w = place & 7
            q = p // 30
            c = WHEEL_INDEX[p % 30]
            while at < length:
                sieve[np.uint64(at)] &= CROSS_MASK[c, w]
                at += q * WHEEL_GAP[w] + CROSS_CORRECTION[c, w]
                w = (w + 1) & 7
            ahead = at // segment_bytes  # 0 only past the end of a short last segment
            if ahead > 0 and segment + ahead < n_segments:
                file_prime(buckets, segment + ahead, p, at - ahead * segment_bytes, w)
        older = buckets.next_block[b]
        top = buckets.free[0] + 1
        buckets.free[top] = b
        buckets.free[0] = top
        b = older


@jit
def bucket_sieve(sieve, first_byte, primes, segment_bytes):
    """Clear in ``sieve`` (bytes ``first_byte ..``, see :mod:`.wheel`) the multiples
    ``p m`` (``m >= p`` prime to 30) of each prime of ``primes`` (uint32, > 5), going
    through the segments of ``segment_bytes`` in order with bucket lists: the kernel
    the wheel sieve runs for its large primes, on its own."""
    n_bytes = sieve.size
    n_segments = max(1, (n_bytes + segment_bytes - 1) // segment_bytes)
    buckets = new_buckets(primes.size, n_segments)
    file_primes(buckets, primes, first_byte, n_bytes, segment_bytes)
    for s in range(n_segments):
        start = s * segment_bytes
        empty_bucket(buckets, sieve[start:], s, min(segment_bytes, n_bytes - start),
                     segment_bytes)
