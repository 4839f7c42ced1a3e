"""Player statistics in SQLite (standard library ``sqlite3``).

One row per game played as codebreaker (``games``) and one per player per match
(``matches``). The default file is ``mastermind.sqlite`` in the jitgames data
directory (``$XDG_DATA_HOME/jitgames``); ``--db PATH`` overrides it.
"""
from __future__ import annotations

import datetime as _dt
import sqlite3

from .. import _cli

__all__ = ["open_db", "record_game", "record_match", "player_table"]

DB_FILE = "mastermind.sqlite"
SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    player TEXT NOT NULL, pegs INTEGER NOT NULL, colours INTEGER NOT NULL,
    repeats INTEGER NOT NULL, guesses INTEGER NOT NULL, solved INTEGER NOT NULL,
    played_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    player TEXT NOT NULL, opponent TEXT NOT NULL, result TEXT NOT NULL,
    guesses INTEGER NOT NULL, played_at TEXT NOT NULL);
"""


def open_db(path=None) -> sqlite3.Connection:
    """Open (creating if needed) the statistics database; ``path`` overrides the default."""
    con = _cli.connect_db(DB_FILE, path)
    try:
        con.executescript(SCHEMA)
    except sqlite3.Error as exc:  # not an SQLite file, read-only, ...
        con.close()
        raise _cli.CLIError(f"cannot use database {path or DB_FILE}: {exc}") from None
    return con


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def record_game(con, player: str, pegs: int, colours: int, repeats: bool, guesses: int,
                solved: bool) -> None:
    """Store one game played by ``player`` as codebreaker."""
    with con:
        con.execute("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (player, pegs, colours, int(repeats), guesses, int(solved), _now()))


def record_match(con, player: str, opponent: str, result: str, guesses: int) -> None:
    """Store ``player``'s result (``win``, ``loss`` or ``draw``) of one match."""
    with con:
        con.execute("INSERT INTO matches VALUES (?, ?, ?, ?, ?)",
                    (player, opponent, result, guesses, _now()))


def player_table(con) -> list[dict]:
    """Per player: games and solved games, one entry per game size, matches, wins.

    Each entry of ``sizes`` (``pegs``, ``colours``, ``repeats``) has ``games``,
    ``solved``, ``mean_guesses`` (over solved games; None if none) and
    ``distribution`` (guesses -> solved games): a mean over several sizes would mix
    incomparable games, so none is given.
    """
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
