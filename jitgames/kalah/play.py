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
"""
from __future__ import annotations

import sys

import numpy as np

from ..errors import InputError
from .._cli import CLIError, int_in_range
from .._random import stream_key
from .evaluation import EVALUATIONS, evaluate, parse_evaluation
from .rules import (NORTH, SOUTH, VARIANTS, apply_move, final_margin, is_over, legal_moves,
                    new_board, undo_move)
from .search import ALPHABETA, INF, choose_move, order_moves

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
    """Board index of the move typed as ``text``; ValueError with the reason if refused."""
    m = (len(board) - 2) // 2
    text = text.strip()
    try:
        number = int(text)
    except ValueError:
        raise InputError(f"not a pit number: {text!r} (type 1..{m}, or q to resign)") from None
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


def _ask_move(board, player, out):
    """Read the person's move from stdin until legal; None on resignation or end of input."""
    m = (len(board) - 2) // 2
    while True:
        print(f"{NAMES[player]} to move, pit (1..{m}, q to resign)? ", end="", file=out,
              flush=True)
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
                        f"for North, or 2m+2; each from -10^9 to 10^9)")
    p.add_argument("--human", choices=["south", "north", "none"], default="south",
                   help="side the person takes; none: the computer plays itself")
    p.add_argument("--first", choices=["south", "north"], default="south",
                   help="who moves first (south)")
    p.add_argument("--variant", choices=list(VARIANTS), default="empty-capture")
    p.add_argument("--seed", type=int_in_range(0, 2**62), default=None,
                   help="random choice among equally good moves from this seed, 0..2^62 "
                        "(default: lowest pit, reproducible)")
    p.add_argument("--tree", type=int_in_range(0, 20), default=0, metavar="D",
                   help="print the search tree of each computer decision to D plies")
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
    key = np.uint64(stream_key(args.seed, 0)) if args.seed is not None else np.uint64(0)
    counter = 0
    out = sys.stdout
    print(f"Kalah({args.pits},{args.stones}), {args.variant} rules; computer searches "
          f"{args.depth} plies with the {args.evaluation} evaluation.", file=out)
    while True:  # every game ends: stones only move towards the stores
        print(draw_board(board), file=out)
        if is_over(board):
            break
        if player == human:
            move = _ask_move(board, player, out)
            if move is None:
                return 0
        else:
            nodes = np.zeros(1, dtype=np.int64)
            move, value, counter = choose_move(board, player, args.depth, weights, variant,
                                               ALPHABETA, True, args.seed is not None, key,
                                               counter, nodes)
            move = int(move)
            print(f"{NAMES[player]} (computer) plays pit {pit_number(args.pits, move)}"
                  f"  [value {int(value)}, {int(nodes[0])} nodes]", file=out)
            if args.tree:
                _, _, _, lines = trace_tree(board, player, args.depth, weights, variant,
                                            True, args.tree)
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
