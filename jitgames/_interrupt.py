"""Ctrl-C that is heard while a long kernel runs.

A compiled kernel does not return to Python until it is done, and Python runs its
signal handlers only between bytecodes, so Ctrl-C during a kernel call of an hour is
seen an hour later. :func:`run_interruptible` therefore runs the work in a helper
thread (kernels release the GIL) while the main thread waits in short steps, where
Ctrl-C is seen at once. It then sets the *stop flag* of the work, an int64 array of
one entry that kernels and Python loops poll (:func:`stop_flag`), and waits up to
``grace`` seconds for the work to stop and hand back what it finished (e.g.
:class:`jitgames._chunked.PartialChunk`). Work that does not poll the flag is left
running in its (daemon) thread and ends with the process; KeyboardInterrupt is raised
either way, within ``grace`` seconds.

The helper thread runs parallel kernels on as many Numba threads as the caller
(Numba's thread count is per thread).

Kernels read the flag with :func:`stop_requested`, an atomic (relaxed) load: a plain
``flag[0]`` in a loop that never writes it may be read once, before the loop, by the
optimiser, and the loop would never see the change.
"""
from __future__ import annotations

import atexit
import contextlib
import os
import threading

import numba
import numpy as np
from numba.core import types
from numba.extending import intrinsic

from ._jit import jit

__all__ = ["run_interruptible", "stop_flag", "stop_requested", "GRACE"]

GRACE = 0.5
"""Seconds the work is given to stop after Ctrl-C before it is abandoned."""
_WAIT_STEP = 0.05
_state = threading.local()
_NEVER = np.zeros(1, dtype=np.int64)  # the flag outside run_interruptible: never set


@intrinsic
def _load_relaxed(typingctx, flag):
    """``flag[0]`` of an int64 array as an atomic load the optimiser cannot hoist."""
    if not (isinstance(flag, types.Array) and flag.dtype == types.int64):
        return None

    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        return builder.load_atomic(data, "monotonic", 8)

    return types.int64(flag), codegen


if numba.config.DISABLE_JIT:  # plain Python: an ordinary read, nothing to defeat
    def _load_relaxed(flag):  # noqa: F811
        return flag[0]


@jit
def stop_requested(flag):
    """True when ``flag[0]`` (int64) is set, read afresh on every call (atomic load)."""
    return _load_relaxed(flag) != 0


COMPILE_WAIT = 120.0
"""Seconds an exiting process waits for a compilation in abandoned work to finish."""


def _exit_beside_abandoned_work() -> None:
    """At exit after abandoning work (not before: a process that goes on, such as a
    test session, keeps its threads as they are).

    The other threads get the lowest CPU priority, so that the abandoned kernel does
    not slow down the exit. Then wait for a compilation the work may be running, and
    keep Numba's compiler lock, so that it starts no other: a thread cut off inside
    LLVM when the interpreter shuts down would abort the process (exit status -6
    instead of 130); this only matters before the kernels are in Numba's cache.
    """
    from numba.core.compiler_lock import global_compiler_lock

    _lowest_priority_for_other_threads()

    lock = getattr(global_compiler_lock, "_lock", None)  # the RLock inside; no public API
    if lock is not None:
        lock.acquire(timeout=COMPILE_WAIT)


def _lowest_priority_for_other_threads() -> None:
    """Nice every thread of this process but the calling one to 19 (Linux, where a
    thread's id is a process id for ``setpriority``; elsewhere nothing happens)."""
    me = threading.get_native_id()
    with contextlib.suppress(OSError, AttributeError, ValueError):
        for entry in os.listdir("/proc/self/task"):
            if int(entry) != me:
                with contextlib.suppress(OSError):
                    os.setpriority(os.PRIO_PROCESS, int(entry), 19)


def _relayed(work, stop):
    """``work()`` in this thread, with this thread's stop flag copied to ``stop``."""
    outer = stop_flag()
    if stop is None or outer is _NEVER or outer is stop:
        return work()
    finished = threading.Event()

    def relay():
        while not finished.wait(_WAIT_STEP):
            if outer[0]:
                stop[0] = outer[0]
                return

    threading.Thread(target=relay, name="jitgames-stop-relay", daemon=True).start()
    try:
        return work()
    finally:
        finished.set()


def stop_flag() -> np.ndarray:
    """The stop flag of the work running in this thread (``flag[0] != 0``: stop now).

    Outside :func:`run_interruptible` (a Dask worker, a plain call) it is never set.
    Kernels take it as an argument and poll it every few milliseconds of work.
    """
    return getattr(_state, "stop", _NEVER)


def run_interruptible(work, grace: float = GRACE, stop: np.ndarray | None = None):
    """``work()``, with Ctrl-C heard within ``_WAIT_STEP`` seconds (see the module).

    A kernel left running after Ctrl-C (one that does not poll the flag) runs on, and
    is given the lowest CPU priority when the process exits.

    Returns what ``work`` returns and raises what it raises. After Ctrl-C: sets
    :func:`stop_flag`, waits up to ``grace`` seconds, and raises the KeyboardInterrupt
    (or subclass, carrying partial results) that ``work`` raised on seeing the flag,
    else a plain KeyboardInterrupt. ``stop``: the flag to set (int64, one entry) when
    the work holds its own, e.g. a search object's; by default a new one.

    Called outside the main thread (where Ctrl-C never arrives), e.g. nested in another
    ``run_interruptible``, it calls ``work()`` there, and passes that thread's stop
    flag on to ``stop``.
    """
    if threading.current_thread() is not threading.main_thread():
        return _relayed(work, stop)
    stop = np.zeros(1, dtype=np.int64) if stop is None else stop
    outcome = []
    finished = threading.Event()  # not Thread.join: Python 3.11's join, interrupted by
    threads = numba.get_num_threads()  # Ctrl-C, marks a running thread as stopped

    def run():
        _state.stop = stop
        try:
            numba.set_num_threads(threads)
            outcome.append((True, work()))
        except BaseException as exc:  # handed to the waiting thread
            outcome.append((False, exc))
        finally:
            finished.set()

    threading.Thread(target=run, name="jitgames-work", daemon=True).start()
    try:
        while not finished.wait(_WAIT_STEP):
            pass
    except KeyboardInterrupt:
        stop[0] = 1
        finished.wait(grace)
        if outcome and not outcome[0][0] and isinstance(outcome[0][1], KeyboardInterrupt):
            raise outcome[0][1] from None
        if not finished.is_set():
            atexit.unregister(_exit_beside_abandoned_work)  # registered once
            atexit.register(_exit_beside_abandoned_work)
        raise
    ok, value = outcome[0]
    if not ok:
        raise value
    return value
