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
(temporary file, fsync, rename) at most every ``Checkpoint.interval`` seconds (or, once
the file is large, ten times as long as the last rewrite took, so that rewriting costs
at most a tenth of the run) and when the run ends or is interrupted, so a crash loses
at most that many seconds of chunks and a run of many chunks does not rewrite the file
after each one. Running the same
command again skips the chunks already there. A checkpoint whose job name or parameters differ from the
current run's, or that cannot be read, is refused with a one-line error and left
untouched.

Ctrl-C stops the run after the chunks already finished; they are returned (and kept in
the checkpoint) with ``interrupted=True``.
"""
from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ._cli import CLIError, atomic_write_text, check_writable, parse_int, progress
from .errors import InputError

__all__ = ["ChunkedJob", "ChunkRun", "Checkpoint", "split_range", "run_chunks", "open_client",
           "add_chunk_arguments"]

CHECKPOINT_FORMAT = "jitgames-checkpoint-1"


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


MAX_LOCAL_WORKERS = 1024
"""Most worker processes of ``--scheduler local:W``."""


def scheduler_address(text: str) -> str:
    """argparse type of ``--scheduler``: ``local:W`` (1 <= W <= 1024) or
    ``tcp://HOST:PORT`` / ``tls://HOST:PORT`` (a host name, an IPv4 address or an IPv6
    address in brackets; a port from 1 to 65535). Returns ``text`` unchanged."""
    import argparse
    from urllib.parse import urlsplit

    from ._cli import int_in_range

    if text.startswith("local:"):
        try:
            int_in_range(1, MAX_LOCAL_WORKERS)(text[len("local:"):])
        except argparse.ArgumentTypeError:
            raise argparse.ArgumentTypeError(
                f"local:W needs a positive worker count W (at most {MAX_LOCAL_WORKERS}), "
                f"got {text!r}"
            ) from None
        return text
    wrong = argparse.ArgumentTypeError(
        f"expected tcp://HOST:PORT or local:W (or tls://HOST:PORT), got {text!r}")
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:  # e.g. an unclosed IPv6 bracket or a port out of range
        raise wrong from None
    if (parts.scheme not in ("tcp", "tls") or not parts.hostname or port is None or port < 1
            or parts.path or parts.query or parts.fragment or parts.username is not None):
        raise wrong
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
        pickles it by reference), deterministic, returning JSON-serialisable data.
    """

    name: str
    params: dict
    chunks: tuple
    worker: Callable


@dataclass
class ChunkRun:
    """Finished chunks of a job: ``partials`` in chunk order, and whether it was cut short."""

    partials: list
    chunks_done: list
    interrupted: bool = False
    resumed_chunks: int = 0
    total_chunks: int = 0

    @property
    def complete(self) -> bool:
        return len(self.chunks_done) == self.total_chunks


@dataclass
class Checkpoint:
    """Finished chunks of one job, kept in a JSON file rewritten atomically.

    ``interval`` is the least number of seconds between two rewrites (0: after every
    chunk); after a rewrite that took ``t`` seconds the next waits at least
    ``WAIT_FACTOR * t`` (a file of 10**8 solitaire rows takes seconds to rewrite).
    :meth:`flush` writes whatever is not on disk yet.
    """

    WAIT_FACTOR = 10

    path: Path
    job: ChunkedJob
    done: dict = field(default_factory=dict)
    interval: float = 2.0
    _due: float = field(default=float("-inf"), repr=False)
    _dirty: bool = field(default=False, repr=False)

    @classmethod
    def open(cls, path, job: ChunkedJob) -> "Checkpoint":
        """Load ``path`` if it exists (refusing a foreign or corrupt one), else start empty;
        refuse a path that cannot be written (before the run, not when it is saved)."""
        path = Path(path)
        check_writable(path)
        checkpoint = cls(path, job)
        if not path.exists():
            return checkpoint
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("format") != CHECKPOINT_FORMAT:
                raise InputError("not a jitgames checkpoint")
            chunks = {(int(a), int(b)): partial for a, b, partial in data["chunks"]}
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise CLIError(f"checkpoint {path} is unreadable ({exc}); "
                           "move it away to start afresh") from None
        if data.get("job") != job.name:
            raise CLIError(f"checkpoint {path} is for {data.get('job')!r}, not {job.name!r}; "
                           "use another --checkpoint file")
        if data.get("params") != job.params:
            diff = _describe_difference(data.get("params"), job.params)
            raise CLIError(f"checkpoint {path} belongs to a different run ({diff}); "
                           "use another --checkpoint file")
        unknown = set(chunks) - set(job.chunks)
        if unknown:
            raise CLIError(f"checkpoint {path} holds chunks this run does not have: "
                           f"{sorted(unknown)[:3]}")
        checkpoint.done = chunks
        return checkpoint

    def record(self, chunk: tuple, partial) -> None:
        """Add a finished chunk; rewrite the file if the wait after the last rewrite is over."""
        self.done[tuple(chunk)] = partial
        self._dirty = True
        if time.monotonic() >= self._due:
            self.flush()

    def flush(self) -> None:
        """Rewrite the file atomically if chunks were added since the last write."""
        if not self._dirty:
            return
        data = {
            "format": CHECKPOINT_FORMAT,
            "job": self.job.name,
            "params": self.job.params,
            "chunks": [[a, b, self.done[(a, b)]] for a, b in self.job.chunks
                       if (a, b) in self.done],
        }
        begin = time.monotonic()
        atomic_write_text(self.path, json.dumps(data))
        end = time.monotonic()
        self._due = end + max(self.interval, self.WAIT_FACTOR * (end - begin))
        self._dirty = False


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
    todo = [chunk for chunk in job.chunks if chunk not in done]
    interrupted = False

    def finish(chunk, partial):
        done[chunk] = partial
        if store is not None:
            store.record(chunk, partial)

    with progress(len(job.chunks), desc, quiet=quiet, unit="chunk") as bar:
        bar.update(resumed)
        try:
            if client is None:
                for a, b in todo:
                    finish((a, b), job.worker(job.params, a, b))
                    bar.update(1)
            else:
                _run_on_dask(client, job, todo, finish, bar)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            if store is not None:
                store.flush()
    order = [chunk for chunk in job.chunks if chunk in done]
    return ChunkRun(partials=[done[c] for c in order], chunks_done=order,
                    interrupted=interrupted, resumed_chunks=resumed,
                    total_chunks=len(job.chunks))


def _run_on_dask(client, job, todo, finish, bar) -> None:
    from distributed import as_completed

    futures = {}
    for a, b in todo:
        future = client.submit(job.worker, job.params, a, b, pure=False, retries=3)
        futures[future] = (a, b)
    try:
        for future, partial in as_completed(list(futures), with_results=True):
            finish(futures[future], partial)
            bar.update(1)
    except KeyboardInterrupt:
        client.cancel(list(futures))
        raise


def local_worker_threads(workers: int) -> int:
    """Numba threads of each of ``workers`` local worker processes: an equal share of
    this machine's cores, at least one."""
    return max(1, (os.cpu_count() or 1) // workers)


@contextlib.contextmanager
def open_client(spec: str | None):
    """Yield a Dask client for ``spec`` (``None`` yields ``None``: run in process).

    ``spec`` is ``tcp://HOST:PORT`` for a running scheduler or ``local:W`` for a
    LocalCluster of ``W`` worker processes on this machine, closed on exit. Each local
    worker gets its share of the cores as Numba threads (:func:`local_worker_threads`),
    so that ``W`` workers together do not run more threads than there are cores.
    """
    if spec is None:
        yield None
        return
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise CLIError("--scheduler needs the dask extra: pip install 'jitgames[dask]'") from None

    import argparse

    try:
        scheduler_address(spec)
    except argparse.ArgumentTypeError as exc:
        raise CLIError(f"--scheduler: {exc}") from None
    if spec.startswith("local:"):
        workers = parse_int(spec[len("local:"):])
        threads = local_worker_threads(workers)
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, env={"NUMBA_NUM_THREADS": str(threads)})
        try:
            with Client(cluster) as client:
                yield client
        finally:
            cluster.close()
        return
    try:
        client = Client(spec, timeout="10s")
    except (OSError, TimeoutError) as exc:
        raise CLIError(f"cannot reach the Dask scheduler at {spec}: {exc}") from None
    try:
        yield client
    finally:
        client.close()
