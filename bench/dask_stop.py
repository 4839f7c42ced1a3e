"""How long a local Dask run takes to end: after Ctrl-C in the middle of the run, and
after a run that finishes, this tree's code against another checkout's, alternating.

    python bench/dask_stop.py --before DIR [--repeats 5] [--out dask_stop.json]

- ``ctrl_c``: ``python -m jitgames.puzzles queens 18 --scheduler local:2 --checkpoint F``
  (about 30 s of work on two cores); Ctrl-C goes to the process group, as a terminal
  sends it, 0.2 s after the checkpoint first holds a finished chunk; the figure is the
  seconds from the signal to the command's exit (status 130 checked);
- ``finished``: ``python -m jitgames.puzzles queens 15 --scheduler local:2``, the whole
  command's wall seconds (start-up, cluster, run and close; status 0 checked).

``--before DIR``: a checkout of the code to compare with (``git worktree add DIR REV``);
each round runs DIR's code then this tree's. Medians and the median of the per-round
ratios are printed and saved to bench/results/ with the machine.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from _harness import machine, save_result  # noqa: E402

WRAPPER = ("import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
           "sys.argv = sys.argv[1:]; runpy.run_module(sys.argv[0], run_name='__main__')")
"""``python -m MODULE ARGS`` with Python's own SIGINT handler, whatever this script's
shell left for SIGINT (a background job inherits "ignore")."""
BOUND = 300.0
"""Seconds any one command may take (it is killed after)."""


def _command(root: Path, args: list[str], **popen) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(root))
    return subprocess.Popen([sys.executable, "-c", WRAPPER, "jitgames.puzzles", *args],
                            cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, **popen)


def _chunks_kept(checkpoint: Path) -> int:
    try:
        return len(json.loads(checkpoint.read_text().splitlines()[-1])["chunks"])
    except (OSError, ValueError, IndexError, KeyError):  # not written yet
        return 0


def ctrl_c_seconds(root: Path) -> float:
    """Seconds from Ctrl-C (mid-run) to the exit of a local:2 queens run of ``root``."""
    with tempfile.TemporaryDirectory() as folder:
        checkpoint = Path(folder) / "queens.ckpt"
        child = _command(root, ["queens", "18", "--scheduler", "local:2", "--checkpoint",
                                str(checkpoint)], start_new_session=True)
        try:
            deadline = time.monotonic() + BOUND
            while not _chunks_kept(checkpoint):
                if child.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"no chunk finished: {child.communicate()}")
                time.sleep(0.05)
            time.sleep(0.2)
            sent = time.monotonic()
            os.killpg(child.pid, signal.SIGINT)
            out, err = child.communicate(timeout=BOUND)
            seconds = time.monotonic() - sent
        finally:
            if child.poll() is None:
                os.killpg(child.pid, signal.SIGKILL)
                child.communicate()
    if child.returncode != 130 or "at least" not in out:
        raise RuntimeError(f"unexpected end: {child.returncode} {out!r} {err!r}")
    return seconds


def finished_seconds(root: Path) -> float:
    """Wall seconds of a whole local:2 queens 15 command of ``root``."""
    start = time.monotonic()
    child = _command(root, ["queens", "15", "--scheduler", "local:2"])
    out, err = child.communicate(timeout=BOUND)
    if child.returncode != 0 or "2279184 solutions" not in out:
        raise RuntimeError(f"unexpected end: {child.returncode} {out!r} {err!r}")
    return time.monotonic() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True,
                        help="a checkout of the code to compare with")
    parser.add_argument("--repeats", type=int, default=5, help="rounds (default 5)")
    parser.add_argument("--out", default="dask_stop.json",
                        help="file name under bench/results/ (default dask_stop.json)")
    args = parser.parse_args(argv)
    if not (args.before / "jitgames" / "__init__.py").exists():
        parser.error(f"--before {args.before}: not a checkout of jitgames")
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    result = {"machine": machine(), "before": str(args.before), "repeats": args.repeats}
    for name, measure in (("ctrl_c", ctrl_c_seconds), ("finished", finished_seconds)):
        before, this = [], []
        for _ in range(args.repeats):
            before.append(measure(args.before))
            this.append(measure(ROOT))
            print(f"{name}: before {before[-1]:.2f} s, this {this[-1]:.2f} s", flush=True)
        result[name] = {"before_seconds": before, "this_seconds": this,
                        "before_median": statistics.median(before),
                        "this_median": statistics.median(this),
                        "ratio_median": statistics.median(t / b for t, b in zip(this, before))}
        row = result[name]
        print(f"{name}: median {row['before_median']:.2f} s before, {row['this_median']:.2f} s "
              f"this ({row['ratio_median']:.3f}x, median of per-round ratios)")
    save_result(ROOT / "bench" / "results" / args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
