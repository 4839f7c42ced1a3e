"""Pictures of the primes on a layout, drawn with matplotlib's Agg backend.

Each point of a ``size x size`` window is a pixel, black where the integer there is
prime. The richest lines of :func:`~jitgames.primes.lines.analyse_lines` can be
drawn on top, each in its own colour, with a legend of their formulas.
"""
from __future__ import annotations

import os

import numpy as np

from jitgames.primes.layouts import LAYOUTS, check_window
from jitgames.primes.sieve import primality_mask, primes_between

__all__ = ["prime_window", "draw"]


def prime_window(layout: str, size: int, start: int = 1, centre: int | None = None):
    """Boolean ``size x size`` array (row = y - y0) of primes, and the corner (x0, y0)."""
    centre = check_window(layout, size, start, centre)
    kernels = LAYOUTS[layout]
    x0, y0 = kernels.window(size, centre - start)
    grid = kernels.grid(x0, y0, size, size)
    valid = grid >= 0
    values = grid[valid] + start
    lo, hi = int(values.min()), int(values.max())
    prime = np.zeros(grid.shape, dtype=bool)
    if hi - lo <= 64 * values.size:  # dense: sieve the whole range once
        table = np.zeros(hi - lo + 1, dtype=bool)
        table[(primes_between(lo, hi + 1) - np.uint64(lo)).astype(np.int64)] = True
        prime[valid] = table[values - lo]
    else:  # sparse (far out): test each value
        prime[valid] = primality_mask(values.astype(np.uint64))
    return prime, (x0, y0)


def draw(layout: str, size: int, out, start: int = 1, centre: int | None = None,
         lines=(), dpi: int = 100) -> None:
    """Draw the primes of a window (and ``lines``, from ``LineAnalysis.richest``) to ``out``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    prime, (x0, y0) = prime_window(layout, size, start, centre)
    inches = max(4.0, min(12.0, size / dpi))
    fig, ax = plt.subplots(figsize=(inches, inches), dpi=dpi)
    ax.imshow(prime, cmap="gray_r", origin="lower", interpolation="nearest",
              extent=(x0 - 0.5, x0 + size - 0.5, y0 - 0.5, y0 + size - 0.5))
    colours = plt.get_cmap("tab10")
    for i, line in enumerate(lines):
        steps = np.arange(line.length)
        xs, ys = line.x + line.dx * steps, line.y + line.dy * steps
        inside = (xs >= x0) & (xs < x0 + size) & (ys >= y0) & (ys < y0 + size)
        ax.plot(xs[inside], ys[inside], color=colours(i % 10), linewidth=1.2, alpha=0.8,
                label=f"{line.f.formula()}: {line.primes}/{line.length}")
    if len(lines):
        ax.legend(loc="upper left", fontsize=7, framealpha=0.85)
    where = f"around {centre}" if centre is not None and centre != start else f"start {start}"
    ax.set_title(f"primes on the {layout}, {size} x {size}, {where}")
    ax.set_xticks([])
    ax.set_yticks([])
    fig.tight_layout()
    # The format named explicitly: without a suffix matplotlib would write OUT.png.
    from .._store import save_figure

    try:  # atomic: a failed write (full disk) leaves the old picture whole
        save_figure(fig, out, format=os.path.splitext(os.fspath(out))[1][1:] or "png")
    finally:
        plt.close(fig)
