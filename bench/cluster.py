"""Benchmark of the scale-out backends: a solitaire study in this process (threads)
against a Dask LocalCluster of worker processes, and the overhead of one chunk.

    python bench/cluster.py [--deals 1000000] [--seed 2026] [--chunk-size 20000]
                            [--workers 2] [--overhead-chunks 200] [--repeats 3]

- ``threads``: the study's chunks run one after another in this process, each on all
  Numba threads (what ``python -m jitgames.solitaire N`` does);
- ``local:W``: the same chunks on a LocalCluster of W single-threaded worker
  processes (``--scheduler local:W``); cluster start-up is timed separately;
- both must give identical statistics (checked);
- overhead per chunk: a job of ``--overhead-chunks`` one-deal chunks on both backends,
  median of ``--repeats``; (Dask wall - threads wall) / chunks.

Prints a table and saves JSON to bench/results/cluster.json.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _harness import machine  # noqa: E402
from jitgames._chunked import ChunkedJob, open_client, run_chunks, split_range  # noqa: E402
from jitgames.solitaire import study  # noqa: E402

def study_job(deals: int, chunk: int, seed: int = 2026) -> ChunkedJob:
    params = {"seed": seed, "shuffle": "fisher-yates", "score_only": False,
              "table_capacity": study.DEFAULT_CAPACITY, "rows": False}
    return ChunkedJob("bench", params, tuple(split_range(0, deals, chunk)), study.study_worker,
                      study.study_validate)


def merged(run) -> study.StudyPartial:
    partial = study.empty_partial()
    for result in run.partials:
        partial = study.merge(partial, study.StudyPartial.from_dict(result["partial"]))
    return partial


def timed_run(job, client):
    begin = time.perf_counter()
    run = run_chunks(job, client=client, quiet=True)
    return time.perf_counter() - begin, run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--chunk-size", type=int, default=20_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--overhead-chunks", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    study.study_worker(study_job(1, 1).params, 0, 1)  # compile or load the cache here
    job = study_job(args.deals, args.chunk_size, args.seed)
    tiny = study_job(args.overhead_chunks, 1)

    threads_wall, threads_run = timed_run(job, None)
    tiny_threads = [timed_run(tiny, None)[0] for _ in range(args.repeats)]

    begin = time.perf_counter()
    with open_client(f"local:{args.workers}") as client:
        startup = time.perf_counter() - begin
        timed_run(tiny, client)  # workers import and load the kernels once
        local_wall, local_run = timed_run(job, client)
        tiny_local = [timed_run(tiny, client)[0] for _ in range(args.repeats)]

    identical = merged(local_run) == merged(threads_run)
    overhead = (statistics.median(tiny_local) - statistics.median(tiny_threads)) / len(tiny.chunks)
    result = {
        "deals": args.deals, "seed": args.seed, "chunk_size": args.chunk_size, "chunks": len(job.chunks),
        "workers": args.workers, "machine": machine(),
        "threads_seconds": threads_wall, "threads_deals_per_second": args.deals / threads_wall,
        "local_seconds": local_wall, "local_deals_per_second": args.deals / local_wall,
        "local_vs_threads_speed": threads_wall / local_wall,
        "cluster_startup_seconds": startup,
        "overhead_chunks": len(tiny.chunks),
        "overhead_threads_median_seconds": statistics.median(tiny_threads),
        "overhead_local_median_seconds": statistics.median(tiny_local),
        "overhead_per_chunk_seconds": overhead,
        "identical_statistics": identical,
        "mean_score": merged(threads_run).score_sum / args.deals,
        "grown_deals": merged(threads_run).grown,
        "largest_capacity": merged(threads_run).largest_capacity,
    }
    print(f"solitaire study of {args.deals:,} deals of seed {args.seed} in {len(job.chunks)} chunks "
          f"(load average {result['machine']['load_average'][0]:.1f}):")
    print(f"  threads (in process)   {threads_wall:9.2f} s  {result['threads_deals_per_second']:9,.0f} deals/s")
    print(f"  local:{args.workers} (Dask)        {local_wall:9.2f} s  "
          f"{result['local_deals_per_second']:9,.0f} deals/s  "
          f"({result['local_vs_threads_speed']:.2f}x threads; start-up {startup:.1f} s apart)")
    print(f"  overhead per chunk     {1000 * overhead:9.2f} ms  (median of {args.repeats} runs "
          f"of {len(tiny.chunks)} one-deal chunks)")
    print(f"  identical statistics: {identical}; {result['grown_deals']:,} deal(s) needed a table "
          f"larger than the default (up to {result['largest_capacity']:,} slots)")
    out = ROOT / "bench" / "results" / "cluster.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    if not identical:
        sys.exit("the backends disagree")


if __name__ == "__main__":
    main()
