"""Kalah(m, n) as a PettingZoo AEC environment (two agents) and as ``jitgames/Kalah-v0``
(one agent against a built-in opponent).

Both call the rule kernels of :mod:`jitgames.kalah.rules` (``legal_moves``,
``apply_move``, ``is_over``, ``final_margin``) on the shared board layout: South's
pits ``0 .. m-1``, South's store ``m``, North's pits ``m+1 .. 2m``, North's store
``2m+1``. Variant names are those of :data:`jitgames.kalah.rules.VARIANTS`
(``"empty-capture"``, the default, and ``"standard"``, OpenSpiel's rule).

Spaces (both environments):

- action: ``Discrete(m)``, the mover's pit ``0 .. m-1`` counted in sowing order from
  the mover's side (South's pit ``a`` is board index ``a``, North's is ``m + 1 + a``);
- observation: a dict with ``"observation"``, the board seen from the mover's side
  (int8, ``2m + 2``: own pits, own store, opponent's pits, opponent's store, the
  board rotated so the observer sits South), and ``"action_mask"`` (int8, ``m``,
  1 = legal; all zeros when it is not the observer's turn or the game is over).

Rewards come at the end only: South's final margin (stores plus the stones left on
each side, :func:`~jitgames.kalah.rules.final_margin`) for South and its negative for
North with ``reward="margin"``; its sign with ``reward="outcome"``.
An extra move (last stone in the mover's store) keeps the same agent selected.
"""
from __future__ import annotations

from functools import lru_cache

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .._jit import jit
from ..errors import InputError
from ..kalah.evaluation import weights_for
from ..kalah.play import draw_board
from ..kalah.rules import (NORTH, SOUTH, VARIANTS, apply_move, final_margin, is_over,
                           legal_moves, new_board, store_of)
from .._random import below, stream_key
from ..kalah.solver import Solver
from .kalah_batch import OPPONENT_CODES, Rules, _random_move, _search_move, reply
from ._render import RENDER_MODES, TextEnv, check_render_mode, render

__all__ = ["env", "raw_env", "KalahAEC", "KalahEnv", "PerfectPlayer", "perfect_player",
           "OPPONENTS", "REWARDS", "PERFECT_MAX_STONES"]

AGENTS = ("player_0", "player_1")  # South (moves first), North: PettingZoo's names
SIDES = ("south", "north")
REWARDS = ("margin", "outcome")
OPPONENTS = ("alphabeta", "perfect", "random")
PERFECT_MAX_STONES = 40
"""Largest board (stones in all) the ``"perfect"`` opponent plays: Kalah(5,4) is solved
from the opening in a few seconds with the default endgame database; Kalah(6,4) (48
stones) needs the 226 MB database and minutes (:mod:`jitgames.kalah.solver`)."""
SOLVER_TABLE_BITS = 20  # 16 MB transposition table for the perfect opponent


def _check_board_size(pits: int, stones: int, variant: str, reward: str) -> None:
    if not isinstance(pits, (int, np.integer)) or not 1 <= pits <= 20:
        raise InputError(f"pits must be an integer from 1 to 20, got {pits!r}")
    if not isinstance(stones, (int, np.integer)) or stones < 1 or 2 * pits * stones > 127:
        raise InputError(f"stones must be >= 1 with 2*pits*stones <= 127 (an int8 board), "
                         f"got pits={pits}, stones={stones}")
    if variant not in VARIANTS:
        raise InputError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    if reward not in REWARDS:
        raise InputError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")


@jit
def observe_board(board, player, mover, moves, seen, mask):
    """Fill ``seen`` with ``board`` from ``player``'s side (own pits and store first: the
    board rotated by ``m + 1`` for North) and ``mask`` (int8, ``m``) with ``player``'s
    legal pits when ``player == mover``, else zeros. ``moves``: int64 scratch, ``m``."""
    m = (board.shape[0] - 2) // 2
    size = board.shape[0]
    shift = 0 if player == SOUTH else m + 1
    for i in range(size):
        seen[i] = board[(i + shift) % size]
    mask[:] = 0
    if player == mover:
        count = legal_moves(board, player, moves)
        for k in range(count):
            mask[moves[k] - shift] = 1


@jit
def play_pit(board, player, pit, variant):
    """Sow ``pit`` for ``player`` in place (:func:`~jitgames.kalah.rules.apply_move`);
    return ``(next player, game over, South's final margin or 0)``, all in one call
    (each call from Python into a kernel costs microseconds)."""
    following, _ = apply_move(board, player, pit, variant)
    if is_over(board):
        return following, True, final_margin(board)
    return following, False, np.int64(0)


def pit_of_action(m: int, player: int, action: int) -> int:
    """Board index of ``player``'s pit number ``action`` (0 .. m-1, sowing order)."""
    return int(action) if player == SOUTH else m + 1 + int(action)


def observation(board: np.ndarray, player: int, mover: int, scratch: np.ndarray) -> dict:
    """The observation of ``player`` (fresh arrays) when ``mover`` is to move (-1: nobody)."""
    m = (board.shape[0] - 2) // 2
    seen = np.empty(2 * m + 2, dtype=np.int8)
    mask = np.empty(m, dtype=np.int8)
    observe_board(board, player, mover, scratch, seen, mask)
    return {"observation": seen, "action_mask": mask}


def result(margin: int, reward: str) -> float:
    """A final margin as a reward: itself, or its sign with ``reward="outcome"``."""
    return float(margin) if reward == "margin" else float(np.sign(margin))


def _observation_space(m: int, total: int) -> spaces.Dict:
    return spaces.Dict({
        "observation": spaces.Box(0, total, shape=(2 * m + 2,), dtype=np.int8),
        "action_mask": spaces.Box(0, 1, shape=(m,), dtype=np.int8),
    })


class KalahAEC(AECEnv):
    """Kalah(m, n) for two agents, ``"player_0"`` (South, moves first) and ``"player_1"``
    (North), named as in PettingZoo's classic games and numbered as in OpenSpiel.

    Parameters
    ----------
    pits, stones : int
        Pits a side ``m`` and stones a pit ``n`` at the start (``2mn <= 127``).
    variant : str
        Capture rule, a name of :data:`jitgames.kalah.rules.VARIANTS`.
    reward : str
        ``"margin"``: the final margin (own stones minus the opponent's);
        ``"outcome"``: +1, 0 or -1.
    render_mode : str, optional
        ``"ansi"``: :meth:`render` returns the board drawn as by ``jitgames kalah play``;
        ``"human"`` prints it after every step.

    An illegal action raises :class:`~jitgames.errors.InputError` here; :func:`env`
    wraps this class so that an illegal action ends the game instead.
    """

    metadata = {"render_modes": RENDER_MODES, "name": "kalah_v0", "is_parallelizable": False}

    def __init__(self, pits: int = 6, stones: int = 4, variant: str = "empty-capture",
                 reward: str = "margin", render_mode: str | None = None):
        super().__init__()
        _check_board_size(pits, stones, variant, reward)
        check_render_mode(render_mode)
        self.pits, self.stones, self.variant, self.reward_kind = pits, stones, variant, reward
        self.render_mode = render_mode
        self._variant = VARIANTS[variant]
        self.possible_agents = list(AGENTS)
        observation = _observation_space(pits, 2 * pits * stones)
        self.observation_spaces = {agent: observation for agent in AGENTS}
        # one space each, so that each agent's sampler has its own generator
        self.action_spaces = {agent: spaces.Discrete(pits) for agent in AGENTS}
        self._scratch = np.zeros(pits, dtype=np.int64)
        self.board = new_board(pits, stones)

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a game from the opening, South to move. The game has no randomness:
        ``seed`` seeds ``np_random`` and the agents' action spaces (agent ``k``'s with
        ``seed + k``), so that agents sampling from them play the same game again."""
        if seed is not None:
            self.np_random, self.np_random_seed = gymnasium.utils.seeding.np_random(seed)
            for k, agent in enumerate(AGENTS):
                self.action_spaces[agent].seed(seed + k)
        self.board = new_board(self.pits, self.stones)
        self.agents = list(AGENTS)
        self.rewards = {agent: 0.0 for agent in AGENTS}
        self._cumulative_rewards = {agent: 0.0 for agent in AGENTS}
        self.terminations = {agent: False for agent in AGENTS}
        self.truncations = {agent: False for agent in AGENTS}
        self.infos = {agent: {} for agent in AGENTS}
        self.agent_selection = AGENTS[SOUTH]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent):
        over = self.terminations[agent]
        mover = -1 if over else AGENTS.index(self.agent_selection)
        return observation(self.board, AGENTS.index(agent), mover, self._scratch)

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        player = AGENTS.index(agent)
        if not 0 <= int(action) < self.pits:
            raise InputError(f"action must be a pit from 0 to {self.pits - 1}, got {action}")
        pit = pit_of_action(self.pits, player, action)
        if self.board[pit] == 0:
            raise InputError(f"illegal action {action}: {agent}'s pit {action} is empty")
        self._cumulative_rewards[agent] = 0.0
        following, over, margin = play_pit(self.board, player, pit, self._variant)
        self.rewards = {a: 0.0 for a in AGENTS}
        if over:
            margin = int(margin)
            self.rewards = {AGENTS[SOUTH]: result(margin, self.reward_kind),
                            AGENTS[NORTH]: result(-margin, self.reward_kind)}
            self.terminations = {a: True for a in AGENTS}
            self.infos = {a: {"margin": margin if a == AGENTS[SOUTH] else -margin}
                          for a in AGENTS}
        else:
            self.agent_selection = AGENTS[following]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def drawing(self) -> str:
        """The board as ``jitgames kalah play`` draws it."""
        return draw_board(self.board)

    def render(self):
        return render(self.render_mode, self.drawing)

    def close(self) -> None:
        pass


def raw_env(pits: int = 6, stones: int = 4, variant: str = "empty-capture",
            reward: str = "margin", render_mode: str | None = None) -> KalahAEC:
    """The unwrapped :class:`KalahAEC`."""
    return KalahAEC(pits, stones, variant, reward, render_mode)


def env(pits: int = 6, stones: int = 4, variant: str = "empty-capture",
        reward: str = "margin", render_mode: str | None = None):
    """Kalah(``pits``, ``stones``) for two agents, wrapped as PettingZoo's classic games are.

    An illegal action ends the game (``TerminateIllegalWrapper``): the offender gets
    -1 with ``reward="outcome"``, minus all the stones (``-2mn``) with
    ``reward="margin"``, and the other agent 0.
    """
    base = raw_env(pits, stones, variant, reward, render_mode)
    penalty = -1.0 if reward == "outcome" else -float(2 * pits * stones)
    wrapped = wrappers.TerminateIllegalWrapper(base, illegal_reward=penalty)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


# ----------------------------------------------------------------------------- opponents

class PerfectPlayer:
    """Exact move values of one board size from the solver, remembered per position.

    Values are exact whatever the solver's table holds, so one player serves every
    environment of the process (:func:`perfect_player`) and a position's values,
    once known, are simply looked up again (up to :attr:`MAX_REMEMBERED` positions).
    """

    MAX_REMEMBERED = 1 << 20

    def __init__(self, pits: int, stones: int, variant: str):
        self.solver = Solver(pits, stones, variant, table_bits=SOLVER_TABLE_BITS)
        self.variant = VARIANTS[variant]
        self._known: dict[tuple[bytes, int], dict[int, int]] = {}

    def move_values(self, board: np.ndarray, player: int) -> dict[int, int]:
        """``{pit: value}`` of ``player``'s legal moves: the final margin the mover gains
        from here on (stores ignored) when both sides then play perfectly."""
        key = (board.tobytes(), player)
        values = self._known.get(key)
        if values is None:
            values = self._search(board, player)
            if len(self._known) >= self.MAX_REMEMBERED:
                self._known.clear()
            self._known[key] = values
        return values

    def choose(self, board: np.ndarray, player: int, key, counter: int) -> tuple[int, int]:
        """A move of the highest exact value for ``player`` and the next counter of
        stream ``key``: among equally good moves (ascending pit order) the
        ``below(key, counter, ties)``-th, drawn only when there are several (as
        :func:`jitgames.kalah.search.choose_move` breaks ties)."""
        values = self.move_values(board, player)
        best = max(values.values())
        ties = sorted(pit for pit, value in values.items() if value == best)
        if len(ties) == 1:
            return ties[0], counter
        pick, counter = below(np.uint64(key), counter, len(ties))
        return ties[int(pick)], int(counter)

    def _search(self, board: np.ndarray, player: int) -> dict[int, int]:
        m = (board.shape[0] - 2) // 2
        store = store_of(m, player)
        moves = np.zeros(m, dtype=np.int64)
        values = {}
        for pit in moves[:legal_moves(board, player, moves)].tolist():
            child = board.copy()
            following, _ = apply_move(child, player, pit, self.variant)
            gain = int(child[store]) - int(board[store])
            rest = self.solver.value(child, following)
            values[pit] = gain + rest if following == player else gain - rest
        return values


@lru_cache(maxsize=4)
def perfect_player(pits: int, stones: int, variant: str) -> PerfectPlayer:
    """The :class:`PerfectPlayer` of one board size, shared within the process."""
    return PerfectPlayer(pits, stones, variant)


def check_options(pits, stones, variant, reward, opponent, depth, side) -> None:
    """Refuse (:class:`~jitgames.errors.InputError`) options ``Kalah-v0`` cannot play."""
    _check_board_size(pits, stones, variant, reward)
    if opponent not in OPPONENTS:
        raise InputError(f"opponent must be one of {', '.join(OPPONENTS)}, got {opponent!r}")
    if not isinstance(depth, (int, np.integer)) or not 1 <= depth <= 20:
        raise InputError(f"depth must be an integer from 1 to 20, got {depth!r}")
    if side not in SIDES:
        raise InputError(f"side must be one of {', '.join(SIDES)}, got {side!r}")
    if opponent == "perfect" and 2 * pits * stones > PERFECT_MAX_STONES:
        raise InputError(f"the perfect opponent plays boards of at most "
                         f"{PERFECT_MAX_STONES} stones; Kalah({pits},{stones}) has "
                         f"{2 * pits * stones}")


class KalahEnv(TextEnv):
    """``jitgames/Kalah-v0``: one agent plays Kalah(m, n) against a built-in opponent.

    Parameters
    ----------
    pits, stones, variant, reward, render_mode
        As for :class:`KalahAEC`; rewards are from the agent's side.
    opponent : str
        ``"alphabeta"``: a ``depth``-ply alpha-beta search with the store-difference
        evaluation (the computer of ``jitgames kalah play``); ``"perfect"``: a move of
        the highest exact value by the solver (:mod:`jitgames.kalah.solver`; boards
        of at most :data:`PERFECT_MAX_STONES` stones); ``"random"``: a uniform legal
        move. Ties between equally good moves are broken at random: episode ``e``
        after ``reset(seed=s)`` draws from the SplitMix64 stream ``stream_key(base, e)``
        with ``base`` the first ``integers(2**63)`` of ``np_random``
        (:mod:`jitgames.envs.kalah_batch`; the vector environment does the same).
    depth : int
        Search depth of the ``"alphabeta"`` opponent, in plies (1 .. 20).
    side : str
        The agent's side, ``"south"`` (moves first) or ``"north"``.

    The opponent moves inside :meth:`step` (and in :meth:`reset` when it moves
    first) until it is the agent's turn again. An action outside the mask ends the
    episode with the worst reward (``-2mn``, or -1 with ``reward="outcome"``) and
    ``info["illegal_action"] = True``. ``info`` also has ``"action_mask"`` and, at
    the end, ``"margin"`` (the agent's final margin).
    """

    def __init__(self, pits: int = 6, stones: int = 4, variant: str = "empty-capture",
                 reward: str = "margin", opponent: str = "alphabeta", depth: int = 4,
                 side: str = "south", render_mode: str | None = None):
        check_options(pits, stones, variant, reward, opponent, depth, side)
        check_render_mode(render_mode)
        self.pits, self.stones, self.variant, self.reward_kind = pits, stones, variant, reward
        self.opponent, self.depth, self.render_mode = opponent, int(depth), render_mode
        self.player = SIDES.index(side)
        self._variant = VARIANTS[variant]
        self._weights = weights_for("store", pits)
        self._perfect = perfect_player(pits, stones, variant) if opponent == "perfect" else None
        self._scratch = np.zeros(pits, dtype=np.int64)
        self.observation_space = _observation_space(pits, 2 * pits * stones)
        self.action_space = spaces.Discrete(pits)
        self.board = new_board(pits, stones)
        self.to_move, self._over = SOUTH, False
        self._rules = Rules(stones, self._variant, self.player, OPPONENT_CODES[opponent],
                            self.depth, self._weights, reward == "outcome")
        self._key, self._counter = np.uint64(0), 0
        self._base, self._episode = None, 0
        self._mover = _search_move if opponent == "alphabeta" else _random_move

    # -- the opponent
    def _opponent_move(self) -> int:
        """The opponent's move (board index) in the current position (its turn)."""
        player = 1 - self.player
        if self.opponent == "perfect":
            pit, self._counter = self._perfect.choose(self.board, player, self._key,
                                                      self._counter)
            return int(pit)
        pit, self._counter = self._mover(self.board, player, self.depth, self._weights,
                                         self._variant, self._key, self._counter,
                                         self._scratch)
        return int(pit)

    def _play(self, pit: int) -> None:
        self.to_move, self._over, _ = play_pit(self.board, self.to_move, pit, self._variant)

    def _opponent_plays(self) -> None:
        if self.opponent != "perfect":
            # the batch's kernel, so that a game of a vector environment plays the same
            self.to_move, self._counter = reply(self.board, self.to_move, self._rules,
                                                self._key, self._counter, self._scratch,
                                                self._mover)
            self.to_move = int(self.to_move)
            self._over = bool(is_over(self.board))
        while self.to_move != self.player and not self._over:
            self._play(self._opponent_move())

    # -- the Gymnasium API
    def _observation(self):
        # legal_moves gives no move once the game is over
        return observation(self.board, self.player, self.to_move, self._scratch)

    def _margin(self) -> int:
        margin = int(final_margin(self.board))
        return margin if self.player == SOUTH else -margin

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._base = None  # a new seed: a new base key, episodes counted from 0
        return super().reset(seed=seed, options=options)

    def _reset(self, options: dict):
        self.board = new_board(self.pits, self.stones)
        self.to_move, self._over = SOUTH, False
        # Episode e draws from stream_key(base, e), base drawn from np_random when seeded
        # (as the vector environment does, jitgames.envs.kalah_batch).
        if self._base is None:
            self._base, self._episode = np.uint64(self.np_random.integers(2**63)), 0
        else:
            self._episode += 1
        self._key = np.uint64(stream_key(self._base, self._episode))
        self._counter = 0
        self._opponent_plays()
        observation = self._observation()
        return observation, {"action_mask": observation["action_mask"].copy()}

    def _step(self, action):
        m = self.pits
        if self._over:
            # Only on tiny boards can the opponent end the game before the agent moves.
            observation = self._observation()
            return observation, result(self._margin(), self.reward_kind), True, False, {
                "action_mask": observation["action_mask"].copy(), "margin": self._margin()}
        pit = pit_of_action(m, self.player, action)
        if not 0 <= int(action) < m or self.board[pit] == 0:
            observation = self._observation()
            penalty = -1.0 if self.reward_kind == "outcome" else -float(2 * m * self.stones)
            return observation, penalty, True, False, {
                "action_mask": observation["action_mask"].copy(), "illegal_action": True}
        self._play(pit)
        self._opponent_plays()
        observation = self._observation()
        info = {"action_mask": observation["action_mask"].copy()}
        if self._over:
            info["margin"] = self._margin()
            return observation, result(info["margin"], self.reward_kind), True, False, info
        return observation, 0.0, False, False, info

    def drawing(self) -> str:
        """The board as ``jitgames kalah play`` draws it."""
        return draw_board(self.board)
