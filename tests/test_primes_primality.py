"""Miller-Rabin and its 128-bit arithmetic against Python's exact integers."""
import csv
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jitgames.primes import primality
from tests.reference import primes as ref

DATA = Path(__file__).parent / "data"
u64 = st.integers(0, 2**64 - 1)
top_edge = st.integers(2**63, 2**64 - 1)  # where int64 tricks overflow
odd_moduli = st.one_of(top_edge, st.integers(3, 2**64 - 1)).map(lambda m: m | 1)


@pytest.mark.kernel
@given(st.one_of(top_edge, u64), st.one_of(top_edge, u64))
def test_mul_wide_matches_reference(a, b):
    high, low = primality.mul_wide(np.uint64(a), np.uint64(b))
    assert (int(high), int(low)) == ref.mul_wide(a, b)


@pytest.mark.kernel
@given(u64, u64, odd_moduli)
def test_mulmod_matches_reference(a, b, m):
    assert int(primality.mulmod(np.uint64(a), np.uint64(b), np.uint64(m))) == ref.mulmod(a, b, m)


@pytest.mark.kernel
@given(u64, u64, odd_moduli)
def test_powmod_matches_reference(a, e, m):
    assert int(primality.powmod(np.uint64(a), np.uint64(e), np.uint64(m))) == ref.powmod(a, e, m)


@pytest.mark.kernel
@given(st.integers(1, 2**64 - 1), odd_moduli)
def test_montgomery_reduce_matches_reference(low_word, m):
    high = low_word % m >> 1  # any product below m * 2^64 has high word < m
    neg_inv = np.uint64((-pow(m, -1, 2**64)) % 2**64)
    got = primality.montgomery_reduce(np.uint64(high), np.uint64(low_word), np.uint64(m), neg_inv)
    assert int(got) == ref.montgomery_reduce(high, low_word, m, neg_inv)


@pytest.mark.kernel
@given(st.one_of(top_edge, st.integers(3, 2**64 - 1)).map(lambda n: n | 1),
       st.sampled_from(ref.BASES))
def test_strong_probable_prime_matches_reference(n, base):
    got = primality.strong_probable_prime(np.uint64(n), np.uint64(base))
    assert bool(got) == ref.strong_probable_prime(n, base)


@pytest.mark.kernel
@given(st.one_of(st.integers(0, 10**6), top_edge, u64))
def test_is_prime_matches_reference(n):
    assert bool(primality.is_prime(np.uint64(n))) == ref.is_prime(n)


@pytest.mark.kernel
@given(st.integers(0, 2**63 - 1))
def test_isqrt_matches_reference(n):
    assert primality.isqrt(n) == ref.isqrt(n)


def test_is_prime_agrees_with_trial_division_below_20000():
    ours = [primality.is_prime_int(n) for n in range(20000)]
    assert ours == [ref.trial_division_is_prime(n) for n in range(20000)]


def test_known_primes_and_composites_at_the_top():
    assert primality.is_prime_int(2**64 - 59)  # the largest 64-bit prime
    assert primality.is_prime_int(2**61 - 1)  # a Mersenne prime
    assert not primality.is_prime_int(2**64 - 1)
    assert not any(primality.is_prime_int(2**64 - k) for k in range(1, 59))
    for carmichael in (561, 1105, 1729, 2465, 2821, 6601, 8911):
        assert not primality.is_prime_int(carmichael)


def test_strong_pseudoprimes_to_the_first_bases():
    """A014233(k) passes the first k prime bases but is composite: we reject it."""
    with open(DATA / "primes_pseudoprimes.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert rows and all(row["source"].startswith("OEIS") for row in rows)
    for row in rows:
        k, n = int(row["bases"]), int(row["n"])
        assert all(primality.strong_probable_prime(np.uint64(n), np.uint64(b))
                   for b in ref.BASES[:k])
        assert not primality.is_prime_int(n)
        bounds = primality.PSEUDOPRIME_BOUNDS
        assert n == int(bounds[min(k, bounds.size) - 1])  # A014233(9) = (10) = (11)


def test_is_prime_int_rejects_out_of_range():
    for bad in (-1, 2**64):
        with pytest.raises(ValueError):
            primality.is_prime_int(bad)


odd_far = st.one_of(st.integers(3215031751, 2**64 - 1), top_edge).map(lambda n: n | 1)
lucas_pseudoprimes = st.sampled_from([5459, 5777, 10877, 16109, 18971, 22499, 24569, 25199])


@pytest.mark.kernel
@given(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1))
def test_mul_high_matches_reference(a, b):
    assert int(primality.mul_high(np.uint64(a), np.uint64(b))) == ref.mul_high(a, b)


@pytest.mark.kernel
@given(st.one_of(st.integers(0, 2**64 - 1), st.integers(0, 2**32 - 1).map(lambda r: r * r)))
def test_is_square_matches_reference(n):
    assert bool(primality.is_square(np.uint64(n))) == ref.is_square(n)


@pytest.mark.kernel
@given(st.integers(0, 2**64 - 1), odd_far)
def test_jacobi_u64_matches_reference(a, n):
    assert primality.jacobi_u64(np.uint64(a), np.uint64(n)) == ref.jacobi_u64(a, n)


@pytest.mark.kernel
@given(st.one_of(odd_far, lucas_pseudoprimes, st.integers(41, 10**6).map(lambda n: n | 1)))
def test_strong_lucas_matches_reference(n):
    """Lucas pseudoprimes pass in both; the reference computes U and V by matrix powers."""
    if any(n % p == 0 for p in ref.BASES) or ref.is_square(n):
        n = 2**61 - 1  # the kernel's precondition; a prime then
    assert primality.selfridge_parameter(np.uint64(n)) == ref.selfridge_parameter(n)
    assert bool(primality.strong_lucas_probable_prime(np.uint64(n))) == \
        ref.strong_lucas_probable_prime(n)


def test_baillie_psw_rejects_lucas_and_base_2_pseudoprimes():
    # Strong Lucas pseudoprimes pass the Lucas half, base-2 strong pseudoprimes the other.
    for n in (5459, 5777, 10877, 16109, 18971):
        assert primality.strong_lucas_probable_prime(np.uint64(n))
        assert not primality.is_prime_int(n)
    for n in (3215031751, 2152302898747, 3474749660383, 341550071728321,
              3825123056546413051):  # A014233: strong pseudoprimes to several bases
        assert primality.strong_probable_prime(np.uint64(n), np.uint64(2))
        assert not primality.is_prime_int(n)


# The distinct values of A014233(k), k = 1..12 (OEIS): the smallest odd composite that
# is a strong probable prime to all of the first k prime bases.
STRONG_PSEUDOPRIMES = [2047, 1373653, 25326001, 3215031751, 2152302898747, 3474749660383,
                       341550071728321, 3825123056546413051, 318665857834031151167461]


@given(st.integers(0, 318665857834031151167460))
def test_wide_primality_matches_twelve_bases_below_their_bound(n):
    """Below A014233(12) the reference's twelve bases are exact too."""
    assert primality.is_prime_wide(n) == ref.is_prime(n)


@given(st.sampled_from([10**11 + 3, 2**61 - 1, 2**64 + 13, 2**79 - 67]), st.sampled_from(
    [10**11 + 19, 2**61 - 1, 2**64 + 13, 1000000000039]))
def test_wide_primality_of_products_and_primes(p, q):
    """Products of two primes are composite however large; the primes are prime."""
    assert primality.is_prime_wide(p) and primality.is_prime_wide(q)
    if p * q < primality.WIDE_PRIME_BOUND:
        assert not primality.is_prime_wide(p * q)


def test_wide_primality_sees_through_the_strong_pseudoprimes():
    for n in STRONG_PSEUDOPRIMES:
        assert not primality.is_prime_wide(n), n
    with pytest.raises(ValueError):
        primality.is_prime_wide(primality.WIDE_PRIME_BOUND)
