"""Depth-limited game-tree search: minimax, alpha-beta, move ordering, root choice.

The search knows nothing of Kalah's arithmetic: it calls the rules kernels
(:func:`~jitgames.kalah.rules.legal_moves`, :func:`~jitgames.kalah.rules.apply_move`,
:func:`~jitgames.kalah.rules.undo_move`, :func:`~jitgames.kalah.rules.is_over`) and a
linear evaluation (:func:`~jitgames.kalah.evaluation.evaluate`).

Conventions (choices docs/design.md leaves open):

- Values are from South's point of view: South (player 0) maximises, North
  minimises. Depth counts plies, and an extra move (last stone in the store) is a
  ply like any other. Leaves are positions at depth 0 or finished games.
- ``nodes`` counts positions visited by the search (each call once). The static
  evaluations made to order moves are not counted as nodes.
- Move ordering: at every node with more than one ply left, the children are sorted
  by their static evaluation, best first for the side to move (stable, so equal
  evaluations keep ascending pit order).
- Deterministic tie rule: among root moves of equal value the lowest pit index is
  chosen. Alpha-beta gets the same move as minimax because at the root every move
  is searched with the window ``(best - 1, +inf)`` for South (``(-inf, best + 1)`` for
  North): a move that ties the best so far gets its exact value, so the set of best
  moves is known exactly. With ``randomize`` the move is drawn uniformly from that
  set with :func:`jitgames._random.below`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .._jit import jit
from .._random import below, stream_key
from .evaluation import evaluate, weights_for
from .rules import SOUTH, VARIANTS, apply_move, is_over, legal_moves, undo_move

INF = np.int64(1 << 40)
MINIMAX = 0
ALPHABETA = 1
METHODS = {"minimax": MINIMAX, "alphabeta": ALPHABETA}


@jit
def minimax(board, player, depth, weights, variant, scratch, nodes):
    """Minimax value of ``board`` (``player`` to move) searched ``depth`` plies.

    ``scratch``: int64 array ``(depth + 1, m)`` for move lists; ``nodes[0]`` is
    incremented once per position visited.
    """
    nodes[0] += 1
    if depth == 0 or is_over(board):
        return evaluate(board, weights)
    moves = scratch[depth]
    n = legal_moves(board, player, moves)
    best = -INF if player == SOUTH else INF
    for i in range(n):
        nxt, record = apply_move(board, player, moves[i], variant)
        value = minimax(board, nxt, depth - 1, weights, variant, scratch, nodes)
        undo_move(board, player, record)
        if player == SOUTH:
            if value > best:
                best = value
        elif value < best:
            best = value
    return best


@jit
def order_moves(board, player, moves, n, weights, variant, keys):
    """Sort ``moves[:n]`` in place by static evaluation, best first for ``player``.

    ``keys`` (int64, at least ``n`` slots) is scratch. The sort is stable.
    """
    for i in range(n):
        nxt, record = apply_move(board, player, moves[i], variant)
        value = evaluate(board, weights)
        undo_move(board, player, record)
        keys[i] = value if player == SOUTH else -value
    for i in range(1, n):
        key = keys[i]
        move = moves[i]
        j = i - 1
        while j >= 0 and keys[j] < key:
            keys[j + 1] = keys[j]
            moves[j + 1] = moves[j]
            j -= 1
        keys[j + 1] = key
        moves[j + 1] = move


@jit
def alphabeta(board, player, depth, alpha, beta, weights, variant, ordering, scratch, keys,
              nodes):
    """Fail-soft alpha-beta: the minimax value when it lies strictly inside
    ``(alpha, beta)``, else a bound on the same side of the window.

    ``scratch`` and ``keys`` are int64 arrays ``(depth + 1, m)``; ``ordering`` turns
    static move ordering on.
    """
    nodes[0] += 1
    if depth == 0 or is_over(board):
        return evaluate(board, weights)
    moves = scratch[depth]
    n = legal_moves(board, player, moves)
    if ordering and depth > 1:
        order_moves(board, player, moves, n, weights, variant, keys[depth])
    if player == SOUTH:
        best = -INF
        for i in range(n):
            nxt, record = apply_move(board, player, moves[i], variant)
            value = alphabeta(board, nxt, depth - 1, alpha, beta, weights, variant, ordering,
                              scratch, keys, nodes)
            undo_move(board, player, record)
            if value > best:
                best = value
                if best > alpha:
                    alpha = best
                    if alpha >= beta:
                        break
    else:
        best = INF
        for i in range(n):
            nxt, record = apply_move(board, player, moves[i], variant)
            value = alphabeta(board, nxt, depth - 1, alpha, beta, weights, variant, ordering,
                              scratch, keys, nodes)
            undo_move(board, player, record)
            if value < best:
                best = value
                if best < beta:
                    beta = best
                    if alpha >= beta:
                        break
    return best


@jit
def root_values(board, player, depth, weights, variant, method, ordering, moves, values, nodes):
    """Search every root move; fill ``moves`` and ``values``, return their count.

    Values of moves at least as good as the best (for the side to move) are exact;
    the others are bounds proving them worse. ``depth >= 1``.
    """
    m = moves.shape[0]
    scratch = np.zeros((depth + 1, m), dtype=np.int64)
    keys = np.zeros((depth + 1, m), dtype=np.int64)
    n = legal_moves(board, player, moves)
    if ordering and method == ALPHABETA and depth > 1:
        order_moves(board, player, moves, n, weights, variant, keys[depth])
    nodes[0] += 1
    best = -INF if player == SOUTH else INF
    for i in range(n):
        nxt, record = apply_move(board, player, moves[i], variant)
        if method == MINIMAX:
            value = minimax(board, nxt, depth - 1, weights, variant, scratch, nodes)
        elif player == SOUTH:
            value = alphabeta(board, nxt, depth - 1, best - 1, INF, weights, variant,
                              ordering, scratch, keys, nodes)
        else:
            value = alphabeta(board, nxt, depth - 1, -INF, best + 1, weights, variant,
                              ordering, scratch, keys, nodes)
        undo_move(board, player, record)
        values[i] = value
        if (player == SOUTH and value > best) or (player != SOUTH and value < best):
            best = value
    return n


@jit
def choose_move(board, player, depth, weights, variant, method, ordering, randomize, key,
                counter, nodes):
    """Best move of ``player`` by a ``depth``-ply search; ``(move, value, counter)``.

    Ties go to the lowest pit index, or with ``randomize`` to a uniform draw from
    stream ``key`` at ``counter`` (the returned counter is the next one to use).
    Returns move ``-1`` when the game is over.
    """
    m = (board.shape[0] - 2) // 2
    moves = np.zeros(m, dtype=np.int64)
    values = np.zeros(m, dtype=np.int64)
    n = root_values(board, player, depth, weights, variant, method, ordering, moves, values,
                    nodes)
    if n == 0:
        return np.int64(-1), evaluate(board, weights), counter
    best = values[0]
    for i in range(1, n):
        if (player == SOUTH and values[i] > best) or (player != SOUTH and values[i] < best):
            best = values[i]
    ties = 0
    chosen = np.int64(1 << 30)
    for i in range(n):
        if values[i] == best:
            ties += 1
            if moves[i] < chosen:
                chosen = moves[i]
    if randomize and ties > 1:
        pick, counter = below(key, counter, ties)
        # the pick-th tie in ascending pit order
        for candidate in range(board.shape[0]):
            for i in range(n):
                if moves[i] == candidate and values[i] == best:
                    if pick == 0:
                        return moves[i], best, counter
                    pick -= 1
    return chosen, best, counter


@dataclass(frozen=True)
class Decision:
    """A searched move: ``move`` (board index), its ``value`` (South's view), ``nodes``."""

    move: int
    value: int
    nodes: int


def _check_board(board) -> np.ndarray:
    board = np.asarray(board)
    if board.ndim != 1 or board.shape[0] < 4 or board.shape[0] % 2:
        raise InputError("a Kalah board is a 1-d array of even length 2m+2 >= 4")
    if board.min() < 0 or int(board.astype(np.int64).sum()) > 127:
        raise InputError("board values must be >= 0 and sum to at most 127")
    return board.astype(np.int8)


def best_move(board, player: int = SOUTH, depth: int = 6, evaluation="store",
              method: str = "alphabeta", ordering: bool = True,
              variant: str = "empty-capture", seed: int | None = None,
              game: int = 0) -> Decision:
    """Search ``depth`` plies and return the chosen move.

    ``evaluation``: ``"store"``, ``"sides"`` or a weight vector. ``seed`` (with the
    stream index ``game``) turns on random choice among equally good moves; ``None``
    picks the lowest pit index.
    """
    board = _check_board(board).copy()
    if player not in (0, 1):
        raise InputError(f"player must be 0 (South) or 1 (North), got {player}")
    if depth < 1:
        raise InputError(f"depth must be >= 1, got {depth}")
    if method not in METHODS:
        raise InputError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if variant not in VARIANTS:
        raise InputError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    m = (board.shape[0] - 2) // 2
    weights = weights_for(evaluation, m)
    nodes = np.zeros(1, dtype=np.int64)
    key = np.uint64(stream_key(seed, game)) if seed is not None else np.uint64(0)
    move, value, _ = choose_move(board, player, depth, weights, VARIANTS[variant],
                                 METHODS[method], ordering, seed is not None, key, 0, nodes)
    return Decision(int(move), int(value), int(nodes[0]))
