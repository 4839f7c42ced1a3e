"""Pictures of the puzzles' answers, drawn with Matplotlib (Agg, no display needed).

Each function draws one figure from the data it is given and returns the figure
and its axes, so a caller (or a test) can map data coordinates to pixels with
``ax.transData``; every cell is a square of the image, centred on integer data
coordinates, so sampling the pixel at a cell's centre reads that cell back.
"""
from __future__ import annotations

import numpy as np

__all__ = ["fibnim_losing", "queens_board", "save"]

LOST = (0.0, 0.0, 0.0)
"""Colour of a lost position (black)."""
OTHER = (1.0, 1.0, 1.0)
"""Colour of every other cell (white)."""


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def fibnim_losing(table, p_max: int | None = None):
    """The lost positions (p, q) of Fibonacci nim as black cells in the (p, q) plane.

    Parameters
    ----------
    table : FibNimTable
        From :func:`jitgames.puzzles.fibnim.table`.
    p_max : int, optional
        Largest heap drawn (default: the whole table). q runs from 1 to p_max // 2
        + 1: no (p, q) with 2q >= p is lost, since the mover may take everything.

    Returns
    -------
    (figure, axes)
    """
    plt = _pyplot()
    p_max = table.heap_max if p_max is None else min(p_max, table.heap_max)
    q_max = p_max // 2 + 1
    lost = np.zeros((q_max, p_max), dtype=bool)  # lost[q - 1, p - 1]
    for p, g in table.losing_positions(p_max):
        lost[:min(g, q_max), p - 1] = True
    image = np.where(lost[..., None], LOST, OTHER)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.imshow(image, origin="lower", interpolation="nearest", aspect="auto",
              extent=(0.5, p_max + 0.5, 0.5, q_max + 0.5))
    ax.set_xlabel("p, tokens left")
    ax.set_ylabel("q, tokens taken by the last move")
    ax.set_title("Fibonacci nim: black (p, q) are lost for the player to move\n"
                 "(lost exactly when q <= g(p); the tall columns stand on Fibonacci p)")
    fig.tight_layout()
    return fig, ax


def queens_board(solution):
    """An n x n board with a black square under each queen: row r, column
    ``solution[r]``; row 0 on top, so the picture reads like :func:`queens.draw`."""
    plt = _pyplot()
    solution = [int(c) for c in solution]
    n = len(solution)
    cells = np.ones((n, n, 3))
    light, dark = (0.94, 0.85, 0.70), (0.72, 0.53, 0.36)
    for r in range(n):
        for c in range(n):
            cells[r, c] = light if (r + c) % 2 == 0 else dark
    for r, c in enumerate(solution):
        cells[r, c] = LOST
    fig, ax = plt.subplots(figsize=(4, 4))
    ax.imshow(cells, origin="upper", interpolation="nearest",
              extent=(-0.5, n - 0.5, n - 0.5, -0.5))
    ax.set_xticks(range(n))
    ax.set_yticks(range(n))
    ax.set_xlabel("column")
    ax.set_ylabel("row")
    ax.set_title(f"{n} queens: " + " ".join(map(str, solution)))
    fig.tight_layout()
    return fig, ax


def save(fig, path) -> None:
    """Write ``fig`` to ``path`` (PNG unless the suffix says otherwise) and close it.

    Saved at the figure's own resolution, so ``ax.transData`` gives its pixels.
    """
    from .._store import save_figure

    try:
        save_figure(fig, path, dpi=fig.dpi)  # atomic: a failed write keeps the old picture
    finally:
        _pyplot().close(fig)
