"""Peg solitaire searches over bitboards: one solution, and the exact path count.

A position is a uint64 with bit ``7*r + c`` set when hole (r, c) of the 7 x 7 grid
holds a peg. Moves are three arrays of single-bit masks (``jump_from``,
``jump_over``, ``jump_to``); a move applies when the first two hold pegs and the
third is empty, and it flips all three bits. Board symmetries act through byte
lookup tables ``sym_table[s, byte, value]`` (the image of one byte of the position
under symmetry ``s``); a position's canonical form is the smallest image under the
symmetries listed in ``group``.

Choices docs/design.md leaves open:

- The solver is a depth-first search with a transposition table of positions proved
  dead (canonical under the symmetries that fix the goal), an open-addressing set
  of uint64 keys that simply stops storing when three quarters full.
- The path count meets in the middle. Peg solitaire is self-dual: Q -> P is a move
  exactly when complement(P) -> complement(Q) is one. So the number of move
  sequences from P to the goal G equals the number from complement(G) to
  complement(P), and the count from S to G is the sum over positions Q halfway of
  paths(S -> Q) * paths(~G -> ~Q). Both factors come from breadth-first layers of
  forward search with path counts; for the central game S = ~G, so one search
  serves both sides and only positions that can still reach the goal are summed.
- Layers hold canonical positions, each with the number of paths reaching its
  whole orbit; these accumulate exactly (every member of an orbit has the same
  number of moves into any other orbit). The forward search from S uses the
  symmetries fixing both S and G, the search from ~G those fixing G alone (all 8
  for a one-peg goal at the centre): a bigger group, smaller layers.
"""
from __future__ import annotations

import numpy as np

from jitgames._jit import jit

EMPTY_KEY = np.uint64(0xFFFFFFFFFFFFFFFF)
"""Hash-table marker for an empty slot (no position sets bit 63)."""


@jit
def image(position, sym_table, s):
    """Image of ``position`` under symmetry ``s`` (7 byte lookups)."""
    out = np.uint64(0)
    for b in range(7):
        out |= sym_table[s, b, (position >> np.uint64(8 * b)) & np.uint64(0xFF)]
    return out


@jit
def canonical(position, sym_table, group):
    """Smallest image of ``position`` under the symmetries in ``group``."""
    best = position
    for i in range(group.shape[0]):
        other = image(position, sym_table, group[i])
        if other < best:
            best = other
    return best


@jit
def _mix(key, mask):
    """Hash slot of a uint64 key (SplitMix64 finaliser) in a table of ``mask + 1``."""
    z = key
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.int64(z & np.uint64(mask))


@jit
def solve_dfs(start, goal, jump_from, jump_over, jump_to, sym_table, group, dead, path):
    """Depth-first search for a move sequence from ``start`` to ``goal``.

    ``dead`` is a uint64 hash set (filled with the empty marker, length a power of
    two) of canonical positions known not to reach the goal; ``path`` receives the
    move indices. Returns the number of moves of the solution found, or -1.
    """
    goal_pegs = 0
    g = goal
    while g:
        g &= g - np.uint64(1)
        goal_pegs += 1
    pegs = 0
    p = start
    while p:
        p &= p - np.uint64(1)
        pegs += 1
    depth_max = pegs - goal_pegs
    if depth_max < 0:
        return -1
    if depth_max == 0:
        return 0 if start == goal else -1
    n_moves = jump_from.shape[0]
    mask = dead.shape[0] - 1
    stored = 0
    positions = np.empty(depth_max + 1, np.uint64)
    next_move = np.zeros(depth_max + 1, np.int64)
    positions[0] = start
    depth = 0
    while depth >= 0:
        pos = positions[depth]
        m = next_move[depth]
        while m < n_moves:
            if (pos & jump_from[m]) and (pos & jump_over[m]) and not (pos & jump_to[m]):
                break
            m += 1
        if m == n_moves:  # exhausted: this position is dead
            key = canonical(pos, sym_table, group)
            if 4 * stored < 3 * (mask + 1):
                slot = _mix(key, mask)
                while dead[slot] != EMPTY_KEY and dead[slot] != key:
                    slot = (slot + 1) & mask
                if dead[slot] == EMPTY_KEY:
                    dead[slot] = key
                    stored += 1
            depth -= 1
            continue
        next_move[depth] = m + 1
        child = pos ^ (jump_from[m] | jump_over[m] | jump_to[m])
        path[depth] = m
        if depth + 1 == depth_max:
            if child == goal:
                return depth_max
            continue
        key = canonical(child, sym_table, group)
        slot = _mix(key, mask)
        known_dead = False
        while dead[slot] != EMPTY_KEY:
            if dead[slot] == key:
                known_dead = True
                break
            slot = (slot + 1) & mask
        if known_dead:
            continue
        depth += 1
        positions[depth] = child
        next_move[depth] = 0
    return -1


@jit
def expand_layer(keys, counts, jump_from, jump_over, jump_to, sym_table, group,
                 table_keys, table_counts):
    """Add every child of a layer into a hash table, summing path counts.

    ``keys`` are canonical positions, ``counts`` the paths reaching their orbits;
    each move from ``keys[i]`` adds ``counts[i]`` to the child's canonical entry.
    ``table_keys`` starts filled with the empty marker. Returns the number of
    distinct children, or -1 when the table passed 70 % load (retry bigger).
    """
    mask = table_keys.shape[0] - 1
    limit = (7 * (mask + 1)) // 10
    used = 0
    for i in range(keys.shape[0]):
        pos = keys[i]
        c = counts[i]
        for m in range(jump_from.shape[0]):
            if (pos & jump_from[m]) and (pos & jump_over[m]) and not (pos & jump_to[m]):
                child = canonical(pos ^ (jump_from[m] | jump_over[m] | jump_to[m]),
                                  sym_table, group)
                slot = _mix(child, mask)
                while table_keys[slot] != EMPTY_KEY and table_keys[slot] != child:
                    slot = (slot + 1) & mask
                if table_keys[slot] == EMPTY_KEY:
                    used += 1
                    if used > limit:
                        return -1
                    table_keys[slot] = child
                    table_counts[slot] = c
                else:
                    table_counts[slot] += c
    return used


@jit
def meet_sum(keys, counts, other_keys, other_counts, other_orbit, board, sym_table,
             other_group):
    """Sum over a layer of paths(S -> Q) * paths(~G -> ~Q), over all Q, exactly.

    ``keys``/``counts``: the forward layer from S, canonical under a group K fixing S
    and G, with the paths reaching each K-orbit. ``other_keys`` (sorted),
    ``other_counts`` and ``other_orbit``: the layer of the search from ~G, canonical
    under a group H fixing G (``other_group``), with the paths into each H-orbit and
    the orbit sizes. Every member Q' of a K-orbit has the same paths(~G -> ~Q'),
    namely the H-orbit count of ~Q divided by that orbit's size; so the K-orbit
    contributes ``counts[i] * other_counts[j] // other_orbit[j]``.
    Returns (total, estimate): the exact total in int64 and the same sum in float64;
    every term and partial sum is at most the total, so the int64 result is exact
    when the estimate is below 2**62.
    """
    total = np.int64(0)
    estimate = 0.0
    for i in range(keys.shape[0]):
        partner = canonical(board ^ keys[i], sym_table, other_group)
        j = np.searchsorted(other_keys, partner)
        if j < other_keys.shape[0] and other_keys[j] == partner:
            per_member = other_counts[j] // other_orbit[j]
            total += counts[i] * per_member
            estimate += float(counts[i]) * float(per_member)
    return total, estimate


@jit
def orbit_sizes(keys, sym_table, group):
    """Number of distinct images of each position under ``group``."""
    out = np.empty(keys.shape[0], np.int64)
    images = np.empty(group.shape[0], np.uint64)
    for i in range(keys.shape[0]):
        for g in range(group.shape[0]):
            images[g] = image(keys[i], sym_table, group[g])
        images.sort()
        distinct = 1
        for g in range(1, group.shape[0]):
            if images[g] != images[g - 1]:
                distinct += 1
        out[i] = distinct
    return out
