"""The engine that plays a scoring-kernel strategy against every secret at once.

Instead of playing each secret separately, the engine walks the strategy's decision
tree depth first: a node holds the codes still consistent with the answers on its
path (a contiguous, increasing run of the ``members`` array), chooses a guess by the
strategy's scoring kernel, splits the run by the answer (a stable counting sort) and
descends into every class that contains a *tracked* secret. Untracked classes are
skipped, so evaluating a subset of the secrets costs only their part of the tree, and
subsets merge exactly into the whole (the decision at a node depends on the full
consistent set and the node's key, never on which secrets are tracked).

Responses come from the uint8 matrix when it was built, else are computed on the fly
(pass an empty ``(0, 0)`` matrix). The matrix is symmetric (feedback is), and the
kernels read it along rows wherever they can: candidates are counted in blocks along
the members' rows, and the "some code splits the set apart" test likewise.

Strategies whose score depends on the class sizes alone (``partition_only``) skip
the codes that have a smaller equivalent under the node's symmetries (free and
absent colours, position permutations fixing the history; :mod:`.symmetry`): the
chosen guess is the same, since an equivalent code has the same class sizes and is
consistent exactly when the other is.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._jit import jit, prange
from .._random import GOLDEN, mix64
from .codes import feedback_digits
from .symmetry import (history_group, mark_representatives, present_colours,
                       repeats_allowed)

__all__ = ["play_all", "TREE_COLUMNS", "child_key", "response", "Rules", "Task", "Scratch",
           "new_scratch", "choose_guess"]

# Columns of the int32 tree table filled by the kernels: the guess of a node, its
# parent node (-1 for the root), the answer leading to it from the parent (-1 for
# the root) and its depth (0 at the root).
TREE_COLUMNS = ("guess", "parent", "feedback", "depth")
GUESS, PARENT, FEEDBACK, DEPTH = 0, 1, 2, 3
# Columns of a node waiting on the walk's stack (int64 rows): its run
# ``members[START:END]``, the tree row of its parent and the answer from it, its
# depth, and the guess made at the parent (-1 at the root).
START, END, NODE_PARENT, NODE_ANSWER, NODE_DEPTH, PREVIOUS = 0, 1, 2, 3, 4, 5
NODE_FIELDS = 6
TOLERANCE = 1e-9
BLOCKS = 64  # candidate blocks per decision; each prange iteration owns one block
PARALLEL_WORK = 1 << 22  # score a decision in parallel above this many responses
BIG_FRACTION = 64  # nodes above n / BIG_FRACTION codes are decided before the split
BIG_MINIMUM = 16
BLOCK = 256  # candidates counted together along the members' matrix rows


class Rules(NamedTuple):
    """How the engine treats a strategy (see :class:`.strategies.Strategy`)."""

    consistent_only: bool  # candidates are the consistent codes only
    uses_partition: bool  # the score reads the class sizes
    perfect_split_best: bool  # a split into single codes is best: taken without scoring
    partition_only: bool  # the score reads the class sizes alone: symmetric codes skipped


class Task(NamedTuple):
    """What :func:`play_all` plays and where it writes."""

    first_guess: int  # index of a forced opening, or -1
    tracked: np.ndarray  # int8 (n,): 1 for the secrets to play
    guesses: np.ndarray  # int32 (n,), out: guesses needed by each tracked secret
    perms: np.ndarray  # int64 (k, pegs): position permutations tried as symmetries


class Scratch(NamedTuple):
    """One lane's scratch memory for decisions (see :func:`new_scratch`)."""

    in_set: np.ndarray  # int8 (n,): all zeros between decisions
    marks: np.ndarray  # int8 (n,): all ones between decisions; 0 = skipped code
    scores: np.ndarray  # float64 (n,): score of candidate j
    usable: np.ndarray  # int8 (n,): 0 for a candidate that may not be played
    sizes: np.ndarray  # int64 ((pegs + 1) ** 2,): class sizes of one candidate


@jit
def new_scratch(n, pegs):
    """A :class:`Scratch` for code spaces of ``n`` codes of ``pegs`` pegs."""
    return Scratch(np.zeros(n, dtype=np.int8), np.ones(n, dtype=np.int8),
                   np.empty(n, dtype=np.float64), np.empty(n, dtype=np.int8),
                   np.zeros((pegs + 1) * (pegs + 1), dtype=np.int64))


class Workspace(NamedTuple):
    """Arrays one :func:`walk` shares with the other lanes (each writes its own part)."""

    members: np.ndarray  # int32 (n,): codes, split into consistent runs in place
    buffer: np.ndarray  # int32 (n,): scratch of the splits
    tree: np.ndarray  # int32 (rows, 4): tree rows, columns TREE_COLUMNS
    frontier: np.ndarray  # int64 (n + 1, NODE_FIELDS): deferred nodes; [0, 0] counts them
    frontier_keys: np.ndarray  # uint64 (n + 1,): their random keys


@jit
def response(tables, guess, secret):
    """Encoded feedback of code ``guess`` against ``secret``: matrix entry or computed."""
    if tables.matrix.shape[0] > 0:
        return np.int64(tables.matrix[guess, secret])
    return np.int64(feedback_digits(tables.digits[guess], tables.counts[guess],
                                    tables.digits[secret], tables.counts[secret], tables.pegs))


@jit
def child_key(key, guess, answer):
    """Random key of the node reached by answering ``answer`` to ``guess`` at ``key``."""
    return mix64(np.uint64(key) + np.uint64(guess * 4096 + answer + 1) * GOLDEN)


@jit
def score_candidate(score, tables, g, j, size, previous_guess, key, scratch):
    """Score candidate ``j`` (code ``g``) from its class sizes ``scratch.sizes``."""
    if scratch.in_set[g] == 0 and scratch.sizes.max() == size:
        scratch.usable[j] = 0
        scratch.scores[j] = np.inf
        return
    scratch.usable[j] = 1
    previous = -1
    if previous_guess >= 0:
        # feedback is symmetric; this order reads the matrix along one row
        previous = response(tables, previous_guess, g)
    sizes = scratch.sizes
    scratch.scores[j] = score(sizes.ctypes, sizes.shape[0], g, previous, key)


@jit
def score_range(score, tables, rules, members, start, end, previous_guess, key, lo, hi,
                scratch):
    """Score candidates ``lo..hi-1`` of one decision into ``scratch.scores`` (lower is
    better).

    Candidate ``j`` is ``members[start + j]`` when ``rules.consistent_only`` else code
    ``j``; ``usable[j]`` is 0 for a candidate that would not divide the consistent set
    or that ``marks`` (by code, see :func:`walk`) skips.

    With the matrix and all codes as candidates, candidates are counted in blocks of
    ``BLOCK`` read along the rows of the members (the matrix is symmetric), so the
    reads are sequential (a 1 GiB matrix read column-wise misses the cache at every
    read); blocks of mostly unmarked codes are counted code by code.
    """
    size = end - start
    matrix, sizes, marks = tables.matrix, scratch.sizes, scratch.marks
    consistent_only = rules.consistent_only
    n_slots = sizes.shape[0]
    blocked = matrix.shape[0] > 0 and not consistent_only and rules.uses_partition
    block = np.zeros((BLOCK if blocked else 0, n_slots), dtype=np.int32)
    b0 = lo
    while b0 < hi:
        b1 = min(b0 + BLOCK, hi)
        n_marked = 0
        for j in range(b0, b1):
            g = members[start + j] if consistent_only else j
            n_marked += marks[g]
        if blocked and 4 * n_marked >= b1 - b0:
            block[:b1 - b0] = 0
            for t in range(start, end):
                row = matrix[members[t]]
                for j in range(b0, b1):
                    block[j - b0, row[j]] += 1
            for j in range(b0, b1):
                if marks[j] == 0:
                    scratch.usable[j] = 0
                    scratch.scores[j] = np.inf
                    continue
                for f in range(n_slots):
                    sizes[f] = block[j - b0, f]
                score_candidate(score, tables, j, j, size, previous_guess, key, scratch)
            b0 = b1
            continue
        for j in range(b0, b1):
            g = members[start + j] if consistent_only else j
            if marks[g] == 0:
                scratch.usable[j] = 0
                scratch.scores[j] = np.inf
                continue
            sizes[:] = 0
            if rules.uses_partition or scratch.in_set[g] == 0:
                if matrix.shape[0] > 0:  # inlined lookups: a call per response costs 3x
                    row = matrix[g]
                    for t in range(start, end):
                        sizes[row[members[t]]] += 1
                else:
                    for t in range(start, end):
                        sizes[response(tables, g, members[t])] += 1
            score_candidate(score, tables, g, j, size, previous_guess, key, scratch)
        b0 = b1


@jit(parallel=True)
def score_parallel(score, tables, rules, members, start, end, previous_guess, key, n_cand,
                   scratch):
    """:func:`score_range` over all ``n_cand`` candidates in parallel blocks (each
    block with its own ``sizes``)."""
    n_blocks = min(BLOCKS, n_cand)
    for b in prange(n_blocks):
        mine = Scratch(scratch.in_set, scratch.marks, scratch.scores, scratch.usable,
                       np.zeros(scratch.sizes.shape[0], dtype=np.int64))
        score_range(score, tables, rules, members, start, end, previous_guess, key,
                    b * n_cand // n_blocks, (b + 1) * n_cand // n_blocks, mine)


@jit
def splits_apart(tables, guess, members, start, end, sizes):
    """Whether every code of ``members[start:end]`` answers ``guess`` differently."""
    sizes[:] = 0
    for t in range(start, end):
        f = response(tables, guess, members[t])
        if sizes[f] > 0:
            return False
        sizes[f] = 1
    return True


@jit
def member_splitting_apart(tables, members, start, end, sizes):
    """The first member of ``members[start:end]`` that splits it apart, or -1."""
    for t in range(start, end):
        if splits_apart(tables, members[t], members, start, end, sizes):
            return members[t]
    return -1


@jit
def first_splitting_code(matrix, members, start, end, marks):
    """Smallest marked code answering every member differently, or -1.

    Needs the (symmetric) matrix and at most 64 feedback slots; reads along the
    members' rows, a block of codes at a time, so the reads are sequential.
    """
    n = matrix.shape[0]
    seen = np.zeros(BLOCK, dtype=np.uint64)
    clash = np.zeros(BLOCK, dtype=np.bool_)
    for b0 in range(0, n, BLOCK):
        b1 = min(b0 + BLOCK, n)
        seen[:] = 0
        clash[:] = False
        for t in range(start, end):
            row = matrix[members[t]]
            for j in range(b0, b1):
                bit = np.uint64(1) << np.uint64(row[j])
                clash[j - b0] |= (seen[j - b0] & bit) != 0
                seen[j - b0] |= bit
        for j in range(b0, b1):
            if marks[j] and not clash[j - b0]:
                return j
    return -1


@jit
def choose_guess(score, tables, rules, members, start, end, previous_guess, key, parallel,
                 scratch):
    """The strategy's guess for the consistent set ``members[start:end]`` (size >= 2).

    Lowest score within 1e-9, then a consistent code, then the smallest code.
    With ``rules.perfect_split_best`` (the score is best exactly for partitions into
    single codes) the smallest consistent code that splits the set apart is taken
    without scoring, else the smallest code that does (then no consistent code ties).
    ``scratch.in_set`` must be all zeros on entry and is left so; codes with
    ``scratch.marks[g] == 0`` are not considered (only codes with a smaller equivalent
    may be unmarked).
    """
    if rules.perfect_split_best and end - start < scratch.sizes.shape[0]:
        g = member_splitting_apart(tables, members, start, end, scratch.sizes)
        if g >= 0:
            return g
    return choose_among_codes(score, tables, rules, members, start, end, previous_guess, key,
                              parallel, scratch)


@jit
def choose_among_codes(score, tables, rules, members, start, end, previous_guess, key,
                       parallel, scratch):
    """:func:`choose_guess` once no member splits the set apart (the caller checked,
    :func:`member_splitting_apart`, or ``perfect_split_best`` is off)."""
    matrix, digits, marks, in_set = tables.matrix, tables.digits, scratch.marks, scratch.in_set
    consistent_only = rules.consistent_only
    if rules.perfect_split_best and end - start < scratch.sizes.shape[0]:
        if not consistent_only:  # no consistent code does: the smallest code that does
            if matrix.shape[0] > 0 and scratch.sizes.shape[0] <= 64:
                g = first_splitting_code(matrix, members, start, end, marks)
                if g >= 0:
                    return g
            else:
                for g in range(digits.shape[0]):
                    if marks[g] and splits_apart(tables, g, members, start, end,
                                                 scratch.sizes):
                        return g
    for t in range(start, end):
        in_set[members[t]] = 1
    n_cand = (end - start) if consistent_only else digits.shape[0]
    if parallel:
        score_parallel(score, tables, rules, members, start, end, previous_guess, key, n_cand,
                       scratch)
    else:
        score_range(score, tables, rules, members, start, end, previous_guess, key, 0, n_cand,
                    scratch)
    scores, usable = scratch.scores, scratch.usable
    best = np.inf
    for j in range(n_cand):
        if usable[j] and scores[j] < best:
            best = scores[j]
    chosen = -1
    for j in range(n_cand):
        if usable[j] and scores[j] <= best + TOLERANCE:
            g = members[start + j] if consistent_only else j
            if in_set[g]:
                chosen = g
                break
            if chosen < 0:
                chosen = g
    for t in range(start, end):
        in_set[members[t]] = 0
    return chosen


@jit
def split_run(tables, guess, members, buffer, start, end, tracked, sizes, seen, offsets):
    """Stably sort ``members[start:end]`` by answer to ``guess``.

    On return class ``f`` is ``members[offsets[f] - sizes[f]:offsets[f]]`` and
    ``seen[f]`` counts its tracked secrets.
    """
    sizes[:] = 0
    seen[:] = 0
    for t in range(start, end):
        f = response(tables, guess, members[t])
        sizes[f] += 1
        if tracked[members[t]]:
            seen[f] += 1
    offsets[0] = start
    for f in range(sizes.shape[0]):
        offsets[f + 1] = offsets[f] + sizes[f]
    for t in range(start, end):
        f = response(tables, guess, members[t])
        buffer[offsets[f]] = members[t]
        offsets[f] += 1
    for t in range(start, end):
        members[t] = buffer[t]


@jit
def mark_node(digits, colours, members, start, end, tree, parent, perms, marks):
    """Unmark (``marks[g] = 0``) the codes with a smaller equivalent at a node.

    The history is read from the tree rows above ``parent``; ``perms`` lists the
    position permutations to try (see :mod:`.symmetry`). Returns False, leaving
    ``marks`` alone, when the node has no such symmetry (the common case deep in
    the tree: every colour guessed and present, no position permutation).
    """
    n_history = 0
    r = parent
    while r >= 0:
        n_history += 1
        r = tree[r, PARENT]
    history = np.zeros(n_history + 1, dtype=np.int64)
    used = np.zeros(colours, dtype=np.bool_)
    r = parent
    for i in range(n_history):
        history[i] = tree[r, GUESS]
        for d in digits[tree[r, GUESS]]:
            used[d] = True
        r = tree[r, PARENT]
    group, maps = history_group(digits, used, colours, history, n_history, perms)
    absent = ~present_colours(digits, members, start, end) & ((1 << colours) - 1)
    if group.shape[0] == 1 and absent == 0 and used.all():
        return False
    repeats = repeats_allowed(digits.shape[0], digits.shape[1], colours)
    mark_representatives(digits, used, colours, group, maps, absent, repeats, marks)
    return True


@jit
def walk(score, tables, rules, task, work, scratch, node, node_key, row_base, big):
    """Depth-first walk below one node, writing tree rows from ``row_base`` on.

    ``node`` is the walk's root as a stack row (columns ``START .. PREVIOUS``) and
    ``node_key`` its random key. Nodes larger than ``big`` are expanded with parallel
    scoring and smaller ones appended to ``work.frontier`` unless ``big`` is -1,
    which expands everything serially. With ``rules.partition_only`` (the score
    depends on the class sizes alone) codes with a smaller equivalent under the node's
    symmetries are not scored (``scratch.marks`` is all ones on entry and on return).
    ``work`` is the :class:`Workspace`. Returns the number of rows written.
    """
    digits, pegs, members, tree = tables.digits, tables.pegs, work.members, work.tree
    frontier, frontier_keys = work.frontier, work.frontier_keys
    n_slots = (pegs + 1) * (pegs + 1)
    solved = pegs * (pegs + 1)
    sizes = scratch.sizes
    seen = np.zeros(n_slots, dtype=np.int64)
    offsets = np.zeros(n_slots + 1, dtype=np.int64)
    stack = np.empty((node[END] - node[START] + 1, NODE_FIELDS), dtype=np.int64)
    keys = np.empty(node[END] - node[START] + 1, dtype=np.uint64)
    stack[0, :] = node
    keys[0] = node_key
    top = 1
    rows = 0
    while top > 0:
        top -= 1
        start, end = stack[top, START], stack[top, END]
        depth, previous = stack[top, NODE_DEPTH], stack[top, PREVIOUS]
        key = keys[top]
        size = end - start
        if big >= 0 and depth > 0 and size <= big:
            frontier[0, 0] += 1
            frontier[frontier[0, 0], :] = stack[top]
            frontier_keys[frontier[0, 0]] = key
            continue
        if size == 1:
            guess = members[start]
        elif depth == 0 and task.first_guess >= 0:
            guess = task.first_guess
        else:
            n_cand = size if rules.consistent_only else digits.shape[0]
            guess = -1
            if rules.perfect_split_best and size < n_slots:
                guess = member_splitting_apart(tables, members, start, end, sizes)
            if guess < 0:
                # Mark only for decisions that scan every code (marking costs a pass).
                marked = rules.partition_only and mark_node(
                    digits, tables.counts.shape[1], members, start, end, tree,
                    stack[top, NODE_PARENT], task.perms, scratch.marks)
                guess = choose_among_codes(score, tables, rules, members, start, end,
                                           previous, key,
                                           big >= 0 and size * n_cand >= PARALLEL_WORK,
                                           scratch)
                if marked:
                    scratch.marks[:] = 1
        row = row_base + rows
        tree[row, GUESS], tree[row, PARENT] = guess, stack[top, NODE_PARENT]
        tree[row, FEEDBACK], tree[row, DEPTH] = stack[top, NODE_ANSWER], depth
        rows += 1
        split_run(tables, guess, members, work.buffer, start, end, task.tracked, sizes, seen,
                  offsets)
        if sizes[solved] > 0 and task.tracked[guess]:
            task.guesses[guess] = depth + 1
        # Push children in decreasing answer order so they are visited increasing.
        for f in range(n_slots - 1, -1, -1):
            if f == solved or seen[f] == 0:
                continue
            stack[top, START], stack[top, END] = offsets[f] - sizes[f], offsets[f]
            stack[top, NODE_PARENT], stack[top, NODE_ANSWER] = row, f
            stack[top, NODE_DEPTH], stack[top, PREVIOUS] = depth + 1, guess
            keys[top] = child_key(key, guess, f)
            top += 1
    return rows


@jit(parallel=True)
def play_all(score, tables, rules, task, root_key, lanes, tree):
    """Play a strategy against every tracked secret by walking its decision tree.

    The large nodes near the root are decided one by one with the candidates scored
    in parallel; the remaining subtrees are walked in parallel, one lane each
    (subtrees by decreasing size, each to the least loaded lane). Every decision
    depends only on its node, so the tree and the counts never depend on the number
    of threads.

    Parameters
    ----------
    score : function
        The strategy's adapter (:attr:`strategies.Strategy.adapter`).
    tables : CodeTables
        Response matrix (or ``(0, 0)``) and code tables of the code space (n codes).
    rules : Rules
        How the strategy is treated (shortcuts and candidate set).
    task : Task
        Forced opening, the tracked secrets, the out array of guesses per secret and
        the position permutations tried as symmetries (the identity alone turns that
        off).
    root_key : uint64
        Random key of the root decision.
    lanes : int64
        Number of parallel lanes for the subtrees.
    tree : int32 array (4n + 1, 4)
        Out: the visited nodes, parents before children, columns :data:`TREE_COLUMNS`.

    Returns
    -------
    int
        Number of tree rows filled.
    """
    n, pegs = tables.digits.shape[0], tables.pegs
    work = Workspace(np.arange(n).astype(np.int32), np.empty(n, dtype=np.int32), tree,
                      np.zeros((n + 1, NODE_FIELDS), dtype=np.int64),
                      np.zeros(n + 1, dtype=np.uint64))
    in_set = np.zeros((lanes, n), dtype=np.int8)
    marks = np.ones((lanes, n), dtype=np.int8)
    scores = np.empty((lanes, n), dtype=np.float64)
    usable = np.empty((lanes, n), dtype=np.int8)
    sizes = np.zeros((lanes, (pegs + 1) * (pegs + 1)), dtype=np.int64)
    root = np.array([0, n, -1, -1, 0, -1], dtype=np.int64)
    big = max(n // BIG_FRACTION, BIG_MINIMUM)
    top_rows = walk(score, tables, rules, task, work,
                    Scratch(in_set[0], marks[0], scores[0], usable[0], sizes[0]), root, root_key,
                    0, big)
    # Subtrees: largest first, each lane takes the next one that keeps it least loaded.
    frontier = work.frontier
    n_sub = frontier[0, 0]
    items = frontier[1:n_sub + 1]
    order = np.argsort(-(items[:, END] - items[:, START]), kind="mergesort")
    lane_of = np.zeros(n_sub, dtype=np.int64)
    load = np.zeros(lanes, dtype=np.int64)
    for i in order:
        lane = np.argmin(load)
        lane_of[i] = lane
        w = items[i, END] - items[i, START]
        load[lane] += w * w
    base = 2 * n + 1  # subtree of run [s, e) writes rows base + 2s .. base + 2e - 1
    used = np.zeros(n_sub, dtype=np.int64)
    sub_task = Task(-1, task.tracked, task.guesses, task.perms)
    for lane in prange(lanes):
        for i in range(n_sub):
            if lane_of[i] == lane:
                scratch = Scratch(in_set[lane], marks[lane], scores[lane], usable[lane],
                                  sizes[lane])
                used[i] = walk(score, tables, rules, sub_task, work, scratch,
                               items[i].copy(), work.frontier_keys[i + 1],
                               base + 2 * items[i, START], -1)
    # Compact: top rows, then each subtree's rows in frontier order; remap parents.
    new_row = np.full(tree.shape[0], -1, dtype=np.int64)
    for r in range(top_rows):
        new_row[r] = r
    rows = top_rows
    for i in range(n_sub):
        first = base + 2 * items[i, START]
        for r in range(first, first + used[i]):
            new_row[r] = rows
            rows += 1
    out = np.empty((rows, 4), dtype=np.int32)
    for r in range(tree.shape[0]):
        if new_row[r] >= 0:
            out[new_row[r], GUESS] = tree[r, GUESS]
            out[new_row[r], PARENT] = -1 if tree[r, PARENT] < 0 else new_row[tree[r, PARENT]]
            out[new_row[r], FEEDBACK], out[new_row[r], DEPTH] = tree[r, FEEDBACK], tree[r, DEPTH]
    tree[:rows] = out
    return rows
