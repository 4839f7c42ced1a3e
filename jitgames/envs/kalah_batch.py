"""Batched Kalah: N games in flat arrays, stepped by one parallel kernel call.

This module holds the kernels under ``jitgames/Kalah-v0``'s vector environment
(:mod:`jitgames.envs.vector`) and the two-player batch (:mod:`jitgames.envs.selfplay`);
the single environment :class:`jitgames.envs.kalah.KalahEnv` draws its opponent's
moves with the same kernels (:func:`reply`), so one game of a batch and one single
environment with the same seed play the same moves.

State of a batch of ``N`` games of Kalah(m, n) (:class:`Games`): the boards, an
``(N, 2m + 2)`` int8 array in the shared layout (``docs/design.md``), the side to move,
whether the last step ended the episode, and each game's random stream.

Randomness (``docs/design.md``: counter-based, independent of the thread count): game
``i`` of a batch has a base key (drawn once, from its seed, by the Python side);
episode ``e`` of that game draws from the SplitMix64 stream
``stream_key(base, e)`` (:mod:`jitgames._random`), output by output, counted in
``Games.counter``. Only the opponent draws: a random opponent takes the ``k``-th of its
legal pits (ascending board index) with ``k = below(key, counter, count)``; an
alpha-beta opponent draws among equally good moves as
:func:`jitgames.kalah.search.choose_move` does; a perfect opponent among the moves of
the highest exact value (drawn in Python, :meth:`jitgames.envs.kalah.PerfectPlayer`).

Episode steps follow Gymnasium 1.x's ``NEXT_STEP`` autoreset: the step after the one
that ended an episode starts the next episode instead (its action ignored, reward 0,
not terminated) and returns the new episode's first observation.

Choices docs/design.md leaves open: each game owns its row of the scratch arrays
(``Games.moves``), so a thread never shares scratch with another whatever the thread
count; the perfect opponent is not in a kernel (the exact solver keeps a shared
transposition table and is searched from Python, between the two kernel phases
the phases of :func:`advance`).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._jit import (address_of, array_at, atomic_load, atomic_store, fetch_add,
                    fetch_add_acq_rel, jit, prange, spin_pause, threads_now,
                    yield_thread)
from .._bits import popcount
from .._random import GOLDEN, below_inline, mix64_inline, stream_key
from ..kalah.rules import SOUTH, apply_move, apply_move_inline, final_margin, is_over
from ..kalah.search import ALPHABETA, choose_move
from . import kalah_words as words
from .step_pool import (ADDRESSES, BLOCKS, CLAIMED, DONE, GAMES, NEXT, PARAMS, SHAPE, STOP,
                        TALLY, WANTED, WIDTH, WORKER, new_control, region_start)

__all__ = ["RANDOM", "SEARCH", "PERFECT", "OPPONENT_CODES", "Games", "Rules", "StepOut",
           "new_games", "new_step_out", "reply", "ACT", "FINISH", "RESTART",
           "advance", "random_step", "random_step_serial", "publish", "pool_worker",
           "new_pool_control", "apply_replies", "random_games"]

RANDOM = 0
SEARCH = 1
PERFECT = 2
OPPONENT_CODES = {"random": RANDOM, "alphabeta": SEARCH, "perfect": PERFECT}


class Games(NamedTuple):
    """State of ``N`` games (one row each), changed in place by the kernels.

    Attributes
    ----------
    boards : np.ndarray
        int8 ``(N, 2m + 2)``, the shared board layout.
    to_move : np.ndarray
        int8 ``(N,)``: ``SOUTH`` (0) or ``NORTH`` (1); meaningless once a game is over.
    done : np.ndarray
        bool ``(N,)``: the last step ended the episode, so the next step starts a new one.
    base : np.ndarray
        uint64 ``(N,)``: the game's base key (from its seed).
    episode : np.ndarray
        int64 ``(N,)``: episodes started since the game was seeded, minus one.
    key : np.ndarray
        uint64 ``(N,)``: ``stream_key(base, episode)``, the episode's random stream.
    counter : np.ndarray
        int64 ``(N,)``: outputs of ``key``'s stream used so far.
    moves : np.ndarray
        int64 ``(N, m)``: scratch for move lists, row ``i`` used by game ``i`` only.
    """

    boards: np.ndarray
    to_move: np.ndarray
    done: np.ndarray
    base: np.ndarray
    episode: np.ndarray
    key: np.ndarray
    counter: np.ndarray
    moves: np.ndarray


class Rules(NamedTuple):
    """What a step needs besides the state: the game, the agent's side and its opponent.

    Attributes
    ----------
    stones : int
        Stones a pit at the start, ``n``.
    variant : int
        Capture rule (:data:`jitgames.kalah.rules.VARIANTS`).
    agent : int
        The agent's side (``SOUTH`` or ``NORTH``); the opponent plays the other.
    opponent : int
        ``RANDOM``, ``SEARCH`` (alpha-beta) or ``PERFECT`` (moves supplied from Python).
    depth : int
        Plies of the alpha-beta opponent.
    weights : np.ndarray
        int64 evaluation of the alpha-beta opponent (:mod:`jitgames.kalah.evaluation`).
    outcome : bool
        Rewards are the sign of the margin (``reward="outcome"``), else the margin.
    """

    stones: int
    variant: int
    agent: int
    opponent: int
    depth: int
    weights: np.ndarray
    outcome: bool


class StepOut(NamedTuple):
    """What one step returns, one row per game (filled by the kernels).

    Attributes
    ----------
    seen : np.ndarray
        int8 ``(N, 2m + 2)``: the board from the agent's side (own pits, own store,
        opponent's pits, opponent's store).
    mask : np.ndarray
        int8 ``(N, m)``: the agent's legal pits (1 = legal), zeros once the game is over.
    reward : np.ndarray
        float64 ``(N,)``.
    terminated : np.ndarray
        bool ``(N,)``.
    margin : np.ndarray
        int64 ``(N,)``: the agent's final margin where ``ended``, else 0.
    ended : np.ndarray
        bool ``(N,)``: the game ended by play on this step (``margin`` is set).
    illegal : np.ndarray
        bool ``(N,)``: the step's action was illegal (the episode ends with the penalty).
    settled : np.ndarray
        bool ``(N,)``: scratch between the phases of :func:`advance`: the
        step's outcome was decided before any move (a new episode, an illegal action,
        a game already over).
    """

    seen: np.ndarray
    mask: np.ndarray
    reward: np.ndarray
    terminated: np.ndarray
    margin: np.ndarray
    ended: np.ndarray
    illegal: np.ndarray
    settled: np.ndarray


def new_games(count: int, pits: int) -> Games:
    """Zeroed state of ``count`` games of ``pits`` pits a side (to be reset)."""
    return Games(np.zeros((count, 2 * pits + 2), np.int8), np.zeros(count, np.int8),
                 np.ones(count, np.bool_), np.zeros(count, np.uint64),
                 np.zeros(count, np.int64), np.zeros(count, np.uint64),
                 np.zeros(count, np.int64), np.zeros((count, pits), np.int64))


def new_step_out(count: int, pits: int, scratch: bool = True) -> StepOut:
    """Output arrays for the steps of ``count`` games (the vector environment writes
    every step into the same ones, or, returning fresh arrays, into new ones that share
    the ``settled`` scratch: ``scratch=False`` leaves it out, as ``None``)."""
    return StepOut(np.empty((count, 2 * pits + 2), np.int8), np.empty((count, pits), np.int8),
                   np.empty(count, np.float64), np.empty(count, np.bool_),
                   np.empty(count, np.int64), np.empty(count, np.bool_),
                   np.empty(count, np.bool_), np.empty(count, np.bool_) if scratch else None)


@jit(inline=True)
def _random_move(board, player, depth, weights, variant, key, counter, moves):
    """The random opponent's move: the ``below(key, counter, count)``-th legal pit
    (ascending board index) of a game not over (``moves`` is not used).

    The pits are counted and the chosen one found with selects rather than by listing
    the legal moves: in random positions a branch on each pit is often mispredicted
    (half the time of a random move, ``bench/envs.py``)."""
    m = board.shape[0] // 2 - 1
    first = 0 if player == SOUTH else m + 1
    count = 0
    for j in range(first, first + m):
        count += board[j] > 0
    pick, counter = below_inline(key, counter, count)
    return _filled_pit(board, first, m, pick), counter


@jit(inline=True)
def _filled_pit(board, first, m, pick):
    """The ``pick``-th pit holding stones (from 0, ascending) among ``first ..
    first + m - 1``, found with selects, not branches (see :func:`_random_move`)."""
    pit = first
    before = 0
    for j in range(first, first + m):
        full = board[j] > 0
        pit = j if full and before == pick else pit
        before += full
    return pit


@jit
def _search_move(board, player, depth, weights, variant, key, counter, moves):
    """The alpha-beta opponent's move: a call of its own, kept out of the leaf kernel
    :func:`_advance_block` (the search creates arrays)."""
    nodes = moves[:1]  # choose_move counts nodes into it; the count is not wanted
    pit, _, counter = choose_move(board, player, depth, weights, variant, ALPHABETA, True,
                                  True, key, counter, nodes)
    return pit, counter


@jit(inline=True)
def reply(board, to_move, rules, key, counter, moves, mover):
    """Let the opponent move (``mover``: :func:`_random_move` or :func:`_search_move`)
    until it is the agent's turn or the game is over (a ``PERFECT`` opponent is left to
    the caller); return ``(to_move, counter)``."""
    while to_move != rules.agent and rules.opponent != PERFECT and not is_over(board):
        pit, counter = mover(board, to_move, rules.depth, rules.weights, rules.variant, key,
                             counter, moves)
        to_move, _ = apply_move(board, to_move, pit, rules.variant)
    return to_move, counter


@jit(inline=True)
def _result(margin, outcome):
    """A final margin as a reward: itself or its sign."""
    if not outcome:
        return np.float64(margin)
    return np.float64(1.0) if margin > 0 else (np.float64(-1.0) if margin < 0 else 0.0)


@jit(inline=True)
def _agent_margin(board, agent):
    margin = final_margin(board)
    return margin if agent == SOUTH else -margin


@jit(inline=True)
def _act(games, i, action, rules, out, mover):
    """First phase of game ``i``'s step: a new episode after one that ended (the
    action ignored), the end of a game that was over before the agent moved, an
    illegal action, or the agent's move; then the opponent's replies."""
    board = games.boards[i]
    m = board.shape[0] // 2 - 1
    _idle(i, out)
    if games.done[i]:
        games.episode[i] += 1
        games.key[i] = stream_key(games.base[i], games.episode[i])
        games.counter[i] = 0
        for j in range(board.shape[0]):
            board[j] = rules.stones
        board[m] = 0
        board[2 * m + 1] = 0
        games.to_move[i] = SOUTH
        games.done[i] = False
    elif is_over(board):
        # only on tiny boards: the opponent ended the game before the agent's first move
        out.margin[i] = _agent_margin(board, rules.agent)
        out.reward[i] = _result(out.margin[i], rules.outcome)
        out.terminated[i] = True
        out.ended[i] = True
        games.done[i] = True
    else:
        pit = action if rules.agent == SOUTH else m + 1 + action
        if action < 0 or action >= m or board[pit] == 0:
            out.reward[i] = -1.0 if rules.outcome else -2.0 * m * rules.stones
            out.terminated[i] = True
            out.illegal[i] = True
            games.done[i] = True
        else:
            following, _ = apply_move(board, games.to_move[i], pit, rules.variant)
            games.to_move[i] = following
            out.settled[i] = False
    # (plain assignments: a tuple assigned into array items went wrong in a prange loop)
    to_move, counter = reply(board, games.to_move[i], rules, games.key[i], games.counter[i],
                             games.moves[i], mover)
    games.to_move[i] = to_move
    games.counter[i] = counter


@jit(inline=True)
def _finish(games, i, rules, out):
    """Second phase of game ``i``'s step: the end of the game if play ended it, and the
    agent's observation and legal pits."""
    board = games.boards[i]
    size = board.shape[0]
    m = size // 2 - 1
    over = is_over(board)
    if over and not out.settled[i]:
        out.margin[i] = _agent_margin(board, rules.agent)
        out.reward[i] = _result(out.margin[i], rules.outcome)
        out.terminated[i] = True
        out.ended[i] = True
        games.done[i] = True
    _observe(board, i, 0 if rules.agent == SOUTH else m + 1, m, over, out.seen, out.mask)


ACT = 1
FINISH = 2
RESTART = 4
BLOCK = 64  # games a call in the prange loop of advance


@jit(inline=True)
def _idle(i, out):
    """Outputs of a game a reset leaves alone (its observation is still written)."""
    _clear_outputs(i, out.reward, out.terminated, out.margin, out.ended, out.illegal)
    out.settled[i] = True


@jit(parallel=True)
def advance(games, actions, which, phases, rules, out):
    """Step or reset every game, in the ``phases`` given (bits, one kernel for all, so
    that one parallel loop is compiled):

    - ``ACT``: the first phase of a step, the agent's ``actions[i]`` (pit ``0 .. m-1``
      from the agent's side) and the opponent's replies;
    - ``RESTART`` (instead of ``ACT``): a reset; games with ``which[i]`` start their next
      episode (``episode + 1``; the caller sets ``episode = -1`` and ``base`` for a new
      seed), the opponent opening for them when it moves first; the others are left;
    - ``FINISH``: the second phase, rewards, ends and observations into ``out``.

    ``ACT | FINISH`` is a whole step. With a ``PERFECT`` opponent the caller plays the
    opponent's moves (:func:`apply_replies`) between the first phase and ``FINISH``.
    """
    count = games.boards.shape[0]
    for block in prange((count + BLOCK - 1) // BLOCK):
        start, stop = block * BLOCK, min(count, (block + 1) * BLOCK)
        if rules.opponent == SEARCH:
            _search_block(games, start, stop, actions, which, phases, rules, out)
        elif rules.opponent == RANDOM and phases == ACT | FINISH:
            _random_step_block(start, stop, games.boards, games.to_move, games.done,
                               games.base, games.episode, games.key, games.counter, actions,
                               rules.stones, rules.variant, rules.agent, rules.outcome,
                               out.seen, out.mask, out.reward, out.terminated, out.margin,
                               out.ended, out.illegal, out.settled, False, np.uint64(0))
        else:
            _advance_block(games, start, stop, actions, which, phases, rules, out)


@jit(inline=True)
def _filled_pits(board, m):
    """Pits holding stones on South's side and on North's side (stores left out): a
    side has none when the game is over, and the mover's count is what its random
    move draws from."""
    south = 0
    north = 0
    for j in range(m):
        south += board[j] > 0
        north += board[m + 1 + j] > 0
    return south, north


@jit(leaf=True)
def _random_step_block(start, stop, boards, to_move, done, base, episode, key, counter,
                       actions, stones, variant, agent, outcome, seen, mask, reward,
                       terminated, margin, ended, illegal, settled, sample, sample_key):
    """A whole step (``ACT | FINISH``) of games ``start .. stop-1`` against the
    ``RANDOM`` opponent: the same outputs as :func:`_advance_block`, from
    :func:`_random_step_rows`.

    The arguments are the fields of :class:`Games`, :class:`Rules` and :class:`StepOut`
    one by one (plain arrays and numbers), so that :func:`random_step` can be called
    from Python without records, whose typing at every call costs more than a
    1024-game step's bookkeeping. ``sample`` and ``sample_key``: the agent's actions
    drawn in the step (:func:`random_step`). Returns the number of games ended by play
    and the number of illegal actions.

    Kalah(6, n) (``jitgames/Kalah-v0``'s default board, and OpenSpiel's) is stepped by
    :func:`_random_step_words`, its moves made on two 64-bit words without branches on
    the board (:mod:`jitgames.envs.kalah_words`: 1.5 times as fast a step,
    ``docs/environments.md``); other boards by :func:`_random_step_rows`. Both give the
    same moves and outputs.
    """
    m = boards.shape[1] // 2 - 1
    if m == words.PITS:
        return _random_step_words(start, stop, boards, to_move, done, base, episode, key,
                                  counter, actions, stones, variant, agent, outcome, seen,
                                  mask, reward, terminated, margin, ended, illegal, settled,
                                  sample, sample_key)
    return _random_step_rows(start, stop, boards, to_move, done, base, episode, key, counter,
                             actions, stones, variant, agent, outcome, seen, mask, reward,
                             terminated, margin, ended, illegal, settled, sample, sample_key)


@jit(inline=True)
def _clear_outputs(i, reward, terminated, margin, ended, illegal):
    """Game ``i``'s outputs before its step: nothing ended, nothing illegal."""
    reward[i] = 0.0
    terminated[i] = False
    margin[i] = 0
    ended[i] = False
    illegal[i] = False


@jit(inline=True)
def _observe(board, i, shift, m, over, seen, mask):
    """Game ``i``'s observation: the board rotated by ``shift`` (the agent's side
    first) and the agent's legal pits (none once the game is ``over``)."""
    size = 2 * m + 2
    for j in range(size - shift):  # the board rotated by shift (no modulo: a division)
        seen[i, j] = board[j + shift]
    for j in range(size - shift, size):
        seen[i, j] = board[j + shift - size]
    for j in range(m):
        mask[i, j] = 1 if board[shift + j] > 0 and not over else 0


@jit(inline=True)
def _next_episode(i, base, episode, done):
    """Game ``i`` starts its next episode; returns the episode's stream key (drawn from 0)."""
    episode[i] += 1
    done[i] = False
    return stream_key(base[i], episode[i])


@jit(inline=True)
def _illegal_action(i, penalty, reward, terminated, illegal, done):
    """Game ``i``'s action was illegal: the penalty, and the episode ends."""
    reward[i] = penalty
    terminated[i] = True
    illegal[i] = True
    done[i] = True


@jit(inline=True)
def _random_step_rows(start, stop, boards, to_move, done, base, episode, key, counter,
                      actions, stones, variant, agent, outcome, seen, mask, reward,
                      terminated, margin, ended, illegal, settled_out, sample, sample_key):
    """:func:`_random_step_block`'s work for boards other than Kalah(6, n): one pass a game
    that keeps the game's state in local variables, counts each side's filled pits
    once a move (the game is over when a side has none, and the random opponent draws
    among its own: a tenth less time than summing the sides and counting again in
    :func:`_random_move`) and writes every output once (1.5 times as fast as
    :func:`_advance_block`, ``bench/envs.py``)."""
    m = boards.shape[1] // 2 - 1
    size = 2 * m + 2
    shift = 0 if agent == SOUTH else m + 1
    penalty = -1.0 if outcome else -2.0 * m * stones
    # stream_key(sample_key, i) is mix64(mix64(sample_key + GOLDEN) ^ i): its first half once
    mixed = mix64_inline(np.uint64(sample_key) + GOLDEN)
    ends = 0
    illegals = 0
    for i in range(start, stop):
        board = boards[i]
        south, north = _filled_pits(board, m)
        if sample:
            # the agent's uniform legal pit, as sample_legal draws it from the mask (the
            # mask the last step or reset returned is this board's: none once over)
            action = 0
            if south != 0 and north != 0:
                pick, _ = below_inline(mix64_inline(mixed ^ np.uint64(i)), 0,
                                       south if agent == SOUTH else north)
                action = _filled_pit(board, shift, m, pick) - shift
            actions[i] = action
        _clear_outputs(i, reward, terminated, margin, ended, illegal)
        settled = True  # the step's outcome is decided before any move
        player = to_move[i]
        stream = key[i]
        drawn = counter[i]
        if done[i]:  # a new episode, the action ignored
            stream = _next_episode(i, base, episode, done)
            drawn = 0
            for j in range(size):
                board[j] = stones
            board[m] = 0
            board[size - 1] = 0
            player = SOUTH
        else:
            action = actions[i]
            if south == 0 or north == 0:
                # only on tiny boards: the opponent ended the game before the agent moved
                _end_game(board, i, agent, outcome, reward, terminated, margin, ended, done)
                ends += 1
            elif action < 0 or action >= m or board[action + shift] == 0:
                _illegal_action(i, penalty, reward, terminated, illegal, done)
                illegals += 1
            else:
                player, _ = apply_move_inline(board, player, action + shift, variant, m)
                settled = False
        # the counts after each move serve the end of the game, the opponent's draw and,
        # after the last move, the observation's mask
        south, north = _filled_pits(board, m)
        while player != agent and south != 0 and north != 0:
            # the opponent's replies (as _random_move draws them)
            pick, drawn = below_inline(stream, drawn, south if player == SOUTH else north)
            pit = _filled_pit(board, 0 if player == SOUTH else m + 1, m, pick)
            player, _ = apply_move_inline(board, player, pit, variant, m)
            south, north = _filled_pits(board, m)
        to_move[i] = player
        key[i] = stream
        counter[i] = drawn
        over = south == 0 or north == 0
        if over and not settled:
            _end_game(board, i, agent, outcome, reward, terminated, margin, ended, done)
            ends += 1
        settled_out[i] = settled
        _observe(board, i, shift, m, over, seen, mask)
    return ends, illegals


@jit(inline=True)
def _random_step_words(start, stop, boards, to_move, done, base, episode, key, counter,
                       actions, stones, variant, agent, outcome, seen, mask, reward,
                       terminated, margin, ended, illegal, settled_out, sample, sample_key):
    """:func:`_random_step_rows` for Kalah(6, n): each game's board loaded into two words
    once a step, its moves made on them (:mod:`jitgames.envs.kalah_words`), the words
    stored back before the outputs are written; the same draws, moves and outputs."""
    m = words.PITS
    shift = 0 if agent == SOUTH else m + 1
    penalty = -1.0 if outcome else -2.0 * m * stones
    # stream_key(sample_key, i) is mix64(mix64(sample_key + GOLDEN) ^ i): its first half once
    mixed = mix64_inline(np.uint64(sample_key) + GOLDEN)
    opening = words.start_word(stones)  # a side's word when an episode starts
    ends = 0
    illegals = 0
    for i in range(start, stop):
        board = boards[i]
        south, north = words.load_words(board)
        south_full = words.filled_mask(south)
        north_full = words.filled_mask(north)
        own_full = south_full if agent == SOUTH else north_full
        if sample:
            # the agent's uniform legal pit, as in _random_step_rows
            action = 0
            if south_full != 0 and north_full != 0:
                pick, _ = below_inline(mix64_inline(mixed ^ np.uint64(i)), 0,
                                       popcount(own_full))
                action = words.PICK[own_full, pick]
            actions[i] = action
        _clear_outputs(i, reward, terminated, margin, ended, illegal)
        settled = True  # the step's outcome is decided before any move
        player = to_move[i]
        stream = key[i]
        drawn = counter[i]
        if done[i]:  # a new episode, the action ignored
            stream = _next_episode(i, base, episode, done)
            drawn = 0
            south = opening
            north = opening
            player = SOUTH
        else:
            action = actions[i]
            if south_full == 0 or north_full == 0:
                # only on tiny boards: the opponent ended the game before the agent moved
                _end_game(board, i, agent, outcome, reward, terminated, margin, ended, done)
                ends += 1
            elif action < 0 or action >= m or (own_full >> action) & 1 == 0:
                _illegal_action(i, penalty, reward, terminated, illegal, done)
                illegals += 1
            elif player == agent:
                south, north, player = words.words_move(south, north, player, action, variant)
                settled = False
            else:
                # a state no step leaves (the other side to move, the game not over):
                # the agent's pit sown as the board kernels sow it, so as the twin does
                player, _ = apply_move_inline(board, player, action + shift, variant, m)
                south, north = words.load_words(board)
                settled = False
        south_full = words.filled_mask(south)
        north_full = words.filled_mask(north)
        while player != agent and south_full != 0 and north_full != 0:
            # the opponent's replies (as _random_move draws them)
            mover = south_full if player == SOUTH else north_full
            pick, drawn = below_inline(stream, drawn, popcount(mover))
            south, north, player = words.words_move(south, north, player,
                                                    words.PICK[mover, pick], variant)
            south_full = words.filled_mask(south)
            north_full = words.filled_mask(north)
        words.store_words(board, south, north)
        to_move[i] = player
        key[i] = stream
        counter[i] = drawn
        over = south_full == 0 or north_full == 0
        if over and not settled:
            _end_game(board, i, agent, outcome, reward, terminated, margin, ended, done)
            ends += 1
        settled_out[i] = settled
        _observe(board, i, shift, m, over, seen, mask)
    return ends, illegals


STEP_BLOCK = 32  # games a claim in random_step's dynamic schedule
YIELD_AFTER = 2_000  # pause rounds (about 60 µs) the stepping thread spins before it yields
YIELD_EVERY = 256  # a pool worker with nothing to do yields once in so many rounds
# the step pool's control array (jitgames.envs.step_pool): TALLY's columns besides DONE,
# PARAMS' columns, and the order of the arrays in the two ADDRESSES rows (the state and
# the actions, then the outputs)
ENDS, ILLEGALS = 1, 2
SAMPLE, SAMPLE_KEY, STONES, VARIANT, AGENT, OUTCOME = range(6)


def new_pool_control(count: int, pits: int, workers: int) -> np.ndarray:
    """The control array of a step pool (:mod:`jitgames.envs.step_pool`) for batches of
    ``count`` games of ``pits`` pits a side and up to ``workers`` worker threads."""
    return new_control(count, 2 * pits + 2, (count + STEP_BLOCK - 1) // STEP_BLOCK, workers)


@jit(leaf=True)
def random_step(control, boards, to_move, done, base, episode, key, counter, actions, stones,
                variant, agent, outcome, seen, mask, reward, terminated, margin, ended,
                illegal, settled, sample, sample_key):
    """``advance(games, actions, which, ACT | FINISH, rules, out)`` for a ``RANDOM``
    opponent, with the fields of ``games``, ``rules`` (``stones``, ``variant``,
    ``agent``, ``outcome``) and ``out`` passed one by one as plain arrays and numbers:
    the vector environment's step, called without the typing of records (a third of
    the time of a step's Python side at 1024 games). With ``sample`` the agent's
    actions are drawn here, written into ``actions`` before they are played: in each
    game the pit that ``sample_legal(mask, rng)`` takes when it draws ``sample_key``
    (:func:`jitgames.envs.sampling.uniform_legal`), ``mask`` the legal pits the last
    step returned; without it ``sample_key`` is not used. Returns ``(ended, illegal,
    wake)``: how many games play ended and how many actions were illegal (so that the
    caller need not scan the flags), and whether a worker of the step pool that the
    step wanted was not spinning (the caller then wakes the pool,
    :meth:`jitgames.envs.step_pool.StepPool.wake`).

    On one thread (Numba's thread count of the calling thread), with one block of
    games, or with a ``control`` array made for another batch, the step is
    :func:`random_step_serial`. Otherwise it is shared with the step pool of
    ``control`` (:func:`new_pool_control`; :mod:`jitgames.envs.step_pool`): the
    step's arrays and numbers are published in ``control`` (:func:`atomic_store` of the
    regions' block counters, release), then the calling thread and the pool's spinning workers
    claim blocks of ``STEP_BLOCK`` games, each thread from its own region of the
    blocks first, then from the others' (:func:`_claim`), until none is left
    (:func:`pool_worker`), and the calling thread waits, spinning, until the blocks the
    workers claimed are done. Blocks nobody else claimed are the calling thread's, so
    a worker that sleeps, or was never started, costs time, never a result; each
    game's result depends on the game alone, so neither the schedule nor the thread
    count changes anything but the time.
    """
    count = boards.shape[0]
    blocks = control[SHAPE, BLOCKS]
    slots = min(threads_now(), blocks, control.shape[0] - WORKER + 1)
    if (slots <= 1 or control[SHAPE, GAMES] != count or control[SHAPE, WIDTH] != boards.shape[1]
            or blocks != (count + STEP_BLOCK - 1) // STEP_BLOCK):
        ends, illegals = random_step_serial(boards, to_move, done, base, episode, key, counter,
                                            actions, stones, variant, agent, outcome, seen,
                                            mask, reward, terminated, margin, ended, illegal,
                                            settled, sample, sample_key)
        return ends, illegals, False
    publish(control, boards, to_move, done, base, episode, key, counter, actions, stones,
            variant, agent, outcome, seen, mask, reward, terminated, margin, ended, illegal,
            settled, sample, sample_key, slots - 1)
    tally = control[TALLY]
    ends = 0
    illegals = 0
    mine = 0
    block = _claim(control, 0, blocks)
    while block >= 0:
        e, k = _published_block(control, block, boards, to_move, done, base, episode, key,
                                counter, actions, seen, mask, reward, terminated, margin,
                                ended, illegal, settled)
        ends += e
        illegals += k
        mine += 1
        block = _claim(control, 0, blocks)
    # every block is claimed; those of the workers are being stepped by running threads
    # (a worker cut off by the system mid-block is given this thread's core after a
    # short spin: on a machine with no free core, waiting for it otherwise lasts a slice)
    rounds = 0
    while atomic_load(tally) < blocks - mine:
        rounds += 1
        if rounds < YIELD_AFTER:
            spin_pause()
        else:
            yield_thread()
    ends += tally[ENDS]
    illegals += tally[ILLEGALS]
    wake = False
    for w in range(slots - 1):
        if atomic_load(control[WORKER + w]) == 0:
            wake = True
    return ends, illegals, wake


@jit(leaf=True)
def publish(control, boards, to_move, done, base, episode, key, counter, actions, stones,
            variant, agent, outcome, seen, mask, reward, terminated, margin, ended, illegal,
            settled, sample, sample_key, wanted):
    """Publish a step of :func:`random_step` to the step pool of ``control`` (arguments as
    :func:`random_step`'s; ``wanted``: the workers the step wants): its numbers and the
    addresses of its arrays, zeroed counts, and last the block counter set to 0 (release:
    a worker that claims a block sees everything written before). Only once every block
    of the step before is done (no worker reads the published values then)."""
    numbers = control[PARAMS]
    numbers[SAMPLE] = sample
    numbers.view(np.uint64)[SAMPLE_KEY] = sample_key
    numbers[STONES] = stones
    numbers[VARIANT] = variant
    numbers[AGENT] = agent
    numbers[OUTCOME] = outcome
    state = control[ADDRESSES]
    state[0] = address_of(boards)
    state[1] = address_of(to_move)
    state[2] = address_of(done)
    state[3] = address_of(base)
    state[4] = address_of(episode)
    state[5] = address_of(key)
    state[6] = address_of(counter)
    state[7] = address_of(actions)
    outputs = control[ADDRESSES + 1]
    outputs[0] = address_of(seen)
    outputs[1] = address_of(mask)
    outputs[2] = address_of(reward)
    outputs[3] = address_of(terminated)
    outputs[4] = address_of(margin)
    outputs[5] = address_of(ended)
    outputs[6] = address_of(illegal)
    outputs[7] = address_of(settled)
    tally = control[TALLY]
    tally[DONE] = 0
    tally[ENDS] = 0
    tally[ILLEGALS] = 0
    control[SHAPE, WANTED] = wanted
    regions = control.shape[0] - WORKER + 1
    for region in range(regions):
        start = region_start(region, regions, control[SHAPE, BLOCKS])
        atomic_store(_next_block(control, region), start)


@jit(inline=True)
def _next_block(control, region):
    """The counter of ``region``'s next block to claim, as a one-element view (region 0:
    the stepping thread's, region ``i + 1``: worker ``i``'s)."""
    if region == 0:
        return control[CLAIMED, 0:1]
    return control[WORKER + region - 1, NEXT:NEXT + 1]


@jit(inline=True)
def _claim(control, first, blocks):
    """A block of the published step for the thread of region ``first``: its own
    region's next, else another region's (taken in turn from ``first + 1``), or -1 when
    every block is claimed. Regions are contiguous runs of blocks fixed by the control
    array, so a thread steps the same games step after step while no one falls behind
    (their rows stay in its core's cache), and a claim made before :func:`publish`
    reset the counters finds its region's counter at or past the region's end."""
    regions = control.shape[0] - WORKER + 1
    for k in range(regions):
        region = (first + k) % regions
        end = region_start(region + 1, regions, blocks)
        counter = _next_block(control, region)
        if atomic_load(counter) < end:
            block = fetch_add_acq_rel(counter, 1)
            if block < end:
                return block
    return -1


@jit(inline=True)
def _published_block(control, block, boards, to_move, done, base, episode, key, counter,
                     actions, seen, mask, reward, terminated, margin, ended, illegal, settled):
    """Step block ``block`` of the step published in ``control`` (:func:`publish`), its
    arrays taken from their addresses with the types and shapes of the arrays given
    (the same batch's), its numbers from ``PARAMS``; returns the block's counts."""
    state = control[ADDRESSES]
    outputs = control[ADDRESSES + 1]
    numbers = control[PARAMS]
    start = block * STEP_BLOCK
    return _random_step_block(
        start, min(boards.shape[0], start + STEP_BLOCK), array_at(state[0], boards),
        array_at(state[1], to_move), array_at(state[2], done), array_at(state[3], base),
        array_at(state[4], episode), array_at(state[5], key), array_at(state[6], counter),
        array_at(state[7], actions), numbers[STONES], numbers[VARIANT], numbers[AGENT],
        numbers[OUTCOME] != 0, array_at(outputs[0], seen), array_at(outputs[1], mask),
        array_at(outputs[2], reward), array_at(outputs[3], terminated),
        array_at(outputs[4], margin), array_at(outputs[5], ended),
        array_at(outputs[6], illegal), array_at(outputs[7], settled), numbers[SAMPLE] != 0,
        numbers.view(np.uint64)[SAMPLE_KEY])


@jit(leaf=True)
def pool_worker(control, index, rounds, boards, to_move, done, base, episode, key, counter,
                actions, seen, mask, reward, terminated, margin, ended, illegal, settled):
    """Worker ``index`` of a step pool (:mod:`jitgames.envs.step_pool`), one spin window:
    claim and step the blocks of the steps :func:`random_step` publishes in ``control``
    (the arrays given are the batch's own, for their types and shapes: each step's are
    taken from the addresses published), and return after ``rounds`` rounds in a row
    with nothing to claim (an atomic load and a pause hint each), or at once when the
    pool is stopped. A worker that the step does not want (``index`` not below
    ``WANTED``: fewer threads now) claims nothing."""
    blocks = control[SHAPE, BLOCKS]
    tally = control[TALLY]
    wanted = control[SHAPE, WANTED:]
    stop = control[SHAPE, STOP:]
    idle = 0
    while idle < rounds and atomic_load(stop) == 0:
        if index < atomic_load(wanted):
            block = _claim(control, index + 1, blocks)
            if block >= 0:
                e, k = _published_block(control, block, boards, to_move, done, base, episode,
                                        key, counter, actions, seen, mask, reward, terminated,
                                        margin, ended, illegal, settled)
                fetch_add(tally[ENDS:], e)
                fetch_add(tally[ILLEGALS:], k)
                fetch_add_acq_rel(tally, 1)  # release: the block's writes before its count
                idle = 0
                continue
        idle += 1
        if idle % YIELD_EVERY == 0:
            yield_thread()  # let other threads have this core if they are waiting for one
        else:
            spin_pause()


@jit(leaf=True)
def random_step_serial(boards, to_move, done, base, episode, key, counter, actions, stones,
                       variant, agent, outcome, seen, mask, reward, terminated, margin, ended,
                       illegal, settled, sample, sample_key):
    """:func:`random_step` on the calling thread alone, all games in one pass (what
    :func:`random_step` does on one thread: starting the parallel loop, even with one
    thread, cost about 6 us of a 1024-game step, ``bench/envs.py``). Same arguments,
    same results."""
    return _random_step_block(0, boards.shape[0], boards, to_move, done, base, episode, key,
                              counter, actions, stones, variant, agent, outcome, seen, mask,
                              reward, terminated, margin, ended, illegal, settled, sample,
                              sample_key)


@jit(inline=True)
def _end_game(board, i, agent, outcome, reward, terminated, margin, ended, done):
    """Game ``i`` ended by play: the agent's margin and reward, and the episode's end."""
    margin[i] = _agent_margin(board, agent)
    reward[i] = _result(margin[i], outcome)
    terminated[i] = True
    ended[i] = True
    done[i] = True


@jit(leaf=True)
def _advance_block(games, start, stop, actions, which, phases, rules, out):
    """Games ``start .. stop-1`` of :func:`advance`, one after the other.

    Blocks of games rather than one call a game, with the step inlined and without
    reference counting (a leaf kernel: it creates no array; the alpha-beta search it
    calls manages its own): half the time of one call a game. The alpha-beta opponent
    runs in :func:`_search_block` instead. Written into
    the prange loop itself, item assignments through the records' attributes
    (``games.done[i] = ...``) were lost (Numba 0.68 parfors). The result of a game
    does not depend on its block, so neither does it on the thread count."""
    for i in range(start, stop):
        _advance_one(games, i, actions[i], which[i], phases, rules, out, _random_move)


@jit
def _search_block(games, start, stop, actions, which, phases, rules, out):
    """:func:`_advance_block` for the alpha-beta opponent, with reference counting (the
    search creates arrays, and a callee compiled from a leaf kernel inherits its lack
    of reference counting)."""
    for i in range(start, stop):
        _advance_one(games, i, actions[i], which[i], phases, rules, out, _search_move)


@jit(inline=True)
def _advance_one(games, i, action, chosen, phases, rules, out, mover):
    """Game ``i``'s part of :func:`advance`."""
    if phases & RESTART:
        if chosen:
            games.done[i] = True
            _act(games, i, 0, rules, out, mover)
        else:
            _idle(i, out)
    elif phases & ACT:
        _act(games, i, action, rules, out, mover)
    if phases & FINISH:
        _finish(games, i, rules, out)


@jit
def _play(games, i, pit, variant):
    # A function of its own: written inline in the prange loop, the tuple assignment
    # into games.to_move[i] came out wrong (Numba 0.68 parfors; the next player was lost).
    following, _ = apply_move(games.boards[i], games.to_move[i], pit, variant)
    games.to_move[i] = following


@jit(parallel=True)
def apply_replies(games, pits, rules):
    """Play the opponent's move ``pits[i]`` (board index; ``-1``: none) in game ``i``."""
    for i in prange(games.boards.shape[0]):
        if pits[i] >= 0:
            _play(games, i, pits[i], rules.variant)


@jit(parallel=True)
def random_games(pits, stones, variant, seed, margins, plies):
    """Play ``len(margins)`` whole games of uniformly random legal moves: game ``g``
    draws from ``stream_key(seed, g)``; its final South margin goes to ``margins[g]``
    and its number of moves to ``plies[g]``."""
    size = 2 * pits + 2
    for g in prange(margins.shape[0]):
        board = np.full(size, stones, dtype=np.int8)
        board[pits] = 0
        board[size - 1] = 0
        key = stream_key(seed, g)
        counter = 0
        player = SOUTH
        played = 0
        while not is_over(board):
            pit, counter = _random_move(board, player, 0, board, variant, key, counter, board)
            player, _ = apply_move_inline(board, player, pit, variant, pits)
            played += 1
        margins[g] = final_margin(board)
        plies[g] = played
