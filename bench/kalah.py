"""Kalah benchmarks: perft (apply/undo vs copy), alpha-beta node rates and the effect
of move ordering, the transposition table and the endgame database, the cost of the
solver's node budget per kernel call, the target Kalah(6,4), and the time to solve
each Kalah(m, n).

Run ``python bench/kalah.py`` (``--quick`` for a short run, ``--timeout S`` per
solved board, ``--skip-solve`` to leave the solve series out, ``--endgame-dir DIR``
for the solves' databases, ``--target-repeats 0`` to skip Kalah(6,4)). Prints tables
and saves ``bench/results/kalah.json``. Times are medians of ``--repeats`` runs; the
compile time is measured in a subprocess on a fresh Numba cache. Each solve runs in
its own subprocess so that a board exceeding the timeout is stopped cleanly. The
first Kalah(6,4) solve builds the 20-stone database (minutes) unless it is on disk;
the median is taken over the solves after it, which read it.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _harness import machine, median_seconds  # noqa: E402
from jitgames.kalah import evaluation, rules, search, solver, tournament  # noqa: E402
from jitgames._store import data_dir  # noqa: E402
from jitgames.kalah.endgame import binomials, build_endgame, table_size  # noqa: E402


def bench_perft(repeats):
    board = rules.new_board(6, 4)
    scratch = np.zeros((10, 6), dtype=np.int64)
    rules.perft_undo(board, 0, 2, 0, scratch), rules.perft_copy(board, 0, 2, 0, scratch)
    t_undo, leaves = median_seconds(lambda: rules.perft_undo(board, 0, 9, 0, scratch), repeats)
    t_copy, leaves2 = median_seconds(lambda: rules.perft_copy(board, 0, 9, 0, scratch), repeats)
    assert leaves == leaves2
    return {"board": "Kalah(6,4) opening", "depth": 9, "leaves": int(leaves),
            "undo_seconds": t_undo, "copy_seconds": t_copy, "copy_over_undo": t_copy / t_undo,
            "undo_leaves_per_second": leaves / t_undo}


def bench_search(repeats, depth, count):
    boards, first = tournament.make_openings(6, 4, count, 4, 0, seed=2026)
    w = evaluation.weights_for("store", 6)
    rows = []
    for name, method, ordering, d in [("minimax", search.MINIMAX, False, depth - 2),
                                      ("alpha-beta", search.ALPHABETA, False, depth - 2),
                                      ("alpha-beta", search.ALPHABETA, False, depth),
                                      ("alpha-beta + ordering", search.ALPHABETA, True, depth)]:
        def run():
            nodes = np.zeros(1, dtype=np.int64)
            for b, p in zip(boards, first):
                search.choose_move(b.copy(), p, d, w, 0, method, ordering, False,
                                   np.uint64(0), 0, nodes)
            return int(nodes[0])
        run()
        seconds, nodes = median_seconds(run, repeats)
        rows.append({"search": name, "depth": d, "positions": count, "nodes": nodes,
                     "seconds": seconds, "nodes_per_second": nodes / seconds})
    return rows


def bench_table(m, n, stones):
    rows = []
    solver.Solver(2, 2, endgame_stones=0, table_bits=8).value(rules.new_board(2, 2), 0)
    for bits in (12, 16, 20, 22):
        s = solver.Solver(m, n, endgame_stones=stones, table_bits=bits)
        start = time.perf_counter()
        value = s.value(s.opening, 0)
        rows.append({"board": f"Kalah({m},{n})", "table_entries": 1 << bits,
                     "endgame_stones": stones, "value": value, "nodes": int(s.stats[0]),
                     "seconds": time.perf_counter() - start})
    return rows


def bench_endgame(m, n, sizes):
    rows = []
    for stones in sizes:
        binom = binomials(stones + 2 * m + 1, 2 * m + 1)
        db = np.empty(table_size(m, stones), dtype=np.int8)
        start = time.perf_counter()
        build_endgame(m, stones, 0, db, binom)
        build = time.perf_counter() - start
        s = solver.Solver(m, n, endgame_stones=0, table_bits=22)
        s.db, s.endgame_stones = db, stones
        start = time.perf_counter()
        value = s.value(s.opening, 0)
        rows.append({"board": f"Kalah({m},{n})", "endgame_stones": stones,
                     "entries": int(db.size), "megabytes": db.nbytes / 1e6,
                     "build_seconds": build, "value": value, "search_nodes": int(s.stats[0]),
                     "search_seconds": time.perf_counter() - start})
    return rows


def _published_values():
    """Published values of tests/data/kalah_solved.csv by (pits, stones, variant)."""
    with open(ROOT / "tests" / "data" / "kalah_solved.csv") as handle:
        return {(int(r["pits"]), int(r["stones"]), r["variant"]): int(r["value"])
                for r in csv.DictReader(handle)}


PUBLISHED = _published_values()


def solve_in_subprocess(m, n, variant, timeout, env=None, extra=()):
    """Solve in a child process; adds ``wall_seconds`` and the child's ``user_cpu_seconds``
    (the machine is shared, so CPU time is the fairer speed figure)."""
    cmd = [sys.executable, "-m", "jitgames.kalah", "solve", str(m), str(n), "--variant",
           variant, "--json", "--quiet", *extra]
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    start = time.perf_counter()
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                              env=env)
    except subprocess.TimeoutExpired:
        return {"pits": m, "stones": n, "variant": variant, "value": None,
                "seconds": None, "status": f"not finished within {timeout} s"}
    wall = time.perf_counter() - start
    if done.returncode != 0:
        return {"pits": m, "stones": n, "variant": variant, "value": None, "seconds": None,
                "status": f"failed: {done.stderr.strip()[-200:]}"}
    out = json.loads(done.stdout)
    out["wall_seconds"] = wall
    out["user_cpu_seconds"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - cpu_before
    out["status"] = "solved"
    out.pop("line")
    out["published"] = PUBLISHED.get((m, n, variant))
    if out["published"] is not None and out["value"] != out["published"]:
        out["status"] = f"WRONG: solved {out['value']}, published {out['published']}"
        print(f"Kalah({m},{n}) {variant}: {out['status']}", file=sys.stderr)
    return out


def bench_target(m, n, directory, repeats, timeout):
    """Kalah(m, n) with the default options and databases kept in ``directory``: the
    first run builds (and saves) the database when it is missing, the ``repeats``
    runs after it read it from disk. Medians of wall/CPU seconds of the latter."""
    extra = ["--endgame-dir", directory]
    first = solve_in_subprocess(m, n, "empty-capture", timeout, extra=extra)
    runs = [solve_in_subprocess(m, n, "empty-capture", timeout, extra=extra)
            for _ in range(repeats)]
    solved = [r for r in runs if r["status"] == "solved"]
    out = {"board": f"Kalah({m},{n})", "first_run": first, "runs": runs}
    if solved:
        for key in ("seconds", "wall_seconds", "user_cpu_seconds", "endgame_seconds"):
            out[f"median_{key}"] = statistics.median(r[key] for r in solved)
    return out


def bench_table_on_target(m, n, directory, bits_list):
    """Nodes and seconds of the value search of Kalah(m, n) (default database, read
    from ``directory``) for several table sizes; one run each."""
    rows = []
    for bits in bits_list:
        s = solver.Solver(m, n, table_bits=bits, endgame_dir=directory)
        start = time.perf_counter()
        value = s.value(s.opening, 0)
        rows.append({"board": f"Kalah({m},{n})", "table_entries": 1 << bits,
                     "endgame_stones": s.endgame_stones, "value": value,
                     "nodes": int(s.stats[0]), "seconds": time.perf_counter() - start})
        del s
    return rows


def bench_slices(m, n, stones, budgets, repeats):
    """Cost of handing control back to Python every ``budget`` nodes (Ctrl-C)."""
    def run(budget):
        s = solver.Solver(m, n, endgame_stones=stones, table_bits=22)
        s.node_budget = budget
        start = time.perf_counter()
        value = s.value(s.opening, 0)
        return time.perf_counter() - start, value, int(s.stats[0])

    run(budgets[0])
    times = {b: [] for b in budgets}
    for _ in range(repeats):            # interleaved, so that load drifts hit all alike
        for budget in budgets:
            seconds, value, nodes = run(budget)
            times[budget].append(seconds)
    return [{"board": f"Kalah({m},{n})", "node_budget": b, "value": value, "nodes": nodes,
             "seconds": statistics.median(times[b])} for b in budgets]


def bench_compile():
    with tempfile.TemporaryDirectory(prefix="kalah-bench-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        cold = solve_in_subprocess(3, 3, "empty-capture", 600, env, ["--no-endgame-files"])
        warm = solve_in_subprocess(3, 3, "empty-capture", 600, env, ["--no-endgame-files"])
    return {"cold_wall_seconds": cold.get("wall_seconds"),
            "warm_wall_seconds": warm.get("wall_seconds"),
            "compile_seconds_estimate": (cold.get("wall_seconds") or 0)
            - (warm.get("wall_seconds") or 0)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="seconds allowed per solved board (600)")
    parser.add_argument("--skip-solve", action="store_true")
    parser.add_argument("--boards", default=None,
                        help="comma-separated MxN boards to solve (default: all up to 6 pits)")
    parser.add_argument("--solve-options", default="",
                        help="extra options for each solve, e.g. "
                             "'--endgame-stones 16 --table-bits 24'")
    parser.add_argument("--endgame-dir", default=None,
                        help="where solves keep endgame databases (default: the CLI's, "
                             "kalah/ in the user's data directory)")
    parser.add_argument("--target-repeats", type=int, default=3,
                        help="solves of Kalah(6,4) reading the database (3; 0 skips)")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "kalah.json"))
    args = parser.parse_args(argv)
    results = {"machine": machine(),
               "command": " ".join(["bench/kalah.py",
                                                                        *(argv or sys.argv[1:])])}
    results["compile"] = bench_compile()
    print(f"compile (cold cache, solve 3 3): {results['compile']}")
    results["perft"] = bench_perft(args.repeats)
    p = results["perft"]
    print(f"\nperft Kalah(6,4) depth {p['depth']}: {p['leaves']} leaves; apply/undo "
          f"{p['undo_seconds']:.3f} s, copy-make {p['copy_seconds']:.3f} s "
          f"(copy/undo = {p['copy_over_undo']:.2f})")
    results["search"] = bench_search(args.repeats, 6 if args.quick else 8,
                                     10 if args.quick else 20)
    print(f"\n{'search':<24}{'depth':>6}{'nodes':>12}{'seconds':>10}{'nodes/s':>12}")
    for r in results["search"]:
        print(f"{r['search']:<24}{r['depth']:>6}{r['nodes']:>12}{r['seconds']:>10.3f}"
              f"{r['nodes_per_second']:>12.3g}")
    results["table"] = bench_table(6, 3, 10)
    print("\ntransposition table (solve Kalah(6,3), 10-stone endgame database)")
    for r in results["table"]:
        print(f"  {r['table_entries']:>8} entries: {r['nodes']:>10} nodes {r['seconds']:8.2f} s")
    sizes = [4, 8, 10] if args.quick else [4, 8, 10, 12, 14]
    results["endgame"] = bench_endgame(6, 3, sizes)
    print("\nendgame database size/time (m = 6), solving Kalah(6,3)")
    print(f"{'stones':>7}{'entries':>12}{'MB':>8}{'build s':>9}{'nodes':>12}{'search s':>10}")
    for r in results["endgame"]:
        print(f"{r['endgame_stones']:>7}{r['entries']:>12}{r['megabytes']:>8.1f}"
              f"{r['build_seconds']:>9.2f}{r['search_nodes']:>12}{r['search_seconds']:>10.2f}")
    directory = args.endgame_dir or str(data_dir() / "kalah")
    results["slices"] = bench_slices(5, 4, 14, [1 << 12, solver.NODE_BUDGET, 1 << 40],
                                     args.repeats)
    print("\nnode budget per kernel call (solve Kalah(5,4), 14 stones), median seconds")
    for r in results["slices"]:
        print(f"  {r['node_budget']:>14} nodes/call: {r['nodes']:>9} nodes "
              f"{r['seconds']:7.2f} s")
    if args.target_repeats > 0:
        t = results["target"] = bench_target(6, 4, directory, args.target_repeats,
                                             args.timeout)
        f = t["first_run"]
        print(f"\nKalah(6,4), default options, databases in {directory}")
        print(f"  first run: value {f.get('value')}, {f.get('seconds')} s "
              f"(database {f.get('endgame_source')}, {f.get('endgame_seconds')} s)")
        if "median_seconds" in t:
            print(f"  {args.target_repeats} runs reading it: median {t['median_seconds']:.2f} s "
                  f"reported, {t['median_wall_seconds']:.2f} s wall, "
                  f"{t['median_user_cpu_seconds']:.2f} s CPU, "
                  f"{t['runs'][0]['nodes']} nodes")
        results["target_table"] = bench_table_on_target(6, 4, directory, [20, 22, 24, 26])
        print("\ntransposition table, Kalah(6,4) value search, database read from disk")
        for r in results["target_table"]:
            print(f"  {r['table_entries']:>9} entries: {r['nodes']:>10} nodes "
                  f"{r['seconds']:8.2f} s")
    if not args.skip_solve:
        if args.boards:
            boards = [tuple(int(x) for x in b.split("x")) for b in args.boards.split(",")]
        else:
            boards = [(m, n) for m in range(1, 7) for n in range(1, 7)]
        results["solve"] = []
        given_up = set()
        print(f"\n{'board':<12}{'variant':<15}{'value':>6}{'seconds':>10}  status")
        for m, n in boards:
            if m in given_up:
                continue
            row = solve_in_subprocess(m, n, "empty-capture", args.timeout,
                                      extra=["--endgame-dir", directory,
                                             *args.solve_options.split()])
            results["solve"].append(row)
            value = "" if row["value"] is None else f"{row['value']:+d}"
            secs = "" if row["seconds"] is None else f"{row['seconds']:.2f}"
            print(f"Kalah({m},{n})  {'empty-capture':<15}{value:>6}{secs:>10}  {row['status']}",
                  flush=True)
            if row["value"] is None:
                given_up.add(m)   # larger n on this m will not finish either
    results["machine"]["load_average_end"] = list(os.getloadavg())
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=1))
    print(f"\nsaved {args.out}")


if __name__ == "__main__":
    main()
