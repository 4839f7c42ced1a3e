"""Benchmark: the optimal Mastermind search against mmstrat, whole process, same run.

Run ``python bench/mastermind_optimal.py`` (``--sizes 4x6,4x7,5x5,bc``, ``--repeats N``,
``--timeout SECONDS``, ``--threads N`` for ours, ``--peer-sizes`` the sizes the peer
also runs, default all; ``--out FILE`` the result file). Each repeat runs our command and the
peer's one after the other (alternating, so load on the shared machine hits both
alike); the table shows median wall seconds of the whole process (start-up and
compiled-code loading included, the Numba cache warmed first) and the ratio
peer / ours (above 1: ours is faster). Totals are checked to agree.

The peer is mmstrat (github.com/widmaN/mastermind-strategy), built outside this
repository; set ``MMSTRAT`` to its executable (``docs/mastermind_optimal.md`` says how
it was built). Without it the peer's column is skipped, saying so. It runs with its
default single thread (``-mt`` was slower here). Results go to
``bench/results/mastermind_optimal.json`` with the machine record.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _harness import machine  # noqa: E402

SIZES = {"4x6": (4, 6, True), "4x7": (4, 7, True), "5x5": (5, 5, True), "bc": (4, 10, False),
         "3x5": (3, 5, True), "4x5": (4, 5, True)}


def ours_command(pegs, colours, repeats, threads):
    cmd = [sys.executable, "-m", "jitgames.mastermind", "evaluate", "-s", "optimal", "-p",
           str(pegs), "-k", str(colours), "--json", "-q"]
    if not repeats:
        cmd.append("--no-repeats")
    if threads:
        cmd += ["--threads", str(threads)]
    return cmd


def peer_rules(pegs, colours, repeats):
    return f"p{pegs}c{colours}{'r' if repeats else 'n'}"


def children_cpu() -> float:
    """CPU seconds (user + system) of the finished child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_ours(pegs, colours, repeats, threads, timeout):
    start, cpu = time.perf_counter(), children_cpu()
    out = subprocess.run(ours_command(pegs, colours, repeats, threads), cwd=ROOT,
                         capture_output=True, text=True, timeout=timeout, check=True)
    seconds = time.perf_counter() - start
    return (seconds, children_cpu() - cpu), json.loads(out.stdout)["total"]


def run_peer(path, pegs, colours, repeats, timeout):
    start, cpu = time.perf_counter(), children_cpu()
    out = subprocess.run([path, "-r", peer_rules(pegs, colours, repeats), "-s", "optimal", "-S"],
                         capture_output=True, text=True, timeout=timeout, check=True)
    seconds = (time.perf_counter() - start, children_cpu() - cpu)
    total = None
    for line in out.stdout.splitlines():
        fields = line.split()
        if len(fields) > 2 and fields[0] == "optimal" and fields[1].isdigit():
            total = int(fields[1])
    return seconds, total


def timed(call):
    try:
        return call()
    except subprocess.TimeoutExpired:
        return None, None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="4x6,4x7,5x5", help=f"from {', '.join(SIZES)}")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=900, help="seconds per run")
    parser.add_argument("--threads", type=int, default=None, help="our threads (default all)")
    parser.add_argument("--peer-sizes", default=None,
                        help="sizes the peer runs too (default: all of --sizes)")
    parser.add_argument("--out", default="mastermind_optimal.json",
                        help="result file in bench/results")
    args = parser.parse_args()
    peer_sizes = set((args.peer_sizes or args.sizes).split(","))
    peer = os.environ.get("MMSTRAT")
    if not peer or not os.access(peer, os.X_OK):
        print("peer skipped: set MMSTRAT to the mmstrat executable "
              "(see docs/mastermind_optimal.md)", flush=True)
        peer = None
    # Warm the Numba cache so that no run pays compilation.
    subprocess.run(ours_command(2, 3, True, args.threads), cwd=ROOT, capture_output=True,
                   check=True, timeout=1800)
    rows = []
    for label in args.sizes.split(","):
        pegs, colours, repeats = SIZES[label.strip()]
        ours, theirs, totals = [], [], set()
        for _ in range(args.repeats):
            seconds, total = timed(lambda: run_ours(pegs, colours, repeats, args.threads,
                                                    args.timeout))
            ours.append(seconds)
            totals.add(total)
            print(f"  {label}: ours {seconds} (wall, CPU s), total {total}", flush=True)
            if peer and label.strip() in peer_sizes:
                seconds, total = timed(lambda: run_peer(peer, pegs, colours, repeats,
                                                        args.timeout))
                theirs.append(seconds)
                totals.add(total)
                print(f"  {label}: peer {seconds} (wall, CPU s), total {total}", flush=True)
        done_ours = [s for s in ours if s is not None]
        done_peer = [s for s in theirs if s is not None]
        med = lambda runs, k: statistics.median(r[k] for r in runs) if runs else None  # noqa: E731
        row = {"size": label, "totals": sorted(t for t in totals if t is not None),
               "ours_seconds": med(done_ours, 0), "ours_cpu_seconds": med(done_ours, 1),
               "ours_runs": ours, "peer_seconds": med(done_peer, 0),
               "peer_cpu_seconds": med(done_peer, 1), "peer_runs": theirs,
               "command": " ".join(ours_command(pegs, colours, repeats, args.threads)[1:]),
               "peer_command": f"mmstrat -r {peer_rules(pegs, colours, repeats)} -s optimal -S"}
        if row["ours_seconds"] and row["peer_seconds"]:
            row["peer_over_ours"] = row["peer_seconds"] / row["ours_seconds"]
            row["peer_over_ours_cpu"] = row["peer_cpu_seconds"] / row["ours_cpu_seconds"]
        if len(row["totals"]) > 1:
            print(f"  totals disagree: {row['totals']}", flush=True)
        rows.append(row)
        print(f"  {label}: total {row['totals']}, ours {row['ours_seconds']} s "
              f"({row['ours_cpu_seconds']} CPU s), peer {row['peer_seconds']} s "
              f"({row['peer_cpu_seconds']} CPU s)", flush=True)
    out = ROOT / "bench" / "results" / args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"machine": machine(), "threads": args.threads,
                               "repeats": args.repeats, "rows": rows}, indent=1) + "\n")
    print(f"\n{'size':<6}{'total':>8}{'ours s':>9}{'mmstrat s':>11}{'ratio':>7}"
          f"{'ours CPU s':>12}{'mmstrat CPU s':>15}{'ratio':>7}")
    for r in rows:
        fmt = lambda x, w, p=2: f"{x:>{w}.{p}f}" if x is not None else f"{'-':>{w}}"  # noqa: E731
        print(f"{r['size']:<6}{(r['totals'] or ['-'])[0]!s:>8}{fmt(r['ours_seconds'], 9)}"
              f"{fmt(r['peer_seconds'], 11)}{fmt(r.get('peer_over_ours'), 7)}"
              f"{fmt(r['ours_cpu_seconds'], 12)}{fmt(r['peer_cpu_seconds'], 15)}"
              f"{fmt(r.get('peer_over_ours_cpu'), 7)}")
    print("ratio: mmstrat / ours (above 1: ours faster); CPU seconds count every thread")
    print(f"written {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
