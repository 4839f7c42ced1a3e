"""Nothing lost, nothing forged: the games' stored files and databases under attack.

Checkpoints (solitaire, queens, Mastermind) and Kalah endgame tables are tampered with
-- bit flips, values that still parse (with or without a recomputed checksum), wrong
structure, a foreign schema -- and must be refused (or the table rebuilt) and left
byte-identical. Mastermind and Kalah databases are checked before any play, keep
every game when busy, and record matches correctly.
"""
import hashlib
import io
import json
import sqlite3

import numpy as np
import pytest

from jitgames import _store
from jitgames._chunked import CHECKPOINT_KIND, CHECKPOINT_SCHEMA
from jitgames.kalah import endgame
from jitgames.kalah.__main__ import main as kalah_main
from jitgames.mastermind.__main__ import main as mastermind_main
from jitgames.puzzles.__main__ import main as puzzles_main
from jitgames.solitaire.__main__ import main as solitaire_main
from tests.test_store import make_unwritable


def payload(path):
    return json.loads(_store.read_checked(path, CHECKPOINT_KIND, CHECKPOINT_SCHEMA, "checkpoint"))


def forge(path, data):
    """Rewrite a checkpoint with ``data`` as its payload and a correct checksum (what a
    careful forger or a buggy program would do); returns the bytes written."""
    _store.write_checked(path, CHECKPOINT_KIND, CHECKPOINT_SCHEMA, json.dumps(data).encode())
    return path.read_bytes()


def refused(main, argv, path, capsys, *reasons):
    """``main(argv)`` is refused with one line naming ``path`` and every reason."""
    before = path.read_bytes()
    status = main(argv)
    out, err = capsys.readouterr()
    assert status == 2 and out == "" and err.count("\n") == 1, err
    assert str(path) in err and "Traceback" not in err
    for reason in reasons:
        assert reason in err, err
    assert path.read_bytes() == before


# ----------------------------------------------------------------------------- solitaire

@pytest.fixture(scope="module")
def solitaire_checkpoint(tmp_path_factory):
    """A finished 400-deal study's checkpoint (4 chunks) and its summary."""
    path = tmp_path_factory.mktemp("sol") / "study.ckpt"
    argv = ["400", "--seed", "7", "--chunk-size", "100", "--checkpoint", str(path), "--json",
            "--quiet"]
    assert solitaire_main(argv) == 0
    return path, argv, path.read_bytes()


@pytest.fixture
def study(solitaire_checkpoint, tmp_path):
    original, argv, data = solitaire_checkpoint
    path = tmp_path / "study.ckpt"
    path.write_bytes(data)
    return path, [str(path) if a == str(original) else a for a in argv]


def test_resumed_study_is_the_same_and_checkpoint_is_valid(study, capsys):
    path, argv = study
    capsys.readouterr()
    assert solitaire_main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["resumed_chunks"] == 4 and summary["deals"] == 400
    assert len(payload(path)["chunks"]) == 4


def test_changed_digit_of_a_partial_sum_is_refused(study, capsys):
    """The issue's attack: one partial sum changed so that the mean reads 10.08."""
    path, argv = study
    data = payload(path)
    total = sum(c[2]["partial"]["score_sum"] for c in data["chunks"])
    data["chunks"][1][2]["partial"]["score_sum"] += round(10.08 * 400) - total
    raw = path.read_bytes()
    new = json.dumps(data).encode()
    # without a new checksum (the length in the header corrected): the checksum differs
    header = json.loads(raw.split(b"\n", 1)[0])
    header["bytes"] = len(new)
    path.write_bytes(json.dumps(header).encode() + b"\n" + new)
    refused(solitaire_main, argv, path, capsys, "checksum mismatch")
    # with a recomputed checksum: the partial's own invariants catch it
    forge(path, data)
    refused(solitaire_main, argv, path, capsys, "items [100, 200)", "score_sum differs")


@pytest.mark.parametrize("change, reason", [
    (lambda p: p.update(deals=p["deals"] + 1), "deals is 101"),
    (lambda p: p["histogram"].append(0), "54 entries"),
    (lambda p: p["histogram"].__setitem__(0, -1), "histogram[0] is -1"),
    (lambda p: p.update(moves_sum=None), "moves_sum is None"),
    (lambda p: p.update(moves_squares=p["moves_sum"] - 1), "moves_squares cannot be"),
    (lambda p: p.update(positions=1.5), "positions is 1.5"),
    (lambda p: p.update(grown=1), "largest_capacity does not match"),
    (lambda p: p.update(capacity=1024), "capacity is 1024"),
    (lambda p: p.update(extra=1), "unexpected keyword"),
])
def test_structurally_wrong_partials_are_refused(study, capsys, change, reason):
    path, argv = study
    data = payload(path)
    change(data["chunks"][2][2]["partial"])
    forge(path, data)
    refused(solitaire_main, argv, path, capsys, "items [200, 300)", reason)


@pytest.mark.parametrize("change, reason", [
    (lambda d: d["chunks"].append(d["chunks"][0]), "appear twice"),
    (lambda d: d["chunks"].append([0, 50, d["chunks"][0][2]]), "items [0, 50)"),
    (lambda d: d["chunks"][0].__setitem__(1, 500), "not part of one chunk"),
    (lambda d: d["chunks"].__setitem__(0, "x"), "malformed entry"),
    (lambda d: d.update(chunks={}), "no list of chunks"),
])
def test_wrong_ranges_are_refused(study, capsys, change, reason):
    path, argv = study
    data = payload(path)
    change(data)
    forge(path, data)
    refused(solitaire_main, argv, path, capsys, reason)


def test_foreign_schema_and_old_format_are_refused(study, capsys):
    path, argv = study
    raw = path.read_bytes()
    path.write_bytes(raw.replace(b'"schema": 2', b'"schema": 3', 1))
    refused(solitaire_main, argv, path, capsys, "schema version 3")
    path.write_bytes(b'{"format": "jitgames-checkpoint-1", "job": "solitaire.study", '
                     b'"chunks": []}')  # a checkpoint of the first releases
    refused(solitaire_main, argv, path, capsys, "not a jitgames")


def test_bit_flips_anywhere_are_refused(study, capsys):
    path, argv = study
    raw = path.read_bytes()
    body = raw.index(b"\n") + 1
    for index in (body + 10, body + len(raw[body:]) // 2, len(raw) - 2):
        path.write_bytes(raw[:index] + bytes([raw[index] ^ 1]) + raw[index + 1:])
        refused(solitaire_main, argv, path, capsys, "checksum mismatch")


def test_csv_rows_in_a_checkpoint_must_agree_with_the_partial(tmp_path, capsys):
    path, out = tmp_path / "s.ckpt", tmp_path / "s.csv"
    argv = ["200", "--chunk-size", "100", "--checkpoint", str(path), "--out", str(out),
            "--quiet"]
    assert solitaire_main(argv) == 0
    capsys.readouterr()
    data = payload(path)
    rows = data["chunks"][0][2]["rows"].splitlines()
    index, score, *rest = rows[5].split(",")
    rows[5] = ",".join([index, str((int(score) + 1) % 53), *rest])
    data["chunks"][0][2]["rows"] = "\n".join(rows) + "\n"
    forge(path, data)
    refused(solitaire_main, argv, path, capsys, "per-deal scores disagree")


# ----------------------------------------------------------------------------- queens

def test_queens_checkpoint_tampering_is_refused(tmp_path, capsys):
    path = tmp_path / "q.ckpt"
    argv = ["queens", "9", "--checkpoint", str(path), "--chunks", "4", "--quiet"]
    assert puzzles_main(argv) == 0
    capsys.readouterr()
    data = payload(path)
    for change, reason in [(lambda c: c.__setitem__(0, -1), "queens counts[0] is -1"),
                           (lambda c: c.append(0), "3 entries"),
                           (lambda c: c.__setitem__(1, "7"), "not an integer"),
                           (lambda c: c.__setitem__(0, 10**12), "count is 1000000000000")]:
        forged = json.loads(json.dumps(data))
        change(forged["chunks"][1][2])
        forge(path, forged)
        refused(puzzles_main, argv, path, capsys, "items [1, 2)", reason)


# ----------------------------------------------------------------------------- Mastermind

def test_mastermind_checkpoint_tampering_is_refused(tmp_path, capsys):
    path = tmp_path / "mm.ckpt"
    argv = ["evaluate", "-p", "3", "-k", "3", "--chunk-size", "9", "--checkpoint", str(path),
            "--json"]
    assert mastermind_main(argv) == 0
    capsys.readouterr()
    data = payload(path)
    for change, reason in [(lambda g: g.__setitem__(0, 0), "guess counts[0] is 0"),
                           (lambda g: g.__setitem__(3, 28), "is 28, not in [1, 27]"),
                           (lambda g: g.pop(), "8 entries, not 9")]:
        forged = json.loads(json.dumps(data))
        change(forged["chunks"][2][2])
        forge(path, forged)
        refused(mastermind_main, argv, path, capsys, "items [18, 27)", reason)


def run_game(capsys, monkeypatch, argv, stdin=""):
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    status = mastermind_main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def foreign_database(path):
    con = sqlite3.connect(path)
    con.executescript("CREATE TABLE invoices (number INTEGER, amount REAL);"
                      "INSERT INTO invoices VALUES (1, 9.5);")
    con.close()
    return path.read_bytes()


@pytest.mark.parametrize("command", [["play"], ["play", "--role", "maker"],
                                     ["match", "--players", "human:a", "knuth"], ["stats"]])
def test_foreign_database_is_refused_before_any_play(tmp_path, capsys, monkeypatch, command):
    path = tmp_path / "other.sqlite"
    before = foreign_database(path)
    status, out, err = run_game(capsys, monkeypatch, command + ["--db", str(path)], "1234\n")
    assert status == 2 and out == "" and err.count("\n") == 1
    assert f"database {path}: holds tables that are not Mastermind statistics" in err
    assert path.read_bytes() == before


def test_unwritable_database_is_refused_before_any_play(tmp_path, capsys, monkeypatch):
    path = tmp_path / "ro" / "mm.sqlite"
    path.parent.mkdir()
    assert run_game(capsys, monkeypatch, ["stats", "--db", str(path)])[0] == 0
    undo = make_unwritable(path)
    try:
        status, out, err = run_game(capsys, monkeypatch, ["play", "--db", str(path)], "1234\n")
    finally:
        undo()
    assert status == 2 and out == "" and "cannot be written" in err and err.count("\n") == 1


def test_busy_database_keeps_the_game_for_the_next_run(tmp_path, capsys, monkeypatch):
    path = tmp_path / "mm.sqlite"
    assert run_game(capsys, monkeypatch, ["stats", "--db", str(path)])[0] == 0
    from jitgames.mastermind import stats

    real_open = stats.open_db
    monkeypatch.setattr(stats, "open_db", lambda p=None, write=True: _store.open_records(
        p, stats.DB_FILE, stats.SCHEMA, busy_timeout=0.2, write=write))
    import jitgames.mastermind.play as play
    monkeypatch.setattr(play, "open_db", stats.open_db)
    holder = None

    def lock_after_open(*args, **kwargs):  # another program writes while we play
        nonlocal holder
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        return real_breaks(*args, **kwargs)

    real_breaks = play.human_breaks
    monkeypatch.setattr(play, "human_breaks", lock_after_open)
    try:
        status, out, err = run_game(capsys, monkeypatch, [
            "play", "-p", "2", "-k", "2", "--secret-seed", "1", "--name", "zoe", "--db",
            str(path)], "11\n12\n21\n22\n")
    finally:
        holder.close()
    assert status == 0 and "Solved in" in out
    assert "could not store" in err and "added to the database by the next run" in err
    assert len(list(tmp_path.glob("mm.sqlite.pending-*.json"))) == 1
    monkeypatch.setattr(play, "human_breaks", real_breaks)
    status, out, err = run_game(capsys, monkeypatch, ["stats", "--db", str(path), "--json"])
    assert status == 0 and "merged" in err
    players = {r["player"]: r for r in json.loads(out)["players"]}
    assert players["zoe"]["games"] == 1 and players["zoe"]["solved"] == 1
    assert list(tmp_path.glob("mm.sqlite.pending-*.json")) == []


def test_match_quit_is_recorded_unsolved_and_rounds_are_balanced(tmp_path, capsys,
                                                                monkeypatch):
    db = str(tmp_path / "m.sqlite")
    status, out, err = run_game(capsys, monkeypatch, [
        "match", "-p", "2", "-k", "2", "--players", "human:qi", "knuth", "--rounds", "3",
        "--db", db])
    assert status == 2 and "--rounds must be even" in err and out == ""
    # round 1: knuth breaks qi's code 11; round 2: qi gives up on knuth's code
    from jitgames.mastermind.breaker import Breaker
    from jitgames.mastermind.codes import load_game
    space, matrix = load_game(2, 2)
    b, answers = Breaker("knuth", space, matrix), []
    while True:
        f = space.feedback(b.guess(), space.parse("11"))
        answers.append("%d %d" % divmod(f, 3))
        if b.answer(f):
            break
    status, out, _ = run_game(capsys, monkeypatch, [
        "match", "-p", "2", "-k", "2", "--players", "human:qi", "knuth", "--rounds", "2",
        "--seed", "0", "--db", db, "--max-guesses", "4"], "\n".join(answers + ["quit"]) + "\n")
    assert status == 0 and "Given up" in out and "Match:" in out
    con = sqlite3.connect(db)
    games = con.execute("SELECT player, guesses, solved FROM games ORDER BY player").fetchall()
    matches = dict(con.execute("SELECT player, result FROM matches").fetchall())
    con.close()
    assert games == [("knuth", len(answers), 1), ("qi", 5, 0)]   # 5 = one over the limit
    assert matches == {"qi": "loss", "knuth": "win"}


# ----------------------------------------------------------------------------- Kalah

def test_kalah_tournament_foreign_or_busy_database(tmp_path, capsys):
    path = tmp_path / "k.sqlite"
    before = foreign_database(path)
    argv = ["tournament", "store@1", "store@2", "--pits", "3", "--stones", "2", "--openings",
            "2", "--json", "--quiet", "--db", str(path)]
    assert kalah_main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and "not Kalah tournament games" in err and path.read_bytes() == before
    good = tmp_path / "good.sqlite"
    argv[-1] = str(good)
    assert kalah_main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    import jitgames.kalah.tournament as tournament

    holder = None
    real_round = tournament.play_round

    def locked_round(*args, **kwargs):
        nonlocal holder
        holder = sqlite3.connect(good, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        return real_round(*args, **kwargs)

    tournament.play_round = locked_round
    old_open = tournament.open_records
    tournament.open_records = lambda *a: old_open(*a, busy_timeout=0.2)
    try:
        assert kalah_main(argv + ["--pool"]) == 0
    finally:
        tournament.play_round, tournament.open_records = real_round, old_open
        holder.close()
    out, err = capsys.readouterr()
    # the games went to a pending file; the locked database could not be read either,
    # so the pooled table rates this run's games alone
    assert "saved in" in err and "the table shows this run's games" in err
    assert json.loads(out)["games_rated"] == first["games_rated"]
    assert kalah_main(argv + ["--pool"]) == 0
    out, err = capsys.readouterr()
    # the pending games are merged, and being the first run's games again they count once
    assert "merged" in err and json.loads(out)["games_rated"] == first["games_rated"]


def test_tampered_endgame_table_is_rebuilt_and_says_so(tmp_path, capsys):
    m, variant, stones = 2, 0, 6
    binom = endgame.binomials(stones + 2 * m + 1, 2 * m + 1)
    db, how = endgame.endgame_database(m, stones, variant, binom, tmp_path)
    assert how == "built"
    path = endgame.database_file(tmp_path, m, variant, stones)
    good = path.read_bytes()
    header, body = good.split(b"\n", 1)
    # a bit flip in the entries, checksum left as it was
    flipped = header + b"\n" + body[:-5] + bytes([body[-5] ^ 2]) + body[-4:]
    # entries changed with a recomputed checksum: out of bounds or wrong parity
    entries = np.load(io.BytesIO(body))
    for forged in (flipped, _forged_table(entries, -1, 7), _forged_table(entries, 40, 1)):
        path.write_bytes(forged)
        again, how = endgame.endgame_database(m, stones, variant, binom, tmp_path)
        err = capsys.readouterr().err
        assert how == "built" and (again == db).all()
        assert f"endgame table {path}" in err and "building it again" in err
        assert path.read_bytes() == good    # rebuilt in place
    assert endgame.endgame_database(m, stones, variant, binom, tmp_path)[1] == "loaded"


def _forged_table(entries, index, value):
    """The table file with entry ``index`` set to ``value`` and a correct checksum."""
    forged = entries.copy()
    forged[index] = value
    buffer = io.BytesIO()
    np.save(buffer, forged, allow_pickle=False)
    body = buffer.getvalue()
    header = {"kind": endgame.TABLE_KIND, "schema": endgame.TABLE_SCHEMA, "bytes": len(body),
              "sha256": hashlib.sha256(body).hexdigest()}
    return json.dumps(header).encode() + b"\n" + body


def test_kalah_cli_reports_a_rebuilt_table(tmp_path, capsys):
    directory = tmp_path / "tables"
    argv = ["solve", "2", "2", "--json", "--endgame-stones", "5", "--endgame-dir",
            str(directory)]
    assert kalah_main(argv) == 0
    value = json.loads(capsys.readouterr().out)["value"]
    (path,) = directory.iterdir()
    data = path.read_bytes()
    path.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    assert kalah_main(argv) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["value"] == value and json.loads(out)["endgame_source"] == "built"
    assert "checksum mismatch" in err and "building it again" in err


# ----------------------------------------------------------------------------- --out

def test_out_into_dev_null_and_through_a_symlink(tmp_path, capsys):
    import os
    import stat

    before = os.stat("/dev/null")
    assert solitaire_main(["20", "--out", "/dev/null", "--quiet"]) == 0
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (
        before.st_ino, before.st_rdev)
    target, link = tmp_path / "results.csv", tmp_path / "latest.csv"
    target.write_text("old\n")
    link.symlink_to(target)
    assert solitaire_main(["20", "--out", str(link), "--quiet"]) == 0
    assert link.is_symlink() and len(target.read_text().splitlines()) == 21
    capsys.readouterr()
