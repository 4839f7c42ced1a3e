"""``jitgames serve``: the games in a local web page, with the exact solvers as coach.

The server (:mod:`.server`) is the standard library's ``ThreadingHTTPServer`` bound to
127.0.0.1; every page is plain HTML, JavaScript, SVG and CSS shipped in
``jitgames/web/static/`` (no CDN, no build step). Why the standard library and not an
ASGI framework: see docs/web.md.

The contract a game page follows (docs/web.md, "Adding a game page")
--------------------------------------------------------------------
One module ``jitgames/web/games/<name>.py`` defines ``PLUGIN = GamePlugin(...)``
(:class:`.plugin.GamePlugin`) and its name is listed in ``GAME_MODULES`` of
:mod:`.games`. The framework then serves:

``GET /<name>?...``
    ``PLUGIN.page(query, ctx)`` returns a :class:`.plugin.Page` (title, board HTML,
    rules HTML, extra controls HTML, JSON data for the script); the framework wraps it
    in the shared chrome (:func:`.plugin.render_page`): a nav to every game and to
    ``/stats``, the buttons **Hint**, **Best move**, **Undo**, **New game** (ids
    ``hint``, ``best``, ``undo``, ``new``), ``#status`` (``role=status``), ``#coach``,
    ``#message`` (``role=alert``), a rules panel ``#rules`` and a keyboard panel,
    ``/static/common.css``, ``/static/common.js`` and the game's own
    ``/static/<name>.css`` and ``/static/<name>.js``. Bad query values raise
    :class:`~jitgames.errors.InputError`: a 400 page carrying the message.
``POST /api/<name>/new`` with a JSON object
    ``PLUGIN.new(body, ctx)`` builds the game object (InputError -> 400 with the
    message); the framework stores it in the session table under a random id and
    answers ``{"ok": true, "id": ID, "state": PLUGIN.state(game, ctx)}``.
``POST /api/<name>/<action>`` with ``{"id": ID, ...}``
    ``PLUGIN.actions[action](game, body, ctx)`` runs under the game's lock and
    returns a dict (conventionally ``{"state": ..., "message": ...}``); the answer is
    that dict plus ``"ok": true`` and ``"id"``. A move the game refuses raises
    InputError (``IllegalMove`` is one): the answer is **200** ``{"ok": false,
    "error": MESSAGE, "state": ...}`` (a game's refusal is not an HTTP error, and the
    browser logs none). A malformed request raises :class:`.plugin.BadRequest`
    (400); an unknown or evicted id is 404; an unknown action 404.
``GET /static/<file>``
    files of ``jitgames/web/static/`` (package data), nothing else.

Every game's script uses ``JG`` of ``common.js``: ``JG.start({newGame, render,
buttons})`` wires the four buttons and the keys (``h`` Hint, ``b`` Best move, ``u``
or ``Backspace`` Undo, ``n`` New game, ``?`` rules), ``JG.api(action, body)`` posts
with the game id and shows a refusal in ``#message``, ``JG.status(text)`` and
``JG.coach(text)`` fill the lines. ``#status`` says whose turn it is and how the game
ended (solitaire "score X of optimal Y").

Records: a finished game is stored by the plugin in the same SQLite file as the
terminal game, at ``ctx.db_path(FILE)`` (``--db DIR`` or the jitgames data
directory), when it ends, so Ctrl-C on the server loses no finished game.
``PLUGIN.check_records(ctx)`` is run before serving (a bad file is refused at
start) and ``PLUGIN.stats(ctx)`` returns the sections of ``/stats``.
"""
from __future__ import annotations

__all__ = ["GamePlugin", "Page", "Context", "BadRequest", "StatsSection", "make_server"]

from .plugin import BadRequest, Context, GamePlugin, Page, StatsSection  # noqa: E402
from .server import make_server  # noqa: E402
