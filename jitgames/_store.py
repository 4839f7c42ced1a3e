"""Everything jitgames keeps on disk: atomic writes, checksummed files, SQLite records.

Three promises, kept here once for every game (formats in ``docs/storage.md``):

- **Writes never clobber.** :func:`atomic_write_bytes` writes a regular file through a
  temporary file in the same directory (fsync, rename, fsync of the directory), so a
  reader sees the old file or the new one, never a mix; the temporary file is removed
  on any failure, Ctrl-C included. A symlink is followed (its target is written, the
  link stays); a character device or FIFO (``--out /dev/null``) is written into
  directly and never replaced; a directory, block device or socket is refused.
  Temporary files are named ``.NAME.PID.RANDOM.jitgames-tmp`` and those left by a
  process that no longer runs (a kill mid-write) are removed by the next write.
- **Nothing stored is trusted unchecked.** :func:`write_checked` stores a payload
  behind a one-line JSON header holding its kind, schema version, length and SHA-256;
  :func:`read_checked` refuses a file whose header, length or checksum is wrong with
  :class:`StoreError` (one line naming the file), without touching it. The callers
  then check the meaning of the payload (partial results, table entries).
- **SQLite keeps every record.** :func:`open_records` opens a database, identifies it
  (``PRAGMA application_id``), migrates it step by step (``PRAGMA user_version``),
  checks its tables against the schema and that it can be written, all before any
  game is played. :meth:`Records.insert` waits for a busy database up to its timeout
  and otherwise saves the rows to a *pending* file beside the database, which the
  next :func:`open_records` merges (exactly once).

Files live in :func:`data_dir`: ``$XDG_DATA_HOME/jitgames``, else
``~/.local/share/jitgames``.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import sqlite3
import stat
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .errors import InputError

__all__ = ["StoreError", "NoRecords", "data_dir", "records_path", "check_writable",
           "atomic_write_bytes", "atomic_write_text", "save_figure", "write_checked",
           "read_checked", "read_limited", "load_json", "RecordSchema", "Records",
           "open_records", "TEMP_SUFFIX"]

TEMP_SUFFIX = ".jitgames-tmp"
"""Ending of every temporary file: ``.NAME.PID.RANDOM.jitgames-tmp`` beside NAME."""
HEADER_LIMIT = 4096
"""Longest header line of a checked file (bytes)."""


class StoreError(InputError):
    """A stored file or database that cannot be used; the message names it, in one line."""


class NoRecords(StoreError):
    """A command that only reads asked for a database that does not exist (nothing was
    created); ``path`` is the file looked for."""

    def __init__(self, path):
        super().__init__(f"no database {path} (nothing recorded there yet)")
        self.path = path


STDOUT_NAME = "-"
"""``--out -``: refused (one line) rather than writing a file named ``-``; name
``/dev/stdout`` for standard output."""


def _refuse_dash(given) -> None:
    if os.fspath(given) == STDOUT_NAME:
        raise StoreError("cannot write '-': standard output is not a file here; name a "
                         "file, or /dev/stdout (./- for a file named '-')")


# ----------------------------------------------------------------------------- places

def data_dir(override: str | os.PathLike | None = None) -> Path:
    """Directory for files that outlive a run (created if missing).

    ``override`` wins; else ``$XDG_DATA_HOME/jitgames``; else ``~/.local/share/jitgames``.
    :class:`StoreError` if it cannot be created (e.g. a file of that name exists).
    """
    if override is not None:
        path = Path(override)
    else:
        base = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
        path = Path(base) / "jitgames"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot use directory {path}: {_reason(exc)}") from None
    return path


def records_path(path: str | os.PathLike | None, default_name: str) -> Path:
    """The database file ``path`` (e.g. ``--db``) or ``default_name`` in the data
    directory, without creating anything."""
    if path is not None:
        return Path(path)
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
    return Path(base) / "jitgames" / default_name


def _reason(exc: OSError) -> str:
    """Why a directory could not be made, in words ("File exists" names no file)."""
    if isinstance(exc, FileExistsError):
        return "a file stands where a directory is needed"
    return exc.strerror or str(exc)


def _resolve(path: Path) -> Path:
    """The file a write to ``path`` lands in: the final target of a symlink chain.

    A link is followed only where the kernel itself would follow it for this process
    (Linux ``fs.protected_symlinks``, see :func:`check_links`), whether it is the last
    component or a folder on the way. A magic link the kernel follows but whose text
    names no file (``/dev/stdout`` on a pipe: ``pipe:[1234]``) is left to the kernel:
    ``path`` itself is returned.
    """
    check_links(path)
    real = Path(os.path.realpath(path))
    if not os.path.lexists(real) and os.path.exists(path):
        return path
    return real


def check_links(path: str | os.PathLike) -> None:
    """Raise :class:`StoreError` if reaching ``path`` follows a link the kernel's
    protected_symlinks rule refuses: a link in a sticky world-writable folder (the
    system temporary folder) is followed only when this process's user owns the link
    or the link's owner owns the folder.

    Every component is walked as the kernel walks it (folders on the way, links to
    links, ``..`` after a link), so a planted link to a folder is caught as well as a
    planted link to a file. The rule is applied whatever the sysctl says (it is off in
    many containers): a link planted there by another user must not make a write (as
    root, above all) replace a file the user never named, nor a read show one.
    """
    pending = list(Path(path).parts)
    here = Path(os.getcwd()) if not Path(path).is_absolute() else Path("/")
    if pending and Path(pending[0]).is_absolute():
        pending.pop(0)
    links = 0
    while pending:
        part = pending.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            here = here.parent
            continue
        step = here / part
        try:
            is_link = stat.S_ISLNK(os.lstat(step).st_mode)
        except OSError:  # missing (a file to create) or unreadable: nothing to follow
            here = step
            continue
        if not is_link:
            here = step
            continue
        links += 1
        if links > 40:  # the kernel's limit on links in one walk (ELOOP)
            return
        _check_link(step)
        target = os.readlink(step)
        if os.path.isabs(target):
            here = Path("/")
        pending[:0] = [p for p in Path(target).parts if p != "/"]


def _check_link(link: Path) -> None:
    """Refuse ``link`` if the kernel's protected_symlinks rule would (see :func:`check_links`)."""
    try:
        folder = os.stat(link.parent)
        owner = os.lstat(link).st_uid
    except OSError:
        return
    shared = folder.st_mode & stat.S_ISVTX and folder.st_mode & stat.S_IWOTH
    if shared and owner != os.geteuid() and owner != folder.st_uid:
        raise StoreError(f"cannot follow {link}: a link owned by another user in a shared folder "
                         "(not followed, as the system would not follow it)")


def _special_kind(path: Path) -> str | None:
    """None for a regular or missing file, else what ``path`` is ("FIFO", "device", ...)."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return None
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISCHR(mode):
        return "character device"
    if stat.S_ISBLK(mode):
        return "block device"
    return "socket" if stat.S_ISSOCK(mode) else "special file"


WRITE_INTO = ("FIFO", "character device")
"""Special files written into directly (a pipe, ``/dev/null``, a terminal)."""


def check_writable(path: str | os.PathLike) -> None:
    """Raise :class:`StoreError` unless :func:`atomic_write_bytes` can write ``path``
    (creating its directory if needed): checked before a long run, not after it.
    A FIFO or character device is only checked for permission, never opened."""
    _refuse_dash(path)
    given = Path(path)
    path = _resolve(given)
    try:
        kind = _special_kind(path)
        if kind == "directory":
            raise IsADirectoryError(21, "Is a directory")
        if kind is not None:
            if kind not in WRITE_INTO:
                raise StoreError(f"cannot write {given}: it is a {kind}")
            if not os.access(path, os.W_OK):
                raise PermissionError(13, "Permission denied")
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = _make_temp(path)
        os.close(fd)
        os.unlink(tmp)
    except OSError as exc:
        raise StoreError(f"cannot write {given}: {_reason(exc)}") from None


# ----------------------------------------------------------------------------- atomic writes

def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` so that a reader sees the old file or the new one.

    A regular (or new) file is replaced atomically: temporary file beside it, fsync,
    rename, fsync of the directory; the temporary file is removed on any failure. A new
    file gets the permissions ``open(path, "w")`` would give it, a replaced one keeps
    its own. A symlink is followed; a FIFO or character device is written into; a
    directory, block device or socket is refused (:class:`StoreError`).
    """
    _write(path, [data])


def atomic_write_text(path: str | os.PathLike, text) -> None:
    """:func:`atomic_write_bytes` for UTF-8 text: a string, or an iterable of strings
    written one after another (so a large file need not be one string in memory)."""
    pieces = [text] if isinstance(text, str) else text
    _write(path, (piece.encode("utf-8") for piece in pieces))


def _write(path, pieces, regular_only: bool = False) -> None:
    """Write ``pieces`` to ``path`` (see :func:`atomic_write_bytes`); any OSError (a full
    disk, a lost permission) becomes a :class:`StoreError` naming the file and why,
    with the old file, if any, left as it was. ``regular_only``: refuse a FIFO or
    device too (a checked file is never written into one: a FIFO without reader
    would block for ever)."""
    _refuse_dash(path)
    given = Path(path)
    try:
        _write_or_raise(given, pieces, regular_only)
    except OSError as exc:
        raise StoreError(f"cannot write {given}: {_reason(exc)}") from None


def _write_or_raise(given: Path, pieces, regular_only: bool) -> None:
    target = _resolve(given)
    kind = _special_kind(target)
    if kind in WRITE_INTO and not regular_only:
        with open(target, "wb") as handle:  # no O_CREAT race: it exists and stays
            for piece in pieces:
                handle.write(piece)
        return
    if kind is not None:
        raise StoreError(f"cannot write {given}: it is a {kind}")
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_temps(target)
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    fd, tmp = _make_temp(target)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            for piece in pieces:
                handle.write(piece)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_directory(target.parent)


def save_figure(fig, path: str | os.PathLike, **savefig) -> None:
    """Write a Matplotlib figure to ``path`` atomically (:func:`atomic_write_bytes`).

    The picture is rendered in memory first, so a failed write (a full disk) leaves
    the old picture whole, never a truncated PNG. ``savefig``: keywords of
    ``Figure.savefig``; the format defaults to the file's suffix, else PNG.
    """
    import io

    _refuse_dash(path)
    savefig.setdefault("format", os.path.splitext(os.fspath(path))[1][1:].lower() or "png")
    buffer = io.BytesIO()
    fig.savefig(buffer, **savefig)
    atomic_write_bytes(path, buffer.getvalue())


def _make_temp(target: Path) -> tuple[int, str]:
    """Create ``.NAME.PID.RANDOM.jitgames-tmp`` beside ``target`` (mode 0600, exclusive)."""
    while True:
        tmp = target.parent / f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}"
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), str(tmp)
        except FileExistsError:
            continue


def _remove_stale_temps(target: Path) -> None:
    """Remove temporary files of ``target`` left by processes that no longer run."""
    prefix = f".{target.name}."
    with contextlib.suppress(OSError):
        for entry in os.scandir(target.parent):
            name = entry.name
            if not (name.startswith(prefix) and name.endswith(TEMP_SUFFIX)):
                continue
            parts = name[len(prefix):-len(TEMP_SUFFIX)].split(".")
            if len(parts) != 2 or not parts[0].isdigit():
                continue
            if not _process_alive(int(parts[0])):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


def _fsync_directory(directory: Path) -> None:
    """Make a rename durable (where the platform allows opening a directory)."""
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _umask() -> int:
    """The process's umask (read by setting it and setting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# ----------------------------------------------------------------------------- checked files

def write_checked(path: str | os.PathLike, kind: str, schema: int, payload: bytes) -> None:
    """Write ``payload`` behind a header line that makes it verifiable.

    The file is one line of JSON ``{"kind": ..., "schema": ..., "bytes": ...,
    "sha256": ...}`` and a newline, then the payload bytes exactly (atomic write).
    """
    header = {"kind": kind, "schema": schema, "bytes": len(payload),
              "sha256": hashlib.sha256(payload).hexdigest()}
    _write(path, [json.dumps(header).encode("ascii") + b"\n", payload], regular_only=True)


def read_checked(path: str | os.PathLike, kind: str, schema: int, what: str) -> bytes:
    """The payload of a file made by :func:`write_checked`, verified.

    ``what`` names the file in messages ("checkpoint", "endgame table"). Raises
    :class:`StoreError` ("WHAT PATH: reason") when the file is not a regular file (a
    FIFO is never waited on), cannot be read, is not a ``kind`` file, has another
    schema version, or its length or SHA-256 differ from its header (a length larger
    than the file is refused before anything is read). The file is never modified.
    """
    def refuse(reason):
        return StoreError(f"{what} {path}: {reason}")

    try:
        with open_regular(path, what) as handle:
            line = handle.readline(HEADER_LIMIT)
            try:
                header = load_json(line, what)
            except ValueError:
                header = None
            if not isinstance(header, dict) or not line.endswith(b"\n"):
                name = kind if kind.startswith("jitgames") else f"jitgames {kind}"
                raise refuse(f"not a {name} file (no valid header line)")
            if header.get("kind") != kind:
                raise refuse(f"holds {shorten(header.get('kind'))}, not a {kind}")
            if header.get("schema") != schema:
                raise refuse(f"schema version {shorten(header.get('schema'))}; this jitgames "
                             f"reads version {schema} only")
            size, digest = header.get("bytes"), header.get("sha256")
            if type(size) is not int or size < 0 or not isinstance(digest, str):
                raise refuse("damaged header (length or checksum missing)")
            held = os.fstat(handle.fileno()).st_size - len(line)
            if size != held:
                raise refuse(f"{held} bytes of payload where the header says "
                             f"{shorten(size)} (truncated or appended to)")
            payload = handle.read(size + 1)
    except OSError as exc:
        raise refuse(f"cannot be read ({exc.strerror or exc})") from None
    if len(payload) != size:
        raise refuse(f"{len(payload)} bytes of payload where the header says {size} "
                     "(truncated or appended to)")
    if hashlib.sha256(payload).hexdigest() != digest:
        raise refuse("checksum mismatch: the file was changed or damaged after it was written")
    return payload


# ----------------------------------------------------------------------------- bounded reads

def shorten(value, limit: int = 60) -> str:
    """``repr(value)`` cut to about ``limit`` characters (an echo of untrusted input
    in a message: a 20 MB guess is not printed back)."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit - 15]}... ({len(text):,} chars)"


def open_regular(path: str | os.PathLike, what: str):
    """``path`` opened for reading in binary, refused unless it is a regular file.

    Opened with ``O_NONBLOCK``, so a FIFO with no writer is not waited on, then
    checked with ``fstat`` (the file opened, not a name that may change since): a
    FIFO, device, socket or directory is refused with :class:`StoreError` ("WHAT
    PATH: not a regular file (a FIFO)"), and so is a path through a link planted in a
    shared folder (:func:`check_links`). Other errors are OSError, as from ``open``.
    """
    check_links(path)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = ("directory" if stat.S_ISDIR(mode) else "FIFO" if stat.S_ISFIFO(mode)
                    else "character device" if stat.S_ISCHR(mode)
                    else "block device" if stat.S_ISBLK(mode) else "special file")
            raise StoreError(f"{what} {path}: not a regular file (a {kind})")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_limited(path: str | os.PathLike, what: str, limit: int) -> bytes:
    """The bytes of the regular file ``path``, refused when larger than ``limit`` bytes.

    :class:`StoreError` ("WHAT PATH: reason", one line) for a special file (FIFO,
    device: ``/dev/zero`` is never read), a file over ``limit`` (checked before
    reading, and again while reading, for a file still growing), or an OSError.
    """
    try:
        with open_regular(path, what) as handle:
            size = os.fstat(handle.fileno()).st_size
            data = handle.read(limit + 1) if size <= limit else b""
    except OSError as exc:
        raise StoreError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    if size > limit or len(data) > limit:
        raise StoreError(f"{what} {path}: larger than {limit:,} bytes, the most read")
    return data


def load_json(data, what: str = "JSON"):
    """``json.loads(data)``, with every failure a ValueError of one line.

    Nesting too deep for Python's parser (RecursionError: ``[[[[...`` 100,000
    deep) and bytes that are not UTF-8 are ValueError too, never a traceback.
    """
    try:
        return json.loads(data)
    except RecursionError:
        raise ValueError(f"{what}: nested too deeply") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"{what}: not UTF-8 text (byte {exc.start})") from None


# ----------------------------------------------------------------------------- SQLite records

@dataclass(frozen=True)
class RecordSchema:
    """The tables of one kind of jitgames database and how to get there.

    Attributes
    ----------
    name : str
        What the database holds, for messages ("Mastermind statistics").
    application_id : int
        ``PRAGMA application_id`` marking a database as this kind (32-bit, non-zero).
    migrations : tuple of str
        SQL scripts; ``migrations[i]`` takes schema version ``i`` to ``i + 1``, so the
        current version is ``len(migrations)``. The first creates the tables with
        ``IF NOT EXISTS`` (databases written before versioning have version 0).
    """

    name: str
    application_id: int
    migrations: tuple

    @property
    def version(self) -> int:
        return len(self.migrations)

    def tables(self) -> dict:
        """``{table: [(column, type, notnull, pk), ...]}`` of the current version."""
        con = sqlite3.connect(":memory:")
        try:
            for script in self.migrations:
                con.executescript(script)
            return _table_columns(con)
        finally:
            con.close()


PENDING_TABLE = "jitgames_pending_merged"
"""Bookkeeping table: names of pending files already merged (so a merge counts once)."""


def _table_columns(con) -> dict:
    names = [r[0] for r in con.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "AND name != ?", (PENDING_TABLE,))]
    return {name: [tuple(r[1:3]) + (r[3], r[5]) for r in con.execute(
        f'PRAGMA table_info("{name}")')] for name in sorted(names)}


class Records:
    """An open, checked jitgames database (see :func:`open_records`).

    ``con`` is the ``sqlite3`` connection for reading; write through :meth:`insert`.
    """

    def __init__(self, con, path: Path, schema: RecordSchema, busy_timeout: float):
        self.con, self.path, self.schema, self.busy_timeout = con, path, schema, busy_timeout

    def insert(self, table: str, columns, rows, skip_existing: bool = False) -> bool:
        """Insert ``rows`` (tuples of ``columns``' values) in one transaction.

        With ``skip_existing`` a row that a unique index of the table already holds is
        left out (``INSERT OR IGNORE``: a record stored once however often it is
        offered). A busy database is waited for up to ``busy_timeout`` seconds. If the
        rows still cannot be stored they are written to a pending file beside the
        database (merged by the next :func:`open_records`, the same way) and the user
        is told on stderr. Returns True when the rows are in the database.
        """
        return self.insert_many([(table, columns, rows)], skip_existing)

    def insert_many(self, operations, skip_existing: bool = False) -> bool:
        """:meth:`insert` of several ``(table, columns, rows)`` in one transaction."""
        operations = [{"table": table, "columns": list(columns), "rows": [list(r) for r in rows]}
                      for table, columns, rows in operations]
        operations = [dict(op, skip_existing=True) if skip_existing else op
                      for op in operations if op["rows"]]
        if not operations:
            return True
        try:
            with self.con:
                for op in operations:
                    self.con.executemany(_insert_sql(op["table"], op["columns"],
                                                     op.get("skip_existing", False)), op["rows"])
            return True
        except sqlite3.Error as exc:
            try:
                pending = _write_pending(self.path, self.schema, operations)
            except (OSError, StoreError) as again:
                raise StoreError(f"could not store in {self.path} ({exc}) nor beside it "
                                 f"({again})") from None
            print(f"jitgames: could not store in {self.path} ({exc}); saved in {pending}, "
                  "added to the database by the next run", file=sys.stderr)
            return False

    def close(self) -> None:
        self.con.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _insert_sql(table, columns, skip_existing: bool = False) -> str:
    cols = ", ".join(f'"{c}"' for c in columns)
    verb = "INSERT OR IGNORE" if skip_existing else "INSERT"
    return f'{verb} INTO "{table}" ({cols}) VALUES ({", ".join("?" * len(columns))})'


PENDING_KIND = "jitgames-pending-records"
PENDING_SCHEMA = 1


def _pending_glob(path: Path) -> str:
    return f"{path.name}.pending-*.json"


def _write_pending(path: Path, schema: RecordSchema, operations: list) -> Path:
    """Save ``operations`` (inserts) to a new checked pending file beside ``path``."""
    name = f"{path.name}.pending-{time.time_ns()}-{os.getpid()}-{secrets.token_hex(3)}.json"
    pending = path.parent / name
    payload = {"application_id": schema.application_id, "version": schema.version,
               "operations": operations}
    write_checked(pending, PENDING_KIND, PENDING_SCHEMA, json.dumps(payload).encode("utf-8"))
    return pending


def open_records(path: str | os.PathLike | None, default_name: str, schema: RecordSchema,
                 busy_timeout: float = 10.0, write: bool = True) -> Records:
    """Open a jitgames database for reading and writing, checked before any play.

    ``path`` (e.g. ``--db``) or ``default_name`` in :func:`data_dir`. The database is
    created if missing, identified by ``application_id``, migrated to
    ``schema.version``, compared table by table with the schema, probed for writing,
    and pending files of earlier runs are merged into it. With ``write=False`` (a
    command that only reads) nothing is created: a missing file (or folder) raises
    :class:`NoRecords`; a database that needs no change is checked without the write
    probe and its pending files are left for the next writer (one of an older
    version is still migrated in place, as a writer would).

    Raises
    ------
    StoreError
        One line naming the file: not an SQLite database, another program's or another
        kind of jitgames database, a newer schema version, tables that differ, not
        writable, or busy for longer than ``busy_timeout`` seconds; :class:`NoRecords`
        (a StoreError) for a missing file with ``write=False``.
    """
    if not write:
        path = records_path(path, default_name)
    elif path is None:
        path = data_dir() / default_name
    else:
        path = Path(path)
        try:
            data_dir(path.parent)
        except StoreError as exc:
            raise StoreError(f"cannot open database {path}: {exc}") from None

    def refuse(reason):
        return StoreError(f"database {path}: {reason}")

    if path.is_dir():
        raise refuse("is a directory")
    if not write and not path.exists():
        above = path.absolute().parent
        while not above.exists():
            above = above.parent
        if not above.is_dir():
            raise StoreError(f"cannot open database {path}: a file stands where a directory "
                             "is needed")
        raise NoRecords(path)
    kind = _special_kind(_resolve(path))
    if kind is not None:  # before SQLite makes a -journal beside a device
        raise refuse(f"is a {kind}, not a database file")
    try:
        if write:
            con = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None)
        else:  # mode=rw never creates the file, even if it vanished since the check
            con = sqlite3.connect(f"{path.absolute().as_uri()}?mode=rw", uri=True,
                                  timeout=busy_timeout, isolation_level=None)
    except sqlite3.Error as exc:
        if not write and not path.exists():
            raise NoRecords(path) from None
        raise StoreError(f"cannot open database {path}: {exc}") from None
    try:
        _prepare(con, schema, refuse, write)
        if write:
            _merge_pending(con, path, schema)
    except sqlite3.Error as exc:
        con.close()
        text = str(exc)
        if "locked" in text or "busy" in text:
            raise refuse(f"busy (in use by another program for more than {busy_timeout:g} s); "
                         "try again") from None
        if "readonly" in text or "read-only" in text:
            raise refuse("cannot be written (read-only file or directory)") from None
        raise refuse(f"not usable ({text})") from None
    except BaseException:
        con.close()
        raise
    con.isolation_level = ""  # "with con:" transactions from here on
    return Records(con, path, schema, busy_timeout)


def _prepare(con, schema: RecordSchema, refuse, write: bool = True) -> None:
    """Identify, migrate, compare and probe (raises ``refuse(reason)`` or sqlite3.Error)."""
    try:
        app_id = con.execute("PRAGMA application_id").fetchone()[0]
        version = con.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        if "not a database" in str(exc) or "malformed" in str(exc):
            raise refuse("not an SQLite database (or damaged)") from None
        raise
    if app_id not in (0, schema.application_id):
        raise refuse(f"belongs to another program or kind of data (application_id {app_id}), "
                     f"not {schema.name}")
    if version > schema.version:
        raise refuse(f"has schema version {version}, newer than this jitgames knows "
                     f"({schema.version}); use a newer jitgames")
    expected = schema.tables()
    if not write and version == schema.version and app_id == schema.application_id:
        found = _table_columns(con)
        if found != expected:
            raise refuse(f"tables differ from {schema.name} version {schema.version}")
        return
    con.execute("BEGIN IMMEDIATE")  # a write lock: proves the file can be written
    try:
        if version == 0:
            foreign = set(_table_columns(con)) - set(expected)
            if foreign:
                raise refuse(f"holds tables that are not {schema.name}: "
                             f"{', '.join(sorted(foreign)[:3])}")
        for step in range(version, schema.version):
            for statement in _statements(schema.migrations[step]):
                con.execute(statement)
        con.execute(f"PRAGMA application_id = {int(schema.application_id)}")
        con.execute(f"PRAGMA user_version = {schema.version}")
        con.execute(f'CREATE TABLE IF NOT EXISTS "{PENDING_TABLE}" (name TEXT PRIMARY KEY)')
        found = _table_columns(con)
        if found != expected:
            differ = sorted(t for t in set(found) | set(expected)
                            if found.get(t) != expected.get(t))
            raise refuse(f"tables differ from {schema.name} version {schema.version}: "
                         f"{', '.join(differ[:3])}")
        con.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            con.execute("ROLLBACK")
        raise


def _statements(script: str):
    """The SQL statements of a migration script (run one by one inside a transaction;
    ``executescript`` would commit first)."""
    statement = ""
    for line in script.splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            yield statement
            statement = ""
    if statement.strip():
        yield statement


QUARANTINE_SUFFIX = ".damaged"
"""Ending given to a pending file that cannot be merged (renamed aside, kept for the user)."""


def _quarantine(pending: Path, reason: str) -> None:
    """Rename a pending file that cannot be merged to ``NAME.damaged`` (no longer
    matched by :func:`_pending_glob`, so it never blocks a later open) and say so."""
    aside = pending.with_name(pending.name + QUARANTINE_SUFFIX)
    try:
        os.replace(pending, aside)
        where = f"moved aside to {aside}"
    except OSError as exc:
        where = f"could not be moved aside ({_reason(exc)})"
    print(f"jitgames: {' '.join(reason.split())[:300]}; not merged, {where}", file=sys.stderr)


def _merge_pending(con, path: Path, schema: RecordSchema) -> None:
    """Insert the rows of pending files beside ``path``; a damaged one (unreadable,
    malformed, made for another schema, rows that do not fit) is moved aside with a
    warning line (:func:`_quarantine`), so the database stays usable."""
    for pending in sorted(path.parent.glob(_pending_glob(path))):
        try:
            data = load_json(read_checked(pending, PENDING_KIND, PENDING_SCHEMA,
                                          "pending records"), "pending records")
            if data.get("application_id") != schema.application_id \
                    or data.get("version") != schema.version:
                raise StoreError(f"pending records {pending}: made for another schema")
            operations = [(op["table"], op["columns"], op["rows"], op.get("skip_existing", False))
                          for op in data["operations"]]
        except (StoreError, ValueError, KeyError, TypeError, AttributeError) as exc:
            _quarantine(pending, str(exc) if isinstance(exc, StoreError)
                        else f"pending records {pending}: malformed ({exc})")
            continue
        con.execute("BEGIN IMMEDIATE")
        try:
            done = con.execute(f'SELECT 1 FROM "{PENDING_TABLE}" WHERE name = ?',
                               (pending.name,)).fetchone()
            if not done:
                tables = schema.tables()
                for table, columns, rows, skip_existing in operations:
                    if table not in tables or not isinstance(columns, list) or not set(
                            map(str, columns)) <= {c[0] for c in tables[table]}:
                        raise sqlite3.IntegrityError(f"no such table or columns in {schema.name}")
                    con.executemany(_insert_sql(table, columns, skip_existing is True), rows)
                con.execute(f'INSERT INTO "{PENDING_TABLE}" VALUES (?)', (pending.name,))
            con.execute("COMMIT")
        except (sqlite3.Error, ValueError, TypeError, OverflowError) as exc:
            with contextlib.suppress(sqlite3.Error):
                con.execute("ROLLBACK")
            if "locked" in str(exc) or "busy" in str(exc):
                raise
            _quarantine(pending, f"pending records {pending} do not fit {path} ({exc})")
            continue
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                con.execute("ROLLBACK")
            raise
        pending.unlink(missing_ok=True)
        print(f"jitgames: merged the records saved in {pending} into {path}", file=sys.stderr)
