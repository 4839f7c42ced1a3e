"""Queen domination: fewest queens covering every square of an n x n board.

Squares are numbered ``r*n + c``; a queen covers its own square and every square it
attacks. ``gamma(n)`` is the minimum size of a dominating set; ``i(n)`` the minimum
size of an *independent* dominating set (no two queens attack each other).

The search counts k-sets exactly by branching on an uncovered square s: one of the
queens still allowed that covers s must be chosen; in the branch choosing a, the
allowed squares covering s that come before a are forbidden. Every dominating
k-set therefore lies in exactly one branch (the one choosing its first queen that
covers s), so leaves count each set once. s is the uncovered square with the
fewest allowed coverers (fewest branches). In the independent variant a chosen
queen also forbids every square it attacks.

Choices docs/design.md leaves open:

- Sets of squares are bitmasks over ``ceil(n*n/64)`` uint64 words; n <= 16.
- The minimum is searched upwards from the classic lower bound ceil((n-1)/2)
  (Spencer), e.g. 4 for n = 8 (the upper bound 5 is then reached at once).
- Counting up to symmetry enumerates the minimum sets and keeps, for each, the
  smallest of its 8 images (sorted square lists compared as numbers).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from jitgames._bits import popcount
from jitgames._jit import fetch_add, jit, prange, thread_count
from jitgames.errors import InputError

__all__ = [
    "MAX_N",
    "Domination",
    "attack_masks",
    "count_dominating",
    "dominating_sets",
    "minimum_dominating",
    "domination",
    "count_up_to_symmetry",
    "draw",
]

MAX_N = 16


def _check_n(n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError("n must be an integer")
    n = int(n)
    if not 1 <= n <= MAX_N:
        raise InputError(f"n must be between 1 and {MAX_N}, got {n}")
    return n


def attack_masks(n: int) -> np.ndarray:
    """``masks[s, w]``: word w of the set of squares a queen on s covers (s included)."""
    n = _check_n(n)
    words = (n * n + 63) // 64
    masks = np.zeros((n * n, words), dtype=np.uint64)
    for r in range(n):
        for c in range(n):
            s = r * n + c
            for r2 in range(n):
                for c2 in range(n):
                    if r2 == r or c2 == c or r2 - c2 == r - c or r2 + c2 == r + c:
                        t = r2 * n + c2
                        masks[s, t // 64] |= np.uint64(1) << np.uint64(t % 64)
    return masks


@jit
def _lowest_bit(words, w_count):
    """Index of the lowest set bit of a multiword set (-1 if empty)."""
    for w in range(w_count):
        x = words[w]
        if x:
            low = x & (~x + np.uint64(1))
            b = 0
            while low > np.uint64(1):
                low >>= np.uint64(1)
                b += 1
            return 64 * w + b
    return -1


@jit
def count_dominating(n, k, independent, attack, out):
    """Number of k-sets of squares dominating the n x n board.

    ``independent``: count only sets of mutually non-attacking queens. ``attack``
    is :func:`attack_masks`. Rows of ``out`` (int32, shape (cap, k)) receive the
    first ``cap`` sets found that use exactly k queens covering everything (sets
    reached by completing a smaller dominating set are counted, not listed).
    """
    return count_dominating_branch(n, k, independent, attack, -1, out)


@jit
def count_dominating_branch(n, k, independent, attack, branch, out):
    """:func:`count_dominating` restricted to the ``branch``-th choice of the first queen
    (all of them when ``branch`` is -1).

    The search's first step branches on the square with the fewest coverers; choice
    ``branch`` (in square order) is searched with the earlier choices forbidden, as the
    whole search does it, so the counts of branches 0, 1, ... add up to the whole count
    and the sets each lists, one branch after another, are the whole search's list.
    A branch beyond the last choice counts 0.
    """
    squares = n * n
    words = attack.shape[1]
    full = np.zeros(words, np.uint64)
    for s in range(squares):
        full[s // 64] |= np.uint64(1) << np.uint64(s % 64)
    covered = np.zeros((k + 1, words), np.uint64)
    excluded = np.zeros((k + 1, words), np.uint64)
    candidates = np.zeros((k + 1, words), np.uint64)
    chosen = np.zeros(k + 1, np.int64)
    uncovered = np.zeros(words, np.uint64)
    cap = out.shape[0]
    total = 0
    depth = 0
    fresh = True  # True when entering a node, False when resuming it
    while depth >= 0:
        if fresh:
            fresh = False
            for w in range(words):
                uncovered[w] = full[w] & ~covered[depth, w]
            if _lowest_bit(uncovered, words) < 0:  # everything covered: a leaf
                if depth == k:
                    if total < cap:
                        for i in range(k):
                            out[total, i] = chosen[i]
                    total += 1
                elif not independent:
                    free = squares - depth
                    for w in range(words):
                        free -= popcount(excluded[depth, w])
                    need = k - depth
                    ways = 1
                    for i in range(need):  # binomial(free, need), exact step by step
                        ways = ways * (free - i) // (i + 1)
                    total += ways
                depth -= 1
                continue
            if depth == k:
                depth -= 1
                continue
            # branch on the uncovered square with the fewest allowed coverers
            best = -1
            best_count = squares + 1
            for s in range(squares):
                if uncovered[s // 64] >> np.uint64(s % 64) & np.uint64(1):
                    cnt = 0
                    for w in range(words):
                        cnt += popcount(attack[s, w] & ~excluded[depth, w])
                    if cnt < best_count:
                        best_count = cnt
                        best = s
                        if cnt <= 1:
                            break
            if best_count == 0:
                depth -= 1
                continue
            for w in range(words):
                candidates[depth, w] = attack[best, w] & ~excluded[depth, w]
            if depth == 0 and branch >= 0:  # forbid the choices before the branch's
                for _ in range(branch):
                    a = _lowest_bit(candidates[0], words)
                    if a < 0:
                        break
                    bit = np.uint64(1) << np.uint64(a % 64)
                    candidates[0, a // 64] &= ~bit
                    excluded[0, a // 64] |= bit
                a = _lowest_bit(candidates[0], words)  # ... and every one after it
                for w in range(words):
                    candidates[0, w] = np.uint64(0)
                if a >= 0:
                    candidates[0, a // 64] = np.uint64(1) << np.uint64(a % 64)
        a = _lowest_bit(candidates[depth], words)
        if a < 0:
            depth -= 1
            continue
        bit = np.uint64(1) << np.uint64(a % 64)
        candidates[depth, a // 64] &= ~bit
        chosen[depth] = a
        for w in range(words):
            covered[depth + 1, w] = covered[depth, w] | attack[a, w]
            excluded[depth + 1, w] = excluded[depth, w]
            if independent:
                excluded[depth + 1, w] |= attack[a, w]
        excluded[depth, a // 64] |= bit  # later siblings may not use a
        depth += 1
        fresh = True
    return total


@jit(parallel=True)
def count_dominating_split(n, k, independent, attack, counts, outs, slots):
    """:func:`count_dominating_branch` of every first choice ``b < len(counts)`` into
    ``counts[b]`` and ``outs[b]`` (shape (branches, cap, k)), on ``slots`` threads that
    take the next branch from a shared counter as they get free (the branches differ
    much in size: the first forbid nothing)."""
    following = np.zeros(1, np.int64)
    branches = counts.shape[0]
    for _ in prange(slots):
        while True:
            b = fetch_add(following, 1)
            if b >= branches:
                break
            counts[b] = count_dominating_branch(n, k, independent, attack, b, outs[b])


SPLIT_CELLS = 1 << 22
"""Largest ``branches * cap * k`` (int32 cells, 16 MiB) for which the first choices are
searched on threads, each with its own list; beyond it one thread searches them all."""


def dominating_sets(n: int, k: int, independent: bool = False, cap: int = 1 << 16):
    """(count, sets): number of dominating k-sets and up to ``cap`` of them.

    The first queen's choices (the coverers of the square covered by the fewest, 3n - 2
    of them) are independent branches searched on threads; their counts add up, and
    their lists, one after another, are the list of the one-thread search (kept when the
    per-branch lists would take more than :data:`SPLIT_CELLS` cells).
    """
    n = _check_n(n)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= n * n:
        raise InputError(f"k must be an integer from 1 to {n * n}")
    k = int(k)
    attack = attack_masks(n)
    branches = int(min(sum(bin(int(w)).count("1") for w in row) for row in attack))
    if branches * cap * k > SPLIT_CELLS:
        out = np.zeros((cap, k), dtype=np.int32)
        count = int(count_dominating(n, k, bool(independent), attack, out))
        return count, out[:min(count, cap)]
    counts = np.zeros(branches, np.int64)
    outs = np.zeros((branches, cap, k), dtype=np.int32)
    count_dominating_split(n, k, bool(independent), attack, counts, outs, thread_count())
    parts, offset = [], 0
    for b in range(branches):  # branch b's sets stand at offset .. offset + counts[b]
        take = max(0, min(cap - offset, int(counts[b])))
        parts.append(outs[b, :take])
        offset += int(counts[b])
    return offset, np.concatenate(parts)


def minimum_dominating(n: int, independent: bool = False):
    """(k, count, sets): the minimum size, how many minimum sets, and all of them."""
    n = _check_n(n)
    k = max(1, (n - 1 + 1) // 2)  # ceil((n-1)/2)
    while True:
        count, sets = dominating_sets(n, k, independent, cap=1 << 12)
        if count > 0:
            if count > len(sets):
                count, sets = dominating_sets(n, k, independent, cap=count)
            if count != len(sets):  # a minimum set never completes a smaller one
                raise AssertionError("minimum sets not all listed")
            return k, count, sets
        k += 1


def _square_symmetries(n: int) -> np.ndarray:
    perms = np.zeros((8, n * n), dtype=np.int64)
    for i, (turns, mirror) in enumerate((t, m) for t in range(4) for m in (False, True)):
        for r in range(n):
            for c in range(n):
                rr, cc = r, (n - 1 - c if mirror else c)
                for _ in range(turns):
                    rr, cc = cc, n - 1 - rr
                perms[i, r * n + c] = rr * n + cc
    return perms


def count_up_to_symmetry(n: int, sets: np.ndarray) -> int:
    """Number of classes of ``sets`` (rows of squares) under the 8 board symmetries."""
    if len(sets) == 0:
        return 0
    perms = _square_symmetries(n)
    base = np.int64(n * n)
    best = None
    for s in range(8):
        images = np.sort(perms[s][sets], axis=1)
        code = np.zeros(len(sets), dtype=np.int64)
        for col in range(images.shape[1]):
            code = code * base + images[:, col]
        best = code if best is None else np.minimum(best, code)
    return int(len(np.unique(best)))


@dataclass(frozen=True)
class Domination:
    """Minimum dominating sets of queens: sizes and counts (unique = up to symmetry)."""

    n: int
    minimum: int
    sets: int
    unique: int
    independent: int
    independent_sets: int
    independent_unique: int


def domination(n: int) -> Domination:
    """Domination number, independent domination number, and their set counts."""
    n = _check_n(n)
    k, count, sets = minimum_dominating(n)
    ki, count_i, sets_i = minimum_dominating(n, independent=True)
    return Domination(n, k, count, count_up_to_symmetry(n, sets), ki, count_i,
                      count_up_to_symmetry(n, sets_i))


def draw(n: int, squares) -> str:
    """The board with ``Q`` on the given squares, ``.`` elsewhere, row 0 on top."""
    chosen = set(int(s) for s in squares)
    return "\n".join(" ".join("Q" if r * n + c in chosen else "." for c in range(n))
                     for r in range(n))
