"""Best-first win probes (family_bestfirst.py) against the search as it is, same deals.

    python bench/solitaire_family_bestfirst.py [--first 0] [--deals 400] [--node-limit 100000]
        [--plans 1.3,1.bf8,none,bf16] [--weights 4,-4,2,-1] [--repeats 2] [--rules 1,2]

A *plan* is the order of the searches run before the depth-first goal search, each
of them a step of ``best_score`` in ``family_search.py``: ``1`` and ``3`` the
depth-first probes of slack 1 and 3 (each ``node_limit // 4`` positions), ``bfK`` a
best-first probe of ``node_limit // K`` positions, ``bfgoal`` the best-first search as
the goal search itself (every position left), ``none`` no probe (search version 3
ran ``1.3`` under Yukon's rules and ``none`` under Alaska's; version 4 runs ``1.bf8``
and ``bf16``). Then, as in ``best_score``, the depth-first goal
search with the positions left (skipped when a best-first search saw every position of
bound at least the goal: the goal is then proven out of reach) and the score search.
All plans run in one process on one thread, the plans alternating within each repeat
(the kernels compiled first on one deal); each deal's score must be the same under
every plan that decides it as under the first plan, and no plan's proven upper bound
below a score another found (checked: exit status 1 otherwise). Reports per rules and plan the
undecided deals, those whose win is open (score undecided, proven upper bound 52), the
won deals, the positions and the median CPU seconds; results go to
bench/results/solitaire_family_bestfirst.json with the machine.
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
sys.path.insert(0, str(ROOT / "bench"))

from _harness import machine, save_result  # noqa: E402
from jitgames._jit import jit, threads  # noqa: E402
from jitgames.solitaire import deals  # noqa: E402
from jitgames.solitaire.family import SCORE, deal_position  # noqa: E402
from jitgames.solitaire.family_bestfirst import N_FEATURES, best_first  # noqa: E402
from jitgames.solitaire.family_bound import score_bound  # noqa: E402
from jitgames.solitaire.family_search import (EXACT, N_FIELDS, PROBE_SHARE, UNDECIDED,  # noqa: E402
                                              FamilyScratch, _search)
from jitgames.solitaire.family_study import capacity_for  # noqa: E402

BF_GOAL = -2       # plan step: the best-first search as the goal search


@jit
def solve_plan(decks, rules, slots, meta, pos, stack, moves, line, node_limit, plan, weights, out):
    """Rows (score, status, positions, line, 0, upper) of ``decks`` under ``plan``: steps
    ``s`` >= 0 a depth-first probe of slack ``s``, ``-1 - K`` (K >= 2) a best-first probe
    of ``node_limit // K`` positions, :data:`BF_GOAL` the best-first goal search."""
    for d in range(decks.shape[0]):
        deal_position(decks[d], rules, pos)
        goal = score_bound(pos)
        best = pos[SCORE]
        line[0] = 0
        positions = 0
        status = UNDECIDED
        reached = best >= goal
        below = False          # the goal is proven out of reach
        cut = False            # a goal search passed a limit
        for k in range(plan.shape[0]):
            if reached or below or cut:
                break
            step = plan[k]
            if step >= 0:
                best, status, n = _search(pos, slots, meta, stack, moves, line, node_limit // PROBE_SHARE,
                                          goal, step, best, goal)
            elif step == BF_GOAL:
                best, status, n = best_first(pos, slots, meta, moves, line, max(node_limit - positions, 1),
                                             goal, best, weights)
                if status == UNDECIDED:
                    cut = True
            else:
                best, status, n = best_first(pos, slots, meta, moves, line, node_limit // (-1 - step),
                                             goal, best, weights)
            positions += n
            if best >= goal:
                reached = True
            elif step < 0 and status == EXACT:
                below = True
        if reached:
            out[d, 0], out[d, 1], out[d, 2], out[d, 5] = best, EXACT, max(positions, 1), best
        elif cut:
            out[d, 0], out[d, 1], out[d, 2], out[d, 5] = best, UNDECIDED, positions, goal
        else:
            if not below:
                best, status, n = _search(pos, slots, meta, stack, moves, line,
                                          max(node_limit - positions, 1), goal, -1, best, goal)
                positions += n
            if best >= goal:
                out[d, 0], out[d, 1], out[d, 2], out[d, 5] = best, EXACT, positions, best
            elif not below and status == UNDECIDED:
                out[d, 0], out[d, 1], out[d, 2], out[d, 5] = best, UNDECIDED, positions, goal
            elif best >= goal - 1:
                out[d, 0], out[d, 1], out[d, 2], out[d, 5] = best, EXACT, positions, best
            else:
                best, status, n = _search(pos, slots, meta, stack, moves, line,
                                          max(node_limit - positions, 1), goal - 1, -1, best, 0)
                out[d, 0], out[d, 1], out[d, 2] = best, status, positions + n
                out[d, 5] = best if status == EXACT else goal - 1
        out[d, 3] = line[0]


def parse_plan(text: str) -> np.ndarray:
    if text == "none":
        return np.zeros(0, dtype=np.int64)
    steps = []
    for part in text.split("."):
        if part == "bfgoal":
            steps.append(BF_GOAL)
        elif part.startswith("bf") and int(part[2:]) >= 2:
            steps.append(-1 - int(part[2:]))
        elif int(part) >= 0:
            steps.append(int(part))
        else:
            raise ValueError(part)
    return np.array(steps, dtype=np.int64)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=400)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--node-limit", type=int, default=100_000)
    parser.add_argument("--plans", default="1.3,1.bf8,none,bf16")
    parser.add_argument("--weights", default="4,-4,2,-1")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--rules", default="1,2")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "solitaire_family_bestfirst.json"))
    args = parser.parse_args(argv)
    try:
        weights = np.array([int(x) for x in args.weights.split(",")], dtype=np.int64)
        rule_sets = [int(r) for r in args.rules.split(",")]
    except ValueError:
        print(f"--weights and --rules take integers, got {args.weights!r}, {args.rules!r}",
              file=sys.stderr)
        return 2
    if weights.shape[0] != N_FEATURES:
        print(f"--weights needs {N_FEATURES} numbers", file=sys.stderr)
        return 2
    if not all(r in (1, 2) for r in rule_sets):
        print(f"--rules: 1 (Yukon) or 2 (Alaska), got {args.rules!r}", file=sys.stderr)
        return 2
    try:
        for plan in args.plans.split(","):
            parse_plan(plan)
    except ValueError:
        print(f"--plans: steps are 1, 3, bfK (K >= 2), bfgoal or none, got {args.plans!r}", file=sys.stderr)
        return 2
    decks = deals(2026, args.first, args.first + args.deals)
    scratch = FamilyScratch.new(capacity_for(args.node_limit))
    plans = args.plans.split(",")
    table = {}
    failed = False
    with threads(1):
        for rules in rule_sets:
            name = ("etude", "yukon", "alaska")[rules]
            rows, cpu = {}, {p: [] for p in plans}
            for plan in plans:       # compile, one deal
                solve_plan(decks[:1], rules, scratch.slots, scratch.meta, scratch.pos, scratch.stack,
                           scratch.moves, scratch.line, 1000, parse_plan(plan), weights,
                           np.zeros((1, N_FIELDS), dtype=np.int64))
            for _ in range(args.repeats):
                for plan in plans:
                    out = np.zeros((decks.shape[0], N_FIELDS), dtype=np.int64)
                    start = time.process_time()
                    solve_plan(decks, rules, scratch.slots, scratch.meta, scratch.pos, scratch.stack,
                               scratch.moves, scratch.line, args.node_limit, parse_plan(plan),
                               weights, out)
                    cpu[plan].append(time.process_time() - start)
                    if plan in rows and not np.array_equal(rows[plan], out):
                        raise SystemExit(f"{name} {plan}: two runs differ")
                    rows[plan] = out
            ref = rows[plans[0]]
            entry = {}
            for plan in plans:
                r = rows[plan]
                both = (ref[:, 1] == EXACT) & (r[:, 1] == EXACT)
                bad = np.flatnonzero(both & (ref[:, 0] != r[:, 0]))
                # an upper bound never below a score the other plan found
                unsound = int(((r[:, 5] < ref[:, 0]) | (ref[:, 5] < r[:, 0])).sum())
                entry[plan] = {
                    "undecided": int((r[:, 1] == UNDECIDED).sum()),
                    "win_open": int(((r[:, 1] == UNDECIDED) & (r[:, 5] >= 52)).sum()),
                    "won": int((r[:, 0] == 52).sum()),
                    "positions": int(r[:, 2].sum()),
                    "cpu_seconds": cpu[plan], "cpu_median": statistics.median(cpu[plan]),
                    "decided_by_both_with_first": int(both.sum()), "score_differs": bad.tolist(),
                    "bound_below_other_score": unsound,
                    "open_deals": (np.flatnonzero((r[:, 1] == UNDECIDED) & (r[:, 5] >= 52)) + args.first).tolist(),
                }
                e = entry[plan]
                failed = failed or bool(len(bad)) or unsound > 0
                print(f"{name:7s} {plan:14s} undecided {e['undecided']:3d} open {e['win_open']:3d} "
                      f"won {e['won']:3d} positions {e['positions']:10,d} CPU s {e['cpu_median']:7.2f} "
                      f"(x{entry[plans[0]]['cpu_median'] / e['cpu_median']:.2f}) same score on "
                      f"{e['decided_by_both_with_first'] - len(bad)} of {e['decided_by_both_with_first']}"
                      f"{'' if not unsound else f' UNSOUND {unsound}'}", flush=True)
            table[name] = entry
    save_result(args.out, {"deals": [args.first, args.first + args.deals], "seed": 2026,
                           "node_limit": args.node_limit, "weights": weights.tolist(),
                           "repeats": args.repeats, "plans": plans, "results": table,
                           "machine": machine()})
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
