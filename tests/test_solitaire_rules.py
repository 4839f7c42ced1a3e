"""Rules kernels of the solitaire against their reference twins."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jitgames._random import stream_key
from jitgames.solitaire import deal as D
from jitgames.solitaire import rules as R
from jitgames.solitaire.bound import (FACE_DOWN_STATES, PILE_STATES, bound_after_move,
                                      moves_bound, record_face_down_states, record_pile_states)
from jitgames.solitaire.reach import ALL_CARDS, card_count, reachable_cards
from tests.reference import solitaire as ref
from tests.reference.solitaire_strategies import any_deals

seeds = st.integers(0, 2**63 - 1)
indices = st.integers(0, 2**40)


state_part = ref.position_meaning


@pytest.mark.kernel
@given(seeds, indices)
def test_shuffles_match_reference(seed, index):
    key = int(stream_key(np.uint64(seed), np.uint64(index)))
    for kernel, twin in [(D.fisher_yates_deck, ref.fisher_yates_deck),
                         (D.naive_deck, ref.naive_deck)]:
        ours = np.zeros(52, dtype=np.int64)
        theirs = np.zeros(52, dtype=np.int64)
        kernel(np.uint64(key), ours)
        twin(key, theirs)
        assert ours.tolist() == theirs.tolist()
        assert sorted(ours.tolist()) == list(range(52))


@pytest.mark.kernel
@given(st.integers(0, 2**32), st.integers(0, 1000), st.booleans())
def test_deal_range_matches_reference(seed, start, naive):
    ours = np.zeros((5, 52), dtype=np.int64)
    theirs = np.zeros((5, 52), dtype=np.int64)
    D.deal_range(np.uint64(seed), np.uint64(start), naive, ours)
    ref.deal_range(seed, start, naive, theirs)
    assert ours.tolist() == theirs.tolist()


def test_deal_i_depends_on_seed_and_index_only():
    whole = D.deals(7, 0, 40)
    assert np.array_equal(D.deals(7, 25, 40), whole[25:])
    assert np.array_equal(D.deals(7, 0, 40), whole)
    assert not np.array_equal(D.deals(8, 0, 40), whole)


@pytest.mark.kernel
@given(any_deals)
def test_deal_position_matches_reference(deck):
    ours = np.zeros(R.POSITION_SIZE, dtype=np.int64)
    theirs = np.zeros(R.POSITION_SIZE, dtype=np.int64)
    R.deal_position(deck, ours)
    ref.deal_position(deck, theirs)
    assert state_part(ours).tolist() == state_part(theirs).tolist()
    assert ours[R.LOG_LENGTH] == 0
    # every card is somewhere exactly once
    piles, foundations = ref.game_of(ours)
    cards = [c for _, cs in piles for c in cs] + [13 * s + r for s in range(4) for r in range(foundations[s])]
    assert sorted(cards) == list(range(52))


def test_dealing_follows_the_shared_format():
    """Aces dealt face down, so nothing plays: the piles are exactly as docs/design.md says."""
    aces = {1: 0, 3: 13, 6: 26, 10: 39}
    rest = iter(c for c in range(52) if c % 13)
    deck = [aces[i] if i in aces else next(rest) for i in range(52)]
    piles, foundations = ref.game_of(R.new_position(np.array(deck)))
    assert foundations == [0, 0, 0, 0]
    first = 0
    for j in range(7):
        expected = deck[first:first + j + 1] + (deck[28 + 4 * (j - 1):28 + 4 * j] if j else [])
        assert piles[j] == [j, expected]
        first += j + 1


@pytest.mark.kernel
@given(any_deals, st.lists(st.integers(0, 15), max_size=40))
def test_moves_apply_and_undo_match_reference(deck, choices):
    pos = R.new_position(deck)
    twin = pos.copy()
    start = pos.copy()
    out = np.zeros(R.MAX_MOVES, dtype=np.int64)
    twin_out = np.zeros(R.MAX_MOVES, dtype=np.int64)
    made = []
    for choice in choices:
        n = R.legal_moves(pos, out, 0)
        m = ref.legal_moves(twin, twin_out, 0)
        assert sorted(out[:n].tolist()) == sorted(twin_out[:m].tolist())
        for card in range(52):
            assert R.card_status(pos, card) == ref.card_status(twin, card)
        if n == 0:
            break
        snapshot = pos.copy()
        move = out[choice % n]
        R.apply_move(pos, move)
        ref.apply_move(twin, move)
        made.append(snapshot)
        assert state_part(pos).tolist() == state_part(twin).tolist()
        assert pos[R.KEY] == R.position_key(pos) == ref.position_key(pos)
        if choice % 3 == 0:  # undo now and then, and redo
            R.undo_move(pos)
            assert state_part(pos).tolist() == state_part(snapshot).tolist()
            R.apply_move(pos, move)
    while made:
        R.undo_move(pos)
        snapshot = made.pop()
        assert state_part(pos).tolist() == state_part(snapshot).tolist()
        assert pos[R.LOG_LENGTH] == snapshot[R.LOG_LENGTH]
    assert state_part(pos).tolist() == state_part(start).tolist()


@given(any_deals, st.randoms(use_true_random=False))
def test_key_identifies_positions_up_to_pile_order(deck, rnd):
    """Random walks: equal keys <=> equal positions with the piles sorted."""
    seen = {}
    out = np.zeros(R.MAX_MOVES, dtype=np.int64)
    for _ in range(12):
        pos = R.new_position(deck)
        for _ in range(30):
            piles, foundations = ref.game_of(pos)
            canon = ref.canonical(piles, foundations)
            key = int(pos[R.KEY])
            assert seen.setdefault(key, canon) == canon
            n = R.legal_moves(pos, out, 0)
            if n == 0:
                break
            R.apply_move(pos, out[rnd.randrange(n)])
    canons = list(seen.values())
    assert len(set(canons)) == len(canons)


def _play_on(pos, choices):
    """Make in ``pos`` the moves ``choices`` picks (modulo the legal ones), yielding after
    each; stop when no move is left."""
    out = np.zeros(R.MAX_MOVES, dtype=np.int64)
    for choice in choices:
        n = R.legal_moves(pos, out, 0)
        if n == 0:
            return
        R.apply_move(pos, out[choice % n])
        yield


def _random_line(deck, choices):
    """The position after the moves ``choices`` picks from ``deck`` (see :func:`_play_on`)."""
    pos = R.new_position(deck)
    for _ in _play_on(pos, choices):
        pass
    return pos


def _played(pos):
    """Mask of the cards on the foundations."""
    return sum(1 << (13 * s + r) for s in range(4) for r in range(int(pos[R.FOUNDATION + s])))


@pytest.mark.kernel
@given(any_deals, st.lists(st.integers(0, 15), max_size=30), st.lists(st.integers(0, 15), max_size=40))
def test_reachable_cards_match_reference_and_contain_every_line_s_cards(deck, choices, later):
    pos = _random_line(deck, choices)
    reach = reachable_cards(pos)
    assert reach == ref.reachable_cards(pos)
    assert card_count(reach) == ref.card_count(reach)
    assert _played(pos) & ~reach == 0
    # any continuation only ever plays cards of the mask
    for _ in _play_on(pos, later):
        assert _played(pos) & ~reach == 0


@pytest.mark.kernel
@given(any_deals, st.lists(st.integers(0, 15), max_size=30))
def test_bounds_match_reference_and_hold_against_the_exact_solution(deck, choices):
    """The score bound is never below the optimal score; the moves bound, for a win (all
    cards) and for the reachable cards as targets, matches its twin and is never above
    the fewest moves."""
    pos = _random_line(deck, choices)
    piles, foundations = ref.game_of(pos)
    exact = ref._solve_game(piles, foundations, False, 300)
    reach = reachable_cards(pos)
    if exact is not None:
        assert card_count(reach) >= exact[0]
    for targets in (ALL_CARDS, reach):
        goal = card_count(targets)
        bound = moves_bound(pos, targets, goal)
        assert bound == ref.moves_bound(pos, targets, goal)
        if exact is not None and exact[0] == goal:  # the best lines put exactly the targets there
            assert bound <= exact[1]
        if exact is not None and exact[0] < 52 and targets == ALL_CARDS:
            assert bound >= 1


@pytest.mark.kernel
@given(any_deals, st.lists(st.integers(0, 15), max_size=40), st.booleans())
def test_bound_after_a_move_equals_the_bound_from_scratch(deck, choices, win):
    """Along a random line, the incremental bound of every child equals the full one."""
    pos = R.new_position(deck)
    targets = ALL_CARDS if win else reachable_cards(pos)
    goal = card_count(targets)
    out = np.zeros(R.MAX_MOVES, dtype=np.int64)
    states = np.zeros(FACE_DOWN_STATES + 2 * PILE_STATES, dtype=np.int64)
    parent, child = FACE_DOWN_STATES, FACE_DOWN_STATES + PILE_STATES
    record_face_down_states(pos, states, targets)  # of the deal: valid all along the line
    record_pile_states(pos, states, parent, targets)
    for choice in choices:
        n = R.legal_moves(pos, out, 0)
        if n == 0:
            break
        for move in out[:n]:
            R.apply_move(pos, move)
            assert bound_after_move(pos, states, parent, child, targets, goal) == \
                moves_bound(pos, targets, goal)
            R.undo_move(pos)
        R.apply_move(pos, out[choice % n])
        bound = bound_after_move(pos, states, parent, child, targets, goal)
        assert bound == moves_bound(pos, targets, goal)
        fresh = np.zeros(PILE_STATES, dtype=np.int64)
        record_pile_states(pos, fresh, 0, targets)
        assert (states[child:] == fresh).all()  # the child's record is complete,
        states[parent:child] = states[child:]   # and becomes the parent's


def test_validate_deals_names_the_bad_row():
    good = np.arange(52)
    bad = good.copy()
    bad[3] = 7
    with pytest.raises(ValueError, match="deal 2: card 7 appears 2 times"):
        D.validate_deals(np.stack([good, bad]))
    with pytest.raises(ValueError, match="out of range"):
        D.validate_deals(np.array([list(range(51)) + [52]]))
    with pytest.raises(ValueError, match="shape"):
        D.validate_deals(np.zeros((2, 51), dtype=int))
    with pytest.raises(ValueError, match="integers"):
        D.validate_deals(np.zeros((1, 52)) + 0.5)
    assert D.validate_deals(good).shape == (1, 52)


def test_card_names():
    assert R.card_name(6) == "7♠"
    assert R.card_name(51) == "K♣"
    assert R.card_name(13) == "A♥"
    assert R.card_name(35) == "10♦"
