"""Slow, obviously-correct twins of the Mastermind kernels (same names and signatures)."""
import ctypes
import math

import numpy as np

from tests.reference._random import GOLDEN, MASK, mix64

TOLERANCE = 1e-9


def feedback_digits(digits_a, counts_a, digits_b, counts_b, pegs):
    black = sum(1 for a, b in zip(digits_a, digits_b) if a == b)
    common = 0
    for colour in set(int(d) for d in digits_a):
        common += min(list(digits_a).count(colour), list(digits_b).count(colour))
    return black * (pegs + 1) + common - black


def response_matrix_kernel(digits, counts, pegs, out):
    n = len(digits)
    for g in range(n):
        for s in range(n):
            out[g, s] = feedback_digits(digits[g], counts[g], digits[s], counts[s], pegs)


def code_tables_kernel(values, pegs, colours, digits, counts):
    for i, value in enumerate(values):
        written = []
        v = int(value)
        for _ in range(pegs):
            written.append(v % colours)
            v //= colours
        for j, d in enumerate(reversed(written)):
            digits[i, j] = d
            counts[i, d] += 1


def child_key(key, guess, answer):
    return mix64((int(key) + (guess * 4096 + answer + 1) * GOLDEN) & MASK)


def unit_uniform(key, guess):
    bits = mix64(int(key) ^ mix64(guess + 1))
    return (bits >> 11) / 2.0 ** 53


def knuth_score(sizes, guess, previous, key):
    return float(max(sizes))


def expected_size_score(sizes, guess, previous, key):
    return float(sum(int(s) ** 2 for s in sizes))


def entropy_score(sizes, guess, previous, key):
    n = sum(int(s) for s in sizes)
    return sum(s / n * math.log2(s / n) for s in sizes if s)


def most_parts_score(sizes, guess, previous, key):
    return -float(sum(1 for s in sizes if s))


def random_score(sizes, guess, previous, key):
    return unit_uniform(key, guess)


def cooley_score(sizes, guess, previous, key):
    return float(previous) + 0.5 * unit_uniform(key, guess)


def _call(score, sizes, guess, previous, key):
    """Call a strategy adapter the way the kernel does (C callback or, without JIT, Python)."""
    if hasattr(score, "ctypes"):
        pointer = sizes.ctypes.data_as(ctypes.POINTER(ctypes.c_int64))
        return score.ctypes(pointer, len(sizes), guess, previous, int(key))
    return score(sizes.ctypes, len(sizes), guess, previous, np.uint64(key))


def _response(matrix, digits, counts, pegs, g, s):
    return feedback_digits(digits[g], counts[g], digits[s], counts[s], pegs)


def play_all(score, tables, rules, task, root_key, lanes, tree):
    """Recursive twin: the rule of the issue applied literally at every node.

    Ignores ``rules.perfect_split_best`` and ``rules.partition_only`` (shortcuts of the
    kernel, so the tests check them), ``lanes`` and ``task.perms``; fills ``tree`` in
    preorder.
    """
    matrix, digits, counts, pegs = tables
    consistent_only, uses_partition = rules.consistent_only, rules.uses_partition
    first_guess, tracked, guesses = task.first_guess, task.tracked, task.guesses
    n = len(digits)
    slots = (pegs + 1) ** 2
    solved = pegs * (pegs + 1)
    rows = []

    def fb(g, s):
        return _response(matrix, digits, counts, pegs, g, s)

    def node(consistent, depth, parent, answer, previous, key):
        members = set(consistent)
        if len(consistent) == 1:
            guess = consistent[0]
        elif depth == 0 and first_guess >= 0:
            guess = first_guess
        else:
            scored = []
            for g in (consistent if consistent_only else range(n)):
                sizes = np.zeros(slots, dtype=np.int64)
                if uses_partition or g not in members:
                    for s in consistent:
                        sizes[fb(g, s)] += 1
                if g not in members and sizes.max() == len(consistent):
                    continue
                prev = fb(g, previous) if previous >= 0 else -1
                scored.append((_call(score, sizes, g, prev, key), g))
            best = min(s for s, _ in scored)
            ties = [g for s, g in scored if s <= best + TOLERANCE]
            ours = [g for g in ties if g in members]
            guess = min(ours) if ours else min(ties)
        row = len(rows)
        rows.append((guess, parent, answer, depth))
        if guess in members and tracked[guess]:
            guesses[guess] = depth + 1
        classes = {}
        for s in consistent:
            classes.setdefault(fb(guess, s), []).append(s)
        for f in sorted(classes):
            if f != solved and any(tracked[s] for s in classes[f]):
                node(classes[f], depth + 1, row, f, guess, child_key(key, guess, f))

    node(list(range(n)), 0, -1, -1, -1, int(root_key))
    tree[:len(rows)] = rows
    return len(rows)


def walk_tree(tree, children, tables, secrets, out):
    matrix, digits, counts, pegs = tables
    solved = pegs * (pegs + 1)
    for i, s in enumerate(secrets):
        node, out[i] = 0, -1
        while node >= 0:
            f = _response(matrix, digits, counts, pegs, tree[node, 0], s)
            if f == solved:
                out[i] = tree[node, 3] + 1
                break
            node = children[node, f]


# --- optimal search -------------------------------------------------------------------

INFEASIBLE = 1 << 40


def lower_bounds(n, branches):
    lb = [0] * (n + 1)
    for m in range(1, n + 1):
        left, level, total = m, 1, 0
        while left > 0:
            take = min(left, branches ** (level - 1))
            total += take * level
            left -= take
            level += 1
        lb[m] = total
    return np.array(lb, dtype=np.int64)


def capacities(branches, n):
    return np.array([min(sum(branches ** j for j in range(d)), n + 1) for d in range(63)],
                    dtype=np.int64)


def free_colours_canonical(digits_row, used, colours):
    free = [c for c in range(colours) if not used[c]]
    order = []
    for d in digits_row:
        if not used[d] and d not in order:
            order.append(int(d))
    return order == free[:len(order)]


def present_colours(digits, members, start, end):
    return sum(1 << c for c in {int(d) for t in members[start:end] for d in digits[t]})


def repeats_allowed(n, pegs, colours):
    return n == colours ** pegs


def absent_canonical(digits_row, absent, repeats):
    """The code equals the smallest legal code with the same absent positions."""
    low = [c for c in range(64) if (absent >> c) & 1]
    spots = [i for i, d in enumerate(digits_row) if (absent >> int(d)) & 1]
    fill = low[:1] * len(spots) if repeats else low[:len(spots)]
    return [int(digits_row[i]) for i in spots] == fill


def mark_representatives(digits, used, colours, group, colour_maps, absent, repeats, marks):
    """Literal twin: drop a code not absent-canonical, or that relabelling the free
    colours smallest first, or a symmetry of the group, maps to a smaller code."""
    pegs = digits.shape[1]
    free = [c for c in range(colours) if not used[c]]
    for g, row in enumerate(digits):
        code = tuple(int(d) for d in row)
        images = [code]
        for e in range(len(group)):
            image = [0] * pegs
            for i in range(pegs):
                image[int(group[e][i])] = code[i]
            images.append(tuple(image))
        smaller = bool(absent) and not absent_canonical(row, absent, repeats)
        for k, image in enumerate(images):
            order = []
            for c in image:
                if not used[c] and c not in order:
                    order.append(c)
            relabel = dict(zip(order, free))
            if k == 0:
                mapped = tuple(relabel.get(c, c) for c in image)
            else:
                mapped = tuple(int(colour_maps[k - 1][c]) if used[c] else relabel[c]
                               for c in image)
            smaller = smaller or mapped < code
        marks[g] = 0 if smaller else 1


def first_splitting_code(matrix, members, start, end, marks):
    for g in range(matrix.shape[0]):
        answers = [int(matrix[g, s]) for s in members[start:end]]
        if marks[g] and len(set(answers)) == len(answers):
            return g
    return -1


def solve(tables, src, start, end, remaining, bound, level, root, used, search):
    """Brute force: every guess at every node, no pruning, no symmetry, exact (reads
    only ``tables``, the codes and ``remaining``)."""
    matrix, digits, counts, pegs = tables
    n = len(digits)
    solved = pegs * (pegs + 1)
    memo = {}

    def cost(codes, left):
        if left <= 0:
            return INFEASIBLE
        if len(codes) == 1:
            return 1
        key = (codes, left)
        if key not in memo:
            best = INFEASIBLE
            for g in range(n):
                classes = {}
                for s in codes:
                    classes.setdefault(_response(matrix, digits, counts, pegs, g, s), []).append(s)
                if len(classes) == 1 and g not in codes:
                    continue
                total = len(codes) + sum(cost(tuple(c), left - 1)
                                         for f, c in classes.items() if f != solved)
                best = min(best, total)
            memo[key] = min(best, INFEASIBLE)
        return memo[key]

    return cost(tuple(int(s) for s in src[start:end]), remaining)


# ----- Knuth's written tie rule ------------------------------------------------------

def random_tie_breaker(sizes, guess, key):
    """0 for a consistent candidate (its "solved" class is not empty), 1/2 for another,
    plus a quarter of the decision's uniform draw."""
    pegs = math.isqrt(len(sizes)) - 1
    solved = pegs * (pegs + 1)
    return (0.0 if sizes[solved] > 0 else 0.5) + 0.25 * unit_uniform(key, guess)


def knuth_random_ties_score(sizes, guess, previous, key):
    return knuth_score(sizes, guess, previous, key) + random_tie_breaker(sizes, guess, key)


def expected_size_random_ties_score(sizes, guess, previous, key):
    return expected_size_score(sizes, guess, previous, key) + random_tie_breaker(sizes, guess, key)


def most_parts_random_ties_score(sizes, guess, previous, key):
    return most_parts_score(sizes, guess, previous, key) + random_tie_breaker(sizes, guess, key)


def as_adapter(score):
    """A Python scoring function called the way :func:`play_all` calls an adapter."""
    def adapter(sizes_pointer, n_slots, guess, previous, key):
        data = sizes_pointer.data_as(ctypes.POINTER(ctypes.c_int64))
        return score(np.ctypeslib.as_array(data, (n_slots,)).copy(), guess, previous, int(key))
    return adapter


# ----- the worst-case-optimal strategy -----------------------------------------------

def minimax_values(digits, counts, pegs):
    """``(least worst case, least total guesses among strategies with that worst case)``
    by exhaustive recursion over every guess at every node (memoised on the set)."""
    n = len(digits)
    solved = pegs * (pegs + 1)

    def fb(g, s):
        return feedback_digits(digits[g], counts[g], digits[s], counts[s], pegs)

    def classes(g, codes):
        out = {}
        for s in codes:
            out.setdefault(fb(g, s), []).append(s)
        return out

    worst_memo = {}

    def worst(codes):
        if len(codes) == 1:
            return 1
        if codes not in worst_memo:
            best = None
            for g in range(n):
                parts = classes(g, codes)
                if len(parts) == 1 and g not in codes:
                    continue   # learns nothing
                w = max([1] + [1 + worst(tuple(c)) for f, c in parts.items() if f != solved])
                best = w if best is None else min(best, w)
            worst_memo[codes] = best
        return worst_memo[codes]

    total_memo = {}

    def total(codes, left):
        """Least total guesses for ``codes`` within ``left`` guesses (None: impossible)."""
        if left <= 0:
            return None
        if len(codes) == 1:
            return 1
        key = (codes, left)
        if key not in total_memo:
            best = None
            for g in range(n):
                parts = classes(g, codes)
                if len(parts) == 1 and g not in codes:
                    continue
                subtotal = len(codes)
                for f, c in parts.items():
                    if f == solved:
                        continue
                    t = total(tuple(c), left - 1)
                    if t is None:
                        subtotal = None
                        break
                    subtotal += t
                if subtotal is not None and (best is None or subtotal < best):
                    best = subtotal
            total_memo[key] = best
        return total_memo[key]

    everything = tuple(range(n))
    depth = worst(everything)
    return depth, total(everything, depth)
