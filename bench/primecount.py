"""Benchmark of pi(x) by the combinatorial method beside primecount, and the check of
pi(10^k) for the k too slow for the tests.

Run ``python bench/primecount.py [--points 1e12 1e13 1e15] [--repeats 3]
[--threads 1 2 16] [--check 1e16 ...] [--primecount PATH] [--out
bench/results/primecount.json]``. ``--primecount`` names the peer's binary (default:
``primecount`` on the PATH; where it was found is printed and saved).

Every figure is a whole process started afresh: ``python -c`` loading jitgames's
compiled kernels (a first pi(10^7)) and timing ``prime_pi(x)`` (``kernel s``), and
primecount's command line (Debian package ``primecount``, run as ``primecount X
--threads=N --time``, its own ``Seconds:`` line) on the same x, run alternately,
``--repeats`` times each; the table gives medians and the ratio ours / primecount of
the timed parts (pi alone on both sides), of whole-process wall and CPU seconds, and
on one thread of the CPU seconds of pi alone (ours) against primecount's process
(steadier than wall on a shared machine).
Both answers are compared with each other and with OEIS A006880
(tests/data/primes_pi.csv) where it lists x. ``--check X ...`` computes pi(X) once
(ours only, on all threads unless ``--threads`` says otherwise) and compares it with
the data file: that is how pi(10^15) .. pi(10^19) are checked.
"""
from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
import time

from _harness import ROOT, machine, save_result
from primes import find_peer, timed_child

OURS = """
import json, sys, time
from jitgames._cli import exit_process
from jitgames._jit import threads
from jitgames.primes.counting import prime_pi, pi_parts
x, n = int(sys.argv[1]), int(sys.argv[2])
with threads(n):
    pi_parts(10**7)  # start-up: load the compiled kernels
    t = time.perf_counter()
    c = time.process_time()
    parts = pi_parts(x) if x >= 10**6 else None
    value = parts.pi if parts else prime_pi(x)
    kernel = time.perf_counter() - t
    kernel_cpu = time.process_time() - c
print(json.dumps({"pi": value, "kernel": kernel, "kernel_cpu": kernel_cpu,
                  "y": parts.y if parts else None}))
exit_process(0)
"""


def known_pi() -> dict[int, int]:
    with open(ROOT / "tests" / "data" / "primes_pi.csv") as handle:
        return {int(r["n"]): int(r["pi"]) for r in csv.DictReader(handle)}


def ours(x: int, n_threads: int) -> dict:
    run = timed_child([sys.executable, "-c", OURS, str(x), str(n_threads)])
    return {**run, **json.loads(run["out"].strip().splitlines()[-1])}


PEER = ["primecount"]  # the peer's binary, as found or given (main)


def primecount(x: int, n_threads: int) -> dict:
    run = timed_child([PEER[0], str(x), f"--threads={n_threads}", "--time"])
    lines = run["out"].split()
    seconds = next(float(lines[i + 1]) for i, w in enumerate(lines) if w == "Seconds:")
    return {**run, "pi": int(run["out"].split()[0]), "kernel": seconds}


def median(runs, key):
    values = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(values) if values else None


def ratio(a, b):
    return a / b if a is not None and b else None


def compare(x: int, n_threads: int, repeats: int, peer: bool, known: dict) -> dict:
    mine, theirs = [], []
    for _ in range(repeats):
        mine.append(ours(x, n_threads))
        if peer:
            theirs.append(primecount(x, n_threads))
    values = {r["pi"] for r in mine + theirs}
    if len(values) != 1 or (x in known and values != {known[x]}):
        raise SystemExit(f"pi({x}) disagrees: ours {[r['pi'] for r in mine]}, primecount "
                         f"{[r['pi'] for r in theirs]}, OEIS {known.get(x)}")
    row = {"x": x, "threads": n_threads, "pi": mine[0]["pi"], "y": mine[0]["y"],
           "oeis": x in known, "repeats": repeats,
           "ours_kernel_s": median(mine, "kernel"), "ours_kernel_cpu_s": median(mine, "kernel_cpu"),
           "ours_wall_s": median(mine, "wall"), "ours_cpu_s": median(mine, "cpu"),
           "ours_rss_mib": median(mine, "rss_mib"), "ours_kernel_all": [r["kernel"] for r in mine]}
    if peer:
        row.update({"primecount_s": median(theirs, "kernel"),
                    "primecount_wall_s": median(theirs, "wall"),
                    "primecount_cpu_s": median(theirs, "cpu"),
                    "primecount_rss_mib": median(theirs, "rss_mib"),
                    "primecount_all": [r["kernel"] for r in theirs]})
        row["ratio_kernel"] = ratio(row["ours_kernel_s"], row["primecount_s"])
        row["ratio_wall"] = ratio(row["ours_wall_s"], row["primecount_wall_s"])
        row["ratio_cpu"] = ratio(row["ours_cpu_s"], row["primecount_cpu_s"])
        # one thread on a shared machine: CPU seconds of pi alone (ours) against
        # primecount's whole process (its start-up is a millisecond) -- steadier than wall
        row["ratio_kernel_cpu"] = (ratio(row["ours_kernel_cpu_s"], row["primecount_cpu_s"])
                                   if n_threads == 1 else None)
    return row


def show(row):
    cpu = row.get("ratio_kernel_cpu")
    peer = (f"{row['primecount_s']:9.3f} {row['ratio_kernel']:6.2f}x "
            f"{row['ratio_wall']:6.2f}x {row['ratio_cpu']:6.2f}x "
            f"{'%6.2fx' % cpu if cpu else '      -'}"
            if "primecount_s" in row else "        -      -       -       -       -")
    print(f"{row['x']:>22} {row['threads']:>3} {row['pi']:>20} {row['ours_kernel_s']:9.3f} "
          f"{peer} {row['ours_rss_mib']:7.0f}", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", nargs="*", default=["1e12", "1e13", "1e15"])
    parser.add_argument("--threads", nargs="*", type=int, default=[1, 2])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--check", nargs="*", default=[],
                        help="x to compute once and compare with tests/data (no peer)")
    parser.add_argument("--primecount", default=None,
                        help="the primecount binary (default: primecount on the PATH)")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "primecount.json"))
    args = parser.parse_args(argv)
    found, version = find_peer("primecount", args.primecount)
    peer = found is not None
    if peer:
        PEER[0] = found
    known = known_pi()
    result = {"machine": machine(), "peer": version, "peer_path": found,
              "rows": [], "checks": []}
    print(f"{'x':>22} {'thr':>3} {'pi(x)':>20} {'ours s':>9} {'primecnt':>9} {'ratio':>7} "
          f"{'wall':>7} {'cpu':>7} {'pi cpu':>7} {'MiB':>7}")
    for point in args.points:
        x = int(float(point)) if "e" in point else int(point)
        for n in args.threads:
            row = compare(x, n, args.repeats, peer, known)
            result["rows"].append(row)
            show(row)
    for point in args.check:
        x = int(float(point)) if "e" in point else int(point)
        n = max(args.threads)
        start = time.perf_counter()
        run = ours(x, n)
        ok = known.get(x) == run["pi"] if x in known else None
        check = {"x": x, "threads": n, "pi": run["pi"], "oeis": known.get(x), "agrees": ok,
                 "kernel_s": run["kernel"], "kernel_cpu_s": run["kernel_cpu"],
                 "cpu_s": run["cpu"], "wall_s": time.perf_counter() - start,
                 "rss_mib": run["rss_mib"]}
        result["checks"].append(check)
        print(f"check pi({x}) = {run['pi']} on {n} threads in {run['kernel']:.1f} s "
              f"({run['kernel_cpu']:.1f} CPU s): "
              f"{'agrees with' if ok else 'DIFFERS from' if ok is False else 'no'} OEIS A006880",
              flush=True)
        if ok is False:
            raise SystemExit(1)
    save_result(args.out, result)


if __name__ == "__main__":
    main()
