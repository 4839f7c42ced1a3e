"""Exact solver of Kalah(m, n): MTD(f) over a fail-soft alpha-beta with a
transposition table, move ordering and an endgame database.

Values are mover-relative and ignore the stores (see :mod:`.endgame`): ``v`` =
stones the player to move still gains minus stones the opponent still gains. A move
that gains ``g`` stones for the mover is worth ``g + v(child)`` when the mover moves
again and ``g - v(child)`` otherwise. From the opening the stores are empty, so
South's final margin under perfect play is ``v`` of the opening with South to move.

Choices (docs/design.md leaves them open):

- Driver: MTD(f) (Plaat et al. 1996): repeated null-window searches converging on
  the value, sharing one transposition table. The first guess comes from a 10-ply
  store-difference alpha-beta search (:mod:`.search`), which plays the role of the
  shallow iterations of iterative deepening.
- Slices: each null-window search runs in kernel calls of at most ``NODE_BUDGET``
  nodes; a call that runs out suspends the search (its explicit frame stack and
  the board stay as they are) and the next call continues it exactly. Python thus
  regains control every ~0.5 s and Ctrl-C reports the bounds proved by the
  finished passes (:class:`SolveInterrupted`).
- Transposition table: a fixed power-of-two number of entries (default 2**24,
  256 MB; 2**22 took 1.13x the nodes in Kalah(6,4)'s pass (9, 10), 12 stones),
  arranged in buckets of two. The key is a 64-bit Zobrist hash of the pits in
  mover-relative order (pits only, so positions that differ by stores share
  entries); an entry holds the full key, a lower and an upper bound, the best move
  and the log2 of the subtree's node count ("work"). Replacement: a hit on the same
  key merges the bounds (both are valid); otherwise the entry of the bucket with
  less work is overwritten (work-preferred, two-way). A 64-bit key collision would
  go unnoticed; its chance is about (entries x nodes) / 2**64.
- Enhanced transposition cut-off: before searching a node, every child is looked
  up (finished game, endgame database, table); a child whose bound alone proves
  ``v >= beta`` ends the node at once, and so do children that all have known
  upper bounds ``<= alpha`` (the node fails low without a search: -2% to -5%
  nodes on Kalah(5,4) and Kalah(6,3)).
- Move ordering: the table's best move first, then moves that earn an extra move,
  then by stones gained, ties broken nearest-the-store first. (Breaking ties in
  ascending pit order instead took 27x more nodes on Kalah(6,3).)
- Endgame database: positions with at most ``endgame_stones`` stones in play are
  read from :mod:`.endgame` (default: :func:`default_endgame_stones`, the 20-stone
  database for Kalah(6,4): 11.1M nodes instead of 126M with 12 stones), kept on
  disk between runs when a directory is given; trivial bounds
  ``-in_play <= v <= in_play`` cut off searches whose window lies outside them.
- The search kernel is iterative (explicit stack of frames), not recursive.

Kalah(6, 4) = +10 and Kalah(6, 5) = +12 are the published values (Irving et al.
2000; confirmed by M. Rawlings, 2015).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..errors import InputError
from .._jit import jit
from .._random import next_u64, stream_key
from .endgame import binomials, endgame_database, position_index, relative_pit, table_size
from .evaluation import weights_for
from .search import INF, alphabeta
from .rules import (SOUTH, VARIANTS, apply_move, legal_moves, new_board, pits_per_side,
                    side_stones, store_of, undo_move)

TABLE_BITS = 24         # default transposition table: 2**TABLE_BITS entries of 16 bytes
NODE_BUDGET = 1 << 19   # nodes per kernel call (Python sees Ctrl-C between calls)
LOWER_UNKNOWN = -128
UPPER_UNKNOWN = 127
ZOBRIST_SEED = 3


@jit
def position_key(board, player, zobrist):
    """64-bit Zobrist key of the pits of ``board`` in ``player``-relative order."""
    m = pits_per_side(board)
    key = np.uint64(0)
    for j in range(2 * m):
        key ^= zobrist[j, board[relative_pit(m, player, j)]]
    return key


@jit
def _pack(lower, upper, move, work):
    return (np.uint64(lower + 128) | (np.uint64(upper + 128) << np.uint64(8))
            | (np.uint64(move) << np.uint64(16)) | (np.uint64(work) << np.uint64(24)))


@jit
def _work(data):
    return np.int64((data >> np.uint64(24)) & np.uint64(0xFF))


@jit
def tt_store(tt, key, lower, upper, move, work):
    """Record bounds for ``key`` (two-way bucket, merge on hit, else keep the more work)."""
    mask = np.uint64(tt.shape[0] - 1)
    first = np.int64(key & mask & ~np.uint64(1))
    for e in range(first, first + 2):
        if tt[e, 0] == key:
            data = tt[e, 1]
            old_lower = np.int64(data & np.uint64(0xFF)) - 128
            old_upper = np.int64((data >> np.uint64(8)) & np.uint64(0xFF)) - 128
            if old_lower > lower:
                lower = old_lower
            if old_upper < upper:
                upper = old_upper
            if _work(data) > work:
                work = _work(data)
            tt[e, 1] = _pack(lower, upper, move, work)
            return
    victim = first if _work(tt[first, 1]) <= _work(tt[first + 1, 1]) else first + 1
    tt[victim, 0] = key
    tt[victim, 1] = _pack(lower, upper, move, work)


@jit
def tt_probe(tt, key):
    """``(found, lower, upper, move)`` for ``key``."""
    mask = np.uint64(tt.shape[0] - 1)
    first = np.int64(key & mask & ~np.uint64(1))
    for e in range(first, first + 2):
        if tt[e, 0] == key and tt[e, 1] != np.uint64(0):
            data = tt[e, 1]
            return (True, np.int64(data & np.uint64(0xFF)) - 128,
                    np.int64((data >> np.uint64(8)) & np.uint64(0xFF)) - 128,
                    np.int64((data >> np.uint64(16)) & np.uint64(0xFF)))
    return False, np.int64(LOWER_UNKNOWN), np.int64(UPPER_UNKNOWN), np.int64(-1)


@jit
def _log2(n):
    w = 0
    while n > 1 and w < 255:
        n >>= 1
        w += 1
    return w


# Columns of a search frame, after the 2m columns of moves and ordering keys.
_PLAYER, _ALPHA, _BETA, _A, _N, _IDX, _BEST, _BEST_MOVE, _START, _NXT, _RECORD, _GAIN = range(12)
FRAME_FIELDS = 12


class Lookup(NamedTuple):
    """What the search consults besides the board, passed to the kernels as one record.

    Attributes
    ----------
    tt : np.ndarray
        uint64 ``(entries, 2)`` transposition table (key, packed bounds); written.
    zobrist : np.ndarray
        uint64 Zobrist keys of (pit, stones) and the side to move.
    db : np.ndarray
        Endgame database: the mover's value of every position with at most
        ``db_stones`` stones in play, indexed by :func:`.endgame.position_index`.
    db_stones : int
        Stones in play covered by ``db``.
    binom : np.ndarray
        Binomial table of the position index.
    """

    tt: np.ndarray
    zobrist: np.ndarray
    db: np.ndarray
    db_stones: int
    binom: np.ndarray


@jit
def _order(board, player, row, n, tt_move, alpha, beta, variant, lookup):
    """Enhanced transposition cut-off, then move ordering of ``player``'s ``n`` moves
    in ``row[:n]``.

    Each child is looked up (finished game, endgame database, transposition table);
    if a child alone proves ``v >= beta`` its lower bound is returned with ``True``;
    if every child is known and none can exceed ``alpha``, the largest upper bound
    is returned with ``True``. Otherwise ``row[:n]`` is sorted (keys in
    ``row[m:m+n]``): table move, extra moves, stones gained; returns ``(False, 0)``.
    """
    m = pits_per_side(board)
    store = store_of(m, player)
    all_known = True
    best_upper = np.int64(-1000)
    for i in range(n):
        before = board[store]
        nxt, record = apply_move(board, player, row[i], variant)
        gain = np.int64(board[store] - before)
        own = np.int64(side_stones(board, nxt))
        other = np.int64(side_stones(board, 1 - nxt))
        known = False
        child_low = np.int64(0)
        child_high = np.int64(0)
        if own == 0 or other == 0:
            known = True
            child_low = child_high = own - other
        elif own + other <= lookup.db_stones:
            known = True
            child_low = child_high = np.int64(lookup.db[position_index(board, nxt,
                                                                       lookup.binom)])
        else:
            found, lower, upper, _ = tt_probe(lookup.tt,
                                              position_key(board, nxt, lookup.zobrist))
            if found:
                known = True
                child_low, child_high = lower, upper
        undo_move(board, player, record)
        if known:
            bound = gain + child_low if nxt == player else gain - child_high
            if bound >= beta:
                return True, bound
            upper = gain + child_high if nxt == player else gain - child_low
            if upper > best_upper:
                best_upper = upper
        else:
            all_known = False
        # pits nearer the store first among equals (row[i] % (m + 1) is 0..m-1)
        score = gain * 16 + row[i] % (m + 1)
        if nxt == player:
            score += 1 << 12
        if row[i] == tt_move:
            score += 1 << 20
        row[m + i] = score
    if all_known and best_upper <= alpha:
        return True, best_upper
    for i in range(1, n):
        k = row[m + i]
        mv = row[i]
        j = i - 1
        while j >= 0 and row[m + j] < k:
            row[m + j + 1] = row[m + j]
            row[j + 1] = row[j]
            j -= 1
        row[m + j + 1] = k
        row[j + 1] = mv
    return False, np.int64(0)


# Phases of a search kept in ``state[0]`` between calls of :func:`solve_window`.
NEW, SUSPENDED, FINISHED = 0, 1, 2


@jit
def solve_window(board, player, alpha, beta, variant, lookup, frames, stats, state,
                 node_limit):
    """Fail-soft alpha-beta value ``v`` of the pits for ``player`` to move, in slices.

    Iterative (an explicit stack of frames, no recursion): ``frames`` is int64
    ``(plies, 2m + FRAME_FIELDS)``; row ``ply`` holds that node's moves, ordering keys
    and search state. ``stats``: int64 ``[nodes, table cut-offs, database reads]``.
    ``state`` (int64, 3) is ``[phase, ply, value]``: a call with phase ``NEW``
    starts the search; once ``stats[0]`` reaches ``node_limit`` the call returns
    False with phase ``SUSPENDED`` (just before entering a node at ``ply``) and the
    search is continued by calling again with the same ``board``, ``frames`` and
    ``state`` (``board`` is then mid-search). On completion it returns True, phase
    ``FINISHED``, ``state[2]`` = the value, and ``board`` is restored. Every call
    enters at least one node, so repeated calls always finish.
    """
    tt, zobrist, db, db_stones, binom = lookup
    m = pits_per_side(board)
    base = 2 * m
    if state[0] == NEW:
        ply = np.int64(0)
        frames[0, base + _PLAYER] = player
        frames[0, base + _ALPHA] = alpha
        frames[0, base + _BETA] = beta
        entering = True
        ret = np.int64(0)
    else:
        ply = state[1]
        entering = True
        ret = np.int64(0)
    state[0] = SUSPENDED
    first = True
    while True:
        row = frames[ply]
        who = row[base + _PLAYER]
        store = store_of(m, who)
        if entering:
            if stats[0] >= node_limit and not first:
                state[1] = ply
                return False
            first = False
            stats[0] += 1
            a = row[base + _ALPHA]
            b = row[base + _BETA]
            own = np.int64(side_stones(board, who))
            other = np.int64(side_stones(board, 1 - who))
            in_play = own + other
            leaf = True
            if own == 0 or other == 0:
                ret = own - other
            elif in_play <= db_stones:
                stats[2] += 1
                ret = np.int64(db[position_index(board, who, binom)])
            elif a >= in_play:
                ret = in_play
            elif b <= -in_play:
                ret = -in_play
            else:
                found, lower, upper, tt_move = tt_probe(tt, position_key(board, who, zobrist))
                if found and (lower >= b or lower == upper):
                    stats[1] += 1
                    ret = lower
                elif found and upper <= a:
                    stats[1] += 1
                    ret = upper
                else:
                    n = legal_moves(board, who, row)
                    cut, ret = _order(board, who, row, n, tt_move, a, b, variant, lookup)
                    leaf = cut
                    row[base + _N] = n
                    row[base + _IDX] = 0
                    row[base + _BEST] = -1000
                    row[base + _BEST_MOVE] = row[0]
                    row[base + _A] = a
                    row[base + _START] = stats[0]
                    if cut:
                        stats[1] += 1
            if leaf:
                if ply == 0:
                    state[0] = FINISHED
                    state[2] = ret
                    return True
                ply -= 1
                entering = False
                continue
        else:
            # a child returned `ret` to this node
            undo_move(board, who, row[base + _RECORD])
            gain = row[base + _GAIN]
            v = gain + ret if row[base + _NXT] == who else gain - ret
            idx = row[base + _IDX]
            if v > row[base + _BEST]:
                row[base + _BEST] = v
                row[base + _BEST_MOVE] = row[idx]
                if v > row[base + _A]:
                    row[base + _A] = v
            if row[base + _A] >= row[base + _BETA] or idx + 1 == row[base + _N]:
                best = row[base + _BEST]
                work = _log2(stats[0] - row[base + _START])
                key = position_key(board, who, zobrist)
                if best <= row[base + _ALPHA]:
                    tt_store(tt, key, LOWER_UNKNOWN, best, row[base + _BEST_MOVE], work)
                elif best >= row[base + _BETA]:
                    tt_store(tt, key, best, UPPER_UNKNOWN, row[base + _BEST_MOVE], work)
                else:
                    tt_store(tt, key, best, best, row[base + _BEST_MOVE], work)
                ret = best
                if ply == 0:
                    state[0] = FINISHED
                    state[2] = ret
                    return True
                ply -= 1
                continue
            row[base + _IDX] = idx + 1
        # descend into move number row[IDX]
        pit = row[row[base + _IDX]]
        before = board[store]
        nxt, record = apply_move(board, who, pit, variant)
        gain = np.int64(board[store] - before)
        row[base + _NXT] = nxt
        row[base + _RECORD] = record
        row[base + _GAIN] = gain
        a = row[base + _A]
        b = row[base + _BETA]
        child = frames[ply + 1]
        child[base + _PLAYER] = nxt
        if nxt == who:
            child[base + _ALPHA] = a - gain
            child[base + _BETA] = b - gain
        else:
            child[base + _ALPHA] = gain - b
            child[base + _BETA] = gain - a
        ply += 1
        entering = True


@dataclass(frozen=True)
class Solution:
    """Solved Kalah(m, n): South's ``value`` (final margin), one perfect ``line``."""

    pits: int
    stones: int
    variant: str
    value: int
    line: tuple
    seconds: float
    nodes: int
    endgame_stones: int
    endgame_seconds: float
    table_entries: int
    endgame_source: str = "built"


class Solver:
    """Holds the endgame database and transposition table for one Kalah(m, n) variant.

    ``endgame_dir``: where databases are kept between runs (None: built in memory);
    ``on_slice(positions)``: progress of a database build; ``node_budget``: nodes per
    kernel call of the search (Python regains control, and sees Ctrl-C, in between).
    """

    def __init__(self, m: int, n: int, variant: str = "empty-capture",
                 endgame_stones: int | None = None, table_bits: int = TABLE_BITS,
                 endgame_dir=None, on_slice=None):
        if variant not in VARIANTS:
            raise InputError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
        self.opening = new_board(m, n)
        self.m, self.n, self.variant = m, n, variant
        total = 2 * m * n
        if endgame_stones is None:
            endgame_stones = default_endgame_stones(m, total)
        if not 0 <= endgame_stones <= total:
            raise InputError(f"endgame stones must be from 0 to {total}, got {endgame_stones}")
        if not 4 <= table_bits <= 30:
            raise InputError(f"table bits must be from 4 to 30, got {table_bits}")
        self.endgame_stones = endgame_stones
        self.binom = binomials(total + 2 * m + 1, 2 * m + 1)
        self.zobrist = _zobrist_table(2 * m, total)
        self.tt = np.zeros((1 << table_bits, 2), dtype=np.uint64)
        # A game lasts at most sum over s <= total of (s*m + 1) plies (see endgame.py).
        self.scratch = np.zeros((total * total * m // 2 + total * m + total + 8,
                                 2 * m + FRAME_FIELDS), dtype=np.int64)
        self.stats = np.zeros(3, dtype=np.int64)
        self.node_budget = NODE_BUDGET
        start = time.perf_counter()
        self.db, self.endgame_source = endgame_database(m, endgame_stones, VARIANTS[variant],
                                                        self.binom, endgame_dir, on_slice)
        self.endgame_seconds = time.perf_counter() - start

    @property
    def lookup(self) -> Lookup:
        """The tables of this solver as the kernels take them."""
        return Lookup(self.tt, self.zobrist, self.db, self.endgame_stones, self.binom)

    def value(self, board, player: int, guess: int | None = None) -> int:
        """Mover-relative value of the pits of ``board`` (stores ignored).

        ``guess`` is MTD(f)'s first guess; by default the store difference found by a
        ``GUESS_DEPTH``-ply alpha-beta search of :mod:`.search` (mover's view).
        """
        board = np.array(board, dtype=np.int8)
        if guess is None:
            guess = first_guess(board, player, VARIANTS[self.variant])
        # MTD(f): null-window searches until the bounds meet; the bounds so far stay in
        # self.bounds, so an interrupted solve can still report them.
        g = int(guess)
        self.bounds = (-1000, 1000)
        while self.bounds[0] < self.bounds[1]:
            beta = g + 1 if g == self.bounds[0] else g
            g = self.window(board, player, beta - 1, beta)
            self.bounds = (self.bounds[0], g) if g < beta else (g, self.bounds[1])
        return g

    def at_least(self, board, player: int, target: int) -> bool:
        """True when the mover-relative value is ``>= target`` (one null-window search)."""
        return self.window(np.array(board, dtype=np.int8), player, target - 1, target) >= target

    def window(self, board, player: int, alpha: int, beta: int) -> int:
        """Fail-soft value of ``board`` (int8, restored on return) in ``(alpha, beta)``.

        The kernel runs in slices of ``node_budget`` nodes, so Python regains control
        (and sees Ctrl-C) at least that often; the table is shared by all slices.
        """
        state = np.zeros(3, dtype=np.int64)
        while not solve_window(board, player, alpha, beta, VARIANTS[self.variant],
                               self.lookup, self.scratch, self.stats, state,
                               self.stats[0] + self.node_budget):
            pass
        return int(state[2])

    def perfect_line(self, board, player: int, value: int) -> list[int]:
        """One perfect game from ``board``: at each turn the first move that keeps the
        value, trying the table's best move for the position first, then ascending
        pits (the table's move is usually right and its subtree cached: Kalah(5,4)'s
        line cost 268,664 nodes in ascending order, 44 nodes this way)."""
        board = np.array(board, dtype=np.int8)
        variant = VARIANTS[self.variant]
        m = self.m
        line = []
        moves = np.zeros(m, dtype=np.int64)
        while True:
            count = legal_moves(board, player, moves)
            if count == 0:
                return line
            store = store_of(m, player)
            best = tt_probe(self.tt, np.uint64(position_key(board, player, self.zobrist)))[3]
            for pit in sorted(moves[:count], key=lambda pit: pit != best):
                child = board.copy()
                nxt, _ = apply_move(child, player, int(pit), variant)
                gain = int(child[store]) - int(board[store])
                if nxt == player:
                    ok = self.at_least(child, nxt, value - gain)
                else:
                    ok = not self.at_least(child, nxt, gain - value + 1)
                if ok:
                    break
            else:  # pragma: no cover - the value is the maximum over moves
                raise AssertionError("no move keeps the solved value")
            line.append(int(pit))
            board = child
            value = value - gain if nxt == player else gain - value
            player = nxt


GUESS_DEPTH = 10


def first_guess(board, player: int, variant: int) -> int:
    """Heuristic first guess for MTD(f): a ``GUESS_DEPTH``-ply store-difference search,
    stores zeroed, seen from ``player``."""
    board = board.copy()
    m = (board.shape[0] - 2) // 2
    board[m] = board[2 * m + 1] = 0
    weights = weights_for("store", m)
    depth = GUESS_DEPTH
    scratch = np.zeros((depth + 1, m), dtype=np.int64)
    keys = np.zeros((depth + 1, m), dtype=np.int64)
    value = alphabeta(board, player, depth, -INF, INF, weights, variant, True, scratch, keys,
                      np.zeros(1, dtype=np.int64))
    return int(value) if player == SOUTH else -int(value)


SMALL_DATABASE = 3_000_000    # entries; built in about a second
LARGE_DATABASE = 250_000_000  # entries; m = 6: 20 stones, 226 MB, minutes to build once
LARGE_BEYOND = 30             # stones out of the small database's reach calling for the large


def default_endgame_stones(m: int, total: int) -> int:
    """Stones covered by the default database of a board of ``total`` stones.

    The largest with at most :data:`SMALL_DATABASE` entries, unless more than
    :data:`LARGE_BEYOND` stones lie beyond it (Kalah(6,4), (5,5), (6,5), ...): then
    the largest with at most :data:`LARGE_DATABASE` entries, which pays off only when
    kept on disk and read by later solves.
    """
    small = _largest_database(m, total, SMALL_DATABASE)
    if total - small > LARGE_BEYOND:
        return _largest_database(m, total, LARGE_DATABASE)
    return small


def _largest_database(m: int, total: int, max_entries: int) -> int:
    """Largest stone count (at most ``total``) whose database has ``<= max_entries``."""
    stones = 0
    while stones < total and table_size(m, stones + 1) <= max_entries:
        stones += 1
    return stones


def _zobrist_table(pits: int, total: int) -> np.ndarray:
    key = np.uint64(stream_key(ZOBRIST_SEED, pits))
    table = np.empty((pits, total + 1), dtype=np.uint64)
    for j in range(pits):
        for c in range(total + 1):
            table[j, c] = next_u64(key, j * (total + 1) + c)
    return table


class SolveInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`solve`; carries what was known: South's margin lies in
    ``[lower, upper]`` (equal once the value is known), after ``seconds``."""

    def __init__(self, lower: int, upper: int, seconds: float, nodes: int):
        super().__init__(f"value between {lower} and {upper}")
        self.lower, self.upper, self.seconds, self.nodes = lower, upper, seconds, nodes


def solve(m: int, n: int, variant: str = "empty-capture", endgame_stones: int | None = None,
          table_bits: int = TABLE_BITS, line: bool = True, endgame_dir=None,
          on_slice=None) -> Solution:
    """Game value of Kalah(m, n) from the opening, South to move, and a perfect game.

    ``endgame_dir``: directory where endgame databases are kept between runs (see
    :func:`.endgame.endgame_database`; None: built in memory). ``on_slice(positions)``
    reports the database build's progress. Ctrl-C raises :class:`SolveInterrupted`.
    """
    start = time.perf_counter()
    total = 2 * m * n
    solver = None
    try:
        solver = Solver(m, n, variant, endgame_stones, table_bits, endgame_dir, on_slice)
        solver.bounds = (-total, total)
        value = solver.value(solver.opening, SOUTH)
        path = solver.perfect_line(solver.opening, SOUTH, value) if line else []
    except KeyboardInterrupt:
        lower, upper = getattr(solver, "bounds", (-total, total))
        nodes = int(solver.stats[0]) if solver is not None else 0
        raise SolveInterrupted(max(lower, -total), min(upper, total),
                               time.perf_counter() - start, nodes) from None
    seconds = time.perf_counter() - start
    return Solution(m, n, variant, value, tuple(path), seconds, int(solver.stats[0]),
                    solver.endgame_stones, solver.endgame_seconds, solver.tt.shape[0],
                    solver.endgame_source)
