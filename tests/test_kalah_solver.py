"""Endgame database and solver against plain negamax; known values of small boards."""
import csv
import json
import math
import os
import signal
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, strategies as st

from jitgames.kalah import endgame, rules, solver
from jitgames.kalah.__main__ import main
from tests.reference.kalah_strategies import positions
from tests.reference import kalah as ref

KNOWN = list(csv.DictReader(open(Path(__file__).parent / "data" / "kalah_solved.csv")))


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path, monkeypatch):
    """The CLI keeps endgame databases in the user's data directory: use a tmp one."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def _solver(m, stones, variant="empty-capture", endgame_stones=0):
    return solver.Solver(m, stones, variant, endgame_stones=endgame_stones, table_bits=12)


@pytest.mark.kernel
@given(positions(max_pits=3, max_stones=2), st.sampled_from([0, 1]))
def test_position_index_key_and_endgame_value_match_reference(position, variant):
    board, player = position
    m = len(board) // 2 - 1
    total = int(board[:m].sum()) + int(board[m + 1:2 * m + 1].sum())
    binom = endgame.binomials(total + 2 * m + 1, 2 * m + 1)
    assert endgame.position_index(board, player, binom) == ref.position_index(board, player, binom)
    zobrist = solver._zobrist_table(2 * m, total)
    assert solver.position_key(board, player, zobrist) == ref.position_key(board, player, zobrist)
    db = np.full(endgame.table_size(m, total), endgame.UNKNOWN, dtype=np.int8)
    scratch = np.zeros((total * total * m + total + 4, m), dtype=np.int64)
    value = endgame.endgame_value(board, np.int64(player), variant, db, binom, scratch,
                                  np.int64(0))
    assert value == ref.endgame_value(board, player, variant, db, binom, scratch, 0)


@pytest.mark.kernel
@given(positions(max_pits=6, max_stones=5), st.integers(0, 1))
def test_set_position_inverts_position_index(position, player):
    board, _ = position
    m = len(board) // 2 - 1
    total = int(board[:m].sum()) + int(board[m + 1:2 * m + 1].sum())
    binom = endgame.binomials(total + 2 * m + 1, 2 * m + 1)
    rank = endgame.position_index(board, player % 2, binom) - binom[total + 2 * m - 1, 2 * m]
    ours = np.zeros_like(board)
    endgame.set_position(ours, player % 2, total, rank, binom)
    pits = [i for i in range(2 * m + 1) if i != m]
    assert ours[pits].tolist() == board[pits].tolist()
    if m <= 2 and total <= 8:   # the reference enumerates all (total + 1) ** (2m) tuples
        theirs = np.zeros_like(board)
        ref.set_position(theirs, player % 2, total, rank, binom)
        assert theirs.tolist() == ours.tolist()


@pytest.mark.kernel
@pytest.mark.parametrize("m, stones", [(1, 5), (2, 4), (3, 3)])
def test_build_endgame_is_a_perfect_index_of_exact_values(m, stones):
    binom = endgame.binomials(stones + 2 * m + 1, 2 * m + 1)
    size = endgame.table_size(m, stones)
    db = np.empty(size, dtype=np.int8)
    assert endgame.build_endgame(m, stones, 0, db, binom) == size
    assert (db != endgame.UNKNOWN).all()
    rng = np.random.default_rng(5)
    for _ in range(15):
        board = np.zeros(2 * m + 2, dtype=np.int8)
        for _ in range(int(rng.integers(0, stones + 1))):
            board[[i for i in range(2 * m + 1) if i != m][rng.integers(0, 2 * m)]] += 1
        index = endgame.position_index(board, 0, binom)
        assert 0 <= index < size
        assert db[index] == ref.pits_value(board, 0, 0)


@pytest.mark.kernel
@given(positions(min_pits=2, max_pits=3, max_stones=2), st.integers(-8, 8), st.integers(1, 8),
       st.integers(0, 4), st.sampled_from([1, 3, 1 << 30]))
def test_solve_window_is_fail_soft_alphabeta(position, alpha, width, endgame_stones, budget):
    board, player = position
    m = len(board) // 2 - 1
    s = _solver(m, 2, endgame_stones=min(endgame_stones, 4 * m))
    s.node_budget = budget      # 1 and 3: suspended and resumed after (almost) every node
    exact = ref.pits_value(board, player, 0)
    assert s.value(board, player) == exact
    beta = alpha + width
    before = board.copy()
    state = np.zeros(3, dtype=np.int64)
    calls = 0
    while not solver.solve_window(board, player, alpha, beta, 0, s.lookup, s.scratch,
                                  s.stats, state, s.stats[0] + budget):
        calls += 1
        assert state[0] == solver.SUSPENDED
    assert state[0] == solver.FINISHED and (board == before).all()
    assert calls <= s.stats[0]
    got = state[2]
    if got <= alpha:
        assert exact <= got
    elif got >= beta:
        assert exact >= got
    else:
        assert got == exact


def _replay(m, n, variant, line):
    board, player = rules.new_board(m, n), rules.SOUTH
    moves = np.zeros(m, dtype=np.int64)
    for pit in line:
        count = rules.legal_moves(board, player, moves)
        assert pit in moves[:count]
        player, _ = rules.apply_move(board, player, pit, rules.VARIANTS[variant])
    assert rules.is_over(board)
    return int(rules.final_margin(board))


@pytest.mark.parametrize("row", [r for r in KNOWN if r["checked_by"] == "tests/test_kalah_solver.py"],
                         ids=lambda r: f"{r['pits']}x{r['stones']}-{r['variant']}")
def test_known_values_of_small_boards(row):
    m, n, variant = int(row["pits"]), int(row["stones"]), row["variant"]
    assert row["source"].startswith("Irving, Donkers, Uiterwijk")
    result = solver.solve(m, n, variant, endgame_stones=min(12, 2 * m * n), table_bits=18)
    assert result.value == int(row["value"])
    assert _replay(m, n, variant, result.line) == result.value


def test_solution_does_not_depend_on_database_or_table_size():
    values = {solver.solve(3, 3, endgame_stones=s, table_bits=b).value
              for s, b in [(0, 4), (6, 10), (18, 16)]}
    assert values == {2}


def test_solve_cli_json_contract(capsys):
    assert main(["solve", "4", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["value"] == 6 and isinstance(out["seconds"], float)
    assert _replay(4, 2, "empty-capture", out["line"]) == 6
    assert main(["solve", "4", "3", "--variant", "standard", "--json",
                 "--endgame-stones", "10"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["value"] == 6 and _replay(4, 3, "standard", out["line"]) == 6
    assert main(["solve", "3", "1"]) == 0
    assert "value +0" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["solve", "7", "3"], ["solve", "4"], ["solve", "4", "x"],
                                  ["solve", "4", "3", "--variant", "odd"],
                                  ["solve", "2", "2", "--endgame-stones", "9"]])
def test_solve_cli_bad_input(argv, capsys):
    try:
        status = main(argv)
    except SystemExit as exc:
        status = exc.code
    assert status == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error" in err


def test_solve_unusable_endgame_dir_is_one_line_error(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    for directory in (blocker, blocker / "kalah"):  # a traceback from mkdir before
        assert main(["solve", "2", "2", "--endgame-dir", str(directory)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"cannot use directory {blocker}" in err
        assert "Traceback" not in err


def test_endgame_build_does_not_depend_on_thread_count():
    import numba

    from jitgames._jit import threads

    binom = endgame.binomials(8 + 6 + 1, 7)
    tables = []
    for n in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)}):
        db = np.empty(endgame.table_size(3, 8), dtype=np.int8)
        with threads(n):
            endgame.build_endgame(3, 8, 0, db, binom)
        tables.append(db)
    assert all((t == tables[0]).all() for t in tables)


def test_ctrl_c_during_solve_reports_bounds(monkeypatch, capsys):
    calls = []
    real = solver.solve_window

    def interrupt_on_third_pass(*args):
        if args[-2][0] == solver.NEW:
            calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(solver, "solve_window", interrupt_on_third_pass)
    assert main(["solve", "4", "3", "--json", "--endgame-stones", "4"]) == 130
    out = json.loads(capsys.readouterr().out)
    assert out["complete"] is False and out["lower"] <= 8 <= out["upper"]
    assert out["upper"] - out["lower"] < 48


def test_kernel_hands_back_control_within_a_pass(monkeypatch, capsys):
    """With a node budget of 40, Ctrl-C arriving during the first null-window pass
    stops the solve after that slice: no pass finished, the trivial bounds remain."""
    monkeypatch.setattr(solver, "NODE_BUDGET", 40)
    slices = []
    real = solver.solve_window

    def interrupt_after_five_slices(*args):
        if len(slices) == 5:
            raise KeyboardInterrupt
        slices.append(args[-2][0])
        return real(*args)

    monkeypatch.setattr(solver, "solve_window", interrupt_after_five_slices)
    assert main(["solve", "5", "4", "--json", "--endgame-stones", "6",
                 "--no-endgame-files"]) == 130
    out = json.loads(capsys.readouterr().out)
    assert slices[0] == solver.NEW and set(slices[1:]) == {solver.SUSPENDED}
    assert out["complete"] is False and (out["lower"], out["upper"]) == (-40, 40)
    assert 5 * 40 <= out["nodes"] <= 5 * 41


def test_sigint_stops_a_long_solve_promptly(capsys):
    main(["solve", "3", "2", "--json", "--no-endgame-files"])      # compile first
    capsys.readouterr()
    timer = threading.Timer(1.5, os.kill, (os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        status = main(["solve", "6", "6", "--json", "--endgame-stones", "10",
                       "--table-bits", "18", "--no-endgame-files"])
    finally:
        timer.cancel()
    elapsed = time.monotonic() - start
    assert status == 130
    out = json.loads(capsys.readouterr().out)
    published = next(int(r["value"]) for r in KNOWN if (r["pits"], r["stones"]) == ("6", "6"))
    assert out["complete"] is False and -72 <= out["lower"] <= published <= out["upper"] <= 72
    assert elapsed < 30        # Kalah(6,6) itself takes hours


def test_binomials_for_big_boards_do_not_overflow():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        binom = endgame.binomials(6 * 10 + 13, 13)
        solver.Solver(6, 5, endgame_stones=2, table_bits=10)
    assert binom.shape == (74, 14)
    assert all(binom[n, k] == math.comb(n, k) for n in range(74) for k in range(14))


@pytest.mark.kernel
def test_endgame_files_are_the_in_memory_tables(tmp_path):
    m, variant = 3, 0
    binom = endgame.binomials(9 + 2 * m + 1, 2 * m + 1)
    memory = {}
    for stones in (5, 8, 9):
        memory[stones] = np.empty(endgame.table_size(m, stones), dtype=np.int8)
        endgame.build_endgame(m, stones, variant, memory[stones], binom)
    db, how = endgame.endgame_database(m, 5, variant, binom, tmp_path)
    assert how == "built" and (db == memory[5]).all()
    db, how = endgame.endgame_database(m, 8, variant, binom, tmp_path)
    assert how == "extended" and (db == memory[8]).all()
    assert [p.name for p in tmp_path.iterdir()] == [
        endgame.database_file(tmp_path, m, variant, 8).name]      # the 5-stone file went
    db, how = endgame.endgame_database(m, 6, variant, binom, tmp_path)
    assert how == "loaded" and (db == memory[8][:db.size]).all()
    assert db.size == endgame.table_size(m, 6)
    other, how = endgame.endgame_database(m, 6, 1, binom, tmp_path)    # other variant
    assert how == "built"
    # a damaged file is ignored and replaced
    path = endgame.database_file(tmp_path, m, variant, 8)
    path.write_bytes(path.read_bytes()[:-10])
    db, how = endgame.endgame_database(m, 9, variant, binom, tmp_path)
    assert how == "built" and (db == memory[9]).all()
    db, how = endgame.endgame_database(m, 9, variant, binom, tmp_path)
    assert how == "loaded" and (db == memory[9]).all()


def test_interrupted_build_keeps_finished_levels(tmp_path, monkeypatch):
    m, variant = 2, 0
    binom = endgame.binomials(10 + 2 * m + 1, 2 * m + 1)
    real = endgame.build_positions

    def interrupt_at_level_7(m_, level, *args):
        if level == 7:
            raise KeyboardInterrupt
        return real(m_, level, *args)

    monkeypatch.setattr(endgame, "build_positions", interrupt_at_level_7)
    with pytest.raises(KeyboardInterrupt):
        endgame.endgame_database(m, 10, variant, binom, tmp_path)
    assert endgame.database_file(tmp_path, m, variant, 6).exists()
    monkeypatch.setattr(endgame, "build_positions", real)
    db, how = endgame.endgame_database(m, 10, variant, binom, tmp_path)
    fresh = np.empty(endgame.table_size(m, 10), dtype=np.int8)
    endgame.build_endgame(m, 10, variant, fresh, binom)
    assert how == "extended" and (db == fresh).all()


def test_cli_keeps_the_database_in_the_data_dir(tmp_path, capsys):
    assert main(["solve", "3", "3", "--json", "--endgame-stones", "8"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["endgame_source"] == "built"
    assert (tmp_path / "data" / "jitgames" / "kalah").is_dir()
    assert main(["solve", "3", "3", "--json", "--endgame-stones", "8"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["endgame_source"] == "loaded" and again["value"] == first["value"] == 2
    assert main(["solve", "3", "3", "--json", "--endgame-stones", "6",
                 "--endgame-dir", str(tmp_path / "elsewhere")]) == 0
    assert json.loads(capsys.readouterr().out)["endgame_source"] == "built"
    assert len(list((tmp_path / "elsewhere").iterdir())) == 1


def test_default_database_is_large_only_for_big_boards():
    assert solver.default_endgame_stones(6, 36) == 12       # Kalah(6,3): 2.7M entries
    assert solver.default_endgame_stones(4, 48) == 19       # Kalah(4,6): 29 stones beyond
    assert solver.default_endgame_stones(6, 48) == 20       # Kalah(6,4): 225.8M entries
    assert solver.default_endgame_stones(5, 50) == 25       # Kalah(5,5): 183.6M entries
    assert solver.default_endgame_stones(2, 4) == 4         # never more than the stones
    assert endgame.table_size(6, 20) <= solver.LARGE_DATABASE < endgame.table_size(6, 21)
