"""What a helper process compiles beside the study's first call (:mod:`jitgames._warmup`).

The study's first call compiles :func:`.search.solve_decks` (the command compiles it
first, :func:`jitgames._warmup.compile_target`) and, while typing it, its callees; then
the deal generation (:func:`.deal.fisher_yates_range`, called from Python). The work is
split so that neither process waits for the other: the command first compiles the
foundation plays (:func:`.rules._play_foundations`, which the deal's set-up and the moves
call), the line search's move order (:func:`.search._foundation_moves_first`) and the
score search (:func:`.search.solve_position`, with the callees that both
searches call), marked :data:`jitgames._warmup.COMMAND`; meanwhile the helper compiles
the line search's first callee (:func:`.bound._scan`), the deal's set-up
(:func:`.rules.deal_position`, which ``solve_decks`` meets first), the line search's
other callees, the table growth (:func:`.search._larger_table`: Numba's ``np.zeros``,
which each process compiles for itself, costs the helper less, since the line search
needs ``np.empty`` anyway) and the line search (:func:`.search.solve_line`). Then the
helper goes through the other callees from the last ones ``solve_decks`` meets back
(those the command has compiled or is compiling are loaded or skipped:
:func:`jitgames._jit.share_compiles`), and the deal generation for the call from Python
that follows. The argument types are those of
``solve_decks``' calls: its scratch is C-contiguous int64 arrays, its integers int64
(a test checks that after the helper's work the main process compiles none of these
kernels).
"""
from __future__ import annotations

from numba.core import types

from .._warmup import COMMAND, FOR_PYTHON
from . import bound, deal, reach, rules, search, table

STUDY_PLAN = "solitaire.study"
"""The plan's name in :data:`jitgames._warmup.PLANS`."""

_A, _I, _B = types.int64[::1], types.int64, types.boolean

_CALLEES = (
    # the helper's first: the line search's first callee (while the command compiles the
    # foundation plays that the deal's set-up calls), the deal's set-up (which the
    # command meets first, after the searches it compiles itself, below), the line
    # search's other callees, the table growth and the line search
    (bound._scan, (_A, _I, _I, _I, _I, _I)),
    (rules.deal_position, (_A, _A)),
    (bound._rescan, (_A, _A, _I, _I, _I)),
    (rules.last_move_entry, (_A,)),
    (search._larger_table, (_I, _I)),
    (search.solve_line, (_A, _A, _A, _A, _A, _I, _I, _I)),
    # the command's own, first: the foundation plays and the line search's move order
    # (before the helper needs them), then the score search with the callees both
    # searches call
    (rules._play_foundations, (_A, _B), COMMAND),
    (search._foundation_moves_first, (_A, _A, _I, _I), COMMAND),
    (search.solve_position, (_A, _A, _A, _A, _A, _B, _I, _I), COMMAND),
    # the rest, from the last one solve_decks meets back (cached by then, as a rule)
    (bound._lower, (_I, _I)),
    (bound._must_leave, (_I, _I, _I)),
    (search.unpack_value, (_I,)),
    (search._fold, (_A, _I, _I, _B)),
    (search._unwind, (_A, _I)),
    (table.table_store, (_A, _A, _I, _I)),
    (rules.log_entry_card_pile, (_A, _I)),
    (rules.undo_move, (_A,)),
    (rules._carry_run, (_A, _I, _I, _I, _I)),
    (rules._key_bit, (_I, _I)),
    (rules._turn_up_if_freed, (_A, _I)),
    (rules._log, (_A, _I)),
    (rules.apply_move, (_A, _I)),
    (search._plays_foundation, (_A, _I)),
    (rules.moved_key_bit, (_I,)),
    (search._quiet_child_key, (_A, _I)),
    (search.stop_value, (_I,)),
    (table._bucket_start, (_A, _I)),
    (table._tick, (_A,)),
    (table.table_lookup, (_A, _A, _I)),
    (reach.card_count, (_I,)),
    (reach._apart, (_A, _I, _I)),
    (table.table_new_deal, (_A, _A)),
    (rules.legal_moves, (_A, _A, _I)),
    (rules.position_key, (_A,)),
    # called from Python after solve_decks is compiled (jitgames.solitaire.__main__)
    (deal.fisher_yates_range, (types.uint64, types.uint64, types.int64[:, ::1]), FOR_PYTHON),
)


def study_plan():
    """``(target, callees)`` of the study's first call: ``solve_decks`` with the types
    of :func:`.search.solve_rows`' call, and its callees in the helper's order."""
    target = (search.solve_decks,
              (types.int64[:, ::1], _B, _A, _A, _A, _A, _A, _I, types.int64[:, ::1]))
    return target, _CALLEES
