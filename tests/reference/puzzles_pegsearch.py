"""Reference twins of the peg-solitaire kernels, and a brute-force path counter."""
import numpy as np

MASK = (1 << 64) - 1
EMPTY = MASK


def image(position, sym_table, s):
    out = 0
    position = int(position)
    for b in range(7):
        out |= int(sym_table[s, b, (position >> (8 * b)) & 0xFF])
    return np.uint64(out)


def canonical(position, sym_table, group):
    return np.uint64(min(int(image(position, sym_table, int(g))) for g in group))


def _children(pos, jump_from, jump_over, jump_to):
    for m in range(len(jump_from)):
        f, o, t = int(jump_from[m]), int(jump_over[m]), int(jump_to[m])
        if pos & f and pos & o and not pos & t:
            yield m, pos ^ f ^ o ^ t


def solve_dfs(start, goal, jump_from, jump_over, jump_to, sym_table, group, dead, path):
    """Plain recursive depth-first search (no table); same result convention."""
    start, goal = int(start), int(goal)
    depth_max = bin(start).count("1") - bin(goal).count("1")
    if depth_max < 0:
        return -1
    moves = []

    def search(pos):
        if pos == goal:
            return True
        if bin(pos).count("1") <= bin(goal).count("1"):
            return False
        for m, child in _children(pos, jump_from, jump_over, jump_to):
            moves.append(m)
            if search(child):
                return True
            moves.pop()
        return False

    if not search(start):
        return -1
    path[:len(moves)] = moves
    return len(moves)


def count_paths(start, goal, jump_from, jump_over, jump_to):
    """Every move sequence from start to goal, enumerated one by one."""
    start, goal = int(start), int(goal)
    goal_pegs = bin(goal).count("1")

    def walk(pos):
        if bin(pos).count("1") == goal_pegs:
            return int(pos == goal)
        return sum(walk(child) for _, child in _children(pos, jump_from, jump_over, jump_to))

    return walk(start)


def expand_layer(keys, counts, jump_from, jump_over, jump_to, sym_table, group,
                 table_keys, table_counts):
    """Dictionary version: the table receives the same (key, count) pairs."""
    acc = {}
    for pos, c in zip(keys, counts):
        for _, child in _children(int(pos), jump_from, jump_over, jump_to):
            key = int(canonical(child, sym_table, group))
            acc[key] = acc.get(key, 0) + int(c)
    if len(acc) > (7 * len(table_keys)) // 10:
        return -1
    # same slots as the kernel: SplitMix64 finaliser, linear probing, first-seen order
    mask = len(table_keys) - 1
    for key in acc:
        slot = _mix(key, mask)
        while int(table_keys[slot]) != EMPTY:
            slot = (slot + 1) & mask
        table_keys[slot] = key
        table_counts[slot] = acc[key]
    return len(acc)


def _mix(key, mask):
    z = key
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    z ^= z >> 31
    return z & mask


def meet_sum(keys, counts, orbit, other_keys, other_counts, board, sym_table, group):
    other = {int(k): int(c) for k, c in zip(other_keys, other_counts)}
    total = 0
    for k, c, o in zip(keys, counts, orbit):
        partner = int(canonical(int(board) ^ int(k), sym_table, group))
        if partner in other:
            total += int(c) * (other[partner] // int(o))
    return total, float(total)


def orbit_sizes(keys, sym_table, group):
    return np.array([len({int(image(k, sym_table, int(g))) for g in group}) for k in keys],
                    dtype=np.int64)
