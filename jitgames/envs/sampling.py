"""Uniform legal actions for a whole batch of action masks, in one kernel call.

A random agent (or the exploration of a learning one) on a vector environment needs a
uniform legal action in each of ``N`` games. Drawn with NumPy from an ``(N, actions)``
mask, that takes several whole-array passes (NumPy's ``argmax`` of masked random
numbers costs about a third as much as a 1024-game Kalah vector step, most of it in
drawing ``N x actions`` random numbers and in ``argmax`` along short rows);
:func:`sample_legal` takes one pass and one random number a row, and with ``out=``
allocates nothing.

Randomness (``docs/design.md``): one 64-bit key is drawn from the caller's NumPy
generator per call; row ``i`` draws from the SplitMix64 stream ``stream_key(key, i)``,
so the actions do not depend on anything but the generator's state and the mask, nor
on the number of threads.
"""
from __future__ import annotations

import numpy as np

from .._jit import jit, prange
from .._random import GOLDEN, below_inline, mix64_inline
from ..errors import InputError

__all__ = ["sample_legal", "uniform_legal"]


BLOCK = 256  # rows a thread takes at a time (whole cache lines of ``out``)
PARALLEL_ROWS = 8192
"""Masks of fewer rows are sampled by the calling thread: a row costs about 14 ns, the
launch of a parallel loop on two threads 10 to 40 µs (a sleeping thread woken; measured
on the 2-core box), so fewer rows are done sooner by one thread."""


@jit(leaf=True)
def _uniform_legal_rows(mask, key, out, start, stop):
    """:func:`uniform_legal` of rows ``start .. stop-1``."""
    # stream_key(key, i) is mix64(mix64(key + GOLDEN) ^ i): its first half once
    mixed = mix64_inline(np.uint64(key) + GOLDEN)
    for i in range(start, stop):
        count = 0
        for j in range(mask.shape[1]):
            count += mask[i, j] != 0
        action = 0
        if count > 0:
            pick, _ = below_inline(mix64_inline(mixed ^ np.uint64(i)), 0, count)
            before = 0
            for j in range(mask.shape[1]):
                legal = mask[i, j] != 0
                action = j if legal and before == pick else action
                before += legal
        out[i] = action


@jit(parallel=True)
def _uniform_legal_blocks(mask, key, out):
    """:func:`uniform_legal` on the threads, blocks of ``BLOCK`` rows each."""
    rows = mask.shape[0]
    for block in prange((rows + BLOCK - 1) // BLOCK):
        _uniform_legal_rows(mask, key, out, block * BLOCK, min(rows, (block + 1) * BLOCK))


def uniform_legal(mask, key, out) -> None:
    """``out[i]``: the ``k``-th legal action (ascending) of row ``i`` of ``mask`` (int8,
    nonzero = legal), ``k = below(stream_key(key, i), 0, count)``; 0 where no action
    is legal. Masks of at least ``PARALLEL_ROWS`` rows go to the threads in blocks of
    ``BLOCK`` rows (:func:`_uniform_legal_blocks`), so that a random agent scales with
    a large vector environment; smaller ones are done by the calling thread
    (:func:`_uniform_legal_rows`). A row's action depends on the row alone, so not on
    the thread count."""
    rows = mask.shape[0]
    if rows < PARALLEL_ROWS:
        _uniform_legal_rows(mask, key, out, 0, rows)
    else:
        _uniform_legal_blocks(mask, key, out)


def sample_legal(mask, rng: np.random.Generator, out: np.ndarray | None = None) -> np.ndarray:
    """A uniform legal action for every row of ``mask``.

    Parameters
    ----------
    mask : array_like
        ``(N, actions)``, nonzero = legal (a vector environment's
        ``info["action_mask"]``). An int8 C-contiguous array (what the vector
        environments return) is used as it is; others are converted.
    rng : numpy.random.Generator
        The caller's generator; one 64-bit number of its bit generator is drawn per call.
    out : np.ndarray, optional
        int64 ``(N,)`` array to write the actions into (then returned): reused from
        step to step, a random agent allocates nothing.

    Returns
    -------
    np.ndarray
        int64 ``(N,)``: the actions (0 in a row with no legal action).
    """
    if (mask.__class__ is not np.ndarray or mask.dtype != np.int8 or mask.ndim != 2
            or not mask.flags.c_contiguous):
        mask = _int8_mask(mask)
    if out is None:
        out = np.empty(mask.shape[0], dtype=np.int64)
    elif (out.__class__ is not np.ndarray or out.dtype != np.int64
          or out.shape != mask.shape[:1]):
        raise InputError(f"out must be an int64 array of shape ({mask.shape[0]},)")
    uniform_legal(mask, np.uint64(rng.bit_generator.random_raw()), out)
    return out


def _int8_mask(mask) -> np.ndarray:
    """``mask`` checked and made a C-contiguous int8 array (nonzero = legal)."""
    mask = np.asarray(mask)
    if mask.ndim != 2 or mask.dtype.kind not in "biu":
        raise InputError(f"mask must be a 2-d array of integers or booleans, got shape "
                         f"{mask.shape} of {mask.dtype}")
    if mask.itemsize == 1:
        return np.ascontiguousarray(mask).view(np.int8)
    return (mask != 0).view(np.int8)
