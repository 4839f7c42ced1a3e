"""The tournament's kernels (random openings, games played in parallel) against twins."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jitgames.kalah import evaluation, rules, tournament
from tests.reference import kalah as ref


@pytest.mark.kernel
@given(st.integers(1, 6), st.integers(1, 4), st.integers(0, 12), st.sampled_from([0, 1]),
       st.integers(0, 2**63 - 1))
def test_random_opening_matches_reference(m, n, plies, variant, key):
    ours, theirs = rules.new_board(m, n), rules.new_board(m, n)
    player = tournament.random_opening(ours, plies, variant, np.uint64(key))
    assert player == ref.random_opening(theirs, plies, variant, key)
    assert ours.tolist() == theirs.tolist()


@pytest.mark.kernel
@settings(max_examples=10)
@given(st.integers(2, 4), st.integers(1, 3), st.sampled_from([0, 1]), st.integers(0, 1000))
def test_play_games_matches_reference(m, n, variant, seed):
    boards, first = tournament.make_openings(m, n, 3, 2, variant, seed=seed)
    weights = np.stack([evaluation.weights_for("store", m), evaluation.weights_for("sides", m)])
    depths = np.array([1, 2])
    south, north = np.array([0, 1, 1]), np.array([1, 0, 1])
    ours, theirs = np.zeros(3, np.int64), np.zeros(3, np.int64)
    tournament.play_games(boards, first, south, north, weights, depths, variant, ours)
    ref.play_games(boards, first, south, north, weights, depths, variant, theirs)
    assert ours.tolist() == theirs.tolist()
