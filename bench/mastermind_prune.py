"""The optimal search alone, this code against a worktree of the code before it.

``python bench/mastermind_prune.py --before DIR --sizes 5x5,4x8,6x4 --repeats 3``
runs ``OptimalSearch.best`` of all codes (one thread, no tree, no split jobs: the
search of ``docs/mastermind_optimal.md``'s table of steps) in a fresh process per run,
for this checkout and for ``DIR`` (e.g. ``git worktree add /tmp/mmbase 51db55e``),
alternating, each process after one warm-up search of 4 x 6 so that compiling is not
counted. Records CPU seconds of the search (``time.process_time``: on a machine shared
with other jobs they move much less than wall seconds), the total, the guess, and
the search's counters where the code has them (``Search.counts``); prints medians and
the ratio before / after, and writes ``bench/results/mastermind_prune.json``.

``--job CODE:B,W`` searches one root job instead of all codes: the class of the codes
answering ``B`` blacks and ``W`` whites to the first guess ``CODE`` (digits 1..9), e.g.
``--sizes 5x6 --job 11223:1,2``, the 984-code job of 5 x 6 where the profile of
``docs/mastermind_optimal.md`` was taken.

``--cli`` times whole processes of ``python -m jitgames mastermind optimal -p P -k K
--json`` instead (the resumable run of ``optimal_run``: root jobs, their plan and its
bounds, default threads), CPU seconds of the child process (user + system) beside
wall seconds, alternating the same way (results in ``--out``).
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _harness import machine, save_result  # noqa: E402

RUN = """
import json, sys, time
sys.path.insert(0, {root!r})
import numpy as np
from jitgames.mastermind.codes import load_game
from jitgames.mastermind.optimal import OptimalSearch

def search(pegs, colours, job=None):
    space, matrix = load_game(pegs, colours)
    s = OptimalSearch(space, matrix, None, workers=1)
    members, history = np.arange(space.size, dtype=np.int32), []
    used = np.zeros(colours, np.bool_)
    if job is not None:  # (code, blacks, whites): one class of the first guess
        value = int("".join(str(int(c) - 1) for c in job[0]), colours)
        first = int(np.searchsorted(space.values, value))
        members = np.flatnonzero(matrix[first] == job[1] * (pegs + 1) + job[2]).astype(np.int32)
        used[space.digits[first]] = True
        history = [first]
    wall, cpu = time.perf_counter(), time.process_time()
    cost, guess = s.best(members, s.remaining - len(history), used, history)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    counts = getattr(s.states[0], "counts", None)
    return {{"total": int(cost), "guess": int(guess), "cpu_s": cpu, "wall_s": wall,
            "counts": None if counts is None else [int(x) for x in counts]}}

search(4, 6)  # compiled kernels loaded (or compiled) before the timed search
print(json.dumps(search({pegs}, {colours}, {job!r})))
"""


def run(root: Path, pegs: int, colours: int, timeout: float, job=None) -> dict:
    out = subprocess.run([sys.executable, "-c", RUN.format(root=str(root), pegs=pegs,
                                                           colours=colours, job=job)],
                         capture_output=True, text=True, timeout=timeout, check=True, cwd="/")
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_cli(root: Path, pegs: int, colours: int, timeout: float) -> dict:
    """One whole ``jitgames mastermind optimal`` process of the checkout ``root``."""
    import resource
    import time
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "jitgames", "mastermind", "optimal", "-p",
                          str(pegs), "-k", str(colours), "--json"],
                         capture_output=True, text=True, timeout=timeout, check=True, cwd=root)
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    result = json.loads(out.stdout)
    return {"total": int(result["total"]), "guess": result["first_guess"], "cpu_s": cpu,
            "wall_s": wall, "tasks": result.get("tasks"), "counts": None}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, type=Path, help="worktree of the code before")
    ap.add_argument("--sizes", default="5x5,4x8,6x4", help="PxK,... (repeats allowed)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per run")
    ap.add_argument("--out", default="mastermind_prune.json")
    ap.add_argument("--job", default=None,
                    help="CODE:B,W: search the class answering (B, W) to CODE only")
    ap.add_argument("--cli", action="store_true",
                    help="time whole 'jitgames mastermind optimal' processes")
    args = ap.parse_args()
    from jitgames.mastermind.branch_and_bound import COUNT_NAMES

    job = None
    if args.job:
        code, answer = args.job.split(":")
        blacks, whites = (int(x) for x in answer.split(","))
        job = (code, blacks, whites)
    rows = []
    for size in args.sizes.split(","):
        pegs, colours = (int(x) for x in size.split("x"))
        runs = {"before": [], "after": []}
        for _ in range(args.repeats):
            for label, root in (("before", args.before.resolve()), ("after", ROOT)):
                result = (run_cli(root, pegs, colours, args.timeout) if args.cli else
                          run(root, pegs, colours, args.timeout, job))
                runs[label].append(result)
                print(f"{size} {label}: total {result['total']} cpu {result['cpu_s']:.2f} s"
                      f" wall {result['wall_s']:.2f} s", flush=True)
        totals = {(r["total"], r["guess"]) for label in runs for r in runs[label]}
        if len(totals) != 1:
            raise SystemExit(f"{size}: the totals differ: {sorted(totals)}")
        before = statistics.median(r["cpu_s"] for r in runs["before"])
        after = statistics.median(r["cpu_s"] for r in runs["after"])
        counts = runs["after"][-1]["counts"]
        total, guess = totals.pop()
        wall_before = statistics.median(r["wall_s"] for r in runs["before"])
        wall_after = statistics.median(r["wall_s"] for r in runs["after"])
        rows.append({"size": size, "job": args.job, "total": total, "guess": guess,
                     "before_cpu_s": before,
                     "after_cpu_s": after, "ratio": before / after,
                     "before_wall_s": wall_before, "after_wall_s": wall_after,
                     "counts_after": dict(zip(COUNT_NAMES, counts)) if counts else None,
                     "runs": runs})
        print(f"{size}: total {rows[-1]['total']}, CPU s median before {before:.2f}, "
              f"after {after:.2f}, before / after {before / after:.2f}", flush=True)
    save_result(ROOT / "bench" / "results" / args.out,
                {"command": " ".join(sys.argv), "machine": machine(), "rows": rows})


if __name__ == "__main__":
    main()
