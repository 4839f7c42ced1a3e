"""The line a command prints while kernels compile for first use (jitgames._jit.compile_notice)."""
from __future__ import annotations

import io
import time

import numba

from jitgames._jit import compile_notice


def _fresh_kernel():
    """A kernel never compiled before (no cache), so calling it compiles."""
    def body(x):
        return x * 3 + 1
    return numba.njit(cache=False)(body)


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_one_line_when_compiling(monkeypatch):
    monkeypatch.setenv("JITGAMES_COMPILE_NOTICE", "1")
    out = io.StringIO()
    first, second = _fresh_kernel(), _fresh_kernel()
    with compile_notice("jitgames test", "about 3 s", stream=out):
        assert first(2) == 7
        assert second(2) == 7  # a second compile says nothing more
        assert first(5) == 16  # and a cached call nothing at all
    assert out.getvalue() == ("jitgames test: compiling kernels for first use, about 3 s; "
                              "cached afterwards\n")


def test_silent_when_nothing_compiles(monkeypatch):
    monkeypatch.setenv("JITGAMES_COMPILE_NOTICE", "1")
    kernel = _fresh_kernel()
    kernel(1)
    out = io.StringIO()
    with compile_notice("jitgames test", stream=out):
        assert kernel(4) == 13
    assert out.getvalue() == ""


def test_silent_when_quiet_or_not_a_terminal(monkeypatch):
    monkeypatch.delenv("JITGAMES_COMPILE_NOTICE", raising=False)
    for quiet, stream in ((False, io.StringIO()), (True, _Terminal())):
        with compile_notice("jitgames test", quiet=quiet, stream=stream):
            _fresh_kernel()(1)
        assert stream.getvalue() == ""


def test_a_terminal_sees_the_seconds_tick_and_the_line_cleared(monkeypatch):
    monkeypatch.delenv("JITGAMES_COMPILE_NOTICE", raising=False)
    out = _Terminal()

    def slow(x):  # a long body compiles for long enough to tick at least once
        total = 0
        for i in range(x):
            total += (i * 7) % 5 if i % 3 else i // 2
        return total

    kernels = [numba.njit(cache=False)(slow) for _ in range(3)]
    begin = time.perf_counter()
    with compile_notice("jitgames test", stream=out):
        for kernel in kernels:
            kernel(10)
        while time.perf_counter() - begin < 0.6:  # keep compiling until a tick is due
            numba.njit(cache=False)(slow)(10)
    text = out.getvalue()
    assert text.startswith("jitgames test: compiling kernels for first use")
    assert "\r  compiling ... " in text
    assert text.endswith("\r" + " " * 30 + "\r")  # cleared for what follows


IMPORT_EVERYTHING = """
import importlib, pkgutil
from jitgames._compiled import compiled_names
with compiled_names(qualified=True) as compiled:
    import jitgames
    for module in pkgutil.walk_packages(jitgames.__path__, "jitgames."):
        importlib.import_module(module.name)
print(len(compiled), compiled[:10])
"""


def test_importing_every_module_compiles_nothing(tmp_path):
    """Kernels compile on first call only: a command compiles what it uses, not what
    the modules it imports define (an empty cache, so a compile would show)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path),
               PYTHONPATH=os.pathsep.join([str(root)] + sys.path))
    done = subprocess.run([sys.executable, "-c", IMPORT_EVERYTHING], env=env, cwd=root,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("0 []"), done.stdout
