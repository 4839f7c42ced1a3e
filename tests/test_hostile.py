"""A hostile machine: endless and huge inputs, full disks, special files, forged files, SIGTERM.

Each test reproduces one fault of issue 31 (small limits through parameters, a full
disk through an ``ENOSPC`` raised in the write path or ``/dev/full``, FIFOs made with
``os.mkfifo``) and checks the one-line refusal, the kept result or the rebuilt table.
Every wait is bounded (:func:`within`, subprocess timeouts).
"""
import argparse
import errno
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from jitgames import _chunked, _cli, _store
from jitgames.errors import InputError
from jitgames.kalah import endgame
from jitgames.kalah.__main__ import main as kalah_main
from jitgames.kalah.rules import VARIANTS
from jitgames.mastermind.__main__ import main as mastermind_main
from jitgames.solitaire.__main__ import main as solitaire_main
from tests.fresh_child import write_after_import_hook
from tests.test_store import SCHEMA

ROOT = Path(__file__).resolve().parents[1]
EMPTY_CAPTURE = VARIANTS["empty-capture"]


def within(seconds, work):
    """``work()`` run in a thread, failing the test if it takes over ``seconds``
    (a hang is reported, not waited for)."""
    outcome = []

    def run():
        try:
            outcome.append((True, work()))
        except BaseException as exc:  # handed back to the test
            outcome.append((False, exc))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert outcome, f"still running after {seconds} s (a hang)"
    ok, value = outcome[0]
    if not ok:
        raise value
    return value


def one_line_refusal(status, capsys, *words, limit=700):
    """The command ended with status 2 and one short line on stderr holding ``words``."""
    out, err = capsys.readouterr()
    assert status == 2, (status, err)
    assert err.count("\n") == 1 and len(err) < limit and "Traceback" not in err, err[:2000]
    for word in words:
        assert word in err, err
    return err


def no_space(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


# ----------------------------------------------------------------------------- endless, huge

@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_bounded_reads_refuse_special_files(tmp_path, special):
    if special == "fifo":
        special = tmp_path / "pipe"
        os.mkfifo(special)  # no writer: a blocking open would wait for ever
    with pytest.raises(_store.StoreError, match="not a regular file"):
        within(5, lambda: _store.read_limited(special, "deal file", 1000))


def test_bounded_reads_refuse_large_files(tmp_path):
    path = tmp_path / "big"
    path.write_bytes(b"x" * 1001)
    with pytest.raises(_store.StoreError, match="larger than 1,000 bytes"):
        _store.read_limited(path, "tree file", 1000)
    assert _store.read_limited(path, "tree file", 1001) == b"x" * 1001


@pytest.mark.parametrize("argv", [["evaluate", "--tree", "/dev/zero"],
                                  ["evaluate", "--tree", "FIFO"]])
def test_mastermind_tree_from_a_device_or_fifo(tmp_path, capsys, argv):
    fifo = tmp_path / "tree.json"
    os.mkfifo(fifo)
    argv = [str(fifo) if a == "FIFO" else a for a in argv]
    status = within(20, lambda: mastermind_main(argv))
    one_line_refusal(status, capsys, "not a regular file")


def test_solitaire_deal_file_from_a_device(capsys):
    status = within(20, lambda: solitaire_main(["--deal-file", "/dev/zero"]))
    one_line_refusal(status, capsys, "/dev/zero", "not a regular file")


def test_header_claiming_huge_length(tmp_path):
    path = tmp_path / "x.ckpt"
    path.write_bytes(json.dumps({"kind": "k", "schema": 1, "bytes": 10**20,
                                 "sha256": "0" * 64}).encode() + b"\n{}")
    with pytest.raises(_store.StoreError, match="where the header says 100000000000000000000"):
        _store.read_checked(path, "k", 1, "checkpoint")


def test_json_nested_too_deeply(tmp_path, capsys):
    with pytest.raises(ValueError, match="nested too deeply"):
        _store.load_json(b"[" * 100_000 + b"]" * 100_000)
    header = tmp_path / "deep-header"
    header.write_bytes(b"[" * 4000 + b"\n")
    with pytest.raises(_store.StoreError, match="no valid header"):
        _store.read_checked(header, "k", 1, "checkpoint")
    tree = tmp_path / "tree.json"
    tree.write_text("[" * 100_000 + "]" * 100_000)
    one_line_refusal(mastermind_main(["evaluate", "--tree", str(tree)]), capsys,
                     "nested too deeply")


def test_checkpoint_nested_too_deeply(tmp_path):
    path = tmp_path / "deep.ckpt"
    _store.write_checked(path, _chunked.CHECKPOINT_KIND, _chunked.CHECKPOINT_SCHEMA,
                         b"[" * 100_000 + b"]" * 100_000)
    job = _chunked.ChunkedJob("t", {}, ((0, 1),), None, None)
    with pytest.raises(_store.StoreError, match="nested too deeply"):
        _chunked.Checkpoint.open(path, job)


def test_huge_input_is_not_echoed(capsys):
    huge = "7" * 2_000_000 + "x"
    with pytest.raises(InputError) as caught:
        _cli.parse_int(huge)
    assert len(str(caught.value)) < 150 and "2,000,003 chars" in str(caught.value)
    with pytest.raises(argparse.ArgumentTypeError) as caught:
        _cli.int_in_range(1, 9)(huge)
    assert len(str(caught.value)) < 150

    def body(argv):  # any message, however it was built, is cut to one short line
        raise InputError("bad guess " + huge)

    one_line_refusal(_cli.run_cli(body, [], prog="python -m jitgames.test"), capsys,
                     "bad guess 777", limit=_cli.MESSAGE_LIMIT + 40)


def test_mastermind_huge_guess_in_an_error(capsys):
    status = mastermind_main(["evaluate", "--first", "1" * 5_000_000])
    one_line_refusal(status, capsys)


def _chain_tree(length):
    """A tree of Mastermind with 1 peg and 2 colours guessing "1" ``length`` times in
    a row (each guess tells nothing new about the secret "2"), then "2": valid, but a
    walk as long as its chain."""
    node = {"guess": "2"}
    for _ in range(length):
        node = {"guess": "1", "next": {"0,0": node}}
    return {"pegs": 1, "colours": 2, "repeats": True, "tree": node}


def test_tree_check_is_bounded():
    from jitgames.mastermind.tree import MAX_TREE_DEPTH, check_tree

    assert check_tree(_chain_tree(10)).total == 1 + 11
    with pytest.raises(InputError, match="too deep or too long"):
        check_tree(_chain_tree(MAX_TREE_DEPTH + 1))
    with pytest.raises(InputError, match="too deep or too long"):
        check_tree(_chain_tree(10), max_walk=5)


def test_play_prompts_refuse_long_numbers():
    from jitgames.kalah.play import parse_move
    from jitgames.mastermind.play import parse_answer
    from jitgames.solitaire.play import parse_deal

    board = np.array([3, 3, 3, 0, 3, 3, 3, 0], dtype=np.int8)
    for text in ("9" * 5000, "x" * 10_000_000):
        with pytest.raises(InputError) as caught:
            parse_move(text, board, 0)
        assert len(str(caught.value)) < 150
    with pytest.raises(InputError):
        parse_answer("1" * 5000 + " 0", 4)
    for deal in ("² " * 52, ("1" * 5000 + " ") * 52):
        with pytest.raises(InputError):
            parse_deal(deal)


def test_local_workers_capped():
    most = _chunked.max_local_workers()
    assert _chunked.scheduler_address(f"local:{most}") == f"local:{most}"
    for spec in ("local:1024", f"local:{most + 1}", "local:10^4000"):
        with pytest.raises(argparse.ArgumentTypeError, match=f"at most {most}"):
            _chunked.scheduler_address(spec)


# ----------------------------------------------------------------------------- full disk

def test_full_disk_is_one_line_and_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "t.ckpt"
    _store.write_checked(path, "k", 1, b"old")
    before = path.read_bytes()
    monkeypatch.setattr(_store.os, "fsync", no_space)
    with pytest.raises(_store.StoreError, match="cannot write .*t.ckpt: No space left"):
        _store.write_checked(path, "k", 1, b"new")
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["t.ckpt"]  # no temporary file left
    with pytest.raises(_store.StoreError, match="No space left"):
        _store.atomic_write_bytes("/dev/full", b"x")  # a device written into


def test_checkpoint_on_a_full_disk_lets_the_run_go_on(tmp_path, monkeypatch, capsys):
    job = _chunked.ChunkedJob("t", {}, ((0, 1),), None, None)
    checkpoint = _chunked.Checkpoint.open(tmp_path / "c.ckpt", job)
    monkeypatch.setattr(_store.os, "fsync", no_space)
    checkpoint.record((0, 1), 5)
    checkpoint.flush()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "checkpoint not saved" in err and "c.ckpt" in err


def test_picture_on_a_full_disk_keeps_the_old_picture(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = tmp_path / "p.png"
    fig = plt.figure(figsize=(1, 1))
    _store.save_figure(fig, path)
    before = path.read_bytes()
    assert before.startswith(b"\x89PNG")
    monkeypatch.setattr(_store.os, "fsync", no_space)
    with pytest.raises(_store.StoreError, match="No space left"):
        _store.save_figure(fig, path)
    plt.close(fig)
    assert path.read_bytes() == before


def test_kalah_table_on_a_full_disk(tmp_path, monkeypatch, capsys):
    binom = endgame.binomials(6 + 4, 5)
    monkeypatch.setattr(_store.os, "fsync", no_space)
    db, how = endgame.endgame_database(2, 6, EMPTY_CAPTURE, binom, tmp_path)
    assert how == "built" and db.size == endgame.table_size(2, 6)
    assert "endgame table not saved" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_kalah_solve_prints_its_value_on_a_full_disk(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(_store.os, "fsync", no_space)
    status = kalah_main(["solve", "2", "2", "--endgame-dir", str(tmp_path)])
    out, err = capsys.readouterr()
    assert status == 0 and "value" in out and "endgame table not saved" in err


# ----------------------------------------------------------------------------- special files

def test_fifo_as_checkpoint_does_not_hang(tmp_path):
    fifo = tmp_path / "c.ckpt"
    os.mkfifo(fifo)
    job = _chunked.ChunkedJob("t", {}, ((0, 1),), None, None)
    with pytest.raises(_store.StoreError, match="not a regular file"):
        within(5, lambda: _chunked.Checkpoint.open(fifo, job))
    with pytest.raises(_store.StoreError, match="FIFO"):
        within(5, lambda: _store.write_checked(fifo, "k", 1, b"x"))


@pytest.mark.parametrize("planted", ["fifo", "huge header"])
def test_special_or_huge_file_in_the_endgame_folder(tmp_path, capsys, planted):
    path = endgame.database_file(tmp_path, 2, EMPTY_CAPTURE, 6)
    if planted == "fifo":
        os.mkfifo(path)
    else:
        path.write_bytes(json.dumps({"kind": endgame.TABLE_KIND, "schema": 1,
                                     "bytes": 10**20, "sha256": "0"}).encode() + b"\n")
    binom = endgame.binomials(6 + 4, 5)
    db, how = within(60, lambda: endgame.endgame_database(2, 6, EMPTY_CAPTURE, binom,
                                                          tmp_path))
    assert how == "built" and db.size == endgame.table_size(2, 6)
    err = capsys.readouterr().err
    if planted == "fifo":
        assert "not a regular file" in err and "not saved" in err
    else:  # rebuilt and saved over it: later solves load it
        assert "where the header says" in err and "building it again" in err
        assert endgame.endgame_database(2, 6, EMPTY_CAPTURE, binom, tmp_path)[1] == "loaded"


@pytest.mark.parametrize("damage", ["nested", "huge header", "fifo", "rows"])
def test_malformed_pending_file_is_moved_aside(tmp_path, capsys, damage):
    path = tmp_path / "r.sqlite"
    _store.open_records(path, "unused", SCHEMA).close()
    bad = tmp_path / "r.sqlite.pending-1-2-abc.json"
    if damage == "nested":
        _store.write_checked(bad, _store.PENDING_KIND, _store.PENDING_SCHEMA,
                             b"[" * 100_000 + b"]" * 100_000)
    elif damage == "huge header":
        bad.write_bytes(json.dumps({"kind": _store.PENDING_KIND, "schema": 1,
                                    "bytes": 10**20, "sha256": "0"}).encode() + b"\n")
    elif damage == "fifo":
        os.mkfifo(bad)
    else:
        _store.write_checked(bad, _store.PENDING_KIND, _store.PENDING_SCHEMA, json.dumps(
            {"application_id": SCHEMA.application_id, "version": SCHEMA.version,
             "operations": [{"table": "games", "columns": ["player", "score"],
                             "rows": [[["nested"], {"a": 1}]]}]}).encode())
    def rows():
        with _store.open_records(path, "unused", SCHEMA) as records:
            return records.con.execute("SELECT COUNT(*) FROM games").fetchone()

    for _ in range(2):  # the second open finds nothing left to complain about
        assert within(10, rows) == (0,)
    err = capsys.readouterr().err
    assert err.count("moved aside") == 1 and "Traceback" not in err
    assert not bad.exists() and bad.with_name(bad.name + _store.QUARANTINE_SUFFIX).exists()


def test_database_on_a_device_is_refused(capsys):
    with pytest.raises(_store.StoreError, match="character device"):
        _store.open_records("/dev/null", "unused", SCHEMA)
    assert not os.path.exists("/dev/null-journal")


def test_out_dash_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for write in (_store.check_writable, lambda p: _store.atomic_write_text(p, "x"),
                  lambda p: _store.write_checked(p, "k", 1, b"x")):
        with pytest.raises(_store.StoreError, match="/dev/stdout"):
            write("-")
    status = solitaire_main(["10", "--out", "-", "-q"])
    one_line_refusal(status, capsys, "/dev/stdout")
    assert not os.path.exists("-")


# ----------------------------------------------------------------------------- forgery

def _forge_table(path, change):
    payload = _store.read_checked(path, endgame.TABLE_KIND, endgame.TABLE_SCHEMA, "table")
    db = np.load(io.BytesIO(payload))
    buffer = io.BytesIO()
    np.save(buffer, change(db))
    _store.write_checked(path, endgame.TABLE_KIND, endgame.TABLE_SCHEMA, buffer.getvalue())


@pytest.mark.parametrize("change", ["negated", "shuffled"])
def test_forged_kalah_table_is_rebuilt(tmp_path, capsys, change):
    binom = endgame.binomials(8 + 6, 7)
    honest, _ = endgame.endgame_database(3, 8, EMPTY_CAPTURE, binom, tmp_path)
    path = endgame.database_file(tmp_path, 3, EMPTY_CAPTURE, 8)
    rng = np.random.default_rng(1)

    def shuffled(db):  # within each level, so every invariant of check_entries holds
        out = db.copy()
        bounds = [0] + [endgame.table_size(3, s) for s in range(9)]
        for a, b in zip(bounds[:-1], bounds[1:]):
            out[a:b] = rng.permutation(db[a:b])
        return out

    _forge_table(path, (lambda db: -db) if change == "negated" else shuffled)
    endgame.check_entries(np.load(io.BytesIO(_store.read_checked(
        path, endgame.TABLE_KIND, endgame.TABLE_SCHEMA, "t"))), 3, 8)  # bytes look fine
    capsys.readouterr()
    db, how = endgame.endgame_database(3, 8, EMPTY_CAPTURE, binom, tmp_path)
    assert how == "built" and np.array_equal(db, honest)
    assert "the table was altered" in capsys.readouterr().err


def test_kalah_solve_with_a_negated_table(tmp_path, capsys):
    argv = ["solve", "4", "3", "--endgame-stones", "12", "--endgame-dir", str(tmp_path)]
    assert kalah_main(argv) == 0
    assert "value +8" in capsys.readouterr().out
    _forge_table(endgame.database_file(tmp_path, 4, EMPTY_CAPTURE, 12), lambda db: -db)
    assert kalah_main(argv) == 0
    out, err = capsys.readouterr()
    assert "value +8" in out and "the table was altered" in err


def test_queens_count_bounded_by_its_tasks():
    from jitgames.puzzles.queens_classes import chunk_validate

    chunk_validate({"n": 8}, 0, 1, [1, 2, 3])
    with pytest.raises(ValueError, match="in \\[0, 40320\\]"):
        chunk_validate({"n": 8}, 0, 1, [int("9" * 4001), 0, 0])


# ----------------------------------------------------------------------------- SIGTERM

CHILD = """
import sys, time
from jitgames import _cli
from jitgames._interrupt import run_interruptible, stop_flag

def body(argv):
    done = 0
    def work():
        nonlocal done
        flag = stop_flag()
        while not flag[0]:
            done += 1
            time.sleep(0.01)
        raise KeyboardInterrupt
    print("started", flush=True)
    try:
        run_interruptible(work)
    except KeyboardInterrupt:
        print(f"partial {done}", flush=True)
        return _cli.exit_status(False)
    return 0

sys.exit(_cli.run_cli(body, [], prog="python -m jitgames.test"))
"""


def test_sigterm_acts_as_ctrl_c(tmp_path):
    child = subprocess.Popen([sys.executable, "-c", CHILD], cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == "started\n"  # bounded: the child runs on its own
        time.sleep(0.3)
        child.send_signal(signal.SIGTERM)
        out, err = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=30)
    assert child.returncode == _cli.EXIT_TERMINATED, err
    assert out.startswith("partial ") and int(out.split()[1]) > 0
    assert "Traceback" not in err


def test_sigterm_keeps_a_checkpoint(tmp_path):
    """A real long run (a solitaire study of 10^6 deals, 100 a chunk) stopped by SIGTERM
    once its checkpoint is on disk: status 143, partial result, checkpoint kept."""
    path = tmp_path / "run.ckpt"
    argv = [sys.executable, "-m", "jitgames.solitaire", "1000000", "--chunk-size", "100",
            "--checkpoint", str(path), "--json", "-q"]
    child = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    try:
        deadline = time.monotonic() + 120
        while not path.exists() and time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.1)
        assert path.exists(), "no chunk finished"
        child.send_signal(signal.SIGTERM)
        out, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=30)
    assert child.returncode == _cli.EXIT_TERMINATED, err
    result = json.loads(out)
    assert result["complete"] is False and 0 < result["deals"] < 10**6
    assert _store.read_checked(path, _chunked.CHECKPOINT_KIND, _chunked.CHECKPOINT_SCHEMA,
                               "checkpoint")


# ----------------------------------------------------------------------------- first-run Ctrl-C

WRAPPER = ("import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
           "sys.argv = sys.argv[1:]; runpy.run_module(sys.argv[0], run_name='__main__')")
"""``python -m MODULE ARGS`` with Python's own SIGINT handler, whatever the shell that
started the tests did with SIGINT (an inherited "ignore" would make a test pass or hang
for the wrong reason)."""


def _stopped(argv, signum, env, after, session=False, wait_for=None):
    """Run ``python -m argv`` (as its own program), wait for ``wait_for(child)`` to be true
    or for the first line on stderr, then ``after`` seconds, send ``signum`` (to the
    whole process group with ``session``, as a terminal does); returns (status, stdout,
    stderr after the first line, seconds from the signal to the exit). Bounded."""
    import select

    child = subprocess.Popen([sys.executable, "-c", WRAPPER, *argv], cwd=ROOT, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
    try:
        first = ""
        deadline = time.monotonic() + 180
        if wait_for is None:
            ready, _, _ = select.select([child.stderr], [], [], 180)
            assert ready, "nothing on stderr in 180 s"
            first = child.stderr.readline()
        else:
            while (child.poll() is None and time.monotonic() < deadline
                   and not wait_for(child)):
                time.sleep(0.1)
            assert child.poll() is None and wait_for(child), child.communicate(timeout=30)
        time.sleep(after)
        assert child.poll() is None, child.communicate(timeout=30)
        sent = time.monotonic()
        if session:
            os.killpg(child.pid, signum)
        else:
            child.send_signal(signum)
        out, err = child.communicate(timeout=60)
        return child.returncode, out, err, time.monotonic() - sent, first
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.communicate(timeout=30)


HOLD_A_COMPILATION = r"""
import os, threading, time


def _after(interrupt_module):
    # Once the command watches Numba's compile events (its own listener registered
    # first), hold the first compilation that starts in the thread asked for: write the
    # mark (named by the process, holding the thread's name), then stay inside it, as a
    # long LLVM run would (short sleeps: signal handlers run in the main thread
    # meanwhile). The test's signal lands there.
    watch = interrupt_module._watch_compilations
    which = os.environ["JITGAMES_TEST_HOLD_THREAD"]

    def watched():
        compilations = watch()
        from numba.core import event

        class Hold(event.Listener):
            held = False

            def on_start(self, started):
                main = threading.current_thread() is threading.main_thread()
                if Hold.held or (which == "worker" and main):
                    return
                Hold.held = True
                mark = os.path.join(os.environ["JITGAMES_TEST_HOLD_DIR"], str(os.getpid()))
                with open(mark, "w") as out:
                    out.write(threading.current_thread().name)
                for _ in range(6000):
                    time.sleep(0.01)

            def on_end(self, ended):
                pass

        if not getattr(watched, "registered", False):
            watched.registered = True
            event.register("numba:compile", Hold())
        return compilations

    interrupt_module._watch_compilations = watched
"""


@pytest.mark.slow
@pytest.mark.parametrize("argv, signum, status, thread", [
    (["jitgames.kalah", "solve", "4", "3"], signal.SIGINT, 130, "worker"),
    (["jitgames.mastermind", "evaluate", "--json"], signal.SIGTERM, 143, "any")])
def test_first_run_ctrl_c_stops_within_seconds(tmp_path, argv, signum, status, thread):
    """On an empty Numba cache, Ctrl-C (SIGTERM) while a kernel compiles (kalah: in the
    solver's thread; mastermind: the first compilation, wherever it is): the process
    ends within seconds (it waited 8-16 s for the compiler, and a KeyboardInterrupt
    inside Numba ended in ``RuntimeError: no compiled object yet``), with its status and
    one line, and with ``--json`` one JSON object. A ``sitecustomize`` of the test's holds
    that compilation open and marks it, so that the signal lands inside it on any
    machine (a fixed delay after the notice landed after the compilations on a fast one)."""
    hook = tmp_path / "hook"
    write_after_import_hook(hook, "jitgames._interrupt", HOLD_A_COMPILATION)
    marks = tmp_path / "compiling"
    marks.mkdir()
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), JITGAMES_COMPILE_NOTICE="1",
               XDG_DATA_HOME=str(tmp_path / "data"),  # no endgame table of an earlier run
               JITGAMES_TEST_HOLD_DIR=str(marks), JITGAMES_TEST_HOLD_THREAD=thread)
    env["PYTHONPATH"] = os.pathsep.join([str(hook), str(ROOT), env.get("PYTHONPATH", "")])
    held = []

    def compiling(child):  # the command itself, not a compiling helper of its
        mark = marks / str(child.pid)
        if mark.exists():
            held.append(mark.read_text())
        return bool(held)

    code, out, err, seconds, _ = _stopped(argv, signum, env, after=0.2, wait_for=compiling)
    assert thread == "any" or held[0] != "MainThread", held
    assert "compiling kernels for first use" in err.splitlines()[0], err
    assert code == status and seconds < 5, (code, seconds, err)
    lines = err.splitlines()[1:]  # after the notice
    assert len(lines) == 1 and "Traceback" not in err, err
    if "--json" in argv:
        assert json.loads(out)["complete"] is False


def _local_workers(child):
    """The local Dask cluster's worker processes below ``child`` (psutil processes; a
    process a worker forks shows the worker's command line until it execs, and is
    counted too)."""
    import psutil  # distributed's own dependency

    found = []
    for process in psutil.Process(child.pid).children(recursive=True):
        try:
            if "spawn_main" in " ".join(process.cmdline()):
                found.append(process)
        except psutil.Error:  # ended meanwhile (a zombie has no command line)
            pass
    return found


def _note_workers(child, seen):
    """Add to ``seen`` the local workers of ``child`` not in it yet (workers ended since
    stay in it)."""
    known = {process.pid for process in seen}
    seen += [process for process in _local_workers(child) if process.pid not in known]


def _all_ended(processes, seconds=5.0):
    """True once none of ``processes`` runs (zombies count as ended), within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(_running(process) for process in processes):
            return True
        time.sleep(0.1)
    return False


def _running(process) -> bool:
    import psutil

    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@pytest.mark.slow
def test_ctrl_c_on_a_local_dask_run_prints_no_worker_tracebacks(tmp_path):
    """Ctrl-C at a terminal reaches the whole process group, the local cluster's worker
    processes included: none of them prints a traceback (they printed one each), and
    the run ends within seconds (its workers are ended, not waited for) with its partial
    result and status 130. The Ctrl-C comes once the checkpoint holds a finished chunk
    of 64 (about 30 s of work on two cores), so it lands in the run on any machine."""
    checkpoint = tmp_path / "queens.ckpt"
    workers = []

    def running(child):
        _note_workers(child, workers)
        try:
            chunks = json.loads(checkpoint.read_text().splitlines()[-1])["chunks"]
        except (OSError, ValueError, IndexError, KeyError):  # not written yet
            return False
        return len(chunks) >= 1

    argv = ["jitgames.puzzles", "queens", "18", "--scheduler", "local:2", "--checkpoint",
            str(checkpoint)]
    code, out, err, seconds, _ = _stopped(argv, signal.SIGINT, dict(os.environ), after=0.2,
                                          session=True, wait_for=running)
    assert code == 130, (code, out, err)
    assert out.startswith("18 queens: at least ") and " of 64 chunks" in out, out
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err.count("\n") == 1, err
    assert seconds < 10
    assert len(workers) >= 2 and _all_ended(workers), "a worker process outlived the command"


PAUSE_IN_CLUSTER_CLOSE = r"""
import asyncio, os


def _after(spec_module):
    # When the command closes its local cluster: write the mark, then hold the close
    # in the cluster's event loop (the command's main thread waits in Dask's close,
    # where the test's Ctrl-C lands), before closing as Dask does.
    original = spec_module.SpecCluster._close

    async def _close(self):
        open(os.environ["JITGAMES_TEST_CLOSE_MARK"], "w").close()
        await asyncio.sleep(30)
        return await original(self)

    spec_module.SpecCluster._close = _close
"""


@pytest.mark.slow
def test_ctrl_c_while_the_local_cluster_closes_keeps_the_finished_result(tmp_path):
    """Ctrl-C after the run has finished, while its local cluster closes: the complete
    result is printed (it was lost: the interrupt left the close before the result was
    printed) and the command ends within seconds (it waited out Dask's 10 s timeout at
    exit on the half-closed cluster), its workers ended. The close is held open by a
    ``sitecustomize`` of the test's, which marks the moment, so the Ctrl-C lands there
    whatever the machine's speed."""
    hook = tmp_path / "hook"
    write_after_import_hook(hook, "distributed.deploy.spec", PAUSE_IN_CLUSTER_CLOSE)
    mark = tmp_path / "closing"
    env = dict(os.environ, JITGAMES_TEST_CLOSE_MARK=str(mark))
    env["PYTHONPATH"] = os.pathsep.join([str(hook), str(ROOT), env.get("PYTHONPATH", "")])
    workers = []

    def closing(child):
        _note_workers(child, workers)
        return mark.exists()

    argv = ["jitgames.puzzles", "queens", "12", "--scheduler", "local:2"]
    code, out, err, seconds, _ = _stopped(argv, signal.SIGINT, env, after=0.2,
                                          session=True, wait_for=closing)
    assert len(workers) >= 2, workers
    assert code == 0, (code, out, err)
    assert out.startswith("12 queens: 14200 solutions, 1787 up to symmetry ("), out
    assert "64 of 64 chunks" in out
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert seconds < 5, seconds
    assert _all_ended(workers), "a worker process outlived the command"


# ----------------------------------------------------------------------------- planted links

def test_link_planted_in_a_shared_folder_is_not_followed(tmp_path, monkeypatch):
    """A link in a sticky world-writable folder, owned by another user than the one
    writing and than the folder's owner, is refused (as Linux's protected_symlinks
    would refuse it); the file it points to is untouched. The other owner is simulated
    (the test need not run as root)."""
    shared = tmp_path / "tmp"
    shared.mkdir()
    shared.chmod(0o1777)
    victim = tmp_path / "victim"
    victim.write_text("theirs")
    link = shared / "out.csv"
    link.symlink_to(victim)
    real_lstat = os.lstat

    def lstat(path, *args, **kwargs):  # the link belongs to somebody else
        result = real_lstat(path, *args, **kwargs)
        if os.fspath(path) == os.fspath(link):
            fields = list(result)
            fields[4] = result.st_uid + 4242
            return os.stat_result(fields)
        return result

    monkeypatch.setattr(_store.os, "lstat", lstat)
    for write in (_store.check_writable, lambda p: _store.atomic_write_text(p, "mine")):
        with pytest.raises(_store.StoreError, match="owned by another user"):
            write(link)
    assert victim.read_text() == "theirs" and link.is_symlink()
    monkeypatch.setattr(_store.os, "lstat", real_lstat)  # the user's own link: followed
    _store.atomic_write_text(link, "mine")
    assert victim.read_text() == "mine" and link.is_symlink()


def _owned_by_another(monkeypatch, *links):
    """``os.lstat`` reports ``links`` as owned by another user (no root needed)."""
    real_lstat = os.lstat
    names = {os.fspath(link) for link in links}

    def lstat(path, *args, **kwargs):
        result = real_lstat(path, *args, **kwargs)
        if os.fspath(path) in names:
            fields = list(result)
            fields[4] = result.st_uid + 4242
            return os.stat_result(fields)
        return result

    monkeypatch.setattr(_store.os, "lstat", lstat)


def _shared_folder(tmp_path):
    shared = tmp_path / "tmp"
    shared.mkdir()
    shared.chmod(0o1777)
    elsewhere = tmp_path / "theirs"
    elsewhere.mkdir()
    (elsewhere / "out.csv").write_text("theirs")
    (shared / "d").symlink_to(elsewhere)  # a planted link to a folder
    return shared, elsewhere


def test_planted_link_to_a_folder_is_not_followed(tmp_path, monkeypatch):
    """``--out /tmp/d/out.csv`` with ``/tmp/d`` a folder link planted by another user:
    refused (the kernel's rule covers every link on the way, not only the last one);
    reads through it too (a deal file, a checkpoint)."""
    shared, elsewhere = _shared_folder(tmp_path)
    _owned_by_another(monkeypatch, shared / "d")
    for attempt in (lambda: _store.atomic_write_text(shared / "d" / "out.csv", "mine"),
                    lambda: _store.check_writable(shared / "d" / "out.csv"),
                    lambda: _store.read_limited(shared / "d" / "out.csv", "deal file", 100),
                    lambda: _store.read_limited(shared / "d" / ".." / "d" / "out.csv",
                                                "deal file", 100)):
        with pytest.raises(_store.StoreError, match="owned by another user"):
            attempt()
    assert (elsewhere / "out.csv").read_text() == "theirs"
    monkeypatch.undo()  # the user's own link to a folder: followed
    _store.atomic_write_text(shared / "d" / "out.csv", "mine")
    assert _store.read_limited(shared / "d" / "out.csv", "deal file", 100) == b"mine"


@pytest.mark.skipif(os.geteuid() != 0, reason="making a link owned by another user needs root "
                    "(test_planted_link_to_a_folder_is_not_followed simulates the owner)")
def test_planted_links_of_a_real_other_user(tmp_path):
    """As root, links really owned by ``nobody`` in a sticky world-writable folder: no
    write through them (the victim's file keeps its content and owner), no read."""
    shared, elsewhere = _shared_folder(tmp_path)
    (shared / "out.csv").symlink_to(elsewhere / "out.csv")
    for link in (shared / "d", shared / "out.csv"):
        os.lchown(link, 65534, 65534)
    os.chown(elsewhere / "out.csv", 65534, 65534)
    for target in (shared / "out.csv", shared / "d" / "out.csv"):
        status = subprocess.run([sys.executable, "-m", "jitgames.solitaire", "2", "-q",
                                 "--out", str(target)], cwd=ROOT, capture_output=True,
                                text=True, timeout=120)
        assert status.returncode == 2 and "owned by another user" in status.stderr
        assert status.stderr.count("\n") == 1
        with pytest.raises(_store.StoreError, match="owned by another user"):
            _store.read_limited(target, "deal file", 100)
    assert (elsewhere / "out.csv").read_text() == "theirs"
    assert (elsewhere / "out.csv").stat().st_uid == 65534


def test_out_dev_stdout_on_a_pipe(tmp_path):
    """``--out /dev/stdout`` (what the refusal of ``--out -`` suggests) writes into a
    pipe: the magic link's text (``pipe:[123]``) names no file, the kernel opens it."""
    code = "from jitgames import _store; _store.atomic_write_text('/dev/stdout', 'hello\\n')"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0 and done.stdout == "hello\n", done.stderr


def test_file_name_that_is_not_utf8_under_a_strict_locale(tmp_path):
    """Printed by a real process whose output encoding is strict UTF-8: escaped, not a
    UnicodeEncodeError (in a result line and in a one-line error)."""
    tree = os.fsencode(tmp_path) + b"/tree-\xff.json"
    with open(tree, "w") as handle:
        handle.write(json.dumps(_chain_tree(2)))
    env = dict(os.environ, LC_ALL="C.UTF-8", PYTHONIOENCODING="utf-8:strict")
    for name, status, stream, words in ((tree, 0, "stdout", "verified"),
                                        (tree + b".missing", 2, "stderr", "cannot read")):
        done = subprocess.run([sys.executable, "-m", "jitgames.mastermind", "evaluate",
                               "--tree", os.fsdecode(name)], cwd=ROOT, env=env,
                              capture_output=True, timeout=120)
        text = getattr(done, stream).decode()
        assert done.returncode == status and "tree-\\udcff.json" in text and words in text, \
            done.stderr
        assert b"Traceback" not in done.stderr


def test_file_name_that_is_not_utf8_is_printed(tmp_path, capsys):
    tree = Path(os.fsdecode(bytes(tmp_path) + b"/tree-\xff.json"))
    tree.write_text(json.dumps(_chain_tree(2)))
    assert mastermind_main(["evaluate", "--tree", str(tree)]) == 0
    out = capsys.readouterr().out
    assert "tree-\\udcff.json" in out and "verified" in out


# ----------------------------------------------------------------------------- Dask addresses

def test_tls_address_is_refused():
    with pytest.raises(argparse.ArgumentTypeError, match="tls:// needs client certificates"):
        _chunked.scheduler_address("tls://127.0.0.1:8786")


def test_refused_connection_is_reported_at_once():
    import socket

    with socket.socket() as sock:  # a port that nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    begin = time.monotonic()
    with pytest.raises(_cli.InputError, match="cannot reach the Dask scheduler"):
        with _chunked.open_client(f"tcp://127.0.0.1:{port}"):
            pass
    assert time.monotonic() - begin < 3  # at once: before Dask is even imported


def test_silent_server_is_not_dask():
    """A server that never speaks first (an HTTP server waits for a request): Dask's
    own client waited for ever in its handshake; now one line within seconds."""
    import socket

    with socket.socket() as server:  # listens; connections wait in its backlog, unread
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        begin = time.monotonic()
        with pytest.raises(_cli.InputError, match="did not answer as a Dask scheduler"):
            within(30, lambda: _chunked.open_client(
                f"tcp://127.0.0.1:{server.getsockname()[1]}").__enter__())
        assert time.monotonic() - begin < _chunked.HANDSHAKE_WAIT + 3


def test_a_real_scheduler_passes_the_probe():
    """The handshake check lets a real Dask scheduler (tcp://, no workers) through."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=0, processes=False, protocol="tcp://",
                      dashboard_address="127.0.0.1:0",
                      scheduler_kwargs={"dashboard": False}) as cluster:
        def connect():
            with _chunked.open_client(cluster.scheduler_address) as client:
                return client.scheduler_info()["address"]

        assert within(60, connect) == cluster.scheduler_address


def test_server_that_is_not_dask(monkeypatch):
    """An HTTP-like server at the address: one line, not "not enough memory"."""
    import socket

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.2)
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            with conn:
                conn.sendall(b"HTTP/1.0 400 Bad Request\r\nContent-Length: 0\r\n\r\n" * 4)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    monkeypatch.setattr(_chunked, "CONNECT_TIMEOUT", 3.0)
    try:
        with pytest.raises(_cli.InputError, match="did not answer as a Dask scheduler"):
            with within(30, lambda: _chunked.open_client(
                    f"tcp://127.0.0.1:{server.getsockname()[1]}").__enter__()):
                pass
    finally:
        stop.set()
        thread.join(5)
        server.close()


# ----------------------------------------------------------------------------- reading only

def test_mastermind_stats_shows_a_read_only_database(tmp_path, capsys, monkeypatch):
    """``stats`` shows a database it cannot write (the docs promise it). File modes do
    not stop root, so SQLite's answer for a read-only file is simulated on the write
    probe."""
    import sqlite3

    from jitgames.mastermind.stats import open_db

    path = tmp_path / "m.sqlite"
    open_db(path).close()
    real_prepare = _store._prepare

    def read_only(con, schema, refuse, write=True):
        if write:
            raise sqlite3.OperationalError("attempt to write a readonly database")
        return real_prepare(con, schema, refuse, write)

    monkeypatch.setattr(_store, "_prepare", read_only)
    status = mastermind_main(["stats", "--db", str(path)])
    out, err = capsys.readouterr()
    assert status == 0 and "no games recorded" in out, err
    status = mastermind_main(["play", "--db", str(path)])  # a writer is still refused
    one_line_refusal(status, capsys, "cannot be written")


def test_solitaire_prompt_survives_odd_digits(capsys):
    """``²``, ``undo ³``, a 5,000-digit move number and a 10 MB line at the prompt are
    refused and the game goes on (they crashed it: ``str.isdigit`` accepts them)."""
    from jitgames.solitaire import deals
    from jitgames.solitaire.console import play_session
    from jitgames.solitaire.play import Game

    lines = ["²", "undo ³", "9" * 5000, "3 " + "4" * 5000, "x" * 10_000_000, "moves", "quit"]
    end = play_session(Game(deals(2026, 7, 8)[0]), stdin=io.StringIO("\n".join(lines) + "\n"))
    out = capsys.readouterr().out
    assert end is not None and "undo takes a number of moves" in out
    replies = [line for line in out.splitlines() if not line.startswith(">")]  # not echoes
    assert max(map(len, replies)) < 200  # the 10 MB line is not repeated in the refusal


# ----------------------------------------------------------------------------- fuzz

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_MUTATIONS = st.one_of(
    st.tuples(st.just("truncate"), st.integers(0, 10**6)),
    st.tuples(st.just("flip"), st.integers(0, 10**6), st.integers(0, 7)),
    st.tuples(st.just("append"), st.binary(max_size=40)),
    st.tuples(st.just("header"), st.sampled_from([
        b"[" * 5000, b'{"kind": "K", "schema": 1, "bytes": 1' + b"0" * 30 + b', "sha256": ""}',
        b'{"kind": "K", "schema": 1, "bytes": -1, "sha256": ""}', b"\xff\xfe",
        b'{"kind": "K", "schema": 1e999, "bytes": 1, "sha256": 5}', b'"' + b"x" * 5000])),
    st.tuples(st.just("payload"), st.sampled_from([
        b"[" * 100_000, b'{"chunks": [[0, 1, [' + b"9" * 4001 + b', 0, 0]]]}',
        b'{"chunks": [[0, 1e400, 1]]}', b'{"job": "t", "params": {}, "chunks": [[0, 1, [1, 2, 3]]]}',
        b"\x00" * 64])),
)


def _mutate(data: bytes, mutation, kind: str) -> bytes:
    how = mutation[0]
    if how == "truncate":
        return data[:mutation[1] % (len(data) + 1)]
    if how == "flip":
        i = mutation[1] % len(data)
        return data[:i] + bytes([data[i] ^ (1 << mutation[2])]) + data[i + 1:]
    if how == "append":
        return data + mutation[1]
    if how == "header":
        return mutation[1].replace(b'"K"', json.dumps(kind).encode()) + b"\n" + data
    payload = mutation[1]  # a well-formed header around a hostile payload
    import hashlib
    header = {"kind": kind, "schema": 2, "bytes": len(payload),
              "sha256": hashlib.sha256(payload).hexdigest()}
    return json.dumps(header).encode() + b"\n" + payload


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                    HealthCheck.function_scoped_fixture])
@given(mutation=_MUTATIONS)
def test_fuzz_stored_formats(tmp_path_factory, mutation):
    """Truncation, bit flips, appended bytes, hostile headers (deep nesting, huge
    lengths) and hostile payloads: every reader either accepts the file or refuses it
    with StoreError (one line), never another exception."""
    from jitgames.puzzles.queens_classes import chunk_validate

    folder = tmp_path_factory.mktemp("fuzz")
    job = _chunked.ChunkedJob("t", {"n": 6}, ((0, 1), (1, 2)), None, chunk_validate)
    checkpoint = folder / "c.ckpt"
    _store.write_checked(checkpoint, _chunked.CHECKPOINT_KIND, _chunked.CHECKPOINT_SCHEMA,
                         json.dumps({"job": "t", "params": {"n": 6},
                                     "chunks": [[0, 1, [1, 0, 0]]]}).encode())
    checkpoint.write_bytes(_mutate(checkpoint.read_bytes(), mutation, _chunked.CHECKPOINT_KIND))
    try:
        _chunked.Checkpoint.open(checkpoint, job)
    except _store.StoreError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 1000

    pending = folder / "r.sqlite.pending-1-1-a.json"
    database = folder / "r.sqlite"
    _store.open_records(database, "unused", SCHEMA).close()
    _store.write_checked(pending, _store.PENDING_KIND, _store.PENDING_SCHEMA, json.dumps(
        {"application_id": SCHEMA.application_id, "version": SCHEMA.version,
         "operations": [{"table": "games", "columns": ["player", "score"],
                         "rows": [["a", 1]]}]}).encode())
    pending.write_bytes(_mutate(pending.read_bytes(), mutation, _store.PENDING_KIND))
    _store.open_records(database, "unused", SCHEMA).close()  # merged or moved aside
    assert not pending.exists()

    table = endgame.database_file(folder, 1, EMPTY_CAPTURE, 2)
    buffer = io.BytesIO()
    np.save(buffer, endgame.endgame_database(1, 2, EMPTY_CAPTURE, endgame.binomials(4, 3))[0])
    _store.write_checked(table, endgame.TABLE_KIND, endgame.TABLE_SCHEMA, buffer.getvalue())
    table.write_bytes(_mutate(table.read_bytes(), mutation, endgame.TABLE_KIND))
    loaded = endgame._read(table, 1, EMPTY_CAPTURE, 2, 2)  # None (rebuilt) or checked
    assert loaded is None or np.array_equal(loaded, endgame.endgame_database(
        1, 2, EMPTY_CAPTURE, endgame.binomials(4, 3))[0])
