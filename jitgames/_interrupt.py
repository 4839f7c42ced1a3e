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

A command-line process (never a ``main(argv)`` called in-process) also stops at once
when Ctrl-C or SIGTERM arrives while a kernel is being compiled for first use
(:func:`stop_at_once_while_compiling`, :func:`end_process_if_work_left`): a
compilation cannot be interrupted safely, and lasts 10-20 s.
"""
from __future__ import annotations

import atexit
import contextlib
import os
import signal
import sys
import threading
import time

import numba
import numpy as np
from ._at_end import run_callbacks
from ._jit import atomic_load_with, jit

__all__ = ["run_interruptible", "stop_flag", "stop_requested", "GRACE",
           "stop_at_once_while_compiling", "end_process_if_work_left", "abandon"]

GRACE = 0.5
"""Seconds the work is given to stop after Ctrl-C before it is abandoned."""
_WAIT_STEP = 0.05
_state = threading.local()
_NEVER = np.zeros(1, dtype=np.int64)  # the flag outside run_interruptible: never set


# flag[0] read as an atomic (relaxed) load the optimiser cannot hoist out of a loop
# (an ordinary read under NUMBA_DISABLE_JIT=1: nothing to defeat)
_load_relaxed = atomic_load_with("monotonic")


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

    thread = threading.Thread(target=run, name="jitgames-work", daemon=True)
    try:
        thread.start()  # inside: the work may be under way before this returns
        while not finished.wait(_WAIT_STEP):
            pass
    except KeyboardInterrupt:
        stop[0] = 1
        finished.wait(grace)
        if outcome and not outcome[0][0] and isinstance(outcome[0][1], KeyboardInterrupt):
            raise outcome[0][1] from None
        if not finished.is_set():
            _abandoned.append(thread)
            atexit.unregister(_exit_beside_abandoned_work)  # registered once
            atexit.register(_exit_beside_abandoned_work)
        raise
    ok, value = outcome[0]
    if not ok:
        raise value
    return value


# ----------------------------------------------------------------------------- first-use compiles

AFTER_SIGNAL_GRACE = 2.0
"""Seconds the main thread is given to stop in order after Ctrl-C while another thread
compiles, before the process is ended (:func:`stop_at_once_while_compiling`)."""
_abandoned: list[threading.Thread] = []
"""Work threads left running after Ctrl-C by :func:`run_interruptible`."""


def abandon(thread: threading.Thread) -> None:
    """Record ``thread`` as work left running after Ctrl-C: a command-line process ends
    without waiting for it (:func:`end_process_if_work_left`)."""
    _abandoned.append(thread)


class _Compilations:
    """Which threads are compiling a kernel now (thread id -> depth of nested
    compilations), from Numba's ``numba:compile`` events (fired on cache misses only)."""

    def __init__(self):
        self.depth: dict[int, int] = {}

    def on_start(self, event) -> None:
        me = threading.get_ident()
        self.depth[me] = self.depth.get(me, 0) + 1

    def on_end(self, event) -> None:
        me = threading.get_ident()
        left = self.depth.get(me, 1) - 1
        if left:
            self.depth[me] = left
        else:
            self.depth.pop(me, None)

    def active(self, ident: int) -> bool:
        return self.depth.get(ident, 0) > 0


_compilations: _Compilations | None = None


def _watch_compilations() -> _Compilations:
    """The process's one :class:`_Compilations`, registered with Numba on first use."""
    global _compilations
    if _compilations is None:
        from jitgames._compiled import watch_compile_events

        watched = _Compilations()
        watch_compile_events(watched.on_start, watched.on_end)
        _compilations = watched
    return _compilations


def _compiler_lock():
    """The RLock inside Numba's global compiler lock (held while a kernel is compiled or
    loaded from the cache); None if Numba changes that private detail."""
    from numba.core.compiler_lock import global_compiler_lock

    return getattr(global_compiler_lock, "_lock", None)


def _compiling_here() -> bool:
    """True when the calling thread is compiling a kernel (not when it loads one from
    the cache: milliseconds, and an interrupted load is only redone by the next run)."""
    return _compilations is not None and _compilations.active(threading.get_ident())


def _compiling_elsewhere() -> bool:
    """True when another thread holds Numba's compiler lock (compiling, loading)."""
    lock = _compiler_lock()
    if lock is None or not lock.acquire(blocking=False):
        return lock is not None
    lock.release()
    return False


_stopping = threading.Lock()


def _end_process(line: str | None, status: int, output: str | None = None) -> None:
    """End the process now with ``status``: standard output flushed and ``output``
    (if any) written to it, ``line`` (if any) written to stderr. No interpreter shutdown: a thread inside LLVM when Python
    finalises aborts the process, and waiting for it is what must not happen. Called
    by two threads at once, the second waits for the first to end the process."""
    if not _stopping.acquire(blocking=False):
        while True:
            time.sleep(60)
    run_callbacks()  # child processes that must not outlive this one
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    if output:
        with contextlib.suppress(OSError):
            os.write(1, output.encode("utf-8"))
    if line:
        with contextlib.suppress(OSError):
            os.write(2, (line + "\n").encode("utf-8", "backslashreplace"))
    os._exit(status)


def end_process_if_work_left(status: int) -> None:
    """At the end of a command-line process: if work abandoned after Ctrl-C still runs,
    or another thread is compiling a kernel, end the process now with ``status`` (its
    output flushed) instead of waiting for the compilation (up to 20 s) or risking an
    abort in LLVM during Python's shutdown. Otherwise return (an orderly exit)."""
    if numba.config.DISABLE_JIT:
        return
    if any(t.is_alive() for t in _abandoned) or _compiling_elsewhere():
        _end_process(None, status)


@contextlib.contextmanager
def stop_at_once_while_compiling(goodbye):
    """Inside the block, Ctrl-C or SIGTERM that arrives while the main thread compiles a
    kernel ends the process at once, ``goodbye(signum)`` giving the line for stderr, the
    exit status and what to print on stdout (or None). For the main thread of a command-line process only (elsewhere,
    or with kernels run as plain Python, nothing changes).

    Why: on an empty cache the first call of a kernel compiles it, 10-20 s mostly inside
    LLVM (C code, where Python runs no signal handler: Ctrl-C would be seen when the
    compilation ends), and a KeyboardInterrupt raised inside Numba's compiler (in its
    Python parts, or in a callback from LLVM, where Python prints and drops it) leaves
    the compilation half made: a later ``RuntimeError: no compiled object yet`` or a
    crash. Nothing finished is lost: kernels are compiled at their first call, before
    the work that uses them, and checkpoints hold the work finished before.

    How: a signal handler that, in the compiler, ends the process instead of raising;
    and a watcher thread that reads the signal numbers Python's C-level handler writes
    to the wakeup file descriptor the moment a signal arrives, and ends the process if
    the main thread is compiling (LLVM releases the GIL, so the watcher runs), or if
    :data:`AFTER_SIGNAL_GRACE` seconds later the process still runs beside a
    compilation in another thread (the main thread then waits for it, e.g. joining a
    pool's threads). Otherwise the signal goes to the handlers installed before
    (KeyboardInterrupt: partial results, checkpoints).
    """
    if threading.current_thread() is not threading.main_thread() or numba.config.DISABLE_JIT:
        yield
        return
    watched = _watch_compilations()
    main = threading.get_ident()
    previous = {}
    for signum in (signal.SIGINT, signal.SIGTERM):
        handler = signal.getsignal(signum)
        if callable(handler):  # not ignored, not left to the system
            previous[signum] = handler

    def on_signal(signum, frame):
        if _compiling_here() or _stopping.locked():
            _end_process(*goodbye(signum))
        previous[signum](signum, frame)

    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)

    closed = threading.Event()

    def watch():
        while True:
            try:
                data = os.read(read_end, 64)
            except OSError:
                return
            if not data:  # the block ended
                return
            stops = [signum for signum in data if signum in previous]
            if not stops:
                continue
            # The main thread compiling: now. Else it stops in order (partial result,
            # checkpoint), unless it waits for a compilation in another thread (a
            # pool's threads joined while the KeyboardInterrupt unwinds): then after
            # the grace.
            deadline = time.monotonic() + AFTER_SIGNAL_GRACE
            while not closed.is_set():
                if watched.active(main):
                    _end_process(*goodbye(stops[0]))
                if time.monotonic() > deadline:
                    if _compiling_elsewhere():
                        _end_process(*goodbye(stops[0]))
                    break
                closed.wait(_WAIT_STEP)

    old_fd = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    watcher = threading.Thread(target=watch, name="jitgames-signal-watch", daemon=True)
    watcher.start()
    for signum in previous:
        signal.signal(signum, on_signal)
    try:
        yield
    finally:
        closed.set()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        signal.set_wakeup_fd(old_fd)
        os.close(write_end)
        watcher.join(1)
        os.close(read_end)
