"""Speed of the same workload in two checkouts of the package, alternating.

Used to show that a refactoring leaves the speed unchanged: the working tree (``new``)
and another checkout (``--base DIR``, e.g. ``git worktree add --detach /tmp/base main``)
each run the workload in a fresh interpreter, alternately, ``--repeats`` times; the
first run of each (compiling or loading its cache) is not timed. Prints the medians
(wall and CPU seconds of the workload alone) and the ratio new / base, and saves
``bench/results/trees-<workload>.json`` with the machine record. A workload prints
``wall_seconds cpu_seconds value [nodes]``; value and nodes must agree between the two.

    python bench/trees.py kalah-solve --base /tmp/base --repeats 7
    python bench/trees.py mastermind-optimal-1 --base /tmp/base --repeats 7
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
start, cpu = time.perf_counter(), time.process_time()
value = s.value(s.opening, 0)
print(time.perf_counter() - start, time.process_time() - cpu, value, int(s.stats[0]))
""",
}
# The optimal Mastermind strategy of 4 x 6 (search and tree), after a warm-up game that
# loads the compiled kernels, on 1 or 2 threads (a serial base ignores the setting).
_MASTERMIND = """
import os
os.environ["NUMBA_NUM_THREADS"] = "{threads}"
import time
from jitgames.mastermind import evaluate
evaluate("optimal", 3, 3)
start, cpu = time.perf_counter(), time.process_time()
total = evaluate("optimal", 4, 6).total
print(time.perf_counter() - start, time.process_time() - cpu, total)
"""
for _threads in (1, 2):
    WORKLOADS[f"mastermind-optimal-{_threads}"] = _MASTERMIND.format(threads=_threads)


def run_once(tree: Path, code: str):
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=tree, check=True,
                         capture_output=True, text=True, timeout=1800)
    seconds, cpu, *figures = out.stdout.split()
    return float(seconds), float(cpu), [int(x) for x in figures]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workload", choices=sorted(WORKLOADS))
    parser.add_argument("--base", required=True, type=Path, help="the other checkout")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    code = WORKLOADS[args.workload]
    trees = {"base": args.base.resolve(), "new": ROOT}
    results = {name: run_once(tree, code) for name, tree in trees.items()}  # warm caches
    assert results["base"][2] == results["new"][2], results  # same value (and nodes)
    times = {name: [] for name in trees}
    cpus = {name: [] for name in trees}
    for _ in range(args.repeats):
        for name, tree in trees.items():
            seconds, cpu, _ = run_once(tree, code)
            times[name].append(seconds)
            cpus[name].append(cpu)
    medians = {name: statistics.median(t) for name, t in times.items()}
    cpu_medians = {name: statistics.median(t) for name, t in cpus.items()}
    ratio = medians["new"] / medians["base"]
    cpu_ratio = cpu_medians["new"] / cpu_medians["base"]
    figures = results["new"][2]
    value, nodes = figures[0], (figures[1] if len(figures) > 1 else None)
    print(f"{args.workload}: value {value}" + (f", {nodes:,} nodes" if nodes else "")
          + f"; median of {args.repeats} alternating runs: base {medians['base']:.3f} s "
          f"({cpu_medians['base']:.3f} CPU s), new {medians['new']:.3f} s "
          f"({cpu_medians['new']:.3f} CPU s), new/base {ratio:.3f} (CPU {cpu_ratio:.3f})")
    out = ROOT / "bench" / "results" / f"trees-{args.workload}.json"
    out.write_text(json.dumps({"workload": args.workload, "base": str(args.base),
                               "value": value, "nodes": nodes, "seconds": times,
                               "cpu_seconds": cpus, "median": medians,
                               "cpu_median": cpu_medians, "new_over_base": ratio,
                               "cpu_new_over_base": cpu_ratio,
                               "machine": machine()}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
