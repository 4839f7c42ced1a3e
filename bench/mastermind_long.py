"""Long optimal Mastermind runs: one game's optimal total, resumable, timed.

Runs ``python -m jitgames.mastermind optimal`` as a whole process with a checkpoint,
stops it with SIGTERM when ``--budget`` seconds are over (the command treats it as
Ctrl-C: the finished jobs stay in the checkpoint, and the finished tasks of jobs split
below the root in ``CHECKPOINT.tasks`` beside it; run the same command again to go on;
not SIGINT: a job started in the background by a shell inherits SIGINT ignored, and
its Python then never hears it). SIGTERM or Ctrl-C to this script ends the session the
same way, so its record is kept. It records each
session -- wall and CPU seconds, the total or the bounds reached, the published
value when ``tests/data/mastermind_optimal_larger.json`` has one -- in
``bench/results/mastermind_long.json`` (one entry per game; a *run* is the sessions
sharing one checkpoint and its task file, with their summed seconds; the machine
recorded with each).

    python bench/mastermind_long.py 6x4 --budget 3600
    python bench/mastermind_long.py 4x10 --no-repeats --budget 900     # Bulls and Cows
    python bench/mastermind_long.py 5x6 --budget 1800 --checkpoint 5x6.ckpt

Once a run completes, the command also writes its optimal tree (``--out``; by default
``bench/results/mastermind_trees/optimal-PxK.json.gz``, checked by ``evaluate --tree``).

The peer figures of ``bench/mastermind_optimal.py`` (mmstrat) are for the sizes it can
finish; this script is for the sizes beyond, where the run itself is the result.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

from _harness import ROOT, machine, save_result

sys.path.insert(0, str(ROOT))
from jitgames._store import data_dir  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "mastermind_long.json"
TREES = ROOT / "bench" / "results" / "mastermind_trees"
KNOWN = json.loads((ROOT / "tests" / "data" / "mastermind_optimal_larger.json").read_text())


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


GRACE = 60.0
"""Seconds the command is given to save and report after SIGTERM before it is killed."""


class _Stop(Exception):
    """SIGTERM or Ctrl-C reached this script: the session ends early, as at its budget."""


def session(argv: list[str], budget: float) -> tuple[dict | None, float, float, int]:
    """Run one session; ``(json result, wall s, cpu s, exit status)``.

    The command gets SIGTERM when the budget is over, and also when this script gets
    SIGTERM or Ctrl-C (handled here whatever was inherited): either way it saves and
    prints its partial result, which is recorded; it is killed if it has not ended
    :data:`GRACE` seconds later."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cpu, wall = children_cpu(), time.perf_counter()
    state = {"proc": None, "stop": False}

    def on_signal(signum, frame):
        state["stop"] = True
        if state["proc"] is not None:  # before, the stop is acted on once it exists
            raise _Stop

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        try:
            proc = subprocess.Popen(
                [sys.executable, "-m", "jitgames.mastermind", "optimal", *argv, "--json", "-q"],
                stdout=subprocess.PIPE, text=True, env=env,
                start_new_session=True)  # Ctrl-C reaches it from this script only
            state["proc"] = proc
            if state["stop"]:
                raise _Stop
            out, _ = proc.communicate(timeout=budget)
        except (subprocess.TimeoutExpired, _Stop):
            proc.send_signal(signal.SIGTERM)  # as Ctrl-C: the finished jobs are kept
            out = None
            while out is None:
                try:
                    out, _ = proc.communicate(timeout=GRACE)
                except subprocess.TimeoutExpired:
                    proc.kill()
                except _Stop:  # asked again: the grace period goes on
                    pass
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    wall = time.perf_counter() - wall
    try:
        result = json.loads(out)
    except ValueError:
        result = None
    return result, wall, children_cpu() - cpu, proc.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("size", help="PxK, e.g. 6x4")
    parser.add_argument("--no-repeats", action="store_true")
    parser.add_argument("--budget", type=float, default=3600, help="seconds of this session")
    parser.add_argument("--checkpoint", default=None,
                        help="checkpoint file (default mastermind-PxK.ckpt in the data "
                             "directory, $XDG_DATA_HOME/jitgames/checkpoints)")
    parser.add_argument("--out", default=None,
                        help="where the optimal tree is written once the run completes "
                             "(default bench/results/mastermind_trees/optimal-PxK.json.gz)")
    parser.add_argument("--no-tree", action="store_true",
                        help="do not build the optimal tree when the run completes")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--scheduler", default=None)
    parser.add_argument("--results", default=str(RESULTS),
                        help="the JSON file of sessions (default bench/results/mastermind_long.json)")
    parser.add_argument("--note", default=None,
                        help="recorded with the session, e.g. which version of the search ran")
    args = parser.parse_args()
    pegs, colours = (int(x) for x in args.size.lower().split("x"))
    repeats = not args.no_repeats
    name = f"{pegs}x{colours}" + ("" if repeats else "-no-repeats")
    checkpoint = args.checkpoint or str(data_dir() / "checkpoints" / f"mastermind-{name}.ckpt")
    argv = ["-p", str(pegs), "-k", str(colours), "--checkpoint", checkpoint]
    argv += ["--no-repeats"] if not repeats else []
    if not args.no_tree:
        argv += ["--out", args.out or os.path.relpath(TREES / f"optimal-{name}.json.gz")]
    argv += ["--threads", str(args.threads)] if args.threads else []
    argv += ["--scheduler", args.scheduler] if args.scheduler else []
    known = next((v for v in KNOWN["values"] if (v["pegs"], v["colours"], v["repeats"])
                  == (pegs, colours, repeats)), None)
    result, wall, cpu, status = session(argv, args.budget)
    record = {"command": "python -m jitgames.mastermind optimal " + " ".join(argv),
              "status": status, "wall_seconds": round(wall, 1), "cpu_seconds": round(cpu, 1),
              "result": result, "machine": machine(), "note": args.note}
    results = Path(args.results)
    data = json.loads(results.read_text()) if results.exists() else {}
    entry = data.setdefault(name, {"known": known, "runs": []})
    entry["known"] = known
    run = next((r for r in entry["runs"] if r["checkpoint"] == checkpoint), None)
    if run is None:  # a run is the sessions sharing one checkpoint
        run = {"checkpoint": checkpoint, "sessions": []}
        entry["runs"].append(run)
    run["sessions"].append(record)
    run["wall_seconds_total"] = round(sum(s["wall_seconds"] for s in run["sessions"]), 1)
    run["cpu_seconds_total"] = round(sum(s["cpu_seconds"] for s in run["sessions"]), 1)
    save_result(results, data)
    if result is None:
        print(f"{name}: no result (exit status {status})")
        return 1
    if result["complete"]:
        match = "" if known is None else (
            f"; {known['status']} value {known['total']}: "
            + ("equal" if known["total"] == result["total"] else "DIFFERENT"))
        tree = "" if result.get("out") is None else f"; tree in {result['out']}"
        print(f"{name}: total {result['total']} (first guess {result['first_guess']}) in "
              f"{wall:.0f} s wall, {cpu:.0f} s CPU this session{match}{tree}")
    elif "jobs" not in result:  # stopped before its search had started
        print(f"{name}: stopped after {wall:.0f} s, before any job (exit status {status}); "
              "run again to resume")
    else:
        print(f"{name}: not finished after {wall:.0f} s: total in [{result['lower_bound']}, "
              f"{result['upper_bound']}], {result['jobs_exact'] + result['jobs_cut']} of "
              f"{result['jobs']} jobs done; run again to resume")
    return 0


if __name__ == "__main__":
    sys.exit(main())
