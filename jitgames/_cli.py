"""Shared command-line plumbing: argument parsing, one-line errors, progress, storage.

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
import contextlib
import json
import os
import sqlite3
import sys
import tempfile
from pathlib import Path

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
    "data_dir",
    "connect_db",
    "atomic_write_text",
    "atomic_write_bytes",
    "check_writable",
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


def data_dir(override: str | os.PathLike | None = None) -> Path:
    """Directory for files that outlive a run (created if missing).

    ``override`` wins; else ``$XDG_DATA_HOME/jitgames``; else ``~/.local/share/jitgames``.
    :class:`CLIError` if it cannot be created (e.g. a file of that name exists).
    """
    if override is not None:
        path = Path(override)
    else:
        base = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
        path = Path(base) / "jitgames"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CLIError(f"cannot use directory {path}: {_reason(exc)}") from None
    return path


def connect_db(filename: str, override: str | os.PathLike | None = None) -> sqlite3.Connection:
    """Open (creating if needed) an SQLite database.

    ``override`` is a full file path (e.g. from ``--db``); otherwise the file is
    ``filename`` inside :func:`data_dir`. :class:`CLIError` if it cannot be opened;
    a file that is not an SQLite database shows only when it is first read.
    """
    if override is None:
        path = data_dir() / filename
    else:
        path = Path(override)
        try:
            data_dir(path.parent)
        except InputError as exc:
            raise CLIError(f"cannot open database {path}: {exc}") from None
    try:
        return sqlite3.connect(path)
    except sqlite3.Error as exc:
        raise CLIError(f"cannot open database {path}: {exc}") from None


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: temporary file, fsync, rename.

    A reader sees either the old file or the new one, never a partial write. The file
    gets the permissions a plain ``open(path, "w")`` would give it (the umask's).
    """
    _atomic_write(path, [data])


def atomic_write_text(path: str | os.PathLike, text) -> None:
    """:func:`atomic_write_bytes` for UTF-8 text: a string, or an iterable of strings
    written one after another (so a large file need not be one string in memory)."""
    pieces = [text] if isinstance(text, str) else text
    _atomic_write(path, (piece.encode("utf-8") for piece in pieces))


def _atomic_write(path, pieces) -> None:
    """Write the byte strings ``pieces`` to a temporary file beside ``path``, then rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.chmod(tmp, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as handle:
            for piece in pieces:
                handle.write(piece)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def check_writable(path: str | os.PathLike) -> None:
    """Raise :class:`CLIError` unless a file can be written at ``path`` (creating its
    directory if needed): checked before a long run, not after it."""
    path = Path(path)
    try:
        if path.is_dir():
            raise IsADirectoryError(21, "Is a directory")
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"):
            pass
    except OSError as exc:
        raise CLIError(f"cannot write {path}: {_reason(exc)}") from None


def _reason(exc: OSError) -> str:
    """Why a directory could not be made, in words ("File exists" names no file)."""
    if isinstance(exc, FileExistsError):
        return "a file stands where a directory is needed"
    return exc.strerror or str(exc)


def _umask() -> int:
    """The process's umask (read by setting it and setting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask

