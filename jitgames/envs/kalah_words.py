"""Kalah(6, n) moves on two 64-bit words, for the vector environment's random step.

A move of the board kernels (:func:`jitgames.kalah.rules.apply_move`) walks the sown
pits one by one and branches on the capture and on the extra turn; in random play those
branches follow the random pit and cannot be predicted, and a step is one dependent
chain of such moves. Here a board of 6 pits a side is held in two words, one a side:
byte ``j`` (0..5) is the side's pit ``j`` counted from its own first pit, byte 6 its
store (South's word: board indices 0..6; North's: 7..13). A move by the side to move
("mine") from its pit ``q`` is then a few word operations with no branch:

- the ``s`` stones of pit ``q`` go round the 13 places the mover sows (its six pits
  and store, the other side's six pits): ``s // 13`` to every place (the lap words),
  then one each to the next ``s % 13`` places after ``q`` -- the words
  ``_SOW_MINE[q, s % 13]`` and ``_SOW_THEIRS[q, s % 13]``, tabled from that walk;
- the last stone lands where ``_SOW_LAST[q, s % 13]`` says (``side * 8 + byte``; a
  multiple of 13 stones ends in pit ``q`` itself);
- a capture (the last stone alone in one of the mover's own pits, the opposite pit
  ``5 - byte`` of the other word not empty, or either with the empty-capture rule) is
  applied through a mask that is all ones or all zeros, and the extra turn (the last
  stone in the mover's store) is a select.

A side's pits that hold stones are a 6-bit mask (:func:`filled_mask`): a byte is not
zero exactly when adding 0x7F sets its top bit, which holds for every byte from 0 to
127 -- every value an int8 board can hold -- and never carries into the next byte. The
random draws are the row kernels' (the ``k``-th pit holding stones, ascending), so the
moves, and every output, are the same (``tests/test_envs_vector.py`` compares the step
with its twin; ``tests/test_envs_kalah_words.py`` compares every move with
:func:`~jitgames.kalah.rules.apply_move`).
"""
from __future__ import annotations

import numpy as np

from .._jit import jit
from ..kalah.rules import EMPTY_CAPTURE, SOUTH

__all__ = ["PITS", "filled_mask", "words_move", "load_words", "store_words", "PICK",
           "start_word"]

PITS = 6
"""Pits a side: the only board these kernels take (two words of seven bytes)."""

_PLACES = 2 * PITS + 1  # the places a mover sows: its pits and store, the other pits
_BYTE = np.uint64(8)
_LOW_BYTE = np.uint64(0xFF)
_PIT_BYTES = np.uint64(0x0000FFFFFFFFFFFF)
_SEVENS = np.uint64(0x7F7F7F7F7F7F)
_TOPS = np.uint64(0x808080808080)
_GATHER = np.uint64(0x10204081020)  # moves the bits at 0, 8, .., 40 to 40, 41, .., 45
_LAP_MINE = np.uint64(0x01010101010101)    # a stone in each pit and in the store
_LAP_THEIRS = np.uint64(0x010101010101)    # a stone in each pit
_STORE_SHIFT = np.uint64(8 * PITS)


def _tables():
    """The sowing tables (module docstring), from a plain walk of the 13 places, and
    for each 6-bit mask its ``k``-th pit (ascending)."""
    places = [(0, b) for b in range(PITS + 1)] + [(1, b) for b in range(PITS)]
    mine = np.zeros((PITS, _PLACES), np.uint64)
    theirs = np.zeros((PITS, _PLACES), np.uint64)
    last = np.zeros((PITS, _PLACES), np.int64)
    for q in range(PITS):
        for rest in range(_PLACES):
            at, lands = q, (0, q)
            for _ in range(rest):
                at = (at + 1) % _PLACES
                lands = places[at]
                if lands[0] == 0:
                    mine[q, rest] += np.uint64(1 << (8 * lands[1]))
                else:
                    theirs[q, rest] += np.uint64(1 << (8 * lands[1]))
            last[q, rest] = 8 * lands[0] + lands[1]
    pick = np.zeros((1 << PITS, PITS), np.int64)
    for mask in range(1 << PITS):
        full = [b for b in range(PITS) if mask >> b & 1]
        pick[mask, :len(full)] = full
    return mine, theirs, last, pick


_SOW_MINE, _SOW_THEIRS, _SOW_LAST, PICK = _tables()
"""``PICK[mask, k]``: the ``k``-th pit (from 0) of a side's mask of filled pits (its
count is :func:`jitgames._bits.popcount` of the mask)."""


@jit(inline=True)
def start_word(stones):
    """A side's word at the start of a game: ``stones`` in each pit, the store empty."""
    return np.uint64(stones) * _LAP_THEIRS


@jit(inline=True)
def filled_mask(word):
    """Bit ``j`` set where the side's pit ``j`` holds stones (bytes at most 127)."""
    tops = ((word & _PIT_BYTES) + _SEVENS) & _TOPS
    return np.int64(((tops >> np.uint64(7)) * _GATHER >> np.uint64(40)) & np.uint64(63))


@jit(inline=True)
def _sow(mine, theirs, q, variant):
    """The mover's pit ``q`` sown on (``mine``, ``theirs``); returns them and whether the
    mover moves again (the module docstring says how)."""
    at = _BYTE * np.uint64(q)
    stones = np.int64((mine >> at) & _LOW_BYTE)
    laps = stones // _PLACES
    rest = stones - _PLACES * laps
    mine = (mine & ~(_LOW_BYTE << at)) + _SOW_MINE[q, rest] + np.uint64(laps) * _LAP_MINE
    theirs = theirs + _SOW_THEIRS[q, rest] + np.uint64(laps) * _LAP_THEIRS
    lands = _SOW_LAST[q, rest]
    byte = lands & 7
    own_pit = lands < 8 and byte < PITS
    opposite = PITS - 1 - byte if own_pit else 0
    alone = ((mine >> (_BYTE * np.uint64(byte))) & _LOW_BYTE) == 1
    there = (theirs >> (_BYTE * np.uint64(opposite))) & _LOW_BYTE
    capture = own_pit and alone and (variant == EMPTY_CAPTURE or there > 0)
    taken = np.uint64(0) - np.uint64(capture)  # all ones when the capture happens
    mine = ((mine & ~((_LOW_BYTE << (_BYTE * np.uint64(byte))) & taken))
            + (((there + np.uint64(1)) << _STORE_SHIFT) & taken))
    theirs = theirs & ~((_LOW_BYTE << (_BYTE * np.uint64(opposite))) & taken)
    return mine, theirs, lands == PITS


@jit(inline=True)
def words_move(south, north, player, q, variant):
    """``player`` sows its pit ``q`` (0..5 from its own first pit; holding stones);
    returns ``(south, north, next player)``, as :func:`jitgames.kalah.rules.apply_move`."""
    mine = south if player == SOUTH else north
    theirs = north if player == SOUTH else south
    mine, theirs, again = _sow(mine, theirs, q, variant)
    south = mine if player == SOUTH else theirs
    north = theirs if player == SOUTH else mine
    return south, north, player if again else 1 - player


@jit(inline=True)
def load_words(board):
    """The two words of a board of 14 int8 values (all from 0 to 127)."""
    south = np.uint64(0)
    north = np.uint64(0)
    for j in range(PITS + 1):
        south |= np.uint64(board[j]) << (_BYTE * np.uint64(j))
        north |= np.uint64(board[PITS + 1 + j]) << (_BYTE * np.uint64(j))
    return south, north


@jit(inline=True)
def store_words(board, south, north):
    """Write the two words back into the board's 14 values."""
    for j in range(PITS + 1):
        board[j] = np.int8((south >> (_BYTE * np.uint64(j))) & _LOW_BYTE)
        board[PITS + 1 + j] = np.int8((north >> (_BYTE * np.uint64(j))) & _LOW_BYTE)
