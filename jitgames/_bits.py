"""Bit counting shared by the kernels of every game (answer masks, sieve words, queen
attack sets)."""
from __future__ import annotations

import numpy as np

from ._jit import jit

__all__ = ["popcount"]


@jit(leaf=True)
def popcount(x):
    """Number of set bits of the 64-bit word ``x`` (int64, 0 to 64), in a fixed number
    of steps (bit pairs, nibbles, bytes summed in parallel in the word)."""
    x = np.uint64(x)
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))
