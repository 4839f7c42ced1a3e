"""Shared command-line plumbing: argument parsing, one-line errors, progress.

Storage (data directory, atomic writes, databases) lives in :mod:`jitgames._store`.

Every ``python -m jitgames.<game>`` entry point is written as::

    def main(argv=None) -> int:
        return run_cli(_main, argv)

where ``_main(argv)`` builds an :class:`ArgumentParser`, does the work and returns an
exit status. :func:`run_cli` turns a :class:`CLIError` (bad input found after parsing)
into one line on stderr and exit status 2, and Ctrl-C into exit status 130; argparse
errors also print a single line and exit 2. No traceback reaches the user for bad input.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from .errors import InputError

__all__ = [
    "CLIError",
    "ArgumentParser",
    "run_cli",
    "positive_int",
    "nonnegative_int",
    "int_in_range",
    "progress",
    "print_json",
]


class CLIError(InputError):
    """Bad input found by a command line; its message is shown as one line."""


class ArgumentParser(argparse.ArgumentParser):
    """argparse with a one-line error message and exit status 2."""

    def error(self, message):  # noqa: D401 - argparse API
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def run_cli(body, argv=None, prog: str | None = None) -> int:
    """Run ``body(argv)`` and map errors to exit statuses.

    Returns the body's status (``None`` counts as 0); 2 after a :class:`CLIError`
    or invalid arguments; 130 after Ctrl-C (the body may catch it first to print
    partial results).
    """
    name = prog or os.path.basename(sys.argv[0])
    try:
        status = body(argv)
    except InputError as exc:
        print(f"{name}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return 130
    except MemoryError:  # a last resort: sizes are checked before the work where known
        print(f"{name}: error: not enough memory for this size; try a smaller one",
              file=sys.stderr)
        return 2
    except BrokenPipeError:
        # Output piped into `head` and friends: not an error worth a traceback.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    return 0 if status is None else int(status)


def _int_type(low, high, what):
    def parse(text):
        try:
            value = int(text.replace("_", ""))
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if (low is not None and value < low) or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"expected {what}, got {value}")
        return value

    parse.__name__ = what
    return parse


positive_int = _int_type(1, None, "a positive integer")
nonnegative_int = _int_type(0, None, "a non-negative integer")


def int_in_range(low: int, high: int):
    """argparse type accepting integers ``low <= x <= high``."""
    return _int_type(low, high, f"an integer from {low} to {high}")


def progress(total: int, desc: str, quiet: bool = False, unit: str = "it"):
    """A progress bar on stderr; silent when ``quiet`` or stderr is not a terminal.

    Returns a ``tqdm`` object; call ``update(n)`` and ``close()`` (or use ``with``).
    """
    from tqdm import tqdm

    disable = quiet or not sys.stderr.isatty()
    return tqdm(total=total, desc=desc, unit=unit, disable=disable, file=sys.stderr,
                dynamic_ncols=True, leave=False)


def print_json(obj) -> None:
    """Print ``obj`` as one JSON object on stdout (NumPy scalars allowed)."""

    def default(o):
        if hasattr(o, "tolist"):
            return o.tolist()
        raise TypeError(f"not JSON serialisable: {type(o).__name__}")

    print(json.dumps(obj, default=default, sort_keys=False))
