"""The optimal-in-expectation strategy of a game: the threaded search and its tree.

:class:`OptimalSearch` holds one :class:`.branch_and_bound.Search` state per worker
thread (level buffers, table of solved sets) and answers, node by node, the least
total of a consistent set and the guess that attains it (:meth:`OptimalSearch.best`,
which spreads the candidates of that node over the workers with a shared best total).
:func:`optimal_tree` walks the tree top down with it; the table of solved sets
means each node below the root is read back, not searched again.

The guess chosen at each node of the exported tree is the first candidate (in the
search order, ``(estimate, code)``) that attains the optimal cost, or the one a fast
case names: a function of the node alone, never of the thread count or of what the
tables hold. The long, resumable runs of large games are :mod:`.optimal_run`.
"""
from __future__ import annotations

import threading
import time

import numpy as np

from ..errors import InputError
from .._interrupt import run_interruptible
from .._jit import thread_count
from .branch_and_bound import COUNTS, Search, solve
from .candidates import (INFEASIBLE, PARTS_SHIFT, UNLIMITED, answer_slots, branches,
                         capacities, fast_case, lower_bounds, root_candidates,
                         search_order)
from .codes import CodeSpace
from .solved_sets import CACHE_PROBES, lookup, merge_cache, set_hash
from .screen import fresh_scratch, multiset_tables
from .symmetry import position_permutations
from .tree import DecisionTree

__all__ = ["OptimalSearch", "search_and_build", "optimal_cost", "optimal_tree", "INFEASIBLE",
           "UNLIMITED"]

MERGE_AFTER_SECONDS = 0.5  # a node searched longer shares its workers' tables
CACHE_SLOTS_PER_CODE = 256  # default table size (a power of two at least this * n) ...
MAX_CACHE_SLOTS = 1 << 24  # ... up to 16 Mi slots (256 MiB) per worker


def scratch_dtypes(n: int, pegs: int) -> tuple[type, type]:
    """``(tally, masks)``: the dtypes of a :class:`Search`'s class-size tally and answer
    masks for ``n`` codes of ``pegs`` pegs (the kernels are compiled for these types;
    :mod:`.warm_up` compiles them ahead from here too)."""
    tally = np.uint16 if n < 1 << 16 else np.uint32  # a class holds up to n codes
    # answer masks in 32 bits when every answer slot fits ("solved" is the largest):
    # twice the guesses per vector instruction (candidates.or_answer_rows)
    masks = np.uint32 if pegs * (pegs + 1) < 32 else np.uint64
    return tally, masks


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
        self.lb = lower_bounds(n, branches(pegs))
        self.cap = capacities(branches(pegs), n)
        perms, answers = position_permutations(pegs), answer_slots(pegs)
        self.stop = np.zeros(1, dtype=np.int64)  # set to 1 to make the search stop
        steps = np.zeros(n + 1, dtype=np.int64)
        steps[:n] = self.lb[1:] - self.lb[:-1]
        steps[0] += 1 << PARTS_SHIFT
        tally_size = n * (pegs + 1) ** 2 if matrix.shape[0] > 0 else 0
        tally_type, mask_type = scratch_dtypes(n, pegs)
        if cache_slots is None:
            cache_slots = min(CACHE_SLOTS_PER_CODE * n, MAX_CACHE_SLOTS)
        slots = 1 << max(int(cache_slots) - 1, CACHE_PROBES).bit_length()  # a power of two
        multisets = multiset_tables(space.counts)
        self.states = [
            Search(np.zeros(levels, dtype=np.int64), perms, self.lb, self.cap, answers,
                   np.zeros((levels, n), dtype=np.int32), np.zeros((levels, n, 2), np.int64),
                   np.zeros((slots, 2), dtype=np.int64), self.stop,
                   steps, np.zeros(tally_size, dtype=tally_type), np.zeros(n, dtype=np.int64),
                   np.zeros(n, dtype=mask_type), np.zeros(n, dtype=np.int64),
                   np.zeros(COUNTS, dtype=np.int64), np.zeros((2, 65), dtype=np.int64),
                   fresh_scratch(multisets, pegs),
                   np.zeros(n, dtype=np.int64))
            for _ in range(self.workers)]

    def best(self, members: np.ndarray, remaining: int, used: np.ndarray, history,
             known: int | None = None):
        """(cost, guess) for a consistent set; ``history`` the guesses that led to it.

        The guess is a function of the node alone (never of the thread count or of
        what the caches hold): a fast case's guess, else the first candidate in the
        order of :func:`.candidates.search_order` that attains the cost. A node some worker
        has solved exactly is read from its cache (:func:`solve` records that same
        guess). Otherwise the candidates are handed out in that order to the
        workers; candidate ``i`` is searched with the bound ``best + 1`` if ``i``
        precedes the best one found so far, else ``best``, so the least ``(cost, i)``
        is found exactly whatever the interleaving. ``cost`` is INFEASIBLE or more
        when no strategy fits ``remaining`` guesses.

        ``known``, the node's cost when another search has proved it (a finished job
        of :mod:`.optimal_run`), makes the search faster: every candidate is searched
        with the bound ``known + 1`` and the first whose cost is at most ``known`` is
        the guess (with its cost): the same as without it when ``known`` is the
        node's cost. A ``known`` below the cost raises InputError; one above it may
        give a worse guess, whose own cost is returned.

        Raises KeyboardInterrupt when ``self.stop[0]`` was set (Ctrl-C, see
        :func:`jitgames._interrupt.run_interruptible`); the search object is then
        unusable (its caches may hold cut-off values).
        """
        cost, guess = self._best(members, remaining, used, history, known)
        if known is not None and cost > known:
            raise InputError(f"no guess attains the stored cost {known} of a set of "
                             f"{len(members)} codes: the stored value is wrong")
        return cost, guess

    def _best(self, members, remaining, used, history, known):
        """:meth:`best` without the check of ``known``."""
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
            value, exact, guess = lookup(state.cache, key)
            if exact and guess >= 0:
                return int(value), int(guess)
        first = self.states[0]
        n_cand = root_candidates(self.tables, src, 0, m, remaining, level, used, first)
        keys = search_order(first.order_keys[level, :n_cand])
        started = time.perf_counter()
        cost, index = self._least(keys, src, remaining, level, used, floor, known)
        if self.stop[0] != 0:
            raise KeyboardInterrupt
        if self.workers > 1 and time.perf_counter() - started > MERGE_AFTER_SECONDS:
            self._share_caches()
        if index >= n_cand:  # no candidate below the starting bound
            return INFEASIBLE, -1
        return cost, (int(keys[index, 1]) if cost < INFEASIBLE else -1)

    def _least(self, keys, src, remaining, level, used, floor, known=None):
        """The least ``(cost, i)`` over the candidates ``keys`` (see :meth:`best`);
        ``i`` is ``len(keys)`` when none is below the starting bound.

        With several workers the first candidate is searched class by class across
        them: until some total is known nothing prunes its classes, so they are
        independent (searching candidates side by side instead would leave the
        others without a bound). A ``known`` cost starts as that bound, and is
        also the floor: the first candidate attaining it ends the search."""
        lock = threading.Lock()
        n_cand = keys.shape[0]
        state = {"next": 0, "cost": INFEASIBLE, "index": n_cand}
        if known is not None:
            state["cost"], floor = int(known), max(floor, int(known))
        elif self.workers > 1 and n_cand > 0:
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
        """Run ``work(search)`` on every worker's state (:meth:`on_threads`)."""
        self.on_threads(lambda worker: work(self.states[worker]))

    def on_threads(self, work):
        """Run ``work(worker)`` for every worker number on its own thread, worker 0 in
        this thread; an exception of any stops the others (``stop``) and is raised here."""
        errors = []

        def guarded(worker):
            try:
                work(worker)
            except BaseException as exc:  # handed to the calling thread
                errors.append(exc)
                self.stop[0] = 1

        helpers = [threading.Thread(target=guarded, args=(worker,), daemon=True)
                   for worker in range(1, self.workers)]
        for helper in helpers:
            helper.start()
        guarded(0)
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


def search_and_build(space: CodeSpace, matrix: np.ndarray, depth_limit: int | None,
                     search: OptimalSearch | None = None, root: tuple | None = None):
    """``(total, tree)`` of the optimal strategy: :meth:`OptimalSearch.best` at every
    node of the tree, top down (``search``: a prepared search, e.g. with a chosen
    number of workers).

    ``root``, ``(guess, costs)``, is the root's guess and the proved cost of each of
    its classes (``costs[answer]``) when a finished :mod:`.optimal_run` knows them:
    the root is then not searched again, and each class is searched with its cost as
    :meth:`OptimalSearch.best`'s ``known``. The returned total is the tree's own
    (the codes' guesses summed), whatever the stored costs said.
    """
    if search is None:
        search = OptimalSearch(space, matrix, depth_limit)
    rows = []
    n = space.size

    def node(members, remaining, used, history, parent, answer, depth, known=None):
        if parent < 0 and root is not None:
            guess = int(root[0])
        else:
            cost, guess = search.best(members, remaining, used, history, known)
            if cost >= INFEASIBLE:
                raise InputError(f"no strategy solves every code within {depth_limit} "
                                 "guesses")
        row = len(rows)
        rows.append((guess, parent, answer, depth))
        answers = matrix[guess, members] if matrix.shape[0] else np.array(
            [space.feedback(guess, s) for s in members])
        used = used.copy()
        used[space.digits[guess]] = True
        total = members.size
        for f in np.unique(answers):
            if f != space.solved:
                total += node(members[answers == f], remaining - 1, used, history + [guess],
                              row, int(f), depth + 1,
                              root[1][int(f)] if parent < 0 and root is not None else None)
        return total

    def build():
        total = node(np.arange(n, dtype=np.int32), search.remaining,
                     np.zeros(space.colours, dtype=np.bool_), [], -1, -1, 0)
        return total, DecisionTree(space, np.array(rows, dtype=np.int32).reshape(-1, 4))

    # Ctrl-C is heard at once and stops the kernel through search.stop
    return run_interruptible(build, stop=search.stop)


# Finished searches of this process, newest last: ((pegs, colours, repeats, with a
# matrix, depth limit), result). The matrix only changes the speed, not the result.
_SOLVED: list = []
SOLVED_KEPT = 4


def _optimal(space: CodeSpace, matrix: np.ndarray, depth_limit: int | None):
    key = (space.pegs, space.colours, space.repeats, matrix.shape[0] > 0, depth_limit)
    for entry in _SOLVED:
        if entry[0] == key:
            return entry[1]
    result = search_and_build(space, matrix, depth_limit)
    _SOLVED.append((key, result))
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
