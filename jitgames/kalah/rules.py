"""Rules of Kalah(m, n) as Numba kernels: legal moves, sowing, capture, game end.

Board layout (``docs/design.md``): an int8 array of length ``2m + 2``; South's pits are
``0 .. m-1``, South's store ``m``, North's pits ``m+1 .. 2m``, North's store ``2m+1``.
Players are ``SOUTH = 0`` and ``NORTH = 1``. A move is the absolute board index of
the pit sown (South ``0 .. m-1``, North ``m+1 .. 2m``).

Rules in force (standard Kalah, as in Irving, Donkers and Uiterwijk, "Solving
Kalah", ICGA Journal 2000):

- sow counter-clockwise from the next pit, into the mover's store, skipping the
  opponent's store;
- last stone in the mover's own store: the mover moves again;
- last stone in an empty pit on the mover's side: that stone and all stones of the
  opposite pit go to the mover's store. Named variants: ``EMPTY_CAPTURE`` (the
  default, capture also when the opposite pit is empty) and ``STANDARD`` (capture
  only when the opposite pit holds stones);
- the game ends as soon as either side has no stones after a move; each player then
  takes the stones left on their own side. This is the only end rule implemented.

Choices left open by docs/design.md:

- :func:`apply_move` does NOT sweep the remaining stones at the end of the game; a
  finished position keeps them on the board and :func:`final_margin` counts them for
  their owners. That keeps :func:`undo_move` exact and cheap.
- The kernels that create no array are ``leaf`` kernels (:func:`jitgames._jit.jit`):
  no reference counting of the board at each call, a third of the time of a random
  move in the batched environments.
- Apply/undo in place was measured against copy-make (``bench/kalah.py``, "perft")
  and is what every search uses.
"""
from __future__ import annotations

import numpy as np

from ..errors import InputError
from .._jit import jit

SOUTH = 0
NORTH = 1
EMPTY_CAPTURE = 0
STANDARD = 1
VARIANTS = {"empty-capture": EMPTY_CAPTURE, "standard": STANDARD}


@jit(leaf=True)
def pits_per_side(board):
    """Number of pits a side, ``m``, of a board of length ``2m + 2``."""
    return (board.shape[0] - 2) // 2


@jit(leaf=True)
def store_of(m, player):
    """Board index of ``player``'s store."""
    return m if player == SOUTH else 2 * m + 1


@jit(leaf=True)
def side_stones(board, player):
    """Stones in ``player``'s pits (store excluded)."""
    m = pits_per_side(board)
    first = 0 if player == SOUTH else m + 1
    total = 0
    for i in range(first, first + m):
        total += board[i]
    return total


@jit(leaf=True)
def is_over(board):
    """True when either side has no stones in its pits (the game has ended)."""
    return side_stones(board, SOUTH) == 0 or side_stones(board, NORTH) == 0


@jit(leaf=True)
def final_margin(board):
    """South's margin when the game ends here: stores plus each side's own stones."""
    m = pits_per_side(board)
    south = board[m] + side_stones(board, SOUTH)
    north = board[2 * m + 1] + side_stones(board, NORTH)
    return np.int64(south) - np.int64(north)


@jit(leaf=True)
def legal_moves(board, player, out):
    """Write ``player``'s legal pits (ascending board indices) to ``out``; return count.

    A finished game (:func:`is_over`) has no legal moves. ``out`` needs ``m`` slots.
    """
    if is_over(board):
        return 0
    m = pits_per_side(board)
    first = 0 if player == SOUTH else m + 1
    count = 0
    for i in range(first, first + m):
        if board[i] > 0:
            out[count] = i
            count += 1
    return count


@jit(inline=True)
def sow_inline(board, pit, stones, skip, delta, size):
    """:func:`sow`, copied into the kernel that calls it (see :func:`apply_move_inline`);
    ``size`` is ``board.shape[0]``, passed so that a caller that knows it as a constant
    lets the compiler fold it."""
    pos = pit
    left = stones
    while left > 0:
        pos += 1
        if pos == size:
            pos = 0
        if pos == skip:
            continue
        board[pos] += delta
        left -= 1
    return pos


@jit(leaf=True)
def sow(board, pit, stones, skip, delta):
    """Walk ``stones`` pits counter-clockwise from ``pit``, skipping index ``skip``,
    adding ``delta`` to each pit passed (0: only walk). Returns the last pit."""
    return sow_inline(board, pit, stones, skip, delta, board.shape[0])


@jit(inline=True)
def apply_move_inline(board, player, pit, variant, m):
    """:func:`apply_move`, copied into the kernel that calls it, sowing included: for
    the batched environments' step kernels, which make a move or two a game, where
    the calls (a kernel is not inlined across kernels) cost a fifth of the step
    (``bench/envs.py``). ``m`` is the board's pits a side, passed so that a caller
    that knows it as a constant (Kalah(6, n)) lets the compiler fold the board's size
    into the sowing and the capture (about a sixth of the random step,
    ``docs/environments.md``)."""
    own_store = m if player == SOUTH else 2 * m + 1
    skip = 2 * m + 1 if player == SOUTH else m
    stones = np.int64(board[pit])
    board[pit] = 0
    pos = sow_inline(board, pit, stones, skip, 1, 2 * m + 2)
    if pos == own_store:
        return player, np.int64(pit) | (stones << 8)
    captured = np.int64(0)
    own_side = (pos < m) if player == SOUTH else (m < pos < 2 * m + 1)
    if own_side and board[pos] == 1:
        opposite = 2 * m - pos
        if variant == EMPTY_CAPTURE or board[opposite] > 0:
            captured = np.int64(board[opposite]) + 1
            board[own_store] += captured
            board[opposite] = 0
            board[pos] = 0
    return 1 - player, np.int64(pit) | (stones << 8) | (captured << 16)


@jit(leaf=True)
def apply_move(board, player, pit, variant):
    """Sow ``pit`` for ``player`` in place.

    Returns ``(next_player, record)`` where ``record`` packs what :func:`undo_move`
    needs: ``pit | stones << 8 | captured << 16`` (``captured`` = stones moved to the
    store by a capture, 0 if none). The pit must be legal (not checked).
    """
    return apply_move_inline(board, player, pit, variant, (board.shape[0] - 2) // 2)


@jit(leaf=True)
def undo_move(board, player, record):
    """Undo :func:`apply_move` of ``player`` given its ``record``, in place."""
    m = pits_per_side(board)
    pit = record & 0xFF
    stones = (record >> 8) & 0xFF
    captured = (record >> 16) & 0xFF
    skip = store_of(m, 1 - player)
    if captured > 0:
        # Put the captured stones back first: the opposite pit may also have been
        # sown into, and the walk below takes those stones off again.
        last = sow(board, pit, stones, skip, 0)
        board[store_of(m, player)] -= captured
        board[2 * m - last] = captured - 1
        board[last] = 1
    sow(board, pit, stones, skip, -1)
    board[pit] = stones


@jit
def perft_undo(board, player, depth, variant, scratch):
    """Leaf count of the move tree to ``depth`` plies, using apply/undo in place.

    ``scratch`` is an int64 array of shape ``(depth + 1, m)`` for the move lists.
    """
    if depth == 0 or is_over(board):
        return np.int64(1)
    moves = scratch[depth]
    n = legal_moves(board, player, moves)
    total = np.int64(0)
    for i in range(n):
        nxt, record = apply_move(board, player, moves[i], variant)
        total += perft_undo(board, nxt, depth - 1, variant, scratch)
        undo_move(board, player, record)
    return total


@jit
def perft_copy(board, player, depth, variant, scratch):
    """:func:`perft_undo` by copy-make: each child is sown on a fresh copy."""
    if depth == 0 or is_over(board):
        return np.int64(1)
    moves = scratch[depth]
    n = legal_moves(board, player, moves)
    total = np.int64(0)
    for i in range(n):
        child = board.copy()
        nxt, _ = apply_move(child, player, moves[i], variant)
        total += perft_copy(child, nxt, depth - 1, variant, scratch)
    return total


def new_board(m: int, n: int) -> np.ndarray:
    """Opening position of Kalah(m, n): ``n`` stones in each of the ``2m`` pits."""
    if not 1 <= m <= 20:
        raise InputError(f"pits a side must be from 1 to 20, got {m}")
    if not 0 <= n or 2 * m * n > 127:
        raise InputError(f"2*m*n stones must fit an int8 board (at most 127), got m={m}, n={n}")
    board = np.full(2 * m + 2, n, dtype=np.int8)
    board[m] = 0
    board[2 * m + 1] = 0
    return board
