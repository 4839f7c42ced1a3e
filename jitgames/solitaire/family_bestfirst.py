"""A best-first win search over the positions of :mod:`.family` (a probe or a goal search).

The depth-first searches of :mod:`.family_search` follow their first move into most of
the reachable graph before they try the second, so a won Yukon or Alaska deal's win
can come after millions of positions of runs moved back and forth. This search expands
the position with the best *priority* first, a weighted sum of features that a winning
line must improve in the end (:func:`features`): cards home, face-down cards left,
empty piles, and the cards lying on the next card of each suit's foundation.

It marks positions in the same exact set as the depth-first searches (the keys of
:mod:`.family`) and drops a new position whose bound (:func:`.family_bound.bound_at_least`)
is below ``goal``, as the goal search does; so it expands exactly the positions the
goal search expands, in another order. A line it finds is a real line; when the queue
runs dry without a position at ``goal`` every such position has been seen, and the
optimum is proven below ``goal`` (the goal search's own proof).

Positions are not kept whole (about 600 words); each queued position is a record of
:data:`NODE_WORDS` words: its key, its piles packed six bits a card, its parent's
record and the move from it (:func:`_pack`, :func:`_unpack`). The key gives every
card's code and the foundation heights, so the record restores the position exactly
(the deal's ``BASE`` and the rules do not change); the line to a record is its chain
of parents. The queue is a binary heap of ``priority * 2**32 + record``: among equal
priorities the newest record first, so ties go deep, as a depth-first search would.
The records and the queue are allocated per call, room for ``node_limit`` positions or
as many as the set holds, whichever is fewer (13 words a position: 1.3 MB for the
12,500 positions of Yukon's probe at a node limit of 100,000).
"""
from __future__ import annotations

import numpy as np

from .._jit import jit
from .family import (CODE, DOWN, FOUNDATION, HEIGHT, KEY, LENGTH, LOG_LENGTH, MAX_DEPTH,
                     PILES, PILE_STRIDE, SCORE, TO_FOUNDATION, WHERE, apply_move,
                     build_key, legal_moves, progress_counts, undo_move)
from .family_bound import bound_at_least
from .family_set import SLOT_WORDS, _prefetch_children, contains_key, insert_key, new_deal
from .rules import N_CARDS, N_PILES

EXACT = 0
UNDECIDED = 1
N_FEATURES = 4
NODE_WORDS = 12            # key (2), lengths and face-down counts (1), cards (7), parent, move and depth
_CARDS = 3                 # first word of the packed cards: 8 cards of 6 bits a word
_PARENT = 10
_MOVE = 11
_TIE = np.int64(1) << 32   # priority * _TIE + record: records are fewer than 2**32


@jit(leaf=True)
def features(pos, out):
    """Write ``(score, face-down cards, empty piles, blocking)`` of ``pos`` into ``out``:
    *blocking* counts the cards lying on the next card of each suit's foundation
    (every one must leave before that card goes home)."""
    score, down, empty = progress_counts(pos)
    blocking = 0
    for s in range(4):
        h = pos[FOUNDATION + s]
        if h < 13:
            c = 13 * s + h
            blocking += pos[LENGTH + pos[WHERE + c]] - 1 - pos[HEIGHT + c]
    out[0] = score
    out[1] = down
    out[2] = empty
    out[3] = blocking


@jit(leaf=True)
def priority(pos, weights, scratch):
    """The priority of ``pos``: ``weights`` (one per :func:`features` entry) times its features."""
    features(pos, scratch)
    total = 0
    for k in range(N_FEATURES):
        total += weights[k] * scratch[k]
    return total


@jit(leaf=True)
def _pack(pos, nodes, r):
    """Write ``pos``'s key and piles into record ``r`` of ``nodes``."""
    b = r * NODE_WORDS
    nodes[b] = pos[KEY]
    nodes[b + 1] = pos[KEY + 1]
    shape = 0
    for p in range(N_PILES):
        shape |= (pos[LENGTH + p] << (6 * p)) | (pos[DOWN + p] << (42 + 3 * p))
    nodes[b + 2] = shape
    for w in range(7):
        nodes[b + _CARDS + w] = 0
    k = 0
    for p in range(N_PILES):
        for i in range(pos[LENGTH + p]):
            nodes[b + _CARDS + k // 8] |= pos[PILES + p * PILE_STRIDE + i] << (6 * (k % 8))
            k += 1


@jit(leaf=True)
def _unpack(nodes, r, pos):
    """Make ``pos`` (of the same deal: its ``BASE`` and rules kept) the position of
    record ``r``, with an empty undo log."""
    b = r * NODE_WORDS
    key0 = nodes[b]
    key1 = nodes[b + 1]
    pos[KEY] = key0
    pos[KEY + 1] = key1
    score = 0
    for s in range(4):
        word = key0 if s < 2 else key1
        h = (word >> (52 + 4 * (s % 2))) & 15
        pos[FOUNDATION + s] = h
        score += h
    pos[SCORE] = score
    for c in range(N_CARDS):
        pos[WHERE + c] = -1
        word = key0 if c < 26 else key1
        pos[CODE + c] = (word >> (2 * (c % 26))) & 3
    shape = nodes[b + 2]
    k = 0
    for p in range(N_PILES):
        n = (shape >> (6 * p)) & 63
        pos[LENGTH + p] = n
        pos[DOWN + p] = (shape >> (42 + 3 * p)) & 7
        for i in range(n):
            card = (nodes[b + _CARDS + k // 8] >> (6 * (k % 8))) & 63
            k += 1
            pos[PILES + p * PILE_STRIDE + i] = card
            pos[WHERE + card] = p
            pos[HEIGHT + card] = i
    pos[LOG_LENGTH] = 0


@jit(leaf=True)
def _push(heap, n, item):
    """Add ``item`` to the max-heap ``heap[:n]``; return the new size."""
    i = n
    while i > 0:
        parent = (i - 1) // 2
        if heap[parent] >= item:
            break
        heap[i] = heap[parent]
        i = parent
    heap[i] = item
    return n + 1


@jit(leaf=True)
def _pop(heap, n):
    """Remove the largest item of the max-heap ``heap[:n]`` (n > 0); return it."""
    top = heap[0]
    n -= 1
    item = heap[n]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= n:
            break
        if child + 1 < n and heap[child + 1] > heap[child]:
            child += 1
        if heap[child] <= item:
            break
        heap[i] = heap[child]
        i = child
    if n > 0:
        heap[i] = item
    return top


@jit(leaf=True)
def _record_line(nodes, r, line):
    """``line``: the moves from the root record to record ``r`` (``line[0]`` of them)."""
    depth = nodes[r * NODE_WORDS + _MOVE] >> 16
    line[0] = depth
    for d in range(depth, 0, -1):
        line[d] = nodes[r * NODE_WORDS + _MOVE] & 0xFFFF
        r = nodes[r * NODE_WORDS + _PARENT]


@jit
def best_first(pos, slots, meta, moves, line, node_limit, goal, best, weights):
    """``(best, status, positions)`` of a best-first search from ``pos`` for ``goal``.

    Expands the queued position of highest :func:`priority` first (``weights``),
    marking positions in the set ``slots``, ``meta`` of :mod:`.family_search` (a new
    epoch) and dropping each new position below ``goal`` whose bound is below
    ``goal``. ``best`` is the best score already known (``line`` holds a line to it);
    a position that beats it replaces it and its line. ``status`` is ``EXACT`` when the
    search reached ``goal`` or saw every position the goal search sees (then the
    optimum is below ``goal``: module docstring), ``UNDECIDED`` when a position it
    keeps is past ``node_limit`` new positions (those the bound drops count too, but
    only the set's capacity stops them), it filled the set, or it needed a line of
    ``MAX_DEPTH`` moves. ``pos`` is left as it was (the search works on a copy). Scratch: ``moves``
    (at least ``MAX_MOVES`` words).
    """
    work = pos.copy()
    # a record per new position, and the set refuses keys past 3/4 of its slots
    cap = min(node_limit, 3 * (slots.shape[0] // SLOT_WORDS) // 4) + 2
    nodes = np.empty(cap * NODE_WORDS, dtype=np.int64)
    heap = np.empty(cap, dtype=np.int64)
    scratch = np.empty(N_FEATURES, dtype=np.int64)
    new_deal(meta)
    meta[1] = 0
    insert_key(slots, meta, work[KEY], work[KEY + 1])
    positions = 1
    _pack(work, nodes, 0)
    nodes[_PARENT] = -1
    nodes[_MOVE] = 0
    records = 1
    queued = _push(heap, 0, priority(work, weights, scratch) * _TIE)
    while queued > 0:
        item = _pop(heap, queued)
        queued -= 1
        r = item & (_TIE - 1)
        _unpack(nodes, r, work)
        depth = nodes[r * NODE_WORDS + _MOVE] >> 16
        n = legal_moves(work, moves, 0)
        _prefetch_children(work, slots, moves, 0, n)
        for i in range(n):
            move = moves[i]
            if move % 8 != TO_FOUNDATION:
                key0, key1 = build_key(work, move)
                if key0 >= 0 and contains_key(slots, meta, key0, key1):
                    continue
            apply_move(work, move)
            added = insert_key(slots, meta, work[KEY], work[KEY + 1])
            if added < 0:
                return best, UNDECIDED, positions
            if added == 1:
                positions += 1
                if work[SCORE] >= goal or bound_at_least(work, goal) >= goal:
                    c = records
                    records += 1
                    nodes[c * NODE_WORDS + _PARENT] = r
                    nodes[c * NODE_WORDS + _MOVE] = move | ((depth + 1) << 16)
                    if work[SCORE] > best:
                        best = work[SCORE]
                        _record_line(nodes, c, line)
                        if best >= goal:
                            return best, EXACT, positions
                    if positions > node_limit or depth + 1 >= MAX_DEPTH:
                        return best, UNDECIDED, positions
                    _pack(work, nodes, c)
                    queued = _push(heap, queued, priority(work, weights, scratch) * _TIE + c)
            undo_move(work)
    return best, EXACT, positions
