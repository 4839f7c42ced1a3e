"""Environment benchmark: random-play steps per second of each environment, and the
Kalah 6 x 4 AEC environment beside OpenSpiel's ``mancala`` through its Python API.

Run ``python bench/envs.py`` (``--quick`` for a short run). Beside the AEC environment,
the same random games are played by calling the rule kernels straight from Python
(no environment API): the floor under any Python API. A random player picks a
uniform legal action (from the action mask, or OpenSpiel's ``legal_actions()``) with
Python's ``random``, the same way for every environment; an episode that ends is
reset, and resets count in the time but not as steps. Kalah (AEC, standard capture
rule) and OpenSpiel's mancala are timed alternately, ``--repeats`` rounds each, and
the medians and their ratio are reported; the Gymnasium environments are timed
round-robin in the same way; OpenSpiel is skipped, saying so, when it
is not installed. Prints a table and saves ``bench/results/envs.json`` with the
machine it ran on.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _harness import machine, save_result  # noqa: E402

import gymnasium  # noqa: E402

import jitgames.envs  # noqa: E402,F401  (registers the environments)
from jitgames.envs import kalah  # noqa: E402


def aec_steps(steps: int, seed: int) -> float:
    """Seconds for ``steps`` random moves in Kalah(6,4) (standard rule), two random agents."""
    env = kalah.raw_env(pits=6, stones=4, variant="standard", reward="outcome")
    rng = random.Random(seed)
    env.reset(seed=seed)
    start = time.perf_counter()
    for _ in range(steps):
        agent = env.agent_selection
        if env.terminations[agent]:
            env.reset()
            agent = env.agent_selection
        mask = env.observe(agent)["action_mask"]
        env.step(rng.choice(np.flatnonzero(mask).tolist()))
    return time.perf_counter() - start


def kernel_steps(steps: int, seed: int) -> float:
    """Seconds for ``steps`` random moves made by calling the rule kernels directly from
    Python (``legal_moves``, then ``play_pit``): the floor under any Python API."""
    from jitgames.kalah.rules import legal_moves, new_board

    rng = random.Random(seed)
    board, player, moves = new_board(6, 4), 0, np.zeros(6, dtype=np.int64)
    start = time.perf_counter()
    for _ in range(steps):
        count = legal_moves(board, player, moves)
        if count == 0:
            board, player = new_board(6, 4), 0
            count = legal_moves(board, player, moves)
        player, _, _ = kalah.play_pit(board, player, moves[rng.randrange(count)], 1)
    return time.perf_counter() - start


def openspiel_steps(steps: int, seed: int) -> float:
    """Seconds for ``steps`` random moves in OpenSpiel's mancala (Python API)."""
    import pyspiel

    game = pyspiel.load_game("mancala")
    rng = random.Random(seed)
    state = game.new_initial_state()
    start = time.perf_counter()
    for _ in range(steps):
        if state.is_terminal():
            state = game.new_initial_state()
        state.apply_action(rng.choice(state.legal_actions()))
    return time.perf_counter() - start


def gym_steps(env_id: str, options: dict, steps: int, seed: int) -> float:
    """Seconds for ``steps`` random legal steps of a Gymnasium environment (unwrapped)."""
    env = gymnasium.make(env_id, **options).unwrapped
    rng = random.Random(seed)
    obs, _ = env.reset(seed=seed)
    start = time.perf_counter()
    for _ in range(steps):
        if "action_mask" in obs:
            # no legal action (a deal with no move): any action ends the episode
            legal = np.flatnonzero(obs["action_mask"]).tolist() or [0]
            action = rng.choice(legal)
        else:
            action = rng.randrange(env.action_space.n)
        obs, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            obs, _ = env.reset()
    return time.perf_counter() - start


def openspiel_available() -> str | None:
    """None when OpenSpiel can be imported, else the reason it cannot."""
    try:
        import pyspiel  # noqa: F401
    except ImportError as exc:
        return f"OpenSpiel not installed ({exc}); pip install open_spiel"
    return None


GYM_CASES = [
    ("Kalah-v0 6x4 vs random", "jitgames/Kalah-v0", {"opponent": "random"}),
    ("Kalah-v0 6x4 vs alpha-beta depth 4", "jitgames/Kalah-v0", {"depth": 4}),
    ("Kalah-v0 4x3 vs perfect", "jitgames/Kalah-v0", {"pits": 4, "stones": 3,
                                                      "opponent": "perfect"}),
    ("Mastermind-v0 4x6", "jitgames/Mastermind-v0", {}),
    ("Mastermind-v0 5x8", "jitgames/Mastermind-v0", {"pegs": 5, "colours": 8}),
    ("Solitaire-v0 (optimal score at reset)", "jitgames/Solitaire-v0", {}),
    ("Solitaire-v0 solve=False", "jitgames/Solitaire-v0", {"solve": False}),
    ("Solitaire-v0 reachable=True", "jitgames/Solitaire-v0", {"reachable": True}),
]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer steps and rounds")
    parser.add_argument("--repeats", type=int, default=None, help="rounds of each timing")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "envs.json"))
    args = parser.parse_args(argv)
    steps = 5_000 if args.quick else 40_000
    repeats = args.repeats or (3 if args.quick else 7)
    results = {"machine": machine(), "steps": steps, "repeats": repeats}

    # warm-up: compile (or load) every kernel before timing
    aec_steps(200, 0)
    for _, env_id, options in GYM_CASES:
        gym_steps(env_id, options, 50, 0)

    skipped = openspiel_available()
    ours, theirs, bare = [], [], []
    kernel_steps(200, 0)
    if skipped is None:
        openspiel_steps(200, 0)
    for r in range(repeats):  # alternate, so all see the same load on a shared machine
        ours.append(aec_steps(steps, r))
        bare.append(kernel_steps(steps, r))
        if skipped is None:
            theirs.append(openspiel_steps(steps, r))
    kalah_row = {"environment": "Kalah 6x4 AEC (two random agents)", "steps": steps,
                 "median_seconds": statistics.median(ours),
                 "steps_per_second": steps / statistics.median(ours)}
    kernel_row = {"environment": "Kalah 6x4 rule kernels called from Python", "steps": steps,
                  "median_seconds": statistics.median(bare),
                  "steps_per_second": steps / statistics.median(bare)}
    results["kalah_vs_openspiel"] = {"ours": kalah_row, "kernels": kernel_row,
                                     "openspiel": None, "openspiel_skipped": skipped}
    if skipped is None:
        results["kalah_vs_openspiel"]["openspiel"] = {
            "environment": "OpenSpiel mancala (Python API)", "steps": steps,
            "median_seconds": statistics.median(theirs),
            "steps_per_second": steps / statistics.median(theirs)}
        results["kalah_vs_openspiel"]["openspiel_over_ours"] = (
            statistics.median(ours) / statistics.median(theirs))

    # the searching opponents make a step hundreds of times slower: fewer steps
    counts = [steps // 10 if "alpha-beta" in label or "perfect" in label else steps
              for label, _, _ in GYM_CASES]
    times = [[] for _ in GYM_CASES]
    for r in range(repeats):  # round-robin, so that every case sees the same load
        for k, (label, env_id, options) in enumerate(GYM_CASES):
            times[k].append(gym_steps(env_id, options, counts[k], r))
    rows = []
    for (label, env_id, options), n, seconds in zip(GYM_CASES, counts, times):
        median = statistics.median(seconds)
        rows.append({"environment": label, "id": env_id, "options": options, "steps": n,
                     "median_seconds": median, "steps_per_second": n / median})
    results["gymnasium"] = rows

    print(f"random play, median of {repeats} rounds ({results['machine']['cpu']}, "
          f"{results['machine']['utc']} UTC)")
    print(f"{'environment':48s} {'steps/s':>12s}")
    print(f"{kalah_row['environment']:48s} {kalah_row['steps_per_second']:12,.0f}")
    print(f"{kernel_row['environment']:48s} {kernel_row['steps_per_second']:12,.0f}")
    if skipped is None:
        other = results["kalah_vs_openspiel"]["openspiel"]
        print(f"{other['environment']:48s} {other['steps_per_second']:12,.0f}   "
              f"(ours / OpenSpiel speed: "
              f"{1 / results['kalah_vs_openspiel']['openspiel_over_ours']:.2f}x)")
    else:
        print(f"OpenSpiel mancala skipped: {skipped}")
    for row in rows:
        print(f"{row['environment']:48s} {row['steps_per_second']:12,.0f}")
    save_result(args.out, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
