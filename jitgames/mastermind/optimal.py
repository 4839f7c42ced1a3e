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
- branch and bound: every candidate is estimated by ``|C| + sum lb(|C_f|)``, all at
  once (:func:`tally_classes`; up to ``b + 1`` codes, where ``lb(s) = 2s - 1``, from
  one bit mask of answers per guess, :func:`answer_masks`, which also decides the
  fast cases); candidates are tried by increasing ``(estimate, code)`` and cut as soon
  as the estimate reaches the best total. Before a candidate is searched its
  estimate is sharpened with the fast case of its classes (a class that no member
  splits apart costs at least ``2s``); its classes are then searched smallest first,
  each with the remaining budget (the small ones raise the total cheaply, so the
  large ones, which cost most, get the tightest budget); the search stops at a
  candidate attaining the floor;
- symmetry: only the smallest code of each orbit under the colour and position
  permutations fixing every guess so far is tried (never-guessed colours are
  interchangeable, so a candidate must use them smallest first; position
  permutations with their colour maps are checked whenever any fixes the history);
  colours that no code of ``C`` uses answer alike wherever they stand, so only the
  smallest of them is used by candidates (:mod:`.symmetry` shows why the filters
  combine);
- a cache (64-bit hash of the consistent set and the depth left -> exact value and
  its guess, or a lower bound) shares sub-problems, and lets the tree be built from
  the search without searching again (the recorded guess is the first candidate in
  ``(estimate, code)`` order attaining the cost, whoever searched it). It is an
  open-addressing table of fixed size (:func:`cache_get`, :func:`cache_put`) that
  may forget an entry when full: that costs only time. A hash collision could in
  principle corrupt a value; with 63-bit keys and at most millions of entries its
  probability is below 1e-6, and the tests check the results against a cache-free
  brute force.

The guess chosen at each node of the exported tree is the first candidate (in the
search order) that attains the optimal cost, or the one a fast case names.
"""
from __future__ import annotations

import threading
import time
from typing import NamedTuple

import numpy as np

from ..errors import InputError
from .._bits import popcount
from .._interrupt import run_interruptible
from .._jit import jit, thread_count
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
# A cache entry packs (guess + 1) << GUESS_SHIFT | value << 1 | exact; guess + 1 = 0
# for a lower bound, or when the code does not fit (spaces of 2 ** 21 codes or more).
GUESS_SHIFT = 42
VALUE_MASK = (1 << (GUESS_SHIFT - 1)) - 1
PARTS_SHIFT = 32  # in ``Search.sums``: the number of classes above this bit
MERGE_AFTER_SECONDS = 0.5  # a node searched longer shares its workers' caches
CACHE_PROBES = 16  # slots looked at for a key before the table is taken as full there
CACHE_SLOTS_PER_CODE = 256  # default table size (a power of two at least this * n) ...
MAX_CACHE_SLOTS = 1 << 24  # ... up to 16 Mi slots (256 MiB) per worker


class Search(NamedTuple):
    """The state one search shares between its levels (see :class:`OptimalSearch`)."""

    history: np.ndarray  # int64 (levels,): the guess made at each level of the path
    perms: np.ndarray  # int64 (k, pegs): position permutations tried as symmetries
    lb: np.ndarray  # int64 (n + 1,): lower bound of the cost of m codes
    cap: np.ndarray  # int64 (UNLIMITED + 1,): most codes solvable within d guesses
    answers: np.ndarray  # int64: the answers other than "solved" that can occur
    buffers: np.ndarray  # int32 (levels, n): the classes of the guess tried at a level
    order_keys: np.ndarray  # int64 (levels, n, 2): (estimate, guess) of the candidates
    cache: np.ndarray  # int64 (slots, 2): (set hash, packed entry) rows (see cache_put)
    stop: np.ndarray  # int64 (1,): set to 1 (by another thread) to stop the search
    steps: np.ndarray  # int64 (n + 1,): lb[c + 1] - lb[c], plus 1 << PARTS_SHIFT for c = 0
    tally: np.ndarray  # uint16 (uint32 from 2**16 codes) (n * slots,): class sizes of
    # every guess (zero between uses)
    sums: np.ndarray  # int64 (n,): per guess, the sum of ``steps`` over its members
    masks: np.ndarray  # uint64 (n,): per guess, the answers it gets (bit f: answer f)
    guesses: np.ndarray  # int64 (n,): the guesses whose classes are tallied


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


@jit(leaf=True)
def set_hash(members, start, end, remaining):
    """63-bit key (never 0) of a consistent set (its increasing members) and the depth
    left."""
    h = mix64(np.uint64(remaining) + GOLDEN)
    for t in range(start, end):
        h = mix64(h ^ np.uint64(members[t]) + GOLDEN)
    return max(np.int64(h >> np.uint64(1)), np.int64(1))  # 0 marks a free cache slot


@jit(leaf=True)
def splits_apart_any(tables, members, start, end, only_members, seen):
    """A guess (a member if ``only_members``) answering every member differently, or -1.

    ``seen`` is int64 scratch of ``(pegs + 1) ** 2`` slots (marked with ``j + 1``).
    """
    matrix, digits, pegs = tables.matrix, tables.digits, tables.pegs
    seen[:] = 0
    n_cand = end - start if only_members else digits.shape[0]
    absent = 0  # colours no member uses: only their smallest-first use is tried
    colours = tables.counts.shape[1]
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
                f = response(tables, g, members[t])
            if seen[f] == j + 1:
                ok = False
                break
            seen[f] = j + 1
        if ok:
            return g
    return -1


class Filters(NamedTuple):
    """The symmetries of one node that let candidates be skipped (see :mod:`.symmetry`)."""

    absent: int  # bit mask of the colours no member uses
    repeats: bool  # codes may repeat a colour
    all_used: bool  # every colour has been guessed on the path
    group: np.ndarray  # int64 (k, pegs): position permutations fixing the history
    maps: np.ndarray  # int64 (k, colours): their colour maps


class NodeScratch(NamedTuple):
    """Scratch arrays of one node of the search."""

    count: np.ndarray  # int64 (slots,): class sizes of the candidate being estimated
    row: np.ndarray  # int64 (slots,): class sizes of the candidate being tried
    class_end: np.ndarray  # int64 (slots,): where each class starts in the level buffer
    class_lb: np.ndarray  # int64 (slots,): lower bound of each class
    done: np.ndarray  # bool (slots,): classes already searched
    seen: np.ndarray  # int64 (slots,): scratch of the split-apart tests
    image: np.ndarray  # int64 (pegs,): scratch of the orbit test
    relabel: np.ndarray  # int64 (colours,): scratch of the orbit test


@jit
def new_node_scratch(pegs, colours, seen):
    """A :class:`NodeScratch` for codes of ``pegs`` pegs and ``colours`` colours, with
    the caller's ``seen`` (allocated first: most nodes need no more than that)."""
    slots = (pegs + 1) * (pegs + 1)
    return NodeScratch(np.zeros(slots, dtype=np.int64), np.zeros(slots, dtype=np.int64),
                       np.zeros(slots, dtype=np.int64), np.zeros(slots, dtype=np.int64),
                       np.zeros(slots, dtype=np.bool_), seen,
                       np.empty(pegs, dtype=np.int64), np.empty(colours, dtype=np.int64))


@jit
def node_filters(tables, src, start, end, level, used, history, perms):
    """The :class:`Filters` of the node ``src[start:end]`` reached by ``history[:level]``
    (``perms``: the position permutations tried)."""
    digits = tables.digits
    colours = tables.counts.shape[1]
    group, maps = history_group(digits, used, colours, history, level, perms)
    absent = ~present_colours(digits, src, start, end) & ((1 << colours) - 1)
    return Filters(absent, repeats_allowed(digits.shape[0], tables.pegs, colours),
                   all_colours_used(used), group, maps)


@jit(leaf=True)
def tally_classes(matrix, src, start, end, steps, guesses, n_guesses, tally, sums):
    """Class sizes of the guesses ``guesses[:n_guesses]`` at once: ``tally[g * slots + f]``
    += the members of ``src[start:end]`` answering ``f`` to ``g``, and ``sums[g]``
    (zeroed first) += ``steps[size]`` per member as its class grows (so ``sums``
    collects ``sum_f lb(size_f)`` and, above PARTS_SHIFT, the number of classes).

    The response matrix is symmetric (feedback is), so row ``s`` holds the answers of
    secret ``s`` to every guess: the members' rows are read in order, and the tally
    stays in cache, where reading one guess's row at the members' columns would jump
    through the whole matrix. ``tally`` must be zero on entry; :func:`clear_tally`
    zeroes it again.
    """
    n = matrix.shape[0]
    slots = tally.shape[0] // n
    for j in range(n_guesses):
        sums[guesses[j]] = 0
    for t in range(start, end):
        row = matrix[src[t]]
        for j in range(n_guesses):
            g = guesses[j]
            i = g * slots + np.int64(row[g])
            size = tally[i]
            tally[i] = size + 1
            sums[g] += steps[size]


@jit(leaf=True)
def clear_tally(matrix, src, start, end, guesses, n_guesses, tally):
    """Zero the entries of ``tally`` that :func:`tally_classes` set for these members."""
    n = matrix.shape[0]
    slots = tally.shape[0] // n
    for t in range(start, end):
        row = matrix[src[t]]
        for j in range(n_guesses):
            g = guesses[j]
            tally[g * slots + np.int64(row[g])] = 0


@jit(leaf=True)
def canonical(tables, g, filters, used, scratch):
    """Whether no symmetry filter of the node (:class:`Filters`) drops the code ``g``."""
    digits = tables.digits
    colours = tables.counts.shape[1]
    if filters.absent != 0 and not absent_canonical(digits[g], filters.absent, filters.repeats):
        return False
    if not filters.all_used and not free_colours_canonical(digits[g], used, colours):
        return False
    if filters.group.shape[0] > 1 and not orbit_minimal(digits, used, colours, filters.group,
                                                        filters.maps, g, scratch.image,
                                                        scratch.relabel):
        return False
    return True


@jit(leaf=True)
def answer_masks(matrix, src, start, end, masks):
    """``masks[g]``: bit ``f`` set when some member of ``src[start:end]`` answers ``f`` to
    guess ``g`` (feedback slots < 64). Reads the members' rows of the symmetric
    response matrix in order, like :func:`tally_classes`."""
    n = matrix.shape[0]
    masks[:] = 0
    one = np.uint64(1)
    for t in range(start, end):
        row = matrix[src[t]]
        for g in range(n):
            masks[g] |= one << np.uint64(row[g])


@jit
def list_candidates(tables, src, start, end, remaining, bound, level, used, search, filters,
                    scratch, masks_ready):
    """The candidates of the node ``src[start:end]`` whose estimate is below ``bound``,
    as ``(estimate, guess)`` rows in code order into ``search.order_keys[level]``;
    returns their number (``masks_ready``: :func:`fast_case` has left this node's
    answer masks in ``search.masks``). Candidates are the codes that divide the set
    and leave no class too large for ``remaining - 1`` guesses; the estimate is
    ``m + sum lb(class sizes)``.

    Codes that a symmetry filter drops (:func:`canonical`) may remain in the list when
    the estimate came from the answer masks alone (checking each code would cost
    more than the estimate): the caller skips them when they come up. Their
    equivalent code is smaller and has the same estimate, so it comes first in
    ``(estimate, code)`` order either way."""
    keys = search.order_keys[level]
    cap_next = search.cap[remaining - 1]
    n = tables.digits.shape[0]
    n_cand = 0
    if tables.matrix.shape[0] == 0:
        # No response matrix: each code that no symmetry filter drops is estimated from
        # its class sizes, its answers computed one by one. (Written here, not in a
        # kernel of its own: every kernel level costs compile time.)
        lb, answers, count = search.lb, search.answers, scratch.count
        solved = tables.pegs * (tables.pegs + 1)
        for g in range(n):
            if not canonical(tables, g, filters, used, scratch):
                continue
            for t in range(start, end):
                count[response(tables, g, src[t])] += 1
            parts = 1 if count[solved] > 0 else 0
            count[solved] = 0
            estimate = end - start
            largest = 0
            for i in range(answers.shape[0]):  # the answers other than "solved" that occur
                size = count[answers[i]]
                count[answers[i]] = 0
                estimate += lb[size]
                largest = max(largest, size)
                parts += size > 0
            # a code dividing nothing, or leaving a class too large for the guesses left
            if parts <= 1 or largest > cap_next or estimate >= bound:
                continue
            keys[n_cand, 0], keys[n_cand, 1] = estimate, g
            n_cand += 1
        return n_cand
    m = end - start
    solved = tables.pegs * (tables.pegs + 1)
    lb, tally, sums, masks = search.lb, search.tally, search.sums, search.masks
    slots = tally.shape[0] // n
    with_masks = (tables.pegs + 1) ** 2 <= 64  # (the matrix is there) see answer_masks
    if with_masks and not masks_ready:
        answer_masks(tables.matrix, src, start, end, masks)
    if with_masks and lb[m] == 2 * m - 1:
        # Up to b + 1 codes every class of s codes has lb(s) = 2s - 1, so the estimate
        # m + sum lb is 3m - [g is a member] - (number of classes): the mask alone.
        for g in range(n):
            parts = popcount(masks[g])
            member = np.int64((masks[g] >> np.uint64(solved)) & np.uint64(1))
            estimate = 3 * m - member - parts
            # a class too large for the guesses left: with m <= b + 1 only cap_next = 1
            if parts <= 1 or estimate >= bound or (m > cap_next and parts != m):
                continue
            keys[n_cand, 0], keys[n_cand, 1] = estimate, g
            n_cand += 1
        return n_cand
    # Larger sets: the masks give each guess its number of classes, hence a lower
    # bound of its estimate (classes as equal as possible); only the guesses it does
    # not cut are tallied.
    guesses = search.guesses
    n_guesses = 0
    for g in range(n):
        if with_masks:
            parts = popcount(masks[g])
            member = np.int64((masks[g] >> np.uint64(solved)) & np.uint64(1))
            if parts <= 1:
                continue
            # least sum lb(s_i) over the parts - member non-empty classes of the m - member
            # codes: the classes as equal as possible (lb is convex: its steps never shrink)
            total, classes = m - member, parts - member
            q, r = total // classes, total % classes
            if m + r * lb[q + 1] + (classes - r) * lb[q] >= bound:
                continue
        if canonical(tables, g, filters, used, scratch):
            guesses[n_guesses] = g
            n_guesses += 1
    tally_classes(tables.matrix, src, start, end, search.steps, guesses, n_guesses, tally, sums)
    low = (np.int64(1) << PARTS_SHIFT) - 1
    answers = search.answers
    for j in range(n_guesses):
        g = guesses[j]
        parts = sums[g] >> PARTS_SHIFT
        # lb(1) = 1 was counted for the solved class of a member, which costs nothing
        estimate = m + (sums[g] & low) - np.int64(tally[g * slots + solved])
        if parts <= 1 or estimate >= bound:
            continue
        if m > cap_next:
            largest = 0
            for i in range(answers.shape[0]):
                largest = max(largest, np.int64(tally[g * slots + answers[i]]))
            if largest > cap_next:
                continue
        keys[n_cand, 0], keys[n_cand, 1] = estimate, g
        n_cand += 1
    clear_tally(tables.matrix, src, start, end, guesses, n_guesses, tally)
    return n_cand


@jit
def root_candidates(tables, src, start, end, remaining, level, used, search):
    """All candidates of the node ``src[start:end]`` into ``search.order_keys[level]``
    as ``(estimate, guess)`` rows sorted by estimate, then code (the order in which
    :func:`solve` tries them); returns their number."""
    scratch = new_node_scratch(tables.pegs, tables.counts.shape[1],
                               np.zeros((tables.pegs + 1) ** 2, dtype=np.int64))
    filters = node_filters(tables, src, start, end, level, used, search.history, search.perms)
    n_cand = list_candidates(tables, src, start, end, remaining, INFEASIBLE + 1, level, used,
                             search, filters, scratch, False)
    keys = search.order_keys[level]
    kept = 0
    # (element by element: an array assigned to a slice compiles Numba's formatting of
    # its shape-mismatch message, seconds of compile time on first use)
    for i in range(n_cand):
        if canonical(tables, keys[i, 1], filters, used, scratch):
            keys[kept, 0], keys[kept, 1] = keys[i, 0], keys[i, 1]
            kept += 1
    n_cand = kept
    order = np.argsort(keys[:n_cand, 0] * tables.digits.shape[0] + keys[:n_cand, 1])
    ordered = np.empty((n_cand, 2), dtype=np.int64)
    for i in range(n_cand):
        ordered[i, 0], ordered[i, 1] = keys[order[i], 0], keys[order[i], 1]
    for i in range(n_cand):
        keys[i, 0], keys[i, 1] = ordered[i, 0], ordered[i, 1]
    return n_cand


@jit(leaf=True)
def fast_case(tables, src, start, end, remaining, masks, seen):
    """The fast exact cases of a node of ``m >= 2`` codes: ``(cost, guess)`` when one
    applies, else ``(floor, -1)`` with a lower bound ``floor`` of the cost
    (INFEASIBLE when none fits the depth). ``seen`` is scratch of the slots.

    When the node is read from answer masks (there is a response matrix, at most 64
    feedback slots and ``m`` at most their number) and no fast case applies, leaves
    the answer masks of the node in ``masks`` (for :func:`list_candidates`).

    Playing a member that leaves one pair and otherwise single codes costs
    ``m + 3 + (m - 3) = 2m``, the least possible once no guess splits the set apart.
    (The cases are written out here, not in kernels of their own: every level of kernel
    calls costs compile time.)"""
    m = end - start
    slots = (tables.pegs + 1) ** 2
    if tables.matrix.shape[0] > 0 and slots <= 64 and m <= slots:  # by the masks
        # most small sets are split apart by a member: m * m answers, not m * n
        g = splits_apart_any(tables, src, start, end, True, seen)
        if g >= 0:
            return 2 * m - 1, g
        answer_masks(tables.matrix, src, start, end, masks)
        # the same guesses, read from the answer masks of every guess: a member gets
        # its own answer "solved", so it splits the m codes apart when it gets m
        # answers, and leaves one pair when it gets m - 1
        for g in range(masks.shape[0]):
            if popcount(masks[g]) == m:
                return 2 * m, np.int64(g)
        if remaining < 3:
            return INFEASIBLE, np.int64(-1)
        for t in range(start, end):
            if popcount(masks[src[t]]) == m - 1:
                return 2 * m, np.int64(src[t])
        return 2 * m + 1, np.int64(-1)
    floor = 0
    if m <= seen.shape[0]:
        g = splits_apart_any(tables, src, start, end, True, seen)
        if g >= 0:
            return 2 * m - 1, g
        g = splits_apart_any(tables, src, start, end, False, seen)
        if g >= 0:
            return 2 * m, g
        if remaining < 3:  # two guesses solve m >= 2 codes only by splitting them apart
            return INFEASIBLE, -1
        matrix = tables.matrix
        solved = tables.pegs * (tables.pegs + 1)
        for j in range(start, end):  # a member leaving one pair and single codes
            g = np.int64(src[j])
            seen[:] = 0
            pairs = 0
            for t in range(start, end):
                if matrix.shape[0] > 0:
                    f = np.int64(matrix[g, src[t]])
                else:
                    f = response(tables, g, src[t])
                seen[f] += 1
                if f != solved and seen[f] == 2:
                    pairs += 1
                if seen[f] > 2 or pairs > 1:
                    break
            else:
                if pairs == 1:
                    return 2 * m, g
        floor = 2 * m + 1
    return floor, -1


@jit
def solve(tables, src, start, end, remaining, bound, level, used, search, only):
    """Least total guesses for the codes ``src[start:end]`` within ``remaining`` guesses.

    Returns the exact cost when it is below ``bound``, else some value >= ``bound``
    (a lower bound; INFEASIBLE when no strategy fits the depth). ``used`` marks the
    colours guessed on the path (``search.history[:level]``). With ``only >= 0`` the
    cost of guessing ``only`` first is returned instead (same bound rule; one
    candidate of :meth:`OptimalSearch.best`). Once ``search.stop[0]`` is set (by
    another thread) every call returns INFEASIBLE at its next step: the result and
    the cache are then meaningless and must be dropped.

    Candidates are tried by increasing ``(estimate, code)``, so the guess recorded
    with an exact value is the first candidate in that order attaining the cost: a
    function of the node alone, whatever the bound, the cache or the thread.

    (The search of a candidate's classes is written here, not in a helper, because
    Numba's cache cannot reload mutually recursive kernels.)
    """
    lb, cache, stop = search.lb, search.cache, search.stop
    if stop[0] != 0:
        return INFEASIBLE
    m = end - start
    pegs = tables.pegs
    n_slots = (pegs + 1) * (pegs + 1)
    solved = pegs * (pegs + 1)
    if only < 0:
        if m > search.cap[remaining]:
            return INFEASIBLE
        if m == 1:
            return 1
        if lb[m] >= bound:
            return lb[m]
    seen = np.zeros(n_slots, dtype=np.int64)
    key = set_hash(src, start, end, remaining)
    floor = lb[m]  # a lower bound of the node's cost
    if only < 0:
        known = cache_get(cache, key)
        if known >= 0:
            value = (known >> 1) & VALUE_MASK
            if known & 1 == 1 or value >= bound:
                return value
            floor = max(floor, value)
        cost, g = fast_case(tables, src, start, end, remaining, search.masks, seen)
        if g >= 0 or cost >= INFEASIBLE:
            return cost
        floor = max(floor, cost)
        if floor >= bound:
            return floor
    scratch = new_node_scratch(pegs, tables.counts.shape[1], seen)
    keys = search.order_keys[level]
    filters = node_filters(tables, src, start, end, level, used, search.history, search.perms)
    if only >= 0:
        n_cand = 1
        keys[0, 0], keys[0, 1] = 0, only
    else:
        n_cand = list_candidates(tables, src, start, end, remaining, bound, level, used,
                                 search, filters, scratch,
                                 # whether fast_case left the answer masks (its rule)
                                 tables.matrix.shape[0] > 0 and n_slots <= 64 and m <= n_slots)
    out = search.buffers[level]
    row, class_end, class_lb, done = scratch.row, scratch.class_end, scratch.class_lb, scratch.done
    new_used = used.copy()
    best = bound
    best_guess = -1
    estimate = -1  # candidates are taken by (estimate, code): those of this estimate
    j = n_cand  # from keys[j] on, then the next larger estimate from the start
    while True:
        if stop[0] != 0:
            return INFEASIBLE
        while j < n_cand and keys[j, 0] != estimate:
            j += 1
        if j == n_cand:
            larger = INFEASIBLE
            for i in range(n_cand):
                if estimate < keys[i, 0] < larger:
                    larger = keys[i, 0]
            estimate, j = larger, 0
            if estimate >= best or estimate == INFEASIBLE:  # none left
                break
            continue
        if estimate >= best:
            break
        g = keys[j, 1]
        j += 1
        if only < 0 and not canonical(tables, g, filters, used, scratch):
            continue
        # Sharpen the estimate of g: split the node by its answers into out[0:m] (class
        # f at out[class_end[f]:class_end[f] + row[f]]) and bound each class by lb of
        # its size, or 2s for a class of s >= 3 codes that no member splits apart.
        row[:] = 0
        for t in range(start, end):
            row[response(tables, g, src[t])] += 1
        class_end[0] = row[0]
        for f in range(1, n_slots):
            class_end[f] = class_end[f - 1] + row[f]
        for t in range(end - 1, start - 1, -1):
            f = response(tables, g, src[t])
            class_end[f] -= 1
            out[class_end[f]] = src[t]
        sharper = m
        for f in range(n_slots):
            size = row[f]
            class_lb[f] = lb[size]
            if f != solved and 3 <= size <= n_slots and lb[size] < 2 * size:
                lo = class_end[f]
                if splits_apart_any(tables, out, lo, lo + size, True, scratch.seen) < 0:
                    class_lb[f] = 2 * size
            if f != solved:
                sharper += class_lb[f]
        if sharper >= best:
            continue
        # Search the classes of g, smallest first: their exact costs raise the total
        # cheaply, so the large classes, which cost most to search, get the tightest
        # budget (best total minus what the others are known to cost at least).
        search.history[level] = g
        for c in range(used.shape[0]):  # (not new_used[:] = used: see root_candidates)
            new_used[c] = used[c]
        for i in range(pegs):
            new_used[tables.digits[g, i]] = True
        total = sharper
        done[:] = False
        done[solved] = True
        while total < best:
            f_small, size_small = -1, m + 1
            for f in range(n_slots):
                if not done[f] and 0 < row[f] < size_small:
                    f_small, size_small = f, row[f]
            if f_small < 0:
                break
            done[f_small] = True
            lo = class_end[f_small]
            total -= class_lb[f_small]
            # np.int64(-1), not -1: a literal argument would make Numba compile a
            # second version and recurse between the two, which its cache cannot reload
            total += solve(tables, out, lo, lo + size_small, remaining - 1, best - total,
                           level + 1, new_used, search, np.int64(-1))
        if total < best:
            best, best_guess = total, g
            if best <= floor and only < 0:
                break
    if only >= 0:
        return best
    if best < bound:
        recorded = best_guess + 1 if best_guess + 1 < (1 << (62 - GUESS_SHIFT)) else 0
        cache_put(cache, key, (recorded << GUESS_SHIFT) | (best << 1) | 1)
    else:
        # (at most INFEASIBLE: the bound must fit below the guess bits of the entry)
        cache_put(cache, key, min(max(best, floor), INFEASIBLE) << 1)
    return best


@jit(leaf=True)
def cached_choice(cache, key):
    """``(value, guess)`` of an exact entry of ``cache`` with its guess, else ``(-1, -1)``."""
    known = cache_get(cache, key)
    if known < 0 or known & 1 == 0 or known >> GUESS_SHIFT == 0:
        return -1, -1
    return (known >> 1) & VALUE_MASK, (known >> GUESS_SHIFT) - 1


@jit(leaf=True)
def cache_get(cache, key):
    """The entry of ``key`` (> 0) in the table ``cache``, or -1."""
    mask = cache.shape[0] - 1
    i = key & mask
    for _ in range(CACHE_PROBES):
        if cache[i, 0] == key:
            return cache[i, 1]
        if cache[i, 0] == 0:
            return np.int64(-1)
        i = (i + 1) & mask
    return np.int64(-1)


@jit(leaf=True)
def cache_put(cache, key, entry):
    """Set the entry of ``key`` (> 0): in its slot or the first free one of the
    CACHE_PROBES slots from ``key mod size``; when none is free, in the first slot,
    forgetting the entry there (probes never stop at a taken slot, so the others
    stay reachable)."""
    mask = cache.shape[0] - 1
    i = key & mask
    for _ in range(CACHE_PROBES):
        if cache[i, 0] == key or cache[i, 0] == 0:
            cache[i, 0], cache[i, 1] = key, entry
            return
        i = (i + 1) & mask
    i = key & mask
    cache[i, 0], cache[i, 1] = key, entry


@jit(leaf=True)
def merge_cache(into, other):
    """Add the entries of cache ``other`` to ``into`` (exact values win, else the larger
    lower bound); both hold only true values, so any merge order gives a valid cache."""
    for i in range(other.shape[0]):
        key, entry = other[i, 0], other[i, 1]
        if key == 0:
            continue
        mine = cache_get(into, key)
        if mine < 0 or (entry & 1 == 0 and mine & 1 == 0 and entry > mine) or (
                entry & 1 == 1 and mine & 1 == 0):
            cache_put(into, key, entry)


def _branches(pegs: int) -> int:
    return (pegs + 1) * (pegs + 2) // 2 - 2 if pegs > 1 else 1


def _answer_slots(pegs: int) -> np.ndarray:
    """The answers other than "solved" that can occur (int64 slot numbers)."""
    return np.array([b * (pegs + 1) + w for b in range(pegs + 1) for w in range(pegs + 1 - b)
                     if (b, w) != (pegs, 0) and (b, w) != (pegs - 1, 1)], dtype=np.int64)


class OptimalSearch:
    """Branch-and-bound search of one code space and depth limit, on ``workers`` threads.

    Each worker has its own :class:`Search` state (level buffers, cache); the lower
    bound tables and the stop flag are shared. :meth:`best` splits the candidates of
    its node across the workers with a shared best total (see there).
    ``cache_slots``: size of each worker's table of solved sets (rounded up to a power
    of two; default ``CACHE_SLOTS_PER_CODE`` per code, at most ``MAX_CACHE_SLOTS``).
    """

    def __init__(self, space: CodeSpace, matrix: np.ndarray, depth_limit: int | None,
                 workers: int | None = None, cache_slots: int | None = None):
        self.space, self.matrix = space, matrix
        self.tables = space.tables(matrix)
        self.remaining = UNLIMITED if depth_limit is None else int(depth_limit)
        self.workers = max(1, thread_count() if workers is None else int(workers))
        n, pegs = space.size, space.pegs
        levels = min(self.remaining, n) + 8
        self.lb = lower_bounds(n, _branches(pegs))
        self.cap = capacities(_branches(pegs), n)
        perms, answers = position_permutations(pegs), _answer_slots(pegs)
        self.stop = np.zeros(1, dtype=np.int64)  # set to 1 to make the search stop
        steps = np.zeros(n + 1, dtype=np.int64)
        steps[:n] = self.lb[1:] - self.lb[:-1]
        steps[0] += 1 << PARTS_SHIFT
        tally_size = n * (pegs + 1) ** 2 if matrix.shape[0] > 0 else 0
        tally_type = np.uint16 if n < 1 << 16 else np.uint32  # a class holds up to n codes
        if cache_slots is None:
            cache_slots = min(CACHE_SLOTS_PER_CODE * n, MAX_CACHE_SLOTS)
        slots = 1 << max(int(cache_slots) - 1, CACHE_PROBES).bit_length()  # a power of two
        self.states = [
            Search(np.zeros(levels, dtype=np.int64), perms, self.lb, self.cap, answers,
                   np.zeros((levels, n), dtype=np.int32), np.zeros((levels, n, 2), np.int64),
                   np.zeros((slots, 2), dtype=np.int64), self.stop,
                   steps, np.zeros(tally_size, dtype=tally_type), np.zeros(n, dtype=np.int64),
                   np.zeros(n, dtype=np.uint64), np.zeros(n, dtype=np.int64))
            for _ in range(self.workers)]

    def best(self, members: np.ndarray, remaining: int, used: np.ndarray, history):
        """(cost, guess) for a consistent set; ``history`` the guesses that led to it.

        The guess is a function of the node alone (never of the thread count or of
        what the caches hold): a fast case's guess, else the first candidate in the
        order of :func:`root_candidates` that attains the cost. A node some worker
        has solved exactly is read from its cache (:func:`solve` records that same
        guess). Otherwise the candidates are handed out in that order to the
        workers; candidate ``i`` is searched with the bound ``best + 1`` if ``i``
        precedes the best one found so far, else ``best``, so the least ``(cost, i)``
        is found exactly whatever the interleaving. ``cost`` is INFEASIBLE or more
        when no strategy fits ``remaining`` guesses.

        Raises KeyboardInterrupt when ``self.stop[0]`` was set (Ctrl-C, see
        :func:`jitgames._interrupt.run_interruptible`); the search object is then
        unusable (its caches may hold cut-off values).
        """
        level = len(history)
        for state in self.states:
            state.history[:level] = history
        src = np.ascontiguousarray(members, dtype=np.int32)
        m = src.size
        if m == 1:
            return 1, int(src[0])
        if m > self.cap[remaining]:
            return INFEASIBLE, -1
        seen = np.zeros((self.space.pegs + 1) ** 2, dtype=np.int64)
        floor, guess = fast_case(self.tables, src, 0, m, remaining, self.states[0].masks,
                                 seen)
        if guess >= 0 or floor >= INFEASIBLE:
            return int(floor), int(guess)
        floor = max(floor, int(self.lb[m]))
        key = set_hash(src, 0, m, remaining)
        for state in self.states:
            value, guess = cached_choice(state.cache, key)
            if value >= 0:
                return int(value), int(guess)
        first = self.states[0]
        n_cand = root_candidates(self.tables, src, 0, m, remaining, level, used, first)
        keys = first.order_keys[level, :n_cand].copy()
        started = time.perf_counter()
        cost, index = self._least(keys, src, remaining, level, used, floor)
        if self.stop[0] != 0:
            raise KeyboardInterrupt
        if self.workers > 1 and time.perf_counter() - started > MERGE_AFTER_SECONDS:
            self._share_caches()
        return cost, (int(keys[index, 1]) if cost < INFEASIBLE else -1)

    def _least(self, keys, src, remaining, level, used, floor):
        """The least ``(cost, i)`` over the candidates ``keys`` (see :meth:`best`).

        With several workers the first candidate is searched class by class across
        them: until some total is known nothing prunes its classes, so they are
        independent (searching candidates side by side instead would leave the
        others without a bound)."""
        lock = threading.Lock()
        n_cand = keys.shape[0]
        state = {"next": 0, "cost": INFEASIBLE, "index": n_cand}
        if self.workers > 1 and n_cand > 0:
            total = self._cost_by_classes(int(keys[0, 1]), src, remaining, level, used)
            if total < INFEASIBLE:
                state["cost"], state["index"] = total, 0
            state["next"] = 1

        def work(search):
            while True:
                with lock:
                    i, cost, index = state["next"], state["cost"], state["index"]
                    if i >= n_cand or keys[i, 0] > cost or (cost <= floor and i > index):
                        return
                    state["next"] = i + 1
                bound = cost + 1 if i < index else cost
                if keys[i, 0] >= bound:
                    continue
                total = solve(self.tables, src, 0, src.size, remaining, bound, level, used,
                              search, int(keys[i, 1]))
                with lock:
                    if total < bound and (total, i) < (state["cost"], state["index"]):
                        state["cost"], state["index"] = int(total), i

        self._on_workers(work)
        return state["cost"], state["index"]

    def _cost_by_classes(self, guess, src, remaining, level, used):
        """Exact cost of playing ``guess`` at the node ``src`` (INFEASIBLE or more when
        it cannot fit the depth), its classes handed out to the workers largest first."""
        space = self.space
        if self.matrix.shape[0]:
            answers = self.matrix[guess, src]
        else:
            answers = np.array([space.feedback(guess, s) for s in src])
        classes = sorted((np.ascontiguousarray(src[answers == f]) for f in np.unique(answers)
                          if f != space.solved), key=len, reverse=True)
        new_used = used.copy()
        new_used[space.digits[guess]] = True
        lock = threading.Lock()
        costs = []

        def work(search):
            search.history[level] = guess
            while True:
                with lock:
                    if not classes:
                        return
                    part = classes.pop(0)
                cost = solve(self.tables, part, 0, part.size, remaining - 1, INFEASIBLE + 1,
                             level + 1, new_used, search, np.int64(-1))
                with lock:
                    costs.append(int(cost))

        self._on_workers(work)
        return min(src.size + sum(costs), INFEASIBLE)

    def _on_workers(self, work):
        """Run ``work(search)`` on every worker's state, the first in this thread;
        an exception of any stops the others and is raised here."""
        errors = []

        def guarded(search):
            try:
                work(search)
            except BaseException as exc:  # handed to the calling thread
                errors.append(exc)
                self.stop[0] = 1

        helpers = [threading.Thread(target=guarded, args=(search,), daemon=True)
                   for search in self.states[1:]]
        for helper in helpers:
            helper.start()
        guarded(self.states[0])
        for helper in helpers:
            helper.join()
        if errors:
            raise errors[0]

    def _share_caches(self):
        """Give every worker the sub-results all the others found."""
        first = self.states[0].cache
        for other in self.states[1:]:
            merge_cache(first, other.cache)
        for other in self.states[1:]:
            merge_cache(other.cache, first)


def _search_and_build(space: CodeSpace, matrix: np.ndarray, depth_limit: int | None,
                      search: OptimalSearch | None = None):
    """``(total, tree)`` of the optimal strategy: :meth:`OptimalSearch.best` at every
    node of the tree, top down (``search``: a prepared search, e.g. with a chosen
    number of workers)."""
    if search is None:
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
