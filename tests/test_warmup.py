"""The helper process that compiles the study's callees beside the main process on an
empty cache (jitgames._warmup, jitgames.solitaire.warm_up).

Each check runs fresh interpreters on caches of their own (``NUMBA_CACHE_DIR`` under
``tmp_path``): what is checked is what a first run on a new machine does. Every wait is
bounded.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.fresh_child import (ROOT, child_env, child_json, helpers_of, kill_helpers, no_helpers,
                               run_child, wait_for_helpers, write_after_import_hook)

DEALS = 100

FIRST_CALL = r"""
import json
from jitgames._compiled import compiled_names, machine_code_digest
from jitgames._warmup import wanted
from jitgames._jit import is_cached
from jitgames.solitaire.deal import deals
from jitgames.solitaire.search import make_scratch, solve_decks, solve_rows
from jitgames.solitaire.warm_up import STUDY_PLAN, study_plan

(target, args), callees = study_plan()
before = {"wanted": wanted(STUDY_PLAN), "target_cached": is_cached(target, args)}
with compiled_names() as compiled:
    rows = solve_rows(deals(0, 0, %d), False, make_scratch(1))
print(json.dumps({
    "before": before,
    "after": {"wanted": wanted(STUDY_PLAN), "target_cached": is_cached(target, args)},
    "compiled": compiled, "callees": [k.py_func.__name__ for k, *_ in callees],
    "rows": rows.tolist(), "sha1": machine_code_digest(solve_decks)["sha1"]}))
""" % DEALS


WARM_UP = {"JITGAMES_WARM_UP": "1"}
"""A helper process on an empty cache whatever the load of this machine."""


def _first_call(cache: Path) -> dict:
    return child_json(FIRST_CALL, cache, **WARM_UP)


@pytest.fixture(scope="module")
def alone(tmp_path_factory):
    """The study's first call on an empty cache with no helper: what it compiles, its
    rows for the first deals and ``solve_decks``' machine code."""
    return _first_call(tmp_path_factory.mktemp("alone"))


def test_the_helper_leaves_cache_entries_the_main_process_loads_instead_of_compiling(
        alone, tmp_path):
    cache = tmp_path / "cache"
    helper = run_child(["-m", "jitgames._warmup", "solitaire.study"], cache, **WARM_UP)
    assert helper.returncode == 0 and helper.stderr == "", helper.stderr[-3000:]
    after_helper = _first_call(cache)
    callees = set(alone["callees"])
    # Alone, the first call compiles every callee of the plan (the deal generation's
    # kernel, which the study calls from Python, included); after the helper, none of
    # them (nor their own callees), and nothing it did not compile alone.
    assert callees <= set(alone["compiled"])
    assert {"solve_line", "solve_position", "fisher_yates_range"} <= callees
    assert not callees & set(after_helper["compiled"])
    assert set(after_helper["compiled"]) <= set(alone["compiled"]) - callees
    assert "solve_decks" in after_helper["compiled"]
    # The same machine code runs, with the same results.
    assert after_helper["sha1"] == alone["sha1"]
    assert after_helper["rows"] == alone["rows"] and len(alone["rows"]) == DEALS
    # A helper is wanted while the study's kernel is not cached, not once it is.
    assert after_helper["before"] == {"wanted": True, "target_cached": False}
    assert after_helper["after"] == {"wanted": False, "target_cached": True}


def _study(cache: Path) -> dict:
    done = run_child(["-m", "jitgames", "solitaire", str(DEALS), "--json", "-q", "--threads",
                      "1"], cache, **WARM_UP)
    assert done.returncode == 0 and done.stderr == "", done.stderr[-3000:]
    return json.loads(done.stdout)


def test_the_study_on_an_empty_cache_with_its_helper_gives_the_same_figures(alone, tmp_path,
                                                                           monkeypatch):
    from jitgames import _warmup

    cache = tmp_path / "cache"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(cache))
    target = _warmup.AHEAD_OF["solitaire"][2]
    assert not _warmup._probably_cached(*target)  # the front door starts its helper ahead
    summary = _study(cache)
    assert _warmup._probably_cached(*target)  # and not on the next run
    scores = [row[0] for row in alone["rows"]]
    assert summary["complete"] and summary["deals"] == DEALS
    assert {int(k): v for k, v in summary["histogram"].items() if v} == Counter(scores)
    assert summary["positions"] == sum(row[3] for row in alone["rows"])
    assert summary["wins"] == scores.count(52)
    assert helpers_of(cache) == []  # ended with the warm-up, not left behind
    # The callees' internal copies are cached in files of their own, beside the
    # kernels compiled for Python (which keep theirs).
    names = {p.name for p in cache.rglob("*.nbi")}
    assert any(n.startswith("rules.deal_position-") and n.endswith("-internal.nbi") for n in names)
    assert any(n.startswith("search.solve_decks-") and not n.endswith("-internal.nbi")
               for n in names)


WRAPPER = ("import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
           "sys.argv = sys.argv[1:]; runpy.run_module(sys.argv[0], run_name='__main__')")
LIMIT = 15.0
"""Seconds from SIGINT to exit while compiling: Python hears the signal between byte
codes, and a call into LLVM (the largest, optimising ``solve_decks``, takes seconds on a
busy machine) finishes first."""


PAUSE_IN_COMPILE = r"""
import os, sys, time


def _after(event_module):
    # At this process's first Numba compilation: write this process's mark, then stay
    # inside the compilation (the test's Ctrl-C lands there), in short sleeps so that
    # signal handlers run.
    class Pause(event_module.Listener):
        paused = False

        def on_start(self, event):
            if Pause.paused:
                return
            Pause.paused = True
            role = "helper" if "_warmup" in sys.argv[0] else "command"
            open(os.path.join(os.environ["JITGAMES_TEST_PAUSE_DIR"], role), "w").close()
            for _ in range(6000):
                time.sleep(0.01)

        def on_end(self, event):
            pass

    event_module.register("numba:compile", Pause())
"""


def test_ctrl_c_while_the_helper_compiles_stops_both_processes(tmp_path):
    """Ctrl-C while the command and its helper both compile: status 130, one object,
    the helper ended. Both are held inside their first compilation by a
    ``sitecustomize`` of the test's, which marks the moment in each, so the Ctrl-C
    lands there on any machine (a fixed delay after the first cached kernel lands
    after the compilation on a fast one: the whole command takes 3 s)."""
    cache = tmp_path / "cache"
    hook = tmp_path / "hook"
    write_after_import_hook(hook, "numba.core.event", PAUSE_IN_COMPILE)
    marks = tmp_path / "marks"
    marks.mkdir()
    env = child_env(cache, **WARM_UP, JITGAMES_TEST_PAUSE_DIR=str(marks))
    env["PYTHONPATH"] = os.pathsep.join([str(hook), env["PYTHONPATH"]])
    child = subprocess.Popen([sys.executable, "-c", WRAPPER, "jitgames", "solitaire", "2000",
                              "--json", "--threads", "1"], env=env, cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while (sorted(p.name for p in marks.iterdir()) != ["command", "helper"]
               and time.monotonic() < deadline):
            assert child.poll() is None, child.communicate(timeout=30)
            time.sleep(0.05)
        assert sorted(p.name for p in marks.iterdir()) == ["command", "helper"], \
            "the command and its helper were not both compiling within a minute"
        assert helpers_of(cache), "no helper process compiling"
        sent = time.monotonic()
        os.kill(child.pid, signal.SIGINT)
        out, err = child.communicate(timeout=60)
        seconds = time.monotonic() - sent
        assert child.returncode == 130 and seconds < LIMIT, (child.returncode, seconds, err)
        assert json.loads(out) == {"complete": False}
        assert "interrupted" in err.decode()
        assert helpers_of(cache) == []  # the helper was ended too
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.communicate(timeout=30)
        kill_helpers(cache)


def test_ctrl_c_while_the_command_imports_ends_the_helper_started_ahead(tmp_path):
    cache = tmp_path / "cache"
    child = subprocess.Popen([sys.executable, "-c", WRAPPER, "jitgames", "solitaire", "2000",
                              "--json", "--threads", "1"], env=child_env(cache, **WARM_UP),
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True)
    try:
        assert wait_for_helpers(cache, bool, 60, child), ("no helper started ahead",
                                                         child.poll())
        os.kill(child.pid, signal.SIGINT)  # the command is still importing, or just compiling
        _, err = child.communicate(timeout=60)
        assert child.returncode == 130, err
        assert "Traceback" not in err.decode() and "interrupted" in err.decode(), err
        # it ended with the command, however that ended
        assert wait_for_helpers(cache, no_helpers, 10) == []
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.communicate(timeout=30)
        kill_helpers(cache)


def test_no_helper_when_switched_off_or_no_core_is_idle(monkeypatch):
    from jitgames import _jit, _warmup

    monkeypatch.delenv("JITGAMES_WARM_UP", raising=False)
    monkeypatch.setattr(_jit, "is_cached", lambda kernel, args: False)  # a first run
    monkeypatch.setattr(_warmup, "_cpus", lambda: 2)
    monkeypatch.setattr(_warmup, "_idle_cpus", lambda ours=(): 2.0)
    assert _warmup.wanted("solitaire.study")  # both CPUs idle: the gate lets it start
    monkeypatch.setattr(_warmup, "_idle_cpus", lambda ours=(): 1.0)  # one CPU busy besides
    assert not _warmup.wanted("solitaire.study")
    # where the CPU counters cannot be read: the load average decides
    monkeypatch.setattr(_warmup, "_idle_cpus", lambda ours=(): None)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.5, 0.0, 0.0))
    assert _warmup.wanted("solitaire.study")
    monkeypatch.setattr(os, "getloadavg", lambda: (1.5, 0.0, 0.0))
    assert not _warmup.wanted("solitaire.study")  # every core but a half busy
    monkeypatch.setenv("JITGAMES_WARM_UP", "0")
    assert not _warmup.wanted("solitaire.study")
    assert _warmup.start("solitaire.study") is None
    with _warmup.helper_compiling("solitaire.study") as helper:
        assert helper is None
    _warmup.stop(None)  # nothing to stop: no error


STAT = """cpu  {user} {nice} 300 {idle} {iowait} 0 7 0 0 0
cpu0 1 2 3 4 5 0 0 0 0 0
intr 12345
"""


def _fake_proc_stat(monkeypatch, warmup, samples):
    """Make ``warmup`` read /proc/stat as :data:`STAT` filled with each of ``samples``
    in turn, one per read."""
    texts = iter([STAT.format(**sample) for sample in samples])

    class Stat:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def read(self):
            return next(texts)

    monkeypatch.setattr(warmup, "open", lambda *a, **k: Stat(), raising=False)


def test_idle_cpus_count_idle_and_io_wait_but_not_niced_work(monkeypatch):
    """The gate reads the machine's CPU counters over a short window: idle and I/O wait
    ticks count as idle, ticks of niced processes as busy (another session's niced job
    takes a core from a second compiling process all the same)."""
    from jitgames import _warmup

    assert _warmup._cpu_ticks(STAT.format(user=100, nice=50, idle=1000, iowait=20)) == (
        1020, 100 + 50 + 300 + 1000 + 20 + 7)
    _fake_proc_stat(monkeypatch, _warmup, [dict(user=100, nice=50, idle=1000, iowait=20),
                                           dict(user=100, nice=55, idle=1004, iowait=21)])
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert _warmup._idle_cpus(0.0) == 2 * 5 / 10  # 5 of 10 ticks idle: one CPU
    monkeypatch.undo()
    monkeypatch.setattr(_warmup, "_cpus", lambda: 2)
    monkeypatch.setattr(_warmup, "_idle_cpus", lambda ours=(): 2.0)
    assert _warmup._core_to_spare()  # both idle: this process's core and the helper's
    monkeypatch.setattr(_warmup, "_idle_cpus", lambda ours=(): 1.2)
    assert not _warmup._core_to_spare()
    monkeypatch.setattr(_warmup, "_cpus", lambda: 1)
    monkeypatch.setattr(_warmup, "_idle_cpus", lambda ours=(): 2.0)
    assert not _warmup._core_to_spare()  # one usable CPU: never


def test_idle_cpus_count_the_time_of_our_own_processes_as_idle(monkeypatch):
    """A helper started ahead, still importing, uses a CPU of its own while the gate
    reads the counters: its ticks count as idle, not as another job's."""
    from jitgames import _warmup

    _fake_proc_stat(monkeypatch, _warmup, [dict(user=100, nice=50, idle=1000, iowait=20),
                                           dict(user=106, nice=50, idle=1004, iowait=20)])
    ticks = {4242: iter([300, 306])}  # the helper: 6 of the 10 ticks
    monkeypatch.setattr(_warmup, "_process_ticks", lambda pid: next(ticks[pid]))
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert _warmup._idle_cpus(0.0, ours=(4242,)) == 2.0  # 4 idle + 6 ours of 10
    monkeypatch.undo()
    if sys.platform.startswith("linux"):  # the counters of a real process
        assert _warmup._process_ticks(os.getpid()) >= 0


@pytest.mark.parametrize("argv, study", [
    (["200"], True), (["--seed", "3", "200"], True), (["200", "--shuffle", "naive"], True),
    (["200", "--rules", "etude"], True), (["--rules=etude", "200"], True),
    (["200", "--score-only", "--scheduler", "local:2"], True),
    ([], False), (["play"], False), (["stats"], False), (["check", "f"], False),
    (["-h"], False), (["--help"], False), (["--show", "0", "0"], False), (["--sh", "0", "0"], False),
    (["--deal-file", "f"], False), (["--deals", "f"], False), (["200", "--bias"], False),
    (["200", "--compare-shuffles"], False), (["200", "--rules", "yukon"], False),
    (["200", "--rules=alaska"], False), (["200", "--r", "etude"], False)])
def test_the_front_door_tells_a_study_from_its_words(argv, study):
    from jitgames import _warmup

    assert _warmup._solitaire_study(argv) is study


@pytest.mark.parametrize("argv, command, started", [
    (["-m", "200", "--json"], ["python", "-m", "jitgames.solitaire", "200", "--json"],
     ("solitaire", ["200", "--json"])),
    (["-m", "200"], ["python", "-X", "importtime", "-m", "jitgames.solitaire.__main__", "200"],
     ("solitaire", ["200"])),
    (["-m", "solitaire", "200"], ["python", "-m", "jitgames", "solitaire", "200"], None),
    (["-c"], ["python", "-c", "import jitgames.solitaire"], None),
    (["/bin/jitgames", "solitaire", "200"], ["python", "/bin/jitgames", "solitaire", "200"], None)])
def test_python_m_of_the_game_package_starts_its_helper_ahead(argv, command, started,
                                                              monkeypatch):
    from jitgames import _warmup

    calls = []
    monkeypatch.setattr(sys, "argv", argv)
    monkeypatch.setattr(sys, "orig_argv", command, raising=False)
    monkeypatch.setattr(_warmup, "start_ahead_of", lambda game, args: calls.append((game, args)))
    _warmup.start_ahead_of_program("jitgames.solitaire")
    assert calls == ([] if started is None else [started])


def test_python_m_jitgames_solitaire_starts_its_helper_while_importing(tmp_path):
    from jitgames._warmup import AHEAD_FLAG

    cache = tmp_path / "cache"
    child = subprocess.Popen([sys.executable, "-m", "jitgames.solitaire", "2000", "--json",
                              "--threads", "1"], env=child_env(cache, **WARM_UP), cwd=ROOT,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
    try:
        helpers = wait_for_helpers(cache, bool, 60, child)
        assert helpers, "no helper started"
        command = Path(f"/proc/{helpers[0]}/cmdline").read_bytes().split(b"\0")
        assert AHEAD_FLAG.encode() in command  # started ahead, before the package's imports
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait(30)
        kill_helpers(cache)

def test_a_helper_started_ahead_compiles_nothing_until_told_and_ends_unused(
        tmp_path, monkeypatch):
    from jitgames import _warmup

    cache = tmp_path / "cache"
    for name, value in child_env(cache).items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("JITGAMES_WARM_UP", raising=False)
    helper = _warmup.start_ahead("solitaire.study")
    try:
        assert helper is not None
        # Popen returns once the exec has begun; /proc shows the new command line only
        # after the kernel has set the new program's arguments up, a moment later.
        assert wait_for_helpers(cache, lambda found: found == [helper.pid], 10) == [helper.pid]
        time.sleep(3.0)  # its imports done (about a second), waiting to be told
        assert helper.poll() is None
        assert not list(cache.rglob("*.nbi"))  # nothing compiled
        assert helper.claims is None  # its claims' folder comes with the word to compile
        _warmup._discard_unused()  # what the command's exit does when no study ran
        assert helper.poll() is not None
        assert helpers_of(cache) == []
    finally:
        if helper is not None and helper.poll() is None:
            helper.kill()
            helper.wait(30)


def test_a_command_killed_while_importing_leaves_no_folder_behind(tmp_path):
    """SIGTERM before the command's own handling is in place ends it by the signal's
    default action: nothing of it runs, so the helper started ahead must not have made
    a folder yet (it ends with its parent)."""
    cache = tmp_path / "cache"
    env = child_env(cache, **WARM_UP, TMPDIR=str(tmp_path))
    child = subprocess.Popen([sys.executable, "-m", "jitgames", "solitaire", "2000"],
                             env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        assert wait_for_helpers(cache, bool, 60, child), "no helper started ahead"
        child.terminate()
        child.wait(30)
        assert wait_for_helpers(cache, no_helpers, 10) == []
        assert not list(tmp_path.glob("jitgames-compiling-*"))
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(30)
        kill_helpers(cache)


def test_a_helper_started_ahead_ends_with_a_command_that_fails(tmp_path):
    cache = tmp_path / "cache"
    # words of a study (a helper is started ahead), then an option the parser refuses
    done = run_child(["-m", "jitgames", "solitaire", "100", "--no-such-option"], cache,
                     **WARM_UP)
    assert done.returncode == 2 and "--no-such-option" in done.stderr
    assert helpers_of(cache) == []
    assert not list(cache.rglob("*.nbi"))


def test_idle_cpus_on_this_machine_is_bounded_and_quick():
    from jitgames import _warmup

    begin = time.monotonic()
    idle = _warmup._idle_cpus()
    assert time.monotonic() - begin < 1.0
    if sys.platform.startswith("linux"):
        assert idle is not None and 0.0 <= idle <= os.cpu_count()
    else:
        assert idle is None
