"""Slow, obvious twin of the solitaire family's kernels, written from the rules alone.

A position is a list of seven piles ``[face_down_count, [cards bottom to top]]`` and
four foundation heights; card ``c`` is suit ``c // 13`` (♠ ♥ ♦ ♣: ♠ and ♣ black),
rank ``c % 13 + 1``. The rule sets:

- etude: a card goes on the card of its suit one rank higher;
- yukon: on a card of the other colour one rank higher;
- alaska: on a card of its suit one rank higher or one rank lower;

in all three any face-up card moves with the cards on it, only a king (with its
cover) goes into an empty pile, a freed face-down card turns up, and an exposed card
of the next rank of its suit's foundation may be played there. A card that fits is
played at once when no card that could ever be put on it is still off the
foundations. The optimal score is found by a plain breadth-first search over every
reachable position (piles sorted, so their order does not matter) with a set of the
positions seen; it gives up (None) past ``budget`` positions.
"""
from __future__ import annotations

RULES = ("etude", "yukon", "alaska")


def colour(card):
    return "black" if card // 13 in (0, 3) else "red"


def may_go_on(rules, card, under):
    """May ``card`` be put on ``under`` under ``rules``?"""
    if rules == "etude":
        return under // 13 == card // 13 and under % 13 == card % 13 + 1
    if rules == "yukon":
        return colour(under) != colour(card) and under % 13 == card % 13 + 1
    return under // 13 == card // 13 and abs(under % 13 - card % 13) == 1


def fits(card, foundations):
    return card % 13 == foundations[card // 13]


def on_foundation(card, foundations):
    return card % 13 < foundations[card // 13]


def safe(rules, card, foundations):
    if not fits(card, foundations):
        return False
    return all(on_foundation(other, foundations)
               for other in range(52) if may_go_on(rules, other, card))


def normalise(rules, piles, foundations):
    """Turn up freed cards and make the safe plays, until nothing changes (in place)."""
    changed = True
    while changed:
        changed = False
        for pile in piles:
            if pile[1] and pile[0] >= len(pile[1]):
                pile[0] = len(pile[1]) - 1
                changed = True
            if pile[1] and safe(rules, pile[1][-1], foundations):
                foundations[pile[1][-1] // 13] += 1
                pile[1].pop()
                changed = True


def deal(deck, rules):
    """``(piles, foundations)`` right after dealing ``deck`` (docs/design.md)."""
    deck = [int(c) for c in deck]
    piles = [[p, deck[p * (p + 1) // 2: p * (p + 1) // 2 + p + 1]] for p in range(7)]
    for p in range(1, 7):
        piles[p][1].extend(deck[28 + 4 * (p - 1): 28 + 4 * p])
    foundations = [0, 0, 0, 0]
    normalise(rules, piles, foundations)
    return piles, foundations


def moves(rules, piles, foundations):
    """The distinct moves: ``(card, "F")``, ``(card, under)`` or ``(card, "empty")``."""
    found = set()
    for p, (down, cards) in enumerate(piles):
        if cards and fits(cards[-1], foundations):
            found.add((cards[-1], "F"))
        for i in range(down, len(cards)):
            card = cards[i]
            for q, (_, other) in enumerate(piles):
                if q == p:
                    continue
                if not other:
                    if card % 13 == 12 and i > 0:
                        found.add((card, "empty"))
                elif may_go_on(rules, card, other[-1]):
                    found.add((card, other[-1]))
    return found


def play(rules, piles, foundations, move):
    """The position after ``move`` (new lists)."""
    piles = [[d, list(c)] for d, c in piles]
    foundations = list(foundations)
    card, target = move
    p = next(i for i, (_, c) in enumerate(piles) if card in c)
    cards = piles[p][1]
    run = cards[cards.index(card):]
    del cards[cards.index(card):]
    if target == "F":
        foundations[card // 13] += 1
    elif target == "empty":
        next(pile for pile in piles if not pile[1])[1].extend(run)
    else:
        next(pile for pile in piles if pile[1] and pile[1][-1] == target)[1].extend(run)
    normalise(rules, piles, foundations)
    return piles, foundations


def key(piles, foundations):
    return tuple(sorted((d, tuple(c)) for d, c in piles)), tuple(foundations)


def optimal_score(rules, piles, foundations, budget=20_000):
    """The most foundation cards over every reachable position, or None past ``budget``
    (the breadth-first search of :func:`shortest_line_length`)."""
    found = shortest_line_length(rules, piles, foundations, budget)
    return None if found is None else found[0]


def places(rules, card):
    """The cards ``card`` may be put on."""
    return [under for under in range(52) if may_go_on(rules, card, under)]


def family_key(rules, start, piles, foundations):
    """The family search's exact key, two ints, of ``piles`` and ``foundations`` reached
    from the start position ``start`` (the piles as given to the kernel, before the
    safe plays; a face-down count at least the pile's length means all but its top).

    Written from the key's definition (jitgames.solitaire.family): word ``w`` holds
    suits ``2w`` and ``2w + 1``: each height in 4 bits from bit 52, and a 2-bit code for
    each card ``26w + i`` off the foundations at bit ``2i``: 0 when the card lies on the
    card it lay on at the start and either that card was face up then or it is still
    face down (the card never moved), or when it lay at the bottom of a pile at the
    start and lies at the bottom now; 1 when it lies in a pile it was moved into while
    empty; 2 or 3 when it lies on the first or second card it may go on
    (:func:`key_places`).
    """
    first = {}
    for down, cards in start:
        down = min(down, max(len(cards) - 1, 0))
        for h, card in enumerate(cards):
            first[card] = (cards[h - 1] if h else None, h - 1 >= down)
    words = [0, 0]
    for suit in range(4):
        words[suit // 2] += foundations[suit] << (52 + 4 * (suit % 2))
    for down, cards in piles:
        for h, card in enumerate(cards):
            under = cards[h - 1] if h else None
            under_then, face_up_then = first[card]
            if under is None:
                code = 0 if under_then is None else 1
            elif under == under_then and (face_up_then or h - 1 < down):
                code = 0
            else:
                code = 2 + key_places(rules, card).index(under)
            words[card // 26] += code << (2 * (card % 26))
    return tuple(words)


def key_places(rules, card):
    """The cards ``card`` may go on, in the key's order: under yukon the card of the
    lower-numbered suit first; under etude and alaska the card of its suit one rank
    higher, then the one one rank lower (None where that one is not a place: a king
    has no higher card, an ace no lower, and the etude takes no lower card)."""
    if rules == "yukon":
        return sorted(places(rules, card))
    return [c if 0 <= card % 13 + d <= 12 and may_go_on(rules, card, c) else None
            for d, c in ((1, card + 1), (-1, card - 1))]


def score_bound(rules, piles, foundations):
    """Cards that may ever go home (jitgames.solitaire.family_bound's definition),
    grown to a fixed point: may be exposed, may lead, may go home, may a pile be empty."""
    where = {}
    for p, (down, cards) in enumerate(piles):
        for h, card in enumerate(cards):
            where[card] = (p, h, h >= down, h == len(cards) - 1)
    home = {c for c in range(52) if c not in where}
    exposed = set(home) | {c for c, (_, _, _, top) in where.items() if top}
    leads = set()
    empty = any(not cards for _, cards in piles)
    changed = True
    while changed:
        changed = False
        for card, (p, h, up, _) in where.items():
            if card not in home and card in exposed and (card % 13 == 0 or card - 1 in home):
                home.add(card)
                changed = True
            if card not in leads and (up or card in exposed) and (
                    card in home or card % 13 == 12 and empty or any(
                        under in exposed and under in where for under in places(rules, card))):
                leads.add(card)
                changed = True
            if card in leads and h > 0 and piles[p][1][h - 1] not in exposed:
                exposed.add(piles[p][1][h - 1])
                changed = True
            if not empty and h == 0 and (card in home or card in leads and card % 13 != 12):
                empty = True
                changed = True
    return len(home)


def progress(piles, foundations):
    """``(score, face-down cards, empty piles)``: a move makes progress when it raises
    the score or the empty piles or turns a card up (the family search's probes allow
    only a few moves in a row that do none of these)."""
    return sum(foundations), sum(d for d, _ in piles), sum(1 for _, c in piles if not c)


def makes_progress(before, after):
    return after[0] > before[0] or after[1] < before[1] or after[2] > before[2]


def shortest_line_length(rules, piles, foundations, budget=20_000):
    """``(optimal score, fewest player moves to reach it)``, or None past ``budget``.

    A player move is one of :func:`moves` (the safe plays after it come with it, as in
    :func:`play`). A plain breadth-first search over every reachable position (piles
    sorted), level by level: level ``d`` holds the positions first reached in ``d``
    moves, so the first level holding a position with the optimal score (the most
    foundation cards of any level) is the length of a shortest line to it.
    """
    piles = [[d, list(c)] for d, c in piles]
    foundations = list(foundations)
    normalise(rules, piles, foundations)
    seen = {key(piles, foundations)}
    frontier = [(piles, foundations)]
    best, first, level = sum(foundations), 0, 0
    while frontier:
        following = []
        for piles, foundations in frontier:
            if sum(foundations) > best:
                best, first = sum(foundations), level
            for move in moves(rules, piles, foundations):
                child = play(rules, piles, foundations, move)
                k = key(*child)
                if k not in seen:
                    seen.add(k)
                    if len(seen) > budget:
                        return None
                    following.append(child)
        frontier = following
        level += 1
    return best, first


def ordered_moves(rules, piles, foundations):
    """The legal moves in the kernels' order (jitgames.solitaire.family.legal_moves):
    foundation plays by pile; then for each pile's exposed card the face-up cards of
    other piles that may go on it, lowest card first; then each face-up king not at the
    bottom of its pile into an empty pile, by suit, when a pile is empty."""
    where = {card: (p, h) for p, (_, cards) in enumerate(piles) for h, card in enumerate(cards)}
    found = [(cards[-1], "F") for _, cards in piles if cards and fits(cards[-1], foundations)]
    for p, (_, cards) in enumerate(piles):
        if not cards:
            continue
        for card in sorted(c for c in range(52) if may_go_on(rules, c, cards[-1])):
            if card in where:
                q, h = where[card]
                if q != p and h >= piles[q][0]:
                    found.append((card, cards[-1]))
    if any(not cards for _, cards in piles):
        for king in (12, 25, 38, 51):
            if king in where:
                q, h = where[king]
                if h > 0 and h >= piles[q][0]:
                    found.append((king, "empty"))
    return found


def best_first_features(piles, foundations):
    """``(cards home, face-down cards, empty piles, cards on the next card of each
    suit)`` (jitgames.solitaire.family_bestfirst.features)."""
    blocking = 0
    for suit in range(4):
        if foundations[suit] < 13:
            card = 13 * suit + foundations[suit]
            cards = next(c for _, c in piles if card in c)
            blocking += len(cards) - 1 - cards.index(card)
    return (sum(foundations), sum(d for d, _ in piles), sum(1 for _, c in piles if not c), blocking)


def best_first(rules, start, piles, foundations, node_limit, goal, best, weights, max_depth=1024):
    """``(best, status, positions, line)`` of the best-first win search
    (jitgames.solitaire.family_bestfirst.best_first), from the normalised position
    ``piles, foundations`` reached from the start position ``start`` (for the keys).

    Positions are told apart by :func:`family_key`; each new one counts; a new one below
    ``goal`` whose :func:`score_bound` is below ``goal`` is dropped; the others get a
    record number in the order they are met and are expanded highest priority (weights
    times :func:`best_first_features`) first, the later record first among equals,
    their moves in :func:`ordered_moves`' order. ``status`` "exact" when ``goal`` was
    reached or nothing is left to expand, "undecided" past ``node_limit`` positions or
    at a line of ``max_depth`` moves; ``line`` the moves to the first position met with
    the final ``best`` (empty when none beat the given ``best``).
    """
    import heapq

    def priority(p, f):
        return sum(w * x for w, x in zip(weights, best_first_features(p, f)))

    seen = {family_key(rules, start, piles, foundations)}
    positions = 1
    records = [(piles, foundations, [])]
    queue = [(-priority(piles, foundations), 0)]
    line = []
    while queue:
        _, later = heapq.heappop(queue)
        here, home, path = records[-later]
        for move in ordered_moves(rules, here, home):
            after, after_home = play(rules, here, home, move)
            k = family_key(rules, start, after, after_home)
            if k in seen:
                continue
            seen.add(k)
            positions += 1
            if sum(after_home) < goal and score_bound(rules, after, after_home) < goal:
                continue
            records.append((after, after_home, path + [move]))
            if sum(after_home) > best:
                best, line = sum(after_home), path + [move]
                if best >= goal:
                    return best, "exact", positions, line
            if positions > node_limit or len(path) + 1 >= max_depth:
                return best, "undecided", positions, line
            heapq.heappush(queue, (-priority(after, after_home), -(len(records) - 1)))
    return best, "exact", positions, line
