"""Kalah at the terminal: a person against the computer, or the computer against itself.

The person enters pit numbers ``1 .. m`` on their own side, counted in sowing order
(South's pits 1..m from left to right along the bottom row, North's 1..m from right to
left along the top row), ``q`` to resign. Input is read line by line from
``sys.stdin``; an illegal or malformed move is refused with the reason and asked
again; end of input abandons the game cleanly.

``--tree D`` prints, after every computer move, the alpha-beta tree of that decision
down to ``D`` plies: each line is a move with its backed-up value (South's view);
moves not searched because of a cut-off are listed as ``cut off``. The tree is
traced by :func:`trace_tree`, a Python transcription of the root search of
:mod:`.search` that calls the same kernels, so its values and node count are those
of the kernel (a test checks it).

Typing ``?`` instead of a pit asks for a hint: the computer searches the person's
position as it would its own, names every equally good pit (:func:`hint`) and prints
the tree to ``max(D, 1)`` plies.

Random choice among equally good moves is on by default, as the text asks: the
seed is drawn from the system and printed, and ``--seed S`` replays the game (with
the same answers from the person); ``--no-random`` takes the lowest such pit instead.
``--no-ordering`` searches the moves in pit order (same moves and values, more
nodes); ``--evaluation store+win`` is the text's win rule (``docs/kalah.md``).
"""
from __future__ import annotations

import secrets
import sys

import numpy as np

from ..errors import InputError
from .._cli import CLIError, int_in_range, shorten
from .._random import stream_key
from .evaluation import EVALUATIONS, WIN_SUFFIX, evaluate, parse_evaluation
from .rules import (NORTH, SOUTH, VARIANTS, apply_move, final_margin, is_over, legal_moves,
                    new_board, undo_move)
from .search import ALPHABETA, INF, choose_move, order_moves, root_values

NAMES = ("South", "North")


def draw_board(board) -> str:
    """The board as text: North's row on top (pit numbers above), stores at the ends."""
    m = (len(board) - 2) // 2
    north = [int(board[2 * m - j]) for j in range(m)]   # left to right on screen
    south = [int(board[j]) for j in range(m)]
    cells = lambda row: "".join(f"[{v:>2}]" for v in row)  # noqa: E731
    numbers = lambda labels: "".join(f" {x:>2} " for x in labels)  # noqa: E731
    pad = " " * 5
    return "\n".join([
        f"{pad}{numbers(range(m, 0, -1))}   North",
        f"{pad}{cells(north)}",
        f"[{int(board[2 * m + 1]):>2}] {' ' * (4 * m)}[{int(board[m]):>2}]",
        f"{pad}{cells(south)}",
        f"{pad}{numbers(range(1, m + 1))}   South",
    ])


def pit_index(m: int, player: int, number: int) -> int:
    """Board index of ``player``'s pit ``number`` (1..m)."""
    return number - 1 if player == SOUTH else m + number


def pit_number(m: int, index: int) -> int:
    """Pit number (1..m) shown to people for a board index."""
    return index + 1 if index < m else index - m


def parse_move(text: str, board, player: int) -> int:
    """Board index of the move typed as ``text``; InputError with the reason if refused."""
    m = (len(board) - 2) // 2
    text = text.strip()
    try:
        number = int(text) if len(text) <= 6 else None  # int() refuses 5,000 digits
    except ValueError:
        number = None
    if number is None:
        raise InputError(f"not a pit number: {shorten(text)} (type 1..{m}, or q to resign)")
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
    print(f"hint: pit{'s' if len(moves) > 1 else ''} {pits} [value {value}, "
          f"{args.depth} plies]", file=out)
    _, _, _, lines = trace_tree(board, player, args.depth, weights, variant, args.ordering,
                                max(args.tree, 1))
    print("search tree (values from South's view):", file=out)
    print("\n".join("  " + x for x in lines), file=out)


def _ask_move(board, player, out, on_hint=None):
    """Read the person's move from stdin until legal; None on resignation or end of input.

    ``?`` calls ``on_hint()`` and asks again.
    """
    m = (len(board) - 2) // 2
    while True:
        print(f"{NAMES[player]} to move, pit (1..{m}, ? for a hint, q to resign)? ", end="",
              file=out, flush=True)
        try:
            line = sys.stdin.readline()
        except UnicodeDecodeError:  # bytes that are not text: ask again
            print("refused: not text in the terminal's encoding", file=out)
            continue
        if line == "":
            print("\nend of input: game abandoned.", file=out)
            return None
        if line.strip().lower() in ("q", "quit", "resign"):
            print(f"{NAMES[player]} resigns.", file=out)
            return None
        if line.strip() == "?" and on_hint is not None:
            on_hint()
            continue
        try:
            return parse_move(line, board, player)
        except InputError as exc:
            print(f"refused: {exc}", file=out)


def add_parser(sub) -> None:
    """Register the ``play`` sub-command."""
    p = sub.add_parser("play", help="play Kalah at the terminal")
    p.add_argument("--pits", type=int_in_range(1, 10), default=6, help="pits a side (6)")
    p.add_argument("--stones", type=int_in_range(1, 10), default=4, help="stones a pit (4)")
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
    p.set_defaults(run=run_play)


def run_play(args) -> int:
    """Play one game; returns 0 (also when the person resigns or input ends)."""
    if 2 * args.pits * args.stones > 127:
        raise CLIError(f"{2 * args.pits * args.stones} stones do not fit an int8 board "
                       f"(at most 127)")
    weights = parse_evaluation(args.evaluation, args.pits)
    variant = VARIANTS[args.variant]
    human = {"south": SOUTH, "north": NORTH, "none": None}[args.human]
    player = SOUTH if args.first == "south" else NORTH
    board = new_board(args.pits, args.stones)
    if not args.randomize and args.seed is not None:
        raise CLIError("--seed chooses among equally good moves; it has no use with --no-random")
    if args.randomize and args.seed is None:
        args.seed = secrets.randbelow(2**62 + 1)
    key = np.uint64(stream_key(args.seed, 0)) if args.randomize else np.uint64(0)
    counter = 0
    out = sys.stdout
    print(f"Kalah({args.pits},{args.stones}), {args.variant} rules; computer searches "
          f"{args.depth} plies with the {args.evaluation} evaluation"
          f"{'' if args.ordering else ', no move ordering'}.", file=out)
    if args.randomize:
        print(f"Random choice among equally good moves, seed {args.seed} "
              f"(replay with --seed {args.seed}).", file=out)
    else:
        print("Of equally good moves the computer takes the lowest pit.", file=out)
    while True:  # every game ends: stones only move towards the stores
        print(draw_board(board), file=out)
        if is_over(board):
            break
        if player == human:
            move = _ask_move(board, player, out, lambda: _print_hint(
                board, player, args, weights, variant, out))
            if move is None:
                return 0
        else:
            nodes = np.zeros(1, dtype=np.int64)
            move, value, counter = choose_move(board, player, args.depth, weights, variant,
                                               ALPHABETA, args.ordering, args.randomize,
                                               key, counter, nodes)
            move = int(move)
            print(f"{NAMES[player]} (computer) plays pit {pit_number(args.pits, move)}"
                  f"  [value {int(value)}, {int(nodes[0])} nodes]", file=out)
            if args.tree:
                _, _, _, lines = trace_tree(board, player, args.depth, weights, variant,
                                            args.ordering, args.tree)
                print("search tree (values from South's view):", file=out)
                print("\n".join("  " + x for x in lines), file=out)
        player, _ = apply_move(board, player, move, variant)
    margin = int(final_margin(board))
    m = args.pits
    south = int(board[m]) + int(board[:m].sum())
    north = int(board[2 * m + 1]) + int(board[m + 1:2 * m + 1].sum())
    result = ("a draw" if margin == 0 else
              f"South wins by {margin}" if margin > 0 else f"North wins by {-margin}")
    print(f"Game over: South {south}, North {north} -- {result}.", file=out)
    return 0
