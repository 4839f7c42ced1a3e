"""Shared command-line plumbing: one contract for every game's command line.

Storage (data directory, atomic writes, checked files, databases) lives in
:mod:`jitgames._store`.

Every ``python -m jitgames.<game>`` entry point (also ``jitgames <game>``) is written as::

    def main(argv=None) -> int:
        return run_cli(_main, argv, prog=PROG)

where ``_main(argv)`` builds an :class:`ArgumentParser`, does the work and returns an
exit status. The contract (``docs/cli.md``):

- The same flag means the same thing in every game, after the game's sub-command:
  :func:`add_json`, :func:`add_quiet`, :func:`add_threads`, :func:`add_seed`,
  :func:`add_db`, :func:`add_checkpoint` add them.
- Every integer argument is read by :func:`parse_int` (``10^9``, ``10**9``, ``1e9``,
  ``10^15+10^8``, ``2^64-1``, ``1_000``) through :func:`int_in_range` and friends.
- Exit status 0 when done; 2 for bad input (one line on stderr: an argparse error, or
  an :class:`~jitgames.errors.InputError` raised anywhere below the body and translated
  here, once); 130 for a run cut short (Ctrl-C or a budget), after the partial result
  is printed -- with ``--json``, ``"complete": false`` (see :func:`emit`).
- ``--json`` prints strict JSON (:func:`print_json`): ``null`` where a figure is
  undefined, never ``NaN`` or ``Infinity``.
"""
from __future__ import annotations

import argparse
import contextlib
import contextvars
import json
import math
import os
import re
import signal
import sys
import threading
from fractions import Fraction

from ._kept_interrupts import Arrivals, interrupts_kept
from .errors import InputError  # the one error type for bad input, offered here too

__all__ = [
    "InputError",
    "ArgumentParser",
    "run_cli",
    "command_name",
    "as_program",
    "display_name",
    "parse_int",
    "integer",
    "positive_int",
    "nonnegative_int",
    "int_in_range",
    "float_in_range",
    "add_json",
    "add_quiet",
    "add_threads",
    "add_seed",
    "add_db",
    "add_checkpoint",
    "emit",
    "exit_status",
    "exit_process",
    "progress",
    "print_json",
    "strict_json",
]

EXIT_OK = 0
EXIT_BAD_INPUT = 2
EXIT_CUT_SHORT = 130
"""The three exit statuses of every command (130 = 128 + SIGINT, as shells report it)."""
EXIT_TERMINATED = 143
"""Status of a run cut short by SIGTERM (128 + 15, as shells report it): the run
stops as after Ctrl-C (partial result printed, checkpoint written), but says why."""


ECHO_LIMIT = 60
"""Most characters of the user's input echoed back in an error message."""
MESSAGE_LIMIT = 600
"""Most characters of any one-line error message (a last resort: a message that
echoes a 20 MB input is cut here even where :func:`shorten` was not used)."""


def shorten(value, limit: int = ECHO_LIMIT) -> str:
    """``repr(value)`` of untrusted input, cut to about ``limit`` characters for an
    error message: ``'1234567...' (5,000 chars)``."""
    from ._store import shorten as cut

    return cut(value, limit)


def one_line(message: str, limit: int = MESSAGE_LIMIT) -> str:
    """``message`` on one line (runs of white space made one space), cut to ``limit``."""
    text = " ".join(str(message)[:4 * limit].split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


# ----------------------------------------------------------------------------- names

_COMMAND = contextvars.ContextVar("jitgames_command", default=None)


@contextlib.contextmanager
def command_name(name: str):
    """Inside the block, programs named ``python -m jitgames.<game>`` are shown as
    ``<name> <game>`` (the ``jitgames`` front door uses this for usage and errors)."""
    token = _COMMAND.set(name)
    try:
        yield
    finally:
        _COMMAND.reset(token)


def display_name(prog: str) -> str:
    """``prog`` as the user invoked it: ``jitgames solitaire`` under the front door,
    else unchanged (``python -m jitgames.solitaire``)."""
    front = _COMMAND.get()
    prefix = "python -m jitgames."
    if front is not None and prog.startswith(prefix):
        return f"{front} {prog[len(prefix):]}"
    return prog


_PARSING = contextvars.ContextVar("jitgames_parsing", default=None)
"""Inside :func:`run_cli`: a one-item list holding the ``prog`` of the parser that
last began parsing (see :meth:`ArgumentParser.parse_known_args`)."""


class ArgumentParser(argparse.ArgumentParser):
    """argparse with a one-line error message and exit status 2."""

    def __init__(self, *args, **kwargs):
        if kwargs.get("prog") is not None:
            kwargs["prog"] = display_name(kwargs["prog"])
        super().__init__(*args, **kwargs)

    def parse_known_args(self, args=None, namespace=None):
        # A sub-command's parser begins parsing inside its parent's, so the last prog
        # recorded is the command as typed (``jitgames puzzles queens``): run_cli names
        # it in the errors the body raises after parsing, as argparse's own errors do.
        chosen = _PARSING.get()
        if chosen is not None:
            chosen[0] = self.prog
        return super().parse_known_args(args, namespace)

    def error(self, message):  # noqa: D401 - argparse API
        message = one_line(message)  # one line, whatever the message
        required = "the following arguments are required: "
        if message.startswith(required):
            message = self._missing(message[len(required):].split(", "))
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see --help)\n")

    def _missing(self, names) -> str:
        """What the missing arguments ``names`` (as argparse names them) are: the
        commands to choose from, or each argument's help."""
        parts = []
        for name in names:
            action = next((a for a in self._actions if name in (
                a.dest, a.metavar if isinstance(a.metavar, str) else None,
                " ".join(a.metavar) if isinstance(a.metavar, tuple) else None,
                "/".join(a.option_strings))), None)
            if isinstance(action, argparse._SubParsersAction):
                parts.append(f"a command: {', '.join(action.choices)}")
            elif action is not None and action.help and action.help != argparse.SUPPRESS:
                parts.append(f"{name}: {action.help}")
            else:
                parts.append(name)
        return "missing " + "; ".join(parts)


FIRST_USE_SECONDS = {"solitaire": 8, "mastermind": 15, "kalah": 10, "puzzles": 6,
                     "primes": 6}
"""Seconds a game's commands typically spend compiling their kernels on first use (an
empty cache; measured by bench/compile.py and rounded up), for the compile notice."""


_PROGRAM = contextvars.ContextVar("jitgames_program", default=False)
"""True inside :func:`run_cli` of a command-line process (see its ``program``)."""


@contextlib.contextmanager
def as_program(program: bool = True):
    """Inside the block (when ``program``), :func:`run_cli` treats its command as the
    process's own, as when its ``argv`` is None (the ``jitgames`` front door passes
    its games their arguments as lists)."""
    token = _PROGRAM.set(_PROGRAM.get() or program)
    try:
        yield
    finally:
        _PROGRAM.reset(token)


def run_cli(body, argv=None, prog: str | None = None, program: bool | None = None) -> int:
    """Run ``body(argv)`` and map errors to exit statuses.

    Returns the body's status (``None`` counts as 0); 2 after an
    :class:`~jitgames.errors.InputError` (one line on stderr) or invalid arguments;
    130 after Ctrl-C (the body may catch it first to print partial results). The
    status is returned, never raised, so ``main(argv)`` can be called in-process.

    ``program``: this is the process's own command (by default when ``argv`` is None,
    i.e. read from ``sys.argv``; or inside :func:`as_program`). Then, and
    only then, the process may be ended at once: Ctrl-C or SIGTERM during a kernel's
    first-use compilation in the main thread ends it within moments (status 130 or
    143, one line), and so does the end of a run that left a compilation or abandoned
    work behind in another thread (:mod:`jitgames._interrupt`), instead of waiting
    10-20 s for the compiler.
    """
    program = (argv is None if program is None else program) or _PROGRAM.get()
    token = _PROGRAM.set(program)
    try:
        status = _run(body, argv, prog, program)
    finally:
        _PROGRAM.reset(token)
    if program:
        from ._interrupt import end_process_if_work_left

        end_process_if_work_left(status)
    return status


def _run(body, argv, prog, program: bool) -> int:
    """:func:`run_cli` but for the end of a program's process."""
    name = display_name(prog or os.path.basename(sys.argv[0]))
    words = sys.argv[1:] if argv is None else list(argv)
    # -q/--quiet means the same in every game; read here, before the game's parser, so
    # that the compile notice stays silent for quiet runs.
    quiet = "-q" in words or "--quiet" in words
    from ._jit import compile_notice  # numba's import is paid only by commands that run

    game = name.split()[-1].rpartition(".")[2]
    estimate = (f"about {FIRST_USE_SECONDS[game]} s" if game in FIRST_USE_SECONDS
                else "some seconds")
    _tolerant_output()
    chosen = [name]  # becomes the sub-command's name once its parser runs
    token = _PARSING.set(chosen)
    kept = Arrivals()
    try:
        with interrupts_kept() as kept, compile_notice(name, estimate, quiet=quiet), \
                _sigterm_as_interrupt(), _first_use_stops(name, program, "--json" in words):
            status = body(argv)
        if status == EXIT_CUT_SHORT and _TERMINATED.is_set():
            return EXIT_TERMINATED
    except SystemExit as exc:  # argparse's --help (0) and errors (2), as a return value
        return exc.code if isinstance(exc.code, int) else EXIT_OK if exc.code is None else 1
    except InputError as exc:
        message = one_line(exc) or type(exc).__name__
        print(f"{chosen[0]}: error: {message}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return _interrupted(chosen[0], "--json" in words)
    except MemoryError:  # a last resort: sizes are checked before the work where known
        print(f"{chosen[0]}: error: not enough memory for this size; try a smaller one",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        # Output piped into `head` and friends: not an error worth a traceback.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except Exception:
        if not (kept.arrived or _TERMINATED.is_set()):
            raise
        # Ctrl-C (SIGTERM) turned into another exception on its way (_kept_interrupts)
        return _interrupted(chosen[0], "--json" in words)
    finally:
        _PARSING.reset(token)
    return EXIT_OK if status is None else int(status)


def _interrupted(name: str, json_output: bool) -> int:
    """Say that command ``name`` was stopped by Ctrl-C or SIGTERM; its exit status."""
    if json_output:  # stopped before it had anything to print: still one object
        with contextlib.suppress(OSError):
            print('{"complete": false}', flush=True)
    if _TERMINATED.is_set():
        print(f"{name}: terminated (SIGTERM)", file=sys.stderr)
        return EXIT_TERMINATED
    print(f"{name}: interrupted", file=sys.stderr)
    return EXIT_CUT_SHORT


def _first_use_stops(name: str, program: bool, json_output: bool):
    """In a program's process, Ctrl-C (SIGTERM) during a first-use compilation ends it
    at once with status 130 (143) and one line (:mod:`jitgames._interrupt`); with
    ``--json``, stdout gets ``{"complete": false}`` (nothing was computed yet, and a
    reader of the output still finds one JSON object saying so)."""
    if not program:
        return contextlib.nullcontext()
    from ._interrupt import stop_at_once_while_compiling

    def goodbye(signum):
        output = '{"complete": false}\n' if json_output else None
        if signum == signal.SIGTERM:
            return (f"{name}: terminated (SIGTERM) while compiling kernels for first use",
                    EXIT_TERMINATED, output)
        return (f"{name}: interrupted while compiling kernels for first use", EXIT_CUT_SHORT,
                output)

    return stop_at_once_while_compiling(goodbye)


def _tolerant_output() -> None:
    """Let stdout and stderr print any text: a file name that is not UTF-8 (kept by
    Python as lone surrogates) is printed with backslash escapes instead of ending the
    run in a UnicodeEncodeError under a strict UTF-8 locale."""
    for stream in (sys.stdout, sys.stderr):
        if getattr(stream, "errors", None) == "strict" and hasattr(stream, "reconfigure"):
            with contextlib.suppress(Exception):  # a stream that cannot change: as it is
                stream.reconfigure(errors="backslashreplace")


_TERMINATED = threading.Event()
"""Set once SIGTERM has arrived during :func:`run_cli`."""


def _on_sigterm(signum, frame):
    _TERMINATED.set()
    raise KeyboardInterrupt


@contextlib.contextmanager
def _sigterm_as_interrupt():
    """Inside the block SIGTERM (``timeout``, batch schedulers, ``docker stop``) acts as
    Ctrl-C: KeyboardInterrupt in the main thread, so partial results are printed and
    checkpoints written; :func:`run_cli` then exits with 143. Only in the main thread
    (where Python handles signals); the previous handler is restored after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGTERM)
    if previous is None:  # installed outside Python: restore the default
        previous = signal.SIG_DFL
    if previous is not _on_sigterm:
        _TERMINATED.clear()
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


# ----------------------------------------------------------------------------- numbers

_MAX_BITS = 4096
"""Largest magnitude :func:`parse_int` builds (2^4096): bigger powers take long to
compute and no argument of any game needs them."""
_TERM = re.compile(r"""
    (?P<sign>[+-])?\s*
    (?:
        (?P<base>\d+)\s*(?:\^|\*\*)\s*(?P<exponent>\d+)      # 10^9, 10**9
      | (?P<mantissa>\d+(?:\.\d*)?|\.\d+)(?:[eE](?P<exp10>[+-]?\d+))?   # 1000, 1e9, 2.5e3
    )\s*""", re.VERBOSE)


def parse_int(text: str) -> int:
    """The integer written in ``text``.

    Accepted forms: decimal digits with optional ``_`` separators (``1_000``); powers
    ``A^B`` or ``A**B``; decimal and scientific notation when the value is an exact
    integer (``1e9``, ``2.5e3``); and sums and differences of those
    (``10^15+10^8``, ``2^64-1``, ``-5``). Magnitudes above 2^4096 are refused.

    Raises
    ------
    InputError
        If ``text`` is none of these, or not an integer (``1.5``, ``1e-3``).
    """
    clean = str(text).replace("_", "").strip()
    if not clean or len(clean) > 1000:
        raise InputError(f"expected an integer, got {shorten(text)}")
    total, position, first = 0, 0, True
    while position < len(clean):
        match = _TERM.match(clean, position)
        if match is None or match.end() == position or (not first and match["sign"] is None):
            raise InputError(f"expected an integer, got {shorten(text)}")
        total += _term_value(match, text)
        if abs(total) > 1 << _MAX_BITS:
            raise InputError(f"{shorten(text)} is too large (above 2^{_MAX_BITS})")
        position, first = match.end(), False
    return total


def _term_value(match, text) -> int:
    sign = -1 if match["sign"] == "-" else 1
    if match["base"] is not None:
        base, exponent = int(match["base"]), int(match["exponent"])
        if base > 1 and (exponent > _MAX_BITS or exponent * math.log2(base) > _MAX_BITS):
            raise InputError(f"{shorten(text)} is too large (above 2^{_MAX_BITS})")
        return sign * base ** exponent
    exp10 = int(match["exp10"] or 0)
    if len(match["exp10"] or "") > 6 or abs(exp10) > 1300:
        raise InputError(f"expected an integer of at most 2^{_MAX_BITS}, got {shorten(text)}")
    value = Fraction(match["mantissa"]) * Fraction(10) ** exp10
    if value.denominator != 1:
        raise InputError(f"expected an integer, got {shorten(text)}")
    return sign * int(value)


def _show_int(value: int) -> str:
    """``value`` as help and errors write it: 10^k and 2^k(-1) for large round numbers."""
    if value >= 10**6:
        for k in range(6, 400):
            if value == 10**k:
                return f"10^{k}"
        if value & (value + 1) == 0:
            return f"2^{value.bit_length()}-1"
        if value & (value - 1) == 0:
            return f"2^{value.bit_length() - 1}"
    return str(value)


def int_in_range(low: int | None, high: int | None, what: str | None = None):
    """argparse type: an integer (any form of :func:`parse_int`) with
    ``low <= x <= high`` (``None``: unbounded on that side)."""
    if what is None:
        if low is not None and high is not None:
            what = f"an integer from {_show_int(low)} to {_show_int(high)}"
        elif low == 1:
            what = "a positive integer"
        elif low == 0:
            what = "a non-negative integer"
        elif low is not None:
            what = f"an integer of at least {_show_int(low)}"
        elif high is not None:
            what = f"an integer of at most {_show_int(high)}"
        else:
            what = "an integer"

    def parse(text):
        try:
            value = parse_int(text)
        except InputError as exc:
            message = str(exc)
            if message.startswith("expected an integer"):
                message = f"expected {what}, got {shorten(text)}"
            raise argparse.ArgumentTypeError(message) from None
        if (low is not None and value < low) or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"expected {what}, got {_show_int(value)}")
        return value

    parse.__name__ = what
    parse.low, parse.high = low, high
    return parse


integer = int_in_range(None, None)
positive_int = int_in_range(1, None)
nonnegative_int = int_in_range(0, None)


def float_in_range(low: float, high: float, what: str):
    """argparse type: a finite number with ``low <= x <= high`` (``what`` names it in
    errors, e.g. ``"a number of cards from 0.001 to 52"``)."""

    def parse(text):
        try:
            value = float(str(text).replace("_", ""))
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {shorten(text)}") from None
        if not (math.isfinite(value) and low <= value <= high):
            raise argparse.ArgumentTypeError(f"expected {what}, got {shorten(text)}")
        return value

    parse.__name__ = what
    parse.low, parse.high = low, high
    return parse


# ----------------------------------------------------------------------------- shared flags

def add_json(parser) -> None:
    """``--json``: print one strict JSON object on stdout (``"complete"`` says whether
    the run finished)."""
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object (strict JSON; \"complete\": false when "
                             "the run was cut short)")


def add_quiet(parser) -> None:
    """``-q/--quiet``: no progress display on stderr."""
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="no progress display")


def max_threads() -> int:
    """Most threads a parallel kernel can use here (Numba's ``NUMBA_NUM_THREADS``)."""
    import numba

    return numba.config.NUMBA_NUM_THREADS


def add_threads(parser) -> None:
    """``--threads T``: threads for the parallel kernels (default: all), checked here."""

    def parse(text):
        return int_in_range(1, max_threads(), f"a thread count from 1 to {max_threads()}")(text)

    parse.__name__ = "thread count"
    parse.low, parse.high = 1, None
    parser.add_argument("--threads", type=parse, default=None, metavar="T",
                        help="threads for the parallel kernels (default: all; results do "
                             "not depend on it)")


def add_seed(parser, high: int = 2**64 - 1, default: int | None = 0,
             what: str = "random seed") -> None:
    """``--seed S``: the one integer every random choice of the run derives from
    (``default=None``: no randomness unless a seed is given)."""
    shown = "none" if default is None else default
    parser.add_argument("--seed", type=int_in_range(0, high), default=default, metavar="S",
                        help=f"{what}, 0 to {_show_int(high)} (default {shown})")


def add_db(parser, filename: str, what: str) -> None:
    """``--db FILE``: the SQLite file of ``what`` (default ``filename`` in the data
    directory, see :func:`jitgames._store.data_dir`)."""
    parser.add_argument("--db", default=None, metavar="FILE",
                        help=f"SQLite file of {what} (default: {filename} in "
                             f"$XDG_DATA_HOME/jitgames)")


def add_checkpoint(parser) -> None:
    """``--checkpoint FILE``: keep finished work in FILE; the same command resumes."""
    parser.add_argument("--checkpoint", default=None, metavar="FILE",
                        help="record finished work in FILE; the same command resumes from it")


# ----------------------------------------------------------------------------- output

def exit_status(complete: bool) -> int:
    """0 for a finished run, 130 for one cut short."""
    return EXIT_OK if complete else EXIT_CUT_SHORT


def exit_process(status: int):
    """End a command-line process with ``status`` now, its output flushed.

    For ``if __name__ == "__main__"`` blocks only (never for ``main(argv)`` called
    in-process). Python's orderly shutdown tears down every object of Numba's compiled
    kernels one by one, 0.2-0.4 CPU seconds after the work is done; a command has
    nothing left to release (files are closed, databases committed, by then), so it
    skips that. ``atexit`` handlers still run.
    """
    import atexit

    try:
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # output piped into `head`: nothing more to say
        pass
    os._exit(0 if status is None else status)  # None means success, as for sys.exit


def emit(args, record: dict, text=(), complete: bool = True,
         note: str | None = "interrupted: the result printed is partial") -> int:
    """Print a run's result and return its exit status.

    With ``args.json`` the ``record`` is printed as strict JSON with the key
    ``"complete"`` set; otherwise ``text`` (a string, or an iterable of lines). A run
    cut short (``complete=False``) also prints ``note`` on stderr (``None``: the caller
    has said it) and returns 130.
    """
    if getattr(args, "json", False):
        print_json({**record, "complete": bool(complete)})
    else:
        print(text if isinstance(text, str) else "\n".join(text))
    if not complete and note:
        print(note, file=sys.stderr)
    return exit_status(complete)


def progress(total: int, desc: str, quiet: bool = False, unit: str = "it"):
    """A progress bar on stderr; silent when ``quiet`` or stderr is not a terminal.

    Returns a ``tqdm`` object; call ``update(n)`` and ``close()`` (or use ``with``).
    """
    from tqdm import tqdm

    disable = quiet or not sys.stderr.isatty()
    return tqdm(total=total, desc=desc, unit=unit, disable=disable, file=sys.stderr,
                dynamic_ncols=True, leave=False)


def strict_json(obj):
    """``obj`` with NumPy values made plain and every non-finite float made ``None``,
    so that ``json.dumps(..., allow_nan=False)`` accepts it."""
    if isinstance(obj, dict):
        return {str(k) if not isinstance(k, str) else k: strict_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [strict_json(v) for v in obj]
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, (str, int, bool)) or obj is None:
        return obj
    if hasattr(obj, "tolist"):  # NumPy scalars and arrays
        return strict_json(obj.tolist())
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def print_json(obj) -> None:
    """Print ``obj`` as one strict JSON object on stdout (NumPy values allowed;
    NaN and infinities become ``null``)."""
    print(json.dumps(strict_json(obj), allow_nan=False))
