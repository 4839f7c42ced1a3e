"""How long the Kalah coach takes to value every move of a position, by stones in play.

    python bench/kalah_coach.py [--boards 3x10,2x31,4x5,5x4,6x4] [--games 3]
                                [--out bench/results/kalah_coach.json]

For each board Kalah(m, n), plays ``--games`` games (alternately random moves and
2-ply alpha-beta, seeded) and times :meth:`jitgames.kalah.game.Coach.advise` with the
exact solver at every position whose stones in play are within
:data:`jitgames.kalah.game.PERFECT_STONES` ``[m]``; prints and saves the worst time by
stones in play. This is how the limits were chosen (every position answered within
about a second). The first position of a board also pays the endgame database build,
reported apart.

``--answers G`` also times what the page's Best move costs on Kalah(6,4): the
coach's advice for the person (perfect where available, 8-ply alpha-beta otherwise)
plus the 6-ply alpha-beta computer's reply, at every turn of G games; median, 99th
percentile and maximum (the database build of the first perfect position included).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import machine, save_result  # noqa: E402
from jitgames.kalah.game import PERFECT_STONES, Coach, Computer, Game, Opponent  # noqa: E402


def measure(m: int, n: int, games: int) -> dict:
    coach = Coach()
    start = time.perf_counter()
    coach._solver(m, "empty-capture")       # the endgame database, built once
    build = time.perf_counter() - start
    worst: dict = {}
    for seed in range(games):
        game = Game(m, n)
        opponent = Opponent("random") if seed % 2 == 0 else Opponent("alpha-beta", 2)
        computer = Computer(opponent, coach, True, seed)
        while not game.over:
            if coach.perfect_available(game):
                start = time.perf_counter()
                coach.advise(game, "perfect")
                seconds = time.perf_counter() - start
                stones = game.in_play()
                worst[stones] = max(worst.get(stones, 0.0), seconds)
            game.apply(computer.choose(game)[0])
    top = max(worst.values()) if worst else None
    return {"board": f"Kalah({m},{n})", "limit": PERFECT_STONES.get(m), "build_seconds": build,
            "worst_seconds": top,
            "worst_by_stones": {str(k): round(v, 4) for k, v in sorted(worst.items())}}


def answers(games: int) -> dict:
    """Seconds of the server's work for one Best move on Kalah(6,4), turn by turn."""
    coach = Coach(depth=8)
    seconds = []
    for seed in range(games):
        game = Game(6, 4)
        person = Computer(Opponent("perfect"), coach, True, seed, 1)
        computer = Computer(Opponent("alpha-beta", 6), coach, True, seed, 0)
        while not game.over:
            start = time.perf_counter()
            game.apply(person.pick(coach.advise(game).best))
            while not game.over and game.player == 1:
                game.apply(computer.choose(game)[0])
            seconds.append(time.perf_counter() - start)
    seconds.sort()
    return {"board": "Kalah(6,4)", "games": games, "answers": len(seconds),
            "median_seconds": seconds[len(seconds) // 2],
            "p99_seconds": seconds[min(len(seconds) - 1, int(0.99 * len(seconds)))],
            "max_seconds": seconds[-1]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", default="3x10,2x31,4x5,5x4,6x4")
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--answers", type=int, default=10, metavar="G")
    parser.add_argument("--out", default="bench/results/kalah_coach.json")
    args = parser.parse_args(argv)
    result = {"machine": machine(), "command": " ".join(sys.argv), "boards": []}
    for spec in args.boards.split(","):
        m, n = (int(x) for x in spec.split("x"))
        row = measure(m, n, args.games)
        result["boards"].append(row)
        print(f"{row['board']}: limit {row['limit']} in play, database {row['build_seconds']:.2f}"
              f" s, worst advise {row['worst_seconds']:.3f} s", flush=True)
    if args.answers:
        result["answers"] = row = answers(args.answers)
        print(f"Best move with the reply on {row['board']}, {row['answers']} answers: median "
              f"{row['median_seconds'] * 1000:.1f} ms, p99 {row['p99_seconds'] * 1000:.0f} ms,"
              f" max {row['max_seconds'] * 1000:.0f} ms", flush=True)
    result["machine_end"] = machine()
    save_result(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
