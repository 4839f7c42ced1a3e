"""Codebreaker strategies, each defined by ONE scoring kernel.

A strategy is a ``@jit`` function ``score(sizes, guess, previous, key) -> float``
registered with :func:`register`; LOWER scores are better. The engine
(:mod:`jitgames.mastermind.engine`) calls it for every candidate guess at every
decision and keeps the best, so adding a strategy is literally::

    from jitgames._jit import jit
    from jitgames.mastermind.strategies import register

    @register("worst-case-pairs")
    @jit
    def worst_case_pairs(sizes, guess, previous, key):
        return float((sizes * (sizes - 1)).max())

Arguments of a scoring kernel:

``sizes``
    int64 array, ``sizes[f]`` = how many still-consistent codes would answer
    feedback ``f`` to the candidate (the solved answer included); all zeros for
    strategies registered with ``uses_partition=False``.
``guess``
    index of the candidate code.
``previous``
    encoded feedback of the candidate against the previous guess (``-1`` at the
    first guess); Cooley's rule uses it.
``key``
    uint64 random key of the decision (a function of the seed and the history of
    guesses and answers only, so any subset of secrets sees the same strategy).

Why a C callback: the engine receives the strategy as a first-class function of the
fixed type ``float64(int64*, int64, int64, int64, uint64)``, made by :func:`register`
as a small C-callback adapter (``jitgames._jit.jit_callback``) around the ``@jit``
scoring kernel. With a fixed argument type the big engine kernels compile once and
are cached on disk; passing
the ``@jit`` kernel itself would make Numba recompile the engine (tens of seconds)
for every strategy in every process. Under ``NUMBA_DISABLE_JIT=1`` the adapter is
plain Python.

Rules applied by the engine for every strategy (from the issue): the candidates are
all legal codes (``consistent_only=False``) or the still-consistent ones; a
candidate that is not consistent and leaves the consistent set undivided is never
played; scores within 1e-9 of the best tie, and ties go to a consistent code, then
to the smallest code; a single consistent code is simply played. The first guess
follows the same rule unless the strategy names a ``first_guess`` function.

Tie rules (``--ties``): the rule above (``first``: a consistent code, then the
smallest) is the canonical, deterministic one. Knuth's text says "a code of
P_{i-1} if possible, else at random"; ``ties="random"`` (:func:`with_ties`) gives
that rule to the strategies whose scores are integers (``knuth``, ``expected-size``,
``most-parts``): the score gets a tie-breaker below 1 -- 0 for a consistent code, 1/2
for another, plus a quarter of a uniform draw from the decision's key -- so that
among equal scores a consistent code wins and the draw decides between equals.

Cooley's rule as the text writes it scores each consistent code C by its feedback
against the last guess G_i (fewest blacks, then fewest whites). But every code of
P_i gives G_i the same answer -- the one received -- so the score is the same for
all candidates, and the rule reduces to *a random consistent code* (the ``random``
strategy) after Cooley's opening; ``docs/mastermind.md`` measures it.

The same registry holds the *searched* strategies, which have no scoring kernel:
``optimal`` (least total guesses, :mod:`.optimal`), ``optimal-max5`` (the same
with no secret needing more than five guesses) and ``minimax`` (fewest guesses in
the worst case, then fewest in total, :mod:`.minimax`), registered with
:func:`register_optimal`. :func:`.evaluate.decision_tree` builds the tree of either
kind.
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import numba
import numpy as np
from numba import carray, types

from ..errors import InputError
from .._jit import jit, jit_callback
from .._random import below, mix64, stream_key
from .codes import CodeSpace
from .engine import Rules

__all__ = ["Strategy", "STRATEGIES", "register", "register_optimal", "get_strategy", "with_ties",
           "TIE_RULES",
           "unit_uniform"]


@dataclass(frozen=True)
class Strategy:
    """A registered strategy: its scoring kernel and how the engine should call it.

    ``kernel`` is the ``@jit`` scoring kernel, ``adapter`` the callback the engine
    calls, ``adapter(sizes.ctypes, len(sizes), guess, previous, key)``, compiled (or
    loaded from the cache) on first use, so importing the package and using one
    strategy does not pay for the others. A searched strategy (:attr:`optimal`) has
    no kernel; ``max_guesses`` is then its depth limit (None: no limit), and
    ``worst_case_first`` makes it minimise the worst case before the total.
    """

    name: str
    kernel: Callable | None
    consistent_only: bool = False
    uses_partition: bool = True
    perfect_split_best: bool = False
    partition_only: bool = False
    first_guess: Callable[[CodeSpace, int], int] | None = None
    description: str = ""
    max_guesses: int | None = None
    worst_case_first: bool = False

    @property
    def optimal(self) -> bool:
        """Whether the strategy is the exhaustive optimal search (no scoring kernel)."""
        return self.kernel is None

    @property
    def rules(self) -> Rules:
        """How the engine treats the strategy (its shortcuts and candidate set)."""
        return Rules(self.consistent_only, self.uses_partition, self.perfect_split_best,
                     self.partition_only)

    @property
    def adapter(self) -> Callable:
        """The engine's callback for :attr:`kernel` (built once per process)."""
        return _adapter(self.kernel)


STRATEGIES: dict[str, Strategy] = {}
ADAPTER_SIGNATURE = types.float64(types.CPointer(types.int64), types.int64, types.int64,
                                  types.int64, types.uint64)


@lru_cache(maxsize=None)
def _adapter(kernel):
    """The engine's callback for ``kernel`` (see the module docstring)."""
    if numba.config.DISABLE_JIT:
        def adapter(sizes_pointer, n_slots, guess, previous, key):
            data = sizes_pointer.data_as(ctypes.POINTER(ctypes.c_int64))
            return kernel(np.ctypeslib.as_array(data, (n_slots,)), guess, previous, key)
        return adapter

    @jit_callback(ADAPTER_SIGNATURE)
    def adapter(sizes_pointer, n_slots, guess, previous, key):
        return kernel(carray(sizes_pointer, n_slots), guess, previous, key)

    return adapter


def register(name: str, *, consistent_only: bool = False, uses_partition: bool = True,
             perfect_split_best: bool = False, partition_only: bool = False,
             first_guess: Callable[[CodeSpace, int], int] | None = None,
             description: str = ""):
    """Decorator registering a scoring kernel as strategy ``name`` (returns the kernel).

    ``perfect_split_best`` promises that the score is best exactly for partitions of
    the consistent set into single codes, letting the engine skip scoring when a
    consistent code splits the set apart (same choice, much faster on small sets).
    ``partition_only`` promises that the score depends on ``sizes`` alone (not on the
    guess, the previous answer or the key), letting the engine skip codes that have a
    smaller equivalent under the symmetries of the node (same choice, fewer scores).
    """

    def wrap(kernel):
        doc = description or (kernel.__doc__ or "").strip().split("\n")[0]
        STRATEGIES[name] = Strategy(name, kernel, consistent_only, uses_partition,
                                    perfect_split_best, partition_only, first_guess, doc)
        return kernel

    return wrap


def register_optimal(name: str, max_guesses: int | None, description: str,
                     worst_case_first: bool = False) -> None:
    """Register the optimal-in-expectation search (:mod:`.optimal`) as strategy ``name``,
    with no secret needing more than ``max_guesses`` guesses (None: no limit); with
    ``worst_case_first`` the limit is the least worst case (:mod:`.minimax`)."""
    STRATEGIES[name] = Strategy(name, None, description=description, max_guesses=max_guesses,
                                worst_case_first=worst_case_first)


def get_strategy(name: str) -> Strategy:
    """The registered strategy ``name``.

    Raises
    ------
    InputError
        If no strategy has that name (the message lists the names).
    """
    if name not in STRATEGIES:
        raise InputError(f"unknown strategy {name!r}; choose from {', '.join(STRATEGIES)}")
    return STRATEGIES[name]


@jit
def unit_uniform(key, guess):
    """A uniform float in [0, 1) determined by a decision key and a candidate index."""
    bits = mix64(np.uint64(key) ^ mix64(np.uint64(guess) + np.uint64(1)))
    return float(bits >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@register("knuth", perfect_split_best=True, partition_only=True)
@jit
def knuth_score(sizes, guess, previous, key):
    """Knuth's minimax: the size of the largest class of the partition."""
    return float(sizes.max())


@register("expected-size", perfect_split_best=True, partition_only=True)
@jit
def expected_size_score(sizes, guess, previous, key):
    """Expected size: the sum of squared class sizes (expected class size times n)."""
    total = 0.0
    for s in sizes:
        total += float(s) * float(s)
    return total


@register("entropy", perfect_split_best=True, partition_only=True)
@jit
def entropy_score(sizes, guess, previous, key):
    """Entropy: minus the information (bits) of the partition."""
    n = 0.0
    for s in sizes:
        n += float(s)
    info = 0.0
    for s in sizes:
        if s > 0:
            p = float(s) / n
            info -= p * np.log2(p)
    return -info


@register("most-parts", perfect_split_best=True, partition_only=True)
@jit
def most_parts_score(sizes, guess, previous, key):
    """Most parts: minus the number of non-empty classes."""
    parts = 0
    for s in sizes:
        if s > 0:
            parts += 1
    return -float(parts)


@register("random", consistent_only=True, uses_partition=False)
@jit
def random_score(sizes, guess, previous, key):
    """Random consistent: a uniformly random still-consistent code."""
    return unit_uniform(key, guess)


def cooley_first_guess(space: CodeSpace, seed: int) -> int:
    """Cooley's opening: a random code with exactly one repeated digit (like 4311).

    Without such codes (e.g. no repeats allowed) any random code is taken.
    """
    counts = space.counts
    one_pair = np.flatnonzero(((counts == 2).sum(axis=1) == 1) & (counts <= 2).all(axis=1))
    pool = one_pair if one_pair.size else np.arange(space.size)
    index, _ = below(np.uint64(stream_key(seed, 0)), 0, pool.size)
    return int(pool[index])


@register("cooley", consistent_only=True, uses_partition=False,
          first_guess=cooley_first_guess,
          description="Cooley: the consistent code least like the previous guess, as "
                      "written; all consistent codes score alike, so: a random consistent "
                      "code after a one-pair opening")
@jit
def cooley_score(sizes, guess, previous, key):
    """Cooley: the consistent code least like the previous guess (fewest blacks, then
    fewest whites), ties at random; the opening has exactly one repeated digit.

    ``previous`` is the same for every consistent candidate (see the module
    docstring), so the choice is that of :func:`random_score` with the same key."""
    return float(previous) + 0.5 * unit_uniform(key, guess)


TIE_RULES = ("first", "random")


@jit
def random_tie_breaker(sizes, guess, key):
    """Knuth's written tie rule as a score in [0, 3/4): 0 for a consistent candidate
    (its own answer, "solved", has a class), 1/2 for another, plus a quarter of a
    uniform draw from the decision key."""
    pegs = int(np.sqrt(float(sizes.shape[0])) + 0.5) - 1
    solved = pegs * (pegs + 1)
    inconsistent = 0.0 if sizes[solved] > 0 else 0.5
    return inconsistent + 0.25 * unit_uniform(key, guess)


@jit
def knuth_random_ties_score(sizes, guess, previous, key):
    """Knuth's score with the written tie rule (a consistent code, else at random)."""
    return knuth_score(sizes, guess, previous, key) + random_tie_breaker(sizes, guess, key)


@jit
def expected_size_random_ties_score(sizes, guess, previous, key):
    """Expected size with random ties (consistent codes first)."""
    return (expected_size_score(sizes, guess, previous, key)
            + random_tie_breaker(sizes, guess, key))


@jit
def most_parts_random_ties_score(sizes, guess, previous, key):
    """Most parts with random ties (consistent codes first)."""
    return most_parts_score(sizes, guess, previous, key) + random_tie_breaker(sizes, guess, key)


# Strategies with integer scores, and their kernels with the random tie rule.
RANDOM_TIES = {"knuth": knuth_random_ties_score,
               "expected-size": expected_size_random_ties_score,
               "most-parts": most_parts_random_ties_score}


def with_ties(strategy: Strategy, ties: str) -> Strategy:
    """``strategy`` with tie rule ``ties``: ``first`` (itself) or ``random``.

    The random rule's score depends on the guess and the key, so the engine's
    shortcuts for partition-only scores are off (same rule, slower).

    Raises
    ------
    InputError
        Unknown rule, or ``random`` for a strategy whose scores are not integers.
    """
    if ties not in TIE_RULES:
        raise InputError(f"unknown tie rule {ties!r}; choose from {', '.join(TIE_RULES)}")
    if ties == "first":
        return strategy
    if strategy.name not in RANDOM_TIES:
        raise InputError(f"random ties apply to {', '.join(RANDOM_TIES)} (integer scores), "
                         f"not to {strategy.name!r}")
    return Strategy(strategy.name, RANDOM_TIES[strategy.name], strategy.consistent_only,
                    True, False, False, strategy.first_guess,
                    strategy.description + " (random ties)")


register_optimal("optimal", None, "Optimal: least total guesses over all secrets "
                 "(exhaustive branch and bound, docs/mastermind_optimal.md)")
register_optimal("optimal-max5", 5, "Optimal with no secret needing more than 5 guesses")
register_optimal("minimax", None, "Minimax: fewest guesses in the worst case, then fewest "
                 "in total (exact search, docs/mastermind.md)", worst_case_first=True)
