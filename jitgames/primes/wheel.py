"""Kernels of the mod-30 wheel sieve: one segment of bits, crossed off and counted.

Layout
------
Byte ``j`` of the sieve stands for the 30 integers ``30 j .. 30 j + 29``; its bit ``k``
for ``30 j + RESIDUES[k]``, the eight residues prime to 30. A set bit is "still
possibly prime". Multiples of 2, 3 and 5 are never stored, so a byte holds 30 numbers
and a 256 KiB segment 7.9 million.

Crossing off (after Walisch's primesieve, whose design this follows; no code copied)
-----------------------------------------------------------------------------------
A sieving prime ``p = 30 q + r`` crosses off ``p m`` for multipliers ``m`` prime to
30, from ``m = p`` on. Going from ``m`` to the next such multiplier moves the byte
index by ``q * WHEEL_GAP[w] + CROSS_CORRECTION[c, w]`` and clears the bit
``CROSS_MASK[c, w]``, where ``w`` is the wheel index of ``m mod 30`` and ``c`` that of
``r`` (:data:`CROSS_MASK` and :data:`CROSS_CORRECTION` are 8 x 8 tables built from the
rule alone). The state of a prime between segments is two numbers: the byte of its
next multiple, relative to the next segment, and the wheel index of that multiplier.
Eight consecutive multipliers advance exactly ``p`` bytes, so from any wheel index the
kernel clears eight bytes at eight fixed offsets per turn (:func:`cross_off`).

Pre-sieving
-----------
The multiples of 7 .. 163 are not crossed off one by one: each group of these primes
has a byte pattern periodic with the product of the group (:func:`presieve_pattern`),
and a segment starts as the AND of the patterns at its offset (:func:`presieve`), four
patterns a pass, so that the segment is loaded and stored once per four patterns.
"""
from __future__ import annotations

import numpy as np

from jitgames._bits import popcount
from jitgames._jit import jit

__all__ = [
    "RESIDUES", "WHEEL_GAP", "WHEEL_INDEX", "CROSS_MASK", "CROSS_CORRECTION", "TURN_GAP",
    "TURN_CORRECTION", "PRESIEVE_MIN_RUN",
    "PRESIEVE_GROUPS", "PRESIEVE_LIMIT", "presieve_pattern", "presieve_tables",
    "first_multiple", "cross_off", "cross_off_turns", "presieve", "count_bits", "byte_mask_from",
    "byte_mask_below",
]

#: The residues prime to 30, bit k of a byte stands for 30 j + RESIDUES[k].
RESIDUES = np.array([1, 7, 11, 13, 17, 19, 23, 29], dtype=np.int64)
#: Distance from RESIDUES[k] to the next residue prime to 30 (29 -> 31).
WHEEL_GAP = np.array([6, 4, 2, 4, 2, 4, 6, 2], dtype=np.int64)
#: WHEEL_INDEX[r] = k with RESIDUES[k] = r, or -1 when gcd(r, 30) > 1.
WHEEL_INDEX = np.full(30, -1, dtype=np.int64)
WHEEL_INDEX[RESIDUES] = np.arange(8)


def _crossing_tables():
    mask = np.zeros((8, 8), dtype=np.uint8)
    correction = np.zeros((8, 8), dtype=np.int64)
    for c, r in enumerate(RESIDUES):
        for w, m in enumerate(RESIDUES):
            product = int(r * m) % 30  # residue of p m: r m mod 30
            mask[c, w] = 0xFF ^ (1 << int(WHEEL_INDEX[product]))
            # p (m + gap) - p m = (30 q + r) gap: q gap bytes plus the carry below
            correction[c, w] = (product + int(r * WHEEL_GAP[w])) // 30
    return mask, correction


#: CROSS_MASK[c, w]: byte mask clearing p m, p of wheel class c, m of wheel index w.
#: CROSS_CORRECTION[c, w]: bytes from p m to the next multiple, beyond q * gap.
CROSS_MASK, CROSS_CORRECTION = _crossing_tables()


def _turn_tables():
    gap = np.zeros((8, 8), dtype=np.uint64)
    correction = np.zeros((8, 8, 8), dtype=np.uint64)
    for w in range(8):
        for j in range(1, 8):
            k = (w + j - 1) % 8
            gap[w, j] = gap[w, j - 1] + WHEEL_GAP[k]
            correction[:, w, j] = correction[:, w, j - 1] + CROSS_CORRECTION[:, k]
    return gap, correction


#: From the multiple p m (m of wheel index w, p = 30 q + r of wheel class c) to the
#: j-th next multiple prime to 30 (j < 8) there are q * TURN_GAP[w, j] +
#: TURN_CORRECTION[c, w, j] bytes.
TURN_GAP, TURN_CORRECTION = _turn_tables()

#: Groups of pre-sieved primes; each group's pattern has the product as period (bytes).
PRESIEVE_GROUPS = ((7, 11, 13, 17), (19, 23, 29), (31, 37, 41), (43, 47), (53, 59),
                   (61, 67), (71, 73), (79, 83), (89, 97), (101, 103), (107, 109),
                   (113, 127), (131, 137), (139, 149), (151, 157), (163,))
#: The largest pre-sieved prime: sieving primes start above it.
PRESIEVE_LIMIT = 163
#: Shortest stored pattern (bytes): a whole number of periods at least this long.
PRESIEVE_MIN_RUN = 8192


def presieve_pattern(primes) -> np.ndarray:
    """One period (``prod(primes)`` bytes) of the bits left by the given primes.

    Byte ``j`` bit ``k`` is 0 when some prime of the group divides
    ``30 j + RESIDUES[k]`` (the primes themselves included: the caller restores them).
    """
    period = int(np.prod(primes))
    numbers = 30 * np.arange(period, dtype=np.int64)[:, None] + RESIDUES[None, :]
    keep = np.ones(numbers.shape, dtype=bool)
    for p in primes:
        keep &= numbers % p != 0
    return (keep.astype(np.uint8) << np.arange(8, dtype=np.uint8)).sum(
        axis=1, dtype=np.uint8)


def presieve_tables(groups=PRESIEVE_GROUPS):
    """All patterns in one array, with each pattern's start and length (int64).

    Each group's period is repeated up to at least :data:`PRESIEVE_MIN_RUN` bytes
    (still a period), so that a pattern is rarely cut inside a block; all-ones
    patterns pad the groups to a multiple of four (:func:`presieve` ANDs four at a time).
    """
    patterns = [presieve_pattern(g) for g in groups]
    patterns = [np.tile(p, -(-PRESIEVE_MIN_RUN // p.size)) for p in patterns]
    while len(patterns) % 4:
        patterns.append(np.full(PRESIEVE_MIN_RUN, 0xFF, dtype=np.uint8))
    periods = np.array([p.size for p in patterns], dtype=np.int64)
    starts = np.zeros(len(patterns), dtype=np.int64)
    np.cumsum(periods[:-1], out=starts[1:])
    return np.concatenate(patterns), starts, periods


@jit
def first_multiple(p, start_byte):
    """Byte index and wheel index of p's first multiple to cross at or after a byte.

    The multiple is ``p m`` with ``m >= p`` prime to 30 and ``p m >= 30 start_byte``.
    Works for ``p < 2^32`` and ``start_byte < 2^64 / 30`` (int64); returns a byte of
    -1 when that multiple is at or beyond 2^64 (it never needs crossing).
    """
    p_u = np.uint64(p)
    start = np.uint64(start_byte) * np.uint64(30)
    m = start // p_u
    if m * p_u < start:
        m += np.uint64(1)
    if m < p_u:
        m = p_u
    while WHEEL_INDEX[np.int64(m % np.uint64(30))] < 0:
        m += np.uint64(1)
    if m > np.uint64(0xFFFFFFFFFFFFFFFF) // p_u:
        return np.int64(-1), np.int64(0)
    return np.int64((m * p_u) // np.uint64(30)), WHEEL_INDEX[np.int64(m % np.uint64(30))]


@jit
def cross_off(segment, end, p, wheel_class, at, wheel):
    """Clear the multiples of ``p`` in ``segment[:end]``, from byte ``at`` (wheel index
    ``wheel``); returns ``(at, wheel)`` of the first multiple not crossed (``at >= end``).

    The last byte of ``segment`` is scratch (``segment.size - 1 >= end``): the end of
    the last turn is written without branches, its multiples at or past ``end`` into
    that byte, whose content is then meaningless.
    """
    # Whole turns begin at any wheel index: the eight multiples of a turn from index
    # ``wheel`` lie at fixed offsets (TURN_GAP, TURN_CORRECTION) with fixed masks.
    q = np.uint64(p // 30)
    c = np.uint64(wheel_class)
    w = np.uint64(wheel)
    o1 = q * TURN_GAP[w, 1] + TURN_CORRECTION[c, w, 1]
    o2 = q * TURN_GAP[w, 2] + TURN_CORRECTION[c, w, 2]
    o3 = q * TURN_GAP[w, 3] + TURN_CORRECTION[c, w, 3]
    o4 = q * TURN_GAP[w, 4] + TURN_CORRECTION[c, w, 4]
    o5 = q * TURN_GAP[w, 5] + TURN_CORRECTION[c, w, 5]
    o6 = q * TURN_GAP[w, 6] + TURN_CORRECTION[c, w, 6]
    o7 = q * TURN_GAP[w, 7] + TURN_CORRECTION[c, w, 7]
    m0 = CROSS_MASK[c, w]
    m1 = CROSS_MASK[c, (w + np.uint64(1)) & np.uint64(7)]
    m2 = CROSS_MASK[c, (w + np.uint64(2)) & np.uint64(7)]
    m3 = CROSS_MASK[c, (w + np.uint64(3)) & np.uint64(7)]
    m4 = CROSS_MASK[c, (w + np.uint64(4)) & np.uint64(7)]
    m5 = CROSS_MASK[c, (w + np.uint64(5)) & np.uint64(7)]
    m6 = CROSS_MASK[c, (w + np.uint64(6)) & np.uint64(7)]
    m7 = CROSS_MASK[c, (w + np.uint64(7)) & np.uint64(7)]
    # Unsigned indices spare Numba's check of each index for wrap-around (1.3x faster).
    u = np.uint64(at)
    e = np.uint64(end)
    step = np.uint64(p)
    while u + o7 < e:
        segment[u] &= m0
        segment[u + o1] &= m1
        segment[u + o2] &= m2
        segment[u + o3] &= m3
        segment[u + o4] &= m4
        segment[u + o5] &= m5
        segment[u + o6] &= m6
        segment[u + o7] &= m7
        u += step
    # The rest of the last turn (0 to 7 multiples before the end): a branch on their
    # number would be mispredicted about once a call.
    scratch = np.uint64(segment.size - 1)
    a1 = u + o1
    a2 = u + o2
    a3 = u + o3
    a4 = u + o4
    a5 = u + o5
    a6 = u + o6
    segment[u if u < e else scratch] &= m0
    segment[a1 if a1 < e else scratch] &= m1
    segment[a2 if a2 < e else scratch] &= m2
    segment[a3 if a3 < e else scratch] &= m3
    segment[a4 if a4 < e else scratch] &= m4
    segment[a5 if a5 < e else scratch] &= m5
    segment[a6 if a6 < e else scratch] &= m6
    crossed = (np.int64(u < e) + np.int64(a1 < e) + np.int64(a2 < e) + np.int64(a3 < e)
               + np.int64(a4 < e) + np.int64(a5 < e) + np.int64(a6 < e))
    after = u + o7  # the first of the turn's multiples at or past the end
    after = a6 if a6 >= e else after
    after = a5 if a5 >= e else after
    after = a4 if a4 >= e else after
    after = a3 if a3 >= e else after
    after = a2 if a2 >= e else after
    after = a1 if a1 >= e else after
    after = u if u >= e else after
    return np.int64(after), (wheel + crossed) & 7


@jit
def cross_off_turns(segment, end, p, wheel_class, at, wheel):
    """Like :func:`cross_off`, but every turn of the wheel that starts before byte
    ``end`` is completed: up to ``p - 1`` bytes past ``end`` are written, which the
    caller guarantees ``segment`` holds (pre-sieved already). Finishing the turn
    spares the single steps at both ends of a block. Returns ``(at, wheel)`` of the
    first multiple not crossed (wheel index 0 unless it stopped before reaching the
    start of a turn)."""
    q = p // 30
    while wheel != 0:  # single steps up to the start of a turn of the wheel
        if at >= end:
            return at, wheel
        segment[np.uint64(at)] &= CROSS_MASK[wheel_class, wheel]
        at += q * WHEEL_GAP[wheel] + CROSS_CORRECTION[wheel_class, wheel]
        wheel = (wheel + 1) & 7
    # The turn's offsets from wheel index 0, as in cross_off.
    qu = np.uint64(q)
    c = np.uint64(wheel_class)
    o1 = qu * TURN_GAP[0, 1] + TURN_CORRECTION[c, 0, 1]
    o2 = qu * TURN_GAP[0, 2] + TURN_CORRECTION[c, 0, 2]
    o3 = qu * TURN_GAP[0, 3] + TURN_CORRECTION[c, 0, 3]
    o4 = qu * TURN_GAP[0, 4] + TURN_CORRECTION[c, 0, 4]
    o5 = qu * TURN_GAP[0, 5] + TURN_CORRECTION[c, 0, 5]
    o6 = qu * TURN_GAP[0, 6] + TURN_CORRECTION[c, 0, 6]
    o7 = qu * TURN_GAP[0, 7] + TURN_CORRECTION[c, 0, 7]
    m0 = CROSS_MASK[wheel_class, 0]
    m1 = CROSS_MASK[wheel_class, 1]
    m2 = CROSS_MASK[wheel_class, 2]
    m3 = CROSS_MASK[wheel_class, 3]
    m4 = CROSS_MASK[wheel_class, 4]
    m5 = CROSS_MASK[wheel_class, 5]
    m6 = CROSS_MASK[wheel_class, 6]
    m7 = CROSS_MASK[wheel_class, 7]
    u = np.uint64(at)
    step = np.uint64(p)
    limit = np.uint64(end)
    while u < limit:
        segment[u] &= m0
        segment[u + o1] &= m1
        segment[u + o2] &= m2
        segment[u + o3] &= m3
        segment[u + o4] &= m4
        segment[u + o5] &= m5
        segment[u + o6] &= m6
        segment[u + o7] &= m7
        u += step
    return np.int64(u), np.int64(0)


@jit
def presieve(segment, length, start_byte, patterns, starts, periods):
    """``segment[:length]`` = AND of the pre-sieve patterns at byte ``start_byte``
    (``periods.size`` a multiple of 4, see :func:`presieve_tables`)."""
    for g in range(0, periods.size, 4):
        o0 = start_byte % periods[g]
        o1 = start_byte % periods[g + 1]
        o2 = start_byte % periods[g + 2]
        o3 = start_byte % periods[g + 3]
        done = 0
        while done < length:  # runs up to the next end of a period among the four
            take = min(length - done, periods[g] - o0, periods[g + 1] - o1,
                       periods[g + 2] - o2, periods[g + 3] - o3)
            _and_four(segment, done, take, patterns, starts[g] + o0, starts[g + 1] + o1,
                      starts[g + 2] + o2, starts[g + 3] + o3, g == 0)
            done += take
            o0 = 0 if o0 + take == periods[g] else o0 + take
            o1 = 0 if o1 + take == periods[g + 1] else o1 + take
            o2 = 0 if o2 + take == periods[g + 2] else o2 + take
            o3 = 0 if o3 + take == periods[g + 3] else o3 + take


# The loop below runs on unsigned indices: with signed ones Numba checks each index
# for wrap-around and LLVM does not vectorise it (15x slower).
@jit
def _and_four(target, at, n, source, s0, s1, s2, s3, first):
    """``target[at:at + n]`` (``= ...`` when ``first``, else ``&= ...``) the AND of
    the four runs ``source[s_i:s_i + n]``."""
    t = np.uint64(at)
    end = t + np.uint64(n)
    a = np.uint64(s0)
    b = np.uint64(s1)
    c = np.uint64(s2)
    d = np.uint64(s3)
    one = np.uint64(1)
    if first:
        while t < end:
            target[t] = source[a] & source[b] & source[c] & source[d]
            t += one
            a += one
            b += one
            c += one
            d += one
    else:
        while t < end:
            target[t] &= source[a] & source[b] & source[c] & source[d]
            t += one
            a += one
            b += one
            c += one
            d += one


@jit
def count_bits(words, n_words):
    """Number of set bits in ``words[:n_words]`` (uint64 array)."""
    total = 0
    for i in range(n_words):
        total += popcount(words[i])
    return total


@jit
def byte_mask_from(residue):
    """Bits of a byte that stand for numbers with ``n mod 30 >= residue``."""
    mask = 0
    for k in range(8):
        if RESIDUES[k] >= residue:
            mask |= 1 << k
    return np.uint8(mask)


@jit
def byte_mask_below(residue):
    """Bits of a byte that stand for numbers with ``n mod 30 < residue``."""
    return np.uint8(0xFF ^ byte_mask_from(residue))
