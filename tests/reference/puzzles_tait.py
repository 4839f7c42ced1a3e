"""Reference twin of Tait's-counters search, written from the rules alone.

A row of 2n + 2 cells holds ``ab`` n times then two empty cells ``..``; a move
carries two adjacent letters, in order, into the two adjacent empty cells. Goals:
``block`` -- the letters form one run ``b^n a^n`` with the gap at either end;
``gap`` -- ``b^n..a^n``.
"""
from collections import deque


def _moves(row):
    gap = row.index("..")
    for i in range(len(row) - 1):
        if "." not in row[i:i + 2]:
            cells = list(row)
            cells[gap:gap + 2] = row[i:i + 2]
            cells[i:i + 2] = ".."
            yield "".join(cells)


def bfs_minimum(n, goal):
    """Fewest moves from ``ab``*n + ``..`` to the goal, by breadth-first search."""
    target = {"block": {".." + "b" * n + "a" * n, "b" * n + "a" * n + ".."},
              "gap": {"b" * n + ".." + "a" * n}}[goal]
    start = "ab" * n + ".."
    dist = {start: 0}
    queue = deque([start])
    while queue:
        row = queue.popleft()
        if row in target:
            return dist[row]
        for nxt in _moves(row):
            if nxt not in dist:
                dist[nxt] = dist[row] + 1
                queue.append(nxt)
    return None
