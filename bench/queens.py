"""Benchmark of the n-queens count: the constellation counter against the class search
it replaced, and against NQueensFAF's Java CPU solver when it is built.

Run ``python bench/queens.py`` (about 5 minutes on a quiet 2-core machine). For every n
(default 16 and 17) the counters run one after another, on one thread, ``--repeats``
times (so a burst of load from elsewhere falls on all of them; ``--no-old`` leaves the
class search out); then the constellation counter at the largest n on each of the
``--threads`` counts (default 1 and 2), alternating, and the peer on the same counts
when it is given. Times are wall seconds of the whole call (task set-up included,
Numba compile excluded: every kernel is warmed first) and CPU seconds (this process's;
the peer's as a child process, JVM start and JIT compiler threads included); medians
and ratios of medians are reported. On a shared machine the CPU ratio is the steadier
one. Every count is checked against tests/data/puzzles_queens.csv.

The peer: NQueensFAF (github.com/olepoeschl/NQueensFAF), built outside this repository
(``javac`` over its core, impl and examples sources, GPU classes left out, with a
three-class stand-in for the Kryo serialiser its state files need), run as its
``CpuSolverExample`` reading n and the thread count from stdin. Its figure is the
duration it reports (JVM start excluded); pass ``--peer DIR`` (the class directory) or
leave it out, and the script says the peer was not run.

``python bench/queens.py --count 19 --threads 2`` counts one board with the CLI's
counter and records the time in ``bench/results/queens_count_19.json`` (with several
``--threads`` values, the largest).
"""
from __future__ import annotations

import argparse
import csv
import re
import resource
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
LARGER = {19: (4968057848, 621012754), 20: (39029188884, 4878666808),
          21: (314666222712, 39333324973)}
"""Published counts beyond tests/data/puzzles_queens.csv (OEIS A000170 and A002562),
checked by ``--count`` runs only: no test can take the minutes to hours they need."""
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


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def peer_counter(peer: str, n: int, thread_count: int):
    """(count, seconds it reports, CPU seconds of its process) from NQueensFAF's CPU
    solver. The CPU seconds include the JVM's start and its JIT compiler threads, so
    they overstate the solver's own a little (half a second or so)."""
    cpu = _children_cpu()
    out = subprocess.run(["java", "-cp", peer, PEER_MAIN], input=f"{n}\n{thread_count}\n",
                         capture_output=True, text=True, check=True, timeout=3600).stdout
    cpu = _children_cpu() - cpu
    found = re.search(r"found (\d+) solutions in (\d+) ms", out)
    if not found:
        raise RuntimeError(f"unexpected NQueensFAF output: {out[-300:]!r}")
    return int(found.group(1)), int(found.group(2)) / 1000, cpu


def clock(call):
    """(wall seconds, process CPU seconds, result) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = call()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def _ratio(top, bottom):
    return top / bottom if top is not None and bottom else None


def compare(sizes, repeats, peer, old=True):
    rows = []
    for n in sizes:
        runs = {"constellations": [], "class search": [], "NQueensFAF": []}
        for _ in range(repeats):
            with threads(1):
                wall, cpu, got = clock(lambda: new_counter(n))
                assert got == KNOWN[n], (n, got)
                runs["constellations"].append((wall, cpu))
                if old:
                    wall, cpu, got = clock(lambda: old_counter(n))
                    assert got == KNOWN[n], (n, got)
                    runs["class search"].append((wall, cpu))
            if peer:
                count, seconds, cpu = peer_counter(peer, n, 1)
                assert count == KNOWN[n][0], (n, count)
                runs["NQueensFAF"].append((seconds, cpu))
        runs = {k: v for k, v in runs.items() if v}
        row = {"n": n, "threads": 1, "repeats": repeats, "runs": runs}
        med = {k: statistics.median(w for w, _ in v) for k, v in runs.items()}
        cpu = {k: statistics.median(c for _, c in v) for k, v in runs.items()}
        row["median_wall"], row["median_cpu"] = med, cpu
        new = "constellations"
        row["old_over_new"] = _ratio(med.get("class search"), med[new])
        row["peer_over_new"] = _ratio(med.get("NQueensFAF"), med[new])
        row["peer_over_new_cpu"] = _ratio(cpu.get("NQueensFAF"), cpu[new])
        rows.append(row)
        text = f"n={n}: constellations {med[new]:.2f} s ({cpu[new]:.2f} CPU s)"
        if old:
            text += f", class search {med['class search']:.2f} s (old/new " \
                    f"{row['old_over_new']:.2f})"
        if peer:
            text += f", NQueensFAF {med['NQueensFAF']:.2f} s ({cpu['NQueensFAF']:.2f} CPU s; " \
                    f"NQueensFAF/ours {row['peer_over_new']:.2f} wall, " \
                    f"{row['peer_over_new_cpu']:.2f} CPU)"
        print(text, flush=True)
    return rows


def scaling(n, repeats, thread_counts, peer):
    """Wall seconds of the count of n on each thread count, alternating (and of the
    peer, when given, right after ours on the same count)."""
    walls = {t: [] for t in thread_counts}
    peer_walls = {t: [] for t in thread_counts} if peer else None
    for _ in range(repeats):
        for t in thread_counts:
            with threads(t):
                wall, _, got = clock(lambda: new_counter(n))
            assert got == KNOWN[n]
            walls[t].append(wall)
            if peer:
                count, seconds, _ = peer_counter(peer, n, t)
                assert count == KNOWN[n][0], (n, count)
                peer_walls[t].append(seconds)
    med = {t: statistics.median(w) for t, w in walls.items()}
    one = med[min(thread_counts)]
    speedup = {t: one / med[t] for t in thread_counts}
    result = {"n": n, "walls": walls, "median_wall": med, "speedup": speedup}
    text = ", ".join(f"{t} threads {med[t]:.2f} s (x{speedup[t]:.2f})" for t in thread_counts)
    if peer:
        peer_med = {t: statistics.median(w) for t, w in peer_walls.items()}
        result |= {"peer_walls": peer_walls, "peer_median_wall": peer_med,
                   "peer_over_new": {t: peer_med[t] / med[t] for t in thread_counts}}
        text += "; NQueensFAF " + ", ".join(f"{t} threads {peer_med[t]:.2f} s"
                                            for t in thread_counts)
    print(f"n={n}: {text}", flush=True)
    return result


def count_one(n, thread_count, out):
    with threads(thread_count):
        new_counter(9)  # compile / load the kernels first: the time is the count's alone
        wall, cpu, (count, unique) = clock(lambda: new_counter(n))
    known = KNOWN.get(n) or LARGER.get(n)
    result = {"machine": machine() | {"threads": thread_count},
              "command": f"python bench/queens.py --count {n} --threads {thread_count}",
              "n": n, "count": count, "unique": unique, "wall_seconds": wall,
              "cpu_seconds": cpu, "known": list(known) if known else None,
              "matches_known": (count, unique) == known if known else None}
    print(f"Q({n}) = {count:,} ({unique:,} up to symmetry) in {wall:.1f} s on "
          f"{thread_count} threads ({cpu:.1f} CPU s)")
    save_result(out or ROOT / "bench" / "results" / f"queens_count_{n}.json", result)
    if known:  # after saving: a long run's figures are kept even when they are wrong
        assert (count, unique) == known, (count, unique, known)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[16, 17])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--peer", help="NQueensFAF class directory (javac output)")
    parser.add_argument("--count", type=int, help="only count this n and record the time")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2],
                        help="thread counts of the scaling runs (--count: the largest)")
    parser.add_argument("--scale-n", type=int,
                        help="n of the scaling runs (default: the largest of --sizes)")
    parser.add_argument("--no-old", action="store_true", help="leave the class search out")
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    if args.count:
        count_one(args.count, max(args.threads), args.out)
        return 0
    for t in sorted(set(args.threads) | {1}):  # compile / load every kernel before timing
        with threads(t):
            new_counter(9)
            if not args.no_old:
                old_counter(9)
    result = {"machine": machine(), "command": "python bench/queens.py " + " ".join(
        argv if argv is not None else sys.argv[1:])}
    if not args.peer:
        print("NQueensFAF not given (--peer DIR): the peer is not run")
    result["peer"] = ({"name": "NQueensFAF CpuSolver", "classes": args.peer,
                       "java": subprocess.run(["java", "-version"], capture_output=True,
                                              text=True).stderr.splitlines()[0]}
                      if args.peer else None)
    result["compare"] = compare(args.sizes, args.repeats, args.peer, not args.no_old)
    result["scaling"] = scaling(args.scale_n or max(args.sizes), args.repeats, args.threads,
                                args.peer)
    result["machine_after"] = machine()
    save_result(args.out or ROOT / "bench" / "results" / "queens.json", result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
