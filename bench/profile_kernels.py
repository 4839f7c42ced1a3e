"""Where the kernels' time goes: a ``perf`` profile of one workload, by Numba kernel.

    python bench/profile_kernels.py family --rules alaska --deals 400
    python bench/profile_kernels.py mastermind --size 4x8
    python bench/profile_kernels.py mastermind --size 6x5 --job 111223:3,1   # one root job
    python bench/profile_kernels.py etude --deals 20000
    python bench/profile_kernels.py worst --size 5x7          # the worst-case search

``perf`` cannot name the functions Numba compiles (they live in anonymous memory), so
the workload runs in a child process on an empty Numba cache (every kernel compiled in
that process, with its LLVM module at hand), which writes ``/tmp/perf-PID.map``: the
address and size of every function of every kernel it compiled, the map ``perf report``
reads for code it has no symbols for. The parent runs the child under ``perf record``
(sampling on CPU time), then ``perf report``, and prints each kernel's share of the
samples that fell in kernels (callees that Numba inlined count as their caller), and
saves them with the machine in ``bench/results/profile_WORKLOAD.json``. The child runs
on one thread; compiling is outside the timed part but inside the profile, so only the
kernels' shares are reported, not their seconds.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _harness import machine, save_result  # noqa: E402

PACKAGES = {"family": "jitgames.solitaire", "etude": "jitgames.solitaire",
            "mastermind": "jitgames.mastermind", "worst": "jitgames.mastermind"}


def _dispatchers(package: str):
    """The kernels of ``package`` (``jitgames._jit.KERNELS``, every kernel made by its
    ``jit``, by qualified name)."""
    from jitgames._jit import KERNELS
    return [kernel for name, kernel in KERNELS.items() if name.startswith(package + ".")]


def write_perf_map(dispatchers) -> int:
    """Write ``/tmp/perf-PID.map`` for the functions of the kernels compiled in this
    process (a kernel loaded from the cache has no module to read: none then); return
    how many functions it names."""
    entries = set()
    for dispatcher in dispatchers:
        for result in dispatcher.overloads.values():
            library = result.library
            for function in library._final_module.functions:
                if not function.is_declaration:
                    address = library.get_pointer_to_function(function.name)
                    if address:
                        entries.add((address, function.name))
    ordered = sorted(entries)
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as out:
        for i, (address, name) in enumerate(ordered):
            # a function ends where the next begins (no sizes in the module)
            size = min(ordered[i + 1][0] - address, 1 << 20) if i + 1 < len(ordered) else 1 << 16
            out.write(f"{address:x} {size:x} {name}\n")
    return len(ordered)


def kernel_name(symbol: str) -> str | None:
    """``package.module.function`` of a Numba symbol (``_ZN8jitgames9solitaire...``), or
    None for anything else.

    The names after ``_ZN`` are read one by one, each its length in digits then its
    characters, up to the first that is not (Numba's ``B...`` tags, the argument types):
    linear in the symbol's length (a regular expression with nested repeats took
    minutes on the long symbols of the worst-case kernels)."""
    start = symbol.find("_ZN")
    if start < 0 or "jitgames" not in symbol:
        return None
    text, at, parts = symbol, start + 3, []
    while at < len(text) and text[at].isdigit():
        end = at
        while end < len(text) and text[end].isdigit():
            end += 1
        length = int(text[at:end])
        if length == 0 or end + length > len(text):
            break
        parts.append(text[end:end + length])
        at = end + length
    if not parts or parts[0] != "jitgames":
        return None
    return ".".join(parts)


def _child(args) -> None:
    from jitgames._jit import threads
    with threads(1):
        start = time.process_time()
        if args.workload == "family":
            from jitgames.solitaire import deals
            from jitgames.solitaire.family import rules_code
            from jitgames.solitaire.family_study import solve_many
            rows = solve_many(deals(2026, 0, args.deals), rules_code(args.rules), 100_000, 1)
            what = {"deals": args.deals, "rules": args.rules, "positions": int(rows[:, 2].sum())}
        elif args.workload == "etude":
            from jitgames.solitaire import deals, solve_deals
            results = solve_deals(deals(0, 0, args.deals))  # the main job's full mode
            what = {"deals": args.deals, "mean": float(results.score.mean())}
        elif args.workload == "worst":
            from jitgames.mastermind.codes import load_game
            from jitgames.mastermind.worst_case import decide_worst_case
            pegs, colours = (int(x) for x in args.size.split("x"))
            result = decide_worst_case(*load_game(pegs, colours), at_most=args.at_most)
            what = {"size": args.size, "at_most": args.at_most, "lower": result.lower,
                    "upper": result.upper}
        elif args.job is None:
            from jitgames.mastermind.optimal_run import optimal_run
            pegs, colours = (int(x) for x in args.size.split("x"))
            run = optimal_run(pegs, colours, workers=1)
            what = {"size": args.size, "total": int(run.total)}
        else:
            what = _mastermind_job(args.size, args.job)
    what["cpu_seconds_with_compiling"] = time.process_time() - start
    what["functions_mapped"] = write_perf_map(_dispatchers(PACKAGES[args.workload]))
    print(json.dumps(what))


def _job_fits(size: str, job: str) -> bool:
    """Whether ``job`` names a class of a first guess of ``size`` (see :func:`_mastermind_job`)."""
    pegs, colours = (int(x) for x in size.split("x"))
    found = re.fullmatch(r"(\d+):(\d+),(\d+)", job)
    return bool(found and len(found[1]) == pegs and all(1 <= int(c) <= colours for c in found[1])
                and int(found[2]) + int(found[3]) <= pegs)


def _mastermind_job(size: str, job: str) -> dict:
    """The optimal search of one root job of ``size``: the codes answering ``B`` blacks
    and ``W`` whites to the first guess ``CODE`` (``job`` ``CODE:B,W``, digits 1..9), as
    ``bench/mastermind_prune.py --job`` searches it (the search of a long run's tasks)."""
    import numpy as np
    from jitgames.mastermind.codes import load_game
    from jitgames.mastermind.optimal import OptimalSearch

    pegs, colours = (int(x) for x in size.split("x"))
    code, answer = job.split(":")
    blacks, whites = (int(x) for x in answer.split(","))
    space, matrix = load_game(pegs, colours)
    first = int(np.searchsorted(space.values, int("".join(str(int(c) - 1) for c in code), colours)))
    members = np.flatnonzero(matrix[first] == blacks * (pegs + 1) + whites).astype(np.int32)
    used = np.zeros(colours, np.bool_)
    used[space.digits[first]] = True
    search = OptimalSearch(space, matrix, None, workers=1)
    cost, guess = search.best(members, search.remaining - 1, used, [first])
    return {"size": size, "job": job, "codes": int(members.size), "total": int(cost)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workload", choices=sorted(PACKAGES))
    parser.add_argument("--rules", default="alaska", choices=["etude", "yukon", "alaska"])
    parser.add_argument("--deals", type=int, default=400, help="deals 0..N-1 (seed 2026; etude: 0)")
    parser.add_argument("--size", default="4x8", help="PxK, for mastermind")
    parser.add_argument("--job", help="CODE:B,W, for mastermind: one root job of --size "
                        "(the class answering B blacks, W whites to CODE) instead of all codes")
    parser.add_argument("--at-most", type=int, help="worst: stop after deciding whether "
                        "this many guesses suffice (bounds only)")
    parser.add_argument("--top", type=int, default=15, help="kernels printed")
    parser.add_argument("--out", help="file name in bench/results (default profile_WORKLOAD.json)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(args)
        return 0
    if not re.fullmatch(r"\d+x\d+", args.size) or not 1 <= args.deals <= 10**6:
        print("profile_kernels.py: --size is PxK and --deals 1..10^6", file=sys.stderr)
        return 2
    if args.job is not None and not _job_fits(args.size, args.job):
        print(f"profile_kernels.py: --job is CODE:B,W with CODE of {args.size.split('x')[0]} digits "
              f"1..{args.size.split('x')[1]} and B + W at most the pegs", file=sys.stderr)
        return 2
    if shutil.which("perf") is None:
        print("profile_kernels.py: needs Linux perf (the linux-perf package)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        env = dict(os.environ, NUMBA_CACHE_DIR=os.path.join(tmp, "cache"), JITGAMES_WARM_UP="0",
                   PYTHONPATH=str(ROOT))
        child = [sys.executable, __file__, *(argv if argv is not None else sys.argv[1:]), "--child"]
        run = subprocess.run(["perf", "record", "-q", "-o", data, "--", *child], env=env,
                             capture_output=True, text=True, timeout=3600)
        if run.returncode != 0:
            print(f"profile_kernels.py: the profiled run failed: {run.stderr.strip()[-300:]}",
                  file=sys.stderr)
            return 1
        workload = json.loads(run.stdout.strip().splitlines()[-1])
        report = subprocess.run(["perf", "report", "-i", data, "--sort", "symbol", "--stdio"],
                                capture_output=True, text=True, timeout=600).stdout
    shares: dict[str, float] = {}
    for line in report.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[0].endswith("%") and fields[1] == "[.]":
            name = kernel_name(fields[2])
            if name:
                shares[name] = shares.get(name, 0.0) + float(fields[0][:-1])
    total = sum(shares.values())
    if total == 0:
        print("profile_kernels.py: no sample fell in a named kernel", file=sys.stderr)
        return 1
    ranked = sorted(((share / total, name) for name, share in shares.items()), reverse=True)
    print(f"{args.workload}: {workload}")
    print("share of the kernels' samples, by kernel (callees inlined count as their caller):")
    for share, name in ranked[:args.top]:
        print(f"  {100 * share:6.2f} %  {name}")
    save_result(ROOT / "bench" / "results" / (args.out or f"profile_{args.workload}.json"),
                {"command": " ".join(["bench/profile_kernels.py", *(argv or sys.argv[1:])]),
                 "machine": machine(), "workload": workload,
                 "kernel_share_of_all_samples": total / 100,
                 "shares": [{"kernel": name, "share": share} for share, name in ranked]})
    return 0


if __name__ == "__main__":
    sys.exit(main())
