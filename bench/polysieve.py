"""Crossing off of the polynomial sieve: this checkout against another, alternating.

Run ``python bench/polysieve.py --base DIR [--repeats 3] [--bits 10^10]`` where DIR is
another checkout of the package (``git archive main | tar -x -C DIR``). Two parts:

- the crossing off alone (``polysieve.cross_off_root_bits``) of batches of sieving
  primes near 10^7, 10^9 and 3 x 10^10 (the roots of x^2 + x + 41) on a bitmap of
  ``--bits`` x values (10^10: 1.25 GB), in ``--threads`` threads (parts = 2 x threads,
  as the count uses): each run is a fresh process of one checkout that lists the
  primes, finds their roots, loads the compiled kernel on a tiny bitmap, then times
  one call; reported per hit (the number of bits the roots hit, counted in closed
  form), wall and CPU. Both checkouts must leave the same bits (a digest is compared).
- the roots alone (``polysieve.quadratic_roots``) of batches of 10^8 integers near
  10^9 and 5 x 10^10 (``--roots``), per prime, in ``--threads`` threads: both
  checkouts must find the same roots (a digest is compared);
- the whole count ``python -m jitgames primes poly 1 1 41 --upto 10^9 --json``
  (``--upto``), whole processes, wall and CPU seconds (from the child's rusage) and
  peak memory.

Runs alternate base and new ``--repeats`` times; medians and the ratio new / base are
printed and saved in ``bench/results/polysieve.json`` with the machine record.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _harness import ROOT, machine, save_result

# One timed crossing off in a fresh process of the checkout on PYTHONPATH.
CROSS_OFF = """
import hashlib, json, sys, time
import numpy as np
from jitgames._jit import threads
from jitgames.primes import polysieve
from jitgames.primes.sieve import primes_between
n, p0, p1, n_threads = (int(v) for v in sys.argv[1:5])
primes = primes_between(p0, p1)
roots, kinds = polysieve.quadratic_roots(1, 1, 41, primes)
p = primes.astype(np.int64)
hits = 0
for k in range(2):  # bits hit by the roots of kind 1 and 2, x = 0 .. n - 1
    has = kinds > k
    hits += int(((n - 1 - roots[has, k].astype(np.int64)) // p[has] + 1).sum())
with threads(n_threads):
    parts = 2 * n_threads
    tiny = np.full(1000, np.uint64(2**64 - 1), dtype=np.uint64)
    polysieve.cross_off_root_bits(tiny, 0, 64000, primes[:10], roots[:10], kinds[:10], parts)
    words = np.full((n + 63) // 64, np.uint64(2**64 - 1), dtype=np.uint64)
    wall, cpu = time.perf_counter(), time.process_time()
    polysieve.cross_off_root_bits(words, 0, n, primes, roots, kinds, parts)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
digest = hashlib.blake2b(words.data, digest_size=16).hexdigest()
print(json.dumps({"wall": wall, "cpu": cpu, "hits": hits, "primes": int(primes.size),
                  "roots": int(np.minimum(kinds, 2).sum()), "digest": digest}))
"""

# One timed search for the roots of a batch, in a fresh process of the checkout.
ROOTS = """
import hashlib, json, sys, time
import numpy as np
from jitgames._jit import threads
from jitgames.primes import polysieve
from jitgames.primes.sieve import primes_between
p0, p1, n_threads = (int(v) for v in sys.argv[1:4])
primes = primes_between(p0, p1)
with threads(n_threads):
    polysieve.quadratic_roots(1, 1, 41, primes[:10])
    wall, cpu = time.perf_counter(), time.process_time()
    roots, kinds = polysieve.quadratic_roots(1, 1, 41, primes)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
digest = hashlib.blake2b(roots.tobytes() + kinds.tobytes(), digest_size=16).hexdigest()
print(json.dumps({"wall": wall, "cpu": cpu, "primes": int(primes.size), "digest": digest}))
"""
ROOT_CASES = [("1e9", 10**9, 10**9 + 10**8), ("5e10", 5 * 10**10, 5 * 10**10 + 10**8)]

# Prime ranges: near 10^7 (a part of the first batch of a count), and batches of the
# production width (10^8 integers) near 10^9 and 3 x 10^10.
CASES = [("1e7", 10**7, 2 * 10**7), ("1e9", 10**9, 10**9 + 10**8),
         ("3e10", 3 * 10**10, 3 * 10**10 + 10**8)]


def child_env(tree: Path) -> dict:
    return dict(os.environ, PYTHONPATH=str(tree))


def cross_off(tree: Path, n: int, p0: int, p1: int, n_threads: int) -> dict:
    out = subprocess.run([sys.executable, "-c", CROSS_OFF, str(n), str(p0), str(p1),
                          str(n_threads)], env=child_env(tree), cwd=tree, check=True,
                         capture_output=True, text=True, timeout=3600)
    return json.loads(out.stdout.strip().splitlines()[-1])


def find_roots(tree: Path, p0: int, p1: int, n_threads: int) -> dict:
    out = subprocess.run([sys.executable, "-c", ROOTS, str(p0), str(p1), str(n_threads)],
                         env=child_env(tree), cwd=tree, check=True, capture_output=True,
                         text=True, timeout=3600)
    return json.loads(out.stdout.strip().splitlines()[-1])


def whole_count(tree: Path, upto: str, n_threads: int) -> dict:
    """Wall and CPU seconds and peak RSS (MiB) of ``python -m jitgames primes poly``."""
    argv = [sys.executable, "-m", "jitgames", "primes", "poly", "1", "1", "41", "--upto",
            upto, "--threads", str(n_threads), "--json"]
    wall = time.perf_counter()
    child = subprocess.Popen(argv, env=child_env(tree), cwd=tree, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - wall
    if child.returncode:
        raise RuntimeError(f"{argv} failed: status {child.returncode}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
            "rss_mib": usage.ru_maxrss / 1024, "count": json.loads(out)["count"]}


def parse_int(text: str) -> int:
    sys.path.insert(0, str(ROOT))
    from jitgames._cli import parse_int as parse

    return parse(text)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, type=Path, help="the other checkout")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--bits", default="10^10", help="bitmap size (x values)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--upto", default="10^9", help="the whole count's N ('' to skip)")
    parser.add_argument("--cases", default=",".join(name for name, *_ in CASES),
                        help="comma-separated prime ranges to time: " +
                        ", ".join(f"{name} = [{a}, {b})" for name, a, b in CASES))
    parser.add_argument("--roots", default=",".join(name for name, *_ in ROOT_CASES),
                        help="comma-separated batches whose roots to time: " +
                        ", ".join(f"{name} = [{a}, {b})" for name, a, b in ROOT_CASES))
    parser.add_argument("--out", type=Path,
                        default=ROOT / "bench" / "results" / "polysieve.json")
    args = parser.parse_args(argv)
    trees = {"base": args.base.resolve(), "new": ROOT}
    n = parse_int(args.bits)
    chosen = args.cases.split(",")
    rows = []
    if any(name in chosen for name, *_ in CASES):
        print(f"crossing off on {n:,} bits, {args.threads} threads; median of "
              f"{args.repeats} alternating runs")
        print(f"{'primes':>28}{'hits':>14}{'base ns/hit':>13}{'new ns/hit':>12}{'ratio':>8}"
              f"{'base cpu':>10}{'new cpu':>9}")
    for name, p0, p1 in CASES:
        if name not in chosen:
            continue
        runs = {tree: [] for tree in trees}
        for _ in range(args.repeats):
            for tree, path in trees.items():
                runs[tree].append(cross_off(path, n, p0, p1, args.threads))
        digests = {r["digest"] for tree in runs for r in runs[tree]}
        if len(digests) != 1:
            raise AssertionError(f"{name}: the checkouts leave different bits")
        hits = runs["new"][0]["hits"]
        row = {"case": name, "p0": p0, "p1": p1, "primes": runs["new"][0]["primes"],
               "roots": runs["new"][0]["roots"], "hits": hits, "bits": n,
               "threads": args.threads, "runs": runs}
        for tree in trees:
            row[f"{tree}_ns_per_hit"] = statistics.median(r["wall"] for r in runs[tree]) / hits * 1e9
            row[f"{tree}_cpu_ns_per_hit"] = statistics.median(r["cpu"] for r in runs[tree]) / hits * 1e9
        row["new_over_base"] = row["new_ns_per_hit"] / row["base_ns_per_hit"]
        row["cpu_new_over_base"] = row["new_cpu_ns_per_hit"] / row["base_cpu_ns_per_hit"]
        rows.append(row)
        print(f"{f'[{p0:.0e}, {p1:.2e})':>28}{hits:>14,}{row['base_ns_per_hit']:13.2f}"
              f"{row['new_ns_per_hit']:12.2f}{row['new_over_base']:8.3f}"
              f"{row['base_cpu_ns_per_hit']:10.2f}{row['new_cpu_ns_per_hit']:9.2f}", flush=True)
    root_rows = []
    for name, p0, p1 in ROOT_CASES:
        if name not in args.roots.split(","):
            continue
        runs = {tree: [] for tree in trees}
        for _ in range(args.repeats):
            for tree, path in trees.items():
                runs[tree].append(find_roots(path, p0, p1, args.threads))
        if len({r["digest"] for tree in runs for r in runs[tree]}) != 1:
            raise AssertionError(f"roots {name}: the checkouts find different roots")
        n_primes = runs["new"][0]["primes"]
        row = {"case": name, "p0": p0, "p1": p1, "primes": n_primes,
               "threads": args.threads, "runs": runs}
        for tree in trees:
            row[f"{tree}_cpu_ns_per_prime"] = statistics.median(
                r["cpu"] for r in runs[tree]) / n_primes * 1e9
            row[f"{tree}_wall_s"] = statistics.median(r["wall"] for r in runs[tree])
        row["cpu_new_over_base"] = row["new_cpu_ns_per_prime"] / row["base_cpu_ns_per_prime"]
        root_rows.append(row)
        print(f"roots of the {n_primes:,} primes in [{p0:.0e}, {p1:.2e}): CPU ns a prime, "
              f"base {row['base_cpu_ns_per_prime']:.0f}, new {row['new_cpu_ns_per_prime']:.0f}"
              f", new/base {row['cpu_new_over_base']:.3f}", flush=True)
    whole = None
    if args.upto:
        runs = {tree: [] for tree in trees}
        for _ in range(args.repeats):
            for tree, path in trees.items():
                runs[tree].append(whole_count(path, args.upto, args.threads))
        counts = {r["count"] for tree in runs for r in runs[tree]}
        if len(counts) != 1:
            raise AssertionError(f"the whole counts differ: {counts}")
        whole = {"upto": args.upto, "count": counts.pop(), "threads": args.threads, "runs": runs}
        for tree in trees:
            for key in ("wall", "cpu", "rss_mib"):
                whole[f"{tree}_{key}"] = statistics.median(r[key] for r in runs[tree])
        whole["new_over_base"] = whole["new_wall"] / whole["base_wall"]
        whole["cpu_new_over_base"] = whole["new_cpu"] / whole["base_cpu"]
        print(f"poly 1 1 41 --upto {args.upto} = {whole['count']:,}: base "
              f"{whole['base_wall']:.1f} s ({whole['base_cpu']:.1f} CPU s, "
              f"{whole['base_rss_mib']:.0f} MiB), new {whole['new_wall']:.1f} s "
              f"({whole['new_cpu']:.1f} CPU s, {whole['new_rss_mib']:.0f} MiB), new/base "
              f"{whole['new_over_base']:.3f} (CPU {whole['cpu_new_over_base']:.3f})")
    save_result(args.out, {"base": str(args.base), "repeats": args.repeats, "rows": rows,
                           "roots": root_rows, "whole_count": whole, "machine": machine()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
