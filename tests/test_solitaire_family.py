"""The solitaire family (étude, Yukon, Alaska rules) against its plain twin."""
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from jitgames.solitaire import family as F
from jitgames.solitaire import family_bestfirst as FB
from jitgames.solitaire import family_search as FS
from jitgames.solitaire import family_set as FSET
from tests.reference import _random as rnd
from tests.reference import solitaire_family as ref

from .solution_check import check_moves

BUDGET = 3000  # twin positions per case (a count, not a time)
cases = settings(max_examples=30, deadline=None,
                 suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])


@st.composite
def small_positions(draw, most=14):
    """``(piles, foundations)``: a position with at most ``most`` cards off the
    foundations, dealt into seven piles with face-down cards (a reduced deck)."""
    heights = draw(st.lists(st.integers(0, 13), min_size=4, max_size=4))
    while 52 - sum(heights) > most:
        s = heights.index(min(heights))
        heights[s] = min(13, heights[s] + draw(st.integers(1, 13)))
    rest = [c for c in range(52) if c % 13 >= heights[c // 13]]
    rest = draw(st.permutations(rest))
    cuts = sorted(draw(st.lists(st.integers(0, len(rest)), min_size=6, max_size=6)))
    bounds = [0] + cuts + [len(rest)]
    piles = []
    for p in range(7):
        cards = list(rest[bounds[p]:bounds[p + 1]])
        down = draw(st.integers(0, max(len(cards) - 1, 0)))
        piles.append([down, cards])
    return piles, heights


def kernel_position(piles, foundations, rules):
    cards = np.zeros((7, 52), dtype=np.int64)
    for p, (_, c) in enumerate(piles):
        cards[p, :len(c)] = c
    pos = np.zeros(F.POSITION_SIZE, dtype=np.int64)
    F.start_position(cards, np.array([len(c) for _, c in piles], dtype=np.int64),
                     np.array([d for d, _ in piles], dtype=np.int64),
                     np.array(foundations, dtype=np.int64), rules, pos)
    return pos


def game_of(pos):
    return ([list(pile) for pile in F.piles_of(pos)],
            [int(h) for h in pos[F.FOUNDATION:F.FOUNDATION + 4]])


def meaning(pos):
    """Every word of ``pos`` that means something (not the stale words above a pile's
    top or the undo log's end)."""
    return (F.piles_of(pos), pos[F.LENGTH:F.LOG].tolist(),
            pos[F.LOG:F.LOG + pos[F.LOG_LENGTH]].tolist())


def twin_move(pos, move):
    card, dest = move // 8, move % 8
    if dest == F.TO_FOUNDATION:
        return card, "F"
    n = int(pos[F.LENGTH + dest])
    return (card, "empty") if n == 0 else (card, int(pos[F.PILES + dest * F.PILE_STRIDE + n - 1]))


def kernel_moves(pos):
    out = np.zeros(F.MAX_MOVES, dtype=np.int64)
    return [int(m) for m in out[:F.legal_moves(pos, out, 0)]]


def kernel_score(pos, node_limit=10**9, goal=52):
    """``(score, status, positions, upper)`` of :func:`best_score` from ``pos``."""
    scratch = FS.FamilyScratch.new(1 << 14)
    return FS.best_score(pos, scratch.slots, scratch.meta, scratch.stack, scratch.moves,
                         scratch.line, node_limit, goal)


@pytest.mark.kernel
@cases
@given(small_positions(), st.sampled_from(range(3)), st.booleans())
def test_optimal_score_matches_the_twin(position, rules, bounded):
    """The exact score (and the proven upper bound, equal to it) is the twin's, with
    the goal 52 or the bound (the goal search then decides whether the bound is met)."""
    from jitgames.solitaire.family_bound import bound_of

    piles, foundations = position
    expected = ref.optimal_score(ref.RULES[rules], piles, foundations, budget=BUDGET)
    assume(expected is not None)
    pos = kernel_position(piles, foundations, rules)
    before = meaning(pos)
    assert game_of(pos) == tuple(ref_normalised(rules, piles, foundations))
    score, status, _, upper = kernel_score(pos, goal=bound_of(pos) if bounded else 52)
    assert (score, status, upper) == (expected, FS.EXACT, expected)
    assert meaning(pos) == before


def ref_normalised(rules, piles, foundations):
    piles = [[d, list(c)] for d, c in piles]
    foundations = list(foundations)
    ref.normalise(ref.RULES[rules], piles, foundations)
    return piles, foundations


@pytest.mark.kernel
@cases
@given(small_positions(most=20), st.sampled_from(range(3)), st.lists(st.integers(0, 31), max_size=25))
def test_build_key_is_the_twins_key_of_the_child(position, rules, choices):
    """Along random play: the position's key is the twin's, and :func:`build_key` of
    every legal build is the twin's key of the position it leads to, or ``(-1, -1)``
    exactly when the twin's move ends with a card played home."""
    piles, foundations = position
    name = ref.RULES[rules]
    pos = kernel_position(piles, foundations, rules)
    for choice in choices:
        game = game_of(pos)
        assert ref.family_key(name, piles, *game) == tuple(int(k) for k in pos[F.KEY:F.KEY + 2])
        legal = kernel_moves(pos)
        before = pos.copy()
        slots = np.zeros(16 * FSET.SLOT_WORDS, dtype=np.int64)
        FSET._prefetch_children(pos, slots, np.array(legal + [0], dtype=np.int64), 0, len(legal))
        assert np.array_equal(pos, before) and not slots.any()   # a cache hint changes nothing
        for move in legal:
            if move % 8 == F.TO_FOUNDATION:
                continue
            child = ref.play(name, *game, twin_move(pos, move))
            expected = (-1, -1) if child[1] != game[1] else ref.family_key(name, piles, *child)
            assert tuple(int(k) for k in F.build_key(pos, move)) == expected
        if not legal:
            break
        F.apply_move(pos, legal[choice % len(legal)])


keys = st.tuples(st.one_of(st.integers(0, 3), st.integers(0, (1 << 60) - 1)),
                 st.one_of(st.integers(0, 3), st.integers(0, (1 << 60) - 1)))


@pytest.mark.kernel
@cases
@given(st.lists(keys, max_size=40), st.lists(keys, max_size=20))
def test_contains_key_is_membership_of_the_inserted_keys(inserted, others):
    """:func:`contains_key` answers as a Python set of the keys inserted this epoch does,
    and a new epoch holds none."""
    slots = np.zeros(64 * FSET.SLOT_WORDS, dtype=np.int64)
    meta = np.zeros(FSET.META_SIZE, dtype=np.int64)
    FSET.new_deal(meta)
    for key in inserted:
        FSET.insert_key(slots, meta, *key)
    for key in inserted + others:
        assert bool(FSET.contains_key(slots, meta, *key)) == (key in set(inserted))
        assert FSET._first_slot(slots, *key) == rnd.mix64(key[0] ^ rnd.mix64(key[1])) % 64
    FSET.new_deal(meta)
    assert not any(FSET.contains_key(slots, meta, *key) for key in inserted)


@pytest.mark.kernel
@cases
@given(small_positions(most=20), st.sampled_from(range(3)), st.lists(st.integers(0, 31), max_size=25))
def test_moves_apply_and_undo_match_the_twin(position, rules, choices):
    """Along random play: the legal moves are the twin's (one per distinct result),
    each move gives the twin's position, the keys name positions exactly, and undo
    restores every word."""
    piles, foundations = position
    pos = kernel_position(piles, foundations, rules)
    history = []
    names = {}
    for choice in choices:
        game = game_of(pos)
        names.setdefault(tuple(pos[F.KEY:F.KEY + 2]), ref.key(*game))
        assert names[tuple(pos[F.KEY:F.KEY + 2])] == ref.key(*game)
        legal = kernel_moves(pos)
        assert {twin_move(pos, m) for m in legal} == ref.moves(ref.RULES[rules], *game)
        assert len(legal) == len({twin_move(pos, m) for m in legal})
        if not legal:
            break
        move = legal[choice % len(legal)]
        expected = ref.play(ref.RULES[rules], *game, twin_move(pos, move))
        history.append(meaning(pos))
        F.apply_move(pos, move)
        assert ref.key(*game_of(pos)) == ref.key(*expected)
    while history:
        F.undo_move(pos)
        assert meaning(pos) == history.pop()


@pytest.mark.kernel
@cases
@given(small_positions(most=16), st.sampled_from(range(3)), st.sampled_from([0, 1, 3]),
       st.sampled_from([-1, 0, 52]))
def test_probe_finds_a_legal_line_below_the_twins_score(position, rules, slack, target):
    """A probe (a search that allows at most ``slack`` moves in a row without
    progress, pruned by the bound or not: ``target``) reaches at most the twin's optimal
    score, by a line of moves the twin finds legal, that ends at the probe's score and
    never makes more than ``slack`` moves in a row without progress by the twin's
    measure; ``pos`` is restored."""
    piles, foundations = position
    expected = ref.optimal_score(ref.RULES[rules], piles, foundations, budget=BUDGET)
    assume(expected is not None)
    pos = kernel_position(piles, foundations, rules)
    before = meaning(pos)
    s = FS.FamilyScratch.new(1 << 14)
    best, _, positions = FS._search(pos, s.slots, s.meta, s.stack, s.moves, s.line, 10**9,
                                    52, slack, int(pos[F.SCORE]), target)
    assert meaning(pos) == before and positions >= 1
    assert best <= expected
    game, streak = ref_normalised(rules, piles, foundations), 0
    for move in s.line[1:1 + s.line[0]]:
        step = twin_move(pos, int(move))
        assert step in ref.moves(ref.RULES[rules], *game)
        after = ref.play(ref.RULES[rules], *game, step)
        streak = 0 if ref.makes_progress(ref.progress(*game), ref.progress(*after)) else streak + 1
        assert streak <= slack
        F.apply_move(pos, int(move))
        game = after
        assert ref.key(*game_of(pos)) == ref.key(*game)
    assert sum(game[1]) == best


@pytest.mark.kernel
@cases
@given(small_positions(most=16), st.sampled_from(range(3)), st.sampled_from([3, 40, 10**6]),
       st.sampled_from(["bound", 52]),
       st.one_of(st.none(), st.lists(st.integers(-5, 5), min_size=4, max_size=4)))
def test_best_first_probe_is_the_twins(position, rules, node_limit, goal, weights):
    """The best-first probe gives the twin's best score, status, position count and
    line exactly (the search's weights or any others); the line is legal move by move
    under the twin's rules and ends at the probe's score, which is at most the twin's
    optimal score; a probe that saw everything without reaching ``goal`` proves the
    optimum below it; ``pos`` is restored."""
    piles, foundations = position
    name = ref.RULES[rules]
    expected = ref.optimal_score(name, piles, foundations, budget=BUDGET)
    assume(expected is not None)
    game = ref_normalised(rules, piles, foundations)
    goal = ref.score_bound(name, *game) if goal == "bound" else goal
    pos = kernel_position(piles, foundations, rules)
    start_score = int(pos[F.SCORE])
    assume(start_score < goal)
    weights = FS.BEST_FIRST_WEIGHTS if weights is None else np.array(weights, dtype=np.int64)
    before = meaning(pos)
    s = FS.FamilyScratch.new(1 << 14)
    best, status, positions = FB.best_first(pos, s.slots, s.meta, s.moves, s.line, node_limit,
                                            goal, start_score, weights)
    assert meaning(pos) == before
    twin = ref.best_first(name, piles, *game, node_limit, goal, start_score, [int(w) for w in weights])
    assert (best, ("exact", "undecided")[status], positions) == twin[:3]
    assert best <= expected
    if status == FB.EXACT and best < goal:
        assert expected < goal
    line = []
    for move in s.line[1:1 + s.line[0]]:
        step = twin_move(pos, int(move))
        assert step in ref.moves(name, *game)
        game = ref.play(name, *game, step)
        F.apply_move(pos, int(move))
        assert ref.key(*game_of(pos)) == ref.key(*game)
        line.append(step)
    assert line == twin[3]
    assert sum(game[1]) == best


@pytest.mark.kernel
@settings(cases, max_examples=10)
@given(st.permutations(range(52)), st.sampled_from(range(3)), st.sampled_from([60, 300]))
def test_best_first_probe_is_the_twins_on_dealt_decks(deck, rules, node_limit):
    """From a dealt deck (goal: the root bound) the best-first probe with the search's
    weights gives the twin's best score, status, position count and line exactly."""
    from jitgames.solitaire.family_bound import bound_of

    name = ref.RULES[rules]
    pos = F.new_position(np.array(deck), rules)
    start = [[p, list(deck[p * (p + 1) // 2: p * (p + 1) // 2 + p + 1])] for p in range(7)]
    for p in range(1, 7):
        start[p][1].extend(deck[28 + 4 * (p - 1): 28 + 4 * p])
    goal = bound_of(pos)
    assume(int(pos[F.SCORE]) < goal)
    s = FS.FamilyScratch.new(1 << 12)
    got = FB.best_first(pos, s.slots, s.meta, s.moves, s.line, node_limit, goal, int(pos[F.SCORE]),
                        FS.BEST_FIRST_WEIGHTS)
    twin = ref.best_first(name, start, *ref.deal(deck, name), node_limit, goal, int(pos[F.SCORE]),
                          [int(w) for w in FS.BEST_FIRST_WEIGHTS])
    assert (got[0], ("exact", "undecided")[got[1]], got[2]) == twin[:3]
    line = []
    for move in s.line[1:1 + s.line[0]]:
        line.append(twin_move(pos, int(move)))
        F.apply_move(pos, int(move))
    assert line == twin[3] and int(pos[F.SCORE]) == got[0]


@pytest.mark.kernel
@pytest.mark.parametrize("capacity", [16, 64, 256])
def test_best_first_probe_stops_when_the_set_is_full(capacity):
    """With a set smaller than the node limit the probe stops undecided when the set is
    full (its records sized by the set, not by the limit), with a legal line to its score."""
    from jitgames.solitaire import deals
    from jitgames.solitaire.family_bound import bound_of

    deck = deals(2026, 1, 2)[0]
    pos = F.new_position(deck, F.YUKON)
    before = meaning(pos)
    s = FS.FamilyScratch.new(capacity)
    best, status, positions = FB.best_first(pos, s.slots, s.meta, s.moves, s.line, 10**9, bound_of(pos),
                                            int(pos[F.SCORE]), FS.BEST_FIRST_WEIGHTS)
    assert meaning(pos) == before
    assert status == FB.UNDECIDED and positions == 3 * capacity // 4
    game = ref.deal([int(c) for c in deck], "yukon")
    for move in s.line[1:1 + s.line[0]]:
        step = twin_move(pos, int(move))
        assert step in ref.moves("yukon", *game)
        game = ref.play("yukon", *game, step)
        F.apply_move(pos, int(move))
    assert sum(game[1]) == best


@pytest.mark.kernel
@settings(cases, max_examples=15)
@given(st.permutations(range(52)), st.sampled_from(range(3)))
def test_deal_and_limits(deck, rules):
    """A dealt position is the twin's deal; a search cut by its node limit is
    undecided, its score a lower bound and its proven upper bound an upper bound of
    the exact one."""
    from jitgames.solitaire.family_bound import bound_of

    pos = F.new_position(np.array(deck), rules)
    assert ref.key(*game_of(pos)) == ref.key(*ref.deal(deck, ref.RULES[rules]))
    goal = bound_of(pos)
    exact, exact_status, all_positions, _ = kernel_score(pos, node_limit=3000, goal=goal)
    assume(exact_status == FS.EXACT)
    score, status, positions, upper = kernel_score(pos, node_limit=50, goal=goal)
    assert score <= exact <= upper <= goal
    if status == FS.EXACT:
        assert score == exact == upper
    if all_positions > 51 and exact < 52:
        assert status == FS.UNDECIDED


@pytest.mark.kernel
def test_solve_family_rows_is_best_score_from_the_deal():
    """The per-deal rows kernel gives, for each deal, the search from its dealt position
    with the bound as goal (score, status, positions, line length, opening moves)."""
    from jitgames.solitaire import deals
    from jitgames.solitaire.family_bound import bound_of

    decks = deals(5, 0, 3)
    for rules in range(3):
        rows = FS.solve_family_rows(decks, rules, node_limit=300,
                                    scratch=FS.FamilyScratch.new(1 << 10))
        for deck, row in zip(decks, rows):
            pos = F.new_position(deck, rules)
            scratch = FS.FamilyScratch.new(1 << 10)
            expected = FS.best_score(pos, scratch.slots, scratch.meta, scratch.stack,
                                     scratch.moves, scratch.line, 300,
                                     bound_of(pos))
            assert row.tolist() == [*expected[:3], scratch.line[0], len(kernel_moves(pos)),
                                    expected[3]]
            # the line to that score, written out, passes the independent checker
            check_moves(deck, rules, scratch.line[1:1 + scratch.line[0]], expected[0])


def test_etude_rules_give_the_etude_solvers_scores():
    """The family search under the étude's rules agrees with the étude's own solver
    (another algorithm: memoised values on a DAG) on 300 deals."""
    from jitgames.solitaire import deals, solve_deals

    decks = deals(2026, 0, 300)
    rows = FS.solve_family_rows(decks, F.ETUDE, node_limit=10**7)
    assert (rows[:, 1] == FS.EXACT).all()
    assert np.array_equal(rows[:, 0], solve_deals(decks, score_only=True).score)


def test_the_line_found_reaches_the_score():
    """The line recorded by the search, replayed from the deal, ends with the score;
    written as a solution of deal INDEX of seed 7, the checker accepts it."""
    from jitgames.solitaire import deals

    for rules in (F.YUKON, F.ALASKA):
        decks = deals(7, 0, 20)
        rows = FS.solve_family_rows(decks, rules, node_limit=20_000)
        for index, (deck, row) in enumerate(zip(decks, rows)):
            line = FS.optimal_line_moves(deck, rules, node_limit=20_000)
            pos = F.new_position(deck, rules)
            for move in line:
                assert move in kernel_moves(pos)
                F.apply_move(pos, move)
            assert pos[F.SCORE] == row[0] and len(line) == row[3]
            check_moves(deck, rules, line, row[0], seed=7, index=index)


@pytest.mark.kernel
@cases
@given(small_positions(most=20), st.sampled_from(range(3)))
def test_score_bound_matches_its_twin_and_bounds_the_score(position, rules):
    from jitgames.solitaire.family_bound import bound_at_least, bound_of

    piles, foundations = ref_normalised(rules, *position)
    pos = kernel_position(piles, foundations, rules)
    bound = bound_of(pos)
    assert bound == ref.score_bound(ref.RULES[rules], piles, foundations)
    for need in {0, bound - 1, bound, bound + 1, (bound + 1) // 2, 53}:
        # stopped early at need cards: at least need exactly when the bound is,
        # and the bound itself below need
        got = bound_at_least(pos, need)
        assert (got >= need) == (bound >= need) and got <= bound
        assert got >= need or got == bound
    score = ref.optimal_score(ref.RULES[rules], piles, foundations, budget=BUDGET)
    if score is not None:
        assert score <= bound
