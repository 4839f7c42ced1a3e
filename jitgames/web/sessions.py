"""The games in play: a bounded table of game objects keyed by random ids, one lock each.

Each browser tab plays its own game, named by a random id (``secrets.token_urlsafe``:
unguessable, so one tab cannot play another's game by accident). The table holds at
most ``limit`` games; adding one more evicts the least recently used (its tab then
gets 404 "unknown or expired game" and starts a new one). Every game has its own
lock, held while a request reads or changes it, so requests of different games run
in parallel (the solver kernels release the GIL) and two requests of one game run
one after the other.
"""
from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

__all__ = ["Session", "SessionTable", "DEFAULT_LIMIT"]

DEFAULT_LIMIT = 64
"""Games kept at once (each holds a solver's table: 1 MiB to start)."""


@dataclass
class Session:
    """One game in play: its game's plugin name, the game object and its lock."""

    game: str
    obj: object
    lock: threading.Lock = field(default_factory=threading.Lock)


class SessionTable:
    """At most ``limit`` sessions, least recently used evicted first (thread-safe)."""

    def __init__(self, limit: int = DEFAULT_LIMIT):
        if limit < 1:
            raise ValueError("a session table holds at least one game")
        self.limit = limit
        self._sessions: OrderedDict[str, Session] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, game: str, obj) -> str:
        """Store a new game; return its id."""
        gid = secrets.token_urlsafe(12)
        with self._lock:
            self._sessions[gid] = Session(game, obj)
            while len(self._sessions) > self.limit:
                self._sessions.popitem(last=False)
        return gid

    def get(self, gid: str, game: str) -> Session | None:
        """The session ``gid`` of ``game`` (marked as just used), or None."""
        with self._lock:
            session = self._sessions.get(gid)
            if session is None or session.game != game:
                return None
            self._sessions.move_to_end(gid)
            return session

    def __len__(self) -> int:
        with self._lock:
            return len(self._sessions)
