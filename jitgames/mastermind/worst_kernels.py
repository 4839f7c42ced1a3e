"""Kernels of the worst-case search (:mod:`.worst_case`): screening and the last guesses.

"Can the codes ``S`` be solved within ``d`` guesses?" (the final, correct guess
counted) is decided in :mod:`.worst_case` by recursion over the guesses; the kernels
here do its inner work on flat arrays:

- :func:`screen_guesses` -- for each candidate guess, the largest class it leaves
  (the answer "solved" excluded) and the number of classes, so that guesses whose
  largest class is beyond the counting bound are dropped before any recursion;
- :func:`split_classes` -- the classes of one guess, as a counting sort of the codes
  by answer (stable, so a sorted set gives sorted classes);
- :func:`two_guess_witness` and :func:`three_guess_witness` -- the whole question for
  ``d = 2`` and ``d = 3``, answered with the first guess that works (``-1``: none).

Sets are slices ``members[start:end]`` of code indices; ``matrix[g, s]`` is the
encoded answer of guess ``g`` to secret ``s`` (:mod:`.codes`); ``solved`` is the
encoded answer "all black". Candidate order (which witness is returned) is part of
each kernel's contract, so the reference twins return the same guess.
"""
from __future__ import annotations

import numpy as np

from .._jit import jit

__all__ = ["screen_guesses", "split_classes", "two_guess_witness", "three_guess_witness"]


@jit
def screen_guesses(matrix, members, n, marks, solved, limit, out_guess, out_largest,
                   out_parts, sizes):
    """Guesses ``g`` (``marks[g] != 0``, increasing) whose largest class of
    ``members[:n]`` other than "solved" has at most ``limit`` codes.

    Writes each kept guess, its largest class and its number of classes ("solved"
    counted) to ``out_guess``, ``out_largest``, ``out_parts`` (int64, at least
    ``len(marks)`` long) and returns how many were kept. ``sizes`` is int64 scratch
    with one slot per encoded answer.
    """
    kept = 0
    for g in range(marks.shape[0]):
        if marks[g] == 0:
            continue
        sizes[:] = 0
        for t in range(n):
            sizes[matrix[g, members[t]]] += 1
        largest = 0
        parts = 0
        for f in range(sizes.shape[0]):
            if sizes[f] > 0:
                parts += 1
                if f != solved and sizes[f] > largest:
                    largest = sizes[f]
        if largest <= limit:
            out_guess[kept] = g
            out_largest[kept] = largest
            out_parts[kept] = parts
            kept += 1
    return kept


@jit
def split_classes(matrix, members, start, end, guess, starts, out):
    """Counting sort of ``members[start:end]`` by their answer to ``guess`` into
    ``out[start:end]`` (stable); class ``f`` is ``out[starts[f]:starts[f + 1]]``.

    ``starts`` is int64 with one more slot than there are encoded answers.
    """
    slots = starts.shape[0] - 1
    starts[:] = 0
    for t in range(start, end):
        starts[matrix[guess, members[t]] + 1] += 1
    starts[0] = start
    for f in range(slots):
        starts[f + 1] += starts[f]
    fill = starts[:slots].copy()
    for t in range(start, end):
        f = matrix[guess, members[t]]
        out[fill[f]] = members[t]
        fill[f] += 1


@jit(leaf=True)
def _separates(matrix, members, start, end, guess, solved, seen):
    """Whether the codes of ``members[start:end]`` other than ``guess`` all give
    ``guess`` different answers (``seen``: one int64 slot per answer, scratch)."""
    seen[:] = 0
    for t in range(start, end):
        f = matrix[guess, members[t]]
        if f == solved:
            continue
        if seen[f] != 0:
            return False
        seen[f] = 1
    return True


@jit(leaf=True)
def two_guess_witness(matrix, members, start, end, solved, most, seen):
    """First guess after which every code of ``members[start:end]`` is known, so that
    the set is solved within two guesses; ``-1`` if none.

    Candidates in order: the members (a member may be the secret: one guess), then
    every code by increasing index. ``seen`` is int64 scratch, one slot per answer.
    ``most`` is the number of answers besides "solved" plus one: a set of ``m`` codes
    needs ``m - 1`` different answers besides "solved" from a member or ``m`` from
    another code, so larger sets fail at once.
    """
    m = end - start
    if m > most:
        return -1
    for t in range(start, end):
        if _separates(matrix, members, start, end, members[t], solved, seen):
            return members[t]
    for g in range(matrix.shape[0]):
        if _separates(matrix, members, start, end, g, solved, seen):
            return g
    return -1


@jit(leaf=True)
def _within_two_after(matrix, members, start, end, guess, solved, most, starts, fill,
                      order, seen):
    """Whether after ``guess`` every class of ``members[start:end]`` is solved within
    two more guesses (classes of one or two codes always are). The classes are tried
    largest first, the likeliest to fail."""
    slots = starts.shape[0] - 1
    starts[:] = 0
    for t in range(start, end):
        starts[matrix[guess, members[t]] + 1] += 1
    for f in range(slots):
        if f != solved and starts[f + 1] > most:
            return False  # beyond what two guesses can tell apart
    starts[0] = 0
    for f in range(slots):
        starts[f + 1] += starts[f]
    for f in range(slots):
        fill[f] = starts[f]
    for t in range(start, end):
        f = matrix[guess, members[t]]
        order[fill[f]] = members[t]
        fill[f] += 1
    while True:  # the largest class not yet checked (fill[f] = -1 once checked)
        best, size = -1, 2
        for f in range(slots):
            if f != solved and fill[f] >= 0 and starts[f + 1] - starts[f] > size:
                best, size = f, starts[f + 1] - starts[f]
        if best < 0:
            return True
        fill[best] = -1
        if two_guess_witness(matrix, order, starts[best], starts[best + 1], solved, most,
                             seen) < 0:
            return False


@jit
def three_guess_witness(matrix, members, start, end, marks, solved, most, starts, fill,
                        order, seen):
    """First guess after which every class of ``members[start:end]`` is solved within
    two more guesses (:func:`two_guess_witness`), so the set within three; ``-1`` if
    none.

    Candidates: the codes with ``marks`` set (one representative per class of
    equivalent guesses, :func:`.symmetry.mark_representatives`) whose classes all
    have at most ``most`` codes, in Knuth's order: smallest largest class (the answer
    "solved" aside), then most classes ("solved" counted), then index. ``most`` as for
    :func:`two_guess_witness`. Scratch: ``starts`` (answers + 1 slots), ``fill`` and
    ``seen`` (one slot per answer), ``order`` (at least ``end - start``), all int64.
    """
    n = marks.shape[0]
    keys = np.empty(n, dtype=np.int64)
    guesses = np.empty(n, dtype=np.int64)
    slots = seen.shape[0]
    kept = 0
    for g in range(n):
        if marks[g] == 0:
            continue
        seen[:] = 0
        for t in range(start, end):
            seen[matrix[g, members[t]]] += 1
        largest, parts = 0, 0
        for f in range(slots):
            if seen[f] > 0:
                parts += 1
                if f != solved and seen[f] > largest:
                    largest = seen[f]
        if largest <= most:
            keys[kept] = (largest * (slots + 1) + slots - parts) * n + g
            guesses[kept] = g
            kept += 1
    ranked = np.argsort(keys[:kept])
    for r in range(kept):
        g = guesses[ranked[r]]
        if _within_two_after(matrix, members, start, end, g, solved, most, starts, fill,
                             order, seen):
            return g
    return -1
