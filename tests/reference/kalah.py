"""Slow, obviously-correct twins of the Kalah kernels (same names and signatures).

Boards are read into Python lists; sowing follows an explicit list of the pits in
sowing order. Values follow the conventions of the kernels' modules.
"""
import numpy as np

from tests.reference._random import below

SOUTH, NORTH = 0, 1
EMPTY_CAPTURE, STANDARD = 0, 1
INF = 1 << 40


def pits_per_side(board):
    return (len(board) - 2) // 2


def store_of(m, player):
    return m if player == SOUTH else 2 * m + 1


def own_pits(m, player):
    return list(range(0, m)) if player == SOUTH else list(range(m + 1, 2 * m + 1))


def side_stones(board, player):
    return sum(int(board[i]) for i in own_pits(pits_per_side(board), player))


def is_over(board):
    return side_stones(board, SOUTH) == 0 or side_stones(board, NORTH) == 0


def final_margin(board):
    m = pits_per_side(board)
    return (int(board[m]) + side_stones(board, SOUTH)) - (int(board[2 * m + 1]) + side_stones(board, NORTH))


def legal_moves(board, player, out):
    if is_over(board):
        return 0
    moves = [i for i in own_pits(pits_per_side(board), player) if board[i] > 0]
    out[:len(moves)] = moves
    return len(moves)


def _cycle(m, player):
    """Pits in sowing order for ``player`` (the opponent's store left out)."""
    skip = store_of(m, 1 - player)
    return [i for i in range(2 * m + 2) if i != skip]


def sow(board, pit, stones, skip, delta):
    order = [i for i in range(len(board)) if i != skip]
    at = order.index(pit) if pit in order else None
    path = [order[(at + k) % len(order)] for k in range(1, stones + 1)]
    for i in path:
        board[i] += delta
    return path[-1] if path else pit


def apply_move(board, player, pit, variant):
    m = pits_per_side(board)
    cycle = _cycle(m, player)
    stones = int(board[pit])
    board[pit] = 0
    at = cycle.index(pit)
    for _ in range(stones):
        at = (at + 1) % len(cycle)
        board[cycle[at]] += 1
    last = cycle[at]
    if stones and last == store_of(m, player):
        return player, pit | (stones << 8)
    captured = 0
    if last in own_pits(m, player) and board[last] == 1:
        opposite = 2 * m - last
        if variant == EMPTY_CAPTURE or board[opposite] > 0:
            captured = int(board[opposite]) + 1
            board[store_of(m, player)] += captured
            board[opposite] = 0
            board[last] = 0
    return 1 - player, pit | (stones << 8) | (captured << 16)


def undo_move(board, player, record):
    m = pits_per_side(board)
    pit, stones, captured = record & 0xFF, (record >> 8) & 0xFF, (record >> 16) & 0xFF
    cycle = _cycle(m, player)
    path = [cycle[(cycle.index(pit) + k) % len(cycle)] for k in range(1, stones + 1)]
    if captured:
        last = path[-1]
        board[store_of(m, player)] -= captured
        board[2 * m - last] = captured - 1
        board[last] = 1
    for i in path:
        board[i] -= 1
    board[pit] = stones


def perft_undo(board, player, depth, variant, scratch):
    if depth == 0 or is_over(board):
        return 1
    total = 0
    for pit in [i for i in own_pits(pits_per_side(board), player) if board[i] > 0]:
        child = board.copy()
        nxt, _ = apply_move(child, player, pit, variant)
        total += perft_undo(child, nxt, depth - 1, variant, scratch)
    return total


perft_copy = perft_undo


def evaluate(board, weights):
    m = pits_per_side(board)
    margin = final_margin(board)
    if is_over(board) and len(weights) == len(board) + 1 and weights[-1] == 1 and margin:
        # the win rule: the winner takes all, more than any unfinished position scores
        score = max(abs(int(w)) for w in weights[:len(board)]) * sum(int(v) for v in board) + 1
        return score if margin > 0 else -score
    if is_over(board):
        final = [0] * len(board)
        final[m] = int(board[m]) + side_stones(board, SOUTH)
        final[2 * m + 1] = int(board[2 * m + 1]) + side_stones(board, NORTH)
        return sum(int(w) * v for w, v in zip(weights, final))
    return sum(int(w) * int(v) for w, v in zip(weights, board))


def _children(board, player, variant):
    out = []
    if is_over(board):
        return out
    for pit in [i for i in own_pits(pits_per_side(board), player) if board[i] > 0]:
        child = board.copy()
        nxt, _ = apply_move(child, player, pit, variant)
        out.append((pit, child, nxt))
    return out


def minimax(board, player, depth, weights, variant, scratch, nodes):
    nodes[0] += 1
    if depth == 0 or is_over(board):
        return evaluate(board, weights)
    values = [minimax(c, nxt, depth - 1, weights, variant, scratch, nodes)
              for _, c, nxt in _children(board, player, variant)]
    return max(values) if player == SOUTH else min(values)


def order_moves(board, player, moves, n, weights, variant, keys):
    scored = []
    for i in range(n):
        child = board.copy()
        apply_move(child, player, int(moves[i]), variant)
        value = evaluate(child, weights)
        scored.append((value if player == SOUTH else -value, int(moves[i])))
    scored = sorted(enumerate(scored), key=lambda t: (-t[1][0], t[0]))
    for i, (_, (key, move)) in enumerate(scored):
        moves[i], keys[i] = move, key


def alphabeta(board, player, depth, alpha, beta, weights, variant, ordering, scratch, keys, nodes):
    nodes[0] += 1
    if depth == 0 or is_over(board):
        return evaluate(board, weights)
    moves = np.zeros(pits_per_side(board), dtype=np.int64)
    n = legal_moves(board, player, moves)
    if ordering and depth > 1:
        order_moves(board, player, moves, n, weights, variant, np.zeros(n, dtype=np.int64))
    best = -INF if player == SOUTH else INF
    for pit in moves[:n]:
        child = board.copy()
        nxt, _ = apply_move(child, player, int(pit), variant)
        value = alphabeta(child, nxt, depth - 1, alpha, beta, weights, variant, ordering,
                          scratch, keys, nodes)
        if player == SOUTH:
            best = max(best, value)
            alpha = max(alpha, best)
        else:
            best = min(best, value)
            beta = min(beta, best)
        if alpha >= beta:
            break
    return best


def choose_move(board, player, depth, weights, variant, method, ordering, randomize, key,
                counter, nodes):
    """Minimax over root moves, ties by lowest pit or a uniform draw among them."""
    children = _children(board, player, variant)
    if not children:
        return -1, evaluate(board, weights), counter
    values = {pit: minimax(c, nxt, depth - 1, weights, variant, None, [0])
              for pit, c, nxt in children}
    best = max(values.values()) if player == SOUTH else min(values.values())
    ties = sorted(p for p, v in values.items() if v == best)
    if randomize and len(ties) > 1:
        pick, counter = below(int(key), counter, len(ties))
        return ties[pick], best, counter
    return ties[0], best, counter


# ----- endgame database and solver -------------------------------------------------

def relative_pit(m, player, j):
    mine = own_pits(m, player)
    theirs = own_pits(m, 1 - player)
    return (mine + theirs)[j]


def position_index(board, player, binom):
    """Rank of the pit tuple among all tuples of 2m values with sum <= its sum,
    by counting: tuples with a smaller total, then the stars-and-bars rank."""
    from math import comb
    m = pits_per_side(board)
    a = [int(board[relative_pit(m, player, j)]) for j in range(2 * m)]
    k, s = len(a), sum(a)
    smaller = sum(comb(t + k - 1, k - 1) for t in range(s))
    bars = [sum(a[:j + 1]) + j for j in range(k - 1)]
    return smaller + sum(comb(p, j + 1) for j, p in enumerate(bars))


def set_position(board, player, stones, rank, binom):
    """Search all distributions of ``stones`` for the one of index offset + rank."""
    import itertools
    from math import comb
    m = pits_per_side(board)
    k = 2 * m
    target = comb(stones + k - 1, k) + rank
    for a in itertools.product(range(stones + 1), repeat=k):
        if sum(a) != stones:
            continue
        trial = board.copy()
        for j in range(k):
            trial[relative_pit(m, player, j)] = a[j]
        if position_index(trial, player, binom) == target:
            board[:] = trial
            return


def pits_value(board, player, variant):
    """Exact mover-relative value of the pits (plain negamax, no memo, no pruning)."""
    m = pits_per_side(board)
    own, other = side_stones(board, player), side_stones(board, 1 - player)
    if own == 0 or other == 0:
        return own - other
    best = None
    store = store_of(m, player)
    for pit, child, nxt in _children(board, player, variant):
        gain = int(child[store]) - int(board[store])
        v = pits_value(child, nxt, variant)
        v = gain + v if nxt == player else gain - v
        best = v if best is None else max(best, v)
    return best


def endgame_value(board, player, variant, db, binom, scratch, ply):
    return pits_value(board, player, variant)


def position_key(board, player, zobrist):
    m = pits_per_side(board)
    key = 0
    for j in range(2 * m):
        key ^= int(zobrist[j, board[relative_pit(m, player, j)]])
    return key


# ----- tournament ------------------------------------------------------------------

def random_opening(board, plies, variant, key):
    """``plies`` uniformly random legal plies in place, South first; the player to move."""
    player, counter = SOUTH, 0
    moves = np.zeros(pits_per_side(board), dtype=np.int64)
    for _ in range(plies):
        n = legal_moves(board, player, moves)
        if n == 0:
            break
        pick, counter = below(int(key), counter, n)
        player, _ = apply_move(board, player, int(moves[pick]), variant)
    return player


def play_games(openings, first, south, north, weights, depths, variant, margins):
    """Each game played out by the twin's ``choose_move`` (lowest pit among equals)."""
    for g in range(len(openings)):
        board = openings[g].copy()
        player = int(first[g])
        while not is_over(board):
            who = int(south[g] if player == SOUTH else north[g])
            move, _, _ = choose_move(board, player, int(depths[who]), weights[who], variant,
                                     0, False, False, 0, 0, None)
            player, _ = apply_move(board, player, move, variant)
        margins[g] = final_margin(board)
