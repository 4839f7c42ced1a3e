"""Speed of the same workload in two checkouts of the package, alternating.

Used to show that a refactoring leaves the speed unchanged: the working tree (``new``)
and another checkout (``--base DIR``, e.g. ``git worktree add --detach /tmp/base main``)
each run the workload in a fresh interpreter, alternately, ``--repeats`` times; the
first run of each (compiling or loading its cache) is not timed. Prints the medians and
the ratio new / base, and saves ``bench/results/trees-<workload>.json`` with the
machine record.

    python bench/trees.py kalah-solve --base /tmp/base --repeats 7
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from _harness import machine  # noqa: E402

WORKLOADS = {
    # The exact solver's search (solve_window and its _order), on a database built
    # before the clock starts: Kalah(5,4) with the 14-stone endgame database.
    "kalah-solve": """
import time
import numpy as np
from jitgames.kalah import solver
s = solver.Solver(5, 4, endgame_stones=14, table_bits=22)
start = time.perf_counter()
value = s.value(s.opening, 0)
print(time.perf_counter() - start, value, int(s.stats[0]))
""",
}


def run_once(tree: Path, code: str):
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=tree, check=True,
                         capture_output=True, text=True, timeout=1800)
    seconds, value, nodes = out.stdout.split()
    return float(seconds), int(value), int(nodes)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workload", choices=sorted(WORKLOADS))
    parser.add_argument("--base", required=True, type=Path, help="the other checkout")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    code = WORKLOADS[args.workload]
    trees = {"base": args.base.resolve(), "new": ROOT}
    results = {name: run_once(tree, code) for name, tree in trees.items()}  # warm caches
    assert results["base"][1:] == results["new"][1:], results  # same value, same nodes
    times = {name: [] for name in trees}
    for _ in range(args.repeats):
        for name, tree in trees.items():
            times[name].append(run_once(tree, code)[0])
    medians = {name: statistics.median(t) for name, t in times.items()}
    ratio = medians["new"] / medians["base"]
    value, nodes = results["new"][1:]
    print(f"{args.workload}: value {value}, {nodes:,} nodes; median of {args.repeats} "
          f"alternating runs: base {medians['base']:.3f} s, new {medians['new']:.3f} s, "
          f"new/base {ratio:.3f}")
    out = ROOT / "bench" / "results" / f"trees-{args.workload}.json"
    out.write_text(json.dumps({"workload": args.workload, "base": str(args.base),
                               "value": value, "nodes": nodes, "seconds": times,
                               "median": medians, "new_over_base": ratio,
                               "machine": machine()}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
