"""Reference twins of the n-queens kernels, plus a brute force over permutations."""
from itertools import permutations


def count_bitmask_recursive(full, cols, left, right):
    if cols == full:
        return 1
    total = 0
    for c in range(full.bit_length()):
        bit = 1 << c
        if not (cols | left | right) & bit:
            total += count_bitmask_recursive(full, cols | bit, ((left | bit) << 1) & full,
                                             (right | bit) >> 1)
    return total


def count_completions(full, cols, left, right):
    return count_bitmask_recursive(full, cols, left, right)


def count_invariant_from(n, quarter, row, rows, col_used, diag_used, anti_used):
    """Brute force: permutations completing ``rows`` that are solutions invariant
    under the turn (the other arguments are implied by ``rows``)."""
    fixed = {r: int(c) for r, c in enumerate(rows) if c >= 0}
    free_rows = [r for r in range(n) if r not in fixed]
    free_cols = [c for c in range(n) if c not in fixed.values()]
    total = 0
    for perm in permutations(free_cols):
        cols = dict(fixed)
        cols.update(zip(free_rows, perm))
        sol = tuple(cols[r] for r in range(n))
        if is_solution(sol) and turn(sol, quarter) == sol:
            total += 1
    return total


def is_solution(cols):
    n = len(cols)
    return len(set(cols)) == n and all(abs(cols[i] - cols[j]) != j - i
                                       for i in range(n) for j in range(i + 1, n))


def turn(sol, quarter):
    n = len(sol)
    out = [0] * n
    for r, c in enumerate(sol):
        rr, cc = (c, n - 1 - r) if quarter else (n - 1 - r, n - 1 - c)
        out[rr] = cc
    return tuple(out)


def all_solutions(n):
    """Every solution, by filtering all n! permutations."""
    return [p for p in permutations(range(n)) if is_solution(p)]


def images(sol):
    n = len(sol)
    out = []
    cur = tuple(sol)
    for _ in range(4):
        out.append(cur)
        out.append(tuple(n - 1 - c for c in cur))
        cur = turn(cur, True)
    return out


def unique_count(n):
    return len({min(images(s)) for s in all_solutions(n)})


def _count_tasks(full, task_cols, task_left, task_right, order, out):
    for t in order:
        out[t] = count_completions(int(full), int(task_cols[t]), int(task_left[t]),
                                   int(task_right[t]))


def _orbit_step(n, quarter, r, c):
    return (c, n - 1 - r) if quarter else (n - 1 - r, n - 1 - c)


def fill_solutions(n, out):
    """Every solution (lexicographic, as permutations come) into ``out`` while room."""
    sols = all_solutions(n)
    for i, sol in enumerate(sols[:out.shape[0]]):
        out[i, :] = sol
    return len(sols)
