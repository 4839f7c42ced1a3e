"""Reference twins of the n-queens class-search kernels, written from the rules.

Rules. A solution places one queen per row, ``cols[r]`` its column, no two queens
sharing a column or a diagonal. The 8 symmetries of the square act on solutions;
a solution's class size is the number of its distinct images (2, 4 or 8). The
class search counts each class once, at the member whose columns, read row by
row, are lexicographically smallest among its images; a task fixes the first rows
(``board[r]`` is the bit ``1 << cols[r]`` of row r's queen), and its counts
(C2, C4, C8) are those of the canonical solutions that begin with those rows.
Nothing of the library's search (bounds, side masks, leaf tests) is used: the
task's other parameters are ignored.
"""


def _solutions_from(n, prefix):
    """Every solution whose first rows are ``prefix``, by plain backtracking."""
    cols = []

    def free(row, c):
        return all(c != q and abs(c - q) != row - r for r, q in enumerate(cols))

    for row, c in enumerate(prefix):
        if not free(row, c):
            return []
        cols.append(c)
    found = []

    def place(row):
        if row == n:
            found.append(tuple(cols))
            return
        for c in range(n):
            if free(row, c):
                cols.append(c)
                place(row + 1)
                cols.pop()

    place(len(prefix))
    return found


def _images(sol):
    """The 8 images of a solution: quarter turns (r, c) -> (c, n-1-r), and mirrors."""
    n = len(sol)
    out = []
    cells = list(enumerate(sol))
    for turns in range(4):
        for mirror in (False, True):
            board = [0] * n
            for r, c in cells:
                if mirror:
                    c = n - 1 - c
                for _ in range(turns):
                    r, c = c, n - 1 - r
                board[r] = c
            out.append(tuple(board))
    return out


def classes_from(n, corner, bound1, bound2, sidemask, lastmask, endbit, y0, left0, down0,
                 right0, board, counts):
    """Add to ``counts`` (C2, C4, C8) the canonical solutions starting ``board[:y0]``."""
    prefix = [int(board[r]).bit_length() - 1 for r in range(y0)]
    for sol in _solutions_from(n, prefix):
        images = _images(sol)
        if sol == min(images):
            counts[{2: 0, 4: 1, 8: 2}[len(set(images))]] += 1


def _run_tasks(n, params, boards, order, out):
    for t in order:
        counts = [0, 0, 0]
        p = [int(x) for x in params[t]]
        classes_from(n, p[0] != 0, *p[1:], [int(x) for x in boards[t]], counts)
        out[t, :] = counts


def classify(n, board, bound1, bound2, endbit):
    """Class size of a board reached by the search, by its definition there: compare
    the rows (as integers) with those of the three rotations; a smaller rotation
    makes the board non-canonical (0), an equal one gives the class size (2 for a
    quarter turn, 4 for a half turn), otherwise 8. (Reflections are excluded by the
    search before a board gets here.)"""
    size_e = n - 1
    cols = [int(board[r]).bit_length() - 1 for r in range(n)]
    row_of = {c: r for r, c in enumerate(cols)}
    r90 = [1 << (size_e - row_of[r]) for r in range(n)]
    r180 = [1 << (size_e - cols[size_e - r]) for r in range(n)]
    r270 = [1 << row_of[size_e - r] for r in range(n)]
    rows = [int(b) for b in board]
    for image, size in ((r90, 2), (r180, 4), (r270, 8)):
        if image < rows:
            return 0
        if image == rows:
            return size
    return 8
