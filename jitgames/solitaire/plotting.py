"""Figures: the histogram of optimal scores (matplotlib, Agg backend, no display needed)."""
from __future__ import annotations

from pathlib import Path


def check_plot_path(path) -> None:
    """Raise :class:`~jitgames._cli.InputError` unless ``path`` can be written and its
    extension names a format matplotlib draws (``.png``, ``.pdf``, ``.svg``, ...)."""
    from matplotlib.backend_bases import FigureCanvasBase

    from .._cli import InputError
    from .._store import check_writable

    formats = FigureCanvasBase.get_supported_filetypes()
    extension = Path(path).suffix.lstrip(".").lower()
    if extension not in formats:
        raise InputError(f"cannot draw {path}: name a file ending in one of "
                         f"{', '.join('.' + f for f in sorted(formats))}")
    check_writable(path)


def plot_histogram(summary: dict, path, source: str) -> None:
    """Draw the score histogram of a study summary (:func:`.study.summarise`) to ``path``;
    ``source`` says where the deals came from (e.g. ``"seed 0"``), for the title."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .._store import save_figure

    scores = list(range(53))
    n = summary["deals"]
    share = [100 * summary["histogram"][str(s)] / n for s in scores]
    fig, ax = plt.subplots(figsize=(8, 4.2), dpi=120)
    ax.bar(scores, share, width=0.85, color="#3a6ea5")
    low, high = summary["ci95"]
    ax.axvline(summary["mean"], color="#c0392b", lw=1.5,
               label=f"mean {summary['mean']:.3f} (95% CI {low:.3f}-{high:.3f})")
    ax.axvline(summary["casino"]["break_even_score"] - 0.5, color="#555", ls="--", lw=1,
               label=f"casino break-even ({summary['casino']['break_even_score']} cards)")
    ax.set_xlabel("optimal score (cards on the foundations)")
    ax.set_ylabel("% of deals")
    ax.set_title(f"Optimal solitaire score over {n:,} deals ({source})")
    ax.set_xlim(-1, 53)
    ax.legend(frameon=False)
    fig.tight_layout()
    try:
        save_figure(fig, path)  # atomic: a failed write leaves the old picture whole
    finally:
        plt.close(fig)
