"""The Mastermind page: ``/mastermind?pegs=P&colours=K&seed=S&role=breaker|maker&strategy=NAME``
(or ``?position=...``, a game's one-line text form).

The game is :class:`jitgames.mastermind.game.Game`, the one the terminal plays;
this module only turns its state into JSON and requests into its calls. A game
that ends is stored at once in the same SQLite records as ``jitgames mastermind
play`` (``mastermind.sqlite``): as codebreaker with the guesses the coach's
strategy needs for the same secret, as codemaker as the strategy's game.
"""
from __future__ import annotations

import html
import secrets

from ..plugin import GamePlugin, Page, StatsSection, get_int, get_str
from ..stats import figure_svg, html_table, new_figure
from ... import _store
from ...errors import InputError
from ...mastermind import advice
from ...mastermind.game import (COLOURS, MAX_COLOURS, MAX_PEGS, MAX_SEED, MIN_COLOURS,
                                MIN_PEGS, Game, format_code)
from ...mastermind.stats import DB_FILE, SCHEMA, games_against_strategy, open_db, record_game

__all__ = ["PLUGIN", "WebGame"]

RANDOM_SEEDS = 2**32
"""A game without a seed draws one below this (short enough to type back)."""
MAX_TEXT = 1024
"""Longest position text accepted (8 pegs, 40 turns is about 600 characters)."""


class WebGame:
    """A :class:`Game` in a browser tab, and whether its end is stored."""

    def __init__(self, game: Game):
        self.game = game
        self.recorded = False
        self.strategy_guesses = None


# ----------------------------------------------------------------------------- input
def _options(fields: dict) -> Game:
    """The game a query or a New game body names (InputError when malformed)."""
    if fields.get("position"):
        return Game.from_text(get_str(fields, "position", MAX_TEXT))
    def number(key, low, high, default):
        return default if fields.get(key) in (None, "") else get_int(fields, key, low, high)

    pegs = number("pegs", MIN_PEGS, MAX_PEGS, 4)
    colours = number("colours", MIN_COLOURS, MAX_COLOURS, 6)
    seed = number("seed", 0, MAX_SEED, None)
    seed = secrets.randbelow(RANDOM_SEEDS) if seed is None else seed
    role = fields.get("role") or "breaker"
    if role not in ("breaker", "maker"):
        raise InputError(f"role is breaker or maker, got {str(role)[:20]!r}")
    strategy = fields.get("strategy") or None
    if strategy is not None:
        strategy = get_str(fields, "strategy", 40)
    return Game(pegs, colours, role, seed, strategy)


# ----------------------------------------------------------------------------- records
def _check_records(ctx) -> None:
    open_db(ctx.db_path(DB_FILE)).close()


def _store_end(web: WebGame, ctx) -> None:
    """Store a game that has just ended (once; an undo after the end does not store
    it again)."""
    game = web.game
    if web.recorded or not game.finished:
        return
    if game.role == "breaker":
        if game.solved:
            web.strategy_guesses = game.strategy_guesses()
        row = (ctx.player, game.pegs, game.colours, True, len(game.turns) if game.solved else 0,
               game.solved, game.strategy if game.solved else None, web.strategy_guesses)
    elif game.solved:
        row = (game.strategy, game.pegs, game.colours, True, len(game.turns), True)
    else:
        row = None
    if row is not None:
        with ctx.record_lock, open_db(ctx.db_path(DB_FILE)) as records:
            record_game(records, *row)
    web.recorded = True


# ----------------------------------------------------------------------------- state
def _coach(web: WebGame) -> str:
    game = web.game
    left = game.turns[-1].remaining if game.turns else game.codes
    if game.role == "maker":
        if game.contradicted:
            return "No code fits all your answers: take the last one back (Undo)."
        if game.solved:
            return f"{game.strategy} needed {len(game.turns)} guesses for your code."
        return (f"{left} code{'s' if left != 1 else ''} still fit your answers; "
                f"{game.strategy} is guessing.")
    if game.solved and web.strategy_guesses is not None:
        k, s = len(game.turns), web.strategy_guesses
        verdict = ("as good as" if k == s else "better than" if k < s else "behind")
        return (f"You needed {k}, {game.strategy} needs {s} for this code: {verdict} the "
                f"strategy.")
    return (f"{left} code{'s' if left != 1 else ''} still possible. Coach: {game.strategy} "
            f"(Hint shows its guess from here).")


def _state(web: WebGame, ctx) -> dict:
    game = web.game
    out = game.to_dict()
    out["coach"] = _coach(web)
    out["strategy_guesses"] = web.strategy_guesses
    out["codes"] = game.codes
    out["palette"] = [{"letter": c.letter, "name": c.name, "css": c.css,
                       "digit": format_code([i])} for i, c in enumerate(COLOURS[:game.colours])]
    out["seed"] = str(game.seed)  # above 2^53 a JavaScript number would round it
    return out


def _answer(web: WebGame, ctx, message: str = "", **extra) -> dict:
    _store_end(web, ctx)
    return {"state": _state(web, ctx), "message": message, **extra}


# ----------------------------------------------------------------------------- actions
def _said(turn) -> str:
    return f"{format_code(turn.guess)}: {turn.black} black {turn.white} white"


def _guess(web: WebGame, body: dict, ctx) -> dict:
    turn = web.game.play(web.game.parse(get_str(body, "code", 40)))
    note = f" Note: {turn.note}." if turn.note else ""
    return _answer(web, ctx, f"{_said(turn)}.{note}")


def _hint(web: WebGame, body: dict, ctx) -> dict:
    if web.game.role == "maker":
        raise InputError("as codemaker you answer; the computer needs no hint")
    code = web.game.hint()
    return _answer(web, ctx, f"Hint ({web.game.strategy}): {format_code(code)}.",
                   hint=format_code(code))


def _best(web: WebGame, body: dict, ctx) -> dict:
    if web.game.role == "maker":
        raise InputError("as codemaker you answer; Best move is for the codebreaker")
    turn = web.game.best()
    return _answer(web, ctx, f"Best move ({web.game.strategy}): {_said(turn)}.")


def _reply(web: WebGame, body: dict, ctx) -> dict:
    turn = web.game.answer(get_int(body, "black", 0, MAX_PEGS), get_int(body, "white", 0,
                                                                         MAX_PEGS))
    if turn.note:
        return _answer(web, ctx, f"Contradiction: {turn.note}.")
    return _answer(web, ctx, f"Answered {_said(turn)}.")


def _undo(web: WebGame, body: dict, ctx) -> dict:
    game = web.game
    if not game.undo():
        raise InputError("nothing to undo: no guess yet")
    web.strategy_guesses = None if not game.finished else web.strategy_guesses
    what = "answer" if game.role == "maker" else "guess"
    return _answer(web, ctx, f"{what.capitalize()} {len(game.turns) + 1} taken back.")


def _give_up(web: WebGame, body: dict, ctx) -> dict:
    web.game.give_up()
    return _answer(web, ctx, web.game.status().capitalize() + ".")


def _strategy(web: WebGame, body: dict, ctx) -> dict:
    web.game.set_strategy(get_str(body, "strategy", 40))
    return _answer(web, ctx, f"Strategy: {web.game.strategy}.")


def _load(web: WebGame, body: dict, ctx) -> dict:
    """A pasted position replaces the tab's game (a bad one is refused, the game kept).
    A position pasted already finished is not stored: it was not played here."""
    web.game = Game.from_text(get_str(body, "position", MAX_TEXT))
    web.recorded = web.game.finished
    web.strategy_guesses = None
    return _answer(web, ctx, "Position loaded.")


def _new(body: dict, ctx) -> WebGame:
    return WebGame(_options(body))


# ----------------------------------------------------------------------------- page
RULES = f"""
<p>The codemaker hides a <b>code</b> of <i>P</i> pegs, each one of <i>K</i> colours
(colours may repeat). The codebreaker guesses codes; each guess is answered with
<b>black</b> pegs (right colour in the right place) and <b>white</b> pegs (right
colour in the wrong place; each peg of the code counts once). The code is broken
when a guess gets <i>P</i> blacks; fewer guesses is better.</p>
<p>As <b>codebreaker</b>, pick a colour from the palette to fill the next hole of your
guess (click a hole to empty it), or type the guess in the box by number or letter
({", ".join(f"{i + 1} = {c.letter} {c.name}" for i, c in enumerate(COLOURS))}; 10 is
also A), and press Guess or Enter. After each answer the coach says how many codes
are still possible; a guess that cannot be the code given earlier answers is pointed
out with the answer it contradicts. <b>Hint</b> shows the chosen strategy's guess
from the position, <b>Best move</b> plays it, <b>Undo</b> takes back guesses, Give up
shows the code. As <b>codemaker</b>, keep a code in mind and answer the computer's
guesses; an answer that contradicts your earlier ones is flagged and can be taken
back with Undo. Optimal play (least guesses on average) is offered up to 1296
codes (4 pegs of 6 colours); larger games use the most-parts heuristic or, above
8192 codes, a random consistent code.</p>
"""


def _controls(game: Game) -> str:
    def select(ident, label, values, current):
        options = "".join(
            f'<option value="{html.escape(str(v))}"{" selected" if v == current else ""}>'
            f'{html.escape(str(v))}</option>' for v in values)
        return f'<label>{label} <select id="{ident}">{options}</select></label>'
    return (select("pegs", "Pegs", range(MIN_PEGS, MAX_PEGS + 1), game.pegs)
            + select("colours", "Colours", range(MIN_COLOURS, MAX_COLOURS + 1), game.colours)
            + select("role", "Role", ("breaker", "maker"), game.role)
            + select("strategy", "Strategy", advice.strategies_for(game.pegs, game.colours),
                     game.strategy)
            + '<button type="button" id="giveup">Give up</button>'
            + '<label>Position <input id="position-text" size="16" autocomplete="off" '
            'placeholder="paste mastermind 4x6 ..."></label>'
            '<button type="button" id="load">Load</button>')


def _page(query: dict, ctx) -> Page:
    game = _options(query)  # a bad query is a 400 page with the reason
    data = {k: query[k] for k in ("pegs", "colours", "seed", "role", "strategy", "position")
            if query.get(k)}
    board = ('<div id="palette-line"><span class="caption">Colours</span>'
             '<div id="palette" role="group" aria-label="Colours"></div></div>'
             '<div id="entry"><span class="caption">Your guess</span>'
             '<div id="current" role="group" aria-label="Your guess"></div>'
             '<label>Guess <input id="guess-text" size="10" autocomplete="off" '
             'placeholder="1123 or rrgb"></label>'
             '<button type="button" id="play">Guess</button></div>'
             '<div id="answer-entry" hidden><span id="computer-guess"></span>'
             '<label>Blacks <input id="blacks" type="number" min="0" max="8" value="0">'
             '</label><label>Whites <input id="whites" type="number" min="0" max="8" '
             'value="0"></label><button type="button" id="reply">Answer</button></div>'
             '<svg id="rows" role="img" aria-label="The guesses and their answers" '
             'xmlns="http://www.w3.org/2000/svg" viewBox="0 0 560 80"></svg>'
             '<p id="position"></p>')
    return Page(title=f"Mastermind: {game.pegs} pegs, {game.colours} colours",
                board=board, rules=RULES, controls=_controls(game), data=data,
                keys=(("g", "type a guess"), ("Enter", "play the typed guess (or send the answer)"),
                      ("Escape", "leave the guess box")))


# ----------------------------------------------------------------------------- stats
def _stats(ctx) -> list:
    path = ctx.db_path(DB_FILE)
    with _store.open_records(path, DB_FILE, SCHEMA, write=False) as records:
        games = games_against_strategy(records)
    if not games:
        return [StatsSection("Mastermind",
                             "<p>No Mastermind game recorded against a strategy yet.</p>")]
    groups = {}
    for player, pegs, colours, guesses, solved, strategy, theirs in games:
        entry = groups.setdefault((player, f"{pegs}x{colours}", strategy), [0, 0, 0])
        entry[0] += 1
        entry[1] += guesses
        entry[2] += theirs
    table = html_table(
        ["player", "size", "strategy", "games", "mean guesses", "strategy's mean"],
        [[p, size, s, n, f"{a / n:.2f}", f"{b / n:.2f}"]
         for (p, size, s), (n, a, b) in sorted(groups.items())])
    fig = new_figure()
    axes = fig.subplots(1, 2, width_ratios=(2, 1))
    number = range(1, len(games) + 1)
    axes[0].plot(number, [g[6] for g in games], "s", color="#999999", label="strategy",
                 markersize=5)
    axes[0].plot(number, [g[3] for g in games], "o", color="#1f5fbf", label="you",
                 markersize=4)
    axes[0].set(xlabel="game (in the order played)", ylabel="guesses",
                title="Guesses against the strategy's")
    axes[0].legend(loc="upper right", fontsize="small")
    extra = [g[3] - g[6] for g in games]
    axes[1].hist(extra, bins=range(min(extra), max(extra) + 2), color="#b3261e", align="left")
    axes[1].set(xlabel="your guesses - strategy's", ylabel="games", title="Extra guesses")
    text = (f"<p>{len(games)} solved games with the strategy's figure, in "
            f"{html.escape(str(path))}.</p>" + table + figure_svg(fig))
    return [StatsSection("Mastermind", text)]


def _warm_up() -> None:
    """Load the scan kernel, the engine and the optimal tree of the default 4 x 6 game
    (compiled on a first run), so the first page waits for none of them."""
    game = Game(4, 6, "breaker", 0)
    game.best()
    advice.advise("most-parts", 5, 4, 0, [])


PLUGIN = GamePlugin(
    name="mastermind", title="Mastermind", page=_page, new=_new, state=_state,
    actions={"guess": _guess, "hint": _hint, "best": _best, "answer": _reply, "undo": _undo,
             "giveup": _give_up, "strategy": _strategy, "load": _load},
    check_records=_check_records, stats=_stats, warm_up=_warm_up)
"""The Mastermind page's plugin (see :mod:`jitgames.web`)."""
