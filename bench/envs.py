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

The vector environments (``--only vector``, saved to ``bench/results/envs_vector.json``;
also part of a full run): ``jitgames/Kalah-v0`` against the random opponent (standard
rule) with ``--envs`` sub-environments (default 1024) on each of ``--threads`` thread
counts (default 1 2): each step is the agent's move and the opponent's replies in all
games, and the agent picks a uniform legal pit from the mask inside the timed loop, with
``env.unwrapped.step_random(rng, actions)`` (the same actions as ``sample_legal`` drawn
inside the step's kernel), with
:func:`jitgames.envs.sampling.sample_legal` into a reused array (the agent
``docs/environments.md`` shows), with NumPy's ``argmax`` of random numbers plus the
mask in reused arrays, or with Gymnasium's own ``action_space.sample(mask=...)`` (a few
steps: it loops over the games in Python); also timed: the ``step`` calls alone and
``copy=False``. OpenSpiel's mancala random moves are timed right after the one-thread
loops of the first three agents in each round, as a plain loop (its ``apply_action``
calls alone are timed in a loop of their own, once a round: the clock reads slow a loop
down); ratios are medians of the per-round ratios, printed last in a summary
(OpenSpiel's moves a second; each agent's steps a second at 1 and 2 threads, over
OpenSpiel's and over one thread) with the threads' settings (``--spin``: let them spin
before they sleep). Then whole random games inside one
kernel call for the three games (``random_games`` of ``jitgames.envs.kalah_batch``,
``mastermind_batch`` and ``solitaire_batch``), games a second, on each thread count;
and Mastermind-v0 and Solitaire-v0 vector steps a second. Both wall and process-CPU
seconds are kept: on a shared machine CPU seconds depend less on the other jobs.

``--only overhead`` (saved to ``bench/results/envs_overhead.json``) times the fixed
costs of a Kalah-v0 vector step against the random opponent on each ``--threads``
count (:func:`overhead_section`): the typing of the kernel's arguments, a call on no
games, an empty parallel loop, the step's Python, the kernel with and without its
parallel loop on ``--envs`` games; least of ``--repeats`` means, microseconds.
"""
from __future__ import annotations

import argparse
import os
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


AGENTS = ("step_random", "sample_legal", "numpy", "gymnasium")
TIMED = AGENTS[:3]  # the agents timed at every thread count and beside OpenSpiel


def vector_steps(env_id: str, options: dict, num_envs: int, steps: int, seed: int,
                 num_threads: int, agent: str = "numpy") -> tuple:
    """Seconds ``(wall, cpu, step_wall)`` for ``steps`` steps of a native vector
    environment of ``num_envs`` sub-environments on ``num_threads`` threads, a random
    legal action of each game chosen from ``info["action_mask"]`` inside the timed loop;
    ``step_wall`` counts the ``step`` calls alone (the agent's choice left out).

    ``agent`` says how the actions are drawn (each a uniform legal action where one is
    legal), as ``docs/environments.md`` shows them:

    - ``"step_random"``: ``env.unwrapped.step_random(rng, actions)``, the same actions
      as ``"sample_legal"`` drawn inside the step's kernel (one call a step; the
      ``step`` calls alone are then the whole loop);
    - ``"sample_legal"``: this package's batched sampler,
      ``sample_legal(mask, rng, out=actions)`` (:mod:`jitgames.envs.sampling`: one
      kernel pass, one random number a game, into an array reused every step);
    - ``"numpy"``: what a user writes in NumPy, the largest of uniform numbers plus the
      mask (illegal actions score below 1, legal ones at least 1), into arrays reused
      every step: ``rng.random(out=scores, dtype=np.float32); scores += mask;
      scores.argmax(axis=1, out=actions)``;
    - ``"gymnasium"``: Gymnasium's own ``envs.action_space.sample(mask=tuple(mask))``,
      which loops over the games in Python.
    """
    from jitgames._jit import threads
    from jitgames.envs.sampling import sample_legal

    env = gymnasium.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point",
                             **options)
    rng = np.random.default_rng(seed)
    env.action_space.seed(seed)
    vector = env.unwrapped
    _, info = env.reset(seed=seed)
    mask = info.get("action_mask")
    actions = np.zeros(num_envs, dtype=np.int64)
    scores = None if mask is None else np.empty(mask.shape, dtype=np.float32)
    step_wall = 0.0
    with threads(num_threads):
        if hasattr(vector, "step_random"):
            # one step before the clock starts: the step pool's workers start on the
            # first step that wants them (a thread start, once per environment)
            mask = vector.step_random(rng, actions)[4]["action_mask"]
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(steps):
            if agent == "step_random":
                start = time.perf_counter()
                _, _, _, _, info = vector.step_random(rng, actions)
                step_wall += time.perf_counter() - start
                continue
            if mask is None:
                actions = rng.integers(env.single_action_space.n, size=num_envs)
            elif agent == "sample_legal":
                sample_legal(mask, rng, out=actions)
            elif agent == "gymnasium":
                actions = env.action_space.sample(mask=tuple(mask))
            else:
                rng.random(out=scores, dtype=np.float32)
                scores += mask
                scores.argmax(axis=1, out=actions)
            start = time.perf_counter()
            _, _, _, _, info = env.step(actions)
            step_wall += time.perf_counter() - start
            mask = info.get("action_mask")
        timed = time.perf_counter() - wall, time.process_time() - cpu, step_wall
    env.close()  # the step pool's workers stop with it
    return timed


def openspiel_steps_cpu(steps: int, seed: int, time_calls: bool = False):
    """Seconds ``(wall, cpu)`` of :func:`openspiel_steps`'s loop, as it is (the figure
    the ratios use); with ``time_calls``, ``(wall, cpu, apply_wall)``, where
    ``apply_wall`` counts the ``apply_action`` calls alone (the random choice from
    ``legal_actions()`` left out, as the agent's choice is for the vector steps). The
    two clock reads around each call cost the loop about a sixth of its speed
    (measured on the 2-core box), so that loop is timed apart, never for a ratio."""
    import pyspiel

    game = pyspiel.load_game("mancala")
    rng = random.Random(seed)
    state = game.new_initial_state()
    if not time_calls:
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(steps):
            if state.is_terminal():
                state = game.new_initial_state()
            state.apply_action(rng.choice(state.legal_actions()))
        return time.perf_counter() - wall, time.process_time() - cpu
    apply_wall = 0.0
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(steps):
        if state.is_terminal():
            state = game.new_initial_state()
        action = rng.choice(state.legal_actions())
        start = time.perf_counter()
        state.apply_action(action)
        apply_wall += time.perf_counter() - start
    return time.perf_counter() - wall, time.process_time() - cpu, apply_wall


def kernel_games(game: str, games: int, seed: int, num_threads: int):
    """(wall, cpu) seconds to play ``games`` whole games of uniformly random legal
    moves inside one kernel call: Kalah(6,4) (standard rule), Mastermind 4 x 6 (random
    codes until the secret or 10 guesses) or the solitaire (random legal moves until
    none is left)."""
    from jitgames._jit import threads

    if game == "kalah":
        from jitgames.envs.kalah_batch import random_games

        margins, plies = np.zeros(games, np.int64), np.zeros(games, np.int64)
        call = lambda: random_games(6, 4, 1, np.uint64(seed), margins, plies)  # noqa: E731
    elif game == "mastermind":
        from jitgames.envs.mastermind_batch import random_games
        from jitgames.mastermind.codes import code_space

        space = code_space(4, 6, True)
        guesses, solved = np.zeros(games, np.int64), np.zeros(games, np.bool_)
        call = lambda: random_games(space.digits, space.counts, space.pegs, 10,  # noqa: E731
                                    np.uint64(seed), guesses, solved)
    else:
        from jitgames.envs.solitaire_batch import random_games

        scores, plies = np.zeros(games, np.int64), np.zeros(games, np.int64)
        call = lambda: random_games(np.uint64(seed), scores, plies)  # noqa: E731
    with threads(num_threads):
        wall, cpu = time.perf_counter(), time.process_time()
        call()
        return time.perf_counter() - wall, time.process_time() - cpu


def _rate(count: int, runs: list) -> dict:
    walls, cpus = [run[0] for run in runs], [run[1] for run in runs]
    row = {"count": count, "median_wall_seconds": statistics.median(walls),
           "median_cpu_seconds": statistics.median(cpus),
           "per_second_wall": count / statistics.median(walls),
           "per_second_cpu": count / statistics.median(cpus)}
    if len(runs[0]) > 2:  # the step calls alone
        row["per_second_steps_only"] = count / statistics.median(run[2] for run in runs)
    return row


def _ratio(runs_a: list, runs_b: list, clock: int = 0) -> float:
    """Median of the per-round ratios of ``b``'s seconds to ``a``'s (a's speed over
    b's, rounds timed back to back)."""
    return statistics.median(b[clock] / a[clock] for a, b in zip(runs_a, runs_b))


KALAH = ("jitgames/Kalah-v0", {"opponent": "random", "variant": "standard"})
GAMES = {"kalah": "Kalah(6,4) standard", "mastermind": "Mastermind 4x6 (10 guesses)",
         "solitaire": "solitaire (Fisher-Yates deals)"}


def vector_section(quick: bool, repeats: int, envs: list, thread_counts: list,
                   steps: int | None = None, kalah_only: bool = False) -> dict:
    """The vector-environment figures (see the module docstring): ``jitgames/Kalah-v0``
    against the random opponent for each number of sub-environments in ``envs`` and
    threads in ``thread_counts``, OpenSpiel's random moves, whole random games in one
    kernel call, and Mastermind and solitaire vector steps, all timed in rounds
    (``kalah_only``: Kalah's figures and OpenSpiel's alone)."""
    steps = steps or (40 if quick else 200)
    open_moves = 50_000 if quick else 200_000
    games = {"kalah": 5_000 if quick else 20_000, "mastermind": 5_000 if quick else 20_000,
             "solitaire": 2_000 if quick else 8_000}
    small = 256  # sub-environments of the Mastermind and solitaire vector environments
    gym_steps_count = max(2, steps // 25)  # Gymnasium's own sampler: a Python loop a game
    # warm-up: compile or load every kernel
    for agent in AGENTS:
        vector_steps(*KALAH, envs[0], 2, 0, 1, agent)
    vector_steps(KALAH[0], dict(KALAH[1], copy=False), envs[0], 3, 0, 1)
    if kalah_only:
        games = {"kalah": games["kalah"]}
    else:
        vector_steps("jitgames/Mastermind-v0", {}, 16, 2, 0, 1)
        vector_steps("jitgames/Solitaire-v0", {}, 16, 2, 0, 1)
    for game in games:
        kernel_games(game, 50, 0, 1)
    skipped = openspiel_available()
    if skipped is None:
        openspiel_steps(200, 0)
    runs: dict = {}

    def add(key, value):
        runs.setdefault(key, []).append(value)

    first_t = thread_counts[0]
    for r in range(repeats):  # alternate, so that all see the same load
        for n in envs:
            for t in thread_counts:
                for agent in TIMED:
                    add(("kalah", agent, n, t), vector_steps(*KALAH, n, steps, r, t, agent))
                    if n == envs[0] and t == first_t and skipped is None:
                        add(("openspiel", agent), openspiel_steps_cpu(open_moves, r))
        if skipped is None:
            add("openspiel_calls", openspiel_steps_cpu(open_moves, r, time_calls=True))
        add(("kalah", "gymnasium", envs[0], first_t),
            vector_steps(*KALAH, envs[0], gym_steps_count, r, first_t, "gymnasium"))
        add("kalah_nocopy", vector_steps(KALAH[0], dict(KALAH[1], copy=False), envs[0], steps,
                                         r, first_t))
        for game in games:
            for t in thread_counts:
                add((game, "games", t), kernel_games(game, games[game], r, t))
        if kalah_only:
            continue
        add("mastermind", vector_steps("jitgames/Mastermind-v0", {}, small, steps // 4, r,
                                       first_t))
        add("solitaire", vector_steps("jitgames/Solitaire-v0", {}, small, steps // 4, r,
                                      first_t))
    rows = []
    agent_names = {"step_random": "agent env.step_random(rng, out) (drawn in the step)",
                   "numpy": "agent NumPy argmax(random + mask)",
                   "sample_legal": "agent jitgames sample_legal(mask, rng, out)",
                   "gymnasium": "agent Gymnasium action_space.sample(mask)"}
    for agent in TIMED:
        for n in envs:
            for t in thread_counts:
                key = ("kalah", agent, n, t)
                row = dict(_rate(n * steps, runs[key]), kind="kalah_vector", agent=agent, envs=n,
                           threads=t, label=f"Kalah-v0 6x4 vs random, {n} envs, {t} thread(s), "
                                            f"{agent_names[agent]}: steps")
                if t != first_t:
                    base = runs[("kalah", agent, n, first_t)]
                    row["speedup_over_first_thread_count_wall"] = _ratio(runs[key], base)
                    row["speedup_over_first_thread_count_steps_only"] = _ratio(runs[key], base,
                                                                               clock=2)
                rows.append(row)
    rows.append(dict(_rate(envs[0] * gym_steps_count, runs[("kalah", "gymnasium", envs[0],
                                                             first_t)]),
                     kind="kalah_vector", agent="gymnasium", envs=envs[0], threads=first_t,
                     label=f"Kalah-v0 6x4 vs random, {envs[0]} envs, {first_t} thread(s), "
                           f"{agent_names['gymnasium']}: steps"))
    rows.append(dict(_rate(envs[0] * steps, runs["kalah_nocopy"]), kind="kalah_vector_nocopy",
                     agent="numpy", envs=envs[0], threads=first_t,
                     label=f"the same, NumPy agent, copy=False, {envs[0]} envs, {first_t} "
                           "thread(s): steps"))
    if skipped is None:
        rows.append(dict(_rate(open_moves, runs[("openspiel", "numpy")]), kind="openspiel",
                         label="OpenSpiel mancala, Python API: random moves"))
        rows.append(dict(_rate(open_moves, runs["openspiel_calls"]), kind="openspiel_timed_calls",
                         label="the same, apply_action calls timed one by one (loop slowed "
                               "by the clock reads)"))
    for game in games:
        name = GAMES[game]
        for t in thread_counts:
            row = dict(_rate(games[game], runs[(game, "games", t)]), kind="kernel_games",
                       game=game, threads=t,
                       label=f"{name} random games in one kernel call, {t} thread(s): games")
            if t != first_t:
                row["speedup_over_first_thread_count_wall"] = _ratio(
                    runs[(game, "games", t)], runs[(game, "games", first_t)])
            rows.append(row)
    if not kalah_only:
        rows.append(dict(_rate(small * (steps // 4), runs["mastermind"]),
                         kind="mastermind_vector",
                         label=f"Mastermind-v0 4x6 vector, {small} envs, {first_t} thread(s): "
                               "steps"))
        rows.append(dict(_rate(small * (steps // 4), runs["solitaire"]), kind="solitaire_vector",
                         label=f"Solitaire-v0 vector (solved at reset), {small} envs, "
                               f"{first_t} thread(s): steps"))
    result = {"rows": rows, "openspiel_skipped": skipped, "envs": envs,
              "threads": thread_counts, "steps": steps, "repeats": repeats}
    if skipped is None:
        # per round: our steps a second over OpenSpiel's moves a second, timed back to back
        n = envs[0]

        def per_round(agent, clock=0, count=steps):
            ours = runs[("kalah", agent, n, first_t)]
            theirs = runs[("openspiel", "numpy" if agent == "gymnasium" else agent)]
            return [(n * count / a[clock]) / (open_moves / b[clock])
                    for a, b in zip(ours, theirs)]

        result["kalah_vector_over_openspiel"] = {
            "envs": n, "threads": first_t,
            "median_ratio_wall": statistics.median(per_round("numpy")),
            "median_ratio_cpu": statistics.median(per_round("numpy", 1)),
            "median_ratio_wall_sample_legal_agent": statistics.median(
                per_round("sample_legal")),
            "median_ratio_cpu_sample_legal_agent": statistics.median(
                per_round("sample_legal", 1)),
            "median_ratio_wall_gymnasium_agent": statistics.median(
                per_round("gymnasium", 0, gym_steps_count)),
            "median_ratio_steps_only_wall": statistics.median(
                (n * steps / a[2]) / (open_moves / b[2])
                for a, b in zip(runs[("kalah", "numpy", n, first_t)], runs["openspiel_calls"])),
            "median_ratio_wall_step_random_agent": statistics.median(
                per_round("step_random")),
            "median_ratio_cpu_step_random_agent": statistics.median(
                per_round("step_random", 1)),
            "rounds_wall": per_round("numpy"),
            "rounds_wall_sample_legal_agent": per_round("sample_legal"),
            "rounds_wall_step_random_agent": per_round("step_random")}
        result["summary"] = _summary(runs, n, thread_counts, steps, open_moves)
    result["settings"] = thread_settings()
    return result


def _fastest_calls(calls: dict, count: int, rounds: int, cpu: dict | None = None) -> dict:
    """Microseconds a call of each of ``calls`` (name: function of no argument): the least
    over ``rounds`` of the mean of ``count`` calls in a row (``perf_counter_ns``), the
    functions taking turns in every round so that all see the same load. On a shared
    machine the least is the figure least touched by the other jobs: a cost, not a
    throughput. ``cpu``, a dictionary, receives the same figures by the calling thread's
    CPU clock (``thread_time_ns``: time the thread was descheduled left out; on more
    than one thread, the other threads' work left out too)."""
    best = dict.fromkeys(calls, float("inf"))
    least_cpu = dict.fromkeys(calls, float("inf"))
    for _ in range(rounds):
        for name, call in calls.items():
            start, start_cpu = time.perf_counter_ns(), time.thread_time_ns()
            for _ in range(count):
                call()
            best[name] = min(best[name], (time.perf_counter_ns() - start) / count)
            least_cpu[name] = min(least_cpu[name], (time.thread_time_ns() - start_cpu) / count)
    if cpu is not None:
        cpu.update({name: value / 1000 for name, value in least_cpu.items()})
    return {name: value / 1000 for name, value in best.items()}


def _no_kernel(*args):
    """Stands for the step's kernel when the step's Python is timed alone."""
    return 1, 0, False


def overhead_section(envs: list, thread_counts: list, rounds: int, count: int) -> dict:
    """The fixed costs of a Kalah-v0 vector step against the random opponent, each the
    least of ``rounds`` means of ``count`` calls (microseconds; the calls compared take
    turns in every round), on each thread count:

    - ``typing_22_args``: ``random_step`` on no games through Numba's dispatcher, less
      the same call through its compiled entry (:func:`jitgames._jit.compiled_entry`,
      what the environment calls): the typing of the 22 arguments at every call;
    - ``call_0_games``: the call through the compiled entry on no games (converting the
      arguments, the kernel's one-thread branch, returning the counts);
    - ``empty_parallel_loop``: ``random_games`` on no games, a parallel loop with nothing
      to do (its launch, and on two threads or more waking the others and the closing
      barrier): what a step split by a parallel loop (the code before the step pool)
      paid at every call;
    - for each ``--envs`` size ``n`` (a tenth as many calls; also by the calling
      thread's CPU clock, ``envs_N_calling_thread_cpu``): ``step_random`` (the
      environment's whole step, the agent's draw in the kernel, ``copy=True``) and
      ``step_random_copy_false``; ``kernel`` (the step's ``random_step`` call alone
      through the compiled entry, on the same games and output arrays); ``python``
      (``step_random_copy_false`` less ``kernel``: the step's Python around the kernel);
      ``serial`` (``random_step_serial`` on the calling thread: the work without any
      parallel loop); and ``parallel_cost`` (``kernel`` less ``serial`` over the thread
      count: what the parallel loop adds to a perfect split of the work; on one thread
      the kernel takes its serial branch and this is noise around 0); and
      ``python_alone`` and ``python_alone_copy_false`` (``step_random`` with the kernel
      replaced by a function that returns at once, as many calls as the fixed costs:
      the step's Python measured directly). On two threads or more ``kernel`` is the
      step shared with the environment's step pool (:mod:`jitgames.envs.step_pool`;
      its workers woken when the kernel asks, as the environment does), and
      ``parallel_cost`` what the pool adds to a perfect split.

    ``spin_window_ms``: one spin window of a pool worker with nothing published
    (:data:`jitgames.envs.step_pool.SPIN_ROUNDS` rounds; median of five), the time a
    worker spins after a step before it sleeps.

    The Python pieces of a step are also timed alone: drawing the agent's key
    (``rng.bit_generator.random_raw()``), Python's ``numba.get_num_threads()`` (which
    steps called before the thread count was read in the kernel) and allocating the
    arrays a ``copy=True`` step returns, with ``new_step_out`` (as steps did before) and
    from the shapes and dtypes the environment prepares (as they do now).
    """
    import numba

    from jitgames._jit import compiled_entry, threads
    from jitgames.envs.kalah_batch import (new_games, new_pool_control, new_step_out,
                                           random_games, random_step, random_step_serial)
    from jitgames.envs.step_pool import SPIN_ROUNDS
    from jitgames.envs.vector import KalahVectorEnv

    def arguments(env, out, actions, key):
        games, rules = env.games, env.rules
        return (games.boards, games.to_move, games.done, games.base, games.episode, games.key,
                games.counter, actions, rules.stones, rules.variant, rules.agent,
                rules.outcome, out.seen, out.mask, out.reward, out.terminated, out.margin,
                out.ended, out.illegal, out.settled, True, key)

    key = np.uint64(12345)
    empty = KalahVectorEnv(1, variant="standard", opponent="random")
    empty.games = new_games(0, 6)
    none = (new_pool_control(0, 6, 1),
            *arguments(empty, new_step_out(0, 6), np.zeros(0, np.int64), key))
    entry = compiled_entry(random_step, *none)
    margins, plies = np.zeros(0, np.int64), np.zeros(0, np.int64)
    rng = np.random.default_rng(1)
    rows, boards, masks = KalahVectorEnv(1024, variant="standard", opponent="random")._shapes
    int8, float64, int64, flag = (np.dtype(t) for t in (np.int8, np.float64, np.int64, np.bool_))

    def fresh_outputs():  # as KalahVectorEnv._random_step_call makes them
        return (np.empty(boards, int8), np.empty(masks, int8), np.empty(rows, float64),
                np.empty(rows, flag), np.empty(rows, int64), np.empty(rows, flag),
                np.empty(rows, flag))

    pieces_cpu = {}
    result = {"rounds": rounds, "calls": count, "threads": {},
              "python_pieces": _fastest_calls({
                  "random_raw": lambda: np.uint64(rng.bit_generator.random_raw()),
                  "numba.get_num_threads": numba.get_num_threads,
                  "new_step_out_1024": lambda: new_step_out(1024, 6, False),
                  "prepared_outputs_1024": fresh_outputs}, count, rounds, pieces_cpu),
              "python_pieces_calling_thread_cpu": pieces_cpu}
    for t in thread_counts:
        with threads(t):
            random_step(*none)
            random_games(6, 4, 0, 1, margins, plies)
            row = _fastest_calls({
                "call_0_games": lambda: entry(*none),
                "dispatched_0_games": lambda: random_step(*none),
                "empty_parallel_loop": lambda: random_games(6, 4, 0, 1, margins, plies)},
                count, rounds)
            row["typing_22_args"] = row.pop("dispatched_0_games") - row["call_0_games"]
            for n in envs:
                env = KalahVectorEnv(n, variant="standard", opponent="random")
                nocopy = KalahVectorEnv(n, variant="standard", opponent="random", copy=False)
                env.reset(seed=1)
                nocopy.reset(seed=2)
                actions, taken = np.zeros(n, np.int64), np.zeros(n, np.int64)
                env.step_random(rng, actions)
                nocopy.step_random(rng, taken)
                own = arguments(nocopy, nocopy._out, taken, key)
                serial = compiled_entry(random_step_serial, *own)

                def kernel(nocopy=nocopy, own=(nocopy._state[0], *own)):
                    if nocopy._random_step(*own)[2]:  # as the environment's step
                        nocopy._pool.wake()

                cpu = {}
                times = _fastest_calls({
                    "step_random": lambda: env.step_random(rng, actions),
                    "step_random_copy_false": lambda: nocopy.step_random(rng, taken),
                    "kernel": kernel,
                    "serial": lambda: serial(*own)}, max(10, count // 10), rounds, cpu)
                for clock in (times, cpu):
                    clock["python"] = clock["step_random_copy_false"] - clock["kernel"]
                # the step's Python alone: the kernel's entry replaced by a function that
                # returns at once (one game ended, no illegal action: info gets margins)
                hollow = {}
                for copy in (True, False):
                    bare = KalahVectorEnv(n, variant="standard", opponent="random", copy=copy)
                    bare.reset(seed=3)
                    bare._random_step = _no_kernel
                    hollow[f"python_alone{'' if copy else '_copy_false'}"] = (
                        lambda bare=bare: bare.step_random(rng, taken))
                hollow_cpu = {}
                times.update(_fastest_calls(hollow, count, rounds, hollow_cpu))
                cpu.update(hollow_cpu)
                times["parallel_cost"] = times["kernel"] - times["serial"] / t
                row[f"envs_{n}"] = times
                row[f"envs_{n}_calling_thread_cpu"] = cpu
                for each in (env, nocopy):
                    each.close()
            result["threads"][str(t)] = row
    spinner = KalahVectorEnv(32, variant="standard", opponent="random")
    windows = []
    for _ in range(5):
        start = time.perf_counter()
        spinner._pool.spin(0, SPIN_ROUNDS)
        windows.append((time.perf_counter() - start) * 1000)
    result["spin_window_ms"] = statistics.median(windows)
    result["settings"] = thread_settings()
    return result


def print_overhead(result: dict) -> None:
    print(f"per-call costs of a Kalah-v0 vector step (random opponent), microseconds, least of "
          f"{result['rounds']} means of {result['calls']} calls")
    for name, value in result["python_pieces"].items():
        print(f"  Python: {name:44s} {value:8.2f}  (calling thread's CPU clock "
              f"{result['python_pieces_calling_thread_cpu'][name]:.2f})")
    for t, row in result["threads"].items():
        print(f"{t} thread(s):")
        for name, value in row.items():
            if isinstance(value, dict):
                print(f"  {name}: " + ", ".join(f"{k} {v:.2f}" for k, v in value.items()))
            else:
                print(f"  {name:52s} {value:8.2f}")
    print(f"a pool worker's spin window with nothing to do: {result['spin_window_ms']:.2f} ms")
    settings = result["settings"]
    print(f"threading {settings['threading_layer']}, OMP_WAIT_POLICY="
          f"{settings['OMP_WAIT_POLICY']}, GOMP_SPINCOUNT={settings['GOMP_SPINCOUNT']}")


def thread_settings() -> dict:
    """How the parallel kernels' threads wait between calls (``OMP_WAIT_POLICY``, set to
    ``PASSIVE`` by :mod:`jitgames._jit` unless chosen; ``GOMP_SPINCOUNT``) and Numba's
    threading layer: they decide what a parallel call costs to start."""
    import os

    import numba

    from jitgames.envs.step_pool import SPIN_ROUNDS

    return {"OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY"),
            "GOMP_SPINCOUNT": os.environ.get("GOMP_SPINCOUNT"),
            "threading_layer": numba.threading_layer(),
            "NUMBA_NUM_THREADS": numba.config.NUMBA_NUM_THREADS,
            "step_pool_spin_rounds": SPIN_ROUNDS}


def _summary(runs: dict, n: int, thread_counts: list, steps: int, open_moves: int) -> dict:
    """The figures of the issue's targets: OpenSpiel's random moves a second, and for
    each agent and thread count Kalah-v0's steps a second at ``n`` games, over
    OpenSpiel's (median of the per-round ratios, each round's OpenSpiel run timed
    right after that agent's one-thread loop) and over the first thread count (median
    of the per-round ratios)."""
    first = thread_counts[0]
    theirs_all = [run for agent in TIMED for run in runs[("openspiel", agent)]]
    summary = {"envs": n, "openspiel_moves_per_second_wall":
               open_moves / statistics.median(b[0] for b in theirs_all),
               "openspiel_moves_per_second_cpu":
               open_moves / statistics.median(b[1] for b in theirs_all), "agents": {}}
    for agent in TIMED:
        theirs = runs[("openspiel", agent)]
        rows = {}
        for t in thread_counts:
            ours = runs[("kalah", agent, n, t)]
            row = {"threads": t,
                   "steps_per_second_wall": n * steps / statistics.median(a[0] for a in ours),
                   "steps_per_second_cpu": n * steps / statistics.median(a[1] for a in ours)}
            for clock, name in ((0, "wall"), (1, "cpu")):
                row[f"over_openspiel_{name}"] = statistics.median(
                    (n * steps / a[clock]) / (open_moves / b[clock]) for a, b in zip(ours, theirs))
            if t != first:
                row["over_first_thread_count_wall"] = _ratio(ours, runs[("kalah", agent, n,
                                                                         first)])
            rows[str(t)] = row
        summary["agents"][agent] = rows
    return summary


def print_summary(result: dict) -> None:
    summary = result.get("summary")
    if not summary:
        return
    settings = result["settings"]
    print(f"\nsummary: Kalah-v0 (6x4 standard) vs random, {summary['envs']} envs, medians of "
          f"{result['repeats']} rounds; threading {settings['threading_layer']}, "
          f"OMP_WAIT_POLICY={settings['OMP_WAIT_POLICY']}, "
          f"GOMP_SPINCOUNT={settings['GOMP_SPINCOUNT']}")
    print(f"OpenSpiel mancala random moves/s: {summary['openspiel_moves_per_second_wall']:,.0f} "
          f"(CPU clock {summary['openspiel_moves_per_second_cpu']:,.0f})")
    print(f"{'agent':34s} {'threads':>7s} {'steps/s':>12s} {'x OpenSpiel (CPU)':>18s} "
          f"{'x first thread count':>21s}")
    names = {"step_random": "env.step_random(rng, out)",
             "sample_legal": "sample_legal(mask, rng, out)",
             "numpy": "NumPy argmax(random + mask)"}
    for agent, rows in summary["agents"].items():
        for t, row in rows.items():
            extra = (f"{row['over_first_thread_count_wall']:21.2f}"
                     if "over_first_thread_count_wall" in row else "")
            print(f"{names[agent]:34s} {t:>7s} {row['steps_per_second_wall']:12,.0f} "
                  f"{row['over_openspiel_wall']:8.2f} ({row['over_openspiel_cpu']:5.2f})  "
                  f"{extra}")


def print_vector(result: dict) -> None:
    print(f"vector environments, median of {result['repeats']} rounds (wall; CPU clock beside)")
    print(f"{'':100s} {'per second':>12s} {'(CPU clock)':>12s}")
    for row in result["rows"]:
        extra = ""
        if "per_second_steps_only" in row:
            extra += f"   calls alone {row['per_second_steps_only']:,.0f}/s"
        if "speedup_over_first_thread_count_wall" in row:
            extra += f"   {row['speedup_over_first_thread_count_wall']:.2f}x first thread count"
        if "speedup_over_first_thread_count_steps_only" in row:
            extra += f" (calls alone {row['speedup_over_first_thread_count_steps_only']:.2f}x)"
        print(f"{row['label']:100s} {row['per_second_wall']:12,.0f} "
              f"{row['per_second_cpu']:12,.0f}{extra}")
    ratio = result.get("kalah_vector_over_openspiel")
    if ratio:
        print(f"Kalah-v0 vector steps / OpenSpiel moves ({ratio['envs']} envs, "
              f"{ratio['threads']} thread(s), median of per-round ratios): wall "
              f"{ratio['median_ratio_wall']:.2f}x, CPU {ratio['median_ratio_cpu']:.2f}x, "
              f"agent sample_legal {ratio['median_ratio_wall_sample_legal_agent']:.2f}x "
              f"(CPU {ratio['median_ratio_cpu_sample_legal_agent']:.2f}x), agent step_random "
              f"{ratio['median_ratio_wall_step_random_agent']:.2f}x "
              f"(CPU {ratio['median_ratio_cpu_step_random_agent']:.2f}x), agent Gymnasium "
              f"action_space.sample {ratio['median_ratio_wall_gymnasium_agent']:.2f}x, "
              f"step calls alone / apply_action calls alone "
              f"{ratio['median_ratio_steps_only_wall']:.2f}x")
        print_summary(result)
    else:
        print(f"OpenSpiel mancala skipped: {result['openspiel_skipped']}")


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
    parser.add_argument("--only", choices=["vector", "overhead"], default=None,
                        help="only the vector environments (saved to envs_vector.json), or "
                             "only the fixed costs of a Kalah-v0 vector step "
                             "(envs_overhead.json)")
    parser.add_argument("--envs", type=int, nargs="+", default=[1024],
                        help="sub-environments of the Kalah vector environment (the first "
                             "one is compared with OpenSpiel; default 1024)")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2],
                        help="thread counts (the first is the baseline; default 1 2)")
    parser.add_argument("--kalah-only", action="store_true",
                        help="vector figures of Kalah (and OpenSpiel) only: no Mastermind or "
                             "solitaire kernels to compile")
    parser.add_argument("--vector-steps", type=int, default=None,
                        help="steps of each vector timing (default 200, 40 with --quick)")
    parser.add_argument("--spin", type=int, default=None, metavar="COUNT",
                        help="GOMP_SPINCOUNT for the parallel kernels' threads: they spin "
                             "COUNT times (about 10 ns each) before they sleep, so a step "
                             "that follows soon finds them awake (default: jitgames' "
                             "OMP_WAIT_POLICY=PASSIVE, they sleep at once; for a machine of "
                             "one's own)")
    parser.add_argument("--out", default=None, help="result file (JSON)")
    args = parser.parse_args(argv)
    if args.spin is not None:
        if args.spin < 0:
            parser.error("--spin takes a count >= 0")
        # read by OpenMP when its threads start, at the first parallel call (below)
        os.environ["GOMP_SPINCOUNT"] = str(args.spin)
    if min(args.envs) < 1 or min(args.threads) < 1:
        parser.error("--envs and --threads take positive integers")
    steps = 5_000 if args.quick else 40_000
    repeats = args.repeats or (3 if args.quick else 7)
    results = {"machine": machine(), "steps": steps, "repeats": repeats}
    name = {"vector": "envs_vector.json", "overhead": "envs_overhead.json"}.get(args.only,
                                                                                "envs.json")
    out = args.out or str(ROOT / "bench" / "results" / name)
    if args.only == "overhead":
        results["overhead"] = overhead_section(args.envs, args.threads, repeats,
                                               200 if args.quick else 2000)
        print_overhead(results["overhead"])
        save_result(out, results)
        return 0
    results["vector"] = vector_section(args.quick, repeats, args.envs, args.threads,
                                       args.vector_steps, args.kalah_only)
    print_vector(results["vector"])
    if args.only == "vector":
        save_result(out, results)
        return 0

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
    save_result(out, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
