"""Benchmark of ``jitgames serve``: a move's answer over HTTP (coach included), and a page load.

    python bench/web.py [--deals 1000] [--seed 2026] [--loads 10] [--no-browser]

The server runs in this process (a thread, 127.0.0.1, records in a scratch
directory). For each of deals 0..N-1 of the seed, a game is started
(``POST /api/solitaire/new``: the deal's optimum is solved then) and played to its end
through the API, at each position either by a random legal move (``/move``, a
generator seeded with the deal's index) or by the solver's ``/best`` (half of the
positions each), so the positions range from the deal to the end, good and bad
lines alike. A request is timed from sending to the parsed JSON answer, which holds
the new state *with the coach's figure* (the optimal score still reachable, exact).

Peer, in the same run and alternating deal by deal: the same moves made directly on
:class:`jitgames.solitaire.play.Game` (``play`` then ``reachable``; ``hint`` then
``play`` then ``reachable`` for a best move), i.e. the work without HTTP, JSON and
the session table.

Page load: Chromium (``/usr/bin/chromium`` through Playwright) opens
``/solitaire?seed=S&index=I`` and the clock stops when ``#status`` shows the game
(HTML, scripts, the ``new`` request and the SVG drawing); median over ``--loads``
deals. Targets (issue 30): 100 ms median and 1 s at the 99th percentile per move,
a page in under a second. Saves JSON with the machine to bench/results/web.json.
"""
from __future__ import annotations

import argparse
import http.client
import json
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _harness import machine, save_result  # noqa: E402
from jitgames.solitaire import deals  # noqa: E402
from jitgames.solitaire.play import Game  # noqa: E402
from jitgames.solitaire.search import PositionSolver  # noqa: E402
from jitgames.solitaire.table import DEFAULT_CAPACITY  # noqa: E402
from jitgames.web import Context, make_server  # noqa: E402


def summary(seconds: list[float]) -> dict:
    array = np.asarray(seconds)
    return {"count": len(seconds), "median_ms": 1e3 * statistics.median(seconds),
            "p99_ms": 1e3 * float(np.percentile(array, 99)), "max_ms": 1e3 * float(array.max()),
            "mean_ms": 1e3 * float(array.mean()),
            "over_one_second": int((array > 1.0).sum())}


class Client:
    """One keep-alive connection to the server, as a browser tab has."""

    def __init__(self, address):
        self.con = http.client.HTTPConnection(*address, timeout=120)

    def post(self, action: str, body: dict) -> tuple[float, dict]:
        data = json.dumps(body).encode()
        began = time.perf_counter()
        self.con.request("POST", f"/api/solitaire/{action}", body=data,
                         headers={"Content-Type": "application/json"})
        response = self.con.getresponse()
        answer = json.loads(response.read())
        elapsed = time.perf_counter() - began
        if response.status != 200 or not answer.get("ok"):
            raise RuntimeError(f"{action}: {response.status} {answer}")
        return elapsed, answer


def play_http(client: Client, seed: int, index: int, times: dict) -> list:
    """Play deal ``index`` through the API; the moves made as ("move"|"best", move)."""
    rng = random.Random(index)
    elapsed, answer = client.post("new", {"seed": seed, "index": index})
    times["new"].append(elapsed)
    gid, state, line = answer["id"], answer["state"], []
    while not state["over"]:
        if rng.random() < 0.5:
            card, pile = rng.choice(state["legal"])
            elapsed, answer = client.post("move", {"id": gid, "card": card, "pile": pile})
            times["move"].append(elapsed)
            line.append(("move", card * 8 + pile))
        else:
            elapsed, answer = client.post("best", {"id": gid})
            times["best"].append(elapsed)
            line.append(("best", None))
        state = answer["state"]
    return line


def play_direct(deck, line, times: dict) -> None:
    """The same game on the model, without HTTP (the peer)."""
    began = time.perf_counter()
    game = Game(deck, PositionSolver(DEFAULT_CAPACITY))
    game.reachable()
    times["new"].append(time.perf_counter() - began)
    for kind, move in line:
        began = time.perf_counter()
        if kind == "best":
            move = game.hint().move
        game.play(move)
        game.reachable()
        game.over  # noqa: B018 - the state's "over" is part of every answer
        times[kind].append(time.perf_counter() - began)


def page_loads(server, seed: int, count: int) -> list[float]:
    import re

    from playwright.sync_api import expect, sync_playwright

    from tests.web_browser import CHROMIUM, CHROMIUM_ARGS

    seconds = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                             args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.goto(server.url + "solitaire?seed=1&index=1")  # the browser's own start-up
        expect(page.locator("#status")).to_have_text(re.compile("^(Your|Game)"))
        for index in range(count):
            began = time.perf_counter()
            page.goto(f"{server.url}solitaire?seed={seed}&index={100000 + index}")
            expect(page.locator("#status")).to_have_text(re.compile("^(Your|Game)"),
                                                         timeout=30_000)
            seconds.append(time.perf_counter() - began)
        browser.close()
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--loads", type=int, default=10)
    parser.add_argument("--no-browser", dest="browser", action="store_false")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "web.json"))
    args = parser.parse_args()

    decks = deals(args.seed, 0, args.deals)
    with tempfile.TemporaryDirectory() as db:
        server = make_server("127.0.0.1", 0, Context(db_dir=Path(db), player="bench"))
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        client = Client(server.server_address[:2])
        play_http(client, args.seed, args.deals, {"new": [], "move": [], "best": []})  # warm
        web = {"new": [], "move": [], "best": []}
        direct = {"new": [], "move": [], "best": []}
        began = time.perf_counter()
        for index in range(args.deals):
            line = play_http(client, args.seed, index, web)
            play_direct(decks[index], line, direct)
            if (index + 1) % 100 == 0:
                print(f"{index + 1} deals, {time.perf_counter() - began:.0f} s", flush=True)
        loads = page_loads(server, args.seed, args.loads) if args.browser else []
        server.shutdown()
        server.server_close()

    result = {"machine": machine(), "seed": args.seed, "deals": args.deals,
              "http": {k: summary(v) for k, v in web.items()},
              "direct": {k: summary(v) for k, v in direct.items()}}
    both = web["move"] + web["best"]
    result["http"]["any_move"] = summary(both)
    result["direct"]["any_move"] = summary(direct["move"] + direct["best"])
    if loads:
        result["page_load"] = summary(loads)
    for where in ("http", "direct"):
        for kind, row in result[where].items():
            print(f"{where:6} {kind:8} n={row['count']:6d} median {row['median_ms']:7.2f} ms  "
                  f"p99 {row['p99_ms']:7.2f} ms  max {row['max_ms']:7.1f} ms  "
                  f">1 s {row['over_one_second']}")
    if loads:
        row = result["page_load"]
        print(f"page load n={row['count']} median {row['median_ms']:.0f} ms  "
              f"max {row['max_ms']:.0f} ms")
    save_result(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
