"""The polynomial sieve: kernels against brute force, counts against OEIS and testing."""
import csv
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from jitgames._jit import threads
from jitgames.primes import polysieve
from jitgames.primes.polynomials import PartialCount, Quadratic, poly_count
from tests.reference import primes as ref

DATA = Path(__file__).parent / "data"
small_primes = st.sampled_from([2] + ref.plain_sieve(400).tolist())
# every branch of sqrt_mod on each side of 2^32 and 2^50: p = 3 (mod 4), 5 (mod 8), and
# 1 (mod 8) with p - 1 divisible by 2^33, 2^40, 2^56
big_primes = st.sampled_from([4294967311, 1000000000039, 2**61 - 1, 18446744073709551557,
                              1099511627917, 36028797018964429, 1099511627873,
                              36028797018964073, 77309411329, 6597069766657,
                              1945555039024054273])


@pytest.mark.kernel
@given(small_primes, st.integers(0, 10**6))
def test_sqrt_mod_matches_reference(p, x):
    if p == 2:
        p = 3
    square = x * x % p
    root = int(polysieve.sqrt_mod(np.uint64(square), np.uint64(p)))
    assert root * root % p == square == ref.sqrt_mod(square, p) ** 2 % p


@given(big_primes, st.integers(0, 2**64 - 1))
def test_sqrt_mod_of_large_primes(p, x):
    square = x * x % p
    root = int(polysieve.sqrt_mod(np.uint64(square), np.uint64(p)))
    assert root * root % p == square


@pytest.mark.kernel
@given(st.sampled_from([3, 65521, 4294967291, 4294967311, 2**33 - 9, 2**37 - 25,
                        1000000000039, 2**50 - 27, 2**50 + 55, 2**61 - 1]),
       st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1))
def test_modular_product_is_exact_on_every_path(p, x, y):
    """Integer (p < 2^32), floating-point quotient (p < 2^50), Montgomery (beyond)."""
    x, y = x % p, y % p
    for u, v in ((x, y), (p - 1, p - 1), (p - 1, y), (0, y)):
        got = polysieve._mulmod(np.uint64(u), np.uint64(v), np.uint64(p),
                                polysieve._reciprocal(np.uint64(p)))
        assert int(got) == u * v % p


@pytest.mark.kernel
@given(st.integers(-50, 50), st.integers(-300, 300), st.integers(-10**4, 10**4),
       st.lists(small_primes, min_size=1, max_size=12, unique=True))
def test_quadratic_roots_match_reference(a, b, c, primes):
    primes = np.array(sorted(primes), dtype=np.uint64)
    roots, kinds = polysieve.quadratic_roots(a, b, c, primes)
    expected_roots, expected_kinds = ref.quadratic_roots(a, b, c, primes)
    assert kinds.tolist() == expected_kinds.tolist()
    assert roots.tolist() == expected_roots.tolist()


@given(st.one_of(st.integers(1, 2**40), st.integers(1, 256).map(lambda k: k * 4294967311)),
       st.integers(-2**40, 2**40), st.integers(-2**40, 2**40),
       st.lists(big_primes, min_size=1, max_size=4, unique=True))
def test_quadratic_roots_of_large_primes_solve_the_equation(a, b, c, primes):
    """Too large to try every residue: the roots must solve f = 0 (mod p), and their
    number follows Euler's criterion on the discriminant."""
    primes = sorted(primes)
    roots, kinds = polysieve.quadratic_roots(a, b, c, np.array(primes, dtype=np.uint64))
    for j, p in enumerate(primes):
        disc = (b * b - 4 * a * c) % p
        if a % p == 0:  # linear: b x + c (a may be a multiple of the smallest p)
            expected = 1 if b % p else (3 if c % p == 0 else 0)
        else:
            expected = 1 if disc == 0 else (2 if pow(disc, (p - 1) // 2, p) == 1 else 0)
        assert kinds[j] == expected
        found = [int(r) for r in roots[j, :expected if expected < 3 else 0]]
        assert all((a * r * r + b * r + c) % p == 0 for r in found)
        assert found == sorted(set(found)) and all(r < p for r in found)


def _random_words(n, seed):
    return np.random.default_rng(seed).integers(0, 2**64, (n + 63) // 64 + 1, dtype=np.uint64)


@pytest.mark.kernel
@given(st.integers(1, 20), st.integers(-100, 100), st.integers(-1000, 1000),
       st.integers(0, 10**12), st.integers(0, 700), st.integers(1, 4), st.integers(0, 2**32))
def test_cross_off_and_count_match_reference(a, b, c, x0, n, parts, seed):
    """Any bits to start from (so a clear that hits the wrong bit shows), any split."""
    primes = np.array([2] + ref.plain_sieve(300).tolist() + [65537, 65539], dtype=np.uint64)
    roots, kinds = ref.quadratic_roots(a, b, c, primes)
    ours = _random_words(n, seed)
    theirs = ours.copy()
    polysieve.cross_off_root_bits(ours, x0, n, primes, roots, kinds, parts)
    ref.cross_off_root_bits(theirs, x0, n, primes, roots, kinds, parts)
    assert ours.tolist() == theirs.tolist()
    i0 = n // 3
    assert polysieve.count_bits_between(ours, i0, n, parts) == \
        ref.count_bits_between(theirs, i0, n, parts)


@st.composite
def _sieving_primes(draw):
    """Increasing primes from 2 to near 2^37, each with no, one or two roots anywhere
    in [0, p) (often at the ends), and now and then one prime of kind 3 (every x)."""
    pool = [2, 3, 5, 7, 61, 67, 127, 131, 257, 509, 1021, 2039, 4093, 4099, 65537,
            10**6 + 3, 10**9 + 7, 2**37 - 25]
    primes = sorted(draw(st.lists(st.sampled_from(pool), min_size=1, max_size=10, unique=True)))
    roots = np.zeros((len(primes), 2), dtype=np.uint64)
    kinds = np.zeros(len(primes), dtype=np.int8)
    for j, p in enumerate(primes):
        root = st.one_of(st.integers(0, p - 1), st.sampled_from([0, p - 1, max(0, p - 2)]))
        found = sorted({draw(root), draw(root)})
        kinds[j] = min(draw(st.sampled_from([0, 1, 2, 2])), len(found))
        roots[j, :kinds[j]] = found[:kinds[j]]
    if draw(st.integers(0, 15)) == 0:
        kinds[draw(st.integers(0, len(primes) - 1))] = 3
    return np.array(primes, dtype=np.uint64), roots, kinds


def _primes_with_roots(rows):
    """``(primes, roots, kinds)`` from rows ``(p, kind, root, root)``."""
    return (np.array([row[0] for row in rows], dtype=np.uint64),
            np.array([row[2:] for row in rows], dtype=np.uint64),
            np.array([row[1] for row in rows], dtype=np.int8))


@pytest.mark.kernel
@given(_sieving_primes(), st.one_of(st.integers(0, 10**12), st.integers(0, 300)),
       st.integers(0, 1500), st.integers(1, 5), st.integers(6, 12), st.integers(0, 2**32))
@example(_primes_with_roots([(3, 1, 2, 0), (61, 2, 0, 60), (67, 1, 66, 0), (131, 2, 5, 77),
                             (4099, 2, 4000, 4098), (10**9 + 7, 1, 10**9 + 6, 0)]),
         10**9 + 7 - 5, 1459, 3, 6, 1)
@example(_primes_with_roots([(5, 2, 1, 4), (127, 3, 0, 0)]), 10, 300, 2, 7, 2)
def test_segments_and_buckets_match_reference(sieving, x0, n, parts, shift, seed):
    """Segments of 64 to 4096 bits: primes below and above the segment size, several
    segments per part, parts ending inside a segment, n not a multiple of 64."""
    primes, roots, kinds = sieving
    ours = _random_words(n, seed)
    theirs = ours.copy()
    polysieve.cross_off_root_bits(ours, x0, n, primes, roots, kinds, parts, shift)
    ref.cross_off_root_bits(theirs, x0, n, primes, roots, kinds, parts, shift)
    assert ours.tolist() == theirs.tolist()


@pytest.mark.kernel
@given(st.integers(1, 20), st.integers(-100, 100), st.integers(-1000, 1000),
       st.integers(0, 10**4), st.integers(0, 300), st.integers(0, 300), st.integers(0, 2**32))
def test_settle_small_values_matches_reference(a, b, c, x0, i0, n, seed):
    """Only bits i0 <= i < n change (the random others must stay)."""
    ours = _random_words(n, seed)
    theirs = ours.copy()
    polysieve.settle_small_values(a, b, c, x0, ours, min(i0, n), n)
    ref.settle_small_values(a, b, c, x0, theirs, min(i0, n), n)
    assert ours.tolist() == theirs.tolist()


@given(st.integers(1, 40), st.integers(-500, 500), st.integers(-10**5, 10**5),
       st.integers(0, 3000))
def test_sieved_counts_equal_one_by_one_testing(a, b, c, upto):
    expected = sum(1 for x in range(upto) if ref.is_prime(a * x * x + b * x + c))
    assert poly_count(Quadratic(a, b, c), upto, 1000).count == expected


def _window_count(f, start, width, pass_size=polysieve.MAX_PASS):
    return sum(found for _, found, _ in polysieve.sieve_blocks(f.a, f.b, f.c, start + width, 2,
                                                            start, pass_size))


@given(st.integers(1, 30), st.integers(-300, 300), st.integers(-10**4, 10**4),
       st.integers(0, 10**6), st.integers(0, 2000), st.integers(1, 700))
def test_passes_of_any_size_count_the_same(a, b, c, start, width, pass_size):
    """Each pass finds its own roots and its own small values: the split must not show."""
    f = Quadratic(a, b, c)
    expected = sum(1 for x in range(start, start + width) if ref.is_prime(f(x)))
    assert _window_count(f, start, width, pass_size) == expected


def test_sampled_checks_pass_on_the_sieve_and_catch_a_wrong_bit():
    f, n = Quadratic(1, 1, 41), 300
    words = np.zeros((n + 63) // 64, dtype=np.uint64)
    for x in range(n):
        if ref.is_prime(f(x)):
            words[x >> 6] |= np.uint64(1) << np.uint64(x & 63)
    assert polysieve.check_samples(1, 1, 41, words, 0, 0, n, n) == n
    words[40 >> 6] |= np.uint64(1) << np.uint64(40)  # f(40) = 41^2 marked prime
    with pytest.raises(RuntimeError, match="f\\(40\\) = 1681"):
        polysieve.check_samples(1, 1, 41, words, 0, 0, n, n)
    assert polysieve.check_samples(1, 1, 41, words, 0, 41, n, n) == n - 41


@given(st.integers(1, 30), st.integers(-300, 300), st.integers(-10**4, 10**4),
       st.integers(0, 10**6), st.integers(1, 2000), st.integers(1, 50))
def test_sieving_with_samples_checks_them_and_counts_the_same(a, b, c, start, width, samples):
    f = Quadratic(a, b, c)
    blocks = list(polysieve.sieve_blocks(a, b, c, start + width, 2, start, samples=samples))
    assert sum(found for _, found, _ in blocks) == _window_count(f, start, width)
    assert 1 <= sum(checked for _, _, checked in blocks) <= samples * len(blocks)


@pytest.mark.parametrize("f,start", [(Quadratic(1, 1, 41), 10**7),
                                     (Quadratic(3, -7, 2**40), 10**6),
                                     (Quadratic(1, -10**4, 5), 0)])
def test_sieved_windows_agree_with_miller_rabin(f, start):
    expected = sum(1 for x in range(start, start + 3000) if ref.is_prime(f(x)))
    assert _window_count(f, start, 3000) == expected


@pytest.mark.slow
def test_values_beyond_two_to_the_64_are_sieved():
    """x^2 + 1 from x = 2^32 on: every value exceeds 2^64 (the sieving primes pass 2^32)."""
    f, start = Quadratic(1, 0, 1), 2**32
    expected = sum(1 for x in range(start, start + 300) if ref.is_prime(f(x)))
    assert f(start) > 2**64 and expected > 0
    assert _window_count(f, start, 300) == expected


def test_euler_counts_from_oeis_up_to_ten_to_the_seven():
    with open(DATA / "primes_euler.csv") as handle:
        rows = [row for row in csv.DictReader(handle) if int(row["upto"]) <= 10**7]
    assert len(rows) >= 6
    for row in rows:
        assert poly_count(Quadratic(1, 1, 41), int(row["upto"])).count == int(row["count"])


@pytest.mark.slow
def test_euler_counts_from_oeis_up_to_ten_to_the_nine():
    with open(DATA / "primes_euler.csv") as handle:
        rows = [row for row in csv.DictReader(handle) if 10**7 < int(row["upto"]) <= 10**9]
    assert rows
    for row in rows:
        assert poly_count(Quadratic(1, 1, 41), int(row["upto"])).count == int(row["count"])


@pytest.mark.slow
def test_euler_count_to_ten_to_the_ten_derived_here():
    """The project's own term beyond the OEIS listing (minutes, 1.3 GB of marks); the
    10^11 row is checked by its runs only (half an hour, 12.5 GB)."""
    with open(DATA / "primes_euler.csv") as handle:
        row = next(row for row in csv.DictReader(handle) if row["upto"] == str(10**10))
    assert "derived by this project" in row["source"]
    result = poly_count(Quadratic(1, 1, 41), 10**10, samples=16)
    assert result.count == int(row["count"]) and result.checked > 0


def test_an_interrupted_count_keeps_the_finished_blocks():
    def stop_after_a_few(done, count):
        if done >= 10**5:
            raise KeyboardInterrupt

    with pytest.raises(PartialCount) as cut:
        poly_count(Quadratic(1, 1, 41), 10**7, progress=stop_after_a_few)
    partial = cut.value.result
    assert 10**5 <= partial.upto < 10**7
    assert partial.count == poly_count(Quadratic(1, 1, 41), partial.upto).count


@pytest.mark.parametrize("a,b,c,upto", [(1, 1, 41, 10**12 + 1), (1, 1, 2**41, 10),
                                        (1, 1, 41, -1), (10**9, 1, 1, 10**7)])
def test_bad_sieve_requests_are_refused(a, b, c, upto):
    with pytest.raises(ValueError):
        poly_count(Quadratic(a, b, c), upto)
