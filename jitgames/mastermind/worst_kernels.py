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

Where every guess is tried against a set, its answers come from the packed codes
``words`` (:func:`.codes.packed_codes`; ``pegs`` for :func:`.codes.feedback_packed`)
when the set has fewer than :data:`PACKED_BELOW` codes, and from the matrix otherwise
or when ``words`` has no rows (games beyond :data:`.codes.PACKED_LIMIT`): the same
answers either way.
"""
from __future__ import annotations

import numpy as np

from .._jit import jit
from .codes import feedback_packed

__all__ = ["screen_guesses", "split_classes", "two_guess_witness", "answer_rows",
           "rows_by_width", "three_guess_witness"]


PACKED_BELOW = 640
"""Sets of fewer codes get each guess's answers from the packed codes, larger ones from
the guess's matrix row. For a few codes every guess's row is a cache miss per code
(5 x 8's matrix is 1 GiB), a dozen word operations are cheaper; for many codes the row
is read in order, which beats computing the answers. Measured on 5 x 8, every guess
against one set, CPU time: x2.8 faster for 32 codes, x1.2 for 512, x0.7 for 1,024 (the
two cross near 700); the three-guess sets of the 5 x 8 search (286 codes) x2.8
(``bench/mastermind_worst_packed.py``, ``bench/results/mastermind_worst_packed.json``)."""


@jit(leaf=True)
def _packed(words, start, end):
    """Whether the answers to ``members[start:end]`` come from the packed codes: there
    are packed codes, and the set has fewer than :data:`PACKED_BELOW` codes."""
    return words.shape[0] > 0 and end - start < PACKED_BELOW


@jit(leaf=True)
def _answer(matrix, words, pegs, packed, guess, code):
    """The encoded answer of ``guess`` to ``code``: from their packed words when
    ``packed`` (for the small sets of :func:`two_guess_witness`, read in place: 5 x 8's
    words are 512 KiB), else from the matrix."""
    if packed:
        return feedback_packed(words[guess, 0], words[guess, 1], words[code, 0],
                               words[code, 1], pegs)
    return np.int64(matrix[guess, code])


@jit
def _member_words(words, members, start, end):
    """The packed codes of ``members[start:end]`` in a row each, contiguous for the
    loops over every guess (no rows when the answers come from the matrix:
    :func:`_packed`)."""
    out = np.empty((end - start if _packed(words, start, end) else 0, 2), dtype=np.uint64)
    for t in range(out.shape[0]):
        out[t, 0] = words[members[start + t], 0]
        out[t, 1] = words[members[start + t], 1]
    return out


@jit(leaf=True)
def _tally(matrix, words, pegs, guess, members, start, end, member_words, sizes):
    """``sizes[f] +=`` how many codes of ``members[start:end]`` answer ``f`` to
    ``guess``: from ``member_words`` (:func:`_member_words`) when it has rows, else
    from the matrix (the two loops kept apart so that each is a plain loop)."""
    if member_words.shape[0] > 0:
        g_positions, g_colours = words[guess, 0], words[guess, 1]
        for t in range(end - start):
            sizes[feedback_packed(g_positions, g_colours, member_words[t, 0],
                                  member_words[t, 1], pegs)] += 1
    else:
        for t in range(start, end):
            sizes[matrix[guess, members[t]]] += 1


@jit
def screen_guesses(matrix, words, pegs, members, n, marks, solved, limit, out_guess,
                   out_largest, out_parts, sizes):
    """Guesses ``g`` (``marks[g] != 0``, increasing) whose largest class of
    ``members[:n]`` other than "solved" has at most ``limit`` codes.

    Writes each kept guess, its largest class and its number of classes ("solved"
    counted) to ``out_guess``, ``out_largest``, ``out_parts`` (int64, at least
    ``len(marks)`` long) and returns how many were kept. ``sizes`` is int64 scratch
    with one slot per encoded answer.
    """
    kept = 0
    member_words = _member_words(words, members, 0, n)
    for g in range(marks.shape[0]):
        if marks[g] == 0:
            continue
        sizes[:] = 0
        _tally(matrix, words, pegs, g, members, 0, n, member_words, sizes)
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
    fill = np.empty(starts.shape[0] - 1, dtype=np.int64)
    _count_answers(matrix, guess, members, start, end, starts)
    _place_by_answer(matrix, guess, members, start, end, starts, fill, out, start)


@jit(leaf=True)
def _count_answers(table, row, items, start, end, starts):
    """First half of a counting sort: ``starts[f + 1]`` = how many of
    ``items[start:end]`` answer ``f`` (``table[row, item]``), ``starts[0]`` = 0."""
    starts[:] = 0
    for t in range(start, end):
        starts[table[row, items[t]] + 1] += 1


@jit(leaf=True)
def _place_by_answer(table, row, items, start, end, starts, fill, out, base):
    """Second half, after :func:`_count_answers`: the items in ``out`` from ``base``
    on, grouped by answer in their order (stable); class ``f`` is
    ``out[starts[f]:starts[f + 1]]`` and, on return, ``fill[f] == starts[f + 1]``."""
    slots = starts.shape[0] - 1
    starts[0] = base
    for f in range(slots):
        starts[f + 1] += starts[f]
    for f in range(slots):
        fill[f] = starts[f]
    for t in range(start, end):
        f = table[row, items[t]]
        out[fill[f]] = items[t]
        fill[f] += 1


@jit(leaf=True)
def _largest_unchecked(starts, fill, solved):
    """The answer of the largest class (``starts`` as :func:`_place_by_answer` leaves
    them) of more than two codes not yet checked, marked checked (``fill[f] = -1``);
    ``-1`` when none is left. Ties go to the smaller answer. Classes of one or two
    codes are never checked: one more guess always solves them."""
    best, size = -1, 2
    for f in range(starts.shape[0] - 1):
        if f != solved and fill[f] >= 0 and starts[f + 1] - starts[f] > size:
            best, size = f, starts[f + 1] - starts[f]
    if best >= 0:
        fill[best] = -1
    return best


@jit(leaf=True)
def _separates(matrix, words, pegs, packed, members, start, end, guess, solved, seen):
    """Whether the codes of ``members[start:end]`` other than ``guess`` all give
    ``guess`` different answers (``seen``: one int64 slot per answer, scratch;
    answers as :func:`_answer`)."""
    seen[:] = 0
    for t in range(start, end):
        f = _answer(matrix, words, pegs, packed, guess, members[t])
        if f == solved:
            continue
        if seen[f] != 0:
            return False
        seen[f] = 1
    return True


@jit(leaf=True)
def two_guess_witness(matrix, words, pegs, members, start, end, solved, most, seen):
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
    packed = _packed(words, start, end)
    for t in range(start, end):
        if _separates(matrix, words, pegs, packed, members, start, end, members[t], solved,
                      seen):
            return members[t]
    for g in range(matrix.shape[0]):
        if _separates(matrix, words, pegs, packed, members, start, end, g, solved, seen):
            return g
    return -1


@jit(leaf=True)
def _within_two_after(matrix, words, pegs, members, start, end, guess, solved, most,
                      starts, fill, order, seen):
    """Whether after ``guess`` every class of ``members[start:end]`` is solved within
    two more guesses (classes of one or two codes always are). The classes are tried
    largest first, the likeliest to fail."""
    _count_answers(matrix, guess, members, start, end, starts)
    for f in range(starts.shape[0] - 1):
        if f != solved and starts[f + 1] > most:
            return False  # beyond what two guesses can tell apart
    _place_by_answer(matrix, guess, members, start, end, starts, fill, order, 0)
    while True:
        best = _largest_unchecked(starts, fill, solved)
        if best < 0:
            return True
        if two_guess_witness(matrix, words, pegs, order, starts[best], starts[best + 1],
                             solved, most, seen) < 0:
            return False


@jit
def answer_rows(matrix, words, pegs, members, start, end, rows, parts):
    """The answers of every code to ``members[start:end]``: ``rows[h, t] =
    matrix[h, members[start + t]]``, with ``parts[h]`` the number of different answers
    in row ``h`` ("solved" counted). Returns the most different answers any row
    holds."""
    n = end - start
    seen = np.zeros(256, dtype=np.int64)  # answers are one byte
    member_words = _member_words(words, members, start, end)
    packed = member_words.shape[0] > 0
    widest = 0
    for h in range(matrix.shape[0]):
        stamp = h + 1  # a fresh mark per row instead of clearing ``seen``
        count = 0
        for t in range(n):
            if packed:
                f = feedback_packed(words[h, 0], words[h, 1], member_words[t, 0],
                                    member_words[t, 1], pegs)
            else:
                f = np.int64(matrix[h, members[start + t]])
            rows[h, t] = f
            if seen[f] != stamp:
                seen[f] = stamp
                count += 1
        parts[h] = count
        if count > widest:
            widest = count
    return widest


@jit
def rows_by_width(parts, widest, out):
    """The guesses ordered by the number of different answers of their rows
    (``parts``, at most ``widest``), most first, then by index (a counting sort):
    written to ``out``. A guess whose row holds fewer different answers than a class
    has codes cannot tell that class apart, so the two-guess test stops there."""
    count = np.zeros(widest + 2, dtype=np.int64)
    for h in range(parts.shape[0]):
        count[widest - parts[h] + 1] += 1
    for w in range(widest + 1):
        count[w + 1] += count[w]
    for h in range(parts.shape[0]):
        at = widest - parts[h]
        out[count[at]] = h
        count[at] += 1


@jit(leaf=True)
def _told_apart_by_one(rows, positions, a, b, ranked, parts, kept, marks, stamp):
    """Whether some row of ``ranked[:kept]`` (widest first) gives the codes at
    ``positions[a:b]`` different answers each; rows with fewer different answers than
    there are codes are never tried. ``marks`` is int64 scratch (256 slots), marked
    with stamps from ``stamp`` on; returns the next free stamp (negated if none)."""
    m = b - a
    for k in range(kept):
        h = ranked[k]
        if parts[h] < m:
            break
        stamp += 1
        ok = True
        for i in range(a, b):
            f = rows[h, positions[i]]
            if marks[f] == stamp:
                ok = False
                break
            marks[f] = stamp
        if ok:
            return stamp
    return -stamp


@jit
def three_guess_witness(matrix, words, pegs, members, start, end, marks, solved, most,
                        starts, fill, order, seen):
    """First guess after which every class of ``members[start:end]`` is solved within
    two more guesses (:func:`two_guess_witness`), so the set within three; ``-1`` if
    none.

    Candidates: the codes with ``marks`` set (one representative per class of
    equivalent guesses, :func:`.symmetry.mark_representatives`) whose classes all
    have at most ``most`` codes, in Knuth's order: smallest largest class (the answer
    "solved" aside), then most classes ("solved" counted), then index. ``most`` as for
    :func:`two_guess_witness`. Scratch: ``starts`` (answers + 1 slots), ``fill`` and
    ``seen`` (one slot per answer), ``order`` (at least ``end - start``), all int64.

    How: the first candidate is tried as :func:`two_guess_witness` does (the members
    of a class first), which settles most solvable sets at once; past it, the answers
    of every code to the set are tabled once (:func:`answer_rows`).
    A class is told apart by a second guess when that guess's row holds a different
    answer for each of its codes, so only rows with at least as many different
    answers as the class has codes are tried, widest first (:func:`rows_by_width`). No
    class can have more codes than ``widest``, the most different answers of any row,
    and a guess leaves at most ``widest`` classes, so a set of more than ``widest**2``
    codes fails at once and a guess whose largest class exceeds ``widest`` is no
    candidate.
    """
    n = end - start
    size = matrix.shape[0]
    keys = np.empty(size, dtype=np.int64)
    guesses = np.empty(size, dtype=np.int64)
    slots = seen.shape[0]
    kept = 0
    member_words = _member_words(words, members, start, end)
    for g in range(size):
        if marks[g] == 0:
            continue
        seen[:] = 0
        _tally(matrix, words, pegs, g, members, start, end, member_words, seen)
        largest, parts = 0, 0
        for f in range(slots):
            if seen[f] > 0:
                parts += 1
                if f != solved and seen[f] > largest:
                    largest = seen[f]
        if largest <= most:
            keys[kept] = (largest * (slots + 1) + slots - parts) * size + g
            guesses[kept] = g
            kept += 1
    if kept == 0:
        return -1
    ranked = np.argsort(keys[:kept])
    # The first candidate usually works when the set is solvable, and its classes are
    # then told apart by one of their own codes, tried first: no table for that.
    g = guesses[ranked[0]]
    if _within_two_after(matrix, words, pegs, members, start, end, g, solved, most, starts,
                         fill, order, seen):
        return g
    rows = np.empty((size, max(n, 1)), dtype=matrix.dtype)
    widths = np.empty(size, dtype=np.int64)
    widest = answer_rows(matrix, words, pegs, members, start, end, rows, widths)
    if n > widest * widest:
        return -1
    limit = min(most, widest)
    by_width = np.empty(size, dtype=np.int64)
    rows_by_width(widths, widest, by_width)
    stamps = np.zeros(256, dtype=np.int64)
    stamp = 0
    positions = np.arange(n)  # items of the sort: a code's position in the set
    for r in range(1, kept):
        g = guesses[ranked[r]]
        if keys[ranked[r]] // size // (slots + 1) > limit:
            continue  # its largest class exceeds what one more guess tells apart
        # classes of g as runs of positions in ``order``
        _count_answers(rows, g, positions, 0, n, starts)
        _place_by_answer(rows, g, positions, 0, n, starts, fill, order, 0)
        works = True
        while works:
            best = _largest_unchecked(starts, fill, solved)
            if best < 0:
                break
            stamp = _told_apart_by_one(rows, order, starts[best], starts[best + 1],
                                       by_width, widths, size, stamps, stamp)
            if stamp < 0:
                works = False
                stamp = -stamp
        if works:
            return g
    return -1
