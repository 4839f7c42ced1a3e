"""pi(x), the number of primes <= x, for x < 2^64 without listing the primes: the
combinatorial method of Meissel, Lehmer, Lagarias-Miller-Odlyzko (LMO) and
Deleglise-Rivat (DR), in about x^(2/3) operations and x^(1/3) memory.

The identity
------------
Choose ``y`` with ``x^(1/3) <= y`` and ``y (y + 1) <= x``; let ``a = pi(y)`` and
``phi(z, b)`` count the ``1 <= n <= z`` with no prime factor among the first ``b``
primes ``p_1 = 2, p_2 = 3, ...``. Then (Legendre, Meissel)::

    pi(x) = phi(x, a) + a - 1 - P2(x, a)
    P2(x, a) = sum over primes y < p <= sqrt(x) of (pi(x / p) - pi(p) + 1)

(``P2`` counts the ``n <= x`` with two prime factors above ``y``; there are none with
three because ``y^3 >= x``). Expanding ``phi(z, b) = phi(z, b - 1) - phi(z / p_b, b - 1)``
from ``phi(x, a)`` down to a small ``c`` and stopping at the nodes ``n`` (squarefree,
all prime factors in ``(p_c, y]``) gives (LMO)::

    phi(x, a) = S1 + S2
    S1 = sum over n <= y, mu(n) != 0, lpf(n) > p_c of mu(n) phi(x / n, c)   (ordinary leaves)
    S2 = - sum over c < b < a, sum over m: mu(m) != 0, lpf(m) > p_b, m <= y < m p_b
             of mu(m) phi(x / (m p_b), b - 1)                               (special leaves)

``x / n`` always means ``floor(x / n)``, computed as ``(x // p) // m``: every quotient
by 2 or more fits a signed 64-bit integer, so only ``x`` itself is held unsigned.

How each part is computed
-------------------------
- ``phi(z, c)`` for ``c <= 7`` (``Q = 2 * 3 * ... * p_c <= 510510``): a table of
  ``phi(r, c)`` for ``r < Q`` and ``phi(z, c) = (z // Q) phi(Q) + phi(z mod Q, c)``
  (:func:`phi_table`). S1 is then a loop over ``n <= y`` (:func:`ordinary_leaves`).
- *Easy* special leaves (DR): ``z = x / (m p_b) < min(y + 1, p_b^2)``. Then
  ``phi(z, b - 1) = pi(z) - b + 2`` (1 when ``z < p_b``), read from a table of pi up
  to ``y`` (:func:`easy_leaves`). For ``p_b^2 > y`` the ``m`` are primes ``q``; the
  leaves with ``z < p_b`` are counted in one step per ``b``, and where ``z`` moves by
  less than a prime gap (DR's clustered easy leaves) the sum of ``pi(z)`` is taken
  by values ``v``: one look-up of ``pi(x / (p_b p_v))`` each, independent of the
  others.
- *Hard* special leaves and ``P2`` (:func:`hard_leaves`): a segmented sieve of the odd
  numbers below ``x / y`` (Oliveira e Silva's formulation of LMO and DR). In each
  segment the primes ``p_b`` are crossed off in turn; before ``p_b`` is, the
  segment's unsieved numbers are those counted by ``phi(., b - 1)`` (a crossing
  visits only the multiples ``m p_b`` with ``m`` prime to 2310, the pre-sieve having
  cleared the others), so a leaf's ``phi(z, b - 1)`` is the count below the
  segment plus the count in the segment up to ``z``. Counts in the segment come from one bit per odd number and a counter per
  1024 bits: a removal decrements one counter (O(1)); a query walks the counters from
  the previous query of the same ``b`` (the leaves of one ``b`` come in increasing
  ``z``) and popcounts at most 16 words. Primes ``p_b > sqrt(segment end)`` change
  nothing but themselves, so they are not crossed off: there the counts at level
  ``b - 1`` equal those at the last level sieved (a lazy offset keeps them). After the
  last crossing the unsieved numbers are the primes of the segment, which gives
  ``pi(x / p)`` for the ``p`` of P2 whose ``x / p`` falls there; those ``p``
  (between ``x / high`` and ``x / low``, at most about a segment wide) are found by a
  small sieve of their own.
- Threads: the segments are cut into blocks, which the threads take one at a time
  from a shared counter, each block with its own buffers, counting from zero; a block
  reports per ``b`` the sum of ``-mu(m)`` of its leaves and its own count at each
  level, and :func:`combine_blocks` adds the counts of the earlier blocks times those
  sums, in block order. All sums are exact integers
  (kept as two int64 words where they could pass 2^63, :func:`acc_add`), so the
  result does not depend on the number of threads or blocks.

Costs: the sieve covers ``x / y`` numbers (crossings ``~ (x / y) log log x``, counter
walks ``~ number of hard leaves x 16 words``), the easy leaves about ``pi(y)^2``
steps before clustering; memory is ``O(y)`` for the tables (pi, mu and least prime
factor up to ``y``) plus one segment per thread. ``y = alpha x^(1/3)`` with ``alpha``
growing with ``x`` (:func:`choose_y`) balances the two.

References: Lagarias, Miller, Odlyzko, Math. Comp. 44 (1985); Deleglise, Rivat, Math.
Comp. 65 (1996); T. Oliveira e Silva, "Computing pi(x): the combinatorial method",
Revista do DETUA 4 (2006); K. Walisch, primecount's notes on easy and hard special
leaves. No code was copied.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numba
import numpy as np

from jitgames._bits import popcount
from jitgames._jit import fetch_add, jit, prange
from jitgames.errors import InputError

__all__ = ["prime_pi", "nth_prime", "PiParts", "pi_parts", "choose_y", "MAX_X",
           "mu_lpf", "pi_table", "pi_bits", "phi_table", "ordinary_leaves", "easy_leaves",
           "hard_leaves", "combine_blocks", "acc_add", "sieve_plan_hard", "DIRECT_LIMIT",
           "MAX_NTH", "prefer_pi", "check_x", "presieve_pattern"]

MAX_X = 2**64 - 1
#: Below this, pi(x) is read from a plain sieve (the combinatorial set-up costs more).
DIRECT_LIMIT = 10**6
_CTR_SHIFT = 10  # one counter per 2^10 odd numbers of a segment (16 words)
_ACC_SHIFT = 60
_U1 = np.uint64(1)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


# --------------------------------------------------------------------------- exact sums
@jit(leaf=True)
def acc_add(acc, v):
    """Add ``v`` (``|v| < 2^62``) to the exact sum ``acc[0] 2^60 + acc[1]`` (int64[2],
    ``0 <= acc[1] < 2^60``), which cannot overflow for any sum met here."""
    lo = acc[1] + v
    q = lo >> _ACC_SHIFT  # floor division by 2^60 (arithmetic shift)
    acc[0] += q
    acc[1] = lo - (q << _ACC_SHIFT)


def _acc_value(acc) -> int:
    return (int(acc[0]) << _ACC_SHIFT) + int(acc[1])


@jit(leaf=True)
def _isqrt(v):
    """floor(sqrt(v)) for ``0 <= v < 2^62``, corrected after the float estimate."""
    r = np.int64(math.sqrt(float(v)))
    while r * r > v:
        r -= 1
    while (r + 1) * (r + 1) <= v:
        r += 1
    return r


@jit(leaf=True)
def _div(n, d):
    """``n // d`` for ``0 <= n < 2^63``, ``d >= 1``, by a floating-point quotient
    corrected to the exact one (a 64-bit integer division costs several times a
    double one; the quotients of the leaves, below 2^45, come out exact or off by one)."""
    q = np.int64(float(n) / float(d))
    r = n - q * d
    while r < 0:
        q -= 1
        r += d
    while r >= d:
        q += 1
        r -= d
    return q


# ------------------------------------------------------------------------------ tables
@jit
def mu_lpf(limit):
    """``mu(n) * lpf(n)`` for ``0 <= n <= limit`` (int32): 0 where ``n`` is not
    squarefree (and for 0); for 1, ``limit + 1`` (no prime factor: larger than any)."""
    lpf = np.zeros(limit + 1, dtype=np.int32)
    for p in range(2, limit + 1):
        if lpf[p] == 0:
            for k in range(p, limit + 1, p):
                if lpf[k] == 0:
                    lpf[k] = p
    out = np.zeros(limit + 1, dtype=np.int32)
    if limit >= 1:
        out[1] = limit + 1
    for n in range(2, limit + 1):
        p = lpf[n]
        m = n // p
        if m == 1:
            out[n] = -p
        elif m % p != 0 and out[m] != 0:  # mu(n) = -mu(m)
            out[n] = -p if out[m] > 0 else p
    return out


@jit
def pi_table(primes, limit):
    """``pi(n)`` for ``0 <= n <= limit`` (int32) from ``primes`` (1-indexed:
    ``primes[1] = 2``, increasing, covering ``limit``)."""
    out = np.zeros(limit + 1, dtype=np.int32)
    b = 0
    for n in range(limit + 1):
        while b + 1 < primes.shape[0] and primes[b + 1] <= n:
            b += 1
        out[n] = b
    return out


@jit
def pi_bits(pi):
    """A compact pi table (uint64, two words per 64 numbers): ``[2 w]`` = pi(64 w - 1)
    (the primes below 64 w), ``[2 w + 1]`` = which of ``64 w .. 64 w + 63`` are prime.
    12.5% of the int32 table's size, so the easy leaves' random look-ups stay in cache
    (:func:`_pi_lookup`)."""
    n = pi.shape[0]
    words = (n + 63) >> 6
    out = np.zeros(2 * words, dtype=np.uint64)
    for w in range(words):
        out[2 * w] = np.uint64(pi[64 * w - 1]) if w > 0 else np.uint64(0)
        bits = np.uint64(0)
        for k in range(64):
            m = 64 * w + k
            if 0 < m < n and pi[m] != pi[m - 1]:
                bits |= _U1 << np.uint64(k)
        out[2 * w + 1] = bits
    return out


@jit(leaf=True)
def _pi_lookup(table, n):
    """pi(n) from :func:`pi_bits`."""
    w = n >> 6
    return np.int64(table[2 * w]) + popcount(table[2 * w + 1] & (_ALL >> np.uint64(63 - (n & 63))))


@jit
def phi_table(primes, c):
    """``phi(r, c)`` for ``0 <= r < Q``, ``Q = p_1 ... p_c`` (int32): how many ``1 <= k
    <= r`` have no prime factor among the first ``c`` primes."""
    q = 1
    for i in range(1, c + 1):
        q *= primes[i]
    keep = np.ones(q, dtype=np.uint8)
    keep[0] = 0
    for i in range(1, c + 1):
        for k in range(0, q, primes[i]):
            keep[k] = 0
    out = np.zeros(q, dtype=np.int32)
    running = 0
    for r in range(q):
        running += keep[r]
        out[r] = running
    return out


@jit
def presieve_pattern(primes, c):
    """The odd numbers with no prime factor among ``p_2 .. p_c`` as bits, one period
    and two words more: bit ``i`` (word ``i >> 6``, bit ``i & 63``) stands for
    ``2 i + 1``; the period is ``P = p_2 ... p_c`` bits (1 for ``c = 1``). A segment
    whose slot 0 is the odd number ``2 s + 1`` starts at bit ``s mod P``."""
    period = 1
    for i in range(2, c + 1):
        period *= primes[i]
    n_bits = period + 128
    words = np.zeros((n_bits + 63) >> 6, dtype=np.uint64)
    for i in range(n_bits):
        n = 2 * i + 1
        keep = True
        for k in range(2, c + 1):
            if n % primes[k] == 0:
                keep = False
        if keep:
            words[i >> 6] |= _U1 << np.uint64(i & 63)
    return words


@jit(leaf=True)
def _fill_presieved(words, nw, pattern, period, start_bit):
    """``words[:nw]`` = the pattern's bits from ``start_bit`` (``< period``) on,
    wrapping at the period: the segment sieved by ``p_2 .. p_c`` in one pass."""
    o = start_bit
    for w in range(nw):
        k = o >> 6
        sh = np.uint64(o & 63)
        if sh == 0:
            words[w] = pattern[k]
        else:
            words[w] = (pattern[k] >> sh) | (pattern[k + 1] << (np.uint64(64) - sh))
        o += 64
        if o >= period:  # a period below 64 bits (c <= 3) wraps more than once
            o %= period


# ----------------------------------------------------------------------- ordinary leaves
@jit(parallel=True)
def ordinary_leaves(x, y, pc, mlpf, table, n_chunks):
    """S1 without its ``n = 1`` term: ``sum mu(n) phi(x // n, c)`` over ``2 <= n <= y``
    squarefree with ``lpf(n) > pc`` (``pc = p_c``; ``table`` from :func:`phi_table`).
    ``x`` is uint64. Returns ``n_chunks`` exact sums (int64 ``[n_chunks, 2]``, see
    :func:`acc_add`), one per range of ``n``."""
    q = table.shape[0]
    tot = np.int64(table[q - 1])
    out = np.zeros((n_chunks, 2), dtype=np.int64)
    per = (y - 1 + n_chunks - 1) // n_chunks
    for k in prange(n_chunks):
        lo = 2 + k * per
        hi = min(y + 1, lo + per)
        for n in range(lo, hi):
            s = mlpf[n]
            if s != 0 and abs(s) > pc:
                z = np.int64(x // np.uint64(n))
                v = (z // q) * tot + table[z % q]
                acc_add(out[k], v if s > 0 else -v)
    return out


# --------------------------------------------------------------------------- easy leaves
@jit(parallel=True)
def easy_leaves(x, y, c, primes, pi, pib, mlpf, slots):
    """The easy special leaves, per ``b`` (int64 ``[a + 1]``, ``a = pi(y)``): for each
    ``c < b < a``, the sum of ``-mu(m) phi(z, b - 1)`` over the leaves ``m p_b`` with
    ``z = x // (m p_b) < min(y + 1, p_b^2)``, where ``phi(z, b - 1) = pi(z) - b + 2``
    (1 when ``z < p_b``). ``x`` is uint64; ``pi`` covers ``[0, y]``, ``pib`` is the
    same table packed (:func:`pi_bits`) for the look-ups per leaf. ``slots`` threads
    take the next ``b`` from a shared counter (the small ``b`` hold most leaves, so the
    fixed runs of a plain prange would leave threads idle)."""
    a = np.int64(pi[y])
    out = np.zeros(a + 1, dtype=np.int64)
    following = np.full(1, c + 1, dtype=np.int64)  # the next b to hand out
    for _ in prange(slots):
        while True:
            b = fetch_add(following, 1)
            if b >= a:
                break
            p = primes[b]
            xp = np.int64(x // np.uint64(p))
            e = min(y + 1, p * p)
            lo = max(max(y // p, xp // e), p)  # the leaves have m > lo
            if lo >= y:
                continue
            total = 0
            if p * p > y:  # m has one prime factor, above p: m = q prime
                hi = min(y, xp // p)  # q <= hi: z >= p
                if hi < y:  # q in (max(lo, hi), y]: z < p, phi = 1, -mu = 1
                    total += a - pi[max(lo, hi)]
                if hi > lo:
                    i = np.int64(pi[lo]) + 1
                    last_i = np.int64(pi[hi])
                    # while q <= sqrt(x / p) consecutive q change z by more than a prime
                    # gap: one look-up a leaf; beyond, runs of equal pi(z) in one step each
                    sparse_i = min(np.int64(pi[min(_isqrt(xp), hi)]), last_i)
                    while i <= sparse_i:
                        total += _pi_lookup(pib, _div(xp, primes[i])) - b + 2
                        i += 1
                    if i <= last_i:
                        # beyond, z changes by less than a prime gap: count by values v of
                        # pi(z) instead of by leaf. The leaves q_j (j = i..last_i) with
                        # pi(x / (p q_j)) >= v are those with q_j <= xp // p_v, so
                        # sum_j pi(z_j) = n v_min + sum over v_min < v <= v_max of that
                        # number; its look-ups are independent of one another, where a
                        # walk from run to run of equal pi(z) waits on each look-up.
                        n_q = last_i - i + 1
                        v_min = _pi_lookup(pib, _div(xp, primes[last_i]))
                        v_max = _pi_lookup(pib, _div(xp, primes[i]))
                        runs = n_q * v_min
                        for v in range(v_min + 1, v_max + 1):
                            runs += _pi_lookup(pib, min(_div(xp, primes[v]), hi)) - (i - 1)
                        total += runs - n_q * (b - 2)
            else:
                for m in range(y, lo, -1):
                    s = mlpf[m]
                    if s != 0 and abs(s) > p:
                        z = _div(xp, m)
                        phi = _pi_lookup(pib, z) - b + 2 if z >= p else 1
                        total += -phi if s > 0 else phi
            out[b] = total
    return out


# --------------------------------------------------------------------------- hard leaves
def _wheel(modulus: int):
    """The wheel of ``modulus`` (a product of the primes 2, 3, 5, ...): for each residue
    ``r``, how far to the next residue prime to the modulus (0 if ``r`` is one; past
    the last one, to ``modulus + 1``) and that residue's rank; and half the gap from
    each of those residues to the next (the step in odd slots, per ``p``)."""
    units = [r for r in range(1, modulus + 1) if math.gcd(r, modulus) == 1]
    skip = np.zeros(modulus, dtype=np.int64)
    rank = np.zeros(modulus, dtype=np.int64)
    for r in range(modulus):
        k = next((k for k, u in enumerate(units) if u >= r), len(units))
        nxt = units[k] if k < len(units) else modulus + 1
        skip[r] = nxt - r
        rank[r] = k % len(units)
    half_gap = np.array([(b - a) // 2 for a, b in zip(units, units[1:] + [modulus + 1])],
                        dtype=np.int64)
    return skip, rank, half_gap


# the crossings visit only the multiples m p with m prime to 30 (c >= 3: the pre-sieve
# cleared the multiples of 3 and 5) or to 2310 (c >= 5: of 3, 5, 7 and 11): 8 in 15,
# or 96 in 385, of the odd multiples
_W30_SKIP, _W30_RANK, _W30_GAP = _wheel(30)
_W2310_SKIP, _W2310_RANK, _W2310_GAP = _wheel(2310)


@jit(leaf=True)
def _cross(words, counters, low, nslots, p, wheel):
    """Clear the odd multiples ``n >= max(low, p)`` of ``p`` (slot ``(n - low - 1) / 2``)
    below the segment's end, decrement the counter of each newly cleared bit, and
    return how many there were. ``wheel`` is 2310 when the segment is free of the
    multiples of 3, 5, 7 and 11 already, 30 when of those of 3 and 5 (only the
    multiples ``m p`` with ``m`` prime to it are visited), 2 otherwise."""
    start = max(low, p)
    m = (start + p - 1) // p
    if wheel == 2310:
        skip, rank, gap = _W2310_SKIP, _W2310_RANK, _W2310_GAP
    else:
        skip, rank, gap = _W30_SKIP, _W30_RANK, _W30_GAP
    k = 0
    n_gap = 1
    if wheel == 2:
        m += 1 - (m & 1)
    else:
        r = m % wheel
        m += skip[r]
        k = rank[r]
        n_gap = gap.shape[0]
    # unsigned slot indices: no negative-index wrap-around test per access
    i = np.uint64((m * p - low - 1) >> 1)
    n = np.uint64(nslots)
    removed = 0
    # Without branches: whether the bit was set is as good as random, and a
    # mispredicted branch per crossing cost more than the crossing (3x here).
    if wheel == 2:
        pu = np.uint64(p)
        while i < n:
            w = i >> np.uint64(6)
            shift = i & np.uint64(63)
            old = words[w]
            words[w] = old & ~(_U1 << shift)
            was = np.int64((old >> shift) & _U1)
            counters[i >> np.uint64(_CTR_SHIFT)] -= was
            removed += was
            i += pu
    else:
        while i < n:
            w = i >> np.uint64(6)
            shift = i & np.uint64(63)
            old = words[w]
            words[w] = old & ~(_U1 << shift)
            was = np.int64((old >> shift) & _U1)
            counters[i >> np.uint64(_CTR_SHIFT)] -= was
            removed += was
            i += np.uint64(gap[k] * p)
            k += 1
            if k == n_gap:
                k = 0
    return removed


@jit(leaf=True)
def _count_prefix(words, wpre, idx):
    """Set bits in slots ``[0, idx]`` from the word prefix sums ``wpre``."""
    if idx < 0:
        return 0
    w = idx >> 6
    return wpre[w] + popcount(words[w] & (_ALL >> np.uint64(63 - (idx & 63))))


@jit(leaf=True)
def _leaf_sums(xp, y, p, low, high, zl, primes, pi, mlpf, words, counters, wpre, base,
               use_prefix, out2):
    """The hard leaves ``m p`` of one ``b`` (``xp = x // p``) with ``z = xp // m`` in
    ``[zl, high)``: ``out2[0] = sum -mu(m) (base + count of the segment's set slots
    <= z)`` and ``out2[1] = sum -mu(m)`` (``|out2[0]| < 2^62``: at most y leaves of at
    most 2^43). Counts come from ``wpre`` (``use_prefix``) or from a walk over
    ``counters`` (the ``z`` increase as ``m`` decreases)."""
    mhi = min(y, _div(xp, zl))
    mlo = max(max(y // p, _div(xp, high)), p)
    if mhi <= mlo:
        return
    cb = 0  # the walk: csum = set slots in counter blocks < cb
    csum = 0
    local = 0
    signs = 0
    prime_m = p * p > y
    i = np.int64(pi[mhi]) if prime_m else mhi
    i_stop = np.int64(pi[mlo]) if prime_m else mlo
    while i > i_stop:
        if prime_m:
            m = primes[i]
            sign = 1  # -mu(q) for a prime q
        else:
            m = i
            s = mlpf[m]
            if s == 0 or abs(s) <= p:
                i -= 1
                continue
            sign = -1 if s > 0 else 1
        i -= 1
        z = _div(xp, m)
        idx = (z - low - 1) >> 1
        if use_prefix:
            cnt = _count_prefix(words, wpre, idx)
        elif idx < 0:
            cnt = 0
        else:
            tb = idx >> _CTR_SHIFT
            for k in range(cb, tb):  # a plain reduction: vectorised
                csum += counters[k]
            cb = max(cb, tb)
            cnt = csum
            wl = idx >> 6
            for w in range(tb << (_CTR_SHIFT - 6), wl):
                cnt += popcount(words[w])
            cnt += popcount(words[wl] & (_ALL >> np.uint64(63 - (idx & 63))))
        v = base + cnt
        local += v if sign > 0 else -v
        signs += sign
    out2[0] = local
    out2[1] = signs


@jit
def _hard_block(x, y, c, primes, pi, mlpf, bh, sq, bounds, s_first, s_last, phi_loc,
                mus, acc, p2acc, stats, words, counters, wpre, pattern):
    """One block of segments ``s_first <= s < s_last`` (see :func:`hard_leaves`)."""
    a = np.int64(pi[y])
    period = 1
    for i in range(2, c + 1):
        period *= primes[i]
    # x // p_b and the largest z of a leaf of b, x // (p_b (p_b + 1)), once per block
    # (a 64-bit division costs as much as a leaf)
    xps = np.zeros(bh + 2, dtype=np.int64)
    tops = np.zeros(bh + 2, dtype=np.int64)
    for b in range(c + 1, bh + 1):
        xps[b] = np.int64(x // np.uint64(primes[b]))
        tops[b] = xps[b] // (primes[b] + 1)
    wheel = 2310 if c >= 5 else 30 if c >= 3 else 2  # see _cross
    tail = 0  # the block's count so far at the last level sieved (lazy levels)
    jexp = 0  # levels b <= jexp of phi_loc are explicit, above: phi_loc[b] + tail
    pi_loc = 0
    out2 = np.zeros(2, dtype=np.int64)
    for s in range(s_first, s_last):
        low = bounds[s]
        high = bounds[s + 1]
        nslots = (high - low) >> 1
        nw = (nslots + 63) >> 6
        j = np.int64(pi[_isqrt(high - 1)])
        j = max(min(j, a), c)  # the pre-sieve below always crosses off p_2 .. p_c
        if s == 0:
            j = max(j, bh)
        jb = min(j, bh)
        if jb > jexp:
            for b in range(jexp + 1, jb + 1):
                phi_loc[b] += tail
        else:
            for b in range(jb + 1, jexp + 1):
                phi_loc[b] -= tail
        jexp = jb
        # sieved by p_2 .. p_c from the pattern (in seg 0 that removes p_2 .. p_c too)
        _fill_presieved(words, nw, pattern, period, (low >> 1) % period)
        if nslots & 63:
            words[nw - 1] &= _ALL >> np.uint64(64 - (nslots & 63))
        n_ctr = (nslots + (1 << _CTR_SHIFT) - 1) >> _CTR_SHIFT
        total = 0
        for k in range(n_ctr):
            t = 0
            for w in range(k << (_CTR_SHIFT - 6), min(nw, (k + 1) << (_CTR_SHIFT - 6))):
                t += popcount(words[w])
            counters[k] = t
            total += t
        for b in range(c + 1, j + 1):
            p = primes[b]
            if b <= bh:
                zl = max(low, min(y + 1, p * p))
                if zl < high and tops[b] >= low:
                    out2[:] = 0
                    _leaf_sums(xps[b], y, p, low, high, zl, primes, pi, mlpf, words, counters,
                               wpre, phi_loc[b], False, out2)
                    acc_add(acc, out2[0])
                    mus[b] += out2[1]
                phi_loc[b] += total
            total -= _cross(words, counters, low, nslots, p, wheel)
        need_prefix = j < bh or (s > 0 and min(sq, np.int64(x // np.uint64(low))) > y)
        if need_prefix:
            run = 0
            for w in range(nw):
                wpre[w] = run
                run += popcount(words[w])
        for b in range(j + 1, bh + 1):  # levels not sieved here equal level j
            p = primes[b]
            if tops[b] < low:
                break  # this b and every larger one have no leaf at or above low
            zl = max(low, min(y + 1, p * p))
            if zl < high:
                out2[:] = 0
                _leaf_sums(xps[b], y, p, low, high, zl, primes, pi, mlpf, words, counters, wpre,
                           phi_loc[b] + tail, True, out2)
                acc_add(acc, out2[0])
                mus[b] += out2[1]
        # P2: the primes y < p <= sqrt(x) with low <= x // p < high
        plo = max(y, np.int64(x // np.uint64(high)))
        phi_ = sq if s == 0 else min(sq, np.int64(x // np.uint64(low)))
        if phi_ > plo:
            width = phi_ - plo
            flags = np.ones(width, dtype=np.uint8)
            i = 1
            while i < primes.shape[0] and primes[i] * primes[i] <= phi_:
                q = primes[i]
                n = max(q * q, ((plo + q) // q) * q)
                while n <= phi_:
                    flags[n - plo - 1] = 0
                    n += q
                i += 1
            for t in range(width - 1, -1, -1):
                if flags[t]:
                    z = np.int64(x // np.uint64(plo + 1 + t))
                    if s == 0:
                        v = np.int64(pi[z])
                    else:
                        v = pi_loc + _count_prefix(words, wpre, (z - low - 1) >> 1)
                        stats[0] += 1  # a term that also needs pi(block start - 1)
                    acc_add(p2acc, v)
                    stats[2] += 1
        if s == 0:
            pi_loc = np.int64(pi[high - 1])
        else:
            pi_loc += total
        tail += total
    for b in range(jexp + 1, bh + 1):
        phi_loc[b] += tail
    stats[1] = pi_loc


@jit(parallel=True)
def hard_leaves(x, y, c, primes, pi, mlpf, bh, sq, bounds, block_starts, seg_len, pattern,
                slots):
    """Hard special leaves and P2 over the segments ``bounds[s] .. bounds[s + 1]``
    (``bounds[0] = 0``, ``bounds[1] = len(pi)`` or less, even boundaries, the last
    ``x // (y + 1) + 1``), block by block (``block_starts[k] .. block_starts[k + 1]``
    segments); ``slots`` threads take the next block from a shared counter as they
    finish one (prange alone would give each thread a fixed run of blocks).

    Parameters: ``x`` uint64; ``y``, ``c`` as in the module; ``primes`` 1-indexed up to
    ``y``; ``pi`` up to ``bounds[1] - 1 >= y``; ``mlpf`` from :func:`mu_lpf` up to
    ``y``; ``bh`` the largest ``b`` that may have hard leaves; ``sq = isqrt(x)``;
    ``seg_len`` the longest segment; ``pattern`` from :func:`presieve_pattern`.

    Returns per block ``phi`` (its count at each level ``b - 1``, ``[k, b]``), ``mus``
    (sum of ``-mu(m)`` of its leaves of each ``b``), ``acc`` (exact sum of ``-mu(m)``
    times the leaf's count from the block's start), ``p2`` (exact sum of the block's
    ``pi(x // p)`` counted from its start) and ``stats`` (P2 terms counted from the
    block start, primes in the block, all P2 terms).
    """
    n_blocks = block_starts.shape[0] - 1
    width = max(bh, c) + 2
    phi = np.zeros((n_blocks, width), dtype=np.int64)
    mus = np.zeros((n_blocks, width), dtype=np.int64)
    acc = np.zeros((n_blocks, 2), dtype=np.int64)
    p2 = np.zeros((n_blocks, 2), dtype=np.int64)
    stats = np.zeros((n_blocks, 3), dtype=np.int64)
    n_words = (seg_len // 2 + 63) // 64 + 1
    following = np.zeros(1, dtype=np.int64)  # the next block to hand out
    for _ in prange(slots):
        while True:
            k = fetch_add(following, 1)
            if k >= n_blocks:
                break
            words = np.empty(n_words, dtype=np.uint64)
            counters = np.zeros((n_words >> (_CTR_SHIFT - 6)) + 2, dtype=np.int64)
            wpre = np.zeros(n_words, dtype=np.int64)
            _hard_block(x, y, c, primes, pi, mlpf, bh, sq, bounds, block_starts[k],
                        block_starts[k + 1], phi[k], mus[k], acc[k], p2[k], stats[k], words,
                        counters, wpre, pattern)
    return phi, mus, acc, p2, stats


@jit
def combine_blocks(c, bh, phi, mus, stats):
    """The blocks' local sums made global, in block order: the exact sums (int64[2]
    each, :func:`acc_add`) of ``mus[k, b]`` times the count at level ``b - 1`` below
    block ``k``, and of the P2 terms of each block (``stats[k, 0]``) times the primes
    below it (``stats[k, 1]`` summed), each in units of 1 and of 2^31 (the products
    are split so that none passes 2^62)."""
    n_blocks = phi.shape[0]
    below = np.zeros(phi.shape[1], dtype=np.int64)  # global count at level b-1 so far
    pi_below = 0
    s2 = np.zeros(2, dtype=np.int64)
    s2_high = np.zeros(2, dtype=np.int64)  # multiples of 2^31
    p2 = np.zeros(2, dtype=np.int64)
    p2_high = np.zeros(2, dtype=np.int64)
    for k in range(n_blocks):
        for b in range(c + 1, bh + 1):
            m = mus[k, b]
            if m != 0:
                acc_add(s2, m * (below[b] & 0x7FFFFFFF))
                acc_add(s2_high, m * (below[b] >> 31))
            below[b] += phi[k, b]
        acc_add(p2, stats[k, 0] * (pi_below & 0x7FFFFFFF))
        acc_add(p2_high, stats[k, 0] * (pi_below >> 31))
        pi_below += stats[k, 1]
    return s2, s2_high, p2, p2_high


# -------------------------------------------------------------------------------- plans
def choose_y(x: int, alpha: float | None = None) -> int:
    """``y = alpha x^(1/3)``, clamped to ``x^(1/3) <= y`` and ``y (y + 1) <= x``.

    The default ``alpha`` grows like ``log(x)^3`` (as in Oliveira e Silva's analysis),
    tuned on this machine; ``y`` is capped at 2 x 10^7 (tables of ~250 MB).
    """
    cube = _icbrt(x)
    if cube ** 3 < x:
        cube += 1
    if alpha is None:
        lg = math.log10(max(x, 10))
        alpha = max(1.0, lg ** 3 / 400.0)
    y = int(alpha * cube)
    y = min(y, 2 * 10**7)
    top = math.isqrt(x)
    while top * (top + 1) > x:
        top -= 1
    return max(cube, min(y, top))


def _icbrt(x: int) -> int:
    r = int(round(x ** (1.0 / 3.0)))
    while r ** 3 > x:
        r -= 1
    while (r + 1) ** 3 <= x:
        r += 1
    return r


@dataclass(frozen=True)
class HardPlan:
    """Segments and blocks of the hard-leaf sieve: ``bounds`` (int64, even, from 0 to
    ``x // (y + 1) + 1``) and ``block_starts`` (segment index of each block, and the end)."""

    bounds: np.ndarray
    block_starts: np.ndarray
    seg_len: int


def sieve_plan_hard(x: int, y: int, segment: int | None = None,
                    blocks: int | None = None) -> HardPlan:
    """Cut ``[0, x // (y + 1) + 1)`` into a first segment of ``y + 1`` numbers (rounded
    up to even: the pi table covers it) and then segments of ``segment`` numbers
    (default: the power of two in ``[16, 32) sqrt(x / y)``, between 2^18 and 2^22:
    measured best at 10^15 and 10^16, where each segment's fixed cost per prime
    outweighs the words falling out of the L1 cache), grouped into
    ``blocks`` blocks (default: up to 256, independent of the thread count).

    The blocks hold about equal estimated work, not equal numbers of segments: a
    segment starting at ``low`` costs its length times ``1 + 200 y / low`` (the
    crossings, and the hard leaves, whose density falls like ``1 / low``; the factor
    was measured at 10^15). Equal segment counts left the first block with a sixth of
    the work of pi(10^15), more than a thread's share beyond six threads.
    """
    end = x // (y + 1) + 1
    first = y + 1 + ((y + 1) & 1)
    if segment is None:
        root = math.isqrt(end)
        segment = 1 << max(18, min(22, (16 * root).bit_length()))
    segment += segment & 1
    bounds = [0, min(first, end)]
    while bounds[-1] < end:
        bounds.append(min(end, bounds[-1] + segment))
    n_seg = len(bounds) - 1
    if blocks is None:
        blocks = min(256, n_seg)
    blocks = max(1, min(blocks, n_seg))
    edges = np.array(bounds, dtype=np.float64)
    lows = np.maximum(edges[:-1], float(y + 1))
    weight = np.cumsum((edges[1:] - edges[:-1]) * (1.0 + 200.0 * y / lows))
    # block k ends after the first segment whose cumulative weight reaches k / blocks
    # of the whole; strictly increasing starts keep every block non-empty
    starts = [0]
    for k in range(1, blocks):
        s = int(np.searchsorted(weight, weight[-1] * k / blocks)) + 1
        s = max(s, starts[-1] + 1)
        if s >= n_seg - (blocks - k - 1):
            s = n_seg - (blocks - k)
        starts.append(s)
    starts.append(n_seg)
    return HardPlan(np.array(bounds, dtype=np.int64), np.array(starts, dtype=np.int64),
                    max(first, segment))


# ------------------------------------------------------------------------------ parts
@dataclass(frozen=True)
class PiParts:
    """The terms of ``pi(x) = S1 + S2_easy + S2_hard + a - 1 - P2``, with ``y``, ``c``,
    ``a = pi(y)``, and ``pi`` itself."""

    x: int
    y: int
    c: int
    a: int
    s1: int
    s2_easy: int
    s2_hard: int
    p2: int

    @property
    def phi(self) -> int:
        """``phi(x, a) = S1 + S2``."""
        return self.s1 + self.s2_easy + self.s2_hard

    @property
    def pi(self) -> int:
        return self.phi + self.a - 1 - self.p2


class _Tables:
    """The tables a computation reads: ``primes`` (1-indexed, up to ``limit``), ``pi``
    (int32 to ``limit``) and ``pib`` (packed), ``mlpf`` (mu times least prime factor to
    ``y``), ``phi`` (phi(r, c) for r < Q) and the pre-sieve ``pattern``."""

    def __init__(self, y: int, limit: int, c: int):
        from jitgames.primes.sieve import plain_sieve

        odd = plain_sieve(limit)
        self.primes = np.concatenate([np.array([1, 2], dtype=np.int64), odd])
        self.pi = pi_table(self.primes, limit)
        self.pib = pi_bits(self.pi)
        self.mlpf = mu_lpf(y)
        self.phi = phi_table(self.primes, c)
        self.pattern = presieve_pattern(self.primes, c)


def pi_parts(x: int, y: int | None = None, c: int | None = None,
             segment: int | None = None, blocks: int | None = None,
             progress=None, timings: dict | None = None) -> PiParts:
    """Every term of the combinatorial formula for ``pi(x)``, ``x >= 8``.

    Parameters
    ----------
    y, c : int, optional
        The split (:func:`choose_y`) and the depth of the phi table (default
        ``min(7, pi(y))``); pi does not depend on them, the parts do.
    segment, blocks : int, optional
        The hard-leaf sieve's layout (:func:`sieve_plan_hard`); no effect on any part.
    progress : callable, optional
        Called with (blocks done, blocks) as the hard-leaf blocks finish.
    timings : dict, optional
        Filled with the process CPU seconds of each stage (``tables``, ``s1``,
        ``easy``, ``hard``: the hard leaves and P2 with their combination), for the
        benchmark of where the time goes (``bench/pi_phases.py``).
    """
    clock = [time.process_time()]

    def lap(name):
        if timings is not None:
            now = time.process_time()
            timings[name] = now - clock[0]
            clock[0] = now

    x = int(x)
    if not 8 <= x <= MAX_X:
        raise InputError(f"pi_parts needs 8 <= x < 2^64, got {x}")
    y = choose_y(x) if y is None else int(y)
    if y ** 3 < x or y * (y + 1) > x:
        raise InputError(f"y = {y} must satisfy y^3 >= x and y (y + 1) <= x")
    plan = sieve_plan_hard(x, y, segment, blocks)
    limit = max(int(plan.bounds[1]) - 1, y)
    small_pi = sum(1 for p in (2, 3, 5, 7, 11, 13, 17) if p <= y)
    c = small_pi if c is None else int(c)
    if not 1 <= c <= small_pi:
        raise InputError(f"c = {c} must be between 1 and min(7, pi(y) = {small_pi})")
    tables = _Tables(y, limit, c)
    lap("tables")
    a = int(tables.pi[y])
    xu = np.uint64(x)
    primes, pi, mlpf = tables.primes, tables.pi, tables.mlpf
    q = tables.phi.shape[0]
    s1 = (x // q) * int(tables.phi[q - 1]) + int(tables.phi[x % q])  # n = 1
    chunks = ordinary_leaves(xu, y, int(primes[c]), mlpf, tables.phi, 64)
    s1 += sum(_acc_value(r) for r in chunks)
    lap("s1")
    easy = easy_leaves(xu, y, c, primes, pi, tables.pib, mlpf, numba.get_num_threads())
    s2_easy = _acc_value(_sum_exact(easy))
    lap("easy")
    z_end = x // (y + 1)
    bh = int(pi[min(math.isqrt(z_end), limit)])
    bh = max(min(bh, a - 1), c)
    sq = math.isqrt(x)
    n_blocks = len(plan.block_starts) - 1
    parts = []
    step = max(1, n_blocks // 16) if progress is not None else n_blocks
    for k0 in range(0, n_blocks, step):
        k1 = min(n_blocks, k0 + step)
        parts.append(hard_leaves(xu, y, c, primes, pi, mlpf, bh, sq, plan.bounds,
                                 plan.block_starts[k0:k1 + 1], plan.seg_len,
                                 tables.pattern, numba.get_num_threads()))
        if progress is not None:
            progress(k1, n_blocks)
    phi_b, mus, acc, p2, stats = (np.concatenate([p[i] for p in parts]) for i in range(5))
    s2h, s2h_high, p2_below, p2_below_high = combine_blocks(c, bh, phi_b, mus, stats)
    s2_hard = (_acc_value(s2h) + (_acc_value(s2h_high) << 31)
               + sum(_acc_value(r) for r in acc))
    big_b = a + int(stats[:, 2].sum())  # pi(sqrt x)
    p2_total = (_acc_value(p2_below) + (_acc_value(p2_below_high) << 31)
                + sum(_acc_value(r) for r in p2)
                - ((big_b - 1) * big_b // 2 - (a - 1) * a // 2))
    lap("hard")
    return PiParts(x, y, c, a, s1, s2_easy, s2_hard, p2_total)


@jit
def _sum_exact(values):
    """The exact sum of an int64 array, as :func:`acc_add` keeps it."""
    acc = np.zeros(2, dtype=np.int64)
    for v in values:
        acc_add(acc, v)
    return acc


# --------------------------------------------------------------------------- public API
def check_x(x) -> int:
    """``x`` as an int, checked to be an integer in ``[0, 2^64)`` (else InputError)."""
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
        raise InputError(f"x must be an integer, got {x!r}")
    x = int(x)
    if not 0 <= x <= MAX_X:
        raise InputError(f"x must be between 0 and 2^64 - 1, got {x}")
    return x


def prime_pi(x: int, progress=None) -> int:
    """The number of primes ``p <= x``, for ``0 <= x < 2^64``, exactly.

    Below ``DIRECT_LIMIT`` by the sieve (:func:`.sieve.count_primes`), above by the
    combinatorial method (:func:`pi_parts`, module docstring). ``progress(done, total)``
    is called as the blocks of the hard-leaf sieve finish (the bulk of the time).

    Raises
    ------
    InputError
        If ``x`` is not an integer in ``[0, 2^64)``.
    """
    x = check_x(x)
    if x < DIRECT_LIMIT:
        from jitgames.primes.sieve import count_primes

        return count_primes(0, x + 1).count
    return pi_parts(x, progress=progress).pi


#: Largest k for :func:`nth_prime`: pi(2^64 - 1), the primes below 2^64.
MAX_NTH = 425656284035217743


def _li_inverse(k: int) -> int:
    """The x with li(x) = k (Newton's method on floats; within ~1e-12 relative)."""
    from jitgames.primes.polynomials import logarithmic_integral

    x = k * math.log(k) + k * math.log(math.log(k)) if k > 5 else 20.0
    for _ in range(100):
        step = (logarithmic_integral(x) - k) * math.log(x)
        x -= step
        if abs(step) < 1e-9 * x:
            break
    return int(x)


def _kth_prime_from(k: int, x0: int, c0: int) -> int:
    """The k-th prime, given ``c0 = pi(x0)``: sieve the gap between ``x0`` and it."""
    from jitgames.primes.sieve import count_primes, primes_between

    width = 1 << 20
    log = max(math.log(max(x0, 3)), 1.0)
    cap = 10**9  # counted windows shrink by 8 once the prime is inside one
    if c0 < k:  # the (k - c0)-th prime above x0
        need, lo = k - c0, x0 + 1
        while True:
            w = min(max(width, int(need * log * 1.2)), cap, 2**64 - lo)
            if w <= 10**7:
                found = primes_between(lo, lo + w)
                if len(found) >= need:
                    return int(found[need - 1])
                need -= len(found)
            else:
                got = count_primes(lo, lo + w).count
                if got >= need:
                    cap = max(10**7, w // 8)
                    continue
                need -= got
            lo += w
    need, hi = c0 - k, x0 + 1  # skip the `need` largest primes below hi
    while True:
        w = min(max(width, int((need + 1) * log * 1.2)), cap, hi)
        if w <= 10**7:
            found = primes_between(hi - w, hi)
            if len(found) > need:
                return int(found[len(found) - 1 - need])
            need -= len(found)
        else:
            got = count_primes(hi - w, hi).count
            if got > need:
                cap = max(10**7, w // 8)
                continue
            need -= got
        hi -= w


def nth_prime(k: int, progress=None) -> int:
    """The ``k``-th prime (``nth_prime(1) = 2``), for ``1 <= k <= MAX_NTH``.

    Estimate ``x ~ li^-1(k)``, count ``pi(x)`` exactly (:func:`prime_pi`), correct the
    estimate once by the prime density when it is far off, and sieve the remaining
    gap (:func:`.sieve.count_primes`, then the list of primes in the last window).

    Raises
    ------
    InputError
        If ``k`` is not an integer in ``[1, MAX_NTH]``.
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise InputError(f"k must be an integer, got {k!r}")
    k = int(k)
    if not 1 <= k <= MAX_NTH:
        raise InputError(f"k must be between 1 and {MAX_NTH} (the primes below 2^64), "
                         f"got {k}")
    if k <= 664579:  # the primes below 10^7
        from jitgames.primes.sieve import primes_between

        return int(primes_between(0, 10**7)[k - 1])
    x0 = min(_li_inverse(k), MAX_X)
    c0 = prime_pi(x0, progress)
    if abs(c0 - k) * math.log(x0) > 10**8:  # a second, closer estimate
        x0 = min(MAX_X, max(2, int(x0 + (k - c0) * math.log(x0))))
        c0 = prime_pi(x0, progress)
    return _kth_prime_from(k, x0, c0)


def prefer_pi(a: int, b: int) -> bool:
    """Whether ``count [a, b)`` should be ``pi(b - 1) - pi(a - 1)`` rather than a sieve.

    The sieve costs about its width (some 2-5 x 10^9 numbers a second a thread), the
    two pi about ``b^(2/3)`` (measured: pi(10^12) 0.4 s, pi(10^15) 15 s, bench/
    primecount.py): the rule is width >= max(10^10, 20 b^(2/3)).
    """
    width = b - a
    return width >= max(10**10, 20 * round(b ** (2.0 / 3.0)))
