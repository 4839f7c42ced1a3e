"""Results of played games in SQLite (through :mod:`jitgames._store`), and the player table.

One row per game in table ``solitaire_games``: the player, the deal (seed and index
with the shuffle, or deal file and line), the score, the deal's optimal score, the
moves on the board at the end, the hints and undos asked for, and the UTC date. The
default file is ``solitaire.sqlite`` in the jitgames data directory
(``$XDG_DATA_HOME/jitgames``); ``--db PATH`` overrides it.

The database is opened by :func:`jitgames._store.open_records`, before any play: it
is identified by ``PRAGMA application_id``, its schema version is kept in ``PRAGMA
user_version``, its tables are compared with the schema and it is probed for
writing; a file that is not an SQLite database, holds other tables, has a newer
version or cannot be written is refused with one line (a
:class:`jitgames._store.StoreError`, status 2 at the command line), and nothing in
it is changed. A result that cannot be stored at the end (a busy database) is kept
in a pending file beside it and merged by the next run.
"""
from __future__ import annotations

import datetime as _dt
from dataclasses import astuple, dataclass

from .. import _store

__all__ = ["DB_FILE", "SCHEMA", "GameRecord", "open_db", "record_game", "player_table",
           "record_line"]

DB_FILE = "solitaire.sqlite"
SCHEMA = _store.RecordSchema("solitaire game results", 0x6A67534C, (
    # version 1
    """
    CREATE TABLE IF NOT EXISTS solitaire_games (
        player TEXT NOT NULL, shuffle TEXT, seed TEXT, deal_index TEXT, deal_file TEXT,
        deal_line INTEGER, score INTEGER NOT NULL, optimum INTEGER NOT NULL,
        moves INTEGER NOT NULL, hints INTEGER NOT NULL, undos INTEGER NOT NULL,
        played_at TEXT NOT NULL);
    """,
))
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


def open_db(path=None) -> _store.Records:
    """Open (creating if needed) and check the results database; ``path`` overrides
    the default file."""
    return _store.open_records(path, DB_FILE, SCHEMA)


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def record_game(records: _store.Records, record: GameRecord) -> bool:
    """Store one finished game (dated now unless ``record.played_at`` is set); False
    when it went to a pending file instead (the user has been told)."""
    row = list(astuple(record))
    row[2] = None if record.seed is None else str(record.seed)
    row[3] = None if record.deal_index is None else str(record.deal_index)
    row[-1] = record.played_at or _now()
    return records.insert("solitaire_games", _COLUMNS, [row])


def player_table(records: _store.Records) -> list[dict]:
    """Per player: games, mean score, mean cards lost against the optimum, wins (52
    cards), games played perfectly (score = optimum), hints and undos per game."""
    rows = []
    for player, games, mean, lost, wins, perfect, hints, undos in records.con.execute(
            "SELECT player, COUNT(*), AVG(score), AVG(optimum - score), SUM(score = 52), "
            "SUM(score = optimum), AVG(hints), AVG(undos) FROM solitaire_games "
            "GROUP BY player ORDER BY player"):
        rows.append({"player": player, "games": games, "mean_score": mean,
                     "mean_lost": lost, "wins": wins, "perfect": perfect,
                     "mean_hints": hints, "mean_undos": undos})
    return rows


def record_line(records: _store.Records, player: str) -> str:
    """``Your record: N games, mean score M, P played perfectly, W won.`` for ``player``
    (shown after each game, at the terminal and in the browser); empty if none."""
    for row in player_table(records):
        if row["player"] == player:
            games = row["games"]
            return (f"Your record: {games} game{'s' if games != 1 else ''}, mean score "
                    f"{row['mean_score']:.1f}, {row['perfect']} played perfectly, "
                    f"{row['wins']} won.")
    return ""
