"""The worst-case-optimal strategy: fewest guesses in the worst case, then fewest in total.

Knuth (1976) chose each guess to minimise the largest class of the partition it
makes, a greedy rule that solves 4 pegs x 6 colours in at most 5 guesses -- which is
the least possible there. Whether the greedy rule is worst-case optimal for other
sizes is answered by an exact search:

    minimax(C) = the least D such that some strategy solves every code of C within
                 D guesses,

found by asking the optimal search (:mod:`.optimal`) for the least total guesses
under the depth limits D = d0, d0 + 1, ... (``d0`` the counting bound: ``D`` guesses
tell at most ``1 + b + ... + b^(D-1)`` codes apart, ``b`` the number of answers
other than "solved") until one is feasible. The tree of that search is the
``minimax`` strategy: it needs ``minimax`` guesses in the worst case and, among the
strategies that do, the fewest guesses in total. A depth limit that no strategy
meets is proved infeasible by the same exact search, so the result is exact.

For the worst case alone on larger sizes, :mod:`.worst_case` asks only whether a depth
is feasible, which is much faster (``jitgames mastermind worst``).
"""
from __future__ import annotations

import numpy as np

from ..errors import InputError
from .codes import CodeSpace
from .optimal import optimal_cost

__all__ = ["answers_besides_solved", "counting_bound", "minimax_guesses", "most_told"]


def answers_besides_solved(pegs: int) -> int:
    """Number of possible answers other than "solved": pairs (black, white) with
    black + white <= pegs, without (pegs, 0) and (pegs - 1, 1)."""
    return (pegs + 1) * (pegs + 2) // 2 - 2 if pegs > 1 else 1


def most_told(guesses: int, pegs: int) -> int:
    """``N(d) = 1 + b + ... + b^(d-1)``: the most codes any strategy can solve within
    ``guesses`` guesses (``b`` the answers other than "solved"; ``N(0) = 0``)."""
    answers = answers_besides_solved(pegs)
    told = 0
    for _ in range(guesses):
        told = 1 + answers * told
    return told


def counting_bound(codes: int, pegs: int) -> int:
    """Least D with ``most_told(D, pegs) >= codes``: no strategy does better."""
    depth = 1
    while most_told(depth, pegs) < codes:
        depth += 1
    return depth


def minimax_guesses(space: CodeSpace, matrix: np.ndarray, at_most: int | None = None) -> int:
    """The least worst case (guesses) of any strategy on ``space``.

    ``at_most`` caps the search (an InputError if even that many do not suffice).
    """
    depth = counting_bound(space.size, space.pegs)
    while at_most is None or depth <= at_most:
        try:
            optimal_cost(space, matrix, depth)
            return depth
        except InputError:   # no strategy within ``depth`` guesses: one more
            depth += 1       # (ends: guessing the codes one by one takes |codes|)
    raise InputError(f"no strategy solves every code within {at_most} guesses")
