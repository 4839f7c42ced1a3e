"""Results of played games in SQLite (standard library ``sqlite3``), and the player table.

One row per game in table ``games``: the player, the deal (seed and index with the
shuffle, or deal file and line), the score, the deal's optimal score, the moves on
the board at the end, the hints and undos asked for, and the UTC date. The default
file is ``solitaire.sqlite`` in the jitgames data directory
(``$XDG_DATA_HOME/jitgames``); ``--db PATH`` overrides it.

The schema's version is kept in ``PRAGMA user_version`` and checked when the file is
opened, before any play: a file that is not an SQLite database, holds other tables,
has another version or cannot be written is refused with one line
(:class:`jitgames._cli.CLIError`), and nothing in it is changed.
"""
from __future__ import annotations

import datetime as _dt
import sqlite3
from dataclasses import astuple, dataclass

from .. import _cli

__all__ = ["DB_FILE", "SCHEMA_VERSION", "GameRecord", "open_db", "record_game", "player_table"]

DB_FILE = "solitaire.sqlite"
SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE games (
    player TEXT NOT NULL, shuffle TEXT, seed TEXT, deal_index TEXT, deal_file TEXT,
    deal_line INTEGER, score INTEGER NOT NULL, optimum INTEGER NOT NULL,
    moves INTEGER NOT NULL, hints INTEGER NOT NULL, undos INTEGER NOT NULL,
    played_at TEXT NOT NULL);
"""
_COLUMNS = ("player", "shuffle", "seed", "deal_index", "deal_file", "deal_line", "score",
            "optimum", "moves", "hints", "undos", "played_at")


@dataclass(frozen=True)
class GameRecord:
    """One finished game. Seeds and indices are kept as text (they reach 2**64 - 1,
    beyond SQLite's integers); a deal from a file has ``deal_file`` and ``deal_line``."""

    player: str
    shuffle: str | None
    seed: int | None
    deal_index: int | None
    deal_file: str | None
    deal_line: int | None
    score: int
    optimum: int
    moves: int
    hints: int
    undos: int
    played_at: str = ""


def open_db(path=None, *, write: bool = True) -> sqlite3.Connection:
    """Open the results database, creating its table in a new file.

    With ``write`` the file must also accept writes (checked now, by a write rolled
    back, so that a game is never played for nothing). Raises
    :class:`jitgames._cli.CLIError` for a file that is not this database.
    """
    shown = path if path is not None else DB_FILE
    con = _cli.connect_db(DB_FILE, path)
    try:
        _check_schema(con, shown, write)
    except sqlite3.Error as exc:  # not an SQLite file, read-only, locked, ...
        con.close()
        raise _cli.CLIError(f"cannot use database {shown}: {exc}") from None
    except _cli.CLIError:
        con.close()
        raise
    return con


def _check_schema(con: sqlite3.Connection, shown, write: bool) -> None:
    version = con.execute("PRAGMA user_version").fetchone()[0]
    tables = {name for (name,) in con.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}
    if version == 0 and not tables:
        con.executescript(f"BEGIN; {_SCHEMA} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;")
        return
    if version != SCHEMA_VERSION or tables != {"games"}:
        raise _cli.CLIError(f"{shown} is not a solitaire results database (schema version "
                            f"{version}, tables {', '.join(sorted(tables)) or 'none'}; this "
                            f"program writes version {SCHEMA_VERSION}); give another --db")
    columns = tuple(row[1] for row in con.execute("PRAGMA table_info(games)"))
    if columns != _COLUMNS:
        raise _cli.CLIError(f"{shown}: table games has columns {', '.join(columns)}, not "
                            f"those of schema version {SCHEMA_VERSION}; give another --db")
    if write:
        con.execute("BEGIN IMMEDIATE")
        try:
            con.execute("CREATE TABLE write_probe (x)")
        finally:
            con.rollback()


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def record_game(con: sqlite3.Connection, record: GameRecord) -> None:
    """Store one finished game (dated now unless ``record.played_at`` is set)."""
    row = list(astuple(record))
    row[2] = None if record.seed is None else str(record.seed)
    row[3] = None if record.deal_index is None else str(record.deal_index)
    row[-1] = record.played_at or _now()
    with con:
        con.execute(f"INSERT INTO games VALUES ({', '.join('?' * len(_COLUMNS))})", row)


def player_table(con: sqlite3.Connection) -> list[dict]:
    """Per player: games, mean score, mean cards lost against the optimum, wins (52
    cards), games played perfectly (score = optimum), hints and undos per game."""
    rows = []
    for player, games, mean, lost, wins, perfect, hints, undos in con.execute(
            "SELECT player, COUNT(*), AVG(score), AVG(optimum - score), SUM(score = 52), "
            "SUM(score = optimum), AVG(hints), AVG(undos) FROM games "
            "GROUP BY player ORDER BY player"):
        rows.append({"player": player, "games": games, "mean_score": mean,
                     "mean_lost": lost, "wins": wins, "perfect": perfect,
                     "mean_hints": hints, "mean_undos": undos})
    return rows
