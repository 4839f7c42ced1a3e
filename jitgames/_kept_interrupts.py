"""A Ctrl-C that Python would drop is raised again.

Python raises KeyboardInterrupt at whatever bytecode the main thread runs when SIGINT
arrives. When that is a weakref callback (the import system's module locks have one), a
``__del__`` or a garbage-collector callback, the exception cannot propagate: Python
hands it to :data:`sys.unraisablehook`, which prints "Exception ignored in ...", and the
command goes on to its end as if Ctrl-C had never come (status 0).

Inside :func:`interrupts_kept` such an interrupt is delivered again, as a second Ctrl-C
would be: a small thread asks for it through :func:`_thread.interrupt_main` (the
signal's own Python handler raises it at the main thread's next bytecode) until it has
landed somewhere it can propagate. It must not land in the hook itself (an exception
there is dropped too), so the hook notes one that does and the thread asks again.
Standard library only: the front door uses it while numba is being imported.

``python -m jitgames.<game>`` imports its game's modules before any of its code runs,
so :func:`keep_for_this_program` (called by the package's ``__init__`` for such a
process only) does the same for the whole process, and ends a run whose Ctrl-C reached
the top level with one line and status 130 instead of a traceback.
"""
from __future__ import annotations

import _thread
import contextlib
import signal
import sys
import threading
import time

__all__ = ["interrupts_kept", "Arrivals", "keep_for_this_program"]

STEP = 0.005
"""Seconds between the hook's return and the interrupt asked for again."""
PATIENCE = 30.0
"""Seconds the thread keeps asking while each delivery is dropped again."""


class _Redelivery:
    """The unraisable hook of one :func:`interrupts_kept` block and its thread."""

    def __init__(self, previous):
        self.previous = previous
        self.owed = False  # an interrupt was dropped and not yet raised again
        self.closed = False  # the block has ended: nothing more is asked for
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None

    def hook(self, unraisable) -> None:
        try:
            if not (isinstance(unraisable.exc_type, type)
                    and issubclass(unraisable.exc_type, KeyboardInterrupt)):
                self.previous(unraisable)
                return
            self._owe()
        except KeyboardInterrupt:  # the delivery asked for landed in here
            self._owe()

    def _owe(self) -> None:
        with self.lock:
            self.owed = True
            if self.thread is None:
                self.thread = threading.Thread(target=self._deliver, daemon=True,
                                               name="jitgames-interrupt")
                self.thread.start()

    def _deliver(self) -> None:
        deadline = time.monotonic() + PATIENCE
        while True:
            time.sleep(STEP)  # the hook has returned by now (or notes the miss)
            with self.lock:
                if not self.owed or self.closed or time.monotonic() > deadline:
                    self.thread = None
                    return
                self.owed = False
            signum = _handled_signal()
            if signum is None:
                with self.lock:
                    self.thread = None
                return
            _thread.interrupt_main(signum)


def _handled_signal():
    """SIGINT, or SIGTERM where only it has a Python handler (the commands' SIGTERM
    raises KeyboardInterrupt too); None when neither has one."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        if callable(signal.getsignal(signum)):
            return signum
    return None


class Arrivals:
    """Whether SIGINT has come inside an :func:`interrupts_kept` block (``arrived``).

    A KeyboardInterrupt can also be turned into another exception where C code catches
    it: an extension module interrupted while it imports its dependencies raises
    ImportError (NumPy: "PyCapsule_Import could not import module"). A command that
    fails after Ctrl-C came reports the interrupt, not that failure."""

    def __init__(self):
        self.arrived = False


@contextlib.contextmanager
def interrupts_kept():
    """Inside the block a KeyboardInterrupt that Python drops is raised again (nothing
    is printed for it), and the arrival of SIGINT is noted (yields :class:`Arrivals`);
    other exceptions Python cannot raise go to the hook that was there before. The
    hook and the SIGINT handler are restored after. Only in the main thread (both are
    process-wide); elsewhere the block changes nothing."""
    arrivals = Arrivals()
    if threading.current_thread() is not threading.main_thread():
        yield arrivals
        return
    previous_hook = sys.unraisablehook
    redelivery = _Redelivery(previous_hook)
    sys.unraisablehook = redelivery.hook
    previous_handler = signal.getsignal(signal.SIGINT)
    noting = None
    if callable(previous_handler):  # a Python handler: note, then let it act
        def noting(signum, frame):
            arrivals.arrived = True
            previous_handler(signum, frame)

        signal.signal(signal.SIGINT, noting)
    try:
        yield arrivals
    finally:
        if noting is not None and signal.getsignal(signal.SIGINT) is noting:
            signal.signal(signal.SIGINT, previous_handler)
        sys.unraisablehook = previous_hook
        with redelivery.lock:
            redelivery.closed = True


def keep_for_this_program() -> None:
    """For the process of ``python -m jitgames.<name> ...`` only, for its whole life:
    an interrupt Python drops is raised again (:func:`interrupts_kept`, never
    restored), and a KeyboardInterrupt -- or a failure after SIGINT came -- that
    reaches the top level (Ctrl-C while the command's modules are imported, before
    its own handling is in place) prints ``python -m jitgames.<name>: interrupted``,
    with ``--json`` the object ``{"complete": false}`` on stdout, and ends the process
    with status 130. Other exceptions are reported as Python would."""
    block = interrupts_kept()
    arrivals = block.__enter__()  # kept for the process's life: never exited
    words = getattr(sys, "orig_argv", sys.argv)
    name = next((words[i + 1] for i, word in enumerate(words[:-1]) if word == "-m"),
                "jitgames")
    previous = sys.excepthook

    def report(kind, value, traceback):
        if not (issubclass(kind, KeyboardInterrupt) or arrivals.arrived):
            previous(kind, value, traceback)
            return
        import os

        with contextlib.suppress(OSError, ValueError):
            if "--json" in words:  # stopped before it had anything to print
                print('{"complete": false}', flush=True)
            print(f"python -m {name}: interrupted", file=sys.stderr, flush=True)
        os._exit(130)

    sys.excepthook = report
