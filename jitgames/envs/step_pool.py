"""A persistent pool of threads for the steps of a vector environment.

Why: a 1024-game Kalah step is about 100 µs of work on one thread. Split over two
threads by a parallel loop (Numba's ``prange``, OpenMP or workqueue), each step pays
the fork and join of the loop, and with threads that sleep between calls
(``OMP_WAIT_POLICY=PASSIVE``, jitgames' setting for shared machines) the wake-up of the
sleeping thread: an empty parallel loop cost 2.9 µs on one thread and 14.9 µs on two on
the 2-core box, tens of µs under load, paid at every step (``docs/environments.md``).
EnvPool's answer, taken here: threads of the environment's own that spin briefly
between steps, so that the next step finds them awake.

How: the pool is ``workers`` Python threads (daemon), started on the first step that
wants them. Each runs a ``nogil`` kernel (the environment's, e.g.
:func:`jitgames.envs.kalah_batch.pool_worker`) that spins on a shared int64 *control*
array, claiming blocks of games from its region's counter, then from the others', when a
step publishes them, for
:data:`SPIN_ROUNDS` rounds with nothing to do (about a millisecond; it yields its core
every 256 rounds, so that on a busy machine waiting threads get it), then returns to
Python, which marks the worker asleep in the control array and waits on an
:class:`threading.Event` in steps of :data:`WAIT_STEP` seconds (never unbounded). The
stepping thread's kernel publishes the step, claims blocks like a worker, waits for
the blocks the workers claimed, and says whether a worker it wanted was not spinning;
the environment then calls :meth:`StepPool.wake` (the wake-up is paid after the step,
off its critical path). A worker that sleeps or never starts only costs speed: blocks
nobody claimed are stepped by the calling thread.

Control array layout (int64, rows of 8, each row one 64-byte cache line,
:func:`cache_line_rows`: fields written by different threads sit on different lines): see
the row and column constants below. The environment's kernels define what the claimed
blocks are and what the ``PARAMS`` and ``ADDRESSES`` rows hold.
"""
from __future__ import annotations

import atexit
import threading
import weakref

import numba
import numpy as np

from .._jit import jit

__all__ = ["StepPool", "new_control", "cache_line_rows", "region_start", "CLAIMED", "TALLY",
           "SHAPE", "PARAMS", "ADDRESSES", "WORKER", "DONE", "NEXT", "GAMES", "WIDTH", "BLOCKS",
           "WANTED", "STOP", "SPIN_ROUNDS", "WAIT_STEP"]

# rows
CLAIMED = 0  # [0]: the next block of region 0 to claim (>= the region's end: none left)
TALLY = 1  # [DONE]: blocks the workers finished; the other columns: the kernel's counts
SHAPE = 2  # [GAMES], [WIDTH], [BLOCKS]: the batch the pool is for; [WANTED], [STOP]
PARAMS = 3  # the step's numbers (the kernel's layout)
ADDRESSES = 4  # two rows: the addresses of the step's arrays (the kernel's layout)
WORKER = 6  # row WORKER + i, [0]: worker i is spinning (1) or not (0); [NEXT]: region i + 1's
# columns
DONE = 0
NEXT = 1
GAMES, WIDTH, BLOCKS, WANTED, STOP = range(5)

SPIN_ROUNDS = 20_000
"""Rounds (an atomic load and a pause hint each, a ``sched_yield`` every 256th) a worker
spins with nothing to do before it sleeps: 0.64-0.66 ms on the 2-core AMD EPYC box,
about a millisecond where the pause hint is slower (``bench/envs.py --only overhead``
prints the measured window)."""
WAIT_STEP = 0.1
"""Seconds of each wait of a sleeping worker (it checks whether the pool was closed)."""

_open_pools: "weakref.WeakSet[StepPool]" = weakref.WeakSet()


def new_control(games: int, width: int, blocks: int, workers: int) -> np.ndarray:
    """A control array for batches of ``games`` rows of ``width`` (split into ``blocks``)
    and up to ``workers`` worker threads; nothing published. Its rows start on 64-byte
    boundaries (:func:`cache_line_rows`)."""
    control = cache_line_rows(WORKER + max(workers, 0))
    regions = max(workers, 0) + 1
    control[CLAIMED, 0] = region_start(1, regions, blocks)  # nothing to claim before a step
    for worker in range(max(workers, 0)):
        control[WORKER + worker, NEXT] = region_start(worker + 2, regions, blocks)
    control[SHAPE, GAMES], control[SHAPE, WIDTH], control[SHAPE, BLOCKS] = games, width, blocks
    return control


def cache_line_rows(rows: int) -> np.ndarray:
    """int64 zeros of shape ``(rows, 8)``, C-contiguous, each row one 64-byte cache line:
    a view into a slightly larger array, started on a 64-byte boundary. NumPy aligns its
    arrays to 16 bytes only, so a plain ``np.zeros((rows, 8))`` starts 0, 16, 32 or 48
    bytes into a line, as it falls in each process, and its rows then straddle two lines:
    a counter that one thread adds to shares a line with fields of the next row that the
    other thread reads at every block."""
    raw = np.zeros(rows * 8 + 7, dtype=np.int64)
    first = (-raw.ctypes.data % 64) // 8
    return raw[first:first + rows * 8].reshape(rows, 8)


@jit(inline=True)
def region_start(region, regions, blocks):
    """The first block of ``region`` (of ``regions``, the stepping thread's and one a
    worker) when ``blocks`` blocks are split into contiguous regions; the region ends
    where the next starts (``region_start(regions, ...)`` is ``blocks``)."""
    return region * blocks // regions


class StepPool:
    """Worker threads for the steps of one vector environment (see the module).

    Parameters
    ----------
    control : np.ndarray
        From :func:`new_control`: shared with the stepping kernel.
    spin : callable
        ``spin(index, rounds)``: worker ``index``'s kernel, one spin window (it returns
        after ``rounds`` rounds with nothing to do, or when ``control[SHAPE, STOP]``).
    rounds : int
        The spin window, :data:`SPIN_ROUNDS` by default.
    """

    def __init__(self, control: np.ndarray, spin, rounds: int = SPIN_ROUNDS):
        self.control = control
        self.spin = spin
        self.rounds = int(rounds)
        self.capacity = control.shape[0] - WORKER
        self._threads: list = []
        self._events: list = []
        self._closed = False
        _open_pools.add(self)

    def wake(self) -> None:
        """Start the workers the last step wanted (``control[SHAPE, WANTED]``) that do not
        run yet, and wake those asleep. Under ``NUMBA_DISABLE_JIT=1`` nothing (the kernels
        would spin holding the GIL; the stepping thread does every block)."""
        if self._closed or numba.config.DISABLE_JIT:
            return
        wanted = min(int(self.control[SHAPE, WANTED]), self.capacity)
        while len(self._threads) < wanted:
            index = len(self._threads)
            event = threading.Event()
            thread = threading.Thread(target=self._run, args=(index, event),
                                      name=f"jitgames-step-pool-{index}", daemon=True)
            self._events.append(event)
            self._threads.append(thread)
            self.control[WORKER + index, 0] = 1  # spinning from now: not woken twice
            thread.start()
        for index in range(wanted):
            if self.control[WORKER + index, 0] == 0:
                self._events[index].set()

    def _run(self, index: int, event: threading.Event) -> None:
        control = self.control
        while not self._closed:
            control[WORKER + index, 0] = 1
            self.spin(index, self.rounds)
            # asleep: clear the event first, so that a wake after the mark is kept
            event.clear()
            control[WORKER + index, 0] = 0
            while not event.wait(WAIT_STEP):
                if self._closed:
                    return

    def close(self, timeout: float = 1.0) -> None:
        """Stop the workers (their kernels leave the spin at once) and wait up to
        ``timeout`` seconds for them; the pool cannot be woken again."""
        if self._closed:
            return
        self._closed = True
        self.control[SHAPE, STOP] = 1
        for event in self._events:
            event.set()
        for thread in self._threads:
            thread.join(timeout)
        _open_pools.discard(self)


@atexit.register
def _close_open_pools() -> None:
    """At interpreter exit: stop the workers still running (daemon threads would be
    cut off by the exit anyway; this lets their kernels return first)."""
    for pool in list(_open_pools):
        pool.close(timeout=0.5)
