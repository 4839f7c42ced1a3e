"""Benchmark of the n-queens count: the constellation counter against the class search
it replaced, and against NQueensFAF's Java CPU solver when it is built.

Run ``python bench/queens.py`` (about 5 minutes on a quiet 2-core machine). For every n
(default 16 and 17) the three counters run one after another, on one thread, ``--repeats``
times (so a burst of load from elsewhere falls on all of them); then the constellation
counter at the largest n on 1 and on 2 threads, alternating. Times are wall seconds of
the whole call (task set-up included, Numba compile excluded: every kernel is warmed
first) and process CPU seconds; medians and ratios of medians are reported. Every count
is checked against tests/data/puzzles_queens.csv.

The peer: NQueensFAF (github.com/olepoeschl/NQueensFAF), built outside this repository
(``javac`` over its core, impl and examples sources, GPU classes left out, with a
three-class stand-in for the Kryo serialiser its state files need), run as its
``CpuSolverExample`` reading n and the thread count from stdin. Its figure is the
duration it reports (JVM start excluded); pass ``--peer DIR`` (the class directory) or
leave it out, and the script says the peer was not run.

``python bench/queens.py --count 19 --threads 2`` counts one board with the CLI's
counter and records the time in ``bench/results/queens_count_19.json``.
"""
from __future__ import annotations

import argparse
import csv
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _harness import machine, save_result  # noqa: E402
from jitgames._jit import threads  # noqa: E402
from jitgames.puzzles import queens_classes, queens_constellations as qc  # noqa: E402

KNOWN = {int(r["n"]): (int(r["count"]), int(r["unique"]))
         for r in csv.DictReader(open(ROOT / "tests" / "data" / "puzzles_queens.csv"))}
PEER_MAIN = "de.nqueensfaf.examples.CpuSolverExample"


def new_counter(n: int):
    """The constellation counter, task set-up included (its caches emptied first)."""
    qc.tasks.cache_clear()
    qc.constellations.cache_clear()
    return qc.count_census(n)


def old_counter(n: int):
    """The class search the CLI used before (census from the class counts)."""
    c2, c4, c8 = queens_classes.count_classes(n)
    return 2 * c2 + 4 * c4 + 8 * c8, c2 + c4 + c8


def peer_counter(peer: str, n: int, thread_count: int):
    """(count, seconds it reports) from NQueensFAF's CPU solver."""
    out = subprocess.run(["java", "-cp", peer, PEER_MAIN], input=f"{n}\n{thread_count}\n",
                         capture_output=True, text=True, check=True, timeout=3600).stdout
    found = re.search(r"found (\d+) solutions in (\d+) ms", out)
    if not found:
        raise RuntimeError(f"unexpected NQueensFAF output: {out[-300:]!r}")
    return int(found.group(1)), int(found.group(2)) / 1000


def clock(call):
    """(wall seconds, process CPU seconds, result) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = call()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def compare(sizes, repeats, peer):
    rows = []
    for n in sizes:
        runs = {"constellations": [], "class search": [], "NQueensFAF": []}
        for _ in range(repeats):
            with threads(1):
                wall, cpu, got = clock(lambda: new_counter(n))
                assert got == KNOWN[n], (n, got)
                runs["constellations"].append((wall, cpu))
                wall, cpu, got = clock(lambda: old_counter(n))
                assert got == KNOWN[n], (n, got)
                runs["class search"].append((wall, cpu))
            if peer:
                count, seconds = peer_counter(peer, n, 1)
                assert count == KNOWN[n][0], (n, count)
                runs["NQueensFAF"].append((seconds, None))
        row = {"n": n, "threads": 1, "repeats": repeats, "runs": runs}
        med = {k: statistics.median(w for w, _ in v) for k, v in runs.items() if v}
        row["median_wall"] = med
        row["median_cpu"] = {k: statistics.median(c for _, c in v) for k, v in runs.items()
                             if v and v[0][1] is not None}
        row["old_over_new"] = med["class search"] / med["constellations"]
        row["peer_over_new"] = (med["NQueensFAF"] / med["constellations"]
                                if "NQueensFAF" in med else None)
        rows.append(row)
        peer_text = (f", NQueensFAF {med['NQueensFAF']:.2f} s (ratio to new "
                     f"{row['peer_over_new']:.2f})" if "NQueensFAF" in med else "")
        print(f"n={n}: constellations {med['constellations']:.2f} s, class search "
              f"{med['class search']:.2f} s (old/new {row['old_over_new']:.2f}){peer_text}",
              flush=True)
    return rows


def scaling(n, repeats):
    walls = {1: [], 2: []}
    for _ in range(repeats):
        for t in (1, 2):
            with threads(t):
                wall, _, got = clock(lambda: new_counter(n))
            assert got == KNOWN[n]
            walls[t].append(wall)
    med = {t: statistics.median(w) for t, w in walls.items()}
    print(f"n={n}: 1 thread {med[1]:.2f} s, 2 threads {med[2]:.2f} s, speed-up "
          f"{med[1] / med[2]:.2f}", flush=True)
    return {"n": n, "walls": walls, "median_wall": med, "speedup_2_threads": med[1] / med[2]}


def count_one(n, thread_count, out):
    with threads(thread_count):
        wall, cpu, (count, unique) = clock(lambda: new_counter(n))
    known = KNOWN.get(n)
    result = {"machine": machine() | {"threads": thread_count},
              "command": f"python bench/queens.py --count {n} --threads {thread_count}",
              "n": n, "count": count, "unique": unique, "wall_seconds": wall,
              "cpu_seconds": cpu, "known": list(known) if known else None}
    if known:
        assert (count, unique) == known, (count, unique, known)
    print(f"Q({n}) = {count:,} ({unique:,} up to symmetry) in {wall:.1f} s on "
          f"{thread_count} threads ({cpu:.1f} CPU s)")
    save_result(out or ROOT / "bench" / "results" / f"queens_count_{n}.json", result)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[16, 17])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--peer", help="NQueensFAF class directory (javac output)")
    parser.add_argument("--count", type=int, help="only count this n and record the time")
    parser.add_argument("--threads", type=int, default=2, help="threads of --count")
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    if args.count:
        count_one(args.count, args.threads, args.out)
        return 0
    with threads(1):  # compile / load every kernel before timing
        new_counter(9), old_counter(9)
    result = {"machine": machine(), "command": "python bench/queens.py " + " ".join(
        argv if argv is not None else sys.argv[1:])}
    if not args.peer:
        print("NQueensFAF not given (--peer DIR): the peer is not run")
    result["peer"] = ({"name": "NQueensFAF CpuSolver", "classes": args.peer,
                       "java": subprocess.run(["java", "-version"], capture_output=True,
                                              text=True).stderr.splitlines()[0]}
                      if args.peer else None)
    result["compare"] = compare(args.sizes, args.repeats, args.peer)
    result["scaling"] = scaling(max(args.sizes), args.repeats)
    result["machine_after"] = machine()
    save_result(args.out or ROOT / "bench" / "results" / "queens.json", result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
