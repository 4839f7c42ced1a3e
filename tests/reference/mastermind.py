"""Slow, obviously-correct twins of the Mastermind kernels, written from the rules.

Most twins keep their kernel's name and signature; :func:`play_all` takes the strategy
by name and the size, and enumerates the codes and scores the guesses itself."""
import math

import numpy as np

from tests.reference._random import GOLDEN, MASK, below, mix64, stream_key

TOLERANCE = 1e-9


def feedback_digits(digits_a, counts_a, digits_b, counts_b, pegs):
    black = sum(1 for a, b in zip(digits_a, digits_b) if a == b)
    common = 0
    for colour in set(int(d) for d in digits_a):
        common += min(list(digits_a).count(colour), list(digits_b).count(colour))
    return black * (pegs + 1) + common - black


def pack_code(digits_row, counts_row):
    """Byte i of the first word: the colour at position i; byte c of the second: the
    count of colour c."""
    positions = sum(int(d) << (8 * i) for i, d in enumerate(digits_row))
    colours = sum(int(n) << (8 * c) for c, n in enumerate(counts_row))
    return positions, colours


def response_matrix_kernel(digits, counts, pegs, out, first):
    n = len(digits)
    for r in range(len(out)):
        for s in range(n):
            out[r, s] = feedback_digits(digits[first + r], counts[first + r], digits[s],
                                        counts[s], pegs)


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


def _response(matrix, digits, counts, pegs, g, s):
    return feedback_digits(digits[g], counts[g], digits[s], counts[s], pegs)


# ----- the greedy strategies, from their definitions --------------------------------

def all_codes(pegs, colours, repeats):
    """Every legal code as a tuple of digits, in increasing order of its base-``colours``
    value (the first digit most significant); without repeats no digit occurs twice."""
    codes = []
    for value in range(colours ** pegs):
        code = []
        for _ in range(pegs):
            code.append(value % colours)
            value //= colours
        code = tuple(reversed(code))
        if repeats or len(set(code)) == pegs:
            codes.append(code)
    return codes


def code_feedback(guess, secret, pegs):
    """Feedback encoded ``black * (pegs + 1) + white``."""
    black = sum(1 for a, b in zip(guess, secret) if a == b)
    common = sum(min(guess.count(c), secret.count(c)) for c in set(guess))
    return black * (pegs + 1) + common - black


def cooley_opening(codes, seed):
    """Cooley's opening: a code with exactly one digit twice and no digit thrice, drawn
    with the seed's stream 0 (any code when there is none)."""
    pool = [i for i, c in enumerate(codes)
            if [c.count(d) for d in set(c)].count(2) == 1 and max(map(c.count, c)) <= 2]
    pool = pool or list(range(len(codes)))
    index, _ = below(stream_key(seed, 0), 0, len(pool))
    return pool[index]


# name: (only consistent codes are candidates, score(sizes, guess, previous, key))
GREEDY_RULES = {
    "knuth": (False, knuth_score),
    "expected-size": (False, expected_size_score),
    "entropy": (False, entropy_score),
    "most-parts": (False, most_parts_score),
    "random": (True, random_score),
    "cooley": (True, cooley_score),
}


def play_all(name, pegs, colours, repeats, seed, tracked, first_guess=-1, ties="first"):
    """Recursive twin of the engine: strategy ``name`` applied literally at every node.

    The rule: candidates are every legal code (or only the consistent ones for
    ``random`` and ``cooley``); a code outside the consistent set that leaves it
    undivided is never played; the lowest score wins, scores within ``TOLERANCE`` of it
    tie, and ties go to a consistent code, then to the smallest; a single consistent
    code is played. ``ties="random"`` adds Knuth's written tie-breaker to the integer
    scores instead. The opening is ``first_guess`` if given, Cooley's one-pair draw for
    ``cooley``, else the same rule. Decision keys: the root's is ``stream_key(seed, 1)``
    and a child's mixes its parent's with the guess and the answer.

    Returns ``(guesses, rows)``: guesses needed per tracked secret (0 for the others)
    and the tree in preorder, rows ``(guess, parent row, answer, depth)``; only the
    nodes a tracked secret reaches are expanded.
    """
    codes = all_codes(pegs, colours, repeats)
    n = len(codes)
    consistent_only, score = GREEDY_RULES[name]
    if ties == "random":
        score = {"knuth": knuth_random_ties_score,
                 "expected-size": expected_size_random_ties_score,
                 "most-parts": most_parts_random_ties_score}[name]
    if first_guess < 0 and name == "cooley":
        first_guess = cooley_opening(codes, seed)
    slots = (pegs + 1) ** 2
    solved = pegs * (pegs + 1)
    guesses = np.zeros(n, np.int32)
    rows = []

    def fb(g, s):
        return code_feedback(codes[g], codes[s], pegs)

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
                for s in consistent:
                    sizes[fb(g, s)] += 1
                if g not in members and sizes.max() == len(consistent):
                    continue
                prev = fb(g, previous) if previous >= 0 else -1
                scored.append((score(sizes, g, prev, key), g))
            best = min(s for s, _ in scored)
            ties_ = [g for s, g in scored if s <= best + TOLERANCE]
            ours = [g for g in ties_ if g in members]
            guess = min(ours) if ours else min(ties_)
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

    node(list(range(n)), 0, -1, -1, -1, stream_key(seed, 1))
    return guesses, rows


def walk_tree(tree, children, tables, secrets, out):
    matrix, digits, counts, pegs = tables[:4]
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


def _classes(tables, g, codes):
    """The codes of ``codes`` by their answer to ``g`` (answers computed from the digits)."""
    matrix, digits, counts, pegs = tables[:4]
    out = {}
    for s in codes:
        out.setdefault(_response(matrix, digits, counts, pegs, g, int(s)), []).append(int(s))
    return out


def _branches(pegs):
    """Answers other than "solved" that can occur: (b, w) with b + w <= pegs, less
    "solved" and (pegs - 1, 1)."""
    return sum(1 for b in range(pegs + 1) for w in range(pegs + 1 - b)) - 2 if pegs > 1 else 1


def tally_classes(matrix, src, start, end, steps, guesses, n_guesses, tally, sums):
    n = matrix.shape[0]
    slots = tally.shape[0] // n
    for j, g in enumerate(guesses[:n_guesses]):
        sums[g] = 0
        sizes = {}
        for s in src[start:end]:
            f = int(matrix[g, s])
            sizes[f] = sizes.get(f, 0) + 1
        for f, size in sizes.items():
            tally[j * slots + f] += size
            sums[g] += sum(int(steps[c]) for c in range(size))


def clear_tally(matrix, n_guesses, tally):
    slots = tally.shape[0] // matrix.shape[0]
    tally[:n_guesses * slots] = 0


def answer_masks(matrix, src, start, end, masks):
    for g in range(matrix.shape[0]):
        masks[g] = sum(1 << f for f in {int(matrix[g, s]) for s in src[start:end]})


def gather_answer_masks(matrix, src, start, end, guesses, n_guesses, masks):
    """``masks[g]`` of the listed guesses only, as :func:`answer_masks` sets them."""
    for g in guesses[:n_guesses]:
        masks[g] = sum(1 << f for f in {int(matrix[g, s]) for s in src[start:end]})


def _colour_answer_limit(guess, codes, pegs):
    """``(limit, same_colours)``: at most how many different answers ``guess`` can get
    from ``codes``, from the colours alone (the codes having ``t`` pegs of a common
    colour with it can give at most as many answers as there are answers ``(b, t - b)``
    that can occur), and whether one of ``codes`` has the guess's colours."""
    possible = {}   # t -> the answers (b, w) with b + w = t that can occur
    for b in range(pegs + 1):
        for w in range(pegs + 1 - b):
            if (b, w) != (pegs - 1, 1):
                possible.setdefault(b + w, set()).add((b, w))
    by_sum = {}
    for code in codes:
        t = sum(min(guess.count(c), code.count(c)) for c in set(guess))
        by_sum[t] = by_sum.get(t, 0) + 1
    limit = sum(min(k, len(possible[t])) for t, k in by_sum.items())
    return limit, any(sorted(code) == sorted(guess) for code in codes)


def screen_guesses(tables, src, start, end, need_other, need_member):
    """The guesses (sorted) whose bound on their number of answers from the set, from
    the colours alone, reaches the need: the members answering ``b + w = t`` (the
    pegs of a common colour, counted from the two codes' colours) can give at most as
    many different answers as there are answers ``(b, t - b)``; the need is
    ``need_member`` when a member has the guess's colours, else ``need_other``."""
    digits, pegs = tables[1], tables[3]
    codes = [tuple(int(c) for c in digits[s]) for s in src[start:end]]
    kept = []
    for g in range(len(digits)):
        limit, same_colours = _colour_answer_limit([int(c) for c in digits[g]], codes, pegs)
        if limit >= (need_member if same_colours else need_other):
            kept.append(g)
    return kept


def or_answer_rows(matrix, src, start, end, masks):
    """Bit ``f`` of ``masks[g]`` added for each member answering ``f`` to ``g``."""
    for g in range(matrix.shape[0]):
        masks[g] |= sum(1 << f for f in {int(matrix[g, s]) for s in src[start:end]})


def fast_case(tables, src, start, end, remaining, masks, seen):
    """From the definitions: a member answered differently by every code costs
    2m - 1; any such code 2m; with fewer than three guesses nothing else fits; a
    member leaving one pair and single codes 2m; else at least 2m + 1 (when m fits the
    answer slots, the only case these rules are checked in)."""
    matrix, digits, counts, pegs = tables[:4]
    codes = [int(s) for s in src[start:end]]
    m = len(codes)
    n = len(digits)
    if m > (pegs + 1) ** 2:
        return 0, -1

    def sizes(g):
        return sorted(len(c) for f, c in _classes(tables, g, codes).items())

    for g in codes:
        if len(sizes(g)) == m:
            return 2 * m - 1, g
    for g in range(n):
        if len(sizes(g)) == m:
            return 2 * m, g
    if remaining < 3:
        return INFEASIBLE, -1
    for g in codes:
        if sizes(g) == [1] * (m - 2) + [2]:
            return 2 * m, g
    return 2 * m + 1, -1


def list_candidates(tables, src, start, end, remaining, bound, level, used, search, filters,
                    scratch, masks_ready):
    """``(estimate, guess)`` rows in code order: every code no symmetry filter drops
    (:func:`mark_representatives`; ``filters=None``: none) that divides the set, leaves no class larger than
    ``remaining - 1`` guesses can solve, and has ``m + sum lb(class size)`` (classes
    other than "solved") below ``bound``. Reads only ``tables``, the codes, the
    history's symmetries in ``filters`` and ``used``."""
    matrix, digits, counts, pegs = tables[:4]
    n = len(digits)
    colours = counts.shape[1]
    codes = [int(s) for s in src[start:end]]
    solved = pegs * (pegs + 1)
    b = _branches(pegs)
    lb = lower_bounds(n, b)
    cap = capacities(b, n)
    absent = 0
    for c in range(colours):
        if all(c not in digits[s] for s in codes):
            absent |= 1 << c
    marks = np.ones(n, dtype=np.int8)
    if filters is not None:   # None: no symmetry filter
        mark_representatives(digits, used, colours, filters.group, filters.maps, absent,
                             repeats_allowed(n, pegs, colours), marks)
    rows = []
    for g in range(n):
        classes = _classes(tables, g, codes)
        others = [len(c) for f, c in classes.items() if f != solved]
        if len(classes) <= 1 or max(others) > cap[remaining - 1] or not marks[g]:
            continue
        estimate = len(codes) + sum(int(lb[s]) for s in others)
        if estimate < bound:
            rows.append((estimate, g))
    return rows



def set_bound(tables, src, start, end, cap):
    """``min(cap, least m + sum lb(class size))`` over the guesses that divide the set
    (classes other than "solved"), from the definitions; ``min(lb(m), cap)`` without a
    response matrix or with more than 64 answer slots."""
    matrix, digits, counts, pegs = tables[:4]
    n = len(digits)
    codes = [int(s) for s in src[start:end]]
    solved = pegs * (pegs + 1)
    lb = lower_bounds(n, _branches(pegs))
    if matrix.shape[0] == 0 or (pegs + 1) ** 2 > 64:
        return min(int(lb[len(codes)]), cap)
    best = cap
    for g in range(n):
        classes = _classes(tables, g, codes)
        if len(classes) <= 1:
            continue
        best = min(best, len(codes) + sum(int(lb[len(c)]) for f, c in classes.items()
                                          if f != solved))
    return best


def parts_bounds(m, cap, lb):
    """``{(member, parts): bound}`` for 2 <= parts <= min(m + member, 64): ``m`` plus the
    least ``sum lb(size)`` over every way of putting the ``m - member`` codes other than
    a solved one into ``parts - member`` non-empty classes (all compositions tried),
    clipped at ``cap``; and the fewest parts whose bound is below ``cap`` for a guess that
    is not / is a member (None when there is none)."""
    from functools import lru_cache

    @lru_cache(maxsize=None)
    def least(total, classes):   # least sum lb over `classes` non-empty classes
        if classes == 1:
            return int(lb[total])
        return min(int(lb[first]) + least(total - first, classes - 1)
                   for first in range(1, total - classes + 2))

    table, need = {}, [None, None]
    for member in range(2):
        for parts in range(2, min(m + member, 64) + 1):
            total, classes = m - member, parts - member
            value = m + least(total, classes) if classes <= total else m + total
            table[member, parts] = min(cap, value)
            if table[member, parts] < cap and need[member] is None:
                need[member] = parts
    return table, need[0], need[1]


def colour_bound(tables, src, start, end, cap):
    """From the definitions: every guess ``g`` makes at most ``U(g)`` classes of the set,
    ``U(g)`` the sum over ``t`` of the members whose colours have ``t`` pegs in common with
    ``g``'s, at most as many as the answers ``(b, t - b)`` that can occur; a guess making
    ``p`` classes (one "solved" when it is a member) splits the codes at best as evenly
    as possible, so its estimate is at least that split's ``m + sum lb``; whether ``g``
    is a member is taken as either when a member has ``g``'s colours. The least over
    every guess, clipped at ``cap`` (a guess dividing nothing counts as ``cap``);
    ``min(lb(m), cap)`` without a response matrix or with more than 64 answer slots."""
    matrix, digits, pegs = tables[0], tables[1], tables[3]
    n = len(digits)
    codes = [tuple(int(c) for c in digits[s]) for s in src[start:end]]
    m = len(codes)
    lb = lower_bounds(n, _branches(pegs))
    if matrix.shape[0] == 0 or (pegs + 1) ** 2 > 64:
        return min(int(lb[m]), cap)
    def even_split(member, parts):
        if parts <= 1:
            return cap
        total, classes = m - member, parts - member
        sizes = [total // classes + (1 if i < total % classes else 0) for i in range(classes)]
        return min(cap, m + sum(int(lb[size]) for size in sizes))

    best = cap
    for g in range(n):
        limit, same_colours = _colour_answer_limit([int(c) for c in digits[g]], codes, pegs)
        if same_colours:
            best = min(best, even_split(0, limit), even_split(1, limit))
        else:
            best = min(best, even_split(0, limit))
    return best


CACHE_PROBES = 16


def cache_get(cache, key):
    """Linear probing from ``key mod size``: the entry of the first slot holding
    ``key``, -1 at a free slot (key 0) or after CACHE_PROBES slots."""
    size = len(cache)
    for step in range(CACHE_PROBES):
        slot = (key + step) % size
        if cache[slot][0] == key:
            return int(cache[slot][1])
        if cache[slot][0] == 0:
            return -1
    return -1


def cache_put(cache, key, entry):
    """The first of the CACHE_PROBES slots from ``key mod size`` holding ``key`` or
    free gets ``(key, entry)``; when there is none, slot ``key mod size`` does."""
    size = len(cache)
    for step in range(CACHE_PROBES):
        slot = (key + step) % size
        if cache[slot][0] in (key, 0):
            cache[slot][0], cache[slot][1] = key, entry
            return
    cache[key % size][0], cache[key % size][1] = key, entry


def merge_cache(into, other):
    """Every entry of ``other``, slot by slot, goes into ``into`` unless ``into`` holds
    an exact value (bit 0 set) or, for a lower bound, one at least as large."""
    for key, entry in [(int(k), int(e)) for k, e in other]:
        if key == 0:
            continue
        mine = cache_get(into, key)
        exact, mine_exact = entry & 1, mine & 1
        if mine < 0 or (not exact and not mine_exact and entry > mine) or (
                exact and not mine_exact):
            cache_put(into, key, entry)


def solve(tables, src, start, end, remaining, bound, level, root, used, search):
    """Brute force: every guess at every node, no pruning, no symmetry, exact (reads
    only ``tables``, the codes and ``remaining``)."""
    matrix, digits, counts, pegs = tables[:4]
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


def scan_consistent(pegs, colours, guess_digits, guess_counts, blacks, commons, scored, key,
                    below, limit, out):
    """Every code in increasing value, kept when each earlier guess would get its answer."""
    count, least = 0, 2.0
    for value in range(colours ** pegs):
        code, v = [], value
        for _ in range(pegs):
            code.append(v % colours)
            v //= colours
        code.reverse()
        fits = True
        for i in range(len(blacks)):
            guess = [int(d) for d in guess_digits[i]]
            black = sum(a == b for a, b in zip(guess, code))
            common = sum(min(guess.count(c), code.count(c)) for c in range(colours))
            if black != blacks[i] or common != commons[i]:
                fits = False
                break
        if not fits:
            continue
        if count < len(out):
            out[count] = value
        count += 1
        if scored:
            s = unit_uniform(key, value)
            least = min(least, s)
            if below >= 0.0 and s <= below:
                return count, least, value
        if count >= limit:
            break
    return count, least, -1


def partition_scores(tables, members, guesses, xlogx, lb, tally, out):
    """Each guess's classes of the members (by feedback from the rules), by increasing
    answer: sum of s ln s (table), minus the class count, sum of s squared, the solved
    class's size, sum of lb over the classes other than "solved"."""
    pegs = int(tables.pegs)
    solved = pegs * (pegs + 1)
    for i, g in enumerate(guesses):
        classes = {}
        for s in members:
            f = feedback_digits(tables.digits[g], tables.counts[g], tables.digits[s],
                                tables.counts[s], pegs)
            classes[f] = classes.get(f, 0) + 1
        entropy = 0.0
        for f in sorted(classes):
            entropy += xlogx[classes[f]]
        out[i, 0] = entropy
        out[i, 1] = -len(classes)
        out[i, 2] = sum(size * size for size in classes.values())
        out[i, 3] = classes.get(solved, 0)
        out[i, 4] = sum(int(lb[size]) for f, size in classes.items() if f != solved)
