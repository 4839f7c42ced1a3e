"""jitgames._store: writes that never clobber, checked files, SQLite that keeps every record."""
import json
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import threading

import pytest

from jitgames import _store
from jitgames._store import StoreError

WAIT = 20  # seconds: the most any wait of these tests may take


# ----------------------------------------------------------------------------- atomic writes

def test_symlink_is_followed_and_stays_a_link(tmp_path):
    target = tmp_path / "real.csv"
    target.write_text("old")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    _store.atomic_write_text(link, "new")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "new"
    chain = tmp_path / "chain.csv"
    chain.symlink_to(link)  # a link to a link: the final target is written
    _store.atomic_write_text(chain, "newer")
    assert chain.is_symlink() and link.is_symlink() and target.read_text() == "newer"


def test_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "link.csv"
    link.symlink_to(tmp_path / "sub" / "made.csv")
    _store.atomic_write_text(link, "x")
    assert link.is_symlink() and (tmp_path / "sub" / "made.csv").read_text() == "x"


def test_dev_null_is_written_into_and_stays_a_device():
    before = os.stat("/dev/null")
    _store.check_writable("/dev/null")
    _store.atomic_write_text("/dev/null", "nothing to keep\n")
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev
    assert after.st_ino == before.st_ino


def test_fifo_is_written_into_never_replaced(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    _store.check_writable(fifo)  # must not open (and so block on) the FIFO
    received = []

    def reader():
        with open(fifo, "rb") as handle:
            received.append(handle.read())

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    writer = threading.Thread(target=_store.atomic_write_text, args=(fifo, ["a,", "b\n"]),
                              daemon=True)
    writer.start()
    writer.join(WAIT)
    thread.join(WAIT)
    assert not writer.is_alive() and not thread.is_alive()
    assert received == [b"a,b\n"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_directory_and_socket_are_refused(tmp_path):
    with pytest.raises(StoreError, match="cannot write"):
        _store.atomic_write_text(tmp_path, "x")
    import socket

    path = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    try:
        with pytest.raises(StoreError, match="it is a socket"):
            _store.atomic_write_text(path, "x")
        with pytest.raises(StoreError, match="it is a socket"):
            _store.check_writable(path)
    finally:
        server.close()
    assert stat.S_ISSOCK(os.stat(path).st_mode)


def test_replaced_file_keeps_its_permissions(tmp_path):
    target = tmp_path / "private.json"
    target.write_text("old")
    target.chmod(0o600)
    _store.atomic_write_text(target, "new")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600 and target.read_text() == "new"


def test_interrupted_write_leaves_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old\n")

    def pieces():
        yield "partial,"
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _store.atomic_write_text(target, pieces())
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]


KILLED_WRITER = """
import os, signal, sys
from jitgames import _store

def pieces():
    yield "half of it,"
    os.kill(os.getpid(), signal.SIGKILL)

_store.atomic_write_text(sys.argv[1], pieces())
"""


def test_temporary_file_of_a_killed_write_is_removed_by_the_next(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old\n")
    child = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(target)], timeout=WAIT,
                           capture_output=True)
    assert child.returncode == -signal.SIGKILL
    stale = [p.name for p in tmp_path.iterdir() if p.name.endswith(_store.TEMP_SUFFIX)]
    assert len(stale) == 1 and stale[0].startswith(".out.csv.")   # the kill left it
    assert target.read_text() == "old\n"
    # a live process's temporary file (this one's) is not touched
    mine = tmp_path / f".out.csv.{os.getpid()}.beef{_store.TEMP_SUFFIX}"
    mine.write_text("in progress")
    _store.atomic_write_text(target, "new\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["out.csv", mine.name])
    assert target.read_text() == "new\n"


# ----------------------------------------------------------------------------- checked files

def _checked(tmp_path, payload=b'{"x": [1, 2, 3]}'):
    path = tmp_path / "thing.ckpt"
    _store.write_checked(path, "jitgames-test", 3, payload)
    return path


def test_checked_file_round_trip(tmp_path):
    path = _checked(tmp_path)
    assert _store.read_checked(path, "jitgames-test", 3, "test file") == b'{"x": [1, 2, 3]}'


def _flip_bit(data: bytes, index: int) -> bytes:
    return data[:index] + bytes([data[index] ^ 0x04]) + data[index + 1:]


@pytest.mark.parametrize("tamper, reason", [
    (lambda d: _flip_bit(d, len(d) - 3), "checksum mismatch"),       # payload bit flip
    (lambda d: d.replace(b"[1, 2, 3]", b"[1, 2, 4]"), "checksum mismatch"),  # still parses
    (lambda d: d[:-1], "truncated"),
    (lambda d: d + b" ", "appended"),
    (lambda d: d.replace(b'"schema": 3', b'"schema": 4'), "schema version 4"),
    (lambda d: d.replace(b"jitgames-test", b"jitgames-other"), "not a jitgames-test"),
    (lambda d: d.split(b"\n", 1)[1], "not a jitgames-test file [(]no valid header"),
    (lambda d: b"", "no valid header"),
])
def test_tampered_checked_file_is_refused_and_left_alone(tmp_path, tamper, reason):
    path = _checked(tmp_path)
    data = tamper(path.read_bytes())
    path.write_bytes(data)
    with pytest.raises(StoreError, match=reason) as info:
        _store.read_checked(path, "jitgames-test", 3, "test file")
    assert str(info.value).startswith(f"test file {path}: ") and "\n" not in str(info.value)
    assert path.read_bytes() == data


@pytest.mark.parametrize("kind, named", [("jitgames-test", "a jitgames-test file"),
                                         ("mastermind.best", "a jitgames mastermind.best file")])
def test_a_file_without_header_names_its_kind_once(tmp_path, kind, named):
    path = tmp_path / "plain.txt"
    path.write_bytes(b"root:x:0:0\n")
    with pytest.raises(StoreError) as info:
        _store.read_checked(path, kind, 3, "checkpoint")
    assert f"not {named} (no valid header line)" in str(info.value)
    assert "jitgames jitgames" not in str(info.value)


# ----------------------------------------------------------------------------- SQLite records

SCHEMA = _store.RecordSchema("test records", 0x6A670001, (
    "CREATE TABLE IF NOT EXISTS games (player TEXT NOT NULL, score INTEGER NOT NULL);",
    "ALTER TABLE games ADD COLUMN note TEXT;",
))


def _rows(path):
    con = sqlite3.connect(path)
    try:
        return sorted(con.execute("SELECT player, score FROM games").fetchall())
    finally:
        con.close()


def test_new_database_gets_its_identity_and_version(tmp_path):
    path = tmp_path / "r.sqlite"
    with _store.open_records(path, "unused", SCHEMA) as records:
        assert records.insert("games", ("player", "score"), [("ann", 3), ("bob", 5)])
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA user_version").fetchone()[0] == 2
    assert con.execute("PRAGMA application_id").fetchone()[0] == 0x6A670001
    con.close()
    assert _rows(path) == [("ann", 3), ("bob", 5)]


def test_default_place_is_the_data_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    with _store.open_records(None, "default.sqlite", SCHEMA):
        pass
    assert (tmp_path / "jitgames" / "default.sqlite").exists()


def test_older_version_is_migrated_keeping_its_rows(tmp_path):
    path = tmp_path / "r.sqlite"
    con = sqlite3.connect(path)  # as the first releases left it: tables, no version
    con.executescript(SCHEMA.migrations[0] + "INSERT INTO games VALUES ('old', 7);")
    con.close()
    with _store.open_records(path, "unused", SCHEMA) as records:
        records.insert("games", ("player", "score", "note"), [("new", 1, "hi")])
    assert _rows(path) == [("new", 1), ("old", 7)]


def _foreign(path, script):
    con = sqlite3.connect(path)
    con.executescript(script)
    con.close()
    return path.read_bytes()


@pytest.mark.parametrize("script, reason", [
    ("CREATE TABLE customers (name TEXT);", "holds tables that are not test records"),
    ("PRAGMA application_id = 1234; CREATE TABLE games (player TEXT);", "another program"),
    ("PRAGMA user_version = 9;", "newer than this jitgames knows"),
    ("CREATE TABLE games (player TEXT, points REAL);", "tables differ"),
])
def test_foreign_database_is_refused_and_untouched(tmp_path, script, reason):
    path = tmp_path / "r.sqlite"
    before = _foreign(path, script)
    with pytest.raises(StoreError, match=reason) as info:
        _store.open_records(path, "unused", SCHEMA)
    assert str(info.value).startswith(f"database {path}: ")
    assert path.read_bytes() == before


def test_file_that_is_not_sqlite_is_refused_and_untouched(tmp_path):
    path = tmp_path / "notes.sqlite"
    path.write_bytes(b"my notes, not a database\n" * 100)
    with pytest.raises(StoreError, match="not an SQLite database"):
        _store.open_records(path, "unused", SCHEMA)
    assert path.read_bytes() == b"my notes, not a database\n" * 100


def make_unwritable(path):
    """Make ``path`` and its directory unwritable even for root, and return how to undo
    it: permission bits for a user, the immutable attribute for root (who writes
    through permission bits)."""
    directory = path.parent
    if os.getuid() != 0:
        path.chmod(0o444)
        directory.chmod(0o555)
        return lambda: (directory.chmod(0o755), path.chmod(0o644))
    done = subprocess.run(["chattr", "+i", str(path), str(directory)], capture_output=True,
                          timeout=WAIT)
    if done.returncode != 0:
        pytest.skip(f"running as root where chattr +i is unavailable: {done.stderr!r}")
    return lambda: subprocess.run(["chattr", "-i", str(path), str(directory)], timeout=WAIT)


@pytest.fixture
def unwritable_database(tmp_path):
    """A valid database (version 1 of SCHEMA's first step) that cannot be written."""
    path = tmp_path / "ro" / "r.sqlite"
    path.parent.mkdir()
    schema = _store.RecordSchema("test records", 0x6A670001, SCHEMA.migrations[:1])
    _store.open_records(path, "unused", schema).close()
    undo = make_unwritable(path)
    try:
        yield path, schema
    finally:
        undo()


def test_unwritable_database_is_refused_before_use(unwritable_database):
    path, schema = unwritable_database
    before = path.read_bytes()
    with pytest.raises(StoreError) as info:
        _store.open_records(path, "unused", schema)
    assert str(info.value) == f"database {path}: cannot be written (read-only file or directory)"
    assert path.read_bytes() == before


def _locked(path):
    """A connection holding an exclusive lock on ``path`` (as a long writer would)."""
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("BEGIN EXCLUSIVE")
    return con


def test_busy_database_at_open_is_one_line(tmp_path):
    path = tmp_path / "r.sqlite"
    _store.open_records(path, "unused", SCHEMA).close()
    holder = _locked(path)
    try:
        with pytest.raises(StoreError, match="busy"):
            _store.open_records(path, "unused", SCHEMA, busy_timeout=0.2)
    finally:
        holder.close()


def test_busy_database_keeps_the_rows_in_a_pending_file_merged_once(tmp_path, capsys):
    path = tmp_path / "r.sqlite"
    records = _store.open_records(path, "unused", SCHEMA, busy_timeout=0.2)
    holder = _locked(path)
    try:
        assert not records.insert("games", ("player", "score"), [("ann", 3), ("bob", 4)])
    finally:
        holder.close()
        records.close()
    err = capsys.readouterr().err
    pending = sorted(tmp_path.glob("r.sqlite.pending-*.json"))
    assert len(pending) == 1 and str(pending[0]) in err and err.count("\n") == 1
    saved = pending[0].read_bytes()
    assert _rows(path) == []
    with _store.open_records(path, "unused", SCHEMA):
        pass
    assert _rows(path) == [("ann", 3), ("bob", 4)]
    assert not pending[0].exists() and "merged" in capsys.readouterr().err
    # a crash between the merge and the removal of the file must not count it twice
    pending[0].write_bytes(saved)
    with _store.open_records(path, "unused", SCHEMA):
        pass
    assert _rows(path) == [("ann", 3), ("bob", 4)] and not pending[0].exists()


def test_damaged_pending_file_is_moved_aside(tmp_path, capsys):
    path = tmp_path / "r.sqlite"
    _store.open_records(path, "unused", SCHEMA).close()
    bad = tmp_path / "r.sqlite.pending-1-2-abc.json"
    _store.write_checked(bad, _store.PENDING_KIND, _store.PENDING_SCHEMA, json.dumps(
        {"application_id": SCHEMA.application_id, "version": SCHEMA.version,
         "operations": [{"table": "games", "columns": ["player", "score"],
                         "rows": [["eve", 1]]}]}).encode())
    data = bad.read_bytes().replace(b'"eve"', b'"mal"')   # forged after it was written
    bad.write_bytes(data)
    with _store.open_records(path, "unused", SCHEMA):
        pass
    err = capsys.readouterr().err
    assert "checksum mismatch" in err and "moved aside" in err
    aside = bad.with_name(bad.name + _store.QUARANTINE_SUFFIX)
    assert not bad.exists() and aside.read_bytes() == data and _rows(path) == []


def test_a_read_only_open_creates_nothing(tmp_path, monkeypatch):
    missing = tmp_path / "new" / "folder" / "r.sqlite"
    with pytest.raises(_store.NoRecords, match="no database .*r.sqlite") as caught:
        _store.open_records(missing, "unused", SCHEMA, write=False)
    assert caught.value.path == missing and isinstance(caught.value, StoreError)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    with pytest.raises(_store.NoRecords):
        _store.open_records(None, "default.sqlite", SCHEMA, write=False)
    assert list(tmp_path.iterdir()) == []
    # a file where a folder should be is an error, not "nothing recorded"
    (tmp_path / "a_file").write_text("")
    with pytest.raises(StoreError, match="a file stands where a directory is needed") as caught:
        _store.open_records(tmp_path / "a_file" / "r.sqlite", "unused", SCHEMA, write=False)
    assert not isinstance(caught.value, _store.NoRecords)
    # an existing database is read as before
    path = tmp_path / "r.sqlite"
    with _store.open_records(path, "unused", SCHEMA) as records:
        records.insert("games", ("player", "score"), [("ann", 3)])
    with _store.open_records(path, "unused", SCHEMA, write=False) as records:
        assert records.con.execute("SELECT player, score FROM games").fetchall() == [("ann", 3)]


UNIQUE = _store.RecordSchema("test records", 0x6A670002, (
    "CREATE TABLE IF NOT EXISTS games (player TEXT NOT NULL, score INTEGER NOT NULL);\n"
    "CREATE UNIQUE INDEX IF NOT EXISTS games_once ON games (player, score);",
))


def test_skip_existing_stores_a_record_once_directly_and_through_a_pending_file(tmp_path,
                                                                                capsys):
    path = tmp_path / "r.sqlite"
    with _store.open_records(path, "unused", UNIQUE) as records:
        assert records.insert("games", ("player", "score"), [("ann", 3), ("bob", 4)],
                              skip_existing=True)
        assert records.insert("games", ("player", "score"), [("ann", 3), ("eve", 5)],
                              skip_existing=True)
        with pytest.raises(sqlite3.IntegrityError):   # without it, a duplicate is an error
            with records.con:
                records.con.execute("INSERT INTO games VALUES ('ann', 3)")
    assert _rows(path) == [("ann", 3), ("bob", 4), ("eve", 5)]
    records = _store.open_records(path, "unused", UNIQUE, busy_timeout=0.2)
    holder = _locked(path)
    try:  # busy: the rows go to a pending file, which keeps skip_existing
        assert not records.insert("games", ("player", "score"), [("bob", 4), ("fay", 6)],
                                  skip_existing=True)
    finally:
        holder.close()
        records.close()
    capsys.readouterr()
    with _store.open_records(path, "unused", UNIQUE):
        pass
    assert "merged" in capsys.readouterr().err
    assert _rows(path) == [("ann", 3), ("bob", 4), ("eve", 5), ("fay", 6)]
    assert list(tmp_path.glob("r.sqlite.pending-*.json")) == []
