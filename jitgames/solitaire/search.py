"""Exact search: the optimal score of a deal, and the shortest line that reaches it.

Definitions (order-independent)
-------------------------------
The *optimal score* of a position is the largest number of cards on the foundations
over every position reachable from it (foundation cards never come back, so it is
also the best final score of a game). A *line* is a sequence of legal moves from
the deal; it *reaches the optimal score* at the first position where the
foundations hold that many cards (the player may stop there: later moves cannot
change the score). Among all lines that reach the optimal score we take the one
with the **fewest moves**, and among those the one with the **fewest decision
points**, a decision point being a position on the line, before its last move,
with more than one legal move. ``moves`` and ``decisions`` are those two minima;
they are properties of the deal, not of the order in which moves are generated
(only which of several equally good lines :func:`optimal_steps` prints depends on
that order). A deal whose optimal score is already on the foundations after the
deal has 0 moves and 0 decisions. Moving a king into one empty pile or another
gives the same position, so it counts as one legal move.

Search
------
A deal is solved in one or two searches (:func:`solve_figures`). First the cards that
may still reach the foundations are bounded from above (:func:`.reach.reachable_cards`:
a set of cards, the *targets*; their number, the *goal*, bounds the score). Then
:func:`solve_position`: depth-first search with an explicit stack (one frame per
position on the current line: its legal moves, the next one to try, the best value
found so far). The game graph is a DAG (every card moves at most once), so a
position's value depends on its subtree alone and is memoised in the position table
(:mod:`.table`) under the exact position key (:mod:`.rules`). A value packs, best
first when compared as an integer: ``score << 12 | (63 - moves) << 6 | (63 -
decisions)``. Positions with no legal move are not stored (they cost nothing to
evaluate again). The search stops as soon as a position reaches the goal: the score
is then the goal, and (unless ``score_only``) :func:`solve_line` finds the line
figures by a branch and bound on the moves towards exactly the targets. A search
that never reaches the goal has seen every reachable position and has the exact
value with its line figures. (The goal is the optimal score for 88% of deals of
seed 2026; it is 52 for 11%, of which 7 points are wins.)

Table growth
------------
A deal whose positions do not fit its table makes the search thrash: evicted values
are searched again, and again, and the search degenerates towards a tree search
(deal 347,269 of seed 0 takes 483,000 positions with 65,536 slots and 93,000 with
2**18; before the score bound, another one took 41.6 million against 115,000). So
each search is given an eviction limit: once a deal has evicted more entries than
its table has slots, the search gives up (``ABORTED``) and :func:`solve_decks`
solves the deal again from the start with a table four times larger, up to
``max_capacity`` slots, where no limit applies. Answers never depend on the
capacity; the deal's statistics (positions, lookups, probes, evictions) are summed
over its attempts and depend on the deal and the two capacities alone.

Statistics per deal: ``positions`` counts positions whose legal moves were
generated (searched again after an eviction they count again); ``opening_moves``
is the number of legal moves right after the deal (0: the game is over at once).

Compile time: :func:`solve_figures` (and the bound's and reach's entry points called
from one place) are ``jit(inline=True)``: Numba copies them into their caller, so they
are compiled once there. The two searches, :func:`solve_position` and
:func:`solve_line`, are kernels of their own, called once per try of a deal: each is
compiled (and cached) on its own, so that on a first run a helper process compiles one
while the command compiles the other (:mod:`.warm_up`), and :func:`solve_decks` is
left with less to type and lower after them (docs/performance.md has the figures).
The small helpers they call stay separate kernels: copying those into every call site
makes the one function so large that Numba's type inference took minutes.
"""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .._jit import jit
from .rules import (FOUNDATION, KEY, MAX_LINE, MAX_MOVES, N_CARDS, PILES, PILE_STRIDE, LENGTH,
                    POSITION_SIZE, RANK_OF, SCORE, SUIT_OF, WHERE, HEIGHT, apply_move,
                    deal_position, legal_moves, log_entry_card_pile, moved_key_bit, undo_move)
from .bound import (FACE_DOWN_STATES, PILE_STATES, UNREACHABLE, bound_after_move,
                    record_face_down_states, record_pile_states)
from .reach import card_count, reachable_cards
from .table import (DEFAULT_CAPACITY, DEFAULT_MAX_CAPACITY, EVICTIONS, LOOKUPS, META_SIZE,
                    OCCUPANCY, PROBES, SLOT_WORDS, new_table, table_lookup, table_new_deal,
                    table_store, validate_capacity)

FRAME = 5
MAX_DEPTH = MAX_LINE + 1
ABORTED = -2              # a search that passed its eviction limit
NO_LIMIT = 1 << 62        # an eviction limit never reached
GROWTH = 4                # a table that thrashes is replaced by one GROWTH times larger

# columns of the per-deal result rows
RESULT_FIELDS = ("score", "moves", "decisions", "positions", "lookups", "probes",
                 "evictions", "occupancy", "capacity", "opening_moves")
N_FIELDS = len(RESULT_FIELDS)


@jit(leaf=True)
def stop_value(score):
    """Value of reaching ``score`` foundation cards with 0 more moves and 0 decisions."""
    return (score << 12) | (63 << 6) | 63


@jit(leaf=True)
def unpack_value(value):
    """``(score, moves, decisions)`` of a packed value."""
    return value >> 12, 63 - ((value >> 6) & 63), 63 - (value & 63)


@jit(leaf=True)
def _fold(stack, frame, child_value, score_only):
    """Fold a child's value into the frame's best (one more move, maybe a decision)."""
    candidate = child_value
    if not score_only:
        candidate -= 64
        if stack[frame] > 1:
            candidate -= 1
    if candidate > stack[frame + 2]:
        stack[frame + 2] = candidate
    return stack[frame + 2]


@jit(leaf=True)
def _plays_foundation(pos, move):
    """True when ``move`` uncovers a card that goes to its foundation at once."""
    card = move // 8
    height = pos[HEIGHT + card]
    if height == 0:
        return False
    below = pos[PILES + pos[WHERE + card] * PILE_STRIDE + height - 1]
    return RANK_OF[below] == pos[FOUNDATION + SUIT_OF[below]]


@jit(leaf=True)
def _quiet_child_key(pos, move):
    """Key after ``move`` when it plays nothing to the foundations, else -1.

    A move plays something only if the card it uncovers fits its foundation (the
    card it lands on stays covered by an exposed card that did not fit before), so
    the child's key is often known without making the move.
    """
    if _plays_foundation(pos, move):
        return -1
    return pos[KEY] | moved_key_bit(move // 8)


@jit(leaf=True)
def _unwind(pos, depth):
    """Undo the last ``depth`` moves."""
    for _ in range(depth):
        undo_move(pos)


@jit(leaf=True)
def solve_position(pos, slots, meta, stack, moves, score_only, eviction_limit, goal):
    """Packed value of ``pos`` (see the module docstring) and the positions expanded.

    ``goal`` must bound the score of every position reachable from ``pos`` from above
    (52 always does); the search stops at the first position with ``goal`` cards on
    the foundations and then returns ``stop_value(goal)`` (no line figures). The value
    is ``ABORTED`` when the table evicted more than ``eviction_limit`` entries during
    the search. ``pos`` is restored before returning. ``stack`` (MAX_DEPTH * FRAME
    int64) and ``moves`` (MAX_DEPTH * MAX_MOVES int64) are scratch; the table may
    already hold values of this deal's positions in the same mode and with the same
    goal (they are reused).
    """
    found = table_lookup(slots, meta, pos[KEY])
    if found >= 0:
        return found, 0
    win = stop_value(goal)
    if pos[SCORE] >= goal:
        return win, 0
    evictions = meta[EVICTIONS] + eviction_limit
    depth = 0
    stack[0] = legal_moves(pos, moves, 0)
    stack[1] = 0
    stack[2] = stop_value(pos[SCORE])
    expanded = 1
    while True:
        frame = depth * FRAME
        if stack[frame + 1] < stack[frame]:
            move = moves[depth * MAX_MOVES + stack[frame + 1]]
            stack[frame + 1] += 1
            key = _quiet_child_key(pos, move)
            if key >= 0:
                value = table_lookup(slots, meta, key)
                if value < 0:
                    apply_move(pos, move)
            else:
                apply_move(pos, move)
                value = table_lookup(slots, meta, pos[KEY])
                if value >= 0:
                    undo_move(pos)
            if value < 0:
                child = depth + 1
                n = legal_moves(pos, moves, child * MAX_MOVES)
                expanded += 1
                if n > 0 and pos[SCORE] < goal:
                    depth = child
                    frame = child * FRAME
                    stack[frame] = n
                    stack[frame + 1] = 0
                    stack[frame + 2] = stop_value(pos[SCORE])
                    continue
                value = stop_value(pos[SCORE])
                undo_move(pos)
        else:
            value = stack[frame + 2]
            table_store(slots, meta, pos[KEY], value)
            if depth == 0:
                return value, expanded
            if meta[EVICTIONS] > evictions:
                _unwind(pos, depth)
                return ABORTED, expanded
            undo_move(pos)
            depth -= 1
            frame = depth * FRAME
        best = _fold(stack, frame, value, score_only)
        if best >> 12 == goal:
            _unwind(pos, depth)
            return win, expanded


_NONE = 1 << 12           # "no line found": worse than any (moves << 6 | decisions)
_LOWER_BOUND = 1 << 13    # "no line of fewer moves than value - this"
# solve_line stores its values above every value solve_position can store (those have
# a score below the goal), so the two searches share the table: an entry below
# _LINE_BASE is the exact optimal score (< goal) of that position: "cannot reach".
_LINE_BASE = N_CARDS << 12
_GOAL_UNREACHABLE = _LINE_BASE - 1
_UNCUT = UNREACHABLE      # frame word 4 while the budget has cut none of the children


@jit(leaf=True)
def _foundation_moves_first(pos, moves, start, n):
    """Stable-partition ``moves[start:start + n]``: moves that play a card first."""
    k = start
    for i in range(start, start + n):
        move = moves[i]
        if _plays_foundation(pos, move):
            for j in range(i, k, -1):
                moves[j] = moves[j - 1]
            moves[k] = move
            k += 1


@jit
def solve_line(pos, slots, meta, stack, moves, eviction_limit, targets, goal):
    """``(moves, decisions, positions expanded)`` of the best line from ``pos`` to the
    ``goal`` cards of the mask ``targets`` on the foundations (all 52 for a win;
    ``goal`` is their number, as in :mod:`.bound`).

    Every line from ``pos`` must put a subset of ``targets`` there (as with the mask of
    :func:`.reach.reachable_cards`), and some line all of them (else ``(-1, -1,
    expanded)``); ``(ABORTED, ABORTED, expanded)`` when the table evicted more than
    ``eviction_limit`` entries.
    Depth-first branch and bound: each position gets a budget of moves (at first
    unlimited); once a line is found, the remaining children only need to tie it,
    and a child whose lower bound (:mod:`.bound`) exceeds its budget is skipped, its
    bound stored in the table (reached again, it costs one lookup).
    Moves that play a card to the foundations are tried first (only to find short
    lines early; the answer is a minimum, so it does not depend on the order).

    The table holds, per position, one fact whatever the path to it, so the answer
    is exact: ``_LINE_BASE + (moves << 6 | decisions)`` (its best line),
    ``_LINE_BASE + _LOWER_BOUND + b`` ("no line of fewer than b moves": the search
    of it was cut by its budget, and ``b`` is one more than the least of the
    bounds of the children it cut, each a bound, a stored ``b`` or the length of a
    line too long for the budget), or any value below ``_LINE_BASE``: the position
    cannot reach the goal. Those are the values :func:`solve_position` stores with
    this goal (scores below it: it stops at the first position reaching it), so the
    table of the score search of the same deal is reused as is, and a search that
    found no line and was never cut by a budget stores ``_GOAL_UNREACHABLE``. The
    table must not hold another deal's entries (start a new epoch with
    :func:`.table.table_new_deal` between deals), and :func:`solve_position` must not
    run on it afterwards.
    """
    if pos[SCORE] >= goal:
        return 0, 0, 0
    evictions = meta[EVICTIONS] + eviction_limit
    # the bound's face-down table, then its pile record of each position on the line
    states = np.empty(FACE_DOWN_STATES + MAX_DEPTH * PILE_STATES, dtype=np.int64)
    record_face_down_states(pos, states, targets)
    record_pile_states(pos, states, FACE_DOWN_STATES, targets)
    # a frame: legal moves, next move to try, best line so far (or _NONE), budget,
    # least bound of the children the budget cut (or _UNCUT)
    depth = 0
    stack[0] = legal_moves(pos, moves, 0)
    _foundation_moves_first(pos, moves, 0, stack[0])
    stack[1] = 0
    stack[2] = _NONE
    stack[3] = MAX_LINE
    stack[4] = _UNCUT
    expanded = 1
    while True:
        frame = depth * FRAME
        value = _NONE
        if stack[frame + 1] < stack[frame]:
            best = stack[frame + 2]
            budget = min(stack[frame + 3], (best >> 6) if best < _NONE else MAX_LINE) - 1
            if budget < 0:
                stack[frame + 1] = stack[frame]
                stack[frame + 4] = 0
                continue
            move = moves[depth * MAX_MOVES + stack[frame + 1]]
            stack[frame + 1] += 1
            key = _quiet_child_key(pos, move)
            applied = key < 0
            if applied:
                apply_move(pos, move)
                key = pos[KEY]
            if pos[SCORE] >= goal:  # only after a move that played cards
                value = 0
            else:
                stored = table_lookup(slots, meta, key)
                if stored >= _LINE_BASE + _LOWER_BOUND:
                    lower = stored - _LINE_BASE - _LOWER_BOUND
                    if lower > budget:
                        stack[frame + 4] = min(stack[frame + 4], lower)
                        stored = -2
                    else:
                        stored = -1
                if stored >= _LINE_BASE:
                    value = stored - _LINE_BASE
                elif stored == -1:
                    if not applied:
                        apply_move(pos, move)
                        applied = True
                    record = FACE_DOWN_STATES + depth * PILE_STATES
                    lower = bound_after_move(pos, states, record, record + PILE_STATES,
                                             targets, goal)
                    if lower <= budget:
                        depth += 1
                        frame = depth * FRAME
                        n = legal_moves(pos, moves, depth * MAX_MOVES)
                        _foundation_moves_first(pos, moves, depth * MAX_MOVES, n)
                        stack[frame] = n
                        stack[frame + 1] = 0
                        stack[frame + 2] = _NONE
                        stack[frame + 3] = budget
                        stack[frame + 4] = _UNCUT
                        expanded += 1
                        continue
                    if lower < UNREACHABLE:
                        stack[frame + 4] = min(stack[frame + 4], lower)
                        table_store(slots, meta, pos[KEY], _LINE_BASE + _LOWER_BOUND + lower)
                    else:
                        table_store(slots, meta, pos[KEY], _GOAL_UNREACHABLE)
            if applied:
                undo_move(pos)
        else:
            value = stack[frame + 2]
            cut = stack[frame + 4]
            if value < _NONE:
                table_store(slots, meta, pos[KEY], _LINE_BASE + value)
            elif cut < _UNCUT:
                table_store(slots, meta, pos[KEY], _LINE_BASE + _LOWER_BOUND + cut + 1)
            else:
                table_store(slots, meta, pos[KEY], _GOAL_UNREACHABLE)
            if depth == 0:
                if value >= _NONE:
                    return -1, -1, expanded
                return value >> 6, value & 63, expanded
            if meta[EVICTIONS] > evictions:
                _unwind(pos, depth)
                return ABORTED, ABORTED, expanded
            undo_move(pos)
            depth -= 1
            frame = depth * FRAME
            if value >= _NONE and cut < _UNCUT:
                stack[frame + 4] = min(stack[frame + 4], cut + 1)
        if value < _NONE:
            value += 64
            if stack[frame] > 1:
                value += 1
            # a line longer than the budget is not comparable: its rivals were pruned
            if value >> 6 > stack[frame + 3]:
                stack[frame + 4] = min(stack[frame + 4], (value >> 6) - 1)
            elif value < stack[frame + 2]:
                stack[frame + 2] = value


@jit(inline=True)
def solve_figures(pos, slots, meta, stack, moves, score_only, eviction_limit):
    """``(score, moves, decisions, positions expanded)`` of ``pos`` on a fresh table epoch.

    :func:`solve_position` up to the goal of :func:`.reach.reachable_cards`, then,
    when it reached the goal and the line figures are wanted, :func:`solve_line` on
    the same epoch (the score search's entries are reused). ``moves`` and
    ``decisions`` are -1 when ``score_only``; the three figures are ``ABORTED`` when a
    search passed ``eviction_limit``.
    """
    table_new_deal(slots, meta)
    targets = reachable_cards(pos)
    goal = card_count(targets)
    value, expanded = solve_position(pos, slots, meta, stack, moves, score_only, eviction_limit,
                                     goal)
    if value == ABORTED:
        return ABORTED, ABORTED, ABORTED, expanded
    score, n_moves, decisions = unpack_value(value)
    if score_only:
        return score, -1, -1, expanded
    if score == goal:
        n_moves, decisions, more = solve_line(pos, slots, meta, stack, moves, eviction_limit,
                                              targets, goal)
        expanded += more
        if n_moves == ABORTED:
            return ABORTED, ABORTED, ABORTED, expanded
    return score, n_moves, decisions, expanded


@jit
def _larger_table(capacity, max_capacity):
    """``(slots, meta, capacity)`` of a new empty table ``GROWTH`` times larger than
    ``capacity`` slots, at most ``max_capacity``, for a deal that thrashed its table.

    A kernel of its own, not written out in :func:`solve_decks`: on a first run the
    helper process compiles it (with Numba's ``min`` and ``np.zeros``, which are compiled
    in each process that types them: :mod:`.warm_up`), and the command does not.
    """
    capacity = min(capacity * GROWTH, max_capacity)
    return (np.zeros(capacity * SLOT_WORDS, dtype=np.int64), np.zeros(META_SIZE, dtype=np.int64),
            capacity)


@jit
def solve_decks(decks, score_only, slots, meta, pos, stack, moves, max_capacity, out):
    """Solve every deck (rows of ``decks``) into the rows of ``out`` (n x N_FIELDS).

    One worker: ``slots``, ``meta``, ``pos``, ``stack``, ``moves`` are its scratch
    (one row of a :class:`Scratch`). A deal that thrashes the worker's table is solved
    again on tables up to ``max_capacity`` slots allocated for it alone. Every figure
    of a deal depends on that deal (and the two capacities) alone (see :mod:`.table`),
    so the rows do not depend on which worker solves which deals.

    Row fields (RESULT_FIELDS order): score, moves, decisions, then, summed over the
    tries, positions expanded, lookups, probes, evictions; then the finishing try's
    peak occupancy and capacity, and the legal moves right after the deal. The tries
    are written out here rather than in helper kernels: every kernel level re-optimises
    and re-emits the whole search below it, so each one costs seconds on first use.
    """
    for d in range(decks.shape[0]):
        row = out[d]
        deal_position(decks[d], pos)
        row[:] = 0
        row[9] = legal_moves(pos, moves, 0)
        table, table_meta = slots, meta
        capacity = slots.shape[0] // SLOT_WORDS
        while True:  # a try on a table of ``capacity`` slots; larger ones if it thrashes
            limit = capacity if capacity < max_capacity else NO_LIMIT
            lookups = table_meta[LOOKUPS]
            probes = table_meta[PROBES]
            evictions = table_meta[EVICTIONS]
            score, n_moves, decisions, expanded = solve_figures(
                pos, table, table_meta, stack, moves, score_only, limit)
            row[3] += expanded
            row[4] += table_meta[LOOKUPS] - lookups
            row[5] += table_meta[PROBES] - probes
            row[6] += table_meta[EVICTIONS] - evictions
            if score != ABORTED:
                row[0] = score
                row[1] = n_moves
                row[2] = decisions
                row[7] = table_meta[OCCUPANCY]
                row[8] = capacity
                break
            table, table_meta, capacity = _larger_table(capacity, max_capacity)


_PAD = 16
"""Words (128 bytes) of unused room after every scratch array, so that two workers'
arrays never share a cache line: the table statistics in ``meta`` change at every
lookup, and two threads writing one line slowed each other down by half."""


def _private(n: int) -> np.ndarray:
    """A zeroed int64 array of ``n`` words that shares no cache line with another array."""
    return np.zeros(n + _PAD, dtype=np.int64)[:n]


@dataclass(frozen=True)
class Scratch:
    """Per-worker scratch memory, allocated once and reused for every deal.

    Entry ``w`` of each tuple belongs to worker ``w`` (separate arrays, never sharing a
    cache line). ``meta`` accumulates the statistics of the workers' own tables (not
    of the larger tables grown for single deals); ``max_capacity`` is the largest
    table a deal may grow.
    """

    slots: tuple[np.ndarray, ...]
    meta: tuple[np.ndarray, ...]
    positions: tuple[np.ndarray, ...]
    stacks: tuple[np.ndarray, ...]
    moves: tuple[np.ndarray, ...]
    max_capacity: int

    @property
    def workers(self) -> int:
        return len(self.slots)

    @property
    def capacity(self) -> int:
        return self.slots[0].size // SLOT_WORDS


def make_scratch(workers: int, capacity: int = DEFAULT_CAPACITY,
                 max_capacity: int = DEFAULT_MAX_CAPACITY) -> Scratch:
    """Scratch for ``workers`` workers with position tables of ``capacity`` slots each.

    A deal may grow its table up to ``max(capacity, max_capacity)`` slots.
    """
    if workers < 1:
        raise InputError(f"need at least one worker, got {workers}")
    slots, _ = new_table(capacity)  # validates capacity
    max_capacity = max(validate_capacity(max_capacity), slots.size // SLOT_WORDS)

    def each(size):
        return tuple(_private(size) for _ in range(workers))

    return Scratch(slots=each(slots.size), meta=each(META_SIZE), positions=each(POSITION_SIZE),
                   stacks=each(MAX_DEPTH * FRAME), moves=each(MAX_DEPTH * MAX_MOVES),
                   max_capacity=max_capacity)


BLOCK = 64
"""Deals a worker takes at a time (about 20 ms of work): small enough that the
workers finish a chunk together, large enough that handing out blocks costs nothing."""


def solve_rows(decks: np.ndarray, score_only: bool, scratch: Scratch) -> np.ndarray:
    """Per-deal result rows (n x N_FIELDS int64) of validated ``decks``.

    The scratch's workers are Python threads running the kernel without the GIL;
    each takes the next block of ``BLOCK`` deals when it is free, so one slow deal
    holds up only its own worker (a static split would make the others wait).
    """
    out = np.zeros((decks.shape[0], N_FIELDS), dtype=np.int64)
    starts = range(0, decks.shape[0], BLOCK)
    workers = min(scratch.workers, len(starts))
    if workers <= 1:
        if decks.shape[0]:
            _solve_block(decks, bool(score_only), scratch, 0, out)
        return out
    queue = iter(starts)
    lock = threading.Lock()
    stop = threading.Event()

    def work(w: int) -> None:
        while not stop.is_set():
            with lock:
                start = next(queue, None)
            if start is None:
                return
            block = slice(start, start + BLOCK)
            _solve_block(decks[block], bool(score_only), scratch, w, out[block])

    pool = ThreadPoolExecutor(workers)
    try:
        for done in [pool.submit(work, w) for w in range(workers)]:
            done.result()
    finally:
        stop.set()  # after an error or Ctrl-C, the other workers stop after their block
        pool.shutdown(wait=True)
    return out


def _solve_block(decks, score_only, scratch, w, out):
    """:func:`solve_decks` on worker ``w``'s scratch."""
    solve_decks(decks, score_only, scratch.slots[w], scratch.meta[w], scratch.positions[w],
                scratch.stacks[w], scratch.moves[w], scratch.max_capacity, out)


@dataclass(frozen=True)
class Step:
    """One move of a line: ``card`` (with ``carried`` cards on it) onto ``onto``.

    ``onto`` is the card it is put on, or None for an empty pile; ``pile`` and
    ``from_pile`` are pile indices (0..6); ``to_foundation`` the cards that went to
    the foundations automatically afterwards; ``choices`` the number of legal moves
    in the position before the move (a decision point when > 1).
    """

    card: int
    onto: int | None
    from_pile: int
    pile: int
    carried: int
    to_foundation: tuple[int, ...]
    choices: int


class PositionSolver:
    """Exact figures of the positions of one game, from any position reached in it.

    The game's position is searched where it stands: the key of a position is exact
    within its deal whatever moves led to it (:mod:`.rules`), so a mid-game position
    is solved like a deal, by :func:`solve_figures` (its figures are those of the
    module docstring, counted from that position). The searches share one table,
    each on a fresh epoch; a search that thrashes it is run again on a table
    ``GROWTH`` times larger (up to ``max_capacity`` slots), which is then kept for
    the rest of the game. ``positions`` counts the positions expanded so far.
    """

    def __init__(self, capacity: int = DEFAULT_CAPACITY,
                 max_capacity: int = DEFAULT_MAX_CAPACITY):
        self.slots, self.meta = new_table(capacity)
        self.max_capacity = max(validate_capacity(max_capacity), self.capacity)
        self.stack = np.zeros(MAX_DEPTH * FRAME, dtype=np.int64)
        self.moves = np.zeros(MAX_DEPTH * MAX_MOVES, dtype=np.int64)
        self.positions = 0

    @property
    def capacity(self) -> int:
        return self.slots.size // SLOT_WORDS

    def _solve(self, pos, score_only):
        while True:
            limit = self.capacity if self.capacity < self.max_capacity else NO_LIMIT
            score, n_moves, decisions, expanded = solve_figures(
                pos, self.slots, self.meta, self.stack, self.moves, score_only, limit)
            self.positions += int(expanded)
            if score != ABORTED:
                return int(score), int(n_moves), int(decisions)
            self.slots, self.meta = new_table(min(self.capacity * GROWTH, self.max_capacity))

    def score(self, pos) -> int:
        """The optimal score still reachable from ``pos`` (cards on the foundations)."""
        return self._solve(pos, True)[0]

    def figures(self, pos) -> tuple[int, int, int]:
        """``(score, moves, decisions)`` of ``pos``: its optimal score and the fewest
        moves, then fewest decision points, of a line from it reaching that score."""
        return self._solve(pos, False)

    def best_move(self, pos) -> int:
        """The first legal move of ``pos`` (in :func:`.rules.legal_moves` order) that
        starts a best line from it (-1 when the position's optimal score is already
        on the foundations: then no move can gain or lose a card).

        ``pos`` is left as it was.
        """
        score, remaining, decisions = self.figures(pos)
        if remaining == 0:
            return -1
        buffer = np.zeros(MAX_MOVES, dtype=np.int64)
        n = legal_moves(pos, buffer, 0)
        if n == 1:  # a forced move starts every line
            return int(buffer[0])
        wanted = (score, remaining - 1, decisions - 1)
        for move in buffer[:n].tolist():
            apply_move(pos, move)
            child = self.figures(pos)
            undo_move(pos)
            if child == wanted:
                return move
        raise AssertionError("no move attains the position's figures")  # pragma: no cover


def describe_move(pos, move: int) -> tuple[int, int | None, int, int, int]:
    """``(card, onto, from_pile, pile, carried)`` of legal ``move`` in ``pos`` (see
    :class:`Step`; ``onto`` None for an empty pile)."""
    card, dest = move // 8, move % 8
    src = int(pos[WHERE + card])
    carried = int(pos[LENGTH + src] - pos[HEIGHT + card])
    length = int(pos[LENGTH + dest])
    onto = int(pos[PILES + dest * PILE_STRIDE + length - 1]) if length else None
    return card, onto, src, dest, carried


def optimal_steps(deck: np.ndarray, capacity: int = DEFAULT_CAPACITY,
                  max_capacity: int = DEFAULT_MAX_CAPACITY):
    """The optimal line of one validated deck: ``(score, steps, start_position)``.

    ``steps`` is a list of :class:`Step` whose length is the deal's ``moves`` figure
    and which has the deal's ``decisions`` decision points. ``start_position`` is the
    position array right after the deal (automatic foundation plays done). At each
    position the first move (in :func:`.rules.legal_moves` order) that keeps the
    best figures is taken (:meth:`PositionSolver.best_move`). The searches use a
    table of the size the deal needed (see "Table growth" above).
    """
    from .rules import new_position

    needed = solve_rows(deck[None, :], False, make_scratch(1, capacity, max_capacity))[0, 8]
    pos = new_position(deck)
    start = pos.copy()
    solver = PositionSolver(needed, max(needed, max_capacity))
    score = solver.score(pos)
    steps = []
    buffer = np.zeros(MAX_MOVES, dtype=np.int64)
    while True:
        move = solver.best_move(pos)
        if move < 0:
            break
        n = legal_moves(pos, buffer, 0)
        card, onto, src, dest, carried = describe_move(pos, move)
        before = int(pos[SCORE])
        apply_move(pos, move)
        played = foundation_plays(pos, int(pos[SCORE]) - before)
        steps.append(Step(card, onto, src, dest, carried, played, n))
    return int(score), steps, start


def foundation_plays(pos: np.ndarray, count: int) -> tuple[int, ...]:
    """The cards of the last ``count`` foundation plays recorded in the undo log, in order."""
    from .rules import LOG_LENGTH

    n = int(pos[LOG_LENGTH])
    return tuple(int(log_entry_card_pile(pos, k)[0]) for k in range(n - count, n))
