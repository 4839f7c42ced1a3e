"""The Kalah environment against OpenSpiel's ``mancala`` (Kalah 6 x 4, capture only
from a non-empty opposite pit, +-1 result), an implementation no one here wrote.

Random games are played move by move in both; after every move the boards, the
player to move and the end of the game must agree, and at the end the returns.
The two-player batch (:class:`jitgames.envs.selfplay.KalahBatch`) is compared the same
way, 64 games at a time, each batch move being one kernel call for all of them.
OpenSpiel's board: index 0 is player 1's store, 1..6 player 0's pits, 7 player 0's
store, 8..13 player 1's pits, and action ``a`` sows pit ``a``; so our board is
OpenSpiel's rotated by one (South = player 0) and our board index is ``a - 1``.
"""
import random

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="OpenSpiel is not installed (pip install open_spiel; it is in the "
                      "test extra where a binary wheel exists)")
pytest.importorskip("pettingzoo", reason="needs the envs extra (pettingzoo)")

from jitgames.envs import kalah  # noqa: E402


def play_random_games(games: int, seed: int) -> int:
    """Play ``games`` random games in both implementations; return the moves compared."""
    game = pyspiel.load_game("mancala")
    rng = random.Random(seed)
    env = kalah.raw_env(pits=6, stones=4, variant="standard", reward="outcome")
    compared = 0
    for number in range(games):
        state = game.new_initial_state()
        env.reset(seed=number)
        while True:
            theirs = [int(x) for x in state.observation_tensor(0)[:14]]
            assert env.board.tolist() == theirs[1:] + theirs[:1]
            assert state.is_terminal() == all(env.terminations.values())
            if state.is_terminal():
                break
            player = state.current_player()
            assert env.agent_selection == kalah.AGENTS[player]
            legal = state.legal_actions()
            mask = env.observe(env.agent_selection)["action_mask"]
            first = 0 if player == 0 else 7
            assert [a - 1 - first for a in legal] == np.flatnonzero(mask).tolist()
            action = rng.choice(legal)
            state.apply_action(action)
            env.step(action - 1 - first)
            compared += 1
        returns = state.returns()
        assert [env.rewards["player_0"], env.rewards["player_1"]] == returns
    return compared


def test_thousands_of_random_games_agree_with_openspiel():
    assert play_random_games(2000, seed=0) > 2000 * 20


@pytest.mark.slow
def test_many_more_random_games_agree_with_openspiel():
    play_random_games(20000, seed=1)


def play_random_batches(batches: int, size: int, seed: int) -> int:
    """Play ``batches`` batches of ``size`` random games at once in the two-player batch
    (:class:`jitgames.envs.selfplay.KalahBatch`, one kernel call a move of every game)
    and in ``size`` OpenSpiel states; compare after every move as above."""
    from jitgames.envs.selfplay import KalahBatch

    game = pyspiel.load_game("mancala")
    rng = random.Random(seed)
    batch = KalahBatch(size, pits=6, stones=4, variant="standard", reward="outcome")
    compared = 0
    for _ in range(batches):
        batch.reset()
        states = [game.new_initial_state() for _ in range(size)]
        while True:
            mask = batch.legal_mask()
            actions = np.zeros(size, dtype=np.int64)
            for i, state in enumerate(states):
                theirs = [int(x) for x in state.observation_tensor(0)[:14]]
                assert batch.boards[i].tolist() == theirs[1:] + theirs[:1]
                assert state.is_terminal() == bool(batch.over[i])
                if state.is_terminal():
                    continue
                player = state.current_player()
                assert batch.to_move[i] == player
                first = 0 if player == 0 else 7
                legal = state.legal_actions()
                assert [a - 1 - first for a in legal] == np.flatnonzero(mask[i]).tolist()
                action = rng.choice(legal)
                state.apply_action(action)
                actions[i] = action - 1 - first
                compared += 1
            if batch.over.all():
                break
            batch.step(actions)
        assert batch.returns().tolist() == [state.returns() for state in states]
    return compared


def test_random_batches_agree_with_openspiel():
    assert play_random_batches(20, 64, seed=2) > 20 * 64 * 20
