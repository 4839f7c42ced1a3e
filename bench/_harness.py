"""Timing helpers shared by the benchmark scripts (run as ``python bench/<name>.py``).

- :func:`timed_runs`: wall and process-CPU seconds of each of repeated calls;
- :func:`median_seconds`: median wall seconds of repeated calls, and the last result;
- :func:`cold_compile_seconds`: seconds a snippet takes in a fresh interpreter with an
  empty Numba cache (a temporary ``NUMBA_CACHE_DIR``, removed afterwards), i.e. the
  compile time a new user pays once;
- :func:`machine`: what the figures were measured on (saved in every result file).
"""
from __future__ import annotations

import datetime
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed_runs(call, repeats: int):
    """``(walls, cpus, result)``: the wall and the process-CPU seconds of each of
    ``repeats`` calls, and the result of the last call.

    CPU seconds count every thread of this process; on a busy shared machine they
    depend much less on the other jobs than wall seconds do.
    """
    walls, cpus, result = [], [], None
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        result = call()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return walls, cpus, result


def median_seconds(call, repeats: int):
    """``(median wall seconds, result of the last call)`` over ``repeats`` calls."""
    walls, _, result = timed_runs(call, repeats)
    return statistics.median(walls), result


def cold_compile_seconds(code: str) -> float:
    """Run ``code`` (which must print its own elapsed seconds last) on an empty cache."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, check=True,
                             capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def machine() -> dict:
    """The processor model, core count, versions, UTC time (now) and load average.

    Figures from different machines differ by up to 2x here, so every result file says
    where it was measured.
    """
    import numba
    import numpy

    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": model, "cpus": os.cpu_count(), "python": platform.python_version(),
            "numpy": numpy.__version__, "numba": numba.__version__,
            "utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"),
            "load_average": list(os.getloadavg())}


def save_result(path, result) -> None:
    """Write ``result`` as indented JSON to ``path`` (directories made) and say so."""
    import json
    from pathlib import Path

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(result, indent=1) + "\n")
    print(f"saved {path}")
