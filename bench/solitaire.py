"""Benchmark of the solitaire solver: deals/s and positions/s, compile time, memory.

    python bench/solitaire.py [--deals 20000] [--repeats 3] [--study 100000]

Measures, on deals 0..N-1 of seed 2026 (Fisher-Yates):

- compile time of the kernels on a cold cache (a subprocess with a fresh
  NUMBA_CACHE_DIR), and the first-call time on the warm cache;
- deals/s and positions/s, full mode (score, moves, decisions) and score-only mode,
  on 1 and on 2 threads: the median of ``--repeats`` runs, with process CPU time;
- ratios against the baseline of the same run: full mode on 1 thread;
- peak resident memory (psutil, when installed);
- the wall time of the README command ``python -m jitgames.solitaire 100000``
  (a subprocess, warm cache; the median of ``--repeats`` runs), unless ``--study 0``.

Prints a table and saves JSON to bench/results/solitaire.json.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _harness import cold_compile_seconds, machine, timed_runs  # noqa: E402
from jitgames._jit import threads  # noqa: E402
from jitgames.solitaire import deals, solve_deals  # noqa: E402

SEED = 2026


COLD_CODE = ("import time; t = time.perf_counter(); "
             "from jitgames.solitaire import solve_deals, deals; "
             "solve_deals(deals(0, 0, 1)); solve_deals(deals(0, 0, 1), score_only=True); "
             "print(time.perf_counter() - t)")
"""Import and solve one deal in both modes (run on an empty Numba cache)."""


def study_wall(n: int, repeats: int) -> dict:
    """Wall time of ``python -m jitgames.solitaire n --json`` (warm cache, 2 threads): the
    run of median wall time among ``repeats``, with every run's wall time."""
    runs = []
    for _ in range(repeats):
        begin = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "jitgames.solitaire", str(n), "--json",
                              "--quiet"], cwd=ROOT, check=True, capture_output=True, text=True).stdout
        wall = time.perf_counter() - begin
        data = json.loads(out)
        runs.append({"deals": n, "process_wall_seconds": wall, "study_seconds": data["seconds"],
                     "compile_seconds": data["compile_seconds"], "mean": data["mean"],
                     "deals_per_second": data["deals_per_second"]})
    runs.sort(key=lambda run: run["process_wall_seconds"])
    median = dict(runs[len(runs) // 2])
    median["all_process_wall_seconds"] = [run["process_wall_seconds"] for run in runs]
    return median


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--study", type=int, default=100_000,
                        help="deals of the README command to time (0: skip)")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "solitaire.json"))
    args = parser.parse_args(argv)

    sample = deals(SEED, 0, args.deals)
    cold = cold_compile_seconds(COLD_CODE)
    warm_first = time.perf_counter()
    solve_deals(sample[:1])
    solve_deals(sample[:1], score_only=True)
    warm_first = time.perf_counter() - warm_first

    rows = []
    for mode in ("full", "score-only"):
        for n_threads in (1, 2):
            with threads(n_threads):
                walls, cpus, result = timed_runs(
                    lambda: solve_deals(sample, score_only=(mode == "score-only")), args.repeats)
            wall, cpu = statistics.median(walls), statistics.median(cpus)
            positions = int(result.positions.sum())
            rows.append({
                "mode": mode, "threads": n_threads, "table_capacity": 1 << 16,
                "wall_seconds": wall, "cpu_seconds": cpu,
                "deals_per_second": args.deals / wall,
                "deals_per_cpu_second": args.deals / cpu,
                "positions": positions, "positions_per_second": positions / wall,
                "evictions": int(result.evictions.sum()),
                "mean_score": float(result.score.mean()),
            })
    baseline = rows[0]  # full mode, 1 thread: the baseline of the ratios
    for r in rows:
        r["speed_vs_full_1_thread"] = baseline["wall_seconds"] / r["wall_seconds"]

    peak = None
    try:
        import psutil
        info = psutil.Process().memory_info()
        peak = getattr(info, "peak_wset", None) or info.rss
    except ImportError:
        pass
    try:
        import resource
        peak = max(peak or 0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
    except ImportError:
        pass

    study = study_wall(args.study, args.repeats) if args.study else None
    report = {"seed": SEED, "deals": args.deals, "repeats": args.repeats,
              "cold_compile_seconds": cold, "warm_first_call_seconds": warm_first,
              "peak_memory_bytes": peak, "runs": rows, "study": study, "machine": machine(),
              "command": " ".join(["python", "bench/solitaire.py"] + (argv or sys.argv[1:]))}
    host = report["machine"]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=1) + "\n")

    print(f"solitaire benchmark: {args.deals:,} deals of seed {SEED}, median of {args.repeats} "
          f"(load average {host['load_average'][0]:.1f} on {host['cpus']} cores, {host['cpu']})")
    print(f"{'mode':11s} {'thr':>3s} {'table':>7s} {'wall s':>7s} {'deals/s':>9s} "
          f"{'deals/cpu-s':>11s} {'Mpos/s':>7s} {'evictions':>10s} {'speed':>6s}")
    for r in rows:
        print(f"{r['mode']:11s} {r['threads']:3d} {r['table_capacity']:7d} {r['wall_seconds']:7.2f} "
              f"{r['deals_per_second']:9.0f} {r['deals_per_cpu_second']:11.0f} "
              f"{r['positions_per_second'] / 1e6:7.2f} {r['evictions']:10d} "
              f"{r['speed_vs_full_1_thread']:6.2f}")
    print(f"compile (cold cache, subprocess): {cold:.1f} s; first call on warm cache: {warm_first:.2f} s")
    if peak:
        print(f"peak resident memory: {peak / 2**20:.0f} MiB")
    if study:
        walls = ", ".join(f"{wall:.1f}" for wall in study["all_process_wall_seconds"])
        print(f"python -m jitgames.solitaire {study['deals']}: {study['process_wall_seconds']:.1f} s "
              f"wall for the whole process, median of [{walls}] ({study['study_seconds']:.1f} s "
              f"solving, {study['compile_seconds']:.1f} s loading kernels), mean score "
              f"{study['mean']:.4f}")
    print(f"saved {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
