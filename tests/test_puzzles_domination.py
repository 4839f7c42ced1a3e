"""Queen domination: exact counts of minimum (and independent) dominating sets."""
import csv
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jitgames._bits import popcount
from jitgames._jit import threads
from jitgames.puzzles import domination as dom
from jitgames.puzzles.__main__ import main
from tests.reference import bits as ref_bits
from tests.reference import puzzles_domination as ref

DATA = Path(__file__).parent / "data"
KNOWN = list(csv.DictReader(open(DATA / "puzzles_domination.csv")))
UNIQUE = list(csv.DictReader(open(DATA / "puzzles_domination_unique.csv")))


@pytest.mark.parametrize("row", [r for r in KNOWN if int(r["n"]) <= 9], ids=lambda r: r["n"])
def test_known_values(row):
    assert "OEIS" in row["source"]
    result = dom.domination(int(row["n"]))
    assert (result.minimum, result.sets, result.independent, result.independent_sets) == \
        tuple(int(row[k]) for k in ("minimum", "sets", "independent", "independent_sets"))


@pytest.mark.slow
@pytest.mark.parametrize("row", [r for r in KNOWN if int(r["n"]) > 9], ids=lambda r: r["n"])
def test_known_values_of_larger_boards(row):
    result = dom.domination(int(row["n"]))
    assert (result.minimum, result.sets, result.independent, result.independent_sets) == \
        tuple(int(row[k]) for k in ("minimum", "sets", "independent", "independent_sets"))


def test_every_known_row_is_tested():
    assert {int(r["n"]) for r in KNOWN} == set(range(1, 12))


def test_eight_by_eight_up_to_symmetry():
    row = UNIQUE[0]
    assert row["source"]
    result = dom.domination(8)
    assert (result.unique, result.independent_unique) == (int(row["unique"]),
                                                          int(row["independent_unique"]))


def _brute_unique(n, sets):
    perms = dom._square_symmetries(n)
    return len({min(tuple(sorted(perms[s][list(x)])) for s in range(8)) for x in sets})


@pytest.mark.parametrize("n", range(1, 7))
def test_unique_counts_match_brute_force(n):
    for independent in (False, True):
        k, count, sets = dom.minimum_dominating(n, independent)
        assert dom.count_up_to_symmetry(n, sets) == _brute_unique(n, sets.tolist())
        cover = [ref._covers(n, s) for s in range(n * n)]
        for x in sets.tolist():
            assert set().union(*(cover[s] for s in x)) == set(range(n * n))


def test_draw_and_bad_input():
    assert dom.draw(2, [0]) == "Q .\n. ."
    with pytest.raises(ValueError):
        dom.domination(0)
    with pytest.raises(ValueError):
        dom.dominating_sets(4, 0)


@pytest.mark.kernel
@given(st.integers(1, 5), st.integers(1, 4), st.booleans())
def test_kernel_matches_reference(n, k, independent):
    if k > n * n:
        return
    attack = dom.attack_masks(n)
    ours = np.zeros((4096, k), np.int32)
    theirs = np.zeros((4096, k), np.int32)
    count = dom.count_dominating(n, k, independent, attack, ours)
    assert count == ref.count_dominating(n, k, independent, attack, theirs)
    # every set is listed when no smaller set dominates (then no leaf is a completion)
    smaller = k > 1 and ref.count_dominating(n, k - 1, False, attack, theirs[:0, :k - 1]) > 0
    if (independent or not smaller) and count <= len(ours):
        listed = sorted(tuple(sorted(r)) for r in ours[:count].tolist())
        assert listed == sorted(tuple(r) for r in theirs[:count].tolist())


@pytest.mark.kernel
@given(st.lists(st.integers(0, 2 ** 64 - 1), min_size=1, max_size=3))
def test_bit_helpers_match_reference(words):
    arr = np.array(words, dtype=np.uint64)
    assert dom._lowest_bit(arr, len(words)) == ref._lowest_bit(arr, len(words))
    assert popcount(arr[0]) == ref_bits.popcount(arr[0])


def test_cli(capsys):
    assert main(["domination", "8", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["minimum"], out["sets"], out["unique"], out["independent"]) == (5, 4860, 638, 5)
    assert main(["domination", "5", "--show", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    cover = [ref._covers(5, s) for s in range(25)]
    for key, size in (("example", out["minimum"]), ("independent_example", out["independent"])):
        squares = out[key]
        assert len(set(squares)) == size
        assert set().union(*(cover[s] for s in squares)) == set(range(25))
    independent = out["independent_example"]
    assert all(b not in cover[a] for a in independent for b in independent if a != b)
    assert main(["domination", "6", "--show"]) == 0
    text = capsys.readouterr().out
    board = text.split("no two queens attack each other): squares ")[1].splitlines()
    squares = [int(x) for x in board[0].split(" (")[0].split()]
    drawn = [r * 6 + c for r, line in enumerate(board[1:7]) for c, cell in
             enumerate(line.split()) if cell == "Q"]
    assert drawn == squares and len(drawn) == 4
    assert main(["domination", "12"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.kernel
@given(st.integers(1, 5), st.integers(1, 4), st.booleans(), st.integers(-1, 14))
def test_branch_kernel_matches_reference(n, k, independent, branch):
    if k > n * n:
        return
    attack = dom.attack_masks(n)
    ours = np.zeros((4096, k), np.int32)
    theirs = np.zeros((4096, k), np.int32)
    count = dom.count_dominating_branch(n, k, independent, attack, branch, ours)
    assert count == ref.count_dominating_branch(n, k, independent, attack, branch, theirs)
    smaller = k > 1 and ref.count_dominating(n, k - 1, False, attack, theirs[:0, :k - 1]) > 0
    if independent or not smaller:  # then every set is listed (no leaf is a completion)
        listed = sorted(tuple(sorted(r)) for r in ours[:count].tolist())
        assert listed == sorted(tuple(r) for r in theirs[:count].tolist())


@pytest.mark.kernel
@given(st.integers(1, 6), st.integers(1, 4), st.booleans(), st.sampled_from([0, 5, 4096]))
def test_split_search_equals_the_one_thread_search(n, k, independent, cap):
    # the branches on threads give the one-thread count and list, cap included
    if k > n * n:
        return
    attack = dom.attack_masks(n)
    out = np.zeros((cap, k), np.int32)
    count = dom.count_dominating(n, k, independent, attack, out)
    for thread_count in (1, 2):
        with threads(thread_count):
            split_count, sets = dom.dominating_sets(n, k, independent, cap)
        assert split_count == count
        assert sets.tolist() == out[:min(count, cap)].tolist()
