"""How many deals whose win is open at one node limit a larger limit decides.

    python bench/solitaire_family_limits.py [--deals 400] [--limits 100000,300000,1000000]

Solves deals 0..N-1 of seed 2026 under Yukon's and Alaska's rules on one thread at the
first limit, then solves again, at each larger limit, the deals whose win was open
there (score undecided and no proven upper bound below 52), and reports how many are
still open, won, or proven lost, with the CPU seconds each pass took. The per-deal
searches depend on nothing else, so the deals decided at the first limit are left
out of the larger passes (a larger limit gives the probes a larger share, so a deal
decided at the first limit is taken to stay decided; this script does not check it).
Results go to bench/results/solitaire_family_limits.json with the machine.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _harness import machine, save_result  # noqa: E402
from jitgames._jit import threads  # noqa: E402
from jitgames.solitaire import deals  # noqa: E402
from jitgames.solitaire.family_search import SEARCH_VERSION, UNDECIDED  # noqa: E402
from jitgames.solitaire.family_study import solve_many  # noqa: E402


def open_wins(rows: np.ndarray) -> np.ndarray:
    """Deals whose win is open: the score undecided and the proven upper bound 52."""
    return (rows[:, 1] == UNDECIDED) & (rows[:, 5] >= 52)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=400)
    parser.add_argument("--limits", default="100000,300000,1000000")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "solitaire_family_limits.json"))
    args = parser.parse_args(argv)
    limits = [int(x) for x in args.limits.split(",")]
    decks = deals(2026, 0, args.deals)
    table = {}
    with threads(1):
        solve_many(decks[:1], 1, 1000)
        for rules, name in ((1, "yukon"), (2, "alaska")):
            cpu = time.process_time()
            rows = solve_many(decks, rules, limits[0])
            cpu = time.process_time() - cpu
            still = np.nonzero(open_wins(rows))[0]
            passes = [{"limit": limits[0], "deals": args.deals, "open": len(still),
                       "cpu_seconds": cpu, "positions": int(rows[:, 2].sum())}]
            print(f"{name}: limit {limits[0]}: {len(still)} of {args.deals} open, {cpu:.1f} CPU s")
            for limit in limits[1:]:
                cpu = time.process_time()
                again = solve_many(decks[still], rules, limit)
                cpu = time.process_time() - cpu
                row = {"limit": limit, "deals": len(still), "open": int(open_wins(again).sum()),
                       "won": int((again[:, 0] == 52).sum()), "proven_lost": int((again[:, 5] < 52).sum()),
                       "cpu_seconds": cpu, "positions": int(again[:, 2].sum()),
                       "open_deals": [int(i) for i in still[open_wins(again)]]}
                passes.append(row)
                print(f"{name}: limit {limit}, the {len(still)} open at {limits[0]}: {row['open']} still "
                      f"open, {row['won']} won, {row['proven_lost']} proven lost, {cpu:.1f} CPU s")
            table[name] = {"open_deals": [int(i) for i in still], "passes": passes}
    save_result(args.out, {"machine": machine(), "seed": 2026, "threads": 1,
                           "search_version": SEARCH_VERSION, "rules": table})
    return 0


if __name__ == "__main__":
    sys.exit(main())
