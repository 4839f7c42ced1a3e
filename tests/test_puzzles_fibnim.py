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


@pytest.fixture(scope="module")
def brute_g():
    """g(p) for p <= 120 from the twin's SG values (the definition, memoised)."""
    top = 120
    sg, start = np.zeros((top + 1, top + 1), np.int32), np.zeros(top + 1, np.int32)
    ref.grundy_kernel(top, sg, start)
    return {p: max([q for q in range(1, top + 1) if sg[p, q] == 0], default=0)
            for p in range(1, top + 1)}


def test_gap_rule_against_brute_force(brute_g):
    # "after a heap with a lost (p, q), the next such heap is 2 further when g = 1
    # and 3 further when g > 1", checked on values computed from the definition
    zeros = [p for p, g in sorted(brute_g.items()) if g >= 1]
    assert zeros[:6] == [3, 5, 8, 11, 13, 16]
    for p, following in zip(zeros, zeros[1:]):
        assert following - p == (2 if brute_g[p] == 1 else 3), p
    table = fibnim.table(120)
    assert fibnim.zero_heaps(table) == zeros
    assert fibnim.gap_rule_failures(table) == []


def test_gap_rule_holds_far_out():
    table = fibnim.table(fibnim.MAX_HEAP)
    assert fibnim.gap_rule_failures(table) == []
    # g(p) = (z - 1) // 2 with z the smallest Zeckendorf term: the rule's proof
    for p in range(1, fibnim.MAX_HEAP + 1):
        assert table.g(p) == (fibnim.zeckendorf(p)[-1] - 1) // 2


def test_gap_rule_checker_reports_a_break():
    table = fibnim.table(60)
    broken = fibnim.FibNimTable(60, table.sg.copy(), table.start)
    broken.sg[31, 1] = 0  # pretend (31, 1) is lost: 29 -> 31 is a gap of 2 after g = 3
    assert fibnim.gap_rule_failures(broken) == [29, 31]


def test_worked_example_of_the_text(brute_g):
    # The text gives g = 3 for p = 28; from the definition g(28) = 0 and g(29) = 3:
    # 28 = 21 + 5 + 2 ends in 2 (every (28, q) is won by taking 2), 29 = 21 + 8.
    assert (brute_g[28], brute_g[29]) == (0, 3)
    table = fibnim.table(40)
    assert (table.g(28), table.g(29)) == (0, 3)
    assert fibnim.zeckendorf(28) == [21, 5, 2] and fibnim.zeckendorf(29) == [21, 8]


def _pixel(image, fig, ax, x, y):
    """RGB of the saved image at data point (x, y) of ``ax``."""
    px, py = ax.transData.transform((x, y))
    height = image.shape[0]
    return tuple(image[int(height - py), int(px), :3])


def test_plot_has_black_cells_exactly_at_lost_positions(tmp_path, brute_g, capsys):
    from matplotlib.image import imread

    from jitgames.puzzles import pictures

    path = tmp_path / "lost.png"
    assert main(["fibnim", "40", "--plot", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["plot"] == str(path)
    image = imread(path)
    fig, ax = pictures.fibnim_losing(fibnim.table(40))  # the same layout, for the axes
    black = white = 0
    for p in range(1, 41):
        for q in range(1, 21):
            rgb = _pixel(image, fig, ax, p, q)
            if q <= brute_g[p]:
                assert rgb == (0, 0, 0), (p, q)
                black += 1
            else:
                assert rgb == (1, 1, 1), (p, q)
                white += 1
    assert black == sum(min(g, 20) for p, g in brute_g.items() if p <= 40) > 30


def test_cli_rule(capsys):
    assert main(["fibnim", "200", "--rule", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["gap_rule"]["failures"] == []
    assert out["gap_rule"]["zero_heaps"] == len(fibnim.zero_heaps(fibnim.table(200)))


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


def test_cli_plot_to_an_unwritable_place_is_one_line(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert main(["fibnim", "30", "--plot", str(blocker / "lost.png")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot write" in err
    assert main(["fibnim", "30", "--plot", str(tmp_path / "lost.nosuchformat")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
