"""Kalah-v0's vector step on long-lived environments, beside the machine's own speed-up.

    python bench/envs_steady.py                       # 30 s, 1024 games, 1 and 2 threads
    python bench/envs_steady.py --seconds 60 --threads 1 2 --out bench/results/envs_steady.json

A training loop makes its vector environment once and steps it millions of times.
``bench/envs.py --only vector`` instead makes a fresh environment for every timing of
100-200 steps, so each two-thread timing also measures the start of the step pool's
worker thread and the first milliseconds of two busy cores. Here one environment per
thread count (``jitgames/Kalah-v0`` against the random opponent, standard capture rule,
``copy=True``) is made and warmed once, and the run is many short *windows*, each
timing in turn:

- OpenSpiel's mancala, random moves in a plain Python loop from a new game
  (``legal_actions()``, a choice with Python's ``random``, ``apply_action``,
  ``is_terminal()``; ``bench/envs.py``'s ``openspiel_steps_cpu``), when installed;
- ``--window`` steps of the environment on each thread count, after a few untimed ones
  (:data:`LEAD_IN`: the step pool's worker sleeps while the window's other parts run,
  and these wake it, as a loop that steps back to back keeps it awake)
  (``env.unwrapped.step_random(rng, actions)``: a uniform legal pit of every game drawn
  in the step, then the opponent's replies);
- whole random Kalah(6, 4) games played in one kernel call on each thread count
  (``jitgames.envs.kalah_batch.random_games``): the same kind of work with no
  synchronisation at all, so its speed-up is what the machine itself gives two threads
  at that moment (on a shared virtual machine it moves from window to window).

Every ratio is taken within one window (both sides timed within a few milliseconds of
each other) and the report gives medians and quartiles of the per-window ratios: the
step on one thread over OpenSpiel's moves, each thread count's step over one thread's,
the machine's no-synchronisation speed-up, and the step's speed-up as a fraction of it.
The order of the parts alternates from one window to the next. The results file records
the machine (``_harness.machine``), the summary, and every window's seconds as a table
(``windows``: ``columns`` and a row a window, to 0.1 µs). Ctrl-C stops the run at the end of the part being
timed and saves the windows done so far (``"complete": false``, exit status 130).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _harness import machine  # noqa: E402

WARM_STEPS = 300
"""Steps each environment takes before the windows start (its pool's workers started
and settled)."""
GAMES_PER_WINDOW = 1200
"""Whole random games a window plays in one kernel call on each thread count (about
2 ms on one thread on the 2-core box: the same order as the steps' timings)."""
OPENSPIEL_MOVES = 2000
"""OpenSpiel's random moves a window."""
LEAD_IN = 5
"""Untimed steps before each timed run of steps: the window's other parts take longer
than a pool worker's spin window (about 0.65 ms), so its worker is asleep when the
steps come; these steps wake it, as in a loop that steps back to back, where it spins
between steps."""


def _fail(message: str) -> int:
    print(f"envs_steady.py: {message}", file=sys.stderr)
    return 2


def _quartiles(values) -> dict:
    """Median and the 10th, 25th, 75th and 90th percentiles of ``values``."""
    q = np.percentile(np.asarray(values, dtype=float), [10, 25, 50, 75, 90])
    return {"p10": q[0], "p25": q[1], "median": q[2], "p75": q[3], "p90": q[4]}


class Parts:
    """The timed parts of a window, each returning its wall seconds (the whole games and
    OpenSpiel's loop timed by ``bench/envs.py``'s own functions)."""

    def __init__(self, thread_counts, num_envs: int, window: int, seed: int):
        import envs as bench_envs  # bench/envs.py (it registers the environments)
        import gymnasium

        from jitgames._jit import threads

        self._threads = threads
        self._bench = bench_envs
        self.window = window
        self.envs = {}
        self.rng = np.random.default_rng(seed)
        self.actions = np.zeros(num_envs, dtype=np.int64)
        for n in thread_counts:
            with threads(n):
                env = gymnasium.make_vec("jitgames/Kalah-v0", num_envs=num_envs,
                                         vectorization_mode="vector_entry_point",
                                         opponent="random", variant="standard")
                env.reset(seed=seed)
                self.envs[n] = env
        self.game_seed = seed
        self.with_openspiel = bench_envs.openspiel_available() is None
        for n in thread_counts:  # compile or load, start the pools, let them settle
            self.steps(n, WARM_STEPS)
            self.games(n)

    def steps(self, n: int, count: int | None = None) -> float:
        """Seconds for ``count`` (default ``window``) steps on ``n`` threads, after
        :data:`LEAD_IN` untimed ones."""
        vector = self.envs[n].unwrapped
        rng, actions = self.rng, self.actions
        with self._threads(n):
            for _ in range(LEAD_IN):
                vector.step_random(rng, actions)
            start = time.perf_counter()
            for _ in range(self.window if count is None else count):
                vector.step_random(rng, actions)
            return time.perf_counter() - start

    def games(self, n: int) -> float:
        """Seconds for :data:`GAMES_PER_WINDOW` random Kalah(6, 4) games in one kernel
        call on ``n`` threads (a new seed each call)."""
        self.game_seed += 1
        return self._bench.kernel_games("kalah", GAMES_PER_WINDOW, self.game_seed, n)[0]

    def openspiel(self) -> float:
        """Seconds for :data:`OPENSPIEL_MOVES` random moves of OpenSpiel's mancala in its
        plain loop, from a new game (a new seed each call)."""
        self.game_seed += 1
        return self._bench.openspiel_steps_cpu(OPENSPIEL_MOVES, self.game_seed)[0]

    def close(self) -> None:
        for env in self.envs.values():
            env.close()


def run_windows(parts: Parts, thread_counts, seconds: float, windows: list) -> None:
    """Append windows to ``windows`` until ``seconds`` have passed; each a dict of its
    parts' seconds (a window cut short by Ctrl-C is not appended)."""
    order = list(thread_counts)
    end = time.perf_counter() + seconds
    while time.perf_counter() < end or not windows:
        row = {}
        if parts.with_openspiel:
            row["openspiel"] = parts.openspiel()
        for n in order:
            row[f"games_{n}"] = parts.games(n)
            row[f"steps_{n}"] = parts.steps(n)
        windows.append(row)
        order.reverse()  # alternate which thread count goes first


def summarise(windows: list[dict], thread_counts, num_envs: int, window: int) -> dict:
    """Per-window ratios and their quartiles (see the module docstring)."""
    base = thread_counts[0]
    out = {"windows": len(windows)}
    if "openspiel" in windows[0]:
        over = [(window * num_envs / w[f"steps_{base}"]) / (OPENSPIEL_MOVES / w["openspiel"])
                for w in windows]
        out[f"steps_{base}_thread_over_openspiel_moves"] = _quartiles(over)
        out["openspiel_moves_per_second"] = OPENSPIEL_MOVES / statistics.median(
            w["openspiel"] for w in windows)
    for n in thread_counts:
        out[f"steps_per_second_{n}"] = window * num_envs / statistics.median(
            w[f"steps_{n}"] for w in windows)
    for n in thread_counts[1:]:
        step = [w[f"steps_{base}"] / w[f"steps_{n}"] for w in windows]
        free = [w[f"games_{base}"] / w[f"games_{n}"] for w in windows]
        share = [s / f for s, f in zip(step, free)]
        out[f"steps_{n}_over_{base}"] = _quartiles(step)
        out[f"machine_{n}_over_{base}"] = _quartiles(free)
        out[f"steps_share_of_machine_{n}"] = _quartiles(share)
        # windows in which the machine gave the threads nearly all they can take
        near = [s for s, f in zip(step, free) if f >= 0.95 * n / base]
        out[f"windows_machine_free_{n}"] = len(near)
        out[f"steps_{n}_over_{base}_machine_free"] = (statistics.median(near) if near
                                                       else None)
    return out


def window_table(windows: list[dict]) -> dict:
    """The windows as columns (their parts' names) and one row of seconds a window,
    rounded to 0.1 µs (a result file holds thousands)."""
    columns = list(windows[0])
    return {"columns": columns,
            "seconds": [[round(w[c], 7) for c in columns] for w in windows]}


def save(path: str, result: dict) -> None:
    """Write ``result`` as JSON, indented, except the window table's rows, one a line."""
    table = result["windows"]
    head = dict(result, windows=None)
    text = json.dumps(head, indent=1)
    rows = ",\n".join(json.dumps(row, separators=(",", ":")) for row in table["seconds"])
    text = text.replace('"windows": null', '"windows": {\n  "columns": '
                        + json.dumps(table["columns"]) + ',\n  "seconds": [\n' + rows + "\n  ]\n }")
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(text + "\n")
    print(f"saved {path}")


def print_summary(summary: dict, thread_counts, num_envs: int, window: int) -> None:
    base = thread_counts[0]
    print(f"Kalah-v0, {num_envs} games, step_random, long-lived environments: "
          f"{summary['windows']} windows of {window} steps")
    for n in thread_counts:
        print(f"  {n} thread(s): {summary[f'steps_per_second_{n}']:14,.0f} steps/s (median window)")
    key = f"steps_{base}_thread_over_openspiel_moves"
    if key in summary:
        q = summary[key]
        print(f"  {base} thread(s) over OpenSpiel's random moves "
              f"({summary['openspiel_moves_per_second']:,.0f}/s): median {q['median']:.2f}x "
              f"(quartiles {q['p25']:.2f}-{q['p75']:.2f})")
    for n in thread_counts[1:]:
        step, free = summary[f"steps_{n}_over_{base}"], summary[f"machine_{n}_over_{base}"]
        share = summary[f"steps_share_of_machine_{n}"]
        print(f"  {n} threads over {base}: step median {step['median']:.2f}x "
              f"(quartiles {step['p25']:.2f}-{step['p75']:.2f}); the machine, no "
              f"synchronisation, {free['median']:.2f}x ({free['p25']:.2f}-{free['p75']:.2f}); "
              f"the step's share of it {share['median']:.3f}")
        free_median = summary[f"steps_{n}_over_{base}_machine_free"]
        if free_median is not None:
            print(f"    in the {summary[f'windows_machine_free_{n}']} windows where the "
                  f"machine gave at least 0.95 x {n / base:g}: step median {free_median:.2f}x")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0,
                        help="wall seconds of windows (default 30)")
    parser.add_argument("--envs", type=int, default=1024, help="games a step (default 1024)")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2],
                        help="thread counts, the first the baseline (default 1 2)")
    parser.add_argument("--window", type=int, default=40,
                        help="steps a window on each thread count (default 40)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the games (default 1)")
    parser.add_argument("--out", default=None,
                        help="result file (default bench/results/envs_steady.json)")
    args = parser.parse_args(argv)
    if not 0 < args.seconds <= 86_400:
        return _fail("--seconds must be above 0 and at most 86400")
    if args.envs < 1 or args.window < 1 or min(args.threads) < 1:
        return _fail("--envs, --window and --threads take positive integers")
    if len(set(args.threads)) != len(args.threads):
        return _fail("--threads lists each count once")
    import numba
    if max(args.threads) > numba.config.NUMBA_NUM_THREADS:
        return _fail(f"--threads: at most {numba.config.NUMBA_NUM_THREADS} here "
                     f"(NUMBA_NUM_THREADS)")
    started = machine()  # the machine and the time the run starts
    windows, complete, parts = [], True, None
    try:
        parts = Parts(args.threads, args.envs, args.window, args.seed)
        run_windows(parts, args.threads, args.seconds, windows)
    except KeyboardInterrupt:  # keep the windows done so far
        complete = False
    finally:
        if parts is not None:
            parts.close()
    if not windows:
        print("envs_steady.py: interrupted before the first window; nothing saved",
              file=sys.stderr)
        return 130
    summary = summarise(windows, args.threads, args.envs, args.window)
    print_summary(summary, args.threads, args.envs, args.window)
    result = {"machine": started, "envs": args.envs, "threads": args.threads,
              "window_steps": args.window, "games_per_window": GAMES_PER_WINDOW,
              "openspiel_moves_per_window": OPENSPIEL_MOVES, "seconds": args.seconds,
              "complete": complete, "summary": summary, "windows": window_table(windows)}
    save(args.out or str(ROOT / "bench" / "results" / "envs_steady.json"), result)
    if not complete:
        print(f"envs_steady.py: interrupted after {len(windows)} windows; those are saved",
              file=sys.stderr)
    return 0 if complete else 130


if __name__ == "__main__":
    sys.exit(main())
