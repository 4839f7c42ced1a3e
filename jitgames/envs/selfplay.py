"""Two-player Kalah in batches, for self-play: a plain array API and a PettingZoo
``ParallelEnv``.

:class:`KalahBatch` holds ``N`` games of Kalah(m, n) in arrays and steps them with one
parallel kernel call; both sides are played by the caller. It follows the rules and
rewards of the AEC environment :func:`jitgames.envs.kalah.env` (which
``tests/test_envs_selfplay.py`` checks game by game):

- ``legal_mask()``: ``(N, m)`` int8, the legal pits of the side to move (own pits in
  sowing order, 1 = legal), zeros in finished games;
- ``observations()``: ``(N, 2m + 2)`` int8, each board from the side to move (own pits,
  own store, opponent's pits, opponent's store);
- ``step(actions)``: the side to move of every unfinished game sows its pit
  ``actions[i]``; returns ``rewards`` ``(N, 2)`` (South, North; nonzero only on the
  step that ends a game) and ``terminated`` ``(N,)``. An illegal action ends the game:
  the offender gets ``-2mn`` (``-1`` with ``reward="outcome"``) and the other 0, as
  PettingZoo's ``TerminateIllegalWrapper`` does in the AEC environment. Finished
  games ignore their action until ``reset(mask)`` starts them again;
- ``returns()``: ``(N, 2)`` final rewards of finished games (0 elsewhere).

:class:`KalahParallelEnv` is one such game behind PettingZoo's parallel API: every
step takes an action from each agent and applies the one of the side to move (the
other agent's mask is all zeros, and its action is ignored).

Choices docs/design.md leaves open: the game is not randomised (the opening is fixed),
so seeds only seed the action spaces' samplers.
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from .._jit import jit, prange
from ..errors import InputError
from ..kalah.play import draw_board
from ..kalah.rules import SOUTH, VARIANTS, apply_move, final_margin, is_over
from . import kalah
from ._render import RENDER_MODES, check_render_mode, render

__all__ = ["KalahBatch", "KalahParallelEnv", "parallel_env", "play_pits", "observe_games"]


@jit(inline=True)
def _score(margin, outcome):
    if not outcome:
        return np.float64(margin)
    return np.float64(1.0) if margin > 0 else (np.float64(-1.0) if margin < 0 else 0.0)


@jit
def _play_one(boards, to_move, over, i, action, variant, penalty, outcome, rewards):
    board = boards[i]
    m = board.shape[0] // 2 - 1
    rewards[i, 0] = 0.0
    rewards[i, 1] = 0.0
    if over[i]:
        return
    player = to_move[i]
    pit = action if player == SOUTH else m + 1 + action
    if action < 0 or action >= m or board[pit] == 0:
        rewards[i, player] = penalty
        over[i] = True
        return
    following, _ = apply_move(board, player, pit, variant)
    to_move[i] = following
    if is_over(board):
        margin = final_margin(board)
        rewards[i, 0] = _score(margin, outcome)
        rewards[i, 1] = _score(-margin, outcome)
        over[i] = True


@jit(parallel=True)
def play_pits(boards, to_move, over, actions, variant, penalty, outcome, rewards):
    """The side to move of every unfinished game ``i`` sows its pit ``actions[i]``
    (``0 .. m-1`` from its side); ``rewards[i]`` (float64, South and North) gets the
    final rewards of a game ended by this step, else zeros. An illegal action ends the
    game with ``penalty`` for the offender. ``over`` (bool) marks finished games."""
    for i in prange(boards.shape[0]):
        _play_one(boards, to_move, over, i, actions[i], variant, penalty, outcome, rewards)


@jit
def _observe_one(boards, to_move, over, i, seen, mask):
    board = boards[i]
    size = board.shape[0]
    m = size // 2 - 1
    shift = 0 if to_move[i] == SOUTH else m + 1
    for j in range(size):
        seen[i, j] = board[(j + shift) % size]
    for j in range(m):
        mask[i, j] = 1 if board[shift + j] > 0 and not over[i] else 0


@jit(parallel=True)
def observe_games(boards, to_move, over, seen, mask):
    """Each board from the side to move into ``seen`` (int8 ``(N, 2m + 2)``) and its
    legal pits into ``mask`` (int8 ``(N, m)``, zeros in finished games)."""
    for i in prange(boards.shape[0]):
        _observe_one(boards, to_move, over, i, seen, mask)


class KalahBatch:
    """``num_games`` two-player games of Kalah(``pits``, ``stones``) in arrays.

    Parameters
    ----------
    num_games : int
        Games in the batch, ``N``.
    pits, stones, variant, reward
        As for :func:`jitgames.envs.kalah.env`.

    Attributes
    ----------
    boards : np.ndarray
        int8 ``(N, 2m + 2)`` in the shared layout (``docs/design.md``).
    to_move : np.ndarray
        int8 ``(N,)``: 0 South, 1 North.
    over : np.ndarray
        bool ``(N,)``: finished games.
    """

    def __init__(self, num_games: int, pits: int = 6, stones: int = 4,
                 variant: str = "empty-capture", reward: str = "margin"):
        if not isinstance(num_games, (int, np.integer)) or num_games < 1:
            raise InputError(f"num_games must be a positive integer, got {num_games!r}")
        kalah._check_board_size(pits, stones, variant, reward)
        self.num_games, self.pits, self.stones = int(num_games), pits, stones
        self.variant, self.reward_kind = variant, reward
        self._variant = VARIANTS[variant]
        self._penalty = -1.0 if reward == "outcome" else -float(2 * pits * stones)
        self.boards = np.zeros((self.num_games, 2 * pits + 2), dtype=np.int8)
        self.to_move = np.zeros(self.num_games, dtype=np.int8)
        self.over = np.zeros(self.num_games, dtype=np.bool_)
        self._returns = np.zeros((self.num_games, 2), dtype=np.float64)
        self.reset()

    def reset(self, mask=None) -> None:
        """Start the games of ``mask`` (bool ``(N,)``; all when None) from the opening."""
        which = (np.ones(self.num_games, dtype=np.bool_) if mask is None
                 else np.asarray(mask, dtype=np.bool_))
        if which.shape != (self.num_games,):
            raise InputError(f"mask must have shape ({self.num_games},), got {which.shape}")
        m = self.pits
        self.boards[which] = self.stones
        self.boards[which, m] = 0
        self.boards[which, 2 * m + 1] = 0
        self.to_move[which] = SOUTH
        self.over[which] = False
        self._returns[which] = 0.0

    def observations(self) -> np.ndarray:
        """Every board from its side to move, int8 ``(N, 2m + 2)`` (a fresh array)."""
        seen, mask = self._observe()
        return seen

    def legal_mask(self) -> np.ndarray:
        """Legal pits of the side to move, int8 ``(N, m)`` (a fresh array)."""
        seen, mask = self._observe()
        return mask

    def _observe(self):
        seen = np.empty_like(self.boards)
        mask = np.empty((self.num_games, self.pits), dtype=np.int8)
        observe_games(self.boards, self.to_move, self.over, seen, mask)
        return seen, mask

    def step(self, actions):
        """Play ``actions`` (int ``(N,)``); return ``(rewards (N, 2), terminated (N,))``."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_games,) or not np.issubdtype(actions.dtype, np.integer):
            raise InputError(f"actions must be {self.num_games} integers, got shape "
                             f"{actions.shape} of {actions.dtype}")
        before = self.over.copy()
        rewards = np.empty((self.num_games, 2), dtype=np.float64)
        play_pits(self.boards, self.to_move, self.over, actions.astype(np.int64, copy=False),
                  self._variant, self._penalty, self.reward_kind == "outcome", rewards)
        terminated = self.over & ~before
        self._returns[terminated] = rewards[terminated]
        return rewards, terminated

    def returns(self) -> np.ndarray:
        """Final rewards (South, North) of finished games, zeros elsewhere."""
        return self._returns.copy()


class KalahParallelEnv(ParallelEnv):
    """Kalah(m, n) for two agents behind PettingZoo's parallel API (one game).

    Agents, spaces and rewards are those of :class:`jitgames.envs.kalah.KalahAEC`.
    Each step takes both agents' actions and plays the one of the side to move (the
    other agent's mask is all zeros and its action is ignored, so any action will do);
    an illegal action ends the game with the penalty of :func:`jitgames.envs.kalah.env`.
    ``reset(seed=s)`` seeds the agents' action spaces (their ``sample``), the game
    itself having no randomness.
    """

    metadata = {"render_modes": RENDER_MODES, "name": "kalah_parallel_v0"}

    def __init__(self, pits: int = 6, stones: int = 4, variant: str = "empty-capture",
                 reward: str = "margin", render_mode: str | None = None):
        check_render_mode(render_mode)
        self.batch = KalahBatch(1, pits, stones, variant, reward)
        self.render_mode = render_mode
        self.possible_agents = list(kalah.AGENTS)
        self.agents = []
        observation = kalah._observation_space(pits, 2 * pits * stones)
        self.observation_spaces = {a: observation for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(pits) for a in self.possible_agents}

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def _observations(self) -> dict:
        board = self.batch.boards[0]
        mover = -1 if self.batch.over[0] else int(self.batch.to_move[0])
        scratch = np.zeros(self.batch.pits, dtype=np.int64)
        return {agent: kalah.observation(board, k, mover, scratch)
                for k, agent in enumerate(self.possible_agents)}

    def reset(self, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            for k, agent in enumerate(self.possible_agents):
                self.action_spaces[agent].seed(seed + k)
        self.batch.reset()
        self.agents = list(self.possible_agents)
        if self.render_mode == "human":
            self.render()
        return self._observations(), {agent: {} for agent in self.agents}

    def step(self, actions: dict):
        mover = self.possible_agents[int(self.batch.to_move[0])]
        if mover not in actions:
            raise InputError(f"no action for {mover}, the agent to move")
        rewards, terminated = self.batch.step(np.array([int(actions[mover])]))
        over = bool(terminated[0])
        observations = self._observations()
        rewards = {agent: float(rewards[0, k]) for k, agent in enumerate(self.possible_agents)}
        terminations = {agent: over for agent in self.agents}
        truncations = {agent: False for agent in self.agents}
        infos = {agent: {} for agent in self.agents}
        if over:
            if is_over(self.batch.boards[0]):
                margin = int(final_margin(self.batch.boards[0]))
                infos = {agent: {"margin": margin if k == SOUTH else -margin}
                         for k, agent in enumerate(self.possible_agents)}
            else:
                infos[mover]["illegal_action"] = True
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def render(self):
        return render(self.render_mode, lambda: draw_board(self.batch.boards[0]))

    def close(self) -> None:
        pass


def parallel_env(pits: int = 6, stones: int = 4, variant: str = "empty-capture",
                 reward: str = "margin", render_mode: str | None = None) -> KalahParallelEnv:
    """Kalah(``pits``, ``stones``) for two agents, PettingZoo's parallel API."""
    return KalahParallelEnv(pits, stones, variant, reward, render_mode)
