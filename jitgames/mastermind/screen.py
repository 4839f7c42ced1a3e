"""Screening the guesses of a set before its one-level-deeper bound (no matrix rows read).

:func:`.candidates.set_bound` needs, for a set ``S`` of codes, the least estimate
``|S| + sum lb(class sizes)`` of any guess, but only below a cap: most of its calls only
prove that every guess reaches the cap. A guess's estimate is bounded below by its
number of classes (classes as equal as possible), so a guess that cannot get many
different answers from ``S`` cannot be below the cap. :func:`screen_guesses` bounds the
number of answers of every guess from the colours of ``S`` alone, and lists the guesses
whose bound is high enough; only those need the members' rows of the response matrix.

The bound, exact by the rules of the game: the answer of guess ``h`` to secret ``s`` is
``(b, w)`` with ``b + w = t(h, s) = sum over colours c of min(h_c, s_c)`` (``h_c``: pegs of
colour ``c``), which depends only on the two codes' multisets of colours. The members
of ``S`` answering with the same ``t`` can differ only by ``b``, which takes at most
``t + 1`` values (``b = pegs - 1`` with ``t = pegs`` never occurs: one misplaced peg cannot
be alone, so ``pegs`` values for ``t = pegs``). So, for every guess ``h`` of one multiset,

    classes(h, S) <= U = sum over t of min(|{s in S : t(h, s) = t}|, values of b for t)

and the multisets whose ``U`` is below the number of classes needed are dropped whole
(:func:`screen_guesses`). The same ``U`` bounds every guess's estimate from below
(classes as equal as possible), with no row of the matrix read (:func:`screen_bound`).

On 250,512 calls recorded from the 5 x 6 search (sets of 24 codes on average, six
multisets among their members; docs/mastermind_optimal.md), 57 % of the calls keep no
guess and the mean call keeps 664 of the 7,776 codes. Bounding ``b`` per guess by the
positions as well (at least where every member has the guess's colour, at most where
some member has it) kept 622 for 4.5 us a call more, so it is not done.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._jit import jit

__all__ = ["Multisets", "multiset_tables", "fresh_scratch", "answer_limits", "clear_weights",
           "screen_guesses", "screen_bound"]


class Multisets(NamedTuple):
    """The codes grouped by their multiset of colours, and the scratch of the screen.

    ``of[g]``: the multiset of code ``g`` (0 to ``k - 1``); the codes of multiset ``j``
    are ``codes[start[j]:start[j + 1]]`` in code order; ``common[i, j]``: ``b + w`` of
    any code of multiset ``i`` against any of multiset ``j``. The scratch (one per
    search state, :func:`fresh_scratch`): ``weight[j]`` members of the set in multiset
    ``j`` (zero between calls), ``present`` the multisets of the set, ``by_sum[j]`` the
    members answering ``b + w = t`` to the codes of multiset ``j`` (one ``t`` at a time),
    ``limits[j]`` the bound ``U`` of the codes of multiset ``j``.
    """

    of: np.ndarray  # int64 (n,)
    start: np.ndarray  # int64 (k + 1,)
    codes: np.ndarray  # int64 (n,)
    common: np.ndarray  # int8 (k, k)
    weight: np.ndarray  # int64 (k,): scratch, zero between calls
    present: np.ndarray  # int64 (k,): scratch
    by_sum: np.ndarray  # int32 (k,): scratch (32 bits: twice the lanes of a vector)
    limits: np.ndarray  # int64 (k,): scratch


def multiset_tables(counts: np.ndarray) -> Multisets:
    """The :class:`Multisets` of the codes whose colour counts are ``counts`` (``(n,
    colours)``, as :class:`.codes.CodeSpace` has them), with fresh scratch."""
    counts = np.asarray(counts, dtype=np.int64)
    n, colours = counts.shape
    pegs = int(counts[0].sum())
    keys = counts @ ((pegs + 1) ** np.arange(colours, dtype=np.int64))
    unique, of = np.unique(keys, return_inverse=True)
    of = of.astype(np.int64).ravel()
    k = unique.size
    codes = np.argsort(of, kind="stable").astype(np.int64)
    start = np.zeros(k + 1, dtype=np.int64)
    start[1:] = np.cumsum(np.bincount(of, minlength=k))
    first = counts[codes[start[:-1]]]  # the colour counts of each multiset
    common = np.minimum(first[:, None, :], first[None, :, :]).sum(axis=2).astype(np.int8)
    empty = np.zeros(0, dtype=np.int64)
    return fresh_scratch(Multisets(of, start, codes, common, empty, empty, empty, empty), pegs)


def fresh_scratch(multisets: Multisets, pegs: int) -> Multisets:
    """The same tables with scratch of their own (one per search state)."""
    k = multisets.common.shape[0]
    return multisets._replace(weight=np.zeros(k, dtype=np.int64),
                              present=np.zeros(k, dtype=np.int64),
                              by_sum=np.zeros(k, dtype=np.int32),
                              limits=np.zeros(k, dtype=np.int64))


@jit(leaf=True)
def answer_limits(tables, multisets, src, start, end):
    """``multisets.limits[k]``: the bound ``U`` (see the module docs) on the number of
    classes, the solved one included, that any guess of multiset ``k`` makes of the set
    ``src[start:end]``. Leaves ``multisets.weight[j]`` = the members of multiset ``j``
    (``weight`` must be zero on entry; :func:`clear_weights` zeroes it again) and the
    multisets present in ``multisets.present``; returns their number."""
    pegs = tables.pegs
    weight, present, by_sum, common = (multisets.weight, multisets.present, multisets.by_sum,
                                       multisets.common)
    limits = multisets.limits
    k_all = multisets.start.shape[0] - 1
    n_present = 0
    for t in range(start, end):
        j = multisets.of[src[t]]
        if weight[j] == 0:
            present[n_present] = j
            n_present += 1
        weight[j] += 1
    # U of multiset k: sum over t of min(members answering b + w = t, the answers with
    # b + w = t). One pass per t over all multisets (by_sum[k]: those members), in
    # loops over k that the compiler vectorises (indexed by k alone: with an offset
    # added, LLVM did not vectorise them, and the screen took 13 us a call instead of 3)
    for k in range(k_all):
        limits[k] = 0
    for t in range(pegs + 1):
        values = t + 1 if t < pegs else pegs  # b = pegs - 1 never occurs with t = pegs
        for k in range(k_all):
            by_sum[k] = 0
        for p in range(n_present):
            j = present[p]
            w = np.int32(weight[j])
            zero = np.int32(0)
            for k in range(k_all):  # (common is symmetric: row j, read in order)
                by_sum[k] += w if common[j, k] == t else zero
        for k in range(k_all):
            limits[k] += min(by_sum[k], values)
    return n_present


@jit(leaf=True)
def clear_weights(multisets, n_present):
    """Zero ``multisets.weight`` again after :func:`answer_limits` (``n_present``: its
    result)."""
    for p in range(n_present):
        multisets.weight[multisets.present[p]] = 0


@jit(leaf=True)
def screen_guesses(tables, multisets, src, start, end, need_other, need_member, out):
    """The guesses that may make enough classes of the set ``src[start:end]``, into
    ``out`` (multiset by multiset, each in code order); returns their number.

    A guess is kept when its bound ``U`` on its number of classes, the solved one
    included (see the module docs), is at least ``need_member`` if some member of the
    set has its multiset of colours (it may be a member), else at least ``need_other``.
    Every guess with at least that many classes is kept (``U`` is an upper bound); the
    others may be kept too. ``multisets.weight`` must be zero on entry and is left so.
    """
    n_present = answer_limits(tables, multisets, src, start, end)
    weight, first, codes, limits = (multisets.weight, multisets.start, multisets.codes,
                                    multisets.limits)
    kept = 0
    for k in range(first.shape[0] - 1):
        if limits[k] >= (need_member if weight[k] > 0 else need_other):
            for i in range(first[k], first[k + 1]):
                out[kept] = codes[i]
                kept += 1
    clear_weights(multisets, n_present)
    return kept


@jit(leaf=True)
def screen_bound(tables, multisets, src, start, end, by_parts):
    """The least ``by_parts[member, U]`` over the multisets of colours: a lower bound of
    the estimate of every guess dividing the set ``src[start:end]``, with no row of the
    response matrix read (:func:`.candidates.colour_bound`).

    ``by_parts[member, p]`` must bound the estimate of any guess making ``p`` classes
    (``member``: one of them "solved"), never growing with ``p``, and hold ``cap`` for
    ``p <= 1``; a guess of multiset ``k`` makes at most ``U_k`` classes, so its estimate
    is at least ``by_parts[member, U_k]``. Whether a guess is a member is not known per
    multiset, so a multiset some member has takes the lesser of the two.
    ``multisets.weight`` must be zero on entry and is left so."""
    n_present = answer_limits(tables, multisets, src, start, end)
    weight, limits = multisets.weight, multisets.limits
    least = by_parts[0, 0]
    for k in range(multisets.start.shape[0] - 1):
        u = limits[k]
        bound = min(by_parts[0, u], by_parts[1, u]) if weight[k] > 0 else by_parts[0, u]
        least = min(least, bound)
    clear_weights(multisets, n_present)
    return least
