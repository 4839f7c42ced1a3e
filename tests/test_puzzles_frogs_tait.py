"""Frogs and toads, and Tait's counters: constructions checked by breadth-first search."""
import json
from pathlib import Path

import pytest

from jitgames.puzzles import frogs, tait
from tests.reference import puzzles_tait as ref_tait
from jitgames.puzzles.__main__ import main

KNOWN = json.loads((Path(__file__).parent / "data" / "puzzles_misc.json").read_text())


@pytest.mark.parametrize("n", range(1, 9))
def test_frogs_recursive_iterative_and_phases(n):
    moves = frogs.solve_recursive(n)
    assert frogs.solve_iterative(n) == moves
    assert frogs.interleave(n) + frogs.separate(n) == moves
    positions = frogs.replay(n, moves)
    assert positions[-1] == frogs.goal(n)
    assert positions[len(frogs.interleave(n))] == frogs.interleaved(n)
    assert len(moves) == frogs.move_count(n) == KNOWN["frogs"]["moves"][n - 1]


@pytest.mark.parametrize("n", range(1, 6))
def test_frogs_minimum_by_search(n):
    assert frogs.bfs_distance(n) == frogs.move_count(n)


def test_frogs_rules():
    assert frogs.legal_moves("W_B") == [0, 2]
    assert frogs.legal_moves("WW_") == [1]  # no jump over one's own colour
    with pytest.raises(ValueError):
        frogs.apply("W_B", 1)


@pytest.mark.parametrize("n", range(3, 8))
def test_tait_minimum_by_search(n):
    assert tait.bfs_minimum(n, "block") == KNOWN["tait"]["block"][str(n)]
    assert tait.bfs_minimum(n, "gap") == KNOWN["tait"]["gap"][str(n)]


@pytest.mark.parametrize("n", [3, 4, 5, 6, pytest.param(7, marks=pytest.mark.slow)])
def test_tait_minima_derived_here_agree_with_the_twin(n):
    # the minima in tests/data are the project's own: an independent search checks them
    assert "DERIVED BY THIS PROJECT" in KNOWN["tait"]["source"]
    assert ref_tait.bfs_minimum(n, "block") == KNOWN["tait"]["block"][str(n)]
    assert ref_tait.bfs_minimum(n, "gap") == KNOWN["tait"]["gap"][str(n)]


@pytest.mark.parametrize("n", range(3, 24))
def test_tait_construction_reaches_both_goals(n):
    block = tait.construct(n, "block")
    gap = tait.construct(n, "gap")
    assert tait.is_block(tait.replay(n, block)[-1], n)
    assert tait.is_gap(tait.replay(n, gap)[-1], n)
    assert len(block) == (n if n >= 4 else 4)
    assert len(gap) == len(block) + 1
    if n <= 7:
        assert len(gap) == KNOWN["tait"]["gap"][str(n)]


def test_tait_rules():
    assert tait.apply("abab..", (1, 4)) == "a..bba"
    with pytest.raises(ValueError):
        tait.apply("abab..", (0, 1))
    with pytest.raises(ValueError):
        tait.construct(2, "block")
    with pytest.raises(ValueError):
        tait.construct(5, "sorted")


def test_cli(capsys):
    assert main(["frogs", "4", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["moves"] == 24
    assert main(["tait", "4", "--json", "--bfs"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["moves_block"], out["moves_gap"]) == (4, 5) == (out["bfs_block"], out["bfs_gap"])
    assert main(["frogs", "2", "--show"]) == 0
    assert "BB_WW" in capsys.readouterr().out
    assert main(["tait", "12", "--bfs"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_cli_tait_limit_is_the_one_in_help(capsys):
    status = main(["tait", "201"])  # before: "n must be at most 200" vs 3..10000
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and "from 3 to 200" in err
    assert main(["tait", "200"]) == 0
