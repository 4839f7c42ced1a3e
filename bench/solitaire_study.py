"""The étude's large study, run in resumable sessions: summary and histogram saved as JSON.

    PYTHONPATH=. python3 bench/solitaire_study.py --deals 10^8 --budget 420

runs ``python -m jitgames.solitaire N --json --checkpoint FILE`` (seed 0, Fisher-Yates,
full mode: score, moves and decision points) for at most ``--budget`` seconds, then
stops it with SIGTERM, which the command treats as Ctrl-C (the finished chunks are
kept in the checkpoint, and the finished blocks of the chunk in progress when the
block running then stops within half a second; chunks of 2^16 deals take about a
second on 16 threads, a minute on a busy 2-core machine, so little is lost). Not SIGINT:
a job started in the background by a shell inherits SIGINT ignored, and Python then
never hears it. Running the same command again, here
or on another machine with the checkpoint file copied along, resumes where the last
session stopped; the answers do not depend on the machine or the thread count.

The result file (default ``bench/results/solitaire_study_<N>.json``) holds the study's
summary (mean, sd and 95% interval of the optimal score, of the optimal line's moves
and of its decision points; win rate and the two fractions with Wilson intervals),
the 53-bin score histogram, whether the study is complete, and one record per
session: the machine (:func:`_harness.machine`), the UTC time, the threads, the deals
before and after, the wall seconds and the throughput. A session's record is added to
those already in the file when the file belongs to the same study (same parameters).
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._harness import ROOT, machine, save_result  # noqa: E402
from jitgames._cli import parse_int  # noqa: E402

GRACE_SECONDS = 60
"""After SIGTERM the study finishes its current block (about a second) and writes the
checkpoint; it is killed if it has not ended after this many seconds."""


def _count(text: str) -> int:
    return parse_int(text)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=_count, default=10**8, help="N (default 10^8)")
    parser.add_argument("--seed", type=_count, default=0)
    parser.add_argument("--threads", type=_count, default=None,
                        help="threads (default: every core)")
    parser.add_argument("--score-only", action="store_true",
                        help="scores only (about 6x faster; no moves or decision points)")
    parser.add_argument("--chunk-size", type=_count, default=1 << 16,
                        help="deals per chunk (default 2^16; a checkpoint is tied to it)")
    parser.add_argument("--budget", type=float, default=None,
                        help="stop the session after this many seconds (default: run to the end)")
    parser.add_argument("--checkpoint", type=Path, default=None,
                        help="checkpoint file (default bench/results/solitaire_study_<N>.ckpt)")
    parser.add_argument("--out", type=Path, default=None,
                        help="result JSON (default bench/results/solitaire_study_<N>.json)")
    return parser


def _name(args) -> str:
    size = f"{args.deals:.0e}".replace("+0", "").replace("+", "") \
        if args.deals >= 10**6 and str(args.deals).rstrip("0") == "1" else str(args.deals)
    return f"solitaire_study_{size}{'_score_only' if args.score_only else ''}"


def _deals_in_checkpoint(path: Path) -> int:
    """Deals already in the checkpoint ``path`` (0 when there is none): its payload,
    after the header line, lists ``[start, stop, partial]`` chunks. The study itself
    checks the file before it resumes; this count only labels the session."""
    if not path.exists():
        return 0
    payload = path.read_bytes().split(b"\n", 1)[1]
    return sum(stop - start for start, stop, _ in json.loads(payload)["chunks"])


def run_session(args) -> dict:
    """One session of the study: ``(summary or None, status, wall seconds)`` as a dict."""
    command = [sys.executable, "-m", "jitgames.solitaire", str(args.deals), "--seed",
               str(args.seed), "--json", "--quiet", "--checkpoint", str(args.checkpoint),
               "--chunk-size", str(args.chunk_size)]
    if args.threads:
        command += ["--threads", str(args.threads)]
    if args.score_only:
        command.append("--score-only")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    begin = time.perf_counter()
    child = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    try:
        out, _ = child.communicate(timeout=args.budget)
    except subprocess.TimeoutExpired:
        child.send_signal(signal.SIGTERM)  # as Ctrl-C: finished work stays in the checkpoint
        try:
            out, _ = child.communicate(timeout=GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            child.kill()
            out, _ = child.communicate()
    wall = time.perf_counter() - begin
    summary = json.loads(out) if out.strip() else None
    return {"summary": summary, "status": child.returncode, "wall_seconds": wall,
            "command": " ".join(command[1:])}


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    results = ROOT / "bench" / "results"
    args.checkpoint = args.checkpoint or results / f"{_name(args)}.ckpt"
    args.out = args.out or results / f"{_name(args)}.json"
    params = {"deals": args.deals, "seed": args.seed, "shuffle": "fisher-yates",
              "score_only": args.score_only, "chunk_size": args.chunk_size}
    sessions = []
    if args.out.exists():
        try:
            old = json.loads(args.out.read_text())
            if old.get("params") == params:
                sessions = old.get("sessions", [])
        except ValueError:
            pass
    done_before = _deals_in_checkpoint(args.checkpoint)
    where = machine()
    session = run_session(args)
    summary = session["summary"]
    if summary is None:
        print(f"the study gave no result (status {session['status']})", file=sys.stderr)
        return 1
    deals_now = summary["deals"]
    resumed = summary.get("resumed_chunks", 0)
    new_deals = deals_now - done_before
    sessions.append({"machine": where, "threads": summary.get("threads"),
                     "deals_before": done_before, "deals_after": deals_now,
                     "resumed_chunks": resumed, "wall_seconds": session["wall_seconds"],
                     "study_seconds": summary.get("seconds"),
                     "deals_per_second": new_deals / summary["seconds"]
                     if summary.get("seconds") else None,
                     "status": session["status"], "command": session["command"]})
    threads = summary.get("threads") or 1
    if sessions[-1]["deals_per_second"]:
        sessions[-1]["deals_per_second_per_thread"] = sessions[-1]["deals_per_second"] / threads
    result = {"benchmark": "solitaire_study", "params": params,
              "complete": bool(summary.get("complete")) and deals_now == args.deals,
              "deals_done": deals_now, "summary": summary,
              "histogram": summary.get("histogram"), "checkpoint": str(args.checkpoint),
              "sessions": sessions}
    save_result(args.out, result)
    _print(result)
    return 0


def _print(result) -> None:
    s, last = result["summary"], result["sessions"][-1]
    state = "complete" if result["complete"] else \
        f"{s['deals']:,} of {result['params']['deals']:,} deals so far (run again to resume)"
    print(f"study of seed {result['params']['seed']}: {state}")
    if s["deals"] > 1:
        print(f"  mean {s['mean']:.5f} cards, sd {s['sd']:.4f}, 95% [{s['ci95'][0]:.5f}, "
              f"{s['ci95'][1]:.5f}]; wins {100 * s['win_rate']:.4f}% "
              f"[{100 * s['win_rate_ci95'][0]:.4f}, {100 * s['win_rate_ci95'][1]:.4f}]")
        for key in ("moves", "decisions"):
            f = s.get(key)
            if f and f["sd"] is not None:
                print(f"  {key}: mean {f['mean']:.5f}, sd {f['sd']:.4f}, 95% "
                      f"[{f['ci95'][0]:.5f}, {f['ci95'][1]:.5f}]")
    rate = last.get("deals_per_second")
    print(f"  this session: {last['deals_after'] - last['deals_before']:,} deals in "
          f"{last['wall_seconds']:.1f} s wall on {last['threads']} thread(s)"
          + (f", {rate:,.0f} deals/s" if rate else ""))


if __name__ == "__main__":
    sys.exit(main())
