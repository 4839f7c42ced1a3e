"""N queens counted by symmetry class in one search (total and unique together).

The search visits only one member of (almost) every symmetry class and classifies
each solution it completes by the size of its class -- 2, 4 or 8 -- so that

    total = 2 C2 + 4 C4 + 8 C8,    unique = C2 + C4 + C8.

This is the classic backtracking of the "Takaken" program (Kenji Takahashi), written
afresh here as an iterative kernel:

- *corner* placements: the row-0 queen in column 0. Such a solution's reflection in
  the main diagonal is distinct and also has a corner queen, so forbidding column 1
  in rows 1..b-1 (b = the row-1 column) keeps one of each pair; all these classes
  have 8 members.
- *other* placements: no corner queen; the row-0 queen in column b1 with
  1 <= b1 < b2 = n-1-b1, so each class is searched from a member whose row-0 queen
  is nearest a side. The side columns are forbidden in rows above b1 and below b2
  (bit masks ``sidemask``, ``lastmask``), a row-b2 constraint removes more images,
  and the survivors are compared with their 90, 180 and 270 degree rotations
  (:func:`classify`) to discard non-canonical ones and to find their class size.

Bit conventions: row r's queen is the bit ``board[r]``; bit 0 is one side column,
bit n-1 the other. Diagonal masks are not truncated (n <= 30 keeps them in int64).
Work is split into tasks (a placement of the first rows); the prange kernel sums
per-task class counts, so results do not depend on the thread count. The search polls
a stop flag (:func:`jitgames._interrupt.stop_flag`) every :data:`POLL` nodes, so Ctrl-C
ends even a search of days within moments; the tasks finished by then are counted.
"""
from __future__ import annotations

from math import gcd

import numpy as np

from jitgames._interrupt import stop_flag, stop_requested
from jitgames._jit import jit, prange
from jitgames.errors import InputError

__all__ = ["classify", "classes_from", "count_classes", "count_classes_chunk",
           "iter_class_counts"]


POLL = 1 << 16
"""Search nodes between two looks at the stop flag (well under a millisecond)."""


@jit
def classify(n, board, bound1, bound2, endbit):
    """Class size (2, 4 or 8) of a completed board, or 0 if it is not canonical."""
    size_e = n - 1
    topbit = 1 << size_e
    if board[bound2] == 1:  # compare with the 90-degree rotation
        own = 1
        ptn = 2
        while own <= size_e:
            bit = 1
            you = size_e
            while board[you] != ptn and board[own] >= bit:
                bit <<= 1
                you -= 1
            if board[own] > bit:
                return 0
            if board[own] < bit:
                break
            own += 1
            ptn <<= 1
        if own > size_e:
            return 2
    if board[size_e] == endbit:  # compare with the 180-degree rotation
        own = 1
        you = size_e - 1
        while own <= size_e:
            bit = 1
            ptn = topbit
            while board[you] != ptn and board[own] >= bit:
                bit <<= 1
                ptn >>= 1
            if board[own] > bit:
                return 0
            if board[own] < bit:
                break
            own += 1
            you -= 1
        if own > size_e:
            return 4
    if board[bound1] == topbit:  # compare with the 270-degree rotation
        own = 1
        ptn = topbit >> 1
        while own <= size_e:
            bit = 1
            you = 0
            while board[you] != ptn and board[own] >= bit:
                bit <<= 1
                you += 1
            if board[own] > bit:
                return 0
            if board[own] < bit:
                break
            own += 1
            ptn >>= 1
    return 8


@jit
def _allowed(n, corner, bound1, bound2, sidemask, y, left, down, right):
    """Columns (bits) open to row y's queen under the class-search constraints."""
    free = ((1 << n) - 1) & ~(left | down | right)
    if corner:
        if y < bound1:
            free &= ~2
    elif y < bound1:
        free &= ~sidemask
    elif y == bound2:
        if down & sidemask == 0:
            return 0
        if down & sidemask != sidemask:
            free &= sidemask
    return free


@jit
def _count_leaf(n, corner, free, lastmask, board, bound1, bound2, endbit, counts):
    """Last row reached with ``free`` (its open column, if any): count the class."""
    if free == 0:
        return
    if corner:
        counts[2] += 1
    elif free & lastmask == 0:
        board[n - 1] = free
        c = classify(n, board, bound1, bound2, endbit)
        if c:
            counts[c // 4] += 1


@jit
def classes_from(n, corner, bound1, bound2, sidemask, lastmask, endbit, y0, left0, down0,
                 right0, board, counts, stop):
    """Add to ``counts`` (C2, C4, C8) the classes completing ``board[:y0]``.

    Row y0 is next, with diagonal and column masks ``left0``, ``down0``,
    ``right0``; ``board`` (int64, length n) is scratch above row y0. Returns False
    (``counts`` then incomplete) if it stopped because ``stop[0]`` was set.
    """
    size_e = n - 1
    if y0 == size_e:
        free = _allowed(n, corner, bound1, bound2, sidemask, y0, left0, down0, right0)
        _count_leaf(n, corner, free, lastmask, board, bound1, bound2, endbit, counts)
        return True
    stack_free = np.empty(n, np.int64)
    stack_left = np.empty(n, np.int64)
    stack_down = np.empty(n, np.int64)
    stack_right = np.empty(n, np.int64)
    y = y0
    stack_left[y] = left0
    stack_down[y] = down0
    stack_right[y] = right0
    stack_free[y] = _allowed(n, corner, bound1, bound2, sidemask, y, left0, down0, right0)
    nodes = 0
    while True:
        nodes += 1
        if nodes % POLL == 0 and stop_requested(stop):
            return False
        free = stack_free[y]
        if free == 0:
            if y == y0:
                break
            y -= 1
            continue
        bit = free & -free
        stack_free[y] = free ^ bit
        board[y] = bit
        left = (stack_left[y] | bit) << 1
        down = stack_down[y] | bit
        right = (stack_right[y] | bit) >> 1
        nxt = _allowed(n, corner, bound1, bound2, sidemask, y + 1, left, down, right)
        if nxt == 0:
            continue
        if y + 1 == size_e:  # last row: at most one open column
            _count_leaf(n, corner, nxt, lastmask, board, bound1, bound2, endbit, counts)
            continue
        y += 1
        stack_left[y] = left
        stack_down[y] = down
        stack_right[y] = right
        stack_free[y] = nxt
    return True


@jit(parallel=True)
def _run_tasks(n, params, boards, order, out, done, stop):
    """Class counts of every task: ``params[t]`` = corner, bound1, bound2, sidemask,
    lastmask, endbit, y0, left, down, right; ``boards[t]`` its first rows.
    ``done[t]`` is set for the tasks finished (all of them unless ``stop[0]`` was set)."""
    for i in prange(order.shape[0]):
        t = order[i]
        if stop_requested(stop):
            continue
        board = boards[t].copy()
        counts = np.zeros(3, np.int64)
        p = params[t]
        if classes_from(n, p[0] != 0, p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9],
                        board, counts, stop):
            out[t, 0] = counts[0]
            out[t, 1] = counts[1]
            out[t, 2] = counts[2]
            done[t] = True


def _tasks(n: int, split_rows: int):
    """Start tasks of the class search, each expanded ``split_rows`` rows deeper."""
    size_e = n - 1
    topbit = 1 << size_e
    roots = []
    board = [0] * n
    for bound1 in range(2, size_e):  # corner queen in row 0, row-1 queen at bound1
        bit = 1 << bound1
        b = list(board)
        b[0], b[1] = 1, bit
        roots.append(((1, bound1, 0, 0, 0, 0), 2, (2 | bit) << 1, 1 | bit, bit >> 1, b))
    sidemask = lastmask = topbit | 1
    endbit = topbit >> 1
    bound1, bound2 = 1, n - 2
    while bound1 < bound2:
        bit = 1 << bound1
        b = list(board)
        b[0] = bit
        roots.append(((0, bound1, bound2, sidemask, lastmask, endbit), 1, bit << 1, bit,
                      bit >> 1, b))
        lastmask |= lastmask >> 1 | lastmask << 1
        endbit >>= 1
        bound1 += 1
        bound2 -= 1
    tasks = roots
    for _ in range(split_rows):
        deeper = []
        for fixed, y, left, down, right, b in tasks:
            if y >= size_e - 1:
                deeper.append((fixed, y, left, down, right, b))
                continue
            corner, bound1, bound2, sidemask = fixed[0] == 1, fixed[1], fixed[2], fixed[3]
            free = int(_allowed(n, corner, bound1, bound2, sidemask, y, left, down, right))
            while free:
                bit = free & -free
                free ^= bit
                nb = list(b)
                nb[y] = bit
                deeper.append((fixed, y + 1, (left | bit) << 1, down | bit, (right | bit) >> 1,
                               nb))
        tasks = deeper
    params = np.array([list(f) + [y, lf, dn, rt] for f, y, lf, dn, rt, _ in tasks],
                      dtype=np.int64).reshape(-1, 10)
    boards = np.array([b for *_, b in tasks], dtype=np.int64).reshape(-1, n)
    return params, boards


def _stride_order(count: int) -> np.ndarray:
    """A fixed permutation of range(count) that interleaves cheap and costly tasks."""
    stride = max(1, int(count * 0.618))
    while gcd(stride, count) != 1:
        stride += 1
    return (np.arange(count, dtype=np.int64) * stride) % max(count, 1)


def iter_class_counts(n: int, batches: int = 1):
    """Run the class search in ``batches`` parallel batches of tasks.

    Yields ``(tasks_done, tasks_total, (C2, C4, C8) so far)`` after each batch, so a
    caller can show progress and keep partial results when interrupted. When the stop
    flag (:func:`jitgames._interrupt.stop_flag`) is set, the last yield counts the
    tasks finished in the cut batch, then KeyboardInterrupt is raised.
    """
    if not 5 <= n <= 30:
        raise InputError(f"the class search needs 5 <= n <= 30, got {n}")
    params, boards = _tasks(n, 2 if n >= 12 else 0)
    order = _stride_order(len(params))
    out = np.zeros((len(params), 3), dtype=np.int64)
    done = np.zeros(len(params), dtype=np.bool_)
    totals = np.zeros(3, dtype=np.int64)
    stop = stop_flag()
    for chunk in np.array_split(order, max(1, min(batches, len(order)))):
        _run_tasks(n, params, boards, chunk, out, done, stop)
        finished = chunk[done[chunk]]
        totals += out[finished].sum(axis=0)
        yield len(finished), len(order), tuple(int(x) for x in totals)
        if stop[0] != 0:
            raise KeyboardInterrupt


def count_classes_chunk(n: int, index: int, chunks: int) -> tuple[int, int, int]:
    """(C2, C4, C8) of the tasks ``t`` with ``t % chunks == index`` (for distributed runs).

    The chunks of one ``chunks`` value partition the search: their class counts sum
    exactly to :func:`count_classes`, and round-robin dealing balances their cost.
    """
    if not 5 <= n <= 30:
        raise InputError(f"the class search needs 5 <= n <= 30, got {n}")
    if not 0 <= index < chunks:
        raise InputError(f"index must be in range({chunks}), got {index}")
    params, boards = _tasks(n, 2 if n >= 12 else 0)
    order = np.arange(index, len(params), chunks, dtype=np.int64)
    out = np.zeros((len(params), 3), dtype=np.int64)
    done = np.zeros(len(params), dtype=np.bool_)
    stop = stop_flag()
    if len(order):
        _run_tasks(n, params, boards, order, out, done, stop)
    if stop[0] != 0:  # a chunk is all or nothing: its cut tasks are searched again
        raise KeyboardInterrupt
    return tuple(int(x) for x in out[order].sum(axis=0))


def chunk_worker(params: dict, start: int, stop: int) -> list[int]:
    """Chunked-job worker (see :mod:`jitgames._chunked`): class counts of chunks
    ``start .. stop - 1`` of ``params["chunks"]`` round-robin chunks of the n-queens
    search of ``params["n"]``, as ``[C2, C4, C8]``."""
    totals = [0, 0, 0]
    for index in range(start, stop):
        for k, value in enumerate(count_classes_chunk(params["n"], index, params["chunks"])):
            totals[k] += value
    return totals


def chunk_validate(params: dict, start: int, stop: int, partial) -> None:
    """Raise ValueError unless ``partial`` is a possible :func:`chunk_worker` result
    (three non-negative integers; a checkpoint's content). Each count is at most n!,
    the number of ways to put n non-attacking rooks, so a forged count of thousands of
    digits is refused."""
    import math

    from jitgames._chunked import check_counts

    check_counts(partial, "class counts", 3, high=math.factorial(params["n"]))


def count_classes(n: int) -> tuple[int, int, int]:
    """(C2, C4, C8): numbers of symmetry classes of solutions with 2, 4 and 8 members.

    Valid for 5 <= n <= 30 (smaller boards are left to the plain searches).
    """
    for *_, counts in iter_class_counts(n):
        pass
    return counts
