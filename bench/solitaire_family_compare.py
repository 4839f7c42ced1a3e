"""The family search of this tree against another checkout's, same deals, alternating.

    python bench/solitaire_family_compare.py --base /tmp/fambase [--deals 200] [--repeats 2]

Each run is a fresh process (``PYTHONPATH`` set to the tree it measures) that solves
deals 0..N-1 of seed 2026 under Yukon's and Alaska's rules on one thread (node limit
100,000), after a warm-up deal that compiles or loads the kernels, and reports the
seconds, the undecided and the won deals and the positions. Runs alternate base,
this tree, base, ...; the medians and the ratio go to
bench/results/solitaire_family_compare.json with the machine and both commits.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from _harness import machine, save_result  # noqa: E402

CHILD = r"""
import json, sys, time
from jitgames._jit import threads
from jitgames.solitaire import deals
from jitgames.solitaire.family_study import solve_many
rules, n, limit = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
decks = deals(2026, 0, n)
with threads(1):
    solve_many(decks[:1], rules, limit)
    start = time.perf_counter()
    rows = solve_many(decks, rules, limit)
    seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "undecided": int((rows[:, 1] == 1).sum()),
                  "won": int((rows[:, 0] == 52).sum()), "positions": int(rows[:, 2].sum())}))
"""


def run(tree: Path, rules: int, deals: int, limit: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, "-c", CHILD, str(rules), str(deals), str(limit)],
                         env=env, capture_output=True, text=True, check=True, cwd=tree)
    return json.loads(out.stdout)


def commit(tree: Path) -> str:
    return subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True).stdout.strip()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, type=Path)
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--node-limit", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "solitaire_family_compare.json"))
    args = parser.parse_args(argv)
    trees = {"base": args.base.resolve(), "this": ROOT}
    table = {}
    for rules, name in ((1, "yukon"), (2, "alaska")):
        runs = {label: [] for label in trees}
        for _ in range(args.repeats):
            for label, tree in trees.items():
                runs[label].append(run(tree, rules, args.deals, args.node_limit))
        row = {}
        for label, results in runs.items():
            wall = statistics.median(r["seconds"] for r in results)
            row[label] = {"runs": results, "median_seconds": wall, "deals_per_second": args.deals / wall,
                          "undecided": results[-1]["undecided"], "won": results[-1]["won"],
                          "positions": results[-1]["positions"]}
        row["speed_ratio"] = row["base"]["median_seconds"] / row["this"]["median_seconds"]
        table[name] = row
        print(f"{name}: base {row['base']['deals_per_second']:.1f} deals/s, undecided "
              f"{row['base']['undecided']}, won {row['base']['won']}; this "
              f"{row['this']['deals_per_second']:.1f} deals/s, undecided {row['this']['undecided']}, "
              f"won {row['this']['won']}; x{row['speed_ratio']:.2f}")
    save_result(args.out, {"machine": machine(), "deals": args.deals, "seed": 2026,
                           "node_limit": args.node_limit, "repeats": args.repeats, "threads": 1,
                           "commits": {label: commit(tree) for label, tree in trees.items()},
                           "rules": table})
    return 0


if __name__ == "__main__":
    sys.exit(main())
