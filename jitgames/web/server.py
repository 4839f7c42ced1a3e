"""The HTTP side of ``jitgames serve``: routing, limits and errors, on the standard library.

:func:`make_server` returns a ``ThreadingHTTPServer`` (one thread a connection) that
serves the pages and JSON API of the registered games (:mod:`.games`), the static
files and ``/stats``. It is a local, single-user application: the solver calls are
CPU-bound and run in Numba kernels that release the GIL, so threads give the
parallelism there is, and nothing here needs an event loop (docs/web.md).

Robustness, for every request:

- a connection that sends nothing for ``TIMEOUT`` seconds is closed (a stalled or
  vanished client holds one thread for that long at most); a client that goes away
  mid-request or mid-answer is forgotten without a trace;
- a body over ``MAX_BODY`` bytes is answered 413 without being read, a POST without
  ``Content-Length`` 411, a body that is not a JSON object 400;
- an unknown path is 404, a known path with the wrong method 405 (with ``Allow``),
  ``..``, backslashes or NUL bytes in a path 400;
- with a loopback address (the default) only ``Host: 127.0.0.1``, ``localhost`` or
  ``[::1]`` is served (403 otherwise: a web page elsewhere cannot reach the games by
  DNS rebinding) and a POST whose ``Origin`` is another site is refused (403);
- every error is a 4xx with a one-line message (JSON ``{"ok": false, "error": ...}``
  under ``/api/``, plain text elsewhere); anything unforeseen is logged with its
  traceback on stderr and answered 500 "internal error", counted in
  ``server.app.internal_errors`` (the tests require it to stay 0).
"""
from __future__ import annotations

import html
import ipaddress
import json
import re
import socket
import sys
import threading
import traceback
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from .._store import load_json
from ..errors import InputError
from .plugin import BadRequest, Context, render_page, render_plain_page
from .sessions import DEFAULT_LIMIT, SessionTable

__all__ = ["App", "make_server", "MAX_BODY", "TIMEOUT", "STATIC_DIR", "is_loopback"]

MAX_BODY = 64 * 1024
"""Largest request body (bytes); larger ones are answered 413 unread."""
TIMEOUT = 10.0
"""Seconds a connection may stay silent (mid-request or between requests)."""
LOCK_WAIT = 60.0
"""Seconds a request waits for its game's lock before answering 503."""
STATIC_DIR = Path(__file__).parent / "static"
_STATIC_NAME = re.compile(r"^[A-Za-z0-9_-]+\.(css|js|svg|png)$")
_TYPES = {"css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8",
          "svg": "image/svg+xml", "png": "image/png"}
_SEGMENT = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")
_CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
        "script-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; "
        "frame-ancestors 'none'")
_LOCAL_NAMES = {"localhost", "127.0.0.1", "::1"}


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class HTTPError(Exception):
    """An answer other than 200: status, one-line message, extra headers."""

    def __init__(self, status: int, message: str, headers: dict | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


class App:
    """The routes: games by name, the session table, the static files, the counters."""

    def __init__(self, ctx: Context, plugins, session_limit: int = DEFAULT_LIMIT,
                 verbose: bool = False):
        self.ctx = ctx
        self.plugins = {p.name: p for p in plugins}
        ctx.games = list(plugins)
        self.sessions = SessionTable(session_limit)
        self.verbose = verbose
        self.internal_errors = 0
        self._static: dict[str, bytes] = {}
        self._busy = 0
        self._idle = threading.Condition()

    # -------------------------------------------------------------------- in-flight work

    def begin(self):
        with self._idle:
            self._busy += 1

    def end(self):
        with self._idle:
            self._busy -= 1
            self._idle.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s for the API requests in progress (a finished game
        being stored) to end; True if none is left."""
        with self._idle:
            return self._idle.wait_for(lambda: self._busy == 0, timeout)

    # -------------------------------------------------------------------- GET

    def get(self, path: str, query: dict) -> tuple[int, str, bytes]:
        """``(status, content type, body)`` of a GET; raises HTTPError."""
        if path == "/":
            return 200, "text/html; charset=utf-8", self._index().encode()
        if path == "/stats":
            from .stats import render_stats
            return 200, "text/html; charset=utf-8", render_stats(self).encode()
        if path.startswith("/static/"):
            return self._static_file(path[len("/static/"):])
        name = path[1:]
        if name in self.plugins:
            plugin = self.plugins[name]
            try:
                page = plugin.page(query, self.ctx)
            except InputError as exc:
                raise HTTPError(400, str(exc)) from None
            return 200, "text/html; charset=utf-8", render_page(
                plugin, page, self.ctx.games).encode()
        if path.startswith("/api/"):
            raise HTTPError(405, "the API takes POST requests", {"Allow": "POST"})
        raise HTTPError(404, f"no page {path[:80]!r}; the games are at /")

    def _index(self) -> str:
        items = "".join(f'<li><a href="/{p.name}">{html.escape(p.title)}</a></li>'
                        for p in self.ctx.games)
        return render_plain_page("jitgames", f'<p id="status">Choose a game.</p><ul>{items}'
                                 '<li><a href="/stats">Statistics</a></li></ul>',
                                 self.ctx.games)

    def _static_file(self, name: str) -> tuple[int, str, bytes]:
        match = _STATIC_NAME.match(name)
        if not match:
            raise HTTPError(404, f"no static file {name[:80]!r}")
        data = self._static.get(name)
        if data is None:
            try:
                data = (STATIC_DIR / name).read_bytes()
            except OSError:
                raise HTTPError(404, f"no static file {name!r}") from None
            self._static[name] = data
        return 200, _TYPES[match.group(1)], data

    # -------------------------------------------------------------------- POST

    def post(self, path: str, body: dict) -> dict:
        """The JSON answer of ``POST /api/<game>/<action>``; raises HTTPError."""
        parts = path.split("/")
        if len(parts) != 4 or parts[1] != "api":
            if path == "/" or path == "/stats" or path[1:] in self.plugins \
                    or path.startswith("/static/"):
                raise HTTPError(405, "this page takes GET requests", {"Allow": "GET, HEAD"})
            raise HTTPError(404, f"no API {path[:80]!r}; POST /api/<game>/<action>")
        _, _, name, action = parts
        plugin = self.plugins.get(name)
        if plugin is None:
            raise HTTPError(404, f"no game {name[:40]!r}")
        if action == "new":
            try:
                game = plugin.new(body, self.ctx)
            except InputError as exc:
                raise HTTPError(400, str(exc)) from None
            gid = self.sessions.add(name, game)
            return {"ok": True, "id": gid, "state": plugin.state(game, self.ctx)}
        handler = plugin.actions.get(action)
        if handler is None:
            raise HTTPError(404, f"no action {action[:40]!r} for {name}; the actions are new, "
                                 f"{', '.join(plugin.actions)}")
        gid = body.get("id")
        if not isinstance(gid, str) or len(gid) > 64:
            raise HTTPError(400, "missing field 'id' (the game's id, from /new)")
        session = self.sessions.get(gid, name)
        if session is None:
            raise HTTPError(404, "unknown or expired game; start a new game")
        if not session.lock.acquire(timeout=LOCK_WAIT):
            raise HTTPError(503, "this game is busy with an earlier request; try again")
        try:
            try:
                answer = dict(handler(session.obj, body, self.ctx))
            except BadRequest as exc:
                raise HTTPError(400, str(exc)) from None
            except InputError as exc:  # the game refuses: not an HTTP error
                return {"ok": False, "id": gid, "error": " ".join(str(exc).split()),
                        "state": plugin.state(session.obj, self.ctx)}
        finally:
            session.lock.release()
        answer.update(ok=True, id=gid)
        return answer


class Handler(BaseHTTPRequestHandler):
    """One connection: requests read with a timeout, answered by the server's App."""

    protocol_version = "HTTP/1.1"
    default_request_version = "HTTP/1.0"  # a garbled request line still gets a status line
    # Headers and body leave in one write (flushed after each request), and without
    # Nagle's delay: two small writes would wait out the client's delayed ACK (40 ms).
    wbufsize = 1 << 16

    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    timeout = TIMEOUT
    server_version = "jitgames"
    sys_version = ""

    # -------------------------------------------------------------------- plumbing

    def log_message(self, format, *args):  # noqa: A002 - http.server's signature
        if self.server.app.verbose:
            sys.stderr.write("%s - %s\n" % (self.address_string(), format % args))

    def version_string(self):
        return self.server_version

    def send_error(self, code, message=None, explain=None):
        """http.server's own errors (bad request line, headers too long) in our format;
        an unknown method (its 501) is a 405 here, as for the known ones."""
        headers = None
        if code == HTTPStatus.NOT_IMPLEMENTED:
            code, headers = 405, {"Allow": "GET, HEAD, POST"}
        try:
            text = message or HTTPStatus(code).phrase
        except ValueError:
            text = message or "error"
        self.close_connection = True
        self._answer(code, "text/plain; charset=utf-8", (text + "\n").encode(), headers,
                     head=self.command == "HEAD")

    def _answer(self, status, ctype, data: bytes, headers=None, head=False):
        try:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Content-Security-Policy", _CSP)
            self.send_header("Referrer-Policy", "no-referrer")
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            if self.close_connection:
                self.send_header("Connection", "close")
            self.end_headers()
            if not head:
                self.wfile.write(data)
        except (ConnectionError, socket.timeout, OSError):
            self.close_connection = True  # the client went away: nothing to tell it

    def _error(self, err: HTTPError, api: bool, head=False):
        message = " ".join(err.message.split())
        if api:
            data = json.dumps({"ok": False, "error": message}).encode()
            ctype = "application/json"
        else:
            data = (message + "\n").encode()
            ctype = "text/plain; charset=utf-8"
        self._answer(err.status, ctype, data, err.headers, head)

    def _target(self) -> tuple[str, dict]:
        """The path and query of the request, checked; raises HTTPError."""
        raw = self.path
        if not raw.startswith("/"):
            raise HTTPError(400, "the request target must be a path starting with /")
        split = urlsplit(raw)
        try:
            path = unquote(split.path, errors="strict")
        except UnicodeDecodeError:
            raise HTTPError(400, "the path is not UTF-8 once decoded") from None
        if "\\" in path or "\0" in path or "//" in path:
            raise HTTPError(400, "backslashes, NUL bytes and empty segments are not allowed "
                                 "in paths")
        if ".." in path.split("/") or ".." in split.path:
            raise HTTPError(400, "'..' is not allowed in paths")
        if len(path) > 1 and path.endswith("/"):
            path = path[:-1]
        try:
            fields = parse_qs(split.query, keep_blank_values=True, strict_parsing=False,
                              max_num_fields=32, errors="strict")
        except ValueError:
            raise HTTPError(400, "too many or undecodable query fields") from None
        return path, {key: values[-1] for key, values in fields.items()}

    def _check_host(self):
        """Only local Host names on a loopback server; no cross-site POSTs."""
        host = self.headers.get("Host", "")
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        name = name.strip("[]").lower()
        if self.server.loopback and name not in _LOCAL_NAMES and not is_loopback(name):
            raise HTTPError(403, f"host {host[:60]!r} is not served (use 127.0.0.1)")
        origin = self.headers.get("Origin")
        if self.command == "POST" and origin is not None and origin != "null":
            if urlsplit(origin).netloc.lower() != host.lower():
                raise HTTPError(403, "requests from another site are refused")

    def _read_json(self) -> dict:
        if self.headers.get("Transfer-Encoding"):
            self.close_connection = True
            raise HTTPError(411, "send the body with Content-Length, not chunked")
        length = self.headers.get("Content-Length")
        if length is None:
            self.close_connection = True
            raise HTTPError(411, "a POST needs Content-Length")
        if not (length.strip().isdecimal() and len(length.strip()) <= 20):  # int() refuses "²"
            self.close_connection = True
            raise HTTPError(400, "Content-Length is not a number")
        size = int(length)
        if size > MAX_BODY:
            self.close_connection = True  # the body stays unread
            raise HTTPError(413, f"the body has {size} bytes; the limit is {MAX_BODY}")
        data = self.rfile.read(size)
        if len(data) < size:
            raise ConnectionAbortedError("the client sent less than its Content-Length")
        if not data.strip():
            return {}
        try:
            body = load_json(data, "the body")  # nesting too deep is a ValueError too
        except ValueError as exc:
            raise HTTPError(400, f"the body is not JSON ({str(exc)[:80]})") from None
        if not isinstance(body, dict):
            raise HTTPError(400, "the body must be a JSON object")
        return body

    # -------------------------------------------------------------------- methods

    def _dispatch(self, method: str):
        app = self.server.app
        api = self.path.startswith("/api/")
        head = method == "HEAD"
        try:
            self._check_host()
            path, query = self._target()
            api = path.startswith("/api/")
            if method in ("GET", "HEAD"):
                status, ctype, data = app.get(path, query)
                self._answer(status, ctype, data, head=head)
            elif method == "POST":
                body = self._read_json()
                app.begin()
                try:
                    answer = app.post(path, body)
                finally:
                    app.end()
                self._answer(200, "application/json",
                             json.dumps(answer, allow_nan=False).encode())
            else:
                allow = "POST" if api else "GET, HEAD"
                raise HTTPError(405, f"{method} is not served here", {"Allow": allow})
        except HTTPError as err:
            self._error(err, api, head)
        except (ConnectionError, socket.timeout, TimeoutError):
            self.close_connection = True  # stalled or gone: drop the connection quietly
        except Exception:  # a bug: logged, answered without details
            app.internal_errors += 1
            sys.stderr.write(f"jitgames serve: internal error on {method} {self.path[:200]}\n")
            traceback.print_exc(file=sys.stderr)
            self.close_connection = True
            self._error(HTTPError(500, "internal error (logged by the server)"), api, head)

    def do_GET(self):
        self._dispatch("GET")

    def do_HEAD(self):
        self._dispatch("HEAD")

    def do_POST(self):
        self._dispatch("POST")

    def do_PUT(self):
        self._dispatch("PUT")

    def do_DELETE(self):
        self._dispatch("DELETE")

    def do_PATCH(self):
        self._dispatch("PATCH")

    def do_OPTIONS(self):
        self._dispatch("OPTIONS")


class Server(ThreadingHTTPServer):
    """A threading HTTP server carrying the App; threads are daemons (a stalled
    connection never blocks the exit; finished games are stored before their answer)."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64

    def __init__(self, address, app: App):
        host = address[0]
        if ":" in host:
            self.address_family = socket.AF_INET6
        self.app = app
        self.loopback = is_loopback(host)
        super().__init__(address, Handler)

    def handle_error(self, request, client_address):
        """A connection-level failure (reset, timeout) is not worth a traceback."""
        kind = sys.exc_info()[0]
        if kind is not None and issubclass(kind, (ConnectionError, TimeoutError, OSError)):
            return
        self.app.internal_errors += 1
        super().handle_error(request, client_address)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}/"


def make_server(host: str = "127.0.0.1", port: int = 0, ctx: Context | None = None,
                plugins=None, session_limit: int = DEFAULT_LIMIT,
                verbose: bool = False) -> Server:
    """A bound, not yet serving, server (``port`` 0: any free port; see ``.url``).

    ``plugins`` defaults to every registered game (:func:`.games.load_plugins`).
    Raises OSError when the address cannot be bound.
    """
    if plugins is None:
        from .games import load_plugins
        plugins = load_plugins()
    app = App(ctx if ctx is not None else Context(), plugins, session_limit, verbose)
    return Server((host, port), app)
