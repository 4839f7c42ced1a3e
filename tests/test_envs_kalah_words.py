"""Kalah(6, n) on two words (jitgames/envs/kalah_words.py) against the reference rules.

The vector environment's random step makes its Kalah(6, n) moves on two 64-bit words;
every move must leave the board and the side to move exactly as the reference twin's
``apply_move`` (tests/reference/kalah.py) does, laps, captures, both capture rules and
extra turns included. The whole step is compared with its twin in
tests/test_envs_vector.py.
"""
import numpy as np
import pytest
from hypothesis import given, strategies as st

from jitgames.envs import kalah_words as words
from tests.reference import kalah as ref

SIDE = words.PITS + 1


@st.composite
def positions(draw):
    """A board of Kalah(6, n), a side to move and one of its pits holding stones (up to
    100, so up to seven laps), every value staying at most 127 after the move."""
    board = draw(st.lists(st.integers(0, 12), min_size=2 * SIDE, max_size=2 * SIDE))
    player = draw(st.integers(0, 1))
    q = draw(st.integers(0, words.PITS - 1))
    board[player * SIDE + q] = draw(st.one_of(st.integers(1, 14), st.integers(1, 100)))
    return board, player, q, draw(st.integers(0, 1))


def _words_of(board):
    return words.load_words(np.array(board, np.int8))


def _board_of(south, north):
    board = np.zeros(2 * SIDE, np.int8)
    words.store_words(board, south, north)
    return board.tolist()


@pytest.mark.kernel
@given(positions())
def test_words_move_matches_reference(position):
    board, player, q, variant = position
    south, north, following = words.words_move(*_words_of(board), player, q, variant)
    expected = list(board)
    expected_following, _ = ref.apply_move(expected, player, player * SIDE + q, variant)
    assert _board_of(south, north) == expected
    assert following == expected_following


@pytest.mark.kernel
def test_words_move_at_the_laps_and_captures():
    """Thirteen stones come back to their own pit (captured there when it was empty);
    a last stone in the mover's store gives it the next move; an empty opposite pit is
    taken only under the empty-capture rule."""
    cases = [
        ([0, 0, 13, 0, 0, 0, 5, 1, 1, 1, 4, 1, 1, 0], 0, 2, 0),   # a lap, then the capture
        ([0, 0, 0, 0, 0, 3, 0, 1, 1, 1, 1, 1, 1, 0], 0, 5, 0),    # 3 stones past the store
        ([0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1, 1, 1, 0], 0, 5, 0),    # into the store: again
        ([1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0], 0, 0, 0),    # opposite empty: no capture
        ([1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0], 0, 0, 1),    # ... but under the other rule
        ([2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 27, 9], 1, 5, 0),   # North, two laps
    ]
    for board, player, q, variant in cases:
        south, north, following = words.words_move(*_words_of(board), player, q, variant)
        expected = list(board)
        expected_following, _ = ref.apply_move(expected, player, player * SIDE + q, variant)
        assert (_board_of(south, north), following) == (expected, expected_following), board


@pytest.mark.kernel
@given(st.lists(st.integers(0, 127), min_size=2 * SIDE, max_size=2 * SIDE))
def test_filled_masks_and_the_round_trip(board):
    south, north = _words_of(board)
    assert _board_of(south, north) == board
    for word, pits in ((south, board[:words.PITS]), (north, board[SIDE:SIDE + words.PITS])):
        mask = words.filled_mask(word)
        assert mask == sum(1 << j for j, stones in enumerate(pits) if stones > 0)
        full = [j for j in range(words.PITS) if pits[j] > 0]
        assert [words.PICK[mask, k] for k in range(len(full))] == full


@pytest.mark.kernel
@given(st.integers(1, 10))
def test_start_word(stones):
    word = words.start_word(stones)
    assert _board_of(word, word) == ([stones] * words.PITS + [0]) * 2
