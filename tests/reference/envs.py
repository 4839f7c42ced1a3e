"""Slow, obvious twins of the environment kernels (same names and signatures)."""
from __future__ import annotations

from tests.reference.mastermind import feedback_digits
from tests.reference.solitaire import card_status, game_of

FACE_DOWN_CARD = 52


def narrow_consistent(digits, counts, pegs, guess, answer, consistent):
    for s in range(len(consistent)):
        if consistent[s] and feedback_digits(digits[guess], counts[guess], digits[s],
                                             counts[s], pegs) != answer:
            consistent[s] = 0
    return int(sum(1 for flag in consistent if flag))


def observe_position(pos, show_face_down, status, piles):
    for card in range(52):
        status[card] = card_status(pos, card)
    piles[:, :] = -1
    for p, (down, cards) in enumerate(game_of(pos)[0]):
        for i, card in enumerate(cards):
            piles[p, i] = card if show_face_down or i >= down else FACE_DOWN_CARD


def observe_board(board, player, mover, moves, seen, mask):
    m = (len(board) - 2) // 2
    own = list(range(m + 1)) if player == 0 else list(range(m + 1, 2 * m + 2))
    other = list(range(m + 1, 2 * m + 2)) if player == 0 else list(range(m + 1))
    for i, index in enumerate(own + other):
        seen[i] = board[index]
    for pit in range(m):
        # a pit may be sown when the game is not over and it holds stones
        over = sum(board[:m]) == 0 or sum(board[m + 1:2 * m + 1]) == 0
        mask[pit] = int(player == mover and not over and board[own[pit]] > 0)


def play_pit(board, player, pit, variant):
    from tests.reference import kalah

    following, _ = kalah.apply_move(board, player, pit, variant)
    if kalah.is_over(board):
        return following, True, kalah.final_margin(board)
    return following, False, 0
