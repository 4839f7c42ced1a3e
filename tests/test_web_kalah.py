"""The Kalah page in a real headless Chromium (tests/web_browser.py): a full game by
Best move on both sides (the solved margin), click and typed moves, the computer's
replies, undo, refused moves, values, the drawn board and a screenshot, records and the
statistics page; no console error, no outside request."""
from __future__ import annotations

import contextlib
import json
import re
import sqlite3
import urllib.error
import urllib.request

import numpy as np
from PIL import Image
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from playwright.sync_api import expect

from jitgames.kalah.game import Coach, Game
from jitgames.kalah.solver import solve

from .web_browser import browser, chromium, web_server  # noqa: F401 - fixtures

PLAYING = re.compile(r"^(South to move|North to move|South \d+, North \d+)$")


def open_kalah(browser, server, query):  # noqa: F811 - the fixture's name
    watched = browser.open(f"{server.url}kalah?{query}")
    page = watched.page
    expect(page.locator("#status")).to_have_text(PLAYING)
    expect(page.locator("body")).not_to_have_class(re.compile("busy"))
    return watched, page


@contextlib.contextmanager
def answered(page, action):
    """Wait, after the block, for the answer to ``POST /api/kalah/<action>`` and for the
    page to have drawn it."""
    with page.expect_response(f"**/api/kalah/{action}") as response:
        yield response
    expect(page.locator("body")).not_to_have_class(re.compile("busy"))


def act(page, name, action):
    with answered(page, action) as response:
        page.get_by_role("button", name=name, exact=True).click()
    return response.value.json()


def pits(page):
    """The stones of every pit and store as drawn (board index order)."""
    m = len(page.locator("g.pit").all()) // 2
    board = [0] * (2 * m + 2)
    for g in page.locator("g.pit").all():
        board[int(g.get_attribute("data-pit"))] = int(g.get_attribute("data-stones"))
    for g in page.locator("g.store").all():
        board[int(g.get_attribute("data-index"))] = int(g.get_attribute("data-stones"))
    return board


def test_best_move_on_both_sides_ends_with_the_solved_margin(browser, web_server):  # noqa: F811
    value = solve(3, 3, table_bits=16).value
    watched, page = open_kalah(browser, web_server,
                               "pits=3&stones=3&opponent=none&animate=0&seed=1")
    for _ in range(60):
        if re.match(r"South \d+, North \d+", page.locator("#status").text_content()):
            break
        answer = act(page, "Best move", "best")
        assert answer["ok"] and answer["message"].startswith("Best move (perfect play)")
    status = page.locator("#status").text_content()
    south, north = (int(x) for x in re.findall(r"\d+", status))
    assert south - north == value and south + north == 18
    # the stones left in the pits are drawn swept into their owners' stores
    assert pits(page) == [0, 0, 0, south, 0, 0, 0, north]
    expect(page.locator("#banner")).to_have_text("Game over")
    watched.check()


def test_clicks_typed_moves_replies_undo_and_refusals(browser, web_server):  # noqa: F811
    watched, page = open_kalah(browser, web_server,
                               "pits=4&stones=3&opponent=alpha-beta-2&animate=0&seed=5")
    assert pits(page) == [3, 3, 3, 3, 0, 3, 3, 3, 3, 0]
    # a pit of North's while South is to move, a store, then a legal click
    for index, reason in ((6, "that pit is North's"), (4, "South's store")):
        with answered(page, "move"):
            page.locator(f'[data-pit="{index}"], [data-index="{index}"]').first.click()
        expect(page.locator("#message")).to_contain_text(reason)
        expect(page.locator("#message")).to_have_class("refused")
    with answered(page, "move") as response:
        page.locator('g.pit[data-pit="1"]').click()   # 3 stones: 2, 3, store: extra turn
    answer = response.value.json()
    assert answer["ok"] and "South moves again" in answer["message"]
    assert pits(page)[:5] == [3, 0, 4, 4, 1]
    # an empty pit is refused; a typed digit sows South's pit 1
    with answered(page, "move"):
        page.keyboard.press("2")
    expect(page.locator("#message")).to_contain_text("pit 2 is empty")
    with answered(page, "move") as response:
        page.keyboard.press("1")
    events = response.value.json()["state"]["events"]
    assert events[0]["player"] == "south" and events[0]["pit"] == 0
    assert all(e["player"] == "north" for e in events[1:]) and len(events) >= 2
    expect(page.locator("#status")).to_have_text(PLAYING)
    # replay the answer's events with the model: the drawn board is their end
    game = Game(4, 3)
    game.apply(1)
    for event in events:
        assert event["before"] == game.board.tolist()
        report = game.apply(event["pit"])
        assert list(report.path) == event["path"] and report.capture == event["capture"]
    assert pits(page) == game.board.tolist()
    # Undo takes back South's pit 1 and North's replies, then South's pit 2
    answer = act(page, "Undo", "undo")
    assert answer["ok"] and pits(page) == [3, 0, 4, 4, 1, 3, 3, 3, 3, 0]
    act(page, "Undo", "undo")
    assert pits(page) == [3, 3, 3, 3, 0, 3, 3, 3, 3, 0]
    act(page, "Undo", "undo")
    expect(page.locator("#message")).to_contain_text("nothing to undo")
    # values from the mover's side, drawn under the pits: the coach's (perfect here)
    answer = act(page, "Values", "values")
    advice = Coach().advise(Game(4, 3))
    assert [m["value"] for m in answer["values"]["moves"]] == list(advice.values)
    assert answer["values"]["method"] == "perfect"
    drawn = {int(t.get_attribute("data-value-pit")): t.text_content()
             for t in page.locator("text.value").all()}
    assert drawn == {p: f"{v:+d}" if v else "0" for p, v in zip(advice.moves, advice.values)}
    answer = act(page, "Hint", "hint")
    assert answer["hint"]["best"] == list(advice.best)
    assert page.locator("g.pit.hinted").count() == len(advice.best)
    watched.check()


def test_sowing_is_animated_and_skippable_and_the_board_is_drawn(browser, web_server,  # noqa: F811
                                                                  tmp_path):
    watched, page = open_kalah(browser, web_server, "pits=6&stones=4&opponent=random&seed=2")
    assert page.locator("g.pit").count() == 12 and page.locator("g.store").count() == 2
    for label in ("North's", "South's", "store"):
        assert page.locator("#kalah-board text", has_text=label).count() >= 1
    with answered(page, "move"):
        page.locator('g.pit[data-pit="0"]').click()      # 4 stones: pits 2..5
    # the animation runs stone by stone (the board is mid-way), Skip ends it
    expect(page.locator("#kalah-board")).to_have_attribute("data-animating", "1")
    page.get_by_role("button", name="Skip animation").click()
    expect(page.locator("#kalah-board")).not_to_have_attribute("data-animating", "1")
    board = pits(page)
    assert sum(board) == 48 and board[0] == 0
    shot = tmp_path / "kalah.png"
    page.locator("#kalah-board").screenshot(path=str(shot))
    image = np.asarray(Image.open(shot).convert("RGB")).astype(int)
    assert image.shape[1] > 600
    # the drawn board: wood, South's blue and North's orange pits are all there
    colours = {"wood": (200, 154, 91), "south": (221, 232, 247), "north": (251, 230, 207)}
    for name, rgb in colours.items():
        share = (np.abs(image - rgb).sum(axis=2) < 12).mean()
        assert share > 0.02, name
    watched.check()


def test_finished_games_are_recorded_and_shown_on_the_stats_page(browser, web_server):  # noqa: F811
    watched, page = open_kalah(browser, web_server,
                               "pits=2&stones=2&opponent=random&animate=0&seed=9")
    for _ in range(30):
        if re.match(r"South \d+, North \d+", page.locator("#status").text_content()):
            break
        act(page, "Best move", "best")
    expect(page.locator("#coach")).to_contain_text("Your record against random moves")
    db = web_server.app.ctx.db_path("kalah_play.sqlite")
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT opponent, place, finished, pits, stones FROM "
                           "kalah_play_games").fetchall()
    assert ("random", "web", 1, 2, 2) in rows
    stats = browser.open(f"{web_server.url}stats").page
    expect(stats.get_by_role("heading", name="Kalah")).to_be_visible()
    expect(stats.locator("table.stats", has_text="mean margin")).to_contain_text("random")
    expect(stats.locator("svg", has_text="Kalah results by opponent")).to_have_count(1)
    watched.check()


def test_bad_queries_are_400_pages(web_server):  # noqa: F811
    for query, reason in (("pits=11", "pits"), ("opponent=minimax", "opponent"),
                          ("pits=6&stones=4&opponent=perfect", "perfect play"),
                          ("position=1,2/0/1/0+s", "South has 2 pits"),
                          ("side=east", "side")):
        try:
            urllib.request.urlopen(f"{web_server.url}kalah?{query}", timeout=10)
        except urllib.error.HTTPError as exc:
            assert exc.code == 400 and reason in exc.read().decode()
        else:
            raise AssertionError(f"{query} was accepted")


def _api(server, action, body):
    request = urllib.request.Request(
        f"{server.url}api/kalah/{action}", data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def test_who_moves_first_and_values_from_the_movers_side(web_server):  # noqa: F811
    # the person plays North, South (the computer, random) moves first: the new game's
    # state already holds South's move(s), and it is North's turn
    answer = _api(web_server, "new", {"pits": 3, "stones": 2, "opponent": "random",
                                      "side": "north", "first": "south", "seed": 4})
    state = answer["state"]
    assert answer["ok"] and state["player"] == "north" and state["people"] == ["north"]
    assert state["events"] and all(e["player"] == "south" for e in state["events"])
    game = Game(3, 2)
    for event in state["events"]:
        game.apply(event["pit"])
    assert state["board"] == game.board.tolist() and state["text"] == game.text()
    # the values of North's moves are North's: the coach's on the same position
    values = _api(web_server, "values", {"id": answer["id"]})["values"]
    advice = Coach().advise(game)
    assert values["player"] == "north"
    assert [(m["pit"], m["value"]) for m in values["moves"]] == list(zip(advice.moves,
                                                                          advice.values))
    # two people at one board: nobody answers, the side to move alternates
    answer = _api(web_server, "new", {"pits": 3, "stones": 3, "opponent": "none",
                                      "first": "north"})
    assert answer["state"]["player"] == "north" and answer["state"]["events"] == []
    answer = _api(web_server, "move", {"id": answer["id"], "pit": 6})   # North's pit 3
    assert answer["ok"] and answer["state"]["player"] == "south"
    # a refused move: 200, ok false, the reason and the unchanged state
    refused = _api(web_server, "move", {"id": answer["id"], "pit": 6})
    assert refused["ok"] is False and "North's" in refused["error"]
    assert refused["state"]["board"] == answer["state"]["board"]


def test_parallel_games_share_the_coach_without_interfering(web_server):  # noqa: F811
    from concurrent.futures import ThreadPoolExecutor

    value = solve(3, 3, table_bits=16).value

    def best_to_the_end(seed):
        answer = _api(web_server, "new", {"pits": 3, "stones": 3, "opponent": "none",
                                          "seed": seed})
        for _ in range(60):
            if answer["state"]["over"]:
                break
            answer = _api(web_server, "best", {"id": answer["id"]})
            assert answer["ok"], answer
        south, north = answer["state"]["scores"]
        return south - north, answer["state"]["status"]

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(best_to_the_end, range(8)))
    assert all(margin == value for margin, _ in results)
    assert all(re.fullmatch(r"South \d+, North \d+", status) for _, status in results)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
    | st.text(max_size=60),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=3),
    max_leaves=8)
_FIELDS = st.fixed_dictionaries({}, optional={
    key: _JSON | st.integers(-1, 12) | st.sampled_from(
        ["", "0", "1", "perfect", "random", "none", "alpha-beta-3", "north", "south",
         "standard", "3,3,3/0/3,3,3/0 n", "1,0/0/0,1/0 s"])
    for key in ("pits", "stones", "variant", "opponent", "side", "first", "random", "seed",
                "position", "pit", "number")})
_GAME = {}


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(action=st.sampled_from(["new", "move", "hint", "best", "undo", "values", "nope"]),
       fields=_FIELDS, use_id=st.booleans())
def test_any_json_gets_an_answer_never_a_500(web_server, action, fields, use_id):  # noqa: F811
    """Whatever JSON a Kalah action gets, the answer is 200 (played or refused) or a 4xx
    with a message; the fixture fails the module on any 500."""
    if use_id:
        if "id" not in _GAME:
            _GAME["id"] = _api(web_server, "new", {"pits": 3, "stones": 2,
                                                   "opponent": "random"})["id"]
        fields = dict(fields, id=_GAME["id"])
    try:
        answer = _api(web_server, action, fields)
        status = 200
    except urllib.error.HTTPError as exc:
        status, answer = exc.code, json.loads(exc.read())
    assert status in (200, 400, 404), (status, answer)
    assert isinstance(answer["ok"], bool) and (answer["ok"] or answer["error"])
