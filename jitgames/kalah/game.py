"""The Kalah game model shared by the terminal console, the web page and the environments.

A :class:`Game` holds one position (board, side to move, variant), applies moves with
the rules kernels of :mod:`.rules` and reports what happened (:class:`MoveReport`:
the pits the stones fell into one by one, a capture, an extra turn, the end of the
game), undoes any number of moves exactly, and writes and reads a one-line text form
of the position (:func:`format_position`, :func:`parse_position`). A :class:`Coach`
gives the solver's advice (:class:`Advice`: the value of every legal move from the
mover's side and the best ones) and a :class:`Computer` plays a chosen
:class:`Opponent` (random, alpha-beta of a depth, perfect).

Text form of a position (like FEN in chess), one line, fields separated by spaces::

    4,4,4,4,4,4/0/4,4,4,4,4,4/0 s empty-capture

- the board in index order (``docs/design.md``): South's pits left to right (board
  indices ``0 .. m-1``), South's store, North's pits in sowing order (indices
  ``m+1 .. 2m``, i.e. right to left as North's row is drawn), North's store;
- ``s`` or ``n``: the side to move;
- the variant (:data:`.rules.VARIANTS`), optional (default ``empty-capture``).

Values (choices docs/design.md leaves open):

- Every value is **from the mover's side**: the stones the player to move ends the
  game ahead of the opponent by (negative: behind).
- ``perfect``: the final margin under perfect play from both sides after the move,
  stores included (the exact solver :mod:`.solver` with its endgame database). It is
  given when the position has at most :data:`PERFECT_STONES` ``[m]`` stones in play
  (pits, stores excluded); those limits were measured so that every move's value comes
  within about a second on a 2-core machine (``bench/kalah_coach.py``): every position
  of Kalah(1, n <= 63), Kalah(2, n <= 31), Kalah(3, n <= 10), Kalah(4, n <= 4),
  Kalah(5, n <= 3), Kalah(6, n <= 2); and positions of larger games once enough stones
  have reached the stores.
- ``alpha-beta``: otherwise, the store difference at the horizon of a ``depth``-ply
  alpha-beta search (:mod:`.search`, store evaluation: a finished game counts its
  final margin), each move searched with a full window so every value is exact for
  that depth.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .._random import below, stream_key
from .evaluation import weights_for
from .rules import (NORTH, SOUTH, VARIANTS, apply_move, final_margin, is_over, legal_moves,
                    new_board, undo_move)
from .search import INF, alphabeta

__all__ = ["Game", "MoveReport", "IllegalMove", "format_position", "parse_position",
           "Coach", "Advice", "Opponent", "parse_opponent", "Computer", "PERFECT_STONES",
           "NAMES", "SIDE_LETTERS", "MAX_PITS"]

NAMES = ("South", "North")
SIDE_LETTERS = ("s", "n")
MAX_PITS = 20
MAX_STONES = 127  # an int8 board
# Stones in play (pits only) up to which the exact solver advises, by pits a side.
PERFECT_STONES = {1: 126, 2: 124, 3: 60, 4: 38, 5: 30, 6: 28}
DEFAULT_DEPTH = 8
COACH_TABLE_BITS = 20        # 2**20 entries of 16 bytes: 16 MB a board size
COACH_ENDGAME_ENTRIES = 1_000_000  # endgame database: built in well under a second


class IllegalMove(InputError):
    """A move that the rules refuse, with the reason as its message."""


@dataclass(frozen=True)
class MoveReport:
    """What one move did.

    Attributes
    ----------
    player : int
        Who moved (``SOUTH`` 0 or ``NORTH`` 1).
    pit : int
        Board index of the pit sown.
    path : tuple of int
        Board indices the stones fell into, one per stone, in order.
    capture : int
        Stones moved to the mover's store by a capture (the last stone and the
        opposite pit's), 0 when there was none.
    captured_from : int or None
        Board index of the opposite pit emptied by the capture.
    extra_turn : bool
        The last stone fell into the mover's store, and the game goes on: the mover
        moves again.
    over : bool
        The game ended with this move.
    next_player : int
        Who moves next (meaningless when ``over``).
    record : int
        The rules kernel's undo record (:func:`.rules.apply_move`).
    """

    player: int
    pit: int
    path: tuple
    capture: int
    captured_from: int | None
    extra_turn: bool
    over: bool
    next_player: int
    record: int

    def as_dict(self, m: int) -> dict:
        """JSON-ready form (board indices, plus the pit number 1..m people see)."""
        return {"player": NAMES[self.player].lower(), "pit": self.pit,
                "pit_number": pit_number(m, self.pit), "path": list(self.path),
                "capture": self.capture, "captured_from": self.captured_from,
                "extra_turn": self.extra_turn, "over": self.over,
                "next_player": NAMES[self.next_player].lower()}


def pit_index(m: int, player: int, number: int) -> int:
    """Board index of ``player``'s pit ``number`` (1..m, in sowing order)."""
    return number - 1 if player == SOUTH else m + number


def pit_number(m: int, index: int) -> int:
    """Pit number (1..m, in the owner's sowing order) shown to people for a board index."""
    return index + 1 if index < m else index - m


def owner(m: int, index: int) -> int:
    """The player whose pit or store ``index`` is."""
    return SOUTH if index <= m else NORTH


def format_position(board, player: int, variant: str = "empty-capture") -> str:
    """One-line text form of a position (see the module docstring); parsed back by
    :func:`parse_position`."""
    m = (len(board) - 2) // 2
    values = [int(x) for x in board]
    row = lambda xs: ",".join(str(x) for x in xs)  # noqa: E731
    return (f"{row(values[:m])}/{values[m]}/{row(values[m + 1:2 * m + 1])}/{values[2 * m + 1]}"
            f" {SIDE_LETTERS[player]} {variant}")


def parse_position(text: str) -> tuple[np.ndarray, int, str]:
    """``(board, player, variant)`` of a position's text form; :class:`InputError` with
    the reason when it is not one."""
    fields = str(text).split()
    if not 2 <= len(fields) <= 3:
        raise InputError("a Kalah position is 'PITS/STORE/PITS/STORE SIDE [VARIANT]', e.g. "
                         "'4,4,4,4,4,4/0/4,4,4,4,4,4/0 s empty-capture'")
    parts = fields[0].split("/")
    if len(parts) != 4:
        raise InputError(f"board {fields[0]!r}: four parts separated by '/' expected "
                         "(South's pits, South's store, North's pits, North's store)")
    try:
        south = [int(x) for x in parts[0].split(",")]
        north = [int(x) for x in parts[2].split(",")]
        stores = [int(parts[1]), int(parts[3])]
    except ValueError:
        raise InputError(f"board {fields[0]!r}: stone counts must be whole numbers") from None
    if len(south) != len(north):
        raise InputError(f"board {fields[0]!r}: South has {len(south)} pits, North "
                         f"{len(north)}")
    if not 1 <= len(south) <= MAX_PITS:
        raise InputError(f"board {fields[0]!r}: 1 to {MAX_PITS} pits a side")
    values = south + stores[:1] + north + stores[1:]
    if min(values) < 0:
        raise InputError(f"board {fields[0]!r}: stone counts cannot be negative")
    if sum(values) > MAX_STONES:
        raise InputError(f"board {fields[0]!r}: {sum(values)} stones, at most {MAX_STONES}")
    side = fields[1].lower()
    if side not in ("s", "n", "south", "north"):
        raise InputError(f"side to move {fields[1]!r}: s (South) or n (North)")
    variant = fields[2] if len(fields) == 3 else "empty-capture"
    if variant not in VARIANTS:
        raise InputError(f"variant {variant!r}: one of {', '.join(VARIANTS)}")
    return np.array(values, dtype=np.int8), (SOUTH if side[0] == "s" else NORTH), variant


class Game:
    """One game of Kalah: the position, its history, apply and undo.

    Parameters
    ----------
    pits, stones : int
        Kalah(m, n): ``pits`` a side (1..20), ``stones`` in each pit at the start
        (``2 * pits * stones <= 127``).
    variant : str
        A key of :data:`.rules.VARIANTS`.
    first : int
        Who moves first (``SOUTH`` or ``NORTH``).
    position : str, optional
        Start from this text form instead (``pits``/``stones`` are then taken from it;
        ``stones`` is None when the board is not an opening).
    """

    def __init__(self, pits: int = 6, stones: int = 4, variant: str = "empty-capture",
                 first: int = SOUTH, position: str | None = None):
        if position is not None:
            board, first, variant = parse_position(position)
            pits = (len(board) - 2) // 2
            in_pits = np.delete(board, [pits, 2 * pits + 1])
            opening = board[pits] == board[2 * pits + 1] == 0 and (in_pits == in_pits[0]).all()
            stones = int(in_pits[0]) if opening else None
        else:
            if variant not in VARIANTS:
                raise InputError(f"variant must be one of {', '.join(VARIANTS)}, got "
                                 f"{variant!r}")
            if first not in (SOUTH, NORTH):
                raise InputError(f"first player must be 0 (South) or 1 (North), got {first}")
            board = new_board(pits, stones)
        self.pits, self.stones, self.variant = pits, stones, variant
        self._variant = VARIANTS[variant]
        self._board = board
        self.player = first
        self.first = first
        self.start = self.text()
        self.history: list[MoveReport] = []

    @classmethod
    def from_text(cls, text: str) -> "Game":
        """A game starting from a position's text form."""
        return cls(position=text)

    # -- the position ----------------------------------------------------------------
    @property
    def board(self) -> np.ndarray:
        """A copy of the board (int8, ``2m + 2``)."""
        return self._board.copy()

    @property
    def over(self) -> bool:
        """True when either side's pits are empty."""
        return bool(is_over(self._board))

    def text(self) -> str:
        """The position's one-line text form."""
        return format_position(self._board, self.player, self.variant)

    def in_play(self) -> int:
        """Stones in the pits (not yet in a store)."""
        m = self.pits
        return int(self._board.sum()) - int(self._board[m]) - int(self._board[2 * m + 1])

    def legal_moves(self) -> list[int]:
        """Board indices of the pits the side to move may sow, ascending."""
        out = np.zeros(self.pits, dtype=np.int64)
        return [int(x) for x in out[:legal_moves(self._board, self.player, out)]]

    def scores(self) -> tuple[int, int]:
        """(South, North) stones as the game would be counted now: stores plus each
        side's stones left in its own pits (the final score once the game is over)."""
        m = self.pits
        south = int(self._board[m]) + int(self._board[:m].sum())
        north = int(self._board[2 * m + 1]) + int(self._board[m + 1:2 * m + 1].sum())
        return south, north

    def margin(self) -> int:
        """South's final margin if the game ended now (its margin once it is over)."""
        return int(final_margin(self._board))

    def status(self) -> str:
        """'South to move', or at the end 'South A, North B'."""
        if self.over:
            south, north = self.scores()
            return f"South {south}, North {north}"
        return f"{NAMES[self.player]} to move"

    def result(self) -> str:
        """'South wins by K', 'North wins by K' or 'a draw' (from :meth:`margin`)."""
        margin = self.margin()
        return ("a draw" if margin == 0 else
                f"South wins by {margin}" if margin > 0 else f"North wins by {-margin}")

    # -- moves -----------------------------------------------------------------------
    def check_move(self, pit: int) -> int:
        """``pit`` (a board index) if the side to move may sow it, else :class:`IllegalMove`
        with the reason."""
        m = self.pits
        if self.over:
            raise IllegalMove("the game is over")
        if not isinstance(pit, (int, np.integer)) or not 0 <= pit < 2 * m + 2:
            raise IllegalMove(f"no pit {pit!r} on a board of {m} pits a side")
        pit = int(pit)
        if pit in (m, 2 * m + 1):
            raise IllegalMove(f"that is {NAMES[owner(m, pit)]}'s store; sow one of your pits")
        if owner(m, pit) != self.player:
            raise IllegalMove(f"{NAMES[self.player]} to move: that pit is "
                              f"{NAMES[1 - self.player]}'s")
        if self._board[pit] == 0:
            raise IllegalMove(f"pit {pit_number(m, pit)} is empty; choose a pit with stones")
        return pit

    def path(self, pit: int) -> tuple:
        """Board indices the stones of ``pit`` would fall into, one per stone."""
        m = self.pits
        skip = 2 * m + 1 if owner(m, pit) == SOUTH else m
        pos, path = pit, []
        for _ in range(int(self._board[pit])):
            pos = (pos + 1) % (2 * m + 2)
            if pos == skip:
                pos = (pos + 1) % (2 * m + 2)
            path.append(pos)
        return tuple(path)

    def apply(self, pit: int) -> MoveReport:
        """Sow ``pit`` (board index) for the side to move; :class:`IllegalMove` if refused."""
        pit = self.check_move(pit)
        m = self.pits
        path = self.path(pit)
        mover = self.player
        nxt, record = apply_move(self._board, mover, pit, self._variant)
        captured = (int(record) >> 16) & 0xFF
        over = bool(is_over(self._board))
        report = MoveReport(mover, pit, path, captured, 2 * m - path[-1] if captured else None,
                            bool(nxt == mover and not over), over, int(nxt), int(record))
        self.player = int(nxt)
        self.history.append(report)
        return report

    def undo(self, count: int = 1) -> list[MoveReport]:
        """Take back the last ``count`` moves (fewer if fewer were made); returns them,
        last first."""
        undone = []
        while count > 0 and self.history:
            report = self.history.pop()
            undo_move(self._board, report.player, np.int64(report.record))
            self.player = report.player
            undone.append(report)
            count -= 1
        return undone

    def undo_turn(self, person: int) -> list[MoveReport]:
        """Take back moves up to and including ``person``'s last one (the computer's
        replies with it), so that it is ``person``'s turn again; nothing if ``person``
        has not moved."""
        if not any(r.player == person for r in self.history):
            return []
        undone = []
        while not undone or undone[-1].player != person:
            undone += self.undo()
        return undone


# -- advice ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Advice:
    """The coach's view of a position.

    Attributes
    ----------
    player : int
        The side to move; every value is from its side.
    moves : tuple of int
        Legal pits (board indices), ascending.
    values : tuple of int
        Value of each move, from the mover's side (see the module docstring).
    method : str
        ``"perfect"`` (exact final margins) or ``"alpha-beta"``.
    depth : int or None
        Plies searched by alpha-beta; None for perfect values.
    """

    player: int
    moves: tuple
    values: tuple
    method: str
    depth: int | None

    @property
    def best_value(self) -> int | None:
        """The best value for the mover (None when there is no move)."""
        return max(self.values) if self.values else None

    @property
    def best(self) -> tuple:
        """Moves of the best value, ascending."""
        top = self.best_value
        return tuple(p for p, v in zip(self.moves, self.values) if v == top)

    def value_of(self, pit: int) -> int:
        """Value of move ``pit``."""
        return self.values[self.moves.index(pit)]

    def describe(self) -> str:
        """'perfect play' or 'alpha-beta, D plies'."""
        return "perfect play" if self.method == "perfect" else f"alpha-beta, {self.depth} plies"

    def as_dict(self, m: int) -> dict:
        """JSON-ready form."""
        return {"player": NAMES[self.player].lower(), "method": self.method,
                "depth": self.depth, "best": list(self.best),
                "moves": [{"pit": p, "pit_number": pit_number(m, p), "value": v}
                          for p, v in zip(self.moves, self.values)]}


def _solver_stones(m: int) -> int:
    """Stones a coach's solver for ``m`` pits a side is sized for (a multiple of 2m)."""
    limit = PERFECT_STONES.get(m, 0)
    return -(-limit // (2 * m)) * 2 * m


class Coach:
    """The solver's advice on any position, shared by every game of a process.

    Parameters
    ----------
    depth : int
        Alpha-beta depth in plies where the exact solver is not used.
    table_bits : int
        Each exact solver's transposition table holds ``2**table_bits`` entries of
        16 bytes; one solver is built per (pits a side, variant) on first use, with an
        in-memory endgame database of at most :data:`COACH_ENDGAME_ENTRIES` entries.

    Thread-safe: one lock serialises the searches (each takes at most about a second).
    """

    def __init__(self, depth: int = DEFAULT_DEPTH, table_bits: int = COACH_TABLE_BITS):
        if not 1 <= depth <= 30:
            raise InputError(f"coach depth must be from 1 to 30, got {depth}")
        self.depth = depth
        self.table_bits = table_bits
        self._solvers: dict = {}
        self._lock = threading.Lock()

    @staticmethod
    def perfect_available(game: Game) -> bool:
        """True when the exact solver advises on this position (its stones in play are
        within :data:`PERFECT_STONES` for its board)."""
        return game.in_play() <= PERFECT_STONES.get(game.pits, -1)

    @staticmethod
    def perfect_boards_text() -> str:
        """The boards whose every position gets perfect advice, as text."""
        parts = []
        for m, limit in PERFECT_STONES.items():
            n = min(limit, MAX_STONES) // (2 * m)
            parts.append(f"Kalah({m}, n <= {n})")
        return ", ".join(parts)

    def _solver(self, m: int, variant: str):
        from .solver import Solver, _largest_database

        key = (m, variant)
        if key not in self._solvers:
            total = _solver_stones(m)
            self._solvers[key] = Solver(
                m, total // (2 * m), variant,
                endgame_stones=_largest_database(m, total, COACH_ENDGAME_ENTRIES),
                table_bits=self.table_bits)
        return self._solvers[key]

    def advise(self, game: Game, method: str = "auto", depth: int | None = None) -> Advice:
        """Value of every legal move of ``game``'s side to move, from its side.

        ``method``: ``"auto"`` (perfect where :meth:`perfect_available`, else
        alpha-beta), ``"perfect"`` (:class:`InputError` where not available) or
        ``"alpha-beta"``; ``depth`` overrides the coach's alpha-beta depth.
        """
        if method not in ("auto", "perfect", "alpha-beta"):
            raise InputError(f"advice method must be auto, perfect or alpha-beta, got "
                             f"{method!r}")
        perfect = self.perfect_available(game)
        if method == "perfect" and not perfect:
            raise InputError(f"perfect play is available with at most "
                             f"{PERFECT_STONES.get(game.pits, 0)} stones in play on "
                             f"{game.pits} pits a side ({game.in_play()} now)")
        board, player = game.board, game.player
        moves = game.legal_moves()
        if perfect and method != "alpha-beta":
            with self._lock:
                values = self._perfect_values(board, player, moves, game.variant)
            return Advice(player, tuple(moves), tuple(values), "perfect", None)
        depth = self.depth if depth is None else depth
        values = self._alphabeta_values(board, player, moves, VARIANTS[game.variant], depth)
        return Advice(player, tuple(moves), tuple(values), "alpha-beta", depth)

    def _perfect_values(self, board, player, moves, variant) -> list[int]:
        solver = self._solver((len(board) - 2) // 2, variant)
        m = (len(board) - 2) // 2
        values = []
        for pit in moves:
            child = board.copy()
            nxt, _ = apply_move(child, player, pit, VARIANTS[variant])
            ahead = int(child[m]) - int(child[2 * m + 1])   # South's store lead
            if player != SOUTH:
                ahead = -ahead
            rest = solver.value(child, int(nxt))              # mover-relative, pits only
            values.append(ahead + (rest if nxt == player else -rest))
        return values

    @staticmethod
    def _alphabeta_values(board, player, moves, variant, depth) -> list[int]:
        m = (len(board) - 2) // 2
        weights = weights_for("store", m)
        scratch = np.zeros((depth + 1, m), dtype=np.int64)
        keys = np.zeros((depth + 1, m), dtype=np.int64)
        nodes = np.zeros(1, dtype=np.int64)
        values = []
        for pit in moves:
            child = board.copy()
            nxt, _ = apply_move(child, player, pit, variant)
            value = int(alphabeta(child, nxt, depth - 1, -INF, INF, weights, variant, True,
                                  scratch, keys, nodes))
            values.append(value if player == SOUTH else -value)
        return values


# -- computer players --------------------------------------------------------------------
@dataclass(frozen=True)
class Opponent:
    """A computer player: ``kind`` ``"random"``, ``"alpha-beta"`` (``depth`` plies, store
    evaluation) or ``"perfect"``."""

    kind: str
    depth: int | None = None

    @property
    def name(self) -> str:
        """Its text form: 'random', 'alpha-beta-6', 'perfect' (parsed by :func:`parse_opponent`)."""
        return f"alpha-beta-{self.depth}" if self.kind == "alpha-beta" else self.kind

    def describe(self) -> str:
        """Words for people."""
        return {"random": "random moves", "perfect": "perfect play"}.get(
            self.kind, f"alpha-beta, {self.depth} plies")


MAX_OPPONENT_DEPTH = 14


def parse_opponent(text: str) -> Opponent:
    """:class:`Opponent` of ``random``, ``perfect``, ``alpha-beta-D`` (or ``ab-D``, ``D``),
    D from 1 to :data:`MAX_OPPONENT_DEPTH`."""
    text = str(text).strip().lower()
    if text in ("random", "perfect"):
        return Opponent(text)
    digits = text
    for prefix in ("alpha-beta-", "alphabeta-", "ab-", "ab"):
        if text.startswith(prefix):
            digits = text[len(prefix):]
            break
    if digits.isdigit() and 1 <= int(digits) <= MAX_OPPONENT_DEPTH:
        return Opponent("alpha-beta", int(digits))
    raise InputError(f"opponent {text!r}: random, perfect or alpha-beta-D with D from 1 to "
                     f"{MAX_OPPONENT_DEPTH}")


class Computer:
    """Chooses moves for an :class:`Opponent`.

    Among equally good moves it draws uniformly (``randomize``, the default) from the
    counter-based stream of ``(seed, stream)`` (:mod:`jitgames._random`), so a game is
    replayed by its seed; with ``randomize=False`` it takes the lowest pit. The random
    opponent always draws among all legal moves from the same stream.
    """

    def __init__(self, opponent: Opponent, coach: Coach, randomize: bool = True,
                 seed: int = 0, stream: int = 0):
        self.opponent, self.coach, self.randomize = opponent, coach, randomize
        self.seed = seed
        self._key = np.uint64(stream_key(seed, stream))
        self._counter = 0

    def pick(self, choices, always: bool = False) -> int:
        """One of ``choices`` (ascending pits): drawn from the stream when random choice
        is on (or ``always``), else the first."""
        if len(choices) == 1 or not (self.randomize or always):
            return int(choices[0])
        index, self._counter = below(self._key, self._counter, len(choices))
        return int(choices[int(index)])

    def choose(self, game: Game) -> tuple[int, Advice | None]:
        """``(pit, advice)``: the move for the side to move (``advice`` None for the
        random opponent)."""
        moves = game.legal_moves()
        if not moves:
            raise IllegalMove("the game is over")
        if self.opponent.kind == "random":
            return self.pick(moves, always=True), None
        if self.opponent.kind == "perfect":
            advice = self.coach.advise(game, "perfect")
        else:
            advice = self.coach.advise(game, "alpha-beta", self.opponent.depth)
        return self.pick(advice.best), advice
