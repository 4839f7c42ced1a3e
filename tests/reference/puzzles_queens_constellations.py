"""Reference twins of the constellation counter, written from the rules of the puzzle.

A solution is a tuple ``sol`` with ``sol[r]`` the column of row r's queen. Nothing
here imports the library: the border queens, the board symmetries and the counts are
worked out from the definitions, slowly.
"""


def _attacks(p, q):
    return p[0] == q[0] or p[1] == q[1] or abs(p[0] - q[0]) == abs(p[1] - q[1])


def solutions(n):
    """Every solution, by plain recursive backtracking over rows."""
    found = []
    cols = []

    def place(r):
        if r == n:
            found.append(tuple(cols))
            return
        for x in range(n):
            if all(not _attacks((r, x), (i, y)) for i, y in enumerate(cols)):
                cols.append(x)
                place(r + 1)
                cols.pop()

    place(0)
    return found


def border_queens(sol):
    """(a, b, c, d): columns of the row-0 and row-(n-1) queens, rows of the queens in
    column 0 and column n-1."""
    n = len(sol)
    return sol[0], sol[n - 1], sol.index(0), sol.index(n - 1)


def symmetries(n):
    """The 8 maps of squares (r, x) of the n x n board onto itself."""
    m = n - 1
    return [lambda r, x: (r, x), lambda r, x: (x, m - r), lambda r, x: (m - r, m - x),
            lambda r, x: (m - x, r), lambda r, x: (r, m - x), lambda r, x: (m - r, x),
            lambda r, x: (x, r), lambda r, x: (m - x, m - r)]


def squares(n, abcd):
    a, b, c, d = abcd
    return frozenset({(0, a), (n - 1, b), (c, 0), (d, n - 1)})


def border_placements(n):
    """Every set of border queens: one queen in each of row 0, row n-1, column 0 and
    column n-1 (a corner queen serves two), no two attacking each other."""
    found = set()
    m = n - 1
    border = [(r, x) for r in range(n) for x in range(n) if r in (0, m) or x in (0, m)]
    for a in range(n):
        for b in range(n):
            for c in range(n):
                for d in range(n):
                    sq = squares(n, (a, b, c, d))
                    lines = [[p for p in sq if p[0] == 0], [p for p in sq if p[0] == m],
                             [p for p in sq if p[1] == 0], [p for p in sq if p[1] == m]]
                    if any(len(line) != 1 for line in lines):
                        continue
                    if all(p in border for p in sq) and not any(
                            _attacks(p, q) for p in sq for q in sq if p != q):
                        found.add(sq)
    return found


def orbits(n):
    """The orbits of :func:`border_placements` under the symmetries, as frozensets."""
    out = set()
    for sq in border_placements(n):
        out.add(frozenset(frozenset(f(r, x) for r, x in sq) for f in symmetries(n)))
    return out


def turned(sol, quarter):
    """The solution turned by a quarter turn (square (r, x) to (x, n-1-r)) or a half."""
    n = len(sol)
    out = [0] * n
    for r, x in enumerate(sol):
        rr, xx = (x, n - 1 - r) if quarter else (n - 1 - r, n - 1 - x)
        out[rr] = xx
    return tuple(out)


def census_of_constellation(n, abcd, prefix=(), sols=None):
    """(count, half, quarter): solutions whose border queens are ``abcd`` and whose
    queens in the rows of ``prefix`` (pairs (row, column)) stand there, and how many of
    them the half and the quarter turn leave unchanged. ``sols``: :func:`solutions` of
    n, if already at hand."""
    count = half = quarter = 0
    for sol in solutions(n) if sols is None else sols:
        if border_queens(sol) != tuple(abcd) or any(sol[r] != x for r, x in prefix):
            continue
        count += 1
        half += turned(sol, False) == sol
        quarter += turned(sol, True) == sol
    return count, half, quarter


def complete_task(fixed, shift, m, start, cols, ld, rd, stop):
    """Twin of the kernel: completions by recursion over the free rows, with the same
    masks (``fixed[k]`` blocks squares of free row k, bits above the board included)."""
    fixed = [int(f) for f in fixed]
    shift = [int(s) for s in shift]

    def rec(k, cols, ld, rd):
        if k == m:
            return 1
        blocked = cols | ld | rd | fixed[k]  # fixed[k] < 0: every bit above the board
        total = 0
        for x in range(64):
            bit = 1 << x
            if blocked & bit:
                continue
            if k + 1 == m:
                total += 1
                continue
            s = shift[k]
            total += rec(k + 1, cols | bit, (ld | bit) << s, (rd | bit) >> s)
        return total

    return rec(int(start), int(cols), int(ld), int(rd))


def complete_task_symmetric(n, fixed, shift, m, rows, border, out, stop):
    """Twin: the completions of the border queens ``border`` (column by row, -1 where
    none) over the free rows ``rows[:m]``, by the rules, with their invariances."""
    board = [int(x) for x in border]
    free_rows = [int(r) for r in rows[:m]]

    def rec(i):
        if i == len(free_rows):
            sol = tuple(board)
            out[0] += 1
            out[1] += turned(sol, False) == sol
            out[2] += turned(sol, True) == sol
            return
        r = free_rows[i]
        for x in range(n):
            if all(not _attacks((r, x), (q, y)) for q, y in enumerate(board) if y >= 0):
                board[r] = x
                rec(i + 1)
                board[r] = -1

    rec(0)
    return True
