"""Static evaluations of Kalah positions, all linear in the ``2m + 2`` board values.

An evaluation is an int64 weight vector ``w`` of the board's length; the value of a
position (from South's point of view, South maximises) is ``sum(w[i] * board[i])``.

- ``"store"``: store difference ``board[m] - board[2m+1]`` (the classic one);
- ``"sides"``: stones on each side including the stores, South's minus North's;
- any other linear function: pass the weight vector itself.

A finished game (:func:`jitgames.kalah.rules.is_over`) is valued on its final board,
where each side's remaining stones have gone to their owner's store; with the two
named evaluations that is exactly South's final margin.
"""
from __future__ import annotations

import numpy as np

from ..errors import InputError
from .._jit import jit
from .rules import NORTH, SOUTH, is_over, pits_per_side, side_stones

EVALUATIONS = ("store", "sides")
MAX_WEIGHT = 10**9  # 127 stones x 10^9 stays far below the search's INF = 2^40


@jit
def evaluate(board, weights):
    """Linear evaluation ``weights . board`` (final board if the game is over)."""
    m = pits_per_side(board)
    if is_over(board):
        south = np.int64(board[m]) + side_stones(board, SOUTH)
        north = np.int64(board[2 * m + 1]) + side_stones(board, NORTH)
        return weights[m] * south + weights[2 * m + 1] * north
    total = np.int64(0)
    for i in range(board.shape[0]):
        total += weights[i] * np.int64(board[i])
    return total


def weights_for(evaluation, m: int) -> np.ndarray:
    """Weight vector (int64, length ``2m + 2``) of a named evaluation or a sequence.

    Raises
    ------
    ValueError
        Unknown name, or a sequence of the wrong length or with non-integer values.
    """
    size = 2 * m + 2
    if isinstance(evaluation, str):
        w = np.zeros(size, dtype=np.int64)
        if evaluation == "store":
            w[m], w[2 * m + 1] = 1, -1
        elif evaluation == "sides":
            w[: m + 1], w[m + 1:] = 1, -1
        else:
            raise InputError(f"unknown evaluation {evaluation!r}; choose from "
                             f"{', '.join(EVALUATIONS)} or give {size} integer weights")
        return w
    values = np.asarray(evaluation)
    if values.shape != (size,) or not np.issubdtype(values.dtype, np.integer):
        raise InputError(f"a linear evaluation needs {size} integer weights, got {values.tolist()}")
    return values.astype(np.int64)


def symmetric_weights(half) -> np.ndarray:
    """Weights for South's pits and store (``m + 1`` values), mirrored negated for North."""
    half = np.asarray(half, dtype=np.int64)
    return np.concatenate([half, -half])


def parse_evaluation(text: str, m: int) -> np.ndarray:
    """Parse ``store``, ``sides``, or comma-separated integers (``m+1`` mirrored, or ``2m+2``)."""
    if text in EVALUATIONS:
        return weights_for(text, m)
    try:
        values = [int(x) for x in text.split(",")]
    except ValueError:
        raise InputError(f"evaluation must be {' or '.join(EVALUATIONS)} or comma-separated "
                         f"integers, got {text!r}") from None
    if any(abs(v) > MAX_WEIGHT for v in values):
        raise InputError(f"evaluation weights must be from -{MAX_WEIGHT} to {MAX_WEIGHT}, "
                         f"got {text!r}")
    if len(values) == m + 1:
        return symmetric_weights(values)
    return weights_for(np.array(values, dtype=np.int64), m)
