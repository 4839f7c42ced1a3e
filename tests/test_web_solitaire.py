"""The solitaire page in a real headless Chromium (tests/web_browser.py): played to its
end by Best move (the solver's optimum), click and drag moves, undo, a refused move,
the keys, the drawn board, the statistics page; no console error, no outside request."""
from __future__ import annotations

import contextlib
import http.client
import io
import json
import re
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from jitgames.solitaire.deal import deals
from jitgames.solitaire.play import Game

from .web_browser import browser, chromium, serving, web_server  # noqa: F401 - fixtures

SEED = 2026
"""Deals of this seed are used below; each test picks one by what it needs."""


STARTED = re.compile(r"^(Your move|Game over)")
"""``#status`` once a game is on the board (the page's script polls nothing: the
waits below are Playwright's, since the page's CSP forbids evaluating strings)."""


def deal(index):
    return deals(SEED, index, index + 1)[0]


def open_deal(browser, server, index):  # noqa: F811 - the fixture's name
    watched = browser.open(f"{server.url}solitaire?seed={SEED}&index={index}")
    page = watched.page
    expect(page.locator("#status")).to_have_text(STARTED)
    return watched, page


@contextlib.contextmanager
def answered(page, action):
    """Wait, after the block, for the answer to ``POST /api/solitaire/<action>`` and
    for the page to have drawn it (``body.busy`` is cleared after drawing)."""
    with page.expect_response(f"**/api/solitaire/{action}"):
        yield
    expect(page.locator("body")).not_to_have_class(re.compile("busy"))


def act(page, name, action):
    """Click the button ``name`` and wait for the answer to be drawn."""
    with answered(page, action):
        page.get_by_role("button", name=name, exact=True).click()


def click_pile(page, pile):
    """Click the top of pile ``pile`` (its exposed card, or its slot when empty)."""
    page.locator(f'g[data-pile="{pile}"]').last.click(position={"x": 36, "y": 12})


def pile_of(page, card):
    return int(page.locator(f'g.card.up[data-card="{card}"]').get_attribute("data-pile"))


def first_index(predicate, start=0):
    """The first deal index of SEED from ``start`` whose Game satisfies ``predicate``."""
    for index in range(start, start + 200):
        game = Game(deal(index))
        if predicate(game):
            return index, game
    raise AssertionError("no deal found")  # pragma: no cover - the search is wide


def plain_moves(game):
    """Legal moves of ``game`` onto a card (not a king into an empty pile)."""
    return [m for m in game.legal_moves() if m // 8 % 13 != 12]


def test_the_watch_catches_console_errors_and_outside_requests(browser, web_server):  # noqa: F811
    """The fixture's own checks work: a console error and a request to another host
    are recorded (and the request is blocked)."""
    watched, page = open_deal(browser, web_server, 1)
    page.evaluate("() => console.error('a planted error')")
    expect(page.locator("#status")).to_have_text(STARTED)  # the console event is delivered
    assert any("a planted error" in e for e in watched.errors)
    watched.errors.clear()
    with pytest.raises(PlaywrightError):
        page.goto("http://192.0.2.1/")  # TEST-NET-1: never routed
    assert browser.outside == ["http://192.0.2.1/"]
    browser.outside.clear()


def test_best_move_to_the_end_reaches_the_optimum(browser, web_server):  # noqa: F811
    index, game = first_index(lambda g: 20 <= g.optimum < 52)
    watched, page = open_deal(browser, web_server, index)
    for _ in range(70):  # a line has at most 56 moves
        if page.locator("#status").text_content().startswith("Game over"):
            break
        act(page, "Best move", "best")
    status = page.locator("#status").text_content()
    assert f"score {game.optimum} of optimal {game.optimum}" in status, status
    assert "Your record: 1 game" in status
    db = Path(web_server.app.ctx.db_dir) / "solitaire.sqlite"
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT seed, deal_index, score, optimum FROM solitaire_games"
                           ).fetchall()
    assert (str(SEED), str(index), game.optimum, game.optimum) in rows


def test_click_and_drag_moves_then_undo(browser, web_server):  # noqa: F811
    def two_plain_moves(game):
        moves = plain_moves(game)
        if not moves:
            return False
        game.play(moves[0])
        return bool(plain_moves(game))

    index, _ = first_index(two_plain_moves)
    game = Game(deal(index))
    watched, page = open_deal(browser, web_server, index)
    # a click on the card, then a click on its destination pile
    move = plain_moves(game)[0]
    card, dest = move // 8, move % 8
    page.locator(f'g.card.up[data-card="{card}"]').click(position={"x": 20, "y": 10})
    with answered(page, "move"):
        click_pile(page, dest)
    assert pile_of(page, card) == dest
    game.play(move)
    assert page.locator("#coach").text_content().startswith(
        f"Best score still reachable: {game.reachable()}")
    # a drag of the next card onto the exposed card of its destination
    move = plain_moves(game)[0]
    card, dest = move // 8, move % 8
    box = page.locator(f'g.card.up[data-card="{card}"]').bounding_box()
    target = page.locator(f'g[data-pile="{dest}"]').last.bounding_box()
    page.mouse.move(box["x"] + 20, box["y"] + 10)
    page.mouse.down()
    page.mouse.move(box["x"] + 40, box["y"] + 40, steps=3)
    with answered(page, "move"):
        page.mouse.move(target["x"] + target["width"] / 2, target["y"] + 30, steps=5)
        page.mouse.up()
    assert pile_of(page, card) == dest
    assert page.locator("#status").text_content().startswith("Your move")
    # two undos bring the deal back; a third is refused with a message
    act(page, "Undo", "undo")
    act(page, "Undo", "undo")
    original = Game(deal(index))
    for p, (down, cards) in enumerate(original.piles()):
        for card in cards[down:]:
            assert pile_of(page, card) == p
    act(page, "Undo", "undo")
    assert "nothing to undo" in page.locator("#message").text_content()
    # Restart (its key r) after a move brings the deal back too
    act(page, "Best move", "best")
    assert page.locator("text.label", has_text=re.compile("^1 move$")).count() == 1
    with answered(page, "restart"):
        page.keyboard.press("r")
    assert page.locator("text.label", has_text=re.compile("^0 moves$")).count() == 1
    assert page.locator("#message").text_content() == "Back to the deal."


def test_bad_move_is_refused_with_a_message(browser, web_server):  # noqa: F811
    index, game = first_index(lambda g: len(plain_moves(g)) > 0)
    move = plain_moves(game)[0]
    card, dest = move // 8, move % 8
    wrong = next(p for p, (_, cards) in enumerate(game.piles())
                 if p != dest and cards and card not in cards)
    watched, page = open_deal(browser, web_server, index)
    page.locator(f'g.card.up[data-card="{card}"]').click(position={"x": 20, "y": 10})
    with answered(page, "move"):
        click_pile(page, wrong)
    message = page.locator("#message").text_content()
    assert "can go only onto" in message and f"pile {dest + 1}" in message, message
    assert pile_of(page, card) != wrong
    # a typed move that names no card
    box = page.get_by_label("Move", exact=True)
    box.fill("zz")
    with answered(page, "move"):
        box.press("Enter")
    assert "neither a card" in page.locator("#message").text_content()


def test_keys_hint_and_best_move(browser, web_server):  # noqa: F811
    index, game = first_index(lambda g: len(g.legal_moves()) > 1 and g.optimum > 10)
    watched, page = open_deal(browser, web_server, index)
    with answered(page, "hint"):
        page.keyboard.press("h")
    hint = game.hint()
    assert page.locator("#message").text_content().startswith(f"Hint: {game.describe(hint.move)}")
    assert page.locator("g.card.hinted").count() == 1
    with answered(page, "best"):
        page.keyboard.press("b")
    assert page.locator("#message").text_content().startswith("Best move:")
    assert pile_of(page, hint.move // 8) == hint.move % 8 or game.score < 52


def test_keyboard_move_and_pasted_positions(browser, web_server):  # noqa: F811
    index, game = first_index(lambda g: len(plain_moves(g)) > 1)
    watched, page = open_deal(browser, web_server, index)
    # a card focused and chosen with Enter, then its pile's number
    move = plain_moves(game)[0]
    card, dest = move // 8, move % 8
    page.locator(f'g.card.up[data-card="{card}"]').focus()
    page.keyboard.press("Enter")
    assert page.locator("g.card.selected").count() >= 1
    with answered(page, "move"):
        page.keyboard.press(str(dest + 1))
    assert pile_of(page, card) == dest
    game.play(move)
    # the game's text pasted into another tab continues it there
    other = browser.open(f"{web_server.url}solitaire?seed=1&index=1").page
    expect(other.locator("#status")).to_have_text(STARTED)
    box = other.get_by_label("Deal or position")
    box.fill(game.text())
    with answered(other, "load"):
        other.get_by_role("button", name="Load").click()
    assert other.locator("#message").text_content() == "Position loaded."
    for p, (down, cards) in enumerate(game.piles()):
        for c in cards[down:]:
            assert pile_of(other, c) == p
    expect(other).to_have_url(re.compile(r"position="))
    # a deal that is not a permutation is refused with the reason; the game stays
    box.fill(" ".join(["0"] * 52))
    with answered(other, "load"):
        box.press("Enter")
    assert "card 0 appears 52 times" in other.locator("#message").text_content()
    assert pile_of(other, card) == dest


def test_board_is_drawn(browser, web_server):  # noqa: F811
    index, game = first_index(lambda g: g.score == 0)
    watched, page = open_deal(browser, web_server, index)
    piles = game.piles()
    down = sum(d for d, _ in piles)
    assert page.locator("g.card.down").count() == down == 21
    assert page.locator("g.card.up").count() == 52 - down
    assert page.locator("g.pile-slot").count() == 7
    for name in ("Hint", "Best move", "Undo", "New game", "Restart"):
        assert page.get_by_role("button", name=name, exact=True).count() == 1
    assert page.locator("#rules").count() == 1 and page.locator("nav a").count() >= 2
    # the picture: felt, white card faces, blue backs and red suits are all there
    from matplotlib.image import imread

    png = imread(io.BytesIO(page.locator("#board").screenshot()), format="png")[..., :3]
    r, g, b = png[..., 0], png[..., 1], png[..., 2]
    felt = np.mean((g > r + 0.1) & (g > b + 0.1))
    white = np.mean((r > 0.95) & (g > 0.95) & (b > 0.9))
    backs = np.mean((b > r + 0.2) & (b > g + 0.1))
    red = np.mean((r > 0.6) & (g < 0.3) & (b < 0.3))
    assert felt > 0.2 and white > 0.1 and backs > 0.02 and red > 0.0005, (felt, white, backs, red)


def test_new_game_and_stats_page(browser, tmp_path):  # noqa: F811
    with serving(tmp_path) as server:
        check_new_game_and_stats(browser, server)


def check_new_game_and_stats(browser, web_server):  # noqa: F811
    # one finished game in the records, played through the API
    con = http.client.HTTPConnection(*web_server.server_address[:2], timeout=300)

    def post(action, body):
        con.request("POST", f"/api/solitaire/{action}", json.dumps(body),
                    {"Content-Type": "application/json"})
        return json.loads(con.getresponse().read())

    answer = post("new", {"seed": SEED, "index": 64})
    while not answer["state"]["over"]:
        answer = post("best", {"id": answer["id"]})
    con.close()
    watched = browser.open(f"{web_server.url}solitaire")
    page = watched.page
    expect(page).to_have_url(re.compile(r"seed=\d+&index=\d+$"))
    first = page.url
    act(page, "New game", "new")
    expect(page).not_to_have_url(first)
    expect(page.locator("#status")).to_have_text(STARTED)
    stats = browser.open(f"{web_server.url}stats").page
    section = stats.locator("#stats-solitaire")
    assert section.locator("h2").text_content() == "Solitaire"
    assert "1 game recorded" in section.text_content()
    assert section.locator(".plot svg").count() == 1
    assert section.locator("td", has_text="tester").count() == 1
    assert stats.locator("nav a", has_text="Solitaire").count() == 1
