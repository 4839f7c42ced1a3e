"""Frogs and toads: exchange n white and n black counters on a row of 2n+1 cells.

A position is a string over ``W`` (white, moves right), ``B`` (black, moves left)
and ``_`` (the one empty cell); the start is ``W^n _ B^n``, the goal ``B^n _ W^n``.
A counter slides into the adjacent empty cell or jumps over one counter of the
other colour into the empty cell. A move is recorded as the index of the cell the
counter leaves.

The solution is a sequence of runs of moves of one colour, the colours alternating:
runs of 1, 2, ..., n moves (jumps, then one slide) reach an interleaved position
(``WB`` n times with the empty cell at the right end for even n, at the left end for
odd n: the "interleave" phase); then runs of n moves (jumps only) and n, n-1, ..., 1
moves (one slide, then jumps) finish (the "separate" phase). In total
n^2 jumps and 2n slides: n(n+2) moves, the minimum (checked by breadth-first search
in the tests).

Choices docs/design.md leaves open: whites move first (blacks first is the mirror image).
"""
from __future__ import annotations

from collections import deque

from ..errors import InputError

__all__ = [
    "start",
    "goal",
    "interleaved",
    "move_count",
    "legal_moves",
    "apply",
    "solve_recursive",
    "solve_iterative",
    "interleave",
    "separate",
    "replay",
    "bfs_distance",
]


def _check(n):
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError("n must be an integer")
    if n < 1:
        raise InputError(f"n must be at least 1, got {n}")
    return n


def start(n: int) -> str:
    return "W" * _check(n) + "_" + "B" * n


def goal(n: int) -> str:
    return "B" * _check(n) + "_" + "W" * n


def interleaved(n: int) -> str:
    """The position between the phases: ``WB`` n times, the gap at one end."""
    return "WB" * _check(n) + "_" if n % 2 == 0 else "_" + "WB" * n


def move_count(n: int) -> int:
    """n(n+2): n^2 jumps and 2n slides."""
    return _check(n) * (n + 2)


def legal_moves(position: str) -> list[int]:
    """Cells whose counter can move (slide or jump) into the empty cell."""
    e = position.index("_")
    out = []
    for src, colour, over in ((e - 1, "W", None), (e - 2, "W", e - 1),
                              (e + 1, "B", None), (e + 2, "B", e + 1)):
        if 0 <= src < len(position) and position[src] == colour:
            if over is None or position[over] not in (colour, "_"):
                out.append(src)
    return sorted(out)


def apply(position: str, src: int) -> str:
    if src not in legal_moves(position):
        raise InputError(f"no legal move from cell {src} in {position}")
    e = position.index("_")
    cells = list(position)
    cells[e], cells[src] = cells[src], "_"
    return "".join(cells)


def _run(position: str, colour: str, length: int, slide_first: bool,
         slide_last: bool, out: list[int]) -> str:
    """Make ``length`` moves of ``colour``: jumps, with a slide first or last."""
    for i in range(length):
        e = position.index("_")
        slide = (slide_first and i == 0) or (slide_last and i == length - 1)
        step = 1 if slide else 2
        src = e - step if colour == "W" else e + step
        position = apply(position, src)
        out.append(src)
    return position


def _other(colour):
    return "B" if colour == "W" else "W"


def interleave(n: int) -> list[int]:
    """Moves from the start to :func:`interleaved`: runs of 1, 2, ..., n moves."""
    out: list[int] = []
    position, colour = start(n), "W"
    for length in range(1, n + 1):
        position = _run(position, colour, length, False, True, out)
        colour = _other(colour)
    return out


def separate(n: int) -> list[int]:
    """Moves from :func:`interleaved` to the goal: runs of n, n, n-1, ..., 1 moves."""
    out: list[int] = []
    position = interleaved(n)
    colour = "W" if n % 2 == 0 else "B"  # run n+1: whites move in the odd runs
    for i, length in enumerate([n] + list(range(n, 0, -1))):
        position = _run(position, colour, length, i > 0, False, out)
        colour = _other(colour)
    return out


def solve_recursive(n: int) -> list[int]:
    """The whole solution, recursively: runs of length k wrap the problem for k+1.

    ``solve(k)`` = run of k (slide last); ``solve(k+1)``; run of k (slide first),
    and ``solve(n)`` = runs of n (slide last; jumps only; slide first).
    """
    n = _check(n)
    out: list[int] = []
    state = {"position": start(n), "colour": "W"}

    def run(length, slide_first, slide_last):
        state["position"] = _run(state["position"], state["colour"], length, slide_first,
                                 slide_last, out)
        state["colour"] = _other(state["colour"])

    def solve(k):
        if k == n:
            run(n, False, True)
            run(n, False, False)
            run(n, True, False)
            return
        run(k, False, True)
        solve(k + 1)
        run(k, True, False)

    solve(1)
    return out


def solve_iterative(n: int) -> list[int]:
    """The whole solution as one loop over run lengths 1..n, n, n..1."""
    n = _check(n)
    out: list[int] = []
    position, colour = start(n), "W"
    lengths = list(range(1, n + 1)) + [n] + list(range(n, 0, -1))
    for i, length in enumerate(lengths):
        position = _run(position, colour, length, i > n, i < n, out)
        colour = _other(colour)
    return out


def replay(n: int, moves) -> list[str]:
    """Positions visited from the start; InputError at the first illegal move."""
    positions = [start(n)]
    for src in moves:
        positions.append(apply(positions[-1], src))
    return positions


def bfs_distance(n: int) -> int:
    """Fewest moves from start to goal, by breadth-first search (small n only)."""
    s, g = start(n), goal(n)
    dist = {s: 0}
    queue = deque([s])
    while queue:
        p = queue.popleft()
        if p == g:
            return dist[p]
        for src in legal_moves(p):
            q = apply(p, src)
            if q not in dist:
                dist[q] = dist[p] + 1
                queue.append(q)
    raise InputError("goal unreachable")
