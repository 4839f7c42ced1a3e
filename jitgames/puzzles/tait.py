"""Tait's counters: sort ``abab...ab`` by moving adjacent pairs into the gap.

A row of 2n + 2 cells holds ``ab`` n times followed by two empty cells (``.``). A move
carries two adjacent letters, keeping their order, into the two empty cells; the
two cells it leaves become the new gap (so the empty cells always stay adjacent).
A move is ``(i, j)``: the letters of cells i, i+1 go to cells j, j+1.

Two goals: ``block`` -- the letters form one unbroken block ``b^n a^n`` (the gap at
one end); ``gap`` -- ``b^n .. a^n``. Breadth-first search over the
(2n+1) * C(2n, n) positions proves the minimum for small n: block needs n moves
and gap n + 1 for 4 <= n <= 7 (and 4 and 5 for n = 3).

General construction for any n >= 3 (recursion on the middle ``X``):

- block: ``ababXabab..`` -> ``a..bXababba`` -> ``aabbX..abba``; solve the block
  problem for ``X..`` (it ends as ``..Y``, the gap on its left); then
  ``aabb..Yabba`` -> ``aabbbbYa..a`` -> ``..bbbbYaaaa``. Four moves per four pairs,
  so n moves for every n >= 4 -- minimal wherever the search can check it.
- gap: solve the block problem (ending ``..b^n a^n``), then carry the last two b's
  into the gap at the left end: ``b^n..a^n`` in n + 1 moves for n >= 4 (5 for
  n = 3), again the minimum wherever the search can check it.

Base cases n = 3..7 of the block construction come from the breadth-first search
(target ``..b^n a^n``). Choices docs/design.md leaves open: the row is bounded (2n + 2 cells), as
in the issue; the search is plain Python (small state spaces).
"""
from __future__ import annotations

from collections import deque
from functools import lru_cache

from ..errors import InputError

__all__ = [
    "start",
    "apply",
    "legal_moves",
    "is_block",
    "is_gap",
    "bfs_solution",
    "bfs_minimum",
    "construct",
    "replay",
]

GOALS = ("block", "gap")
BFS_LIMIT = 9
"""Largest n for which :func:`bfs_minimum` runs (19 * 48620 positions)."""


def _check(n, low=3):
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError("n must be an integer")
    if n < low:
        raise InputError(f"n must be at least {low}, got {n}")
    return n


def start(n: int) -> str:
    return "ab" * n + ".."


def legal_moves(position: str) -> list[tuple[int, int]]:
    e = position.index("..")
    return [(i, e) for i in range(len(position) - 1)
            if position[i] != "." and position[i + 1] != "."]


def apply(position: str, move: tuple[int, int]) -> str:
    i, j = move
    if not (0 <= i < len(position) - 1 and 0 <= j < len(position) - 1) \
            or "." in position[i:i + 2] or position[j:j + 2] != "..":
        raise InputError(f"illegal move {move} in {position}")
    cells = list(position)
    cells[j], cells[j + 1] = cells[i], cells[i + 1]
    cells[i] = cells[i + 1] = "."
    return "".join(cells)


def is_block(position: str, n: int) -> bool:
    return position.strip(".") == "b" * n + "a" * n


def is_gap(position: str, n: int) -> bool:
    return position == "b" * n + ".." + "a" * n


def _search(n: int, target):
    s = start(n)
    parent = {s: None}
    queue = deque([s])
    while queue:
        p = queue.popleft()
        if target(p):
            moves = []
            while parent[p] is not None:
                p, move = parent[p]
                moves.append(move)
            return moves[::-1]
        for move in legal_moves(p):
            q = apply(p, move)
            if q not in parent:
                parent[q] = (p, move)
                queue.append(q)
    raise InputError("target unreachable")


@lru_cache(maxsize=None)
def bfs_solution(n: int, target: str) -> tuple[tuple[int, int], ...]:
    """A shortest solution ending exactly in ``target`` (a full position string)."""
    _check(n)
    if n > BFS_LIMIT:
        raise InputError(f"breadth-first search is limited to n <= {BFS_LIMIT}")
    return tuple(_search(n, lambda p: p == target))


def bfs_minimum(n: int, goal: str) -> int:
    """Fewest moves to reach the goal (``block`` or ``gap``), by breadth-first search."""
    _check(n)
    if goal not in GOALS:
        raise InputError(f"goal must be one of {GOALS}")
    if n > BFS_LIMIT:
        raise InputError(f"breadth-first search is limited to n <= {BFS_LIMIT}")
    test = is_block if goal == "block" else is_gap
    return len(_search(n, lambda p: test(p, n)))


def _shift(moves, offset):
    return [(i + offset, j + offset) for i, j in moves]


def construct(n: int, goal: str) -> list[tuple[int, int]]:
    """A solution for any n >= 3 by the recursive construction (module notes).

    ``block`` ends in ``..b^n a^n``, ``gap`` in ``b^n..a^n``.
    """
    _check(n)
    if goal not in GOALS:
        raise InputError(f"goal must be one of {GOALS}")
    if goal == "gap":  # the last two b's (cells n, n+1) into the gap at cells 0, 1
        return construct(n, "block") + [(n, 0)]
    if n <= 7:
        return list(bfs_solution(n, ".." + "b" * n + "a" * n))
    t = 2 * n  # first cell of the gap
    inner = construct(n - 4, "block")
    return [(1, t), (t - 4, 1)] + _shift(inner, 4) + [(t - 1, 4), (0, t - 1)]


def replay(n: int, moves) -> list[str]:
    """Positions visited from the start; InputError at the first illegal move."""
    positions = [start(n)]
    for move in moves:
        positions.append(apply(positions[-1], tuple(move)))
    return positions
