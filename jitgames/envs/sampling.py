"""Uniform legal actions for a whole batch of action masks, in one kernel call.

A random agent (or the exploration of a learning one) on a vector environment needs a
uniform legal action in each of ``N`` games. Drawn with NumPy from an ``(N, actions)``
mask, that takes several whole-array passes (about a third of a Kalah vector step with
NumPy's ``argmax`` of masked random numbers); :func:`sample_legal` takes one pass.

Randomness (``docs/design.md``): one key is drawn from the caller's NumPy generator
per call; row ``i`` draws from the SplitMix64 stream ``stream_key(key, i)``, so the
actions do not depend on anything but the generator's state and the mask.
"""
from __future__ import annotations

import numpy as np

from .._jit import jit, prange
from .._random import below, stream_key
from ..errors import InputError

__all__ = ["sample_legal", "uniform_legal"]


BLOCK = 256  # rows a thread takes at a time (whole cache lines of ``out``)


@jit(leaf=True)
def _uniform_legal_rows(mask, key, out, start, stop):
    """:func:`uniform_legal` of rows ``start .. stop-1``."""
    for i in range(start, stop):
        count = 0
        for j in range(mask.shape[1]):
            count += mask[i, j] != 0
        action = 0
        if count > 0:
            pick, _ = below(stream_key(key, i), 0, count)
            before = 0
            for j in range(mask.shape[1]):
                legal = mask[i, j] != 0
                action = j if legal and before == pick else action
                before += legal
        out[i] = action


@jit(parallel=True)
def uniform_legal(mask, key, out):
    """``out[i]``: the ``k``-th legal action (ascending) of row ``i`` of ``mask`` (int8,
    nonzero = legal), ``k = below(stream_key(key, i), 0, count)``; 0 where no action
    is legal. Blocks of ``BLOCK`` rows go to the threads (a row's action depends on the
    row alone, so not on the thread count), so that a random agent scales with the
    vector environment it drives."""
    rows = mask.shape[0]
    for block in prange((rows + BLOCK - 1) // BLOCK):
        _uniform_legal_rows(mask, key, out, block * BLOCK, min(rows, (block + 1) * BLOCK))


def sample_legal(mask, rng: np.random.Generator) -> np.ndarray:
    """A uniform legal action for every row of ``mask``.

    Parameters
    ----------
    mask : array_like
        ``(N, actions)``, nonzero = legal (a vector environment's
        ``info["action_mask"]``).
    rng : numpy.random.Generator
        The caller's generator; one number is drawn from it per call.

    Returns
    -------
    np.ndarray
        int64 ``(N,)``: the actions (0 in a row with no legal action).
    """
    mask = np.asarray(mask)
    if mask.ndim != 2 or mask.dtype.kind not in "biu":
        raise InputError(f"mask must be a 2-d array of integers or booleans, got shape "
                         f"{mask.shape} of {mask.dtype}")
    mask = np.ascontiguousarray(mask).view(np.int8) if mask.itemsize == 1 else (
        (mask != 0).view(np.int8))
    out = np.empty(mask.shape[0], dtype=np.int64)
    uniform_legal(mask, np.uint64(rng.integers(2**63)), out)
    return out
