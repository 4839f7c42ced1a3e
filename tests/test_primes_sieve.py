"""The segmented sieve: reference twins, known prime counts, far intervals, threads."""
import csv
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jitgames._jit import threads
from jitgames.primes import sieve
from tests.reference import primes as ref

DATA = Path(__file__).parent / "data"


@pytest.mark.kernel
@given(st.integers(0, 3000))
def test_plain_sieve_matches_reference(limit):
    assert sieve.plain_sieve(limit).tolist() == ref.plain_sieve(limit).tolist()


def _kernel_inputs(a, b, segment_bytes):
    lo, n_odd = sieve._odd_range(a, b)
    base = sieve._base_primes(max(17, int(np.sqrt(b)) + 1))
    chunk_odd = segment_bytes * 2
    n_chunks = -(-n_odd // chunk_odd)
    return lo, n_odd, base, sieve._make_pattern(segment_bytes), chunk_odd, n_chunks


@pytest.mark.kernel
@given(st.integers(0, 10**7), st.integers(1, 1500), st.sampled_from([16, 64, 256]),
       st.booleans())
def test_sieve_chunks_matches_reference(a, width, segment_bytes, write):
    lo, n_odd, base, pattern, chunk_odd, n_chunks = _kernel_inputs(a, a + width, segment_bytes)
    expected_counts = ref.sieve_chunks(lo, n_odd, base, pattern, segment_bytes, chunk_odd,
                                       False, np.zeros(n_chunks, np.int64), None)
    offsets = np.zeros(n_chunks, dtype=np.int64)
    np.cumsum(expected_counts[:-1], out=offsets[1:])
    out = np.zeros(int(expected_counts.sum()) if write else 0, dtype=np.int64)
    expected_out = out.copy()
    counts = sieve.sieve_chunks(lo, n_odd, base, pattern, segment_bytes, chunk_odd, write,
                                offsets, out)
    ref.sieve_chunks(lo, n_odd, base, pattern, segment_bytes, chunk_odd, write, offsets,
                     expected_out)
    assert counts.tolist() == expected_counts.tolist()
    assert out.tolist() == expected_out.tolist()


@pytest.mark.kernel
@given(st.one_of(st.integers(0, 10**6), st.integers(2**64 - 10**5, 2**64 - 600)),
       st.integers(0, 300))
def test_count_by_testing_matches_reference(lo, n_odd):
    lo |= 1
    assert sieve.count_by_testing(np.uint64(lo), n_odd) == ref.count_by_testing(lo, n_odd)


@pytest.mark.kernel
@given(st.lists(st.integers(0, 2**64 - 1), max_size=20))
def test_primality_mask_matches_reference(values):
    array = np.array(values, dtype=np.uint64)
    assert sieve.primality_mask(array).tolist() == ref.primality_mask(array).tolist()


def _known_pi():
    with open(DATA / "primes_pi.csv") as handle:
        return [(int(r["n"]), int(r["pi"]), r["source"]) for r in csv.DictReader(handle)]


@pytest.mark.parametrize("n,pi,source", [row for row in _known_pi() if row[0] <= 10**8])
def test_prime_counts_from_oeis(n, pi, source):
    assert source == "OEIS A006880"
    assert sieve.count_primes(0, n).count == pi


@given(st.integers(0, 10**5), st.integers(0, 3000))
def test_count_and_list_agree_with_trial_division(a, width):
    expected = [n for n in range(a, a + width) if ref.trial_division_is_prime(n)]
    assert sieve.count_primes(a, a + width, "sieve").count == len(expected)
    assert sieve.primes_between(a, a + width).tolist() == expected


@given(st.integers(10**9, 10**16), st.integers(0, 20000))
def test_sieve_and_miller_rabin_agree_far_out(a, width):
    assert (sieve.count_primes(a, a + width, "sieve").count
            == sieve.count_primes(a, a + width, "test").count)


def test_many_segments_and_chunks_agree_with_testing():
    a, b = 10**12, 10**12 + 3 * 10**6  # dozens of segments over several chunks
    assert sieve.count_primes(a, b, "sieve").count == sieve.count_primes(a, b, "test").count


def test_results_do_not_depend_on_thread_count():
    with threads(1):
        one = sieve.count_primes(10**13, 10**13 + 4 * 10**6, "sieve").count
        one_list = sieve.primes_between(0, 10**6)
    with threads(2):
        two = sieve.count_primes(10**13, 10**13 + 4 * 10**6, "sieve").count
        two_list = sieve.primes_between(0, 10**6)
    assert one == two
    assert np.array_equal(one_list, two_list)


def test_near_two_to_the_64():
    top = 2**64
    assert sieve.count_primes(top - 59, top).count == 1  # 2^64 - 59 alone
    assert sieve.primes_between(top - 100, top).tolist() == [top - 95, top - 83, top - 59]
    assert sieve.count_primes(top - 58, top).method == "test"


@pytest.mark.parametrize("a,b,method", [
    (-1, 5, "auto"), (5, 3, "auto"), (0, 2**64 + 1, "auto"), (0, 10, "fast"),
    (0, 10**12 + 1, "sieve"), (10**18, 10**18 + 10, "sieve"), (2**63, 2**63 + 10**9 + 1, "test"),
])
def test_bad_intervals_are_refused(a, b, method):
    with pytest.raises(ValueError):
        sieve.count_primes(a, b, method)


def test_listing_width_is_limited():
    with pytest.raises(ValueError):
        sieve.primes_between(0, sieve.MAX_LIST_WIDTH + 1)
