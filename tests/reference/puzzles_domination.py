"""Reference twin of the queen-domination kernel: all k-subsets, one by one."""
from itertools import combinations


def _covers(n, s):
    r, c = divmod(s, n)
    return {r2 * n + c2 for r2 in range(n) for c2 in range(n)
            if r2 == r or c2 == c or r2 - c2 == r - c or r2 + c2 == r + c}


def count_dominating(n, k, independent, attack, out):
    cover = [_covers(n, s) for s in range(n * n)]
    every = set(range(n * n))
    total = 0
    for combo in combinations(range(n * n), k):
        if independent and any(b in cover[a] for a, b in combinations(combo, 2)):
            continue
        if set().union(*(cover[s] for s in combo)) == every:
            if total < out.shape[0]:
                out[total, :] = combo
            total += 1
    return total


def _lowest_bit(words, w_count):
    value = sum(int(words[w]) << (64 * w) for w in range(w_count))
    return (value & -value).bit_length() - 1 if value else -1


def count_dominating_branch(n, k, independent, attack, branch, out):
    """The dominating k-sets whose first member, among the squares covering the square
    with the fewest coverers (the first such square), is that square's ``branch``-th
    coverer in square order (every set when ``branch`` is -1); listed in lexicographic
    order (the kernel's order differs)."""
    cover = [_covers(n, s) for s in range(n * n)]
    fewest = min(range(n * n), key=lambda s: (len(cover[s]), s))
    coverers = sorted(cover[fewest])  # a queen covers s exactly when s covers it
    every = set(range(n * n))
    total = 0
    for combo in combinations(range(n * n), k):
        if independent and any(b in cover[a] for a, b in combinations(combo, 2)):
            continue
        if set().union(*(cover[s] for s in combo)) != every:
            continue
        if branch >= 0:
            first = min(coverers.index(s) for s in combo if s in cover[fewest])
            if first != branch:
                continue
        if total < out.shape[0]:
            out[total, :] = combo
        total += 1
    return total
