"""Chinese rings: recursive and iterative solutions, and the Gray-code view."""
import csv
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jitgames.puzzles import rings
from jitgames.puzzles.__main__ import main

KNOWN = list(csv.DictReader(open(Path(__file__).parent / "data" / "puzzles_rings.csv")))


@pytest.mark.parametrize("row", KNOWN, ids=lambda r: r["n"])
def test_known_move_counts(row):
    n = int(row["n"])
    assert row["source"].startswith("OEIS A000975")
    assert rings.move_count(n) == int(row["moves"]) == len(rings.put_on_recursive(n))


@pytest.mark.parametrize("n", range(0, 13))
def test_recursive_iterative_and_gray_code_agree(n):
    on = rings.put_on_recursive(n)
    off = rings.take_off_recursive(n)
    assert rings.solve_iterative(n, True) == on
    assert rings.solve_iterative(n, False) == off
    up = rings.replay(n, on, True)
    down = rings.replay(n, off, False)
    assert up[-1] == (1 << n) - 1 and down[-1] == 0
    assert up == down[::-1]  # taking off retraces putting on
    assert [rings.position_after(n, k) for k in range(len(up))] == up
    assert [rings.position_after(n, k, False) for k in range(len(down))] == down


def test_every_other_move_is_ring_one():
    moves = rings.solve_iterative(9)
    assert all(r == 1 for r, _ in moves[::2]) and all(r != 1 for r, _ in moves[1::2])


@given(st.integers(1, 200), st.data())
def test_gray_position_is_legal_neighbour_of_the_next(n, data):
    k = data.draw(st.integers(0, rings.move_count(n) - 1))
    a, b = rings.position_after(n, k), rings.position_after(n, k + 1)
    diff = a ^ b
    assert diff & (diff - 1) == 0  # exactly one ring moves
    assert rings.legal(a, diff.bit_length())


def test_legality_rule_and_bad_moves():
    assert rings.legal(0b0000, 1) and rings.legal(0b0010, 3) and not rings.legal(0b0011, 3)
    with pytest.raises(ValueError):
        rings.replay(3, [(2, True)])
    with pytest.raises(ValueError):
        rings.replay(3, [(1, False)])
    with pytest.raises(ValueError):
        rings.position_after(3, 6)
    assert rings.draw(4, 0b0101) == "O-O-"


def test_cli(capsys):
    assert main(["rings", "7", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["moves"] == 85
    assert main(["rings", "4", "--take-off", "--show", "--position", "3"]) == 0
    out = capsys.readouterr().out
    assert "take off 4 rings: 10 moves" in out and "after 3 moves: --O-" in out
    assert main(["rings", "3", "--position", "6"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
