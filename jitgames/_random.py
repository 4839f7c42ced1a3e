"""Counter-based random numbers: item ``i`` of a run with seed ``s`` depends on (s, i) only.

The generator is SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom
number generators", OOPSLA 2014). A stream is identified by ``stream_key(seed, index)``;
its ``j``-th 64-bit output is ``mix64(key + (j + 1) * GOLDEN)``. Because an output
depends only on (seed, index, j), any subset of items gives the same numbers on any
number of threads or machines.

Kernels return uint64 values to Python as plain ``int``; pass a key back into a
kernel from Python as ``np.uint64(key)`` (a plain int above 2**63 does not fit the
int64 that Numba would infer).

All kernels use unsigned 64-bit arithmetic that wraps modulo 2**64. Under
``NUMBA_DISABLE_JIT=1`` NumPy may warn about the (intended) overflow.
"""
from __future__ import annotations

import numpy as np

from ._jit import jit, mul_high

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_RECIPROCALS = np.array([(2**64 - 1) // n for n in range(1, 257)], np.uint64)
"""``(2**64 - 1) // n`` at index ``n - 1``, for :func:`remainder_inline`'s divisors up to 256."""


@jit(inline=True)
def mix64_inline(x):
    """:func:`mix64`, copied into the kernel that calls it (see :func:`below_inline`)."""
    z = np.uint64(x)
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@jit
def mix64(x):
    """SplitMix64 finaliser: a bijection of uint64 with good avalanche."""
    return mix64_inline(x)


@jit
def stream_key(seed, index):
    """Key of the random stream of item ``index`` in a run with ``seed`` (both >= 0)."""
    return mix64(mix64(np.uint64(seed) + GOLDEN) ^ np.uint64(index))


@jit(inline=True)
def next_u64_inline(key, counter):
    """:func:`next_u64`, copied into the kernel that calls it (see :func:`below_inline`)."""
    return mix64_inline(np.uint64(key) + (np.uint64(counter) + np.uint64(1)) * GOLDEN)


@jit
def next_u64(key, counter):
    """Output number ``counter`` (0, 1, 2, ...) of the stream ``key``, a uint64."""
    return next_u64_inline(key, counter)


@jit(inline=True)
def remainder_inline(r, n):
    """``r % n`` of uint64 values (``n >= 1``), exactly, without a division instruction
    when ``n <= 256``: a 64-bit division takes as long as the rest of a random Kalah
    move's draw (the vector environments' step, ``docs/environments.md``).

    With ``M = (2**64 - 1) // n = (2**64 - e) / n``, ``1 <= e <= n``, the high half of
    ``r * M`` is ``floor(r / n - r * e / (n * 2**64))``, and ``0 <= r * e / (n * 2**64) < 1``:
    so it is ``r // n`` or one less, and ``r`` minus ``n`` times it is the remainder
    or the remainder plus ``n``."""
    if n > 256:
        return r % n
    rest = r - mul_high(r, _RECIPROCALS[n - np.uint64(1)]) * n
    return rest - n if rest >= n else rest


@jit
def remainder(r, n):
    """``r % n`` of uint64 values (``n >= 1``), as the kernels compute it (:func:`remainder_inline`)."""
    return remainder_inline(np.uint64(r), np.uint64(n))


@jit(inline=True)
def below_inline(key, counter, n):
    """:func:`below`, copied into the kernel that calls it: for a hot loop that draws
    once an item (the batched environments' random moves), where a call a draw costs
    as much as the draw (a call of a kernel is not inlined across kernels)."""
    un = np.uint64(n)
    while True:
        r = next_u64_inline(key, counter)
        counter += 1
        # The limit, 2**64 mod n (computed without 128-bit arithmetic), is below n: an
        # output of at least n is kept without it, so the division that computes it runs
        # only for the rare outputs below n (same outputs, one division less a draw).
        if r >= un or r >= (np.uint64(0) - un) % un:
            return np.int64(remainder_inline(r, un)), counter


@jit
def below(key, counter, n):
    """Uniform integer in ``[0, n)`` from stream ``key``, drawn without modulo bias.

    Uses rejection: outputs at or above the largest multiple of ``n`` that fits in
    2**64 are skipped. Returns ``(value, next_counter)``; ``n`` must be >= 1.
    """
    return below_inline(key, counter, n)
