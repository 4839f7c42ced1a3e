"""The Kalah environments: action masks, observations, turns and rewards against the
rules' reference twin; the built-in opponents; illegal actions."""
import csv
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, strategies as st

gymnasium = pytest.importorskip("gymnasium", reason="needs the envs extra (gymnasium)")
pytest.importorskip("pettingzoo", reason="needs the envs extra (pettingzoo)")

import jitgames.envs  # noqa: E402,F401  (registers the environments)
from jitgames.errors import InputError  # noqa: E402
from jitgames.envs import kalah  # noqa: E402
from jitgames.kalah import rules  # noqa: E402
from tests.reference import envs as ref_envs  # noqa: E402
from tests.reference import kalah as ref  # noqa: E402
from tests.reference.kalah_strategies import positions  # noqa: E402

DATA = Path(__file__).parent / "data"


def published_value(pits, stones, variant="empty-capture"):
    with open(DATA / "kalah_solved.csv") as f:
        for row in csv.DictReader(f):
            if (int(row["pits"]), int(row["stones"]), row["variant"]) == (pits, stones, variant):
                return int(row["value"])
    raise KeyError((pits, stones, variant))


def reference_mask(board, player):
    m = (len(board) - 2) // 2
    moves = np.zeros(m, dtype=np.int64)
    n = ref.legal_moves(board, player, moves)
    first = 0 if player == rules.SOUTH else m + 1
    mask = np.zeros(m, dtype=np.int8)
    mask[moves[:n] - first] = 1
    return mask


@pytest.mark.parametrize("pits, stones, variant", [(6, 4, "empty-capture"), (6, 4, "standard"),
                                                   (3, 5, "empty-capture"), (2, 1, "standard")])
def test_random_games_follow_the_reference_rules(pits, stones, variant):
    """Every observation, mask, agent switch and final reward of random games equals what
    the reference twin of the rules gives for the same moves."""
    rng = np.random.default_rng(7)
    code = rules.VARIANTS[variant]
    for game in range(30):
        for reward in ("margin", "outcome"):
            env = kalah.raw_env(pits, stones, variant, reward)
            env.reset(seed=game)
            board, player = rules.new_board(pits, stones), rules.SOUTH
            while True:
                agent = env.agent_selection
                assert agent == kalah.AGENTS[player]
                seen = env.observe(agent)
                rotated = np.concatenate([board[pits + 1:], board[:pits + 1]])
                assert seen["observation"].tolist() == (board if player == rules.SOUTH
                                                        else rotated).tolist()
                assert seen["action_mask"].tolist() == reference_mask(board, player).tolist()
                other = env.observe(kalah.AGENTS[1 - player])
                assert not other["action_mask"].any()
                legal = np.flatnonzero(seen["action_mask"])
                action = int(rng.choice(legal))
                env.step(action)
                first = 0 if player == rules.SOUTH else pits + 1
                player, _ = ref.apply_move(board, player, first + action, code)
                assert env.board.tolist() == board.tolist()
                if ref.is_over(board):
                    break
            margin = ref.final_margin(board)
            expected = margin if reward == "margin" else int(np.sign(margin))
            assert env.rewards == {"player_0": expected, "player_1": -expected}
            assert all(env.terminations.values())
            assert env.infos["player_0"]["margin"] == margin


def test_extra_move_keeps_the_agent():
    env = kalah.env()
    env.reset()
    # Kalah(6, 4): South's pit 2 holds 4 stones; the last lands in South's store.
    env.step(2)
    assert env.agent_selection == "player_0"
    assert env.unwrapped.board.tolist() == [4, 4, 0, 5, 5, 5, 1, 4, 4, 4, 4, 4, 4, 0]
    env.step(0)  # 4 stones into pits 1..4: North's turn
    assert env.agent_selection == "player_1"
    # North's pit 2 (board index 9) also ends in North's store: North moves again.
    env.step(2)
    assert env.agent_selection == "player_1"


def test_illegal_action_ends_the_game_with_the_penalty():
    env = kalah.env(pits=6, stones=4, reward="margin")
    env.reset()
    env.step(2)        # extra move; South's pit 2 is now empty
    env.step(2)
    assert all(env.terminations.values())
    assert env.rewards["player_0"] == -48 and env.rewards["player_1"] == 0
    raw = kalah.raw_env()
    raw.reset()
    raw.step(2)
    with pytest.raises(InputError, match="empty"):
        raw.step(2)


@pytest.mark.parametrize("bad", [dict(pits=0), dict(stones=0), dict(pits=8, stones=8),
                                 dict(variant="oware"), dict(reward="points"),
                                 dict(render_mode="rgb_array")])
def test_bad_options_are_refused(bad):
    with pytest.raises(InputError):
        kalah.env(**bad)


@pytest.mark.parametrize("side", ["south", "north"])
def test_perfect_play_against_the_perfect_opponent_reaches_the_published_value(side):
    """Kalah(4, 3) = +8 for South (Irving et al. 2000): an agent playing the solver's best
    moves against the perfect opponent ends with exactly that margin on either side."""
    env = gymnasium.make("jitgames/Kalah-v0", pits=4, stones=3, opponent="perfect", side=side)
    obs, info = env.reset(seed=1)
    perfect = kalah.perfect_player(4, 3, "empty-capture")
    player = kalah.SIDES.index(side)
    total = 0.0
    while True:
        board = env.unwrapped.board
        values = perfect.move_values(board, player)
        pit = max(values, key=values.get)
        action = pit if player == rules.SOUTH else pit - 5
        assert obs["action_mask"][action] == 1
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        if terminated:
            break
        assert reward == 0 and not truncated
    value = published_value(4, 3)
    assert info["margin"] == total == (value if side == "south" else -value)


def test_opponents_move_legally_and_keep_the_turn_order():
    for opponent in kalah.OPPONENTS:
        env = gymnasium.make("jitgames/Kalah-v0", pits=4, stones=3, opponent=opponent,
                             side="north", depth=3)
        obs, info = env.reset(seed=3)
        rng = np.random.default_rng(0)
        board, player = rules.new_board(4, 3), rules.SOUTH
        terminated = False
        while not terminated:
            before = env.unwrapped.board.copy()
            legal = np.flatnonzero(obs["action_mask"])
            assert env.unwrapped.to_move == rules.NORTH and len(legal) > 0
            assert obs["action_mask"].tolist() == reference_mask(before, rules.NORTH).tolist()
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        assert reward == info["margin"] == -int(rules.final_margin(env.unwrapped.board))


def test_alphabeta_opponent_plays_a_move_of_the_best_searched_value():
    """On random positions the opponent's move is one of the moves of the best value of
    the same alpha-beta root search (:func:`jitgames.kalah.best_move` picks the lowest)."""
    from jitgames.kalah import best_move
    from jitgames.kalah.evaluation import weights_for
    from jitgames.kalah.search import ALPHABETA, root_values

    env = gymnasium.make("jitgames/Kalah-v0", opponent="alphabeta", depth=5, side="north")
    env.reset(seed=0)
    opponent = env.unwrapped
    rng = np.random.default_rng(1)
    for trial in range(20):
        board, player = rules.new_board(6, 4), rules.SOUTH
        for _ in range(int(rng.integers(0, 20))):
            moves = np.zeros(6, dtype=np.int64)
            n = rules.legal_moves(board, player, moves)
            if n == 0:
                break
            player, _ = rules.apply_move(board, player, int(rng.choice(moves[:n])), 0)
        if player != rules.SOUTH or rules.is_over(board):
            continue
        opponent.board = board.copy()
        opponent.to_move = rules.SOUTH
        move = opponent._opponent_move()
        assert opponent.board.tolist() == board.tolist()
        moves = np.zeros(6, dtype=np.int64)
        values = np.zeros(6, dtype=np.int64)
        n = root_values(board.copy(), rules.SOUTH, 5, weights_for("store", 6), 0, ALPHABETA,
                        True, moves, values, np.zeros(1, dtype=np.int64))
        best = max(values[:n])
        chosen = {int(moves[i]) for i in range(n) if values[i] == best}
        assert move in chosen
        assert best_move(board, rules.SOUTH, depth=5).move == min(chosen)


def test_kalah_env_illegal_action_and_reset_determinism():
    env = gymnasium.make("jitgames/Kalah-v0", opponent="random")
    first, _ = env.reset(seed=11)
    again, _ = env.reset(seed=11)
    assert first["observation"].tolist() == again["observation"].tolist()
    assert first["action_mask"].all()
    env.step(2)  # extra move from the opening: still South's turn, pit 2 now empty
    obs, reward, terminated, truncated, info = env.step(2)
    assert terminated and reward == -48 and info["illegal_action"]


def test_perfect_opponent_refuses_boards_it_cannot_solve():
    with pytest.raises(InputError, match="at most 40 stones"):
        gymnasium.make("jitgames/Kalah-v0", opponent="perfect")


@pytest.mark.kernel
@given(positions(), st.integers(-1, 1))
def test_observe_board_matches_reference(position, mover):
    board, player = position
    m = (len(board) - 2) // 2
    seen, mask = np.zeros(2 * m + 2, np.int8), np.zeros(m, np.int8)
    kalah.observe_board(board, player, mover, np.zeros(m, np.int64), seen, mask)
    ref_seen, ref_mask = np.zeros(2 * m + 2, np.int8), np.zeros(m, np.int8)
    ref_envs.observe_board(board, player, mover, np.zeros(m, np.int64), ref_seen, ref_mask)
    assert seen.tolist() == ref_seen.tolist()
    assert mask.tolist() == ref_mask.tolist()


@pytest.mark.kernel
@given(positions(), st.sampled_from([rules.EMPTY_CAPTURE, rules.STANDARD]))
def test_play_pit_matches_reference(position, variant):
    board, player = position
    m = (len(board) - 2) // 2
    moves = np.zeros(m, dtype=np.int64)
    for pit in moves[:rules.legal_moves(board, player, moves)].tolist():
        ours, theirs = board.copy(), board.copy()
        got = kalah.play_pit(ours, player, pit, variant)
        expected = ref_envs.play_pit(theirs, player, pit, variant)
        assert (int(got[0]), bool(got[1]), int(got[2])) == expected
        assert ours.tolist() == theirs.tolist()


def test_extra_move_in_kalah_v0_leaves_the_turn_with_the_agent():
    env = gymnasium.make("jitgames/Kalah-v0", opponent="random")
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(2)  # last stone in the store
    assert env.unwrapped.board.tolist() == [4, 4, 0, 5, 5, 5, 1, 4, 4, 4, 4, 4, 4, 0]
    assert obs["action_mask"].tolist() == [1, 1, 0, 1, 1, 1] and not terminated
    obs, reward, terminated, truncated, info = env.step(0)  # now North (random) replies
    assert env.unwrapped.board[7:13].tolist() != [4] * 6  # North has sown a pit
    assert env.unwrapped.to_move == rules.SOUTH and obs["action_mask"].any()


def test_game_over_before_the_agent_moves_ends_at_the_first_step():
    # Kalah(1, 1): South's only stone lands in its store and South's side is empty.
    env = kalah.KalahEnv(pits=1, stones=1, side="north", opponent="random")
    obs, info = env.reset(seed=0)
    assert env.board.tolist() == [0, 1, 1, 0] and not obs["action_mask"].any()
    obs, reward, terminated, truncated, info = env.step(0)
    assert terminated and reward == 0 and info["margin"] == 0
