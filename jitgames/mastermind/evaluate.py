"""Evaluate a strategy over all secrets (or any subset of them), and build its tree.

:func:`evaluate` returns the guesses needed for each requested secret, so a long
evaluation can be split by secret (threads, processes, a cluster) and the parts
joined with :func:`merge` into exactly the result of the whole run: the decision
at every node depends on the node's consistent set and on the seed, never on which
secrets are being played.

Two options change any scored strategy: ``first`` fixes the opening guess (to
reproduce published tables that fix it) and ``ties="random"`` applies Knuth's
written tie rule (:func:`.strategies.with_ties`).

Code spaces and response matrices come from :func:`.codes.load_game` (cached per process).
Scored strategies are played by :mod:`.engine`; the optimal ones are searched by
:mod:`.optimal` and their tree walked.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .._jit import thread_count
from .._random import stream_key
from .codes import DEFAULT_MATRIX_BYTES, CodeSpace, code_space, load_game
from .engine import Task, play_all
from .optimal import optimal_tree
from .strategies import STRATEGIES, Strategy, get_strategy, with_ties
from .symmetry import position_permutations
from .tree import DecisionTree

__all__ = ["Evaluation", "evaluate", "evaluate_worker", "merge", "strategy_tree",
           "decision_tree", "strategy_names"]


def strategy_names() -> list[str]:
    """Names accepted by :func:`evaluate`: the registered strategies."""
    return list(STRATEGIES)


@dataclass(frozen=True, eq=False)
class Evaluation:
    """Guesses a strategy needs for each of some secrets (indices into the code space)."""

    strategy: str
    pegs: int
    colours: int
    repeats: bool
    seed: int
    secrets: np.ndarray  # int64 indices, increasing
    guesses: np.ndarray  # int32, guesses[i] for secrets[i]
    ties: str = "first"  # tie rule (see :func:`.strategies.with_ties`)
    first: str | None = None  # the opening guess when fixed, as written ("1122")

    @property
    def total(self) -> int:
        """Guesses summed over the secrets."""
        return int(self.guesses.sum())

    @property
    def mean(self) -> float:
        """Mean number of guesses."""
        return self.total / max(len(self.guesses), 1)

    @property
    def max(self) -> int:
        """Worst case."""
        return int(self.guesses.max()) if len(self.guesses) else 0

    @property
    def distribution(self) -> dict[int, int]:
        """Guesses -> number of secrets solved in that many."""
        values, counts = np.unique(self.guesses, return_counts=True)
        return {int(v): int(c) for v, c in zip(values, counts)}

    def to_dict(self) -> dict:
        """The JSON object of ``evaluate --json``."""
        return {"strategy": self.strategy, "pegs": self.pegs, "colours": self.colours,
                "repeats": self.repeats, "seed": self.seed, "secrets": int(len(self.guesses)),
                "ties": self.ties, "first": self.first,
                "total": self.total, "mean": self.mean, "max": self.max,
                "distribution": {str(k): v for k, v in self.distribution.items()}}


def merge(parts: list[Evaluation]) -> Evaluation:
    """Join evaluations of disjoint secret subsets of the same run into one.

    Raises
    ------
    InputError
        If the parts differ in strategy, size or seed, or share a secret.
    """
    if not parts:
        raise InputError("nothing to merge")
    first = parts[0]
    key = (first.strategy, first.pegs, first.colours, first.repeats, first.seed)
    options = (first.ties, first.first)
    for p in parts:
        if (p.strategy, p.pegs, p.colours, p.repeats, p.seed) != key or (
                p.ties, p.first) != options:
            raise InputError("can only merge evaluations of the same strategy, size, seed "
                             "and options")
    secrets = np.concatenate([p.secrets for p in parts])
    guesses = np.concatenate([p.guesses for p in parts])
    order = np.argsort(secrets, kind="stable")
    secrets, guesses = secrets[order], guesses[order]
    if np.any(secrets[1:] == secrets[:-1]):
        raise InputError("the parts share secrets")
    return Evaluation(*key, secrets, guesses, *options)


def evaluate_worker(params: dict, start: int, stop: int) -> list[int]:
    """Chunked-job worker (see :mod:`jitgames._chunked`): guesses for the secrets of
    indices ``[start, stop)``; ``params`` holds the arguments of :func:`evaluate`."""
    result = evaluate(params["strategy"], params["pegs"], params["colours"], params["repeats"],
                      params["seed"], np.arange(start, stop), params["max_matrix_bytes"],
                      params.get("max_guesses"), ties=params.get("ties", "first"),
                      first=params.get("first"))
    return result.guesses.tolist()


def evaluate_validate(params: dict, start: int, stop: int, partial) -> None:
    """Raise ValueError unless ``partial`` is a possible :func:`evaluate_worker` result
    for secrets ``[start, stop)``: one guess count a secret, each from 1 to the number
    of codes (no strategy repeats a guess); a checkpoint's content."""
    from .._chunked import check_count, check_counts

    space = code_space(params["pegs"], params["colours"], params["repeats"])
    check_counts(partial, "guess counts", stop - start, low=1)
    for i, guesses in enumerate(partial):
        check_count(guesses, f"guess count of secret {start + i}", 1, space.size)


def _secret_indices(space: CodeSpace, secrets) -> np.ndarray:
    if secrets is None:
        return np.arange(space.size, dtype=np.int64)
    idx = np.unique(np.asarray(secrets, dtype=np.int64))
    if idx.size and (idx[0] < 0 or idx[-1] >= space.size):
        raise InputError(f"secret indices must be in [0, {space.size})")
    return idx


def _opening(strategy: Strategy, space: CodeSpace, seed: int, first: str | None) -> int:
    """Index of the forced opening guess, or -1 to let the score choose it."""
    if first is not None:
        if strategy.optimal:
            raise InputError(f"a fixed opening (--first) applies to the scored strategies, "
                             f"not to {strategy.name!r}")
        return space.parse(first)
    if strategy.first_guess is not None and space.size > 1:
        return strategy.first_guess(space, seed)
    return -1


def _play(strategy: Strategy | str, space: CodeSpace, matrix: np.ndarray, seed: int,
          tracked: np.ndarray, first: str | None = None):
    if isinstance(strategy, str):
        strategy = get_strategy(strategy)
    first = _opening(strategy, space, seed, first)
    guesses = np.zeros(space.size, dtype=np.int32)
    tree = np.empty((4 * space.size + 1, 4), dtype=np.int32)
    rows = play_all(strategy.adapter, space.tables(matrix), strategy.rules,
                    Task(first, tracked, guesses, position_permutations(space.pegs)),
                    np.uint64(stream_key(seed, 1)), max(thread_count(), 1), tree)
    return guesses, tree[:rows].copy()


def _depth_limit(strategy: Strategy, max_guesses: int | None) -> int | None:
    """The optimal search's depth limit: the strategy's own and ``max_guesses``, the
    smaller (None: no limit)."""
    if max_guesses is not None and not strategy.optimal:
        raise InputError(f"a guess limit (--max-guesses) applies to the optimal strategies, "
                         f"not to {strategy.name!r}")
    limits = [x for x in (strategy.max_guesses, max_guesses) if x is not None]
    return min(limits) if limits else None


def _searched_limit(strategy: Strategy, space: CodeSpace, matrix: np.ndarray,
                    max_guesses: int | None) -> int | None:
    """Depth limit of a searched strategy; for ``minimax`` the least worst case."""
    limit = _depth_limit(strategy, max_guesses)
    if strategy.worst_case_first:
        from .minimax import minimax_guesses
        limit = minimax_guesses(space, matrix, limit)
    return limit


def decision_tree(strategy: Strategy, space: CodeSpace, matrix: np.ndarray, seed: int = 0,
                  max_guesses: int | None = None, first: str | None = None) -> DecisionTree:
    """The full decision tree of ``strategy`` on ``space`` (see :mod:`.tree`).

    ``matrix`` is the response matrix of ``space`` or ``(0, 0)``; ``max_guesses``
    limits the optimal strategies (a ValueError for the others); ``first`` fixes the
    opening of a scored strategy.
    """
    if strategy.optimal:
        _opening(strategy, space, seed, first)
        return optimal_tree(space, matrix, _searched_limit(strategy, space, matrix, max_guesses))
    _depth_limit(strategy, max_guesses)
    _, table = _play(strategy, space, matrix, seed, np.ones(space.size, dtype=np.int8), first)
    return DecisionTree(space, table)


def strategy_tree(name: str, pegs: int = 4, colours: int = 6, repeats: bool = True,
                  seed: int = 0, max_matrix_bytes: int = DEFAULT_MATRIX_BYTES,
                  max_guesses: int | None = None, ties: str = "first",
                  first: str | None = None) -> DecisionTree:
    """The full decision tree of strategy ``name`` (see :func:`decision_tree`)."""
    strategy = with_ties(get_strategy(name), ties)
    space, matrix = load_game(pegs, colours, repeats, max_matrix_bytes)
    return decision_tree(strategy, space, matrix, seed, max_guesses, first)


def evaluate(name: str, pegs: int = 4, colours: int = 6, repeats: bool = True,
             seed: int = 0, secrets=None,
             max_matrix_bytes: int = DEFAULT_MATRIX_BYTES,
             max_guesses: int | None = None, ties: str = "first",
             first: str | None = None) -> Evaluation:
    """Guesses strategy ``name`` needs for each secret (all, or the given indices).

    Parameters
    ----------
    name : str
        One of :func:`strategy_names`.
    pegs, colours, repeats :
        The game size; ``repeats=False`` restricts codes and guesses to codes
        without repeated digits.
    seed : int
        Seed of the random strategies (ignored by the others).
    secrets : array of int, optional
        Indices of the secrets to play (into the increasing list of legal codes).
    max_matrix_bytes : int
        Largest response matrix to build; above it feedback is computed on the fly.
    max_guesses : int, optional
        Optimal strategies only: no secret may need more guesses (the least total
        under that limit).
    ties : {"first", "random"}
        Tie rule (:func:`.strategies.with_ties`).
    first : str, optional
        The opening guess, written (``"1122"``); scored strategies only.
    """
    strategy = with_ties(get_strategy(name), ties)
    space, matrix = load_game(pegs, colours, repeats, max_matrix_bytes)
    idx = _secret_indices(space, secrets)
    if strategy.optimal:
        tree = decision_tree(strategy, space, matrix, seed, max_guesses, first)
        counts = tree.guesses(idx, matrix)
    else:
        _depth_limit(strategy, max_guesses)
        tracked = np.zeros(space.size, dtype=np.int8)
        tracked[idx] = 1
        guesses, _ = _play(strategy, space, matrix, seed, tracked, first)
        counts = guesses[idx]
    written = None if first is None else space.format(space.parse(first))
    return Evaluation(name, pegs, colours, repeats, seed, idx, counts.astype(np.int32),
                      ties, written)
