"""A shortest line to the optimal score under Yukon's and Alaska's rules (:mod:`.family`).

A *line's length* is its number of player moves: builds (a run onto a card or a king
into an empty pile) and the foundation plays the player chooses; each player move
is followed by the provably safe automatic foundation plays, as the game makes them
(:mod:`.family`), which are not counted. A *shortest line to the optimal score* has
the fewest player moves among all lines from the deal that reach the deal's optimal
score (the most foundation cards any line reaches).

How it is found
---------------
First the optimal score, by the family search (:func:`.family_search.best_score`). Then
a breadth-first search over player moves from the deal: level ``d`` holds positions
first reached by ``d`` player moves, each once (the exact key set of
:mod:`.family_search`: one key never names two positions, so a position is expanded
at its least depth; two keys naming one position only cost a second expansion), and
the search stops at the first level that holds a position with the optimal score; the
line to it is rebuilt from the per-node ``(parent, move)`` arrays. A new position
whose upper bound (:mod:`.family_bound`) is below the optimal score is dropped
(marked in the set, never expanded): every position on a line to the optimum has a
bound at least the optimum, the argument by which the family search prunes.

A node's position is not stored (only its key): the search walks from the position of
one node to the next by undoing the moves down to their common ancestor and making
the new node's moves from there (:func:`.family.undo_move`, :func:`.family.apply_move`).
Nodes of one level come in their parents' order, so consecutive nodes share most of
their line and the walk is short (a full replay from the deal costs the depth per node).

Limits
------
The breadth-first search stores at most ``node_limit`` positions (every key it puts
in the set, dropped ones included, the family search's count). A deal whose family
search is undecided has no known optimum, and a breadth-first search that passes the
limit (or fills the set) proves nothing: both fall back to the family search's line
(the first it met to its best score, the optimum when decided), labelled as such
(:class:`ShortestLine`'s ``shortest`` False and ``why``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._jit import jit
from .family import KEY, MAX_DEPTH, MAX_MOVES, SCORE, TO_FOUNDATION, apply_move, \
    build_key, deal_position, legal_moves, undo_move
from .family_bound import bound_at_least, bound_of
from .family_search import DEFAULT_NODE_LIMIT, UNDECIDED, FamilyScratch, best_score
from .family_set import contains_key, insert_key, new_deal

FOUND = 0          # breadth-first outcomes
CUT = 1            # the node limit, a full set or MAX_DEPTH was passed: nothing proven
NONE = 2           # every position seen without meeting the target (never for the optimum)


@jit(leaf=True)
def _goto(pos, parent, move, node, depth, path, at, chain):
    """Turn ``pos`` (at the node whose line from the root is ``path[:at]``) into the
    position of ``node`` (at ``depth``), updating ``path``; return ``depth`` (where
    ``pos`` stands now). ``chain`` is scratch.

    The moves of ``node``'s line are read back through ``parent``; the moves after the
    longest common prefix with ``path`` are undone and the new ones made.
    """
    k = node
    for d in range(depth - 1, -1, -1):
        chain[d] = move[k]
        k = parent[k]
    same = 0
    while same < min(at, depth) and chain[same] == path[same]:
        same += 1
    for _ in range(at - same):
        undo_move(pos)
    for d in range(same, depth):
        apply_move(pos, chain[d])
        path[d] = chain[d]
    return depth


@jit(leaf=True)
def shortest_line(pos, target, slots, meta, parent, move, path, chain, moves, node_limit, line):
    """``(outcome, positions, levels)`` of a breadth-first search from ``pos`` to a position with
    score ``target`` (module docstring); with ``FOUND`` ``line`` holds the line
    (``line[0]`` moves, then the moves), one with the fewest player moves.

    ``pos`` must have an empty undo log (a dealt or started position) and is restored.
    ``parent`` and ``move`` hold ``node_limit + 1`` nodes (node 0: the root); ``path``
    and ``chain`` ``MAX_DEPTH`` words, ``moves`` ``MAX_MOVES``. ``positions`` counts the
    keys put in the set (the root included); ``levels`` the levels expanded whole
    (every position within ``levels`` moves was seen: a line to ``target`` has at least
    ``levels`` + 1 moves, exactly that many when ``FOUND``, none when the root has it).
    Positions whose bound is below ``target`` are not expanded.
    """
    line[0] = 0
    if pos[SCORE] >= target:
        return FOUND, 1, 0
    new_deal(meta)
    meta[1] = 0
    insert_key(slots, meta, pos[KEY], pos[KEY + 1])
    positions = 1
    parent[0] = -1
    move[0] = -1
    nodes = 1
    begin = 0           # the current level's nodes: begin .. end - 1
    end = 1
    depth = 0           # their depth
    at = 0              # pos stands at the node that path[:at] names
    while begin < end:
        if depth + 1 >= MAX_DEPTH:
            _goto(pos, parent, move, 0, 0, path, at, chain)
            return CUT, positions, depth
        for node in range(begin, end):
            at = _goto(pos, parent, move, node, depth, path, at, chain)
            n = legal_moves(pos, moves, 0)
            for i in range(n):
                m = moves[i]
                if m % 8 != TO_FOUNDATION:
                    # a child already in the set is skipped without making the move
                    key0, key1 = build_key(pos, m)
                    if key0 >= 0 and contains_key(slots, meta, key0, key1):
                        continue
                apply_move(pos, m)
                added = insert_key(slots, meta, pos[KEY], pos[KEY + 1])
                if added == 0:
                    undo_move(pos)
                    continue
                if added < 0 or positions >= node_limit:
                    undo_move(pos)
                    _goto(pos, parent, move, 0, 0, path, at, chain)
                    return CUT, positions, depth
                positions += 1
                if pos[SCORE] >= target:
                    undo_move(pos)
                    line[0] = depth + 1
                    line[depth + 1] = m
                    k = node
                    for d in range(depth, 0, -1):
                        line[d] = move[k]
                        k = parent[k]
                    _goto(pos, parent, move, 0, 0, path, at, chain)
                    return FOUND, positions, depth
                keep = bound_at_least(pos, target) >= target
                undo_move(pos)
                if keep:
                    parent[nodes] = node
                    move[nodes] = m
                    nodes += 1
        begin = end
        end = nodes
        depth += 1
    _goto(pos, parent, move, 0, 0, path, at, chain)
    return NONE, positions, depth


@dataclass(frozen=True)
class ShortestLine:
    """A line from a deal to its optimal score, or the labelled fallback.

    ``moves``: the player moves (``card * 8 + destination``, :mod:`.family`);
    ``score``: the score the line reaches; ``shortest``: True when no line reaching the
    optimal score has fewer player moves (proven by the breadth-first search);
    ``decided``: the optimal score is known (else ``score`` is the best found);
    ``why``: ``""`` when shortest, else the reason of the fallback (the family search's
    line is given instead); ``search_positions``: the family search's positions;
    ``positions``: the breadth-first search's (0 when it did not run); ``levels``: the
    levels it expanded whole (every line to the optimum has more moves when it was cut).
    """

    moves: tuple[int, ...]
    score: int
    shortest: bool
    decided: bool
    why: str
    search_positions: int
    positions: int
    levels: int = 0

    def label(self) -> str:
        """One phrase saying what the line is (a solution file's header, ``--show``)."""
        if self.shortest:
            return f"a shortest line to the optimal score: {len(self.moves)} player moves"
        if not self.decided:
            return (f"undecided (search limit), no shortest line: the search's line to the "
                    f"best score found: {len(self.moves)} player moves")
        return (f"not proven shortest ({self.why}): the search's line to the optimal score: "
                f"{len(self.moves)} player moves")


def shortest_line_moves(deck, rules: int, node_limit: int = DEFAULT_NODE_LIMIT,
                        scratch: FamilyScratch | None = None) -> ShortestLine:
    """A shortest line to the optimal score from the deal of validated ``deck`` under rule
    set ``rules`` (module docstring), or the family search's line, labelled, when the
    deal is undecided or the breadth-first search passes ``node_limit`` positions.

    ``scratch``'s set must hold ``node_limit`` positions (:func:`.family_study.capacity_for`).
    """
    scratch = scratch or FamilyScratch.new()
    pos = scratch.pos
    deal_position(np.asarray(deck, dtype=np.int64), int(rules), pos)
    score, status, searched_positions, _ = best_score(pos, scratch.slots, scratch.meta, scratch.stack,
                                     scratch.moves, scratch.line, int(node_limit), bound_of(pos))
    searched = tuple(int(m) for m in scratch.line[1:1 + scratch.line[0]])
    if status == UNDECIDED:
        return ShortestLine(searched, int(score), False, False, "the deal is undecided",
                            int(searched_positions), 0)
    parent = np.zeros(int(node_limit) + 1, dtype=np.int64)
    move = np.zeros(int(node_limit) + 1, dtype=np.int64)
    path = np.zeros(MAX_DEPTH, dtype=np.int64)
    chain = np.zeros(MAX_DEPTH, dtype=np.int64)
    moves = np.zeros(MAX_MOVES, dtype=np.int64)
    line = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
    outcome, positions, levels = shortest_line(pos, score, scratch.slots, scratch.meta, parent, move,
                                       path, chain, moves, int(node_limit), line)
    if outcome == NONE:
        raise RuntimeError("the breadth-first search missed the optimal score the family "
                           "search reached (a bug)")
    if outcome == CUT:
        return ShortestLine(searched, int(score), False, True,
                            f"the breadth-first search passed {node_limit} positions; no line "
                            f"to it has fewer than {levels + 1} moves", int(searched_positions), int(positions),
                            int(levels))
    return ShortestLine(tuple(int(m) for m in line[1:1 + line[0]]), int(score), True, True, "",
                        int(searched_positions), int(positions), int(levels))
