"""Branch and bound over jobs: what is known of a node whose classes are searched apart.

A *node* is a consistent set of ``size`` codes with candidate guesses ``c = 0, 1, ...``
(in the order the search tries them); candidate ``c`` splits the set into classes
``starts[c]:starts[c + 1]``, and

    cost(node) = size + min over c of  sum over its classes k  cost(k).

Each class is either a *job* (searched by one kernel call with a budget, see
:mod:`.optimal_run`) or a child :class:`Node` (a big class split once more, by its own
candidates, so that its work spreads over many threads). Every cut is exact:

- a class is known exactly, or bounded below (by a job cut at its budget, a child's
  bounds, or ``lb(size)`` before anything ran);
- ``lower(c)``: ``size`` plus the classes' lower bounds (exact once all are exact);
- the best exact total so far, ``best`` (of candidate ``best_guess``), and the node's
  *bound* ``B`` (what its parent can afford: the node matters only below it) give the
  budget of candidate ``c``: ``min(B, best + 1)`` for a candidate before
  ``best_guess`` in the order, else ``min(B, best)``, so that the first candidate
  attaining the optimum is the one reported whatever the order in which jobs finish;
- a class of candidate ``c`` runs with the budget of ``c`` minus what the other
  classes of ``c`` are known to cost at least; a candidate whose lower bound reaches
  its budget is *closed* (cut), and so is one known exactly;
- until some total or bound below INFEASIBLE is known, only the first open
  candidate's classes run (the others would run with no budget at all); afterwards
  later candidates may run beside earlier ones (with the same budgets), which keeps
  threads busy at the price of some work a sequential search would have cut;
- the *window* caps that price: only the classes of the first ``window`` open
  candidates (in the order) may start. A later candidate waits until earlier ones
  close, and then starts with the budget their totals give, as in the sequential
  search; a thread with nothing inside the window waits (or takes a class of another
  node) rather than search what a better bound would cut;
- *stages* hold back the later classes of a candidate: a class of stage ``s`` may
  start only once every class of its candidate in an earlier stage is known exactly
  (stages never decrease along a candidate's classes). The earlier (cheaper, smaller)
  classes either close the candidate or raise its lower bound, so that the large
  classes start with budgets nearer those of the sequential search (smallest classes
  first) than if all started at once.

The bound of a node only ever decreases (its parent's best total only falls, the
lower bounds of the other classes only rise), so a result proved under an earlier
bound stays true. The node is *settled* under bound ``B`` when no class of it runs and
every candidate is closed: its cost is then ``best`` (exact) if ``best < B``, else at
least ``lower()`` (``>= B``).

The bookkeeping is plain Python and not thread-safe: the drivers call it under their
lock. The node's value never depends on the order in which results arrive.
"""
from __future__ import annotations

from .candidates import INFEASIBLE

__all__ = ["Node"]


class Node:
    """What is known of one node (see the module docs).

    Parameters
    ----------
    size : int
        Codes of the node (each pays for the guess made there).
    starts : sequence of int
        Classes of candidate ``c`` are ``starts[c]:starts[c + 1]``.
    class_lb : sequence of int
        A lower bound of each class's cost (``lb`` of its size, or the deeper one of
        :func:`.optimal_jobs.job_bounds`).
    floor : int
        A lower bound of the node's cost known beforehand (0: none).
    window : int, optional
        Classes may start only in the first ``window`` open candidates (at least 1;
        default: no limit). It changes which work is done, never the node's value.
    stage : sequence of int, optional
        Per class, its stage (never decreasing along a candidate's classes): a class
        may start only once the classes of its candidate in earlier stages are known
        exactly (default: all stage 0). Like the window, it changes which work is
        done, never the node's value.
    early_start : bool
        Before any total is known, let the later candidates start once the first
        one's classes are exact or children with a total (:meth:`_find_upper`;
        default off). Changes which work is done, never the node's value.
    """

    def __init__(self, size: int, starts, class_lb, floor: int = 0, window: int | None = None,
                 stage=None, early_start: bool = False):
        if window is not None and window < 1:
            raise ValueError(f"window must be at least 1, not {window}")
        self.size = int(size)
        self.window = window
        self.starts = [int(s) for s in starts]
        self.candidates = len(self.starts) - 1
        self.stage = [0] * self.starts[-1] if stage is None else [int(x) for x in stage]
        if len(self.stage) != self.starts[-1]:
            raise ValueError("one stage per class")
        self.class_lb = [int(x) for x in class_lb]
        self.floor = int(floor)
        self.owner = [c for c in range(self.candidates)
                      for _ in range(self.starts[c], self.starts[c + 1])]
        self.known: dict[int, tuple[int, bool]] = {}
        self.children: dict[int, Node] = {}
        self.running: set = set()  # classes (jobs) running now
        self.best, self.best_guess = INFEASIBLE, self.candidates
        # an upper bound of the node's cost before any total is known (see _find_upper)
        self.upper, self.upper_at = INFEASIBLE, -1
        self.early_start = early_start
        # per candidate: sum of the classes' lower bounds, and classes not yet exact
        self._sum = [self.size + sum(self.class_lb[self.starts[c]:self.starts[c + 1]])
                     for c in range(self.candidates)]
        self._open = [self.starts[c + 1] - self.starts[c] for c in range(self.candidates)]
        self._open_list = list(range(self.candidates))  # candidates not yet seen closed
        self._least_sum()

    # ------------------------------------------------------------------ bounds

    def classes(self, c: int) -> range:
        return range(self.starts[c], self.starts[c + 1])

    def have(self, k: int) -> int:
        """A lower bound of class ``k``'s cost (exact when it is known exactly; a
        child's current bound is kept in ``known`` by :meth:`refresh`)."""
        return self.known[k][0] if k in self.known else self.class_lb[k]

    def _least_sum(self) -> None:
        """Find the least candidate sum again (sums only rise: needed only when the
        least one rose)."""
        self._min_sum = min(self._sum, default=INFEASIBLE)
        self._min_at = self._sum.index(self._min_sum) if self._sum else -1

    def lower(self, c: int | None = None) -> int:
        """A lower bound of candidate ``c``'s total, or (``c`` None) of the node's cost."""
        if c is not None:
            return self._sum[c]
        return max(self.floor, min(self._min_sum, self.best))

    def budget(self, c: int, bound: int) -> int:
        """Candidate ``c`` matters only if its total is below this (``bound``: B)."""
        budget = min(bound, self.best + 1 if c < self.best_guess else self.best)
        if self.upper < INFEASIBLE:  # ties go to the upper bound's candidate, or earlier
            budget = min(budget, self.upper + 1 if c <= self.upper_at else self.upper)
        return budget

    def _find_upper(self) -> None:
        """Before any total is known: the cost of a strategy for the node, from its
        first open candidate once each of its classes is known exactly or is a child
        with a total (its ``best``, a strategy for the class), is an upper bound of
        the node's cost. It bounds the later candidates (:meth:`budget`: like ``best``
        of candidate ``upper_at``, never tighter than that), so that they may start
        before the first total is exact (while the children finish proving their
        other candidates worse). Kept at its least: it only falls, as budgets must."""
        if not self._open_list:
            return
        c = self._open_list[0]
        total = self.size
        for k in self.classes(c):
            if k in self.known and self.known[k][1]:
                total += self.known[k][0]
            elif k in self.children and self.children[k].best < INFEASIBLE:
                total += self.children[k].best
            else:
                return
        if total < self.upper:
            self.upper, self.upper_at = total, c

    def exact(self, c: int) -> bool:
        return self._open[c] == 0

    def closed(self, c: int, bound: int) -> bool:
        """Candidate ``c`` is settled: its total is known, or it cannot matter."""
        return self.exact(c) or self._sum[c] >= self.budget(c, bound)

    def busy(self) -> bool:
        """Some class of this node (or of a child) is running."""
        return bool(self.running) or any(child.busy() for child in self.children.values())

    def settled(self, bound: int) -> bool:
        """No class runs and every candidate is closed under ``bound``."""
        if self.busy():
            return False
        # an open candidate (the first not yet seen closed) answers at once; closed
        # ones are dropped for good (a closed candidate never opens again)
        candidates = self._open_list
        while candidates and self.closed(candidates[0], bound):
            candidates.pop(0)
        return not candidates

    def result(self, bound: int) -> tuple[int, bool]:
        """``(value, exact)`` of a settled node (see the module docs)."""
        if self.best < bound:
            return self.best, True
        return max(self.lower(), bound), False

    # ------------------------------------------------------------------ updates

    def _set(self, k: int, value: int, exact: bool) -> None:
        c = self.owner[k]
        old = self.have(k)
        was_exact = k in self.known and self.known[k][1]
        self.known[k] = (int(value), bool(exact))
        self._sum[c] += int(value) - old
        if c == self._min_at:
            self._least_sum()
        if exact and not was_exact:
            self._open[c] -= 1
        if self.exact(c) and (self._sum[c], c) < (self.best, self.best_guess) \
                and self._sum[c] < INFEASIBLE:
            self.best, self.best_guess = self._sum[c], c

    def record(self, k: int, value: int, exact: bool) -> None:
        """Add class ``k``'s result (a lower bound replaces only a smaller one)."""
        if k in self.known:
            have, was_exact = self.known[k]
            if was_exact or (not exact and have >= value):
                return
        self._set(k, value, exact)

    def next_task(self, bound: int, path: tuple = (), widen: int = 0):
        """``(path, budget)`` of a job to run now: ``path`` the class indices from this
        node down (through children); None when nothing can run yet.

        With ``widen``, every node's window may be up to that much wider (see
        :meth:`next_class`): the task returned is then the first, in order, of those
        that need the least widening (none when one fits the windows), as if the
        windows were widened by 0, 1, ... ``widen`` in turn, in one walk."""
        found = self._next_task(bound, path, widen)
        return None if found is None else found[:2]

    def _next_task(self, bound: int, path: tuple, widen: int):
        """``(path, budget, need)`` for :meth:`next_task` (``need``: the widening it
        takes, the most over the nodes of its path)."""
        best = None
        for k, budget, need in self.next_class(bound, widen):
            if k in self.children:
                task = self.children[k]._next_task(self.child_bound(k, bound), path + (k,),
                                                   widen)
                if task is None:
                    continue
                task = task[0], task[1], max(need, task[2])
            else:
                task = path + (k,), budget, need
            if task[2] == 0:
                return task
            if best is None or task[2] < best[2]:
                best = task
        return best

    def attach(self, k: int, child: "Node") -> None:
        """Search class ``k`` as the child node ``child`` from now on."""
        child.floor = max(child.floor, self.have(k))
        self.children[k] = child
        self.refresh(k)

    def refresh(self, k: int) -> None:
        """Take child ``k``'s current lower bound into what is known of class ``k``."""
        low = self.children[k].lower()
        if low > self.have(k):
            self._set(k, low, False)

    def child_bound(self, k: int, bound: int) -> int:
        """What class ``k`` may cost for its candidate to matter (``bound``: B)."""
        c = self.owner[k]
        budget = self.budget(c, bound)
        if budget > INFEASIBLE:  # no bound yet: none for the child either
            return INFEASIBLE + 1
        return budget - (self._sum[c] - self.have(k))

    def settle_children(self, bound: int) -> list[tuple[int, int, bool, int]]:
        """Replace every settled child by its result (children first settle their
        own); returns ``(k, value, exact, child bound)`` of each child replaced."""
        done = []
        for k in list(self.children):
            child = self.children[k]
            child.settle_children(self.child_bound(k, bound))
            child_bound = self.child_bound(k, bound)
            if child.settled(child_bound):
                value, exact = child.result(child_bound)
                del self.children[k]
                self._set(k, value, exact)
                done.append((k, value, exact, child_bound))
            else:
                self.refresh(k)
        return done

    def next_class(self, bound: int, widen: int = 0):
        """The classes that may run now, in order, with their budgets: ``(k, budget,
        need)`` (a job, or a child to descend into), those of the first ``window +
        widen`` open candidates; ``need``: how much wider than ``window`` the window
        must be for the class (0 inside it)."""
        # a closed candidate never opens again (bounds only fall, sums only rise): it is
        # dropped from the list of open ones when met
        if self.best >= INFEASIBLE and self.children and self.early_start:
            self._find_upper()
        candidates, i = self._open_list, 0
        while i < len(candidates):
            c = candidates[i]
            if self.closed(c, bound):
                del candidates[i]
                continue
            lower = self._sum[c]
            budget_c = self.budget(c, bound)
            need = 0 if self.window is None else max(0, i - self.window + 1)
            stage = None  # the stage of the candidate's first class not known exactly
            for k in self.classes(c):
                if k in self.known and self.known[k][1]:
                    continue
                if stage is None:
                    stage = self.stage[k]
                elif self.stage[k] > stage:
                    break  # the later stages wait until this one is exact
                if k in self.running:
                    continue
                have = self.have(k)
                budget = budget_c - (lower - have)
                if budget > have:
                    yield k, budget, need
            if min(self.best, self.upper, bound) >= INFEASIBLE:
                return
            i += 1
            if self.window is not None and i >= self.window + widen:
                return

