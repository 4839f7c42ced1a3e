"""The family search of this tree against another checkout's, same deals, alternating.

    python bench/solitaire_family_compare.py --base /tmp/fambase [--deals 200] [--repeats 2]

Each run is a fresh process (``PYTHONPATH`` set to the tree it measures) that solves
deals 0..N-1 of seed 2026 under Yukon's and Alaska's rules (``--rules``) on one thread (node limit
100,000), after a warm-up deal that compiles or loads the kernels, and reports the
wall and CPU seconds, the undecided deals (and those whose win is undecided: the
score undecided and no proven bound below 52), the won deals and the positions. Runs
alternate base, this tree, base, ...; the medians and the ratios go to
bench/results/solitaire_family_compare.json with the machine and both commits, with
the check that every deal decided by both trees has the same score.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from _harness import machine, save_result  # noqa: E402

CHILD = r"""
import json, sys, time
from jitgames._jit import threads
from jitgames.solitaire import deals
from jitgames.solitaire.family_study import solve_many
import numpy as np
rules, n, limit, save = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
decks = deals(2026, 0, n)
with threads(1):
    solve_many(decks[:1], rules, limit)
    start, cpu = time.perf_counter(), time.process_time()
    rows = solve_many(decks, rules, limit)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
np.save(save, rows[:, :2])
# a deal's win is decided when its score is exact, or (searches that prove an upper
# bound: a sixth column) when that bound is below 52
upper = rows[:, 5] if rows.shape[1] > 5 else np.where(rows[:, 1] == 1, 52, rows[:, 0])
print(json.dumps({"seconds": seconds, "cpu_seconds": cpu, "undecided": int((rows[:, 1] == 1).sum()),
                  "win_undecided": int(((rows[:, 1] == 1) & (upper >= 52)).sum()),
                  "won": int((rows[:, 0] == 52).sum()), "positions": int(rows[:, 2].sum())}))
"""


def run(tree: Path, rules: int, deals: int, limit: int, save: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, "-c", CHILD, str(rules), str(deals), str(limit), str(save)],
                         env=env, capture_output=True, text=True, check=True, cwd=tree)
    return json.loads(out.stdout)


def agreement(base: np.ndarray, this: np.ndarray) -> dict:
    """Deals decided by both (status 0) and how many of them differ in score (must be 0)."""
    both = (base[:, 1] == 0) & (this[:, 1] == 0)
    return {"decided_by_both": int(both.sum()),
            "score_differs": int((base[both, 0] != this[both, 0]).sum()),
            "same_rows": bool(np.array_equal(base, this))}


def commit(tree: Path) -> str:
    return subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True).stdout.strip()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, type=Path)
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--node-limit", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--rules", default="yukon,alaska", help="rule sets, comma-separated (etude too)")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "solitaire_family_compare.json"))
    args = parser.parse_args(argv)
    trees = {"base": args.base.resolve(), "this": ROOT}
    table = {}
    scratch = Path(tempfile.mkdtemp())
    names = ("etude", "yukon", "alaska")
    chosen = args.rules.split(",")
    if any(name not in names for name in chosen):
        print(f"--rules: choose from {', '.join(names)}", file=sys.stderr)
        return 2
    for name in chosen:
        rules = names.index(name)
        runs = {label: [] for label in trees}
        for _ in range(args.repeats):
            for label, tree in trees.items():
                runs[label].append(run(tree, rules, args.deals, args.node_limit,
                                       scratch / f"{label}.npy"))
        row = {"agreement": agreement(np.load(scratch / "base.npy"), np.load(scratch / "this.npy"))}
        for label, results in runs.items():
            wall = statistics.median(r["seconds"] for r in results)
            row[label] = {"runs": results, "median_seconds": wall, "deals_per_second": args.deals / wall,
                          "median_cpu_seconds": statistics.median(r["cpu_seconds"] for r in results),
                          "undecided": results[-1]["undecided"], "won": results[-1]["won"],
                          "win_undecided": results[-1]["win_undecided"],
                          "positions": results[-1]["positions"]}
        row["speed_ratio"] = row["base"]["median_seconds"] / row["this"]["median_seconds"]
        row["cpu_ratio"] = row["base"]["median_cpu_seconds"] / row["this"]["median_cpu_seconds"]
        table[name] = row
        b, t = row["base"], row["this"]
        print(f"{name}: base {b['deals_per_second']:.1f} deals/s, undecided {b['undecided']} "
              f"(win undecided {b['win_undecided']}), won {b['won']}; this "
              f"{t['deals_per_second']:.1f} deals/s, undecided {t['undecided']} (win undecided "
              f"{t['win_undecided']}), won {t['won']}; x{row['speed_ratio']:.2f} wall, "
              f"x{row['cpu_ratio']:.2f} CPU; decided by both {row['agreement']['decided_by_both']}, "
              f"score differs {row['agreement']['score_differs']}, "
              f"same scores and status on every deal: {row['agreement']['same_rows']}")
    save_result(args.out, {"machine": machine(), "deals": args.deals, "seed": 2026,
                           "node_limit": args.node_limit, "repeats": args.repeats, "threads": 1,
                           "commits": {label: commit(tree) for label, tree in trees.items()},
                           "rules": table})
    return 0


if __name__ == "__main__":
    sys.exit(main())
