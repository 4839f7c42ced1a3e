"""Chunked jobs: split work into chunks, run them here or on a Dask cluster, keep a checkpoint.

A long computation (a solitaire study, an n-queens count, a Mastermind strategy
evaluation) is split into chunks of consecutive items ``[start, stop)``. A module-level
*worker* ``worker(params, start, stop) -> partial`` computes one chunk's partial result
as a JSON-serialisable value of exact integers; the caller merges the partials **in
chunk order**, so the answer is identical whatever the chunk size, the backend, the
number of workers or the order in which chunks finish.

Backends: in this process (the kernels themselves use every core through ``prange``),
or a Dask ``distributed`` cluster (``--scheduler tcp://HOST:PORT`` or ``local:W``; the
``dask`` extra). Dask retries the chunk of a lost worker on another worker.

Checkpoints: with a checkpoint file, finished chunks are written atomically
(:func:`jitgames._store.write_checked`: a header with the schema version and the
SHA-256 of the content) at most every ``Checkpoint.interval`` seconds (or, once the
file is large, ten times as long as the last rewrite took, so that rewriting costs at
most a tenth of the run) and when the run ends or is interrupted, so a crash loses at
most that many seconds of chunks and a run of many chunks does not rewrite the file
after each one. Running the same command again skips the items already there.

Nothing in a checkpoint is trusted unchecked: before a run resumes, the checksum, the
job name and parameters, the item ranges (each inside one chunk of the job, none
overlapping) and every partial (the job's ``validate``: counts equal to their ranges,
histogram lengths, non-negative integers, consistent sums) are checked. A checkpoint
that fails is refused with one line naming the file and what is wrong, and is left
untouched.

Ctrl-C stops the run within moments (in-process workers run under
:func:`jitgames._interrupt.run_interruptible`); the chunks already finished are
returned (and kept in the checkpoint) with ``interrupted=True``. A worker that polls
the stop flag inside a chunk raises :class:`PartialChunk` with the items it finished,
which are kept too: the checkpoint then holds part of a chunk, and the next run
computes only the rest of it.

The local cluster (``local:W``) is secured with Dask's own TLS (``security=True``:
temporary certificates that only this process holds) and serves no dashboard.
"""
from __future__ import annotations

import bisect
import contextlib
import json
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, ClassVar

from ._cli import parse_int, progress
from ._interrupt import abandon, run_interruptible
from ._store import (StoreError, check_writable, load_json, read_checked, shorten,
                     write_checked)
from .errors import InputError

__all__ = ["ChunkedJob", "ChunkRun", "CheckedFile", "Checkpoint", "PartialChunk", "split_range",
           "run_chunks", "open_client", "add_chunk_arguments", "check_count", "check_counts"]

CHECKPOINT_KIND = "jitgames-checkpoint"
CHECKPOINT_SCHEMA = 2
"""Version of the checkpoint payload (1 had no header and no checksum)."""


class PartialChunk(KeyboardInterrupt):
    """Raised by a worker stopped by Ctrl-C (its :func:`jitgames._interrupt.stop_flag`
    set) inside its chunk ``[start, end)``: ``partial`` covers the items
    ``[start, stop)`` it finished, ``start < stop <= end``."""

    def __init__(self, stop: int, partial):
        super().__init__(stop)
        self.stop, self.partial = stop, partial


def check_count(value, what: str, low: int = 0, high: int | None = None) -> int:
    """``value`` if it is an integer (not a bool) in ``[low, high]``; else ValueError
    naming ``what`` (for the ``validate`` functions of chunked jobs); a huge value is
    shown by its number of digits, not echoed."""
    if type(value) is not int:
        raise ValueError(f"{what} is {shorten(value)}, not an integer")
    if value < low or (high is not None and value > high):
        bounds = f">= {low}" if high is None else f"in [{low}, {_show_bound(high)}]"
        raise ValueError(f"{what} is {_show_bound(value)}, not {bounds}")
    return value


def _show_bound(value: int) -> str:
    """An integer for a message: in full up to 30 digits, else by its size in bits."""
    if abs(value) < 10**30:
        return str(value)
    return f"a number of {abs(value).bit_length()} bits"


def check_counts(values, what: str, length: int | None = None, low: int = 0,
                 high: int | None = None) -> list:
    """``values`` if it is a list of integers in ``[low, high]`` (of ``length``
    entries if given)."""
    if not isinstance(values, list):
        raise ValueError(f"{what} is not a list")
    if length is not None and len(values) != length:
        raise ValueError(f"{what} has {len(values)} entries, not {length}")
    for i, v in enumerate(values):
        check_count(v, f"{what}[{i}]", low, high)
    return values


def add_chunk_arguments(parser, default_chunk: int | None) -> None:
    """Add ``--scheduler``, ``--checkpoint`` and ``--chunk-size`` to an argparse parser.

    ``default_chunk=None`` leaves the chunk size to the command (shown as automatic).
    """
    from ._cli import add_checkpoint, positive_int

    group = parser.add_argument_group("long runs")
    group.add_argument("--scheduler", type=scheduler_address, metavar="ADDRESS",
                       help="run chunks on a Dask cluster: tcp://HOST:PORT of a running "
                            "scheduler, or local:W for W worker processes on this machine")
    add_checkpoint(group)
    group.add_argument("--chunk-size", type=positive_int, default=default_chunk, metavar="N",
                       help=f"items per chunk (default {default_chunk or 'automatic'}); answers "
                            "do not depend on it, but a checkpoint is tied to it")


WORKERS_PER_CORE = 2
"""``--scheduler local:W`` starts at most this many worker processes per CPU core the
process may run on: each is a Python process of about 45 MB, and more workers than
cores only share the same cores (1,024 used to start 70 processes and 3 GB in 16 s
on 2 cores)."""


def max_local_workers() -> int:
    """Most worker processes of ``--scheduler local:W`` here (:data:`WORKERS_PER_CORE`
    times the cores this process may use)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return WORKERS_PER_CORE * max(1, cores)


def scheduler_address(text: str) -> str:
    """argparse type of ``--scheduler``: ``local:W`` (1 <= W <= :func:`max_local_workers`)
    or ``tcp://HOST:PORT`` (a host name, an IPv4 address or an IPv6 address in
    brackets; a port from 1 to 65535). ``tls://`` is refused with one line: it needs
    certificates no option passes. Returns ``text`` unchanged."""
    import argparse
    from urllib.parse import urlsplit

    from ._cli import parse_int

    if text.startswith("local:"):
        most = max_local_workers()
        try:
            workers = parse_int(text[len("local:"):])
        except InputError:
            workers = 0
        if workers < 1:
            raise argparse.ArgumentTypeError(
                f"local:W needs a positive worker count W (at most {most}), "
                f"got {shorten(text)}") from None
        if workers > most:
            raise argparse.ArgumentTypeError(
                f"local:{workers if workers < 10**9 else 'W'}: at most {most} worker "
                f"processes here ({WORKERS_PER_CORE} per CPU core); more only share the "
                "same cores")
        return text
    wrong = argparse.ArgumentTypeError(
        f"expected tcp://HOST:PORT or local:W, got {shorten(text)}")
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:  # e.g. an unclosed IPv6 bracket or a port out of range
        raise wrong from None
    if (parts.scheme not in ("tcp", "tls") or not parts.hostname or port is None or port < 1
            or parts.path or parts.query or parts.fragment or parts.username is not None):
        raise wrong
    if parts.scheme == "tls":
        raise argparse.ArgumentTypeError(
            "tls:// needs client certificates, which jitgames has no option to pass; use "
            "tcp:// on a trusted network (or through an SSH tunnel), or local:W")
    return text


def split_range(start: int, stop: int, size: int) -> list[tuple[int, int]]:
    """Consecutive chunks ``[a, b)`` of at most ``size`` items covering ``[start, stop)``."""
    if size < 1:
        raise InputError(f"chunk size must be positive, got {size}")
    return [(a, min(a + size, stop)) for a in range(start, stop, size)]


@dataclass(frozen=True)
class ChunkedJob:
    """What to compute.

    Attributes
    ----------
    name : str
        Kind of job, e.g. ``"solitaire.study"``; stored in checkpoints.
    params : dict
        JSON values that determine the answer (seed, sizes, rules, version...).
        A checkpoint is only reused by a job with equal ``name`` and ``params``.
    chunks : tuple of (int, int)
        The ``[start, stop)`` item ranges, in merge order.
    worker : callable
        ``worker(params, start, stop) -> partial``; a module-level function (Dask
        pickles it by reference), deterministic, returning JSON-serialisable data. It
        may raise :class:`PartialChunk` when Ctrl-C stops it inside the chunk.
    validate : callable
        ``validate(params, start, stop, partial)`` raises ValueError (with the reason)
        unless ``partial`` is a well-formed result of items ``[start, stop)``: every
        invariant a worker's output satisfies. Partials read from a checkpoint are
        used only after it passed.
    """

    name: str
    params: dict
    chunks: tuple
    worker: Callable
    validate: Callable


@dataclass
class ChunkRun:
    """Finished item ranges of a job: ``partials`` in item order (``chunks_done[i]`` the
    ``[start, stop)`` of ``partials[i]``: whole chunks, or parts of one after Ctrl-C),
    and whether it was cut short."""

    partials: list
    chunks_done: list
    interrupted: bool = False
    resumed_chunks: int = 0
    total_chunks: int = 0
    resumed_items: int = 0
    """Items read back from the checkpoint (not computed by this run)."""

    total_items: int = 0

    @property
    def items_done(self) -> int:
        return sum(b - a for a, b in self.chunks_done)

    @property
    def complete(self) -> bool:
        return self.items_done == self.total_items

    def items_per_second(self, seconds: float) -> float | None:
        """Items a second over the items this run computed in ``seconds`` (those read
        back from the checkpoint took none of its time); None when it computed none."""
        computed = self.items_done - self.resumed_items
        return computed / seconds if computed > 0 and seconds > 0 else None


@dataclass
class CheckedFile:
    """A job's JSON document kept on disk: checked when read, rewritten atomically and
    not too often.

    The file is a checked file (:func:`jitgames._store.write_checked`, kind
    ``CHECKPOINT_KIND``) holding ``{"job": name, "params": the run's parameters, ROWS:
    [...]}``. A subclass names its rows (``ROWS``), says what the file is to a user
    (``WHAT``) and builds the document (:meth:`_document`); it checks its own rows.

    ``interval`` is the least number of seconds between two rewrites (0: after every
    change); after a rewrite that took ``t`` seconds the next waits at least
    ``WAIT_FACTOR * t`` (a file of 10**8 solitaire rows takes seconds to rewrite).
    :meth:`flush` writes whatever is not on disk yet. A rewrite that fails (a full
    disk) is reported once and tried again later: it must not cost the run.
    """

    WAIT_FACTOR: ClassVar[int] = 10
    WHAT: ClassVar[str] = "file"
    ROWS: ClassVar[str] = "rows"

    path: Path
    interval: float = field(default=2.0, kw_only=True)
    _due: float = field(default=float("-inf"), repr=False, kw_only=True)
    _dirty: bool = field(default=False, repr=False, kw_only=True)
    _failed: bool = field(default=False, repr=False, kw_only=True)

    @classmethod
    def _read_rows(cls, path: Path, name: str, params: dict) -> list | None:
        """The rows of ``path``, a file of job ``name`` with ``params``, or None when there
        is none; refuse a path that cannot be written (before the run, not when it is
        saved).

        Raises
        ------
        StoreError
            One line naming the file and what is wrong (checksum, schema, content,
            another job or parameters); the file is not touched.
        """
        check_writable(path)
        if not path.exists():
            return None
        payload = read_checked(path, CHECKPOINT_KIND, CHECKPOINT_SCHEMA, cls.WHAT)
        try:
            data = load_json(payload, "content")
            if not isinstance(data, dict) or not isinstance(data.get(cls.ROWS), list):
                raise ValueError(f"no list of {cls.ROWS}")
        except ValueError as exc:
            raise cls._refusal(path, f"unreadable content ({exc})") from None
        if data.get("job") != name:
            raise StoreError(f"{cls.WHAT} {path} is for {data.get('job')!r}, not {name!r}; "
                             "use another --checkpoint file")
        if data.get("params") != params:
            diff = _describe_difference(data.get("params"), params)
            raise StoreError(f"{cls.WHAT} {path} belongs to a different run ({diff}); "
                             "use another --checkpoint file")
        return data[cls.ROWS]

    @classmethod
    def _refusal(cls, path: Path, reason: str) -> StoreError:
        return StoreError(f"{cls.WHAT} {path}: {reason}; move it away to start afresh")

    def _document(self) -> dict:
        """The whole document to write: ``job``, ``params`` and the rows."""
        raise NotImplementedError

    def _changed(self) -> None:
        """Note a change; rewrite the file if the wait after the last rewrite is over."""
        self._dirty = True
        if time.monotonic() >= self._due:
            self.flush()

    @property
    def saved(self) -> bool:
        """Whether every change is on disk."""
        return not self._dirty

    def flush(self, force: bool = False) -> None:
        """Rewrite the file atomically if anything changed since the last write (with
        ``force``, also when nothing did: a file of no rows yet)."""
        if not self._dirty and not force:
            return
        begin = time.monotonic()
        try:
            write_checked(self.path, CHECKPOINT_KIND, CHECKPOINT_SCHEMA,
                          json.dumps(self._document()).encode("utf-8"))
        except StoreError as exc:
            # A full disk must not cost the run: say so once, keep computing (the
            # result is printed at the end) and try again at the next rewrite.
            if not self._failed:
                print(f"jitgames: {self.WHAT} not saved: {exc}; the run goes on and its "
                      "result will be printed", file=sys.stderr)
            self._failed = True
            self._due = time.monotonic() + max(self.interval, 1.0)
            return
        end = time.monotonic()
        self._due = end + max(self.interval, self.WAIT_FACTOR * (end - begin))
        self._dirty = False


@dataclass
class Checkpoint(CheckedFile):
    """Finished chunks of one job (rows ``[start, stop, partial]``), kept in a
    :class:`CheckedFile`."""

    WHAT: ClassVar[str] = "checkpoint"
    ROWS: ClassVar[str] = "chunks"

    job: ChunkedJob
    done: dict = field(default_factory=dict)

    @classmethod
    def open(cls, path, job: ChunkedJob) -> "Checkpoint":
        """Load ``path`` if it exists, else start empty; refuse a path that cannot be
        written (before the run, not when it is saved).

        Raises
        ------
        StoreError
            One line naming the file and what is wrong (checksum, schema, another job
            or parameters, item ranges, an invalid partial); the file is not touched.
        """
        path = Path(path)
        checkpoint = cls(path, job)
        rows = cls._read_rows(path, job.name, job.params)
        if rows is not None:
            try:
                checkpoint.done = _checked_ranges(job, rows)
            except ValueError as exc:
                raise cls._refusal(path, str(exc)) from None
        return checkpoint

    def record(self, chunk: tuple, partial) -> None:
        """Add a finished chunk; rewrite the file if the wait after the last rewrite is over."""
        self.done[tuple(chunk)] = partial
        self._changed()

    def _document(self) -> dict:
        return {
            "job": self.job.name,
            "params": self.job.params,
            "chunks": [[a, b, self.done[(a, b)]] for a, b in sorted(self.done)],
        }


def _checked_ranges(job: ChunkedJob, rows) -> dict:
    """``{(a, b): partial}`` from a checkpoint's ``[a, b, partial]`` rows, every range
    inside one chunk of ``job``, no two overlapping, every partial valid; else
    ValueError saying which range is wrong and why."""
    bounds = {a: b for a, b in job.chunks}
    starts = sorted(bounds)
    done = {}
    for row in rows:
        if not (isinstance(row, list) and len(row) == 3 and type(row[0]) is int
                and type(row[1]) is int):
            raise ValueError(f"malformed entry {str(row)[:60]!r}")
        a, b, partial = row
        i = bisect.bisect_right(starts, a) - 1
        if i < 0 or not a < b <= bounds[starts[i]]:
            raise ValueError(f"items [{a}, {b}) are not part of one chunk of this run")
        if (a, b) in done:
            raise ValueError(f"items [{a}, {b}) appear twice")
        try:
            job.validate(job.params, a, b, partial)
        except (ValueError, TypeError, KeyError, AttributeError, IndexError) as exc:
            raise ValueError(f"items [{a}, {b}): {exc}") from None
        done[(a, b)] = partial
    last = None
    for a, b in sorted(done):
        if last is not None and a < last:
            raise ValueError(f"items [{a}, {b}) overlap others")
        last = b
    return done


def _missing(job: ChunkedJob, done: dict) -> list:
    """The ``[a, b)`` ranges of ``job``'s chunks not covered by ``done``, in item order
    (a chunk partly done leaves its gaps)."""
    covered = sorted(done)
    todo, k = [], 0
    for a, b in job.chunks:
        position = a
        while k < len(covered) and covered[k][0] < b:
            start, stop = covered[k]
            if start >= a:
                if start > position:
                    todo.append((position, start))
                position = max(position, stop)
            k += 1
        if position < b:
            todo.append((position, b))
    return todo


def _describe_difference(old, new) -> str:
    if not isinstance(old, dict):
        return "no parameters recorded"
    keys = sorted(set(old) | set(new))
    parts = [f"{k}: {old.get(k)!r} there, {new.get(k)!r} here" for k in keys
             if old.get(k) != new.get(k)]
    return "; ".join(parts[:3])


def run_chunks(job: ChunkedJob, *, client=None, checkpoint: str | Path | None = None,
               quiet: bool = False, desc: str = "chunks") -> ChunkRun:
    """Run every chunk of ``job`` not already in the checkpoint.

    Parameters
    ----------
    client : distributed.Client or None
        Run chunks on this Dask cluster; ``None`` runs them one after another here.
    checkpoint : path or None
        Checkpoint file to resume from and to record finished chunks in.
    quiet : bool
        No progress bar (it shows only when stderr is a terminal anyway).

    Returns
    -------
    ChunkRun
        Partials in chunk order; ``interrupted`` is True after Ctrl-C.
    """
    store = Checkpoint.open(checkpoint, job) if checkpoint is not None else None
    done = dict(store.done) if store is not None else {}
    resumed = len(done)
    resumed_items = sum(b - a for a, b in done)
    todo = _missing(job, done)
    interrupted = False

    def finish(chunk, partial):
        done[chunk] = partial
        if store is not None:
            store.record(chunk, partial)

    with progress(len(job.chunks), desc, quiet=quiet, unit="chunk") as bar:
        starts = [a for a, _ in job.chunks]
        unfinished = {bisect.bisect_right(starts, a) for a, _ in todo}
        bar.update(len(job.chunks) - len(unfinished))
        try:
            if client is None:
                for a, b in todo:
                    try:
                        partial = run_interruptible(lambda: job.worker(job.params, a, b))
                    except PartialChunk as stop:
                        if a < stop.stop <= b:
                            finish((a, stop.stop), stop.partial)
                        raise
                    finish((a, b), partial)
                    bar.update(1)
            else:
                _run_on_dask(client, job, todo, finish, bar)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            if store is not None:
                store.flush()
    order = sorted(done)
    return ChunkRun(partials=[done[c] for c in order], chunks_done=order,
                    interrupted=interrupted, resumed_chunks=resumed,
                    total_chunks=len(job.chunks), resumed_items=resumed_items,
                    total_items=sum(b - a for a, b in job.chunks))


def _run_on_dask(client, job, todo, finish, bar) -> None:
    """Submit the chunks ``todo`` and ``finish`` each as it completes.

    A chunk that fails on a worker raises its exception here. When the client loses
    its scheduler (the scheduler stopped, the network went), Dask cancels every
    future at once, and a finished chunk's result can no longer be fetched: either
    ends the run with one line (``InputError``), the chunks finished before kept by
    the caller's checkpoint.
    """
    from concurrent.futures import CancelledError

    from distributed import as_completed
    from distributed.comm.core import CommClosedError

    futures = {}
    for a, b in todo:
        future = client.submit(job.worker, job.params, a, b, pure=False, retries=3)
        futures[future] = (a, b)
    finished = 0
    try:
        for future in as_completed(list(futures)):
            try:
                partial = future.result()
            except (CancelledError, CommClosedError) as exc:
                reason = getattr(exc, "reason", None) or "connection closed"
                address = getattr(client.scheduler, "address", "")
                raise InputError(f"lost the Dask scheduler {address} after {finished} of "
                                 f"{len(futures)} chunks ({reason})") from None
            finish(futures[future], partial)
            finished += 1
            bar.update(1)
    except KeyboardInterrupt:
        client.cancel(list(futures))
        raise


def local_worker_threads(workers: int) -> int:
    """Numba threads of each of ``workers`` local worker processes: an equal share of
    this machine's cores, at least one."""
    return max(1, (os.cpu_count() or 1) // workers)


@contextlib.contextmanager
def _secure_local_cluster(workers: int, local_cluster):
    """A LocalCluster of ``workers`` processes that no one else can use or look into.

    Every connection is TLS with temporary certificates known only to this process
    (``security=True``: a client without them is refused), and the HTTP servers Dask
    always starts are bound to a free local port with no routes (no dashboard, no
    health, metrics or proxy pages). The workers never hear Ctrl-C
    (:func:`_start_deaf_to_ctrl_c`), and Dask's own log lines are silenced below
    CRITICAL: a stopped run's cancelled tasks, heartbeats to a closed scheduler and
    killed workers are the expected end of a cut run, not news; an error in a chunk
    reaches this process as its exception and is reported here. The configuration
    holds while the cluster lives, so that a worker restarted after a crash starts the
    same way. When the run is over (finished or cut short) the workers are killed and
    the close never takes more than seconds (:func:`_close_promptly`).
    """
    import logging

    import dask

    quiet_http = {"distributed.scheduler.http.routes": [], "distributed.worker.http.routes": []}
    with dask.config.set(quiet_http):
        cluster = _start_deaf_to_ctrl_c(lambda: local_cluster(
            n_workers=workers, threads_per_worker=1, processes=True, security=True,
            dashboard_address="127.0.0.1:0", scheduler_kwargs={"dashboard": False},
            worker_dashboard_address="127.0.0.1:0", silence_logs=logging.CRITICAL,
            env={"NUMBA_NUM_THREADS": str(local_worker_threads(workers))}))
        # every logger of Dask's, those with levels of their own included: the killed
        # workers' connections are logged as closed, with tracebacks, at INFO
        with _dask_logs_silenced():
            try:
                yield cluster
            finally:
                _close_promptly(cluster)


def _close_promptly(cluster) -> None:
    """Close a local ``cluster`` whose run is over, within seconds whatever happens.

    Its workers are killed first (:func:`_end_workers`): nothing of theirs is needed
    any more, and a worker still inside a kernel (a run cut short) would answer Dask's
    request to stop only when Dask kills it, 4 s on. A close that times out (reaping
    late on a loaded machine) or is cut by Ctrl-C leaves the cluster "closing", which
    Dask's own close at exit would wait on for its full 10 s: it is forgotten instead
    (:func:`_forget`). Ctrl-C here is not raised again: the close was all that was
    left, and what the run computed is kept.
    """
    _end_workers(cluster)
    try:
        cluster.close()
    except (TimeoutError, KeyboardInterrupt):
        _forget(cluster)


def _end_workers(cluster) -> None:
    """Kill the worker processes of a local ``cluster`` (SIGKILL): they hold nothing
    this process still needs. Each worker's nanny is told first that its cluster is
    shutting down (``Nanny.close_gracefully``, Dask's own signal for that), so that it
    closes instead of starting a new worker. Best effort (a worker may be gone)."""
    import signal

    for nanny in list(getattr(cluster, "workers", {}).values()):
        with contextlib.suppress(Exception):
            nanny.close_gracefully(reason="jitgames: the run is over")
            if nanny.pid:
                os.kill(nanny.pid, signal.SIGKILL)


def _forget(cluster) -> None:
    """Take a ``cluster`` left "closing" off Dask's list of clusters and stop its event
    loop, so that Dask's own close at exit does not wait its full timeout on it (best
    effort: private parts of Dask)."""
    with contextlib.suppress(Exception):
        type(cluster)._instances.discard(cluster)
        cluster._loop_runner.stop()


def _start_deaf_to_ctrl_c(start):
    """``start()`` (a LocalCluster) in a helper thread that blocks SIGINT, while this
    thread waits in short steps, hearing Ctrl-C at once.

    A terminal sends Ctrl-C to every process of the foreground group, the cluster's
    worker processes included, which then print a KeyboardInterrupt traceback each
    (four for ``local:4``) from wherever they are: importing, running a chunk, closing.
    Their parent stops them (it closes the cluster); they need not hear it. A blocked
    signal stays blocked in every thread the helper starts (the cluster's event loop,
    the threads that start and restart worker processes) and in the processes they
    start, from their first instruction (Python leaves the mask as it finds it), so
    the workers never see Ctrl-C. The waiting thread keeps hearing it.

    After Ctrl-C the helper is abandoned (the process ends without waiting for it, see
    :func:`jitgames._interrupt.end_process_if_work_left`; workers end with their
    parent); a cluster it finishes starting anyway is closed there, unused.
    """
    import signal
    from multiprocessing import resource_tracker

    outcome = []
    lock = threading.Lock()
    abandoned = threading.Event()
    done = threading.Event()

    def run():
        try:
            # multiprocessing's resource tracker is started (once) with SIGINT blocked
            # and then *unblocks* it in the starting thread: start it first. Its only
            # words are about semaphores left behind by a process ended at once after
            # Ctrl-C (on purpose): it gets no stderr (its file descriptor 2 is
            # inherited, so it is pointed at /dev/null for the moment of the start).
            saved = os.dup(2)
            try:
                nowhere = os.open(os.devnull, os.O_WRONLY)
                os.dup2(nowhere, 2)
                os.close(nowhere)
                resource_tracker.ensure_running()
            finally:
                os.dup2(saved, 2)
                os.close(saved)
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
            cluster = start()
        except BaseException as exc:  # handed to the waiting thread
            outcome.append((False, exc))
            done.set()
            return
        with lock:
            keep = not abandoned.is_set()
            if keep:
                outcome.append((True, cluster))
        if not keep:
            cluster.close()
        done.set()

    thread = threading.Thread(target=run, name="jitgames-cluster-start", daemon=True)
    try:
        thread.start()  # inside: the start may be under way before this returns
        while not done.wait(0.05):
            pass
    except KeyboardInterrupt:
        with lock:
            abandoned.set()
            started = [value for ok, value in outcome if ok]
        for cluster in started:  # finished just before Ctrl-C was heard: unused
            _close_promptly(cluster)
        if not started:
            abandon(thread)
        raise
    ok, value = outcome[0]
    if not ok:
        raise value
    return value


CONNECT_TIMEOUT = 10.0
"""Seconds given to a Dask scheduler to answer (a refused connection is reported at
once by :func:`_probe`, not after this)."""
HANDSHAKE_WAIT = 3.0
"""Seconds a server at a ``tcp://`` address is given to greet as a Dask scheduler does
(at once, before it reads anything: a scheduler answers in milliseconds)."""
_HANDSHAKE_MOST = 64 * 1024
"""Largest first message read from the server (a scheduler's greeting is ~100 bytes)."""


def _probe(spec: str) -> None:
    """Check that ``tcp://HOST:PORT`` is a Dask scheduler before Dask's client is made.

    A refused or unreachable address is one line at once (Dask's client retries until
    its timeout). A server that is not Dask's gets one line within
    :data:`HANDSHAKE_WAIT` seconds: Dask's client, given an HTTP server (which waits
    for a request and never speaks first), waits for ever in its handshake, whatever
    its timeout. A Dask peer greets first with one message in Dask's framing (its total
    length as a little-endian 64-bit integer, then the frames, msgpack naming
    ``compression`` and ``pickle-protocol``); the greeting is sent back unchanged
    before closing, so the scheduler sees a complete handshake, not a broken one.
    """
    import socket
    import struct
    from urllib.parse import urlsplit

    parts = urlsplit(spec)
    try:
        sock = socket.create_connection((parts.hostname, parts.port), timeout=CONNECT_TIMEOUT)
    except OSError as exc:
        raise InputError(f"cannot reach the Dask scheduler at {spec}: "
                         f"{exc.strerror or exc}") from None
    not_dask = InputError(f"{spec} did not answer as a Dask scheduler; is it the "
                          "scheduler's address?")
    with sock:
        sock.settimeout(HANDSHAKE_WAIT)
        try:
            head = _receive(sock, 8)
            (length,) = struct.unpack("<Q", head)
            if not 16 <= length <= _HANDSHAKE_MOST:
                raise not_dask
            greeting = _receive(sock, length)
        except (OSError, EOFError):  # silent (timeout), closed, reset
            raise not_dask from None
        if b"pickle-protocol" not in greeting or b"compression" not in greeting:
            raise not_dask
        with contextlib.suppress(OSError):
            sock.sendall(head + greeting)


def _receive(sock, count: int) -> bytes:
    """Exactly ``count`` bytes from ``sock`` (its timeout applies to each read);
    EOFError if the peer closes first."""
    data = bytearray()
    while len(data) < count:
        piece = sock.recv(count - len(data))
        if not piece:
            raise EOFError
        data += piece
    return bytes(data)


@contextlib.contextmanager
def open_client(spec: str | None):
    """Yield a Dask client for ``spec`` (``None`` yields ``None``: run in process).

    ``spec`` is ``tcp://HOST:PORT`` for a running scheduler or ``local:W`` for a
    LocalCluster of ``W`` worker processes on this machine, closed on exit, reachable
    only by this process (:func:`_secure_local_cluster`). Each local
    worker gets its share of the cores as Numba threads (:func:`local_worker_threads`),
    so that ``W`` workers together do not run more threads than there are cores.
    """
    if spec is None:
        yield None
        return
    import argparse

    try:
        scheduler_address(spec)
    except argparse.ArgumentTypeError as exc:
        raise InputError(f"--scheduler: {exc}") from None
    if not spec.startswith("local:"):
        _probe(spec)  # before Dask's import (seconds): a wrong address is told at once
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise InputError("--scheduler needs the dask extra: pip install 'jitgames[dask]'") from None

    if spec.startswith("local:"):
        workers = parse_int(spec[len("local:"):])
        try:  # the local cluster's temporary TLS certificates are made with it
            import cryptography  # noqa: F401
        except ImportError:
            raise InputError("--scheduler local:W needs the dask extra (its TLS certificates "
                             "need cryptography): pip install 'jitgames[dask]'") from None
        with _secure_local_cluster(workers, LocalCluster) as cluster:
            client = Client(cluster)
            try:
                yield client
            finally:
                _close_client(client)
        return
    try:
        client = Client(spec, timeout=f"{CONNECT_TIMEOUT:g}s")
    except (OSError, TimeoutError) as exc:
        raise InputError(f"cannot reach the Dask scheduler at {spec}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - whatever a non-Dask server makes Dask raise
        raise InputError(f"{spec} did not answer as a Dask scheduler "
                         f"({type(exc).__name__}); is it the scheduler's address?") from None
    with _dask_logs_silenced():
        try:
            yield client
        finally:
            _close_client(client)


def _close_client(client) -> None:
    """Close a Dask ``client``; Ctrl-C during the close cuts it short and is not raised
    again: what the run computed is kept (the caller prints it, complete or not)."""
    with contextlib.suppress(KeyboardInterrupt):
        client.close()


@contextlib.contextmanager
def _dask_logs_silenced():
    """Dask's log lines below CRITICAL silenced while a remote scheduler's client, or a
    local cluster, is in use and closed: what they report (a lost connection and its
    reconnection attempts, a killed worker's closed connection, with tracebacks) reaches
    the command as a failed or cancelled chunk, told in one line, or is the expected end
    of a run."""
    import logging

    names = ["distributed"] + [name for name in logging.root.manager.loggerDict
                               if name.startswith("distributed.")]
    levels = {name: logging.getLogger(name).level for name in names}
    for name in names:  # Dask's configuration gives some of them levels of their own
        logging.getLogger(name).setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)
