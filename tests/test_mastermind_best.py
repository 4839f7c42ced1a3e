"""The rollout strategy builder (jitgames.mastermind.best_strategy) and its kernel."""
import gzip
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jitgames.mastermind import best_strategy as best
from jitgames.mastermind.candidates import branches, lower_bounds
from jitgames.mastermind.codes import code_space, load_game
from jitgames.mastermind.optimal import optimal_cost
from jitgames.mastermind.tree import check_tree
from tests.reference import mastermind as ref

DATA = Path(__file__).parent / "data" / "mastermind_best.json"
ROOT = Path(__file__).parent.parent


@st.composite
def scored_sets(draw):
    pegs = draw(st.integers(1, 4))
    colours = draw(st.integers(1, 5))
    repeats = draw(st.booleans()) or colours < pegs
    space = code_space(pegs, colours, repeats)
    members = draw(st.lists(st.integers(0, space.size - 1), min_size=1, max_size=space.size,
                            unique=True))
    guesses = draw(st.lists(st.integers(0, space.size - 1), min_size=1, max_size=12))
    with_matrix = draw(st.booleans())
    return space, np.array(members, np.int32), np.array(guesses, np.int64), with_matrix


@pytest.mark.kernel
@given(scored_sets())
@settings(max_examples=60, deadline=None)
def test_partition_scores_equal_the_twin(case):
    space, members, guesses, with_matrix = case
    matrix = load_game(space.pegs, space.colours, space.repeats)[1] if with_matrix else \
        np.zeros((0, 0), np.uint8)
    tables = space.tables(matrix)
    xlogx = best.xlogx_table(space.size)
    lb = lower_bounds(space.size, branches(space.pegs))
    slots = (space.pegs + 1) ** 2
    ours = np.empty((guesses.size, 5))
    expected = np.empty((guesses.size, 5))
    tally = np.zeros((slots, guesses.size), np.int32)
    best.partition_scores(tables, members, guesses, xlogx, lb, tally, ours)
    ref.partition_scores(tables, members, guesses, xlogx, lb, tally.copy(), expected)
    assert np.array_equal(ours, expected)
    assert not tally.any()  # scratch left zero, as documented


def _check(result):
    """The tree's total, recomputed by the independent check of tree documents."""
    check = check_tree(result.tree.to_document("best"))
    assert check.total == result.total
    return check.total


@pytest.mark.parametrize("pegs,colours", [(3, 4), (4, 4)])
def test_exact_threshold_covering_the_game_gives_the_optimum(pegs, colours):
    space, matrix = load_game(pegs, colours)
    result = best.build_best(space, matrix, exact_below=space.size)
    assert _check(result) == optimal_cost(space, matrix)


@pytest.mark.parametrize("pegs,colours", [(3, 4), (4, 4), (3, 5)])
def test_rollouts_give_valid_trees_no_worse_than_the_base_policy(pegs, colours):
    space, matrix = load_game(pegs, colours)
    optimum = optimal_cost(space, matrix)
    base = _check(best.build_best(space, matrix, exact_below=1, top=0))
    rolled = _check(best.build_best(space, matrix, exact_below=1, top=2))
    mixed = _check(best.build_best(space, matrix, exact_below=8, top=2, rollout_above=20))
    bound, per_guess = best.lower_bound(space, matrix)
    assert bound <= optimum <= rolled <= base
    assert optimum <= mixed
    assert bound == min(per_guess.values())


def test_the_lower_bound_is_at_least_the_size_bound():
    space, matrix = load_game(4, 4)
    lb = lower_bounds(space.size, branches(space.pegs))
    bound, per_guess = best.lower_bound(space, matrix)
    assert lb[space.size] <= bound <= optimal_cost(space, matrix)
    assert sorted(per_guess) == ["1111", "1112", "1122", "1123", "1234"]


def test_a_checkpoint_replays_the_decisions(tmp_path):
    space, matrix = load_game(3, 5)
    path = tmp_path / "best.ckpt"
    first = best.build_best(space, matrix, exact_below=4, top=2, checkpoint=path)
    assert path.exists()
    again = best.build_best(space, matrix, exact_below=4, top=2, checkpoint=path)
    assert np.array_equal(first.tree.table, again.tree.table)
    with pytest.raises(best.InputError, match="other settings"):
        best.build_best(space, matrix, exact_below=5, top=2, checkpoint=path)


def test_the_committed_5x8_tree_has_the_recorded_total():
    """The committed tree is re-checked by the independent walk of every secret."""
    record = json.loads(DATA.read_text())
    doc = json.loads(gzip.decompress((ROOT / record["tree"]).read_bytes()))
    check = check_tree(doc)
    assert (check.pegs, check.colours, check.repeats) == (5, 8, True)
    assert check.total == record["total"] < record["best_published"]["total"]
    assert record["lower_bound"] <= check.total


def test_best_command_writes_a_compressed_tree_that_evaluate_checks(capsys, tmp_path):
    from jitgames.mastermind.__main__ import main
    out_file = tmp_path / "best.json.gz"
    assert main(["best", "-p", "3", "-k", "4", "--exact-below", "5", "--top", "2",
                 "--lower-bound", "--out", str(out_file), "--json", "-q"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["lower_bound"] <= 206 <= record["total"]  # 206: the optimum of 3 x 4
    assert main(["evaluate", "--tree", str(out_file), "--json"]) == 0
    checked = json.loads(capsys.readouterr().out)
    assert checked["verified"] and checked["total"] == record["total"]
    broken = tmp_path / "broken.json.gz"
    broken.write_bytes(out_file.read_bytes()[:40])
    assert main(["evaluate", "--tree", str(broken)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert main(["best", "-p", "3", "-k", "4", "--first", "115"]) == 2
