"""Benchmark of jitgames.primes: prime counting, far segments, line analysis.

Run ``python bench/primes.py [--quick]``; prints a table and writes
``bench/results/primes.json``. Medians of ``--repeats`` runs, on 1 and 2 threads,
against a simple NumPy odd-only sieve measured in the same run; the compile time of
a cold cache is measured in a subprocess with a fresh ``NUMBA_CACHE_DIR``.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from _harness import cold_compile_seconds, machine, median_seconds
from jitgames._jit import threads
from jitgames.primes import analyse_lines, count_primes

KNOWN_PI = {10**9: 50847534, 10**10: 455052511}


def numpy_sieve_count(n: int) -> int:
    """Baseline: odd-only NumPy sieve of Eratosthenes, primes below n."""
    flags = np.ones(n // 2, dtype=bool)
    flags[0] = False
    for i in range(1, (int(n**0.5) + 1) // 2 + 1):
        if flags[i]:
            p = 2 * i + 1
            flags[p * p // 2::p] = False
    return int(flags.sum()) + 1


COLD = ("import time; t = time.perf_counter(); from jitgames.primes import count_primes, "
        "analyse_lines; count_primes(0, 10**6); analyse_lines('spiral', 21); "
        "print(time.perf_counter() - t)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="small sizes (smoke test)")
    args = parser.parse_args()
    scale = 10**3 if args.quick else 1
    rows = []
    count_primes(0, 10**6)
    analyse_lines("spiral", 21)
    cases = [("pi(1e9)", 0, 10**9 // scale), ("pi(1e10)", 0, 10**10 // scale),
             ("1e9 wide at 1e15", 10**15, 10**15 + 10**9 // scale)]
    for name, a, b in cases:
        base = None
        if a == 0 and b <= 10**9:
            base, base_count = median_seconds(lambda: numpy_sieve_count(b), args.repeats)
        for n_threads in (1, 2):
            with threads(n_threads):
                secs, result = median_seconds(lambda: count_primes(a, b), args.repeats)
            if b in KNOWN_PI and a == 0:
                assert result.count == KNOWN_PI[b], (b, result.count)
            rows.append({"case": name, "threads": n_threads, "seconds": secs,
                         "count": result.count, "numpy_seconds": base,
                         "speedup_vs_numpy": base / secs if base else None})
    for n_threads in (1, 2):
        with threads(n_threads):
            secs, result = median_seconds(lambda: analyse_lines("spiral", 1001), args.repeats)
        rows.append({"case": "lines of 1001x1001 spiral", "threads": n_threads,
                     "seconds": secs, "count": result.n_lines, "numpy_seconds": None,
                     "speedup_vs_numpy": None})
    compile_s = cold_compile_seconds(COLD)
    print(f"{'case':<28}{'threads':>8}{'seconds':>10}{'count':>14}{'numpy s':>10}{'x':>7}")
    for r in rows:
        np_s = f"{r['numpy_seconds']:10.2f}" if r["numpy_seconds"] else f"{'':>10}"
        sp = f"{r['speedup_vs_numpy']:7.1f}" if r["speedup_vs_numpy"] else f"{'':>7}"
        print(f"{r['case']:<28}{r['threads']:>8}{r['seconds']:10.3f}{r['count']:>14}{np_s}{sp}")
    print(f"cold-cache compile + first calls: {compile_s:.1f} s")
    if not args.quick:
        out = Path(__file__).parent / "results" / "primes.json"
        out.write_text(json.dumps({"rows": rows, "cold_compile_seconds": compile_s,
                                   "repeats": args.repeats, "machine": machine()}, indent=2))


if __name__ == "__main__":
    main()
