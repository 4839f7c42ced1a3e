"""The Kalah page: ``/kalah?pits=M&stones=N&variant=V&opponent=O&side=S&first=F``.

The game is :class:`jitgames.kalah.game.Game`, the model the terminal console plays,
and the advice comes from its :class:`~jitgames.kalah.game.Coach` (one per server,
shared by every tab: it keeps the exact solvers' tables). This module only turns the
model's state into JSON and requests into its calls.

Query (and ``new`` body) fields, all optional: ``pits`` (1..10, default 6), ``stones``
(1..10, default 4; ``2 * pits * stones <= 127``), ``variant`` (``empty-capture`` or
``standard``), ``opponent`` (``random``, ``alpha-beta-D`` with D 1..14, ``perfect`` on
the boards the exact solver handles quickly, or ``none`` for two people at one
board; default ``alpha-beta-6``), ``side`` (the person's: ``south`` or ``north``),
``first`` (``south`` or ``north``), ``random`` (``1``: the computer chooses at random
among equally good moves, the default; ``0``: the lowest pit), ``seed`` (of that
choice; drawn when missing), ``position`` (a position's one-line text form, which
replaces the board fields), ``animate`` (``0`` turns the sowing animation off).

``board`` is the model's board (a finished game keeps the stones left in the pits,
as the rules module does); ``final`` is what the page draws once the game is over:
those stones swept into their owners' stores. Every answer's state carries ``events``: the moves the last request made (the
person's and the computer's replies, extra turns included), each with the board
before it and the pits its stones fell into one by one, so the page animates them and
announces captures and extra turns. A game against the computer is stored in the same
SQLite records as ``jitgames kalah play`` (``kalah_play.sqlite``) the moment it ends.
"""
from __future__ import annotations

import html
import secrets
import threading

from ..plugin import BadRequest, GamePlugin, Page, StatsSection, get_int, get_str
from ..stats import figure_svg, html_table, new_figure
from ... import _store
from ...errors import InputError
from ...kalah.game import (NAMES, PERFECT_STONES, Coach, Computer, Game, IllegalMove,
                           Opponent, parse_opponent, pit_number)
from ...kalah.records import DB_FILE, SCHEMA, KalahRecord, open_db, opponent_table, record_game
from ...kalah.rules import NORTH, SOUTH, VARIANTS

__all__ = ["PLUGIN", "WebKalah"]

MAX_SEED = 2**62
HINT_DEPTH = 8
SIDES = {"south": SOUTH, "north": NORTH}
_COACH = None
_COACH_LOCK = threading.Lock()


def _coach() -> Coach:
    """The server's coach, built on first use (thread-safe itself)."""
    global _COACH
    with _COACH_LOCK:
        if _COACH is None:
            _COACH = Coach(depth=HINT_DEPTH)
        return _COACH


class WebKalah:
    """A :class:`Game` in a browser tab: the person's side, the computer, the moves of
    the last request, and whether the end is stored."""

    def __init__(self, game: Game, opponent: Opponent | None, human: int, randomize: bool,
                 seed: int):
        self.game, self.opponent, self.human = game, opponent, human
        self.randomize, self.seed = randomize, seed
        coach = _coach()
        self.computer = Computer(opponent, coach, randomize, seed, 0) if opponent else None
        # the person's Best move draws among equally good moves from its own stream
        self.helper = Computer(Opponent("perfect"), coach, randomize, seed, 1)
        self.events: list = []
        self.hints = self.undos = 0
        self.recorded = False
        self.record_line = ""

    def people(self) -> tuple:
        """Sides the person plays (both when there is no computer)."""
        return (SOUTH, NORTH) if self.opponent is None else (self.human,)


# ----------------------------------------------------------------------------- input

def _choice(fields: dict, key: str, options, default: str) -> str:
    value = fields.get(key)
    if value in (None, ""):
        return default
    value = get_str(fields, key, 40).strip().lower()
    if value not in options:
        raise BadRequest(f"{key} must be one of {', '.join(options)}, got {value!r}")
    return value


def _flag(fields: dict, key: str, default: bool) -> bool:
    value = fields.get(key)
    if value in (None, ""):
        return default
    if isinstance(value, bool):
        return value
    if str(value).lower() in ("1", "true", "on", "yes"):
        return True
    if str(value).lower() in ("0", "false", "off", "no"):
        return False
    raise BadRequest(f"{key} must be 1 or 0, got {str(value)[:20]!r}")


def _options(fields: dict) -> dict:
    """The game a query or body asks for, checked (BadRequest / InputError with the reason)."""
    opponent_text = (get_str(fields, "opponent", 40) if fields.get("opponent") not in (None, "")
                     else "alpha-beta-6")
    opponent = None if opponent_text.strip().lower() in ("none", "people") else \
        parse_opponent(opponent_text)
    side = SIDES[_choice(fields, "side", SIDES, "south")]
    first = SIDES[_choice(fields, "first", SIDES, "south")]
    variant = _choice(fields, "variant", VARIANTS, "empty-capture")
    randomize = _flag(fields, "random", True)
    seed = (get_int(fields, "seed", 0, MAX_SEED) if fields.get("seed") not in (None, "")
            else None)
    position = fields.get("position")
    if position not in (None, ""):
        game = Game(position=get_str(fields, "position", 400))
    else:
        pits = get_int(fields, "pits", 1, 10, default=6)
        stones = get_int(fields, "stones", 1, 10, default=4)
        if 2 * pits * stones > 127:
            raise BadRequest(f"Kalah({pits},{stones}) has {2 * pits * stones} stones; at "
                             "most 127 fit")
        game = Game(pits, stones, variant, first)
    if opponent is not None and opponent.kind == "perfect" and not Coach.perfect_available(game):
        raise InputError(f"perfect play is offered where the exact solver answers within "
                         f"about a second: {Coach.perfect_boards_text()}; choose an "
                         "alpha-beta opponent for this board")
    return dict(game=game, opponent=opponent, human=side, randomize=randomize, seed=seed)


def _build(fields: dict) -> WebKalah:
    options = _options(fields)
    if options["seed"] is None:
        options["seed"] = secrets.randbelow(MAX_SEED + 1)
    web = WebKalah(**options)
    web.events = _computer_turns(web)
    return web


# ----------------------------------------------------------------------------- records

def _check_records(ctx) -> None:
    open_db(ctx.db_path(DB_FILE)).close()


def _store_end(web: WebKalah, ctx) -> None:
    """Store a game against the computer that has just ended (once)."""
    game = web.game
    if web.recorded or not game.over or web.opponent is None:
        return
    margin = game.margin() if web.human == SOUTH else -game.margin()
    with ctx.record_lock, open_db(ctx.db_path(DB_FILE)) as records:
        record_game(records, KalahRecord(
            player=ctx.player, opponent=web.opponent.name, pits=game.pits,
            stones=game.stones, variant=game.variant, side=NAMES[web.human].lower(),
            first=NAMES[game.first].lower(), start=game.start, margin=margin,
            finished=True, moves=len(game.history), hints=web.hints, undos=web.undos,
            place="web"))
        mine = [r for r in opponent_table(records, ctx.player)
                if r["opponent"] == web.opponent.name and r["pits"] == game.pits
                and r["stones"] == game.stones and r["variant"] == game.variant]
    web.recorded = True
    if mine:
        r = mine[0]
        web.record_line = (f"Your record against {web.opponent.describe()} on this board: "
                           f"{r['wins']} won, {r['draws']} drawn, {r['losses']} lost.")


# ----------------------------------------------------------------------------- state

def _event(report, before, m: int) -> dict:
    event = report.as_dict(m)
    event["before"] = [int(x) for x in before]
    return event


def _state(web: WebKalah, ctx) -> dict:
    game = web.game
    m = game.pits
    south, north = game.scores()
    if game.over:
        status = game.status()
        result = game.result()
        if web.opponent is not None:
            margin = game.margin() if web.human == SOUTH else -game.margin()
            result += (" -- you win" if margin > 0 else " -- you lose" if margin < 0 else "")
        coach = (f"Game over: {result}. The stones left in a row went to its owner's "
                 "store." + (" " + web.record_line if web.record_line else ""))
    else:
        status = game.status()
        mover = NAMES[game.player]
        yours = game.player in web.people()
        coach = (f"{mover} to move: click one of {mover}'s pits or type its number "
                 f"(1..{m})." if yours else f"{mover} (computer) is thinking...")
    board = [int(x) for x in game.board]
    final = board
    if game.over:   # each side's stones left in its pits go to its store
        final = [0] * m + [south] + [0] * m + [north]
    return {"pits": m, "stones": game.stones, "variant": game.variant,
            "board": board, "final": final, "player": NAMES[game.player].lower(),
            "over": game.over, "scores": [south, north], "status": status, "coach": coach,
            "people": [NAMES[p].lower() for p in web.people()],
            "opponent": web.opponent.name if web.opponent else "none",
            "opponent_text": web.opponent.describe() if web.opponent else "two people",
            "random": web.randomize, "seed": str(web.seed), "first": NAMES[game.first].lower(),
            "text": game.text(), "moves": len(game.history),
            "legal": game.legal_moves() if game.player in web.people() else [],
            "perfect": Coach.perfect_available(game), "events": web.events}


def _answer(web: WebKalah, ctx, message: str = "", **extra) -> dict:
    _store_end(web, ctx)
    return {"state": _state(web, ctx), "message": message, **extra}


def _describe(event_report, m: int) -> str:
    """What a move did, in words."""
    who = NAMES[event_report.player]
    text = f"{who} sowed pit {pit_number(m, event_report.pit)}"
    if event_report.capture:
        taken = event_report.capture - 1
        other = f"{NAMES[1 - event_report.player]}'s pit " \
                f"{pit_number(m, event_report.captured_from)}"
        text += (f": capture! {event_report.capture} stones (with {taken} from {other}) "
                 f"go to {who}'s store" if taken else
                 f": capture! the last stone goes to {who}'s store ({other} was empty)")
    if event_report.extra_turn:
        text += f"; last stone in {who}'s store: {who} moves again"
    return text


# ----------------------------------------------------------------------------- actions

def _computer_turns(web: WebKalah) -> list:
    """The computer's moves while it is its turn (several after extra turns)."""
    events = []
    game = web.game
    while web.computer is not None and not game.over and game.player not in web.people():
        before = game.board
        pit, _ = web.computer.choose(game)
        events.append(_event(game.apply(pit), before, game.pits))
    return events


def _play(web: WebKalah, pit: int, ctx, prefix: str = "") -> dict:
    game = web.game
    if not game.over and game.player not in web.people():
        raise IllegalMove("it is the computer's turn")
    before = game.board
    report = game.apply(pit)
    web.events = [_event(report, before, game.pits)] + _computer_turns(web)
    m = game.pits
    words = [_describe(report, m)]
    for event in web.events[1:]:
        words.append(f"{event['player'].capitalize()} (computer) sowed pit "
                     f"{event['pit_number']}"
                     + (f": capture of {event['capture']}" if event["capture"] else "")
                     + ("; moves again" if event["extra_turn"] else ""))
    return _answer(web, ctx, prefix + "; ".join(words) + ".")


def _move(web: WebKalah, body: dict, ctx) -> dict:
    game = web.game
    if "number" in body:   # a pit number typed, 1..m, of the side to move
        number = get_int(body, "number", 0, 99)
        if not 1 <= number <= game.pits:
            raise IllegalMove(f"no pit {number}: pits are numbered 1..{game.pits}")
        pit = number - 1 if game.player == SOUTH else game.pits + number
    else:
        pit = get_int(body, "pit", 0, 2 * game.pits + 1)
    return _play(web, pit, ctx)


def _advice(web: WebKalah):
    game = web.game
    if game.over:
        raise IllegalMove("no move is left: the game is over")
    if game.player not in web.people():
        raise IllegalMove("it is the computer's turn")
    return _coach().advise(game)


def _hint(web: WebKalah, body: dict, ctx) -> dict:
    advice = _advice(web)
    web.hints += 1
    m = web.game.pits
    pits = ", ".join(str(pit_number(m, p)) for p in advice.best)
    value = advice.best_value
    outlook = (f"{NAMES[advice.player]} ends the game {abs(value)} stones "
               f"{'ahead' if value > 0 else 'behind'}" if value else
               "the game ends in a draw") if advice.method == "perfect" else \
        f"store lead {value:+d} at the horizon"
    return _answer(web, ctx, f"Hint ({advice.describe()}): pit{'s' if len(advice.best) > 1 else ''}"
                   f" {pits} ({outlook}).", hint=advice.as_dict(m))


def _values(web: WebKalah, body: dict, ctx) -> dict:
    advice = _advice(web)
    web.hints += 1
    m = web.game.pits
    meaning = ("final margin with perfect play" if advice.method == "perfect" else
               "store lead at the search horizon")
    shown = ", ".join(f"pit {pit_number(m, p)}: {v:+d}" for p, v in zip(advice.moves,
                                                                        advice.values))
    return _answer(web, ctx, f"Values for {NAMES[advice.player]} ({advice.describe()}; "
                   f"{meaning}, from {NAMES[advice.player]}'s side): {shown}.",
                   values=advice.as_dict(m))


def _best(web: WebKalah, body: dict, ctx) -> dict:
    advice = _advice(web)
    web.hints += 1
    pit = web.helper.pick(advice.best)
    return _play(web, pit, ctx, f"Best move ({advice.describe()}): ")


def _undo(web: WebKalah, body: dict, ctx) -> dict:
    game = web.game
    if web.opponent is None:
        undone = game.undo()
    else:
        undone = game.undo_turn(web.human)
    if not undone:
        raise IllegalMove("nothing to undo: no move of yours has been made")
    web.undos += 1
    web.events = []   # a game is recorded once, at its first end
    m = game.pits
    moves = ", ".join(f"{NAMES[r.player]} pit {pit_number(m, r.pit)}" for r in undone)
    return _answer(web, ctx, f"Taken back: {moves}.")


def _new(body: dict, ctx) -> WebKalah:
    return _build(body)


# ----------------------------------------------------------------------------- page

RULES = """
<p>Two players, <b>South</b> (the bottom row) and <b>North</b> (the top row), each own
the row of pits on their side and the <b>store</b> at their right hand: South's store
is on the right, North's on the left. A move takes <b>all the stones of one of your
pits</b> and sows them one by one <b>counter-clockwise</b> (South's row to the right,
up into South's store, along North's row to the left, ...), skipping the opponent's
store.</p>
<ul>
<li><b>Extra turn:</b> the last stone falls in your own store: you move again.</li>
<li><b>Capture:</b> the last stone falls in an empty pit on your side: that stone and
the stones of the opposite pit go to your store <span id="rule-variant"></span>.</li>
<li><b>End:</b> as soon as either side's pits are all empty; each player then takes the
stones left on their side. Most stones wins.</li>
</ul>
<p>Click a pit of the side to move, or type its number (pits are numbered 1..m in
sowing order: South's from the left, North's from the right). <b>Hint</b> shows the
best pit, <b>Best move</b> plays it, <b>Values</b> writes under each pit its value
for the side to move: with perfect play (the exact solver, wherever it answers within
about a second) the final margin that side will end with; elsewhere the store lead at
the horizon of an alpha-beta search.</p>
"""


def _select(ident: str, label: str, options, chosen: str) -> str:
    items = "".join(f'<option value="{html.escape(v)}"{" selected" if v == chosen else ""}>'
                    f"{html.escape(t)}</option>" for v, t in options)
    return f'<label>{html.escape(label)} <select id="{ident}">{items}</select></label>'


def _page(query: dict, ctx) -> Page:
    options = _options(query)        # a bad query is a 400 page with the reason
    game = options["game"]
    opponent = options["opponent"]
    chosen = opponent.name if opponent is not None else "none"
    opponents = [("random", "random moves")] + [
        (f"alpha-beta-{d}", f"alpha-beta, {d} plies") for d in (1, 2, 4, 6, 8, 10)] + [
        ("perfect", "perfect play"), ("none", "nobody: two people")]
    if chosen not in [v for v, _ in opponents]:
        opponents.insert(-2, (chosen, opponent.describe()))
    controls = (
        '<button type="button" id="values">Values</button>'
        '<button type="button" id="skip">Skip animation</button>'
        + _select("opponent", "Opponent", opponents, chosen)
        + _select("side", "You play", [("south", "South"), ("north", "North")],
                  NAMES[options["human"]].lower())
        + _select("first", "First to move", [("south", "South"), ("north", "North")],
                  NAMES[game.first].lower())
        + f'<label>Pits <input id="pits" type="number" min="1" max="10" value="{game.pits}"></label>'
        + f'<label>Stones <input id="stones" type="number" min="1" max="10" '
          f'value="{game.stones or 4}"></label>'
        + _select("variant", "Captures", [("empty-capture", "also from an empty pit"),
                                          ("standard", "only with stones opposite")],
                  game.variant)
        + '<label><input id="random" type="checkbox"'
          f'{" checked" if options["randomize"] else ""}> random among equal moves</label>'
        + '<label><input id="animate" type="checkbox"'
          f'{"" if query.get("animate") in ("0", "false", "off") else " checked"}> '
          'animate sowing</label>')
    data = {k: v for k, v in query.items() if k in (
        "pits", "stones", "variant", "opponent", "side", "first", "random", "seed",
        "position")}
    board = ('<svg id="kalah-board" role="img" aria-label="The Kalah board: North\'s pits '
             'on top, South\'s below, North\'s store on the left, South\'s on the right" '
             'xmlns="http://www.w3.org/2000/svg" viewBox="0 0 800 300"></svg>')
    boards = ", ".join(f"{m} pits: up to {s} stones in play" for m, s in PERFECT_STONES.items())
    rules = RULES + (f"<p>Perfect play and exact values are available where the solver "
                     f"answers within about a second ({html.escape(boards)}); elsewhere "
                     f"Hint and Best move search {HINT_DEPTH} plies of alpha-beta.</p>")
    return Page(title=f"Kalah({game.pits},{game.stones or '?'})", board=board, rules=rules,
                controls=controls, data=data,
                keys=(("1..m", "sow that pit of the side to move"),
                      ("v", "values of every move"), ("Escape", "skip the animation")))


# ----------------------------------------------------------------------------- stats

def _stats(ctx) -> list:
    path = ctx.db_path(DB_FILE)
    with _store.open_records(path, DB_FILE, SCHEMA, write=False) as records:
        rows = opponent_table(records)
    if not rows:
        return [StatsSection("Kalah", "<p>No Kalah game recorded yet.</p>")]
    table = html_table(
        ["opponent", "board", "games", "won", "drawn", "lost", "resigned", "mean margin"],
        [[r["opponent"], f"Kalah({r['pits']},{r['stones'] if r['stones'] else '?'}) "
          f"{r['variant']}", r["games"], r["wins"], r["draws"], r["losses"], r["resigned"],
          float(r["mean_margin"])] for r in rows])
    by_opponent: dict = {}
    for r in rows:
        total = by_opponent.setdefault(r["opponent"], [0, 0, 0])
        total[0] += r["wins"]
        total[1] += r["draws"]
        total[2] += r["losses"]
    names = sorted(by_opponent)
    fig = new_figure(7.0, 2.6)
    axes = fig.subplots()
    left = [0] * len(names)
    for index, (label, colour) in enumerate((("won", "#2e7d32"), ("drawn", "#9e9e9e"),
                                             ("lost", "#b3261e"))):
        widths = [by_opponent[n][index] for n in names]
        axes.barh(names, widths, left=left, color=colour, label=label)
        left = [a + b for a, b in zip(left, widths)]
    axes.set(xlabel="games", title="Kalah results by opponent")
    axes.legend(loc="lower right", fontsize="small")
    text = (f"<p>Games against the computer, in {html.escape(str(path))} (also "
            "<code>jitgames kalah stats</code>).</p>" + table + figure_svg(fig))
    return [StatsSection("Kalah", text)]


def _warm_up() -> None:
    """Compile (first run) or load the search and solver kernels on a one-pit board:
    the kernels are the same for every board size, and its solver is tiny."""
    game = Game(1, 1)
    _coach().advise(game, "perfect")
    _coach().advise(game, "alpha-beta", 2)


PLUGIN = GamePlugin(
    name="kalah", title="Kalah", page=_page, new=_new, state=_state,
    actions={"move": _move, "hint": _hint, "best": _best, "undo": _undo,
             "values": _values},
    check_records=_check_records, stats=_stats, warm_up=_warm_up)
"""The Kalah page's plugin (see :mod:`jitgames.web`)."""
