"""Benchmark of jitgames.mastermind: matrix build, every strategy, the optimal search.

Run ``python bench/mastermind.py`` (add ``--large`` for 5 x 8, ``--hard SECONDS`` to try
the optimal 4 x 7 and Bulls-and-Cows searches within a time limit, and ``--only-hard``
to run only those, written to ``bench/results/mastermind_hard.json`` with the known
totals of ``tests/data/mastermind_known.json`` beside them). Prints a table and
writes ``bench/results/mastermind.json``. Times are medians of ``--repeats`` runs
after compilation; compilation is timed separately in a subprocess with an empty
Numba cache. ``OMP_WAIT_POLICY=PASSIVE`` is the project default (``jitgames._jit``):
with the active policy an idle OpenMP thread spins and, when other processes keep
the cores busy, slows 2-thread runs by 10-30x. Two baselines are measured in the
same run, so their ratios survive a noisy machine: the pure-Python reference engine
(``tests/reference/mastermind.py``) on the same strategy and size, and the engine
with its symmetry filters turned off. The optimal search also reports CPU seconds
of the process (``time.process_time``), which other load on the machine inflates
less than wall seconds.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _harness import cold_compile_seconds, machine, median_seconds, timed_runs  # noqa: E402
from jitgames._jit import threads  # noqa: E402
from jitgames._random import stream_key  # noqa: E402
from jitgames.mastermind.codes import code_space, response_matrix  # noqa: E402
from jitgames.mastermind.engine import Task, play_all  # noqa: E402
from jitgames.mastermind.evaluate import _play  # noqa: E402
from jitgames.mastermind.codes import load_game  # noqa: E402
from jitgames.mastermind.symmetry import position_permutations  # noqa: E402
from jitgames.mastermind.optimal import search_and_build  # noqa: E402
from jitgames.mastermind.strategies import STRATEGIES  # noqa: E402

COLD = """
import time
t = time.perf_counter()
from jitgames.mastermind import evaluate
evaluate("knuth", 3, 3); evaluate("cooley", 3, 3); evaluate("optimal", 2, 3)
print(time.perf_counter() - t)
"""


def reference_seconds(name, pegs, colours):
    from tests.reference import mastermind as ref
    space, matrix = load_game(pegs, colours)
    s = STRATEGIES[name]
    start = time.perf_counter()
    task = Task(-1, np.ones(space.size, np.int8), np.zeros(space.size, np.int32),
                position_permutations(pegs))
    ref.play_all(s.adapter, space.tables(matrix), s.rules, task, np.uint64(stream_key(0, 1)),
                 1, np.zeros((4 * space.size + 1, 4), np.int32))
    return time.perf_counter() - start


def strategy_rows(pegs, colours, thread_counts, repeats):
    space, matrix = load_game(pegs, colours)
    tracked = np.ones(space.size, np.int8)
    small, small_matrix = load_game(2, 3)
    rows = []
    for name in [n for n, s in STRATEGIES.items() if not s.optimal]:
        row = {"size": f"{pegs}x{colours}", "strategy": name}
        _play(name, small, small_matrix, 0, np.ones(small.size, np.int8))  # compiled
        for n in thread_counts:
            times = []
            with threads(n):
                for _ in range(repeats):
                    start = time.perf_counter()
                    guesses, _ = _play(name, space, matrix, 0, tracked)
                    times.append(time.perf_counter() - start)
            row[f"seconds_{n}t"] = statistics.median(times)
        row["total"] = int(guesses.sum())
        rows.append(row)
        print(f"  {row}", flush=True)
    return rows


def matrix_rows(sizes, thread_counts, repeats):
    rows = []
    for pegs, colours in sizes:
        space = code_space(pegs, colours)
        row = {"size": f"{pegs}x{colours}", "bytes": space.size ** 2}
        for n in thread_counts:
            with threads(n):
                response_matrix(space)
                row[f"seconds_{n}t"] = median_seconds(lambda: response_matrix(space), repeats)[0]
        rows.append(row)
        print(f"  {row}", flush=True)
    return rows


def optimal_rows(repeats):
    """Search and tree build of the optimal strategies for 4 x 6 (serial): median wall
    seconds and median CPU seconds of the process (the machine is shared)."""
    space, matrix = load_game(4, 6)
    rows = []
    for name, limit in (("optimal", None), ("optimal-max5", 5)):
        search_and_build(space, matrix, limit)
        walls, cpus, (total, tree) = timed_runs(lambda: search_and_build(space, matrix, limit),
                                                repeats)
        rows.append({"size": "4x6", "strategy": name, "total": total,
                     "max": int(tree.guesses().max()), "seconds_1t": statistics.median(walls),
                     "cpu_seconds_1t": statistics.median(cpus)})
        print(f"  {rows[-1]}", flush=True)
    return rows


def filter_baseline(repeats):
    """The engine with and without its symmetry filters (``partition_only``), knuth on
    5 x 6, 1 thread, in the same run: the ratio is the filters' gain."""
    space, matrix = load_game(5, 6)
    s = STRATEGIES["knuth"]
    tracked = np.ones(space.size, np.int8)

    def run(filtered):
        tree = np.empty((4 * space.size + 1, 4), np.int32)
        guesses = np.zeros(space.size, np.int32)
        rules = s.rules._replace(partition_only=filtered)
        task = Task(-1, tracked, guesses, position_permutations(space.pegs))
        play_all(s.adapter, space.tables(matrix), rules, task, np.uint64(stream_key(0, 1)), 1,
                 tree)
        return int(guesses.sum())

    with threads(1):
        off, total_off = median_seconds(lambda: run(False), repeats)
        on, total_on = median_seconds(lambda: run(True), repeats)
    row = {"size": "5x6", "strategy": "knuth", "threads": 1, "unfiltered_seconds": off,
           "filtered_seconds": on, "speedup": off / on, "totals": [total_off, total_on]}
    print(f"  {row}", flush=True)
    return row


HARD = """
import json, sys, time
from jitgames.mastermind.codes import load_game
from jitgames.mastermind.optimal import search_and_build
pegs, colours, repeats = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"
space, matrix = load_game(pegs, colours, repeats)
search_and_build(*load_game(2, 3), None)
t, c = time.perf_counter(), time.process_time()
total, tree = search_and_build(space, matrix, None)
print(json.dumps({"total": total, "max": int(tree.guesses().max()),
                  "seconds": time.perf_counter() - t, "cpu_seconds": time.process_time() - c}))
"""


KNOWN = json.loads((ROOT / "tests" / "data" / "mastermind_known.json").read_text())["values"]


def known_optimal_total(pegs, colours, repeats):
    """The published optimal total of that size, or None."""
    return next((v["total"] for v in KNOWN
                 if (v["strategy"], v["pegs"], v["colours"], v["repeats"])
                 == ("optimal", pegs, colours, repeats)), None)


def hard_rows(limit_seconds):
    rows = []
    for label, pegs, colours, repeats in (("4x7", 4, 7, True), ("bulls-and-cows 4x10", 4, 10,
                                                                False)):
        try:
            out = subprocess.run([sys.executable, "-c", HARD, str(pegs), str(colours),
                                  "1" if repeats else "0"], cwd=ROOT, capture_output=True,
                                 text=True, timeout=limit_seconds, check=True)
            row = {"size": label, **json.loads(out.stdout.strip().splitlines()[-1])}
        except subprocess.TimeoutExpired:
            row = {"size": label, "total": None, "seconds": f"> {limit_seconds}"}
        row["known_total"] = known_optimal_total(pegs, colours, repeats)
        rows.append(row)
        print(f"  {row}", flush=True)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--large", action="store_true", help="also 5 x 8 (32,768 secrets)")
    parser.add_argument("--hard", type=float, default=0,
                        help="seconds allowed to the optimal 4 x 7 and Bulls-and-Cows runs")
    parser.add_argument("--only-hard", action="store_true",
                        help="run only the --hard searches (default limit 3 hours each)")
    args = parser.parse_args()
    if args.only_hard:
        limit = args.hard or 3 * 3600
        print(f"optimal 4x7 and Bulls and Cows (limit {limit:.0f} s each):", flush=True)
        out = ROOT / "bench" / "results" / "mastermind_hard.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps({"machine": machine(),
                                   "rows": hard_rows(limit)}, indent=1) + "\n")
        print(f"written {out.relative_to(ROOT)}")
        return
    counts = (1, 2)
    result = {"machine": machine(), "repeats": args.repeats}
    print("cold compile (fresh cache):", flush=True)
    result["cold_compile_seconds"] = cold_compile_seconds(COLD)
    print(f"  {result['cold_compile_seconds']:.1f} s", flush=True)
    print("response matrix:", flush=True)
    sizes = [(4, 6)] + ([(5, 8)] if args.large else [])
    result["matrix"] = matrix_rows(sizes, counts, args.repeats if not args.large else 1)
    print("strategies over all secrets of 4x6:", flush=True)
    result["strategies"] = strategy_rows(4, 6, counts, args.repeats)
    if args.large:
        print("strategies over all secrets of 5x8 (one run each):", flush=True)
        result["strategies"] += strategy_rows(5, 8, counts, 1)
    print("baseline: engine without its symmetry filters (knuth, 5x6, 1 thread):", flush=True)
    result["filter_baseline"] = filter_baseline(args.repeats)
    print("baseline (pure-Python reference engine, knuth on 3x4):", flush=True)
    space3, matrix3 = load_game(3, 4)
    ours = median_seconds(lambda: _play("knuth", space3, matrix3, 0,
                                        np.ones(space3.size, np.int8)), args.repeats)[0]
    theirs = reference_seconds("knuth", 3, 4)
    result["baseline"] = {"size": "3x4", "strategy": "knuth", "reference_seconds": theirs,
                          "jit_seconds": ours, "speedup": theirs / ours}
    print(f"  {result['baseline']}", flush=True)
    print("optimal search 4x6 (serial):", flush=True)
    result["optimal"] = optimal_rows(max(1, args.repeats // 2))
    if args.hard:
        print(f"optimal 4x7 and Bulls and Cows (limit {args.hard:.0f} s each):", flush=True)
        result["hard"] = hard_rows(args.hard)
    out = ROOT / "bench" / "results" / "mastermind.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"\nwritten {out.relative_to(ROOT)}")
    print(f"\n{'size':<6}{'strategy':<15}{'total':>8}{'1 thread s':>12}{'2 threads s':>13}"
          f"{'CPU s':>8}")
    for row in result["strategies"] + result["optimal"]:
        two = row.get("seconds_2t")
        one = row.get("seconds_1t")
        cpu = row.get("cpu_seconds_1t")
        print(f"{row['size']:<6}{row['strategy']:<15}{row['total']:>8}"
              + (f"{one:>12.3f}" if one is not None else f"{'-':>12}")
              + (f"{two:>13.3f}" if two is not None else f"{'-':>13}")
              + (f"{cpu:>8.3f}" if cpu is not None else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
