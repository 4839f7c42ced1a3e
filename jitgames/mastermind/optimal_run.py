"""The optimal Mastermind total as a long, resumable run split at the root.

The jobs (:mod:`.optimal_jobs`): one per pair (root guess, answer class), the least
total guesses for the codes of that class within the guesses left. They are
independent, so they run on several threads or on the workers of a Dask cluster, and
a finished job is kept in a checkpoint (its format: :mod:`.optimal_jobs`).

Branch and bound across jobs, every cut exact:

- each job has a *budget*: its result is exact when below it, else a lower bound
  at least the budget (the search stops as soon as it knows that much);
- a root guess's total is bounded below by ``n`` plus, per class, its exact cost, a
  lower bound found by a cut-off job, or the bound one level deeper than ``lb(size)``
  (:func:`.optimal_jobs.job_bounds`; checkpoints are still checked against
  ``lb(size)``, :func:`.candidates.lower_bounds`);
- the best total found so far, ``U``, gives the budget of a job of guess ``c``:
  ``U`` minus what the other classes of ``c`` are known to cost at least (``U + 1``
  for a guess before the best one in the order, so that the *first* guess attaining
  the optimum is the one reported, whatever the scheduling);
- a guess whose lower bound reaches its budget is cut: its other jobs never run;
- guesses are tried in order of ``n + sum lb(class sizes)`` (then code), their
  classes largest first; until the first guess has a total, only its jobs run.

The total and the reported guess depend on nothing but the game (not on the number
of threads or workers, nor on what a checkpoint holds); which jobs were cut, and
the lower bounds they gave, depend on the order in which jobs finished.

See ``docs/mastermind_optimal.md`` (section "Larger games and resumable runs").
"""
from __future__ import annotations

import threading
from collections import deque
import time
from dataclasses import dataclass

import numpy as np

from .._chunked import Checkpoint
from .._interrupt import run_interruptible
from .._jit import thread_count
from .._warmup import helper_compiling, stop as stop_helper
from .._store import StoreError
from ..errors import InputError
from .candidates import INFEASIBLE, fast_case, root_candidates, search_order
from .codes import DEFAULT_MATRIX_BYTES, load_game
from .optimal import OptimalSearch, search_and_build
from .optimal_jobs import (RootSplit, TaskStore, dask_job, job_bounds, job_value, root_job,
                           root_split, tasks_path)
from .optimal_plan import Node
from .tree import DecisionTree
from .warm_up import OPTIMAL_PLAN, plan_parameters

__all__ = ["RunPlan", "OptimalRun", "optimal_run", "child_node", "default_split_above",
           "twin_jobs", "run_tree"]

SPLIT_MIN = 200  # see default_split_above
SPLIT_FRACTION = 32
WINDOW = 3  # see RunPlan (measured: docs/mastermind_optimal.md)
CLASS_ABOVE = None  # see child_node
CHILD_WINDOW = 3  # see RunPlan (measured: docs/mastermind_optimal.md)
SPARE = 2  # see RunPlan (measured: docs/mastermind_optimal.md)
EARLY_START = False  # see RunPlan (measured: docs/mastermind_optimal.md)
DASK_IN_FLIGHT = 4  # see _run_on_dask



# ----------------------------------------------------------------------------- the bound

def twin_jobs(split: RootSplit) -> dict[int, tuple[int, ...]]:
    """Per job whose class holds the same codes as others' (*twins*, whose costs are
    equal: a class's cost depends only on its codes and the guesses left, the same
    for every job), those other jobs; jobs without a twin are left out."""
    groups: dict[bytes, list[int]] = {}
    for job in range(split.jobs):
        groups.setdefault(split.class_codes(job).tobytes(), []).append(job)
    return {job: tuple(t for t in group if t != job)
            for group in groups.values() if len(group) > 1 for job in group}


def default_split_above(codes: int) -> int:
    """Jobs of more codes than this are split below the root: a class of a few
    hundred codes is searched in well under a second, and smaller ones are many."""
    return max(SPLIT_MIN, codes // SPLIT_FRACTION)


class RunPlan:
    """The root :class:`.optimal_plan.Node` of a run, its big jobs split once more.

    A job (root guess, class) whose class holds more than ``split_above`` codes is
    searched as a child node when it first comes up to run (:func:`child_node`): each
    of its own candidate guesses (the ones :func:`.branch_and_bound.solve` would try
    there, symmetry filters included, in the same order) becomes a task
    ``(job, guess)``, so that one large class no longer keeps one thread busy while
    the others wait, and the candidates share the child's best total as their bound.
    A split job is recorded (and checkpointed) once its child is settled; each result
    of a task of a child is handed to ``keep_task(task, value, exact, budget)`` until
    then (``task`` is ``(job, guess, answers)``, :class:`.optimal_jobs.TaskStore`
    keeps them across a restart), and a task whose result is in ``stored`` (a dict
    like ``TaskStore.results``) is not searched again when it is exact or a lower
    bound at least its budget now: it is recorded as if it had run
    (``tasks_replayed`` counts them).

    The root lets only its first ``window`` open candidates run, and each child its
    first ``child_window`` (:class:`.optimal_plan.Node`): a candidate further on in the order
    starts once the earlier ones have closed, with the budget their totals give, as in
    the sequential search, instead of starting at once with a weak budget and searching
    what the sequential search cuts. None lifts the limit. The work a run
    does then stays near one thread's (``bench/mastermind_scaling.py`` measures both).

    With ``early_start``, the later root guesses start before the first one's total is
    exact, as soon as its classes are exact or split jobs with a total (the cost of
    that strategy bounds them, :meth:`.optimal_plan.Node._find_upper`), while its
    split jobs finish proving their other candidates worse. (Replayed on 4 x 8, 16
    threads: it keeps the threads busy through that stretch but does as much more
    work as it saves time: off by default, ``docs/mastermind_optimal.md``.)

    When threads would otherwise wait, every window is widened by up to ``spare``
    candidates (the task nearest the windows first): a thread then searches a
    candidate with the budget of the moment rather than nothing (more work, fewer
    idle threads; measured in ``docs/mastermind_optimal.md``).

    Jobs whose classes hold the same codes (*twins*: on 4 x 8 the 1296 codes of the
    colours 3 to 8, the class "no peg" of both ``1122`` and ``1112``) cost the same, a
    class's cost depending only on its codes and the guesses left. A twin that comes
    up to run while another is in progress waits for it (it is held, not searched),
    and every result of a job, exact or a lower bound, is also that of its twins not
    in progress; a twin whose budget then exceeds that lower bound runs itself.

    ``expand(job)`` lists a job's candidates (a kernel call on a search state of the
    driver's own). Not thread-safe: the drivers call it under their lock. The total
    and the first root guess attaining it are the same whatever is split and however
    the tasks interleave (see :mod:`.optimal_plan`).
    """

    BOUND = INFEASIBLE + 1  # the root matters whatever it costs

    def __init__(self, split: RootSplit, expand=None, split_above: int | None = None,
                 keep=None, progress=None, window: int | None = WINDOW,
                 child_window: int | None = CHILD_WINDOW, bounds: np.ndarray | None = None,
                 spare: int = SPARE, twins: bool = True, early_start: bool = EARLY_START,
                 keep_task=None, stored: dict | None = None):
        self.split = split
        self.window = window
        self.child_window = child_window
        self.spare = spare
        # (bounds: the jobs' lower bounds, e.g. job_bounds; default lb(size))
        self.root = Node(split.space.size, split.starts,
                         split.job_lb if bounds is None else bounds, window=window,
                         early_start=early_start)
        self.expand = expand
        self.split_above = split_above
        self.keep = keep  # keep(job, partial) of every job settled here
        self.progress = progress  # progress(self) after every task
        self.keep_task = keep_task
        self.stored = {} if stored is None else stored
        self.known: dict[int, tuple[int, bool]] = {}  # settled jobs (value, exact)
        self.tasks_run = 0
        self.tasks_replayed = 0
        # tasks in flight, and their wall seconds summed (busy_seconds / wall = how
        # many threads had work on average: the parallelism the plan let out)
        self.in_flight = 0
        self.busy_seconds = 0.0
        # (set by the thread driver: seconds its threads waited to take its lock, and
        # waited with no task to take; measured to see where 16 threads lose time)
        self.lock_seconds = self.idle_seconds = 0.0
        self._since = time.perf_counter()
        self._expanded: set[int] = set()
        self.twins = twin_jobs(split) if twins else {}
        self._held: set[int] = set()  # twins waiting for another in progress

    def _flight(self, change: int) -> None:
        now = time.perf_counter()
        self.busy_seconds += self.in_flight * (now - self._since)
        self._since = now
        self.in_flight += change

    @property
    def best(self) -> int:
        return self.root.best

    @property
    def best_guess(self) -> int:
        return self.root.best_guess

    def record(self, job: int, value: int, exact: bool, partial: dict | None = None) -> None:
        """A whole job's result (run here, on a worker, or read from a checkpoint),
        also that of its twins not in progress (``partial``: kept for each of them)."""
        self._record(job, value, exact)
        for twin in self.twins.get(job, ()):
            if twin in self._held:  # it waited for this job
                self._held.discard(twin)
                self.root.running.discard(twin)
            elif self._in_progress(twin):
                continue
            self._record(twin, value, exact)
            if partial is not None and self.keep is not None:
                self.keep(twin, partial)

    def _record(self, job: int, value: int, exact: bool) -> None:
        self.root.record(job, value, exact)
        self.known[job] = self.root.known[job]

    def _in_progress(self, job: int) -> bool:
        """Job ``job`` runs whole, or as a child node (not held for a twin)."""
        return job in self.root.children or (job in self.root.running
                                              and job not in self._held)

    def next_job(self):
        """``(key, task, budget)`` to run now, or None (all settled, or waiting): a task
        inside the windows, else one inside windows widened by 1, 2, ... ``spare``
        (:meth:`.optimal_plan.Node.next_task`)."""
        while True:
            found = self.root.next_task(self.BOUND, widen=self.spare)
            if found is None:
                return None
            path, budget = found
            job = path[0]
            if len(path) == 1:
                if any(self._in_progress(twin) for twin in self.twins.get(job, ())):
                    self._held.add(job)  # it waits for that twin (record)
                    self.root.running.add(job)
                    continue
                if (self.expand is not None and self.split_above is not None
                        and job not in self._expanded
                        and self.split.job_size[job] > self.split_above):
                    self._expanded.add(job)
                    child = self.expand(job)
                    if child is not None:
                        child.window = self.child_window
                        self.root.attach(job, child)
                        continue
                self.root.running.add(job)
                self._flight(1)
                return path, (job, -1, None), budget
            child = self.root.children[job]
            child.running.add(path[1])
            self._flight(1)
            guess, answers = child.labels[path[1]]
            # a whole candidate's task counts the child's codes too (see child_node)
            budget += child.size if answers is None else 0
            task = (job, int(guess), None if answers is None else tuple(map(int, answers)))
            stored = self.stored.get(task)
            if stored is not None and (stored[1] or stored[0] >= budget):
                self.done(path, stored[0], stored[1], budget, replayed=True)
                continue
            return path, (job, guess, answers), budget

    def done(self, key, value: int, exact: bool, budget: int, replayed: bool = False) -> None:
        """Add the result of the task ``key`` (a path from :meth:`next_job`; ``replayed``:
        read from ``stored``, not searched)."""
        if replayed:
            self.tasks_replayed += 1
        else:
            self.tasks_run += 1
        self._flight(-1)
        job = key[0]
        if len(key) == 1:
            self.root.running.discard(job)
            partial = {"value": int(value), "exact": bool(exact), "budget": int(budget)}
            if self.keep is not None:
                self.keep(job, partial)
            self.record(job, value, exact, partial)
        else:
            child = self.root.children[job]
            child.running.discard(key[1])
            guess, answers = child.labels[key[1]]
            whole = answers is None  # its value counts the child's codes
            child.record(key[1], value - (child.size if whole else 0), exact)
            if self.keep_task is not None and not replayed:
                self.keep_task((job, int(guess), None if whole else tuple(map(int, answers))),
                               value, exact, budget)
        self._settle()
        if self.progress is not None and not replayed:
            self.progress(self)

    def dropped(self, key) -> None:
        """A task that did not finish (an error or Ctrl-C): no longer running."""
        self._flight(-1)
        node = self.root
        for k in key[:-1]:
            node = node.children.get(k)
            if node is None:
                return
        node.running.discard(key[-1])

    def _settle(self) -> None:
        for job, value, exact, bound in self.root.settle_children(self.BOUND):
            lb = int(self.split.job_lb[job])
            partial = None
            if exact:
                partial = {"value": value, "exact": True, "budget": max(bound, value + 1)}
            elif value > lb:  # (a bound no better than lb(size) is not worth keeping)
                partial = {"value": value, "exact": False,
                           "budget": max(lb + 1, min(bound, value))}
            if partial is not None and self.keep is not None:
                self.keep(job, partial)
            self.record(job, value, exact, partial)

    @property
    def finished(self) -> bool:
        self._settle()
        return self.root.settled(self.BOUND)

    def bounds(self) -> tuple[int, int | None]:
        """``(lower, upper)``: the optimum lies between them (upper None: no total yet)."""
        root = self.root
        lows = [root.lower(c) for c in range(root.candidates) if not root.closed(c, self.BOUND)]
        upper = root.best if root.best < INFEASIBLE else None
        return min(lows + ([root.best] if upper is not None else [INFEASIBLE])), upper


def child_node(search: OptimalSearch, split: RootSplit, job: int,
               class_above: int | None = CLASS_ABOVE) -> Node | None:
    """The :class:`.optimal_plan.Node` of job ``job``'s class, its candidate guesses
    listed on ``search.states[0]`` in the order :func:`.branch_and_bound.solve` tries
    them (symmetry filters included). ``node.labels[k]`` is ``(guess, answers)`` of
    class ``k``: the task ``(job, guess, answers)`` (:func:`job_value`). None when a
    fast case settles the class (it then runs as one job).

    - The first candidate, which nothing bounds yet, is searched by its classes, one
      task each, smallest first (as ``solve`` takes them).
    - A later candidate with classes of more than ``class_above`` codes: its smaller
      classes are one task (searched together, smallest first, each with the budget
      the others leave, as in ``solve``: stage 0), each larger class but the largest
      a task of its own (stage 1), then the largest (stage 2); a stage starts once
      the earlier ones are known exactly (:class:`.optimal_plan.Node`). A candidate
      that the small classes cut costs one short task, and the large classes of one
      that survives them run on several threads. (Measured: it keeps more threads
      busy but does half as much work again as one thread, a large class started
      beside its siblings being bounded by their lower bounds, not by their exact
      values; ``docs/mastermind_optimal.md``. Off by default.)
    - Any other candidate (``class_above`` None: all of them, the default) is one
      task ``(job, guess, None)``: the class's total when that guess comes first,
      bounded below by its estimate.
    """
    space, state = split.space, search.states[0]
    codes = split.class_codes(job)
    first = int(split.guesses[split.job_guess[job]])
    m, remaining = codes.size, search.remaining - 1
    floor, guess = fast_case(search.tables, codes, 0, m, remaining, state.masks,
                             np.zeros((space.pegs + 1) ** 2, dtype=np.int64))
    if guess >= 0 or floor >= INFEASIBLE or search.matrix.shape[0] == 0:
        return None
    used = np.zeros(space.colours, dtype=np.bool_)
    used[space.digits[first]] = True
    state.history[0] = first
    n_cand = root_candidates(search.tables, codes, 0, m, remaining, 1, used, state)
    if n_cand == 0:  # no guess fits the depth: one job finds that out
        return None
    keys = search_order(state.order_keys[1, :n_cand])
    slots = (space.pegs + 1) ** 2
    # class sizes of the candidates that may be split (the first alone when
    # class_above is None): row i counts the codes' answers to guess i
    rows = n_cand if class_above is not None else 1
    answers = search.matrix[keys[:rows, 1]][:, codes].astype(np.int64)
    answers += (np.arange(rows, dtype=np.int64) * slots)[:, None]
    sizes = np.bincount(answers.ravel(), minlength=rows * slots).reshape(rows, slots)
    sizes[:, space.solved] = 0
    labels, class_lb, starts, stage = [], [], [0], []
    for i in range(n_cand):
        g = int(keys[i, 1])
        row = sizes[i] if i < rows else None
        large, small = [], ()
        if row is not None:
            order = np.lexsort((np.arange(slots), row))  # smallest first, then answer
            order = [int(f) for f in order[slots - np.count_nonzero(row):]]
            large = [f for f in order if class_above is not None and row[f] > class_above]
            small = tuple(f for f in order if f not in large)
        if i == 0:  # nothing bounds it yet: all its classes at once
            parts, stages = [(f,) for f in order], [0] * len(order)
        elif not large:  # one task: the candidate's total, the node's m codes included
            parts, stages = [None], [0]
        else:
            # the small classes together, then the large ones but the largest, then it
            parts = [small] * bool(small) + [(f,) for f in large]
            stages = [0] * bool(small) + [1] * (len(large) - 1) + [2]
        for part in parts:
            labels.append((g, part))
            class_lb.append(int(keys[i, 0]) - m if part is None else
                            sum(int(search.lb[row[f]]) for f in part))
        stage += stages
        starts.append(len(labels))
    # every candidate pays m (the codes' guess here), whole ones in their task's value
    node = Node(m, starts, class_lb, floor=max(int(floor), int(search.lb[m])), stage=stage)
    node.labels = labels
    return node


# ----------------------------------------------------------------------------- runs

@dataclass(frozen=True)
class OptimalRun:
    """The outcome of :func:`optimal_run`.

    ``total`` (None until known) is the optimum; ``lower``/``upper`` bound it (equal
    when complete); ``guess`` is the first root guess in the job order attaining it.
    ``jobs_exact`` and ``jobs_cut`` count the jobs finished with an exact value or a
    lower bound at their budget (``jobs_resumed`` of them read from the checkpoint);
    ``seconds`` is the wall time of this call; ``tasks`` counts the kernel searches it
    ran (whole jobs, and the tasks of jobs split below the root), ``tasks_resumed``
    the tasks of split jobs whose results were read from the task file instead
    (:class:`.optimal_jobs.TaskStore`); ``tree`` is the
    optimal strategy when it was asked for and the run completed (:func:`run_tree`).
    """

    pegs: int
    colours: int
    repeats: bool
    max_guesses: int | None
    codes: int
    total: int | None
    guess: str | None
    lower: int
    upper: int | None
    complete: bool
    jobs: int
    jobs_exact: int
    jobs_cut: int
    jobs_resumed: int
    seconds: float
    tasks: int = 0
    tree: DecisionTree | None = None
    tasks_resumed: int = 0

    def to_dict(self) -> dict:
        """The JSON object of ``optimal --json`` (without ``complete``)."""
        return {"pegs": self.pegs, "colours": self.colours, "repeats": self.repeats,
                "max_guesses": self.max_guesses, "codes": self.codes, "total": self.total,
                "mean": None if self.total is None else self.total / self.codes,
                "first_guess": self.guess, "lower_bound": self.lower,
                "upper_bound": self.upper, "jobs": self.jobs, "jobs_exact": self.jobs_exact,
                "jobs_cut": self.jobs_cut, "jobs_resumed": self.jobs_resumed,
                "tasks": self.tasks, "tasks_resumed": self.tasks_resumed,
                "seconds": round(self.seconds, 3)}


class _Mailbox:
    """Where a waiting thread of :func:`_run_here` is handed its next task."""

    __slots__ = ("event", "task")

    def __init__(self):
        self.event = threading.Event()
        self.task = None


def _run_here(plan: RunPlan, search: OptimalSearch) -> None:
    """Run the tasks on ``search.workers`` threads of this process (each its own search
    state; ``solve`` releases the GIL).

    One lock guards the plan (plain Python, so the GIL too). A thread that has searched
    a task records its result and, in the same hold of the lock, takes its next task
    and one for each waiting thread, handed to that thread (its mailbox) and woken:
    the plan is walked about once per task handed out, and only threads given a task
    wake. Waking every waiting thread at each result instead, each to walk the plan
    under the lock and mostly find nothing, made 16 threads queue for the lock and the
    GIL when tasks take a few milliseconds (``docs/mastermind_optimal.md``).
    """
    lock = threading.Lock()
    waiting = deque()  # mailboxes of the threads waiting for a task, in arrival order

    def wake_all():
        while waiting:
            waiting.popleft().event.set()

    def feed():
        """A task for each waiting thread, while the plan has some."""
        while waiting:
            found = plan.next_job()
            if found is None:
                return
            box = waiting.popleft()
            box.task = found
            box.event.set()

    def next_task(box):
        """The thread's next task, or None when it should stop (``lock`` held on entry
        and on return; released while the thread waits)."""
        while True:
            if search.stop[0] != 0:
                if box.task is not None:  # handed over but never started
                    plan.dropped(box.task[0])
                    box.task = None
                wake_all()
                return None
            if box.task is not None:
                found, box.task = box.task, None
                return found
            found = plan.next_job()
            if found is not None:
                return found
            if plan.finished:
                wake_all()
                return None
            box.event.clear()
            waiting.append(box)
            asked = time.perf_counter()
            lock.release()
            try:
                box.event.wait(0.5)
            finally:
                lock.acquire()
            plan.idle_seconds += time.perf_counter() - asked
            if box in waiting:  # timed out without a task: look again
                waiting.remove(box)

    def work(worker):
        box = _Mailbox()
        result = None  # (key, value, exact, budget) of the task just searched
        while True:
            asked = time.perf_counter()
            with lock:
                plan.lock_seconds += time.perf_counter() - asked
                if result is not None:
                    plan.done(*result)
                    result = None
                found = next_task(box)
                if found is not None:
                    feed()
            if found is None:
                return
            key, task, budget = found
            try:
                value, exact = job_value(search, worker, plan.split, task, budget)
            except BaseException:
                with lock:
                    plan.dropped(key)
                    wake_all()
                raise
            result = (key, value, exact, budget)

    search.on_threads(work)


def _run_on_dask(plan: RunPlan, client, params: dict) -> None:
    """Run the tasks on a Dask cluster, :data:`DASK_IN_FLIGHT` in flight per worker
    thread: a worker starts its next task while the result of the last one travels
    back to this process and the next ones are decided here (a task queued on a
    worker keeps the budget it was given, weaker than a later one might be: more work,
    never another total)."""
    from distributed import wait

    slots = DASK_IN_FLIGHT * max(1, sum(client.nthreads().values()))
    flying = {}
    try:
        while not plan.finished:
            while len(flying) < slots:
                found = plan.next_job()
                if found is None:
                    break
                key, task, budget = found
                flying[client.submit(dask_job, params, task, budget, pure=False,
                                     retries=3)] = (key, budget)
            if not flying:
                break
            done = wait(list(flying), return_when="FIRST_COMPLETED").done
            for future in done:
                key, budget = flying.pop(future)
                partial = future.result()
                plan.done(key, partial["value"], partial["exact"], budget)
    except KeyboardInterrupt:
        client.cancel(list(flying))
        raise


def optimal_run(pegs: int, colours: int, repeats: bool = True, max_guesses: int | None = None,
                *, checkpoint=None, client=None, workers: int | None = None,
                max_matrix_bytes: int = DEFAULT_MATRIX_BYTES, progress=None,
                split_above: int | None = None, window: int | None = WINDOW,
                child_window: int | None = CHILD_WINDOW,
                class_above: int | None = CLASS_ABOVE, spare: int = SPARE,
                twins: bool = True, early_start: bool = EARLY_START,
                tree: bool = False) -> OptimalRun:
    """The optimal total of a game, run as independent jobs (see the module docs).

    On an empty cache, with a core to spare, a helper process compiles the search's
    callees beside this one from the first compile until the first task's result
    (:mod:`.warm_up`, :mod:`jitgames._warmup`): the same code, compiled sooner.

    Parameters
    ----------
    checkpoint : path, optional
        Resume from and record finished jobs in this file, and the finished tasks
        of jobs split below the root not yet settled in ``FILE.tasks``
        (:class:`.optimal_jobs.TaskStore`); either is refused with
        :class:`jitgames._store.StoreError` if it fails its checks.
    client : distributed.Client, optional
        Run the jobs on this Dask cluster instead of threads of this process.
    workers : int, optional
        Threads of this process (default: the current Numba thread count).
    progress : callable, optional
        Called as ``progress(plan)`` after every finished task, and once more before
        the tree is built (``tree``).
    split_above : int, optional
        Jobs of classes larger than this are split into tasks below the root
        (:class:`RunPlan`). Default: :func:`default_split_above` when the run has
        several threads, else none: one thread gains nothing from tasks, and is
        spared compiling the kernel that lists them; nor does a cluster, where a task
        must be seconds, not milliseconds, to outweigh its round trip client -
        scheduler - worker (4 x 8 on 2 local workers: 1.62 x one worker on whole
        root jobs, 1.39 x with the classes of over a quarter of the codes split,
        about 1.0 x on 4 x 7 with the threads' split; ``docs/mastermind_optimal.md``).
        A cluster of many workers may gain from a large value (whole root jobs are
        few and unequal). It changes only the speed, never the total or the guess.
    window : int or None
        Open candidates of a node that may run at once (:class:`RunPlan`; None: no
        limit). It changes only the work done and the speed, never the total or the
        guess.
    child_window : int or None
        The same for the candidates of each split job.
    class_above : int or None
        The later candidates of a split job are split into their classes of more
        than this many codes (:func:`child_node`; None: not split, the scheme
        before). Speed only, as above.
    spare : int
        A thread that would wait takes a task in windows widened by up to this many
        candidates (:class:`RunPlan`). Speed only, as above.
    twins : bool
        A job whose class holds the same codes as another's takes its result
        instead of being searched as well (:class:`RunPlan`). Speed only, as above.
    early_start : bool
        The later root guesses start once the first one's total is bounded above
        (:class:`RunPlan`). Speed only, as above.
    tree : bool
        Also build the optimal strategy's tree once the total is known
        (:func:`run_tree`; Ctrl-C while it is built leaves ``tree`` None and
        ``complete`` False, the checkpoint complete).

    Returns an :class:`OptimalRun`; after Ctrl-C (``complete`` False) it holds the
    bounds proved so far, and the checkpoint every finished job.

    Raises
    ------
    InputError
        If no strategy solves every code within ``max_guesses`` guesses.
    """
    # On an empty cache a helper process compiles the search's callees beside this one
    # (jitgames._warmup, .warm_up) from the command's first compile until the first
    # task's result, by when ``solve`` is compiled here.
    with helper_compiling(OPTIMAL_PLAN, *plan_parameters(pegs, colours, repeats)) as helper:
        begin = time.perf_counter()
        split = root_split(pegs, colours, repeats, max_guesses, max_matrix_bytes)
        space = split.space
        job = root_job(split)
        params = job.params
        store = Checkpoint.open(checkpoint, job) if checkpoint is not None else None
        _, matrix = load_game(pegs, colours, repeats, max_matrix_bytes)
        tasks = None
        if checkpoint is not None:
            if tasks_path(checkpoint).exists() and not store.path.exists():
                # (the checkpoint is always written before its task file: it was removed)
                raise StoreError(f"task file {tasks_path(checkpoint)} without its checkpoint "
                                 f"{checkpoint}; move it away too to start afresh")
            tasks = TaskStore.open(tasks_path(checkpoint), split, params, matrix)

        def keep(j, partial):
            if store is not None:
                store.record((j, j + 1), partial)
                if tasks.holds(j):
                    # a job's tasks leave the task file only once the checkpoint on disk
                    # holds the job (a run killed between the two writes loses nothing)
                    store.flush()
                    if store.saved:
                        tasks.forget(j)

        def keep_task(task, value, exact, budget):
            if not store.path.exists():  # the checkpoint first, so that a task file
                store.flush(force=True)  # never stands alone (see above)
                if not store.path.exists():
                    return
            tasks.record(task, value, exact, budget)

        workers = workers or thread_count()
        if split_above is None and client is None and workers > 1:
            split_above = default_split_above(space.size)
        expand = None
        if split_above is not None:
            # the driver's own search state lists the candidates of the jobs it splits
            lister = OptimalSearch(space, matrix, max_guesses, workers=1, cache_slots=1024)
            expand = lambda j: child_node(lister, split, j, class_above)  # noqa: E731
        bounder = OptimalSearch(space, matrix, max_guesses, workers=1, cache_slots=1024)
        def on_result(plan):
            stop_helper(helper)  # solve is compiled: what the helper has left is done here
            if progress is not None:
                progress(plan)

        plan = RunPlan(split, expand, split_above, keep, on_result, window, child_window,
                       job_bounds(split, bounder), spare, twins, early_start,
                       keep_task=None if tasks is None else keep_task,
                       stored=None if tasks is None else dict(tasks.results))
        resumed = 0
        if store is not None:
            for (j, _), partial in sorted(store.done.items()):
                plan.record(j, partial["value"], partial["exact"])
                resumed += 1
            for j in plan.known:  # the jobs read back and their twins: their tasks are done
                tasks.forget(j)

        complete, strategy = True, None
        if space.size == 1:
            guess = space.format(0)
            if tree:  # one code: the tree is its one guess
                strategy = search_and_build(space, matrix, max_guesses)[1]
        else:
            search = None  # the threads' search, kept for the tree (none on a cluster)
            try:
                if client is not None:
                    _run_on_dask(plan, client, params)
                else:
                    search = OptimalSearch(space, matrix, max_guesses, workers=workers)
                    run_interruptible(lambda: _run_here(plan, search), stop=search.stop)
            except KeyboardInterrupt:
                complete = False
            finally:
                if store is not None:
                    store.flush()
                    tasks.flush()
            if complete and tasks is not None and not tasks.results:
                tasks.path.unlink(missing_ok=True)  # nothing left for a restart
            if complete and plan.best >= INFEASIBLE:
                raise InputError(f"no strategy solves every code within {max_guesses} guesses")
            if complete and tree:
                if progress is not None:
                    progress(plan)
                try:
                    strategy = run_tree(plan, search or OptimalSearch(
                        space, matrix, max_guesses, workers=workers), max_guesses)
                except KeyboardInterrupt:
                    complete = False
            guess = (space.format(int(split.guesses[plan.best_guess]))
                     if plan.best < INFEASIBLE else None)
        lower, upper = plan.bounds() if space.size > 1 else (1, 1)
        exact = sum(1 for value, ok in plan.known.values() if ok)
        return OptimalRun(pegs, colours, repeats, max_guesses, space.size,
                          upper if complete else (upper if lower == upper else None),
                          guess if complete or lower == upper else None, lower, upper,
                          complete, split.jobs, exact, len(plan.known) - exact, resumed,
                          time.perf_counter() - begin, plan.tasks_run, strategy,
                          plan.tasks_replayed)


def run_tree(plan: RunPlan, search: OptimalSearch, max_guesses: int | None) -> DecisionTree:
    """The optimal tree of a finished run: its root guess, each class searched again
    with the class's proved cost as the bound (:func:`.optimal.search_and_build`),
    so only the first guess attaining it is sought at every node. ``search`` is the
    run's own (its tables of solved sets then serve the tree too) or a new one of the
    same game; the tree does not depend on what its tables hold.

    Raises InputError when a stored cost of a class is below what any guess attains,
    or the tree's total is not the run's. A cost stored too high (only a forged
    checkpoint, its checksum made anew, holds one) can pass: the class may then get
    a guess attaining that cost, and the run's total is that high too. The
    checkpoint's values are checked for form, not recomputed.
    """
    split = plan.split
    g = plan.best_guess
    costs = {}
    for j in range(int(split.starts[g]), int(split.starts[g + 1])):
        value, exact = plan.known[j]
        if not exact:
            raise InputError(f"job {j} of the optimal guess is not exact ({value})")
        costs[int(split.job_answer[j])] = int(value)
    total, tree = search_and_build(search.space, search.matrix, max_guesses, search,
                                   (int(split.guesses[g]), costs))
    if total != plan.best:
        raise InputError(f"the optimal tree totals {total}, the run {plan.best}: a stored "
                         "job value is wrong")
    return tree
