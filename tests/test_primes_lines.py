"""Polynomials, Bateman-Horn constants and the lines of layout pictures."""
import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jitgames._jit import threads
from jitgames.primes import lines, polynomials
from jitgames.primes.layouts import LAYOUTS
from jitgames.primes.polynomials import Quadratic, classify, poly_count
from tests.reference import primes as ref

DATA = Path(__file__).parent / "data"
EULER = Quadratic(1, 1, 41)
small_primes = [int(p) for p in ref.plain_sieve(200)] + [2]


def test_euler_polynomial_is_prime_for_0_to_39_and_not_at_40():
    empty = np.zeros(0, np.uint8)
    assert all(polynomials.prime_value(EULER(x), empty, 0) for x in range(40))
    assert not polynomials.prime_value(EULER(40), empty, 0)
    assert poly_count(EULER, 40).count == 40
    assert poly_count(EULER, 41).count == 40  # 40^2 + 40 + 41 = 41^2
    assert EULER(40) == 41 * 41


def test_euler_counts_from_oeis():
    with open(DATA / "primes_euler.csv") as handle:
        rows = [row for row in csv.DictReader(handle) if int(row["upto"]) <= 10**5]
    assert rows and all("A331876" in row["source"] for row in rows)
    for row in rows:
        assert poly_count(EULER, int(row["upto"])).count == int(row["count"])


def test_bateman_horn_constant_of_euler_polynomial():
    known = json.loads((DATA / "primes_constants.json").read_text())
    assert "A221712" in known["source"]
    exact = known["hardy_littlewood_constant"]
    assert abs(polynomials.bateman_horn_constant(EULER) / exact - 1) < 1e-4
    assert abs(polynomials.bateman_horn_constant(EULER, 10**6) / exact - 1) < 3e-4
    result = poly_count(EULER, 10**5)
    assert result.predicted == pytest.approx(result.constant * polynomials.logarithmic_integral(1e5))
    assert 0.99 < result.ratio < 1.01


def test_logarithmic_integral_known_values():
    assert polynomials.logarithmic_integral(2) == pytest.approx(1.045163780117492784, rel=1e-12)
    assert polynomials.logarithmic_integral(1e6) == pytest.approx(78627.549159462181919, rel=1e-12)
    assert polynomials.logarithmic_integral(1e9) == pytest.approx(50849234.9570018, rel=1e-12)


@pytest.mark.parametrize("f,kind,text", [
    (Quadratic(4, 4, 1), "reducible", "(2t + 1)^2"),
    (Quadratic(1, 1, 0), "reducible", "t(t + 1)"),
    (Quadratic(1, 3, 2, 2), "reducible", "(t + 1)(t + 2)/2"),
    (Quadratic(2, 0, -8), "reducible", "2(t - 2)(t + 2)"),
    (Quadratic(1, 1, 2), "fixed divisor", "divisible by 2"),
    (Quadratic(0, 6, 9), "fixed divisor", "divisible by 3"),
    (Quadratic(0, 0, 7), "constant", "7"),
    (Quadratic(1, 1, 41), "irreducible", "irreducible"),
    (Quadratic(0, 2, 1), "irreducible", "irreducible"),
])
def test_classify_explains_why(f, kind, text):
    verdict = classify(f)
    assert verdict.kind == kind and text in verdict.reason


@given(st.integers(-50, 50), st.integers(-50, 50), st.integers(-50, 50))
def test_reducible_lines_hold_few_primes(a, b, c):
    f = Quadratic(a, b, c)
    verdict = classify(f)
    if verdict.kind in ("reducible", "fixed divisor"):
        assert poly_count(f, 300).count <= 4
        assert polynomials.bateman_horn_constant(f, 1000) == 0.0 or verdict.kind == "reducible"


@given(st.integers(-10**4, 10**4), st.integers(-10**4, 10**4), st.integers(-10**4, 10**4))
def test_from_values_round_trip(v0, v1, v2):
    f = Quadratic.from_values(v0, v1, v2)
    assert (f(0), f(1), f(2)) == (v0, v1, v2)
    assert f.d in (1, 2)


@pytest.mark.kernel
@given(st.integers(-10**6, 10**6), st.integers(1, 10**4).map(lambda n: 2 * n + 1))
def test_jacobi_matches_reference(a, n):
    assert polynomials.jacobi(a, n) == ref.jacobi(a, n)


@pytest.mark.kernel
@given(st.integers(-99, 99), st.integers(-99, 99), st.integers(-99, 99),
       st.sampled_from([1, 2]), st.sampled_from(small_primes))
def test_zero_share_matches_reference(a, b, c, d, p):
    if d == 2 and (c % 2 or (a + b) % 2):
        c, b = c - c % 2, b + (a + b) % 2
    assert polynomials.zero_share(a, b, c, d, p) == pytest.approx(ref.zero_share(a, b, c, d, p))


@pytest.mark.kernel
@given(st.integers(-20, 20), st.integers(-20, 20), st.integers(-20, 60))
def test_bateman_horn_product_matches_reference(a, b, c):
    primes = np.array(small_primes[:20], dtype=np.int64)
    assert polynomials.bateman_horn_product(a, b, c, 1, primes) == pytest.approx(
        ref.bateman_horn_product(a, b, c, 1, primes), rel=1e-12)


@pytest.mark.kernel
@given(st.integers(-30, 30), st.integers(-300, 300), st.integers(-10**4, 10**6),
       st.integers(0, 200), st.booleans())
def test_count_prime_values_matches_reference(a, b, c, n, use_table):
    table = np.zeros(0, np.uint8)
    if use_table:
        table = np.array([ref.trial_division_is_prime(v) for v in range(100, 5000)], np.uint8)
    lo = 100 if use_table else 0
    assert polynomials.count_prime_values(a, b, c, 1, n, table, lo) == \
        ref.count_prime_values(a, b, c, 1, n, table, lo)


@pytest.mark.kernel
@given(st.sampled_from(["spiral", "triangle"]), st.integers(-6, 3), st.integers(-6, 3),
       st.integers(3, 8))
def test_line_pieces_and_cells_match_reference(layout, x0, y0, size):
    grid = LAYOUTS[layout].grid(x0, y0, size, size)
    pieces = lines.line_pieces(grid)
    assert pieces.tolist() == ref.line_pieces(grid).tolist()
    assert lines.first_cells(pieces, grid).tolist() == ref.first_cells(pieces, grid).tolist()
    for direction in range(4):
        for line in range(2 * size - 1):
            for step in range(size + 1):
                assert tuple(lines.cell_of(direction, line, step, size, size)) == \
                    ref.cell_of(direction, line, step, size, size)


@pytest.mark.kernel
@given(st.lists(st.tuples(st.integers(0, 8), st.integers(-50, 50), st.integers(1, 500),
                          st.integers(0, 60)), max_size=5))
def test_count_line_primes_matches_reference(polys):
    a, b, c, n = (np.array([p[i] for p in polys], dtype=np.int64) for i in range(4))
    d = np.ones(len(polys), dtype=np.int64)
    empty = np.zeros(0, np.uint8)
    assert lines.count_line_primes(a, b, c, d, n, empty, 0).tolist() == \
        ref.count_line_primes(a, b, c, d, n, empty, 0).tolist()


@pytest.mark.parametrize("layout,centre", [("spiral", None), ("triangle", None),
                                           ("spiral", 10**12)])
def test_every_line_formula_reproduces_the_picture(layout, centre):
    """f(t) at t = 0..length-1 equals the integers met walking along the line."""
    start = 1
    result = lines.analyse_lines(layout, 41, start, centre, top=1000)
    grid = LAYOUTS[layout].grid(result.x0, result.y0, 41, 41)
    assert len(result.richest) == min(1000, result.n_lines)
    for line in result.richest + result.factoring:
        for t in range(line.length):
            x, y = line.x + t * line.dx, line.y + t * line.dy
            assert line.f(t) == grid[y - result.y0, x - result.x0] + start
        walked = sum(ref.is_prime(line.f(t)) for t in range(line.length))
        assert walked == line.primes


def test_spiral_lines_show_euler_and_the_empty_diagonals():
    result = lines.analyse_lines("spiral", 101, 1, top=5)
    formulas = [line.f.formula() for line in result.richest]
    assert "4t^2 + 162t + 1681" in formulas  # x^2 + x + 41 at x = 2t + 40
    assert result.richest[0].primes >= result.richest[-1].primes
    for line in result.richest:
        assert line.verdict.kind == "irreducible" and 0.7 < line.ratio < 1.4
        assert line.constant > 0 and not math.isnan(line.expected)
    reasons = " ".join(line.verdict.reason for line in result.factoring)
    assert "divisible by 2" in reasons and "factors as" in reasons


def test_far_window_uses_miller_rabin_and_threads_do_not_matter():
    with threads(1):
        one = lines.analyse_lines("spiral", 31, 1, 10**12, top=5)
    with threads(2):
        two = lines.analyse_lines("spiral", 31, 1, 10**12, top=5)
    assert one.primality == "Miller-Rabin"
    assert [(x.f, x.primes, x.x, x.y) for x in one.richest] == \
        [(x.f, x.primes, x.x, x.y) for x in two.richest]


def test_chosen_length_follows_the_polynomial_beyond_the_window():
    result = lines.analyse_lines("spiral", 21, 1, length=400, top=3)
    for line in result.richest:
        assert line.length == 400
        assert line.primes == sum(ref.is_prime(line.f(t)) for t in range(400))


@pytest.mark.parametrize("kwargs", [dict(layout="hexagon"), dict(size=2), dict(start=-1),
                                    dict(centre=0), dict(length=0), dict(top=-1)])
def test_bad_line_requests_are_refused(kwargs):
    with pytest.raises(ValueError):
        lines.analyse_lines(**kwargs)
