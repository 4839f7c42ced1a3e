"""Deals/s of the exact search under each rule set, beside the étude's own solver.

    python bench/solitaire_family.py [--deals 400] [--node-limit 100000] [--repeats 3]

On deals 0..N-1 of seed 2026, one thread, alternating run by run: the étude's solver
in score-only mode (:func:`jitgames.solitaire.solve_deals`, the figure docs/solitaire.md
quotes), then the family search (:mod:`jitgames.solitaire.family_search`) under the
étude's, Yukon's and Alaska's rules with the node limit given. Reports the median
deals/s of each, the ratio to the étude's solver, positions/s, and the undecided
deals. Saves JSON to bench/results/solitaire_family.json.
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _harness import machine, save_result, timed_runs  # noqa: E402
from jitgames._jit import threads  # noqa: E402
from jitgames.solitaire import deals, solve_deals  # noqa: E402
from jitgames.solitaire.family import RULE_NAMES  # noqa: E402
from jitgames.solitaire.family_search import UNDECIDED  # noqa: E402
from jitgames.solitaire.family_study import solve_many  # noqa: E402

SEED = 2026


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=400)
    parser.add_argument("--node-limit", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "solitaire_family.json"))
    args = parser.parse_args(argv)
    decks = deals(SEED, 0, args.deals)
    runs = {"etude solver (score only)": lambda: solve_deals(decks, score_only=True).positions}
    for code, name in enumerate(RULE_NAMES):
        runs[f"family search, {name}"] = (lambda code=code: solve_many(decks, code, args.node_limit))
    with threads(1):
        for call in runs.values():  # compile or load before timing
            call()
        walls = {name: [] for name in runs}
        last = {}
        for _ in range(args.repeats):
            for name, call in runs.items():
                seconds, _, last[name] = timed_runs(call, 1)
                walls[name].append(seconds[0])
    base = statistics.median(walls["etude solver (score only)"])
    table = {}
    print(f"{args.deals} deals of seed {SEED}, 1 thread, node limit {args.node_limit:,}; "
          f"median of {args.repeats}")
    for name, times in walls.items():
        wall = statistics.median(times)
        result = last[name]
        if name.startswith("family"):
            positions = int(result[:, 2].sum())
            undecided = int((result[:, 1] == UNDECIDED).sum())
            wins = int((result[:, 0] == 52).sum())
        else:
            positions, undecided, wins = int(result.sum()), 0, None
        table[name] = {"seconds": times, "median_seconds": wall, "deals_per_second": args.deals / wall,
                       "ratio_to_etude_solver": base / wall, "positions_per_second": positions / wall,
                       "undecided": undecided, "wins": wins}
        print(f"  {name:28s} {args.deals / wall:10,.0f} deals/s  x{base / wall:7.4f}  "
              f"{positions / wall:12,.0f} positions/s  undecided {undecided}")
    save_result(args.out, {"machine": machine(), "deals": args.deals, "seed": SEED,
                           "node_limit": args.node_limit, "repeats": args.repeats, "runs": table})
    return 0


if __name__ == "__main__":
    sys.exit(main())
