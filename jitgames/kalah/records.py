"""Results of Kalah games played by people, in SQLite (through :mod:`jitgames._store`).

One row per game in table ``kalah_play_games``: the player, the opponent
(:attr:`.game.Opponent.name`: ``random``, ``alpha-beta-D``, ``perfect``), the board
(pits, stones, variant; ``stones`` is NULL for a game started from a pasted position),
the person's side, who moved first, the starting position's text form, the person's
final margin (stones ahead of the opponent, negative when behind), whether the game
was played to its end (0: resigned, the margin is then the one on the board when the
person resigned), the moves made, the hints and undos asked for, where it was played
(``terminal`` or ``web``) and the UTC date. The default file is ``kalah_play.sqlite``
in the jitgames data directory (``$XDG_DATA_HOME/jitgames``); ``--db PATH`` overrides
it. The file is opened and checked before any play, as the solitaire records are
(:func:`jitgames._store.open_records`).

:func:`opponent_table` is the table of results by opponent that the terminal's
``stats`` and the web statistics page show.
"""
from __future__ import annotations

import datetime as _dt
from dataclasses import astuple, dataclass

from .. import _store

__all__ = ["DB_FILE", "SCHEMA", "KalahRecord", "open_db", "record_game", "opponent_table"]

DB_FILE = "kalah_play.sqlite"
SCHEMA = _store.RecordSchema("Kalah game results", 0x6A674B50, (
    # version 1
    """
    CREATE TABLE IF NOT EXISTS kalah_play_games (
        player TEXT NOT NULL, opponent TEXT NOT NULL, pits INTEGER NOT NULL,
        stones INTEGER, variant TEXT NOT NULL, side TEXT NOT NULL, first TEXT NOT NULL,
        start TEXT NOT NULL, margin INTEGER NOT NULL, finished INTEGER NOT NULL,
        moves INTEGER NOT NULL, hints INTEGER NOT NULL, undos INTEGER NOT NULL,
        place TEXT NOT NULL, played_at TEXT NOT NULL);
    """,
))
_COLUMNS = ("player", "opponent", "pits", "stones", "variant", "side", "first", "start",
            "margin", "finished", "moves", "hints", "undos", "place", "played_at")


@dataclass(frozen=True)
class KalahRecord:
    """One game a person played (``side`` and ``first`` are ``south`` or ``north``;
    ``margin`` is the person's)."""

    player: str
    opponent: str
    pits: int
    stones: int | None
    variant: str
    side: str
    first: str
    start: str
    margin: int
    finished: bool
    moves: int
    hints: int
    undos: int
    place: str = "terminal"
    played_at: str = ""


def open_db(path=None, write: bool = True) -> _store.Records:
    """Open (creating if needed) and check the results database; ``path`` overrides
    the default file. ``write=False`` (``stats``) creates nothing: a missing file
    raises :class:`jitgames._store.NoRecords`."""
    return _store.open_records(path, DB_FILE, SCHEMA, write=write)


def record_game(records: _store.Records, record: KalahRecord) -> bool:
    """Store one game (dated now unless ``record.played_at`` is set); False when it
    went to a pending file instead (the user has been told)."""
    row = list(astuple(record))
    row[9] = int(record.finished)
    row[-1] = record.played_at or _dt.datetime.now(_dt.timezone.utc).isoformat(
        timespec="seconds")
    return records.insert("kalah_play_games", _COLUMNS, [row])


def opponent_table(records: _store.Records, player: str | None = None) -> list[dict]:
    """Per opponent (and board): games, wins, draws, losses (resigned games count as
    losses), resignations and the person's mean margin; only ``player``'s games when
    given."""
    where, args = ("WHERE player = ?", (player,)) if player is not None else ("", ())
    rows = []
    for opponent, pits, stones, variant, games, wins, draws, resigned, mean in \
            records.con.execute(
                "SELECT opponent, pits, stones, variant, COUNT(*), "
                "SUM(finished = 1 AND margin > 0), SUM(finished = 1 AND margin = 0), "
                "SUM(finished = 0), AVG(margin) FROM kalah_play_games " + where +
                " GROUP BY opponent, pits, stones, variant "
                "ORDER BY opponent, pits, stones, variant", args):
        rows.append({"opponent": opponent, "pits": pits, "stones": stones,
                     "variant": variant, "games": games, "wins": wins, "draws": draws,
                     "losses": games - wins - draws, "resigned": resigned,
                     "mean_margin": mean})
    return rows
