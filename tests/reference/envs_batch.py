"""Slow, obvious twins of the batched environment kernels of
:mod:`jitgames.envs.kalah_batch` (same names and signatures), written from the rules
of a ``Kalah-v0`` step: the game loop of one game at a time, on the reference rules."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from tests.reference import kalah as ref
from tests.reference._random import below, stream_key

RANDOM, SEARCH, PERFECT = 0, 1, 2
ACT, FINISH, RESTART = 1, 2, 4


def opponent_move(board, player, kind, depth, weights, variant, key, counter, moves):
    if kind == RANDOM:
        legal = [i for i in ref.own_pits((len(board) - 2) // 2, player) if board[i] > 0]
        pick, counter = below(int(key), int(counter), len(legal))
        return legal[pick], counter
    pit, _, counter = ref.choose_move(board, player, depth, weights, variant, 1, True, True,
                                      int(key), int(counter), [0])
    return pit, counter


def _result(margin, outcome):
    if not outcome:
        return float(margin)
    return float((margin > 0) - (margin < 0))


def _one(games, i, action, chosen, phases, rules, out):
    board = games.boards[i]
    m = (len(board) - 2) // 2
    agent = rules.agent

    def agent_margin():
        margin = ref.final_margin(board)
        return margin if agent == 0 else -margin

    def end(margin):
        out.margin[i] = margin
        out.reward[i] = _result(margin, rules.outcome)
        out.terminated[i] = True
        out.ended[i] = True
        games.done[i] = True

    if phases & (ACT | RESTART):
        out.reward[i], out.terminated[i], out.margin[i] = 0.0, False, 0
        out.ended[i], out.illegal[i], out.settled[i] = False, False, True
        if phases & RESTART and not chosen:
            pass
        else:
            if phases & RESTART:
                games.done[i] = True
            if games.done[i]:  # a new episode
                games.episode[i] += 1
                games.key[i] = stream_key(int(games.base[i]), int(games.episode[i]))
                games.counter[i] = 0
                board[:] = rules.stones
                board[m] = board[2 * m + 1] = 0
                games.to_move[i] = 0
                games.done[i] = False
            elif ref.is_over(board):
                end(agent_margin())
            elif not 0 <= action < m or board[action if agent == 0 else m + 1 + action] == 0:
                out.reward[i] = -1.0 if rules.outcome else -2.0 * m * rules.stones
                out.terminated[i] = out.illegal[i] = games.done[i] = True
            else:
                pit = action if agent == 0 else m + 1 + action
                games.to_move[i], _ = ref.apply_move(board, int(games.to_move[i]), pit,
                                                     rules.variant)
                out.settled[i] = False
            while (games.to_move[i] != agent and rules.opponent != PERFECT
                   and not ref.is_over(board)):
                pit, games.counter[i] = opponent_move(
                    board, int(games.to_move[i]), rules.opponent, rules.depth, rules.weights,
                    rules.variant, games.key[i], games.counter[i], None)
                games.to_move[i], _ = ref.apply_move(board, int(games.to_move[i]), pit,
                                                     rules.variant)
    if phases & FINISH:
        over = ref.is_over(board)
        if over and not out.settled[i]:
            end(agent_margin())
        own = list(range(m + 1)) if agent == 0 else list(range(m + 1, 2 * m + 2))
        other = list(range(m + 1, 2 * m + 2)) if agent == 0 else list(range(m + 1))
        out.seen[i, :] = [board[j] for j in own + other]
        out.mask[i, :] = [int(board[j] > 0 and not over) for j in own[:m]]


def advance(games, actions, which, phases, rules, out):
    for i in range(len(games.boards)):
        _one(games, i, int(actions[i]), bool(which[i]), phases, rules, out)


def random_step(boards, to_move, done, base, episode, key, counter, actions, stones,
                variant, agent, outcome, seen, mask, reward, terminated, margin, ended,
                illegal, settled, sample, sample_key):
    """A whole step against the random opponent, the state and outputs given array by
    array; returns (games ended by play, illegal actions). With ``sample`` the agent's
    action of game ``i`` is first drawn into ``actions[i]``: the k-th of its pits holding
    stones (ascending, ``k = below(stream_key(sample_key, i), 0, count)``), 0 when the
    game is over (no pit is legal)."""
    if sample:
        for i, board in enumerate(boards):
            m = (len(board) - 2) // 2
            over = ref.is_over(board)
            own = range(m) if agent == 0 else range(m + 1, 2 * m + 1)
            legal = [j for j, p in enumerate(own) if board[p] > 0 and not over]
            actions[i] = (legal[below(stream_key(int(sample_key), i), 0, len(legal))[0]]
                          if legal else 0)
    games = SimpleNamespace(boards=boards, to_move=to_move, done=done, base=base,
                            episode=episode, key=key, counter=counter)
    rules = SimpleNamespace(stones=stones, variant=variant, agent=agent, opponent=RANDOM,
                            depth=0, weights=None, outcome=outcome)
    out = SimpleNamespace(seen=seen, mask=mask, reward=reward, terminated=terminated,
                          margin=margin, ended=ended, illegal=illegal, settled=settled)
    for i in range(len(boards)):
        _one(games, i, int(actions[i]), True, ACT | FINISH, rules, out)
    return int(sum(ended)), int(sum(illegal))


def random_step_serial(boards, to_move, done, base, episode, key, counter, actions, stones,
                       variant, agent, outcome, seen, mask, reward, terminated, margin, ended,
                       illegal, settled, sample, sample_key):
    """:func:`random_step` (the same step, on one thread in the library)."""
    return random_step(boards, to_move, done, base, episode, key, counter, actions, stones,
                       variant, agent, outcome, seen, mask, reward, terminated, margin, ended,
                       illegal, settled, sample, sample_key)


def apply_replies(games, pits, rules):
    for i in range(len(games.boards)):
        if pits[i] >= 0:
            games.to_move[i], _ = ref.apply_move(games.boards[i], int(games.to_move[i]),
                                                 int(pits[i]), rules.variant)


def random_games(pits, stones, variant, seed, margins, plies):
    for g in range(len(margins)):
        board = [stones] * (2 * pits + 2)
        board[pits] = board[2 * pits + 1] = 0
        board = np.array(board, dtype=np.int64)
        key, counter, player, played = stream_key(int(seed), g), 0, 0, 0
        while not ref.is_over(board):
            legal = [i for i in ref.own_pits(pits, player) if board[i] > 0]
            pick, counter = below(key, counter, len(legal))
            player, _ = ref.apply_move(board, player, legal[pick], variant)
            played += 1
        margins[g] = ref.final_margin(board)
        plies[g] = played


# ----- two-player batches (jitgames.envs.selfplay)

def play_pits(boards, to_move, over, actions, variant, penalty, outcome, rewards):
    for i in range(len(boards)):
        board, m = boards[i], (len(boards[i]) - 2) // 2
        rewards[i, :] = 0.0
        if over[i]:
            continue
        player, action = int(to_move[i]), int(actions[i])
        pit = action if player == 0 else m + 1 + action
        if not 0 <= action < m or board[pit] == 0:
            rewards[i, player] = penalty
            over[i] = True
            continue
        to_move[i], _ = ref.apply_move(board, player, pit, variant)
        if ref.is_over(board):
            margin = ref.final_margin(board)
            rewards[i, 0], rewards[i, 1] = _result(margin, outcome), _result(-margin, outcome)
            over[i] = True


def observe_games(boards, to_move, over, seen, mask):
    for i in range(len(boards)):
        board, m = boards[i], (len(boards[i]) - 2) // 2
        own = list(range(m + 1)) if to_move[i] == 0 else list(range(m + 1, 2 * m + 2))
        other = list(range(m + 1, 2 * m + 2)) if to_move[i] == 0 else list(range(m + 1))
        seen[i, :] = [board[j] for j in own + other]
        mask[i, :] = [int(board[j] > 0 and not over[i]) for j in own[:m]]


# ----- Mastermind batches (jitgames.envs.mastermind_batch)

def guess_codes(codes, games, actions, active):
    from tests.reference.envs import narrow_consistent
    from tests.reference.mastermind import feedback_digits

    pegs = codes.pegs
    for i in range(len(games.secrets)):
        if active[i]:
            guess, secret, row = int(actions[i]), int(games.secrets[i]), int(games.played[i])
            answer = feedback_digits(codes.digits[guess], codes.counts[guess],
                                     codes.digits[secret], codes.counts[secret], pegs)
            games.guesses[i, row], games.answers[i, row] = guess, answer
            games.played[i] = row + 1
            games.left[i] = narrow_consistent(codes.digits, codes.counts, pegs, guess, answer,
                                              games.consistent[i])
        for r in range(games.seen_guesses.shape[1]):
            played = r < games.played[i]
            games.seen_guesses[i, r] = codes.digits[games.guesses[i, r]] if played else -1
            games.seen_feedback[i, r] = (divmod(int(games.answers[i, r]), pegs + 1) if played
                                         else (-1, -1))


# ----- solitaire batches (jitgames.envs.solitaire_batch)

def _legal_in_action_order(position, out):
    """The legal moves in the environment's action order (docs/environments.md): moves
    onto an exposed card by destination pile, then kings into an empty pile by suit."""
    from tests.reference import solitaire as sol

    moves = np.zeros(64, dtype=np.int64)
    n = sol.legal_moves(position, moves, 0)
    ordered = sorted(moves[:n].tolist(), key=lambda mv: (mv // 8 % 13 == 12,
                                                         mv // 8 // 13 if mv // 8 % 13 == 12
                                                         else mv % 8))
    out[:n] = ordered
    return n


def play_moves(games, actions, active, show_face_down, reward, terminated, illegal):
    from tests.reference import solitaire as sol
    from tests.reference.envs import observe_position

    score = sol.R.SCORE
    for i in range(len(games.positions)):
        position = games.positions[i]
        reward[i], terminated[i], illegal[i] = 0.0, False, False
        if active[i]:
            action = int(actions[i])
            if 0 <= action < games.count[i]:
                before = int(position[score])
                sol.apply_move(position, games.moves[i, action])
                reward[i] = float(position[score] - before)
                games.count[i] = _legal_in_action_order(position, games.moves[i])
                terminated[i] = games.count[i] == 0
            else:
                terminated[i], illegal[i] = True, games.count[i] > 0
        else:
            games.count[i] = _legal_in_action_order(position, games.moves[i])
        observe_position(position, show_face_down, games.status[i], games.piles[i])
        count = int(games.count[i])
        games.move_rows[i] = -1
        games.move_rows[i, :count, 0] = games.moves[i, :count] // 8
        games.move_rows[i, :count, 1] = games.moves[i, :count] % 8
        games.mask[i] = [1] * count + [0] * (len(games.mask[i]) - count)


# ----- whole random games of Mastermind and the solitaire (random_games of
# jitgames.envs.mastermind_batch and jitgames.envs.solitaire_batch)

def mastermind_random_games(digits, counts, pegs, max_guesses, seed, guesses, solved):
    """Twin of :func:`jitgames.envs.mastermind_batch.random_games`."""
    from tests.reference.mastermind import feedback_digits

    size = len(digits)
    for g in range(len(guesses)):
        key = stream_key(int(seed), g)
        secret, counter = below(key, 0, size)
        candidates = list(range(size))  # the codes consistent with every answer, in order
        made, broken = 0, False
        while made < max_guesses and not broken:
            pick, counter = below(key, counter, len(candidates))
            guess = candidates[pick]
            answer = feedback_digits(digits[guess], counts[guess], digits[secret],
                                     counts[secret], pegs)
            made += 1
            broken = answer == pegs * (pegs + 1)
            candidates = [c for c in candidates
                          if feedback_digits(digits[guess], counts[guess], digits[c],
                                             counts[c], pegs) == answer]
        guesses[g], solved[g] = made, broken


def solitaire_random_games(seed, scores, plies):
    """Twin of :func:`jitgames.envs.solitaire_batch.random_games`: the reference rules,
    moves in the environment's action order."""
    from tests.reference import solitaire as sol

    for g in range(len(scores)):
        key = stream_key(int(seed), g)
        deck = np.zeros(52, dtype=np.int64)
        sol.fisher_yates_deck(key, deck)
        position = np.zeros(sol.R.POSITION_SIZE, dtype=np.int64)
        sol.deal_position(deck, position)
        draws, counter, played = stream_key(key, 1), 0, 0
        moves = np.zeros(64, dtype=np.int64)
        count = _legal_in_action_order(position, moves)
        while count:
            pick, counter = below(draws, counter, count)
            sol.apply_move(position, moves[pick])
            played += 1
            count = _legal_in_action_order(position, moves)
        scores[g], plies[g] = int(position[sol.R.SCORE]), played


# ----- uniform legal actions (jitgames.envs.sampling)

def uniform_legal(mask, key, out):
    for i in range(len(mask)):
        legal = [j for j in range(len(mask[i])) if mask[i][j] != 0]
        out[i] = legal[below(stream_key(int(key), i), 0, len(legal))[0]] if legal else 0
