"""Benchmark of jitgames.primes beside primesieve: prime counts, a far window, lines.

Run ``python bench/primes.py [--repeats 3] [--quick] [--no-big]``; prints a table and
writes ``bench/results/primes.json`` (with the machine). ``--count-to B --threads 1 2
16`` times only ``count 0 B`` at each thread count beside primesieve on as many
threads (the thread scaling; ratios to one thread printed and saved);
``--method`` is ours (default ``sieve``: ``auto`` would count wide intervals by the
combinatorial pi instead); ``--primesieve PATH`` names the peer's binary (default: ``primesieve`` on the PATH;
where it was found is printed and saved). Every figure is a whole
process started afresh: ``python -c`` importing jitgames and counting (warm Numba
cache), and primesieve's command line (Debian package ``primesieve``) on the same
interval, run alternately, ``--repeats`` times each; the table gives medians of wall
and CPU seconds (CPU from the child's rusage: steadier than wall on a shared machine),
their ratios, and the child's peak memory. Our process also reports the time spent
in the count alone (``kernel s``: start-up, i.e. imports and loading the compiled
kernels by a first tiny count, excluded) and the bytes the algorithm holds
(segment buffers, sieving primes and their per-thread state, pre-sieve patterns).
Where a run is short the command line itself (``python -m jitgames primes count``)
is timed too, alternating with the others. When primesieve is not installed the
script says so and times ours alone.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _harness import ROOT, cold_compile_seconds, machine

sys.path.insert(0, str(ROOT))

KNOWN_PI = {10**10: 455052511, 10**12: 37607912018}

# What `python -m jitgames primes count A B` does (the same imports, the same exit
# without Python's teardown), plus a tiny first count so that the time of the count
# itself ("kernel") excludes loading the compiled kernels.
OURS = """
import json, sys, time
from jitgames._cli import exit_process
from jitgames._jit import threads
from jitgames.primes.sieve import count_primes
a, b, n = (int(x) for x in sys.argv[1:4])
method = sys.argv[4]
with threads(n):
    count_primes(10**18, 10**18 + 1000)  # start-up: load the compiled kernels
    t = time.perf_counter()
    c = time.process_time()
    result = count_primes(a, b, method)
    kernel = time.perf_counter() - t
    kernel_cpu = time.process_time() - c
print(json.dumps({"count": result.count, "method": result.method, "kernel": kernel,
                  "kernel_cpu": kernel_cpu}))
exit_process(0)
"""


def find_peer(name: str, given: str | None) -> tuple[str | None, str | None]:
    """The peer's binary (``given``, else ``name`` on the PATH) and its version line,
    both printed; ``(None, None)`` with a line saying so when it is not found."""
    path = shutil.which(given or name)
    if path is None:
        print(f"{name} not found ({given or 'not on the PATH'}; Debian: apt-get install "
              f"{name}): timing ours alone")
        return None, None
    out = subprocess.run([path, "--version"], capture_output=True, text=True).stdout
    version = out.splitlines()[0] if out else name
    print(f"peer: {version} at {path}")
    return path, version


def timed_child(argv) -> dict:
    """Wall and CPU seconds, peak RSS (MiB) and stdout of one child process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    read, write = os.pipe()
    wall = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # child: stdout to the pipe, stderr silenced, then exec
        os.dup2(write, 1)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.chdir(ROOT)
        try:
            os.execvpe(argv[0], argv, env)
        finally:
            os._exit(127)
    os.close(write)
    chunks = []
    with os.fdopen(read) as pipe:
        for line in pipe:
            chunks.append(line)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - wall
    if os.waitstatus_to_exitcode(status):
        raise RuntimeError(f"{argv[0]} failed: status {os.waitstatus_to_exitcode(status)}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
            "rss_mib": usage.ru_maxrss / 1024, "out": "".join(chunks)}


METHOD = ["sieve"]  # the counting method timed (main: --method)


def ours(a: int, b: int, n_threads: int) -> dict:
    run = timed_child([sys.executable, "-c", OURS, str(a), str(b), str(n_threads),
                       METHOD[0]])
    record = json.loads(run["out"].strip().splitlines()[-1])
    return {**run, **record}


def cli(a: int, b: int, n_threads: int) -> dict:
    """The command line itself, ``python -m jitgames primes count A B`` (no first
    tiny count: the whole-process figure a user sees)."""
    run = timed_child([sys.executable, "-m", "jitgames", "primes", "count", str(a), str(b),
                       "--threads", str(n_threads), "--method", METHOD[0], "--json"])
    return {**run, "count": json.loads(run["out"])["count"]}


def algorithm_bytes(a: int, b: int, n_threads: int) -> int:
    from jitgames.primes.sieve import memory_bytes

    return memory_bytes(a, b, n_threads)


PEER = ["primesieve"]  # the peer's binary, as found or given (main)


def primesieve(a: int, b: int, n_threads: int) -> dict:
    """primesieve counts [START, STOP] (STOP included): we ask for [a, b - 1]."""
    run = timed_child([PEER[0], str(a), str(b - 1), "-c", "-q", "--no-status",
                       "-t", str(n_threads)])
    return {**run, "count": int(run["out"].split()[-1])}


def median(runs, key):
    values = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(values) if values else None


def compare(name, a, b, n_threads, repeats, peer_ok) -> dict:
    """Alternate ours and primesieve ``repeats`` times; medians and ratios."""
    mine, theirs, command = [], [], []
    for _ in range(repeats):
        mine.append(ours(a, b, n_threads))
        if peer_ok:
            theirs.append(primesieve(a, b, n_threads))
        if b - a <= 10**10:  # the command line too, where a run is short
            command.append(cli(a, b, n_threads))
    counts = ({r["count"] for r in mine} | {r["count"] for r in theirs}
              | {r["count"] for r in command})
    if len(counts) != 1:
        raise AssertionError(f"{name}: counts differ: {counts}")
    count = counts.pop()
    if a == 0 and b in KNOWN_PI:
        assert count == KNOWN_PI[b], (b, count)
    row = {"case": name, "a": a, "b": b, "threads": n_threads, "count": count,
           "method": mine[0]["method"], "repeats": repeats,
           "wall": median(mine, "wall"), "cpu": median(mine, "cpu"),
           "kernel": median(mine, "kernel"), "kernel_cpu": median(mine, "kernel_cpu"),
           "rss_mib": median(mine, "rss_mib"),
           "algorithm_mib": algorithm_bytes(a, b, n_threads) / 2**20,
           "primesieve_wall": median(theirs, "wall"), "primesieve_cpu": median(theirs, "cpu"),
           "primesieve_rss_mib": median(theirs, "rss_mib"),
           "cli_wall": median(command, "wall"), "cli_cpu": median(command, "cpu")}
    if theirs:
        row["ratio_wall"] = row["wall"] / row["primesieve_wall"]
        row["ratio_cpu"] = row["cpu"] / row["primesieve_cpu"]
        row["ratio_kernel"] = row["kernel"] / row["primesieve_wall"]
        row["ratio_kernel_cpu"] = row["kernel_cpu"] / row["primesieve_cpu"]
        if command:
            row["ratio_cli_cpu"] = row["cli_cpu"] / row["primesieve_cpu"]
    return row


def scaling_run(args, version, peer) -> None:
    """``count 0 B`` at each thread count beside primesieve on as many threads."""
    b = int(float(args.count_to)) if "e" in args.count_to else int(args.count_to)
    rows = []
    print(f"{'count 0 B':>16}{'thr':>4}{'count':>15}{'kernel s':>9}{'k cpu':>8}"
          f"{'ps wall':>9}{'ps cpu':>8}{'x wall':>7}{'speed-up':>9}{'ps speed-up':>12}")
    for n_threads in args.threads:
        row = compare(f"count 0 {b}", 0, b, n_threads, args.repeats, bool(peer))
        one = rows[0] if rows and rows[0]["threads"] == 1 else None
        if one is not None:
            row["speedup"] = one["kernel"] / row["kernel"]
            if peer:
                row["primesieve_speedup"] = one["primesieve_wall"] / row["primesieve_wall"]
        rows.append(row)
        ps = (f"{row['primesieve_wall']:9.3f}{row['primesieve_cpu']:8.3f}"
              f"{row['ratio_kernel']:7.2f}" if peer else f"{'-':>9}{'-':>8}{'-':>7}")
        ups = "".join(f"{row[k]:{w}.2f}" if k in row else f"{'-':>{w}}"
                      for k, w in (("speedup", 9), ("primesieve_speedup", 12)))
        print(f"{b:>16}{n_threads:>4}{row['count']:>15}{row['kernel']:9.3f}"
              f"{row['kernel_cpu']:8.3f}{ps}{ups}", flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"peer": version, "peer_path": peer, "rows": rows,
                               "repeats": args.repeats, "machine": machine()}, indent=2))
    print(f"wrote {out}")


COLD = ("import time; t = time.perf_counter(); from jitgames.primes import count_primes, "
        "analyse_lines; count_primes(0, 10**6); count_primes(10**18, 10**18 + 10**6); "
        "analyse_lines('spiral', 21); print(time.perf_counter() - t)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="small sizes (smoke test)")
    parser.add_argument("--no-big", action="store_true", help="skip pi(10^12)")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "primes.json"),
                        help="JSON file to write (default bench/results/primes.json)")
    parser.add_argument("--count-to", default=None,
                        help="only count 0 B (e.g. 1e12) at each of --threads")
    parser.add_argument("--threads", nargs="*", type=int, default=[1, 2],
                        help="thread counts for --count-to (default 1 2)")
    parser.add_argument("--method", default="sieve", choices=("sieve", "auto"),
                        help="our counting method (default sieve: auto takes the "
                             "combinatorial pi for wide intervals)")
    parser.add_argument("--primesieve", default=None,
                        help="the primesieve binary (default: primesieve on the PATH)")
    args = parser.parse_args()
    METHOD[0] = args.method
    peer, version = find_peer("primesieve", args.primesieve)
    if peer:
        PEER[0] = peer
    ours(0, 10**6, 1)  # warm the Numba cache
    if args.count_to is not None:
        scaling_run(args, version, peer)
        return
    scale = 10**3 if args.quick else 1
    cases = [("pi(10^10)", 0, 10**10 // scale, 1), ("pi(10^10)", 0, 10**10 // scale, 2),
             ("window 10^6 at 10^18", 10**18, 10**18 + 10**6, 1),
             ("window 10^6 at 10^18", 10**18, 10**18 + 10**6, 2),
             ("window 10^6 below 2^64", 2**64 - 10**6, 2**64, 2),
             ("window 10^10 at 10^16", 10**16, 10**16 + 10**10 // scale, 2)]
    if not args.no_big and not args.quick:
        cases.append(("pi(10^12)", 0, 10**12, 2))
    rows = []
    header = (f"{'case':<24}{'thr':>4}{'count':>13}{'wall s':>9}{'cpu s':>8}{'kernel s':>9}"
              f"{'k cpu':>8}"
              f"{'MiB':>7}{'alg MiB':>8}{'ps wall':>9}{'ps cpu':>8}{'ps MiB':>7}"
              f"{'x wall':>7}{'x cpu':>7}")
    print(header)
    for name, a, b, n_threads in cases:
        repeats = 1 if b >= 10**12 and a == 0 else args.repeats
        row = compare(name, a, b, n_threads, repeats, bool(peer))
        rows.append(row)

        def f(x, fmt):
            return format(x, fmt) if x is not None else format("-", fmt.split(".")[0].rstrip("f") + "s")
        print(f"{name:<24}{n_threads:>4}{row['count']:>13}{row['wall']:9.3f}{row['cpu']:8.3f}"
              f"{row['kernel']:9.3f}{row['kernel_cpu']:8.3f}{row['rss_mib']:7.0f}"
              f"{row['algorithm_mib']:8.2f}"
              f"{f(row['primesieve_wall'], '9.3f')}{f(row['primesieve_cpu'], '8.3f')}"
              f"{f(row['primesieve_rss_mib'], '7.0f')}{f(row.get('ratio_wall'), '7.2f')}"
              f"{f(row.get('ratio_cpu'), '7.2f')}", flush=True)
        if row.get("ratio_cli_cpu") is not None:
            print(f"{'':<28}the command line: {row['cli_wall']:.3f} s wall, "
                  f"{row['cli_cpu']:.3f} s CPU, {row['ratio_cli_cpu']:.2f}x primesieve's CPU",
                  flush=True)
    scaling = {}
    for name in ("pi(10^10)", "window 10^6 at 10^18"):
        one = next(r for r in rows if r["case"] == name and r["threads"] == 1)
        two = next(r for r in rows if r["case"] == name and r["threads"] == 2)
        scaling[name] = {"wall": one["wall"] / two["wall"], "kernel": one["kernel"] / two["kernel"]}
        print(f"{name}: two threads / one thread: {scaling[name]['kernel']:.2f}x (kernel), "
              f"{scaling[name]['wall']:.2f}x (whole process)")
    compile_s = cold_compile_seconds(COLD)
    print(f"cold-cache compile + first calls: {compile_s:.1f} s")
    if not args.quick:
        out = Path(args.out)
        out.write_text(json.dumps({"peer": version, "rows": rows, "scaling": scaling,
                                   "cold_compile_seconds": compile_s,
                                   "repeats": args.repeats, "machine": machine()}, indent=2))
        print(f"wrote {out}")


if __name__ == "__main__":
    main()
