"""The codes still possible after some answers, found without listing all codes.

A game of 8 pegs and 10 colours has 10^8 codes: too many for the tables of
:class:`.codes.CodeSpace` (26 bytes a code) in a program that serves games. The
play model (:mod:`.game`) therefore asks :func:`scan_consistent`, which enumerates
the codes depth first, position by position (so in increasing value, the order of
:mod:`.codes`), and cuts a prefix as soon as some earlier guess could no longer get
its answer: the blacks and the common colours of a prefix only grow, by at most one
a position, so a prefix with too many of either, or too few to reach the answer
with the positions left, has no consistent completion. The work is then about
proportional to the number of consistent codes, not to all codes.

A code here is its *value* (base-``colours`` integer of its 0-based digits, first
digit most significant), which is also its index in the :class:`.codes.CodeSpace`
of the same size with repeats allowed.
"""
from __future__ import annotations

import numpy as np

from .._jit import jit
from .strategies import unit_uniform

__all__ = ["scan_consistent", "Constraints"]


@jit
def scan_consistent(pegs, colours, guess_digits, guess_counts, blacks, commons, scored, key,
                    below, limit, out):
    """Enumerate the codes consistent with some answers, in increasing value.

    Parameters
    ----------
    pegs, colours : int
        The game size.
    guess_digits : int8 array (h, pegs)
        0-based colours of the ``h`` earlier guesses, by position.
    guess_counts : int8 array (h, colours)
        How often each colour occurs in each earlier guess.
    blacks, commons : int64 arrays (h,)
        The answers: blacks, and blacks plus whites (the colours in common).
    scored : bool
        Whether to compute ``unit_uniform(key, code)`` for each consistent code (the
        score of the ``random`` strategy, :mod:`.strategies`).
    key : uint64
        The random key of the decision (used when ``scored``).
    below : float
        With ``scored`` and ``below >= 0``, the scan stops at the first (smallest)
        consistent code whose score is at most ``below``.
    limit : int
        The scan stops once ``limit`` consistent codes have been found.
    out : int64 array
        Receives the first ``len(out)`` consistent codes.

    Returns
    -------
    count : int
        Consistent codes found (all of them unless the scan stopped early).
    least : float
        Least score among them (2.0 if none, or not ``scored``).
    first_below : int
        The code that stopped the scan under ``below``, else -1.
    """
    h = guess_digits.shape[0]
    digit = np.full(pegs, -1, dtype=np.int64)
    value = np.zeros(pegs + 1, dtype=np.int64)      # value of the prefix before position d
    code_counts = np.zeros(colours, dtype=np.int64)
    black = np.zeros((pegs + 1, h), dtype=np.int64)   # blacks of the prefix, per guess
    common = np.zeros((pegs + 1, h), dtype=np.int64)  # colours in common, per guess
    count = 0
    least = 2.0
    d = 0
    while d >= 0:
        if digit[d] >= 0:  # leave the colour tried last at this position
            code_counts[digit[d]] -= 1
        digit[d] += 1
        if digit[d] == colours:
            digit[d] = -1
            d -= 1
            continue
        c = digit[d]
        rest = pegs - d - 1
        fits = True
        for i in range(h):
            b = black[d, i] + (1 if guess_digits[i, d] == c else 0)
            m = common[d, i] + (1 if code_counts[c] < guess_counts[i, c] else 0)
            if b > blacks[i] or b + rest < blacks[i] or m > commons[i] or m + rest < commons[i]:
                fits = False
                break
            black[d + 1, i] = b
            common[d + 1, i] = m
        code_counts[c] += 1
        if not fits:
            continue
        value[d + 1] = value[d] * colours + c
        if rest > 0:
            d += 1
            continue
        code = value[pegs]
        if count < out.shape[0]:
            out[count] = code
        count += 1
        if scored:
            s = unit_uniform(key, code)
            if s < least:
                least = s
            if below >= 0.0 and s <= below:
                return count, least, code
        if count >= limit:
            break
    return count, least, -1


class Constraints:
    """The arrays :func:`scan_consistent` reads for a list of ``(guess, black, white)``.

    ``guess`` is a tuple of 0-based colours.
    """

    def __init__(self, pegs: int, colours: int, turns):
        h = len(turns)
        self.pegs, self.colours = pegs, colours
        self.digits = np.zeros((h, pegs), dtype=np.int8)
        self.counts = np.zeros((h, colours), dtype=np.int8)
        self.blacks = np.zeros(h, dtype=np.int64)
        self.commons = np.zeros(h, dtype=np.int64)
        for i, (guess, black, white) in enumerate(turns):
            self.digits[i] = guess
            for c in guess:
                self.counts[i, c] += 1
            self.blacks[i], self.commons[i] = black, black + white

    def scan(self, out=None, limit: int = 1 << 62, scored: bool = False, key: int = 0,
             below: float = -1.0):
        """:func:`scan_consistent` with these answers (see there for the results)."""
        out = np.zeros(0, dtype=np.int64) if out is None else out
        count, least, first = scan_consistent(
            self.pegs, self.colours, self.digits, self.counts, self.blacks, self.commons,
            scored, np.uint64(key), float(below), int(limit), out)
        return int(count), float(least), int(first)

