"""Bounds, symmetry filters, candidate estimates and fast cases of the optimal search.

The kernels :func:`.branch_and_bound.solve` calls at a node of ``m`` consistent codes
(see that module for the search itself):

- lower bounds: a node solves at most one secret and has at most ``b`` children
  (``b`` = answers other than "solved", :func:`branches`), so ``m`` secrets need at
  least ``lb(m) = sum_j j * min(left, b ** (j - 1))`` guesses (:func:`lower_bounds`),
  and at most ``1 + b + ... + b ** (D - 1)`` secrets fit in D guesses
  (:func:`capacities`);
- fast exact cases (:func:`fast_case`): ``m <= 2``; a consistent guess splitting the
  set apart gives ``2m - 1``; else any guess splitting it apart, or a consistent guess
  leaving one pair and single codes, gives ``2m``; when all fail the node costs at
  least ``2m + 1`` (its *floor*), and with two guesses left it is infeasible;
- candidate estimates ``m + sum lb(class sizes)`` of every guess at once
  (:func:`list_candidates`: from one bit mask of answers per guess,
  :func:`answer_masks`, up to ``b + 1`` codes, where ``lb(s) = 2s - 1``; else from a
  tally of class sizes, :func:`tally_classes`, of the guesses the masks do not cut);
- the bound of a set one level deeper (:func:`set_bound`): the least estimate of any
  guess, which the search gives each large class of a candidate before searching it
  (the guesses screened first by the colours of the set alone, :mod:`.screen`);
- symmetry (:func:`canonical`, :func:`node_filters`): only the smallest code of each
  orbit under the colour and position permutations fixing every guess so far is
  tried; colours no member uses answer alike wherever they stand, so only the
  smallest of them is used by candidates (:mod:`.symmetry` shows why the filters
  combine).

Several cases are written out inside one kernel rather than in kernels of their own:
every level of kernel calls costs compile time on first use.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._bits import popcount
from .._jit import jit
from .engine import response
from .screen import screen_bound, screen_guesses
from .symmetry import (absent_canonical, all_colours_used, free_colours_canonical,
                       history_group, orbit_minimal, present_colours)

__all__ = ["INFEASIBLE", "UNLIMITED", "PARTS_SHIFT", "branches", "answer_slots",
           "lower_bounds", "capacities", "Filters", "NodeScratch", "new_node_scratch",
           "node_filters", "splits_apart_any", "tally_classes", "clear_tally", "canonical",
           "answer_masks", "or_answer_rows", "gather_answer_masks", "list_candidates",
           "parts_bounds", "colour_bound", "set_bound", "root_candidates", "search_order",
           "fast_case"]

# set_bound gathers the answer masks of the screened guesses when they are at most
# 1 / GATHER_BELOW of all codes, else computes every code's mask from whole rows
GATHER_BELOW = 8
INFEASIBLE = 1 << 40  # a cost meaning "no strategy fits the guesses left"
UNLIMITED = 62  # depth "limit" meaning none
PARTS_SHIFT = 32  # in ``Search.sums``: the number of classes above this bit


def branches(pegs: int) -> int:
    """Answers other than "solved" that can occur (the bound tables' branching)."""
    return (pegs + 1) * (pegs + 2) // 2 - 2 if pegs > 1 else 1


def answer_slots(pegs: int) -> np.ndarray:
    """The answers other than "solved" that can occur (int64 slot numbers)."""
    return np.array([b * (pegs + 1) + w for b in range(pegs + 1) for w in range(pegs + 1 - b)
                     if (b, w) != (pegs, 0) and (b, w) != (pegs - 1, 1)], dtype=np.int64)


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
def splits_apart_any(tables, members, start, end, only_members, seen):
    """A guess (a member if ``only_members``) answering every member differently, or -1.

    ``seen`` is int64 scratch of ``(pegs + 1) ** 2`` slots (marked with ``j + 1``).
    """
    matrix, digits = tables.matrix, tables.digits
    seen[:] = 0
    n_cand = end - start if only_members else digits.shape[0]
    absent = 0  # colours no member uses: only their smallest-first use is tried
    colours = tables.colours
    if not only_members:
        absent = ~present_colours(digits, members, start, end) & ((1 << colours) - 1)
    for j in range(n_cand):
        g = members[start + j] if only_members else j
        if absent != 0 and not absent_canonical(digits[g], absent, tables.repeats):
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
    colours = tables.colours
    group, maps = history_group(digits, used, colours, history, level, perms)
    absent = ~present_colours(digits, src, start, end) & ((1 << colours) - 1)
    return Filters(absent, all_colours_used(used), group, maps)


@jit(leaf=True)
def tally_classes(matrix, src, start, end, steps, lb, guesses, n_guesses, tally, sums):
    """Class sizes of the guesses ``guesses[:n_guesses]`` at once: ``tally[j * slots + f]``
    += the members of ``src[start:end]`` answering ``f`` to ``g = guesses[j]``, and ``sums[g]``
    = ``sum_f lb(size_f)`` plus, above PARTS_SHIFT, the number of classes.

    The response matrix is symmetric (feedback is), so row ``s`` holds the answers of
    secret ``s`` to every guess: the members' rows are read in order, and the tally
    stays in cache, where reading one guess's row at the members' columns would jump
    through the whole matrix. The tally is indexed by the guess's place in the list,
    not its code, so it fills ``n_guesses * slots`` consecutive entries (in cache)
    and is zeroed again by one sweep over them (:func:`clear_tally`; it must be zero
    on entry).

    ``sums`` comes from whichever pass is shorter: for a set of fewer members than
    ``slots``, ``steps[size]`` (``lb[size + 1] - lb[size]``, plus ``1 << PARTS_SHIFT``
    for size 0) added per member as its class grows; for a larger one, ``lb`` of every
    class once the tally is done (the same sum: the steps of a class telescope to its
    ``lb``, ``lb[0]`` being 0).
    """
    n = matrix.shape[0]
    slots = tally.shape[0] // n
    if end - start < slots:
        for j in range(n_guesses):
            sums[guesses[j]] = 0
        for t in range(start, end):
            row = matrix[src[t]]
            for j in range(n_guesses):
                g = guesses[j]
                i = j * slots + np.int64(row[g])
                size = tally[i]
                tally[i] = size + 1
                sums[g] += steps[size]
        return
    for t in range(start, end):
        row = matrix[src[t]]
        for j in range(n_guesses):
            i = j * slots + np.int64(row[guesses[j]])
            tally[i] += 1
    one_class = np.int64(1) << PARTS_SHIFT
    for j in range(n_guesses):
        total = 0
        for f in range(j * slots, (j + 1) * slots):
            size = np.int64(tally[f])
            if size > 0:
                total += lb[size] + one_class
        sums[guesses[j]] = total


@jit(leaf=True)
def clear_tally(matrix, n_guesses, tally):
    """Zero the entries of ``tally`` that :func:`tally_classes` set for ``n_guesses``
    guesses (``matrix``: the response matrix, whose size gives the slots per guess)."""
    slots = tally.shape[0] // matrix.shape[0]
    for i in range(n_guesses * slots):
        tally[i] = 0


@jit(leaf=True)
def canonical(tables, g, filters, used, scratch):
    """Whether no symmetry filter of the node (:class:`Filters`) drops the code ``g``."""
    digits = tables.digits
    colours = tables.colours
    if filters.absent != 0 and not absent_canonical(digits[g], filters.absent, tables.repeats):
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
    guess ``g`` (``masks`` uint32 when every answer slot is below 32, else uint64 with
    slots below 64). Reads the members' rows of the symmetric response matrix in
    order, like :func:`tally_classes`."""
    masks[:] = 0
    or_answer_rows(matrix, src, start, end, masks)


@jit(leaf=True)
def or_answer_rows(matrix, src, start, end, masks):
    """``masks[g] |= 1 << f`` for each member of ``src[start:end]`` answering ``f`` to
    guess ``g``, every guess (what :func:`answer_masks` adds to zeroed masks).

    ``masks`` is uint32 when every answer slot is below 32 (up to 5 pegs: "solved",
    the largest, is ``pegs * (pegs + 1)``), else uint64 (slots below 64)."""
    n = matrix.shape[0]
    one = np.uint64(1)
    # Eight (then four) members' rows per pass over the masks: each pass reads and
    # writes all n masks, which is what costs (measured on 5 x 6, sets of 21 codes:
    # 0.34 ns per code and guess one row at a time, 0.18 four at a time, 0.14 eight).
    t = start
    if masks.itemsize == 4:
        # The same in 32 bits: the shift amounts masked to 0..31 (a no-op on these
        # answers) let LLVM narrow the 64-bit arithmetic Numba types, so each vector
        # instruction handles 8 guesses instead of 4 (on the 5 x 6 sets of the
        # profile: 22 to 14-17 us a set).
        low = np.uint64(31)
        while t + 8 <= end:
            r0, r1, r2, r3 = (matrix[src[t]], matrix[src[t + 1]], matrix[src[t + 2]],
                              matrix[src[t + 3]])
            r4, r5, r6, r7 = (matrix[src[t + 4]], matrix[src[t + 5]], matrix[src[t + 6]],
                              matrix[src[t + 7]])
            for g in range(n):
                masks[g] = np.uint32(masks[g] | (
                    (one << (np.uint64(r0[g]) & low)) | (one << (np.uint64(r1[g]) & low))
                    | (one << (np.uint64(r2[g]) & low)) | (one << (np.uint64(r3[g]) & low))
                    | (one << (np.uint64(r4[g]) & low)) | (one << (np.uint64(r5[g]) & low))
                    | (one << (np.uint64(r6[g]) & low)) | (one << (np.uint64(r7[g]) & low))))
            t += 8
        while t + 4 <= end:
            r0, r1, r2, r3 = (matrix[src[t]], matrix[src[t + 1]], matrix[src[t + 2]],
                              matrix[src[t + 3]])
            for g in range(n):
                masks[g] = np.uint32(masks[g] | (
                    (one << (np.uint64(r0[g]) & low)) | (one << (np.uint64(r1[g]) & low))
                    | (one << (np.uint64(r2[g]) & low)) | (one << (np.uint64(r3[g]) & low))))
            t += 4
        for t in range(t, end):
            row = matrix[src[t]]
            for g in range(n):
                masks[g] = np.uint32(masks[g] | (one << (np.uint64(row[g]) & low)))
        return
    while t + 8 <= end:
        r0, r1, r2, r3 = matrix[src[t]], matrix[src[t + 1]], matrix[src[t + 2]], matrix[src[t + 3]]
        r4, r5, r6, r7 = (matrix[src[t + 4]], matrix[src[t + 5]], matrix[src[t + 6]],
                          matrix[src[t + 7]])
        for g in range(n):
            masks[g] |= ((one << np.uint64(r0[g])) | (one << np.uint64(r1[g]))
                         | (one << np.uint64(r2[g])) | (one << np.uint64(r3[g]))
                         | (one << np.uint64(r4[g])) | (one << np.uint64(r5[g]))
                         | (one << np.uint64(r6[g])) | (one << np.uint64(r7[g])))
        t += 8
    while t + 4 <= end:
        r0, r1, r2, r3 = matrix[src[t]], matrix[src[t + 1]], matrix[src[t + 2]], matrix[src[t + 3]]
        for g in range(n):
            masks[g] |= ((one << np.uint64(r0[g])) | (one << np.uint64(r1[g]))
                         | (one << np.uint64(r2[g])) | (one << np.uint64(r3[g])))
        t += 4
    for t in range(t, end):
        row = matrix[src[t]]
        for g in range(n):
            masks[g] |= one << np.uint64(row[g])


@jit(leaf=True)
def gather_answer_masks(matrix, src, start, end, guesses, n_guesses, masks):
    """``masks[g]`` for the guesses ``g`` in ``guesses[:n_guesses]`` only, as
    :func:`answer_masks` sets them (the other masks are left as they are): each
    member's row of the symmetric response matrix read at those guesses."""
    one = np.uint64(1)
    for j in range(n_guesses):
        masks[guesses[j]] = 0
    t = start
    # four members' rows per pass over the guesses (each pass reads and writes their
    # masks)
    while t + 4 <= end:
        r0, r1, r2, r3 = matrix[src[t]], matrix[src[t + 1]], matrix[src[t + 2]], matrix[src[t + 3]]
        for j in range(n_guesses):
            g = guesses[j]
            masks[g] = masks[g] | ((one << np.uint64(r0[g])) | (one << np.uint64(r1[g]))
                                   | (one << np.uint64(r2[g])) | (one << np.uint64(r3[g])))
        t += 4
    for t in range(t, end):
        row = matrix[src[t]]
        for j in range(n_guesses):
            g = guesses[j]
            masks[g] = masks[g] | (one << np.uint64(row[g]))


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
    # The bound of a guess by its number of classes (parts_bounds: classes as equal as
    # possible, lb convex) never grows with the number, so a guess is cut exactly when
    # it has fewer classes than need_member / need_other, the fewest whose bound is
    # below ``bound`` (one comparison per guess instead of a division).
    need_other, need_member = np.int64(65), np.int64(65)
    if with_masks:
        need_other, need_member = parts_bounds(m, bound, lb, search.by_parts, np.int64(65))
    for g in range(n):
        if with_masks:
            parts = popcount(masks[g])
            member = (masks[g] >> np.uint64(solved)) & np.uint64(1)
            if parts < (need_member if member != 0 else need_other):
                continue
        if canonical(tables, g, filters, used, scratch):
            guesses[n_guesses] = g
            n_guesses += 1
    tally_classes(tables.matrix, src, start, end, search.steps, lb, guesses, n_guesses, tally,
                  sums)
    low = (np.int64(1) << PARTS_SHIFT) - 1
    answers = search.answers
    for j in range(n_guesses):
        g = guesses[j]
        parts = sums[g] >> PARTS_SHIFT
        # lb(1) = 1 was counted for the solved class of a member, which costs nothing
        estimate = m + (sums[g] & low) - np.int64(tally[j * slots + solved])
        if parts <= 1 or estimate >= bound:
            continue
        if m > cap_next:
            largest = 0
            for i in range(answers.shape[0]):
                largest = max(largest, np.int64(tally[j * slots + answers[i]]))
            if largest > cap_next:
                continue
        keys[n_cand, 0], keys[n_cand, 1] = estimate, g
        n_cand += 1
    clear_tally(tables.matrix, n_guesses, tally)
    return n_cand


@jit(leaf=True)
def parts_bounds(m, cap, lb, by_parts, none):
    """Fill ``by_parts[member, parts]`` (int64 ``(2, 65)``): ``min(cap, bound)`` of a guess
    making ``parts`` classes of a set of ``m`` codes (one of them "solved" when the guess
    is a member), the classes as equal as possible (``lb`` is convex, so that is the
    least ``m + sum lb(class sizes)`` for that many classes); ``cap`` for ``parts <= 1``
    (a guess dividing nothing). Filled for ``parts <= min(m + member, 64)``.

    The bound never grows with ``parts`` (a finer split of the same codes, ``lb``
    convex). Returns ``(need_other, need_member)``: the fewest classes whose bound is
    below ``cap`` for a guess that is not / is a member (``none`` when there is none)."""
    need_other, need_member = none, none
    for member in range(2):
        by_parts[member, 0] = cap
        by_parts[member, 1] = cap  # divides nothing
        for parts in range(2, min(m + member, 64) + 1):
            total, classes = m - member, parts - member
            q, r = total // classes, total % classes
            by_parts[member, parts] = min(cap, m + r * lb[q + 1] + (classes - r) * lb[q])
            if by_parts[member, parts] < cap:
                if member == 0 and need_other == none:
                    need_other = parts
                if member == 1 and need_member == none:
                    need_member = parts
    return need_other, need_member


@jit
def colour_bound(tables, src, start, end, cap, search):
    """A lower bound of :func:`set_bound` of the set ``src[start:end]`` (``m >= 2``
    codes), clipped at ``cap``, from the colours of its members alone: no row of the
    response matrix is read (a few microseconds where ``set_bound`` reads the members'
    rows for every guess its screen keeps).

    Every guess of one multiset of colours makes at most ``U`` classes of the set
    (:mod:`.screen`), and a guess making ``p`` classes has an estimate of at least
    ``by_parts[member, p]`` (:func:`parts_bounds`), which never grows with ``p``; so the
    least of ``by_parts[member, U]`` over the multisets bounds every guess's estimate,
    hence ``set_bound`` and the cost of the set, from below
    (:func:`.screen.screen_bound`). The same domain as ``set_bound``: without the
    response matrix or with more than 64 answer slots, ``min(lb[m], cap)``."""
    m = end - start
    lb = search.lb
    if tables.matrix.shape[0] == 0 or (tables.pegs + 1) ** 2 > 64:
        return min(lb[m], cap)
    parts_bounds(m, cap, lb, search.by_parts, tables.digits.shape[0] + 1)
    return screen_bound(tables, search.multisets, src, start, end, search.by_parts)


@jit
def set_bound(tables, src, start, end, cap, search):
    """A lower bound of the cost of the set ``src[start:end]`` (``m >= 2`` codes, any
    depth limit), clipped at ``cap``: ``min(cap, least estimate)``, the estimate of a
    guess being ``m + sum lb(class sizes)`` (classes other than "solved"), over every
    guess dividing the set.

    Whatever guess comes first, the set costs at least its estimate (each class at
    least ``lb`` of its size), and a guess dividing nothing is never best, so this is
    the one-level-deeper bound of the set that ``lb(m)`` (perfect splits into ``b``
    classes) only approximates. Needs the response matrix with at most 64 answer
    slots (else returns ``min(lb[m], cap)``).

    Work saved, every step exact: a guess's number of classes (read from its answer
    mask) bounds its estimate (classes as equal as possible, ``by_parts``), so only the
    guesses that may make enough classes to be below ``cap`` matter. They are first
    screened by the colours of the set alone (:func:`.screen.screen_guesses`, no row of
    the matrix read; most calls keep none and end there, at ``cap``); the answer masks of
    those kept are gathered from the members' rows (of every code at once, by whole
    rows, when they are many). Only on a set of more than ``b + 1`` codes whose least
    bound is below ``cap`` does each kept guess get tallied: those of the least bound
    first, then only those whose bound is below both ``cap`` and the least estimate
    found."""
    m = end - start
    lb = search.lb
    n = tables.digits.shape[0]
    if tables.matrix.shape[0] == 0 or (tables.pegs + 1) ** 2 > 64:
        return min(lb[m], cap)
    matrix = tables.matrix
    masks, guesses, tally, sums = search.masks, search.guesses, search.tally, search.sums
    solved = tables.pegs * (tables.pegs + 1)
    slots = tally.shape[0] // n
    by_parts = search.by_parts
    need_other, need_member = parts_bounds(m, cap, lb, by_parts, n + 1)
    # Only the guesses that may make that many classes, by the colours of the set alone
    # (screen_guesses, no row of the matrix read), can be below cap: their answer masks
    # are gathered from the members' rows; when they are many, the masks of every guess
    # at once cost less (vector instructions over whole rows).
    screened = search.screened
    kept = screen_guesses(tables, search.multisets, src, start, end, need_other,
                          min(need_other, need_member), screened)
    search.counts[8] += kept
    if kept == 0:
        return cap
    if kept > n // GATHER_BELOW:
        answer_masks(matrix, src, start, end, masks)
    else:
        gather_answer_masks(matrix, src, start, end, screened, kept, masks)
    # The least bound of the kept guesses (the others are at cap or above); up to b + 1
    # codes lb(s) = 2s - 1 for every class, so the bound by the number of classes is the
    # estimate itself.
    one = np.uint64(1)
    least = cap
    for j in range(kept):  # each guess's bound into sums (tally_classes zeroes it first)
        g = screened[j]
        member = np.int64((masks[g] >> np.uint64(solved)) & one)
        sums[g] = by_parts[member, popcount(masks[g])]
        least = min(least, sums[g])
    if least >= cap or lb[m] == 2 * m - 1:
        return least
    # first the guesses of the least bound, then the others whose bound is below the
    # least estimate of those
    first = 0
    for j in range(kept):
        g = screened[j]
        if sums[g] == least:
            guesses[first] = g
            first += 1
    low = (np.int64(1) << PARTS_SHIFT) - 1
    tally_classes(matrix, src, start, end, search.steps, lb, guesses, first, tally, sums)
    best = cap
    for j in range(first):
        g = guesses[j]
        # lb(1) = 1 was counted for the solved class of a member, which costs nothing
        best = min(best, m + (sums[g] & low) - np.int64(tally[j * slots + solved]))
        sums[g] = least  # (done)
    clear_tally(matrix, first, tally)
    second = 0
    for j in range(kept):
        g = screened[j]
        if least < sums[g] < best:
            guesses[second] = g
            second += 1
    tally_classes(matrix, src, start, end, search.steps, lb, guesses, second, tally, sums)
    for j in range(second):
        g = guesses[j]
        best = min(best, m + (sums[g] & low) - np.int64(tally[j * slots + solved]))
    clear_tally(matrix, second, tally)
    search.counts[9] += first + second
    return best


@jit
def root_candidates(tables, src, start, end, remaining, level, used, search):
    """All candidates of the node ``src[start:end]`` (those no symmetry filter drops)
    into ``search.order_keys[level]`` as ``(estimate, guess)`` rows in code order;
    returns their number. The caller sorts them by estimate, then code, the order in
    which :func:`.branch_and_bound.solve` tries them (in NumPy: a sort compiled here
    would cost seconds on first use)."""
    scratch = new_node_scratch(tables.pegs, tables.colours,
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
    return kept


def search_order(keys: np.ndarray) -> np.ndarray:
    """The ``(estimate, guess)`` rows ``keys`` sorted by estimate, then guess: the order
    in which :func:`.branch_and_bound.solve` tries candidates."""
    return keys[np.lexsort((keys[:, 1], keys[:, 0]))]


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
