"""Shortest lines to the optimal score beside the family search's first line.

    python bench/solitaire_family_shortest.py [--deals 100] [--node-limit 100000]

For deals 0..N-1 of seed 2026 under Yukon's and Alaska's rules, on one thread: the
family search's line (``family_search.optimal_line_moves``, the one ``--show`` gave
before) and ``family_shortest.shortest_line_moves`` (the family search, then the
breadth-first search for a shortest line), with the process-CPU seconds of each, per
deal. Reports how many deals got a proven shortest line, how many fell back (the
deal undecided, or the breadth-first search past the node limit), the mean length of
both lines over the deals with a proven shortest line, and the mean CPU seconds per
deal; for the deals cut, the levels the breadth-first search completed (a shortest
line has more moves). Results go to bench/results/solitaire_family_shortest.json with the machine.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _harness import machine, save_result  # noqa: E402
from jitgames._jit import threads  # noqa: E402
from jitgames.solitaire import deals  # noqa: E402
from jitgames.solitaire.family_search import FamilyScratch, optimal_line_moves  # noqa: E402
from jitgames.solitaire.family_shortest import shortest_line_moves  # noqa: E402
from jitgames.solitaire.family_study import capacity_for  # noqa: E402


def cpu_of(call):
    """``(process-CPU seconds, result)`` of ``call()``."""
    begin = time.process_time()
    result = call()
    return time.process_time() - begin, result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--node-limit", type=int, default=100_000)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "solitaire_family_shortest.json"))
    args = parser.parse_args(argv)
    decks = deals(2026, 0, args.deals)
    scratch = FamilyScratch.new(capacity_for(args.node_limit))
    table = {}
    with threads(1):
        shortest_line_moves(decks[0], 1, 1000, scratch)   # compile or load
        for rules, name in ((1, "yukon"), (2, "alaska")):
            rows = []
            for index, deck in enumerate(decks):
                dfs_cpu, dfs = cpu_of(lambda: optimal_line_moves(deck, rules, args.node_limit, scratch))
                cpu, found = cpu_of(lambda: shortest_line_moves(deck, rules, args.node_limit, scratch))
                rows.append({"index": index, "score": found.score, "decided": found.decided,
                             "shortest": found.shortest, "search_line": len(dfs),
                             "line": len(found.moves), "search_positions": found.search_positions,
                             "bfs_positions": found.positions, "levels": found.levels,
                             "search_cpu_seconds": dfs_cpu,
                             "cpu_seconds": cpu})
            proven = [r for r in rows if r["shortest"]]
            cut = [r for r in rows if r["decided"] and not r["shortest"]]
            summary = {
                "deals": len(rows), "shortest": len(proven),
                "undecided": sum(not r["decided"] for r in rows),
                "cut": len(cut),
                "won": sum(r["score"] == 52 for r in rows),
                "won_shortest": sum(r["score"] == 52 for r in proven),
                "mean_search_line_proven": statistics.fmean(r["search_line"] for r in proven) if proven else None,
                "mean_shortest_line": statistics.fmean(r["line"] for r in proven) if proven else None,
                "mean_search_line_all": statistics.fmean(r["search_line"] for r in rows),
                # a cut deal's shortest line has more than `levels` moves: its lower bound
                "mean_levels_cut": statistics.fmean(r["levels"] for r in cut) if cut else None,
                "mean_search_line_cut": statistics.fmean(r["search_line"] for r in cut) if cut else None,
                "search_cpu_seconds_per_deal": statistics.fmean(r["search_cpu_seconds"] for r in rows),
                "cpu_seconds_per_deal": statistics.fmean(r["cpu_seconds"] for r in rows),
                "rows": rows,
            }
            table[name] = summary
            print(f"{name}: {summary['shortest']} of {len(rows)} shortest "
                  f"({summary['won_shortest']} of {summary['won']} won deals), "
                  f"{summary['undecided']} undecided, {summary['cut']} cut; proven ones: "
                  f"search's line {summary['mean_search_line_proven']}, shortest "
                  f"{summary['mean_shortest_line']} moves; all: search's line "
                  f"{summary['mean_search_line_all']:.1f}; cut ones: search's line "
                  f"{summary['mean_search_line_cut']}, shortest > {summary['mean_levels_cut']} "
                  f"moves; CPU s per deal: search "
                  f"{summary['search_cpu_seconds_per_deal']:.3f}, with the shortest "
                  f"{summary['cpu_seconds_per_deal']:.3f}")
    save_result(args.out, {"machine": machine(), "seed": 2026, "threads": 1,
                           "node_limit": args.node_limit, "rules": table})
    return 0


if __name__ == "__main__":
    sys.exit(main())
