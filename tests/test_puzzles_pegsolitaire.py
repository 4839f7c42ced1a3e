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
    assert ENGLISH.size == 33 and len(ENGLISH.jump_from) == 76 == len(ref.JUMPS)
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
    expected = ref.count_paths(prob.start, prob.goal)
    assert expected > 0
    assert ps.count_solutions(prob.start, prob.goal).solutions == expected


@pytest.mark.slow
@pytest.mark.parametrize("name", ["pyramid", "arrow"])
def test_counts_of_larger_problems_match_dynamic_programming(name):
    # the twin's count walks every position without symmetry or meeting in the middle
    prob = ps.problem(name)
    expected = ref.count_paths_memo(prob.start, prob.goal)
    assert expected > 10 ** 6
    assert ps.count_solutions(prob.start, prob.goal).solutions == expected
    moves = ps.first_moves(prob.start, prob.goal)
    assert sum(m.solutions for m in moves) == expected


def test_board_moves_are_the_jumps_of_the_rules():
    ours = {(int(f), int(o), int(t)) for f, o, t in
            zip(ENGLISH.jump_from, ENGLISH.jump_over, ENGLISH.jump_to)}
    theirs = {(ref.bit(*a), ref.bit(*o), ref.bit(*t)) for a, o, t in ref.JUMPS}
    assert ours == theirs and len(ours) == 76
    assert ENGLISH.holes == sum(ref.bit(r, c) for r, c in ref.HOLES)


HOLES = ps.holes_of(ENGLISH.holes)
small_problems = st.tuples(st.sets(st.sampled_from(HOLES), min_size=2, max_size=8),
                           st.sampled_from(HOLES))


@st.composite
def solvable_problems(draw, max_moves=9):
    """(start, goal, moves): a one-peg goal and jumps played backwards from it, so
    the start is solvable by construction (the reversed jumps solve it)."""
    goal = ref.bit(*draw(st.sampled_from(ref.HOLES)))
    position = goal
    moves = draw(st.integers(1, max_moves))
    for _ in range(moves):
        options = ref.parents(position)
        if not options:
            break
        position = draw(st.sampled_from(sorted(options)))
    return position, goal, bin(position).count("1") - 1


def test_solvable_problems_generator_makes_solvable_problems():
    # the property tests below rest on it: every drawn start reaches its goal
    found = []

    @given(solvable_problems())
    def collect(case):
        found.append(case)
        start, goal, moves = case
        assert moves >= 1 and ref.count_paths_memo(start, goal) >= 1

    collect()
    assert len(found) >= 10 and max(m for *_, m in found) >= 6


@given(solvable_problems())
def test_counts_of_solvable_problems_match_brute_force(case):
    start, goal, _ = case
    expected = ref.count_paths(start, goal)
    assert expected >= 1
    assert ps.count_solutions(start, goal).solutions == expected


@given(small_problems)
def test_counts_of_random_problems_match_brute_force(case):
    pegs, target = case
    start, goal = ps.position_of(pegs), ps.position_of([target])
    assert ps.count_solutions(start, goal).solutions == ref.count_paths(start, goal)


@given(solvable_problems())
def test_solve_finds_a_solution_of_every_solvable_problem(case):
    start, goal, moves = case
    sol = ps.solve(start, goal)
    assert sol is not None and len(sol.moves) == moves
    for before, after in zip(sol.positions, sol.positions[1:]):
        assert ref.is_jump(before, after)  # each step a jump by the rules
    assert sol.positions[0] == start and sol.positions[-1] == goal


def test_central_game_count_known_value_is_documented():
    assert KNOWN["pegsolitaire"]["central_solutions"] == 40_861_647_040_079_968
    assert "Bell" in KNOWN["pegsolitaire"]["source"]


@pytest.mark.slow
def test_central_game_count_is_the_published_value():
    prob = ps.problem("central")
    result = ps.count_solutions(prob.start, prob.goal)
    assert result.solutions == KNOWN["pegsolitaire"]["central_solutions"]
    assert result.layer_sizes[:5] == (1, 1, 2, 8, 39)  # orbits after 0..4 moves


@pytest.mark.slow
def test_central_game_first_move_carries_a_quarter_of_the_games():
    # The four first moves are images of one another under symmetries of the board
    # that fix the start and the goal (checked with the twin's own symmetries), so
    # each carries a quarter of the published count; one of them is counted here.
    prob = ps.problem("central")
    after = ref.children(prob.start)
    assert len(after) == 4
    fixing = ref.group_fixing(prob.start, prob.goal)
    assert len(fixing) == 8
    assert {ref.canonical(p, None, fixing) for p in after} == {min(after)}
    first = next(ps.first_moves_iter(prob.start, prob.goal))
    assert 4 * first.solutions == KNOWN["pegsolitaire"]["central_solutions"]


def test_first_moves_of_small_problems():
    for name in ("cross", "plus", "fireplace"):
        prob = ps.problem(name)
        moves = ps.first_moves(prob.start, prob.goal)
        assert sorted(m.position for m in moves) == sorted(ref.children(prob.start))
        for m in moves:
            assert m.solutions == ref.count_paths(m.position, prob.goal)
            assert m.wins == (m.solutions > 0)
        classes = ps.symmetry_classes(prob.start, prob.goal, [m.position for m in moves])
        fixing = ref.group_fixing(prob.start, prob.goal)
        for a, ca in zip(moves, classes):
            for b, cb in zip(moves, classes):
                same = ref.canonical(a.position, None, fixing) == \
                    ref.canonical(b.position, None, fixing)
                assert (ca == cb) == same
                if same:
                    assert a.solutions == b.solutions


def test_count_rejects_pegs_off_the_board():
    with pytest.raises(ValueError):
        ps.count_solutions(1 << 0, 1 << 24)  # a1 is a corner, not a hole


# ----------------------------------------------------------------- kernels vs twins
positions = st.sets(st.sampled_from(HOLES), max_size=12).map(ps.position_of)
groups = st.sets(st.integers(1, 7)).map(lambda s: np.array([0] + sorted(s), dtype=np.int64))


@pytest.mark.kernel
@given(positions, groups, st.integers(0, 7))
def test_symmetry_kernels_match_reference(pos, group, s):
    assert pegsearch.image(np.uint64(pos), SYM, s) == ref.image(pos, None, s)
    assert pegsearch.canonical(np.uint64(pos), SYM, group) == ref.canonical(pos, None, group)
    keys = np.array([pos], dtype=np.uint64)
    assert pegsearch.orbit_sizes(keys, SYM, group).tolist() == \
        ref.orbit_sizes(keys, None, group)
    assert pegsearch._mix(np.uint64(pos), 1023) == ref._mix(pos, 1023)


@pytest.mark.kernel
@given(st.one_of(solvable_problems(max_moves=7),
                 small_problems.map(lambda c: (ps.position_of(c[0]), ps.position_of([c[1]]),
                                               None))),
       st.sampled_from([2, 10]))
def test_solver_matches_reference(case, table_bits):
    # a 4-slot table of dead positions fills at once and makes its probes wrap around
    start, goal, _ = case
    group = ps._group(goal)
    dead = np.full(1 << table_bits, pegsearch.EMPTY_KEY, dtype=np.uint64)
    path = np.zeros(max(bin(start).count("1"), 1), np.int64)
    args = (ENGLISH.jump_from, ENGLISH.jump_over, ENGLISH.jump_to, SYM, group)
    length = pegsearch.solve_dfs(np.uint64(start), np.uint64(goal), *args, dead, path)
    assert length == ref.solve_dfs(start, goal, *args, None, None)
    position = start
    for m in path[:max(length, 0)]:
        after = position ^ int(ENGLISH.jump_from[m] | ENGLISH.jump_over[m] | ENGLISH.jump_to[m])
        assert ref.is_jump(position, after)
        position = after
    if length >= 0:
        assert position == goal


@pytest.mark.kernel
@pytest.mark.parametrize("name", ["cross", "fireplace", "plus"])
def test_solver_probes_wrap_around_the_dead_table(name):
    # Foreign keys (never a position: bit 60 set) fill the last 4 of 32 slots, so
    # every probe that meets them must wrap to slot 0; the solver stores at most 24
    # keys of its own, so an empty slot always remains.
    prob = ps.problem(name)
    dead = np.full(32, pegsearch.EMPTY_KEY, dtype=np.uint64)
    dead[28:] = np.arange(4, dtype=np.uint64) | np.uint64(1 << 60)
    path = np.zeros(bin(prob.start).count("1"), np.int64)
    args = (ENGLISH.jump_from, ENGLISH.jump_over, ENGLISH.jump_to, SYM, ps._group(prob.goal))
    length = pegsearch.solve_dfs(np.uint64(prob.start), np.uint64(prob.goal), *args, dead,
                                 path)
    assert length == ref.solve_dfs(prob.start, prob.goal, *args, None, None) > 0
    assert (dead[:28] != pegsearch.EMPTY_KEY).sum() > 0  # the solver did store keys
    position = prob.start
    for m in path[:length]:
        after = position ^ int(ENGLISH.jump_from[m] | ENGLISH.jump_over[m] | ENGLISH.jump_to[m])
        assert ref.is_jump(position, after)
        position = after
    assert position == prob.goal


def _layer(draw_positions, group):
    return np.array(sorted({ref.canonical(p, None, group) for p in draw_positions}),
                    dtype=np.uint64)


@pytest.mark.kernel
@given(st.lists(solvable_problems(max_moves=6), min_size=1, max_size=4), groups)
def test_layer_kernels_match_reference(cases, group):
    keys = _layer([start for start, _, _ in cases], group)
    counts = np.arange(1, len(keys) + 1, dtype=np.int64)
    args = (keys, counts, ENGLISH.jump_from, ENGLISH.jump_over, ENGLISH.jump_to, SYM, group)
    size = 1 << 9
    tk1, tc1 = np.full(size, pegsearch.EMPTY_KEY, np.uint64), np.zeros(size, np.int64)
    tk2, tc2 = tk1.copy(), tc1.copy()
    used = pegsearch.expand_layer(*args, tk1, tc1)
    assert used == ref.expand_layer(*args, tk2, tc2)
    if used >= 0:
        full1, full2 = tk1 != pegsearch.EMPTY_KEY, tk2 != pegsearch.EMPTY_KEY
        assert dict(zip(tk1[full1].tolist(), tc1[full1].tolist())) == \
            dict(zip(tk2[full2].tolist(), tc2[full2].tolist()))


@pytest.mark.kernel
@given(st.lists(solvable_problems(max_moves=6), min_size=1, max_size=4), groups, groups,
       st.data())
def test_meet_sum_matches_reference(cases, group, other_group, data):
    board = np.uint64(ENGLISH.holes)
    keys = _layer([start for start, _, _ in cases], group)
    counts = np.array(data.draw(st.lists(st.integers(1, 10 ** 6), min_size=len(keys),
                                         max_size=len(keys))), dtype=np.int64)
    # the other side holds the complements of half the forward keys (and some others)
    partners = [int(board) ^ int(k) for k in keys[::2]] + [start ^ int(board) for start, *_
                                                         in cases[1:]]
    other_keys = _layer(partners, other_group)
    other_orbit = np.array(ref.orbit_sizes(other_keys, None, other_group), np.int64)
    other_counts = other_orbit * np.array(data.draw(st.lists(
        st.integers(1, 10 ** 6), min_size=len(other_keys), max_size=len(other_keys))),
        dtype=np.int64)
    total, estimate = pegsearch.meet_sum(keys, counts, other_keys, other_counts, other_orbit,
                                         board, SYM, other_group)
    expected, _ = ref.meet_sum(keys, counts, other_keys, other_counts, other_orbit, board,
                               None, other_group)
    assert total == expected and estimate == pytest.approx(expected)
    assert expected > 0


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


@pytest.mark.parametrize("name", ["cross", "fireplace", "plus"])
def test_cli_first_moves_match_the_twin(name, capsys):
    assert main(["pegsolitaire", name, "--first-moves", "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    prob = ps.problem(name)
    assert out["complete"] is True
    assert sorted(r["solutions"] for r in out["first_moves"]) == sorted(
        ref.count_paths(child, prob.goal) for child in ref.children(prob.start))
    assert out["solutions"] == ref.count_paths(prob.start, prob.goal)
    for row in out["first_moves"]:
        assert row["wins"] == (row["solutions"] > 0)
    assert main(["pegsolitaire", name, "--first-moves", "--quiet"]) == 0
    text = capsys.readouterr().out.splitlines()
    assert len(text) == 2 + len(out["first_moves"])


def test_cli_first_moves_interrupted_prints_the_moves_counted(monkeypatch, capsys):
    def interrupted(start, goal, board_name, progress=None):
        yield ps.FirstMove("d3-d1", 123, 7)
        raise KeyboardInterrupt

    monkeypatch.setattr(ps, "first_moves_iter", interrupted)
    assert main(["pegsolitaire", "plus", "--first-moves", "--json", "--quiet"]) == 130
    out = json.loads(capsys.readouterr().out)
    assert out["complete"] is False and out["solutions"] is None
    assert out["first_moves"] == [{"move": "d3-d1", "wins": True, "solutions": 7, "class": 1}]
