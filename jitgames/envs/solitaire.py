"""``jitgames/Solitaire-v0``: play one deal of the solitaire of ``docs/solitaire.md``.

The deal is deal ``index`` of ``seed`` (:func:`jitgames.solitaire.deals`, the deals
of ``jitgames solitaire --show SEED INDEX`` and of the study); moves are made by the
rule kernels of :mod:`jitgames.solitaire.rules`, and ``info["optimal_score"]`` is the
deal's exact optimal score from :mod:`jitgames.solitaire.search` (the solver sees the
face-down cards: it is the score of perfect play with every card known), so an
agent's result is measured against perfect play.

Spaces:

- action: ``Discrete(16)``: action ``i`` makes the ``i``-th legal move, in the order
  of :func:`jitgames.solitaire.rules.legal_moves` (at most 16 moves exist);
- observation: a dict of
  ``"status"`` (int8, 52): the card-status vector, card id ``suit*13 + rank-1`` ->
  0 face down, 1 on its foundation, 2 face up and covered, 3 exposed
  (:func:`jitgames.solitaire.rules.card_status`);
  ``"piles"`` (int8, 7 x 52): pile ``p``'s cards bottom to top, ``-1`` above the top,
  face-down cards shown as :data:`FACE_DOWN_CARD` (52) unless ``show_face_down``;
  ``"moves"`` (int8, 16 x 2): the legal moves as (card moved, destination pile),
  ``-1`` in unused rows;
  ``"action_mask"`` (int8, 16): 1 for the actions that make a legal move.

Reward: the cards a move sends to the foundations (automatic plays included); the
cards that go there right after the deal are in the starting ``info["score"]``, so
``info["score"]`` at the end is the game's score. The episode ends when no move is
left; an action outside the mask ends it too, with reward 0 and
``info["illegal_action"] = True``.
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces

from .._jit import jit
from .._random import stream_key
from ..errors import InputError
from ..solitaire.console import draw_board
from ..solitaire.deal import SHUFFLES, fisher_yates_deck, naive_deck
from ..solitaire.rules import (DOWN, FOUNDATION, LENGTH, MAX_MOVES, N_CARDS, N_PILES, PILE_STRIDE,
                               PILES, SCORE, apply_move, card_status, legal_moves, new_position,
                               piles_of)
from ..solitaire.search import PositionSolver, make_scratch, solve_rows
from ._render import TextEnv, check_render_mode

__all__ = ["SolitaireEnv", "observe_position", "FACE_DOWN_CARD", "optimal_score"]

FACE_DOWN_CARD = N_CARDS  # the value of a face-down card in the "piles" observation
MAX_SEED = 2**64 - 1


@jit
def observe_position(pos, show_face_down, status, piles):
    """Fill ``status`` (52) with :func:`card_status` of every card and ``piles`` (7 x 52)
    with the cards of each pile bottom to top, ``-1`` above its top and
    ``FACE_DOWN_CARD`` for face-down cards unless ``show_face_down``."""
    for card in range(N_CARDS):
        status[card] = card_status(pos, card)
    for p in range(N_PILES):
        length = pos[LENGTH + p]
        down = pos[DOWN + p]
        for i in range(PILE_STRIDE):
            if i >= length:
                piles[p, i] = -1
            elif i < down and not show_face_down:
                piles[p, i] = FACE_DOWN_CARD
            else:
                piles[p, i] = pos[PILES + p * PILE_STRIDE + i]


def deal_deck(seed: int, index: int, shuffle: str) -> np.ndarray:
    """Deal ``index`` of ``seed``, the row :func:`jitgames.solitaire.deals` gives, made by
    the same shuffle kernel without its parallel loop (whose start-up costs more than
    one deal)."""
    deck = np.empty(N_CARDS, dtype=np.int64)
    shuffled = naive_deck if shuffle == "naive" else fisher_yates_deck
    # a kernel returns a uint64 as a Python int: typed back to uint64 for the next kernel
    shuffled(np.uint64(stream_key(np.uint64(seed), np.uint64(index))), deck)
    return deck


def optimal_score(deck: np.ndarray, scratch=None) -> int:
    """The optimal score of one validated deal (:func:`jitgames.solitaire.solve_deals`)."""
    scratch = make_scratch(1) if scratch is None else scratch
    return int(solve_rows(np.asarray(deck, dtype=np.int64)[None, :], True, scratch)[0, 0])


def _check_deal_number(name: str, value) -> None:
    """A deal's seed or index: None (drawn at reset) or an integer 0 .. 2**64 - 1."""
    if value is not None and (not isinstance(value, (int, np.integer))
                              or not 0 <= value <= MAX_SEED):
        raise InputError(f"{name} must be an integer from 0 to 2**64 - 1, got {value!r}")


class SolitaireEnv(TextEnv):
    """One deal of the solitaire, move by move.

    Parameters
    ----------
    seed, index : int, optional
        The deal: deal ``index`` of ``seed`` (each 0 .. 2**64 - 1). When either is
        None it is drawn from ``np_random`` at every reset (``index`` below 2**62).
        ``reset(options={"seed": s, "index": i})`` overrides both for one episode.
    shuffle : str
        The shuffle of :func:`jitgames.solitaire.deals` (``"fisher-yates"``).
    show_face_down : bool
        Reveal the face-down cards in the ``"piles"`` observation (default: hidden).
    solve : bool
        Compute ``info["optimal_score"]`` at every reset (milliseconds for most
        deals); False leaves it None.
    reachable : bool
        Also solve the position after every step: ``info["reachable"]`` is the optimal
        score still reachable from it (:class:`jitgames.solitaire.search.PositionSolver`),
        so the cards a move throws away show at once. Default False (a search a step).
    render_mode : str, optional
        ``"ansi"``: :meth:`render` returns the board as ``jitgames solitaire play``
        draws it (face-down cards as ``##`` unless ``show_face_down``); ``"human"``
        prints it after every reset and step.

    ``info``: ``"score"`` (cards on the foundations), ``"optimal_score"``,
    ``"seed"`` and ``"index"`` of the deal, ``"action_mask"``, and with ``reachable``
    also ``"reachable"``.
    """

    def __init__(self, seed: int | None = None, index: int | None = None,
                 shuffle: str = "fisher-yates", show_face_down: bool = False,
                 solve: bool = True, reachable: bool = False, render_mode: str | None = None):
        _check_deal_number("seed", seed)
        _check_deal_number("index", index)
        if shuffle not in SHUFFLES:
            raise InputError(f"shuffle must be one of {', '.join(SHUFFLES)}, got {shuffle!r}")
        check_render_mode(render_mode)
        self.deal_seed, self.deal_index, self.shuffle = seed, index, shuffle
        self.show_face_down, self.solve, self.render_mode = bool(show_face_down), solve, render_mode
        self.action_space = spaces.Discrete(MAX_MOVES)
        self.observation_space = spaces.Dict({
            "status": spaces.Box(0, 3, shape=(N_CARDS,), dtype=np.int8),
            "piles": spaces.Box(-1, FACE_DOWN_CARD, shape=(N_PILES, PILE_STRIDE), dtype=np.int8),
            # column 0 a card (0 .. 51), column 1 a pile (0 .. 6); -1 in unused rows
            "moves": spaces.Box(-1, np.tile(np.array([N_CARDS - 1, N_PILES - 1], np.int8),
                                            (MAX_MOVES, 1)), dtype=np.int8),
            "action_mask": spaces.Box(0, 1, shape=(MAX_MOVES,), dtype=np.int8),
        })
        self._scratch = make_scratch(1) if solve else None
        self._position_solver = PositionSolver() if reachable else None
        self._moves = np.zeros(MAX_MOVES, dtype=np.int64)
        self._count = 0
        self.deck = deal_deck(0, 0, shuffle)
        self.position = new_position(self.deck)
        self._info: dict = {}

    def _refresh_moves(self) -> None:
        self._count = int(legal_moves(self.position, self._moves, 0))

    def _observation(self):
        status = np.empty(N_CARDS, dtype=np.int8)
        piles = np.empty((N_PILES, PILE_STRIDE), dtype=np.int8)
        observe_position(self.position, self.show_face_down, status, piles)
        moves = np.full((MAX_MOVES, 2), -1, dtype=np.int8)
        legal = self._moves[:self._count]
        moves[:self._count, 0] = legal // 8
        moves[:self._count, 1] = legal % 8
        mask = np.zeros(MAX_MOVES, dtype=np.int8)
        mask[:self._count] = 1
        return {"status": status, "piles": piles, "moves": moves, "action_mask": mask}

    def _info_now(self, observation, **extra) -> dict:
        if self._position_solver is not None:
            extra["reachable"] = self._position_solver.score(self.position)
        return dict(self._info, score=int(self.position[SCORE]),
                    action_mask=observation["action_mask"].copy(), **extra)

    def _reset(self, options: dict):
        deal_seed = options.get("seed", self.deal_seed)
        index = options.get("index", self.deal_index)
        _check_deal_number("seed", deal_seed)
        _check_deal_number("index", index)
        if deal_seed is None:
            deal_seed = int(self.np_random.integers(2**63))
        if index is None:
            index = int(self.np_random.integers(2**62))
        self.deck = deal_deck(int(deal_seed), int(index), self.shuffle)
        self.position = new_position(self.deck)
        self._refresh_moves()
        best = optimal_score(self.deck, self._scratch) if self.solve else None
        self._info = {"optimal_score": best, "seed": int(deal_seed), "index": int(index)}
        observation = self._observation()
        return observation, self._info_now(observation)

    def _step(self, action):
        action = int(action)
        if not 0 <= action < self._count:
            # Also when no move is left at the deal: the game is over at once.
            observation = self._observation()
            extra = {"illegal_action": True} if self._count else {}
            return observation, 0.0, True, False, self._info_now(observation, **extra)
        before = int(self.position[SCORE])
        apply_move(self.position, self._moves[action])
        self._refresh_moves()
        observation = self._observation()
        reward = float(self.position[SCORE] - before)
        return observation, reward, self._count == 0, False, self._info_now(observation)

    def legal_moves(self) -> list[int]:
        """The legal moves (``card * 8 + pile``) in action order."""
        return self._moves[:self._count].tolist()

    def drawing(self) -> str:
        """The board as ``jitgames solitaire play`` draws it (face-down cards ``##``, or
        in brackets with ``show_face_down``)."""
        foundations = [int(h) for h in self.position[FOUNDATION:FOUNDATION + 4]]
        return draw_board(piles_of(self.position), foundations, colour=False,
                          reveal=self.show_face_down)
