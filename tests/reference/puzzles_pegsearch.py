"""Reference twins of the peg-solitaire kernels, written from the rules alone.

Nothing of the library is used: the board, the jumps and the symmetries are derived
here from their definitions, and the arguments that carry the library's tables
(``jump_*``, ``sym_table``) are accepted for the same signatures but ignored.

Rules. The English board is the 33 holes (r, c) of a 7 x 7 grid with 2 <= r <= 4 or
2 <= c <= 4; a position is an integer with bit 7r + c set when hole (r, c) holds a
peg. A jump takes a peg over an orthogonally adjacent peg into the empty hole just
beyond, removing the jumped peg. Symmetry s (0..7) of the grid is: mirror the
column (c -> 6 - c) when s is odd, then turn a quarter (r, c) -> (c, 6 - r) s // 2
times.
"""

MASK = (1 << 64) - 1
EMPTY = MASK
HOLES = [(r, c) for r in range(7) for c in range(7) if 2 <= r <= 4 or 2 <= c <= 4]
HOLE_SET = set(HOLES)
DIRECTIONS = ((-1, 0), (1, 0), (0, -1), (0, 1))


def bit(r, c):
    return 1 << (7 * r + c)


def pegs(position):
    """The (r, c) holes holding a peg."""
    return [(i // 7, i % 7) for i in range(49) if int(position) >> i & 1]


def jumps():
    """Every jump of the board as (from, over, to) holes."""
    out = []
    for r, c in HOLES:
        for dr, dc in DIRECTIONS:
            over, to = (r + dr, c + dc), (r + 2 * dr, c + 2 * dc)
            if over in HOLE_SET and to in HOLE_SET:
                out.append(((r, c), over, to))
    return out


JUMPS = jumps()


def children(position):
    """Positions one jump after ``position``."""
    position = int(position)
    out = []
    for a, o, t in JUMPS:
        if position & bit(*a) and position & bit(*o) and not position & bit(*t):
            out.append(position ^ bit(*a) ^ bit(*o) ^ bit(*t))
    return out


def parents(position):
    """Positions one jump before ``position`` (a jump played backwards)."""
    position = int(position)
    out = []
    for a, o, t in JUMPS:
        if position & bit(*t) and not position & bit(*o) and not position & bit(*a):
            out.append(position ^ bit(*a) ^ bit(*o) ^ bit(*t))
    return out


def is_jump(before, after):
    """True when ``after`` is ``before`` after one legal jump."""
    return int(after) in children(before)


def move_square(r, c, s):
    if s % 2:
        c = 6 - c
    for _ in range(s // 2):
        r, c = c, 6 - r
    return r, c


def image(position, sym_table, s):
    out = 0
    for r, c in pegs(position):
        out |= bit(*move_square(r, c, int(s)))
    return out


def canonical(position, sym_table, group):
    return min(image(position, None, int(g)) for g in group)


def orbit_sizes(keys, sym_table, group):
    return [len({image(k, None, int(g)) for g in group}) for k in keys]


def group_fixing(*positions):
    """Symmetries (as a list, identity first) mapping each position onto itself."""
    return [s for s in range(8) if all(image(p, None, s) == int(p) for p in positions)]


def solve_dfs(start, goal, jump_from, jump_over, jump_to, sym_table, group, dead, path):
    """Length of a solution found by plain depth-first search, or -1 (``path`` unused:
    the order of the library's move list is not part of the rules)."""
    start, goal = int(start), int(goal)
    if bin(start).count("1") < bin(goal).count("1"):
        return -1
    seen_dead = set()

    def search(pos):
        if pos == goal:
            return True
        if bin(pos).count("1") <= bin(goal).count("1") or pos in seen_dead:
            return False
        if any(search(child) for child in children(pos)):
            return True
        seen_dead.add(pos)
        return False

    return bin(start).count("1") - bin(goal).count("1") if search(start) else -1


def count_paths(start, goal):
    """Every move sequence from start to goal, enumerated one by one."""
    start, goal = int(start), int(goal)
    goal_pegs = bin(goal).count("1")

    def walk(pos):
        if bin(pos).count("1") == goal_pegs:
            return int(pos == goal)
        return sum(walk(child) for child in children(pos))

    return walk(start)


def count_paths_memo(start, goal):
    """The same count, by dynamic programming over positions (no symmetry)."""
    start, goal = int(start), int(goal)
    goal_pegs = bin(goal).count("1")
    memo = {}

    def walk(pos):
        if bin(pos).count("1") == goal_pegs:
            return int(pos == goal)
        if pos not in memo:
            memo[pos] = sum(walk(child) for child in children(pos))
        return memo[pos]

    return walk(start)


def expand_layer(keys, counts, jump_from, jump_over, jump_to, sym_table, group,
                 table_keys, table_counts):
    """Children of a layer summed per canonical position. The table receives the
    (key, count) pairs in the first slots (slot order is not part of the rules);
    -1 when more than 70 % of the table would be used."""
    acc = {}
    for pos, c in zip(keys, counts):
        for child in children(pos):
            key = canonical(child, None, group)
            acc[key] = acc.get(key, 0) + int(c)
    if len(acc) > (7 * len(table_keys)) // 10:
        return -1
    for slot, key in enumerate(sorted(acc)):
        table_keys[slot] = key
        table_counts[slot] = acc[key]
    return len(acc)


def meet_sum(keys, counts, other_keys, other_counts, other_orbit, board, sym_table,
             other_group):
    """Sum over the forward orbits of their paths times the paths from ~G to each
    member's complement (the other side's orbit count over its orbit size)."""
    other = {int(k): (int(c), int(o)) for k, c, o in zip(other_keys, other_counts,
                                                         other_orbit)}
    total = 0
    for k, c in zip(keys, counts):
        partner = canonical(int(board) ^ int(k), None, other_group)
        if partner in other:
            paths, size = other[partner]
            total += int(c) * (paths // size)
    return total, float(total)


def _mix(key, mask):
    """SplitMix64's finaliser (Steele, Lea and Flood 2014), reduced to a table slot."""
    z = int(key)
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    z ^= z >> 31
    return z & mask
