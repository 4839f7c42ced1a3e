"""Kalah(m, n): rules, alpha-beta play, tournaments and exact solutions of small boards.

Public API::

    from jitgames.kalah import new_board, best_move, solve
    board = new_board(6, 4)
    best_move(board, depth=8).move      # a pit index, South's pits are 0..5
    solve(4, 3).value                   # +8: South wins Kalah(4, 3) by 8 stones

    from jitgames.kalah import Game, Coach  # the game model of the console and the page
    game = Game(3, 3)
    game.apply(0).extra_turn            # True: the last stone fell in South's store
    Coach().advise(game).values         # every move's value from the mover's side
"""
from .evaluation import evaluate, parse_evaluation, symmetric_weights, weights_for
from .rules import (EMPTY_CAPTURE, NORTH, SOUTH, STANDARD, VARIANTS, apply_move, final_margin,
                    is_over, legal_moves, new_board, undo_move)
from .game import (Advice, Coach, Computer, Game, IllegalMove, MoveReport, Opponent,
                   format_position, parse_opponent, parse_position)
from .search import Decision, best_move
from .solver import Solution, Solver, solve

__all__ = [
    "EMPTY_CAPTURE", "STANDARD", "VARIANTS", "SOUTH", "NORTH",
    "new_board", "legal_moves", "apply_move", "undo_move", "is_over", "final_margin",
    "evaluate", "weights_for", "symmetric_weights", "parse_evaluation",
    "best_move", "Decision", "solve", "Solver", "Solution",
    "Game", "MoveReport", "IllegalMove", "Coach", "Advice", "Opponent", "Computer",
    "parse_opponent", "format_position", "parse_position",
]
