"""``/stats``: each game's section of results and plots, drawn on the server.

Every registered game with a ``stats`` function adds its sections (tables and plots)
in nav order. Plots are matplotlib figures rendered as inline SVG
(:func:`figure_svg`): nothing is fetched from elsewhere and nothing is cached, so a
finished game shows on the next load. A records file that cannot be read is named
in its game's section instead of failing the page.
"""
from __future__ import annotations

import html
import io

from ..errors import InputError
from .plugin import render_plain_page

__all__ = ["render_stats", "figure_svg", "new_figure", "html_table"]


def new_figure(width: float = 7.0, height: float = 3.2):
    """A matplotlib Figure (no pyplot: no global state, safe in server threads)."""
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=96, layout="constrained")


def figure_svg(fig) -> str:
    """The figure as an inline ``<svg>`` element (XML prologue and DOCTYPE dropped)."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none"}):  # text stays text: small, selectable
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    return '<div class="plot">' + text[text.index("<svg"):] + "</div>"


def html_table(header, rows) -> str:
    """A ``table.stats`` of escaped cells (floats with two decimals)."""
    def cell(value):
        if value is None:
            return ""
        return f"{value:.2f}" if isinstance(value, float) else html.escape(str(value))

    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{cell(v)}</td>" for v in row) + "</tr>"
                   for row in rows)
    return f'<table class="stats"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def render_stats(app) -> str:
    """The whole statistics page."""
    parts = ['<p id="status">Results of the games played here and at the terminal.</p>']
    for plugin in app.ctx.games:
        if plugin.stats is None:
            continue
        try:
            sections = plugin.stats(app.ctx)
        except InputError as exc:  # a records file that cannot be used (StoreError)
            parts.append(f"<section><h2>{html.escape(plugin.title)}</h2>"
                         f"<p>{html.escape(str(exc))}</p></section>")
            continue
        for section in sections:
            parts.append(f'<section id="stats-{plugin.name}"><h2>{html.escape(section.title)}'
                         f"</h2>{section.html}</section>")
    return render_plain_page("Statistics", "\n".join(parts), app.ctx.games, "stats")
