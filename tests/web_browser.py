"""Fixtures of the web tests: a served app on a free port, and a headless Chromium.

``web_server`` runs :func:`jitgames.web.make_server` on 127.0.0.1 port 0 in a thread,
its records in a scratch directory, and checks at the end that no request hit an
internal error. ``browser`` drives Debian's Chromium (``/usr/bin/chromium``, never a
downloaded one) through Playwright with a fresh profile; every page it opens records
console errors, uncaught exceptions and any request to a host other than 127.0.0.1
(such a request is also blocked), and the test fails on any of them. When
``/usr/bin/chromium`` is missing the browser tests fail (not skip) saying so: CI
installs it with ``apt-get install -y chromium``.

Use them in a test module with ``from .web_browser import browser, chromium, web_server``.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from jitgames.web import Context, make_server

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
WAIT_MS = 300_000
"""Longest wait for anything in the page (ms): a cold Numba cache compiles the solver
on the first request (a minute or more on a busy machine)."""


@contextlib.contextmanager
def serving(db_dir, **kwargs):
    """A server on a free port of 127.0.0.1 in a thread; stopped at the end."""
    server = make_server("127.0.0.1", 0, Context(db_dir=Path(db_dir), player="tester"),
                         **kwargs)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1},
                              daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)
    assert server.app.internal_errors == 0, "the server answered 500 (see its stderr)"


@pytest.fixture(scope="module")
def web_server(tmp_path_factory):
    with serving(tmp_path_factory.mktemp("webdb")) as server:
        yield server


class Watched:
    """A browser page whose console errors and outside requests are recorded."""

    def __init__(self, page):
        self.page = page
        self.errors: list[str] = []
        self.outside: list[str] = []
        page.on("console", lambda msg: msg.type == "error" and self.errors.append(msg.text))
        page.on("pageerror", lambda exc: self.errors.append(f"uncaught: {exc}"))

    def check(self):
        assert not self.errors, f"console errors: {self.errors}"
        assert not self.outside, f"requests that left the machine: {self.outside}"


class Browser:
    """One Chromium (persistent context on a fresh profile); ``open(url)`` gives a
    :class:`Watched` page, checked and closed by the fixture."""

    def __init__(self, context):
        self.context = context
        self.pages: list[Watched] = []
        self.outside: list[str] = []
        context.route("**/*", self._route)

    def _route(self, route):
        url = route.request.url
        parts = urlsplit(url)
        if parts.scheme in ("data", "blob", "about") or parts.hostname == "127.0.0.1":
            route.continue_()
        else:
            self.outside.append(url)
            route.abort()

    def open(self, url: str) -> Watched:
        page = self.context.new_page()
        page.set_default_timeout(WAIT_MS)
        watched = Watched(page)
        self.pages.append(watched)
        page.goto(url)
        return watched

    def check(self):
        for watched in self.pages:
            watched.check()
        assert not self.outside, f"requests that left the machine: {self.outside}"
        for watched in self.pages:
            watched.page.close()
        self.pages.clear()


@pytest.fixture(scope="module")
def chromium():
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"the browser tests need Debian's Chromium at {CHROMIUM} "
                    "(apt-get install -y chromium); it is missing", pytrace=False)
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=WAIT_MS)
    profile = tempfile.mkdtemp(prefix="jitgames-chromium-")
    try:
        with sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
                viewport={"width": 1100, "height": 900}, offline=False)
            try:
                yield Browser(context)
            finally:
                context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def browser(chromium):
    """The module's Chromium; the pages a test opened are checked after it (no console
    error, no outside request) and closed."""
    yield chromium
    chromium.check()
