"""A strong strategy for games too large to solve exactly: rollouts above a set size,
the exact search below it.

For 5 pegs and 8 colours (32,768 secrets) the optimum in expectation is unknown; the
best published strategy totals 179,751 guesses (mikemag/Mastermind: the entropy
heuristic, first guess 11223). :class:`BestStrategy` builds a decision tree thus:

- a consistent set of at most ``exact_below`` codes gets its optimal subtree, from the
  exact branch and bound (:class:`.optimal.OptimalSearch`, every cut exact);
- a larger set is split by a *rollout*: the few best guesses by each of three scores
  (entropy, most parts, expected size; :func:`partition_scores`) are each played, and
  each of their classes is finished by the *base policy* (the entropy guess at every
  larger set, the exact optimum at every small one); the guess whose finished total
  is least is kept, and its classes are split again the same way.

The base policy's guess is always among those tried, so a rollout never does worse
than the base policy alone (Bertsekas' rollout property): the tree's total is at most
the base policy's. The total is an *upper bound* of the optimum; :func:`lower_bound`
gives a proven lower bound (see there).

Ties: scores within ``TIE`` of each other tie, and ties go to a consistent code, then
to the smallest code; between rollout candidates of equal total, the one tried first.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass

import numpy as np

from .. import _store
from .._jit import jit
from ..errors import InputError
from .candidates import branches, lower_bounds
from .codes import CodeSpace
from .engine import response
from .optimal import OptimalSearch
from .tree import DecisionTree, write_document

__all__ = ["BestStrategy", "BestResult", "partition_scores", "lower_bound", "set_bound",
           "xlogx_table", "build_best", "write_tree", "CHECKPOINT_KIND"]

CHECKPOINT_KIND = "mastermind.best"
CHECKPOINT_SCHEMA = 1
CHECKPOINT_SECONDS = 10.0  # a checkpoint is rewritten at most this often

TIE = 1e-9  # scores closer than this tie
DEPTH_LIMIT = 20  # the exact search's depth "limit" (far above any tree built here)


def xlogx_table(n: int) -> np.ndarray:
    """``t[s] = s * ln(s)`` for s = 0..n (``t[0] = 0``), float64."""
    s = np.arange(n + 1, dtype=np.float64)
    out = np.zeros(n + 1, dtype=np.float64)
    out[1:] = s[1:] * np.log(s[1:])
    return out


@jit
def partition_scores(tables, members, guesses, xlogx, lb, tally, out):
    """Score every guess of ``guesses`` by how it splits the codes ``members``.

    ``out[i]`` (float64, 5 columns) for guess ``guesses[i]``, with ``s_f`` the number
    of members answering ``f`` (the solved answer included):

    0. ``sum_f xlogx[s_f]`` (``s ln s``): least for the most entropy;
    1. minus the number of classes: least for the most parts;
    2. ``sum_f s_f ** 2``: least for the least expected class size;
    3. ``s_solved``: 1 when the guess is a member (consistent), else 0;
    4. ``sum over f != solved of lb[s_f]`` (``lb``: the lower bound of the cost of a
       set by its size, :func:`.candidates.lower_bounds`).

    Sums run over the answers in increasing order. The class sizes are tallied member
    by member, each member's feedback to every guess read as one row of the response
    matrix (feedback is symmetric): a sequential read, where reading guess by guess
    would fetch a scattered byte per member from each row. ``tally`` is int32
    scratch of ``((pegs + 1) ** 2, len(guesses))``, all zero (left zero).
    """
    n_guesses = guesses.shape[0]
    solved = tables.pegs * (tables.pegs + 1)
    for t in range(members.shape[0]):
        s = members[t]
        for i in range(n_guesses):
            tally[response(tables, s, guesses[i]), i] += 1
    out[:, :] = 0.0
    for f in range(tally.shape[0]):
        row = tally[f]
        for i in range(n_guesses):
            c = row[i]
            if c == 0:
                continue
            row[i] = 0
            out[i, 0] += xlogx[c]
            out[i, 1] -= 1.0
            out[i, 2] += c * c
            if f == solved:
                out[i, 3] = c
            else:
                out[i, 4] += lb[c]


@dataclass
class BestResult:
    """A built strategy: its tree, total, and how long the build took."""

    tree: DecisionTree
    total: int
    seconds: float
    settings: dict


class BestStrategy:
    """Rollout strategy builder for one code space (see the module docstring).

    Parameters
    ----------
    space, matrix
        The game and its response matrix (``(0, 0)``: feedback computed on the fly).
    exact_below
        Sets of at most this many codes are solved exactly.
    top
        Candidates per score tried by a rollout (distinct partitions only); 0: the
        base policy alone, no rollout.
    rollout_above
        Sets of more than this many codes are split by rollout, smaller ones (above
        ``exact_below``) by the base policy's guess (the rollouts' cost grows with
        the number of nodes they are run at).
    first
        A fixed first guess (index), or None to choose it by rollout.
    progress
        Called with a line of text after each rollout decision near the root.
    """

    def __init__(self, space: CodeSpace, matrix: np.ndarray, exact_below: int = 30,
                 top: int = 3, rollout_above: int = 0, first: int | None = None,
                 progress=None, decisions: dict | None = None, on_decision=None):
        self.space, self.matrix = space, matrix
        self.tables = space.tables(matrix)
        self.exact_below, self.top, self.first = int(exact_below), int(top), first
        self.rollout_above = int(rollout_above)
        self.progress = progress
        n = space.size
        self.lb = lower_bounds(n, branches(space.pegs))
        self.xlogx = xlogx_table(n)
        self.all_guesses = np.arange(n, dtype=np.int64)
        self.tally = np.zeros(((space.pegs + 1) ** 2, n), dtype=np.int32)
        self.search = OptimalSearch(space, matrix, DEPTH_LIMIT, workers=1)
        self.base = {}  # members.tobytes() -> (total of the base policy, its guess)
        # set digest -> guess of every rollout decided so far (what a checkpoint keeps)
        self.decisions = {} if decisions is None else decisions
        self.on_decision = on_decision

    # ------------------------------------------------------------------ pieces
    def scores(self, members: np.ndarray) -> np.ndarray:
        """:func:`partition_scores` of every code against ``members``."""
        out = np.empty((self.space.size, 5), dtype=np.float64)
        partition_scores(self.tables, members, self.all_guesses, self.xlogx, self.lb,
                         self.tally, out)
        return out

    def split(self, guess: int, members: np.ndarray) -> list[tuple[int, np.ndarray]]:
        """``(answer, class)`` for the classes of ``members`` other than "solved" by
        their answer to ``guess``, in increasing order of answer."""
        if self.matrix.shape[0]:
            answers = self.matrix[guess, members]
        else:
            answers = np.array([self.space.feedback(guess, s) for s in members])
        order = np.argsort(answers, kind="stable")
        answers, ordered = answers[order], members[order]
        cuts = np.flatnonzero(np.diff(answers)) + 1
        return [(int(a[0]), part) for a, part in zip(np.split(answers, cuts),
                                                      np.split(ordered, cuts))
                if a[0] != self.space.solved]

    def settings(self) -> dict:
        """What decides the tree (a checkpoint must match it)."""
        space = self.space
        return {"pegs": space.pegs, "colours": space.colours, "repeats": space.repeats,
                "exact_below": self.exact_below, "top": self.top,
                "rollout_above": self.rollout_above,
                "first": None if self.first is None else space.format(self.first)}

    @staticmethod
    def ranked(scores: np.ndarray, column: int) -> np.ndarray:
        """Codes by increasing score ``column`` (within TIE), consistent codes first,
        then increasing code."""
        key = np.round(scores[:, column] / TIE) if column == 0 else scores[:, column]
        # (ties by rounding here; greedy_guess's "within TIE of the least" picks the
        # same code unless two scores straddle a rounding step: it is tried first anyway)
        return np.lexsort((np.arange(scores.shape[0]), -scores[:, 3], key))

    def greedy_guess(self, members: np.ndarray, scores: np.ndarray | None = None) -> int:
        """The base policy's guess: most entropy (least ``sum s ln s``; within TIE of
        the least ties), ties to a consistent code, then the smallest."""
        scores = self.scores(members) if scores is None else scores
        column = scores[:, 0]
        tied = np.flatnonzero(column <= column.min() + TIE)
        consistent = tied[scores[tied, 3] > 0]
        return int(consistent[0] if consistent.size else tied[0])

    def candidates(self, members: np.ndarray, scores: np.ndarray) -> list[int]:
        """The base policy's guess, then the best ``top`` of each score whose partitions
        (class sizes and whether consistent) differ from those already listed."""
        chosen, seen = [], set()
        for column in (None, 0, 1, 2):
            if column is None:  # the base policy's guess first: the rollout property
                order = [self.greedy_guess(members, scores)]
            else:
                order = self.ranked(scores, column)[:64]
            taken = 0
            for g in order:
                g = int(g)
                if self.matrix.shape[0]:
                    answers = self.matrix[g, members]
                else:
                    answers = np.array([self.space.feedback(g, s) for s in members])
                counts = np.bincount(answers)
                shape = (tuple(np.sort(counts[counts > 0]).tolist()), bool(scores[g, 3]))
                if shape in seen:
                    continue
                seen.add(shape)
                chosen.append(g)
                taken += 1
                if taken == self.top or column is None:
                    break
        return chosen

    # ------------------------------------------------------------------ values
    def exact(self, members: np.ndarray, history: list, used: np.ndarray):
        """(optimal cost, its guess) of a small set, from the exact search."""
        return self.search.best(members, DEPTH_LIMIT - len(history), used, history)

    def base_total(self, members: np.ndarray, history: list, used: np.ndarray) -> int:
        """Total guesses of the base policy on ``members`` (memoised by set)."""
        m = members.size
        if m == 1:
            return 1
        key = members.tobytes()
        if m == 2:  # guess either code: 1 + 2 guesses
            self.base[key] = 3, int(members.min())
            return 3
        known = self.base.get(key)
        if known is not None:
            return known[0]
        if m <= self.exact_below:
            value, g = (int(x) for x in self.exact(members, history, used))
        else:
            g = self.greedy_guess(members)
            value = m + self._children_total(g, members, history, used, None)
        self.base[key] = value, g
        return value

    def _children_total(self, g, members, history, used, bound):
        """Base totals of the classes of guess ``g``, smallest first; stops at ``bound``
        (then returns a value >= bound - m; lower bounds fill in the rest)."""
        parts = sorted(self.split(g, members), key=lambda p: p[1].size)
        rest = sum(int(self.lb[p.size]) for _, p in parts)
        total = 0
        new_used = used.copy()
        new_used[self.space.digits[g]] = True
        for _, part in parts:
            rest -= int(self.lb[part.size])
            total += self.base_total(part, history + [g], new_used)
            if bound is not None and members.size + total + rest >= bound:
                return total + rest
        return total

    def rollout_guess(self, members: np.ndarray, history: list, used: np.ndarray):
        """(guess, its rollout total) at a large set: the candidate whose classes,
        finished by the base policy, need the fewest guesses."""
        m = members.size
        if self.top == 0 or m <= self.rollout_above:  # the base policy alone
            self.base_total(members, history, used)
            value, g = self.base[members.tobytes()]
            return g, value
        best, best_guess = None, -1
        for g in self.candidates(members, self.scores(members)):
            total = m + self._children_total(g, members, history, used, best)
            if best is None or total < best:
                best, best_guess = total, g
        return best_guess, best

    # ------------------------------------------------------------------ the tree
    def build(self) -> BestResult:
        """The strategy's decision tree over all codes."""
        started = time.perf_counter()
        space = self.space
        rows = []

        def exact_node(members, history, used, parent, answer, depth):
            if members.size == 1:
                guess = int(members[0])
            else:
                guess = int(self.exact(members, history, used)[1])
            emit(guess, members, history, used, parent, answer, depth, exact_node)

        def rollout_node(members, history, used, parent, answer, depth):
            if members.size <= self.exact_below:
                return exact_node(members, history, used, parent, answer, depth)
            digest = set_digest(members)
            if depth == 0 and self.first is not None:
                guess = self.first
            elif digest in self.decisions:  # decided before the checkpoint
                guess = self.decisions[digest]
            else:
                guess, total = self.rollout_guess(members, history, used)
                if self.progress is not None and depth <= 1:
                    self.progress(f"depth {depth}: {members.size} codes -> "
                                  f"{space.format(guess)} (rollout total {total}), "
                                  f"{time.perf_counter() - started:.0f} s")
                self.decisions[digest] = guess
                if self.on_decision is not None:
                    self.on_decision(self)
            emit(guess, members, history, used, parent, answer, depth, rollout_node)

        def emit(guess, members, history, used, parent, answer, depth, below):
            row = len(rows)
            rows.append((guess, parent, answer, depth))
            new_used = used.copy()
            new_used[space.digits[guess]] = True
            for f, part in self.split(guess, members):
                below(part, history + [guess], new_used, row, f, depth + 1)

        rollout_node(np.arange(space.size, dtype=np.int32), [],
                     np.zeros(space.colours, dtype=np.bool_), -1, -1, 0)
        tree = DecisionTree(space, np.array(rows, dtype=np.int32).reshape(-1, 4))
        total = int(tree.guesses(matrix=self.matrix).sum())
        return BestResult(tree, total, time.perf_counter() - started, self.settings())


def set_digest(members: np.ndarray) -> str:
    """A name of a set of codes (SHA-256 of its sorted int32 indices), for checkpoints."""
    return hashlib.sha256(np.sort(members).astype(np.int32).tobytes()).hexdigest()[:32]


def _read_checkpoint(path, settings: dict) -> dict:
    """The decisions kept in ``path`` (empty if it does not exist yet).

    Raises InputError (one line) if the file is damaged or was made with other
    settings."""
    try:
        payload = _store.read_checked(path, CHECKPOINT_KIND, CHECKPOINT_SCHEMA, "checkpoint")
    except _store.StoreError:
        if not os.path.lexists(path):
            return {}
        raise
    data = _store.load_json(payload, "checkpoint")
    if not isinstance(data, dict) or data.get("settings") != settings:
        raise InputError(f"checkpoint {path}: made with other settings "
                         f"({_store.shorten(data.get('settings') if isinstance(data, dict) else data)})")
    decisions = data.get("decisions")
    if not isinstance(decisions, dict) or not all(
            isinstance(k, str) and type(v) is int and 0 <= v < 1 << 31
            for k, v in decisions.items()):
        raise InputError(f"checkpoint {path}: damaged decisions")
    return decisions


def _write_checkpoint(path, builder: "BestStrategy") -> None:
    payload = json.dumps({"settings": builder.settings(), "decisions": builder.decisions},
                         sort_keys=True).encode()
    _store.write_checked(path, CHECKPOINT_KIND, CHECKPOINT_SCHEMA, payload)


def build_best(space: CodeSpace, matrix: np.ndarray, exact_below: int = 30, top: int = 3,
               rollout_above: int = 0, first: int | None = None, checkpoint=None,
               progress=None) -> BestResult:
    """Build the strategy of :class:`BestStrategy`, keeping its rollout decisions in
    ``checkpoint`` (if given): at most every ``CHECKPOINT_SECONDS``, at the end, and on
    Ctrl-C (KeyboardInterrupt is raised again after the write). A resumed build
    replays the kept decisions and gives the same tree."""
    builder = BestStrategy(space, matrix, exact_below, top, rollout_above, first, progress)
    if checkpoint is None:
        return builder.build()
    builder.decisions = _read_checkpoint(checkpoint, builder.settings())
    last = [time.monotonic()]

    def keep(b):
        if time.monotonic() - last[0] >= CHECKPOINT_SECONDS:
            _write_checkpoint(checkpoint, b)
            last[0] = time.monotonic()

    builder.on_decision = keep
    try:
        result = builder.build()
    finally:  # Ctrl-C included: the decisions made so far are kept
        _write_checkpoint(checkpoint, builder)
    return result


def write_tree(path, result: BestResult, strategy: str = "best") -> None:
    """Write the tree document (``docs/mastermind_optimal.md``) to ``path``, gzip
    compressed when the name ends in ``.gz``; it records the build settings."""
    doc = result.tree.to_document(strategy)
    doc["settings"] = result.settings
    write_document(path, doc)


def set_bound(space: CodeSpace, matrix: np.ndarray, members: np.ndarray, lb: np.ndarray,
              xlogx: np.ndarray) -> int:
    """A proven lower bound of ``cost(members)``: the larger of ``lb[m]`` and
    ``m + min over every code g of sum over answers f != solved of lb[|C_f(g)|]``
    (each code pays for the next guess; each class costs at least ``lb`` of its size)."""
    m = members.size
    if m <= 2:
        return 2 * m - 1
    out = np.empty((space.size, 5), dtype=np.float64)
    partition_scores(space.tables(matrix), members, np.arange(space.size, dtype=np.int64),
                     xlogx, lb, np.zeros(((space.pegs + 1) ** 2, space.size), dtype=np.int32),
                     out)
    return max(int(lb[m]), m + int(out[:, 4].min()))


def orbit_representatives(space: CodeSpace) -> np.ndarray:
    """One code per orbit of the first guess under colour and position permutations:
    the first code of each multiset of colour multiplicities."""
    seen, out = set(), []
    for i in range(space.size):
        shape = tuple(sorted(space.counts[i].tolist()))
        if shape not in seen:
            seen.add(shape)
            out.append(i)
    return np.array(out, dtype=np.int64)


def lower_bound(space: CodeSpace, matrix: np.ndarray) -> tuple[int, dict]:
    """A proven lower bound of the optimal total over all codes, and its parts.

    ``n + min over first guesses g of sum over classes C_f(g) of set_bound(C_f(g))``
    (:func:`set_bound`: a two-level bound per class). Every first guess is covered by
    its orbit representative (the bound is invariant under colour and position
    permutations, which map the game onto itself). Returns ``(bound, {guess: its
    bound})``.
    """
    n = space.size
    lb = lower_bounds(n, branches(space.pegs))
    xlogx = xlogx_table(n)
    everything = np.arange(n, dtype=np.int32)
    per_guess = {}
    for g in orbit_representatives(space):
        if matrix.shape[0]:
            answers = matrix[g, everything]
        else:
            answers = np.array([space.feedback(g, s) for s in everything])
        total = n
        for f in np.unique(answers):
            if f != space.solved:
                total += set_bound(space, matrix, everything[answers == f], lb, xlogx)
        per_guess[space.format(g)] = total
    return min(per_guess.values()), per_guess
