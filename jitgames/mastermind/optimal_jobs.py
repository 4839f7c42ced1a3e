"""The jobs of an optimal Mastermind run split at the root, and their checkpoints.

The optimum of a game of ``n`` codes is

    cost(all codes) = n + min over root guesses g of  sum over answers f  cost(C_f(g))

(:mod:`.branch_and_bound`). Nothing has been guessed at the root, so the colour and position
permutations are all symmetries there: one guess per orbit is enough, and the orbits
are the partitions of the pegs into at most ``colours`` parts (``1111, 1112, 1122,
1123, 1234`` for 4 pegs; without repeats ``1234`` alone). Each pair (root guess,
answer class) is one *job*: the least total guesses for the codes of that class
within the guesses left, searched by :func:`.branch_and_bound.solve` with history ``[g]``.
Jobs are independent, so they run on several threads or on the workers of a Dask
cluster (:mod:`.optimal_run` schedules them, with budgets), and a finished job is
kept in a checkpoint.

Checkpoints (``--checkpoint``) are :class:`jitgames._chunked.Checkpoint` files of
the job ``mastermind.optimal``: item ``i`` is job ``i`` of the fixed list of the
game, its partial ``{"value": v, "exact": e, "budget": b}``. They hold exact values
and proven lower bounds only, which no change of the search code alters, so the
parameters name the game and the job list (a digest of the guesses and class
sizes), not the package version. A file is checked before use (checksum, game, job
list, every partial by :func:`validate_partial`) and refused with one line otherwise.
See ``docs/mastermind_optimal.md`` (section "Larger games and resumable runs").
"""
from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import ClassVar

import numpy as np

from .._chunked import CheckedFile, ChunkedJob, check_count, check_counts
from .._store import shorten
from .branch_and_bound import solve
from .candidates import INFEASIBLE, UNLIMITED, branches, capacities, lower_bounds, set_bound
from .codes import DEFAULT_MATRIX_BYTES, CodeSpace, load_game
from .optimal import OptimalSearch

__all__ = ["JOB_NAME", "SPLIT_SCHEME", "root_guesses", "RootSplit", "root_split", "job_params",
           "job_value", "job_bounds", "validate_partial", "exact_job_worker", "root_job",
           "dask_job", "TASKS_JOB_NAME", "tasks_path", "validate_task", "TaskStore"]

JOB_NAME = "mastermind.optimal"
SPLIT_SCHEME = 1
"""Version of the job list (root guesses and class order); stored in checkpoints."""


def root_guesses(pegs: int, colours: int, repeats: bool) -> list[tuple[int, ...]]:
    """One root guess per orbit of the colour and position permutations, as 0-based
    digits: the partitions of ``pegs`` into at most ``colours`` parts, written with
    colour 0 taking the largest part (``(0, 0, 1, 2)`` for 2 + 1 + 1)."""
    if not repeats:
        return [tuple(range(pegs))] if pegs <= colours else []

    def partitions(left, largest):
        if left == 0:
            yield ()
            return
        for part in range(min(left, largest), 0, -1):
            for rest in partitions(left - part, part):
                yield (part,) + rest

    guesses = []
    for parts in partitions(pegs, pegs):
        if len(parts) <= colours:
            guesses.append(tuple(c for c, size in enumerate(parts) for _ in range(size)))
    return guesses


@dataclass(frozen=True, eq=False)
class RootSplit:
    """The fixed job list of one game: its root guesses and their answer classes.

    Attributes
    ----------
    space : CodeSpace
    depth_limit : int or None
        Most guesses per secret (None: no limit).
    guesses : ndarray of int64
        Code index of each root guess, in the order they are tried.
    starts : ndarray of int64
        Jobs of guess ``c`` are ``starts[c]:starts[c + 1]``.
    job_guess, job_answer, job_size, job_lb : ndarray of int64
        Per job: its guess (index into ``guesses``), the answer of its class, the
        class size and the lower bound ``lb(size)`` of its cost.
    members : ndarray of int32
        Class codes of job ``j`` at ``members[member_starts[j]:member_starts[j + 1]]``
        (increasing).
    member_starts : ndarray of int64
    """

    space: CodeSpace
    depth_limit: int | None
    guesses: np.ndarray
    starts: np.ndarray
    job_guess: np.ndarray
    job_answer: np.ndarray
    job_size: np.ndarray
    job_lb: np.ndarray
    members: np.ndarray
    member_starts: np.ndarray

    @property
    def jobs(self) -> int:
        return int(self.job_size.shape[0])

    def class_codes(self, job: int) -> np.ndarray:
        """The codes of job ``job``'s class (int32, increasing)."""
        return self.members[self.member_starts[job]:self.member_starts[job + 1]]

    def digest(self) -> str:
        """SHA-256 (hex, 16 digits) of the job list: guesses, answers and class sizes."""
        h = hashlib.sha256()
        for array in (self.guesses, self.starts, self.job_answer, self.job_size):
            h.update(np.ascontiguousarray(array, dtype=np.int64).tobytes())
        return h.hexdigest()[:16]


@lru_cache(maxsize=4)
def root_split(pegs: int, colours: int, repeats: bool = True, depth_limit: int | None = None,
               max_matrix_bytes: int = DEFAULT_MATRIX_BYTES) -> RootSplit:
    """The :class:`RootSplit` of a game (cached per process).

    A root guess is left out when it answers every code alike (it divides nothing)
    or leaves a class too large for the guesses left; the others are ordered by
    ``n + sum lb(class sizes)``, then code.
    """
    space, matrix = load_game(pegs, colours, repeats, max_matrix_bytes)
    n = space.size
    lb = lower_bounds(n, branches(pegs))
    cap = capacities(branches(pegs), n)
    remaining = UNLIMITED if depth_limit is None else depth_limit
    every = np.arange(n, dtype=np.int64)
    rows = []
    for digits in root_guesses(pegs, colours, repeats):
        value = 0
        for d in digits:
            value = value * colours + d
        g = int(np.searchsorted(space.values, value))
        answers = (matrix[g].astype(np.int64) if matrix.shape[0] else
                   np.array([space.feedback(g, s) for s in range(n)], dtype=np.int64))
        slots, sizes = np.unique(answers, return_counts=True)
        if slots.size <= 1 or remaining < 2:  # it divides nothing, or no guess is left
            continue
        keep = slots != space.solved
        slots, sizes = slots[keep], sizes[keep]
        if sizes.max(initial=0) > cap[remaining - 1]:
            continue
        estimate = n + int(lb[sizes].sum())
        order = np.lexsort((slots, -sizes))  # largest class first, then answer
        classes = [every[answers == slots[i]].astype(np.int32) for i in order]
        rows.append((estimate, g, slots[order], sizes[order], classes))
    rows.sort(key=lambda row: (row[0], row[1]))
    starts = np.cumsum([0] + [len(r[2]) for r in rows]).astype(np.int64)
    classes = [c for r in rows for c in r[4]]
    sizes = np.array([s for r in rows for s in r[3]], dtype=np.int64)
    return RootSplit(
        space=space, depth_limit=depth_limit,
        guesses=np.array([r[1] for r in rows], dtype=np.int64), starts=starts,
        job_guess=np.repeat(np.arange(len(rows), dtype=np.int64), np.diff(starts)),
        job_answer=np.array([a for r in rows for a in r[2]], dtype=np.int64),
        job_size=sizes, job_lb=lb[sizes].astype(np.int64) if sizes.size else sizes,
        members=np.concatenate(classes) if classes else np.zeros(0, dtype=np.int32),
        member_starts=np.cumsum([0] + [c.size for c in classes]).astype(np.int64))


def job_params(pegs: int, colours: int, repeats: bool, depth_limit: int | None,
               split: RootSplit) -> dict:
    """The checkpoint parameters: what determines every job's exact value."""
    return {"pegs": pegs, "colours": colours, "repeats": repeats, "max_guesses": depth_limit,
            "scheme": SPLIT_SCHEME, "jobs": split.jobs, "split": split.digest()}


def job_value(search: OptimalSearch, worker: int, split: RootSplit, task,
              budget: int) -> tuple[int, bool]:
    """``(value, exact)`` of a task ``(job, guess, answers)``: the least total of job
    ``job``'s class within the guesses left (``guess`` -1); or (``guess >= 0``,
    ``answers`` None) that of the class when ``guess`` is its first guess; or
    (``answers`` a tuple of answers) the least totals, summed, of the codes of the
    class answering each of ``answers`` to ``guess``, searched in that order, each
    with the budget the others leave (the tasks of a job split below the root, see
    :func:`child_node`). Exact when below ``budget``, else a lower bound ``>= budget``.

    Runs on ``search.states[worker]`` (one thread at a time per state). Raises
    KeyboardInterrupt when ``search.stop`` was set during the search (the value is
    then meaningless, and so are the search's caches).
    """
    job, guess, answers = task
    job, guess = int(job), int(guess)
    space = split.space
    first = int(split.guesses[split.job_guess[job]])
    state = search.states[worker]
    state.history[0] = first
    used = np.zeros(space.colours, dtype=np.bool_)
    used[space.digits[first]] = True
    codes = split.class_codes(job)
    if answers is None:  # the whole class, or ``guess`` first
        value = _search(search, state, codes, budget, 1, used, guess)
        return value, value < budget
    feedback = (search.matrix[guess, codes] if search.matrix.shape[0] else
                np.array([space.feedback(guess, s) for s in codes]))
    state.history[1] = guess
    used[space.digits[guess]] = True
    parts = [np.ascontiguousarray(codes[feedback == int(f)]) for f in answers]
    # what the classes not yet searched cost at least
    rest = int(sum(int(search.lb[part.size]) for part in parts))
    total = 0
    for part in parts:
        low = int(search.lb[part.size])
        rest -= low
        left = budget - total - rest  # the budget of this class
        # (a budget at or below the class's lb(size): the sum reaches the budget)
        value = _search(search, state, part, left, 2, used, -1) if left > low else low
        total += value
        if value >= left:  # cut: the sum is at least the budget
            return total + rest, False
    return total, True


def _search(search: OptimalSearch, state, codes: np.ndarray, budget: int, level: int,
            used: np.ndarray, only: int) -> int:
    """:func:`.branch_and_bound.solve` of ``codes`` below ``level`` guesses (raises
    KeyboardInterrupt when ``search.stop`` was set)."""
    # np.int64: the argument type solve() is compiled for (see branch_and_bound.solve)
    value = int(solve(search.tables, codes, 0, codes.size, search.remaining - level,
                      int(budget), level, used, state, np.int64(only)))
    if search.stop[0] != 0:
        raise KeyboardInterrupt
    return value


def job_bounds(split: RootSplit, search: OptimalSearch) -> np.ndarray:
    """Per job, a lower bound of its class's cost one level deeper than ``lb(size)``:
    ``max(lb(size), set_bound(class))`` (:func:`.candidates.set_bound`, the least
    ``s + sum lb(class sizes)`` of any next guess; valid under any depth limit).

    The plan bounds a root guess's total by the sum of its classes' bounds, so these
    give every job a tighter budget (what the guess's other classes leave) and close
    root guesses that cannot win before any of their jobs runs (on 5 x 6, 11111:
    38,323 > 36,721). The bounds change only the work done, never the total or the
    guess. One pass over each class's rows of the response matrix per root guess
    (``search.states[0]``'s scratch).
    """
    state = search.states[0]
    bounds = split.job_lb.copy()
    for job in range(split.jobs):
        codes = split.class_codes(job)
        if codes.size >= 2:
            bounds[job] = max(int(bounds[job]),
                              int(set_bound(search.tables, codes, 0, codes.size,
                                            INFEASIBLE, state)))
    return bounds


def validate_partial(params: dict, start: int, stop: int, partial) -> None:
    """Raise ValueError unless ``partial`` is a possible result of job ``start``.

    A job's partial is ``{"value": v, "exact": e, "budget": b}``: ``b`` an integer
    above the class's ``lb(size)``; exact (``e`` true) means ``lb <= v < b`` and, with
    no depth limit, ``v <= s (s + 1) / 2`` (guessing the ``s`` codes one by one);
    else ``v >= b`` (a lower bound the search proved).
    """
    if stop != start + 1:
        raise ValueError("a job is one item")
    split = root_split(params["pegs"], params["colours"], params["repeats"],
                       params["max_guesses"])
    if not isinstance(partial, dict) or set(partial) != {"value", "exact", "budget"}:
        raise ValueError("not a job result {value, exact, budget}")
    if type(partial["exact"]) is not bool:
        raise ValueError("exact is not true or false")
    size, lb = int(split.job_size[start]), int(split.job_lb[start])
    budget = check_count(partial["budget"], "budget", lb + 1, INFEASIBLE + 1)
    if partial["exact"]:
        high = size * (size + 1) // 2 if params["max_guesses"] is None else INFEASIBLE
        check_count(partial["value"], "value", lb, min(high, budget - 1))
    else:
        check_count(partial["value"], "value", budget)


def exact_job_worker(params: dict, start: int, stop: int) -> dict:
    """The partial of job ``start`` searched without a budget (always exact).

    The worker of :func:`root_job` for :func:`jitgames._chunked.run_chunks`, which
    runs every job in full: the plain, slower way to the same optimum (the tests
    compare the two). :func:`optimal_run` gives each job a budget instead.
    """
    return dask_job(params, (start, -1, None), INFEASIBLE + 1)


def root_job(split: RootSplit) -> ChunkedJob:
    """The :class:`jitgames._chunked.ChunkedJob` of a game's jobs: one item per job,
    the parameters of its checkpoints, :func:`validate_partial` as the check."""
    space = split.space
    params = job_params(space.pegs, space.colours, space.repeats, split.depth_limit, split)
    return ChunkedJob(JOB_NAME, params, tuple((j, j + 1) for j in range(split.jobs)),
                      exact_job_worker, validate_partial)


# Searches of this process for Dask jobs, free ones per game (each used by one thread
# at a time): a worker process keeps its sub-results between jobs.
_FREE_SEARCHES: dict = {}
_FREE_LOCK = threading.Lock()


def dask_job(params: dict, task, budget: int) -> dict:
    """One task ``(job, guess, answers)`` (:func:`job_value`) on a Dask worker: the partial
    ``{value, exact, budget}``."""
    split = root_split(params["pegs"], params["colours"], params["repeats"],
                       params["max_guesses"])
    key = (params["pegs"], params["colours"], params["repeats"], params["max_guesses"])
    with _FREE_LOCK:
        free = _FREE_SEARCHES.setdefault(key, [])
        search = free.pop() if free else None
    if search is None:
        _, matrix = load_game(params["pegs"], params["colours"], params["repeats"])
        search = OptimalSearch(split.space, matrix, params["max_guesses"], workers=1)
    value, exact = job_value(search, 0, split, task, budget)
    with _FREE_LOCK:
        _FREE_SEARCHES[key].append(search)
    return {"value": value, "exact": exact, "budget": int(budget)}


# ----------------------------------------------------------------------------- task results

TASKS_JOB_NAME = "mastermind.optimal.tasks"


def tasks_path(checkpoint) -> Path:
    """Where the task results of ``checkpoint``'s run are kept: beside it, ``.tasks`` added."""
    return Path(str(checkpoint) + ".tasks")


def validate_task(split: RootSplit, lb: np.ndarray, matrix: np.ndarray, row) -> tuple:
    """``((job, guess, answers), (value, exact, budget))`` of a stored task result
    ``[job, guess, answers, value, exact, budget]``, or ValueError saying what is wrong.

    ``answers`` is None (the whole class with ``guess`` first: the value counts the
    class's codes too) or a list of distinct answers other than "solved" (the summed
    least totals of the codes of the class answering each). As for a job
    (:func:`validate_partial`): exact means ``low <= value < budget`` and, with no
    depth limit, ``value`` at most guessing the codes one by one; else ``value >=
    budget``. ``low`` is ``lb`` of the sizes of the classes ``guess`` makes.
    ``matrix``: the game's response matrix (empty: answers computed one by one).
    """
    if not (isinstance(row, list) and len(row) == 6):
        raise ValueError(f"malformed task {shorten(row)}")
    job, guess, answers, value, exact, budget = row
    check_count(job, "job", 0, split.jobs - 1)
    space = split.space
    check_count(guess, "guess", 0, space.size - 1)
    if type(exact) is not bool:
        raise ValueError("exact is not true or false")
    codes = split.class_codes(job)
    feedback = (matrix[guess, codes] if matrix.shape[0] else
                np.array([space.feedback(guess, int(s)) for s in codes], dtype=np.int64))
    slots, counts = np.unique(feedback, return_counts=True)
    sizes = dict(zip(slots.tolist(), counts.tolist()))
    if answers is None:
        parts = [s for f, s in sizes.items() if f != space.solved]
        low, high = codes.size, codes.size
    else:
        check_counts(answers, "answers", None, 0, (space.pegs + 1) ** 2 - 1)
        if not answers or len(set(answers)) != len(answers) or space.solved in answers:
            raise ValueError(f"answers {shorten(answers)} are not distinct answers other "
                             "than solved")
        parts = [sizes.get(f, 0) for f in answers]
        low = high = 0
    low += sum(int(lb[s]) for s in parts)
    high += sum(s * (s + 1) // 2 for s in parts)
    check_count(budget, "budget", 0, 2 * INFEASIBLE + space.size)
    if exact:
        top = high if split.depth_limit is None else 2 * INFEASIBLE + space.size
        check_count(value, "value", low, min(top, budget - 1))
    else:
        check_count(value, "value", budget)
    return (job, guess, None if answers is None else tuple(answers)), (value, exact, budget)


@dataclass
class TaskStore(CheckedFile):
    """Results of the tasks of split jobs (:func:`job_value`'s ``(job, guess, answers)``)
    not yet settled, kept beside a run's checkpoint (:func:`tasks_path`) so that a
    restarted run does not search them again: a large job of a long run (6 x 5) is
    hundreds of tasks and can take longer than one sitting.

    A :class:`jitgames._chunked.CheckedFile` (``docs/storage.md``) of job
    ``TASKS_JOB_NAME`` with the run's parameters and rows ``[job, guess, answers, value,
    exact, budget]``; every row is checked (:func:`validate_task`) before use. A task's
    result is a fact about the game (its value, or a lower bound), whatever run found
    it. The tasks of a job are dropped once the job itself is kept in the checkpoint.
    """

    WHAT: ClassVar[str] = "task file"
    ROWS: ClassVar[str] = "tasks"

    params: dict
    results: dict = field(default_factory=dict)

    @classmethod
    def open(cls, path, split: RootSplit, params: dict, matrix: np.ndarray) -> "TaskStore":
        """Load ``path`` if it exists, else start empty; refuse (StoreError, one line)
        a file that fails its checks or cannot be written, without touching it.
        ``matrix``: the game's response matrix (see :func:`validate_task`)."""
        path = Path(path)
        store = cls(path, params)
        rows = cls._read_rows(path, TASKS_JOB_NAME, params)
        if rows is None:
            return store
        lb = lower_bounds(split.space.size, branches(split.space.pegs))
        for i, row in enumerate(rows):
            try:
                key, result = validate_task(split, lb, matrix, row)
            except (ValueError, TypeError) as exc:
                raise cls._refusal(path, f"task {i}: {exc}") from None
            if key in store.results:
                raise cls._refusal(path, f"task {i} appears twice")
            store.results[key] = result
        return store

    def record(self, key: tuple, value: int, exact: bool, budget: int) -> None:
        """Keep a task's result; rewrite the file if the wait is over."""
        self.results[key] = (int(value), bool(exact), int(budget))
        self._changed()

    def holds(self, job: int) -> bool:
        """Whether a task of job ``job`` is kept."""
        return any(key[0] == job for key in self.results)

    def forget(self, job: int) -> None:
        """Drop the tasks of job ``job`` (its own result is kept in the checkpoint)."""
        stale = [key for key in self.results if key[0] == job]
        for key in stale:
            del self.results[key]
        if stale:
            self._changed()

    def _document(self) -> dict:
        rows = [[job, guess, None if answers is None else list(answers), *result]
                for (job, guess, answers), result in sorted(
                    self.results.items(), key=lambda item: (item[0][0], item[0][1],
                                                            item[0][2] or ()))]
        return {"job": TASKS_JOB_NAME, "params": self.params, "tasks": rows}
