"""Slow twins of :mod:`jitgames.mastermind.worst_kernels`, written from the rules.

A set is solved within d guesses when d >= 1 and it holds one code, or d >= 2 and some
guess leaves classes (the answer "all black" aside) each solved within d - 1. Same
names, signatures and candidate orders as the kernels; scratch arguments are ignored,
and so is ``most`` (the kernels' shortcut for sets too large), so the twins also
check that the shortcut changes nothing."""


def _classes(matrix, codes, guess, solved):
    out = {}
    for s in codes:
        f = int(matrix[guess, s])
        if f != solved:
            out.setdefault(f, []).append(int(s))
    return out


def screen_guesses(matrix, members, n, marks, solved, limit, out_guess, out_largest,
                   out_parts, sizes):
    kept = 0
    codes = [int(s) for s in members[:n]]
    for g in range(len(marks)):
        if not marks[g]:
            continue
        answers = [int(matrix[g, s]) for s in codes]
        largest = max([answers.count(f) for f in set(answers) if f != solved] + [0])
        if largest <= limit:
            out_guess[kept], out_largest[kept] = g, largest
            out_parts[kept] = len(set(answers))
            kept += 1
    return kept


def split_classes(matrix, members, start, end, guess, starts, out):
    codes = [int(s) for s in members[start:end]]
    t = start
    for f in range(len(starts) - 1):
        starts[f] = t
        for s in codes:
            if matrix[guess, s] == f:
                out[t] = s
                t += 1
    starts[len(starts) - 1] = t


def classes_by_answer(table, row, items, start, end, base):
    """The twin of ``_count_answers`` then ``_place_by_answer``: ``(starts, out)``
    with the items grouped by answer in their order, from ``base`` on."""
    slots = 256  # answers are bytes
    groups = {}
    for t in range(start, end):
        groups.setdefault(int(table[row, items[t]]), []).append(int(items[t]))
    starts, out, at = [], [], base
    for f in range(slots):
        starts.append(at)
        out += groups.get(f, [])
        at += len(groups.get(f, []))
    starts.append(at)
    return starts, out


def largest_unchecked(sizes, checked, solved):
    """The twin of ``_largest_unchecked`` on class sizes: the answer of the largest
    class of more than two codes not in ``checked`` (the smaller answer on a tie),
    or -1."""
    best = -1
    for f, size in enumerate(sizes):
        if f != solved and f not in checked and size > 2 and (
                best < 0 or size > sizes[best]):
            best = f
    return best


def _told_apart(matrix, codes, guess, solved):
    answers = [int(matrix[guess, s]) for s in codes if s != guess]
    return solved not in answers and len(set(answers)) == len(answers)


def two_guess_witness(matrix, members, start, end, solved, most, seen):
    codes = [int(s) for s in members[start:end]]
    for g in codes + list(range(matrix.shape[0])):
        if _told_apart(matrix, codes, g, solved):
            return g
    return -1


def _within(matrix, codes, guesses, solved, memo=None):
    """The rule itself, by exhaustive recursion over every guess (memoised)."""
    if len(codes) <= 1:
        return guesses >= len(codes)
    if guesses <= 1:
        return False
    memo = {} if memo is None else memo
    key = (tuple(codes), guesses)
    if key not in memo:
        memo[key] = any(all(_within(matrix, part, guesses - 1, solved, memo)
                            for part in _classes(matrix, codes, g, solved).values())
                        for g in range(matrix.shape[0]))
    return memo[key]


def answer_rows(matrix, members, start, end, rows, parts):
    codes = [int(s) for s in members[start:end]]
    widest = 0
    for h in range(matrix.shape[0]):
        row = [int(matrix[h, s]) for s in codes]
        rows[h, :len(row)] = row
        parts[h] = len(set(row))
        widest = max(widest, int(parts[h]))
    return widest


def rows_by_width(parts, widest, out):
    out[:] = sorted(range(len(parts)), key=lambda h: (-int(parts[h]), h))


def three_guess_witness(matrix, members, start, end, marks, solved, most, starts, fill,
                        order, seen):
    codes = [int(s) for s in members[start:end]]
    ranked = []
    for g in range(len(marks)):
        if marks[g]:
            answers = [int(matrix[g, s]) for s in codes]
            largest = max([answers.count(f) for f in set(answers) if f != solved] + [0])
            ranked.append((largest, -len(set(answers)), g))
    for _, _, g in sorted(ranked):
        if all(_within(matrix, part, 2, solved)
               for part in _classes(matrix, codes, g, solved).values()):
            return g
    return -1


def least_worst_case(matrix, codes, solved):
    """The least d within which the set ``codes`` is solved (exhaustive, no symmetry)."""
    d = 0
    while not _within(matrix, [int(s) for s in codes], d, solved):
        d += 1
    return d
