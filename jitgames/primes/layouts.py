"""Ways of laying the integers on the plane, as kernels with exact inverses.

A layout maps an index ``k >= 0`` (the integer ``n = start + k``) to a lattice point
``(x, y)`` and back. Each layout has four kernels, named ``<layout>_point``
(k -> (x, y)), ``<layout>_index`` ((x, y) -> k, or -1 where the layout puts no
integer), ``<layout>_points`` (arrays) and ``<layout>_grid`` (the indices of a
rectangular window, ``grid[row, col]`` for ``(x0 + col, y0 + row)``). They are
gathered in :data:`LAYOUTS`; a new layout is one more module-level entry with the
same four kernels.

``spiral`` -- Ulam's counter-clockwise square spiral: k = 0 at the origin, k = 1 at
(1, 0), then up, left, down and right around ever larger square rings; ring r >= 1
holds k = (2r - 1)^2 .. (2r + 1)^2 - 1 and starts at (r, -r + 1).

``triangle`` -- the positive quadrant filled by anti-diagonals: diagonal d = x + y
holds k = d (d + 1) / 2 .. d (d + 1) / 2 + d, running from (0, d) down to (d, 0), so
k = d (d + 1) / 2 + x.

Indices are int64; the kernels are exact for ``k < 2^60`` (``MAX_INDEX``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from jitgames._jit import jit, prange
from jitgames.primes.primality import isqrt
from jitgames.errors import InputError

__all__ = [
    "spiral_point", "spiral_index", "spiral_points", "spiral_grid",
    "triangle_point", "triangle_index", "triangle_points", "triangle_grid",
    "Layout", "LAYOUTS", "MAX_INDEX", "check_window",
]

MAX_INDEX = 2**60


@jit
def spiral_point(k):
    """Point ``(x, y)`` of index ``k >= 0`` on the counter-clockwise square spiral."""
    if k == 0:
        return 0, 0
    r = (isqrt(k) + 1) // 2  # ring: (2r - 1)^2 <= k < (2r + 1)^2
    m = k - (2 * r - 1) * (2 * r - 1)  # 0 .. 8r - 1 along the ring
    side = m // (2 * r)
    step = m - side * 2 * r + 1  # 1 .. 2r along the side
    if side == 0:
        return r, -r + step
    if side == 1:
        return r - step, r
    if side == 2:
        return -r, r - step
    return -r + step, -r


@jit
def spiral_index(x, y):
    """Index of the point ``(x, y)`` on the square spiral (inverse of spiral_point)."""
    r = max(abs(x), abs(y))
    if r == 0:
        return 0
    base = (2 * r - 1) * (2 * r - 1)
    if x == r and y > -r:
        return base + y + r - 1
    if y == r:
        return base + 3 * r - x - 1
    if x == -r:
        return base + 5 * r - y - 1
    return base + 7 * r + x - 1


@jit
def triangle_point(k):
    """Point ``(x, y)`` of index ``k >= 0`` in the diagonal filling of the quadrant."""
    d = (isqrt(8 * k + 1) - 1) // 2  # d (d + 1) / 2 <= k
    x = k - d * (d + 1) // 2
    return x, d - x


@jit
def triangle_index(x, y):
    """Index of ``(x, y)`` in the diagonal filling, or -1 outside the quadrant."""
    if x < 0 or y < 0:
        return -1
    d = x + y
    return d * (d + 1) // 2 + x


@jit(parallel=True)
def spiral_points(ks):
    """``(xs, ys)`` for an int64 array of indices on the square spiral."""
    xs = np.empty(ks.size, dtype=np.int64)
    ys = np.empty(ks.size, dtype=np.int64)
    for i in prange(ks.size):
        xs[i], ys[i] = spiral_point(ks[i])
    return xs, ys


@jit(parallel=True)
def triangle_points(ks):
    """``(xs, ys)`` for an int64 array of indices in the diagonal filling."""
    xs = np.empty(ks.size, dtype=np.int64)
    ys = np.empty(ks.size, dtype=np.int64)
    for i in prange(ks.size):
        xs[i], ys[i] = triangle_point(ks[i])
    return xs, ys


@jit(parallel=True)
def spiral_grid(x0, y0, width, height):
    """Indices of the window ``x0 <= x < x0 + width``, ``y0 <= y < y0 + height``."""
    grid = np.empty((height, width), dtype=np.int64)
    for row in prange(height):
        for col in range(width):
            grid[row, col] = spiral_index(x0 + col, y0 + row)
    return grid


@jit(parallel=True)
def triangle_grid(x0, y0, width, height):
    """Indices (or -1) of a window of the diagonal filling; see spiral_grid."""
    grid = np.empty((height, width), dtype=np.int64)
    for row in prange(height):
        for col in range(width):
            grid[row, col] = triangle_index(x0 + col, y0 + row)
    return grid


@dataclass(frozen=True)
class Layout:
    """A layout's kernels and the window a picture of it shows by default.

    ``centred`` layouts (the spiral) are drawn around the point of the start value;
    the others from the origin into the positive quadrant.
    """

    name: str
    point: object
    index: object
    points: object
    grid: object
    centred: bool

    def window(self, size: int, centre_index: int = 0) -> tuple[int, int]:
        """Lower-left corner ``(x0, y0)`` of a ``size x size`` picture."""
        cx, cy = self.point(centre_index)
        if self.centred:
            return int(cx) - size // 2, int(cy) - size // 2
        return max(0, int(cx) - size // 2), max(0, int(cy) - size // 2)


LAYOUTS = {
    "spiral": Layout("spiral", spiral_point, spiral_index, spiral_points, spiral_grid, True),
    "triangle": Layout("triangle", triangle_point, triangle_index, triangle_points,
                       triangle_grid, False),
}


def check_window(layout: str, size: int, start: int, centre: int | None) -> int:
    """Validate a window of a layout (raising ValueError); return its centre integer.

    ``size`` is the window side in points (3 .. 10001), ``start`` the integer at index
    0 of the layout (>= 0), ``centre`` the integer to centre on (default ``start``).
    """
    if layout not in LAYOUTS:
        raise InputError(f"unknown layout {layout!r}; choose from {', '.join(LAYOUTS)}")
    if not 3 <= size <= 10001:
        raise InputError(f"size must be between 3 and 10001, got {size}")
    if not 0 <= start <= MAX_INDEX:  # start + index and the line coefficients fit int64
        raise InputError(f"start must be in [0, 2^60], got {start}")
    centre = start if centre is None else centre
    if not start <= centre < start + MAX_INDEX:
        raise InputError(f"centre must be in [start, start + 2^60), got {centre}")
    return centre
