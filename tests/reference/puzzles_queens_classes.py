"""Reference twins of the n-queens class-search kernels.

``classify`` follows the definition: compare the board (rows as integers) with its
three rotations; a smaller rotation makes it non-canonical, an equal one gives the
class size (2 for a quarter turn, 4 for a half turn), otherwise 8.
"""


def classify(n, board, bound1, bound2, endbit):
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


def _allowed(n, corner, bound1, bound2, sidemask, y, left, down, right):
    free = ((1 << n) - 1) & ~(left | down | right)
    if corner:
        return free & ~2 if y < bound1 else free
    if y < bound1:
        return free & ~sidemask
    if y == bound2:
        if down & sidemask == 0:
            return 0
        if down & sidemask != sidemask:
            return free & sidemask
    return free


def classes_from(n, corner, bound1, bound2, sidemask, lastmask, endbit, y0, left0, down0,
                 right0, board, counts):
    size_e = n - 1
    left0, down0, right0 = int(left0), int(down0), int(right0)

    def search(y, left, down, right):
        free = _allowed(n, corner, bound1, bound2, sidemask, y, left, down, right)
        if y == size_e:
            _count_leaf(n, corner, free, lastmask, board, bound1, bound2, endbit, counts)
            return
        while free:
            bit = free & -free
            free ^= bit
            board[y] = bit
            search(y + 1, (left | bit) << 1, down | bit, (right | bit) >> 1)

    search(y0, left0, down0, right0)


def _run_tasks(n, params, boards, order, out):
    for t in order:
        board = [int(x) for x in boards[t]]
        counts = [0, 0, 0]
        p = [int(x) for x in params[t]]
        classes_from(n, p[0] != 0, *p[1:], board, counts)
        out[t, :] = counts


def _count_leaf(n, corner, free, lastmask, board, bound1, bound2, endbit, counts):
    if free == 0:
        return
    if corner:
        counts[2] += 1
    elif free & lastmask == 0:
        board[n - 1] = free
        c = classify(n, board, bound1, bound2, endbit)
        if c:
            counts[c // 4] += 1
