"""Solitaire-v0: masks and listed moves equal the rule kernels' legal moves, the
observation kernel equals its twin, and the solver's optimal line played through the
environment reaches ``info["optimal_score"]``."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

gymnasium = pytest.importorskip("gymnasium", reason="needs the envs extra (gymnasium)")

import jitgames.envs  # noqa: E402,F401  (registers the environments)
from jitgames.errors import InputError  # noqa: E402
from jitgames.envs.solitaire import FACE_DOWN_CARD, SolitaireEnv, observe_position  # noqa: E402
from jitgames.solitaire import deals, optimal_line, solve_deals  # noqa: E402
from jitgames.solitaire import rules  # noqa: E402
from tests.reference import envs as ref_envs  # noqa: E402
from tests.reference import solitaire as ref  # noqa: E402
from tests.solution_check import check_line  # noqa: E402


def test_masks_and_moves_equal_the_legal_moves_along_random_games():
    env = gymnasium.make("jitgames/Solitaire-v0", seed=5)
    rng = np.random.default_rng(0)
    for game in range(20):
        obs, info = env.reset(seed=game)
        deck = deals(5, info["index"], info["index"] + 1)[0]
        position = rules.new_position(deck)
        score = int(position[rules.SCORE])
        assert info["score"] == score
        total = 0.0
        while True:
            kernel = np.zeros(rules.MAX_MOVES, dtype=np.int64)
            n = rules.legal_moves(position, kernel, 0)
            twin = np.zeros(rules.MAX_MOVES, dtype=np.int64)
            assert ref.legal_moves(position, twin, 0) == n
            assert sorted(twin[:n].tolist()) == sorted(kernel[:n].tolist())
            assert obs["action_mask"].tolist() == [1] * n + [0] * (rules.MAX_MOVES - n)
            assert info["action_mask"].tolist() == obs["action_mask"].tolist()
            listed = [int(card) * 8 + int(pile) for card, pile in obs["moves"][:n]]
            assert listed == kernel[:n].tolist()
            assert (obs["moves"][n:] == -1).all()
            if n == 0:
                break
            action = int(rng.integers(n))
            obs, reward, terminated, truncated, info = env.step(action)
            rules.apply_move(position, kernel[action])
            assert reward == position[rules.SCORE] - score
            score = int(position[rules.SCORE])
            total += reward
            assert info["score"] == score and not truncated
            if terminated:
                break
        assert terminated or n == 0
        assert info["score"] <= info["optimal_score"]
        assert total == info["score"] - int(rules.new_position(deck)[rules.SCORE])


# deals of seed 0 whose optimal lines are long (optimal scores 2 to 52; 24 and 31 are won)
@pytest.mark.parametrize("index", [2, 3, 11, 14, 16, 22, 24, 31])
def test_the_optimal_line_reaches_the_optimal_score(index):
    env = gymnasium.make("jitgames/Solitaire-v0", seed=0, index=index)
    obs, info = env.reset(seed=0)
    deck = deals(0, index, index + 1)[0]
    assert info["optimal_score"] == int(solve_deals(deck, score_only=True).score[0])
    line = optimal_line(deck)
    assert line.score == info["optimal_score"] and len(line.steps) >= 4
    check_line(deck, line, seed=0, index=index)
    for step in line.steps:
        action = env.unwrapped.legal_moves().index(step.card * 8 + step.pile)
        assert obs["action_mask"][action] == 1
        obs, reward, terminated, truncated, info = env.step(action)
        assert reward == len(step.to_foundation)
    assert info["score"] == info["optimal_score"]


def test_deal_choice_seeding_and_hidden_cards():
    env = gymnasium.make("jitgames/Solitaire-v0")
    first, info = env.reset(seed=3)
    again, info_again = env.reset(seed=3)
    assert info["index"] == info_again["index"] and info["seed"] == info_again["seed"]
    assert all((first[k] == again[k]).all() for k in first)
    obs, info = env.reset(options={"seed": 7, "index": 42})
    deck = deals(7, 42, 43)[0]
    position = rules.new_position(deck)
    for p, (down, cards) in enumerate(rules.piles_of(position)):
        row = obs["piles"][p]
        assert row[:down].tolist() == [FACE_DOWN_CARD] * down
        assert row[down:len(cards)].tolist() == cards[down:]
        assert (row[len(cards):] == -1).all()
        assert (obs["status"][cards[:down]] == rules.FACE_DOWN).all()
    shown = gymnasium.make("jitgames/Solitaire-v0", seed=7, index=42, show_face_down=True)
    obs, _ = shown.reset()
    assert all(obs["piles"][p][:len(c)].tolist() == c
               for p, (_, c) in enumerate(rules.piles_of(position)))


def test_illegal_action_ends_the_episode():
    env = gymnasium.make("jitgames/Solitaire-v0", seed=0, index=0)
    obs, info = env.reset()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert terminated and reward == 0 and info["illegal_action"]


@pytest.mark.parametrize("bad", [dict(seed=-1), dict(index=2**64), dict(shuffle="riffle"),
                                 dict(render_mode="rgb_array")])
def test_bad_options_are_refused(bad):
    with pytest.raises(InputError):
        SolitaireEnv(**bad)


def test_render_is_the_play_command_drawing(capsys):
    """The ansi render is the board the ``play`` command's session draws for the deal."""
    import io

    from jitgames.solitaire.console import play_session
    from jitgames.solitaire.play import Game

    env = gymnasium.make("jitgames/Solitaire-v0", seed=0, index=2, render_mode="ansi")
    env.reset()
    drawing = env.render()
    assert "##" in drawing  # face-down cards hidden, as from the player's seat
    play_session(Game(deals(0, 2, 3)[0]), colour=False, stdin=io.StringIO("quit\n"))
    assert drawing in capsys.readouterr().out
    shown = gymnasium.make("jitgames/Solitaire-v0", seed=0, index=2, render_mode="ansi",
                           show_face_down=True)
    shown.reset()
    assert "##" not in shown.render() and "[" in shown.render()


@pytest.mark.kernel
@given(st.integers(0, 2**32), st.integers(0, 40), st.booleans(), st.randoms(use_true_random=False))
def test_observe_position_matches_reference(index, moves, show, draw):
    position = rules.new_position(deals(11, index, index + 1)[0])
    buffer = np.zeros(rules.MAX_MOVES, dtype=np.int64)
    for _ in range(moves):
        n = rules.legal_moves(position, buffer, 0)
        if n == 0:
            break
        rules.apply_move(position, buffer[draw.randrange(n)])
    status, piles = np.zeros(52, np.int8), np.zeros((7, 52), np.int8)
    observe_position(position, show, status, piles)
    ref_status, ref_piles = np.zeros(52, np.int8), np.zeros((7, 52), np.int8)
    ref_envs.observe_position(position, show, ref_status, ref_piles)
    assert status.tolist() == ref_status.tolist()
    assert piles.tolist() == ref_piles.tolist()


@pytest.mark.parametrize("shuffle", ["fisher-yates", "naive"])
def test_deal_deck_is_the_deal_of_deals(shuffle):
    from jitgames.envs.solitaire import deal_deck

    for seed, index in [(0, 0), (3, 10**12), (2**64 - 1, 2**64 - 1), (12345, 7)]:
        expected = deals(seed, index, index + 1, shuffle)[0]
        assert deal_deck(seed, index, shuffle).tolist() == expected.tolist()


def test_bad_deal_in_reset_options_is_refused():
    env = SolitaireEnv(solve=False)
    with pytest.raises(InputError, match="index"):
        env.reset(options={"index": -3})


def test_reachable_score_along_optimal_and_random_play():
    """Along the optimal line the reachable score stays the optimum; along random play
    it never rises, never falls below the score, and ends equal to it."""
    index = 16  # a deal of seed 0 with optimal score 9 and a 13-move line
    env = gymnasium.make("jitgames/Solitaire-v0", seed=0, index=index, reachable=True)
    obs, info = env.reset()
    assert info["reachable"] == info["optimal_score"] == 9
    deck = deals(0, index, index + 1)[0]
    line = optimal_line(deck)
    check_line(deck, line, seed=0, index=index)
    for step in line.steps:
        obs, reward, terminated, truncated, info = env.step(
            env.unwrapped.legal_moves().index(step.card * 8 + step.pile))
        assert info["reachable"] == 9
    rng = np.random.default_rng(4)
    for episode in range(10):
        obs, info = env.reset(options={"index": 100 + episode})
        reachable = info["reachable"]
        assert reachable == info["optimal_score"]
        terminated = False
        while not terminated:
            legal = np.flatnonzero(obs["action_mask"])
            action = int(rng.choice(legal)) if len(legal) else 0
            obs, reward, terminated, truncated, info = env.step(action)
            assert info["score"] <= info["reachable"] <= reachable
            reachable = info["reachable"]
        assert info["reachable"] == info["score"]
