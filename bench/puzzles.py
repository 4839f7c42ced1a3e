"""Benchmark of the puzzles: n-queens counts, the peg-solitaire central count, domination.

Run ``python bench/puzzles.py`` (about 10 minutes on a 2-core machine; ``--quick``
stops the queens at n = 16 and skips the central count). Prints tables and writes
``bench/results/puzzles.json``.

Queens: the census (:func:`jitgames.puzzles.queens.queens_census`, total and unique
together, by border constellations; ``bench/queens.py`` compares it with the class
search it replaced and with NQueensFAF) on 2 threads, against the plain serial
recursive bitmask count (no symmetry) measured in the same run; also the mirror-only parallel count that
serves the distributed backend (``count_queens``). Times are medians of repeats
(wall seconds); every count is checked against the known values in tests/data.
Compile times are measured in a subprocess on an empty Numba cache.

The peer: with ``--peer DIR`` (NQueensFAF's class directory, built as ``bench/queens.py``
describes) its CPU solver counts each n on the same thread count right after ours, and
the table shows its time and the ratio NQueensFAF/ours; without it the script says the
peer was not run and records that in the JSON.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _harness import machine, timed_runs  # noqa: E402
from jitgames._jit import threads  # noqa: E402
from jitgames.puzzles import domination, fibnim, queens  # noqa: E402
from queens import peer_counter  # noqa: E402  (bench/queens.py, beside this script)

KNOWN = {int(r["n"]): (int(r["count"]), int(r["unique"]))
         for r in csv.DictReader(open(ROOT / "tests" / "data" / "puzzles_queens.csv"))}
CENTRAL = json.loads((ROOT / "tests" / "data" / "puzzles_misc.json").read_text())[
    "pegsolitaire"]["central_solutions"]


def timed(call, repeats):
    """(median wall seconds, result, [(wall, cpu) per call]) over ``repeats`` calls."""
    walls, cpus, result = timed_runs(call, repeats)
    return statistics.median(walls), result, list(zip(walls, cpus))


def compile_seconds() -> dict:
    """First-call times in a fresh interpreter with an empty Numba cache."""
    code = r"""
import json, time
t = {}
def clock(name, f):
    s = time.perf_counter(); f(); t[name] = time.perf_counter() - s
from jitgames.puzzles import queens, pegsolitaire, domination, fibnim
clock("queens_census(8)", lambda: queens.queens_census(8))
clock("count_queens(8)", lambda: queens.count_queens(8))
clock("count_queens_plain(8)", lambda: queens.count_queens_plain(8))
p = pegsolitaire.problem("plus")
clock("pegsolitaire count(plus)", lambda: pegsolitaire.count_solutions(p.start, p.goal))
clock("pegsolitaire solve(plus)", lambda: pegsolitaire.solve(p.start, p.goal))
clock("domination(5)", lambda: domination.domination(5))
clock("fibnim table(10)", lambda: fibnim.table(10))
print(json.dumps(t))
"""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def central_count() -> dict:
    """The central-game count in a subprocess, with its peak memory (max RSS)."""
    code = r"""
import json, resource, time
from jitgames.puzzles import pegsolitaire
p = pegsolitaire.problem("central")
r = pegsolitaire.count_solutions(p.start, p.goal)
print(json.dumps({"solutions": r.solutions, "seconds": r.seconds,
                  "layer_sizes": list(r.layer_sizes),
                  "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n <= 16, no central count")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--peer", help="NQueensFAF class directory (javac output); "
                        "left out, the peer is not run")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "puzzles.json"))
    args = parser.parse_args(argv)
    top = 16 if args.quick else 18
    result = {"machine": machine() | {"threads": args.threads},
              "command": "python bench/puzzles.py" + (" --quick" if args.quick else "")
              + (f" --peer {args.peer}" if args.peer else ""),
              "peer": "NQueensFAF CpuSolverExample" if args.peer else None}
    if not args.peer:
        print("NQueensFAF: not run (build it as bench/queens.py describes and pass "
              "--peer DIR)")

    result["compile_seconds"] = compile_seconds()
    print("compile (cold cache, first call):")
    for name, sec in result["compile_seconds"].items():
        print(f"  {name:<28} {sec:7.2f} s")

    # warm every kernel before timing
    queens.queens_census(9), queens.count_queens(9), queens.count_queens_plain(9)
    rows = []
    print(f"\nn-queens on {args.threads} threads (median wall seconds; counts/s = total / time)")
    print(f"{'n':>3} {'count':>12} {'unique':>11} {'class s':>9} {'class cpu':>9} "
          f"{'counts/s':>11} {'mirror s':>9} {'plain s':>9} {'speed-up':>9}"
          + (f" {'FAF s':>9} {'FAF/ours':>9}" if args.peer else ""))
    with threads(args.threads):
        for n in range(14, top + 1):
            repeats = 5 if n <= 15 else (3 if n == 16 else 1)
            t_class, census, all_class = timed(lambda: queens.queens_census(n), repeats)
            assert (census.count, census.unique) == KNOWN[n], n
            t_mirror = t_plain = None
            t_plain_cpu = None
            if n <= 16:
                t_mirror, c, _ = timed(lambda: queens.count_queens(n), max(1, repeats // 2))
                assert c == KNOWN[n][0]
                t_plain, c, plain_runs = timed(lambda: queens.count_queens_plain(n), 1)
                t_plain_cpu = plain_runs[0][1]
                assert c == KNOWN[n][0]
            cpu = statistics.median(c for _, c in all_class)
            row = {"n": n, "count": census.count, "unique": census.unique,
                   "class_seconds": t_class, "class_cpu_seconds": cpu,
                   "class_repeats": all_class,
                   "counts_per_second": census.count / t_class,
                   "mirror_seconds": t_mirror, "plain_seconds": t_plain,
                   "plain_cpu_seconds": t_plain_cpu,
                   "speedup_vs_plain": (t_plain / t_class) if t_plain else None}
            peer_text = ""
            if args.peer:
                peer_runs = []
                for _ in range(repeats):
                    count, seconds, peer_cpu = peer_counter(args.peer, n, args.threads)
                    assert count == KNOWN[n][0], (n, count)
                    peer_runs.append((seconds, peer_cpu))
                t_peer = statistics.median(w for w, _ in peer_runs)
                row |= {"peer_seconds": t_peer, "peer_repeats": peer_runs,
                        "peer_over_ours": t_peer / t_class}
                peer_text = f" {t_peer:9.3f} {t_peer / t_class:9.2f}"
            rows.append(row)
            fmt = lambda x: f"{x:9.3f}" if x is not None else f"{'-':>9}"  # noqa: E731
            print(f"{n:>3} {census.count:>12} {census.unique:>11} {t_class:9.3f} {cpu:9.3f} "
                  f"{census.count / t_class:11.3g} {fmt(t_mirror)} {fmt(t_plain)} "
                  f"{fmt(row['speedup_vs_plain'])}{peer_text}", flush=True)
    result["queens"] = rows

    print("\nqueen domination (serial; minimum and independent, with all sets)")
    dom_rows = []
    for n in range(8, 12):
        t, d, _ = timed(lambda: domination.domination(n), 1)
        dom_rows.append({"n": n, "seconds": t, "minimum": d.minimum, "sets": d.sets,
                         "unique": d.unique, "independent": d.independent,
                         "independent_sets": d.independent_sets})
        print(f"  n={n:>2}: minimum {d.minimum}, {d.sets} sets ({d.unique} unique), "
              f"independent {d.independent} ({d.independent_sets} sets)  {t:.2f} s", flush=True)
    result["domination"] = dom_rows

    t, _, _ = timed(lambda: fibnim.table(fibnim.MAX_HEAP), 3)
    result["fibnim_table_seconds"] = {"heap_max": fibnim.MAX_HEAP, "seconds": t}
    print(f"\nFibonacci nim SG table up to {fibnim.MAX_HEAP}: {t:.2f} s")

    if not args.quick:
        print("\npeg solitaire, central game: counting every winning move sequence ...",
              flush=True)
        central = central_count()
        assert central["solutions"] == CENTRAL
        result["pegsolitaire_central"] = central
        print(f"  {central['solutions']:,} sequences in {central['seconds']:.1f} s, "
              f"peak memory {central['max_rss_mb']:.0f} MB")

    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1))
    print(f"\nsaved {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
