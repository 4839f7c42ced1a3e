"""Slow, obvious twins of the solitaire kernels (same names and signatures).

The game is re-implemented on plain Python lists: a position is a list of seven
piles ``[face_down_count, [cards bottom to top]]`` and four foundation heights. The
search is a plain recursive depth-first search over every move sequence, memoised in
a dict keyed by the full position with the piles sorted (so pile order does not
matter). It gives up (returns None) after ``budget`` distinct positions, a count,
not a time, so tests can discard the few deals too big for plain Python.
"""
from __future__ import annotations

import numpy as np

from jitgames.solitaire import rules as R
from tests.reference import _random as rnd

MASK64 = (1 << 64) - 1


# ----------------------------------------------------------------------------- dealing

def fisher_yates_deck(key, deck):
    cards = list(range(52))
    counter = 0
    for i in range(51, 0, -1):
        j, counter = rnd.below(int(key), counter, i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    deck[:] = cards


def naive_deck(key, deck):
    cards = list(range(52))
    counter = 0
    for i in range(52):
        j, counter = rnd.below(int(key), counter, 52)
        cards[i], cards[j] = cards[j], cards[i]
    deck[:] = cards


def deal_range(seed, start, naive, out):
    for k in range(out.shape[0]):
        key = rnd.stream_key(int(seed), int(start) + k)
        (naive_deck if naive else fisher_yates_deck)(key, out[k])


def position_counts(seed, n, naive, counts):
    deck = np.zeros(52, dtype=np.int64)
    for i in range(n):
        key = rnd.stream_key(int(seed), i)
        (naive_deck if naive else fisher_yates_deck)(key, deck)
        for position, card in enumerate(deck):
            counts[card, position] += 1


# ----------------------------------------------------------------------------- the game on lists

def deal_game(deck):
    """``(piles, foundations)`` right after dealing ``deck`` and playing foundations."""
    deck = [int(c) for c in deck]
    piles = []
    used = 0
    for p in range(7):
        piles.append([p, deck[used:used + p + 1]])
        used += p + 1
    for p in range(1, 7):
        piles[p][1].extend(deck[28 + 4 * (p - 1): 28 + 4 * p])
    foundations = [0, 0, 0, 0]
    play_foundations(piles, foundations)
    return piles, foundations


def play_foundations(piles, foundations):
    """Play every exposed card that fits, turning up freed cards, until none fits."""
    progress = True
    while progress:
        progress = False
        for pile in piles:
            cards = pile[1]
            if cards and cards[-1] % 13 == foundations[cards[-1] // 13]:
                foundations[cards.pop() // 13] += 1
                pile[0] = min(pile[0], max(len(cards) - 1, 0))
                progress = True


def game_moves(piles):
    """Every legal move as ``(card, destination pile)``: try every face-up card on every pile."""
    moves = []
    for a, (down, cards) in enumerate(piles):
        for i in range(down, len(cards)):
            card = cards[i]
            for b, (_, target) in enumerate(piles):
                if b == a:
                    continue
                if not target:
                    if card % 13 == 12 and i > 0:
                        moves.append((card, b))
                elif card % 13 != 12 and target[-1] == card + 1:
                    moves.append((card, b))
    # a king into any empty pile gives the same position: keep the first empty pile
    seen, unique = set(), []
    for card, b in moves:
        if card % 13 == 12 and not piles[b][1]:
            if card in seen:
                continue
            seen.add(card)
        unique.append((card, b))
    return unique


def game_apply(piles, foundations, card, b):
    """New ``(piles, foundations)`` after moving ``card`` and its cover to pile ``b``."""
    piles = [[down, list(cards)] for down, cards in piles]
    foundations = list(foundations)
    for a, (down, cards) in enumerate(piles):
        if card in cards:
            i = cards.index(card)
            run = cards[i:]
            del cards[i:]
            piles[b][1].extend(run)
            piles[a][0] = min(down, max(len(cards) - 1, 0))
            break
    play_foundations(piles, foundations)
    return piles, foundations


def canonical(piles, foundations):
    return tuple(sorted((down, tuple(cards)) for down, cards in piles if cards)), tuple(foundations)


def reference_solve(deck, score_only=False, budget=20_000):
    """``(score, moves, decisions)`` of a deal by plain DFS; None past ``budget`` positions.

    Same definitions as :mod:`jitgames.solitaire.search`: the best score, then the
    fewest moves to reach it, then the fewest decision points on the way.
    """
    piles, foundations = deal_game(deck)
    return _solve_game(piles, foundations, score_only, budget)


def _solve_game(piles, foundations, score_only, budget):
    memo = {}

    def value(piles, foundations):
        key = canonical(piles, foundations)
        if key in memo:
            return memo[key]
        if len(memo) >= budget:
            raise _TooBig
        here = sum(foundations)
        best = (here, 0, 0)
        moves = game_moves(piles)
        for card, b in moves:
            s, m, d = value(*game_apply(piles, foundations, card, b))
            candidate = (s, 0, 0) if score_only else (s, m + 1, d + (len(moves) > 1))
            if (candidate[0], -candidate[1], -candidate[2]) > (best[0], -best[1], -best[2]):
                best = candidate
        memo[key] = best
        return best

    try:
        return value(piles, foundations)
    except _TooBig:
        return None


class _TooBig(Exception):
    pass


# ----------------------------------------------------------------------------- twins on arrays

def game_of(pos):
    """``(piles, foundations)`` of a kernel position array."""
    piles = [[int(pos[R.DOWN + p]),
              [int(c) for c in pos[R.PILES + p * R.PILE_STRIDE: R.PILES + p * R.PILE_STRIDE
                                   + pos[R.LENGTH + p]]]] for p in range(7)]
    return piles, [int(pos[R.FOUNDATION + s]) for s in range(4)]


def position_meaning(pos):
    """What a kernel position array means, as a comparable array: each pile's cards
    (not the slots above its length) and every other word but the undo log, with
    the heights of pile cards only."""
    piles, _ = game_of(pos)
    flat = [c for _, cards in piles for c in cards + [-1]]
    height = np.where(pos[R.WHERE:R.WHERE + 52] >= 0, pos[R.HEIGHT:R.HEIGHT + 52], -1)
    rest = np.concatenate([pos[R.LENGTH:R.HEIGHT], height, pos[R.MOVED:R.LOG_LENGTH]])
    return np.array(flat + rest.tolist(), dtype=np.int64)


def _write_game(pos, piles, foundations, moved):
    """Write a list game into ``pos`` (everything but the undo log)."""
    log_length = int(pos[R.LOG_LENGTH])
    log = pos[R.LOG:].copy()
    pos[:] = 0
    for p, (down, cards) in enumerate(piles):
        pos[R.LENGTH + p] = len(cards)
        pos[R.DOWN + p] = down
        for i, card in enumerate(cards):
            pos[R.PILES + p * R.PILE_STRIDE + i] = card
            pos[R.WHERE + card] = p
            pos[R.HEIGHT + card] = i
    for s in range(4):
        pos[R.FOUNDATION + s] = foundations[s]
        for r in range(foundations[s]):
            pos[R.WHERE + 13 * s + r] = R.ON_FOUNDATION
    pos[R.MOVED:R.MOVED + 52] = moved
    pos[R.SCORE] = sum(foundations)
    pos[R.KEY] = position_key(pos)
    pos[R.LOG_LENGTH] = log_length
    pos[R.LOG:] = log


def position_key(pos):
    key = 0
    for suit in range(4):
        height = int(pos[R.FOUNDATION + suit])
        key |= 1 << (14 * suit + 13 - height)
        for rank in range(height + 1, 14):
            if pos[R.MOVED + suit * 13 + rank - 1]:
                key |= 1 << (14 * suit + 13 - rank)
    return key


def deal_position(deck, pos):
    pos[:] = 0
    piles, foundations = deal_game(deck)
    _write_game(pos, piles, foundations, np.zeros(52, dtype=np.int64))


def card_status(pos, card):
    piles, _ = game_of(pos)
    for down, cards in piles:
        if card in cards:
            i = cards.index(card)
            return R.FACE_DOWN if i < down else (R.EXPOSED if i == len(cards) - 1 else R.FACE_UP)
    return R.FOUNDATION_STATUS


def legal_moves(pos, out, start):
    moves = [card * 8 + b for card, b in game_moves(game_of(pos)[0])]
    out[start:start + len(moves)] = moves
    return len(moves)


_HISTORY: dict[int, list[np.ndarray]] = {}


def apply_move(pos, move):
    _HISTORY.setdefault(id(pos), []).append(pos.copy())
    piles, foundations = game_of(pos)
    card, b = int(move) // 8, int(move) % 8
    moved = pos[R.MOVED:R.MOVED + 52].copy()
    moved[card] = 1
    piles, foundations = game_apply(piles, foundations, card, b)
    _write_game(pos, piles, foundations, moved)


def undo_move(pos):
    pos[:] = _HISTORY[id(pos)].pop()


def stop_value(score):
    return (int(score) << 12) | (63 << 6) | 63


def unpack_value(value):
    return int(value) >> 12, 63 - ((int(value) >> 6) & 63), 63 - (int(value) & 63)


def solve_position(pos, slots, meta, stack, moves, score_only, eviction_limit, goal):
    """Packed value of ``pos`` by :func:`reference_solve`'s DFS (no table, so no
    eviction limit).

    Like the kernel, a position that can reach ``goal`` cards (an upper bound of its
    score) gets the value of ``goal`` cards with no line figures (:func:`solve_line`
    computes those). Returns ``(value, None)``: the reference does not count positions
    the same way.
    """
    piles, foundations = game_of(pos)
    s, m, d = _solve_game(piles, foundations, score_only, 10 ** 9)
    assert s <= goal
    if score_only or s == goal:
        return stop_value(s), None
    return (s << 12) | ((63 - m) << 6) | (63 - d), None


def solve_line(pos, slots, meta, stack, moves, eviction_limit, targets, goal):
    """``(moves, decisions, None)`` of the best line from ``pos`` that puts the ``goal``
    cards of ``targets`` (a superset of what any line can put there) on the foundations."""
    piles, foundations = game_of(pos)
    s, m, d = _solve_game(piles, foundations, False, 10 ** 9)
    assert card_count(targets) == goal
    return (m, d, None) if s == goal else (-1, -1, None)


def _foundation_moves_first(pos, moves, start, n):
    """Moves after which the score rises first, each group in its original order."""
    def plays(move):
        before = int(pos[R.SCORE])
        apply_move(pos, move)
        after = int(pos[R.SCORE])
        undo_move(pos)
        return after > before

    chunk = [int(m) for m in moves[start:start + n]]
    moves[start:start + n] = [m for m in chunk if plays(m)] + [m for m in chunk if not plays(m)]


def solve_decks(decks, score_only, slots, meta, positions, stacks, moves, max_capacity, out):
    """Rows ``score, moves, decisions`` and ``opening_moves`` (column 9) of each deck
    (the table's columns left alone)."""
    for d, deck in enumerate(decks):
        s, m, dec = reference_solve(deck, score_only, budget=10 ** 9)
        out[d, 0] = s
        out[d, 1] = -1 if score_only else m
        out[d, 2] = -1 if score_only else dec
        out[d, 9] = len(game_moves(deal_game(deck)[0]))


def larger_table(capacity, max_capacity):
    """``(slots, meta, capacity)``: an empty table 4 times larger (at most ``max_capacity``
    slots), two words a slot, 8 words of statistics."""
    capacity = capacity * 4 if capacity * 4 < max_capacity else max_capacity
    return [0] * (2 * capacity), [0] * 8, capacity


# ----------------------------------------------------------------------------- position table
# A slot is two words: tag = key | epoch << 56, info = value | last_use << 18 | hits << 42.

BUCKET = 4


def _signed(x):
    return x - (1 << 64) if x >= 1 << 63 else x


def table_new_deal(slots, meta):
    meta[0] += 1
    if meta[0] >= 256:
        slots[:] = 0
        meta[0] = 1
    meta[1] = 0
    meta[2] = 0


def _bucket(slots, key):
    buckets = slots.shape[0] // (2 * BUCKET)
    first = (rnd.mix64(int(key)) % buckets) * BUCKET
    return [(first + j) * 2 for j in range(BUCKET)]


def _unpack(info):
    info = int(info)
    return info & ((1 << 18) - 1), (info >> 18) & ((1 << 24) - 1), info >> 42


def _pack(value, last, hits):
    return value | (min(last, (1 << 24) - 1) << 18) | (min(hits, (1 << 21) - 1) << 42)


def _tick(meta):
    now = int(meta[1])
    meta[1] += 1
    return now


def table_lookup(slots, meta, key):
    tag = int(key) | (int(meta[0]) << 56)
    meta[4] += 1
    for w in _bucket(slots, key):
        meta[5] += 1
        if int(slots[w]) & MASK64 == tag:
            value, _, hits = _unpack(slots[w + 1])
            slots[w + 1] = _pack(value, _tick(meta), hits + 1)
            return value
    return -1


def table_store(slots, meta, key, value):
    tag = int(key) | (int(meta[0]) << 56)
    words = _bucket(slots, key)
    meta[7] += 1
    for w in words:
        if int(slots[w]) & MASK64 == tag:
            _, last, hits = _unpack(slots[w + 1])
            slots[w + 1] = _pack(value, last, hits)
            return
    free = [w for w in words if (int(slots[w]) & MASK64) >> 56 != meta[0]]
    if free:
        w = free[0]
        meta[2] += 1
        meta[3] = max(meta[3], meta[2])
    else:
        w = min(words, key=lambda w: (_unpack(slots[w + 1])[2], _unpack(slots[w + 1])[1]))
        meta[6] += 1
    slots[w] = _signed(tag)
    slots[w + 1] = _pack(value, _tick(meta), 0)


# ----------------------------------------------------------------------------- win bound

UNREACHABLE = 1 << 20


def moves_to_win(piles, foundations, budget=20_000):
    """Fewest moves from a list game to 52 cards, UNREACHABLE, or None past ``budget``."""
    result = _solve_game(piles, foundations, False, budget)
    if result is None:
        return None
    score, moves, _ = result
    return moves if score == 52 else UNREACHABLE


def moves_bound(pos, targets, goal):
    """Least cuts, pile by pile, between each target card and every card above it that
    must leave first (a higher target of its suit, or a card that is not a target):
    a face-down card there must move itself; other intervals are cut at face-up cards
    not yet moved."""
    if pos[R.SCORE] >= goal:
        return 0
    piles, _ = game_of(pos)
    total = 0
    for down, cards in piles:
        def must_leave(i, j):
            z, x = cards[i], cards[j]
            return targets >> z & 1 and _must_leave(targets, x, z)

        intervals = sorted(((i, j) for j in range(len(cards)) for i in range(j) if must_leave(i, j)),
                           key=lambda iv: iv[1])
        face_down_tops = {j for i, j in intervals if j < down}
        cuts = []
        for i, j in intervals:
            if j < down:
                continue
            allowed = [k for k in range(max(i + 1, down), j + 1) if not pos[R.MOVED + cards[k]]]
            if any(k in allowed for k in cuts):
                continue
            if not allowed:
                return UNREACHABLE
            cuts.append(max(allowed))
        total += len(cuts) + len(face_down_tops)
    return max(total, 1)


def reachable_cards(pos):
    """Every card that may still reach the foundations, as a mask: the events "exposed",
    "moved", "played" marked from their conditions until nothing changes (a king moves
    only once some pile can be empty; a card whose successor shares its pile only once
    a card that would part them can move)."""
    piles, foundations = game_of(pos)
    played = {13 * s + r for s in range(4) for r in range(foundations[s])}
    on = {}        # card -> the card directly on it
    face_up = set()
    for down, cards in piles:
        for i, card in enumerate(cards):
            if i + 1 < len(cards):
                on[card] = cards[i + 1]
            if i >= down:
                face_up.add(card)
    in_piles = [c for _, cards in piles for c in cards]
    height = {c: i for _, cards in piles for i, c in enumerate(cards)}
    exposed = {cards[-1] for _, cards in piles if cards}
    moved = set()
    pile = {c: p for p, (_, cards) in enumerate(piles) for c in cards}

    def apart(c):
        """c and c + 1 are in different piles, or a card that would part them may move."""
        if pile.get(c + 1) != pile[c]:
            return True
        cards = piles[pile[c]][1]
        low, high = sorted((height[c], height[c + 1]))
        between = cards[low + 1:high] if height[c + 1] < height[c] else cards[low + 1:high + 1]
        return any(k in moved for k in between)

    while True:
        size = len(exposed) + len(moved) + len(played)
        empty = any(not cards or cards[0] in moved or cards[0] in played for _, cards in piles)
        for c in in_piles:
            if c in on and (on[c] in moved or on[c] in played):
                exposed.add(c)
            if not pos[R.MOVED + c] and (c in face_up or c in exposed):
                if c % 13 == 12:
                    can = height[c] > 0 and empty
                else:
                    can = c + 1 in exposed and apart(c)
                if can:
                    moved.add(c)
            if c in exposed and (c % 13 == 0 or c - 1 in played):
                played.add(c)
        if len(exposed) + len(moved) + len(played) == size:
            return sum(1 << c for c in played)


def card_count(cards):
    return bin(cards).count("1")


def _must_leave(targets, x, below):
    """Card ``x`` lying above the target ``below`` must leave first: it is not a target,
    or it is a higher card of the same suit (its foundation needs ``below`` first)."""
    return (not (targets >> x) & 1) or (x // 13 == below // 13 and x % 13 > below % 13)
