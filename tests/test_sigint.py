"""Ctrl-C is heard within moments by every long command, and the finished work is kept.

Each command runs in a child process of its own session, started through a wrapper
that installs Python's own SIGINT handler (an inherited "ignore" disposition would
otherwise make the test hang instead of fail). The child gets SIGINT once its long
kernel is running and must exit with status 130 within ``LIMIT`` seconds, printing
what it finished. Every wait is bounded.
"""
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from jitgames import _chunked
from jitgames._interrupt import run_interruptible, stop_flag
from jitgames.solitaire import study

LIMIT = 3.0  # seconds from SIGINT to exit
ROOT = Path(__file__).resolve().parent.parent
WRAPPER = ("import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
           "sys.argv = sys.argv[1:]; runpy.run_module(sys.argv[0], run_name='__main__')")


@contextlib.contextmanager
def ctrl_c_once(event):
    """Inside the block, one Ctrl-C (SIGINT to the main thread, Python's own handler
    installed whatever was inherited) as soon as ``event`` is set, waited for 10 s at
    most; the handler before is restored after."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    main = threading.main_thread().ident
    timer = threading.Timer(0.0, lambda: event.wait(10) and signal.pthread_kill(main,
                                                                              signal.SIGINT))
    try:
        timer.start()
        yield
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)


def interrupt(module, args, delay, stdin=b"", tmp_path=None, warm=None):
    """Run ``python -m module args``, send SIGINT after ``delay`` seconds; returns
    ``(status, stdout, stderr, seconds from SIGINT to exit)``.

    ``warm``: arguments of a short run of the same module made first, to the end, so
    that its kernels are in the cache and the SIGINT reaches the long run's kernel, not
    its first-use compilation (which takes longer than ``delay`` on a busy machine)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT)] + sys.path))
    if tmp_path is not None:
        env["XDG_DATA_HOME"] = str(tmp_path / "data")
    if warm is not None:
        subprocess.run([sys.executable, "-m", module, *warm], env=env, check=True,
                       stdin=subprocess.DEVNULL, capture_output=True, timeout=600)
    child = subprocess.Popen([sys.executable, "-c", WRAPPER, module, *args], env=env,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, start_new_session=True)
    try:
        if stdin:
            child.stdin.write(stdin)
            child.stdin.flush()
        time.sleep(delay)
        assert child.poll() is None, child.communicate(timeout=30)
        sent = time.monotonic()
        os.kill(child.pid, signal.SIGINT)
        out, err = child.communicate(timeout=30)
        return child.returncode, out.decode(), err.decode(), time.monotonic() - sent
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.communicate(timeout=30)


def test_queens_30_stops_at_once_with_a_partial_count():
    status, out, err, seconds = interrupt("jitgames.puzzles", ["queens", "30", "--json"], 6,
                                          warm=["queens", "10", "--json"])
    assert status == 130 and seconds < LIMIT, (status, seconds, err)
    result = json.loads(out)
    assert result["complete"] is False and result["n"] == 30 and result["count"] >= 0


def test_mastermind_evaluate_of_two_million_codes_stops():
    status, out, err, seconds = interrupt(
        "jitgames.mastermind", ["evaluate", "-p", "7", "-k", "8", "--json"], 8)
    assert status == 130 and seconds < LIMIT, (status, seconds, err)
    assert "interrupted" in err and "Traceback" not in err


def test_mastermind_computer_thinking_about_a_hundred_million_codes_stops(tmp_path):
    # the opening of 8 x 10 scans its 10^8 codes twice (jitgames/mastermind/advice.py)
    status, out, err, seconds = interrupt(
        "jitgames.mastermind", ["play", "--role", "maker", "-p", "8", "-k", "10", "--db",
                                str(tmp_path / "mm.sqlite")], 6)
    assert status == 130 and seconds < LIMIT, (status, seconds, err)
    assert "Think of a code" in out and "Traceback" not in err


def test_solitaire_study_on_one_thread_keeps_finished_blocks(tmp_path):
    # The kernels compile first (an empty cache on a fresh machine takes seconds), so
    # that the ten seconds before Ctrl-C are spent solving, not compiling.
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT)] + sys.path))
    warm = subprocess.run([sys.executable, "-m", "jitgames.solitaire", "200", "--threads", "1",
                           "-q"], env=env, capture_output=True, timeout=600)
    assert warm.returncode == 0, warm.stderr.decode()[-2000:]
    checkpoint = tmp_path / "study.ckpt"
    status, out, err, seconds = interrupt(
        "jitgames.solitaire", ["2000000", "--threads", "1", "--chunk-size", "1000000",
                               "--checkpoint", str(checkpoint), "--json"], 10)
    assert status == 130 and seconds < LIMIT, (status, seconds, err)
    result = json.loads(out)
    # About 60,000 deals in the ten seconds here: the first chunk is far from done on
    # a machine many times faster.
    assert result["complete"] is False and 0 < result["deals"] < 1000000
    assert result["deals"] % study.STOP_BLOCK == 0   # whole blocks of the first chunk
    stored = json.loads(_store_payload(checkpoint))
    assert [c[:2] for c in stored["chunks"]] == [[0, result["deals"]]]


def _store_payload(path):
    from jitgames._store import read_checked
    return read_checked(path, _chunked.CHECKPOINT_KIND, _chunked.CHECKPOINT_SCHEMA, "checkpoint")


def test_kalah_solve_stops_with_its_bounds(tmp_path):
    status, out, err, seconds = interrupt(
        "jitgames.kalah", ["solve", "6", "6", "--json", "--no-endgame-files"], 8,
        tmp_path=tmp_path)
    assert status == 130 and seconds < LIMIT, (status, seconds, err)
    assert json.loads(out)["complete"] is False


# ----------------------------------------------------------------------------- in process

def test_stop_flag_is_set_by_ctrl_c_and_partial_results_come_back():
    """A worker that polls the flag hands back what it finished; the wait is bounded."""
    seen = []

    def work():
        flag = stop_flag()
        for step in range(200):
            if flag[0]:
                raise _chunked.PartialChunk(step, {"steps": step})
            seen.append(step)
            if step == 5:
                os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.01)
        return "finished"

    begin = time.monotonic()
    with pytest.raises(_chunked.PartialChunk) as info:
        run_interruptible(work)
    assert time.monotonic() - begin < LIMIT
    assert 5 < info.value.stop < 200 and info.value.partial == {"steps": info.value.stop}
    assert stop_flag()[0] == 0   # the main thread's flag is never set


def test_resuming_a_partly_done_chunk_gives_the_whole_answer(tmp_path, monkeypatch):
    """The solitaire worker stopped after its first block: the checkpoint holds part of
    the chunk, the next run solves only the rest, and the statistics are exact."""
    monkeypatch.setattr(study, "STOP_BLOCK", 10)
    params = {"seed": 3, "shuffle": "fisher-yates", "score_only": False,
              "table_capacity": study.DEFAULT_CAPACITY, "rows": "csv"}
    job = _chunked.ChunkedJob("t", params, tuple(_chunked.split_range(0, 300, 150)),
                              study.study_worker, study.study_validate)
    real = study.solve_chunk_rows
    calls = []

    def stop_after_first_block(seed, start, stop, **kwargs):
        calls.append((start, stop))
        if len(calls) == 2:
            stop_flag()[0] = 1  # as Ctrl-C would, while the second block runs
        return real(seed, start, stop, **kwargs)

    monkeypatch.setattr(study, "solve_chunk_rows", stop_after_first_block)
    path = tmp_path / "t.ckpt"
    cut = _chunked.run_chunks(job, checkpoint=path, quiet=True)
    assert cut.interrupted and cut.chunks_done == [(0, calls[1][1])]
    monkeypatch.setattr(study, "solve_chunk_rows", real)
    calls.clear()
    resumed = _chunked.run_chunks(job, checkpoint=path, quiet=True)
    whole = _chunked.run_chunks(job, quiet=True)
    assert resumed.complete and resumed.resumed_chunks == 1
    assert resumed.chunks_done == [(0, cut.chunks_done[0][1]), (cut.chunks_done[0][1], 150),
                                   (150, 300)]

    def merged(run):
        total = study.empty_partial()
        for result in run.partials:
            total = study.merge(total, study.StudyPartial.from_dict(result["partial"]))
        return total, "".join(result["rows"] for result in run.partials)

    assert merged(resumed) == merged(whole)


def test_poly_sieve_stops_with_its_decided_prefix():
    """A real SIGINT while a sieve kernel runs (it once surfaced inside Numba's
    dispatch as a SystemError and a traceback)."""
    status, out, err, seconds = interrupt(
        "jitgames.primes", ["poly", "1", "1", "41", "--upto", "3000000000", "--json"], 8,
        warm=["poly", "1", "1", "41", "--upto", "100000", "--json"])
    assert status == 130 and seconds < LIMIT, (status, seconds, err)
    result = json.loads(out)
    assert result["complete"] is False and 0 <= result["upto"] < 3 * 10**9
    assert "Traceback" not in err


def test_ctrl_c_as_the_work_starts_still_stops_it():
    """Ctrl-C that lands while the work's thread is being started (the work already
    under way): the kernel's stop flag is set all the same and the work stops at once,
    instead of running on unrecorded after the KeyboardInterrupt."""
    began, steps = threading.Event(), []

    def work():
        flag = stop_flag()
        began.set()
        for step in range(400):  # four seconds unless stopped
            if flag[0]:
                raise _chunked.PartialChunk(step, {"steps": step})
            steps.append(step)
            time.sleep(0.01)
        return "finished"

    with ctrl_c_once(began):
        begin = time.monotonic()
        with pytest.raises((KeyboardInterrupt, _chunked.PartialChunk)):
            run_interruptible(work)
        assert time.monotonic() - begin < LIMIT
    count = len(steps)
    time.sleep(0.2)
    assert len(steps) == count < 400  # stopped, not running on
