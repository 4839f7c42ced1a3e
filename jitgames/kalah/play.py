"""Kalah at the terminal: a person against the computer, or the computer against itself.

Everything about the position goes through the game model :class:`.game.Game`
(moves, what a move did, undo, the text form) and its coach :class:`.game.Coach`, the
same ones the web page uses.

At their turn the person types (``help`` lists it all, with the rules):

- a pit number ``1 .. m`` on their own side, counted in sowing order (South's pits
  1..m from left to right along the bottom row, North's 1..m from right to left along
  the top row); an illegal or malformed move is refused with the reason and asked again;
- ``?`` or ``hint``: the computer searches the person's position as it would its own,
  names every equally good pit (:func:`hint`) and prints the tree to ``max(D, 1)``
  plies;
- ``values``: the value of every legal move from the mover's side, by perfect play
  where the exact solver answers within about a second (:data:`.game.PERFECT_STONES`),
  by alpha-beta otherwise;
- ``undo``: take back the person's last move and the computer's replies (any number
  of times); ``position``: the one-line text form of the position (``--position``
  starts a game from one);
- ``q``: resign. End of input abandons the game cleanly (not recorded).

Every move is announced with what it did: a capture (how many stones, from which
pit) and an extra turn, so two moves in a row by the computer are both shown. Values
printed with a move are from the mover's side. Colours (South cyan, North yellow) are
used when the output is a terminal (``--no-colour`` turns them off).

Opponents (``--opponent``): ``alpha-beta`` (the default: ``--depth`` plies with
``--evaluation``), ``random`` (a uniformly random legal move) or ``perfect`` (the exact
solver; only on the boards it handles quickly, see :data:`.game.PERFECT_STONES`).

``--tree D`` prints, after every alpha-beta move, the tree of that decision down to
``D`` plies: each line is a move with its backed-up value (South's view, as the tree
says); moves not searched because of a cut-off are listed as ``cut off``. The tree is
traced by :func:`trace_tree`, a Python transcription of the root search of
:mod:`.search` that calls the same kernels, so its values and node count are those
of the kernel (a test checks it).

Random choice among equally good moves is on by default, as the text asks: the
seed is drawn from the system and printed, and ``--seed S`` replays the game (with
the same answers from the person); ``--no-random`` takes the lowest such pit instead.
``--no-ordering`` searches the moves in pit order (same moves and values, more
nodes); ``--evaluation store+win`` is the text's win rule (``docs/kalah.md``).

A game the person finishes or resigns is stored in the Kalah results database
(:mod:`.records`, ``--db``, ``--name``); ``jitgames kalah stats`` shows the results by
opponent.
"""
from __future__ import annotations

import getpass
import secrets
import sys

import numpy as np

from ..errors import InputError
from .._cli import add_db, int_in_range, shorten
from .._random import stream_key
from .evaluation import EVALUATIONS, WIN_SUFFIX, evaluate, parse_evaluation
from .game import (NAMES, Coach, Computer, Game, Opponent, pit_index, pit_number)
from .records import DB_FILE, KalahRecord, open_db, record_game
from .rules import NORTH, SOUTH, VARIANTS, apply_move, is_over, legal_moves, undo_move
from .search import ALPHABETA, INF, choose_move, order_moves, root_values

MAX_NAME = 100  # longest player name, as in the solitaire records
_RESET = "\x1b[0m"
_BOLD = "\x1b[1m"
_SIDE_COLOURS = ("\x1b[36m", "\x1b[33m")   # South cyan, North yellow


def _paint(text: str, player: int, colour: bool, bold: bool = False) -> str:
    if not colour:
        return text
    return f"{_BOLD if bold else ''}{_SIDE_COLOURS[player]}{text}{_RESET}"


def draw_board(board, colour: bool = False) -> str:
    """The board as text: North's row on top (pit numbers above), South's below,
    the stores at the ends labelled with their owner (North's on the left)."""
    m = (len(board) - 2) // 2
    north = [int(board[2 * m - j]) for j in range(m)]   # left to right on screen
    south = [int(board[j]) for j in range(m)]
    cells = lambda row: "".join(f"[{v:>2}]" for v in row)  # noqa: E731
    numbers = lambda labels: "".join(f" {x:>2} " for x in labels)  # noqa: E731
    pad = " " * 10
    north_store = _paint(f"[{int(board[2 * m + 1]):>2}]", NORTH, colour, True)
    south_store = _paint(f"[{int(board[m]):>2}]", SOUTH, colour, True)
    return "\n".join([
        f"{pad}{numbers(range(m, 0, -1))}  North's pits (sown right to left)",
        f"{pad}{_paint(cells(north), NORTH, colour)}",
        f"North {north_store}{' ' * (4 * m)}{south_store} South  <- stores",
        f"{pad}{_paint(cells(south), SOUTH, colour)}",
        f"{pad}{numbers(range(1, m + 1))}  South's pits (sown left to right)",
    ])


def parse_move(text: str, board, player: int) -> int:
    """Board index of the move typed as ``text``; InputError with the reason if refused."""
    m = (len(board) - 2) // 2
    text = text.strip()
    try:
        number = int(text) if len(text) <= 6 else None  # int() refuses 5,000 digits
    except ValueError:
        number = None
    if number is None:
        raise InputError(f"not a pit number: {shorten(text)} (type 1..{m}, help for the "
                         f"commands, or q to resign)")
    if not 1 <= number <= m:
        raise InputError(f"no pit {number}: your pits are numbered 1..{m}")
    index = pit_index(m, player, number)
    if board[index] == 0:
        raise InputError(f"pit {number} is empty; choose a pit with stones")
    return index


def trace_tree(board, player, depth, weights, variant, ordering=True, show=2):
    """Alpha-beta root search as in :func:`.search.choose_move` (no random ties),
    recording the tree. Returns ``(move, value, nodes, lines)``; ``lines`` show the
    tree to ``show`` plies."""
    board = board.copy()
    lines: list[str] = []
    nodes = [0]
    m = (len(board) - 2) // 2

    def label(who, move):
        return f"{NAMES[who]} pit {pit_number(m, move)}"

    def visit(who, d, alpha, beta, ply):
        nodes[0] += 1
        if d == 0 or is_over(board):
            return int(evaluate(board, weights))
        moves = np.zeros(m, dtype=np.int64)
        n = legal_moves(board, who, moves)
        if ordering and d > 1:
            order_moves(board, who, moves, n, weights, variant, np.zeros(m, dtype=np.int64))
        best = -INF if who == SOUTH else INF
        for i in range(n):
            nxt, record = apply_move(board, who, moves[i], variant)
            at = len(lines)
            value = visit(nxt, d - 1, alpha, beta, ply + 1)
            undo_move(board, who, record)
            if ply < show:
                lines.insert(at, f"{'  ' * ply}{label(who, moves[i])}: {value}")
            if who == SOUTH:
                best = max(best, value)
                alpha = max(alpha, best)
            else:
                best = min(best, value)
                beta = min(beta, best)
            if alpha >= beta:
                if ply < show and i + 1 < n:
                    cut = ", ".join(str(pit_number(m, x)) for x in moves[i + 1:n])
                    lines.append(f"{'  ' * ply}cut off (alpha {alpha} >= beta {beta}): "
                                 f"{NAMES[who]} pits {cut}")
                break
        return best

    moves = np.zeros(m, dtype=np.int64)
    n = legal_moves(board, player, moves)
    if ordering and depth > 1:
        order_moves(board, player, moves, n, weights, variant, np.zeros(m, dtype=np.int64))
    nodes[0] += 1
    best, chosen = (-INF if player == SOUTH else INF), -1
    for i in range(n):
        nxt, record = apply_move(board, player, moves[i], variant)
        at = len(lines)
        if player == SOUTH:
            value = visit(nxt, depth - 1, best - 1, INF, 1)
        else:
            value = visit(nxt, depth - 1, -INF, best + 1, 1)
        undo_move(board, player, record)
        lines.insert(at, f"{label(player, moves[i])}: {value}")
        if (value > best) if player == SOUTH else (value < best):
            best, chosen = value, int(moves[i])
        elif value == best and moves[i] < chosen:
            chosen = int(moves[i])
    return chosen, best, nodes[0], lines


def hint(board, player, depth, weights, variant, ordering=True):
    """Every equally good move for ``player`` by a ``depth``-ply alpha-beta search.

    Returns ``(moves, value)``: the board indices (ascending) of the moves whose
    backed-up value is the best one, and that value (South's view). The root search
    gives moves that tie the best their exact value (:mod:`.search`), so the list is
    complete.
    """
    m = (len(board) - 2) // 2
    moves = np.zeros(m, dtype=np.int64)
    values = np.zeros(m, dtype=np.int64)
    n = root_values(board.copy(), player, depth, weights, variant, ALPHABETA, ordering,
                    moves, values, np.zeros(1, dtype=np.int64))
    if n == 0:
        return [], int(evaluate(board, weights))
    best = int(values[:n].max() if player == SOUTH else values[:n].min())
    return sorted(int(moves[i]) for i in range(n) if values[i] == best), best


def _print_hint(board, player, args, weights, variant, out):
    m = (len(board) - 2) // 2
    moves, value = hint(board, player, args.depth, weights, variant, args.ordering)
    pits = ", ".join(str(pit_number(m, x)) for x in moves)
    mine = value if player == SOUTH else -value
    print(f"hint: pit{'s' if len(moves) > 1 else ''} {pits} [value {mine} for "
          f"{NAMES[player]}, {args.depth} plies]", file=out)
    _, _, _, lines = trace_tree(board, player, args.depth, weights, variant, args.ordering,
                                max(args.tree, 1))
    print("search tree (values from South's view):", file=out)
    print("\n".join("  " + x for x in lines), file=out)


def print_values(game: Game, coach: Coach, out) -> None:
    """The coach's value of every legal move, from the mover's side."""
    advice = coach.advise(game)
    m = game.pits
    shown = ", ".join(f"pit {pit_number(m, p)}: {v:+d}" for p, v in zip(advice.moves,
                                                                        advice.values))
    best = ", ".join(str(pit_number(m, p)) for p in advice.best)
    meaning = ("final margin with perfect play" if advice.method == "perfect" else
               "store lead at the search horizon")
    print(f"values for {NAMES[game.player]} ({advice.describe()}; {meaning}, from "
          f"{NAMES[game.player]}'s side): {shown}; best: pit{'s' if len(advice.best) > 1 else ''}"
          f" {best}", file=out)


def announce(report, m: int, colour: bool = False) -> list[str]:
    """Lines telling what a move did besides sowing: capture, extra turn."""
    who = NAMES[report.player]
    lines = []
    if report.capture:
        other = f"{NAMES[1 - report.player]}'s pit {pit_number(m, report.captured_from)}"
        taken = report.capture - 1
        lines.append(f"  capture! {who}'s last stone fell in an empty pit of its own: it "
                     + (f"and the {taken} stone{'s' if taken > 1 else ''} of {other} go"
                        if taken else f"goes ({other} opposite is empty)")
                     + f" to {who}'s store.")
    if report.extra_turn:
        lines.append(f"  {who}'s last stone fell in {who}'s store: {who} moves again.")
    return [_paint(x, report.player, colour, True) for x in lines]


HELP = """\
Commands at your turn:
  {pits:<11} sow that pit of yours (pits are numbered in sowing order: South's 1..{m}
              left to right on the bottom row, North's 1..{m} right to left on the top)
  ? or hint   the computer's choice for you by its own search, with its tree
  values      the value of every move from your side (perfect play where the solver
              answers quickly, alpha-beta otherwise)
  undo        take back your last move and the computer's replies (again and again)
  position    the position's one-line text form (play it again with --position)
  help        this text;   q  resign
Rules: take all stones of one of your pits and sow them one by one counter-clockwise
(to the right along your row, into your store, along the other row), skipping the
opponent's store. Last stone in your store: you move again. Last stone in an empty pit
of yours: it and the stones of the opposite pit go to your store{rule}. The game ends
when either side's pits are empty; each player then takes the stones left on their
side. Most stones wins."""


def _help_text(game: Game) -> str:
    rule = "" if game.variant == "empty-capture" else " (only if that pit holds stones)"
    return HELP.format(m=game.pits, pits=f"1..{game.pits}", rule=rule)


RESIGNED, ABANDONED, UNDONE = "resigned", "abandoned", "undone"
"""What :func:`_ask_move` returns instead of a move."""


def _ask_move(game: Game, out, on_hint=None, on_values=None, on_undo=None):
    """Read the person's commands from stdin until a legal move; returns the move's
    board index, :data:`RESIGNED`, :data:`ABANDONED` (end of input) or :data:`UNDONE`
    (``on_undo()`` took moves back)."""
    m = game.pits
    player = game.player
    while True:
        print(f"{NAMES[player]} to move, pit (1..{m}, help, ?, values, undo, q)? ", end="",
              file=out, flush=True)
        try:
            line = sys.stdin.readline()
        except UnicodeDecodeError:  # bytes that are not text: ask again
            print("refused: not text in the terminal's encoding", file=out)
            continue
        if line == "":
            print("\nend of input: game abandoned. It is not recorded.", file=out)
            return ABANDONED
        command = line.strip().lower()
        if command in ("q", "quit", "resign"):
            print(f"{NAMES[player]} resigns.", file=out)
            return RESIGNED
        if command in ("help", "h"):
            print(_help_text(game), file=out)
            continue
        if command in ("position", "p", "pos"):
            print(f"position: {game.text()}", file=out)
            continue
        if command in ("?", "hint") and on_hint is not None:
            on_hint()
            continue
        if command in ("values", "v") and on_values is not None:
            on_values()
            continue
        if command in ("undo", "u") and on_undo is not None:
            if on_undo():
                return UNDONE
            continue
        try:
            return parse_move(line, game.board, player)
        except InputError as exc:
            print(f"refused: {exc}", file=out)


def add_parser(sub) -> None:
    """Register the ``play`` and ``stats`` sub-commands."""
    p = sub.add_parser("play", help="play Kalah at the terminal")
    p.add_argument("--pits", type=int_in_range(1, 10), default=6, help="pits a side (6)")
    p.add_argument("--stones", type=int_in_range(1, 10), default=4, help="stones a pit (4)")
    p.add_argument("--opponent", choices=["alpha-beta", "random", "perfect"],
                   default="alpha-beta",
                   help="the computer: alpha-beta search of --depth plies (default), "
                        "random legal moves, or perfect play by the exact solver (boards "
                        "it solves quickly: " + Coach.perfect_boards_text() + ")")
    p.add_argument("--depth", type=int_in_range(1, 20), default=6,
                   help="computer's search depth in plies (6)")
    p.add_argument("--evaluation", default="store",
                   help=f"{' or '.join(EVALUATIONS)} or comma-separated weights (m+1 mirrored "
                        f"for North, or 2m+2; each from -10^9 to 10^9), optionally followed "
                        f"by {WIN_SUFFIX}: the text's rule that the winner takes all, so a "
                        f"won game scores the maximum (docs/kalah.md)")
    p.add_argument("--human", choices=["south", "north", "none"], default="south",
                   help="side the person takes; none: the computer plays itself")
    p.add_argument("--first", choices=["south", "north"], default="south",
                   help="who moves first (south)")
    p.add_argument("--variant", choices=list(VARIANTS), default="empty-capture",
                   help="capture rule (default: empty-capture, capture also from an "
                        "empty opposite pit)")
    p.add_argument("--position", default=None, metavar="TEXT",
                   help="start from this position, as printed by the position command "
                        "(e.g. '3,3,3/0/3,3,3/0 s empty-capture'); replaces --pits, "
                        "--stones, --first and --variant")
    p.add_argument("--seed", type=int_in_range(0, 2**62), default=None,
                   help="seed of the random choice among equally good moves, 0..2^62 "
                        "(default: drawn from the system and printed, so that the game "
                        "can be replayed with --seed)")
    p.add_argument("--no-random", dest="randomize", action="store_false",
                   help="no random choice: of equally good moves the lowest pit")
    p.add_argument("--no-ordering", dest="ordering", action="store_false",
                   help="search moves in pit order instead of best static value first "
                        "(same moves, more nodes)")
    p.add_argument("--tree", type=int_in_range(0, 20), default=0, metavar="D",
                   help="print the search tree of each computer decision to D plies; "
                        "type ? at your turn for a hint with the tree of your move")
    p.add_argument("--name", default=None,
                   help="player name in the records (default: the user's)")
    add_db(p, DB_FILE, "Kalah game results")
    p.add_argument("--no-colour", "--no-color", dest="colour", action="store_false",
                   help="plain text even on a terminal")
    p.set_defaults(run=run_play)


def _user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no user name in the environment (e.g. a bare container)
        return "player"


def _checked_name(text: str | None) -> str:
    """The player's name for the records: ``--name`` checked, or the user's."""
    if text is None:
        return _user()
    name = text.strip()
    if not name or len(name) > MAX_NAME or not name.isprintable():
        raise InputError(f"--name: expected a name of 1 to {MAX_NAME} printable characters, "
                         f"got {text!r}")
    return name


def run_play(args) -> int:
    """Play one game; returns 0 (also when the person resigns or input ends)."""
    args.name = _checked_name(args.name)
    if args.position is not None:
        game = Game(position=args.position)
    else:
        if 2 * args.pits * args.stones > 127:
            raise InputError(f"{2 * args.pits * args.stones} stones do not fit an int8 board "
                             f"(at most 127)")
        game = Game(args.pits, args.stones, args.variant,
                    SOUTH if args.first == "south" else NORTH)
    m = game.pits
    weights = parse_evaluation(args.evaluation, m)
    variant = VARIANTS[game.variant]
    human = {"south": SOUTH, "north": NORTH, "none": None}[args.human]
    coach = Coach(depth=args.depth)
    if args.opponent == "perfect" and not coach.perfect_available(game):
        raise InputError(f"perfect play is offered where the exact solver answers within "
                         f"about a second: {Coach.perfect_boards_text()}")
    if not args.randomize and args.seed is not None:
        raise InputError("--seed chooses among equally good moves; it has no use with --no-random")
    if args.randomize and args.seed is None:
        args.seed = secrets.randbelow(2**62 + 1)
    key = np.uint64(stream_key(args.seed, 0)) if args.randomize else np.uint64(0)
    counter = 0
    opponent = (Opponent("alpha-beta", args.depth) if args.opponent == "alpha-beta" else
                Opponent(args.opponent))
    computer = Computer(opponent, coach, args.randomize, args.seed or 0)
    records = open_db(args.db) if human is not None else None  # before any play
    colour = args.colour and sys.stdout.isatty()
    out = sys.stdout
    hints = undos = 0
    try:
        if opponent.kind == "alpha-beta":
            print(f"Kalah({m},{game.stones if game.stones is not None else '?'}), "
                  f"{game.variant} rules; computer searches {args.depth} plies with the "
                  f"{args.evaluation} evaluation{'' if args.ordering else ', no move ordering'}.",
                  file=out)
        else:
            print(f"Kalah({m},{game.stones if game.stones is not None else '?'}), "
                  f"{game.variant} rules; the computer's play: {opponent.describe()}.", file=out)
        if args.randomize:
            print(f"Random choice among equally good moves, seed {args.seed} "
                  f"(replay with --seed {args.seed}).", file=out)
        else:
            print("Of equally good moves the computer takes the lowest pit.", file=out)
        if human is not None:
            print(f"You are {NAMES[human]} ({'bottom' if human == SOUTH else 'top'} row); "
                  f"{NAMES[game.player]} moves first. Type help for the commands and rules.",
                  file=out)
        show = True
        while True:  # every game ends: stones only move towards the stores
            if show:
                print(draw_board(game.board, colour), file=out)
            show = True
            if game.over:
                break
            player = game.player
            if player == human:
                def undo():
                    nonlocal undos
                    undone = game.undo_turn(human)
                    if not undone:
                        print("nothing to undo: you have not moved yet", file=out)
                        return False
                    undos += 1
                    moves = ", ".join(f"{NAMES[r.player]} pit {pit_number(m, r.pit)}"
                                      for r in undone)
                    print(f"undone: {moves}", file=out)
                    return True

                def on_hint():
                    nonlocal hints
                    hints += 1
                    _print_hint(game.board, player, args, weights, variant, out)

                def on_values():
                    nonlocal hints
                    hints += 1
                    print_values(game, coach, out)

                move = _ask_move(game, out, on_hint, on_values, undo)
                if move == UNDONE:
                    continue
                if move in (RESIGNED, ABANDONED):
                    if move == RESIGNED and records is not None:
                        _record(records, args, game, human, opponent, False, hints, undos)
                    return 0
                report = game.apply(move)
                print(f"{NAMES[player]} plays pit {pit_number(m, move)}.", file=out)
            else:
                if opponent.kind == "alpha-beta":
                    nodes = np.zeros(1, dtype=np.int64)
                    move, value, counter = choose_move(
                        game.board, player, args.depth, weights, variant, ALPHABETA,
                        args.ordering, args.randomize, key, counter, nodes)
                    move, value = int(move), int(value)
                    note = (f"value {value if player == SOUTH else -value} for "
                            f"{NAMES[player]}, {int(nodes[0])} nodes")
                else:
                    move, advice = computer.choose(game)
                    note = ("a random move" if advice is None else
                            f"value {advice.value_of(move)} for {NAMES[player]}, perfect play")
                print(f"{NAMES[player]} (computer) plays pit {pit_number(m, move)}  [{note}]",
                      file=out)
                if args.tree and opponent.kind == "alpha-beta":
                    _, _, _, lines = trace_tree(game.board, player, args.depth, weights,
                                                variant, args.ordering, args.tree)
                    print("search tree (values from South's view):", file=out)
                    print("\n".join("  " + x for x in lines), file=out)
                report = game.apply(move)
            for line in announce(report, m, colour):
                print(line, file=out)
        south, north = game.scores()
        print(f"Game over: South {south}, North {north} -- {game.result()}.", file=out)
        if records is not None:
            _record(records, args, game, human, opponent, True, hints, undos)
            print("Result recorded (jitgames kalah stats shows your results by opponent).",
                  file=out)
    finally:
        if records is not None:
            records.close()
    return 0


def _record(records, args, game: Game, human: int, opponent: Opponent, finished: bool,
            hints: int, undos: int) -> None:
    margin = game.margin() if human == SOUTH else -game.margin()
    name = opponent.name if opponent.kind != "alpha-beta" or args.evaluation == "store" else \
        f"{opponent.name} ({args.evaluation})"
    record_game(records, KalahRecord(
        player=args.name, opponent=name, pits=game.pits, stones=game.stones,
        variant=game.variant, side=NAMES[human].lower(), first=NAMES[game.first].lower(),
        start=game.start, margin=margin, finished=finished, moves=len(game.history),
        hints=hints, undos=undos, place="terminal"))
