"""The puzzles' pictures read back pixel by pixel and compared with what they draw."""
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from matplotlib.colors import to_rgb
from matplotlib.image import imread

from jitgames.puzzles import pictures
from tests.reference import puzzles_queens as ref_queens

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("plots_puzzles", ROOT / "plots" / "puzzles.py")
plots = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(plots)


def _saved(fig_ax, tmp_path, name):
    """Save the figure, read its PNG back; returns (RGB image, axes)."""
    fig, ax = fig_ax
    path = tmp_path / name
    pictures.save(fig, path)
    return imread(path)[..., :3], ax


def _pixel(image, ax, x, y):
    px, py = ax.transData.transform((x, y))
    return tuple(float(v) for v in image[int(image.shape[0] - py), int(px)])


def test_queens_board_has_queens_exactly_where_the_solution_says(tmp_path):
    image, ax = _saved(plots.queens_board_figure(), tmp_path, "board.png")
    solution = min(min(ref_queens.images(s)) for s in ref_queens.all_solutions(8))
    for r in range(8):
        for c in range(8):
            is_black = _pixel(image, ax, c, r) == (0.0, 0.0, 0.0)
            assert is_black == (solution[r] == c), (r, c)


@pytest.mark.parametrize("solution", [(1, 3, 0, 2), (0, 4, 7, 5, 2, 6, 1, 3),
                                      (2, 4, 1, 7, 0, 6, 3, 5)])
def test_any_board_picture_matches_its_solution(solution, tmp_path):
    image, ax = _saved(pictures.queens_board(solution), tmp_path, "b.png")
    n = len(solution)
    queens_seen = [(r, c) for r in range(n) for c in range(n)
                   if _pixel(image, ax, c, r) == (0.0, 0.0, 0.0)]
    assert queens_seen == list(enumerate(solution))


def test_fibnim_figure_is_black_exactly_on_lost_positions(tmp_path):
    image, ax = _saved(plots.fibnim_figure(60), tmp_path, "fib.png")
    for p in range(1, 61):
        # lost (p, q) from the Zeckendorf rule: the smallest term z > 2q
        terms, rest = [], p
        fib = [1, 2]
        while fib[-1] <= p:
            fib.append(fib[-1] + fib[-2])
        for f in reversed(fib):
            if f <= rest:
                terms.append(f)
                rest -= f
        for q in range(1, 31):
            lost = terms[-1] > 2 * q
            assert (_pixel(image, ax, p, q) == (0.0, 0.0, 0.0)) == lost, (p, q)


def test_layer_bars_reach_the_layer_sizes(tmp_path):
    sizes = [1, 1, 2, 8, 39, 171, 719, 2757, 9751, 31312, 89927]
    image, ax = _saved(plots.layers_figure(sizes), tmp_path, "layers.png")
    bar = np.array(to_rgb("tab:blue"))
    for i, size in enumerate(sizes):
        inside = np.array(_pixel(image, ax, i, size * 0.8))
        above = np.array(_pixel(image, ax, i, size * 1.3))
        assert np.abs(inside - bar).max() < 0.02, i
        assert np.abs(above - 1.0).max() < 0.02, i


def test_timing_markers_sit_at_the_measured_times(tmp_path):
    data = json.loads((ROOT / "bench" / "results" / "puzzles.json").read_text())
    rows = data["queens"]
    image, ax = _saved(plots.queens_times_figure(rows), tmp_path, "times.png")
    colours = [np.array(to_rgb(line.get_color())) for line in ax.get_lines()]
    points = [(series, row["n"], row[key]) for series, (key, _, _) in
              enumerate(plots.TIMING_SERIES) for row in rows if row.get(key)]
    where = {pt: ax.transData.transform(pt[1:]) for pt in points}
    checked = 0
    for pt in points:
        # a marker half covered by another series' marker is not read
        if any(other[0] != pt[0] and np.hypot(*(where[other] - where[pt])) < 12
               for other in points):
            continue
        rgb = np.array(_pixel(image, ax, pt[1], pt[2]))
        assert np.abs(rgb - colours[pt[0]]).max() < 0.05, pt
        checked += 1
    assert checked >= 6
