"""Where full mode (score, moves, decisions) spends its time beyond score-only mode.

    python bench/solitaire_fullmode.py [--deals 5000] [--seeds 2026 0] [--repeats 3]

For deals 0..N-1 of each seed (Fisher-Yates), on one thread:

- wall and process-CPU seconds of full mode and of score-only mode, the two runs
  alternating ``--repeats`` times (medians, and the ratio full / score-only);
- the deals split by what full mode does beyond the score search
  (:func:`jitgames.solitaire.search.solve_figures`): ``at_goal`` (the goal of
  :func:`.reach.reachable_cards` is reached with 0 moves: no line search), ``below_goal``
  (the score search never reaches the goal, so it is exhaustive in both modes and
  also gives the line figures: no line search), ``line`` (the goal is reached after
  at least one move: :func:`.search.solve_line` runs); for each, the deals and the
  positions expanded in full and in score-only mode. The score search expands the
  same positions in both modes, so a deal's difference is its line search;
- for the ``line`` deals, the lower bound of :func:`.bound.moves_bound` at the deal
  against the optimal moves: the gap the line search's branch and bound must close.

Prints a table and saves JSON to bench/results/solitaire_fullmode.json.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _harness import machine, save_result  # noqa: E402
from jitgames.solitaire import deals  # noqa: E402
from jitgames.solitaire.bound import moves_bound  # noqa: E402
from jitgames.solitaire.reach import card_count, reachable_cards  # noqa: E402
from jitgames.solitaire.rules import new_position  # noqa: E402
from jitgames.solitaire.search import make_scratch, solve_rows  # noqa: E402

SCORE, MOVES, POSITIONS = 0, 1, 3   # columns of solve_rows


def timed(decks, score_only, scratch):
    """``(wall s, cpu s, rows)`` of one single-thread run."""
    wall, cpu = time.perf_counter(), time.process_time()
    rows = solve_rows(decks, score_only, scratch)
    return time.perf_counter() - wall, time.process_time() - cpu, rows


def profile_seed(seed: int, n: int, repeats: int) -> dict:
    """Timings, the split of the deals and the bound's gap for deals 0..n-1 of ``seed``
    (the module docstring lists them; times in seconds)."""
    decks = deals(seed, 0, n)
    scratch = make_scratch(1)
    solve_rows(decks[:8], False, scratch)  # load the kernels
    runs = {"full": [], "score-only": []}
    rows = {}
    for _ in range(repeats):  # alternate the two modes
        for mode in runs:
            wall, cpu, rows[mode] = timed(decks, mode == "score-only", scratch)
            runs[mode].append((wall, cpu))
    timing = {mode: {"wall_seconds": statistics.median(w for w, _ in r),
                     "cpu_seconds": statistics.median(c for _, c in r),
                     "all_cpu_seconds": [c for _, c in r]} for mode, r in runs.items()}
    for mode in timing:
        timing[mode]["deals_per_cpu_second"] = n / timing[mode]["cpu_seconds"]
    full, fast = rows["full"], rows["score-only"]
    goals, bounds = np.zeros(n, np.int64), np.zeros(n, np.int64)
    for d, deck in enumerate(decks):
        pos = new_position(deck)
        targets = reachable_cards(pos)
        goals[d] = card_count(targets)
        bounds[d] = moves_bound(pos, targets, goals[d])
    kinds = {"at_goal": (full[:, SCORE] == goals) & (full[:, MOVES] == 0),
             "below_goal": full[:, SCORE] < goals,
             "line": (full[:, SCORE] == goals) & (full[:, MOVES] > 0)}
    split = {kind: {"deals": int(chosen.sum()),
                    "positions_full": int(full[chosen, POSITIONS].sum()),
                    "positions_score_only": int(fast[chosen, POSITIONS].sum())}
             for kind, chosen in kinds.items()}
    line = kinds["line"]
    gap = full[line, MOVES] - bounds[line]
    # the score search is the same in both modes: no difference where no line search runs
    same = bool((full[~line, POSITIONS] == fast[~line, POSITIONS]).all())
    return {"seed": seed, "deals": n, "timing": timing, "score_search_same_in_both_modes": same,
            "cpu_ratio_full_to_score_only": timing["full"]["cpu_seconds"]
            / timing["score-only"]["cpu_seconds"],
            "split": split,
            "line_deals_bound": {"mean_optimal_moves": float(full[line, MOVES].mean()),
                                 "mean_bound_at_deal": float(bounds[line].mean()),
                                 "mean_gap": float(gap.mean()), "max_gap": int(gap.max())}}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=5000)
    parser.add_argument("--seeds", type=int, nargs="+", default=[2026, 0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "solitaire_fullmode.json"))
    args = parser.parse_args(argv)
    results = [profile_seed(seed, args.deals, args.repeats) for seed in args.seeds]
    host = machine()
    print(f"full mode against score-only, {args.deals:,} deals a seed, 1 thread, median of "
          f"{args.repeats} alternating runs (load average {host['load_average'][0]:.1f} on "
          f"{host['cpus']} cores, {host['cpu']})")
    for r in results:
        t = r["timing"]
        print(f"seed {r['seed']}: full {t['full']['cpu_seconds']:.2f} cpu-s "
              f"({t['full']['deals_per_cpu_second']:.0f} deals/cpu-s), score-only "
              f"{t['score-only']['cpu_seconds']:.2f} cpu-s "
              f"({t['score-only']['deals_per_cpu_second']:.0f} deals/cpu-s): "
              f"{r['cpu_ratio_full_to_score_only']:.2f}x")
        print(f"  {'deals':12s} {'count':>6s} {'pos full':>10s} {'pos score':>10s}")
        for kind, s in r["split"].items():
            print(f"  {kind:12s} {s['deals']:6d} {s['positions_full']:10d} "
                  f"{s['positions_score_only']:10d}")
        print(f"  positions equal in both modes on every deal without a line search: "
              f"{r['score_search_same_in_both_modes']}")
        b = r["line_deals_bound"]
        print(f"  line deals: optimal moves {b['mean_optimal_moves']:.2f} on average, bound at "
              f"the deal {b['mean_bound_at_deal']:.2f}, gap {b['mean_gap']:.2f} (max {b['max_gap']})")
    save_result(args.out, {"deals": args.deals, "repeats": args.repeats, "results": results,
                           "machine": host,
                           "command": " ".join(["python", "bench/solitaire_fullmode.py"]
                                               + (argv or sys.argv[1:]))})
    return 0


if __name__ == "__main__":
    sys.exit(main())
