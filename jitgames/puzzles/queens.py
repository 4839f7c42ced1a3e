"""N queens: all solutions of small boards, and exact counts of large ones.

A solution is a tuple ``cols`` of length n: the queen of row ``r`` stands in column
``cols[r]`` (rows and columns numbered from 0).

Three ways to the same answers:

- :func:`solutions_recursive` -- the classic backtracking procedure, row by row;
- :func:`solutions_iterative` -- the same search as an automaton with an explicit
  row pointer and column / diagonal occupancy arrays (no recursion);
- :func:`count_queens` -- a Numba kernel over bitmasks (columns, left and right
  diagonals as bits of int64 words), parallel over prefixes of the first rows.

Choices docs/design.md leaves open:

- Symmetry reduction of the count uses the left-right mirror only: a solution with
  its first-row queen in column c mirrors to one with c' = n-1-c, so only columns
  c <= (n-1)/2 are searched (for the middle column of odd n, the mirror is applied
  again to the second row).
- :func:`queens_census` (total and count up to symmetry) uses the constellation
  counter of :mod:`~jitgames.puzzles.queens_constellations` (border queens placed
  first, one task per symmetry orbit of them); the class search of
  :mod:`~jitgames.puzzles.queens_classes`, which visits about one member per symmetry
  class, reaches both numbers another way (:func:`census_from_classes`). An
  independent route to the count up to symmetry, used to check them, is Burnside's
  lemma over whole solutions: ``unique = (total + 2 F90 + F180) / 8`` where F90 and F180
  count the solutions invariant under a quarter and a half turn (no solution with
  n > 1 is invariant under a reflection: a diagonal reflection pairs queens on one
  anti-diagonal, an axis reflection would need a column equal to its mirror);
  :func:`count_invariant` finds them by placing whole rotation orbits of queens.
- Work is split into tasks (placements of the first two or three rows); the prange
  loop visits them in a fixed stride order so that the two halves of the static
  schedule carry similar loads. Counts never depend on the thread count.
- ``count_queens(n, first_rows=cols)`` counts only the solutions whose first-row
  queen is in ``cols``; counts over a partition of ``range(n)`` sum to the total
  (the hook for a distributed backend).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import numpy as np

from jitgames._jit import jit, prange
from jitgames.puzzles.queens_classes import _stride_order
from jitgames.puzzles.queens_constellations import count_census
from jitgames.errors import InputError

__all__ = [
    "QueensCount",
    "MAX_N",
    "solutions_recursive",
    "solutions_iterative",
    "solutions_kernel",
    "METHODS",
    "solutions",
    "canonical_form",
    "unique_solutions",
    "draw",
    "count_queens",
    "count_queens_plain",
    "count_invariant",
    "unique_by_burnside",
    "census_from_classes",
    "queens_census",
]

MAX_N = 30
"""Largest board the bitmask kernels accept (bits of an int64 word)."""

MAX_LIST_N = 14
"""Largest board whose solutions are listed one by one (365,596 of them at 14; the
next two sizes have 2.3 and 14.8 million, more than a list is useful for)."""

METHODS = ("recursive", "iterative", "kernel")
"""The three implementations of the solution list, named as in :func:`solutions`."""


@dataclass(frozen=True)
class QueensCount:
    """Number of n-queens solutions, in total and up to the 8 board symmetries."""

    n: int
    count: int
    unique: int


def _check_n(n, low=1, high=MAX_N) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"n must be an integer, got {type(n).__name__}")
    n = int(n)
    if not low <= n <= high:
        raise InputError(f"n must be between {low} and {high}, got {n}")
    return n


# ----------------------------------------------------------------- small boards
def solutions_recursive(n: int) -> list[tuple[int, ...]]:
    """All solutions, by recursive backtracking, in lexicographic order.

    ``place(row)`` tries every column of ``row`` free of attack (occupancy of the
    column, the diagonal ``row + c`` and the anti-diagonal ``row - c + n - 1``),
    recursing into the next row; a full board is a solution.
    """
    n = _check_n(n, high=MAX_LIST_N)
    found: list[tuple[int, ...]] = []
    cols = [0] * n
    col_used = [False] * n
    diag_used = [False] * (2 * n - 1)
    anti_used = [False] * (2 * n - 1)

    def place(row: int) -> None:
        if row == n:
            found.append(tuple(cols))
            return
        for c in range(n):
            if col_used[c] or diag_used[row + c] or anti_used[row - c + n - 1]:
                continue
            cols[row] = c
            col_used[c] = diag_used[row + c] = anti_used[row - c + n - 1] = True
            place(row + 1)
            col_used[c] = diag_used[row + c] = anti_used[row - c + n - 1] = False

    place(0)
    return found


def solutions_iterative(n: int) -> list[tuple[int, ...]]:
    """All solutions, by the iterative automaton, in lexicographic order.

    State: ``row`` (the row being filled), ``cols[row]`` (the column tried there)
    and occupancy arrays for columns, diagonals ``r + c`` and anti-diagonals
    ``r - c + n - 1``. The automaton advances the queen of the current row to the
    next free column; when it falls off the board it backs up one row.
    """
    n = _check_n(n, high=MAX_LIST_N)
    col_used = [False] * n
    diag_used = [False] * (2 * n - 1)
    anti_used = [False] * (2 * n - 1)
    cols = [-1] * n
    found: list[tuple[int, ...]] = []
    row = 0
    while row >= 0:
        c = cols[row]
        if c >= 0:  # lift the queen before moving it on
            col_used[c] = diag_used[row + c] = anti_used[row - c + n - 1] = False
        c += 1
        while c < n and (col_used[c] or diag_used[row + c] or anti_used[row - c + n - 1]):
            c += 1
        if c == n:  # no free column left: back up
            cols[row] = -1
            row -= 1
            continue
        cols[row] = c
        col_used[c] = diag_used[row + c] = anti_used[row - c + n - 1] = True
        if row == n - 1:
            found.append(tuple(cols))
        else:
            row += 1
    return found


@jit
def fill_solutions(n, out):
    """Every solution in lexicographic order, by a bitmask search with a row stack.

    Writes the columns of solution i into ``out[i]`` while ``i < out.shape[0]`` (int8,
    shape (capacity, n)) and returns the number of solutions, so a first call with
    capacity 0 sizes the second. Lowest column first at every row gives
    lexicographic order.
    """
    full = (1 << n) - 1
    free = np.zeros(n + 1, np.int64)
    cols = np.zeros(n + 1, np.int64)
    left = np.zeros(n + 1, np.int64)
    right = np.zeros(n + 1, np.int64)
    queen = np.zeros(n, np.int64)
    free[0] = full
    found = 0
    row = 0
    while row >= 0:
        options = free[row]
        if options == 0:
            row -= 1
            continue
        bit = options & -options
        free[row] = options ^ bit
        col = 0
        while (bit >> col) != 1:
            col += 1
        queen[row] = col
        if row == n - 1:
            if found < out.shape[0]:
                for r in range(n):
                    out[found, r] = queen[r]
            found += 1
            continue
        cols[row + 1] = cols[row] | bit
        left[row + 1] = ((left[row] | bit) << 1) & full
        right[row + 1] = (right[row] | bit) >> 1
        free[row + 1] = full & ~(cols[row + 1] | left[row + 1] | right[row + 1])
        row += 1
    return found


def solutions_kernel(n: int) -> np.ndarray:
    """All solutions as an int8 array (count, n), lexicographic, by :func:`fill_solutions`."""
    n = _check_n(n, high=MAX_LIST_N)
    count = fill_solutions(n, np.zeros((0, n), np.int8))
    out = np.zeros((count, n), np.int8)
    fill_solutions(n, out)
    return out


def solutions(n: int, method: str = "kernel") -> list[tuple[int, ...]]:
    """Every solution of the n x n board, lexicographic, by the chosen implementation.

    ``method`` is ``"recursive"`` (:func:`solutions_recursive`), ``"iterative"``
    (:func:`solutions_iterative`) or ``"kernel"`` (:func:`solutions_kernel`); all three
    return the same list.
    """
    if method not in METHODS:
        raise InputError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if method == "recursive":
        return solutions_recursive(n)
    if method == "iterative":
        return solutions_iterative(n)
    return [tuple(row) for row in solutions_kernel(n).tolist()]  # tolist: Python ints


def _symmetries(solution: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The 8 images of a solution under the rotations and reflections of the board."""
    n = len(solution)
    cells = [(r, c) for r, c in enumerate(solution)]
    images = []
    for turns in range(4):
        for mirror in (False, True):
            out = [0] * n
            for r, c in cells:
                if mirror:
                    c = n - 1 - c
                for _ in range(turns):
                    r, c = c, n - 1 - r
                out[r] = c
            images.append(tuple(out))
    return images


def canonical_form(solution: Iterable[int]) -> tuple[int, ...]:
    """The lexicographically smallest of the 8 symmetric images of ``solution``."""
    return min(_symmetries(tuple(int(c) for c in solution)))


def unique_solutions(solutions: Iterable[Iterable[int]]) -> list[tuple[int, ...]]:
    """One representative (the canonical form) per symmetry class, sorted.

    Vectorised over the whole list (numpy): a board's 8 images as arrays, each read as
    an integer in base n (the lexicographic order of equal-length tuples of digits
    below n), the smallest kept. At n = 14 (365,596 solutions) this takes a fraction of
    a second where one :func:`canonical_form` per solution took 16 CPU s, most of a
    listing's time. Boards too large for an int64 code go one by one.
    """
    rows = np.array(list(solutions), dtype=np.int64)  # tuples of ints or an int array
    if rows.ndim != 2:  # no solution at all (or n = 0)
        return []
    if rows.size == 0 or rows.shape[1] ** rows.shape[1] >= 2 ** 62:
        return sorted({canonical_form(s) for s in rows.tolist()})
    count, n = rows.shape
    weights = n ** np.arange(n - 1, -1, -1, dtype=np.int64)
    which = np.arange(count)[:, None]
    turned_away = np.arange(n - 1, -1, -1, dtype=np.int64)  # n - 1 - r for row r
    best = None
    image = rows
    for _ in range(4):
        for board in (image, n - 1 - image):  # the image and its left-right mirror
            code = board @ weights
            best = code if best is None else np.minimum(best, code)
        turned = np.empty_like(image)  # quarter turn: square (r, c) goes to (c, n-1-r)
        turned[which, image] = turned_away
        image = turned
    digits = (np.unique(best)[:, None] // weights) % n
    return [tuple(row) for row in digits.tolist()]


def draw(solution: Iterable[int]) -> str:
    """A text board: ``Q`` for a queen, ``.`` for an empty square, row 0 on top."""
    solution = tuple(solution)
    n = len(solution)
    return "\n".join(" ".join("Q" if c == q else "." for c in range(n)) for q in solution)


# ----------------------------------------------------------------- bitmask kernels
@jit
def count_bitmask_recursive(full, cols, left, right):
    """Completions of a partial placement: the plain recursive bitmask count.

    ``full`` has the low n bits set; ``cols``, ``left``, ``right`` are the columns
    and the squares of the next row attacked along the two diagonals. This serial,
    symmetry-free recursion is the benchmark's baseline.
    """
    if cols == full:
        return 1
    total = 0
    free = full & ~(cols | left | right)
    while free != 0:
        bit = free & -free
        free ^= bit
        total += count_bitmask_recursive(full, cols | bit, ((left | bit) << 1) & full,
                                         (right | bit) >> 1)
    return total


@jit
def count_completions(full, cols, left, right):
    """Completions of a partial placement, by an explicit stack (no recursion).

    Same arguments and result as :func:`count_bitmask_recursive`.
    """
    if cols == full:
        return 1
    stack_free = np.empty(64, np.int64)
    stack_cols = np.empty(64, np.int64)
    stack_left = np.empty(64, np.int64)
    stack_right = np.empty(64, np.int64)
    depth = 0
    stack_free[0] = full & ~(cols | left | right)
    stack_cols[0] = cols
    stack_left[0] = left
    stack_right[0] = right
    total = 0
    while depth >= 0:
        free = stack_free[depth]
        if free == 0:
            depth -= 1
            continue
        bit = free & -free
        stack_free[depth] = free ^ bit
        c = stack_cols[depth] | bit
        if c == full:
            total += 1
            continue
        lft = ((stack_left[depth] | bit) << 1) & full
        rgt = (stack_right[depth] | bit) >> 1
        depth += 1
        stack_cols[depth] = c
        stack_left[depth] = lft
        stack_right[depth] = rgt
        stack_free[depth] = full & ~(c | lft | rgt)
    return total


@jit(parallel=True)
def _count_tasks(full, task_cols, task_left, task_right, order, out):
    """Fill ``out[t]`` with the completions of task ``t``; tasks visited in ``order``."""
    for i in prange(order.shape[0]):
        t = order[i]
        out[t] = count_completions(full, task_cols[t], task_left[t], task_right[t])


def _tasks(n: int, first_rows: list[int], depth: int):
    """Prefixes of ``depth`` rows covering the requested first-row columns.

    Returns (cols, left, right, weight) arrays: the total is ``sum(weight * count)``.
    Mirror: column c and n-1-c give equal counts, so only c <= n-1-c is searched,
    weighted by how many of the pair were requested; the middle column of odd n is
    split by the second row, again by the mirror.
    """
    full = (1 << n) - 1
    wanted = set(first_rows)
    out_cols, out_left, out_right, out_weight = [], [], [], []

    def extend(row, cols, left, right, weight, second_half_only):
        if row == depth or cols == full:
            out_cols.append(cols)
            out_left.append(left)
            out_right.append(right)
            out_weight.append(weight)
            return
        free = full & ~(cols | left | right)
        for c in range(n):
            bit = 1 << c
            if not free & bit:
                continue
            w = weight
            if second_half_only:
                if 2 * c > n - 1:
                    continue
                w = weight * 2  # mirror of the second row (c is never the middle)
            extend(row + 1, cols | bit, ((left | bit) << 1) & full, (right | bit) >> 1,
                   w, False)

    for c in range(n):
        mirror = n - 1 - c
        if c > mirror:
            continue
        weight = (c in wanted) + (mirror in wanted and mirror != c)
        if weight == 0:
            continue
        bit = 1 << c
        extend(1, bit, (bit << 1) & full, bit >> 1, weight, c == mirror and n > 1)
    as_array = lambda xs: np.array(xs, dtype=np.int64)  # noqa: E731
    return as_array(out_cols), as_array(out_left), as_array(out_right), out_weight


def count_queens(n: int, first_rows: Iterable[int] | None = None) -> int:
    """Number of ways to place n non-attacking queens on an n x n board.

    Parameters
    ----------
    n : int
        Board size, 1 <= n <= 30 (n = 18 takes seconds, each further n ~7x more).
    first_rows : iterable of int, optional
        Count only the solutions whose row-0 queen stands in one of these columns
        (distinct, each in ``range(n)``). Counts over any partition of ``range(n)``
        sum exactly to the full count, so the chunks may run anywhere.

    Returns
    -------
    int
        The exact count (a Python int).
    """
    n = _check_n(n)
    if first_rows is None:
        columns = list(range(n))
    else:
        columns = [int(c) for c in first_rows]
        if len(set(columns)) != len(columns):
            raise InputError("first_rows must not repeat a column")
        if any(not 0 <= c < n for c in columns):
            raise InputError(f"first_rows must be columns in range({n})")
    depth = 2 if n < 12 else 3
    cols, left, right, weight = _tasks(n, columns, min(depth, n))
    if len(weight) == 0:
        return 0
    out = np.zeros(len(weight), dtype=np.int64)
    _count_tasks((1 << n) - 1, cols, left, right, _stride_order(len(weight)), out)
    return sum(w * int(x) for w, x in zip(weight, out))


def count_queens_plain(n: int) -> int:
    """The plain serial recursive bitmask count (no symmetry): the baseline."""
    n = _check_n(n)
    return int(count_bitmask_recursive((1 << n) - 1, 0, 0, 0))


# ----------------------------------------------------------------- symmetric solutions
@jit
def _orbit_step(n, quarter, r, c):
    """Image of square (r, c) under a quarter turn (``quarter``) or a half turn."""
    if quarter:
        return c, n - 1 - r
    return n - 1 - r, n - 1 - c


@jit
def count_invariant_from(n, quarter, row, rows, col_used, diag_used, anti_used):
    """Completions invariant under the turn, filling rows from ``row`` on.

    ``rows[r]`` is the column of row r's queen or -1; whole orbits of the turn are
    placed at once, so every completed board is invariant. Arrays are restored.
    """
    while row < n and rows[row] >= 0:
        row += 1
    if row == n:
        return 1
    total = 0
    for c in range(n):
        placed = 0
        ok = True
        r, k = row, c
        while True:
            if rows[r] >= 0 or col_used[k] or diag_used[r + k] or anti_used[r - k + n - 1]:
                ok = False
                break
            rows[r] = k
            col_used[k] = True
            diag_used[r + k] = True
            anti_used[r - k + n - 1] = True
            placed += 1
            r, k = _orbit_step(n, quarter, r, k)
            if r == row and k == c:
                break
        if ok:
            total += count_invariant_from(n, quarter, row + 1, rows, col_used, diag_used,
                                          anti_used)
        r, k = row, c
        for _ in range(placed):
            rows[r] = -1
            col_used[k] = False
            diag_used[r + k] = False
            anti_used[r - k + n - 1] = False
            r, k = _orbit_step(n, quarter, r, k)
    return total


def count_invariant(n: int, quarter: bool) -> int:
    """Solutions invariant under a quarter turn (``quarter``) or a half turn."""
    n = _check_n(n)
    return int(count_invariant_from(n, bool(quarter), 0, np.full(n, -1, np.int64),
                                    np.zeros(n, np.bool_), np.zeros(2 * n - 1, np.bool_),
                                    np.zeros(2 * n - 1, np.bool_)))


def unique_by_burnside(n: int, total: int) -> int:
    """Count up to symmetry from the total and the rotation-invariant counts."""
    n = _check_n(n)
    if n == 1:
        return 1
    fixed = total + 2 * count_invariant(n, True) + count_invariant(n, False)
    if fixed % 8:
        raise InputError("total is not the number of solutions (Burnside sum not / 8)")
    return fixed // 8


def census_from_classes(n: int, classes: tuple[int, int, int]) -> QueensCount:
    """QueensCount from the class counts (C2, C4, C8) of the class search."""
    c2, c4, c8 = classes
    return QueensCount(n, 2 * c2 + 4 * c4 + 8 * c8, c2 + c4 + c8)


def queens_census(n: int) -> QueensCount:
    """Total count and count up to symmetry, by the parallel constellation counter
    (:func:`jitgames.puzzles.queens_constellations.count_census`)."""
    n = _check_n(n)
    return QueensCount(n, *count_census(n))
