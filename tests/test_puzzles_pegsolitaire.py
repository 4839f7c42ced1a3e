"""Peg solitaire: rules, solutions of the classic problems, exact path counts."""
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jitgames.puzzles import pegsearch, pegsolitaire as ps
from jitgames.puzzles.__main__ import main
from tests.reference import puzzles_pegsearch as ref

KNOWN = json.loads((Path(__file__).parent / "data" / "puzzles_misc.json").read_text())
ENGLISH = ps.board("english")
SYM = ps._SYM_TABLE
ALL = np.arange(8, dtype=np.int64)


def test_boards():
    assert ENGLISH.size == 33 and len(ENGLISH.jump_from) == 76
    assert ps.board("french").size == 37 and len(ps.board("french").jump_from) == 92
    start = ps.problem("central").start
    assert ps.draw(ENGLISH, start).splitlines()[3] == "o o o . o o o"
    assert len(ps.legal_moves(ENGLISH, start)) == 4
    with pytest.raises(ValueError):
        ps.board("german")
    with pytest.raises(ValueError):
        ps.problem("cross", "french")


@pytest.mark.parametrize("name", ["cross", "plus", "fireplace", "pyramid", "arrow", "central"])
def test_classic_problems_are_solved(name):
    prob = ps.problem(name)
    sol = ps.solve(prob.start, prob.goal)
    assert sol is not None
    position = prob.start
    for m in sol.moves:  # replaying the listed moves reaches the goal
        position = ps.apply_move(ENGLISH, position, m)
    assert position == prob.goal == sol.positions[-1]
    assert all("-" in name for name in sol.names)


def test_french_central_game_is_impossible():
    prob = ps.problem("central", "french")
    assert not ps.same_class(prob.start, prob.goal)
    assert ps.solve(prob.start, prob.goal, "french") is None
    assert ps.count_solutions(prob.start, prob.goal, "french").solutions == 0


@pytest.mark.parametrize("name", ["cross", "plus", "fireplace"])
def test_counts_of_small_problems_match_brute_force(name):
    prob = ps.problem(name)
    expected = ref.count_paths(prob.start, prob.goal, ENGLISH.jump_from, ENGLISH.jump_over,
                               ENGLISH.jump_to)
    assert expected > 0
    assert ps.count_solutions(prob.start, prob.goal).solutions == expected


HOLES = ps.holes_of(ENGLISH.holes)
small_problems = st.tuples(st.sets(st.sampled_from(HOLES), min_size=2, max_size=8),
                           st.sampled_from(HOLES))


@given(small_problems)
def test_counts_of_random_problems_match_brute_force(case):
    pegs, target = case
    start, goal = ps.position_of(pegs), ps.position_of([target])
    expected = ref.count_paths(start, goal, ENGLISH.jump_from, ENGLISH.jump_over,
                               ENGLISH.jump_to)
    assert ps.count_solutions(start, goal).solutions == expected


def test_central_game_count_known_value_is_documented():
    # The full count takes about half a minute and 0.7 GB: bench/puzzles.py runs it.
    assert KNOWN["pegsolitaire"]["central_solutions"] == 40_861_647_040_079_968
    assert "source" in KNOWN["pegsolitaire"]


def test_count_rejects_pegs_off_the_board():
    with pytest.raises(ValueError):
        ps.count_solutions(1 << 0, 1 << 24)  # a1 is a corner, not a hole


# ----------------------------------------------------------------- kernels vs twins
positions = st.sets(st.sampled_from(HOLES), max_size=12).map(ps.position_of)
groups = st.sets(st.integers(1, 7)).map(lambda s: np.array([0] + sorted(s), dtype=np.int64))


@pytest.mark.kernel
@given(positions, groups, st.integers(0, 7))
def test_symmetry_kernels_match_reference(pos, group, s):
    assert pegsearch.image(np.uint64(pos), SYM, s) == ref.image(pos, SYM, s)
    assert pegsearch.canonical(np.uint64(pos), SYM, group) == ref.canonical(pos, SYM, group)
    keys = np.array([pos], dtype=np.uint64)
    assert pegsearch.orbit_sizes(keys, SYM, group).tolist() == \
        ref.orbit_sizes(keys, SYM, group).tolist()
    assert pegsearch._mix(np.uint64(pos), 1023) == ref._mix(pos, 1023)


@pytest.mark.kernel
@given(small_problems)
def test_solver_matches_reference(case):
    pegs, target = case
    start, goal = ps.position_of(pegs), ps.position_of([target])
    group = ps._group(goal)
    dead = np.full(1 << 10, pegsearch.EMPTY_KEY, dtype=np.uint64)
    ours, theirs = np.zeros(len(pegs), np.int64), np.zeros(len(pegs), np.int64)
    args = (ENGLISH.jump_from, ENGLISH.jump_over, ENGLISH.jump_to, SYM, group)
    length = pegsearch.solve_dfs(np.uint64(start), np.uint64(goal), *args, dead, ours)
    expected = ref.solve_dfs(start, goal, *args, None, theirs)
    assert length == expected
    assert ours[:max(length, 0)].tolist() == theirs[:max(expected, 0)].tolist()


@pytest.mark.kernel
@given(st.lists(positions, min_size=1, max_size=5, unique=True), groups)
def test_layer_kernels_match_reference(layer, group):
    keys = np.array(sorted({int(ref.canonical(p, SYM, group)) for p in layer}), dtype=np.uint64)
    counts = np.arange(1, len(keys) + 1, dtype=np.int64)
    args = (keys, counts, ENGLISH.jump_from, ENGLISH.jump_over, ENGLISH.jump_to, SYM, group)
    size = 1 << 9
    tk1, tc1 = np.full(size, pegsearch.EMPTY_KEY, np.uint64), np.zeros(size, np.int64)
    tk2, tc2 = tk1.copy(), tc1.copy()
    used = pegsearch.expand_layer(*args, tk1, tc1)
    assert used == ref.expand_layer(*args, tk2, tc2)
    if used >= 0:
        assert tk1.tolist() == tk2.tolist() and tc1.tolist() == tc2.tolist()
    orbit = ref.orbit_sizes(keys, SYM, group)
    full = np.uint64(ENGLISH.holes)
    other = np.sort(np.array([int(ref.canonical(int(full) ^ int(k), SYM, group)) for k in keys],
                             dtype=np.uint64))
    other_counts = orbit[np.argsort([int(ref.canonical(int(full) ^ int(k), SYM, group))
                                     for k in keys])] * 3
    total, estimate = pegsearch.meet_sum(keys, counts * orbit, orbit, other, other_counts,
                                         full, SYM, group)
    expected, _ = ref.meet_sum(keys, counts * orbit, orbit, other, other_counts, full, SYM,
                               group)
    assert total == expected and estimate == pytest.approx(expected)


# ----------------------------------------------------------------- command line
def test_cli_count_json_contract(capsys):
    assert main(["pegsolitaire", "plus", "--count", "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["solutions"] == ps.count_solutions(ps.problem("plus").start,
                                                  ps.problem("plus").goal).solutions > 0


def test_cli_solve_and_draw(capsys):
    assert main(["pegsolitaire", "cross", "--show"]) == 0
    out = capsys.readouterr().out
    assert "cross (english):" in out and "o" in out


def test_cli_bad_input(capsys):
    try:
        status = main(["pegsolitaire", "diamond"])
    except SystemExit as exc:
        status = exc.code
    assert status == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert main(["pegsolitaire", "plus", "--board", "french"]) == 2
    assert "english board only" in capsys.readouterr().err
