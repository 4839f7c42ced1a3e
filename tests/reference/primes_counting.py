"""Slow twins of the kernels of jitgames.primes.counting (same names and signatures),
written from the definitions with Python's integers: factoring by trial division,
phi(z, b) by counting, every leaf enumerated one by one. They import nothing from
the library."""
import math
from functools import lru_cache

import numpy as np

SHIFT = 60


def _pair(value):
    """An exact integer as the kernels' (high, low) pair: value = high 2^60 + low."""
    return [value >> SHIFT, value & ((1 << SHIFT) - 1)]


def pair_value(pair):
    return (int(pair[0]) << SHIFT) + int(pair[1])


def factor(n):
    """Prime factors of n with multiplicity, increasing (trial division)."""
    out, d = [], 2
    while d * d <= n:
        while n % d == 0:
            out.append(d)
            n //= d
        d += 1
    if n > 1:
        out.append(n)
    return out


def mu(n):
    f = factor(n)
    return 0 if len(set(f)) < len(f) else (-1) ** len(f)


def lpf(n):
    return factor(n)[0] if n > 1 else math.inf


def primes_upto(n):
    return [p for p in range(2, n + 1) if len(factor(p)) == 1]


def phi(z, b, primes):
    """How many 1 <= n <= z have no prime factor among primes[1..b] (1-indexed)."""
    banned = primes[1:b + 1]
    return sum(1 for n in range(1, z + 1) if all(n % p for p in banned))


def phi_by_recursion(z, b, primes):
    """phi by Legendre's rule phi(z, b) = phi(z, b - 1) - phi(z / p_b, b - 1)."""
    @lru_cache(maxsize=None)
    def rec(z, b):
        if b == 0 or z == 0:
            return z
        return rec(z, b - 1) - rec(z // primes[b], b - 1)
    return rec(z, b)


def pi_count(n):
    return sum(1 for k in range(2, n + 1) if len(factor(k)) == 1)


# --- tables ----------------------------------------------------------------------------
def mu_lpf(limit):
    out = np.zeros(limit + 1, dtype=np.int32)
    if limit >= 1:
        out[1] = limit + 1
    for n in range(2, limit + 1):
        out[n] = mu(n) * lpf(n)
    return out


def pi_table(primes, limit):
    return np.array([sum(1 for p in primes[1:] if p <= n) for n in range(limit + 1)],
                    dtype=np.int32)


def pi_bits(pi):
    n = len(pi)
    out = []
    for w in range((n + 63) // 64):
        out.append(int(pi[64 * w - 1]) if w > 0 else 0)
        out.append(sum(1 << k for k in range(64)
                       if 0 < 64 * w + k < n and len(factor(64 * w + k)) == 1))
    return np.array(out, dtype=np.uint64)


def phi_table(primes, c):
    q = math.prod(int(p) for p in primes[1:c + 1])
    return np.array([sum(1 for k in range(1, r + 1) if math.gcd(k, q) == 1)
                     for r in range(q)], dtype=np.int32)


# --- leaves ----------------------------------------------------------------------------
def _phi_inclusion_exclusion(z, small):
    """phi(z, c) over the c primes in ``small``: sum over d | prod(small) of mu(d) z // d."""
    total = 0
    for mask in range(1 << len(small)):
        d, sign = 1, 1
        for i, p in enumerate(small):
            if mask >> i & 1:
                d *= p
                sign = -sign
        total += sign * (z // d)
    return total


def ordinary_leaves(x, y, pc, mlpf, table, n_chunks):
    x, y, pc = int(x), int(y), int(pc)
    small = [p for p in primes_upto(pc)]
    per = (y - 1 + n_chunks - 1) // n_chunks
    out = np.zeros((n_chunks, 2), dtype=np.int64)
    for k in range(n_chunks):
        total = 0
        for n in range(2 + k * per, min(y + 1, 2 + (k + 1) * per)):
            if mu(n) != 0 and lpf(n) > pc:
                total += mu(n) * _phi_inclusion_exclusion(x // n, small)
        out[k] = _pair(total)
    return out


def special_leaves(x, y, c):
    """Every special leaf (b, m, z): c < b < pi(y), m <= y < m p_b squarefree with
    lpf(m) > p_b, z = x // (m p_b)."""
    primes = [1] + primes_upto(y)
    a = len(primes) - 1
    for b in range(c + 1, a):
        p = primes[b]
        for m in range(y // p + 1, y + 1):
            if m * p > y and mu(m) != 0 and lpf(m) > p:
                yield b, m, x // (m * p)


def is_easy(b, z, y, primes):
    return z < min(y + 1, primes[b] ** 2)


def easy_leaves(x, y, c, primes, pi, pib, mlpf):
    x, y = int(x), int(y)
    ps = [1] + primes_upto(y)
    out = np.zeros(len(ps), dtype=np.int64)
    for b, m, z in special_leaves(x, y, c):
        if is_easy(b, z, y, ps):
            out[b] += -mu(m) * phi_by_recursion(z, b - 1, tuple(ps))
    return out


def s2_hard(x, y, c):
    ps = [1] + primes_upto(y)
    return sum(-mu(m) * phi_by_recursion(z, b - 1, tuple(ps))
               for b, m, z in special_leaves(x, y, c) if not is_easy(b, z, y, ps))


def s1(x, y, c):
    ps = primes_upto(y)[:c]
    return sum(mu(n) * _phi_inclusion_exclusion(x // n, ps)
               for n in range(1, y + 1) if mu(n) != 0 and lpf(n) > ps[-1])


def p2(x, y):
    return sum(pi_count(x // p) - pi_count(p) + 1
               for p in range(y + 1, math.isqrt(x) + 1) if len(factor(p)) == 1)


def hard_leaves(x, y, c, primes, pi, mlpf, bh, sq, bounds, block_starts, seg_len, pattern):
    """Per block, by definition (see the kernel): ``phi[k, b]`` (only c < b <= bh
    compared), ``mus``, ``acc``, ``p2`` and ``stats``."""
    x, y = int(x), int(y)
    ps = [1] + primes_upto(y)
    end = int(bounds[-1])
    # unsieved[b][n]: n has no prime factor among p_1 .. p_{b-1} (1 counts)
    least = [0, math.inf] + [lpf(n) for n in range(2, end)]
    n_blocks = len(block_starts) - 1
    width = max(bh, c) + 2
    phi_out = np.zeros((n_blocks, width), dtype=np.int64)
    mus = np.zeros((n_blocks, width), dtype=np.int64)
    acc = np.zeros((n_blocks, 2), dtype=np.int64)
    p2_out = np.zeros((n_blocks, 2), dtype=np.int64)
    stats = np.zeros((n_blocks, 3), dtype=np.int64)
    leaves = [(b, m, z) for b, m, z in special_leaves(x, y, c) if not is_easy(b, z, y, ps)]
    p2_primes = [p for p in range(y + 1, math.isqrt(x) + 1) if len(factor(p)) == 1]
    for k in range(n_blocks):
        lo, hi = int(bounds[block_starts[k]]), int(bounds[block_starts[k + 1]])

        def level(b, top):  # count of lo <= n <= top unsieved by p_1 .. p_{b-1}
            return sum(1 for n in range(max(lo, 1), top + 1) if least[n] > ps[b - 1])

        for b in range(c + 1, bh + 1):
            phi_out[k, b] = level(b, hi - 1)
        total = 0
        for b, m, z in leaves:
            if lo <= z < hi:
                mus[k, b] += -mu(m)
                total += -mu(m) * level(b, z)
        acc[k] = _pair(total)
        total = 0
        for p in p2_primes:
            z = x // p
            if lo <= z < hi:
                total += sum(1 for n in range(max(lo, 2), z + 1) if least[n] == n)
                stats[k, 2] += 1
                stats[k, 0] += z >= int(bounds[1])
        p2_out[k] = _pair(total)
        stats[k, 1] = sum(1 for n in range(max(lo, 2), hi) if least[n] == n)
    return phi_out, mus, acc, p2_out, stats


def combine_blocks(c, bh, phi, mus, stats):
    below = [0] * phi.shape[1]
    pi_below = 0
    s2 = p2 = 0
    for k in range(phi.shape[0]):
        for b in range(c + 1, bh + 1):
            s2 += int(mus[k, b]) * below[b]
            below[b] += int(phi[k, b])
        p2 += int(stats[k, 0]) * pi_below
        pi_below += int(stats[k, 1])
    return s2, p2


def acc_add(acc, v):
    total = pair_value(acc) + int(v)
    acc[0], acc[1] = _pair(total)


def presieve_pattern(primes, c):
    period = math.prod(int(p) for p in primes[2:c + 1])
    n_bits = period + 128
    words = [0] * ((n_bits + 63) // 64)
    for i in range(n_bits):
        if all((2 * i + 1) % int(p) for p in primes[2:c + 1]):
            words[i // 64] |= 1 << (i % 64)
    return np.array(words, dtype=np.uint64)
