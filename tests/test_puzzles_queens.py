"""N queens: small boards by hand-written searches, counts by the bitmask kernels."""
import csv
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jitgames._jit import threads
from jitgames.puzzles import queens
from jitgames.puzzles.__main__ import main
from tests.reference import puzzles_queens as ref

KNOWN = [row for row in csv.DictReader(open(Path(__file__).parent / "data" / "puzzles_queens.csv"))]


@pytest.mark.parametrize("row", [r for r in KNOWN if int(r["n"]) <= 12], ids=lambda r: r["n"])
def test_known_counts(row):
    assert row["source"].startswith("OEIS")
    result = queens.queens_census(int(row["n"]))
    assert (result.count, result.unique) == (int(row["count"]), int(row["unique"]))


# n = 17 and 18 (seconds to a minute each) are checked by the benchmark, bench/puzzles.py
@pytest.mark.slow
@pytest.mark.parametrize("row", [r for r in KNOWN if 13 <= int(r["n"]) <= 16],
                         ids=lambda r: r["n"])
def test_known_counts_of_larger_boards(row):
    n = int(row["n"])
    result = queens.queens_census(n)
    assert (result.count, result.unique) == (int(row["count"]), int(row["unique"]))
    # the mirror-only kernel and Burnside's lemma reach the same numbers another way
    assert queens.count_queens(n) == result.count
    assert queens.unique_by_burnside(n, result.count) == result.unique


def test_every_known_value_is_checked_somewhere():
    # rows up to 16 are tested above; 17 and 18 are timed and checked by the benchmark
    bench = (Path(__file__).parents[1] / "bench" / "puzzles.py").read_text()
    assert {int(r["n"]) for r in KNOWN} == set(range(1, 19))
    assert "KNOWN" in bench and "puzzles_queens.csv" in bench


def test_plain_baseline_matches_known():
    for row in KNOWN[:11]:
        assert queens.count_queens_plain(int(row["n"])) == int(row["count"])


@pytest.mark.parametrize("n", range(1, 9))
def test_recursive_and_iterative_find_every_solution(n):
    brute = ref.all_solutions(n)
    assert queens.solutions_recursive(n) == brute
    assert queens.solutions_iterative(n) == brute
    for method in queens.METHODS:
        assert queens.solutions(n, method) == brute


@pytest.mark.parametrize("n", [10, 11, 12])
def test_three_methods_list_the_same_solutions(n):
    known = next(int(r["count"]) for r in KNOWN if int(r["n"]) == n)
    listed = queens.solutions(n, "kernel")
    assert len(listed) == known and all(ref.is_solution(s) for s in listed)
    assert listed == sorted(set(listed))
    assert queens.solutions(n, "iterative") == listed == queens.solutions(n, "recursive")


def test_eight_queens_92_and_12():
    sols = queens.solutions_iterative(8)
    assert len(sols) == 92
    unique = queens.unique_solutions(sols)
    assert len(unique) == 12 == ref.unique_count(8)
    assert all(ref.is_solution(s) for s in unique)


@pytest.mark.parametrize("n", [1, 2, 4, 6, 9, 10])
def test_vectorised_classes_are_the_canonical_forms_one_by_one(n):
    sols = queens.solutions(n, "recursive")
    expected = sorted({queens.canonical_form(s) for s in sols})
    assert queens.unique_solutions(sols) == expected
    assert queens.unique_solutions(iter(sols)) == expected  # any iterable
    known = next(int(r["unique"]) for r in KNOWN if int(r["n"]) == n)
    assert len(expected) == known


def test_draw():
    assert queens.draw((1, 3, 0, 2)) == ". Q . .\n. . . Q\nQ . . .\n. . Q ."


@given(st.integers(1, 10), st.data())
def test_first_row_chunks_sum_to_the_whole(n, data):
    labels = data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    chunks = [[c for c in range(n) if labels[c] == k] for k in range(3)]
    assert sum(queens.count_queens(n, chunk) for chunk in chunks) == queens.count_queens(n)


@pytest.mark.parametrize("n", [5, 6, 7, 8])
def test_first_row_counts_match_brute_force(n):
    brute = ref.all_solutions(n)
    for c in range(n):
        assert queens.count_queens(n, [c]) == sum(1 for s in brute if s[0] == c)


def test_count_does_not_depend_on_threads():
    with threads(1):
        one = queens.count_queens(11)
    with threads(2):
        two = queens.count_queens(11)
    assert one == two == 2680


def test_bad_input():
    with pytest.raises(ValueError):
        queens.count_queens(0)
    with pytest.raises(ValueError):
        queens.count_queens(31)
    with pytest.raises(ValueError):
        queens.count_queens(8, [8])
    with pytest.raises(ValueError):
        queens.count_queens(8, [1, 1])
    with pytest.raises(TypeError):
        queens.count_queens(8.0)


# ----------------------------------------------------------------- kernels vs twins
def _partial(n, cols_list):
    """Bitmask state after placing the given columns in rows 0.., or None if attacked."""
    full = (1 << n) - 1
    cols = left = right = 0
    for c in cols_list:
        bit = 1 << c
        if (cols | left | right) & bit:
            return None
        cols, left, right = cols | bit, ((left | bit) << 1) & full, (right | bit) >> 1
    return full, cols, left, right


partials = st.integers(1, 9).flatmap(
    lambda n: st.tuples(st.just(n), st.lists(st.integers(0, n - 1), max_size=min(n, 3))))


@pytest.mark.kernel
@given(partials)
def test_bitmask_kernels_match_reference(case):
    n, prefix = case
    state = _partial(n, prefix)
    if state is None:
        return
    expected = ref.count_bitmask_recursive(*state)
    assert queens.count_bitmask_recursive(*state) == expected
    assert queens.count_completions(*state) == expected


@pytest.mark.kernel
@given(st.integers(1, 7), st.integers(0, 50))
def test_listing_kernel_matches_reference(n, capacity):
    ours = np.zeros((capacity, n), np.int8)
    theirs = np.zeros((capacity, n), np.int8)
    assert queens.fill_solutions(n, ours) == ref.fill_solutions(n, theirs)
    assert ours.tolist() == theirs.tolist()


@pytest.mark.kernel
@given(st.integers(1, 9))
def test_task_kernel_matches_reference(n):
    cols, left, right, _ = queens._tasks(n, list(range(n)), 2)
    order = queens._stride_order(len(cols))
    ours = np.zeros(len(cols), dtype=np.int64)
    theirs = np.zeros(len(cols), dtype=np.int64)
    queens._count_tasks((1 << n) - 1, cols, left, right, order, ours)
    ref._count_tasks((1 << n) - 1, cols, left, right, order, theirs)
    assert ours.tolist() == theirs.tolist()
    assert sorted(order.tolist()) == list(range(len(cols)))


@pytest.mark.kernel
@given(st.integers(1, 7), st.booleans(), st.integers(0, 6))
def test_invariant_count_matches_reference(n, quarter, first):
    rows = np.full(n, -1, np.int64)
    col_used = np.zeros(n, np.bool_)
    diag = np.zeros(2 * n - 1, np.bool_)
    anti = np.zeros(2 * n - 1, np.bool_)
    expected = ref.count_invariant_from(n, quarter, 0, rows, col_used, diag, anti)
    assert queens.count_invariant_from(n, quarter, 0, rows, col_used, diag, anti) == expected
    assert (rows == -1).all() and not col_used.any()  # arrays restored
    r, c = queens._orbit_step(n, quarter, first % n, (first * 3) % n)
    assert (r, c) == ref._orbit_step(n, quarter, first % n, (first * 3) % n)


# ----------------------------------------------------------------- command line
def test_cli_json_contract(capsys):
    assert main(["queens", "8", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["count"] == 92 and out["unique"] == 12


def test_cli_text_and_show(capsys):
    assert main(["queens", "6", "--show", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "4 solutions, 1 up to symmetry" in out and "Q" in out


def run(argv):
    """Exit status of the command line, whether argparse exits or main returns."""
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


def test_cli_all_lists_every_solution(capsys):
    assert main(["queens", "8", "--all"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("8 queens: 92 solutions, 12 up to symmetry")
    assert [tuple(map(int, line.split())) for line in lines[1:]] == ref.all_solutions(8)


@pytest.mark.parametrize("method", ["recursive", "iterative", "kernel"])
def test_cli_all_json_by_each_method(method, capsys):
    assert main(["queens", "7", "--all", "--json", "--method", method]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [tuple(s) for s in out["solutions"]] == ref.all_solutions(7)
    assert (out["count"], out["unique"], out["method"]) == (40, ref.unique_count(7), method)
    assert out["complete"] is True


def test_cli_method_counts(capsys):
    assert main(["queens", "9", "--method", "iterative", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["count"], out["unique"]) == (352, 46) and "solutions" not in out


@pytest.mark.parametrize("argv", [["queens", "0"], ["queens", "x"], ["queens", "31"],
                                  ["queens", "13", "--show"], ["queens", "15", "--all"],
                                  ["queens", "15", "--method", "recursive"],
                                  ["queens", "8", "--method", "magic"],
                                  ["queens", "8", "--all", "--checkpoint", "x.json"]])
def test_cli_bad_input(argv, capsys):
    assert run(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error" in err
