"""The codebreaking strategy optimal in expectation, by exhaustive branch and bound.

``cost(C)`` is the least total number of guesses needed to solve every code of the
consistent set ``C`` (each guess counted once per secret it is made for):

    cost(C) = |C| + min over guesses g of  sum over answers f != solved  cost(C_f(g))

where ``C_f(g)`` are the codes of ``C`` answering ``f`` to ``g``; the whole game is
``cost(all codes)`` (5625 for 4 pegs and 6 colours, Koyama and Lai 1993). With a
depth limit ``D`` (``optimal-max5``: D = 5) a secret may take at most D guesses.

Pruning, all exact:

- lower bounds: a node solves at most one secret and has at most ``b`` children
  (``b`` = answers other than "solved"), so ``m`` secrets need at least
  ``lb(m) = sum_j j * min(left, b ** (j - 1))`` guesses, and at most
  ``1 + b + ... + b ** (D - 1)`` secrets fit in D guesses;
- fast exact cases: ``m <= 2``; a consistent guess splitting ``C`` apart gives the
  bound ``2m - 1``; else any guess splitting it apart, or a consistent guess leaving
  one pair and single codes, gives the bound ``2m``; when all fail the node costs at
  least ``2m + 1`` (its *floor*), and with two guesses left it is infeasible;
- branch and bound: candidates are scanned in code order and estimated by
  ``|C| + sum lb(|C_f|)``; the scan pauses at a candidate whose estimate reaches the
  floor (nothing can beat it) to try it first. Before a candidate is tried its
  estimate is sharpened with the fast case of its classes (a class that no member
  splits apart costs at least ``2s``) and, if it grew, the candidate is queued again;
  candidates are tried by increasing estimate and cut as soon as it reaches the best
  total; each class is searched with the remaining budget, largest first;
- symmetry: only the smallest code of each orbit under the colour and position
  permutations fixing every guess so far is tried (never-guessed colours are
  interchangeable, so a candidate must use them smallest first; position
  permutations with their colour maps are checked whenever any fixes the history);
  colours that no code of ``C`` uses answer alike wherever they stand, so only the
  smallest of them is used by candidates (:mod:`.symmetry` shows why the filters
  combine);
- a cache (64-bit hash of the consistent set and the depth left -> exact value and
  its guess, or a lower bound) shares sub-problems, and lets the tree be built from
  the search without searching again. A hash collision could in principle corrupt a
  value; with 64-bit keys and at most millions of entries its probability is below
  1e-6, and the tests check the results against a cache-free brute force.

The guess chosen at each node of the exported tree is the first candidate (in the
search order) that attains the optimal cost, or the one a fast case names.
"""
from __future__ import annotations

import numpy as np
from numba import types
from numba.typed import Dict

from ..errors import InputError
from .._interrupt import run_interruptible
from .._jit import jit
from .._random import GOLDEN, mix64
from .codes import CodeSpace
from .engine import response
from .symmetry import (absent_canonical, all_colours_used, free_colours_canonical,
                       history_group, orbit_minimal, position_permutations, present_colours,
                       repeats_allowed)
from .tree import DecisionTree

__all__ = ["optimal_cost", "optimal_tree", "INFEASIBLE"]

INFEASIBLE = 1 << 40
UNLIMITED = 62  # depth "limit" meaning none
# A cache entry packs (guess + 1) << GUESS_SHIFT | value << 1 | exact (guess + 1 = 0:
# not recorded, for code spaces of 2**20 codes or more).
GUESS_SHIFT = 42
VALUE_MASK = (1 << (GUESS_SHIFT - 1)) - 1


@jit
def lower_bounds(n, branches):
    """``lb[m]`` for m = 0..n: least total guesses for m secrets (see module docs)."""
    lb = np.zeros(n + 1, dtype=np.int64)
    for m in range(1, n + 1):
        left, level, width, total = m, 1, 1, 0
        while left > 0:
            take = min(left, width)
            total += take * level
            left -= take
            level += 1
            width = min(width * branches, n + 1)
        lb[m] = total
    return lb


@jit
def capacities(branches, n):
    """``cap[d]``: most secrets solvable within d guesses (saturating at n + 1)."""
    cap = np.zeros(UNLIMITED + 1, dtype=np.int64)
    width = 1
    for d in range(1, UNLIMITED + 1):
        cap[d] = min(cap[d - 1] + width, n + 1)
        width = min(width * branches, n + 1)
    return cap


@jit
def set_hash(members, start, end, remaining):
    """64-bit key of a consistent set (its increasing members) and the depth left."""
    h = mix64(np.uint64(remaining) + GOLDEN)
    for t in range(start, end):
        h = mix64(h ^ np.uint64(members[t]) + GOLDEN)
    return np.int64(h >> np.uint64(1))


@jit
def splits_apart_any(matrix, digits, counts, pegs, members, start, end, only_members,
                     seen):
    """A guess (a member if ``only_members``) answering every member differently, or -1.

    ``seen`` is int64 scratch of ``(pegs + 1) ** 2`` slots (marked with ``j + 1``).
    """
    seen[:] = 0
    n_cand = end - start if only_members else digits.shape[0]
    absent = 0  # colours no member uses: only their smallest-first use is tried
    colours = counts.shape[1]
    if not only_members:
        absent = ~present_colours(digits, members, start, end) & ((1 << colours) - 1)
    repeats = repeats_allowed(digits.shape[0], pegs, colours)
    for j in range(n_cand):
        g = members[start + j] if only_members else j
        if absent != 0 and not absent_canonical(digits[g], absent, repeats):
            continue
        ok = True
        for t in range(start, end):
            if matrix.shape[0] > 0:
                f = np.int64(matrix[g, members[t]])
            else:
                f = response(matrix, digits, counts, pegs, g, members[t])
            if seen[f] == j + 1:
                ok = False
                break
            seen[f] = j + 1
        if ok:
            return g
    return -1


@jit
def one_pair_split(matrix, digits, counts, pegs, members, start, end, seen):
    """A member leaving one pair and otherwise single codes, or -1.

    Playing it costs ``m + 3 + (m - 3) = 2m``, the least possible once no guess
    splits the set apart.
    """
    solved = pegs * (pegs + 1)
    for j in range(start, end):
        g = members[j]
        seen[:] = 0
        pairs = 0
        for t in range(start, end):
            if matrix.shape[0] > 0:
                f = np.int64(matrix[g, members[t]])
            else:
                f = response(matrix, digits, counts, pegs, g, members[t])
            seen[f] += 1
            if f != solved and seen[f] == 2:
                pairs += 1
            if seen[f] > 2 or pairs > 1:
                break
        else:
            if pairs == 1:
                return g
    return -1


@jit
def solve(matrix, digits, counts, pegs, src, start, end, remaining, bound, level, root,
          used, history, perms, lb, cap, buffers, order_keys, cache, choice, stop):
    """Least total guesses for the codes ``src[start:end]`` within ``remaining`` guesses.

    Returns the exact cost when it is below ``bound``, else some value >= ``bound``
    (a lower bound; INFEASIBLE when no strategy fits the depth). ``choice[level]``
    receives the best guess found (-1 if none beat the bound); at ``level == root``
    the choice is always known (searched, or read from the cache with the value).
    Once ``stop[0]`` is set (by another thread) every call returns INFEASIBLE at its
    next step: the result and the cache are then meaningless and must be dropped.
    """
    if stop[0] != 0:
        return INFEASIBLE
    m = end - start
    n = digits.shape[0]
    solved = pegs * (pegs + 1)
    n_slots = (pegs + 1) * (pegs + 1)
    choice[level] = -1
    if m > cap[remaining]:
        return INFEASIBLE
    if m == 1:
        choice[level] = src[start]
        return 1
    if lb[m] >= bound:
        return lb[m]
    key = set_hash(src, start, end, remaining)
    known = cache.get(key, -1)
    if known >= 0:
        value, exact, guess = (known >> 1) & VALUE_MASK, known & 1, (known >> GUESS_SHIFT) - 1
        if exact == 1 and (guess >= 0 or level > root):
            choice[level] = guess
            return value
        if exact == 0 and value >= bound:
            return value
    # Fast exact cases; when they fail, ``floor`` is a lower bound of the node.
    floor = lb[m]
    seen = np.zeros(n_slots, dtype=np.int64)
    if m <= n_slots:
        g = splits_apart_any(matrix, digits, counts, pegs, src, start, end, True, seen)
        if g >= 0:
            choice[level] = g
            return 2 * m - 1
        floor = max(floor, 2 * m)
        g = splits_apart_any(matrix, digits, counts, pegs, src, start, end, False, seen)
        if g >= 0:
            choice[level] = g
            return 2 * m
        if remaining < 3:  # two guesses solve m >= 2 codes only by splitting them apart
            return INFEASIBLE
        g = one_pair_split(matrix, digits, counts, pegs, src, start, end, seen)
        if g >= 0:
            choice[level] = g
            return 2 * m
        floor = max(floor, 2 * m + 1)
    if floor >= bound:
        return floor
    # Candidates: orbit representatives of all codes, scored by their lower bound.
    colours = counts.shape[1]
    group_perms, group_maps = history_group(digits, used, colours, history, level, perms)
    symmetric = group_perms.shape[0] > 1
    # Colours no member uses answer alike wherever they stand (see .symmetry).
    absent = ~present_colours(digits, src, start, end) & ((1 << colours) - 1)
    repeats = repeats_allowed(n, pegs, colours)
    all_used = all_colours_used(used)
    keys = order_keys[level]
    has_matrix = matrix.shape[0] > 0
    image = np.empty(pegs, dtype=np.int64)
    relabel = np.empty(colours, dtype=np.int64)
    count = np.zeros(n_slots, dtype=np.int64)
    answers = np.empty(n_slots, dtype=np.int64)
    n_answers = 0
    for f in range(n_slots):
        black, white = f // (pegs + 1), f % (pegs + 1)
        if f != solved and black + white <= pegs and not (black == pegs - 1 and white == 1):
            answers[n_answers] = f
            n_answers += 1
    out = buffers[level]
    row = np.zeros(n_slots, dtype=np.int64)
    class_end = np.zeros(n_slots, dtype=np.int64)
    class_lb = np.zeros(n_slots, dtype=np.int64)
    done = np.zeros(n_slots, dtype=np.bool_)
    new_used = used.copy()
    best = bound
    best_guess = -1
    n_cand = 0
    g_next = 0
    while True:
        if stop[0] != 0:
            return INFEASIBLE
        # Scan candidates in code order, pausing at one whose estimate reaches the
        # floor: nothing can beat it, so it is tried before the scan goes on.
        while g_next < n:
            g = g_next
            g_next += 1
            if absent != 0 and not absent_canonical(digits[g], absent, repeats):
                continue
            if not all_used and not free_colours_canonical(digits[g], used, colours):
                continue
            if symmetric and not orbit_minimal(digits, used, colours, group_perms,
                                               group_maps, g, image, relabel):
                continue
            if has_matrix:
                matrix_row = matrix[g]
                for t in range(start, end):
                    count[matrix_row[src[t]]] += 1
            else:
                for t in range(start, end):
                    count[response(matrix, digits, counts, pegs, g, src[t])] += 1
            parts = 1 if count[solved] > 0 else 0
            count[solved] = 0
            estimate = m
            largest = 0
            for i in range(n_answers):  # the answers other than "solved" that occur
                size = count[answers[i]]
                count[answers[i]] = 0
                estimate += lb[size]
                largest = max(largest, size)
                parts += size > 0
            useful = parts > 1
            feasible = largest <= cap[remaining - 1]
            if useful and feasible:
                keys[n_cand, 0] = estimate
                keys[n_cand, 1] = g
                n_cand += 1
                if estimate <= floor:
                    break
        # Next candidate by (estimate, code order); most searches stop after a few.
        j = -1
        for i in range(n_cand):
            if keys[i, 0] < INFEASIBLE and (j < 0 or keys[i, 0] < keys[j, 0]):
                j = i
        if j < 0 or keys[j, 0] >= best:
            if g_next < n:
                continue
            break
        estimate, g = keys[j, 0], keys[j, 1]
        row[:] = 0
        for t in range(start, end):
            row[response(matrix, digits, counts, pegs, g, src[t])] += 1
        # Materialise the classes of g in this level's buffer.
        class_end[0] = row[0]
        for f in range(1, n_slots):
            class_end[f] = class_end[f - 1] + row[f]
        for t in range(end - 1, start - 1, -1):
            f = response(matrix, digits, counts, pegs, g, src[t])
            class_end[f] -= 1
            out[class_end[f]] = src[t]
        # Sharpen the estimate (a class that no member splits apart costs at least
        # 2s); if it grew, queue the candidate again by its new estimate.
        sharper = m
        for f in range(n_slots):
            size = row[f]
            class_lb[f] = lb[size]
            if f != solved and 3 <= size <= n_slots and lb[size] < 2 * size:
                lo = class_end[f]
                if splits_apart_any(matrix, digits, counts, pegs, out, lo, lo + size,
                                    True, seen) < 0:
                    class_lb[f] = 2 * size
            if f != solved:
                sharper += class_lb[f]
        if sharper > estimate:
            keys[j, 0] = sharper
            continue
        keys[j, 0] = INFEASIBLE
        history[level] = g
        new_used[:] = used
        for i in range(pegs):
            new_used[digits[g, i]] = True
        # Largest classes first: they decide most of the cost.
        total = sharper
        done[:] = False
        done[solved] = True
        while total < best:
            f_big, size_big = -1, 0
            for f in range(n_slots):
                if not done[f] and row[f] > size_big:
                    f_big, size_big = f, row[f]
            if f_big < 0:
                break
            done[f_big] = True
            lo = class_end[f_big]
            total -= class_lb[f_big]
            total += solve(matrix, digits, counts, pegs, out, lo, lo + size_big,
                           remaining - 1, best - total, level + 1, root, new_used, history,
                           perms, lb, cap, buffers, order_keys, cache, choice, stop)
        if total < best:
            best, best_guess = total, g
            if best <= floor:
                break
    choice[level] = best_guess
    if best < bound:
        packed_guess = best_guess + 1 if best_guess < (1 << (62 - GUESS_SHIFT)) - 1 else 0
        cache[key] = (packed_guess << GUESS_SHIFT) | (best << 1) | 1
    else:
        previous = (known >> 1) & VALUE_MASK if known >= 0 else 0
        cache[key] = max(best, previous) << 1
    return best


def _branches(pegs: int) -> int:
    return (pegs + 1) * (pegs + 2) // 2 - 2 if pegs > 1 else 1


class OptimalSearch:
    """Branch-and-bound search state for one code space and depth limit (cache kept)."""

    def __init__(self, space: CodeSpace, matrix: np.ndarray, depth_limit: int | None):
        self.space, self.matrix = space, matrix
        self.remaining = UNLIMITED if depth_limit is None else int(depth_limit)
        n, pegs = space.size, space.pegs
        levels = min(self.remaining, n) + 8
        self.lb = lower_bounds(n, _branches(pegs))
        self.cap = capacities(_branches(pegs), n)
        self.perms = position_permutations(pegs)
        self.buffers = np.zeros((levels, n), dtype=np.int32)
        self.keys = np.zeros((levels, n, 2), dtype=np.int64)
        self.history = np.zeros(levels, dtype=np.int64)
        self.choice = np.zeros(levels, dtype=np.int64)
        self.cache = Dict.empty(key_type=types.int64, value_type=types.int64)
        self.stop = np.zeros(1, dtype=np.int64)  # set to 1 to make the search stop

    def best(self, members: np.ndarray, remaining: int, used: np.ndarray, history):
        """(cost, guess) for a consistent set; ``history`` the guesses that led to it.

        Raises KeyboardInterrupt when ``self.stop[0]`` was set (Ctrl-C, see
        :func:`jitgames._interrupt.run_interruptible`); the search object is then
        unusable (its cache may hold cut-off values).
        """
        level = len(history)
        self.history[:level] = history
        src = np.ascontiguousarray(members, dtype=np.int32)
        cost = solve(self.matrix, self.space.digits, self.space.counts, self.space.pegs,
                     src, 0, src.size, remaining, INFEASIBLE + 1, level, level, used,
                     self.history,
                     self.perms, self.lb, self.cap, self.buffers, self.keys,
                     self.cache, self.choice, self.stop)
        if self.stop[0] != 0:
            raise KeyboardInterrupt
        return int(cost), int(self.choice[level])


def _search_and_build(space: CodeSpace, matrix: np.ndarray, depth_limit: int | None):
    search = OptimalSearch(space, matrix, depth_limit)
    rows = []
    n = space.size

    def node(members, remaining, used, history, parent, answer, depth):
        cost, guess = search.best(members, remaining, used, history)
        if cost >= INFEASIBLE:
            raise InputError(f"no strategy solves every code within {depth_limit} guesses")
        row = len(rows)
        rows.append((guess, parent, answer, depth))
        answers = matrix[guess, members] if matrix.shape[0] else np.array(
            [space.feedback(guess, s) for s in members])
        used = used.copy()
        used[space.digits[guess]] = True
        for f in np.unique(answers):
            if f != space.solved:
                node(members[answers == f], remaining - 1, used, history + [guess], row,
                     int(f), depth + 1)
        return cost

    def build():
        total = node(np.arange(n, dtype=np.int32), search.remaining,
                     np.zeros(space.colours, dtype=np.bool_), [], -1, -1, 0)
        return total, DecisionTree(space, np.array(rows, dtype=np.int32).reshape(-1, 4))

    # Ctrl-C is heard at once and stops the kernel through search.stop
    return run_interruptible(build, stop=search.stop)


# Finished searches of this process, newest last: (space, matrix, depth limit, result).
# The matrix is compared by identity (the one of :func:`.evaluate.load_game` is cached).
_SOLVED: list = []
SOLVED_KEPT = 4


def _optimal(space: CodeSpace, matrix: np.ndarray, depth_limit: int | None):
    for entry in _SOLVED:
        if entry[0] is space and entry[1] is matrix and entry[2] == depth_limit:
            return entry[3]
    result = _search_and_build(space, matrix, depth_limit)
    _SOLVED.append((space, matrix, depth_limit, result))
    del _SOLVED[:-SOLVED_KEPT]
    return result


def optimal_tree(space: CodeSpace, matrix: np.ndarray, depth_limit: int | None = None
                 ) -> DecisionTree:
    """The optimal-in-expectation decision tree (cached per process).

    ``matrix`` is the response matrix of ``space``, or ``(0, 0)`` to compute
    feedback on the fly (the ``--max-matrix-bytes`` choice of the caller).
    """
    return _optimal(space, matrix, depth_limit)[1]


def optimal_cost(space: CodeSpace, matrix: np.ndarray, depth_limit: int | None = None) -> int:
    """Least total guesses over all secrets (``depth_limit``: most guesses per secret)."""
    return _optimal(space, matrix, depth_limit)[0]
