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
  one pair and single codes, gives the bound ``2m``;
- branch and bound: candidates sorted by ``|C| + sum lb(|C_f|)``, cut as soon as that
  reaches the best total; each class is searched with the remaining budget;
- symmetry: only the smallest code of each orbit under the colour and position
  permutations fixing every guess so far is tried (never-guessed colours are
  interchangeable, so a candidate must use them smallest first; position
  permutations with their colour maps are checked whenever any fixes the history);
- a cache (64-bit hash of the consistent set and the depth left -> exact value or
  lower bound) shares sub-problems. A hash collision could in principle corrupt a
  value; with 64-bit keys and at most millions of entries its probability is below
  1e-6, and the tests check the results against a cache-free brute force.

The guess chosen at each node of the exported tree is the first candidate (in the
search order) that attains the optimal cost.
"""
from __future__ import annotations

from functools import lru_cache
from itertools import permutations

import numpy as np
from numba import types
from numba.typed import Dict

from .._jit import jit
from .._random import GOLDEN, mix64
from .codes import CodeSpace
from .engine import response
from .tree import DecisionTree

__all__ = ["optimal_cost", "optimal_tree", "INFEASIBLE"]

INFEASIBLE = 1 << 40
UNLIMITED = 62  # depth "limit" meaning none


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
def free_colours_canonical(digits_row, used, colours):
    """Whether the never-guessed colours of a code appear smallest first, in order."""
    expect = 0
    while expect < colours and used[expect]:
        expect += 1
    for d in digits_row:
        if used[d]:
            continue
        if d > expect:
            return False
        if d == expect:
            expect += 1
            while expect < colours and used[expect]:
                expect += 1
    return True


@jit
def orbit_minimal(digits, used, colours, group, colour_maps, code, image, relabel):
    """Whether ``code`` is the smallest code of its orbit under the history's symmetries.

    ``group[e]`` is a position permutation and ``colour_maps[e]`` its colour map on
    the used colours (-1 elsewhere); never-used colours are relabelled smallest first.
    ``image`` (pegs) and ``relabel`` (colours) are int64 scratch.
    """
    pegs = digits.shape[1]
    for e in range(group.shape[0]):
        for i in range(pegs):
            image[group[e, i]] = digits[code, i]
        relabel[:] = -1
        nxt = 0
        while nxt < colours and used[nxt]:
            nxt += 1
        for i in range(pegs):
            c = image[i]
            if used[c]:
                image[i] = colour_maps[e, c]
            else:
                if relabel[c] < 0:
                    relabel[c] = nxt
                    nxt += 1
                    while nxt < colours and used[nxt]:
                        nxt += 1
                image[i] = relabel[c]
        for i in range(pegs):
            if image[i] != digits[code, i]:
                if image[i] < digits[code, i]:
                    return False
                break
    return True


@jit
def history_group(digits, used, colours, history, n_history, perms):
    """Position permutations (with colour maps) fixing every guess of the history."""
    pegs = digits.shape[1]
    keep = np.zeros(perms.shape[0], dtype=np.bool_)
    maps = np.full((perms.shape[0], colours), -1, dtype=np.int64)
    for e in range(perms.shape[0]):
        ok = True
        back = np.full(colours, -1, dtype=np.int64)
        for h in range(n_history):
            g = history[h]
            for i in range(pegs):
                a, b = digits[g, i], digits[g, perms[e, i]]
                if maps[e, a] < 0 and back[b] < 0:
                    maps[e, a], back[b] = b, a
                elif maps[e, a] != b or back[b] != a:
                    ok = False
                    break
            if not ok:
                break
        keep[e] = ok
    return perms[keep].copy(), maps[keep].copy()


@jit
def splits_apart_any(matrix, digits, counts, pegs, members, start, end, only_members,
                     seen):
    """A guess (a member if ``only_members``) answering every member differently, or -1."""
    n_cand = end - start if only_members else digits.shape[0]
    for j in range(n_cand):
        g = members[start + j] if only_members else j
        seen[:] = 0
        ok = True
        for t in range(start, end):
            if matrix.shape[0] > 0:
                f = np.int64(matrix[g, members[t]])
            else:
                f = response(matrix, digits, counts, pegs, g, members[t])
            if seen[f]:
                ok = False
                break
            seen[f] = 1
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
          used, history, perms, lb, cap, buffers, order_keys, cache, choice):
    """Least total guesses for the codes ``src[start:end]`` within ``remaining`` guesses.

    Returns the exact cost when it is below ``bound``, else some value >= ``bound``
    (a lower bound; INFEASIBLE when no strategy fits the depth). ``choice[level]``
    receives the best guess found (-1 if none beat the bound); at ``level == root``
    the search always runs, so the choice is known.
    """
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
        value, exact = known >> 1, known & 1
        if exact == 1 and level > root:
            return value
        if exact == 0 and value >= bound:
            return value
    seen = np.zeros(n_slots, dtype=np.int64)
    if m <= n_slots:
        g = splits_apart_any(matrix, digits, counts, pegs, src, start, end, True, seen)
        if g >= 0:
            choice[level] = g
            return 2 * m - 1
    if remaining >= 3 and m <= n_slots:
        g = splits_apart_any(matrix, digits, counts, pegs, src, start, end, False, seen)
        if g >= 0:
            choice[level] = g
            return 2 * m
    if remaining >= 3 and m <= n_slots + 1:
        g = one_pair_split(matrix, digits, counts, pegs, src, start, end, seen)
        if g >= 0:
            choice[level] = g
            return 2 * m
    # Candidates: orbit representatives of all codes, scored by their lower bound.
    colours = counts.shape[1]
    group_perms, group_maps = history_group(digits, used, colours, history, level, perms)
    symmetric = group_perms.shape[0] > 1
    keys = order_keys[level]
    has_matrix = matrix.shape[0] > 0
    image = np.empty(pegs, dtype=np.int64)
    relabel = np.empty(colours, dtype=np.int64)
    count = np.zeros(n_slots, dtype=np.int64)
    touched = np.empty(n_slots, dtype=np.int64)
    n_cand = 0
    for g in range(n):
        if not free_colours_canonical(digits[g], used, colours):
            continue
        if symmetric and not orbit_minimal(digits, used, colours, group_perms, group_maps,
                                           g, image, relabel):
            continue
        n_touched = 0
        for t in range(start, end):
            if has_matrix:
                f = np.int64(matrix[g, src[t]])
            else:
                f = response(matrix, digits, counts, pegs, g, src[t])
            if count[f] == 0:
                touched[n_touched] = f
                n_touched += 1
            count[f] += 1
        useful = n_touched > 1 or count[solved] > 0
        estimate = m
        feasible = True
        for i in range(n_touched):
            f = touched[i]
            if f != solved:
                estimate += lb[count[f]]
                if count[f] > cap[remaining - 1]:
                    feasible = False
            count[f] = 0
        if useful and feasible:
            keys[n_cand, 0] = estimate
            keys[n_cand, 1] = g
            n_cand += 1
    best = bound
    best_guess = -1
    out = buffers[level]
    row = np.zeros(n_slots, dtype=np.int64)
    class_end = np.zeros(n_slots, dtype=np.int64)
    done = np.zeros(n_slots, dtype=np.bool_)
    while True:
        # Next candidate by (estimate, code); most searches stop after a few.
        j = -1
        for i in range(n_cand):
            if keys[i, 0] < INFEASIBLE and (j < 0 or keys[i, 0] < keys[j, 0]):
                j = i
        if j < 0 or keys[j, 0] >= best:
            break
        estimate, g = keys[j, 0], keys[j, 1]
        keys[j, 0] = INFEASIBLE
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
        history[level] = g
        new_used = used.copy()
        for i in range(pegs):
            new_used[digits[g, i]] = True
        # Largest classes first: they decide most of the cost.
        total = estimate
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
            total -= lb[size_big]
            total += solve(matrix, digits, counts, pegs, out, lo, lo + size_big,
                           remaining - 1, best - total, level + 1, root, new_used, history,
                           perms, lb, cap, buffers, order_keys, cache, choice)
        if total < best:
            best, best_guess = total, g
    choice[level] = best_guess
    if best < bound:
        cache[key] = best * 2 + 1
    else:
        cache[key] = max(best, known >> 1 if known >= 0 else 0) * 2
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
        self.perms = np.array(list(permutations(range(pegs))), dtype=np.int64)
        self.buffers = np.zeros((levels, n), dtype=np.int32)
        self.keys = np.zeros((levels, n, 2), dtype=np.int64)
        self.history = np.zeros(levels, dtype=np.int64)
        self.choice = np.zeros(levels, dtype=np.int64)
        self.cache = Dict.empty(key_type=types.int64, value_type=types.int64)

    def best(self, members: np.ndarray, remaining: int, used: np.ndarray, history):
        """(cost, guess) for a consistent set; ``history`` the guesses that led to it."""
        level = len(history)
        self.history[:level] = history
        src = np.ascontiguousarray(members, dtype=np.int32)
        cost = solve(self.matrix, self.space.digits, self.space.counts, self.space.pegs,
                     src, 0, src.size, remaining, INFEASIBLE + 1, level, level, used,
                     self.history,
                     self.perms, self.lb, self.cap, self.buffers, self.keys,
                     self.cache, self.choice)
        return int(cost), int(self.choice[level])


def _search_and_build(space: CodeSpace, matrix: np.ndarray, depth_limit: int | None):
    search = OptimalSearch(space, matrix, depth_limit)
    rows = []
    n = space.size

    def node(members, remaining, used, history, parent, answer, depth):
        cost, guess = search.best(members, remaining, used, history)
        if cost >= INFEASIBLE:
            raise ValueError(f"no strategy solves every code within {depth_limit} guesses")
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

    total = node(np.arange(n, dtype=np.int32), search.remaining,
                 np.zeros(space.colours, dtype=np.bool_), [], -1, -1, 0)
    return total, DecisionTree(space, np.array(rows, dtype=np.int32).reshape(-1, 4))


@lru_cache(maxsize=4)
def _optimal(space: CodeSpace, depth_limit: int | None):
    from .evaluate import load_game
    matrix = load_game(space.pegs, space.colours, space.repeats)[1]
    return _search_and_build(space, matrix, depth_limit)


def optimal_tree(space: CodeSpace, matrix: np.ndarray, depth_limit: int | None = None
                 ) -> DecisionTree:
    """The optimal-in-expectation decision tree (cached per process)."""
    return _optimal(space, depth_limit)[1]


def optimal_cost(space: CodeSpace, matrix: np.ndarray, depth_limit: int | None = None) -> int:
    """Least total guesses over all secrets (``depth_limit``: most guesses per secret)."""
    return _optimal(space, depth_limit)[0]
