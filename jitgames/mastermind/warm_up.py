"""What a helper process compiles beside ``mastermind optimal``'s first search
(:mod:`jitgames._warmup`).

On an empty cache the command compiles, in this order: the code tables and response
matrix, the bound tables, :func:`.candidates.set_bound` (called from Python for the
jobs' bounds) with its callees, then :func:`.branch_and_bound.solve` with its callees
(with several threads :func:`.candidates.fast_case` and
:func:`.candidates.root_candidates` come before ``solve``, called from Python to split
the largest jobs; they call the same kernels). Measured on 4 x 7
(``docs/performance.md``), ``set_bound``'s and ``solve``'s callees were about half of
the compile time. The helper compiles them for calls from kernels into the on-disk
cache, starting from the last ones the command meets (``solve``'s last callees), each
kernel's own callees before it; the main process starts from the first ones and loads
whatever the helper has cached by the time it gets there.

The argument types are those of the command's calls, built from arrays of the dtypes
:class:`.optimal.OptimalSearch` gives a game of that size (:func:`.optimal.scratch_dtypes`:
the tally and answer masks widen on large games); integers are int64, as Python's and
NumPy's are in those calls (a test checks that after the helper's work the main process
compiles none of these kernels). ``set_bound`` itself is not in the plan: the command
compiles it for Python before ``solve``, whose calls then link that compilation.
"""
from __future__ import annotations

from math import perm

import numpy as np
from numba import typeof
from numba.core import types

from .._bits import popcount
from .._random import mix64
from . import candidates, codes, engine, screen, solved_sets, symmetry
from .branch_and_bound import Search, solve
from .candidates import Filters, NodeScratch
from .codes import CodeTables
from .optimal import scratch_dtypes
from .screen import Multisets

OPTIMAL_PLAN = "mastermind.optimal"
"""The plan's name in :data:`jitgames._warmup.PLANS`; its parameters are the game's
pegs, colours and repeats (``1`` or ``0``): ``plan_parameters``."""


def plan_parameters(pegs: int, colours: int, repeats: bool) -> tuple[str, str, str]:
    """The helper's command-line parameters of a game (:func:`optimal_plan` reads them)."""
    return str(int(pegs)), str(int(colours)), "1" if repeats else "0"


_IN_LEAF = {"nrt": False}
"""The flags of a plain kernel whose first caller in the command is a leaf kernel
(compiled without reference counting, which its plain callees inherit:
:func:`jitgames._jit.compile_for_kernels`)."""


def _zeros(dtype, ndim: int = 1) -> np.ndarray:
    """A C-contiguous array of ``ndim`` dimensions: only its Numba type is used."""
    return np.zeros((1,) * ndim, dtype=dtype)


def optimal_plan(pegs: str, colours: str, repeats: str):
    """``(target, callees)`` of ``mastermind optimal``'s first search of the game
    (``pegs``, ``colours``, ``repeats`` as :func:`plan_parameters` writes them):
    ``solve`` with the types of :func:`.optimal_jobs.job_value`'s call, and the callees
    of ``set_bound`` and ``solve`` in the helper's order."""
    p, k, rep = int(pegs), int(colours), repeats == "1"
    n = k ** p if rep else perm(k, p)
    tally, masks = scratch_dtypes(n, p)
    i64, i8 = np.int64, np.int8
    multisets = Multisets(*(_zeros(i64) for _ in range(3)), _zeros(i8, 2), _zeros(i64),
                          _zeros(i64), _zeros(np.int32), _zeros(i64))
    search = Search(_zeros(i64), _zeros(i64, 2), _zeros(i64), _zeros(i64), _zeros(i64),
                    _zeros(np.int32, 2), _zeros(i64, 3), _zeros(i64, 2), _zeros(i64),
                    _zeros(i64), _zeros(tally), _zeros(i64), _zeros(masks), _zeros(i64),
                    _zeros(i64), _zeros(i64, 2), multisets, _zeros(i64))
    tables = typeof(CodeTables(_zeros(np.uint8, 2), _zeros(i8, 2), _zeros(i8, 2), p, k, rep))
    ms, s = typeof(multisets), typeof(search)
    filters = typeof(Filters(0, False, _zeros(i64, 2), _zeros(i64, 2)))
    scratch = typeof(NodeScratch(*(_zeros(i64) for _ in range(4)), _zeros(np.bool_),
                                 *(_zeros(i64) for _ in range(3))))
    I, B = types.int64, types.boolean  # noqa: E741 (the names of solitaire's plan)
    a64, a64_2, a32, a8, a8_2 = (types.int64[::1], types.int64[:, ::1], types.int32[::1],
                                 types.int8[::1], types.int8[:, ::1])
    abool, matrix = types.boolean[::1], types.uint8[:, ::1]
    atally, amasks = typeof(_zeros(tally)), typeof(_zeros(masks))
    callees = (  # the reverse of the order the command meets them; callees first
        # first those that later kernels of this list call too but the command meets
        # first under fast_case, a leaf kernel: compiled as it compiles them
        (codes.feedback_digits, (a8, a8, a8, a8, I), _IN_LEAF),
        (engine.response, (tables, I, types.int32), _IN_LEAF),
        (symmetry.present_colours, (a8_2, a32, I, I), _IN_LEAF),
        # then solve's, from its last call back
        (solved_sets.cache_put, (a64_2, I, I)),
        (solved_sets.pack_entry, (I, B, I)),
        (screen.screen_bound, (tables, ms, a32, I, I, a64_2)),
        (candidates.colour_bound, (tables, a32, I, I, I, s)),
        (codes.feedback_packed, (types.uint64,) * 4 + (I,)),
        (codes.pack_code, (a8, a8)),
        (symmetry.orbit_minimal, (a8_2, abool, I, a64_2, a64_2, I, a64, a64), _IN_LEAF),
        (symmetry.free_colours_canonical, (a8, abool, I), _IN_LEAF),
        (candidates.canonical, (tables, I, filters, abool, scratch)),
        (candidates.list_candidates, (tables, a32, I, I, I, I, I, abool, s, filters, scratch,
                                      B)),
        (symmetry.all_colours_used, (abool,)),
        (symmetry.history_group, (a8_2, abool, I, a64, I, a64_2)),
        (candidates.node_filters, (tables, a32, I, I, I, abool, a64, a64_2)),
        (candidates.new_node_scratch, (I, I, a64)),
        (symmetry.absent_canonical, (a8, I, B)),
        (candidates.splits_apart_any, (tables, a32, I, I, B, a64)),
        (candidates.fast_case, (tables, a32, I, I, I, amasks, a64)),
        (solved_sets.unpack_entry, (I,)),
        (solved_sets.cache_get, (a64_2, I)),
        (solved_sets.lookup, (a64_2, I)),
        (mix64, (types.uint64,), _IN_LEAF),
        (solved_sets.set_hash, (a32, I, I, I)),
        # then set_bound's, from its last call back
        (candidates.clear_tally, (matrix, I, atally)),
        (candidates.tally_classes, (matrix, a32, I, I, a64, a64, a64, I, atally, a64)),
        (popcount, (amasks.dtype,)),
        (candidates.gather_answer_masks, (matrix, a32, I, I, a64, I, amasks)),
        (candidates.or_answer_rows, (matrix, a32, I, I, amasks)),
        (candidates.answer_masks, (matrix, a32, I, I, amasks)),
        (screen.clear_weights, (ms, I)),
        (screen.answer_limits, (tables, ms, a32, I, I)),
        (screen.screen_guesses, (tables, ms, a32, I, I, I, I, a64)),
        (candidates.parts_bounds, (I, I, a64, a64_2, I)),
    )
    target = (solve, (tables, a32, I, I, I, I, I, abool, s, I))
    return target, callees
