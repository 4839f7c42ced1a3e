"""Fibonacci nim: the SG kernel, Fibonacci losing heaps, Zeckendorf winning moves."""
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jitgames.puzzles import fibnim
from jitgames.puzzles.__main__ import main
from tests.reference import puzzles_fibnim as ref

KNOWN = json.loads((Path(__file__).parent / "data" / "puzzles_misc.json").read_text())


@pytest.fixture(scope="module")
def table():
    return fibnim.table(400)


def test_losing_starting_heaps_are_the_fibonacci_numbers(table):
    known = [f for f in KNOWN["fibnim"]["losing_starts"] if f <= 400]
    assert table.losing_starts() == known == fibnim.fibonacci_upto(400)


def test_winning_move_from_zeckendorf_agrees_with_sg(table):
    for p in range(1, 401):
        for q in [None] + list(range(1, p + 1)):
            move = fibnim.winning_move(p, q)
            value = table.start[p] if q is None else table.sg[p, q]
            assert (move is None) == (value == 0)
            if move is not None and move < p:
                assert table.sg[p - move, move] == 0


def test_losing_positions_are_a_prefix_in_q(table):
    for p, g in table.losing_positions(200):
        row = table.sg[p, 1:]
        assert (row[:g] == 0).all() and (row[g:] != 0).all()


@given(st.integers(1, 10 ** 12))
def test_zeckendorf(p):
    terms = fibnim.zeckendorf(p)
    assert sum(terms) == p
    fib = fibnim.fibonacci_upto(p)
    idx = [fib.index(t) for t in terms]
    assert all(a - b >= 2 for a, b in zip(idx, idx[1:]))


def test_bad_input():
    with pytest.raises(ValueError):
        fibnim.table(0)
    with pytest.raises(ValueError):
        fibnim.table(fibnim.MAX_HEAP + 1)
    with pytest.raises(ValueError):
        fibnim.zeckendorf(0)
    with pytest.raises(ValueError):
        fibnim.winning_move(5, 0)


@pytest.mark.kernel
@given(st.integers(1, 40))
def test_kernel_matches_reference(heap_max):
    ours = (np.zeros((heap_max + 1,) * 2, np.int32), np.zeros(heap_max + 1, np.int32))
    theirs = (np.zeros((heap_max + 1,) * 2, np.int32), np.zeros(heap_max + 1, np.int32))
    fibnim.grundy_kernel(heap_max, *ours)
    ref.grundy_kernel(heap_max, *theirs)
    assert (ours[0] == theirs[0]).all() and (ours[1] == theirs[1]).all()


def test_cli(capsys):
    assert main(["fibnim", "89", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["losing"] is True and out["grundy"] == 0
    assert main(["fibnim", "100", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["losing"] is False and out["grundy"] > 0 and out["winning_move"] == 3
    assert main(["fibnim", "20", "--show"]) == 0
    assert "13 + 5 + 2; SG = 7; first player wins by taking 2" in capsys.readouterr().out
    assert main(["fibnim", str(fibnim.MAX_HEAP + 1)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
