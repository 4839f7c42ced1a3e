"""pi(x) by the combinatorial method: each kernel against its twin on small x, the
parts against their definitions, pi(x) against the sieve and against OEIS A006880,
the n-th prime against the sieve, and the command line."""
import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jitgames._jit import threads
from jitgames.errors import InputError
from jitgames.primes import counting, sieve
from jitgames.primes.__main__ import main
from tests.reference import primes_counting as ref

DATA = Path(__file__).parent / "data"


def _primes(limit):
    """1-indexed primes up to limit (the kernels' layout)."""
    return np.array([1] + [p for p in range(2, limit + 1) if len(ref.factor(p)) == 1],
                    dtype=np.int64)


@st.composite
def split(draw, low=100, high=30000):
    """x with a valid y (y^3 >= x, y (y + 1) <= x) and c (1 <= c <= min(4, pi(y)))."""
    x = draw(st.integers(low, high))
    y_min = math.ceil(round(x ** (1 / 3), 9))
    while y_min ** 3 < x:
        y_min += 1
    y_max = math.isqrt(x)
    while y_max * (y_max + 1) > x:
        y_max -= 1
    y = draw(st.integers(y_min, max(y_min, y_max)))
    small = sum(1 for p in (2, 3, 5, 7) if p <= y)
    c = draw(st.integers(1, small))
    return x, y, c


# ------------------------------------------------------------------------------ tables
@pytest.mark.kernel
@given(st.integers(0, 400))
def test_mu_lpf_matches_reference(limit):
    assert counting.mu_lpf(limit).tolist() == ref.mu_lpf(limit).tolist()


@pytest.mark.kernel
@given(st.integers(2, 300))
def test_pi_tables_match_reference(limit):
    primes = _primes(limit + 50)
    pi = counting.pi_table(primes, limit)
    assert pi.tolist() == ref.pi_table(primes, limit).tolist()
    packed = counting.pi_bits(pi)
    assert packed.tolist() == ref.pi_bits(pi).tolist()
    assert [counting._pi_lookup(packed, n) for n in range(limit + 1)] == pi.tolist()


@pytest.mark.kernel
@given(st.integers(1, 4))
def test_phi_table_matches_reference(c):
    primes = _primes(20)
    assert counting.phi_table(primes, c).tolist() == ref.phi_table(primes, c).tolist()


@pytest.mark.kernel
@given(st.integers(1, 4))
def test_presieve_pattern_matches_reference(c):
    primes = _primes(20)
    assert counting.presieve_pattern(primes, c).tolist() == \
        ref.presieve_pattern(primes, c).tolist()


@pytest.mark.kernel
@given(st.lists(st.integers(-2**61, 2**61), max_size=50))
def test_exact_sums(values):
    acc = np.zeros(2, dtype=np.int64)
    twin = [0, 0]
    for v in values:
        counting.acc_add(acc, v)
        ref.acc_add(twin, v)
    assert acc.tolist() == twin and ref.pair_value(acc) == sum(values)
    assert counting._acc_value(counting._sum_exact(np.array(values, dtype=np.int64))) \
        == sum(values)


@pytest.mark.kernel
@given(st.integers(0, 2**62 - 1), st.integers(1, 2**40))
def test_float_quotient_is_exact(n, d):
    assert counting._div(n, d) == n // d


# ------------------------------------------------------------------------------ leaves
def _tables(x, y, c):
    plan = counting.sieve_plan_hard(x, y)
    limit = max(int(plan.bounds[1]) - 1, y)
    primes = _primes(limit)
    pi = counting.pi_table(primes, limit)
    return primes, pi, counting.pi_bits(pi), counting.mu_lpf(y), counting.phi_table(primes, c)


@pytest.mark.kernel
@settings(max_examples=30)
@given(split(high=10**6), st.integers(1, 8))
def test_ordinary_leaves_match_reference(xyc, chunks):
    x, y, c = xyc
    primes, _, _, mlpf, table = _tables(x, y, c)
    args = (np.uint64(x), y, int(primes[c]), mlpf, table, chunks)
    assert counting.ordinary_leaves(*args).tolist() == ref.ordinary_leaves(*args).tolist()


@pytest.mark.kernel
@settings(max_examples=20)
@given(st.integers(2**63, 2**64 - 1), st.integers(2, 2000), st.integers(1, 4),
       st.integers(1, 8))
def test_ordinary_leaves_above_2_63_match_reference(x, y, c, chunks):
    """The unsigned x // n path and the exact sums where S1 passes 2^63 (y need not
    reach x^(1/3) for S1 alone)."""
    primes = _primes(max(y, 20))
    mlpf, table = counting.mu_lpf(y), counting.phi_table(primes, c)
    args = (np.uint64(x), y, int(primes[c]), mlpf, table, chunks)
    assert counting.ordinary_leaves(*args).tolist() == ref.ordinary_leaves(*args).tolist()


@pytest.mark.kernel
@settings(max_examples=30)
@given(split(high=3 * 10**5), st.integers(1, 3))
def test_easy_leaves_match_reference(xyc, slots):
    """However many slots take the b's, the sums per b are the reference's."""
    x, y, c = xyc
    primes, pi, pib, mlpf, _ = _tables(x, y, c)
    args = (np.uint64(x), y, c, primes, pi, pib, mlpf)
    assert counting.easy_leaves(*args, slots).tolist() == ref.easy_leaves(*args).tolist()


@pytest.mark.kernel
@settings(max_examples=25)
@given(split(high=6000), st.integers(2, 3000), st.integers(1, 6), st.integers(1, 3))
def test_hard_leaves_match_reference_block_by_block(xyc, segment, blocks, slots):
    """Any segment length, number of blocks and of slots taking them: each block's own
    sums, by definition."""
    x, y, c = xyc
    primes, pi, _, mlpf, _ = _tables(x, y, c)
    plan = counting.sieve_plan_hard(x, y, segment, blocks)
    a = int(pi[y])
    bh = max(min(int(pi[min(math.isqrt(x // (y + 1)), len(pi) - 1)]), a - 1), c)
    args = (np.uint64(x), y, c, primes, pi, mlpf, bh, math.isqrt(x), plan.bounds,
            plan.block_starts, plan.seg_len, counting.presieve_pattern(primes, c))
    ours, theirs = counting.hard_leaves(*args, slots), ref.hard_leaves(*args)
    assert ours[0][:, c + 1:bh + 1].tolist() == theirs[0][:, c + 1:bh + 1].tolist()
    for mine, twin in zip(ours[1:], theirs[1:]):
        assert mine.tolist() == twin.tolist()
    s2, s2_high, p2, p2_high = counting.combine_blocks(c, bh, ours[0], ours[1], ours[4])
    assert (ref.pair_value(s2) + (ref.pair_value(s2_high) << 31),
            ref.pair_value(p2) + (ref.pair_value(p2_high) << 31)) == \
        ref.combine_blocks(c, bh, ours[0], ours[1], ours[4])


@pytest.mark.kernel
@given(st.integers(1, 6), st.integers(0, 12), st.data())
def test_combine_blocks_matches_reference_on_large_values(blocks, bh, data):
    """Counts near 2^40 and sums of signs near 2^22: the split products stay exact."""
    c = 1
    width = max(bh, c) + 2
    big = st.integers(0, 2**40)
    phi = np.array(data.draw(st.lists(st.lists(big, min_size=width, max_size=width),
                                      min_size=blocks, max_size=blocks)), dtype=np.int64)
    mus = np.array(data.draw(st.lists(st.lists(st.integers(-2**22, 2**22), min_size=width,
                                               max_size=width),
                                      min_size=blocks, max_size=blocks)), dtype=np.int64)
    stats = np.array(data.draw(st.lists(st.lists(st.integers(0, 2**30), min_size=3,
                                                 max_size=3),
                                        min_size=blocks, max_size=blocks)), dtype=np.int64)
    s2, s2_high, p2, p2_high = counting.combine_blocks(c, bh, phi, mus, stats)
    assert (ref.pair_value(s2) + (ref.pair_value(s2_high) << 31),
            ref.pair_value(p2) + (ref.pair_value(p2_high) << 31)) == \
        ref.combine_blocks(c, bh, phi, mus, stats)


# ------------------------------------------------------------------------------- parts
@pytest.mark.kernel
@settings(max_examples=20)
@given(split(high=20000), st.integers(2, 300), st.integers(1, 5))
def test_parts_match_their_definitions(xyc, segment, blocks):
    x, y, c = xyc
    parts = counting.pi_parts(x, y, c, segment, blocks)
    assert parts.s1 == ref.s1(x, y, c)
    assert parts.s2_easy == int(ref.easy_leaves(x, y, c, None, None, None, None).sum())
    assert parts.s2_hard == ref.s2_hard(x, y, c)
    assert parts.p2 == ref.p2(x, y)
    primes = tuple(ref.primes_upto(y))
    assert parts.phi == ref.phi_by_recursion(x, parts.a, (1,) + primes)
    assert parts.pi == ref.pi_count(x)


@settings(max_examples=25)
@given(st.one_of(st.integers(8, 10**6), st.integers(10**6, 10**9)), st.data())
def test_pi_matches_the_sieve_for_any_split(x, data):
    """pi(x) does not depend on y, c, the segments or the blocks."""
    y_min = counting.choose_y(x, 0.0)
    y_max = math.isqrt(x)
    while y_max * (y_max + 1) > x:
        y_max -= 1
    y = data.draw(st.integers(y_min, max(y_min, min(y_max, 20 * y_min))))
    small = sum(1 for p in (2, 3, 5, 7, 11, 13, 17) if p <= y)
    c = data.draw(st.integers(1, small))
    segment = data.draw(st.sampled_from([None, 2, 1000, 1 << 16]))
    blocks = data.draw(st.sampled_from([None, 1, 3, 64]))
    expected = sieve.count_primes(0, x + 1).count
    assert counting.pi_parts(x, y, c, segment, blocks).pi == expected


@settings(max_examples=20)
@given(st.integers(0, 10**9))
def test_prime_pi_matches_the_sieve(x):
    assert counting.prime_pi(x) == sieve.count_primes(0, x + 1).count


def test_thread_count_does_not_change_any_part():
    x = 10**11 + 12345
    with threads(1):
        one = counting.pi_parts(x)
    with threads(2):
        two = counting.pi_parts(x)
    assert one == two


def test_timings_name_every_stage_and_change_nothing():
    stages = {}
    x = 10**10 + 7
    assert counting.pi_parts(x, timings=stages) == counting.pi_parts(x)
    assert set(stages) == {"tables", "s1", "easy", "hard"}
    assert all(v >= 0.0 for v in stages.values())


def _known_pi():
    with open(DATA / "primes_pi.csv") as handle:
        return [(int(r["n"]), int(r["pi"]), r["source"]) for r in csv.DictReader(handle)]


@pytest.mark.parametrize("n,pi,source", [r for r in _known_pi() if r[0] <= 10**13])
def test_pi_of_powers_of_ten_from_oeis(n, pi, source):
    assert source.startswith("OEIS A006880")
    assert counting.prime_pi(n) == pi


@pytest.mark.slow
@pytest.mark.parametrize("n,pi,source", [r for r in _known_pi() if 10**13 < r[0] <= 10**14])
def test_pi_of_larger_powers_of_ten_from_oeis(n, pi, source):
    assert source.startswith("OEIS A006880")
    assert counting.prime_pi(n) == pi


def test_rows_too_slow_for_the_tests_name_their_benchmark():
    """pi(10^15) .. pi(10^19) are checked by bench/primecount.py (minutes to hours)."""
    far = [r for r in _known_pi() if r[0] > 10**14]
    assert [r[0] for r in far] == [10**k for k in range(15, 20)]
    assert all("bench/primecount.py" in r[2] for r in far)
    assert (Path(__file__).parent.parent / "bench" / "primecount.py").exists()


def test_recorded_runs_of_far_powers_of_ten_agree_with_oeis():
    """Every recorded benchmark value of pi(x) above 10^14 equals OEIS A006880, and
    each of 10^15 .. 10^19 has been computed by this code at least once."""
    known = {n: pi for n, pi, _ in _known_pi()}
    seen = set()
    for path in (Path(__file__).parent.parent / "bench" / "results").glob("primecount*.json"):
        record = json.loads(path.read_text())
        for row in record.get("rows", []) + record.get("checks", []):
            if row["x"] > 10**14:
                assert row["pi"] == known[row["x"]], (path.name, row["x"])
                seen.add(row["x"])
    assert seen == {10**k for k in range(15, 20)}


# ---------------------------------------------------------------------------- n-th prime
@settings(max_examples=15)
@given(st.one_of(st.integers(1, 700000), st.integers(700000, 5 * 10**7)))
def test_nth_prime_matches_the_sieve(k):
    p = counting.nth_prime(k)
    assert sieve.count_primes(0, p + 1).count == k
    assert sieve.count_primes(p, p + 1).count == 1


def test_nth_prime_far_out_both_ways():
    """The estimate lands above and below the prime; both walks give the exact one."""
    for k in (10**10, 10**10 + 1, 3 * 10**10 + 7):
        p = counting.nth_prime(k)
        assert counting.prime_pi(p) == k and counting.prime_pi(p - 1) == k - 1


@pytest.mark.parametrize("bad", [-1, 2**64, 1.5, "10", True])
def test_prime_pi_rejects_bad_input(bad):
    with pytest.raises(InputError):
        counting.prime_pi(bad)


@pytest.mark.parametrize("bad", [0, -3, counting.MAX_NTH + 1, 2.0])
def test_nth_prime_rejects_bad_input(bad):
    with pytest.raises(InputError):
        counting.nth_prime(bad)


# ------------------------------------------------------------------------- command line
def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_pi_and_nth_commands(capsys):
    status, out, _ = run(capsys, "pi", "10^12", "--json", "--threads", "1")
    assert status == 0 and json.loads(out) == {"x": 10**12, "pi": 37607912018,
                                               "complete": True}
    status, out, _ = run(capsys, "pi", "1e9", "-q")
    assert status == 0 and out == "50847534\n"
    status, out, _ = run(capsys, "nth", "10^9", "--json")
    assert status == 0 and json.loads(out)["prime"] == 22801763489  # OEIS A006988


def test_count_switches_to_pi_for_wide_intervals_and_keeps_its_convention(capsys):
    """[A, B): pi(B - 1) - pi(A - 1); the sieve and the pi method agree."""
    assert counting.prefer_pi(0, 10**12) and not counting.prefer_pi(10**12, 10**12 + 10**9)
    status, out, _ = run(capsys, "count", "10^11", "10^12", "--json")
    assert status == 0 and json.loads(out)["count"] == 37607912018 - 4118054813
    for a, b in ((0, 10**7), (2, 3), (3, 3), (7, 8), (10**9 - 1, 10**9 + 10**6)):
        assert (sieve.count_primes(a, b, "pi").count == sieve.count_primes(a, b).count)
    status, out, _ = run(capsys, "count", "0", "10^13+1", "--method", "pi", "--json")
    assert status == 0 and json.loads(out)["count"] == 346065536839


@pytest.mark.parametrize("argv", [["pi", "2^64"], ["pi", "-5"], ["pi", "x"], ["nth", "0"],
                                  ["nth", "10^18"], ["count", "0", "2^64+1", "--method", "pi"]])
def test_bad_input_is_one_line_and_status_2(capsys, argv):
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == "" and err.count("\n") == 1


def test_pi_stops_at_once_on_ctrl_c():
    from tests.test_sigint import LIMIT, interrupt

    status, out, err, seconds = interrupt("jitgames.primes", ["pi", "10^18", "--json"], 6)
    assert status == 130 and seconds < LIMIT, (status, seconds, err)
    assert json.loads(out) == {"x": 10**18, "pi": None, "complete": False}
    assert "Traceback" not in err
