"""The straight lines of a layout picture, as quadratics, and the primes on them.

Every row, column, diagonal and anti-diagonal through a window of a layout is cut
into maximal runs on which the integers form a quadratic sequence (constant second
difference): on the square spiral a row is a quadratic ray on each side of the
centre with a run of consecutive integers between them. Each run ("line") becomes a
:class:`~jitgames.primes.polynomials.Quadratic` ``f(t)`` in the step ``t``, read
from the end with the smaller integer (``t = 0``) towards the larger, so on the
spiral the formula continues a ray outward beyond the window. (A diagonal through
the spiral's centre is one quadratic whose values fall and rise again.) Runs shorter than 3 points are
dropped (three points fix a quadratic).

The primes on a line are counted over its own length in the window, or over a
chosen ``length`` (then the polynomial is followed beyond the window). Primality
comes from a table made by the segmented sieve when the values are dense enough
(near the origin), else from Miller-Rabin value by value (far out, where a window's
integers are spread over a range hundreds of times wider than the window).

Lines are ranked by prime count (then by fraction). For the richest ones we give the
Bateman-Horn constant C_f (product truncated at ``prime_limit``, default 10^6,
relative error ~2e-4) and the expectation ``C * sum_t 1/ln f(t)``, whose ratio to
the count says whether a line is richer than chance. Lines whose polynomial factors
or has a fixed divisor are listed with the reason they hold (almost) no primes.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from jitgames._jit import jit, prange
from jitgames.primes.layouts import LAYOUTS, MAX_INDEX, check_window
from jitgames.primes.polynomials import (Quadratic, Verdict, bateman_horn_product,
                                         classify, local_expectation, prime_value,
                                         _primes_below)
from jitgames.errors import InputError

__all__ = ["DIRECTIONS", "line_pieces", "cell_of", "first_cells", "count_line_primes", "Line", "LineAnalysis",
           "analyse_lines", "TABLE_LIMIT"]

#: (dx, dy) of the four line directions, and their names.
DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))
DIRECTION_NAMES = ("row", "column", "diagonal", "antidiagonal")
#: largest value range for which a sieve table is built instead of Miller-Rabin.
TABLE_LIMIT = 1 << 28
_MIN_LENGTH = 3


@jit
def _split_run(values, n, direction, r0, c0, out, n_out):
    """Append the maximal quadratic runs of ``values[:n]`` (>= 0 valid) to ``out``."""
    i = 0
    while i < n:
        if values[i] < 0 or i + 2 >= n or values[i + 1] < 0 or values[i + 2] < 0:
            i += 1
            continue
        second = values[i + 2] - 2 * values[i + 1] + values[i]
        j = i + 3
        while j < n and values[j] >= 0 and values[j] - 2 * values[j - 1] + values[j - 2] == second:
            j += 1
        out[n_out, 0] = direction
        out[n_out, 1] = r0 + i
        out[n_out, 2] = c0 + i
        out[n_out, 3] = j - i
        n_out += 1
        i = j
    return n_out


@jit
def line_pieces(grid):
    """Maximal quadratic runs (length >= 3) of every line of ``grid``.

    ``grid[row, col]`` is the layout index of point (x0 + col, y0 + row), or -1.
    Returns an int64 array of rows ``(direction, i0, j0, length)``: the run starts
    ``i0`` steps into line ``j0`` of that direction, where lines and steps are
    numbered as in :func:`cell_of` (rows: line = row, step = col; columns: line =
    col, step = row; diagonals: line = col - row + height - 1, step = min(row, col)
    counted from the line's first cell; anti-diagonals: line = row + col, steps from
    the cell with the largest row).
    """
    height, width = grid.shape
    capacity = 4 * (height * width // _MIN_LENGTH + height + width) + 8
    out = np.empty((capacity, 4), dtype=np.int64)
    scratch = np.empty(max(height, width), dtype=np.int64)
    n_out = 0
    for direction in range(4):
        n_lines = height if direction == 0 else width if direction == 1 else height + width - 1
        for line in range(n_lines):
            n = 0
            while True:
                row, col = cell_of(direction, line, n, height, width)
                if row < 0:
                    break
                scratch[n] = grid[row, col]
                n += 1
            start = n_out
            n_out = _split_run(scratch, n, direction, 0, 0, out, n_out)
            for k in range(start, n_out):
                out[k, 2] = line  # column 1 holds the step, column 2 the line number
    return out[:n_out].copy()


@jit
def cell_of(direction, line, step, height, width):
    """Grid cell ``(row, col)`` of step ``step`` along line ``line``; (-1, -1) past the end."""
    if direction == 0:
        row, col = line, step
    elif direction == 1:
        row, col = step, line
    elif direction == 2:  # up-right: starts on the bottom row or left column
        first_row = max(height - 1 - line, 0)
        first_col = max(line - (height - 1), 0)
        row, col = first_row + step, first_col + step
    else:  # down-right (x up, y down): starts on the left column or top row
        first_row = min(line, height - 1)
        first_col = max(line - (height - 1), 0)
        row, col = first_row - step, first_col + step
    if 0 <= row < height and 0 <= col < width:
        return row, col
    return -1, -1


@jit
def first_cells(pieces, grid):
    """The first three cells of each run of :func:`line_pieces`, read upwards.

    Returns int64 rows ``(row0, col0, row1, col1, row2, col2, forward)``: a run whose
    integers decrease is read from its far end (``forward = 0``), so ``t = 0`` is
    the smaller end.
    """
    height, width = grid.shape
    out = np.empty((pieces.shape[0], 7), dtype=np.int64)
    for i in range(pieces.shape[0]):
        direction, step, line, run = pieces[i, 0], pieces[i, 1], pieces[i, 2], pieces[i, 3]
        r_first, c_first = cell_of(direction, line, step, height, width)
        r_last, c_last = cell_of(direction, line, step + run - 1, height, width)
        forward = grid[r_last, c_last] >= grid[r_first, c_first]
        for s in range(3):
            at = step + s if forward else step + run - 1 - s
            out[i, 2 * s], out[i, 2 * s + 1] = cell_of(direction, line, at, height, width)
        out[i, 6] = 1 if forward else 0
    return out


@jit(parallel=True)
def count_line_primes(a, b, c, d, lengths, table, table_lo):
    """Prime values of line i, ``(a t^2 + b t + c) / d`` for ``0 <= t < lengths[i]``."""
    counts = np.zeros(a.size, dtype=np.int64)
    for i in prange(a.size):
        found = 0
        for t in range(lengths[i]):
            if prime_value((a[i] * t * t + b[i] * t + c[i]) // d[i], table, table_lo):
                found += 1
        counts[i] = found
    return counts


@dataclass(frozen=True)
class Line:
    """One line of a picture: where it starts, its formula, and its primes.

    ``x, y`` is the point of ``f(0)``, the end of the run with the smaller integer;
    step ``t`` moves by ``(dx, dy)``. ``constant`` (C_f), ``expected`` and ``ratio``
    are filled for irreducible lines among the reported ones, else NaN.
    """

    direction: str
    x: int
    y: int
    dx: int
    dy: int
    f: Quadratic
    length: int
    primes: int
    verdict: Verdict
    constant: float = math.nan
    expected: float = math.nan

    @property
    def fraction(self) -> float:
        return self.primes / self.length if self.length else 0.0

    @property
    def ratio(self) -> float:
        return self.primes / self.expected if self.expected else math.nan


@dataclass(frozen=True)
class LineAnalysis:
    """The lines through a window: the richest ones and the ones that factor."""

    layout: str
    start: int
    size: int
    x0: int
    y0: int
    n_lines: int
    richest: tuple
    factoring: tuple
    primality: str  # "sieve table" or "Miller-Rabin"


def _coefficients(v0, v1, v2, start):
    """Vectorised :meth:`Quadratic.from_values` (+ start): int64 arrays a, b, c, d."""
    s = v2 - 2 * v1 + v0
    a, b, c = s, 2 * (v1 - v0) - s, 2 * (v0 + start)
    even = (a % 2 == 0) & (b % 2 == 0) & (c % 2 == 0)
    halve = np.where(even, 2, 1)
    return a // halve, b // halve, c // halve, 2 // halve


def analyse_lines(layout: str = "spiral", size: int = 201, start: int = 1,
                  centre: int | None = None, length: int | None = None, top: int = 10,
                  prime_limit: int = 10**6) -> LineAnalysis:
    """Find the lines through a ``size x size`` window and rank them by primes.

    Parameters
    ----------
    layout : name in :data:`~jitgames.primes.layouts.LAYOUTS`
    size : window side in points (3 .. 10001)
    start : the integer at index 0 of the layout
    centre : integer to centre the window on (default: ``start``, the origin)
    length : count every line over ``t < length`` (default: its length in the window)
    top : how many of the richest and of the factoring lines to report
    """
    centre = check_window(layout, size, start, centre)
    if length is not None and not 1 <= length <= 10**7:
        raise InputError(f"length must be between 1 and 10^7, got {length}")
    if top < 0:
        raise InputError(f"top must be non-negative, got {top}")
    kernels = LAYOUTS[layout]
    x0, y0 = kernels.window(size, centre - start)
    grid = kernels.grid(x0, y0, size, size)
    if grid.max() >= MAX_INDEX - 4 * size * size:
        raise InputError("window reaches beyond the layout's index range (2^60)")
    pieces = line_pieces(grid)
    direction, run = pieces[:, 0], pieces[:, 3]
    cells = first_cells(pieces, grid)
    rows, cols, forward = cells[:, 0:6:2].T, cells[:, 1:6:2].T, cells[:, 6] == 1
    v = grid[rows, cols]
    a, b, c, d = _coefficients(v[0], v[1], v[2], start)
    lengths = run if length is None else np.full(len(pieces), length, dtype=np.int64)
    top_t = lengths.max(initial=1) - 1
    bound = (np.abs(a).astype(float) * top_t * top_t + np.abs(b) * top_t + np.abs(c))
    if len(pieces) and bound.max() > 2.0**62:
        raise InputError("line values overflow 62 bits; use a shorter length")
    table, table_lo, primality = _prime_table(a, b, c, d, lengths, grid, start)
    counts = count_line_primes(a, b, c, d, lengths, table, table_lo)
    fraction = counts / np.maximum(lengths, 1)
    order = np.lexsort((-fraction, -counts))

    def make(i, verdict=None) -> Line:
        f = Quadratic(int(a[i]), int(b[i]), int(c[i]), int(d[i]))
        dx, dy = DIRECTIONS[direction[i]]
        sign = 1 if forward[i] else -1
        return Line(DIRECTION_NAMES[direction[i]], int(x0 + cols[0, i]), int(y0 + rows[0, i]),
                    sign * dx, sign * dy, f, int(lengths[i]), int(counts[i]),
                    verdict or classify(f))

    primes = _primes_below(prime_limit)
    richest = []
    for i in order[:top]:
        line_ = make(i)
        if line_.verdict.kind == "irreducible":
            product = float(bateman_horn_product(line_.f.a, line_.f.b, line_.f.c, line_.f.d,
                                                 primes))
            line_ = Line(**{**line_.__dict__, "constant": product / line_.f.degree,
                            "expected": local_expectation(line_.f, line_.length, product)})
        richest.append(line_)
    factoring = _factoring_lines(a, b, c, d, lengths, make, top)
    return LineAnalysis(layout, start, size, x0, y0, len(pieces), tuple(richest),
                        tuple(factoring), primality)


def _factoring_lines(a, b, c, d, lengths, make, top):
    """The longest lines whose polynomial factors or has a fixed divisor."""
    disc = b.astype(object) ** 2 - 4 * a.astype(object) * c.astype(object)
    candidates = []
    for i in np.argsort(-lengths, kind="stable"):
        if len(candidates) >= top:
            break
        square = a[i] != 0 and disc[i] >= 0 and math.isqrt(disc[i]) ** 2 == disc[i]
        f0, f1 = int(c[i]) // int(d[i]), int(a[i] + b[i] + c[i]) // int(d[i])
        if square or math.gcd(f0, f1) > 1:
            line_ = make(i)
            if line_.verdict.kind != "irreducible":
                candidates.append(line_)
    return candidates


def _prime_table(a, b, c, d, lengths, grid, start):
    """A sieve table covering every value when that is cheap, else an empty one."""
    valid = grid[grid >= 0]
    lo, hi = int(valid.min()) + start, int(valid.max()) + start
    extra = lengths.max(initial=0) - np.diff(grid.shape).__len__()  # lines beyond window
    if extra > grid.shape[0]:
        t = lengths - 1
        hi = max(hi, int(((a * t * t + b * t + c) // d).max()))
    evaluations = int(lengths.sum())
    if hi - lo > TABLE_LIMIT or hi - lo > 64 * max(evaluations, 1):
        return np.zeros(0, dtype=np.uint8), 0, "Miller-Rabin"
    from jitgames.primes.sieve import primes_between
    table = np.zeros(hi - lo + 1, dtype=np.uint8)
    table[(primes_between(lo, hi + 1) - np.uint64(lo)).astype(np.int64)] = 1
    return table, lo, "sieve table"
