"""Kalah rules kernels against their reference twins, and known rule cases."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

from jitgames.kalah import rules
from tests.reference.kalah_strategies import positions
from tests.reference import kalah as ref


@pytest.mark.kernel
@given(positions(), st.sampled_from([rules.EMPTY_CAPTURE, rules.STANDARD]))
def test_apply_and_undo_match_reference(position, variant):
    board, player = position
    moves = np.zeros(len(board) // 2, dtype=np.int64)
    n = rules.legal_moves(board, player, moves)
    ref_moves = np.zeros(len(board) // 2, dtype=np.int64)
    assert n == ref.legal_moves(board, player, ref_moves)
    assert list(moves[:n]) == list(ref_moves[:n])
    assert rules.is_over(board) == ref.is_over(board)
    assert rules.final_margin(board) == ref.final_margin(board)
    for pit in moves[:n]:
        ours, theirs = board.copy(), board.copy()
        skip = rules.store_of(len(board) // 2 - 1, 1 - player)
        for delta in (0, 1):
            assert rules.sow(ours, pit, 15, skip, delta) == ref.sow(theirs, pit, 15, skip, delta)
            assert ours.tolist() == theirs.tolist()
        ours, theirs = board.copy(), board.copy()
        result = rules.apply_move(ours, player, pit, variant)
        assert result == ref.apply_move(theirs, player, int(pit), variant)
        assert ours.tolist() == theirs.tolist()
        assert int(ours.astype(np.int64).sum()) == int(board.astype(np.int64).sum())
        rules.undo_move(ours, player, result[1])
        ref.undo_move(theirs, player, result[1])
        assert ours.tolist() == board.tolist() == theirs.tolist()


@pytest.mark.kernel
@given(positions(max_pits=4, max_stones=3), st.integers(0, 3))
def test_perft_matches_reference(position, depth):
    board, player = position
    scratch = np.zeros((depth + 1, len(board) // 2), dtype=np.int64)
    expected = ref.perft_undo(board.copy(), player, depth, 0, scratch)
    assert rules.perft_undo(board, player, depth, 0, scratch) == expected
    assert rules.perft_copy(board, player, depth, 0, scratch) == expected


def test_sowing_extra_move_and_capture_cases():
    # Kalah(6, 4): South sows pit 2 (4 stones) into pits 3, 4, 5 and the store.
    board = rules.new_board(6, 4)
    nxt, _ = rules.apply_move(board, rules.SOUTH, 2, rules.EMPTY_CAPTURE)
    assert nxt == rules.SOUTH and board.tolist() == [4, 4, 0, 5, 5, 5, 1, 4, 4, 4, 4, 4, 4, 0]
    # Capture from an empty pit, also when the opposite pit is empty (default rule).
    board = np.array([1, 0, 0, 0, 3, 0, 0, 0], dtype=np.int8)  # m = 3, pit 5 empty
    nxt, _ = rules.apply_move(board, rules.SOUTH, 0, rules.EMPTY_CAPTURE)
    assert nxt == rules.NORTH and board.tolist() == [0, 0, 0, 1, 3, 0, 0, 0]
    board = np.array([1, 0, 0, 0, 3, 0, 0, 0], dtype=np.int8)
    rules.apply_move(board, rules.SOUTH, 0, rules.STANDARD)
    assert board.tolist() == [0, 1, 0, 0, 3, 0, 0, 0]
    board = np.array([1, 0, 2, 0, 0, 4, 0, 0], dtype=np.int8)
    rules.apply_move(board, rules.SOUTH, 0, rules.STANDARD)
    assert board.tolist() == [0, 0, 2, 5, 0, 0, 0, 0]
    assert rules.is_over(board) and rules.final_margin(board) == 7
    # North skips South's store (index 3) and moves on.
    board = np.array([0, 0, 1, 0, 0, 0, 9, 0], dtype=np.int8)
    rules.apply_move(board, rules.NORTH, 6, rules.EMPTY_CAPTURE)
    assert board.tolist() == [2, 1, 2, 0, 1, 1, 1, 2]
    assert not rules.is_over(board)
    board = np.array([0, 0, 0, 5, 1, 0, 0, 2], dtype=np.int8)
    assert rules.is_over(board) and rules.final_margin(board) == 5 - 3


def test_new_board_validates():
    assert rules.new_board(4, 3).tolist() == [3, 3, 3, 3, 0, 3, 3, 3, 3, 0]
    with pytest.raises(ValueError):
        rules.new_board(6, 11)
    with pytest.raises(ValueError):
        rules.new_board(0, 3)
