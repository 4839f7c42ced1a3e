"""Fibonacci nim: Sprague-Grundy values, losing heaps, winning moves.

A position ``(p, q)``: p tokens remain and the previous move took q, so the player
to move may take 1..min(p, 2q); whoever takes the last token wins. The first move
from a heap of p may take 1..p-1 (the "start" of heap p). A position's
Sprague-Grundy value SG is the mex of its options' values; 0 means the player to
move loses.

Choices docs/design.md leaves open:

- The kernel fills a table ``sg[p, q]`` for 0 <= p, q <= P in O(P^2) time: the
  options of (p, q) are the first min(p, 2q) of the list (p - t, t), t = 1, 2, ...,
  so one pass over t with an incremental mex gives the whole row p. Memory is
  4 (P+1)^2 bytes; P is limited to :data:`MAX_HEAP`.
- ``g(p)`` (the classic analysis) is the largest q with SG(p, q) = 0 (0 if none):
  the value is 0 exactly for q <= g(p), because a mex over a growing option set
  never returns to 0.
- The winning move comes from the Zeckendorf representation: take its smallest
  Fibonacci term f when f <= min(p, 2q) (the start allows p-1; a heap that is a
  Fibonacci number has no winning first move).

The gap rule. Call p a *zero heap* when some (p, q), q >= 1, is lost for the player
to move (g(p) >= 1). After a zero heap p, the next zero heap is p + 2 when
g(p) = 1 and p + 3 when g(p) > 1. It holds for every p: (p, q) is lost exactly when
the smallest Zeckendorf term z of p exceeds 2q, so g(p) = (z - 1) // 2; g = 1 means
z = 3, and then p + 1 ends in 1 while p + 2 ends in a term >= 5; g > 1 means
z >= 5, and then p + 1 ends in 1, p + 2 in 2, and p + 3 in 3 (or, when z = 5, in a
term >= 8 after the carry 5 + 3 = 8). :func:`gap_rule_failures` checks it on a table.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from jitgames._jit import jit
from jitgames.errors import InputError

__all__ = [
    "MAX_HEAP",
    "FibNimTable",
    "grundy_kernel",
    "table",
    "fibonacci_upto",
    "zeckendorf",
    "winning_move",
    "zero_heaps",
    "gap_rule_failures",
]

MAX_HEAP = 4000


@jit
def grundy_kernel(heap_max, sg, start):
    """Fill ``sg[p, q]`` (p, q <= heap_max) and ``start[p]`` (value of heap p's start).

    ``sg`` is int32 (heap_max+1, heap_max+1); ``start`` int32 (heap_max+1,).
    Column q = 0 (no take allowed) holds 0.
    """
    seen = np.zeros(heap_max + 2, np.int64)
    for p in range(heap_max + 1):
        for i in range(p + 2):
            seen[i] = 0
        sg[p, 0] = 0
        mex = 0
        # prefix_mex for m options: fill as t grows, then read per q
        prefix = np.zeros(p + 1, np.int32)  # prefix[m] = mex of the first m options
        for t in range(1, p + 1):
            v = sg[p - t, min(t, heap_max)]
            if v <= p:
                seen[v] += 1
            while seen[mex] > 0:
                mex += 1
            prefix[t] = mex
        for q in range(1, heap_max + 1):
            m = min(p, 2 * q)
            sg[p, q] = prefix[m]
        start[p] = prefix[p - 1] if p >= 1 else 0


@dataclass(frozen=True)
class FibNimTable:
    """SG values up to a heap size, with the classic summaries."""

    heap_max: int
    sg: np.ndarray  # sg[p, q]
    start: np.ndarray  # SG of the first-move position of heap p

    def losing_starts(self) -> list[int]:
        """Heaps p >= 1 whose first player loses."""
        return [p for p in range(1, self.heap_max + 1) if self.start[p] == 0]

    def g(self, p: int) -> int:
        """Largest q with SG(p, q) = 0 (0 if none); q runs up to heap_max."""
        zeros = np.flatnonzero(self.sg[p, 1:] == 0)
        return int(zeros[-1] + 1) if len(zeros) else 0

    def losing_positions(self, p_max: int | None = None) -> list[tuple[int, int]]:
        """Pairs (p, g(p)) for 1 <= p <= p_max: (p, q) loses exactly when q <= g(p)."""
        top = self.heap_max if p_max is None else min(p_max, self.heap_max)
        return [(p, self.g(p)) for p in range(1, top + 1)]


def table(heap_max: int) -> FibNimTable:
    """SG table for heaps up to ``heap_max`` (1 <= heap_max <= MAX_HEAP)."""
    if isinstance(heap_max, bool) or not isinstance(heap_max, (int, np.integer)):
        raise TypeError("heap_max must be an integer")
    heap_max = int(heap_max)
    if not 1 <= heap_max <= MAX_HEAP:
        raise InputError(f"heap_max must be between 1 and {MAX_HEAP}, got {heap_max}")
    sg = np.zeros((heap_max + 1, heap_max + 1), dtype=np.int32)
    start = np.zeros(heap_max + 1, dtype=np.int32)
    grundy_kernel(heap_max, sg, start)
    return FibNimTable(heap_max, sg, start)


def fibonacci_upto(limit: int) -> list[int]:
    """Fibonacci numbers 1, 2, 3, 5, 8, ... not above ``limit``."""
    out, a, b = [], 1, 2
    while a <= limit:
        out.append(a)
        a, b = b, a + b
    return out


def zeckendorf(p: int) -> list[int]:
    """The Zeckendorf representation of p >= 1: non-consecutive Fibonacci numbers,
    largest first, summing to p."""
    if isinstance(p, bool) or not isinstance(p, int) or p < 1:
        raise InputError(f"p must be a positive integer, got {p!r}")
    terms = []
    for f in reversed(fibonacci_upto(p)):
        if f <= p:
            terms.append(f)
            p -= f
    return terms


def winning_move(p: int, q: int | None = None) -> int | None:
    """Tokens to take to win from (p, q), or None if the position is lost.

    ``q=None`` is the first move of heap p (up to p-1 tokens).
    """
    limit = p - 1 if q is None else min(p, 2 * q)
    if q is not None and (isinstance(q, bool) or not isinstance(q, int) or q < 1):
        raise InputError(f"q must be a positive integer, got {q!r}")
    smallest = zeckendorf(p)[-1]
    return smallest if smallest <= limit else None


def zero_heaps(tab: FibNimTable) -> list[int]:
    """Heaps p of the table with g(p) >= 1 (some (p, q), q >= 1, is lost), ascending."""
    return [p for p, g in tab.losing_positions() if g >= 1]


def gap_rule_failures(tab: FibNimTable) -> list[int]:
    """Zero heaps p whose next zero heap is not p + 2 (g(p) = 1) or p + 3 (g(p) > 1).

    Only heaps whose successor lies inside the table (p + 3 <= heap_max) are judged;
    an empty list means the rule holds throughout the table.
    """
    zeros = zero_heaps(tab)
    failures = []
    for p, following in zip(zeros, zeros[1:] + [None]):
        if p + 3 > tab.heap_max:
            break
        expected = p + 2 if tab.g(p) == 1 else p + 3
        if following != expected:
            failures.append(p)
    return failures
