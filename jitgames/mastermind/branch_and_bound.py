"""The codebreaking strategy optimal in expectation: the branch-and-bound kernel.

``cost(C)`` is the least total number of guesses needed to solve every code of the
consistent set ``C`` (each guess counted once per secret it is made for):

    cost(C) = |C| + min over guesses g of  sum over answers f != solved  cost(C_f(g))

where ``C_f(g)`` are the codes of ``C`` answering ``f`` to ``g``; the whole game is
``cost(all codes)`` (5625 for 4 pegs and 6 colours, Koyama and Lai 1993). With a
depth limit ``D`` (``optimal-max5``: D = 5) a secret may take at most D guesses.

:func:`solve` searches one node, all cuts exact (bounds, estimates, fast cases and
symmetry filters: :mod:`.candidates`; the table of solved sets: :mod:`.solved_sets`):

- every candidate is estimated by ``|C| + sum lb(|C_f|)``, all at once; candidates
  are tried by increasing ``(estimate, code)`` and cut as soon as the estimate
  reaches the best total. Before a candidate is searched its estimate is sharpened
  with the fast case of its classes (a class that no member splits apart costs at
  least ``2s``), then with a bound one level deeper of each class of more than
  ``REFINE_ABOVE`` codes, largest class first, until the candidate is cut: first from
  the colours of the class alone (:func:`.candidates.colour_bound`, no row of the
  matrix read), then :func:`.candidates.set_bound` (the least estimate of any guess for
  that class; the bounds go into the table, where the class's own search finds them); its classes are then
  searched smallest first, each with the
  remaining budget (the small ones raise the total cheaply, so the large ones, which
  cost most, get the tightest budget); the search stops at a candidate attaining the
  node's floor;
- the table of solved sets (hash of the consistent set and the depth left -> exact
  value and its guess, or a lower bound) shares sub-problems, and lets the tree be
  built from the search without searching again (the recorded guess is the first
  candidate in ``(estimate, code)`` order attaining the cost, whoever searched it).

The drivers (:mod:`.optimal`: one node's candidates on threads, and the tree;
:mod:`.optimal_run`: jobs split below the root) call :func:`solve` with a
:class:`Search` state per thread.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._jit import jit
from .candidates import (INFEASIBLE, canonical, colour_bound, fast_case, list_candidates,
                         new_node_scratch, node_filters, set_bound, splits_apart_any)
from .codes import PACKED_LIMIT, feedback_packed, pack_code
from .engine import response
from .screen import Multisets
from .solved_sets import cache_put, lookup, pack_entry, set_hash

__all__ = ["Search", "solve", "REFINE_ABOVE"]

# What Search.counts counts (profiling: bench/mastermind_prune.py prints them): nodes
# whose candidates were listed and their codes; candidates sharpened, those cut by the
# sharpened estimate, by the bounds of set_bound, and those whose classes were searched;
# set_bound calls and their codes; guesses kept by set_bound's screen (whose answers it
# reads) and tallied by it; colour_bound calls and the candidates they cut.
COUNT_NAMES = ("nodes listed", "codes of nodes listed", "candidates sharpened",
               "cut by sharpening", "set bounds", "codes of set bounds", "cut by set bounds",
               "candidates searched", "guesses screened in by set bounds",
               "guesses tallied by set bounds", "colour bounds", "cut by colour bounds")
COUNTS = len(COUNT_NAMES)
# Classes of more codes get the bound of set_bound before a candidate is searched. Each
# such bound costs one pass over the class's rows of the response matrix; measured on
# 5 x 5, 4 x 7, 6 x 4 and 4 x 8 (bench/mastermind_prune.py), 5 was faster than 10, 20
# or 40 (more bounds, but far fewer nodes searched).
REFINE_ABOVE = 5


class Search(NamedTuple):
    """The state one search shares between its levels (see :class:`.optimal.OptimalSearch`)."""

    history: np.ndarray  # int64 (levels,): the guess made at each level of the path
    perms: np.ndarray  # int64 (k, pegs): position permutations tried as symmetries
    lb: np.ndarray  # int64 (n + 1,): lower bound of the cost of m codes
    cap: np.ndarray  # int64 (UNLIMITED + 1,): most codes solvable within d guesses
    answers: np.ndarray  # int64: the answers other than "solved" that can occur
    buffers: np.ndarray  # int32 (levels, n): the classes of the guess tried at a level
    order_keys: np.ndarray  # int64 (levels, n, 2): (estimate, guess) of the candidates
    cache: np.ndarray  # int64 (slots, 2): (set hash, packed entry) rows (see :mod:`.solved_sets`)
    stop: np.ndarray  # int64 (1,): set to 1 (by another thread) to stop the search
    steps: np.ndarray  # int64 (n + 1,): lb[c + 1] - lb[c], plus 1 << PARTS_SHIFT for c = 0
    tally: np.ndarray  # uint16 (uint32 from 2**16 codes) (n * slots,): class sizes of
    # every guess (zero between uses)
    sums: np.ndarray  # int64 (n,): per guess, the sum of ``steps`` over its members
    masks: np.ndarray  # uint32 (uint64 from 6 pegs) (n,): per guess, the answers it gets
    # (bit f: answer f)
    guesses: np.ndarray  # int64 (n,): the guesses whose classes are tallied
    counts: np.ndarray  # int64 (COUNTS,): what the search did (see COUNT_NAMES)
    by_parts: np.ndarray  # int64 (2, 65): scratch of the bounds by number of classes
    multisets: Multisets  # codes by multiset of colours, and the screen's scratch
    screened: np.ndarray  # int64 (n,): the guesses set_bound's screen keeps


@jit(inline=True)
def _largest_open_class(row, done, n_slots, solved):
    """``(f, size)``: the largest class ``row[f]`` above ``REFINE_ABOVE`` codes among the
    answers ``f < n_slots`` not ``done`` and not ``solved`` (the first of equals), or
    ``(-1, REFINE_ABOVE)`` when there is none: the next class whose bound the
    sharpening refines."""
    f_big, size_big = -1, REFINE_ABOVE
    for f in range(n_slots):
        if f != solved and not done[f] and row[f] > size_big:
            f_big, size_big = f, row[f]
    return f_big, size_big


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
        value, exact, _ = lookup(cache, key)
        if value >= 0:
            if exact or value >= bound:
                return value
            floor = max(floor, value)
        cost, g = fast_case(tables, src, start, end, remaining, search.masks, seen)
        if g >= 0 or cost >= INFEASIBLE:
            return cost
        floor = max(floor, cost)
        if floor >= bound:
            return floor
    counts = search.counts
    counts[0] += 1
    counts[1] += m
    scratch = new_node_scratch(pegs, tables.colours, seen)
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
    # The candidates' answers come from the members packed in words (a few word
    # operations each) rather than from the response matrix: g's row is read at
    # scattered columns, a cache miss per member, and this loop took most of the
    # search's time on 6 x 5 (bench/profile_kernels.py; docs/mastermind_optimal.md).
    answers = np.empty(m, dtype=np.int64)  # the answer of each member to the candidate
    packed = pegs <= PACKED_LIMIT and tables.colours <= PACKED_LIMIT
    positions = np.empty(m if packed else 0, dtype=np.uint64)
    colours = np.empty(m if packed else 0, dtype=np.uint64)
    for t in range(positions.shape[0]):
        positions[t], colours[t] = pack_code(tables.digits[src[start + t]],
                                             tables.counts[src[start + t]])
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
        if packed:
            g_positions, g_colours = pack_code(tables.digits[g], tables.counts[g])
            for t in range(m):
                f = feedback_packed(g_positions, g_colours, positions[t], colours[t], pegs)
                answers[t] = f
                row[f] += 1
        else:
            for t in range(m):
                f = response(tables, g, src[start + t])
                answers[t] = f
                row[f] += 1
        class_end[0] = row[0]
        for f in range(1, n_slots):
            class_end[f] = class_end[f - 1] + row[f]
        for t in range(end - 1, start - 1, -1):
            f = answers[t - start]
            class_end[f] -= 1
            out[class_end[f]] = src[t]
        sharper = m
        for f in range(n_slots):
            class_lb[f] = lb[row[f]]
            if f != solved:
                sharper += class_lb[f]
        # each class that no member splits apart adds one (2s against lb(s) = 2s - 1);
        # the tests stop once g is cut (its class bounds are then never read)
        for f in range(n_slots):
            if sharper >= best:
                break
            size = row[f]
            if f != solved and 3 <= size <= n_slots and lb[size] < 2 * size:
                lo = class_end[f]
                if splits_apart_any(tables, out, lo, lo + size, True, scratch.seen) < 0:
                    sharper += 2 * size - class_lb[f]
                    class_lb[f] = 2 * size
        counts[2] += 1
        if sharper >= best:
            counts[3] += 1
            continue
        for c in range(used.shape[0]):  # (not new_used[:] = used: see root_candidates)
            new_used[c] = used[c]
        for i in range(pegs):
            new_used[tables.digits[g, i]] = True
        # Refine the bound of each large class one level deeper: the estimate of its best
        # guess (set_bound), or first a lower bound of that from the colours alone.
        if m > REFINE_ABOVE:
            # First the colour bound of each large class (colour_bound: no row of the
            # matrix read, a few us), largest first, until g is cut: on the 984-code job
            # of 5 x 6 it cuts 305,000 of the 318,000 candidates that set_bound used to
            # cut, leaving 44,000 calls of set_bound instead of 453,000.
            done[:] = False
            while sharper < best:
                f_big, size_big = _largest_open_class(row, done, n_slots, solved)
                if f_big < 0:
                    break
                done[f_big] = True
                lo = class_end[f_big]
                counts[10] += 1
                value = colour_bound(tables, out, lo, lo + size_big,
                                     best - (sharper - class_lb[f_big]), search)
                if value > class_lb[f_big]:
                    sharper += value - class_lb[f_big]
                    class_lb[f_big] = value
            if sharper >= best:
                counts[11] += 1
                continue
            # Then the bound of set_bound, largest first, until g is cut or every one is
            # done (the bounds go into the table, where the class's own search finds them).
            done[:] = False
            while sharper < best:
                f_big, size_big = _largest_open_class(row, done, n_slots, solved)
                if f_big < 0:
                    break
                done[f_big] = True
                lo = class_end[f_big]
                child = set_hash(out, lo, lo + size_big, remaining - 1)
                value, exact, _ = lookup(cache, child)
                cap = best - (sharper - class_lb[f_big])
                if not exact and value < cap:
                    counts[4] += 1
                    counts[5] += size_big
                    refined = set_bound(tables, out, lo, lo + size_big, cap, search)
                    if refined > value:
                        cache_put(cache, child, pack_entry(min(refined, INFEASIBLE), False, -1))
                        value = refined
                if value > class_lb[f_big]:
                    sharper += value - class_lb[f_big]
                    class_lb[f_big] = value
            if sharper >= best:
                counts[6] += 1
                continue
        counts[7] += 1
        # Search the classes of g, smallest first: their exact costs raise the total
        # cheaply, so the large classes, which cost most to search, get the tightest
        # budget (best total minus what the others are known to cost at least).
        search.history[level] = g
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
        cache_put(cache, key, pack_entry(best, True, best_guess))
    else:
        # (at most INFEASIBLE: the bound must fit below the guess bits of the entry)
        cache_put(cache, key, pack_entry(min(max(best, floor), INFEASIBLE), False, -1))
    return best
