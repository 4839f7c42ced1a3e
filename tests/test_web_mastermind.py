"""The Mastermind page in a real headless Chromium (tests/web_browser.py): a game by
Best move to its end (the optimal strategy's guesses for the secret), guesses typed by
colour letter and made by clicks, undo, bad guesses refused with a message, the
codemaker role with a contradicting answer taken back, the drawn board, the records
and the statistics page; no console error, no outside request."""
from __future__ import annotations

import contextlib
import io
import json
import re
import sqlite3
import urllib.error
import urllib.request

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from playwright.sync_api import expect

from jitgames.mastermind.evaluate import evaluate
from jitgames.mastermind.game import Game, Turn, feedback, format_code

from .web_browser import browser, chromium, web_server  # noqa: F401 - fixtures

STARTED = re.compile(r"^(answer )?guess \d+$")


def open_game(browser, server, query):  # noqa: F811 - the fixture's name
    watched = browser.open(f"{server.url}mastermind?{query}")
    page = watched.page
    expect(page.locator("#status")).to_have_text(STARTED)
    return page


@contextlib.contextmanager
def answered(page, action):
    """Wait, after the block, for the answer to ``POST /api/mastermind/<action>`` and
    for the page to have drawn it (``body.busy`` is cleared after drawing)."""
    with page.expect_response(f"**/api/mastermind/{action}"):
        yield
    expect(page.locator("body")).not_to_have_class(re.compile("busy"))


def act(page, name, action):
    with answered(page, action):
        page.get_by_role("button", name=name, exact=True).click()


def type_guess(page, text):
    with answered(page, "guess"):
        page.locator("#guess-text").fill(text)
        page.locator("#guess-text").press("Enter")


def rows(page):
    return page.locator("#rows g.row:not(.pending)")


def test_best_move_to_the_end_is_the_optimal_strategys_game(browser, web_server):  # noqa: F811
    seed = 17
    game = Game(4, 6, "breaker", seed)
    secret = int(np.ravel_multi_index(game.secret, (6,) * 4))
    # the optimal tree's guesses for this secret, read off the tree by evaluate()
    expected = int(evaluate("optimal", 4, 6, True, 0, np.array([secret])).guesses[0])
    page = open_game(browser, web_server, f"pegs=4&colours=6&seed={seed}")
    for _ in range(expected):
        act(page, "Best move", "best")
    expect(page.locator("#status")).to_have_text(f"solved in {expected} guesses")
    expect(rows(page)).to_have_count(expected)
    last = rows(page).last
    assert last.get_attribute("data-black") == "4"
    assert "".join(p.get_attribute("data-colour") for p in last.locator("g.peg").all()) \
        == format_code(game.secret)
    expect(page.locator("#coach")).to_contain_text(f"optimal needs {expected}")
    expect(page.get_by_role("button", name="Best move")).to_be_disabled()
    # stored in the terminal's records, with the strategy's figure
    db = web_server.app.ctx.db_path("mastermind.sqlite")
    with contextlib.closing(sqlite3.connect(db)) as con:
        stored = con.execute("SELECT player, guesses, solved, strategy, strategy_guesses "
                             "FROM games").fetchall()
    assert ("tester", expected, 1, "optimal", expected) in stored
    stats = browser.open(f"{web_server.url}stats").page
    section = stats.locator("#stats-mastermind")
    expect(section).to_contain_text("optimal")
    expect(section.locator("svg")).not_to_have_count(0)


def test_typed_letters_clicks_undo_and_bad_guesses(browser, web_server):  # noqa: F811
    page = open_game(browser, web_server, "pegs=4&colours=6&seed=5")
    secret = Game(4, 6, "breaker", 5).secret
    type_guess(page, "rrgg")
    first = rows(page).first
    expect(rows(page)).to_have_count(1)
    assert [p.get_attribute("data-colour") for p in first.locator("g.peg").all()] == \
        ["1", "1", "2", "2"]
    black, white = feedback((0, 0, 1, 1), secret)
    assert (first.get_attribute("data-black"), first.get_attribute("data-white")) == \
        (str(black), str(white))
    left = Game.from_text(f"mastermind 4x6 breaker seed=5 strategy=optimal "
                          f"1122:{black}-{white}").remaining()
    expect(page.locator("#coach")).to_contain_text(f"{left} codes still possible")
    # bad guesses: refused with a message, nothing played
    type_guess(page, "rrz1")
    expect(page.locator("#message")).to_contain_text("'z' is not a colour")
    type_guess(page, "rrg")
    expect(page.locator("#message")).to_contain_text("a code has 4 pegs, got 3")
    type_guess(page, "1237")
    expect(page.locator("#message")).to_contain_text("colour 7 (cyan) is not in this game")
    expect(rows(page)).to_have_count(1)
    expect(page.locator("#status")).to_have_text("guess 2")
    # a guess by four clicks on the palette (the fourth plays it)
    for colour in "345":
        page.locator(f'#palette button[data-colour="{colour}"]').click()
    with answered(page, "guess"):
        page.locator('#palette button[data-colour="6"]').click()
    expect(rows(page)).to_have_count(2)
    assert "".join(p.get_attribute("data-colour") for p in rows(page).last.locator(
        "g.peg").all()) == "3456"
    # undo twice (the key u, then the button), back to the start
    with answered(page, "undo"):
        page.locator("body").press("u")
    expect(rows(page)).to_have_count(1)
    act(page, "Undo", "undo")
    expect(rows(page)).to_have_count(0)
    expect(page.locator("#status")).to_have_text("guess 1")
    expect(page.get_by_role("button", name="Undo")).to_be_disabled()
    # a pasted position replaces the game; a bad one is refused and the game kept
    page.locator("#position-text").fill("mastermind 4x6 breaker seed=5 strategy=knuth 1234:9-9")
    act(page, "Load", "load")
    expect(page.locator("#message")).to_contain_text("turn 1: 1234 gets")
    expect(page.locator("#status")).to_have_text("guess 1")
    game = Game(4, 6, "breaker", 5, "knuth")
    game.play("1234")
    game.best()
    page.locator("#position-text").fill(game.to_text())
    act(page, "Load", "load")
    expect(rows(page)).to_have_count(2)
    expect(page.locator("#position")).to_have_text(f"Position: {game.to_text()}")
    expect(page.locator("#strategy")).to_have_value("knuth")


def test_contradicting_guess_is_pointed_out_and_hint_fills_the_holes(browser,  # noqa: F811
                                                                      web_server):  # noqa: F811
    page = open_game(browser, web_server, "pegs=3&colours=4&seed=9&strategy=knuth")
    game = Game(3, 4, "breaker", 9, "knuth")
    turn = game.play("111")
    contradicting = next(c for c in ("222", "333", "111", "123") if game.contradiction(
        game.parse(c)))
    type_guess(page, "rrr")
    type_guess(page, contradicting)
    expect(page.locator("#message")).to_contain_text(
        f"{contradicting} cannot be the code: guess 1 (111) got {turn.black} black")
    expect(page.locator("#rows g.row.flagged")).to_have_count(1)
    page.locator("#guess-text").press("Escape")  # leave the box: h is the Hint key
    with answered(page, "hint"):
        page.keyboard.press("h")
    game.play(contradicting)
    hint = format_code(game.hint())
    expect(page.locator("#message")).to_have_text(f"Hint (knuth): {hint}.")
    assert "".join(s.text_content() for s in page.locator("#current button").all()) == \
        "".join("rgbyopcwkm"[int(ch) - 1] for ch in hint)


def test_maker_role_contradiction_taken_back(browser, web_server):  # noqa: F811
    secret = (2, 0, 1)  # the person's code: 312
    page = open_game(browser, web_server, "pegs=3&colours=3&seed=1&role=maker")
    expect(page.get_by_role("button", name="Hint")).to_be_disabled()
    model = Game(3, 3, "maker", 1)

    def answer(black, white):
        page.locator("#blacks").fill(str(black))
        page.locator("#whites").fill(str(white))
        with answered(page, "answer"):  # Enter in the Whites box sends it
            page.locator("#whites").press("Enter")

    guess = model.pending()
    answer(*feedback(guess, secret))
    model.answer(*feedback(guess, secret))
    # now an answer no code fits together with the first: flagged, then taken back
    second = model.pending()
    wrong = next((b, w) for b in range(4) for w in range(4 - b) if (b, w) != (2, 1)
                 and model.remaining(model.turns + [Turn(second, b, w, 0)]) == 0)
    answer(*wrong)
    expect(page.locator("#rows g.row.flagged")).to_have_count(1)
    expect(page.locator("#status")).to_contain_text("contradicts earlier answers")
    expect(page.locator("#message")).to_contain_text("together with your answers to guess 1")
    act(page, "Undo", "undo")
    expect(page.locator("#rows g.row.flagged")).to_have_count(0)
    while not model.solved:
        guess = model.pending()
        answer(*feedback(guess, secret))
        model.answer(*feedback(guess, secret))
    expect(page.locator("#status")).to_have_text(
        f"optimal solved your code in {len(model.turns)} guess"
        f"{'' if len(model.turns) == 1 else 'es'}")


def test_board_is_drawn(browser, web_server):  # noqa: F811
    page = open_game(browser, web_server, "pegs=5&colours=8&seed=3")
    expect(page.locator("#palette button.colour")).to_have_count(8)
    expect(page.locator("#current button.slot")).to_have_count(5)
    act(page, "Best move", "best")
    act(page, "Best move", "best")
    expect(rows(page)).to_have_count(2)
    expect(page.locator("#rows g.row g.peg")).to_have_count(10)
    from matplotlib.image import imread

    png = imread(io.BytesIO(page.locator("#board").screenshot()), format="png")[..., :3]
    r, g, b = png[..., 0], png[..., 1], png[..., 2]
    wood = np.mean((np.abs(r - 0.23) < 0.05) & (np.abs(g - 0.18) < 0.05))
    red = np.mean((r > 0.7) & (g < 0.3) & (b < 0.3))
    blue = np.mean((b > 0.7) & (r < 0.3))
    plate = np.mean((r > 0.8) & (g > 0.75) & (b > 0.65) & (b < 0.8))
    assert wood > 0.3 and red > 0.001 and blue > 0.001 and plate > 0.002, (wood, red, blue,
                                                                            plate)


# ----------------------------------------------------------------------------- the API
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
    | st.text(max_size=60),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=3),
    max_leaves=8)
FIELDS = st.fixed_dictionaries({}, optional={
    key: JSON | st.integers(-1, 12) | st.sampled_from(["rrgg", "1123", "optimal", "maker",
                                                       "random", "", "mastermind 4x6"])
    for key in ("code", "black", "white", "strategy", "pegs", "colours", "seed", "role",
                "position")})
GAME_IDS: dict = {}


def api(server, action, body):
    request = urllib.request.Request(
        f"{server.url}api/mastermind/{action}", json.dumps(body).encode(),
        {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(action=st.sampled_from(["new", "guess", "answer", "hint", "best", "undo", "giveup",
                               "strategy", "load", "nope"]),
       fields=FIELDS, role=st.sampled_from(["breaker", "maker", None]))
def test_any_json_gets_an_answer_never_a_500(web_server, action, fields, role):  # noqa: F811
    """Whatever JSON an action gets, the answer is 200 (played or refused) or a 4xx with
    a message (the fixture fails the module on any 500). Games of 3 pegs and 4 colours,
    so that random bodies also finish them."""
    if role is not None:
        if role not in GAME_IDS:
            GAME_IDS[role] = api(web_server, "new", {"pegs": 3, "colours": 4, "seed": 1,
                                                     "role": role})[1]["id"]
        fields = dict(fields, id=GAME_IDS[role])
    status, answer = api(web_server, action, fields)
    assert status in (200, 400, 404), (status, answer)
    assert isinstance(answer["ok"], bool) and (answer["ok"] or answer["error"])
