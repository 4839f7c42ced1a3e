"""Figures from bench/results/puzzles.json: n-queens times, peg-solitaire layers.

Run ``python plots/puzzles.py`` after ``python bench/puzzles.py``; writes
``plots/puzzles_queens.png`` and (when the central count was run)
``plots/puzzles_pegsolitaire.png``.
"""
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    data = json.loads((ROOT / "bench" / "results" / "puzzles.json").read_text())
    rows = data["queens"]
    fig, ax = plt.subplots(figsize=(6, 4))
    for key, label, marker in (("plain_seconds", "plain recursive bitmask, 1 thread", "s"),
                               ("mirror_seconds", "mirror symmetry, 2 threads", "^"),
                               ("class_seconds", "symmetry classes, 2 threads", "o")):
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
    fig.savefig(ROOT / "plots" / "puzzles_queens.png", dpi=110)

    central = data.get("pegsolitaire_central")
    if central:
        sizes = central["layer_sizes"]
        fig, ax = plt.subplots(figsize=(6, 4))
        ax.bar(range(len(sizes)), sizes)
        ax.set_yscale("log")
        ax.set_xlabel("moves made from the start")
        ax.set_ylabel("positions up to symmetry")
        ax.set_title("Central game: breadth-first layers (meet in the middle)")
        fig.tight_layout()
        fig.savefig(ROOT / "plots" / "puzzles_pegsolitaire.png", dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
