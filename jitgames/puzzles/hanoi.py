"""Towers of Hanoi, with three pegs and with more (Frame-Stewart).

Disks are numbered 1 (smallest) .. n; pegs 0 .. k-1. A move is a triple
``(disk, from_peg, to_peg)``; the tower starts on peg 0 and goes to peg k-1.

Choices docs/design.md leaves open:

- The Frame-Stewart numbers use Python integers (exact for any n); the split
  ``p`` (disks parked first on an intermediate peg) ranges over 1..n-1, and the
  table lists every optimal p.
- The multi-peg mover is iterative: an explicit stack of sub-tasks (move m disks
  from a to b with these free pegs), each split by the smallest optimal p.
- The breadth-first search over the real state space (a state gives each disk its
  peg, encoded in base k) is plain Python: it is only meant for small n, where it
  confirms that Frame-Stewart's numbers are optimal.
"""
from __future__ import annotations

from collections import deque

from ..errors import InputError

__all__ = [
    "moves_recursive",
    "moves_iterative",
    "move_number",
    "move_at",
    "replay",
    "same_parity_never_touch",
    "draw",
    "frame_stewart",
    "optimal_splits",
    "frame_stewart_table",
    "moves_multipeg",
    "bfs_distance",
]


def _check(n, low=0, what="n"):
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"{what} must be an integer")
    if n < low:
        raise InputError(f"{what} must be at least {low}, got {n}")
    return n


def moves_recursive(n: int, source: int = 0, target: int = 2, spare: int = 1):
    """The 2**n - 1 moves, by the recursive definition: n-1 away, n over, n-1 back."""
    _check(n)
    out: list[tuple[int, int, int]] = []

    def hanoi(m, a, b, c):
        if m == 0:
            return
        hanoi(m - 1, a, c, b)
        out.append((m, a, b))
        hanoi(m - 1, c, b, a)

    hanoi(n, source, target, spare)
    return out


def moves_iterative(n: int) -> list[tuple[int, int, int]]:
    """The same moves from peg 0 to peg 2 without recursion.

    Odd moves: disk 1 steps cyclically (0 -> 2 -> 1 -> 0 for odd n, 0 -> 1 -> 2 -> 0
    for even n). Even moves: the only legal move not touching disk 1.
    """
    _check(n)
    pegs = [list(range(n, 0, -1)), [], []]
    step = 2 if n % 2 else 1  # peg index increment of disk 1, modulo 3
    where_one = 0
    out = []
    for k in range(1, 2 ** n):
        if k % 2:
            a, b = where_one, (where_one + step) % 3
            where_one = b
        else:
            a, b = [p for p in range(3) if p != where_one]
            if not pegs[a] or (pegs[b] and pegs[b][-1] < pegs[a][-1]):
                a, b = b, a
        disk = pegs[a].pop()
        pegs[b].append(disk)
        out.append((disk, a, b))
    return out


def move_number(n: int, k: int) -> tuple[int, int, int]:
    """Move ``k`` (1-based) of the 3-peg solution from peg 0 to peg 2, from k alone.

    The disk is one more than the number of trailing zero bits of k; it goes from
    peg ``(k & (k-1)) % 3`` to ``((k | (k-1)) + 1) % 3`` -- a rule that carries the
    tower to peg 2 for odd n and to peg 1 for even n, so pegs 1 and 2 are swapped
    for even n.
    """
    _check(n, 1)
    _check(k, 1, "k")
    if k >= 2 ** n:
        raise InputError(f"k must be below 2**n = {2 ** n}, got {k}")
    disk = (k & -k).bit_length()
    a, b = (k & (k - 1)) % 3, ((k | (k - 1)) + 1) % 3
    if n % 2 == 0:
        swap = {0: 0, 1: 2, 2: 1}
        a, b = swap[a], swap[b]
    return disk, a, b


def move_at(n: int, k: int, pegs: int = 3) -> tuple[int, int, int]:
    """Move ``k`` (1-based) of the solution from peg 0 to peg ``pegs - 1``, by descent.

    Follows the recursive definition without making the moves: a task "move m disks
    from a to b" is p disks to a parking peg, m - p disks with one peg fewer, p disks
    back (p = m - 1 with three pegs, else the smallest optimal Frame-Stewart split,
    as in :func:`moves_multipeg`); the move counts of the three parts say which one
    holds move k. A loop, since each step descends into one part only: about n
    steps, so k may be as large as 2**n - 1 for large n. Agrees with
    :func:`moves_recursive` (three pegs) and :func:`moves_multipeg` move for move.
    """
    _check(n, 1)
    _check(pegs, 3, "pegs")
    total = frame_stewart(n, pegs)
    _check(k, 1, "k")
    if k > total:
        raise InputError(f"k must be at most {total} (the number of moves), got {k}")
    m, a, b, free, base = n, 0, pegs - 1, tuple(range(1, pegs - 1)), 0
    while True:
        if m == 1:
            return base + 1, a, b
        pegs_here = len(free) + 2
        p = m - 1 if pegs_here == 3 else optimal_splits(m, pegs_here)[0]
        park, rest = free[0], free[1:]
        first = frame_stewart(p, pegs_here)
        middle = 1 if pegs_here == 3 else frame_stewart(m - p, pegs_here - 1)
        if k <= first:  # the p small disks go to the parking peg
            m, b, free = p, park, (b,) + rest
        elif k <= first + middle:  # the m - p large disks, without the parking peg
            m, k, free, base = m - p, k - first, rest, base + p
        else:  # the p small disks come back on top
            m, k, a, free = p, k - first - middle, park, (a,) + rest


def replay(n: int, moves, pegs: int = 3) -> list[list[list[int]]]:
    """Play ``moves`` from the start and return every state (lists of disks).

    Raises InputError at the first illegal move (empty peg, wrong disk, big on small).
    """
    state = [list(range(n, 0, -1))] + [[] for _ in range(pegs - 1)]
    states = [[list(p) for p in state]]
    for i, (disk, a, b) in enumerate(moves, 1):
        if not state[a] or state[a][-1] != disk:
            raise InputError(f"move {i}: disk {disk} is not on top of peg {a}")
        if state[b] and state[b][-1] < disk:
            raise InputError(f"move {i}: disk {disk} onto smaller disk {state[b][-1]}")
        state[b].append(state[a].pop())
        states.append([list(p) for p in state])
    return states


def same_parity_never_touch(states) -> bool:
    """True if no disk ever lies directly on a disk of the same parity."""
    return all((low - high) % 2 == 1 for state in states for peg in state
               for low, high in zip(peg, peg[1:]))


def draw(state: list[list[int]]) -> str:
    """Pegs side by side, disks drawn as ``=`` bars of width 2*disk+1, peg as ``|``."""
    n = sum(len(p) for p in state)
    width = 2 * n + 1
    lines = []
    for level in range(n - 1, -1, -1):
        row = []
        for peg in state:
            if level < len(peg):
                d = peg[level]
                row.append(("=" * (2 * d + 1)).center(width))
            else:
                row.append("|".center(width))
        lines.append(" ".join(row).rstrip())
    lines.append(" ".join("-" * width for _ in state))
    return "\n".join(lines)


# ----------------------------------------------------------------- Frame-Stewart
MAX_MULTIPEG_N = 400
"""Largest n for the Frame-Stewart tables (built bottom-up in O(pegs n^2))."""

_FS: dict[int, list[int]] = {}


def _fs_row(pegs: int, n: int) -> list[int]:
    """f_pegs(0..n) (at least), built bottom-up and cached."""
    row = _FS.get(pegs)
    if row is not None and len(row) > n:
        return row
    if pegs == 3:
        row = [2 ** m - 1 for m in range(n + 1)]
    else:
        below = _fs_row(pegs - 1, n)
        row = [0, 1][: n + 1]
        for m in range(2, n + 1):
            row.append(min(2 * row[p] + below[m - p] for p in range(1, m)))
    _FS[pegs] = row
    return row


def frame_stewart(n: int, pegs: int) -> int:
    """f_k(n) = min over 1 <= p < n of 2 f_k(p) + f_{k-1}(n-p); f_3(n) = 2**n - 1."""
    _check(n)
    _check(pegs, 3, "pegs")
    if pegs == 3:
        return 2 ** n - 1
    if n > MAX_MULTIPEG_N:
        raise InputError(f"n must be at most {MAX_MULTIPEG_N} for more than 3 pegs")
    return _fs_row(pegs, n)[n]


def optimal_splits(n: int, pegs: int) -> list[int]:
    """Every p reaching the minimum of the Frame-Stewart recursion (n >= 2, pegs >= 4)."""
    _check(n, 2)
    _check(pegs, 4, "pegs")
    best = frame_stewart(n, pegs)
    return [p for p in range(1, n)
            if 2 * frame_stewart(p, pegs) + frame_stewart(n - p, pegs - 1) == best]


def frame_stewart_table(n_max: int, pegs: int) -> list[tuple[int, int, list[int]]]:
    """Rows (n, f_k(n), optimal p's) for n = 1..n_max (p list empty for n = 1)."""
    _check(n_max, 1, "n_max")
    return [(n, frame_stewart(n, pegs), optimal_splits(n, pegs) if n >= 2 and pegs >= 4
             else ([n - 1] if n >= 2 else [])) for n in range(1, n_max + 1)]


def moves_multipeg(n: int, pegs: int) -> list[tuple[int, int, int]]:
    """Frame-Stewart moves of n disks from peg 0 to peg pegs-1, iteratively.

    An explicit stack holds sub-tasks ``(m, a, b, free)`` -- move the m smallest
    disks of a task from peg a to peg b using the pegs in ``free`` -- or single disk
    moves; a task splits into: p disks to a free peg (all pegs usable), m-p disks
    with one peg fewer, p disks back on top.
    """
    _check(n)
    _check(pegs, 3, "pegs")
    out = []
    stack = [("task", n, 0, pegs - 1, tuple(range(1, pegs - 1)), 0)]
    while stack:
        kind, m, a, b, free, base = stack.pop()
        if kind == "move":
            out.append((m, a, b))
            continue
        if m == 0:
            continue
        if m == 1:
            out.append((base + 1, a, b))
            continue
        k = len(free) + 2
        if k == 3:
            p = m - 1
        else:
            p = optimal_splits(m, k)[0]
        park = free[0]
        rest = free[1:]
        # disks base+1..base+p are the small ones parked on `park` and brought back
        stack.append(("task", p, park, b, (a,) + rest, base))
        stack.append(("task", m - p, a, b, rest, base + p))
        stack.append(("task", p, a, park, (b,) + rest, base))
    return out


def bfs_distance(n: int, pegs: int) -> int:
    """Fewest moves from all disks on peg 0 to all on peg pegs-1, by BFS.

    States are base-``pegs`` integers (digit i = the peg of disk i+1); pegs**n states.
    """
    _check(n)
    _check(pegs, 3, "pegs")
    if pegs ** n > 5_000_000:
        raise InputError("state space too large for the breadth-first search")
    goal = sum((pegs - 1) * pegs ** i for i in range(n))
    dist = {0: 0}
    queue = deque([0])
    while queue:
        s = queue.popleft()
        if s == goal:
            return dist[s]
        digits = [(s // pegs ** i) % pegs for i in range(n)]
        top = [None] * pegs  # smallest disk on each peg
        for disk in range(n - 1, -1, -1):
            top[digits[disk]] = disk
        for a in range(pegs):
            d = top[a]
            if d is None:
                continue
            for b in range(pegs):
                if b != a and (top[b] is None or top[b] > d):
                    t = s + (b - a) * pegs ** d
                    if t not in dist:
                        dist[t] = dist[s] + 1
                        queue.append(t)
    raise AssertionError("goal unreachable")  # the state graph is connected
