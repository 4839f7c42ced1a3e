"""The solitaire page: ``/solitaire?seed=S&index=I`` (or ``?deal=...``, ``?position=...``).

The game is :class:`jitgames.solitaire.play.Game`, the one the terminal console
plays; this module only turns its state into JSON and requests into its calls.
After every change the answer carries the coach's figures: the optimal score still
reachable from the position (exact) and the cards the last move threw away. A game
that ends (no move left) is stored at once in the same SQLite records as
``jitgames solitaire play`` (``solitaire.sqlite``).
"""
from __future__ import annotations

import html
import secrets

from ..plugin import GamePlugin, Page, StatsSection, get_int, get_str
from ..stats import figure_svg, html_table, new_figure
from ... import _store
from ...solitaire.deal import deals
from ...solitaire.family import RULE_NAMES
from ...solitaire.family_play import FamilyGame
from ...solitaire.play import Game, IllegalMove, parse_deal
from ...solitaire.records import (DB_FILE, SCHEMA, GameRecord, open_db, player_table,
                                  record_game, record_line)
from ...solitaire.rules import card_name
from ...solitaire.search import PositionSolver
from ...solitaire.table import DEFAULT_CAPACITY

__all__ = ["PLUGIN", "WebGame"]

U64 = 2**64 - 1
RANDOM_SEEDS = 2**32
"""A random deal's seed is drawn below this and its index below ``RANDOM_INDICES``
(as at the terminal: short enough to type back)."""
RANDOM_INDICES = 10**6
MAX_TEXT = 2048
"""Longest deal or position text accepted (a position is at most ~400 characters)."""


class WebGame:
    """A :class:`Game` in a browser tab: where its deal came from, what the last
    change did, and whether its end is stored."""

    def __init__(self, game: Game, where: dict):
        self.game = game
        self.where = where
        self.lost = 0
        self.recorded = False
        self.record_line = ""


# ----------------------------------------------------------------------------- input

def _rules(fields: dict) -> str:
    """The rule set a query or body names (``rules``, default the étude's)."""
    rules = get_str(fields, "rules", 10) if fields.get("rules") else "etude"
    if rules not in RULE_NAMES:
        raise IllegalMove(f"unknown rules {rules[:10]!r}: choose from {', '.join(RULE_NAMES)}")
    return rules


def _deal_request(fields: dict) -> tuple[str, object]:
    """What a query or body names: ("position", text), ("deal", text), ("seed",
    (seed, index)) or ("random", None); InputError when malformed."""
    if fields.get("position"):
        return "position", get_str(fields, "position", MAX_TEXT)
    if fields.get("deal"):
        return "deal", get_str(fields, "deal", MAX_TEXT)
    if fields.get("seed") not in (None, "") or fields.get("index") not in (None, ""):
        return "seed", (get_int(fields, "seed", 0, U64), get_int(fields, "index", 0, U64))
    return "random", None


def _build(kind: str, value, rules: str = "etude") -> WebGame:
    empty = dict(shuffle=None, seed=None, deal_index=None, deal_file=None, deal_line=None)
    if rules != "etude":
        return _build_family(kind, value, rules, empty)
    solver = PositionSolver(DEFAULT_CAPACITY)
    if kind == "position":
        return WebGame(Game.from_text(value, solver), empty)
    if kind == "deal":
        return WebGame(Game(parse_deal(value), solver), empty)
    if kind == "seed":
        seed, index = value
    else:
        seed, index = secrets.randbelow(RANDOM_SEEDS), secrets.randbelow(RANDOM_INDICES)
    deck = deals(seed, index, index + 1)[0]  # a serial kernel: safe on any thread
    return WebGame(Game(deck, solver), dict(empty, shuffle="fisher-yates", seed=seed,
                                            deal_index=index))


def _build_family(kind: str, value, rules: str, empty: dict) -> WebGame:
    """A game under Yukon's or Alaska's rules (:class:`FamilyGame`); not recorded."""
    if kind == "position":
        raise IllegalMove(f"a position can be pasted under the etude's rules only; "
                          f"under {rules} paste a deal")
    if kind == "deal":
        web = WebGame(FamilyGame(parse_deal(value), rules), empty)
    else:
        if kind == "seed":
            seed, index = value
        else:
            seed, index = secrets.randbelow(RANDOM_SEEDS), secrets.randbelow(RANDOM_INDICES)
        web = WebGame(FamilyGame(deals(seed, index, index + 1)[0], rules),
                      dict(empty, shuffle="fisher-yates", seed=seed, deal_index=index))
    web.recorded = True  # another game's optimum: kept out of the étude's records
    return web


# ----------------------------------------------------------------------------- records

def _check_records(ctx) -> None:
    open_db(ctx.db_path(DB_FILE)).close()


def _store_end(web: WebGame, ctx) -> None:
    """Store a game that has just ended (once), and read the player's record back."""
    game = web.game
    if web.recorded or not game.over:
        return
    with ctx.record_lock, open_db(ctx.db_path(DB_FILE)) as records:
        record_game(records, GameRecord(player=ctx.player, score=game.score,
                                        optimum=game.optimum, moves=len(game.history),
                                        hints=game.hints, undos=game.undos, **web.where))
        web.record_line = record_line(records, ctx.player)
    web.recorded = True


# ----------------------------------------------------------------------------- state

def _state(web: WebGame, ctx) -> dict:
    game = web.game
    piles = []
    for down, cards in game.piles():
        piles.append({"down": down, "cards": [-1 if i < down else int(c)
                                              for i, c in enumerate(cards)]})
    reachable = game.reachable()
    over = game.over
    if over:
        status = f"Game over: score {game.score} of optimal {game.optimum}."
        if web.record_line:
            status += " " + web.record_line
    else:
        status = (f"Your move: {game.score} card{'s' if game.score != 1 else ''} on the "
                  f"foundations.")
    coach = (f"Best score still reachable: {reachable} of 52 (this deal's optimum: "
             f"{game.optimum}).")
    if web.lost:
        coach += (f" That move threw away {web.lost} card{'s' if web.lost > 1 else ''}.")
    deal = None
    if web.where["seed"] is not None:
        deal = {"seed": str(web.where["seed"]), "index": str(web.where["deal_index"])}
    return {"piles": piles, "foundations": game.foundations(), "score": game.score,
            "reachable": reachable, "optimum": game.optimum, "over": over,
            "moves": len(game.history), "hints": game.hints, "undos": game.undos,
            "lost": web.lost, "status": status, "coach": coach, "deal": deal,
            "text": game.text(), "rules": getattr(game, "rules", "etude"),
            "legal": [[m // 8, m % 8] for m in game.legal_moves()]}


def _answer(web: WebGame, ctx, message: str = "", **extra) -> dict:
    _store_end(web, ctx)
    return {"state": _state(web, ctx), "message": message, **extra}


# ----------------------------------------------------------------------------- actions

def _play(web: WebGame, move: int, ctx, prefix: str = "") -> dict:
    game = web.game
    before = game.reachable()
    text = game.describe(move)
    played = game.play(move)
    web.lost = before - game.reachable()
    if played:
        text += "; to the foundations: " + " ".join(card_name(c) for c in played)
    return _answer(web, ctx, prefix + text + ".")


def _move(web: WebGame, body: dict, ctx) -> dict:
    game = web.game
    if "text" in body:
        move = game.parse_move(get_str(body, "text", 40))
    else:
        move = game.move_to(get_int(body, "card", 0, 51), get_int(body, "pile", 0, 7))
    return _play(web, move, ctx)


def _hint_or_refuse(game: Game):
    if game.over:
        raise IllegalMove("no move is left: the game is over")
    return game.hint()


def _hint(web: WebGame, body: dict, ctx) -> dict:
    hint = _hint_or_refuse(web.game)
    text = web.game.describe(hint.move)
    cards = "card" if hint.score == 1 else "cards"
    keeps = (f"it keeps {hint.score} {cards} reachable" if hint.gains else
             f"the {hint.score} reachable cards are already on the foundations; any move "
             "keeps them")
    return _answer(web, ctx, f"Hint: {text} ({keeps}).",
                   hint={"card": hint.move // 8, "pile": hint.move % 8, "text": text})


def _best(web: WebGame, body: dict, ctx) -> dict:
    hint = _hint_or_refuse(web.game)
    return _play(web, hint.move, ctx, "Best move: ")


def _undo(web: WebGame, body: dict, ctx) -> dict:
    if not web.game.undo():
        raise IllegalMove("nothing to undo: this is the deal")
    web.lost = 0
    return _answer(web, ctx, "Move taken back.")


def _restart(web: WebGame, body: dict, ctx) -> dict:
    web.game.restart()
    web.lost = 0
    web.recorded = False
    web.record_line = ""
    return _answer(web, ctx, "Back to the deal.")


def _load(web: WebGame, body: dict, ctx) -> dict:
    """Replace this tab's game by a pasted deal or position (a bad one is refused
    with the reason, and the game stays as it was)."""
    text = get_str(body, "text", MAX_TEXT).strip()
    if not text:
        raise IllegalMove("paste a deal (52 card ids, or 52 cards like Ah2s...) or a position")
    # a position starts with the deal packed in 104 characters (then its moves)
    kind = "position" if len(text.split()[0]) == 104 else "deal"
    fresh = _build(kind, text, getattr(web.game, "rules", "etude"))
    web.__dict__.update(fresh.__dict__)
    return _answer(web, ctx, "Deal loaded." if kind == "deal" else "Position loaded.")


def _new(body: dict, ctx) -> WebGame:
    return _build(*_deal_request(body), _rules(body))


# ----------------------------------------------------------------------------- page

RULES = """
<p>Seven piles dealt Yukon style: pile 1 has one card, pile <i>k</i> has <i>k</i>&minus;1
cards face down and five face up. <b>Move</b> any face-up card, with every card on it,
onto the exposed card of another pile that is <b>one rank higher of the same suit</b>
(9&clubs; onto 10&clubs;). Only a <b>king</b> (with its cards) goes into an empty pile.
A face-down card left exposed is turned up. Cards go to the <b>foundations</b> (built up
by suit from the ace) by themselves. The game ends when no move is left; the
<b>score</b> is the number of cards on the foundations.</p>
<p>Move by dragging a card onto its pile, or click the card and then the pile; or type
a card (<kbd>9c</kbd>, <kbd>Kh</kbd>) or two pile numbers (<kbd>3 5</kbd>) in the move
box. The <b>coach</b> under the board is exact: the best score still reachable from
here, with perfect play. A move that lowers it has thrown cards away.</p>
<p><b>Other rules</b> (the Rules box): under <b>Yukon</b> a card goes onto a card of the
<b>other colour</b> one rank higher; under <b>Alaska</b> onto the card of its suit one
rank <b>higher or lower</b>. Under both, playing a card to its foundation is your move
(drag it onto the foundations, or select it and press <kbd>f</kbd>): a card may be worth
more as a base. Only plays that can never cost a card are made for you. The coach is
the exact search under the chosen rules.</p>
"""

CONTROLS = ('<label>Rules <select id="rule-set"><option value="etude">Etude (by suit)</option>'
            '<option value="yukon">Yukon (alternating colours)</option>'
            '<option value="alaska">Alaska (up or down by suit)</option></select></label>'
            '<button type="button" id="restart">Restart</button>'
            '<label>Move <input id="move-text" size="7" placeholder="9c or 3 5" '
            'autocomplete="off"></label>'
            '<label>Deal or position <input id="deal-text" size="16" '
            'placeholder="paste 52 cards" autocomplete="off"></label>'
            '<button type="button" id="load">Load</button>')


def _page(query: dict, ctx) -> Page:
    kind, value = _deal_request(query)
    rules = _rules(query)
    data = {} if rules == "etude" else {"rules": rules}
    if kind == "seed":
        data.update(seed=str(value[0]), index=str(value[1]))
        title = f"Solitaire: deal {value[1]} of seed {value[0]}"
    else:
        if kind == "deal":
            parse_deal(value)  # a bad deal is a 400 page with the reason
        elif kind == "position":
            Game.from_text(value)
        if kind != "random":
            data[kind] = value
        title = "Solitaire"
    board = ('<svg id="table" role="group" aria-label="The seven piles and the four '
             'foundations" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 620 400"></svg>')
    return Page(title=title, board=board, rules=RULES, controls=CONTROLS, data=data,
                keys=(("r", "Restart"), ("m", "type a move"), ("Escape", "drop the selection")))


# ----------------------------------------------------------------------------- stats

def _stats(ctx) -> list:
    path = ctx.db_path(DB_FILE)
    try:
        with _store.open_records(path, DB_FILE, SCHEMA, write=False) as records:
            rows = [r for r in player_table(records) if r["games"]]  # abandoned: not counted
            games = records.con.execute(
                "SELECT player, score, optimum FROM solitaire_games WHERE abandoned = 0 "
                "ORDER BY played_at, rowid"
            ).fetchall()
    except _store.NoRecords:
        games = []
    if not games:
        return [StatsSection("Solitaire", "<p>No solitaire game recorded yet.</p>")]
    table = html_table(
        ["player", "games", "mean score", "mean cards lost", "wins", "perfect"],
        [[r["player"], r["games"], r["mean_score"], r["mean_lost"], r["wins"], r["perfect"]]
         for r in rows])
    from matplotlib.ticker import MaxNLocator

    fig = new_figure()
    axes = fig.subplots(1, 2, width_ratios=(2, 1))
    number = list(range(1, len(games) + 1))
    scores, optima = [g[1] for g in games], [g[2] for g in games]
    axes[0].vlines(number, scores, optima, color="#b3261e", linewidth=1.5,
                   label="cards thrown away")
    axes[0].plot(number, optima, "s", color="#999999", label="optimum", markersize=6)
    axes[0].plot(number, scores, "o", color="#1f5fbf", label="your score", markersize=3.5)
    axes[0].set(xlabel="game (in the order played)", ylabel="cards on the foundations",
                ylim=(-1, 53), title="Score against the optimum")
    axes[0].xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[0].legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncols=3,
                   fontsize="small", frameon=False)
    lost = [o - s for s, o in zip(scores, optima)]
    axes[1].hist(lost, bins=[b - 0.5 for b in range(0, max(lost) + 2)], color="#b3261e",
                 rwidth=0.8)
    axes[1].set_xlim(-0.5, max(5, max(lost)) + 0.5)  # a few bins even when no card is lost
    axes[1].xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[1].set(xlabel="cards lost (optimum - score)", ylabel="games",
                title="Cards thrown away")
    text = (f"<p>{len(games)} game{'s' if len(games) != 1 else ''} recorded in {html.escape(str(path))}.</p>" + table
            + figure_svg(fig))
    return [StatsSection("Solitaire", text)]


def _warm_up() -> None:
    _build("seed", (0, 0)).game.hint()


PLUGIN = GamePlugin(
    name="solitaire", title="Solitaire", page=_page, new=_new, state=_state,
    actions={"move": _move, "hint": _hint, "best": _best, "undo": _undo,
             "restart": _restart, "load": _load},
    check_records=_check_records, stats=_stats, warm_up=_warm_up)
"""The solitaire page's plugin (see :mod:`jitgames.web`)."""
