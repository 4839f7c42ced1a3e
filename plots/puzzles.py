"""Figures of the puzzles: benchmark times and layers, a queens board, Fibonacci nim.

Run ``python plots/puzzles.py`` (after ``python bench/puzzles.py`` for the first two);
writes ``plots/puzzles_queens.png`` (counting times), ``plots/puzzles_pegsolitaire.png``
(when the central count was run), ``plots/puzzles_queens_board.png`` (the first
fundamental solution of 8 queens) and ``plots/puzzles_fibnim.png`` (the lost
positions of Fibonacci nim up to p = 100). Each ``*_figure`` function draws from the
data it is given and returns ``(figure, axes)``: the tests read the saved pictures
back pixel by pixel through ``axes.transData``.
"""
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from jitgames.puzzles import fibnim, pictures, queens  # noqa: E402

TIMING_SERIES = (("plain_seconds", "plain recursive bitmask, 1 thread", "s"),
                 ("mirror_seconds", "mirror symmetry, 2 threads", "^"),
                 ("class_seconds", "symmetry classes, 2 threads", "o"))
"""Keys of the queens rows of bench/results/puzzles.json drawn, with label and marker."""


def queens_times_figure(rows):
    """Median wall seconds of the three queens counts against n (log scale)."""
    fig, ax = plt.subplots(figsize=(6, 4))
    for key, label, marker in TIMING_SERIES:
        pts = [(r["n"], r[key]) for r in rows if r.get(key)]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=marker, label=label)
    ax.set_yscale("log")
    ax.set_xticks(sorted({r["n"] for r in rows}))
    ax.set_xlabel("board size n")
    ax.set_ylabel("wall seconds (median)")
    ax.set_title("Counting n-queens solutions")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    return fig, ax


def layers_figure(sizes):
    """Bars of the central game's breadth-first layer sizes (log scale)."""
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.bar(range(len(sizes)), sizes, color="tab:blue")
    ax.set_yscale("log")
    ax.set_xlabel("moves made from the start")
    ax.set_ylabel("positions up to symmetry")
    ax.set_title("Central game: breadth-first layers (meet in the middle)")
    fig.tight_layout()
    return fig, ax


def queens_board_figure():
    """The first fundamental solution of 8 queens (canonical form, smallest first)."""
    return pictures.queens_board(queens.unique_solutions(queens.solutions(8))[0])


def fibnim_figure(p_max=100):
    """Lost positions of Fibonacci nim for p <= p_max."""
    return pictures.fibnim_losing(fibnim.table(p_max))


def main() -> int:
    out = ROOT / "plots"
    pictures.save(queens_board_figure()[0], out / "puzzles_queens_board.png")
    pictures.save(fibnim_figure()[0], out / "puzzles_fibnim.png")
    results = ROOT / "bench" / "results" / "puzzles.json"
    if not results.exists():
        print(f"no {results.relative_to(ROOT)}: run bench/puzzles.py for the other figures")
        return 0
    data = json.loads(results.read_text())
    pictures.save(queens_times_figure(data["queens"])[0], out / "puzzles_queens.png")
    central = data.get("pegsolitaire_central")
    if central:
        pictures.save(layers_figure(central["layer_sizes"])[0],
                      out / "puzzles_pegsolitaire.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
