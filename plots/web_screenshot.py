"""Screenshots of the web pages for docs/img/ (Debian's Chromium through Playwright).

    python plots/web_screenshot.py [--out docs/img]

Serves the app on a free port of 127.0.0.1 with records in a scratch directory,
opens each page in headless Chromium (/usr/bin/chromium), makes a few moves where
that shows more, and saves ``web_<page>.png``.
"""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright.sync_api import expect, sync_playwright  # noqa: E402

from tests.web_browser import CHROMIUM, CHROMIUM_ARGS, serving  # noqa: E402

SHOTS = {
    # page: (url, actions before the shot)
    "solitaire": ("solitaire?seed=2026&index=64", ("best",) * 8 + ("hint",)),
    "mastermind": ("mastermind?pegs=4&colours=6&seed=17&role=breaker", ("best", "best", "hint")),
    "kalah": ("kalah?pits=6&stones=4&opponent=alpha-beta-6&seed=2026&animate=0",
              ("best", "best", "values")),
}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/img")
    parser.add_argument("--pages", nargs="*", default=list(SHOTS))
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as db, serving(db) as server, \
            sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                             args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1000, "height": 900})
        for name in args.pages:
            url, actions = SHOTS[name]
            page.goto(server.url + url)
            expect(page.locator("#status")).not_to_have_text("Loading...")
            for action in actions:
                with page.expect_response(f"**/api/{name}/{action}"):
                    page.locator(f"#{action}").click()
                expect(page.locator("body")).not_to_have_class(re.compile("busy"))
            page.screenshot(path=str(out / f"web_{name}.png"), full_page=True)
            print(out / f"web_{name}.png")
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
