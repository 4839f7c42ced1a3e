"""The scripts of ``bench/`` seen from the tests: their bad input checked in a child
process, their functions imported for unit tests. Every wait is bounded."""
from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"


def assert_bad_input_rejected(script: str, words: list[str]) -> None:
    """``python bench/SCRIPT WORDS`` ends with status 2, nothing on standard output and
    one line on standard error that names the script, before any work."""
    run = subprocess.run([sys.executable, str(BENCH / script), *words], capture_output=True,
                         text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 2
    assert run.stdout == ""
    assert len(run.stderr.strip().splitlines()) == 1
    assert run.stderr.startswith(f"{script}: ")


def bench_module(name: str):
    """The module of ``bench/NAME.py``, imported with ``bench/`` on the path only
    while it is imported."""
    sys.path.insert(0, str(BENCH))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(BENCH))
