"""Knuth's worst case against the true minimax, size by size.

For each size (pegs x colours, repeats allowed) prints Knuth's strategy's worst case
and total (canonical tie rule) and the exact least worst case with the least total
for it (the ``minimax`` strategy, :mod:`jitgames.mastermind.minimax`), and the
seconds each took. Saves ``bench/results/mastermind_minimax.json`` with the machine
after every size, so a run cut short keeps the sizes done. Run
``python bench/mastermind_minimax.py`` (``--sizes 2x2,3x3`` to choose; the default
list includes 4x7 and 5x5, which take minutes each).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _harness import machine  # noqa: E402
from jitgames.mastermind import evaluate  # noqa: E402

DEFAULT_SIZES = ("2x2,2x3,2x4,2x5,2x6,2x7,2x8,3x2,3x3,3x4,3x5,3x6,3x7,3x8,4x2,4x3,4x4,4x5,"
                 "4x6,5x2,5x3,5x4,6x2,6x3,7x2,4x7,5x5")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=DEFAULT_SIZES)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" /
                                             "mastermind_minimax.json"))
    args = parser.parse_args(argv)
    rows = []
    print(f"{'size':>5} {'codes':>6} {'knuth max':>9} {'knuth total':>11} {'minimax':>7} "
          f"{'its total':>9} {'knuth s':>8} {'minimax s':>9}")
    for item in args.sizes.split(","):
        pegs, colours = (int(x) for x in item.split("x"))
        start = time.perf_counter()
        knuth = evaluate("knuth", pegs, colours)
        knuth_seconds = time.perf_counter() - start
        start = time.perf_counter()
        best = evaluate("minimax", pegs, colours)
        minimax_seconds = time.perf_counter() - start
        row = {"pegs": pegs, "colours": colours, "codes": len(knuth.guesses),
               "knuth_max": knuth.max, "knuth_total": knuth.total,
               "minimax_max": best.max, "minimax_total": best.total,
               "knuth_seconds": round(knuth_seconds, 3),
               "minimax_seconds": round(minimax_seconds, 3)}
        rows.append(row)
        print(f"{item:>5} {row['codes']:>6} {row['knuth_max']:>9} {row['knuth_total']:>11} "
              f"{row['minimax_max']:>7} {row['minimax_total']:>9} {knuth_seconds:>8.2f} "
              f"{minimax_seconds:>9.2f}", flush=True)
        Path(args.out).write_text(json.dumps({"machine": machine(), "rows": rows}, indent=1)
                                  + "\n")
    print(f"saved {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
