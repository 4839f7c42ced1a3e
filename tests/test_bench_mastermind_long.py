"""bench/mastermind_long.py keeps its session's record when it is stopped itself.

SIGTERM or Ctrl-C to the script (not only its budget running out) stops the optimal
search the same way -- SIGTERM to the command, which keeps its finished jobs and prints
its partial result -- and the session is recorded. Every wait is bounded.
"""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "bench" / "mastermind_long.py"
BOUND = 150
"""Seconds the script may take to end after the signal: the command's own grace (60 s)
and a first-use compilation it may be in."""


def _left_running(folder: Path) -> list[str]:
    """Processes whose command line names ``folder`` (the command's checkpoint)."""
    return subprocess.run(["pgrep", "-f", str(folder)], capture_output=True, text=True,
                          timeout=30).stdout.split()


def _command_handles_sigterm(folder: Path) -> bool:
    """Whether the command (``python -m jitgames.mastermind optimal``, named by its
    checkpoint under ``folder``; not the script) has its SIGTERM handler in place (the
    signal's bit in ``SigCgt`` of ``/proc/PID/status``): before that, while Python
    imports, SIGTERM would simply kill it."""
    for pid in _left_running(folder):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        caught = next((line.split()[1] for line in status.splitlines()
                       if line.startswith("SigCgt:")), "0")
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"jitgames.mastermind\0optimal\0" in command \
                and int(caught, 16) >> (signal.SIGTERM - 1) & 1:
            return True
    return False


def _wait_for_the_search(script: subprocess.Popen, folder: Path) -> None:
    deadline = time.monotonic() + 120
    while not _command_handles_sigterm(folder) and time.monotonic() < deadline:
        assert script.poll() is None, script.communicate(timeout=30)
        time.sleep(0.1)
    assert _command_handles_sigterm(folder), "the command did not start within 2 minutes"
    time.sleep(1.0)  # well into its run (or its first-use compilation)


def _end(script: subprocess.Popen, folder: Path) -> None:
    """Kill what is left of a failed check: the script and the command, which runs in a
    session of its own."""
    if script.poll() is None:
        os.killpg(script.pid, signal.SIGKILL)
        script.communicate(timeout=30)
    for pid in _left_running(folder):
        os.kill(int(pid), signal.SIGKILL)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_session_is_recorded(tmp_path, signum):
    results = tmp_path / "long.json"
    checkpoint = tmp_path / "5x6.ckpt"
    script = subprocess.Popen(
        [sys.executable, str(SCRIPT), "5x6", "--budget", "3600", "--threads", "1",
         "--checkpoint", str(checkpoint), "--results", str(results), "--no-tree",
         "--note", "test"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True, env={**os.environ, "JITGAMES_WARM_UP": "0"},
        # SIGINT ignored, as a shell leaves it for a job started in the background:
        # the script must hear it all the same
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        _wait_for_the_search(script, tmp_path)
        sent = time.monotonic()
        os.kill(script.pid, signum)
        out, err = script.communicate(timeout=BOUND)
        assert time.monotonic() - sent < BOUND
    finally:
        _end(script, tmp_path)
    assert script.returncode == 0, err
    assert "Traceback" not in err, err
    assert out.startswith("saved "), out
    assert "run again to resume" in out, out
    record = json.loads(results.read_text())["5x6"]
    (run,) = record["runs"]
    assert run["checkpoint"] == str(checkpoint)
    (session,) = run["sessions"]
    assert session["status"] == 143  # the command was stopped by SIGTERM, as at the budget
    assert session["note"] == "test"
    assert session["result"]["complete"] is False
    assert session["wall_seconds"] < 120 + BOUND


def test_no_process_is_left_behind_after_a_stop(tmp_path):
    """The command runs in a session of its own (so a terminal's Ctrl-C reaches it only
    through the script): once the script has ended, nothing of it runs on."""
    script = subprocess.Popen(
        [sys.executable, str(SCRIPT), "5x6", "--budget", "3600", "--threads", "1",
         "--checkpoint", str(tmp_path / "c.ckpt"), "--results", str(tmp_path / "r.json"),
         "--no-tree"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True, env={**os.environ, "JITGAMES_WARM_UP": "0"})
    try:
        _wait_for_the_search(script, tmp_path)
        os.kill(script.pid, signal.SIGTERM)
        script.communicate(timeout=BOUND)
        left = _left_running(tmp_path)
    finally:
        _end(script, tmp_path)
    assert left == []
