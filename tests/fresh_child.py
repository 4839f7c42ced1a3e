"""Fresh interpreters on Numba caches of their own, for the checks of what a first run
on a new machine compiles (``tests/test_warmup*.py``), and a way into a child's code at
a chosen moment (:func:`write_after_import_hook`). Every wait is bounded."""
from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 600
"""Seconds a child may take: it compiles the kernels it tests on an empty cache."""


def child_env(cache: Path, **extra: str) -> dict:
    """A child's environment: this checkout, compiled kernels (``NUMBA_DISABLE_JIT``
    dropped), cache ``cache``, and the variables ``extra``."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    env.update(NUMBA_CACHE_DIR=str(cache), PYTHONPATH=os.pathsep.join([str(ROOT)] + sys.path))
    env.update(extra)
    return env


def run_child(args: list[str], cache: Path, **extra: str) -> subprocess.CompletedProcess:
    """``python ARGS`` in a child on ``cache`` (:func:`child_env`), from the repository's
    root, its output captured as text."""
    return subprocess.run([sys.executable, *args], env=child_env(cache, **extra), cwd=ROOT,
                          capture_output=True, text=True, timeout=TIMEOUT)


def child_json(code: str, cache: Path, **extra: str):
    """What the Python ``code`` prints as JSON, run in a child on ``cache``; the child
    must succeed."""
    done = run_child(["-c", code], cache, **extra)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def helpers_of(cache: Path) -> list[int]:
    """Process ids of compiling helpers (``jitgames._warmup``) working on ``cache``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
            environment = (entry / "environ").read_bytes().split(b"\0")
        except OSError:  # ended meanwhile, or not ours to read
            continue
        if b"jitgames._warmup" in command and f"NUMBA_CACHE_DIR={cache}".encode() in environment:
            found.append(int(entry.name))
    return found


def wait_for_helpers(cache: Path, wanted, seconds: float, child=None) -> list[int]:
    """``helpers_of(cache)`` as soon as ``wanted`` (a test of that list) holds, or when
    ``seconds`` have passed or ``child`` (a ``Popen``, if given) has ended, whichever
    comes first: a bounded poll, every 10 ms."""
    deadline = time.monotonic() + seconds
    while True:
        helpers = helpers_of(cache)
        if (wanted(helpers) or time.monotonic() >= deadline
                or (child is not None and child.poll() is not None)):
            return helpers
        time.sleep(0.01)


def no_helpers(helpers: list[int]) -> bool:
    """A ``wanted`` for :func:`wait_for_helpers`: every helper has ended."""
    return not helpers


def kill_helpers(cache: Path) -> None:
    """SIGKILL every helper still working on ``cache`` (a test's clean-up)."""
    for pid in helpers_of(cache):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


_AFTER_IMPORT = r"""
import sys


class _AfterImport:
    # Runs _after(module) once the module named _WATCHED has been executed.
    def find_spec(self, name, path=None, target=None):
        if name != _WATCHED:
            return None
        from importlib.machinery import PathFinder

        spec = PathFinder.find_spec(name, path)
        load = spec.loader.exec_module

        def exec_module(module):
            load(module)
            _after(module)

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, _AfterImport())
"""


def write_after_import_hook(folder: Path, module: str, after_source: str) -> None:
    """Write ``folder/sitecustomize.py``, which, in every process started with ``folder``
    first on ``PYTHONPATH``, runs ``_after(module_object)`` (defined by ``after_source``,
    with its own imports) once ``module`` has been imported: a test's way into a child's
    code at a chosen moment (a compilation, a close) without a delay to guess."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(
        f"{after_source}\n_WATCHED = {module!r}\n{_AFTER_IMPORT}")
