"""Two-player Kalah batches (:mod:`jitgames.envs.selfplay`): the kernels against their
reference twin, the batch against the AEC environment game by game, and the
PettingZoo ParallelEnv through PettingZoo's own ``parallel_api_test``."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

pytest.importorskip("gymnasium", reason="needs the envs extra (gymnasium)")
pytest.importorskip("pettingzoo", reason="needs the envs extra (pettingzoo)")

from pettingzoo.test import parallel_api_test, parallel_seed_test  # noqa: E402

from jitgames.envs import kalah, selfplay  # noqa: E402
from jitgames.errors import InputError  # noqa: E402
from tests.reference import envs_batch as ref  # noqa: E402


@st.composite
def boards(draw):
    m = draw(st.integers(1, 5))
    count = draw(st.integers(1, 5))
    rows = np.zeros((count, 2 * m + 2), np.int8)
    for i in range(count):
        pits = draw(st.lists(st.integers(0, 5), min_size=2 * m, max_size=2 * m))
        if draw(st.integers(0, 4)) == 0:
            pits[m:] = [0] * m  # North's side empty: over
        rows[i, :m], rows[i, m + 1:2 * m + 1] = pits[:m], pits[m:]
        rows[i, m], rows[i, 2 * m + 1] = draw(st.integers(0, 9)), draw(st.integers(0, 9))
    to_move = np.array(draw(st.lists(st.integers(0, 1), min_size=count, max_size=count)),
                       np.int8)
    over = np.array(draw(st.lists(st.booleans(), min_size=count, max_size=count)))
    actions = np.array(draw(st.lists(st.integers(-1, m), min_size=count, max_size=count)),
                       np.int64)
    return rows, to_move, over, actions


@pytest.mark.kernel
@given(boards(), st.integers(0, 1), st.booleans())
def test_play_pits_matches_reference(batch, variant, outcome):
    rows, to_move, over, actions = batch
    theirs = [a.copy() for a in (rows, to_move, over)]
    rewards, ref_rewards = np.zeros((len(rows), 2)), np.zeros((len(rows), 2))
    selfplay.play_pits(rows, to_move, over, actions, variant, -7.0, outcome, rewards)
    ref.play_pits(*theirs, actions, variant, -7.0, outcome, ref_rewards)
    assert [rows.tolist(), to_move.tolist(), over.tolist(), rewards.tolist()] == \
        [theirs[0].tolist(), theirs[1].tolist(), theirs[2].tolist(), ref_rewards.tolist()]


@pytest.mark.kernel
@given(boards())
def test_observe_games_matches_reference(batch):
    rows, to_move, over, _ = batch
    m = rows.shape[1] // 2 - 1
    seen, mask = np.zeros_like(rows), np.zeros((len(rows), m), np.int8)
    ref_seen, ref_mask = np.zeros_like(rows), np.zeros((len(rows), m), np.int8)
    selfplay.observe_games(rows, to_move, over, seen, mask)
    ref.observe_games(rows, to_move, over, ref_seen, ref_mask)
    assert seen.tolist() == ref_seen.tolist() and mask.tolist() == ref_mask.tolist()


@settings(max_examples=15)
@given(st.sampled_from([(6, 4, "empty-capture", "margin"), (3, 2, "standard", "outcome"),
                        (1, 1, "empty-capture", "margin")]),
       st.integers(1, 4), st.data())
def test_batch_equals_aec_games_played_one_by_one(options, count, data):
    """Each game of the batch against its own AEC environment (the wrapped one of
    :func:`jitgames.envs.kalah.env`, illegal actions included), action by action."""
    pits, stones, variant, reward = options
    batch = selfplay.KalahBatch(count, pits, stones, variant, reward)
    singles = [kalah.env(pits, stones, variant, reward) for _ in range(count)]
    for env in singles:
        env.reset()
    totals = np.zeros((count, 2))
    for _ in range(data.draw(st.integers(1, 60))):
        mask, seen = batch.legal_mask(), batch.observations()
        actions = []
        for i, env in enumerate(singles):
            if batch.over[i]:
                assert all(env.terminations.values())
                actions.append(0)
                continue
            agent = env.agent_selection
            theirs = env.observe(agent)
            assert seen[i].tolist() == theirs["observation"].tolist()
            assert mask[i].tolist() == theirs["action_mask"].tolist()
            legal = np.flatnonzero(mask[i]).tolist()
            action = data.draw(st.sampled_from(legal) if legal and data.draw(
                st.integers(0, 9)) else st.integers(0, pits - 1))
            actions.append(action)
            env.step(action)
            totals[i] += [env.rewards["player_0"], env.rewards["player_1"]]
        was_over = batch.over.copy()
        rewards, terminated = batch.step(np.array(actions))
        for i, env in enumerate(singles):
            assert bool(terminated[i]) == (all(env.terminations.values()) and not was_over[i])
            expected = totals[i].tolist() if terminated[i] else [0.0, 0.0]
            assert rewards[i].tolist() == expected
    finished = batch.over
    assert batch.returns()[finished].tolist() == totals[finished].tolist()


def test_reset_mask_restarts_only_chosen_games():
    batch = selfplay.KalahBatch(3, 2, 1)
    batch.step(np.array([0, 0, 0]))
    before = batch.boards.copy()
    batch.reset(np.array([False, True, False]))
    assert batch.boards[1].tolist() == [1, 1, 0, 1, 1, 0]
    assert batch.boards[[0, 2]].tolist() == before[[0, 2]].tolist()
    with pytest.raises(InputError):
        batch.reset(np.array([True]))
    with pytest.raises(InputError):
        batch.step(np.zeros(2, np.int64))


@pytest.mark.parametrize("options", [{}, {"pits": 3, "stones": 2, "variant": "standard",
                                          "reward": "outcome"}, {"pits": 1, "stones": 1}])
def test_parallel_env_passes_pettingzoo_parallel_api_test(options):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parallel_api_test(selfplay.parallel_env(**options), num_cycles=300)
    unexpected = [str(w.message) for w in caught
                  if "Observation" not in str(w.message)]
    assert unexpected == []


def test_parallel_env_seed_test():
    parallel_seed_test(selfplay.parallel_env, num_cycles=200)


def test_parallel_env_plays_the_aec_game():
    """Random legal play through the parallel API gives the AEC environment's game."""
    env, aec = selfplay.parallel_env(), kalah.env()
    obs, _ = env.reset(seed=4)
    aec.reset()
    rng = np.random.default_rng(4)
    while env.agents:
        mover = aec.agent_selection
        assert obs[mover]["action_mask"].tolist() == aec.observe(mover)["action_mask"].tolist()
        other = "player_1" if mover == "player_0" else "player_0"
        assert not obs[other]["action_mask"].any()
        action = int(rng.choice(np.flatnonzero(obs[mover]["action_mask"])))
        obs, rewards, terminations, truncations, infos = env.step({mover: action, other: 0})
        aec.step(action)
    assert rewards == aec.rewards
    assert infos["player_0"]["margin"] == aec.infos["player_0"]["margin"]


@pytest.mark.kernel
@pytest.mark.parametrize("outcome", [False, True])
def test_play_pits_rewards_a_game_ended_by_play(outcome):
    """Kalah(2, 1) after South's 0 and North's moves: South's last stone ends the game."""
    rows = np.array([[0, 1, 3, 1, 0, 0]], np.int8)  # South sows pit 1 into its store
    to_move, over = np.zeros(1, np.int8), np.zeros(1, np.bool_)
    theirs = [a.copy() for a in (rows, to_move, over)]
    rewards, ref_rewards = np.zeros((1, 2)), np.zeros((1, 2))
    selfplay.play_pits(rows, to_move, over, np.array([1]), 0, -4.0, outcome, rewards)
    ref.play_pits(*theirs, np.array([1]), 0, -4.0, outcome, ref_rewards)
    # South: store 4, side empty; North keeps its stone: margin 4 - 1 = 3
    assert rewards.tolist() == ref_rewards.tolist() == ([[1.0, -1.0]] if outcome
                                                        else [[3.0, -3.0]])
    assert over.tolist() == [True]
