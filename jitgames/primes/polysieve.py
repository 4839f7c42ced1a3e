"""Sieve the values of a quadratic: how many ``0 <= x < N`` make ``A x^2 + B x + C`` prime.

Testing ``f(x)`` for every x with Miller-Rabin costs a microsecond a value and stops
at 64 bits. The sieve works on x instead: for each prime p, the roots of
``f(x) = 0 (mod p)`` (none, one or two, from a square root mod p) cross off
``x = root + k p``; a value survives when no prime up to ``sqrt(f(x))`` divides it,
so sieving with every prime up to ``sqrt(max f)`` leaves exactly the x with f(x)
prime -- except the few small x where ``f(x)`` is itself one of the sieving primes
(or below 2), which are settled one by one. The values themselves are never formed
beyond the start (they may pass 2^64; the sieve only needs x mod p).

The roots of each sieving prime are found once (per pass of up to ``MAX_PASS``
values of x, held as one bit each: 1.25 GB for N = 10^10), not once per block of x.
The sieving primes come in batches of consecutive integers (at most ``PRIME_BATCH``),
in increasing order (listed by the wheel sieve); their roots are found in parallel
(:func:`quadratic_roots`), and the threads cross off disjoint word ranges of the bits
(:func:`cross_off_root_bits`), each range segment by segment (``2^SEGMENT_SHIFT``
bits, in the L2 cache): primes below the segment size keep each root's next hit
(the smallest ones in L1-sized windows), larger ones wait in bucket lists under the
segment of their next hit, so that each segment is fetched from memory once per
batch and touches only the roots that hit it. Once every prime below ``P`` has crossed
off, each x with ``|f(x)| < P^2`` is decided (a composite value has a prime factor
below its square root), so the count of a prefix of x is final batch by batch: the
count reports progress and keeps the decided prefix when stopped.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from jitgames._bits import popcount
from jitgames._jit import jit, prange, prefetch
from jitgames.errors import InputError
from jitgames.primes.primality import (WIDE_PRIME_BOUND, addmod, is_prime, is_prime_wide,
                                       jacobi_u64, mulmod, submod)

__all__ = ["MAX_PRIME_BOUND", "check_sieve_request", "sqrt_mod", "quadratic_roots",
           "cross_off_root_bits", "count_bits_between", "settle_small_values", "check_samples",
           "sieve_blocks", "MAX_PASS", "PRIME_BATCH", "MAX_COEFFICIENT", "MAX_SIEVE_UPTO"]

MAX_PASS = 1 << 34  # x values per pass by default: 2 GiB of marks, one bit each
PRIME_BATCH = 10**8  # at most this many integers per batch of sieving primes
_MIN_BATCHES = 16  # ... and at least this many batches (progress, a decided prefix)
MAX_COEFFICIENT = 2**40  # |A|, |B|, |C| (keeps every residue product exact)
MAX_SIEVE_UPTO = 10**12
#: Largest sieving prime (sqrt of the largest value): 4 x 10^9 primes, hours of work.
MAX_PRIME_BOUND = 10**11
#: x values per segment of the crossing off: 2^22 bits (512 KiB, half the L2 cache;
#: 2^20 and 2^21 measured no faster for any prime size, slower for the medium primes).
SEGMENT_SHIFT = 22
_WINDOW_BITS = 1 << 18  # x values per window of the small primes (32 KiB: the L1 cache)
#: Roots per block of a bucket (2 KiB): large enough that emptying a bucket reads
#: memory in order, small enough that the partial blocks of all buckets stay small.
BLOCK_ENTRIES = 256
#: Entries of a bucket between the prefetch of a word and its crossing off.
PREFETCH_AHEAD = 32


#: Below this modulus :func:`_mulmod` takes its quotient from floating point.
FLOAT_MULMOD_LIMIT = 1 << 50


@jit
def _reciprocal(p):
    """``1 / p`` in double precision when ``p < FLOAT_MULMOD_LIMIT``, else 0 (for
    :func:`_mulmod`)."""
    if p < np.uint64(FLOAT_MULMOD_LIMIT):
        return 1.0 / np.float64(p)
    return 0.0


@jit
def _mulmod(x, y, p, reciprocal):
    """``x y mod p`` for ``x, y < p`` (uint64, p odd or 2), ``reciprocal`` from
    :func:`_reciprocal`.

    Below 2^32 the product fits 64 bits and the hardware remainder is the fastest.
    From there to 2^50 the quotient ``q`` is ``x y (1/p)`` in double precision:
    three roundings of a relative 2^-53 each leave it within 3/8 of the true
    quotient (below 2^50), so after truncation it is off by at most one and
    ``x y - q p``, taken modulo 2^64, lies in ``[-p, 2p)``; a branch-free correction
    makes it exact. That is about ten times faster than the Montgomery product (set
    up at every call), which serves the moduli from 2^50 on.
    """
    if p < np.uint64(1 << 32):
        return (x * y) % p
    if reciprocal != 0.0:
        q = np.uint64(np.int64(np.float64(x) * np.float64(y) * reciprocal))
        r = np.int64(x * y - q * p)
        m = np.int64(p)
        r += (r >> 63) & m  # branch-free: [-p, 2p) -> [0, 2p) -> [-p, p) -> [0, p)
        r -= m
        r += (r >> 63) & m
        return np.uint64(r)
    return mulmod(x, y, p)


@jit
def _powmod(base, exponent, p, reciprocal):
    result = np.uint64(1) % p
    base = base % p
    while exponent != np.uint64(0):
        if exponent & np.uint64(1):
            result = _mulmod(result, base, p, reciprocal)
        base = _mulmod(base, base, p, reciprocal)
        exponent = exponent >> np.uint64(1)
    return result


@jit
def _inverse(x, p):
    """``x^-1 mod p`` for ``0 < x < p``, p prime (extended Euclid on int64 below 2^62,
    else Fermat's ``x^(p-2)``)."""
    if p >= np.uint64(1 << 62):
        return _powmod(x, p - np.uint64(2), p, _reciprocal(p))
    r0, r1 = np.int64(p), np.int64(x)
    s0, s1 = np.int64(0), np.int64(1)
    while r1 != 0:
        q = r0 // r1
        r0, r1 = r1, r0 - q * r1
        s0, s1 = s1, s0 - q * s1
    return np.uint64(s0 % np.int64(p))


@jit
def sqrt_mod(a, p):
    """A square root of the quadratic residue ``a`` (< p) modulo the odd prime p.

    One modular power for three primes in four: ``a^((p+1)/4)`` when p = 3 (mod 4);
    Atkin's formula when p = 5 (mod 8) (``v = (2a)^((p-5)/8)``, ``i = 2a v^2`` is a
    square root of -1, and ``a v (i - 1)`` one of a). When p = 1 (mod 8),
    Tonelli-Shanks with ``p - 1 = q 2^s``: ``w = a^((q-1)/2)`` gives both the first
    guess ``a w`` and ``t = a w^2 = a^q``, and the power of a non-residue is only
    taken when ``t != 1``.
    """
    one = np.uint64(1)
    if a == np.uint64(0):
        return np.uint64(0)
    reciprocal = _reciprocal(p)
    if (p & np.uint64(3)) == np.uint64(3):
        return _powmod(a, (p + one) >> np.uint64(2), p, reciprocal)
    if (p & np.uint64(7)) == np.uint64(5):
        two_a = a + a if a < p - a else a - (p - a)  # no wrap near 2^64
        v = _powmod(two_a, (p - np.uint64(5)) >> np.uint64(3), p, reciprocal)
        i = _mulmod(two_a, _mulmod(v, v, p, reciprocal), p, reciprocal)
        i_minus_1 = i - one if i != np.uint64(0) else p - one
        return _mulmod(_mulmod(a, v, p, reciprocal), i_minus_1, p, reciprocal)
    q = p - one
    s = 0
    while (q & one) == np.uint64(0):
        q = q >> one
        s += 1
    w = _powmod(a, (q - one) >> one, p, reciprocal)
    r = _mulmod(a, w, p, reciprocal)
    t = _mulmod(r, w, p, reciprocal)
    if t == one:
        return r
    z = np.uint64(2)
    while jacobi_u64(z, p) != -1:
        z += one
    m = s
    c = _powmod(z, q, p, reciprocal)
    while t != one:
        i = 0
        t2 = t
        while t2 != one:
            t2 = _mulmod(t2, t2, p, reciprocal)
            i += 1
        b = c
        for _ in range(m - i - 1):
            b = _mulmod(b, b, p, reciprocal)
        m = i
        c = _mulmod(b, b, p, reciprocal)
        t = _mulmod(t, c, p, reciprocal)
        r = _mulmod(r, b, p, reciprocal)
    return r


@jit
def _residue(value, p):
    """``value mod p`` (int64 value, uint64 p) in [0, p)."""
    if value >= 0:
        return np.uint64(value) % p
    return (p - np.uint64(-value) % p) % p


@jit(parallel=True)
def quadratic_roots(a, b, c, primes):
    """Roots of ``a x^2 + b x + c = 0 (mod p)`` for each prime (uint64 array).

    Returns ``(roots, kinds)``: ``roots[j]`` holds ``kinds[j]`` roots in [0, p) for
    kinds 0, 1, 2; kind 3 means p divides every value (all x are roots).
    """
    n = primes.size
    roots = np.zeros((n, 2), dtype=np.uint64)
    kinds = np.zeros(n, dtype=np.int8)
    for j in prange(n):
        p = primes[j]
        am, bm, cm = _residue(a, p), _residue(b, p), _residue(c, p)
        if p == 2:
            found = 0
            for x in range(2):
                u = np.uint64(x)
                if (am * u * u + bm * u + cm) % np.uint64(2) == np.uint64(0):
                    roots[j, found] = u
                    found += 1
            if found == 2:  # both residues: every x (no roots listed, as for odd p)
                roots[j, 0] = roots[j, 1] = 0
                found = 3
            kinds[j] = found
            continue
        reciprocal = _reciprocal(p)
        if am == np.uint64(0):
            if bm == np.uint64(0):
                kinds[j] = 3 if cm == np.uint64(0) else 0
            else:
                roots[j, 0] = _mulmod((p - cm) % p, _inverse(bm, p), p, reciprocal)
                kinds[j] = 1
            continue
        four_a = _mulmod(np.uint64(4) % p, am, p, reciprocal)
        disc = submod(_mulmod(bm, bm, p, reciprocal), _mulmod(four_a, cm, p, reciprocal), p)
        half = (p + np.uint64(1)) >> np.uint64(1)  # 2^-1 mod p
        inverse_2a = _mulmod(half, _inverse(am, p), p, reciprocal)
        minus_b = (p - bm) % p
        if disc == np.uint64(0):
            roots[j, 0] = _mulmod(minus_b, inverse_2a, p, reciprocal)
            kinds[j] = 1
        elif jacobi_u64(disc, p) == 1:
            s = sqrt_mod(disc, p)
            r1 = _mulmod(addmod(minus_b, s, p), inverse_2a, p, reciprocal)
            r2 = _mulmod(submod(minus_b, s, p), inverse_2a, p, reciprocal)
            roots[j, 0] = min(r1, r2)
            roots[j, 1] = max(r1, r2)
            kinds[j] = 2
    return roots, kinds


@jit(leaf=True)
def _clear_bit(words, i):
    """Clear bit ``i`` (int64, >= 0) of ``words``."""
    i = np.uint64(i)  # an unsigned index: no check for a negative one
    words[i >> np.uint64(6)] &= ~(np.uint64(1) << (i & np.uint64(63)))


@jit(leaf=True)
def _clear_bits(words, lo, hi):
    """Clear bits ``lo <= i < hi`` of ``words``."""
    i = lo
    while i < hi and i & 63:
        _clear_bit(words, i)
        i += 1
    while i + 64 <= hi:
        words[i >> 6] = np.uint64(0)
        i += 64
    while i < hi:
        _clear_bit(words, i)
        i += 1


@jit(leaf=True)
def _first_hit(root, p, start_mod_p):
    """Distance from x to the first x' >= x with x' = root (mod p), given
    ``start_mod_p = x mod p`` (all int64 in [0, p))."""
    distance = root + p - start_mod_p
    return distance - p if distance >= p else distance


class RootBuckets(NamedTuple):
    """The buckets of the segments of one thread part (see :func:`cross_off_root_bits`).

    A bucket is a chain of blocks of ``BLOCK_ENTRIES`` entries, newest first; only the
    newest is partly filled. ``entries`` (int64): ``p << shift | offset``, a root whose
    next hit is bit ``offset`` of the bucket's segment (``2^shift`` bits), block ``b``
    at ``[b * BLOCK_ENTRIES, ...)``; block 0 is never used, so that 0 can mean "none".
    ``older``: the next older block of the same bucket (0: none); ``tail``: for each
    segment, the index one past its bucket's newest entry (0: empty); ``free``:
    ``free[0]`` free blocks, listed in ``free[1:free[0] + 1]``.
    """

    entries: np.ndarray
    older: np.ndarray
    tail: np.ndarray
    free: np.ndarray


@jit
def _new_buckets(n_entries, n_segments):
    """Empty buckets for ``n_segments`` segments with room for ``n_entries`` roots:
    every root in a full block, one partial block per segment, and the block being
    emptied (whose roots may be filed again before it is freed)."""
    n_blocks = n_entries // BLOCK_ENTRIES + n_segments + 3
    free = np.empty(n_blocks, dtype=np.int32)
    free[0] = n_blocks - 1
    for b in range(1, n_blocks):
        free[b] = n_blocks - b
    return RootBuckets(np.empty(n_blocks * BLOCK_ENTRIES, dtype=np.int64),
                       np.zeros(n_blocks, dtype=np.int32),
                       np.zeros(n_segments, dtype=np.int64), free)


@jit(leaf=True)
def _file_root(buckets, segment, entry):
    """Put ``entry`` (``p << shift | offset``) into the bucket of ``segment``."""
    t = buckets.tail[segment]
    if t & (BLOCK_ENTRIES - 1) == 0:  # the bucket is empty or its newest block full
        top = buckets.free[0]
        block = buckets.free[top]
        buckets.free[0] = top - 1
        buckets.older[block] = (t - 1) // BLOCK_ENTRIES if t else 0
        t = np.int64(block) * BLOCK_ENTRIES
    buckets.entries[t] = entry
    buckets.tail[segment] = t + 1


@jit(leaf=True)
def _empty_bucket(words, buckets, segment, segment_lo, part_hi, shift):
    """Clear the bit of each root in the bucket of ``segment`` (its bit 0 is bit
    ``segment_lo`` of ``words``) and file the root under the segment of its next hit,
    dropped at or past ``part_hi``. Every root's prime is at least the segment size,
    so a root hits a segment once at most. The word of the entry ``PREFETCH_AHEAD``
    places on is asked for ahead (the words are scattered over the segment: mostly
    cache misses when the roots are few, which then overlap)."""
    mask = (np.int64(1) << shift) - 1
    stop = buckets.tail[segment]
    buckets.tail[segment] = 0
    block = (stop - 1) // BLOCK_ENTRIES if stop else 0
    while block:
        start = np.int64(block) * BLOCK_ENTRIES
        for e in range(start, min(stop, start + PREFETCH_AHEAD)):
            prefetch(words, (segment_lo + (buckets.entries[e] & mask)) >> 6)
        for e in range(start, stop):
            if e + PREFETCH_AHEAD < stop:
                prefetch(words, (segment_lo + (buckets.entries[e + PREFETCH_AHEAD] & mask)) >> 6)
            entry = buckets.entries[e]
            p = entry >> shift
            offset = entry & mask
            _clear_bit(words, segment_lo + offset)
            if segment_lo + offset + p < part_hi:
                ahead = offset + p
                _file_root(buckets, segment + (ahead >> shift), (p << shift) | (ahead & mask))
        older = buckets.older[block]
        top = buckets.free[0] + 1
        buckets.free[top] = block
        buckets.free[0] = top
        block = older
        stop = np.int64(block) * BLOCK_ENTRIES + BLOCK_ENTRIES


@jit
def _cross_off_part(words, x0, lo, hi, primes, roots, kinds, n_large_roots, shift):
    """Clear bits ``lo <= i < hi`` of ``words`` where a root hits ``x = x0 + i``: one
    thread part of :func:`cross_off_root_bits` (no kind 3 here), given the number
    of roots of the primes of at least ``2^shift``, the segment size."""
    segment_bits = np.int64(1) << shift
    window_bits = min(np.int64(_WINDOW_BITS), max(np.int64(64), segment_bits >> 3))
    n_segments = (hi - lo + segment_bits - 1) >> shift
    n_small = np.int64(np.searchsorted(primes, np.uint64(window_bits >> 2)))
    n_medium = np.int64(np.searchsorted(primes, np.uint64(segment_bits)))
    following = np.empty((n_medium, 2), dtype=np.int64)  # next hit of each root below
    for j in range(n_medium):
        p = np.int64(primes[j])
        start = (x0 + lo) % p
        for k in range(kinds[j]):
            following[j, k] = lo + _first_hit(np.int64(roots[j, k]), p, start)
    buckets = _new_buckets(n_large_roots, n_segments)
    for j in range(n_medium, primes.size):
        # no branch on the kind (0 or 2 at random): computing a root of 0 costs less
        p = np.int64(primes[j])
        start = (x0 + lo) % p
        for k in range(2):
            at = _first_hit(np.int64(roots[j, k]), p, start)
            if (k < kinds[j]) & (at < hi - lo):
                _file_root(buckets, at >> shift, (p << shift) | (at & (segment_bits - 1)))
    for s in range(n_segments):
        segment_lo = lo + (s << shift)
        segment_hi = min(segment_lo + segment_bits, hi)
        for window_lo in range(segment_lo, segment_hi, window_bits):
            window_hi = min(window_lo + window_bits, segment_hi)
            _cross_off_following(words, following, 0, n_small, primes, kinds, window_hi)
        _cross_off_following(words, following, n_small, n_medium, primes, kinds, segment_hi)
        _empty_bucket(words, buckets, s, segment_lo, hi, shift)


@jit(leaf=True)
def _cross_off_following(words, following, j0, j1, primes, kinds, end):
    """Cross off the hits below ``end`` of the roots of primes ``j0 <= j < j1``, from
    their next hits ``following[j]``, and keep the next ones."""
    for j in range(j0, j1):
        p = np.int64(primes[j])
        for k in range(kinds[j]):
            i = following[j, k]
            while i < end:
                _clear_bit(words, i)
                i += p
            following[j, k] = i


@jit(parallel=True)
def cross_off_root_bits(words, x0, n, primes, roots, kinds, parts, segment_shift=SEGMENT_SHIFT):
    """Clear bit ``i`` of ``words`` (``i < n``, bit ``i & 63`` of word ``i >> 6``) where
    some prime's root hits ``x = x0 + i`` (x0 >= 0).

    ``primes`` (uint64, increasing, below 2^37) with ``roots``/``kinds`` as returned by
    :func:`quadratic_roots`. Thread parts own disjoint ranges of whole 64-bit words, so
    no two threads write one word and the result does not depend on ``parts``. A part
    goes through its segments of ``S = 2^segment_shift`` bits in order (6 <= shift <=
    26; the default fits the L2 cache). Primes below S keep each root's next hit and
    cross off segment by segment, those below S / 8 in windows of S / 8 bits (the L1
    cache). Larger primes hit a segment once at most and wait in bucket lists, each
    root in the bucket of the segment of its next hit, so that a segment touches only
    the roots that hit it (see :class:`RootBuckets`).

    Memory per part: 16 bytes per prime below S and
    ``8 * BLOCK_ENTRIES * (R // BLOCK_ENTRIES + n_segments + 3)`` bytes of buckets (plus
    4 per block and 8 per segment) for the R roots of the primes of at least S.
    """
    for j in range(primes.size):
        if kinds[j] == 3:  # p divides every value
            _clear_bits(words, 0, n)
            return
    n_large_roots = np.int64(0)
    for j in range(np.searchsorted(primes, np.uint64(1) << np.uint64(segment_shift)), primes.size):
        n_large_roots += np.int64(kinds[j])
    n_words = (n + 63) // 64
    for t in prange(parts):
        lo = min(n, (t * n_words // parts) * 64)
        hi = min(n, ((t + 1) * n_words // parts) * 64)
        if lo < hi:
            _cross_off_part(words, np.int64(x0), np.int64(lo), np.int64(hi), primes, roots,
                            kinds, n_large_roots, np.int64(segment_shift))


@jit(parallel=True)
def count_bits_between(words, i0, i1, parts):
    """Number of set bits ``i0 <= i < i1`` of ``words`` (bit ``i & 63`` of word ``i >> 6``)."""
    counts = np.zeros(parts, dtype=np.int64)
    for t in prange(parts):
        lo = i0 + t * (i1 - i0) // parts
        hi = i0 + (t + 1) * (i1 - i0) // parts
        total = np.uint64(0)
        i = lo
        while i < hi and i & 63:  # the partial word at the start
            total += (words[i >> 6] >> np.uint64(i & 63)) & np.uint64(1)
            i += 1
        while i + 64 <= hi:
            total += np.uint64(popcount(words[i >> 6]))
            i += 64
        while i < hi:
            total += (words[i >> 6] >> np.uint64(i & 63)) & np.uint64(1)
            i += 1
        counts[t] = np.int64(total)
    return counts.sum()


@jit
def settle_small_values(a, b, c, x0, words, i0, i1):
    """Decide bits ``i0 <= i < i1`` by testing ``f(x0 + i)`` itself (these values are
    small enough to equal a sieving prime, or below 2)."""
    for i in range(i0, i1):
        x = x0 + i
        value = a * x * x + b * x + c
        bit = np.uint64(1) << np.uint64(i & 63)
        if value >= 2 and is_prime(np.uint64(value)):
            words[i >> 6] |= bit
        else:
            words[i >> 6] &= ~bit


def _block_prime_bound(a: int, b: int, c: int, x0: int, x1: int) -> int:
    """isqrt of the largest |f(x)| on [x0, x1) (f convex for a > 0: an end point)."""
    top = max(abs(a * x0 * x0 + b * x0 + c), abs(a * (x1 - 1) ** 2 + b * (x1 - 1) + c))
    return math.isqrt(top)


def _small_value_count(a: int, b: int, c: int, x0: int, x1: int, bound: int) -> int:
    """How many x from x0 on must be settled directly: those with f(x) <= bound.

    For a > 0, f(x) <= bound only below the larger root of f(x) = bound.
    """
    disc = b * b - 4 * a * (c - bound)
    if disc < 0:
        return 0
    limit = (-b + math.isqrt(disc)) // (2 * a) + 2  # past the larger root
    return max(0, min(x1, limit) - x0)


def _settled_end(a: int, b: int, c: int, x0: int, x1: int, prime_end: int) -> int:
    """The largest X in [x0, x1] with |f(x)| < prime_end^2 for all x0 <= x < X: once
    every prime below ``prime_end`` has crossed off, those x are decided."""
    square = prime_end * prime_end

    def small(x):  # |f| < square on [x0, x]; f convex: its ends and its minimum
        lo = max(abs(a * x0 * x0 + b * x0 + c), abs(a * x * x + b * x + c))
        if x0 * 2 * a < -b < x * 2 * a:
            vertex = -b // (2 * a)
            lo = max(lo, abs(a * vertex * vertex + b * vertex + c),
                     abs(a * (vertex + 1) ** 2 + b * (vertex + 1) + c))
        return lo < square

    if not small(x0):
        return x0
    low, high = x0, x1 - 1  # small(low) holds; find the last x with small(x)
    if small(high):
        return x1
    while high - low > 1:
        middle = (low + high) // 2
        if small(middle):
            low = middle
        else:
            high = middle
    return low + 1


def check_samples(a: int, b: int, c: int, words: np.ndarray, x0: int, lo: int, hi: int,
                  samples: int) -> int:
    """Test ``samples`` x spread evenly over ``[lo, hi)`` one by one (Miller-Rabin on
    the value, :func:`is_prime_wide`) against their decided bits (bit ``x - x0`` of
    ``words``); values from ``WIDE_PRIME_BOUND`` on are skipped. Returns how many were
    tested.

    Raises
    ------
    RuntimeError
        If a bit disagrees with the test: the sieve is wrong, and says where.
    """
    tested = 0
    n = min(samples, hi - lo)
    for k in range(n):
        x = lo + k * (hi - lo) // n
        value = a * x * x + b * x + c
        if value >= WIDE_PRIME_BOUND:
            continue
        i = x - x0
        marked = bool((int(words[i >> 6]) >> (i & 63)) & 1)
        if marked != (value >= 2 and is_prime_wide(value)):
            raise RuntimeError(f"the sieve says f({x}) = {value} is "
                               f"{'prime' if marked else 'composite'}; Miller-Rabin disagrees")
        tested += 1
    return tested


def sieve_blocks(a: int, b: int, c: int, upto: int, threads: int, start: int = 0,
                 pass_size: int = MAX_PASS, samples: int = 0):
    """Yield ``(x_end, primes_found, checked)`` as ``start <= x < upto`` gets decided,
    in order.

    ``a > 0``; the caller validates. ``primes_found`` counts the x decided since the
    previous yield, so a partial sum is exact for ``start <= x < x_end``. One pass
    covers up to ``pass_size`` values of x (one bit each, ``pass_size / 8`` bytes):
    every sieving prime's roots are found once per pass (so a later pass finds the
    roots of every prime an earlier one did again: fewer, larger passes save time),
    and the x whose values are below the square of the next batch's first prime are
    decided as soon as the batches below have crossed off.
    Each newly decided range has ``samples`` of its x checked one by one
    (:func:`check_samples`; ``checked`` of them were, values below 3.3 x 10^24).
    """
    from jitgames.primes.sieve import primes_between

    x0 = start
    parts = max(1, 2 * threads)
    while x0 < upto:
        x1 = min(upto, x0 + pass_size)
        n = x1 - x0
        bound = _block_prime_bound(a, b, c, x0, x1)
        words = np.full((n + 63) // 64, np.uint64(0xFFFFFFFFFFFFFFFF), dtype=np.uint64)
        n_small = _small_value_count(a, b, c, x0, x1, bound)
        decided = x0
        p0 = 2
        batch = min(PRIME_BATCH, max(1 << 16, bound // _MIN_BATCHES))
        while decided < x1:
            p1 = min(p0 + batch, bound + 1)
            if p0 < p1:
                primes = primes_between(p0, p1)
                roots, kinds = quadratic_roots(a, b, c, primes)
                cross_off_root_bits(words, x0, n, primes, roots, kinds, parts)
            done = x1 if p1 > bound else _settled_end(a, b, c, x0, x1, p1)
            if done > decided:
                # once counted, a bit is not read again: each small value is tested once
                settle_small_values(a, b, c, x0, words, min(decided - x0, n_small),
                                    min(done - x0, n_small))
                found = int(count_bits_between(words, decided - x0, done - x0, parts))
                checked = check_samples(a, b, c, words, x0, decided, done, samples)
                yield done, found, checked
                decided = done
            p0 = p1
        x0 = x1


def check_sieve_request(a: int, b: int, c: int, upto: int) -> None:
    """Raise InputError unless the sieve handles ``a x^2 + b x + c`` up to ``upto``."""
    if a <= 0:
        raise InputError("the polynomial sieve needs a leading coefficient A > 0")
    if max(abs(a), abs(b), abs(c)) > MAX_COEFFICIENT:
        raise InputError(f"coefficients must be at most 2^40 in size for the sieve, "
                         f"got {a}, {b}, {c}")
    if not 0 <= upto <= MAX_SIEVE_UPTO:
        raise InputError(f"upto must be between 0 and 10^12, got {upto}")
    small_top = a * 4096**2 + abs(b) * 4096 + abs(c)
    if small_top >= 2**63:
        raise InputError("values near x = 0 must fit in 63 bits")
    if upto and _block_prime_bound(a, b, c, 0, upto) > MAX_PRIME_BOUND:
        raise InputError(f"the values up to x = {upto} need sieving primes beyond 10^11 "
                         "(their square roots); use a smaller N")
