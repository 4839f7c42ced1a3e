"""Player statistics in SQLite (standard library ``sqlite3``, via :mod:`jitgames._store`).

One row per game played as codebreaker (``games``) and one per player per match
(``matches``). The default file is ``mastermind.sqlite`` in the jitgames data
directory (``$XDG_DATA_HOME/jitgames``); ``--db PATH`` overrides it. The database is
opened and checked (kind, schema version, tables, writable) before a game starts; a
game that cannot be stored afterwards (database busy) is kept in a pending file that
the next run merges. Schema: ``docs/storage.md``.
"""
from __future__ import annotations

import datetime as _dt

from .. import _store

__all__ = ["open_db", "record_game", "record_match", "player_table", "games_against_strategy",
           "SCHEMA", "DB_FILE"]

DB_FILE = "mastermind.sqlite"
SCHEMA = _store.RecordSchema("Mastermind statistics", 0x6A674D4D, (
    # version 1: the tables of the first releases (which set no user_version)
    """
    CREATE TABLE IF NOT EXISTS games (
        player TEXT NOT NULL, pegs INTEGER NOT NULL, colours INTEGER NOT NULL,
        repeats INTEGER NOT NULL, guesses INTEGER NOT NULL, solved INTEGER NOT NULL,
        played_at TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS matches (
        player TEXT NOT NULL, opponent TEXT NOT NULL, result TEXT NOT NULL,
        guesses INTEGER NOT NULL, played_at TEXT NOT NULL);
    """,
    # version 2: what the codebreaker's strategy would have needed for the same secret
    # (NULL where unknown: games of version 1, matches, the computer's own games)
    """
    ALTER TABLE games ADD COLUMN strategy TEXT;
    ALTER TABLE games ADD COLUMN strategy_guesses INTEGER;
    """,
))
"""The statistics database: ``application_id`` 'jgMM', versions in ``docs/storage.md``."""


def open_db(path=None, write: bool = True) -> _store.Records:
    """Open and check the statistics database (before any game); ``path`` overrides
    the default. :class:`jitgames._store.StoreError` (one line) if it cannot be used.
    ``write=False`` (``stats``) creates nothing: a missing file raises
    :class:`jitgames._store.NoRecords`; a read-only file is shown as it is."""
    return _store.open_records(path, DB_FILE, SCHEMA, write=write)


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


GAME_COLUMNS = ("player", "pegs", "colours", "repeats", "guesses", "solved", "played_at",
                "strategy", "strategy_guesses")
MATCH_COLUMNS = ("player", "opponent", "result", "guesses", "played_at")


def record_game(records: _store.Records, player: str, pegs: int, colours: int, repeats: bool,
                guesses: int, solved: bool, strategy: str | None = None,
                strategy_guesses: int | None = None) -> bool:
    """Store one game played by ``player`` as codebreaker, with the guesses
    ``strategy`` needs for the same secret when known; False if it went to a pending
    file (the database was busy)."""
    return records.insert("games", GAME_COLUMNS, [
        (player, pegs, colours, int(repeats), guesses, int(solved), _now(), strategy,
         strategy_guesses)])


def games_against_strategy(records: _store.Records) -> list[tuple]:
    """``(player, pegs, colours, guesses, solved, strategy, strategy_guesses)`` of the
    games stored with a strategy's figure, in the order played."""
    return records.con.execute(
        "SELECT player, pegs, colours, guesses, solved, strategy, strategy_guesses FROM games "
        "WHERE strategy_guesses IS NOT NULL ORDER BY played_at, rowid").fetchall()


def record_match(records: _store.Records, *results) -> bool:
    """Store the results of one match, ``(player, opponent, result, guesses)`` for each
    player (``result``: ``win``, ``loss`` or ``draw``), in one transaction; False if
    they went to a pending file."""
    return records.insert("matches", MATCH_COLUMNS, [(*r, _now()) for r in results])


def player_table(records: _store.Records) -> list[dict]:
    """Per player: games and solved games, one entry per game size, matches, wins.

    Each entry of ``sizes`` (``pegs``, ``colours``, ``repeats``) has ``games``,
    ``solved``, ``mean_guesses`` (over solved games; None if none) and
    ``distribution`` (guesses -> solved games): a mean over several sizes would mix
    incomparable games, so none is given.
    """
    con = records.con
    rows = {}

    def row_of(player):
        return rows.setdefault(player, {"player": player, "games": 0, "solved": 0,
                                        "sizes": [], "matches": 0, "wins": 0})

    sizes = {}
    for player, pegs, colours, repeats, games, solved, mean in con.execute(
            "SELECT player, pegs, colours, repeats, COUNT(*), SUM(solved), "
            "AVG(CASE WHEN solved THEN guesses END) FROM games "
            "GROUP BY player, pegs, colours, repeats ORDER BY player, pegs, colours, repeats"):
        row = row_of(player)
        entry = {"pegs": pegs, "colours": colours, "repeats": bool(repeats), "games": games,
                 "solved": solved or 0, "mean_guesses": mean, "distribution": {}}
        row["sizes"].append(entry)
        row["games"] += games
        row["solved"] += solved or 0
        sizes[player, pegs, colours, repeats] = entry
    for player, pegs, colours, repeats, guesses, count in con.execute(
            "SELECT player, pegs, colours, repeats, guesses, COUNT(*) FROM games WHERE solved "
            "GROUP BY player, pegs, colours, repeats, guesses "
            "ORDER BY player, pegs, colours, repeats, guesses"):
        sizes[player, pegs, colours, repeats]["distribution"][str(guesses)] = count
    for player, matches, wins in con.execute(
            "SELECT player, COUNT(*), SUM(result = 'win') FROM matches GROUP BY player"):
        row = row_of(player)
        row["matches"], row["wins"] = matches, wins or 0
    return [rows[p] for p in sorted(rows)]
