"""Towers of Hanoi: three pegs four ways, and Frame-Stewart for more pegs."""
import csv
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jitgames.puzzles import hanoi
from jitgames.puzzles.__main__ import main

KNOWN = list(csv.DictReader(open(Path(__file__).parent / "data" / "puzzles_hanoi.csv")))


@pytest.mark.parametrize("n", range(0, 11))
def test_three_pegs_recursive_iterative_and_direct_rule_agree(n):
    moves = hanoi.moves_recursive(n)
    assert len(moves) == 2 ** n - 1
    assert hanoi.moves_iterative(n) == moves
    if n:
        assert [hanoi.move_number(n, k) for k in range(1, 2 ** n)] == moves
    states = hanoi.replay(n, moves)
    assert states[-1] == [[], [], list(range(n, 0, -1))]
    assert hanoi.same_parity_never_touch(states)


def test_disk_one_moves_every_other_move_in_one_direction():
    for n in (5, 6):
        moves = hanoi.moves_iterative(n)
        ones = moves[::2]
        assert all(d == 1 for d, _, _ in ones) and all(d != 1 for d, _, _ in moves[1::2])
        steps = {(b - a) % 3 for _, a, b in ones}
        assert len(steps) == 1


@given(st.integers(1, 60), st.data())
def test_direct_rule_for_large_n(n, data):
    k = data.draw(st.integers(1, 2 ** n - 1))
    disk, a, b = hanoi.move_number(n, k)
    assert disk == (k & -k).bit_length() and a != b and {a, b} <= {0, 1, 2}


@pytest.mark.parametrize("n", range(1, 11))
def test_move_by_descent_is_the_recursive_move(n):
    moves = hanoi.moves_recursive(n)
    assert [hanoi.move_at(n, k) for k in range(1, 2 ** n)] == moves


@pytest.mark.parametrize("pegs", [4, 5, 6])
def test_move_by_descent_follows_the_multipeg_mover(pegs):
    for n in range(1, 10):
        moves = hanoi.moves_multipeg(n, pegs)
        assert [hanoi.move_at(n, k, pegs) for k in range(1, len(moves) + 1)] == moves


@given(st.integers(1, 3000), st.data())
def test_bit_rule_and_descent_agree_for_large_n(n, data):
    # two computations of move k from k alone: the binary rule and the recursion
    k = data.draw(st.integers(1, 2 ** n - 1))
    assert hanoi.move_number(n, k) == hanoi.move_at(n, k)


def test_parity_check_detects_a_violation():
    assert not hanoi.same_parity_never_touch([[[3, 1], [], []]])


def test_replay_rejects_illegal_moves():
    with pytest.raises(ValueError):
        hanoi.replay(2, [(2, 0, 1)])
    with pytest.raises(ValueError):
        hanoi.replay(2, [(1, 0, 1), (2, 0, 1)])


def test_draw():
    picture = hanoi.draw([[2, 1], [], []])
    assert picture.splitlines() == [" ===    |     |", "=====   |     |",
                                    "----- ----- -----"]


@pytest.mark.parametrize("row", KNOWN, ids=lambda r: f"{r['pegs']}-{r['n']}")
def test_frame_stewart_known_values(row):
    assert row["source"].startswith("OEIS")
    assert hanoi.frame_stewart(int(row["n"]), int(row["pegs"])) == int(row["moves"])


def test_frame_stewart_table_lists_every_optimal_split():
    table = {n: (f, p) for n, f, p in hanoi.frame_stewart_table(10, 4)}
    assert table[4] == (9, [1, 2]) and table[6] == (17, [3]) and table[10] == (49, [6])
    for n, (f, splits) in table.items():
        if n >= 2:
            values = [2 * hanoi.frame_stewart(p, 4) + hanoi.frame_stewart(n - p, 3)
                      for p in range(1, n)]
            assert min(values) == f
            assert splits == [p for p in range(1, n) if values[p - 1] == f]


@pytest.mark.parametrize("pegs,n_max", [(3, 6), (4, 6), (5, 5)])
def test_breadth_first_search_confirms_optimality(pegs, n_max):
    for n in range(n_max + 1):
        assert hanoi.bfs_distance(n, pegs) == hanoi.frame_stewart(n, pegs)


@pytest.mark.parametrize("pegs", [3, 4, 5, 6])
def test_multipeg_mover_is_legal_and_optimal(pegs):
    for n in range(0, 12):
        moves = hanoi.moves_multipeg(n, pegs)
        assert len(moves) == hanoi.frame_stewart(n, pegs)
        final = hanoi.replay(n, moves, pegs)[-1]
        assert final[-1] == list(range(n, 0, -1))


def test_bad_input():
    with pytest.raises(ValueError):
        hanoi.frame_stewart(3, 2)
    with pytest.raises(ValueError):
        hanoi.move_number(3, 8)
    with pytest.raises(ValueError):
        hanoi.bfs_distance(12, 4)
    with pytest.raises(ValueError):
        hanoi.frame_stewart(hanoi.MAX_MULTIPEG_N + 1, 4)


def test_cli_json_contract(capsys):
    assert main(["hanoi", "10", "--pegs", "4", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["moves"] == 49
    assert main(["hanoi", "5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["moves"] == 31


def test_cli_table_bfs_and_show(capsys):
    assert main(["hanoi", "5", "--pegs", "4", "--table", "--bfs", "--show"]) == 0
    out = capsys.readouterr().out
    assert "breadth-first search: 13 moves" in out and "move 13:" in out
    assert "   4          9  1,2" in out


@pytest.mark.parametrize("method", ["recursive", "iterative"])
def test_cli_move_k_matches_the_listed_moves(method, capsys):
    moves = hanoi.moves_recursive(6)  # the list made by the recursive definition
    for k in (1, 2, 17, 32, 63):
        assert main(["hanoi", "6", "--move", str(k), "--json", "--method", method]) == 0
        out = json.loads(capsys.readouterr().out)
        assert (out["disk"], out["from"], out["to"]) == moves[k - 1]
        assert out["move"] == k and out["complete"] is True
    assert main(["hanoi", "6", "--move", "32"]) == 0
    assert capsys.readouterr().out == "move 32 of 63: disk 6 from peg 0 to peg 2\n"


def test_cli_move_k_for_64_disks_and_more_pegs(capsys):
    # the middle move of n disks is disk n from the first peg to the last; the last
    # move is disk 1 arriving on the last peg
    for n in (64, 1000):
        assert main(["hanoi", str(n), "--move", str(2 ** (n - 1)), "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert (out["disk"], out["from"], out["to"]) == (n, 0, 2)
        assert main(["hanoi", str(n), "--move", str(2 ** n - 1), "--json",
                     "--method", "recursive"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert (out["disk"], out["to"]) == (1, 2)
    moves = hanoi.moves_multipeg(8, 4)
    assert main(["hanoi", "8", "--pegs", "4", "--move", "20", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["disk"], out["from"], out["to"], out["method"]) == moves[19] + ("recursive",)


def test_cli_move_k_written_as_a_power(capsys):
    # the shared integer parser: K = 2^64-1 is the last move, disk 1 onto peg 2
    assert main(["hanoi", "64", "--move", "2^64-1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["move"], out["disk"], out["to"]) == (2 ** 64 - 1, 1, 2)
    assert main(["hanoi", "64", "--move", "2^64"]) == 2
    assert "at most 18446744073709551615" in capsys.readouterr().err


def test_cli_show_by_either_method(capsys):
    for method in ("recursive", "iterative"):
        assert main(["hanoi", "3", "--show", "--method", method]) == 0
        out = capsys.readouterr().out
        listed = [line for line in out.splitlines() if line.startswith("move ")]
        assert listed == [f"move {i}: disk {d} from peg {a} to peg {b}"
                          for i, (d, a, b) in enumerate(hanoi.moves_recursive(3), 1)]


def test_cli_bad_input(capsys):
    assert main(["hanoi", "500", "--pegs", "4"]) == 2
    assert main(["hanoi", "20", "--pegs", "4", "--bfs"]) == 2
    assert main(["hanoi", "3", "--move", "8"]) == 2
    assert main(["hanoi", "0", "--move", "1"]) == 2
    assert main(["hanoi", "5", "--pegs", "4", "--move", "3", "--method", "iterative"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 5 and "no iterative rule is known" in err
