"""The worst-case optimum of Mastermind, size by size, with its proof and its time.

For each size (pegs x colours, repeats allowed) decides the least worst case with
:func:`jitgames.mastermind.worst_case.decide_worst_case` (every first guess refuted
at one guess less, a strategy tree at the value) and records the value, the bounds,
the first guess, the tree's total, the sets searched and the CPU and wall seconds.
Writes each heavy size's tree to ``bench/results/mastermind_trees/worst-PxK.json.gz``
(checked by ``jitgames mastermind evaluate --tree``) and keeps a checkpoint per size
under ``bench/results/mastermind_worst_checkpoints/``, so an interrupted run resumes
(Ctrl-C: the sizes done are saved). Results: ``bench/results/mastermind_worst.json``
with the machine, after every size.

``--compare`` times the least-total search of :mod:`jitgames.mastermind.minimax`
(which also finds the worst case) on the same sizes in the same run, alternating,
as the peer. ``--baseline DIR --against 5x5,6x4`` times the worst-case search of an
earlier tree of this project (``git archive COMMIT | tar -x -C DIR``) against this
one, each run in a fresh interpreter of its own tree, alternating, and checks that
both give the same bounds (``baseline`` in the results file). Run
``python bench/mastermind_worst.py`` (``--sizes 4x7,5x5``).
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _harness import machine  # noqa: E402
from jitgames.mastermind.codes import load_game  # noqa: E402
from jitgames.mastermind.minimax import minimax_guesses  # noqa: E402
from jitgames.mastermind.worst_case import decide_worst_case, write_worst_tree  # noqa: E402

DEFAULT_SIZES = "3x9,3x10,4x7,4x8,5x5,6x4,4x9,5x6,7x4,6x5,5x7,5x8"
TREES_FROM = 4000  # sizes with at least this many codes get their tree committed
RESULTS = ROOT / "bench" / "results"


def _cpu_seconds(call):
    start = time.process_time()
    value = call()
    return value, time.process_time() - start


def compare(sizes, repeats: int) -> list[dict]:
    """CPU seconds of the worst-case search and of the least-total search, alternating."""
    rows = []
    warm = load_game(3, 3)  # compile both searches before any timing
    decide_worst_case(*warm)
    minimax_guesses(*warm)
    for item in sizes:
        pegs, colours = (int(x) for x in item.split("x"))
        space, matrix = load_game(pegs, colours)
        ours, peer = [], []
        for _ in range(repeats):
            result, seconds = _cpu_seconds(lambda: decide_worst_case(space, matrix))
            ours.append(seconds)
            value, seconds = _cpu_seconds(lambda: minimax_guesses(space, matrix))
            peer.append(seconds)
            assert value == result.upper, (item, value, result.upper)
        row = {"size": item, "worst_case": result.upper, "repeats": repeats,
               "worst_search_cpu_s": round(statistics.median(ours), 4),
               "minimax_search_cpu_s": round(statistics.median(peer), 4)}
        row["speedup"] = round(row["minimax_search_cpu_s"] / max(row["worst_search_cpu_s"],
                                                                  1e-9), 1)
        rows.append(row)
        print(f"{item:>5}: worst {row['worst_case']}  worst-case search "
              f"{row['worst_search_cpu_s']:.3f} CPU s  least-total search "
              f"{row['minimax_search_cpu_s']:.3f} CPU s  ({row['speedup']}x)", flush=True)
    return rows


_ONE_RUN = """
import json, sys
from jitgames.mastermind.codes import load_game
from jitgames.mastermind.worst_case import decide_worst_case
space, matrix = load_game(*(int(x) for x in sys.argv[1].split("x")))
result = decide_worst_case(space, matrix)
print(json.dumps(result.to_dict()))
"""


def _run_in(tree: Path, item: str) -> dict:
    """One worst-case decision of ``item`` by the code of ``tree``, in a fresh
    interpreter."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, "-c", _ONE_RUN, item], env=env, cwd=tree,
                         capture_output=True, text=True, check=True, timeout=7200)
    return json.loads(out.stdout.strip().splitlines()[-1])


def against_baseline(sizes, baseline: Path, repeats: int) -> list[dict]:
    """CPU seconds and sets searched of this tree and of ``baseline``, alternating
    (baseline first), medians and ratios; the bounds must agree."""
    rows = []
    for tree in (baseline, ROOT):  # compile (the Numba cache) outside the timing
        _run_in(tree, "3x3")
    for item in sizes:
        runs = {"baseline": [], "this": []}
        for _ in range(repeats):
            for name, tree in (("baseline", baseline), ("this", ROOT)):
                runs[name].append(_run_in(tree, item))
        keys = ("lower", "upper", "worst_case", "refuted")
        want = {k: runs["baseline"][0][k] for k in keys}
        assert all({k: r[k] for k in keys} == want for rs in runs.values() for r in rs), item
        row = {"size": item, "worst_case": want["worst_case"], "repeats": repeats}
        for name, rs in runs.items():
            row[f"{name}_cpu_s"] = round(statistics.median(r["cpu_seconds"] for r in rs), 3)
            row[f"{name}_sets"] = rs[0]["nodes"]
        row["speedup"] = round(row["baseline_cpu_s"] / max(row["this_cpu_s"], 1e-9), 2)
        rows.append(row)
        print(f"{item:>5}: worst {row['worst_case']}  baseline {row['baseline_cpu_s']:.2f} "
              f"CPU s, {row['baseline_sets']} sets  this {row['this_cpu_s']:.2f} CPU s, "
              f"{row['this_sets']} sets  ({row['speedup']}x)", flush=True)
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=DEFAULT_SIZES)
    parser.add_argument("--compare", default="4x5,4x6,5x4,6x3",
                        help="sizes timed against the least-total search ('' for none)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--baseline", default=None, metavar="DIR",
                        help="an earlier source tree to time against (--against sizes)")
    parser.add_argument("--against", default="5x5,6x4,5x7",
                        help="sizes timed against --baseline")
    parser.add_argument("--out", default=str(RESULTS / "mastermind_worst.json"))
    parser.add_argument("--add-run", nargs=2, action="append", default=[],
                        metavar=("JSON", "COMMAND"),
                        help="record a finished `jitgames mastermind worst --json` run "
                             "(its output file and the command that made it) as a row")
    args = parser.parse_args(argv)
    out = Path(args.out)
    old = json.loads(out.read_text()) if out.exists() else {}
    rows = {r["size"]: r for r in old.get("rows", [])}
    doc = {"command": "python bench/mastermind_worst.py " + " ".join(argv or sys.argv[1:]),
           "machine": machine(), "rows": [], "compare": old.get("compare", []),
           "compare_command": old.get("compare_command"),
           "baseline": old.get("baseline")}

    def save():
        doc["rows"] = sorted(rows.values(), key=lambda r: (r["codes"], r["size"]))
        out.write_text(json.dumps(doc, indent=1) + "\n")

    for path, command in args.add_run:
        run = json.loads(Path(path).read_text())
        item = f"{run['pegs']}x{run['colours']}"
        rows[item] = {"size": item, **run, "command": command}
        tree = RESULTS / "mastermind_trees" / f"worst-{item}.json.gz"
        if tree.exists():
            rows[item]["tree_file"] = str(tree.relative_to(ROOT))
        save()
        print(f"{item}: recorded from {path}")
    if args.add_run:
        return 0
    if args.baseline:
        doc["baseline"] = {"command": doc["command"], "machine": doc["machine"],
                           "rows": against_baseline(args.against.split(","),
                                                    Path(args.baseline), args.repeats)}
        doc["baseline"]["machine"]["load_average_after"] = list(os.getloadavg())
        doc["command"], doc["machine"] = old.get("command"), old.get("machine")  # the rows'
        save()
        return 0
    if args.compare:
        doc["compare"] = compare(args.compare.split(","), args.repeats)
        doc["compare_command"] = doc["command"]
        save()
    checkpoints = RESULTS / "mastermind_worst_checkpoints"
    checkpoints.mkdir(exist_ok=True)
    for item in filter(None, args.sizes.split(",")):
        pegs, colours = (int(x) for x in item.split("x"))
        space, matrix = load_game(pegs, colours)
        checkpoint = checkpoints / f"{item}.ckpt"
        result = decide_worst_case(space, matrix, checkpoint,
                                   lambda line: print(f"  {item} {line}", flush=True))
        row = {"size": item, **result.to_dict(), "command": doc["command"],
               "utc": doc["machine"].get("utc")}
        previous = rows.get(item)
        if previous is not None and previous.get("cpu_seconds") and not result.complete:
            row["cpu_seconds_before"] = previous["cpu_seconds"]
        rows[item] = row
        if result.complete and space.size >= TREES_FROM:
            path = RESULTS / "mastermind_trees" / f"worst-{item}.json.gz"
            write_worst_tree(path, result)
            row["tree_file"] = str(path.relative_to(ROOT))
        if result.complete:
            checkpoint.unlink(missing_ok=True)  # the row and the tree say it all
        save()
        status = (f"worst case {result.upper}" if result.complete else
                  f"not decided: [{result.lower}, {result.upper or '?'}]")
        print(f"{item:>5} {space.size:>6} codes: {status}  first guess {result.first_guess}"
              f"  {result.nodes} sets  {result.cpu_seconds:.1f} CPU s  "
              f"{result.seconds:.1f} s", flush=True)
        if not result.complete:
            print("interrupted: the checkpoint keeps the work done; rerun to resume")
            return 130
    print(f"saved {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
