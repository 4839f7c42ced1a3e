"""Mutation testing of the kernels: how many small bugs do the tests catch?

For each game, operators inside ``@jit`` kernels are flipped one at a time (``<`` to
``<=``, ``+`` to ``-``, ``==`` to ``!=``, ...), each mutant is written into a fresh
copy of the package, and the game's kernel tests are run against it as plain Python
(``NUMBA_DISABLE_JIT=1 pytest -m kernel``: the tests that compare kernels with their
reference twins, without compiling every mutant). A mutant is *killed* when the tests
fail or time out (a mutated loop that never ends); it *survives* when they pass.
The score is killed / mutants. Mutation sites are sampled with a fixed seed, so a run
is repeatable; equivalent mutants (a change that alters nothing) count as survivors,
so the score is a lower bound.

Usage: ``python bench/mutation.py [--per-game 12] [--games solitaire,kalah]``; writes
``bench/results/mutation.json``.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from _harness import machine  # noqa: E402

GAMES = ["solitaire", "mastermind", "kalah", "puzzles", "primes"]
SWAPS = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Add,
    ast.FloorDiv: ast.Mult, ast.Mod: ast.FloorDiv,
    ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd, ast.LShift: ast.RShift, ast.RShift: ast.LShift,
}


def _is_kernel(func: ast.FunctionDef) -> bool:
    for dec in func.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        if isinstance(target, ast.Name) and target.id == "jit":
            return True
    return False


def _sites(tree: ast.Module):
    """(kind, node id, operator index) of every mutable operator inside a kernel."""
    sites = []
    for func in ast.walk(tree):
        if not (isinstance(func, ast.FunctionDef) and _is_kernel(func)):
            continue
        for node in ast.walk(func):
            if isinstance(node, ast.Compare):
                sites += [(func.name, node.lineno, id(node), k) for k, op in enumerate(node.ops)
                          if type(op) in SWAPS]
            elif isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in SWAPS:
                sites.append((func.name, node.lineno, id(node), -1))
    return sites


def _mutate(source: str, site_index: int) -> tuple[str, str]:
    tree = ast.parse(source)
    func, line, node_id, k = _sites(tree)[site_index]
    for node in ast.walk(tree):
        if id(node) != node_id:
            continue
        if k >= 0:
            before = type(node.ops[k]).__name__
            node.ops[k] = SWAPS[type(node.ops[k])]()
            after = type(node.ops[k]).__name__
        else:
            before = type(node.op).__name__
            node.op = SWAPS[type(node.op)]()
            after = type(node.op).__name__
        return ast.unparse(tree), f"{func}:{line} {before}->{after}"
    raise AssertionError("site vanished")


def _kernel_tests(game: str) -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob(f"test_{game}_*.py"))


def run_game(game: str, per_game: int, timeout: float, rng: random.Random) -> dict:
    files = [p for p in sorted((ROOT / "jitgames" / game).glob("*.py")) if "@jit" in p.read_text()]
    sites = [(f, i) for f in files for i in range(len(_sites(ast.parse(f.read_text()))))]
    chosen = rng.sample(sites, min(per_game, len(sites)))
    tests = _kernel_tests(game)
    results = []
    for path, index in chosen:
        with tempfile.TemporaryDirectory(prefix="jitgames-mutant-") as tmp:
            copy = Path(tmp) / "repo"
            shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(
                ".git", "__pycache__", "*.nbi", "*.nbc", "results", "*.png"))
            target = copy / path.relative_to(ROOT)
            mutated, what = _mutate(target.read_text(), index)
            target.write_text(mutated)
            env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONPATH=str(copy),
                       HYPOTHESIS_PROFILE="ci")
            start = time.monotonic()
            try:
                done = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-m", "kernel",
                                       "-p", "no:cacheprovider", *tests],
                                      cwd=copy, env=env, capture_output=True, text=True,
                                      timeout=timeout)
                outcome = "survived" if done.returncode == 0 else "killed"
                if done.returncode == 5:
                    outcome = "no tests"
            except subprocess.TimeoutExpired:
                outcome = "killed (timeout)"
        results.append({"file": str(path.relative_to(ROOT)), "mutant": what, "outcome": outcome,
                        "seconds": round(time.monotonic() - start, 1)})
        print(f"  {game:10s} {results[-1]['file']}:{what:40s} {outcome}", flush=True)
    killed = sum(r["outcome"].startswith("killed") for r in results)
    return {"game": game, "sites": len(sites), "mutants": len(results), "killed": killed,
            "score": killed / len(results) if results else None, "results": results}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-game", type=int, default=12, help="mutants per game (12)")
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per mutant (600)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "mutation.json"))
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    games = []
    for name in args.games.split(","):
        games.append(run_game(name, args.per_game, args.timeout, rng))
        # Saved after every game, so an interrupted run keeps the games it finished.
        Path(args.out).write_text(json.dumps({"machine": machine(), "per_game": args.per_game,
                                              "seed": args.seed, "games": games}, indent=1))
    for g in games:
        print(f"{g['game']:10s} {g['killed']}/{g['mutants']} mutants killed "
              f"({g['sites']} sites in its kernels)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
