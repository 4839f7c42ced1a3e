"""Mastermind-v0: feedback equals the library's feedback and an independent count;
``info["consistent"]`` equals a brute-force count; the narrowing kernel equals its twin."""
import itertools

import numpy as np
import pytest
from hypothesis import given, strategies as st

gymnasium = pytest.importorskip("gymnasium", reason="needs the envs extra (gymnasium)")

import jitgames.envs  # noqa: E402,F401  (registers the environments)
from jitgames.errors import InputError  # noqa: E402
from jitgames.envs.mastermind import MastermindEnv, narrow_consistent  # noqa: E402
from jitgames.mastermind import code_space, feedback  # noqa: E402
from tests.reference import envs as ref  # noqa: E402


def blacks_and_whites(guess, secret):
    """(black, white) counted by hand: exact matches, then colours matched among the rest."""
    black = sum(g == s for g, s in zip(guess, secret))
    rest_guess = [g for g, s in zip(guess, secret) if g != s]
    rest_secret = [s for g, s in zip(guess, secret) if g != s]
    white = 0
    for colour in rest_guess:
        if colour in rest_secret:
            rest_secret.remove(colour)
            white += 1
    return black, white


def all_codes(pegs, colours, repeats):
    codes = itertools.product(range(colours), repeat=pegs)
    return [c for c in codes if repeats or len(set(c)) == pegs]


@pytest.mark.parametrize("pegs, colours, repeats", [(4, 6, True), (3, 5, False), (5, 3, True)])
def test_feedback_and_consistent_set_along_random_games(pegs, colours, repeats):
    env = gymnasium.make("jitgames/Mastermind-v0", pegs=pegs, colours=colours,
                         repeats=repeats, max_guesses=8)
    codes = all_codes(pegs, colours, repeats)
    rng = np.random.default_rng(pegs * 100 + colours)
    for game in range(15):
        obs, info = env.reset(seed=game)
        secret = env.unwrapped.secret
        secret_code = codes[secret]
        assert info["consistent"] == len(codes)
        history = []
        for turn in range(8):
            guess = int(rng.integers(len(codes))) if turn < 7 else secret
            obs, reward, terminated, truncated, info = env.step(guess)
            expected = blacks_and_whites(codes[guess], secret_code)
            written = ["".join(str(d + 1) for d in code) for code in (codes[guess], secret_code)]
            assert feedback(*written) == expected
            assert obs["feedback"][turn].tolist() == list(expected)
            assert obs["guesses"][turn].tolist() == list(codes[guess])
            assert (obs["guesses"][turn + 1:] == -1).all() and (obs["feedback"][turn + 1:] == -1).all()
            assert reward == -1.0
            history.append((codes[guess], expected))
            consistent = [c for c in codes
                          if all(blacks_and_whites(g, c) == a for g, a in history)]
            assert info["consistent"] == len(consistent)
            assert secret_code in consistent
            assert terminated == (expected[0] == pegs)
            if terminated or truncated:
                assert info["secret"] == "".join(str(d + 1) for d in secret_code)
                break
        assert terminated or truncated


def test_truncated_after_max_guesses_and_secret_option():
    env = gymnasium.make("jitgames/Mastermind-v0", max_guesses=3)
    env.reset(seed=0, options={"secret": "6543"})
    assert env.unwrapped.space.format(env.unwrapped.secret) == "6543"
    wrong = env.unwrapped.space.parse("1111")
    results = [env.step(wrong) for _ in range(3)]
    assert [r[3] for r in results] == [False, False, True]
    assert not any(r[2] for r in results)
    assert results[-1][4]["secret"] == "6543"
    with pytest.raises(InputError, match="over"):
        env.unwrapped.step(wrong)
    with pytest.raises(InputError, match="secret"):
        env.reset(options={"secret": "7777"})


def test_a_strategy_solves_within_its_known_worst_case():
    """Knuth's strategy breaks every 4-peg, 6-colour code in at most 5 guesses (Knuth
    1976); playing it through the environment reproduces that on a sample of secrets."""
    from jitgames.mastermind import response_matrix
    from jitgames.mastermind.breaker import Breaker

    env = MastermindEnv()
    space = env.space
    matrix = response_matrix(space)
    for secret in range(0, space.size, 37):
        env.reset(options={"secret": space.format(secret)})
        breaker = Breaker("knuth", space, matrix)
        for used in range(1, 6):
            obs, reward, terminated, truncated, info = env.step(breaker.guess())
            black, white = obs["feedback"][used - 1]
            if terminated:
                break
            breaker.answer(int(black) * (space.pegs + 1) + int(white))
            assert info["consistent"] == breaker.consistent.size
        assert terminated, space.format(secret)


@pytest.mark.kernel
@given(st.sampled_from([(3, 4, True), (2, 5, False), (4, 3, True)]),
       st.lists(st.integers(0, 10**6), min_size=1, max_size=4), st.integers(0, 10**6))
def test_narrow_consistent_matches_reference(size, guesses, secret):
    pegs, colours, repeats = size
    space = code_space(pegs, colours, repeats)
    secret %= space.size
    ours = np.ones(space.size, dtype=np.uint8)
    theirs = ours.copy()
    for guess in guesses:
        guess %= space.size
        answer = space.feedback(guess, secret)
        left = narrow_consistent(space.digits, space.counts, pegs, guess, answer, ours)
        assert left == ref.narrow_consistent(space.digits, space.counts, pegs, guess, answer,
                                             theirs)
        assert ours.tolist() == theirs.tolist()
