"""The segmented sieve: reference twins, known prime counts, far intervals, threads."""
import csv
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jitgames._jit import threads
from jitgames.primes import buckets, sieve, wheel
from tests.reference import primes as ref

DATA = Path(__file__).parent / "data"


@pytest.mark.kernel
@given(st.integers(0, 3000))
def test_plain_sieve_matches_reference(limit):
    assert sieve.plain_sieve(limit).tolist() == ref.plain_sieve(limit).tolist()


far = st.integers(2**64 - 10**6, 2**64 - 1)
anywhere = st.one_of(st.integers(0, 10**5), st.integers(0, 2**64 - 1), far)


@pytest.mark.kernel
@given(st.sampled_from(ref.plain_sieve(3000).tolist()[2:]), anywhere)
def test_first_multiple_matches_reference(p, start):
    start_byte = start // 30
    assert tuple(int(x) for x in wheel.first_multiple(p, start_byte)) == \
        ref.first_multiple(p, start_byte)


@pytest.mark.kernel
@given(st.sampled_from(ref.plain_sieve(5000).tolist()[2:]), st.integers(0, 10**7),
       st.integers(0, 3000))
def test_cross_off_matches_reference(p, start, length):
    """From the prime's first multiple at or after a byte, over a segment of any length."""
    at, w = wheel.first_multiple(p, start)
    at -= start
    ours = np.full(length + 1, 0xFF, dtype=np.uint8)  # the last byte is scratch
    theirs = ours.copy()
    got = wheel.cross_off(ours, length, p, wheel.WHEEL_INDEX[p % 30], at, w)
    expected = ref.cross_off(theirs, length, p, wheel.WHEEL_INDEX[p % 30], at, w)
    assert tuple(int(x) for x in got) == expected
    assert ours[:length].tolist() == theirs[:length].tolist()


@pytest.mark.kernel
@given(st.sampled_from(ref.plain_sieve(8192).tolist()[2:]), st.integers(0, 10**7),
       st.integers(0, 3000))
def test_cross_off_turns_matches_reference(p, start, length):
    """Whole turns: the writes past ``length`` (up to p - 1 bytes) are compared too."""
    at, w = wheel.first_multiple(p, start)
    at -= start
    ours = np.full(length + p, 0xFF, dtype=np.uint8)
    theirs = ours.copy()
    got = wheel.cross_off_turns(ours, length, p, wheel.WHEEL_INDEX[p % 30], at, w)
    expected = ref.cross_off_turns(theirs, length, p, wheel.WHEEL_INDEX[p % 30], at, w)
    assert tuple(int(x) for x in got) == expected
    assert ours.tolist() == theirs.tolist()


@pytest.mark.kernel
@given(st.one_of(st.integers(0, 10**6), st.integers(0, 2**64 // 30 - 5000)),
       st.integers(0, 12000), st.lists(st.integers(0, 15), min_size=1, max_size=6, unique=True))
def test_presieve_matches_reference(start_byte, length, groups):
    """Any groups (padded to four a pass), runs cut at the ends of the stored periods."""
    chosen = tuple(wheel.PRESIEVE_GROUPS[g] for g in sorted(groups))
    patterns, starts, periods = wheel.presieve_tables(chosen)
    ours = np.zeros(length, dtype=np.uint8)
    theirs = ours.copy()
    wheel.presieve(ours, length, start_byte, patterns, starts, periods)
    ref.presieve(theirs, length, start_byte, [p for g in chosen for p in g])
    assert ours.tolist() == theirs.tolist()


def test_presieve_tables_cover_the_groups():
    """Every stored pattern is a whole number of its group's periods, at least
    PRESIEVE_MIN_RUN long; the padding is all ones."""
    patterns, starts, periods = wheel.presieve_tables()
    assert periods.size % 4 == 0 and periods.size >= len(wheel.PRESIEVE_GROUPS)
    for g, group in enumerate(wheel.PRESIEVE_GROUPS):
        product = int(np.prod(group))
        assert periods[g] % product == 0 and periods[g] >= wheel.PRESIEVE_MIN_RUN
        stored = patterns[starts[g]:starts[g] + periods[g]]
        assert (stored == np.tile(wheel.presieve_pattern(group), periods[g] // product)).all()
    for g in range(len(wheel.PRESIEVE_GROUPS), periods.size):
        assert (patterns[starts[g]:starts[g] + periods[g]] == 0xFF).all()


@pytest.mark.kernel
@given(st.one_of(st.integers(0, 10**4), st.integers(0, 2**64 // 30 - 5000)),
       st.integers(0, 2000), st.integers(1, 300),
       st.lists(st.sampled_from(ref.plain_sieve(3000).tolist()[2:]), max_size=30))
def test_bucket_sieve_matches_reference(start_byte, n_bytes, segment_bytes, primes):
    """Any primes, any segment length: many primes per bucket, many empty buckets,
    multiples past 2^64 and primes whose square lies beyond the range."""
    primes = np.array(sorted(set(primes)), dtype=np.uint32)
    ours = np.full(n_bytes, 0xFF, dtype=np.uint8)
    theirs = ours.copy()
    buckets.bucket_sieve(ours, start_byte, primes, segment_bytes)
    ref.bucket_sieve(theirs, start_byte, primes, segment_bytes)
    assert ours.tolist() == theirs.tolist()


@pytest.mark.kernel
@given(st.integers(0, 50000), st.integers(1, 40))
def test_bucket_blocks_overflow_and_return(n_primes, n_segments):
    """Filing as many primes as the pool is sized for into one bucket, then emptying it
    into the others, never runs out of blocks and hands every block back."""
    primes = ref.plain_sieve(600000)[3:][:n_primes].astype(np.uint32)
    b = buckets.new_buckets(primes.size, n_segments)
    n_blocks = b.fill.size
    for p in primes:
        buckets.file_prime(b, 0, int(p), 0, 0)
    assert sum(int(b.fill[k]) for k in range(n_blocks) if k not in
               set(b.free[1:b.free[0] + 1].tolist())) == primes.size
    seg = np.full(1, 0xFF, dtype=np.uint8)
    for s in range(n_segments):  # a 1-byte segment: each prime moves on to a later bucket
        buckets.empty_bucket(b, seg, s, 1, 1)
    assert int(b.free[0]) == n_blocks and (b.head == -1).all()


@pytest.mark.kernel
@given(st.lists(st.integers(0, 2**64 - 1), max_size=40), st.integers(0, 40))
def test_count_bits_matches_reference(values, n):
    words = np.array(values, dtype=np.uint64)
    n = min(n, words.size)
    assert wheel.count_bits(words, n) == ref.count_bits(words, n)


def _window(a, width, base_limit):
    """Arguments of sieve_chunks for [a, a + width) with the primes up to base_limit."""
    lo, hi = max(a, 7), max(a, 7) + width
    plan = sieve.sieve_plan(lo, hi, base_limit, threads=2)
    base = sieve._sieving_primes(plan.base_limit)
    n_chunks = -(-(plan.stop - plan.first) // plan.chunk_bytes)
    return (plan.first, plan.stop, np.uint64(lo), np.uint64(hi - 1), base, sieve._presieve(),
            plan.segment_bytes, plan.chunk_bytes, np.uint64(plan.verify_from)), n_chunks


@pytest.mark.kernel
@given(st.one_of(st.integers(0, 10**7), st.integers(10**9, 10**13), far),
       st.integers(1, 1500), st.booleans(), st.booleans(), st.integers(1, 3))
def test_sieve_chunks_matches_reference(a, width, write, hybrid, slots):
    """Full sieve and hybrid (small base, Miller-Rabin above (B + 1)^2), anywhere, however
    many slots take the chunks."""
    a = min(a, 2**64 - 7 - width)
    args, n_chunks = _window(a, width, 1000 if hybrid or a > 10**17 else None)
    zeros = np.zeros(n_chunks, np.int64)
    expected_counts = ref.sieve_chunks(*args, False, zeros, None)
    offsets = np.zeros(n_chunks, dtype=np.int64)
    np.cumsum(expected_counts[:-1], out=offsets[1:])
    out = np.zeros(int(expected_counts.sum()) if write else 0, dtype=np.uint64)
    expected_out = out.copy()
    counts = sieve.sieve_chunks(*args, write, offsets, out, slots)
    ref.sieve_chunks(*args, write, offsets, expected_out)
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


@pytest.mark.parametrize("n,pi,source", [row for row in _known_pi() if row[0] <= 10**9])
def test_prime_counts_from_oeis(n, pi, source):
    assert source == "OEIS A006880"
    assert sieve.count_primes(0, n).count == pi


@pytest.mark.slow
@pytest.mark.parametrize("n,pi,source", [row for row in _known_pi() if 10**9 < row[0] <= 10**11])
def test_large_prime_counts_from_oeis(n, pi, source):
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


@given(st.one_of(st.integers(0, 2**64 - 1), st.integers(10**18 - 10**7, 10**18 + 10**7),
                 st.integers(2**64 - 10**7, 2**64)), st.integers(0, 30000))
def test_windows_anywhere_below_two_to_the_64_agree_with_miller_rabin(a, width):
    a = min(a, 2**64 - width)
    test = sieve.count_primes(a, a + width, "test").count
    assert sieve.count_primes(a, a + width).count == test
    assert sieve.count_primes(a, a + width, "hybrid").count == test
    listed = sieve.primes_between(a, a + width)
    assert listed.size == test and bool(sieve.primality_mask(listed).all())


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
    assert sieve.count_primes(top - 58, top).method == "hybrid"


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
