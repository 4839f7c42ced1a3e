"""The step pool of the Kalah vector environment (:mod:`jitgames.envs.step_pool`).

- A step published in a control array and stepped by a worker's kernel alone, or by
  the stepping kernel with no worker running, equals the reference twin
  (:mod:`tests.reference.envs_batch`), for batches of several blocks.
- The vector environment's trajectories are the same on 1, 2 and 3 threads, with the
  workers spinning between steps or asleep at every step (Hypothesis over actions).
- Workers stop: a spin window is bounded, a closed pool's kernel returns at once, and
  the threads end when the environment is closed or collected.
"""
import gc
import os
import subprocess
import sys
import time
from pathlib import Path

import numba
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

pytest.importorskip("gymnasium", reason="needs the envs extra (gymnasium)")

from jitgames._jit import threads  # noqa: E402
from jitgames.envs import kalah_batch as kb  # noqa: E402
from jitgames.envs.step_pool import (CLAIMED, DONE, NEXT, SHAPE, STOP, TALLY, WANTED,  # noqa: E402
                                     WORKER, new_control)


def region_starts(control):
    """The first block of each region of ``control`` and, last, the blocks' count:
    the blocks split into one contiguous run a thread (the stepping one, then each
    worker's), written from the definition."""
    regions = control.shape[0] - WORKER + 1
    blocks = int(control[SHAPE, 2])
    return [r * blocks // regions for r in range(regions + 1)]


def next_blocks(control):
    """Each region's counter of the next block to claim."""
    return [int(control[CLAIMED, 0])] + [int(control[WORKER + w, NEXT])
                                         for w in range(control.shape[0] - WORKER)]
from jitgames.envs.vector import KalahVectorEnv  # noqa: E402
from tests.reference import envs_batch as ref  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def random_batch(seed: int, count: int, m: int):
    """``count`` games of Kalah(m, 3) in random positions (some over, some to restart),
    their actions (a few illegal) and zeroed outputs."""
    rng = np.random.default_rng(seed)
    boards = rng.integers(0, 6, (count, 2 * m + 2)).astype(np.int8)
    boards[rng.random(count) < 0.1, :m] = 0  # South's side empty: over
    games = kb.Games(boards, rng.integers(0, 2, count).astype(np.int8), rng.random(count) < 0.1,
                     rng.integers(0, 2**63, count).astype(np.uint64),
                     rng.integers(-1, 5, count).astype(np.int64),
                     rng.integers(0, 2**63, count).astype(np.uint64),
                     rng.integers(0, 9, count).astype(np.int64), np.zeros((count, m), np.int64))
    actions = rng.integers(-1, m + 1, count).astype(np.int64)
    out = kb.new_step_out(count, m)
    for a in out:
        a[...] = 0
    return games, actions, out


def step_arguments(games, actions, out, agent, outcome, sample, key):
    return (games.boards, games.to_move, games.done, games.base, games.episode, games.key,
            games.counter, actions, 3, 0, agent, outcome, *out, sample, np.uint64(key))


def twin_step(seed, count, m, agent, outcome, sample, key):
    games, actions, out = random_batch(seed, count, m)
    counts = ref.random_step(*step_arguments(games, actions, out, agent, outcome, sample, key))
    return games, actions, out, counts


def assert_same(ours, theirs):
    for name, a, b in zip(ours._fields, ours, theirs):
        if name != "moves":  # scratch
            assert a.tolist() == b.tolist(), name


PITS = st.sampled_from([3, 6])


@pytest.mark.kernel
@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**32), st.integers(33, 130), PITS, st.integers(0, 1), st.booleans(),
       st.booleans(), st.integers(0, 2**64 - 1))
def test_a_published_step_stepped_by_a_worker_equals_the_twin(seed, count, m, agent, outcome,
                                                              sample, key):
    """``publish`` then one spin window of ``pool_worker``: the worker claims every
    block and the result is the twin's; a worker the step does not want claims none."""
    games, actions, out = random_batch(seed, count, m)
    arguments = step_arguments(games, actions, out, agent, outcome, sample, key)
    control = kb.new_pool_control(count, m, 2)
    blocks = control[SHAPE, 2]
    kb.publish(control, *arguments, 1)
    kb.pool_worker(control, 1, 3, *arguments[:8], *out)  # not wanted: claims nothing
    assert next_blocks(control) == region_starts(control)[:-1] and control[TALLY, DONE] == 0
    kb.pool_worker(control, 0, 3, *arguments[:8], *out)
    assert control[TALLY, DONE] == blocks
    assert next_blocks(control) == region_starts(control)[1:]  # every region claimed
    theirs, their_actions, their_out, counts = twin_step(seed, count, m, agent, outcome,
                                                         sample, key)
    assert (control[TALLY, kb.ENDS], control[TALLY, kb.ILLEGALS]) == counts
    assert actions.tolist() == their_actions.tolist()
    assert_same(games, theirs)
    assert_same(out, their_out)


@pytest.mark.kernel
@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**32), st.integers(33, 130), PITS, st.integers(0, 1), st.booleans(),
       st.booleans(), st.integers(0, 2**64 - 1))
def test_the_stepping_kernel_alone_steps_every_published_block(seed, count, m, agent, outcome,
                                                               sample, key):
    """``random_step`` on two threads with no worker running: it publishes the step,
    steps every block itself, equals the twin and asks for the worker to be woken; on
    one thread, or with a control array of another batch, it steps serially."""
    theirs, their_actions, their_out, counts = twin_step(seed, count, m, agent, outcome,
                                                         sample, key)
    for n, control in ((2, kb.new_pool_control(count, m, 1)),
                       (1, kb.new_pool_control(count, m, 1)),
                       (2, kb.new_pool_control(count + 1, m, 1))):
        games, actions, out = random_batch(seed, count, m)
        with threads(min(n, numba.config.NUMBA_NUM_THREADS)) as used:
            ends, illegals, wake = kb.random_step(
                control, *step_arguments(games, actions, out, agent, outcome, sample, key))
        pooled = used > 1 and control[SHAPE, 0] == count
        assert (ends, illegals) == counts
        assert bool(wake) == pooled  # the worker wanted never started
        # published for one worker and every region claimed, or never published
        assert control[SHAPE, WANTED] == (1 if pooled else 0)
        assert next_blocks(control) == region_starts(control)[1:]
        assert actions.tolist() == their_actions.tolist()
        assert_same(games, theirs)
        assert_same(out, their_out)


def trajectory(num_threads, actions, sleeping, num_envs=200):
    """Observations, rewards and ends of Kalah(6, 4) vector steps against the random
    opponent with the ``actions`` given (rows of ``num_envs``), workers spinning between
    steps or (``sleeping``) leaving their spin at once, so asleep at every step."""
    with threads(num_threads):
        env = KalahVectorEnv(num_envs, opponent="random", variant="standard")
        if sleeping:
            env._pool.rounds = 0
        obs, _ = env.reset(seed=11)
        seen = [obs["observation"]]
        for row in actions:
            obs, reward, terminated, _, _ = env.step(row)
            seen += [obs["observation"], reward, terminated]
        env.close()
    return [a.tolist() for a in seen]


@settings(max_examples=4, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 3))
def test_trajectories_do_not_depend_on_threads_or_on_the_workers_waking(seed, illegal_share):
    """1 and 2 threads (3 where Numba has them; the subprocess test below otherwise),
    workers spinning or asleep at every step: the same steps."""
    rng = np.random.default_rng(seed)
    # mostly legal-looking pits, with a share of out-of-range actions (illegal)
    actions = rng.integers(0, 6, (25, 200))
    actions[rng.random(actions.shape) < illegal_share / 40] = 7
    one = trajectory(1, actions, False)
    for n in sorted({2, min(3, numba.config.NUMBA_NUM_THREADS)}):
        for sleeping in (False, True):
            assert trajectory(n, actions, sleeping) == one, (n, sleeping)


def test_three_threads_in_a_fresh_interpreter():
    """On 3 threads (Numba's thread count set for the process): two workers, the same
    steps as one thread, spinning or asleep."""
    script = (
        "import numpy as np, sys\n"
        "sys.path.insert(0, '.')\n"
        "from tests.test_envs_step_pool import trajectory\n"
        "actions = np.random.default_rng(3).integers(0, 7, (20, 200))\n"
        "one = trajectory(1, actions, False)\n"
        "assert trajectory(3, actions, False) == one\n"
        "assert trajectory(3, actions, True) == one\n"
        "print('same')\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=240,
                          env=dict(os.environ, NUMBA_NUM_THREADS="3"))
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "same"


def test_workers_start_lazily_spin_a_bounded_window_and_stop():
    """No thread before the first 2-thread step; a spin window returns; a stopped pool's
    kernel returns at once whatever the window; ``close`` and collection end the
    threads."""
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.fail("needs Numba's thread count of at least 2")
    rng = np.random.default_rng(0)
    with threads(2):
        env = KalahVectorEnv(100, opponent="random")
        env.reset(seed=1)
        assert env._pool._threads == []
        env.step_random(rng)
        worker = env._pool._threads[0]
        assert worker.is_alive() and worker.daemon
        for _ in range(5):
            env.step_random(rng)
        start = time.perf_counter()
        env._pool.spin(0, 1000)  # nothing published: returns after its window
        assert time.perf_counter() - start < 1.0
        env.close()
        assert not worker.is_alive()
        assert env._pool.control[SHAPE, STOP] == 1
        env._pool.spin(0, 10**15)  # stopped: returns at once
        # a closed pool is not woken again; the step is still right (the caller alone)
        env.step_random(rng)
        assert len(env._pool._threads) == 1
        other = KalahVectorEnv(100, opponent="random")
        other.reset(seed=1)
        other.step_random(rng)
        worker = other._pool._threads[0]
        control = other._pool.control
        del other
        gc.collect()
        worker.join(2)
        assert not worker.is_alive() and control[SHAPE, STOP] == 1


@pytest.mark.parametrize("workers", [0, 1, 2, 7])
def test_the_control_array_s_rows_are_cache_lines(workers):
    """Each row of a control array starts on a 64-byte boundary (rows written by
    different threads never share a line), in arrays made one after another (NumPy's
    own alignment, 16 bytes, varies with the allocation); a fresh array publishes
    nothing: every region's counter is at its region's end."""
    for games in range(1, 300, 37):
        blocks = (games + 31) // 32
        control = new_control(games, 14, blocks, workers)
        assert control.ctypes.data % 64 == 0
        assert control.shape == (WORKER + workers, 8) and control.dtype == np.int64
        assert control.flags.c_contiguous and control.flags.writeable
        starts = region_starts(control)
        assert next_blocks(control) == starts[1:]
        assert control[SHAPE, 2] == blocks and control[TALLY].tolist() == [0] * 8


def test_a_worker_asleep_is_woken_after_the_step():
    """After a pause longer than the spin window the worker is asleep; the next step
    (done by the calling thread if need be) wakes it, and it spins again."""
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.fail("needs Numba's thread count of at least 2")
    rng = np.random.default_rng(0)
    with threads(2):
        env = KalahVectorEnv(100, opponent="random")
        env.reset(seed=1)
        env._pool.rounds = 1000
        env.step_random(rng)
        state = env._pool.control[WORKER:WORKER + 1, 0]
        for _ in range(200):  # the window is well under a second
            if state[0] == 0:
                break
            time.sleep(0.01)
        assert state[0] == 0
        env._pool.rounds = 10**9  # spins until stopped once woken
        env.step_random(rng)
        for _ in range(200):
            if state[0] == 1:
                break
            time.sleep(0.01)
        assert state[0] == 1
        env.close()
