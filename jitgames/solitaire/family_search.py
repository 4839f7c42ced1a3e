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
search, :func:`best_score` therefore runs *probes* (:data:`PROBES`): searches that
allow at most 1, then 3, moves in a row that make no progress (no foundation card,
no card turned up, no pile emptied; :func:`_progress`), each with a quarter of the
node limit (in Yukon and the étude; Alaska runs none, see :data:`PROBES`). A probe marks each position it reaches once (the first time, whatever
its streak), so it sees only part of the graph and its score is only a lower bound;
but the line it finds is a real line, and when it reaches the upper bound the deal
is decided, exactly. Otherwise the full search runs with the positions left and
keeps the probes' best score and line. On deals 0..199 of seed 2026 (node limit
100,000) the probes cut Yukon's undecided deals from 53 to 29 (those were wins the
wandering search had not met yet) but Alaska's only from 24 to 23.

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
``slots`` holds ``capacity`` slots of three words (key word 0, key word 1, epoch),
linear probing from a SplitMix64 mix of the key; a slot of an older epoch is empty,
so a new deal costs no clearing (:func:`new_deal`).

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
from .._jit import jit, prefetch
from .._random import mix64
from .family_bound import bound_at_least, bound_of, score_bound
from .rules import N_PILES
from .family import (DOWN, HEIGHT, KEY, LENGTH, RULES, TO_FOUNDATION, WHERE, MAX_DEPTH, MAX_MOVES, POSITION_SIZE, SCORE, apply_move,
                     build_key, deal_position, legal_moves, undo_move)

EXACT = 0
UNDECIDED = 1
SLOT_WORDS = 3
DEFAULT_CAPACITY = 1 << 20      # 24 MiB per worker
DEFAULT_NODE_LIMIT = 500_000    # positions per deal (the table holds them with room)
EPOCH_WORD = 0                  # meta words
META_SIZE = 2
LINE_SIZE = MAX_DEPTH + 1
FRAME = 3                       # stack words a depth: moves, next move, moves in a row without progress
PROBES = np.array([[1, 3], [1, 3], [-1, -1]], dtype=np.int64)
"""``PROBES[rules]``: the probes' slack (moves in a row without progress a probe
allows), tried in order; -1: no probe. Alaska has none: on deals 0..199 of seed 2026
they decided one deal more of 200 and cost a fifth of its speed
(bench/results/solitaire_family_compare.json)."""
SEARCH_VERSION = 3
"""Changes whenever a change of the search can change which deals come out undecided
(or their lower and upper bounds): a study's checkpoint records it and is refused by
a search of another version. 1: the plain search; 2: the probes; 3: the bound prunes
the goal search and the score search, and each deal has a proven upper bound."""
PROBE_SHARE = 4                 # each probe may use node_limit // PROBE_SHARE positions

RESULT_FIELDS = ("score", "status", "positions", "line_moves", "opening_moves", "upper")
N_FIELDS = len(RESULT_FIELDS)


@jit(leaf=True)
def new_deal(meta):
    """Start a new epoch of the set: every slot counts as empty."""
    meta[EPOCH_WORD] += 1


@jit(leaf=True)
def _first_slot(slots, key0, key1):
    """The slot where the probe sequence of the key ``(key0, key1)`` starts."""
    capacity = slots.shape[0] // SLOT_WORDS
    return np.int64(mix64(np.uint64(key0) ^ mix64(np.uint64(key1))) & np.uint64(capacity - 1))


@jit(leaf=True)
def _prefetch_children(pos, slots, moves, start, n):
    """Ask for the slots of the children that builds lead to (a cache hint only), so
    that their look-ups overlap their cache misses."""
    for i in range(start, start + n):
        move = moves[i]
        if move % 8 != TO_FOUNDATION:
            key0, key1 = build_key(pos, move)
            if key0 >= 0:
                prefetch(slots, _first_slot(slots, key0, key1) * SLOT_WORDS)


@jit(leaf=True)
def _probe(slots, epoch, key0, key1):
    """The first word of the slot holding the key ``(key0, key1)`` this epoch, or of the
    first empty slot of its probe sequence when it is absent (linear probing never
    deletes within an epoch, so a key present is met before that empty slot; the set
    is never full, so there is one)."""
    capacity = slots.shape[0] // SLOT_WORDS
    i = _first_slot(slots, key0, key1)
    while True:
        j = i * SLOT_WORDS
        if slots[j + 2] != epoch or (slots[j] == key0 and slots[j + 1] == key1):
            return j
        i = (i + 1) & (capacity - 1)


@jit(leaf=True)
def insert_key(slots, meta, key0, key1):
    """Add the key ``(key0, key1)`` to the set: 1 if it was new, 0 if present, -1 if full.

    The set is full at 3/4 of its slots (``meta[1]`` counts this epoch's keys).
    """
    epoch = meta[EPOCH_WORD]
    j = _probe(slots, epoch, key0, key1)
    if slots[j + 2] == epoch:
        return 0
    if 4 * (meta[1] + 1) > 3 * (slots.shape[0] // SLOT_WORDS):
        return -1
    slots[j] = key0
    slots[j + 1] = key1
    slots[j + 2] = epoch
    meta[1] += 1
    return 1


@jit(leaf=True)
def contains_key(slots, meta, key0, key1):
    """True when the key ``(key0, key1)`` is in the set (this epoch); adds nothing."""
    return slots[_probe(slots, meta[EPOCH_WORD], key0, key1) + 2] == meta[EPOCH_WORD]


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
def _progress(pos):
    """``(score, face-down cards, empty piles)`` of ``pos``: a move *makes progress*
    when it raises the first or the third or lowers the second."""
    down = 0
    empty = 0
    for p in range(N_PILES):
        down += pos[DOWN + p]
        if pos[LENGTH + p] == 0:
            empty += 1
    return pos[SCORE], down, empty


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
    progress (:func:`_progress`); that search sees only part of the positions, so its
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
                score0, down0, empty0 = _progress(pos)
            apply_move(pos, move)
            if slack >= 0:
                score1, down1, empty1 = _progress(pos)
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


@jit(leaf=True)
def best_score(pos, slots, meta, stack, moves, line, node_limit, goal):
    """``(score, status, positions, upper)``: the optimal score of ``pos`` (capped at
    ``goal``, an upper bound of it such as :func:`.family_bound.score_bound`'s).

    Three searches, each stopping at ``goal``, share ``node_limit`` (module docstring):
    the probes, then the *goal search* (every reachable position whose bound reaches
    ``goal``), and, when that one ends without reaching it, the *score search*
    (positions whose bound beats the best score met so far) under the goal ``goal - 1``.
    ``status`` is ``EXACT`` or ``UNDECIDED`` (a limit was passed: ``score`` is then a
    lower bound); ``upper`` is a proven upper bound of the optimal score: ``score``
    when exact, else ``goal`` or, once the goal search has ended, ``goal - 1``.
    ``line`` receives a line to the best position seen. ``positions`` counts the
    positions of every search. ``pos`` is restored before returning. Scratch:
    ``stack`` (FRAME * MAX_DEPTH words), ``moves`` (MAX_DEPTH * MAX_MOVES words).
    """
    best = pos[SCORE]
    line[0] = 0
    if best >= goal:
        return best, EXACT, 1, best
    positions = 0
    rules = pos[RULES]
    for k in range(PROBES.shape[1]):
        if PROBES[rules, k] < 0:
            continue
        best, status, n = _search(pos, slots, meta, stack, moves, line, node_limit // PROBE_SHARE,
                                  goal, PROBES[rules, k], best, goal)
        positions += n
        if best >= goal:
            return best, EXACT, positions, best
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
