"""What must happen even when the process ends at once.

:func:`jitgames._interrupt._end_process` ends a process with ``os._exit`` (Ctrl-C or
SIGTERM while a kernel runs): no ``finally`` block and no ``atexit`` handler runs after
it, so child processes that must not outlive this one (the compiling helper,
:mod:`jitgames._warmup`) are ended by the callbacks kept here, which it runs first.
Kept apart from :mod:`jitgames._interrupt`, which imports Numba, so that a helper
started before the game's imports is registered as it starts.
"""
from __future__ import annotations

import contextlib

_callbacks: list = []


def also_at_end(callback) -> None:
    """Run ``callback()`` if the process is ended at once (:func:`run_callbacks`)."""
    _callbacks.append(callback)


def no_longer_at_end(callback) -> None:
    """Undo :func:`also_at_end` (nothing if ``callback`` is not there)."""
    with contextlib.suppress(ValueError):
        _callbacks.remove(callback)


def run_callbacks() -> None:
    """Run every registered callback, ignoring their errors."""
    for callback in list(_callbacks):
        with contextlib.suppress(Exception):
            callback()
