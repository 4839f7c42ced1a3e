"""Deterministic primality for every 64-bit integer, and integer square roots.

Modular multiplication of two 64-bit numbers needs a 128-bit product, which Numba's
Python dialect does not have: :func:`mul_high` (shared, :mod:`jitgames._jit`) gives its
high word through one native multiplication (an LLVM intrinsic; a plain-integer version
runs without the JIT), and
Montgomery's method (:func:`montgomery_reduce`) reduces it, so every step is exact
``uint64`` arithmetic (wrapping on purpose) and no floating point is involved.

Miller-Rabin uses the first k prime bases, with k chosen from the smallest strong
pseudoprime to all of the first k primes (OEIS A014233): the first 12 primes
(2..37) suffice for every n < 3.1e23, hence for all of ``uint64``; smaller n use
fewer bases (2047 -> {2}, 1373653 -> {2, 3}, ...). Numbers below 1369 = 37^2 are
settled by trial division alone.

Every kernel takes and returns ``np.uint64`` (``is_prime`` returns a bool).
:func:`is_prime_wide` is plain Python for values up to 3.3e24 (the first 13 prime
bases), used to check sampled values of the polynomial sieve beyond 2^64.
"""
from __future__ import annotations

import numpy as np

from jitgames._jit import jit, mul_high
from jitgames.errors import InputError

__all__ = [
    "mul_high", "mul_wide", "addmod", "submod", "is_square", "jacobi_u64", "selfridge_parameter",
    "strong_lucas_probable_prime", "mulmod", "powmod", "strong_probable_prime", "is_prime", "isqrt",
    "is_prime_int", "is_prime_wide", "WIDE_PRIME_BOUND", "PRIME_BASES", "PSEUDOPRIME_BOUNDS",
]

_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_TWO = np.uint64(2)

#: The first 12 primes, the Miller-Rabin bases.
PRIME_BASES = np.array([2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37], dtype=np.uint64)
#: PSEUDOPRIME_BOUNDS[k-1] = A014233(k): the smallest odd composite that is a strong
#: probable prime to all of the first k prime bases (k = 1..9); beyond the 9th the
#: next bound, 318665857834031151167461, exceeds 2^64.
PSEUDOPRIME_BOUNDS = np.array([
    2047, 1373653, 25326001, 3215031751, 2152302898747, 3474749660383,
    341550071728321, 341550071728321, 3825123056546413051,
], dtype=np.uint64)


@jit
def mul_wide(a, b):
    """Full 128-bit product of two ``uint64``: returns ``(high, low)`` words."""
    return mul_high(a, b), a * b


@jit
def _negated_inverse(m):
    """``-m^-1 mod 2^64`` for odd ``m`` (Newton's iteration doubles the good bits)."""
    inverse = m  # m * m = 1 mod 8: three good bits
    for _ in range(5):
        inverse = inverse * (_TWO - m * inverse)
    return _ZERO - inverse


@jit
def montgomery_reduce(high, low, m, neg_inv):
    """``(high * 2^64 + low) / 2^64 mod m`` for a product below ``m * 2^64``, m odd."""
    u = low * neg_inv
    u_high, _ = mul_wide(u, m)
    carry = _ONE if low != _ZERO else _ZERO
    total = high + u_high
    overflow = total < high
    total2 = total + carry
    overflow = overflow or total2 < total
    if overflow or total2 >= m:
        total2 = total2 - m
    return total2


@jit
def addmod(x, y, m):
    """``x + y mod m`` for ``x, y < m`` (no wrap, whatever m)."""
    total = x + y
    if total < x or total >= m:
        total = total - m
    return total


@jit
def _montgomery_setup(m):
    """``(neg_inv, R mod m, R^2 mod m)`` with ``R = 2^64``, for odd ``m > 1``."""
    neg_inv = _negated_inverse(m)
    r1 = (_ZERO - m) % m
    r2 = r1
    for _ in range(64):
        r2 = addmod(r2, r2, m)
    return neg_inv, r1, r2


@jit
def _montgomery_pow(base_m, exponent, one_m, m, neg_inv):
    result = one_m
    while exponent != _ZERO:
        if exponent & _ONE:
            h, l_ = mul_wide(result, base_m)
            result = montgomery_reduce(h, l_, m, neg_inv)
        h, l_ = mul_wide(base_m, base_m)
        base_m = montgomery_reduce(h, l_, m, neg_inv)
        exponent = exponent >> _ONE
    return result


@jit
def mulmod(a, b, m):
    """``a * b mod m`` for ``uint64`` a, b and odd ``m > 1`` (exact)."""
    neg_inv, r1, r2 = _montgomery_setup(m)
    h, l_ = mul_wide(a % m, r2)
    a_m = montgomery_reduce(h, l_, m, neg_inv)
    h, l_ = mul_wide(a_m, b % m)
    return montgomery_reduce(h, l_, m, neg_inv)


@jit
def powmod(a, e, m):
    """``a ** e mod m`` for ``uint64`` arguments and odd ``m > 1`` (exact)."""
    neg_inv, r1, r2 = _montgomery_setup(m)
    h, l_ = mul_wide(a % m, r2)
    a_m = montgomery_reduce(h, l_, m, neg_inv)
    x = _montgomery_pow(a_m, e, r1, m, neg_inv)
    return montgomery_reduce(_ZERO, x, m, neg_inv)


@jit
def _sprp_montgomery(n, base, d, s, neg_inv, r1, r2):
    h, l_ = mul_wide(base % n, r2)
    a_m = montgomery_reduce(h, l_, n, neg_inv)
    if a_m == _ZERO:
        return True
    minus_one = n - r1
    x = _montgomery_pow(a_m, d, r1, n, neg_inv)
    if x == r1 or x == minus_one:
        return True
    for _ in range(s - 1):
        h, l_ = mul_wide(x, x)
        x = montgomery_reduce(h, l_, n, neg_inv)
        if x == minus_one:
            return True
    return False


@jit
def _split_odd(n):
    d = n - _ONE
    s = 0
    while (d & _ONE) == _ZERO:
        d = d >> _ONE
        s += 1
    return d, s


@jit
def strong_probable_prime(n, base):
    """Miller-Rabin round: is odd ``n > 2`` a strong probable prime to ``base``?

    A base divisible by n passes (it proves nothing).
    """
    d, s = _split_odd(n)
    neg_inv, r1, r2 = _montgomery_setup(n)
    return _sprp_montgomery(n, base, d, s, neg_inv, r1, r2)


@jit
def submod(x, y, m):
    """``x - y mod m`` for ``x, y < m``."""
    return x - y if x >= y else x + (m - y)


@jit
def _halve(x, m):
    """``x / 2 mod m`` for odd ``m`` and ``x < m`` (the same in Montgomery form)."""
    if x & _ONE:
        return (x >> _ONE) + ((m >> _ONE) + _ONE)
    return x >> _ONE


@jit
def is_square(n):
    """Is the ``uint64`` ``n`` a perfect square?"""
    r = np.uint64(min(np.sqrt(np.float64(n)), 4294967295.0))
    while r * r > n:
        r -= _ONE
    while r < np.uint64(4294967295) and (r + _ONE) * (r + _ONE) <= n:
        r += _ONE
    return r * r == n


@jit
def jacobi_u64(a, n):
    """Jacobi symbol ``(a / n)`` for a ``uint64`` ``a`` and odd ``uint64`` ``n``."""
    a = a % n
    result = 1
    while a != _ZERO:
        while (a & _ONE) == _ZERO:
            a = a >> _ONE
            r = n & np.uint64(7)
            if r == np.uint64(3) or r == np.uint64(5):
                result = -result
        a, n = n, a
        if (a & np.uint64(3)) == np.uint64(3) and (n & np.uint64(3)) == np.uint64(3):
            result = -result
        a = a % n
    return result if n == _ONE else 0


@jit
def selfridge_parameter(n):
    """First D of 5, -7, 9, -11, ... with Jacobi ``(D / n) = -1`` (Selfridge's method A);
    returns 0 when some ``|D| < n`` shares a factor with n (n is then composite).
    ``n`` is odd, > 1 and not a square (else no such D exists)."""
    d = 5
    while True:
        magnitude = np.uint64(abs(d))
        residue = magnitude % n if d > 0 else (n - magnitude % n) % n
        j = jacobi_u64(residue, n)
        if j == -1:
            return d
        if j == 0 and magnitude % n != _ZERO:
            return 0
        d = -(d + 2) if d > 0 else -(d - 2)


@jit
def strong_lucas_probable_prime(n):
    """Strong Lucas test with Selfridge's parameters (P = 1, Q = (1 - D) / 4).

    ``n`` is odd, > 37 and not divisible by the primes up to 37. With ``n + 1 = d 2^s``
    (d odd), n passes when ``U_d = 0`` or ``V_{d 2^r} = 0 (mod n)`` for some r < s.
    Squares never pass (no D exists for them).
    """
    if is_square(n):
        return False
    d_param = selfridge_parameter(n)
    if d_param == 0:
        return False
    neg_inv, r1, r2 = _montgomery_setup(n)
    q_param = (1 - d_param) // 4

    def to_montgomery(value):
        magnitude = np.uint64(abs(value)) % n
        residue = magnitude if value >= 0 else (n - magnitude) % n
        h, l_ = mul_wide(residue, r2)
        return montgomery_reduce(h, l_, n, neg_inv)

    d_m = to_montgomery(d_param)
    q_m = to_montgomery(q_param)
    k, s = _split_odd(n + _TWO)  # n + 1 = k 2^s (_split_odd splits its argument - 1)
    top = 63
    while ((k >> np.uint64(top)) & _ONE) == _ZERO:
        top -= 1
    u = r1  # U_1 = 1
    v = r1  # V_1 = P = 1
    qk = q_m  # Q^1
    for bit in range(top - 1, -1, -1):
        h, l_ = mul_wide(u, v)
        u = montgomery_reduce(h, l_, n, neg_inv)  # U_2k = U_k V_k
        h, l_ = mul_wide(v, v)
        v = submod(montgomery_reduce(h, l_, n, neg_inv), addmod(qk, qk, n), n)
        h, l_ = mul_wide(qk, qk)
        qk = montgomery_reduce(h, l_, n, neg_inv)
        if (k >> np.uint64(bit)) & _ONE:
            h, l_ = mul_wide(d_m, u)
            du = montgomery_reduce(h, l_, n, neg_inv)
            u, v = _halve(addmod(u, v, n), n), _halve(addmod(du, v, n), n)
            h, l_ = mul_wide(qk, q_m)
            qk = montgomery_reduce(h, l_, n, neg_inv)
    if u == _ZERO or v == _ZERO:
        return True
    for _ in range(s - 1):
        h, l_ = mul_wide(v, v)
        v = submod(montgomery_reduce(h, l_, n, neg_inv), addmod(qk, qk, n), n)
        if v == _ZERO:
            return True
        h, l_ = mul_wide(qk, qk)
        qk = montgomery_reduce(h, l_, n, neg_inv)
    return False


@jit
def is_prime(n):
    """Deterministic primality of a ``uint64`` ``n``.

    Trial division by the primes up to 37; below 3,215,031,751 Miller-Rabin with the
    first k prime bases (at most 4, A014233); above, the Baillie-PSW test (a strong
    base-2 test and a strong Lucas test), which no composite below 2^64 passes (checked
    against Feitsma and Galway's list of the base-2 pseudoprimes below 2^64).
    """
    if n < _TWO:
        return False
    for i in range(PRIME_BASES.size):
        p = PRIME_BASES[i]
        if n == p:
            return True
        if n % p == _ZERO:
            return False
    if n < np.uint64(1369):
        return True
    d, s = _split_odd(n)
    neg_inv, r1, r2 = _montgomery_setup(n)
    if n >= PSEUDOPRIME_BOUNDS[3]:
        return (_sprp_montgomery(n, _TWO, d, s, neg_inv, r1, r2)
                and strong_lucas_probable_prime(n))
    rounds = 4
    for k in range(3):
        if n < PSEUDOPRIME_BOUNDS[k]:
            rounds = k + 1
            break
    for i in range(rounds):
        if not _sprp_montgomery(n, PRIME_BASES[i], d, s, neg_inv, r1, r2):
            return False
    return True


@jit
def isqrt(n):
    """``floor(sqrt(n))`` for ``0 <= n < 2^63`` (int64), exact."""
    if n <= 0:
        return 0
    r = np.int64(min(np.sqrt(np.float64(n)), 3037000499.0))  # isqrt(2^63 - 1)
    while r * r > n:
        r -= 1
    while r < 3037000499 and (r + 1) * (r + 1) <= n:
        r += 1
    return r


def is_prime_int(n: int) -> bool:
    """Primality of any Python integer ``0 <= n < 2^64``.

    Raises
    ------
    InputError
        If ``n`` is negative or does not fit in 64 bits.
    """
    n = int(n)
    if not 0 <= n < 2**64:
        raise InputError(f"n must be in [0, 2^64), got {n}")
    return bool(is_prime(np.uint64(n)))


#: A014233(13): the smallest odd composite that is a strong probable prime to all of
#: the first 13 prime bases (2..41); Sorenson and Webster, "Strong pseudoprimes to
#: twelve prime bases", Math. Comp. 86 (2017).
WIDE_PRIME_BOUND = 3317044064679887385961981


def is_prime_wide(n: int) -> bool:
    """Primality of a Python integer ``0 <= n < WIDE_PRIME_BOUND`` (about 3.3 x 10^24):
    Miller-Rabin to the first 13 prime bases, exact in that range (plain Python
    integers, about 50 microseconds at 10^22).

    Raises
    ------
    InputError
        If ``n`` is negative or not below ``WIDE_PRIME_BOUND``.
    """
    n = int(n)
    if not 0 <= n < WIDE_PRIME_BOUND:
        raise InputError(f"n must be in [0, {WIDE_PRIME_BOUND}), got {n}")
    bases = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
    if n < 2:
        return False
    for p in bases:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for base in bases:
        x = pow(base, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True
