"""Deterministic primality for every 64-bit integer, and integer square roots.

Modular multiplication of two 64-bit numbers needs a 128-bit product, which Numba
does not have. We build it from four 32 x 32 -> 64-bit products (:func:`mul_wide`)
and reduce it with Montgomery's method (:func:`montgomery_reduce`), so every step is
exact ``uint64`` arithmetic (wrapping on purpose) and no floating point is involved.

Miller-Rabin uses the first k prime bases, with k chosen from the smallest strong
pseudoprime to all of the first k primes (OEIS A014233): the first 12 primes
(2..37) suffice for every n < 3.3e24, hence for all of ``uint64``; smaller n use
fewer bases (2047 -> {2}, 1373653 -> {2, 3}, ...). Numbers below 1369 = 37^2 are
settled by trial division alone.

Every kernel takes and returns ``np.uint64`` (``is_prime`` returns a bool).
"""
from __future__ import annotations

import numpy as np

from jitgames._jit import jit
from jitgames.errors import InputError

__all__ = [
    "mul_wide", "mulmod", "powmod", "strong_probable_prime", "is_prime", "isqrt",
    "is_prime_int", "PRIME_BASES", "PSEUDOPRIME_BOUNDS",
]

_LOW32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
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
    a_lo = a & _LOW32
    a_hi = a >> _S32
    b_lo = b & _LOW32
    b_hi = b >> _S32
    p0 = a_lo * b_lo
    p1 = a_lo * b_hi
    p2 = a_hi * b_lo
    p3 = a_hi * b_hi
    middle = (p0 >> _S32) + (p1 & _LOW32) + (p2 & _LOW32)
    high = p3 + (p1 >> _S32) + (p2 >> _S32) + (middle >> _S32)
    return high, a * b


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
def _addmod(x, y, m):
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
        r2 = _addmod(r2, r2, m)
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
def is_prime(n):
    """Deterministic primality of a ``uint64`` ``n`` (trial division + Miller-Rabin)."""
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
    rounds = PRIME_BASES.size
    for k in range(PSEUDOPRIME_BOUNDS.size):
        if n < PSEUDOPRIME_BOUNDS[k]:
            rounds = k + 1
            break
    d, s = _split_odd(n)
    neg_inv, r1, r2 = _montgomery_setup(n)
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
    ValueError
        If ``n`` is negative or does not fit in 64 bits.
    """
    n = int(n)
    if not 0 <= n < 2**64:
        raise InputError(f"n must be in [0, 2^64), got {n}")
    return bool(is_prime(np.uint64(n)))
