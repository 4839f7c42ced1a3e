"""Symmetries of Mastermind used to skip candidate guesses that cannot matter.

Two guesses are *equivalent* at a node when one is mapped to the other by a
symmetry of the node, so they split the consistent set into classes of the same
sizes (and one is consistent exactly when the other is):

- permutations of the colours never guessed so far (*free* colours), and position
  permutations with a colour map that fix every guess so far (these map the
  consistent set onto itself);
- colours that no consistent code uses (*absent* colours) answer alike wherever
  they stand, so a guess may swap one absent colour for another (keeping the code
  legal: without repeats, absent colours stay distinct).

Each filter here drops a code only when a smaller equivalent code exists. Hence the
smallest code of any class of equivalent guesses survives all of them together, and
so does the guess a greedy strategy chooses (best score, then consistent, then
smallest), and some guess of every class the optimal search must consider.
"""
from __future__ import annotations

from functools import lru_cache
from itertools import permutations

import numpy as np

from .._jit import jit

__all__ = ["free_colours_canonical", "orbit_minimal", "history_group", "present_colours",
           "absent_canonical", "repeats_allowed", "all_colours_used",
           "mark_representatives", "position_permutations"]

MAX_PERMUTED_PEGS = 6  # 720 position permutations, checked at every decision


@lru_cache(maxsize=4)
def position_permutations(pegs: int, most: int = MAX_PERMUTED_PEGS) -> np.ndarray:
    """The position permutations tried as symmetries (int64 rows): all of them for up
    to ``most`` pegs, else the identity alone (colour symmetries only)."""
    if pegs > most:
        return np.arange(pegs, dtype=np.int64).reshape(1, pegs)
    return np.array(list(permutations(range(pegs))), dtype=np.int64).reshape(-1, pegs)


@jit
def free_colours_canonical(digits_row, used, colours):
    """Whether the never-guessed colours of a code appear smallest first, in order."""
    expect = 0
    while expect < colours and used[expect]:
        expect += 1
    for d in digits_row:
        if used[d]:
            continue
        if d > expect:
            return False
        if d == expect:
            expect += 1
            while expect < colours and used[expect]:
                expect += 1
    return True


@jit
def orbit_minimal(digits, used, colours, group, colour_maps, code, image, relabel):
    """Whether ``code`` is the smallest code of its orbit under the history's symmetries.

    ``group[e]`` is a position permutation and ``colour_maps[e]`` its colour map on
    the used colours (-1 elsewhere); never-used colours are relabelled smallest first.
    ``image`` (pegs) and ``relabel`` (colours) are int64 scratch.

    Each element's image is mapped and compared position by position and left at the
    first position where it differs from ``code`` (most elements differ early), so
    ``relabel`` is reset only where that element set it.
    """
    pegs = digits.shape[1]
    first_free = 0
    while first_free < colours and used[first_free]:
        first_free += 1
    relabel[:] = -1
    for e in range(group.shape[0]):
        for i in range(pegs):
            image[group[e, i]] = digits[code, i]
        nxt = first_free
        smaller = False
        j = 0
        while j < pegs:
            c = image[j]
            if used[c]:
                d = colour_maps[e, c]
            else:
                d = relabel[c]
                if d < 0:
                    d = nxt
                    relabel[c] = nxt
                    nxt += 1
                    while nxt < colours and used[nxt]:
                        nxt += 1
            if d != digits[code, j]:
                smaller = d < digits[code, j]
                break
            j += 1
        for i in range(min(j + 1, pegs)):  # the positions mapped: their colours' labels
            relabel[image[i]] = -1
        if smaller:
            return False
    return True


@jit
def history_group(digits, used, colours, history, n_history, perms):
    """Position permutations (with colour maps) fixing every guess of the history."""
    pegs = digits.shape[1]
    group = np.empty_like(perms)
    maps = np.empty((perms.shape[0], colours), dtype=np.int64)
    back = np.empty(colours, dtype=np.int64)
    kept = 0
    for e in range(perms.shape[0]):
        ok = True
        back[:] = -1
        maps[kept] = -1
        for h in range(n_history):
            g = history[h]
            for i in range(pegs):
                a, b = digits[g, i], digits[g, perms[e, i]]
                if maps[kept, a] < 0 and back[b] < 0:
                    maps[kept, a], back[b] = b, a
                elif maps[kept, a] != b or back[b] != a:
                    ok = False
                    break
            if not ok:
                break
        if ok:  # kept in place: loops, not boolean indexing or an array assigned to a
            # slice, which compile many times more code (formatting of shape errors)
            for i in range(pegs):
                group[kept, i] = perms[e, i]
            kept += 1
    return group[:kept].copy(), maps[:kept].copy()


@jit
def present_colours(digits, members, start, end):
    """Bit mask of the colours used by at least one code of ``members[start:end]``."""
    mask = np.int64(0)
    for t in range(start, end):
        for d in digits[members[t]]:
            mask |= np.int64(1) << np.int64(d)
    return mask


@jit
def repeats_allowed(n, pegs, colours):
    """Whether a space of ``n`` codes holds every code (``colours ** pegs`` of them)."""
    total = 1
    for _ in range(pegs):
        total = min(total * colours, n + 1)
    return total == n


@jit
def absent_canonical(digits_row, absent, repeats):
    """Whether a code uses the absent colours (bit mask ``absent``) smallest first.

    With repeats every absent position must hold the smallest absent colour; without,
    the absent colours met from left to right must be the smallest ones in order (the
    smallest legal code with the same absent positions).
    """
    absent = np.int64(absent)
    expect = np.int64(0)
    while expect < 63 and not (absent >> expect) & 1:
        expect += 1
    for d in digits_row:
        if (absent >> np.int64(d)) & 1:
            if d != expect:
                return False
            if not repeats:
                expect += 1
                while expect < 63 and not (absent >> expect) & 1:
                    expect += 1
    return True


@jit
def all_colours_used(used):
    """Whether every colour has been guessed (then :func:`free_colours_canonical` keeps
    every code)."""
    for c in range(used.shape[0]):
        if not used[c]:
            return False
    return True


@jit
def mark_representatives(digits, used, colours, group, colour_maps, absent, repeats, marks):
    """``marks[g] = 1`` for the codes no filter drops, else 0 (see the module docs).

    ``used`` marks the colours guessed so far, ``group``/``colour_maps`` come from
    :func:`history_group`, ``absent`` is the bit mask of the absent colours and
    ``repeats`` says whether codes may repeat a colour (:func:`absent_canonical`).
    """
    pegs = digits.shape[1]
    image = np.empty(pegs, dtype=np.int64)
    relabel = np.empty(colours, dtype=np.int64)
    all_used = all_colours_used(used)
    symmetric = group.shape[0] > 1
    for g in range(digits.shape[0]):
        keep = True
        if absent != 0 and not absent_canonical(digits[g], absent, repeats):
            keep = False
        elif not all_used and not free_colours_canonical(digits[g], used, colours):
            keep = False
        elif symmetric and not orbit_minimal(digits, used, colours, group, colour_maps, g,
                                             image, relabel):
            keep = False
        marks[g] = 1 if keep else 0
