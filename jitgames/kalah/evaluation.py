"""Static evaluations of Kalah positions, all linear in the ``2m + 2`` board values.

An evaluation is an int64 weight vector ``w`` of the board's length; the value of a
position (from South's point of view, South maximises) is ``sum(w[i] * board[i])``.

- ``"store"``: store difference ``board[m] - board[2m+1]`` (the classic one);
- ``"sides"``: stones on each side including the stores, South's minus North's;
- any other linear function: pass the weight vector itself.

A finished game (:func:`jitgames.kalah.rules.is_over`) is valued on its final board,
where each side's remaining stones have gone to their owner's store; with the two
named evaluations that is exactly South's final margin.

The win rule (suffix ``+win``: ``store+win``, ``sides+win``, ``1,0,0,0,0,0,3+win``) is
the text's tweak: when the game ends the winner takes all the stones, so a won game
scores the maximum and a sure win beats any lead in an unfinished game. A finished,
won game then scores ``+-(max|w| * S + 1)`` where ``S`` is the number of stones on the
board: more than any unfinished position can score (``|w . board| <= max|w| * S``),
and the same for every win whatever the margin (the winner takes all). A drawn game
keeps its final-board value. The rule is carried by the evaluation vector itself: a
vector of ``2m + 3`` entries whose last entry is ``WIN_RULE`` (1) instead of the
``2m + 2`` linear weights alone; ``docs/kalah.md`` measures what it changes.
"""
from __future__ import annotations

import numpy as np

from .._cli import parse_int
from ..errors import InputError
from .._jit import jit
from .rules import NORTH, SOUTH, is_over, pits_per_side, side_stones

EVALUATIONS = ("store", "sides")
WIN_SUFFIX = "+win"
WIN_RULE = 1  # last entry of a 2m+3 evaluation vector: won games score the maximum
MAX_WEIGHT = 10**9  # 127 stones x 10^9 stays far below the search's INF = 2^40


@jit
def won_score(board, weights):
    """Score of a won game under the win rule: ``max|w| * stones + 1`` (> 0)."""
    size = board.shape[0]
    largest = np.int64(0)
    stones = np.int64(0)
    for i in range(size):
        largest = max(largest, abs(weights[i]))
        stones += board[i]
    return largest * stones + 1


@jit
def evaluate(board, weights):
    """Linear evaluation ``weights . board`` (final board if the game is over; a won
    game scores ``+-won_score`` when ``weights`` carries the win rule)."""
    size = board.shape[0]
    m = pits_per_side(board)
    if is_over(board):
        south = np.int64(board[m]) + side_stones(board, SOUTH)
        north = np.int64(board[2 * m + 1]) + side_stones(board, NORTH)
        if weights.shape[0] > size and weights[size] == WIN_RULE and south != north:
            score = won_score(board, weights)
            return score if south > north else -score
        return weights[m] * south + weights[2 * m + 1] * north
    total = np.int64(0)
    for i in range(size):
        total += weights[i] * np.int64(board[i])
    return total


def with_win_rule(weights) -> np.ndarray:
    """The evaluation vector ``weights`` (``2m + 2`` linear weights) with the win rule on."""
    return np.append(np.asarray(weights, dtype=np.int64), np.int64(WIN_RULE))


def has_win_rule(weights, m: int) -> bool:
    """True when the evaluation vector carries the win rule."""
    return len(weights) == 2 * m + 3 and int(weights[-1]) == WIN_RULE


def weights_for(evaluation, m: int) -> np.ndarray:
    """Evaluation vector (int64) of a named evaluation or a sequence of weights.

    Names are ``store``, ``sides``, each optionally with the ``+win`` suffix (then
    the vector has ``2m + 3`` entries, see the module docstring).

    Raises
    ------
    InputError
        Unknown name, or a sequence of the wrong length or with non-integer values.
    """
    size = 2 * m + 2
    if isinstance(evaluation, str) and evaluation.endswith(WIN_SUFFIX):
        return with_win_rule(weights_for(evaluation[:-len(WIN_SUFFIX)], m))
    if isinstance(evaluation, str):
        w = np.zeros(size, dtype=np.int64)
        if evaluation == "store":
            w[m], w[2 * m + 1] = 1, -1
        elif evaluation == "sides":
            w[: m + 1], w[m + 1:] = 1, -1
        else:
            raise InputError(f"unknown evaluation {evaluation!r}; choose from "
                             f"{', '.join(EVALUATIONS)} (optionally with {WIN_SUFFIX}) "
                             f"or give {size} integer weights")
        return w
    values = np.asarray(evaluation)
    if values.shape == (size + 1,) and np.issubdtype(values.dtype, np.integer) \
            and int(values[-1]) == WIN_RULE:
        return values.astype(np.int64)
    if values.shape != (size,) or not np.issubdtype(values.dtype, np.integer):
        raise InputError(f"a linear evaluation needs {size} integer weights, got {values.tolist()}")
    return values.astype(np.int64)


def symmetric_weights(half) -> np.ndarray:
    """Weights for South's pits and store (``m + 1`` values), mirrored negated for North."""
    half = np.asarray(half, dtype=np.int64)
    return np.concatenate([half, -half])


def parse_evaluation(text: str, m: int) -> np.ndarray:
    """Parse ``store``, ``sides``, or comma-separated integers (``m+1`` mirrored, or
    ``2m+2``), each optionally followed by ``+win`` (the win rule)."""
    if text.endswith(WIN_SUFFIX):
        return with_win_rule(parse_evaluation(text[:-len(WIN_SUFFIX)], m))
    if text in EVALUATIONS:
        return weights_for(text, m)
    try:
        values = [parse_int(x) for x in text.split(",")]
    except InputError:
        raise InputError(f"evaluation must be {' or '.join(EVALUATIONS)} or comma-separated "
                         f"integers (optionally followed by {WIN_SUFFIX}), got {text!r}") from None
    if any(abs(v) > MAX_WEIGHT for v in values):
        raise InputError(f"evaluation weights must be from -{MAX_WEIGHT} to {MAX_WEIGHT}, "
                         f"got {text!r}")
    if len(values) == m + 1:
        return symmetric_weights(values)
    return weights_for(np.array(values, dtype=np.int64), m)
