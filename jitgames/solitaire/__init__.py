"""Solitaire: the exact optimal score of every deal, and a study over random deals.

Public API
----------
solve_deals(deals, score_only=False)   per-deal optimal score, moves, decisions, positions
deals(seed, start, stop, shuffle)      reproducible deals in the shared format
optimal_line(deck)                     the optimal line of one deal, move by move
solve_rules(deals, rules)              optimal scores under yukon or alaska rules (:mod:`.family`)
FamilyGame(deck, rules)                a game under those rules, the family search as coach
Game(deck)                             a game for a person: moves, undo, hints (see :mod:`.play`)
PositionSolver()                       optimal score and best move from any position of a game
study_chunk / merge / summarise        mergeable study statistics (see :mod:`.study`)
shuffle_bias(n, shuffle)               chi-square test of a shuffle's card positions
write_solution(path, deck, line)       a line in the notation anyone can check (:mod:`.solution`)
family_line(deck, rules, moves)        a Yukon or Alaska line (search's or game's) to write
family_shortest_line(deck, rules)      a shortest line to the optimal score under those rules
check_solution_file(path)              replay it with the independent checker (:mod:`.check`)

The rules and deal format are those of docs/design.md ("Solitaire deals"); the
definitions of ``moves`` and ``decisions`` are in :mod:`.search`.
"""
from __future__ import annotations

import sys as _sys

if _sys.argv[:1] == ["-m"]:  # ``python -m jitgames.solitaire N``: its helper imports beside ours
    from .._warmup import start_ahead_of_program

    start_ahead_of_program(__name__)

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .._jit import thread_count, threads as _threads
from .deal import SHUFFLES, ShuffleBias, deals, read_deal_file, shuffle_bias, validate_deals
from .family import RULE_NAMES, rules_code
from .family_play import FamilyGame
from .family_search import DEFAULT_NODE_LIMIT, UNDECIDED
from .play import Game
from .rules import card_name
from .search import RESULT_FIELDS, PositionSolver, Step, make_scratch, optimal_steps, solve_rows
from .check import CheckReport, check_file as check_solution_file
from .solution import FamilyLine, family_line, solution_text, write_solution
from .study import StudyPartial, empty_partial, merge, partial_from_rows, study_chunk, summarise
from .table import DEFAULT_CAPACITY, DEFAULT_MAX_CAPACITY

__all__ = [
    "DealResults", "OptimalLine", "solve_deals", "optimal_line", "deals", "read_deal_file",
    "validate_deals", "shuffle_bias", "ShuffleBias", "SHUFFLES", "card_name", "Step",
    "StudyPartial", "study_chunk", "merge", "summarise", "empty_partial",
    "partial_from_rows", "DEFAULT_CAPACITY", "DEFAULT_MAX_CAPACITY", "Game", "PositionSolver",
    "solution_text", "write_solution", "check_solution_file", "CheckReport",
    "RuleResults", "solve_rules", "FamilyGame", "RULE_NAMES", "FamilyLine", "family_line",
    "family_shortest_line",
]


@dataclass(frozen=True)
class DealResults:
    """Per-deal results, arrays in deal order (int64).

    ``score`` optimal score; ``moves``/``decisions`` the optimal-line figures (-1 in
    score-only mode); ``positions`` positions expanded; ``lookups``, ``probes``,
    ``evictions`` the deal's use of its position tables (summed over its attempts);
    ``occupancy`` and ``capacity`` the entries used and the slots of the table that
    solved it (larger than the thread's table when the deal's table had to grow);
    ``opening_moves`` the legal moves right after the deal.
    """

    score: np.ndarray
    moves: np.ndarray
    decisions: np.ndarray
    positions: np.ndarray
    lookups: np.ndarray
    probes: np.ndarray
    evictions: np.ndarray
    occupancy: np.ndarray
    capacity: np.ndarray
    opening_moves: np.ndarray

    @classmethod
    def from_rows(cls, rows: np.ndarray) -> "DealResults":
        columns = {name: rows[:, k].copy() for k, name in enumerate(RESULT_FIELDS)}
        for column in columns.values():
            column.flags.writeable = False
        return cls(**columns)

    def __len__(self) -> int:
        return self.score.shape[0]


def solve_deals(deals_in, score_only: bool = False, *, table_capacity: int = DEFAULT_CAPACITY,
                max_table_capacity: int = DEFAULT_MAX_CAPACITY,
                threads: int | None = None) -> DealResults:
    """Solve an (n, 52) integer array of deals exactly.

    Parameters
    ----------
    deals_in : array_like
        One deal a row in the shared format (a permutation of 0..51); a single
        52-card deal is accepted too.
    score_only : bool
        Only the optimal score (stops as soon as 52 is reached); ``moves`` and
        ``decisions`` are then -1.
    table_capacity : int
        Slots of each thread's position table (a power of two >= 4). Answers do
        not depend on it; speed does.
    max_table_capacity : int
        A deal that thrashes its table is solved again with tables 4 times larger,
        up to this many slots (a power of two >= 4; see :mod:`.search`).
    threads : int, optional
        Threads to use (default: all Numba threads). Answers do not depend on it.

    Raises
    ------
    InputError
        For a bad array (naming the first bad deal, counting from 1) or capacity.
    """
    decks = validate_deals(deals_in)
    with _threads(threads):
        scratch = make_scratch(thread_count(), table_capacity, max_table_capacity)
        rows = solve_rows(decks, score_only, scratch)
    return DealResults.from_rows(rows)


@dataclass(frozen=True)
class OptimalLine:
    """The optimal line of one deal: its ``score``, ``steps`` and the dealt piles.

    ``piles`` are ``(face_down_count, cards bottom to top)`` right after the deal
    (and the automatic foundation plays); ``foundations`` the cards per suit then.
    """

    score: int
    steps: tuple[Step, ...]
    piles: tuple[tuple[int, tuple[int, ...]], ...]
    foundations: tuple[int, ...]

    @property
    def moves(self) -> int:
        return len(self.steps)

    @property
    def decisions(self) -> int:
        return sum(1 for step in self.steps if step.choices > 1)


def optimal_line(deck, *, table_capacity: int = DEFAULT_CAPACITY,
                 max_table_capacity: int = DEFAULT_MAX_CAPACITY) -> OptimalLine:
    """The optimal line of one deal (fewest moves, then fewest decision points).

    Raises
    ------
    InputError
        Unless ``deck`` is one valid deal (52 cards, or a 1 x 52 array).
    """
    from .rules import FOUNDATION, piles_of

    checked = validate_deals(deck)
    if checked.shape[0] != 1:
        raise InputError(f"optimal_line takes one deal, got {checked.shape[0]}")
    checked = checked[0]
    score, steps, start = optimal_steps(checked, table_capacity, max_table_capacity)
    piles = tuple((down, tuple(cards)) for down, cards in piles_of(start))
    foundations = tuple(int(f) for f in start[FOUNDATION:FOUNDATION + 4])
    return OptimalLine(score, tuple(steps), piles, foundations)


@dataclass(frozen=True)
class RuleResults:
    """Per-deal results under a rule set of :mod:`.family`, arrays in deal order.

    ``score`` the optimal score, or for an undecided deal the best score its search
    saw (a lower bound); ``undecided`` True where the search passed its node limit;
    ``positions`` positions the search saw; ``line_moves`` the length of the line it
    found to ``score``; ``opening_moves`` the legal moves right after the deal.
    """

    rules: str
    score: np.ndarray
    undecided: np.ndarray
    positions: np.ndarray
    line_moves: np.ndarray
    opening_moves: np.ndarray

    def __len__(self) -> int:
        return self.score.shape[0]


def solve_rules(deals_in, rules: str = "yukon", *, node_limit: int = DEFAULT_NODE_LIMIT,
                threads: int | None = None) -> RuleResults:
    """The optimal score of each deal under ``rules`` (``"yukon"``, ``"alaska"``, or
    ``"etude"`` through the family search: the same scores as :func:`solve_deals`).

    Parameters
    ----------
    deals_in : array_like
        One deal a row in the shared format; a single 52-card deal is accepted too.
    rules : str
        The rule set (docs/solitaire.md, "The family").
    node_limit : int
        Positions a deal's search may see before the deal is reported undecided.
    threads : int, optional
        Threads to use (default: all Numba threads). Answers do not depend on it.
    """
    from .family_study import solve_many

    code = rules_code(rules)
    if not 1 <= int(node_limit) <= 10**9:
        raise InputError(f"node_limit must be 1 to 10^9, got {node_limit}")
    decks = validate_deals(deals_in)
    with _threads(threads):
        rows = solve_many(decks, code, int(node_limit), thread_count())
    columns = [rows[:, 0], rows[:, 1] == UNDECIDED, rows[:, 2], rows[:, 3], rows[:, 4]]
    for column in columns:
        column.flags.writeable = False
    return RuleResults(RULE_NAMES[code], *columns)


def family_shortest_line(deck, rules: str = "yukon", *, node_limit: int = DEFAULT_NODE_LIMIT):
    """A shortest line to the optimal score of one deal under a rule set of :mod:`.family`
    (docs/solitaire.md, "Shortest lines"), or the family search's line, labelled.

    Parameters
    ----------
    deck : array_like
        One deal (52 card numbers, docs/design.md), or a 1 x 52 array.
    rules : str
        ``"yukon"``, ``"alaska"`` or ``"etude"``.
    node_limit : int
        Positions each search may store (1 to 10^9).

    Returns
    -------
    family_shortest.ShortestLine
        ``moves`` (codes ``card * 8 + destination``, for :func:`family_line`), ``score``,
        ``shortest`` (proven), ``decided``, ``label()``.

    Raises
    ------
    InputError
        Unless ``deck`` is one valid deal, ``rules`` a rule set and ``node_limit`` in range.
    """
    from .family_search import FamilyScratch
    from .family_shortest import shortest_line_moves
    from .family_study import capacity_for

    code = rules_code(rules)
    if not 1 <= int(node_limit) <= 10**9:
        raise InputError(f"node_limit must be 1 to 10^9, got {node_limit}")
    checked = validate_deals(deck)
    if checked.shape[0] != 1:
        raise InputError(f"family_shortest_line takes one deal, got {checked.shape[0]}")
    return shortest_line_moves(checked[0], code, int(node_limit),
                               FamilyScratch.new(capacity_for(int(node_limit))))
