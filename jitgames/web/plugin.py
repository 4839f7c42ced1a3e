"""What a game page gives the framework (:class:`GamePlugin`), and the shared page chrome.

See the contract in :mod:`jitgames.web` and docs/web.md. Everything here is plain
data and string building; the HTTP side is :mod:`.server`.
"""
from __future__ import annotations

import html
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .. import _store
from ..errors import InputError

__all__ = ["BadRequest", "Context", "GamePlugin", "Page", "StatsSection", "render_page",
           "page_links", "json_for_script", "get_int", "get_str"]


class BadRequest(InputError):
    """A malformed request (missing or mistyped field): HTTP 400 with the message."""


@dataclass
class Context:
    """What a plugin may use of the server: where the records live and who plays.

    Attributes
    ----------
    db_dir : Path or None
        Directory of the records databases (``--db DIR``); None means the jitgames
        data directory, the terminal games' default.
    player : str
        Name stored with each finished game.
    games : list of GamePlugin
        Every registered game (for the nav).
    """

    db_dir: Path | None = None
    player: str = "player"
    games: list = field(default_factory=list)
    record_lock: threading.Lock = field(default_factory=threading.Lock)

    def db_path(self, filename: str) -> Path:
        """The records file ``filename`` (the same name as the terminal game's default)."""
        base = self.db_dir if self.db_dir is not None else _store.data_dir()
        return Path(base) / filename


@dataclass(frozen=True)
class Page:
    """One game page: the parts the game fills in the shared chrome.

    ``board`` is trusted HTML (the plugin escapes what it puts in), ``rules`` the
    rules panel's HTML, ``controls`` extra buttons/inputs after the four shared
    buttons, ``data`` JSON-able values handed to the script (``JG.data``).
    """

    title: str
    board: str
    rules: str
    controls: str = ""
    data: dict = field(default_factory=dict)
    keys: tuple = ()
    """Extra ``(key, what it does)`` lines of the keyboard panel."""


@dataclass(frozen=True)
class StatsSection:
    """A section of ``/stats``: a heading and trusted HTML (tables, inline SVG plots)."""

    title: str
    html: str


@dataclass(frozen=True)
class GamePlugin:
    """A game's page and API; see the contract in :mod:`jitgames.web`.

    Attributes
    ----------
    name : str
        URL segment (``/name``, ``/api/name/...``, ``/static/name.js``); lowercase letters.
    title : str
        Shown in the nav and the page title.
    page : callable(query: dict[str, str], ctx) -> Page
    new : callable(body: dict, ctx) -> game object
    state : callable(game, ctx) -> dict (JSON-able)
    actions : dict[str, callable(game, body: dict, ctx) -> dict]
    check_records : callable(ctx) -> None, optional
        Opens and checks the game's records before serving (raises StoreError).
    stats : callable(ctx) -> list[StatsSection], optional
    warm_up : callable() -> None, optional
        Loads (on a first run: compiles) the game's kernels before serving, so the
        first page does not wait for them.
    """

    name: str
    title: str
    page: Callable[[dict, Context], Page]
    new: Callable[[dict, Context], Any]
    state: Callable[[Any, Context], dict]
    actions: dict
    check_records: Callable[[Context], None] | None = None
    stats: Callable[[Context], list] | None = None
    warm_up: Callable[[], None] | None = None


# ----------------------------------------------------------------------------- body fields

def get_int(body: dict, key: str, low: int, high: int, default=None) -> int:
    """``body[key]`` as an int in ``low..high`` (a JSON number or a decimal string),
    else :class:`BadRequest`; ``default`` when missing (BadRequest if that is None)."""
    value = body.get(key, default)
    if value is None:
        raise BadRequest(f"missing field {key!r}")
    if isinstance(value, str) and value.strip().isdecimal() and len(value.strip()) <= 40:
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadRequest(f"field {key!r} must be an integer in {low}..{high}, got "
                         f"{json.dumps(value)[:40]}")
    return value


def get_str(body: dict, key: str, limit: int = 4096, default=None) -> str:
    """``body[key]`` as a string of at most ``limit`` characters, else BadRequest."""
    value = body.get(key, default)
    if value is None:
        raise BadRequest(f"missing field {key!r}")
    if not isinstance(value, str) or len(value) > limit:
        raise BadRequest(f"field {key!r} must be text of at most {limit} characters")
    return value


# ----------------------------------------------------------------------------- the chrome

def json_for_script(data) -> str:
    """JSON safe inside ``<script type="application/json">`` (no ``</script>`` break-out)."""
    return (json.dumps(data, allow_nan=False).replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("&", "\\u0026"))


def page_links(games, current: str) -> str:
    """The nav: one link a game, then the statistics page; the current one marked."""
    items = [(f"/{g.name}", g.title, g.name) for g in games] + [("/stats", "Statistics", "stats")]
    links = []
    for href, title, name in items:
        mark = ' aria-current="page"' if name == current else ""
        links.append(f'<a href="{href}"{mark}>{html.escape(title)}</a>')
    return '<nav aria-label="Games">' + " ".join(links) + "</nav>"


_HEAD = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} - jitgames</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/common.css">{styles}
</head>"""

_KEYS = (("h", "Hint"), ("b", "Best move"), ("u or Backspace", "Undo"), ("n", "New game"),
         ("?", "show or hide the rules"))


def render_page(plugin: GamePlugin, page: Page, games) -> str:
    """The full HTML of a game page: the shared chrome around ``page``."""
    keys = "".join(f"<li><kbd>{html.escape(k)}</kbd> {html.escape(v)}</li>"
                   for k, v in (*_KEYS, *page.keys))
    name = plugin.name
    return (_HEAD.format(title=html.escape(page.title),
                         styles=f'\n<link rel="stylesheet" href="/static/{name}.css">')
            + f'\n<body data-game="{name}">\n<header>{page_links(games, name)}</header>\n'
            f'<main>\n<h1>{html.escape(page.title)}</h1>\n'
            '<div id="controls" role="toolbar" aria-label="Game controls">'
            '<button type="button" id="hint">Hint</button>'
            '<button type="button" id="best">Best move</button>'
            '<button type="button" id="undo">Undo</button>'
            '<button type="button" id="new">New game</button>'
            f'{page.controls}</div>\n'
            '<p id="status" role="status" aria-live="polite">Loading...</p>\n'
            '<p id="message" role="alert"></p>\n'
            f'<div id="board">{page.board}</div>\n'
            '<p id="coach" aria-live="polite"></p>\n'
            '<div id="panels">'
            f'<details id="rules" open><summary>Rules</summary>{page.rules}</details>'
            f'<details id="keys"><summary>Keyboard</summary><ul>{keys}</ul></details>'
            '</div>\n</main>\n'
            f'<script type="application/json" id="page-data">{json_for_script(page.data)}'
            '</script>\n<script src="/static/common.js"></script>\n'
            f'<script src="/static/{name}.js"></script>\n</body></html>\n')


def render_plain_page(title: str, body: str, games, current: str = "") -> str:
    """A page without game controls (the index, /stats, error pages); ``body`` is trusted HTML."""
    return (_HEAD.format(title=html.escape(title), styles="")
            + f"\n<body>\n<header>{page_links(games, current)}</header>\n<main>\n"
            f"<h1>{html.escape(title)}</h1>\n{body}\n</main>\n</body></html>\n")
