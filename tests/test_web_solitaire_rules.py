"""The solitaire page's rule selector in a real headless Chromium (tests/web_browser.py):
Yukon and Alaska deals played by Best move to their optimum (the coach is the family
search), the selector dealing the same deal under other rules, a foundation play by
click and key; no console error, no outside request."""
from __future__ import annotations

import re

from playwright.sync_api import expect

from jitgames.solitaire import family as F
from jitgames.solitaire.deal import deals
from jitgames.solitaire.family_play import FamilyGame
from jitgames.solitaire.family_study import solve_many

from .test_web_solitaire import STARTED, act, answered
from .web_browser import browser, chromium, serving, web_server  # noqa: F401 - fixtures

SEED = 11
ON = re.compile(r"(\d+) cards? on the foundations|score (\d+) of optimal")


def short_deal(rules, longest):
    """A deal of SEED the search decides at once, with a line of at most ``longest`` moves."""
    decks = deals(SEED, 0, 60)
    rows = solve_many(decks, F.rules_code(rules), 3000)
    for index, row in enumerate(rows):
        if row[1] == 0 and 1 <= row[3] <= longest:
            return index, FamilyGame(decks[index], rules)
    raise AssertionError("no short deal")  # pragma: no cover - the sample is wide


def on_foundations(page):
    match = ON.search(page.locator("#status").text_content())
    return int(match.group(1) or match.group(2))


def test_best_moves_under_each_rule_set_reach_the_optimum(browser, web_server):  # noqa: F811
    """A won Yukon deal played by Best move to 52; an Alaska deal's first Best moves keep
    its optimum reachable."""
    for rules, longest, clicks in (("yukon", 70, 80), ("alaska", 100, 6)):
        index, game = short_deal(rules, longest)
        watched = browser.open(f"{web_server.url}solitaire?seed={SEED}&index={index}&rules={rules}")
        page = watched.page
        expect(page.locator("#status")).to_have_text(STARTED)
        expect(page.locator("#rule-set")).to_have_value(rules)
        assert f"this deal's optimum: {game.optimum})" in page.locator("#coach").text_content()
        for _ in range(clicks):
            if on_foundations(page) == game.optimum:
                break
            act(page, "Best move", "best")
            assert f"still reachable: {game.optimum} of 52" in page.locator("#coach").text_content()
        if rules == "yukon":
            assert on_foundations(page) == game.optimum


def test_selector_deals_the_same_deal_under_other_rules_and_f_plays_home(browser, web_server):  # noqa: F811
    # a deal whose start has a foundation play under Yukon's rules (an optional one)
    for index in range(200):
        game = FamilyGame(deals(SEED, index, index + 1)[0], "yukon", node_limit=2000)
        homes = [m for m in game.legal_moves() if m % 8 == F.TO_FOUNDATION]
        if homes:
            break
    watched = browser.open(f"{web_server.url}solitaire?seed={SEED}&index={index}")
    page = watched.page
    expect(page.locator("#status")).to_have_text(STARTED)
    with answered(page, "new"):
        page.locator("#rule-set").select_option("yukon")
    expect(page).to_have_url(re.compile(rf"seed={SEED}&index={index}&rules=yukon$"))
    before = on_foundations(page)
    assert before == game.score
    card = homes[0] // 8
    page.locator(f'g.card.up[data-card="{card}"]').click()
    with answered(page, "move"):
        page.keyboard.press("f")
    assert on_foundations(page) == before + 1
    expect(page.locator("#message")).to_contain_text("to its foundation")
    act(page, "Undo", "undo")
    assert on_foundations(page) == before
