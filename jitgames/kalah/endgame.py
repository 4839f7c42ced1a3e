"""Endgame database of Kalah: exact values of every position with few stones in play.

Stones that reach a store never come back into play, so the value of the rest of
the game depends only on the pits, not on the stores. The database stores, for
every distribution of at most ``S`` stones over the ``2m`` pits with the player to
move seen as South, the value ``v`` = (stones the player to move will still gain) -
(stones the opponent will still gain) under perfect play. South's final margin from
a position is then ``store_S - store_N + v`` (``v`` with South to move).

Index: pits are read in mover-relative order (the mover's ``m`` pits, then the
opponent's ``m``); a distribution ``a`` of ``s`` stones gets
``C(s + 2m - 1, 2m) + rank(a)`` where ``rank`` is the combinatorial-number-system
rank of the stars-and-bars bar positions ``p_j = a_0 + .. + a_j + j``. Indices of
all distributions with at most ``S`` stones are exactly ``0 .. C(S + 2m, 2m) - 1``.

Building (choice left open by DESIGN.md): a memoised full-width search over the
positions, level by level (stones in play), each level split among threads. Every child has at most
as many stones in play, so it is in the table; the recursion terminates because a
move either takes stones out of play or moves stones of one side towards its own
store. Values are int8; ``UNKNOWN = -128`` marks an entry not yet computed.

Numba note: recursive kernels are called with non-literal int64 arguments only
(``np.int64(0)``, not ``0``). A second, literal-typed overload of a recursive
function crashes when loaded back from Numba's on-disk cache.
"""
from __future__ import annotations

import numpy as np

from .._jit import jit, prange
from .rules import SOUTH, apply_move, legal_moves, pits_per_side, side_stones, store_of, undo_move

UNKNOWN = -128


def binomials(top: int) -> np.ndarray:
    """Table ``C[n, k]`` (int64) for ``0 <= n, k <= top``."""
    table = np.zeros((top + 1, top + 1), dtype=np.int64)
    for n in range(top + 1):
        table[n, 0] = 1
        for k in range(1, n + 1):
            table[n, k] = table[n - 1, k - 1] + table[n - 1, k]
    return table


def table_size(m: int, stones: int) -> int:
    """Entries of the database of Kalah with ``m`` pits a side and at most ``stones``."""
    return int(binomials(stones + 2 * m)[stones + 2 * m, 2 * m])


@jit
def relative_pit(m, player, j):
    """Board index of the ``j``-th pit in ``player``-relative order (own pits first)."""
    if player == SOUTH:
        return j if j < m else j + 1
    return m + 1 + j if j < m else j - m


@jit
def position_index(board, player, binom):
    """Database index of the pits of ``board`` with ``player`` to move."""
    m = pits_per_side(board)
    k = 2 * m
    prefix = np.int64(0)
    rank = np.int64(0)
    for j in range(k - 1):
        prefix += board[relative_pit(m, player, j)]
        rank += binom[prefix + j, j + 1]
    total = prefix + board[relative_pit(m, player, k - 1)]
    return binom[total + k - 1, k] + rank


@jit
def endgame_value(board, player, variant, db, binom, scratch, ply):
    """Value of the pits of ``board`` for ``player`` to move, memoised in ``db``.

    All positions reached must have at most as many stones as the table covers.
    ``scratch`` (int64, one row of ``m`` per recursion level) holds move lists.
    """
    index = position_index(board, player, binom)
    known = db[index]
    if known != UNKNOWN:
        return np.int64(known)
    own = side_stones(board, player)
    other = side_stones(board, 1 - player)
    if own == 0 or other == 0:
        value = np.int64(own - other)
    else:
        m = pits_per_side(board)
        store = store_of(m, player)
        moves = scratch[ply]
        n = legal_moves(board, player, moves)
        value = np.int64(-1000)
        for i in range(n):
            before = board[store]
            nxt, record = apply_move(board, player, moves[i], variant)
            gain = np.int64(board[store] - before)
            child = endgame_value(board, nxt, variant, db, binom, scratch, ply + 1)
            undo_move(board, player, record)
            v = gain + child if nxt == player else gain - child
            if v > value:
                value = v
    db[index] = value
    return value


@jit
def set_position(board, player, stones, rank, binom):
    """Inverse of :func:`position_index` within one level: write to the pits of
    ``board`` (``player``-relative order) the distribution of ``stones`` stones whose
    rank among distributions of that many stones is ``rank``."""
    m = pits_per_side(board)
    k = 2 * m
    top = stones + k - 2            # bar positions lie in 0 .. top
    previous = top + 1
    # greedy combinatorial number system, largest bar first
    for j in range(k - 2, -1, -1):
        p = previous - 1
        while binom[p, j + 1] > rank:
            p -= 1
        rank -= binom[p, j + 1]
        board[relative_pit(m, player, j + 1)] = previous - p - 1 if j < k - 2 else top - p
        previous = p
    board[relative_pit(m, player, 0)] = previous


@jit(parallel=True)
def build_endgame(m, stones, variant, db, binom):
    """Fill ``db`` (int8, ``C(stones + 2m, 2m)`` entries) with every position's value.

    Levels (stones in play) are done in increasing order; within a level, chunks
    of positions are shared among threads (``prange``). Two threads may compute the
    same entry at once; both write the same exact value, so the table does not
    depend on the thread count. Returns the number of entries.
    """
    k = 2 * m
    for i in range(db.shape[0]):
        db[i] = UNKNOWN
    rows = stones * stones * m + stones * m + stones + 4
    for level in range(stones + 1):
        first = binom[level + k - 1, k]
        size = binom[level + k - 1, k - 1]
        chunk = 4096
        chunks = (size + chunk - 1) // chunk
        for c in prange(chunks):
            board = np.zeros(k + 2, dtype=np.int8)
            scratch = np.zeros((rows, m), dtype=np.int64)
            for rank in range(c * chunk, min(size, (c + 1) * chunk)):
                if db[first + rank] == UNKNOWN:
                    set_position(board, SOUTH, level, rank, binom)
                    endgame_value(board, np.int64(SOUTH), variant, db, binom, scratch,
                                  np.int64(0))
    return db.shape[0]
