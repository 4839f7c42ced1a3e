"""Exact optimal score of a deal under any rule set of :mod:`.family`.

The optimal score is the largest number of foundation cards over every position
reachable from the deal (cards never leave the foundations, so it is the best final
score too). Yukon's and Alaska's game graphs have cycles, so a position's value is
not a function of a subtree; but the score alone is a reachability question, and a
depth-first search that marks every position it reaches in an exact set (the keys of
:mod:`.family`) and keeps the best score seen answers it: once every reachable
position has been seen the best is exact. The search stops early when the best
reaches the upper bound of :mod:`.family_bound` (52 at most): no line can beat it.

Probes first
------------
Most of Yukon's and Alaska's moves can be undone by another move, so the plain
depth-first search wanders: it follows its first move into nearly all of the
reachable graph before it tries the second, and a won deal's win may
come after millions of positions of shuffling runs back and forth. Before the full
search, :func:`best_score` therefore runs *probes*: depth-first searches that
allow at most a few moves in a row that make no progress (no foundation card, no card
turned up, no pile emptied; :func:`.family.progress_counts`), each with a quarter of the node limit
(:data:`PROBES`: slack 1, then 3, in the étude; slack 1 in Yukon; none in Alaska), and a
*best-first probe* (:data:`BEST_FIRST`, :mod:`.family_bestfirst`: the position of best
heuristic value first, with an eighth of the limit in Yukon after the probe of slack 1,
a sixteenth in Alaska). A depth-first probe marks each position it reaches once (the
first time, whatever its streak), so it sees only part of the graph and its score is
only a lower bound; but the line it finds is a real line, and when it reaches the upper
bound the deal is decided, exactly. The best-first probe expands exactly the positions
the goal search would, in another order, so when it runs out of positions the goal is
proven out of reach. Otherwise the full search runs with the positions left and keeps
the probes' best score and line. On deals 0..199 of seed 2026 (node limit 100,000) the
depth-first probes cut Yukon's undecided deals from 53 to 29 (those were wins the
wandering search had not met yet) but Alaska's only from 24 to 23; on deals 0..399 the
best-first probe (search version 4) took the open wins from 26 to 21 (Yukon) and from
31 to 25 (Alaska) for less CPU (docs/solitaire.md).

The bound prunes
----------------
:func:`.family_bound.bound_at_least` bounds from above every score reachable from a
position, so a search need not expand a position whose bound cannot help: the probes
and then the *goal search* (the full search, ``target`` = the goal) drop each new
position whose bound is below the goal; when the goal search has seen every other
reachable position without reaching the goal, the optimum is proven below it (a goal
of 52: the deal is lost), and the *score search* (``target`` 0) finds the exact
score, dropping each new position whose bound does not beat the best score met so far
(the best only rises, so a dropped position stays useless). A dropped position is
marked in the set like any other. Every line to a better score passes only through
positions whose bound is at least that score, so the answers stay exact; the goal
search sees a subset of the score search's positions, so when it passes a limit the
deal is left undecided at once. :func:`best_score` also returns a proven upper bound
of the score (``upper``): the score when exact, else the goal, or the goal less one
once the goal search has ended.

Limits, and undecided deals
---------------------------
A deal whose searches pass ``node_limit`` positions together, fills the set's table to 3/4,
or needs a path longer than :data:`.family.MAX_DEPTH` moves is *undecided*: its
figure is then only a lower bound (the best score seen), and the studies report it
apart (``status`` ``UNDECIDED``), as lost only when its proven upper bound is below 52.

The set
-------
The exact set of positions is :mod:`.family_set`'s.

Children looked up before they are made
---------------------------------------
Most moves lead back to a position already in the set (runs go back and forth). For a
build (a run onto a card or into an empty pile) :func:`.family.build_key` gives the
key of the position it leads to without making it (one code of the key changes, unless
an automatic foundation play would follow), and :func:`contains_key` looks it up: a
child already seen is skipped without :func:`.family.apply_move` and
:func:`.family.undo_move`, exactly where the search would have made, looked up and
undone it, so the positions, their order and every answer are the same (the search
version is unchanged). When a position is expanded, the set's slots of all its
children are asked for at once (:func:`_prefetch_children`, a cache hint), so their
cache misses overlap instead of coming one after another.

The line
--------
The search keeps the moves of its current path; whenever the best score rises it
copies them into ``line`` (``line[0]`` moves, then the moves), so ``line`` ends as a
line from the start to a position with the optimal score, the one the search met
first, not the shortest (:mod:`.family_shortest` searches for a shortest one).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .._jit import jit
from .family_bestfirst import best_first
from .family_bound import bound_at_least, bound_of, score_bound
from .family_set import META_SIZE, SLOT_WORDS, _prefetch_children, contains_key, insert_key, new_deal
from .family import (DOWN, HEIGHT, KEY, RULES, TO_FOUNDATION, WHERE, MAX_DEPTH, MAX_MOVES, POSITION_SIZE, SCORE, apply_move,
                     build_key, deal_position, legal_moves, progress_counts, undo_move)

EXACT = 0
UNDECIDED = 1
DEFAULT_CAPACITY = 1 << 20      # 24 MiB per worker
DEFAULT_NODE_LIMIT = 500_000    # positions per deal (the table holds them with room)
LINE_SIZE = MAX_DEPTH + 1
FRAME = 3                       # stack words a depth: moves, next move, moves in a row without progress
PROBES = np.array([[1, 3], [1, -1], [-1, -1]], dtype=np.int64)
"""``PROBES[rules]``: the depth-first probes' slack (moves in a row without progress a
probe allows), tried in order; -1: no probe. The étude's two are unchanged; Yukon's
probe of slack 3 gave way to the best-first probe (:data:`BEST_FIRST`), and Alaska
has none: on deals 0..199 of seed 2026 they decided one deal more of 200 and cost a
fifth of its speed (bench/results/solitaire_family_compare.json)."""
BEST_FIRST = np.array([[-1, 0], [1, 8], [0, 16]], dtype=np.int64)
"""``BEST_FIRST[rules]``: ``(k, share)``: the best-first probe (:mod:`.family_bestfirst`)
runs after the first ``k`` depth-first probes with ``node_limit // share`` positions;
``k`` -1: none. Chosen on deals 400..599 of seed 2026 and measured on 0..399
(bench/solitaire_family_bestfirst.py, docs/solitaire.md)."""
BEST_FIRST_WEIGHTS = np.array([4, -4, 2, -1], dtype=np.int64)
"""The best-first probe's weights of :func:`.family_bestfirst.features` (cards home,
face-down cards, empty piles, cards on the next card of a suit)."""
SEARCH_VERSION = 4
"""Changes whenever a change of the search can change which deals come out undecided
(or their lower and upper bounds): a study's checkpoint records it and is refused by
a search of another version. 1: the plain search; 2: the probes; 3: the bound prunes
the goal search and the score search, and each deal has a proven upper bound; 4: the
best-first probe (:data:`BEST_FIRST`)."""
PROBE_SHARE = 4                 # each probe may use node_limit // PROBE_SHARE positions

RESULT_FIELDS = ("score", "status", "positions", "line_moves", "opening_moves", "upper")
N_FIELDS = len(RESULT_FIELDS)


@jit(leaf=True)
def _order_moves(pos, moves, start, n):
    """Stable-partition ``moves[start:start + n]``: foundation plays and moves that turn
    up a face-down card first (only to meet a win early; the set searched is the same)."""
    k = start
    for i in range(start, start + n):
        move = moves[i]
        card = move // 8
        h = pos[HEIGHT + card]
        if move % 8 == TO_FOUNDATION or (h > 0 and h == pos[DOWN + pos[WHERE + card]]):
            for j in range(i, k, -1):
                moves[j] = moves[j - 1]
            moves[k] = move
            k += 1


@jit(leaf=True)
def _record_line(moves, stack, depth, line):
    line[0] = depth
    for d in range(depth):
        line[1 + d] = moves[d * MAX_MOVES + stack[FRAME * d + 1] - 1]


@jit(leaf=True)
def _unwind(pos, depth):
    for _ in range(depth):
        undo_move(pos)


@jit(leaf=True)
def _search(pos, slots, meta, stack, moves, line, node_limit, goal, slack, best, target):
    """``(best, status, positions)`` of one depth-first search from ``pos``.

    With ``target`` >= 0 a new position below ``goal`` is not expanded when its bound
    is below ``max(best + 1, target)`` (module docstring: "The bound prunes"); -1: no
    pruning.

    ``best`` is the best score already known (``line`` holds a line to it); a position
    that beats it replaces it. With ``slack`` < 0 every reachable position is expanded
    once and ``status`` is ``EXACT`` when the search ends without passing a limit. With
    ``slack`` >= 0 a path may hold at most ``slack`` moves in a row that make no
    progress (:func:`.family.progress_counts`); that search sees only part of the positions, so its
    best is a lower bound and its status means nothing unless ``best >= goal``.
    """
    new_deal(meta)
    meta[1] = 0
    insert_key(slots, meta, pos[KEY], pos[KEY + 1])
    positions = 1
    depth = 0
    stack[0] = legal_moves(pos, moves, 0)
    _order_moves(pos, moves, 0, stack[0])
    _prefetch_children(pos, slots, moves, 0, stack[0])
    stack[1] = 0
    stack[2] = 0
    while True:
        f = FRAME * depth
        if stack[f + 1] < stack[f]:
            move = moves[depth * MAX_MOVES + stack[f + 1]]
            stack[f + 1] += 1
            if move % 8 != TO_FOUNDATION:
                # a child already in the set is skipped without making the move: the
                # same positions, the same order, the same answers (module docstring)
                key0, key1 = build_key(pos, move)
                if key0 >= 0 and contains_key(slots, meta, key0, key1):
                    continue
            streak = 0
            score0 = down0 = empty0 = 0
            if slack >= 0:
                score0, down0, empty0 = progress_counts(pos)
            apply_move(pos, move)
            if slack >= 0:
                score1, down1, empty1 = progress_counts(pos)
                if score1 <= score0 and down1 >= down0 and empty1 <= empty0:
                    streak = stack[f + 2] + 1
                    if streak > slack:
                        undo_move(pos)
                        continue
            added = insert_key(slots, meta, pos[KEY], pos[KEY + 1])
            if added == 1:
                positions += 1
                if target >= 0 and pos[SCORE] < goal:
                    need = max(best + 1, target)
                    if bound_at_least(pos, need) < need:
                        undo_move(pos)
                        continue
                if pos[SCORE] > best:
                    best = pos[SCORE]
                    _record_line(moves, stack, depth + 1, line)
                    if best >= goal:
                        _unwind(pos, depth + 1)
                        return best, EXACT, positions
                if positions > node_limit or depth + 1 >= MAX_DEPTH:
                    _unwind(pos, depth + 1)
                    return best, UNDECIDED, positions
                depth += 1
                f = FRAME * depth
                stack[f] = legal_moves(pos, moves, depth * MAX_MOVES)
                _order_moves(pos, moves, depth * MAX_MOVES, stack[f])
                _prefetch_children(pos, slots, moves, depth * MAX_MOVES, stack[f])
                stack[f + 1] = 0
                stack[f + 2] = streak
                continue
            undo_move(pos)
            if added < 0:
                _unwind(pos, depth)
                return best, UNDECIDED, positions
        else:
            if depth == 0:
                return best, EXACT, positions
            undo_move(pos)
            depth -= 1


@jit
def best_score(pos, slots, meta, stack, moves, line, node_limit, goal):
    """``(score, status, positions, upper)``: the optimal score of ``pos`` (capped at
    ``goal``, an upper bound of it such as :func:`.family_bound.score_bound`'s).

    The searches, each stopping at ``goal``, share ``node_limit`` (module docstring):
    the probes (:data:`PROBES`, :data:`BEST_FIRST`), then the *goal search* (every
    reachable position whose bound reaches ``goal``; skipped when the best-first probe
    has seen all of them), and, when that one ends without reaching it, the *score
    search* (positions whose bound beats the best score met so far) under the goal
    ``goal - 1``. ``status`` is ``EXACT`` or ``UNDECIDED`` (a limit was passed:
    ``score`` is then a lower bound); ``upper`` is a proven upper bound of the optimal
    score: ``score`` when exact, else ``goal`` or, once the goal search has ended,
    ``goal - 1``. ``line`` receives a line to the best position seen. ``positions``
    counts the positions of every search. ``pos`` is restored before returning.
    Scratch: ``stack`` (FRAME * MAX_DEPTH words), ``moves`` (MAX_DEPTH * MAX_MOVES
    words); the best-first probe allocates its own queue.
    """
    best = pos[SCORE]
    line[0] = 0
    if best >= goal:
        return best, EXACT, 1, best
    positions = 0
    rules = pos[RULES]
    seen_all = False       # the best-first probe saw every position of the goal search
    for k in range(PROBES.shape[1] + 1):
        if BEST_FIRST[rules, 0] == k:
            best, status, n = best_first(pos, slots, meta, moves, line, node_limit // BEST_FIRST[rules, 1],
                                         goal, best, BEST_FIRST_WEIGHTS)
            positions += n
            if best >= goal:
                return best, EXACT, positions, best
            if status == EXACT:
                seen_all = True
                break
        if k == PROBES.shape[1] or PROBES[rules, k] < 0:
            continue
        best, status, n = _search(pos, slots, meta, stack, moves, line, node_limit // PROBE_SHARE,
                                  goal, PROBES[rules, k], best, goal)
        positions += n
        if best >= goal:
            return best, EXACT, positions, best
    if not seen_all:
        best, status, n = _search(pos, slots, meta, stack, moves, line, max(node_limit - positions, 1),
                                  goal, -1, best, goal)
        positions += n
        if best >= goal:
            return best, EXACT, positions, best
        if status == UNDECIDED:
            return best, UNDECIDED, positions, goal
    if best >= goal - 1:
        return best, EXACT, positions, best
    best, status, n = _search(pos, slots, meta, stack, moves, line, max(node_limit - positions, 1),
                              goal - 1, -1, best, 0)
    return best, status, positions + n, best if status == EXACT else goal - 1


@jit
def solve_family_decks(decks, rules, slots, meta, pos, stack, moves, line, node_limit, out):
    """Solve every deck (rows of ``decks``) under ``rules`` into the rows of ``out``
    (``RESULT_FIELDS``: score, status, positions, the length of the line found, the
    legal moves right after the deal, the proven upper bound of the score). One worker's scratch; each row depends on its
    deal alone."""
    for d in range(decks.shape[0]):
        deal_position(decks[d], rules, pos)
        opening = legal_moves(pos, moves, 0)
        goal = score_bound(pos)
        score, status, positions, upper = best_score(pos, slots, meta, stack, moves, line,
                                                     node_limit, goal)
        out[d, 0] = score
        out[d, 1] = status
        out[d, 2] = positions
        out[d, 3] = line[0]
        out[d, 4] = opening
        out[d, 5] = upper


@dataclass(frozen=True)
class FamilyScratch:
    """One worker's scratch for :func:`best_score` (allocated once, reused per deal)."""

    slots: np.ndarray
    meta: np.ndarray
    pos: np.ndarray
    stack: np.ndarray
    moves: np.ndarray
    line: np.ndarray

    @classmethod
    def new(cls, capacity: int = DEFAULT_CAPACITY) -> "FamilyScratch":
        if capacity < 16 or capacity & (capacity - 1):
            raise InputError(f"capacity must be a power of two >= 16, got {capacity}")
        return cls(np.zeros(capacity * SLOT_WORDS, dtype=np.int64),
                   np.zeros(META_SIZE, dtype=np.int64), np.zeros(POSITION_SIZE, dtype=np.int64),
                   np.zeros(FRAME * MAX_DEPTH, dtype=np.int64),
                   np.zeros(MAX_DEPTH * MAX_MOVES, dtype=np.int64),
                   np.zeros(LINE_SIZE, dtype=np.int64))


def solve_family_rows(decks: np.ndarray, rules: int, node_limit: int = DEFAULT_NODE_LIMIT,
                      scratch: FamilyScratch | None = None) -> np.ndarray:
    """Per-deal rows (n x N_FIELDS int64) of validated ``decks`` under rule set ``rules``."""
    scratch = scratch or FamilyScratch.new()
    out = np.zeros((decks.shape[0], N_FIELDS), dtype=np.int64)
    if decks.shape[0]:
        solve_family_decks(np.ascontiguousarray(decks, dtype=np.int64), int(rules), scratch.slots,
                           scratch.meta, scratch.pos, scratch.stack, scratch.moves, scratch.line,
                           int(node_limit), out)
    return out


def optimal_line_moves(deck, rules: int, node_limit: int = DEFAULT_NODE_LIMIT,
                       scratch: FamilyScratch | None = None) -> list[int]:
    """The moves of the line :func:`best_score` finds from the deal of validated ``deck``
    (to a position with the best score seen: the optimal score unless undecided)."""
    scratch = scratch or FamilyScratch.new()
    pos = scratch.pos
    deal_position(np.asarray(deck, dtype=np.int64), int(rules), pos)
    best_score(pos, scratch.slots, scratch.meta, scratch.stack, scratch.moves, scratch.line,
               int(node_limit), bound_of(pos))
    return [int(m) for m in scratch.line[1:1 + scratch.line[0]]]
