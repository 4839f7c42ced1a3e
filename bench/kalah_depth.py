"""Depth reached in a fixed time: minimax, alpha-beta, alpha-beta with move ordering.

The Kalah text claims that alpha-beta searches about twice as deep as minimax in the
same time. For each of ``--positions`` Kalah(6,4) positions (the opening after
``--random-plies`` random plies, seed 2026, as in the tournaments) and each method,
a full-width search (:func:`jitgames.kalah.search.choose_move`) is run at depth 1, 2,
3, ... and timed; the search stops at the first depth that alone takes more than the
largest budget, or at ``--max-depth``. The depth reached in a budget ``B`` is the
deepest ``d`` whose iterative deepening (depths 1..d one after the other, as a
player with a clock would search) fits in ``B`` seconds.

Times are process-CPU seconds (the kernels are single-threaded; CPU time depends much
less than wall time on the other jobs of a shared machine), the median of
``--repeats`` runs for depths that take under 0.2 s and one run above that. The three
methods are timed in turn at every depth of every position, so a change in the load
falls on all of them alike. Prints a table and saves ``bench/results/kalah_depth.json``
with the machine. Run ``python bench/kalah_depth.py`` (``--quick`` for a short run).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _harness import machine, save_result  # noqa: E402
from jitgames.kalah import evaluation, rules, search, tournament  # noqa: E402

METHODS = [("minimax", search.MINIMAX, False),
           ("alpha-beta", search.ALPHABETA, False),
           ("alpha-beta + ordering", search.ALPHABETA, True)]


def search_seconds(board, player, depth, weights, method, ordering, repeats):
    """``(median CPU seconds, nodes)`` of one ``depth``-ply root search."""
    times, nodes = [], 0
    for _ in range(repeats):
        count = np.zeros(1, dtype=np.int64)
        start = time.process_time()
        search.choose_move(board, player, depth, weights, 0, method, ordering, False,
                           np.uint64(0), 0, count)
        times.append(time.process_time() - start)
        nodes = int(count[0])
        if times[-1] > 0.2:
            break
    return statistics.median(times), nodes


def depth_profile(board, player, weights, budget, max_depth, repeats):
    """Per method, the list of ``(depth, seconds, nodes)`` up to the depth that alone
    exceeds ``budget`` (methods interleaved depth by depth)."""
    profile = {name: [] for name, _, _ in METHODS}
    running = {name for name, _, _ in METHODS}
    for depth in range(1, max_depth + 1):
        for name, method, ordering in METHODS:
            if name not in running:
                continue
            seconds, nodes = search_seconds(board, player, depth, weights, method, ordering,
                                            repeats)
            profile[name].append((depth, seconds, nodes))
            if seconds > budget:
                running.discard(name)
        if not running:
            break
    return profile


def depth_within(rows, budget):
    """Deepest depth whose iterative deepening (1..d) fits ``budget`` seconds (0: none)."""
    total, reached = 0.0, 0
    for depth, seconds, _ in rows:
        total += seconds
        if total > budget:
            break
        reached = depth
    return reached


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=8)
    parser.add_argument("--random-plies", type=int, default=4)
    parser.add_argument("--budgets", default="0.001,0.01,0.1,1",
                        help="CPU-second budgets, comma-separated (0.001,0.01,0.1,1)")
    parser.add_argument("--max-depth", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true",
                        help="2 positions, budgets up to 0.01 s")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "kalah_depth.json"))
    args = parser.parse_args(argv)
    if args.quick:
        args.positions, args.budgets = 2, "0.001,0.01"
    budgets = [float(x) for x in args.budgets.split(",")]
    weights = evaluation.weights_for("store", 6)
    boards, first = tournament.make_openings(6, 4, args.positions, args.random_plies, 0,
                                             seed=2026)
    # compile every kernel before timing
    for _, method, ordering in METHODS:
        search.choose_move(rules.new_board(6, 4), 0, 2, weights, 0, method, ordering, False,
                           np.uint64(0), 0, np.zeros(1, dtype=np.int64))
    profiles = []
    for i in range(args.positions):
        profile = depth_profile(boards[i].copy(), int(first[i]), weights, max(budgets),
                                args.max_depth, args.repeats)
        profiles.append(profile)
        print(f"position {i}: deepest timed " + ", ".join(
            f"{name} {rows[-1][0]}" for name, rows in profile.items()), file=sys.stderr)
    table = []
    for budget in budgets:
        row = {"budget_seconds": budget}
        for name, _, _ in METHODS:
            depths = [depth_within(p[name], budget) for p in profiles]
            row[name] = {"median_depth": statistics.median(depths), "depths": depths}
        base = row["minimax"]["median_depth"]
        for name in ("alpha-beta", "alpha-beta + ordering"):
            row[name]["over_minimax"] = (row[name]["median_depth"] / base) if base else None
        table.append(row)
    rates = {}
    for name, _, _ in METHODS:
        nodes = sum(p[name][-1][2] for p in profiles)
        seconds = sum(p[name][-1][1] for p in profiles)
        rates[name] = nodes / seconds if seconds else None
    print(f"Kalah(6,4), {args.positions} positions after {args.random_plies} random plies, "
          f"store evaluation; median depth (plies) reached by iterative deepening within a "
          f"CPU-time budget")
    print(f"{'budget s':>9} {'minimax':>8} {'alpha-beta':>11} {'+ordering':>10} "
          f"{'ab/mm':>6} {'ab+o/mm':>8}")
    for row in table:
        ab, abo = row["alpha-beta"], row["alpha-beta + ordering"]
        ratio = lambda r: f"{r:.2f}" if r is not None else "-"  # noqa: E731
        print(f"{row['budget_seconds']:>9g} {row['minimax']['median_depth']:>8g} "
              f"{ab['median_depth']:>11g} {abo['median_depth']:>10g} "
              f"{ratio(ab['over_minimax']):>6} {ratio(abo['over_minimax']):>8}")
    print("nodes per CPU second at the deepest depth timed: " + ", ".join(
        f"{name} {rate:,.0f}" for name, rate in rates.items() if rate))
    result = {"machine": machine(), "board": "Kalah(6,4)", "positions": args.positions,
              "random_plies": args.random_plies, "evaluation": "store",
              "clock": "process CPU seconds", "table": table, "nodes_per_second": rates,
              "profiles": [{name: [list(r) for r in rows] for name, rows in p.items()}
                           for p in profiles]}
    save_result(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
