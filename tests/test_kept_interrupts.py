"""A Ctrl-C that Python would drop is raised again (jitgames._kept_interrupts).

Python raises KeyboardInterrupt at the bytecode the main thread runs when SIGINT
arrives; inside a weakref callback (the import system's module locks have one) it
cannot propagate and is printed as "Exception ignored", and the command went on to
exit 0. The checks plant the interrupt exactly there, which a real Ctrl-C hits only by
chance. Every wait is bounded: a lost interrupt fails the check, never hangs it.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import weakref

import pytest

from jitgames._kept_interrupts import interrupts_kept
from tests.fresh_child import ROOT

STEPS = 2000
"""Short sleeps (1 ms each) in which a re-raised interrupt must arrive."""


class _Target:
    pass


def _interrupt_in_a_weakref_callback(_ref):
    raise KeyboardInterrupt  # as the default SIGINT handler would, had it run here


def _drop_an_interrupt() -> None:
    """Raise KeyboardInterrupt where Python cannot propagate it."""
    target = _Target()
    ref = weakref.ref(target, _interrupt_in_a_weakref_callback)
    del target  # the callback runs now; its exception goes to sys.unraisablehook
    assert ref() is None


def _bounded_work() -> int:
    done = 0
    for _ in range(STEPS):
        time.sleep(0.001)
        done += 1
    return done


def test_without_the_block_python_drops_the_interrupt(monkeypatch):
    """The fault itself: the interrupt is reported and lost, the work goes on."""
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", seen.append)
    _drop_an_interrupt()
    assert _bounded_work() == STEPS
    assert [u.exc_type for u in seen] == [KeyboardInterrupt]


def test_inside_the_block_the_dropped_interrupt_is_raised_again(monkeypatch):
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", seen.append)
    previous_handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            with interrupts_kept():
                _drop_an_interrupt()
                _bounded_work()
    finally:
        signal.signal(signal.SIGINT, previous_handler)
    assert seen == []  # nothing printed for it
    assert sys.unraisablehook == seen.append  # the previous hook is back


class _ReadWhenCtrlCArrives:
    """What the hook is handed when the interrupt asked for again lands in the hook."""

    @property
    def exc_type(self):
        raise KeyboardInterrupt


def test_an_interrupt_landing_in_the_hook_itself_is_asked_for_again(monkeypatch):
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", seen.append)
    with pytest.raises(KeyboardInterrupt):
        with interrupts_kept():
            sys.unraisablehook(_ReadWhenCtrlCArrives())  # returns: the hook keeps it
            _bounded_work()
    assert seen == []


def test_other_unraisable_exceptions_reach_the_previous_hook(monkeypatch):
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", seen.append)

    def fails(_ref):
        raise ValueError("in a callback")

    with interrupts_kept():
        target = _Target()
        ref = weakref.ref(target, fails)
        del target
        assert ref() is None
        assert _bounded_work() == STEPS  # not interrupted
    assert [u.exc_type for u in seen] == [ValueError]


def _run_python(code: str, **env: str) -> subprocess.CompletedProcess:
    """``python -c code`` in a child of its own session, from the repository's root."""
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, start_new_session=True,
                          env={**os.environ, **env})


CHILD = r"""
import sys, time, weakref
from jitgames._cli import run_cli, exit_process

class Target: pass

def callback(ref):
    raise KeyboardInterrupt

def body(argv):
    target = Target()
    ref = weakref.ref(target, callback)
    del target
    for _ in range(%d):
        time.sleep(0.001)
    print("finished as if no Ctrl-C had come")
    return 0

exit_process(run_cli(body, [], prog="jitgames demo", program=True))
""" % STEPS


def test_a_command_whose_interrupt_was_dropped_still_stops_with_130():
    """What the front door's test met on CI: exit 0 after an ignored KeyboardInterrupt."""
    done = _run_python(CHILD)
    assert done.returncode == 130, (done.returncode, done.stdout, done.stderr)
    assert done.stdout == ""
    assert done.stderr.strip() == "jitgames demo: interrupted", done.stderr


CONVERTED = r"""
import os, signal
from jitgames._cli import run_cli, exit_process

def body(argv):
    try:
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C while an extension imports ...
        for _ in range(%d):
            pass
    except KeyboardInterrupt as exc:  # ... which reports it as a failure of its own
        raise ImportError("PyCapsule_Import could not import module \"datetime\"") from None
    print("finished as if no Ctrl-C had come")
    return 0

exit_process(run_cli(body, ["--json"], prog="jitgames demo", program=True))
""" % STEPS


def test_a_failure_after_ctrl_c_is_reported_as_the_interrupt():
    done = _run_python(CONVERTED)
    assert done.returncode == 130, (done.returncode, done.stdout, done.stderr)
    assert done.stdout == '{"complete": false}\n'
    assert done.stderr.strip() == "jitgames demo: interrupted", done.stderr


def test_a_failure_without_ctrl_c_is_not_hidden():
    from jitgames._cli import run_cli

    def body(argv):
        raise ImportError("a missing module of its own")

    with pytest.raises(ImportError, match="of its own"):
        run_cli(body, [], prog="jitgames demo")


def test_the_sigint_handler_is_noted_then_restored():
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with interrupts_kept() as kept:
            assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler
            assert not kept.arrived
            with pytest.raises(KeyboardInterrupt):
                signal.raise_signal(signal.SIGINT)
                _bounded_work()
            assert kept.arrived
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, previous)


FRONT_DOOR = r"""
import importlib, os, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)
real_import = importlib.import_module

def interrupted_import(name, *args):  # Ctrl-C inside NumPy's C import, reported as ImportError
    try:
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(%d):
            pass
    except KeyboardInterrupt:
        raise ImportError("PyCapsule_Import could not import module") from None
    return real_import(name, *args)

importlib.import_module = interrupted_import
from jitgames.__main__ import main
sys.exit(main(["solitaire", "10"]))
""" % STEPS


def test_the_front_door_reports_an_import_failed_by_ctrl_c_as_the_interrupt():
    done = _run_python(FRONT_DOOR, JITGAMES_WARM_UP="0")
    assert done.returncode == 130, (done.returncode, done.stdout, done.stderr)
    assert done.stderr.strip() == "jitgames solitaire: interrupted", done.stderr


PAUSE_IN_IMPORT = r"""
import os, sys, time


class PauseInImport:
    # Holds the import of one module (the test's Ctrl-C lands in it): writes the
    # mark, then sleeps inside the import system.
    def find_spec(self, name, path=None, target=None):
        if name == os.environ["JITGAMES_TEST_PAUSE_AT"]:
            open(os.environ["JITGAMES_TEST_PAUSE_MARK"], "w").close()
            time.sleep(60)
        return None


sys.meta_path.insert(0, PauseInImport())
"""


@pytest.mark.parametrize("module", ["numba", "jitgames.solitaire.__main__"])
def test_ctrl_c_while_python_m_imports_the_game_ends_with_130(module, tmp_path):
    """``python -m jitgames.solitaire N`` (the README's first command) imports its
    modules before any of its code runs; Ctrl-C then used to end in a traceback and a
    death by SIGINT. Now: one line, status 130, and with --json one object. The Ctrl-C
    is sent while the child is inside the import of ``module`` (held there by a
    ``sitecustomize`` of the test's, which marks the moment), not after a delay: on a
    fast machine a fixed delay lands after the imports, in the run itself."""
    (tmp_path / "sitecustomize.py").write_text(PAUSE_IN_IMPORT)
    mark = tmp_path / "paused"
    child = subprocess.Popen([sys.executable, "-m", "jitgames.solitaire", "2000", "--json"],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, start_new_session=True,
                             env={**os.environ, "JITGAMES_WARM_UP": "0",
                                  "PYTHONPATH": str(tmp_path),
                                  "JITGAMES_TEST_PAUSE_AT": module,
                                  "JITGAMES_TEST_PAUSE_MARK": str(mark)})
    try:
        waited = time.monotonic()
        while not mark.exists() and child.poll() is None and time.monotonic() - waited < 60:
            time.sleep(0.01)
        assert mark.exists(), f"the child never imported {module}"
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate(timeout=30)
    assert child.returncode == 130, (child.returncode, err)
    assert "Traceback" not in err, err
    assert err.strip().splitlines()[-1].startswith("python -m jitgames.solitaire: interrupted")
    assert out == '{"complete": false}\n'


def test_importing_the_library_changes_no_hook():
    """Only a ``python -m jitgames...`` process gets the top-level handling; a program
    that imports the library keeps Python's hooks and handlers."""
    code = ("import signal, sys, jitgames, jitgames.mastermind; "
            "print(sys.excepthook is sys.__excepthook__, "
            "sys.unraisablehook is sys.__unraisablehook__, "
            "signal.getsignal(signal.SIGINT) is signal.default_int_handler)")
    done = _run_python(code)
    assert done.stdout.split() == ["True", "True", "True"], done.stderr
