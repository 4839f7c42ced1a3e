"""Batched solitaire: N deals in arrays, one parallel kernel call a step.

The kernel under ``jitgames/Solitaire-v0``'s vector environment
(:class:`jitgames.envs.vector.SolitaireVectorEnv`). Each game is a position array of
:mod:`jitgames.solitaire.rules` (a row of an ``(N, POSITION_SIZE)`` int64 array) with
its legal moves; a step makes the chosen move with the rules' ``apply_move``, lists the
new legal moves with ``legal_moves`` and writes the observation with the single
environment's :func:`jitgames.envs.solitaire.observe_position`. Deals are dealt, and
solved, in Python at (auto)reset, from each sub-environment's own generator.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._jit import jit, prange
from .._random import below, stream_key
from ..solitaire.deal import fisher_yates_deck
from ..solitaire.rules import (MAX_MOVES, N_CARDS, N_PILES, PILE_STRIDE, POSITION_SIZE, SCORE,
                              apply_move, deal_position, legal_moves)
from .solitaire import observe_position

__all__ = ["Tableaus", "new_tableaus", "play_moves", "random_games"]


class Tableaus(NamedTuple):
    """State of ``N`` games and their observation arrays (one row each).

    Attributes
    ----------
    positions : np.ndarray
        int64 ``(N, POSITION_SIZE)``: the rules' position arrays.
    moves : np.ndarray
        int64 ``(N, MAX_MOVES)``: the legal moves (``card * 8 + pile``) in action order.
    count : np.ndarray
        int64 ``(N,)``: legal moves.
    status : np.ndarray
        int8 ``(N, 52)``: the ``"status"`` observation.
    piles : np.ndarray
        int8 ``(N, 7, 52)``: the ``"piles"`` observation.
    move_rows : np.ndarray
        int8 ``(N, MAX_MOVES, 2)``: the ``"moves"`` observation (card, pile; -1 unused).
    mask : np.ndarray
        int8 ``(N, MAX_MOVES)``: the ``"action_mask"`` observation.
    """

    positions: np.ndarray
    moves: np.ndarray
    count: np.ndarray
    status: np.ndarray
    piles: np.ndarray
    move_rows: np.ndarray
    mask: np.ndarray


def new_tableaus(count: int, position_size: int) -> Tableaus:
    """Zeroed state of ``count`` games (to be dealt)."""
    return Tableaus(np.zeros((count, position_size), np.int64),
                    np.zeros((count, MAX_MOVES), np.int64), np.zeros(count, np.int64),
                    np.zeros((count, N_CARDS), np.int8),
                    np.zeros((count, N_PILES, PILE_STRIDE), np.int8),
                    np.zeros((count, MAX_MOVES, 2), np.int8), np.zeros((count, MAX_MOVES), np.int8))


@jit
def _play_one(games, i, action, active, show_face_down, reward, terminated, illegal):
    """Game ``i``'s part of :func:`play_moves`."""
    reward[i] = 0.0
    terminated[i] = False
    illegal[i] = False
    position = games.positions[i]
    if active:
        if 0 <= action < games.count[i]:
            before = position[SCORE]
            apply_move(position, games.moves[i, action])
            reward[i] = np.float64(position[SCORE] - before)
            games.count[i] = legal_moves(position, games.moves[i], 0)
            terminated[i] = games.count[i] == 0
        else:
            # also when no move is left at the deal: the game is over at once
            terminated[i] = True
            illegal[i] = games.count[i] > 0
    else:
        games.count[i] = legal_moves(position, games.moves[i], 0)
    observe_position(position, show_face_down, games.status[i], games.piles[i])
    for k in range(MAX_MOVES):
        legal = k < games.count[i]
        games.move_rows[i, k, 0] = games.moves[i, k] // 8 if legal else -1
        games.move_rows[i, k, 1] = games.moves[i, k] % 8 if legal else -1
        games.mask[i, k] = 1 if legal else 0


@jit(parallel=True)
def play_moves(games, actions, active, show_face_down, reward, terminated, illegal):
    """Game ``i`` with ``active[i]`` makes its legal move number ``actions[i]`` (an
    action outside ``0 .. count-1`` ends the game; ``illegal[i]`` when a move was left);
    games not active (just dealt) list their legal moves. Then every game's
    observation arrays; ``reward[i]``: cards the move sent to the foundations."""
    for i in prange(games.positions.shape[0]):
        _play_one(games, i, actions[i], active[i], show_face_down, reward, terminated, illegal)


@jit(parallel=True)
def random_games(seed, scores, plies):
    """Play ``len(scores)`` whole solitaire games of uniformly random legal moves in one
    call: game ``g`` plays deal ``g`` of ``seed`` (the Fisher-Yates deal of
    ``jitgames solitaire``, from ``stream_key(seed, g)``) and draws its moves from the
    stream ``stream_key(stream_key(seed, g), 1)``, each the ``k``-th of the legal moves in
    action order, until no move is left. ``scores[g]``: cards on the foundations at the
    end; ``plies[g]``: moves made. Each game owns its position, so the results do not
    depend on the thread count."""
    for g in prange(scores.shape[0]):
        deck = np.empty(N_CARDS, np.int64)
        position = np.empty(POSITION_SIZE, np.int64)
        moves = np.empty(MAX_MOVES, np.int64)
        key = stream_key(seed, g)
        fisher_yates_deck(key, deck)
        deal_position(deck, position)
        draws = stream_key(key, 1)
        counter = 0
        played = 0
        count = legal_moves(position, moves, 0)
        while count > 0:
            pick, counter = below(draws, counter, count)
            apply_move(position, moves[pick])
            played += 1
            count = legal_moves(position, moves, 0)
        scores[g] = position[SCORE]
        plies[g] = played
