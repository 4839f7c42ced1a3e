"""Hypothesis strategies for Kalah positions (shared by the tests/test_kalah*.py files)."""
import numpy as np
from hypothesis import strategies as st


@st.composite
def positions(draw, min_pits=1, max_pits=6, max_stones=6):
    """``(board, player)``: a random Kalah board (int8) and the player to move."""
    m = draw(st.integers(min_pits, max_pits))
    pits = draw(st.lists(st.integers(0, max_stones), min_size=2 * m, max_size=2 * m))
    stores = draw(st.lists(st.integers(0, 10), min_size=2, max_size=2))
    board = np.zeros(2 * m + 2, dtype=np.int8)
    board[:m] = pits[:m]
    board[m + 1:2 * m + 1] = pits[m:]
    board[m], board[2 * m + 1] = stores
    return board, draw(st.integers(0, 1))
