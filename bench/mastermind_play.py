"""Benchmark of the Mastermind game model behind ``play`` and the web page: how long an
answer (with the codes still possible) and a hint take, by size.

    python bench/mastermind_play.py [--games 20] [--sizes 4x6,3x10,5x6,8x3,6x8,8x10]

Each game of seed s (s = 0..N-1) opens with a random code (off the strategy's tree,
so hints are computed from the position, not read off a tree), then plays the
default strategy's hint until solved. At every position it times the hint
(:meth:`Game.hint`) and the answer of the move played (:meth:`Game.play`: feedback
and the count of codes still possible by :mod:`jitgames.mastermind.scan`). The peer,
in the same run where the size has a response matrix, is the count the terminal
used before (:func:`jitgames.mastermind.breaker.consistent_codes`, a row of the
matrix per answer), timed on the same positions right after. The first hint of a
size is left out of the figures when it builds the optimal tree (timed apart, as
"tree"). Prints medians, 99th percentiles and maxima in ms; saves JSON with the
machine to bench/results/mastermind_play.json.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _harness import machine, save_result  # noqa: E402
from jitgames.mastermind import advice  # noqa: E402
from jitgames.mastermind.breaker import consistent_codes  # noqa: E402
from jitgames.mastermind.codes import encode_feedback  # noqa: E402
from jitgames.mastermind.game import Game  # noqa: E402


def percentile(values, q):
    return float(np.percentile(np.array(values), q)) if values else None


def summary(seconds):
    ms = [s * 1000 for s in seconds]
    return {"n": len(ms), "median_ms": statistics.median(ms) if ms else None,
            "p99_ms": percentile(ms, 99), "max_ms": max(ms) if ms else None}


def run_size(pegs, colours, games):
    hints, answers, peers, tree = [], [], [], None
    has_matrix = advice.tier(pegs, colours) != "random"
    if has_matrix:
        space, matrix = advice._game(pegs, colours)  # noqa: SLF001 - the peer's table
    if advice.tier(pegs, colours) == "optimal":  # the tree, once a size (then cached)
        started = time.perf_counter()
        Game(pegs, colours, "breaker", 0).hint()
        tree = time.perf_counter() - started
    for seed in range(games):
        game = Game(pegs, colours, "breaker", seed)
        rng = np.random.default_rng(seed)
        code = tuple(int(d) for d in rng.integers(0, colours, pegs))
        while True:
            started = time.perf_counter()
            game.play(code)
            answers.append(time.perf_counter() - started)
            if has_matrix:
                history = [(int(np.ravel_multi_index(t.guess, (colours,) * pegs)),
                            encode_feedback(t.black, t.white, pegs)) for t in game.turns]
                started = time.perf_counter()
                left = consistent_codes(space, matrix, history).size
                peers.append(time.perf_counter() - started)
                assert left == game.turns[-1].remaining
            if game.solved:
                break
            started = time.perf_counter()
            code = game.hint()
            hints.append(time.perf_counter() - started)
    return {"size": f"{pegs}x{colours}", "strategy": advice.default_strategy(pegs, colours),
            "games": games, "tree_s": tree, "hint": summary(hints),
            "answer": summary(answers), "peer_answer": summary(peers) if peers else None}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--sizes", default="4x6,3x10,5x6,8x3,6x8,8x10")
    parser.add_argument("--out", default=str(ROOT / "bench/results/mastermind_play.json"))
    args = parser.parse_args(argv)
    Game(3, 3, "breaker", 0).best()  # load the kernels before timing
    rows = []
    for size in args.sizes.split(","):
        pegs, colours = (int(x) for x in size.split("x"))
        games = args.games if colours ** pegs <= 10**6 else max(1, args.games // 4)
        row = run_size(pegs, colours, games)
        rows.append(row)
        h, a, p = row["hint"], row["answer"], row["peer_answer"]
        peer = f"; peer count {p['median_ms']:.2f}/{p['p99_ms']:.2f}" if p else ""
        tree = f"; tree {row['tree_s']:.2f} s" if row["tree_s"] is not None else ""
        print(f"{row['size']:>5} {row['strategy']:<10} {games:>3} games: hint median "
              f"{h['median_ms']:.1f} ms, p99 {h['p99_ms']:.1f}, max {h['max_ms']:.1f}; "
              f"answer {a['median_ms']:.2f}/{a['p99_ms']:.2f} ms{peer}{tree}", flush=True)
    save_result(args.out, {"machine": machine(), "command": " ".join(sys.argv),
                           "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
