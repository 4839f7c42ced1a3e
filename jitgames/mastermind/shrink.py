"""How fast a strategy's consistent set shrinks, guess by guess.

The Mastermind text says the set of codes consistent with the answers so far
"shrinks about 4 times per guess" and that its strategies need "never more than six
guesses". For a secret s, let ``P_0`` be all codes and ``P_i`` the codes consistent
with the first ``i`` answers (``P_i = {s}`` once guess ``i`` solves it); the shrink
factor of guess ``i`` is ``|P_(i-1)| / |P_i|``. :func:`shrink_sums` totals, for each
guess number ``i``, over the secrets that make an ``i``-th guess: their number, the
sum of their factors and the sum of the factors' logarithms, from which the
arithmetic and the geometric mean factor follow (:func:`shrink_table`). Every
secret weighs the same. Over all guesses of all secrets the geometric mean factor
is ``n ** (1 / mean guesses)`` (``n`` codes), a one-number summary.

The figures come from the strategy's decision tree: at a node with consistent set
``S`` whose guess splits it into classes (the solved class included), the members of
a class ``C`` have factor ``|S| / |C|``, so the node adds ``|S| * classes`` to the sum
of factors and ``sum |C| * log(|S| / |C|)`` to the sum of logarithms.
"""
from __future__ import annotations

import math

import numpy as np

from .tree import DecisionTree

__all__ = ["shrink_sums", "shrink_table", "pool_sums"]


def shrink_sums(tree: DecisionTree, matrix: np.ndarray) -> dict[int, list[float]]:
    """``{guess number: [secrets, sum of factors, sum of log factors]}`` of a full tree.

    ``matrix`` is the response matrix of the tree's code space or ``(0, 0)`` (answers
    then computed one by one).
    """
    space = tree.space
    kids = tree.children()
    sums: dict[int, list[float]] = {}
    stack = [(0, np.arange(space.size))]
    while stack:
        node, members = stack.pop()
        guess, depth = int(tree.table[node, 0]), int(tree.table[node, 3])
        answers = (matrix[guess, members] if matrix.shape[0] else
                   np.array([space.feedback(guess, s) for s in members]))
        classes, sizes = np.unique(answers, return_counts=True)
        whole = members.size
        row = sums.setdefault(depth + 1, [0, 0.0, 0.0])
        row[0] += whole
        row[1] += whole * classes.size
        row[2] += float(np.sum(sizes * np.log(whole / sizes)))
        for answer in classes:
            if answer != space.solved:
                stack.append((int(kids[node, answer]), members[answers == answer]))
    return dict(sorted(sums.items()))


def pool_sums(parts) -> dict[int, list[float]]:
    """Add the sums of several trees (e.g. seeds of a random strategy)."""
    pooled: dict[int, list[float]] = {}
    for sums in parts:
        for i, row in sums.items():
            acc = pooled.setdefault(i, [0, 0.0, 0.0])
            for j in range(3):
                acc[j] += row[j]
    return dict(sorted(pooled.items()))


def shrink_table(sums: dict[int, list[float]]) -> list[dict]:
    """Rows ``guess``, ``secrets`` (that make that guess), ``mean_factor``,
    ``geometric_factor`` from :func:`shrink_sums`."""
    return [{"guess": i, "secrets": int(count), "mean_factor": total / count,
             "geometric_factor": math.exp(logs / count)}
            for i, (count, total, logs) in sums.items()]
