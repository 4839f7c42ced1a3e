"""Native Gymnasium vector environments: N games in arrays, one kernel call a step.

``gymnasium.make_vec("jitgames/Kalah-v0", num_envs=N, vectorization_mode=
"vector_entry_point", ...)`` (and the same for ``Mastermind-v0`` and ``Solitaire-v0``)
builds the classes of this module. Each equals ``N`` copies of the single environment
stepped one by one by Gymnasium's own ``SyncVectorEnv`` (``vectorization_mode="sync"``),
observation for observation, reward for reward and info for info, which
``tests/test_envs_vector.py`` checks:

- seeds per sub-environment as Gymnasium gives them: ``reset(seed=s)`` seeds
  sub-environment ``i`` with ``s + i`` (or ``seed`` may be a list of ``N`` seeds);
  ``reset(options={"reset_mask": mask})`` resets only the masked ones;
- autoreset ``NEXT_STEP`` (Gymnasium 1.x's default, declared in
  ``metadata["autoreset_mode"]``): the step after one that ended an episode
  starts the next episode, ignoring that sub-environment's action;
- observations are the single environment's spaces batched (``(N, ...)`` arrays);
  ``info`` is batched as Gymnasium does it, each key with its ``_key`` mask, and
  ``info["action_mask"]`` is ``(N, actions)``.

The number of threads of the kernels is Numba's (``numba.set_num_threads`` or
:func:`jitgames._jit.threads`); results do not depend on it. Against the random
opponent, Kalah's steps on two threads or more are shared with the environment's step
pool (:mod:`jitgames.envs.step_pool`), whose workers spin about a millisecond after
each step and then sleep; ``close()`` stops them.
"""
from __future__ import annotations

import weakref

import gymnasium
import numba
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .._jit import compiled_entry
from ..errors import InputError
from ..kalah.evaluation import weights_for
from ..kalah.rules import VARIANTS
from . import kalah
from ..solitaire.rules import SCORE, new_position
from ..solitaire.search import make_scratch, solve_rows
from .mastermind import MastermindEnv
from .solitaire import SolitaireEnv, _check_deal_number, deal_deck
from .solitaire_batch import new_tableaus, play_moves
from .mastermind_batch import Codes, guess_codes, new_codebreaks
from .sampling import uniform_legal
from .kalah_batch import (ACT, FINISH, OPPONENT_CODES, PERFECT, RANDOM, RESTART, Rules,
                          StepOut, advance, apply_replies, new_games, new_pool_control,
                          new_step_out, pool_worker, random_step)
from .step_pool import StepPool

__all__ = ["KalahVectorEnv", "MastermindVectorEnv", "SolitaireVectorEnv", "sub_seeds"]

_NO_KEY = np.uint64(0)  # random_step's sample_key when the actions are given
# the dtypes of the arrays a Kalah step returns (dtype objects: np.empty takes them as they are)
_INT8, _FLOAT64, _INT64, _BOOL = (np.dtype(t) for t in (np.int8, np.float64, np.int64, np.bool_))


def sub_seeds(seed, num_envs: int) -> list | None:
    """The seeds of the sub-environments for ``reset(seed=...)``: ``seed + i`` for an
    integer (as Gymnasium's ``SyncVectorEnv``), the list itself for a list."""
    if seed is None:
        return None
    if isinstance(seed, (int, np.integer)):
        return [int(seed) + i for i in range(num_envs)]
    seeds = list(seed)
    if len(seeds) != num_envs:
        raise InputError(f"reset needs {num_envs} seeds, got {len(seeds)}")
    return seeds


def _reset_mask(options, num_envs: int) -> np.ndarray:
    mask = (options or {}).get("reset_mask")
    if mask is None:
        return np.ones(num_envs, dtype=np.bool_)
    mask = np.asarray(mask, dtype=np.bool_)
    if mask.shape != (num_envs,):
        raise InputError(f"reset_mask must have shape ({num_envs},), got {mask.shape}")
    return mask


def _actions(actions, num_envs: int) -> np.ndarray:
    actions = np.asarray(actions)
    if actions.shape != (num_envs,) or actions.dtype.kind not in "iu":
        raise InputError(f"actions must be {num_envs} integers, got shape {actions.shape} "
                         f"of {actions.dtype}")
    return actions.astype(np.int64, copy=False)


def _constant(array: np.ndarray) -> np.ndarray:
    """``array`` made read-only: returned by every step, it must stay as it is."""
    array.flags.writeable = False
    return array


def _add(info: dict, key: str, values: np.ndarray, where: np.ndarray) -> None:
    """Put ``values`` under ``key`` with its ``_key`` mask, when any sub-environment has
    it (Gymnasium leaves a key out when no sub-environment gave it)."""
    if where.any():
        info[key] = values
        info["_" + key] = where


class KalahVectorEnv(VectorEnv):
    """``num_envs`` games of ``jitgames/Kalah-v0`` (:class:`jitgames.envs.kalah.KalahEnv`),
    same options, stepped together by :func:`jitgames.envs.kalah_batch.advance`.

    Sub-environment ``i`` seeded with ``s`` plays exactly as ``KalahEnv`` does after
    ``reset(seed=s)``: its base key is the first ``integers(2**63)`` of
    ``gymnasium.utils.seeding.np_random(s)``, and episode ``e`` draws from
    ``stream_key(base, e)``. A ``"perfect"`` opponent's moves are searched in Python
    (the exact solver), between two kernel calls, so it runs at the solver's speed.

    With ``copy=True`` (the default, as Gymnasium's ``SyncVectorEnv``) :meth:`step` and
    :meth:`reset` return arrays of their own, which stay as they are (against the
    random opponent the kernel writes straight into new ones; otherwise into the same
    output arrays, then copied); with ``copy=False`` :meth:`step` returns the output
    arrays themselves (observation, mask, reward, terminated, and info's arrays), which
    the next step overwrites: read or copy them before stepping again. Either way a
    step's ``observation["action_mask"]`` and ``info["action_mask"]`` are one array,
    ``info["illegal_action"]`` is also its own ``"_illegal_action"``, and ``truncated``
    and ``info["_action_mask"]`` are read-only arrays (all False, all True) returned
    by every step: a step allocates only the arrays it fills (none with
    ``copy=False``).

    Against the random opponent a step is one call of
    :func:`jitgames.envs.kalah_batch.random_step`, whose arguments are plain arrays and
    numbers (records cost more to type at a call than a 1024-game step's bookkeeping),
    made through its compiled entry for the environment's own argument types
    (:func:`jitgames._jit.compiled_entry`: the dispatcher's typing of 22 arguments cost
    more than the rest of the step's Python); actions given by the user are checked
    (an int64 array of shape ``(num_envs,)``, C-contiguous, aligned and writeable, or
    converted into one) before they go to it. On two threads or more (Numba's thread
    count of the stepping thread) the kernel shares the step with the environment's step
    pool (:mod:`jitgames.envs.step_pool`): worker threads started on the first such
    step, woken after a step that found them asleep, stopped by :meth:`close` (or when
    the environment is collected).
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 1, pits: int = 6, stones: int = 4,
                 variant: str = "empty-capture", reward: str = "margin",
                 opponent: str = "alphabeta", depth: int = 4, side: str = "south",
                 render_mode: str | None = None, copy: bool = True):
        if not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise InputError(f"num_envs must be a positive integer, got {num_envs!r}")
        kalah.check_options(pits, stones, variant, reward, opponent, depth, side)
        if render_mode is not None:
            raise InputError("the vector environment does not render; use the single one")
        self.num_envs = int(num_envs)
        self.pits, self.stones, self.variant, self.reward_kind = pits, stones, variant, reward
        self.opponent, self.depth, self.side = opponent, int(depth), side
        self.render_mode = None
        self.copy = bool(copy)
        self.single_observation_space = kalah._observation_space(pits, 2 * pits * stones)
        self.single_action_space = spaces.Discrete(pits)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.rules = Rules(stones, VARIANTS[variant], kalah.SIDES.index(side),
                           OPPONENT_CODES[opponent], self.depth, weights_for("store", pits),
                           reward == "outcome")
        self._perfect = (kalah.perfect_player(pits, stones, variant)
                         if opponent == "perfect" else None)
        self.games = new_games(self.num_envs, pits)
        self._out = new_step_out(self.num_envs, pits)  # written by every step, reused
        self._seeded = np.zeros(self.num_envs, dtype=np.bool_)
        self._no_actions = np.zeros(self.num_envs, dtype=np.int64)
        self._batch = (self.num_envs,)  # the shape of the actions
        self._all_games = np.ones(self.num_envs, dtype=np.bool_)  # for the kernels
        # returned by every step (info's "_action_mask" and truncated): read-only
        self._everyone = _constant(np.ones(self.num_envs, dtype=np.bool_))
        self._never = _constant(np.zeros(self.num_envs, dtype=np.bool_))
        self._mask = np.zeros((self.num_envs, pits), dtype=np.int8)  # the agent's legal pits
        if self.rules.opponent == RANDOM:
            self._random_step_arguments(pits)

    def _random_step_arguments(self, pits: int) -> None:
        """What every step against the random opponent passes to
        :func:`jitgames.envs.kalah_batch.random_step` besides the actions and outputs
        (the state's arrays, the rules' numbers), the shapes of the arrays a
        ``copy=True`` step returns, and the kernel's compiled entry for the types of all
        its arguments (compiled or loaded from the cache now): a step passes arguments of
        these types, the environment's own arrays and checked actions."""
        games, rules, out = self.games, self.rules, self._out
        control = new_pool_control(self.num_envs, pits, numba.config.NUMBA_NUM_THREADS - 1)
        self._state = (control, games.boards, games.to_move, games.done, games.base,
                       games.episode, games.key, games.counter)
        self._terms = (rules.stones, rules.variant, rules.agent, rules.outcome)
        # the shapes of a game's row, of the boards and of the masks
        self._shapes = (self.num_envs, (self.num_envs, 2 * pits + 2), (self.num_envs, pits))
        self._random_step = compiled_entry(random_step, *self._state, self._no_actions,
                                           *self._terms, *out, True, _NO_KEY)
        self._pool = StepPool(control, _pool_spin(self._state, self._no_actions, out))
        # the workers stop with the environment, closed or collected (they hold the
        # pool, not the environment)
        self._pool_closer = weakref.finalize(self, self._pool.close)

    def close_extras(self, **kwargs) -> None:
        """Stop the step pool's worker threads (:mod:`jitgames.envs.step_pool`)."""
        pool = getattr(self, "_pool", None)
        if pool is not None:
            pool.close()

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        # compiled code, threads and their control array are made again
        for name in ("_random_step", "_pool", "_pool_closer", "_state"):
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        if self.rules.opponent == RANDOM:
            self._random_step_arguments(self.pits)

    def reset(self, *, seed=None, options: dict | None = None):
        """Reset the sub-environments (all, or those of ``options["reset_mask"]``);
        ``seed``: an integer (sub-environment ``i`` gets ``seed + i``) or a list."""
        super().reset(seed=seed if isinstance(seed, (int, np.integer)) else None)
        which = _reset_mask(options, self.num_envs)
        seeds = sub_seeds(seed, self.num_envs)
        games = self.games
        for i in np.flatnonzero(which):
            if seeds is not None or not self._seeded[i]:
                # a base key drawn as KalahEnv draws it from its np_random
                generator = (seeding.np_random(seeds[i])[0] if seeds is not None
                             else self.np_random)
                games.base[i] = np.uint64(generator.integers(2**63))
                games.episode[i] = -1
                self._seeded[i] = True
        out = self._out
        self._advance(None, which, RESTART, out)
        observation = {"observation": out.seen.copy(), "action_mask": out.mask.copy()}
        self._mask = observation["action_mask"]
        # as Gymnasium's SyncVectorEnv: infos of the sub-environments reset only
        return observation, {"action_mask": np.where(which[:, None], out.mask, 0).astype(np.int8),
                             "_action_mask": which.copy()}

    def step(self, actions):
        """Step every sub-environment (one kernel call; see the class docstring for
        ``copy`` and for the arrays shared between the values returned)."""
        if (actions.__class__ is not np.ndarray or actions.dtype != np.int64
                or actions.shape != self._batch or not actions.flags.carray):
            actions = _actions(actions, self.num_envs)  # checked and converted
            if not actions.flags.carray:  # strided, unaligned or read-only: the kernel's own
                actions = actions.copy()
        return self._step(actions, False, _NO_KEY)

    def step_random(self, rng: np.random.Generator, actions: np.ndarray | None = None):
        """Step every sub-environment with a uniform legal action of the agent: the same
        as ``sample_legal(mask, rng, out=actions)`` (:mod:`jitgames.envs.sampling`, on
        the ``info["action_mask"]`` of the last step or reset) and then
        ``step(actions)``, same actions and same results, with the same draw from
        ``rng``; against the random opponent the actions are drawn inside the step's
        kernel (no pass of their own).

        Parameters
        ----------
        rng : numpy.random.Generator
            The agent's generator; one 64-bit number of its bit generator is drawn.
        actions : np.ndarray, optional
            int64 ``(num_envs,)``: receives the actions taken (0 where a game had no
            legal action); reused from step to step, nothing is allocated for them.

        Returns
        -------
        tuple
            What :meth:`step` returns.
        """
        if actions is None:
            actions = np.empty(self.num_envs, dtype=np.int64)
        elif (actions.__class__ is not np.ndarray or actions.dtype != np.int64
              or actions.shape != self._batch or not actions.flags.carray):
            raise InputError(f"actions must be a writeable C-contiguous int64 array of shape "
                             f"({self.num_envs},)")
        key = rng.bit_generator.random_raw()  # a Python int below 2**64
        if self.rules.opponent != RANDOM:
            uniform_legal(self._mask, np.uint64(key), actions)
            return self._step(actions, False, _NO_KEY)
        # the kernel's compiled entry converts the int to its uint64 argument itself
        # (np.uint64() first would cost 0.6 µs of a step)
        return self._random_step_call(actions, True, key)

    def _step(self, actions, sample, key):
        """:meth:`step` of checked ``actions`` (drawn into them with ``sample``)."""
        if self.rules.opponent == RANDOM:
            return self._random_step_call(actions, sample, key)
        out = self._out
        self._advance(actions, self._all_games, ACT, out)
        if self.copy:
            out = StepOut(*(a.copy() for a in out))
        return self._returned(out.seen, out.mask, out.reward, out.terminated, out.margin,
                              out.ended, out.illegal, out.ended.any(), out.illegal.any())

    def _random_step_call(self, actions, sample, key):
        """:meth:`_step` against the random opponent: one call of the kernel's compiled
        entry, which writes straight into the arrays returned (fresh ones with
        ``copy=True``: no copy pass) and counts the games ended and the illegal actions
        (no scan of the flags)."""
        if self.copy:
            rows, boards, masks = self._shapes
            empty = np.empty  # (seven calls written out: a loop over them costs a microsecond)
            outputs = (empty(boards, _INT8), empty(masks, _INT8), empty(rows, _FLOAT64),
                       empty(rows, _BOOL), empty(rows, _INT64), empty(rows, _BOOL),
                       empty(rows, _BOOL))
        else:
            outputs = self._out[:7]  # all but the scratch, settled
        ends, illegals, wake = self._random_step(*self._state, actions, *self._terms, *outputs,
                                                 self._out.settled, sample, key)
        if wake:  # a worker the step wanted was asleep or not started: for the next step
            self._pool.wake()
        return self._returned(*outputs, ends, illegals)

    def _returned(self, seen, mask, reward, terminated, margin, ended, illegal, ends, illegals):
        """What a step returns, from its outputs (``ends``, ``illegals``: whether any game
        ended by play, whether any action was illegal)."""
        self._mask = mask  # step_random's next draw is from it
        # the observation's mask is info's: one array, as are the flags and their masks
        info = {"action_mask": mask, "_action_mask": self._everyone}
        if ends:
            info["margin"] = margin
            info["_margin"] = ended
        if illegals:
            info["illegal_action"] = illegal
            info["_illegal_action"] = illegal
        return {"observation": seen, "action_mask": mask}, reward, terminated, self._never, info

    def _advance(self, actions, which, first, out) -> None:
        """Phase ``first`` (``ACT`` or ``RESTART``) of :func:`advance` and ``FINISH``, in
        one call; with the perfect opponent, its moves (searched in Python) between."""
        games, rules = self.games, self.rules
        if actions is None:
            actions = self._no_actions
        if rules.opponent != PERFECT:
            advance(games, actions, which, first | FINISH, rules, out)
        else:
            advance(games, actions, which, first, rules, out)
            m = self.pits
            while True:
                boards = games.boards
                over = (boards[:, :m].sum(axis=1) == 0) | (boards[:, m + 1:2 * m + 1]
                                                           .sum(axis=1) == 0)
                waiting = np.flatnonzero((games.to_move != rules.agent) & ~over)
                if waiting.size == 0:
                    break
                pits = np.full(self.num_envs, -1, dtype=np.int64)
                for i in waiting:
                    pits[i], games.counter[i] = self._perfect.choose(
                        boards[i], int(games.to_move[i]), games.key[i], int(games.counter[i]))
                apply_replies(games, pits, rules)
            advance(games, actions, which, FINISH, rules, out)



def _pool_spin(state: tuple, actions: np.ndarray, out: StepOut):
    """``spin(index, rounds)`` for the step pool of a Kalah vector environment: one spin
    window of :func:`jitgames.envs.kalah_batch.pool_worker` through its compiled entry,
    with the environment's arrays for the types and shapes (the control array first);
    it holds the arrays, not the environment."""
    control, *arrays = state
    entry = compiled_entry(pool_worker, control, 0, 1, *arrays, actions, *out)

    def spin(index: int, rounds: int) -> None:
        entry(control, index, rounds, *arrays, actions, *out)

    return spin


def _generators(rngs: list, which: np.ndarray, seeds) -> None:
    """(Re)create the generators of the sub-environments ``which`` as the single
    environments' ``reset(seed=...)`` does: from their seed, or, never seeded, from
    fresh entropy."""
    for i in np.flatnonzero(which):
        if seeds is not None:
            rngs[i] = seeding.np_random(seeds[i])[0]
        elif rngs[i] is None:
            rngs[i] = seeding.np_random()[0]


class MastermindVectorEnv(VectorEnv):
    """``num_envs`` games of ``jitgames/Mastermind-v0``
    (:class:`jitgames.envs.mastermind.MastermindEnv`), same options, stepped together by
    :func:`jitgames.envs.mastermind_batch.guess_codes`.

    Each sub-environment keeps its own ``np_random`` (``seed + i``), from which its
    secrets are drawn as the single environment draws them, at (auto)reset only.
    ``reset(options={"secret": "1122"})`` sets the secret of the games reset.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 1, pegs: int = 4, colours: int = 6,
                 repeats: bool = True, max_guesses: int = 10, render_mode: str | None = None):
        if not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise InputError(f"num_envs must be a positive integer, got {num_envs!r}")
        if render_mode is not None:
            raise InputError("the vector environment does not render; use the single one")
        single = MastermindEnv(pegs, colours, repeats, max_guesses)  # checks the options
        self.num_envs, self.space, self.max_guesses = int(num_envs), single.space, single.max_guesses
        self.render_mode = None
        self.single_observation_space = single.observation_space
        self.single_action_space = single.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        space = self.space
        self.codes = Codes(space.digits, space.counts, space.pegs, space.solved)
        self.games = new_codebreaks(self.num_envs, space.size, space.pegs, self.max_guesses)
        self._rngs: list = [None] * self.num_envs
        self._done = np.zeros(self.num_envs, dtype=np.bool_)
        self._nobody = np.zeros(self.num_envs, dtype=np.bool_)
        self._no_actions = np.zeros(self.num_envs, dtype=np.int64)

    def _restart(self, which: np.ndarray, secret=None) -> None:
        games = self.games
        for i in np.flatnonzero(which):
            games.secrets[i] = (secret if secret is not None
                                else int(self._rngs[i].integers(self.space.size)))
        games.played[which] = 0
        games.consistent[which] = 1
        games.left[which] = self.space.size
        self._done[which] = False

    def _info(self, where: np.ndarray) -> dict:
        info: dict = {}
        _add(info, "consistent", self.games.left.copy(), where)
        _add(info, "guesses", self.games.played.copy(), where)
        return info

    def _observation(self) -> dict:
        return {"guesses": self.games.seen_guesses.copy(),
                "feedback": self.games.seen_feedback.copy()}

    def reset(self, *, seed=None, options: dict | None = None):
        """Reset the sub-environments (all, or those of ``options["reset_mask"]``)."""
        super().reset(seed=seed if isinstance(seed, (int, np.integer)) else None)
        which = _reset_mask(options, self.num_envs)
        _generators(self._rngs, which, sub_seeds(seed, self.num_envs))
        secret = (options or {}).get("secret")
        if secret is not None:
            try:
                secret = self.space.parse(secret)
            except ValueError as exc:
                raise InputError(f"secret: {exc}") from None
        self._restart(which, secret)
        guess_codes(self.codes, self.games, self._no_actions, self._nobody)
        return self._observation(), self._info(which)

    def step(self, actions):
        actions = _actions(actions, self.num_envs)
        restarting = self._done.copy()
        active = ~restarting
        if ((actions < 0) | (actions >= self.space.size))[active].any():
            raise InputError(f"actions must be code indices from 0 to {self.space.size - 1}")
        self._restart(restarting)
        guess_codes(self.codes, self.games, actions, active)
        games = self.games
        last = games.answers[np.arange(self.num_envs), np.maximum(games.played - 1, 0)]
        terminated = active & (last == self.space.solved)
        truncated = active & ~terminated & (games.played == self.max_guesses)
        self._done = terminated | truncated
        info = self._info(np.ones(self.num_envs, dtype=np.bool_))
        if self._done.any():
            secrets = np.full(self.num_envs, None, dtype=object)
            for i in np.flatnonzero(self._done):
                secrets[i] = self.space.format(games.secrets[i])
            _add(info, "secret", secrets, self._done.copy())
        reward = np.where(active, -1.0, 0.0)
        return self._observation(), reward, terminated, truncated, info


class SolitaireVectorEnv(VectorEnv):
    """``num_envs`` games of ``jitgames/Solitaire-v0``
    (:class:`jitgames.envs.solitaire.SolitaireEnv`), same options, stepped together by
    :func:`jitgames.envs.solitaire_batch.play_moves`.

    Deals are drawn (when ``seed`` or ``index`` is unset) from each sub-environment's own
    ``np_random`` (``seed + i``) and dealt and solved in Python at (auto)reset, all the
    deals of a step in one :func:`jitgames.solitaire.search.solve_rows` call.
    ``reachable=True`` (a search after every step) is not offered here: use the single
    environment.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 1, seed: int | None = None, index: int | None = None,
                 shuffle: str = "fisher-yates", show_face_down: bool = False,
                 solve: bool = True, reachable: bool = False, render_mode: str | None = None):
        if not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise InputError(f"num_envs must be a positive integer, got {num_envs!r}")
        if render_mode is not None:
            raise InputError("the vector environment does not render; use the single one")
        if reachable:
            raise InputError("reachable=True (a search a step) is not batched; use the "
                             "single environment")
        single = SolitaireEnv(seed, index, shuffle, show_face_down, solve)  # checks options
        self.num_envs = int(num_envs)
        self.deal_seed, self.deal_index, self.shuffle = seed, index, shuffle
        self.show_face_down, self.solve = bool(show_face_down), bool(solve)
        self.render_mode = None
        self.single_observation_space = single.observation_space
        self.single_action_space = single.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.games = new_tableaus(self.num_envs, single.position.shape[0])
        self._scratch = make_scratch(1) if solve else None
        self._rngs: list = [None] * self.num_envs
        self._deals = np.zeros((self.num_envs, 2), dtype=np.int64)  # seed, index
        self._optimal = np.zeros(self.num_envs, dtype=np.int64)
        self._done = np.zeros(self.num_envs, dtype=np.bool_)
        self._nobody = np.zeros(self.num_envs, dtype=np.bool_)
        self._no_actions = np.zeros(self.num_envs, dtype=np.int64)

    def _deal(self, which: np.ndarray, options: dict) -> None:
        chosen = np.flatnonzero(which)
        decks = np.zeros((chosen.size, 52), dtype=np.int64)
        for row, i in enumerate(chosen):
            deal_seed = options.get("seed", self.deal_seed)
            index = options.get("index", self.deal_index)
            _check_deal_number("seed", deal_seed)
            _check_deal_number("index", index)
            # drawn in the single environment's order: seed first, then index
            if deal_seed is None:
                deal_seed = int(self._rngs[i].integers(2**63))
            if index is None:
                index = int(self._rngs[i].integers(2**62))
            decks[row] = deal_deck(int(deal_seed), int(index), self.shuffle)
            self.games.positions[i] = new_position(decks[row])
            self._deals[i] = deal_seed, index
        if self.solve and chosen.size:
            self._optimal[chosen] = solve_rows(decks, True, self._scratch)[:, 0]
        self._done[which] = False

    def _info(self, where: np.ndarray, illegal=None) -> dict:
        info: dict = {}
        if self.solve:
            _add(info, "optimal_score", self._optimal.copy(), where)
        else:
            _add(info, "optimal_score", np.full(self.num_envs, None, dtype=object), where)
        _add(info, "seed", self._deals[:, 0].copy(), where)
        _add(info, "index", self._deals[:, 1].copy(), where)
        _add(info, "score", self.games.positions[:, SCORE].copy(), where)
        _add(info, "action_mask", self.games.mask.copy(), where)
        if illegal is not None:
            _add(info, "illegal_action", illegal.copy(), illegal)
        return info

    def _observation(self) -> dict:
        games = self.games
        return {"status": games.status.copy(), "piles": games.piles.copy(),
                "moves": games.move_rows.copy(), "action_mask": games.mask.copy()}

    def _play(self, actions, active):
        reward = np.empty(self.num_envs, dtype=np.float64)
        terminated = np.empty(self.num_envs, dtype=np.bool_)
        illegal = np.empty(self.num_envs, dtype=np.bool_)
        play_moves(self.games, actions, active, self.show_face_down, reward, terminated, illegal)
        return reward, terminated, illegal

    def reset(self, *, seed=None, options: dict | None = None):
        """Reset the sub-environments (all, or those of ``options["reset_mask"]``);
        ``options`` may also set the deal's ``"seed"`` and ``"index"``."""
        super().reset(seed=seed if isinstance(seed, (int, np.integer)) else None)
        options = dict(options or {})
        which = _reset_mask(options, self.num_envs)
        _generators(self._rngs, which, sub_seeds(seed, self.num_envs))
        self._deal(which, options)
        self._play(self._no_actions, self._nobody)
        return self._observation(), self._info(which)

    def step(self, actions):
        actions = _actions(actions, self.num_envs)
        restarting = self._done.copy()
        self._deal(restarting, {})
        reward, terminated, illegal = self._play(actions, ~restarting)
        self._done = terminated.copy()
        return (self._observation(), reward, terminated,
                np.zeros(self.num_envs, dtype=np.bool_), self._info(self._everyone(), illegal))

    def _everyone(self) -> np.ndarray:
        return np.ones(self.num_envs, dtype=np.bool_)
