"""Benchmark of the coach in ``python -m jitgames.solitaire play``: how long a hint takes.

    python bench/solitaire_hint.py [--deals 1000] [--seed 2026]

For each of deals 0..N-1 of the seed, one game is played by random legal moves (a
generator seeded with the deal's index) until no move is left; at every position of
that game with a legal move the benchmark times, on a fresh table epoch:

- the status line's figure, the optimal score still reachable (score-only search);
- a hint (:meth:`jitgames.solitaire.play.Game.hint`: the line figures of the position
  and of its children until a best move is found, plus that score), over all those
  positions and over those where the optimal score is not yet on the foundations
  (elsewhere the hint is immediate: no move can gain a card);

and, as the peer in the same run, alternating with the hints of each deal, the
solve of the deal from its start (:func:`jitgames.solitaire.solve_deals`, full
mode, one thread). Prints the median, 99th percentile and maximum of each, and how
many positions took more than a second (``play`` shows a progress indicator then);
saves JSON with the machine to bench/results/solitaire_hint.json.
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
from jitgames._jit import threads  # noqa: E402
from jitgames.solitaire import deals, solve_deals  # noqa: E402
from jitgames.solitaire.play import Game  # noqa: E402


def percentile(values, q):
    return float(np.percentile(np.asarray(values), q)) if values else None


def summary(seconds: list[float]) -> dict:
    return {"count": len(seconds), "median_ms": 1e3 * statistics.median(seconds),
            "p99_ms": 1e3 * percentile(seconds, 99), "max_ms": 1e3 * max(seconds),
            "mean_ms": 1e3 * statistics.fmean(seconds),
            "over_one_second": sum(s > 1.0 for s in seconds)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "solitaire_hint.json"))
    args = parser.parse_args()

    decks = deals(args.seed, 0, args.deals)
    Game(decks[0]).hint()             # load the compiled kernels before timing
    solve_deals(decks[:1])
    hints, scores, starts, open_hints = [], [], [], []
    slowest = (0.0, None)
    begin = time.perf_counter()
    with threads(1):
        for index, deck in enumerate(decks):
            rng = np.random.default_rng([args.seed, index])
            game = Game(deck)
            while True:
                legal = game.legal_moves()
                if not legal:
                    break
                game._reachable.clear()   # time the searches, not the game's memory
                t = time.perf_counter()
                reachable = game.reachable()
                scores.append(time.perf_counter() - t)
                game._reachable.clear()
                t = time.perf_counter()
                game.hint()
                seconds = time.perf_counter() - t
                hints.append(seconds)
                if reachable > game.score:
                    open_hints.append(seconds)
                if seconds > slowest[0]:
                    slowest = (seconds, [index, len(game.history)])
                game.play(legal[int(rng.integers(len(legal)))])
            t = time.perf_counter()
            solve_deals(deck, threads=1)
            starts.append(time.perf_counter() - t)
    wall = time.perf_counter() - begin

    result = {"machine": machine(), "seed": args.seed, "deals": args.deals,
              "positions": len(hints), "wall_seconds": wall,
              "hint": summary(hints), "hint_cards_to_gain": summary(open_hints),
              "reachable_score": summary(scores),
              "peer_solve_from_deal": summary(starts),
              "slowest_hint": {"seconds": slowest[0], "deal_and_moves_played": slowest[1]},
              "median_ratio_hint_to_deal_solve":
                  statistics.median(hints) / statistics.median(starts)}
    print(f"{len(hints):,} positions along random play of {args.deals:,} deals (seed "
          f"{args.seed}), one thread, {wall:.1f} s:")
    print(f"| what | timings | median ms | p99 ms | max ms | > 1 s |")
    print(f"|---|---|---|---|---|---|")
    for label, key in (("hint (best move + score)", "hint"),
                       ("hint, where cards are still to gain", "hint_cards_to_gain"),
                       ("still-reachable score", "reachable_score"),
                       ("peer: solve the deal from its start", "peer_solve_from_deal")):
        s = result[key]
        print(f"| {label} | {s['count']:,} | {s['median_ms']:.2f} | {s['p99_ms']:.2f} | "
              f"{s['max_ms']:.1f} | {s['over_one_second']} |")
    print(f"slowest hint: {slowest[0] * 1e3:.1f} ms (deal {slowest[1][0]} after "
          f"{slowest[1][1]} moves)")
    save_result(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
