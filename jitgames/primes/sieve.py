"""Segmented sieve of Eratosthenes: count and list the primes in ``[a, b)``.

Layout of the work
------------------
Only odd numbers are stored: byte ``i`` of a segment stands for ``lo + 2 i``
(1 = still possibly prime, 0 = crossed off). A segment holds ``segment_bytes`` odd
numbers (a power of two from 32 KiB, sized like the L1/L2 caches, upwards when there
are many base primes, so that walking the base-prime list is amortised over enough
crossing-off). Consecutive segments are grouped into *chunks*; ``prange`` runs over
chunks, and each chunk owns its segment buffer and an array of "next multiple"
offsets, one per base prime, so a prime's starting point is computed by one division
per chunk rather than per segment. Counts are exact, so results never depend on the
number of threads.

Before crossing off, a segment is filled from a periodic pattern that already
removes the multiples of 3, 5, 7, 11 and 13 (period 15015 odd numbers); the primes
from 17 on are crossed off from ``p * p``.

Range and cost
--------------
Everything is ``int64`` and exact for ``b <= SIEVE_LIMIT = 10^18``. Sieving below
``b`` needs the base primes up to ``sqrt(b)``: for ``b = 10^18`` that is the
50,847,534 primes below 10^9, found by this same sieve in about a second and held as
``uint32`` (203 MB), plus 4 bytes per base prime per running chunk for the offsets.
The width ``b - a`` is limited to ``MAX_COUNT_WIDTH`` for counting (about ten minutes
of work) and ``MAX_LIST_WIDTH`` for listing (the list itself is held in memory).
Beyond 10^18, or when the interval is narrow compared with ``sqrt(b)`` (so that the
base primes would cost more than the interval), :func:`count_primes` tests each odd
number with Miller-Rabin instead (``method="auto"``); that path works for any
``b <= 2^64`` and is limited to ``MAX_TEST_WIDTH``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np

from jitgames._jit import jit, prange
from jitgames.primes.primality import is_prime
from jitgames.errors import InputError

__all__ = [
    "count_primes", "check_count", "primes_between", "PrimeCount", "SIEVE_LIMIT",
    "MAX_COUNT_WIDTH", "MAX_LIST_WIDTH", "MAX_TEST_WIDTH", "U64_LIMIT",
]

SIEVE_LIMIT = 10**18
U64_LIMIT = 2**64
MAX_COUNT_WIDTH = 10**12
MAX_LIST_WIDTH = 10**9
MAX_TEST_WIDTH = 10**9

_PRESIEVE_PRIMES = (3, 5, 7, 11, 13)
_PERIOD = 15015  # 3 * 5 * 7 * 11 * 13: the pattern repeats every 15015 odd numbers
_FIRST_CROSSED = 17
_MIN_SEGMENT = 1 << 15
_MAX_SEGMENT = 1 << 22
_MAX_CHUNK = 1 << 31  # odd numbers per chunk, so uint32 offsets never wrap
_SMALL_BASE_LIMIT = 1 << 22  # base primes below this come from the plain sieve


def _make_pattern(segment_bytes: int) -> np.ndarray:
    """Pattern for odd m-indices (n = 2m + 1), long enough to copy any segment."""
    length = _PERIOD + segment_bytes
    pattern = np.ones(length, dtype=np.uint8)
    for p in _PRESIEVE_PRIMES:
        pattern[(p - 1) // 2::p] = 0  # 2m + 1 = 0 mod p  <=>  m = (p - 1) / 2 mod p
    return pattern


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
def _first_offset(p, segment_lo):
    """Index (in odd numbers from ``segment_lo``, odd) of p's first multiple to cross."""
    start = p * p
    if start < segment_lo:
        start = segment_lo + (p - segment_lo % p) % p
        if start % 2 == 0:
            start += p
    return (start - segment_lo) // 2


@jit(parallel=True)
def sieve_chunks(lo, n_odd, base, pattern, segment_bytes, chunk_odd, write, offsets, out):
    """Sieve the odd numbers ``lo + 2 i``, ``0 <= i < n_odd`` (``lo`` odd, >= 1).

    ``base`` holds the odd primes from 17 up to at least ``sqrt(lo + 2 n_odd)``;
    chunk ``c`` covers indices ``[c chunk_odd, (c + 1) chunk_odd)``. Returns the
    primes per chunk (int64 array). When ``write`` is true the primes of chunk ``c``
    are also stored in ``out[offsets[c]:]`` in increasing order.
    """
    n_chunks = (n_odd + chunk_odd - 1) // chunk_odd
    counts = np.zeros(n_chunks, dtype=np.int64)
    n_base = base.size
    for c in prange(n_chunks):
        segment = np.empty(segment_bytes, dtype=np.uint8)
        next_hit = np.empty(n_base, dtype=np.uint32)
        first = c * chunk_odd
        last = min(first + chunk_odd, n_odd)
        chunk_lo = lo + 2 * first
        for j in range(n_base):
            offset = _first_offset(np.int64(base[j]), chunk_lo)
            next_hit[j] = min(offset, 0xFFFFFFFF)
        total = 0
        cursor = offsets[c] if write else 0
        s = first
        while s < last:
            length = min(segment_bytes, last - s)
            seg_lo = lo + 2 * s
            shift = ((seg_lo - 1) // 2) % 15015
            segment[:length] = pattern[shift:shift + length]
            for j in range(n_base):
                p = np.int64(base[j])
                k = np.int64(next_hit[j])
                unrolled_end = length - 3 * p
                while k < unrolled_end:
                    segment[k] = 0
                    segment[k + p] = 0
                    segment[k + 2 * p] = 0
                    segment[k + 3 * p] = 0
                    k += 4 * p
                while k < length:
                    segment[k] = 0
                    k += p
                next_hit[j] = k - length
            if seg_lo <= 13:  # the first segment: 1 is not prime, 3..13 are
                segment[0] = 1 if seg_lo != 1 else 0
                for q in (3, 5, 7, 11, 13):
                    if seg_lo <= q < seg_lo + 2 * length:
                        segment[(q - seg_lo) // 2] = 1
            if write:
                for k in range(length):
                    if segment[k]:
                        out[cursor] = seg_lo + 2 * k
                        cursor += 1
            else:
                for k in range(length):
                    if segment[k]:
                        total += 1
            s += length
        counts[c] = total if not write else cursor - offsets[c]
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


def _segment_bytes(n_base: int) -> int:
    size = _MIN_SEGMENT
    while size < n_base and size < _MAX_SEGMENT:
        size *= 2
    return size


_base_cache: dict[int, np.ndarray] = {}


def _base_primes(limit: int) -> np.ndarray:
    """Primes ``17 <= p <= limit`` as uint32 (cached for the largest limit asked)."""
    for cached_limit, primes in _base_cache.items():
        if cached_limit >= limit:
            return primes[: np.searchsorted(primes, limit, side="right")]
    if limit <= _SMALL_BASE_LIMIT:
        primes = plain_sieve(limit)
    else:
        primes = _sieve_list(1, limit + 1)
    primes = primes[primes >= _FIRST_CROSSED].astype(np.uint32)
    _base_cache.clear()
    _base_cache[limit] = primes
    return primes


def _odd_range(a: int, b: int) -> tuple[int, int]:
    """First odd number >= max(a, 1) and how many odd numbers lie in [a, b)."""
    lo = max(a, 1) | 1
    n_odd = max(0, (b - lo + 1) // 2)
    return lo, n_odd


def _chunking(n_odd: int, segment_bytes: int) -> int:
    segments = -(-n_odd // segment_bytes)
    n_chunks = min(segments, 4 * numba.config.NUMBA_NUM_THREADS)
    chunk_odd = -(-segments // n_chunks) * segment_bytes
    return min(chunk_odd, _MAX_CHUNK // segment_bytes * segment_bytes)


def _sieve(a: int, b: int, write: bool):
    lo, n_odd = _odd_range(a, b)
    if n_odd == 0:
        return np.zeros(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    base = _base_primes(math.isqrt(lo + 2 * (n_odd - 1)))
    segment_bytes = _segment_bytes(base.size)
    chunk_odd = _chunking(n_odd, segment_bytes)
    pattern = _make_pattern(segment_bytes)
    n_chunks = -(-n_odd // chunk_odd)
    dummy_offsets = np.zeros(n_chunks, dtype=np.int64)
    counts = sieve_chunks(lo, n_odd, base, pattern, segment_bytes, chunk_odd, False,
                          dummy_offsets, np.empty(0, dtype=np.int64))
    if not write:
        return counts, None
    offsets = np.zeros(n_chunks, dtype=np.int64)
    np.cumsum(counts[:-1], out=offsets[1:])
    out = np.empty(int(counts.sum()), dtype=np.int64)
    sieve_chunks(lo, n_odd, base, pattern, segment_bytes, chunk_odd, True, offsets, out)
    return counts, out


def _sieve_list(a: int, b: int) -> np.ndarray:
    """Odd primes in [a, b) by the segmented sieve (no checks)."""
    return _sieve(a, b, True)[1]


@dataclass(frozen=True)
class PrimeCount:
    """The number of primes in ``[a, b)`` and how it was found (``sieve``/``test``)."""

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


def _testing_is_cheaper(a: int, b: int) -> bool:
    # Sieving costs ~ sqrt(b) for the base primes plus ~ the width; testing costs
    # ~ 40x the width per number (measured: one Miller-Rabin call ~ 40 sieve bytes).
    return (b - a) * 40 < math.isqrt(b)


def check_count(a: int, b: int, method: str = "auto") -> tuple[int, int, str]:
    """Validate a counting request; returns ``(a, b, method)`` with ``auto`` resolved.

    Raises
    ------
    ValueError
        For a malformed interval or one too wide for the method.
    """
    a, b = _check_interval(a, b)
    if method not in ("auto", "sieve", "test"):
        raise InputError(f"method must be auto, sieve or test, got {method!r}")
    if method == "auto":
        method = "test" if b > SIEVE_LIMIT or _testing_is_cheaper(a, b) else "sieve"
    width = b - a
    if method == "sieve":
        if b > SIEVE_LIMIT:
            raise InputError(f"the sieve works up to 10^18; b = {b} is too large "
                             "(use the test method on a narrower interval)")
        if width > MAX_COUNT_WIDTH:
            raise InputError(f"interval too wide to sieve: {width} > {MAX_COUNT_WIDTH}")
    elif width > MAX_TEST_WIDTH:
        raise InputError(f"interval too wide to test number by number: {width} > "
                         f"{MAX_TEST_WIDTH} (above 10^18 only narrow intervals work)")
    return a, b, method


def count_primes(a: int, b: int, method: str = "auto") -> PrimeCount:
    """Number of primes ``p`` with ``a <= p < b``, for ``0 <= a <= b <= 2^64``.

    Parameters
    ----------
    method : {"auto", "sieve", "test"}
        ``sieve`` (needs ``b <= 10^18``, width up to ``MAX_COUNT_WIDTH``), ``test``
        (Miller-Rabin on every odd number, width up to ``MAX_TEST_WIDTH``) or
        ``auto``: the cheaper of the two that applies.

    Raises
    ------
    ValueError
        For a malformed interval or one too wide for the chosen method.
    """
    a, b, method = check_count(a, b, method)
    two = 1 if a <= 2 < b else 0
    if method == "sieve":
        counts, _ = _sieve(a, b, False)
        return PrimeCount(a, b, int(counts.sum()) + two, "sieve")
    lo, n_odd = _odd_range(a, b)
    found = int(count_by_testing(np.uint64(lo), n_odd)) if n_odd else 0
    return PrimeCount(a, b, found + two, "test")


def primes_between(a: int, b: int) -> np.ndarray:
    """All primes ``a <= p < b`` in increasing order (uint64 array).

    Uses the sieve below 10^18 and Miller-Rabin above; the width is limited to
    ``MAX_LIST_WIDTH``.
    """
    a, b = _check_interval(a, b)
    if b - a > MAX_LIST_WIDTH:
        raise InputError(f"interval too wide to list: {b - a} > {MAX_LIST_WIDTH}")
    head = np.array([2], dtype=np.uint64) if a <= 2 < b else np.empty(0, np.uint64)
    if b <= SIEVE_LIMIT and not _testing_is_cheaper(a, b):
        body = _sieve_list(a, b).astype(np.uint64)
    else:
        lo, n_odd = _odd_range(a, b)
        candidates = np.uint64(lo) + np.uint64(2) * np.arange(n_odd, dtype=np.uint64)
        body = candidates[_primality_mask(candidates)]
    return np.concatenate([head, body])


@jit(parallel=True)
def primality_mask(values):
    """``out[i] = is_prime(values[i])`` for a ``uint64`` array."""
    out = np.zeros(values.size, dtype=np.bool_)
    for i in prange(values.size):
        out[i] = is_prime(values[i])
    return out


_primality_mask = primality_mask
