"""N queens counted from border constellations: total and count up to symmetry in one run.

Every solution of n >= 2 has exactly one queen in each *border line* (row 0, row n-1,
column 0, column n-1); a corner queen sits on two of them. The four border queens,
given as ``(a, b, c, d)`` -- top queen at (0, a), bottom queen at (n-1, b), left queen
at (c, 0), right queen at (d, n-1) -- form the solution's *constellation*. This is the
idea of the fastest published counters (NQueensFAF's constellations, Preusser's q27
pre-placement), written afresh here:

1. **Constellations** (:func:`constellations`): every placement of four non-attacking
   border queens (corner coincidences included), reduced by the 8 board symmetries to
   one representative per orbit, with its *weight* -- the orbit size 8, 4 or 2. No
   constellation of n >= 2 is fixed by a reflection (a reflection would pair two
   border queens on one row, column or diagonal), so the stabilizer is a group of
   rotations: {id}, {id, half turn} or all four turns.
2. **Tasks** (:func:`tasks`): each constellation whose stabilizer is trivial is split
   further by pre-placing the queens of its first ``split`` free rows; a symmetric
   constellation stays one task (49 of 3,206 constellations at n = 16, 3% of the
   work).
3. **Kernel** (:func:`complete_task`): a bit-board backtracking over the free rows
   only (rows 0, n-1, c and d are skipped by shifting the diagonal masks 2 or 3 rows at
   once), with the squares attacked by the border queens precomputed per free row
   (``fixed``): an explicit stack loop down to the last :data:`TAIL` free rows, a
   hand-unrolled loop nest for those (:func:`_last_rows`, all state in registers) and
   the last two rows counted without a branch (:func:`_two_rows`). The
   kernel for symmetric constellations (:func:`complete_task_symmetric`) also records
   the board and tests every solution for invariance under the half and the quarter
   turn.

Counts: a constellation of weight w stands for w constellations with the same number of
completions, so ``total = sum(w * count)``. Burnside's lemma, with F(g) the solutions
fixed by g (none for a reflection), gives ``8 unique = total + F(half) + 2 F(quarter)``;
a solution fixed by g has a constellation fixed by g, hence
``8 unique = sum(w * (count + half + 2 quarter))`` where ``half``, ``quarter`` count the
completions invariant under the turns (zero for constellations not fixed by them).
Both sums are sums over tasks, so any subset of tasks, on any thread or machine, adds
exactly; :func:`run_tasks` hands the tasks to threads costliest first, from a shared
counter (a dynamic schedule), with one result row per task, so answers never depend on
the thread count or on which thread ran what.

Choices docs/design.md leaves open: the representative of a constellation orbit is the
image whose bottom queen is nearest a corner (the bottom queen's long diagonal then
crosses the board early, which prunes the search; NQueensFAF makes the same choice),
ties broken by the lowest higher side queen, ``min(c, d)`` largest (2.9% fewer search
nodes at n = 16 than the smallest ``(a, b, c, d)``; the best of the 8 images would save 9
to 10%, but no cheap predictor of it was found), then by the smallest ``(a, b, c, d)``;
bit x of a mask is column x.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numba
import numpy as np

from jitgames._interrupt import stop_flag, stop_requested
from jitgames._jit import fetch_add, jit, prange
from jitgames.errors import InputError

__all__ = ["MAX_N", "Constellation", "TaskSet", "constellations", "tasks", "complete_task",
           "complete_task_symmetric", "run_tasks", "census_of", "count_census",
           "iter_census", "count_chunk", "chunk_worker", "chunk_validate", "task_bound",
           "unique_from"]

MAX_N = 30
"""Largest board (bits of an int64 word)."""

POLL = 1 << 14
"""Backtracks between two looks at the stop flag (well under a millisecond), so Ctrl-C
ends even a task of hours (n near 30) within moments."""

DEFAULT_SPLIT = 1
"""Free rows pre-placed per task (n >= 12): about 8 to 14 tasks per constellation, 40,000
at n = 17 (a quarter of a millisecond each): plenty for 16 threads, while a deeper split
costs more in task set-up than it gains (n = 16, one thread: 1.85, 1.92 and 2.25 CPU s
for splits 1, 2, 3)."""


# ----------------------------------------------------------------- constellations
@dataclass(frozen=True)
class Constellation:
    """Four border queens standing for ``weight`` symmetric images of themselves.

    ``half`` / ``quarter``: the constellation is fixed by the half / quarter turn (its
    completions must then be tested for invariance to count classes).
    """

    a: int
    b: int
    c: int
    d: int
    weight: int
    half: bool
    quarter: bool


def _code(n: int, a, b, c, d):
    """``(a, b, c, d)`` as one integer (works on numpy arrays too)."""
    return ((a * n + b) * n + c) * n + d


def _vector_images(n: int, a, b, c, d):
    """The 8 images of constellations ``(a, b, c, d)`` (arrays) under the board
    symmetries, as a list of 8 ``(a, b, c, d)``: the identity and the quarter, half and
    three-quarter turns (square (r, x) to (x, n-1-r), again and again: the top queen
    goes to the right column, the left one to the top row), then each of them after the
    left-right mirror."""
    m = n - 1
    out = [(a, b, c, d)]
    for _ in range(3):
        pa, pb, pc, pd = out[-1]
        out.append((m - pc, m - pd, pb, pa))
    out.append((m - a, m - b, d, c))
    for _ in range(3):
        pa, pb, pc, pd = out[-1]
        out.append((m - pc, m - pd, pb, pa))
    return out


@functools.lru_cache(maxsize=8)
def constellations(n: int) -> tuple[Constellation, ...]:
    """One representative of every symmetry orbit of border-queen placements, sorted.

    Valid for 2 <= n <= MAX_N. The weights sum to the number of placements of four
    non-attacking border queens (one per border line). Vectorised over all n^4
    quadruples (a, b, c, d); the representative of an orbit is its member of smallest
    preference (bottom queen nearest a corner, then the higher side queen lowest, then
    smallest ``(a, b, c, d)``).
    """
    if not 2 <= n <= MAX_N:
        raise InputError(f"constellations need 2 <= n <= {MAX_N}, got {n}")
    m = n - 1
    a, b, c, d = (x.ravel().astype(np.int64) for x in np.indices((n, n, n, n)))
    # one queen per border line: a corner square covers two of them
    ok = ((a == 0) == (c == 0)) & ((a == m) == (d == 0)) & ((b == 0) == (c == m)) \
        & ((b == m) == (d == m))
    queens = ((np.zeros_like(a), a), (np.full_like(a, m), b), (c, np.zeros_like(a)),
              (d, np.full_like(a, m)))
    for i, (r1, x1) in enumerate(queens):
        for r2, x2 in queens[i + 1:]:
            same = (r1 == r2) & (x1 == x2)
            attack = (r1 == r2) | (x1 == x2) | (np.abs(r1 - r2) == np.abs(x1 - x2))
            ok &= same | ~attack
    a, b, c, d = a[ok], b[ok], c[ok], d[ok]
    own = _code(n, a, b, c, d)
    images = [_code(n, *im) for im in _vector_images(n, a, b, c, d)]
    if any((im == own).any() for im in images[4:]):
        raise AssertionError("a border constellation fixed by a reflection")
    stabilizer = sum((im == own).astype(np.int64) for im in images[:4])

    def key(code):  # the preference as one integer: bottom queen's corner distance first,
        # then the higher of the side queens lowest (so the free rows above both are many)
        bottom = (code // n) // n % n
        side = np.minimum(code // n % n, code % n)
        return (np.minimum(bottom, m - bottom) * n + (m - side)) * n ** 4 + code

    keep = key(own) == np.minimum.reduce([key(im) for im in images])
    rows = zip(a[keep].tolist(), b[keep].tolist(), c[keep].tolist(), d[keep].tolist(),
               (8 // stabilizer[keep]).tolist(), (images[2] == own)[keep].tolist(),
               (images[1] == own)[keep].tolist())
    return tuple(Constellation(*row) for row in rows)


# ----------------------------------------------------------------- tasks
@dataclass(frozen=True)
class TaskSet:
    """Arrays of a task split (all int64; constellation tables indexed by ``con``).

    Per constellation: ``fixed[k]`` the squares of free row k attacked by the border
    queens (columns and diagonals; every bit above the board set), ``shift[k]`` the
    rows from free row k to free row k+1, ``free_rows`` the number m of free rows,
    ``rows[k]`` the row index of free row k, ``weight``, ``symmetric`` (1: fixed by the
    half turn only, 2: by the quarter turn too, 0: neither) and ``border`` the columns
    of the border queens by row (-1 where none). Per task: ``con``, the first free row
    ``start`` still to fill, and the masks ``cols``, ``ld``, ``rd`` of the queens
    pre-placed in the free rows above it (the diagonal masks already moved to row
    ``start``). Tasks of symmetric constellations
    are whole constellations (``start`` 0, no queen pre-placed).
    """

    n: int
    fixed: np.ndarray
    shift: np.ndarray
    free_rows: np.ndarray
    rows: np.ndarray
    weight: np.ndarray
    symmetric: np.ndarray
    border: np.ndarray
    con: np.ndarray
    start: np.ndarray
    cols: np.ndarray
    ld: np.ndarray
    rd: np.ndarray

    def __len__(self) -> int:
        return len(self.con)


def _tables(n: int, cons):
    """The constellation tables of :class:`TaskSet` (numpy over all constellations)."""
    m = n - 1
    count = len(cons)
    a, b, c, d = (np.array([getattr(k, f) for k in cons], np.int64) for f in "abcd")
    queens = ((np.zeros(count, np.int64), a), (np.full(count, m), b),
              (c, np.zeros(count, np.int64)), (d, np.full(count, m)))
    attacked = np.zeros((count, n), np.int64)  # squares of row r the border queens attack
    for r in range(n):
        for qr, qx in queens:
            for x in (qx, qx + (r - qr), qx - (r - qr)):
                inside = (x >= 0) & (x < n)
                attacked[:, r] |= np.where(inside, np.left_shift(1, np.clip(x, 0, m)), 0)
    r = np.arange(n)
    is_free = (r > 0) & (r < m) & (r != c[:, None]) & (r != d[:, None])
    free_rows = is_free.sum(axis=1).astype(np.int64)
    rows = np.argsort(np.where(is_free, r, n + r), axis=1, kind="stable").astype(np.int64)
    rows = np.where(r < free_rows[:, None], rows, 0)
    outside = ~np.int64((1 << n) - 1)  # the bits above the board count as attacked
    fixed = np.where(r < free_rows[:, None], np.take_along_axis(attacked, rows, axis=1), 0)
    fixed |= outside
    shift = np.zeros((count, n), np.int64)
    shift[:, :-1] = np.where(r[1:] < free_rows[:, None], rows[:, 1:] - rows[:, :-1], 0)
    border = np.full((count, n), -1, np.int64)
    for qr, qx in queens:
        border[np.arange(count), qr] = qx
    weight = np.array([k.weight for k in cons], np.int64)
    symmetric = np.array([2 if k.quarter else 1 if k.half else 0 for k in cons], np.int64)
    return fixed, shift, free_rows, rows, weight, symmetric, border


@functools.lru_cache(maxsize=4)
def tasks(n: int, split: int | None = None) -> TaskSet:
    """The task split of the count of n (2 <= n <= MAX_N), in a fixed order.

    ``split``: free rows pre-placed in each non-symmetric constellation (default
    :data:`DEFAULT_SPLIT` for n >= 12, else 0); a task never pre-places the last free
    row. Tasks are sorted by constellation, then by the pre-placed columns.
    """
    if split is None:
        split = DEFAULT_SPLIT if n >= 12 else 0
    cons = constellations(n)
    fixed, shift, free_rows, rows, weight, symmetric, border = _tables(n, cons)
    full = (1 << n) - 1
    con = np.arange(len(cons), dtype=np.int64)
    start = np.zeros(len(cons), np.int64)
    cols = np.zeros(len(cons), np.int64)
    ld = np.zeros(len(cons), np.int64)
    rd = np.zeros(len(cons), np.int64)
    for _ in range(split):
        # tasks that stay: symmetric constellations, or at most the last row left
        stay = (symmetric[con] != 0) | (start + 1 >= free_rows[con])
        free = full & ~(cols | ld | rd | fixed[con, np.minimum(start, n - 1)])
        free = np.where(stay, 0, free)
        bits = (free[:, None] >> np.arange(n)) & 1
        parent, x = np.nonzero(np.concatenate([stay[:, None], bits.astype(bool)], axis=1))
        # column 0 of the concatenation marks a task kept as it is; x - 1 is the column
        keep = x == 0
        bit = np.where(keep, 0, np.left_shift(1, np.maximum(x - 1, 0)))
        s = shift[con[parent], np.minimum(start[parent], n - 1)]
        cols = np.where(keep, cols[parent], cols[parent] | bit)
        ld = np.where(keep, ld[parent], (ld[parent] | bit) << s)
        rd = np.where(keep, rd[parent], (rd[parent] | bit) >> s)
        start = np.where(keep, start[parent], start[parent] + 1)
        con = con[parent]
    return TaskSet(n, fixed, shift, free_rows, rows, weight, symmetric, border, con, start,
                   cols, ld & ((1 << 62) - 1), rd)


def task_bound(ts: TaskSet, index: np.ndarray) -> int:
    """An upper bound of ``sum(weight * count)`` over the tasks ``index``: a task with r
    free rows left has at most r! completions (one queen per row, distinct columns)."""
    left = ts.free_rows[ts.con[index]] - ts.start[index]
    w = ts.weight[ts.con[index]]
    total = 0
    for r in np.unique(left):
        total += math.factorial(max(int(r), 0)) * int(w[left == r].sum())
    return total


# ----------------------------------------------------------------- kernels
TAIL = 9
"""Free rows at the end of every task searched by the unrolled kernel
(:func:`_last_rows`): 99.4% of the search nodes at n = 16 lie in them."""

_U0 = np.uint64(0)
_U1 = np.uint64(1)


@jit(leaf=True)
def _two_rows(free, cols, ld, rd, s, fixed_last):
    """Completions of the last two free rows: ``free`` holds the squares open in the
    second-to-last (at most two: only two columns are left), ``cols``, ``ld``, ``rd``
    the queens above it as seen from it, ``s`` the rows from it to the last free row,
    ``fixed_last`` the border queens' attacks there.

    Branch-free: each of the two candidates is kept if the last row, with the queens
    above, still has its one remaining column open once the candidate stands too.
    """
    last_open = ~(cols | (ld << s) | (rd >> s) | fixed_last)
    b1 = free & -free
    b2 = free ^ b1
    t1 = (b1 != 0) & ((last_open & ~(b1 | (b1 << s) | (b1 >> s))) != 0)
    t2 = (b2 != 0) & ((last_open & ~(b2 | (b2 << s) | (b2 >> s))) != 0)
    return int(t1) + int(t2)


@jit(leaf=True)
def _last_rows(fixed, shift, k, cols, ld, rd):
    """Completions of the last :data:`TAIL` free rows, ``k .. k + TAIL - 1`` (the last
    free row of the constellation), below the queens ``cols``, ``ld``, ``rd`` (the
    diagonals as seen from free row ``k``); ``fixed``, ``shift`` as in
    :func:`complete_task`.

    The loop nest is unrolled by hand, one level per free row (seven, then
    :func:`_two_rows`): every level keeps its free squares, columns and diagonals in
    registers and its shift and attacked squares are loop constants, so a search node
    costs no stack traffic, no row index and no reload of the row's tables (Numba
    has no compile-time recursion that would write the nest for it). At n = 16 this
    part of the search runs 1.25 to 1.3 times as fast as the stack loop of
    :func:`complete_task` (alternating runs, one thread).
    """
    s0 = shift[k]
    s1 = shift[k + 1]
    s2 = shift[k + 2]
    s3 = shift[k + 3]
    s4 = shift[k + 4]
    s5 = shift[k + 5]
    s6 = shift[k + 6]
    s7 = shift[k + 7]
    x1 = fixed[k + 1]
    x2 = fixed[k + 2]
    x3 = fixed[k + 3]
    x4 = fixed[k + 4]
    x5 = fixed[k + 5]
    x6 = fixed[k + 6]
    x7 = fixed[k + 7]
    x8 = fixed[k + 8]
    total = 0
    f0 = ~(cols | ld | rd | fixed[k])
    while f0 != 0:
        b = f0 & -f0
        f0 ^= b
        c1 = cols | b
        l1 = (ld | b) << s0
        r1 = (rd | b) >> s0
        f1 = ~(c1 | l1 | r1 | x1)
        while f1 != 0:
            b = f1 & -f1
            f1 ^= b
            c2 = c1 | b
            l2 = (l1 | b) << s1
            r2 = (r1 | b) >> s1
            f2 = ~(c2 | l2 | r2 | x2)
            while f2 != 0:
                b = f2 & -f2
                f2 ^= b
                c3 = c2 | b
                l3 = (l2 | b) << s2
                r3 = (r2 | b) >> s2
                f3 = ~(c3 | l3 | r3 | x3)
                while f3 != 0:
                    b = f3 & -f3
                    f3 ^= b
                    c4 = c3 | b
                    l4 = (l3 | b) << s3
                    r4 = (r3 | b) >> s3
                    f4 = ~(c4 | l4 | r4 | x4)
                    while f4 != 0:
                        b = f4 & -f4
                        f4 ^= b
                        c5 = c4 | b
                        l5 = (l4 | b) << s4
                        r5 = (r4 | b) >> s4
                        f5 = ~(c5 | l5 | r5 | x5)
                        while f5 != 0:
                            b = f5 & -f5
                            f5 ^= b
                            c6 = c5 | b
                            l6 = (l5 | b) << s5
                            r6 = (r5 | b) >> s5
                            f6 = ~(c6 | l6 | r6 | x6)
                            while f6 != 0:
                                b = f6 & -f6
                                f6 ^= b
                                c7 = c6 | b
                                l7 = (l6 | b) << s6
                                r7 = (r6 | b) >> s6
                                total += _two_rows(~(c7 | l7 | r7 | x7), c7, l7, r7, s7, x8)
    return total


@jit
def complete_task(fixed, shift, m, start, cols, ld, rd, stop):
    """Completions of a task of a constellation (free rows ``start .. m-1`` to fill).

    ``fixed[k]``: squares of free row k attacked by the border queens, with every bit
    above the board set; ``shift[k]``: rows from free row k to k+1; ``cols``, ``ld``,
    ``rd``: the queens already placed in the free rows (``ld`` moves one column up a
    row, ``rd`` one down; both as seen from free row ``start``).

    The rows above the last :data:`TAIL` go through a stack loop that keeps the row
    being tried in registers (its free squares, columns and the diagonals moved on to
    the next free row) and pushes it only when it has squares left to try: a row whose
    last square is tried is replaced by the next one, not stacked. Each queen of the
    row just above the last ``TAIL`` rows hands them to :func:`_last_rows`; a task of
    fewer rows ends its loop in :func:`_two_rows`. The stack index is unsigned, so
    Numba adds no negative-index wraparound to the pushes and pops. Returns -1
    (unfinished) if it stopped because ``stop[0]`` was set.
    """
    if start >= m:
        return 1
    free = ~(cols | ld | rd | fixed[start])
    last = m - 1
    if start == last:
        return 1 if free != 0 else 0
    s_last = shift[last - 1]
    fixed_last = fixed[last]
    if start == last - 1:
        return _two_rows(free, cols, ld, rd, s_last, fixed_last)
    if start == m - TAIL:
        return _last_rows(fixed, shift, start, cols, ld, rd)
    deep = start < m - TAIL
    # the row whose queens hand over: to the unrolled tail, or to the last two rows
    handover = m - TAIL - 1 if deep else last - 2
    st_free = np.empty(m, np.int64)
    st_cols = np.empty(m, np.int64)
    st_ld = np.empty(m, np.int64)
    st_rd = np.empty(m, np.int64)
    st_row = np.empty(m, np.int64)
    k = start
    c = cols
    s = shift[k]
    ls = ld << s  # diagonals of the queens above, as seen from free row k + 1
    rs = rd >> s
    fx = fixed[k + 1]
    depth = _U0
    total = 0
    polls = POLL
    while True:
        if free == 0:
            if depth == _U0:
                break
            polls -= 1
            if polls == 0:
                if stop_requested(stop):
                    return -1
                polls = POLL
            depth -= _U1
            free = st_free[depth]
            c = st_cols[depth]
            ls = st_ld[depth]
            rs = st_rd[depth]
            k = st_row[depth]
            s = shift[k]
            fx = fixed[k + 1]
            continue
        bit = free & -free
        free ^= bit
        nc = c | bit
        nl = ls | (bit << s)
        nr = rs | (bit >> s)
        if k == handover:
            if deep:
                total += _last_rows(fixed, shift, k + 1, nc, nl, nr)
            else:
                total += _two_rows(~(nc | nl | nr | fx), nc, nl, nr, s_last, fixed_last)
            continue
        nf = ~(nc | nl | nr | fx)
        if nf == 0:
            continue
        # keep this row only if it has squares left (written anyway: no branch)
        st_free[depth] = free
        st_cols[depth] = c
        st_ld[depth] = ls
        st_rd[depth] = rs
        st_row[depth] = k
        if free != 0:
            depth += _U1
        k += 1
        c = nc
        free = nf
        s = shift[k]
        ls = nl << s
        rs = nr >> s
        fx = fixed[k + 1]
    return total


@jit
def _column(bit):
    """Index of the single set bit of ``bit`` (> 0)."""
    x = 0
    while (bit >> x) != 1:
        x += 1
    return x


@jit
def _invariance(n, board, rows, bits, m):
    """(half, quarter): 1 if the solution is fixed by the half turn, resp. the quarter
    turn, else 0. ``board`` (row -> column) holds the border queens; ``bits[k]`` is the
    column bit of free row ``rows[k]`` (written into ``board`` here)."""
    for k in range(m):
        board[rows[k]] = _column(bits[k])
    half = 1
    quarter = 1
    for r in range(n):
        if board[n - 1 - r] != n - 1 - board[r]:
            half = 0
        if board[board[r]] != n - 1 - r:
            quarter = 0
    return half, quarter


@jit
def complete_task_symmetric(n, fixed, shift, m, rows, border, out, stop):
    """Completions of a whole constellation fixed by a turn, each tested for invariance.

    ``fixed``, ``shift``, ``m`` as in :func:`complete_task` (no queen pre-placed);
    ``rows[k]`` is the row of free row k and ``border`` the border queens' columns by
    row (-1 elsewhere). Adds (count, fixed by the half turn, fixed by the quarter turn)
    to ``out[0:3]``. A plain stack search: these constellations are rare. Returns False
    (``out`` then incomplete) if it stopped because ``stop[0]`` was set.
    """
    board = border.copy()
    bits = np.zeros(max(m, 1), np.int64)  # the queens of the free rows, as column bits
    if m == 0:
        h, q = _invariance(n, board, rows, bits, m)
        out[0] += 1
        out[1] += h
        out[2] += q
        return True
    st_free = np.empty(m, np.int64)
    st_cols = np.empty(m, np.int64)
    st_ld = np.empty(m, np.int64)
    st_rd = np.empty(m, np.int64)
    k = 0
    st_free[0] = ~fixed[0]
    st_cols[0] = 0
    st_ld[0] = 0
    st_rd[0] = 0
    polls = POLL
    while True:
        free = st_free[k]
        if free == 0:
            if k == 0:
                break
            polls -= 1
            if polls == 0:
                if stop_requested(stop):
                    return False
                polls = POLL
            k -= 1
            continue
        bit = free & -free
        st_free[k] = free ^ bit
        bits[k] = bit
        if k == m - 1:
            h, q = _invariance(n, board, rows, bits, m)
            out[0] += 1
            out[1] += h
            out[2] += q
            continue
        s = shift[k]
        nc = st_cols[k] | bit
        nl = (st_ld[k] | bit) << s
        nr = (st_rd[k] | bit) >> s
        nf = ~(nc | nl | nr | fixed[k + 1])
        if nf == 0:
            continue
        k += 1
        st_free[k] = nf
        st_cols[k] = nc
        st_ld[k] = nl
        st_rd[k] = nr
    return True


@jit
def _run_one(n, fixed, shift, free_rows, rows, symmetric, border, con, start, cols, ld, rd,
             t, out, done, stop):
    """Task ``t`` into ``out[t]`` (count, half, quarter) and ``done[t]``, unless stopped."""
    c = con[t]
    if symmetric[c] == 0:
        count = complete_task(fixed[c], shift[c], free_rows[c], start[t], cols[t], ld[t],
                              rd[t], stop)
        if count >= 0:
            out[t, 0] = count
            done[t] = True
    else:
        acc = np.zeros(3, np.int64)
        if complete_task_symmetric(n, fixed[c], shift[c], free_rows[c], rows[c], border[c],
                                   acc, stop):
            out[t, 0] = acc[0]
            out[t, 1] = acc[1]
            out[t, 2] = acc[2]
            done[t] = True


@jit(parallel=True)
def run_tasks(n, fixed, shift, free_rows, rows, symmetric, border, con, start, cols, ld, rd,
              order, out, done, stop, slots):
    """(count, half, quarter) of every task ``order[i]`` into ``out[t]``, ``done[t]`` set.

    Dynamic schedule: ``slots`` (the thread count) slots, one per thread (prange hands
    each thread one); every slot takes the next :data:`TASKS_PER_GRAB` tasks of
    ``order`` from a shared atomic counter until none is left, so a thread slowed down
    by another process, or one that drew costly tasks, holds nobody up (prange alone
    splits its range into fixed contiguous blocks, ``parallel_chunksize`` or not:
    measured with Numba 0.68's omp and workqueue layers). Once ``stop[0]`` is set,
    running tasks stop within moments, unfinished, and no further task starts.
    """
    following = np.zeros(1, np.int64)  # the next position of ``order`` to hand out
    total = order.shape[0]
    for _ in prange(slots):
        while True:
            first = fetch_add(following, TASKS_PER_GRAB)
            if first >= total:
                break
            for i in range(first, min(first + TASKS_PER_GRAB, total)):
                if stop_requested(stop):
                    break
                _run_one(n, fixed, shift, free_rows, rows, symmetric, border, con, start,
                         cols, ld, rd, order[i], out, done, stop)


# ----------------------------------------------------------------- driving
TASKS_PER_GRAB = 4
"""Tasks a thread takes at a time from the shared counter (a task is a quarter of a
millisecond on average at n = 17: the atomic step costs nothing beside it)."""


def _stride_order(count: int) -> np.ndarray:
    """A fixed permutation of range(count) that interleaves cheap and costly tasks
    (neighbouring tasks share a constellation and often a cost), so that every batch of
    :func:`iter_census` gets a like share of the work."""
    stride = max(1, int(count * 0.618))
    while math.gcd(stride, count) != 1:
        stride += 1
    return (np.arange(count, dtype=np.int64) * stride) % max(count, 1)


def _costliest_first(ts: TaskSet, index: np.ndarray) -> np.ndarray:
    """``index`` sorted by estimated cost, highest first: free rows left, then free
    squares in the first of them (a stable sort, so the order is fixed). Handing the
    costly tasks out first leaves only small ones for the end of a run, when threads run
    out of work one by one (simulated at n = 16 from search-node counts: 99.8% of the
    ideal speed-up on 16 threads, against 99.3% for the mixed order)."""
    if len(index) == 0:
        return index
    con, start = ts.con[index], ts.start[index]
    left = ts.free_rows[con] - start
    first_row = ts.fixed[con, np.minimum(start, ts.n - 1)]
    free = ~(ts.cols[index] | ts.ld[index] | ts.rd[index] | first_row) & ((1 << ts.n) - 1)
    squares = np.zeros(len(index), np.int64)
    for x in range(ts.n):
        squares += (free >> x) & 1
    return index[np.lexsort((-squares, -left))]


def _run(ts: TaskSet, index: np.ndarray, out: np.ndarray, done: np.ndarray, stop) -> None:
    _run_tasks(ts, _costliest_first(ts, index), out, done, stop)


def _run_tasks(ts, index, out, done, stop):
    run_tasks(ts.n, ts.fixed, ts.shift, ts.free_rows, ts.rows, ts.symmetric, ts.border,
              ts.con, ts.start, ts.cols, ts.ld, ts.rd, index, out, done, stop,
              numba.get_num_threads())


def census_of(ts: TaskSet, out: np.ndarray, index=None) -> tuple[int, int]:
    """(weighted count, weighted symmetric part) of the tasks ``index`` (all if None):
    ``sum(w * count)`` and ``sum(w * (half + 2 quarter))``; the total is the first, the
    count up to symmetry ``(first + second) / 8`` once every task is in."""
    if index is None:
        index = np.arange(len(ts))
    w = ts.weight[ts.con[index]]
    rows = out[index]
    count = sum(int(x) for x in (w * rows[:, 0]).tolist()) if len(index) else 0
    sym = sum(int(x) for x in (w * (rows[:, 1] + 2 * rows[:, 2])).tolist()) if len(index) else 0
    return count, sym


def unique_from(count: int, sym: int) -> int:
    """The count up to symmetry from the sums of :func:`census_of` over every task.

    Raises AssertionError if Burnside's sum is not a multiple of 8 (a wrong count)."""
    if (count + sym) % 8:
        raise AssertionError("Burnside sum not divisible by 8: the count is wrong")
    return (count + sym) // 8


def _check(n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"n must be an integer, got {type(n).__name__}")
    n = int(n)
    if not 1 <= n <= MAX_N:
        raise InputError(f"n must be between 1 and {MAX_N}, got {n}")
    return n


def iter_census(n: int, batches: int = 1):
    """Count the solutions of n in ``batches`` parallel launches over the tasks.

    Yields ``(tasks_done, tasks_total, count_so_far, unique_or_None)`` after each batch
    (``unique`` once all tasks are in). When the stop flag
    (:func:`jitgames._interrupt.stop_flag`) is set, the last yield covers the tasks
    finished in the cut batch (a lower bound of the count), then KeyboardInterrupt is
    raised.
    """
    n = _check(n)
    if n == 1:
        yield 1, 1, 1, 1
        return
    ts = tasks(n)
    order = _stride_order(len(ts))
    out = np.zeros((len(ts), 3), np.int64)
    done = np.zeros(len(ts), np.bool_)
    stop = stop_flag()
    count = sym = finished_total = 0
    for chunk in np.array_split(order, max(1, min(batches, len(order)))):
        _run(ts, chunk, out, done, stop)
        finished = chunk[done[chunk]]
        c, s = census_of(ts, out, finished)
        count, sym, finished_total = count + c, sym + s, finished_total + len(finished)
        complete = finished_total == len(ts)
        yield finished_total, len(ts), count, unique_from(count, sym) if complete else None
        if stop[0] != 0:
            raise KeyboardInterrupt


def count_census(n: int) -> tuple[int, int]:
    """(number of solutions, number up to the 8 symmetries) of the n x n board."""
    for *_, count, unique in iter_census(n):
        pass
    return count, unique


# ----------------------------------------------------------------- chunked jobs
def _chunk_index(ts: TaskSet, index: int, chunks: int) -> np.ndarray:
    """Tasks of chunk ``index`` of ``chunks``: every ``chunks``-th task, dealt round-robin
    so that each chunk gets a share of every constellation."""
    return np.arange(index, len(ts), chunks, dtype=np.int64)


def count_chunk(n: int, index: int, chunks: int) -> tuple[int, int]:
    """``(count, sym)`` (as in :func:`census_of`) of chunk ``index`` of ``chunks``.

    The chunks of one ``chunks`` value partition the tasks: their figures sum exactly to
    the whole count. A chunk is all or nothing: stopped by Ctrl-C (the stop flag), it
    raises KeyboardInterrupt and its tasks are searched again by the next run.
    """
    n = _check(n)
    if n < 2:
        raise InputError("chunked counts need n >= 2")
    if not 0 <= index < chunks:
        raise InputError(f"index must be in range({chunks}), got {index}")
    ts = tasks(n)
    order = _chunk_index(ts, index, chunks)
    out = np.zeros((len(ts), 3), np.int64)
    done = np.zeros(len(ts), np.bool_)
    flag = stop_flag()
    if len(order):
        _run(ts, order, out, done, flag)
    if not done[order].all():
        raise KeyboardInterrupt
    return census_of(ts, out, order)


def chunk_worker(params: dict, start: int, stop: int) -> list[int]:
    """Chunked-job worker (see :mod:`jitgames._chunked`): ``[count, sym]`` of chunks
    ``start .. stop - 1`` of ``params["chunks"]`` (:func:`count_chunk`)."""
    totals = [0, 0]
    for index in range(start, stop):
        for k, value in enumerate(count_chunk(params["n"], index, params["chunks"])):
            totals[k] += value
    return totals


def chunk_validate(params: dict, start: int, stop: int, partial) -> None:
    """Raise ValueError unless ``partial`` can be :func:`chunk_worker`'s result (a
    checkpoint's content): two non-negative integers, the count at most
    :func:`task_bound` of the chunks' tasks, the symmetric part at most three times
    the count (``half`` and ``quarter`` never exceed ``count``)."""
    from jitgames._chunked import check_count, check_counts

    check_counts(partial, "queens counts", 2)
    ts = tasks(params["n"])
    index = np.concatenate([_chunk_index(ts, i, params["chunks"]) for i in range(start, stop)])
    check_count(partial[0], "count", 0, task_bound(ts, index))
    check_count(partial[1], "symmetric part", 0, 3 * partial[0])
