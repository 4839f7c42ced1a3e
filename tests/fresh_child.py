"""Fresh interpreters on Numba caches of their own, for the checks of what a first run
on a new machine compiles (``tests/test_warmup*.py``). Every wait is bounded."""
from __future__ import annotations

import json
import os
import subprocess
import sys
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
