"""Slow, obviously-correct twins of the jitgames.primes kernels (same names and
signatures), written with Python's exact integers: trial division, walking the
spiral step by step, brute-force root counting."""
import math

import numpy as np

MASK = (1 << 64) - 1
BASES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)


# --- primality -------------------------------------------------------------------
def mul_high(a, b):
    return (int(a) * int(b)) >> 64


def mul_wide(a, b):
    product = int(a) * int(b)
    return product >> 64, product & MASK


def montgomery_reduce(high, low, m, neg_inv):
    value = (int(high) << 64) | int(low)
    return value * pow(1 << 64, -1, int(m)) % int(m)


def mulmod(a, b, m):
    return int(a) * int(b) % int(m)


def powmod(a, e, m):
    return pow(int(a), int(e), int(m))


def strong_probable_prime(n, base):
    n, base = int(n), int(base)
    if base % n == 0:
        return True
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    x = pow(base, d, n)
    if x in (1, n - 1):
        return True
    for _ in range(s - 1):
        x = x * x % n
        if x == n - 1:
            return True
    return False


def trial_division_is_prime(n):
    n = int(n)
    if n < 2:
        return False
    for p in range(2, math.isqrt(n) + 1):
        if n % p == 0:
            return False
    return True


def is_prime(n):
    """Trial division below 10^10; above, Miller-Rabin with all 12 bases (exact ints)."""
    n = int(n)
    if n < 10**10:
        return trial_division_is_prime(n)
    if any(n % p == 0 for p in BASES):
        return False
    return all(strong_probable_prime(n, b) for b in BASES)


def isqrt(n):
    return math.isqrt(int(n)) if n > 0 else 0


# --- sieve -----------------------------------------------------------------------
def plain_sieve(limit):
    return np.array([p for p in range(3, int(limit) + 1) if trial_division_is_prime(p)],
                    dtype=np.int64)


WHEEL = (1, 7, 11, 13, 17, 19, 23, 29)  # residues prime to 30, bit k of a byte


def first_multiple(p, start_byte):
    """Smallest p m with m >= p prime to 30 and p m >= 30 start_byte: (byte, wheel)."""
    p = int(p)
    m = max(p, -(-30 * int(start_byte) // p))
    while math.gcd(m, 30) != 1:
        m += 1
    if p * m >= 2**64:
        return -1, 0
    return p * m // 30, WHEEL.index(m % 30)


def _cross_one(segment, p, at, wheel):
    """Clear the multiple p m at byte ``at`` (m of wheel index ``wheel``); the next one."""
    m = WHEEL[wheel]  # only m mod 30 matters for the bytes and bits
    n = p * m
    segment[at] &= 0xFF ^ (1 << WHEEL.index(n % 30))
    gap = (WHEEL + (31,))[wheel + 1] - WHEEL[wheel]
    return at + (n % 30 + p * gap) // 30, (wheel + 1) % 8  # (p m + p gap) // 30 - p m // 30


def cross_off(segment, end, p, wheel_class, at, wheel):
    """Walk the multiples p m (m prime to 30) one at a time from byte ``at``."""
    p, at, wheel = int(p), int(at), int(wheel)
    assert WHEEL[int(wheel_class)] == p % 30
    while at < end:
        at, wheel = _cross_one(segment, p, at, wheel)
    return at, wheel


def cross_off_turns(segment, end, p, wheel_class, at, wheel):
    """Single multiples up to the start of a turn (while before ``end``), then whole
    turns of eight multiples as long as a turn starts before ``end``."""
    p, at, wheel = int(p), int(at), int(wheel)
    assert WHEEL[int(wheel_class)] == p % 30
    while wheel != 0:
        if at >= end:
            return at, wheel
        at, wheel = _cross_one(segment, p, at, wheel)
    while at < end:
        for _ in range(8):
            at, wheel = _cross_one(segment, p, at, wheel)
    return at, wheel


def bucket_sieve(sieve, first_byte, primes, segment_bytes):
    """Clear the bit of every multiple p m (m >= p prime to 30) in the bytes, prime by
    prime over the whole range (no segments, no buckets)."""
    lo, hi = 30 * int(first_byte), 30 * (int(first_byte) + sieve.size)
    for p in map(int, primes):
        for m in range(max(p, -(-lo // p)), -(-hi // p)):
            if math.gcd(m, 30) == 1:
                n = p * m
                sieve[n // 30 - int(first_byte)] &= 0xFF ^ (1 << WHEEL.index(n % 30))


def _prime_factors(n):
    return [d for d in range(2, int(n) + 1) if n % d == 0 and trial_division_is_prime(d)]


def presieve(segment, length, start_byte, primes):
    """Bits of the numbers with no factor among ``primes``, from scratch."""
    j = np.arange(int(length), dtype=np.int64)
    keep = np.ones((int(length), 8), dtype=bool)
    for q in primes:
        base = 30 * int(start_byte) % q  # n = 30 (start_byte + j) + r, taken mod q
        for k, r in enumerate(WHEEL):
            keep[:, k] &= (base + 30 * j + r) % q != 0
    for i in range(int(length)):
        segment[i] = sum(1 << k for k in range(8) if keep[i, k])


def count_bits(words, n_words):
    return sum(bin(int(w)).count("1") for w in words[:n_words])


def sieve_chunks(first, stop, lo, last, base, pre, segment_bytes, chunk_bytes, verify_from,
                 write, offsets, out):
    """Primes per chunk of bytes, found by testing every number of the chunk."""
    n_chunks = (stop - first + chunk_bytes - 1) // chunk_bytes
    counts = np.zeros(n_chunks, dtype=np.int64)
    for c in range(n_chunks):
        cursor = int(offsets[c]) if write else 0
        begin = 30 * (first + c * chunk_bytes)
        end = 30 * min(first + (c + 1) * chunk_bytes, stop)
        for n in range(max(begin, int(lo)), min(end, int(last) + 1)):
            if is_prime(n):
                counts[c] += 1
                if write:
                    out[cursor] = n
                    cursor += 1
    return counts


def count_by_testing(lo, n_odd):
    return sum(is_prime(int(lo) + 2 * i) for i in range(int(n_odd)))


def primality_mask(values):
    return np.array([is_prime(int(v)) for v in values], dtype=np.bool_)


# --- layouts: walk the spiral one step at a time -----------------------------------
_WALK = [(0, 0)]  # _WALK[k] = point of index k, extended one step at a time
_SEEN = {(0, 0)}
_HEADING = [(1, 0)]


def _spiral_walk(k):
    """Walk the spiral: first step right, then turn left whenever the left cell is free."""
    while len(_WALK) <= k:
        x, y = _WALK[-1]
        dx, dy = _HEADING[0]
        x, y = x + dx, y + dy
        _WALK.append((x, y))
        _SEEN.add((x, y))
        left = (-dy, dx)
        if (x + left[0], y + left[1]) not in _SEEN:
            _HEADING[0] = left
    return _WALK[k]


def spiral_point(k):
    return _spiral_walk(int(k))


def spiral_index(x, y):
    k = 0
    while _spiral_walk(k) != (x, y):
        k += 1
    return k


def triangle_point(k):
    d, first = 0, 0
    while first + d + 1 <= k:
        first += d + 1
        d += 1
    x = k - first
    return x, d - x


def triangle_index(x, y):
    if x < 0 or y < 0:
        return -1
    k = 0
    while triangle_point(k) != (x, y):
        k += 1
    return k


def spiral_points(ks):
    pts = [spiral_point(int(k)) for k in ks]
    return (np.array([p[0] for p in pts], dtype=np.int64),
            np.array([p[1] for p in pts], dtype=np.int64))


def triangle_points(ks):
    pts = [triangle_point(int(k)) for k in ks]
    return (np.array([p[0] for p in pts], dtype=np.int64),
            np.array([p[1] for p in pts], dtype=np.int64))


def spiral_grid(x0, y0, width, height):
    return np.array([[spiral_index(x0 + c, y0 + r) for c in range(width)]
                     for r in range(height)], dtype=np.int64).reshape(height, width)


def triangle_grid(x0, y0, width, height):
    return np.array([[triangle_index(x0 + c, y0 + r) for c in range(width)]
                     for r in range(height)], dtype=np.int64).reshape(height, width)


# --- polynomials -----------------------------------------------------------------
def jacobi(a, n):
    """Jacobi symbol from its definition: product of Legendre symbols (Euler)."""
    result, m = 1, int(n)
    p = 2
    a = int(a)
    while m > 1:
        while m % p == 0:
            m //= p
            residue = a % p
            if residue == 0:
                return 0
            result *= 1 if pow(residue, (p - 1) // 2, p) == 1 else -1
        p += 1
    return result


def zero_share(a, b, c, d, p):
    period = p * d
    hits = sum(1 for t in range(period) if ((a * t * t + b * t + c) // d) % p == 0)
    return hits / period


def bateman_horn_product(a, b, c, d, primes):
    product = 1.0
    for p in primes:
        p = int(p)
        product *= (1.0 - zero_share(a, b, c, d, p)) / (1.0 - 1.0 / p)
    return product


def prime_value(value, table, table_lo):
    return int(value) >= 2 and is_prime(int(value))


def count_prime_values(a, b, c, d, n, table, table_lo):
    return sum(prime_value((a * t * t + b * t + c) // d, table, table_lo) for t in range(n))


# --- lines -----------------------------------------------------------------------
def cell_of(direction, line, step, height, width):
    cells = _line_cells(direction, line, height, width)
    return cells[step] if 0 <= step < len(cells) else (-1, -1)


def _line_cells(direction, line, height, width):
    """All cells of a line, by filtering the whole grid (obviously complete)."""
    if direction == 0:
        return [(line, col) for col in range(width)] if line < height else []
    if direction == 1:
        return [(row, line) for row in range(height)] if line < width else []
    if direction == 2:  # col - row constant, read upwards
        return sorted((r, c) for r in range(height) for c in range(width)
                      if c - r == line - (height - 1))
    return sorted(((r, c) for r in range(height) for c in range(width) if r + c == line),
                  key=lambda rc: rc[1])


def line_pieces(grid):
    height, width = grid.shape
    rows = []
    for direction in range(4):
        n_lines = height if direction == 0 else width if direction == 1 else height + width - 1
        for line in range(n_lines):
            values = [int(grid[r, c]) for r, c in _line_cells(direction, line, height, width)]
            i = 0
            while i < len(values):
                if i + 2 >= len(values) or min(values[i:i + 3]) < 0:
                    i += 1
                    continue
                j = i + 3
                while j < len(values) and values[j] >= 0 and (
                        values[j] - 2 * values[j - 1] + values[j - 2]
                        == values[i + 2] - 2 * values[i + 1] + values[i]):
                    j += 1
                rows.append((direction, i, line, j - i))
                i = j
    return np.array(rows, dtype=np.int64).reshape(-1, 4)


def first_cells(pieces, grid):
    height, width = grid.shape
    out = []
    for direction, step, line, run in pieces:
        cells = _line_cells(direction, line, height, width)[step:step + run]
        forward = grid[cells[-1]] >= grid[cells[0]]
        if not forward:
            cells = cells[::-1]
        out.append([*cells[0], *cells[1], *cells[2], int(forward)])
    return np.array(out, dtype=np.int64).reshape(-1, 7)


def count_line_primes(a, b, c, d, lengths, table, table_lo):
    return np.array([count_prime_values(int(a[i]), int(b[i]), int(c[i]), int(d[i]),
                                        int(lengths[i]), table, table_lo)
                     for i in range(len(a))], dtype=np.int64)


# --- Baillie-PSW -------------------------------------------------------------------
def is_square(n):
    return math.isqrt(int(n)) ** 2 == int(n)


def _jacobi_by_reciprocity(a, n):
    """Jacobi symbol by the laws of quadratic reciprocity (for n too big to factor)."""
    a, n, result = a % n, n, 1
    while a:
        twos = 0
        while a % 2 == 0:
            a, twos = a // 2, twos + 1
        if twos % 2 and n % 8 in (3, 5):
            result = -result
        if a % 4 == 3 and n % 4 == 3:
            result = -result
        a, n = n % a, a
    return result if n == 1 else 0


def jacobi_u64(a, n):
    return _jacobi_by_reciprocity(int(a), int(n))


def selfridge_parameter(n):
    n = int(n)
    d = 5
    while True:
        j = _jacobi_by_reciprocity(d % n, n)
        if j == -1:
            return d
        if j == 0 and abs(d) % n:
            return 0
        d = -(d + 2) if d > 0 else -(d - 2)


def _lucas_uv(p, q, k, n):
    """(U_k, V_k) mod n from the matrix [[P, -Q], [1, 0]]^k = [[U_k+1, .], [U_k, .]]."""
    def mul(x, y):
        return [[(x[0][0] * y[0][0] + x[0][1] * y[1][0]) % n,
                 (x[0][0] * y[0][1] + x[0][1] * y[1][1]) % n],
                [(x[1][0] * y[0][0] + x[1][1] * y[1][0]) % n,
                 (x[1][0] * y[0][1] + x[1][1] * y[1][1]) % n]]
    result, base = [[1, 0], [0, 1]], [[p % n, -q % n], [1, 0]]
    while k:
        if k & 1:
            result = mul(result, base)
        base = mul(base, base)
        k >>= 1
    u_next, u = result[0][0], result[1][0]
    return u, (2 * u_next - p * u) % n  # V_k = 2 U_k+1 - P U_k


def strong_lucas_probable_prime(n):
    """From the definition: n + 1 = d 2^s; U_d = 0 or V_{d 2^r} = 0 for some r < s."""
    n = int(n)
    if is_square(n):
        return False
    d_param = selfridge_parameter(n)
    if d_param == 0:
        return False
    q = (1 - d_param) // 4
    d, s = n + 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    u, _ = _lucas_uv(1, q, d, n)
    if u == 0:
        return True
    return any(_lucas_uv(1, q, d << r, n)[1] == 0 for r in range(s))


# --- the polynomial sieve ------------------------------------------------------------
def sqrt_mod(a, p):
    """A square root of a modulo p by trying every residue."""
    return next(x for x in range(int(p)) if x * x % int(p) == int(a) % int(p))


def quadratic_roots(a, b, c, primes):
    """Roots of a x^2 + b x + c mod p by trying every residue (kind 3: all residues)."""
    roots = np.zeros((len(primes), 2), dtype=np.uint64)
    kinds = np.zeros(len(primes), dtype=np.int8)
    for j, p in enumerate(int(q) for q in primes):
        found = [x for x in range(p) if (a * x * x + b * x + c) % p == 0]
        if len(found) == p:
            kinds[j] = 3
            continue
        kinds[j] = len(found)
        roots[j, :len(found)] = found
    return roots, kinds


def _bit(words, i):
    return int(words[i // 64]) >> (i % 64) & 1


def _set_bit(words, i, value):
    word = int(words[i // 64])
    words[i // 64] = (word | 1 << (i % 64)) if value else (word & ~(1 << (i % 64)))


def cross_off_root_bits(words, x0, n, primes, roots, kinds, parts, segment_shift=None):
    """Clear bit i (i < n) where some prime has a root congruent to x0 + i (or divides
    every value: kind 3); the split into parts and segments changes nothing."""
    for i in range(int(n)):
        x = int(x0) + i
        for j, p in enumerate(int(q) for q in primes):
            if kinds[j] == 3 or any(x % p == int(roots[j, k]) for k in range(kinds[j])):
                _set_bit(words, i, 0)


def count_bits_between(words, i0, i1, parts):
    return sum(_bit(words, i) for i in range(int(i0), int(i1)))


def settle_small_values(a, b, c, x0, words, i0, i1):
    for i in range(int(i0), int(i1)):
        value = a * (x0 + i) ** 2 + b * (x0 + i) + c
        _set_bit(words, i, is_prime(value))
