"""Segmented sieve of Eratosthenes on the mod-30 wheel: count and list primes in [a, b).

How the work is laid out
------------------------
The bytes of the wheel (:mod:`.wheel`: 30 numbers a byte, 8 bits for the residues
prime to 30) covering ``[a, b)`` are cut into *chunks* of whole segments; ``prange``
runs over the chunks, and each chunk owns its segment buffer and the state of its
sieving primes (found by one division per prime per chunk), so counts never depend
on the number of threads.

Each segment (``SEGMENT_BYTES`` = 512 KiB, 15.7 million numbers, half the L2 cache
of a core) is

1. filled from the pre-sieve patterns of the primes 7 .. 163 (:func:`.wheel.presieve`)
   and crossed off by the *small* sieving primes (below ``SMALL_PRIME_LIMIT``), one
   ``BLOCK_BYTES`` = 32 KiB block at a time, so that their many writes stay in the L1
   cache; the next block is pre-sieved first, so each turn of the wheel begun in a
   block is finished there (:func:`.wheel.cross_off_turns`);
2. crossed off by the *medium* sieving primes over the whole segment: each keeps a
   4-byte offset of its next multiple and a 1-byte wheel index, and is looked at
   once per segment;
3. crossed off by the *large* sieving primes (above ``LARGE_PRIME_FACTOR`` times the
   segment's bytes, hitting it twice or less): they wait in bucket lists
   (:mod:`.buckets`), so the segment touches only the primes that hit it;
4. counted by popcount over 64-bit words, or listed bit by bit.

Memory per thread: the segment, 5 bytes per small or medium sieving prime, 8 bytes
per large one (:func:`memory_bytes`).

Range
-----
Exact for every ``0 <= a <= b <= 2^64``. A sieve needs the primes up to sqrt(b):
below 10^18 that is at most the 50,847,534 primes below 10^9 (203 MB). When the
interval is narrow next to sqrt(b) (a window of 10^6 near 10^18) that would cost far
more than the window, so the *hybrid* method sieves with the primes up to a bound
``B`` only and settles each survivor ``n >= (B + 1)^2`` with deterministic
Miller-Rabin (:func:`.primality.is_prime`): about 4% of a window survives a bound of
10^6. ``method="auto"`` picks the cheaper; ``"test"`` runs Miller-Rabin on every
odd number (the plain method, kept as an independent check).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numba
import numpy as np

from jitgames._jit import fetch_add, jit, prange
from jitgames.errors import InputError
from jitgames.primes.buckets import bucket_bytes, empty_bucket, file_primes, new_buckets
from jitgames.primes.primality import is_prime
from jitgames.primes.wheel import (PRESIEVE_LIMIT, RESIDUES, WHEEL_INDEX, byte_mask_below,
                                   byte_mask_from, count_bits, cross_off, cross_off_turns,
                                   first_multiple, presieve, presieve_tables)

__all__ = [
    "count_primes", "check_count", "primes_between", "PrimeCount", "SIEVE_LIMIT",
    "MAX_COUNT_WIDTH", "MAX_LIST_WIDTH", "MAX_TEST_WIDTH", "U64_LIMIT", "plain_sieve",
    "sieve_chunks", "count_by_testing", "primality_mask", "SievingPrimes", "Presieve",
    "SEGMENT_BYTES", "BLOCK_BYTES", "sieve_plan", "SievePlan", "memory_bytes", "hybrid_bound",
]

U64_LIMIT = 2**64
#: Largest b for which the full sieve is used (its primes up to sqrt(b) fit in memory).
SIEVE_LIMIT = 10**18
MAX_COUNT_WIDTH = 10**12
MAX_LIST_WIDTH = 10**9
#: Widest interval for the methods that run Miller-Rabin on many numbers.
MAX_TEST_WIDTH = 10**9
SEGMENT_BYTES = 1 << 19
BLOCK_BYTES = 1 << 15
#: Sieving primes below this are "small": crossed off block by block.
SMALL_PRIME_LIMIT = 8192
#: Sieving primes above this many times the segment length (bytes) are "large": they
#: hit a segment about 8 / LARGE_PRIME_FACTOR times or less, and wait in bucket lists
#: (:mod:`.buckets`) for the segments they hit.
LARGE_PRIME_FACTOR = 4
_MAX_CHUNK_BYTES = 1 << 30  # chunk offsets stay below 2^31, so uint32 state never wraps
_FAR = 0xFFFFFFFF  # "no multiple in this chunk"
_CHEAP_BASE = 1 << 17  # the hybrid sieves with at least the primes up to this
_MAX_HYBRID_BASE = 10**8  # ... and at most these (5.8 million primes, 23 MB)


class SievingPrimes(NamedTuple):
    """Sieving primes above the pre-sieve limit: ``primes`` (uint32, increasing),
    ``classes`` (uint8 wheel index of p mod 30) and ``n_small`` (how many are small)."""

    primes: np.ndarray
    classes: np.ndarray
    n_small: int


class Presieve(NamedTuple):
    """Pre-sieve patterns (see :func:`.wheel.presieve_tables`) and the pre-sieved primes."""

    patterns: np.ndarray
    starts: np.ndarray
    periods: np.ndarray
    primes: np.ndarray


_PRESIEVE = None


def _presieve() -> Presieve:
    global _PRESIEVE
    if _PRESIEVE is None:
        patterns, starts, periods = presieve_tables()
        small = np.array([p for p in range(7, PRESIEVE_LIMIT + 1)
                          if all(p % d for d in range(2, int(p**0.5) + 1))], dtype=np.int64)
        _PRESIEVE = Presieve(patterns, starts, periods, small)
    return _PRESIEVE


@jit
def plain_sieve(limit):
    """Odd primes ``3 <= p <= limit`` (int64 array), by a plain odd-only sieve."""
    if limit < 3:
        return np.empty(0, dtype=np.int64)
    n_odd = (limit - 1) // 2  # m = 1..n_odd  <->  3, 5, ..., 2 n_odd + 1
    flags = np.ones(n_odd + 1, dtype=np.uint8)
    flags[0] = 0
    m = 1
    while True:
        p = 2 * m + 1
        if p * p > limit:
            break
        if flags[m]:
            for k in range((p * p - 1) // 2, n_odd + 1, p):
                flags[k] = 0
        m += 1
    count = 0
    for k in range(n_odd + 1):
        if flags[k]:
            count += 1
    out = np.empty(count, dtype=np.int64)
    j = 0
    for k in range(n_odd + 1):
        if flags[k]:
            out[j] = 2 * k + 1
            j += 1
    return out


@jit
def _sieve_segment(segment, length, start, first, stop, lo, last, base, pre, pos, wheel):
    """Sieve bytes ``[start, start + length)`` into ``segment`` (state in pos/wheel).

    ``first``/``stop`` are the interval's first and past-the-end bytes, ``lo``/``last``
    its first and last numbers (uint64); bits outside ``[lo, last]`` are cleared, and in the very first bytes
    1 is cleared and the pre-sieved primes restored.
    """
    n_small = base.n_small
    presieve(segment, min(BLOCK_BYTES, length), start, pre.patterns, pre.starts, pre.periods)
    block_start = 0
    while block_start < length:  # pre-sieve and small primes: block by block, in L1
        block_end = min(block_start + BLOCK_BYTES, length)
        next_end = min(block_end + BLOCK_BYTES, length)
        if next_end > block_end:  # pre-sieved ahead: it takes the ends of the turns
            presieve(segment[block_end:], next_end - block_end, start + block_end,
                     pre.patterns, pre.starts, pre.periods)
        # A small prime's turn spans p < SMALL_PRIME_LIMIT bytes: when the next block
        # holds that many, each turn begun in this block is finished in one go.
        whole_turns = next_end - block_end >= SMALL_PRIME_LIMIT
        for j in range(n_small):
            if whole_turns:
                at, w = cross_off_turns(segment, block_end, np.int64(base.primes[j]),
                                        np.int64(base.classes[j]), np.int64(pos[j]),
                                        np.int64(wheel[j]))
            else:
                at, w = cross_off(segment, block_end, np.int64(base.primes[j]),
                                  np.int64(base.classes[j]), np.int64(pos[j]),
                                  np.int64(wheel[j]))
            pos[j] = at
            wheel[j] = w
        block_start = block_end
    for j in range(n_small):
        pos[j] -= length
    for j in range(n_small, pos.size):  # medium primes (the large ones are in buckets)
        at = np.int64(pos[j])
        if at < length:
            at, w = cross_off(segment, length, np.int64(base.primes[j]),
                              np.int64(base.classes[j]), at, np.int64(wheel[j]))
            wheel[j] = w
        pos[j] = at - length
    if start * 30 < PRESIEVE_LIMIT + 1:  # the pattern also removed 7 .. 163 themselves
        for i in range(pre.primes.size):
            p = pre.primes[i]
            if p // 30 < start + length and p // 30 >= start:
                segment[p // 30 - start] |= np.uint8(1 << WHEEL_INDEX[p % 30])
        if start == 0:
            segment[0] &= np.uint8(0xFE)  # 1 is not prime
    if start == first:
        segment[0] &= byte_mask_from(np.int64(lo - np.uint64(first) * np.uint64(30)))
    if start + length == stop:
        top = last - np.uint64(stop - 1) * np.uint64(30)  # 0 .. 29
        segment[length - 1] &= byte_mask_below(np.int64(top) + 1)
    for j in range(length, (length + 7) // 8 * 8):
        segment[j] = 0


@jit
def _settle_segment(segment, length, start, verify_from, write, out, cursor):
    """Count (and when ``write``, list into ``out`` from ``cursor``) the set bits; a
    bit for ``n >= verify_from`` counts only if Miller-Rabin says n is prime.
    Returns ``(count, cursor)``."""
    if not write and start + length <= np.int64(verify_from // np.uint64(30)):
        return count_bits(segment.view(np.uint64), (length + 7) // 8), cursor
    found = 0
    for j in range(length):
        byte = segment[j]
        if byte == 0:
            continue
        base = np.uint64(start + j) * np.uint64(30)
        for k in range(8):
            if byte & (1 << k):
                n = base + np.uint64(RESIDUES[k])
                if n < verify_from or is_prime(n):
                    found += 1
                    if write:
                        out[cursor] = n
                        cursor += 1
    return found, cursor


@jit(parallel=True)
def sieve_chunks(first, stop, lo, last, base, pre, segment_bytes, chunk_bytes, verify_from,
                 write, offsets, out, slots):
    """Primes per chunk among the bits of bytes ``[first, stop)`` within ``[lo, last]``.

    ``base`` (:class:`SievingPrimes`) holds every prime from 167 up to some bound B;
    survivors ``n >= verify_from`` (set to ``(B + 1)^2`` or more) are tested by
    Miller-Rabin. Chunk ``c`` covers bytes ``[first + c chunk_bytes, ...)``; when
    ``write`` its primes go to ``out[offsets[c]:]`` in increasing order (uint64).
    ``slots`` threads take the next chunk from a shared counter as they finish one
    (prange alone would give each thread a fixed run of chunks).
    Returns the count per chunk (int64 array).
    """
    n_chunks = (stop - first + chunk_bytes - 1) // chunk_bytes
    counts = np.zeros(n_chunks, dtype=np.int64)
    n_visited = max(base.n_small, np.searchsorted(
        base.primes, np.uint32(min(LARGE_PRIME_FACTOR * segment_bytes, 0xFFFFFFFF))))
    large = base.primes[n_visited:]
    following = np.zeros(1, dtype=np.int64)  # the next chunk to hand out
    for _ in prange(slots):
        while True:
            c = fetch_add(following, 1)
            if c >= n_chunks:
                break
            # a whole last word, plus one of scratch for wheel.cross_off
            segment = np.zeros((segment_bytes + 7) // 8 * 8 + 8, dtype=np.uint8)
            pos = np.empty(n_visited, dtype=np.uint32)
            wheel = np.empty(n_visited, dtype=np.uint8)
            chunk_first = first + c * chunk_bytes
            chunk_stop = min(chunk_first + chunk_bytes, stop)
            for j in range(n_visited):
                byte, w = first_multiple(np.int64(base.primes[j]), chunk_first)
                offset = byte - chunk_first
                pos[j] = _FAR if byte < 0 or offset > _FAR else offset
                wheel[j] = w
            n_segments = (chunk_stop - chunk_first + segment_bytes - 1) // segment_bytes
            buckets = new_buckets(large.size, n_segments if large.size else 0)
            if large.size:
                file_primes(buckets, large, chunk_first, chunk_stop - chunk_first, segment_bytes)
            total = 0
            cursor = offsets[c] if write else 0
            start = chunk_first
            s = 0
            while start < chunk_stop:
                length = min(segment_bytes, chunk_stop - start)
                _sieve_segment(segment, length, start, first, stop, lo, last, base, pre, pos,
                               wheel)
                if large.size:
                    empty_bucket(buckets, segment, s, length, segment_bytes)
                found, cursor = _settle_segment(segment, length, start, verify_from, write,
                                                out, cursor)
                total += found
                start += length
                s += 1
            counts[c] = total
    return counts


@jit(parallel=True)
def count_by_testing(lo, n_odd):
    """Number of primes among the odd ``uint64`` numbers ``lo + 2 i``, ``i < n_odd``."""
    blocks = (n_odd + 4095) // 4096
    per_block = np.zeros(blocks, dtype=np.int64)
    for blk in prange(blocks):
        first = blk * 4096
        last = min(first + 4096, n_odd)
        total = 0
        for i in range(first, last):
            if is_prime(lo + np.uint64(2 * i)):
                total += 1
        per_block[blk] = total
    return per_block.sum()


@jit(parallel=True)
def primality_mask(values):
    """``out[i] = is_prime(values[i])`` for a ``uint64`` array."""
    out = np.zeros(values.size, dtype=np.bool_)
    for i in prange(values.size):
        out[i] = is_prime(values[i])
    return out


_base_cache: dict[int, np.ndarray] = {}


def _primes_up_to(limit: int) -> np.ndarray:
    """Primes ``167 <= p <= limit`` as uint32 (cached for the largest limit asked)."""
    for cached_limit, primes in _base_cache.items():
        if cached_limit >= limit:
            return primes[: np.searchsorted(primes, limit, side="right")]
    if limit <= 1 << 16:
        primes = plain_sieve(limit)
    else:
        primes = _sieve(0, limit + 1, True, limit_base=None)[1]
    primes = primes[primes > PRESIEVE_LIMIT].astype(np.uint32)
    _base_cache.clear()
    _base_cache[limit] = primes
    return primes


def _sieving_primes(limit: int) -> SievingPrimes:
    primes = _primes_up_to(limit)
    classes = WHEEL_INDEX[primes % 30].astype(np.uint8)
    n_small = int(np.searchsorted(primes, SMALL_PRIME_LIMIT))
    return SievingPrimes(primes, classes, n_small)


class SievePlan(NamedTuple):
    """How an interval is sieved: bytes ``[first, stop)``, the sieving bound, the
    Miller-Rabin threshold and the chunk size (bytes)."""

    first: int
    stop: int
    base_limit: int
    verify_from: int
    chunk_bytes: int
    segment_bytes: int


def sieve_plan(a: int, b: int, base_limit: int | None = None, threads: int | None = None,
               segment_bytes: int | None = None) -> SievePlan:
    """Bytes, bound and chunks for ``[a, b)`` (``a < b``); ``base_limit`` defaults to
    ``isqrt(b - 1)`` (a full sieve, no Miller-Rabin)."""
    root = math.isqrt(b - 1)
    limit = root if base_limit is None else min(base_limit, root)
    limit = max(limit, PRESIEVE_LIMIT)
    verify_from = min((limit + 1) ** 2, U64_LIMIT - 1) if limit < root else U64_LIMIT - 1
    first, stop = a // 30, (b - 1) // 30 + 1
    threads = threads or numba.get_num_threads()
    segment_bytes = segment_bytes or SEGMENT_BYTES
    n_bytes = stop - first
    if n_bytes < threads * segment_bytes:  # a narrow window: one segment per thread
        segment_bytes = max(64, (-(-n_bytes // threads) + 7) // 8 * 8)
    segments = -(-n_bytes // segment_bytes)
    # Each chunk pays one division per sieving prime: on several threads, enough chunks
    # (8 a thread, handed out one at a time as threads free up) that a thread slowed
    # by other processes, or given the chunks where the large primes start crossing
    # off, does not hold the others up; no more than the segments can fill.
    n_chunks = max(1, min(segments, 8 * threads if threads > 1 else 1))
    chunk = -(-segments // n_chunks) * segment_bytes
    chunk = min(chunk, _MAX_CHUNK_BYTES // segment_bytes * segment_bytes)
    return SievePlan(first, stop, limit, verify_from, chunk, segment_bytes)


def memory_bytes(a: int, b: int, threads: int | None = None) -> int:
    """Bytes the sieve holds to count ``[a, b)`` (as :func:`count_primes` would): the
    sieving primes (5 bytes each), per running thread a segment, 5 bytes of state per
    small or medium sieving prime and the buckets of the large ones (8 bytes a prime
    plus a partial block per segment of a chunk), and the pre-sieve patterns. The Python interpreter, NumPy and
    Numba come on top."""
    a, b, method = check_count(a, b)
    if method == "test" or b <= 7:
        return 0
    bound = None if method == "sieve" else hybrid_bound(a, b)
    threads = threads or numba.get_num_threads()
    plan = sieve_plan(max(a, 7), b, bound, threads)
    primes = _sieving_primes(plan.base_limit).primes
    n_base = primes.size
    n_large = n_base - max(int(np.searchsorted(primes, SMALL_PRIME_LIMIT)), int(
        np.searchsorted(primes, min(LARGE_PRIME_FACTOR * plan.segment_bytes, 2**32 - 1))))
    n_chunks = -(-(plan.stop - plan.first) // plan.chunk_bytes)
    running = min(threads, n_chunks)
    n_segments = -(-min(plan.chunk_bytes, plan.stop - plan.first) // plan.segment_bytes)
    per_thread = (plan.segment_bytes + 5 * (n_base - n_large)
                  + bucket_bytes(n_large, n_segments if n_large else 0))
    return 5 * n_base + running * per_thread + _presieve().patterns.nbytes


def _sieve(a: int, b: int, write: bool, limit_base: int | None):
    """Counts per chunk (and the primes >= 7 when ``write``) in [a, b) by the wheel."""
    lo, hi = max(a, 7), b
    if hi <= lo:
        return np.zeros(0, dtype=np.int64), np.empty(0, dtype=np.uint64)
    plan = sieve_plan(lo, hi, limit_base)
    base = _sieving_primes(plan.base_limit)
    pre = _presieve()
    n_chunks = -(-(plan.stop - plan.first) // plan.chunk_bytes)
    args = (plan.first, plan.stop, np.uint64(lo), np.uint64(hi - 1), base, pre, plan.segment_bytes,
            plan.chunk_bytes, np.uint64(plan.verify_from))
    counts = sieve_chunks(*args, False, np.zeros(n_chunks, dtype=np.int64),
                          np.empty(0, dtype=np.uint64), numba.get_num_threads())
    if not write:
        return counts, None
    offsets = np.zeros(n_chunks, dtype=np.int64)
    np.cumsum(counts[:-1], out=offsets[1:])
    out = np.empty(int(counts.sum()), dtype=np.uint64)
    sieve_chunks(*args, True, offsets, out, numba.get_num_threads())
    return counts, out


def _below_seven(a: int, b: int) -> list[int]:
    return [p for p in (2, 3, 5) if a <= p < b]


@dataclass(frozen=True)
class PrimeCount:
    """The number of primes in ``[a, b)`` and how it was found (``sieve``, ``hybrid``
    or ``test``)."""

    a: int
    b: int
    count: int
    method: str


def _check_interval(a: int, b: int) -> tuple[int, int]:
    a, b = int(a), int(b)
    if a < 0 or b < 0:
        raise InputError(f"the interval [a, b) must be non-negative, got [{a}, {b})")
    if b < a:
        raise InputError(f"need a <= b, got [{a}, {b})")
    if b > U64_LIMIT:
        raise InputError(f"b must be at most 2^64 = {U64_LIMIT}, got {b}")
    return a, b


def hybrid_bound(a: int, b: int) -> int | None:
    """The sieving bound of the hybrid method for ``[a, b)``, or None for a full sieve.

    A full sieve lists the ~sqrt(b)/ln(sqrt(b)) primes below sqrt(b) and pays a
    division for each; the hybrid tests the ~4% survivors of a smaller bound with
    Miller-Rabin, each test costing about as much as sieving 30,000 numbers. The full
    sieve wins once the width passes sqrt(b) / 16; beyond 10^18 only the hybrid works.
    """
    root = math.isqrt(max(b - 1, 1))
    width = b - a
    if b <= SIEVE_LIMIT and 16 * width >= root:
        return None
    return min(root, max(_CHEAP_BASE, width), _MAX_HYBRID_BASE)


def check_count(a: int, b: int, method: str = "auto") -> tuple[int, int, str]:
    """Validate a counting request; returns ``(a, b, method)`` with ``auto`` resolved.

    Raises
    ------
    InputError
        For a malformed interval or one too wide for the method.
    """
    a, b = _check_interval(a, b)
    if method not in ("auto", "sieve", "hybrid", "test", "pi"):
        raise InputError(f"method must be auto, sieve, hybrid, test or pi, got {method!r}")
    if method == "auto":
        from jitgames.primes.counting import prefer_pi

        if prefer_pi(a, b):
            method = "pi"
        else:
            method = "sieve" if hybrid_bound(a, b) is None else "hybrid"
    width = b - a
    if method == "pi":
        return a, b, method
    if method == "sieve":
        if b > SIEVE_LIMIT:
            raise InputError(f"the full sieve works up to 10^18; b = {b} is too large "
                             "(use the hybrid method on a narrower interval)")
        if width > MAX_COUNT_WIDTH:
            raise InputError(f"interval too wide to sieve: {width} > {MAX_COUNT_WIDTH}")
    elif width > MAX_TEST_WIDTH:
        raise InputError(f"interval too wide for the {method} method: {width} > "
                         f"{MAX_TEST_WIDTH} (above 10^18 only intervals up to 10^9 wide)")
    return a, b, method


def count_primes(a: int, b: int, method: str = "auto") -> PrimeCount:
    """Number of primes ``p`` with ``a <= p < b``, for ``0 <= a <= b <= 2^64``.

    Parameters
    ----------
    method : {"auto", "sieve", "hybrid", "test", "pi"}
        ``sieve``: the full wheel sieve (``b <= 10^18``, width up to
        ``MAX_COUNT_WIDTH``); ``hybrid``: sieve by the primes up to a bound, then
        Miller-Rabin on the survivors; ``test``: Miller-Rabin on every odd number (both
        up to ``MAX_TEST_WIDTH`` wide); ``pi``: ``pi(b - 1) - pi(a - 1)`` by the
        combinatorial method (:mod:`.counting`, any width); ``auto``: ``pi`` when
        :func:`.counting.prefer_pi` says so (wide intervals), else the cheaper of sieve
        and hybrid.

    Raises
    ------
    InputError
        For a malformed interval or one too wide for the chosen method.
    """
    a, b, method = check_count(a, b, method)
    if method == "pi":
        from jitgames.primes.counting import prime_pi

        count = (prime_pi(b - 1) if b else 0) - (prime_pi(a - 1) if a else 0)
        return PrimeCount(a, b, count, "pi")
    small = len(_below_seven(a, b))
    if method == "test":
        lo = max(a, 1) | 1
        n_odd = max(0, (b - lo + 1) // 2)
        found = int(count_by_testing(np.uint64(lo), n_odd)) if n_odd else 0
        return PrimeCount(a, b, found + (1 if a <= 2 < b else 0), "test")
    bound = None if method == "sieve" else (hybrid_bound(a, b) or _CHEAP_BASE)
    counts, _ = _sieve(a, b, False, bound)
    return PrimeCount(a, b, int(counts.sum()) + small, method)


def primes_between(a: int, b: int) -> np.ndarray:
    """All primes ``a <= p < b`` in increasing order (uint64 array).

    The width is limited to ``MAX_LIST_WIDTH``; far out the hybrid method is used.
    """
    a, b = _check_interval(a, b)
    if b - a > MAX_LIST_WIDTH:
        raise InputError(f"interval too wide to list: {b - a} > {MAX_LIST_WIDTH}")
    head = np.array(_below_seven(a, b), dtype=np.uint64)
    if b <= 7:
        return head
    _, body = _sieve(a, b, True, hybrid_bound(a, b))
    return np.concatenate([head, body])
