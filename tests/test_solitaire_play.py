"""A game of the solitaire (jitgames.solitaire.play): moves by card and by piles, undo,
and the solver asked from mid-game positions, checked against the reference twin."""
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from jitgames.solitaire import deals, solve_deals
from jitgames.solitaire import rules as R
from jitgames.solitaire.play import Game, IllegalMove, parse_card
from jitgames.solitaire.search import PositionSolver
from jitgames.solitaire.solution import line_of_moves
from tests.reference import solitaire as ref
from tests.reference.solitaire_strategies import any_deals, hard_deals, random_deals
from tests.solution_check import check_line

BUDGET = 250  # reference positions per deal (see test_solitaire_search.py)
filtering = settings(max_examples=25,
                     suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])


def reference_figures(pos, budget=10**9):
    """``(score, moves, decisions)`` of a kernel position by the reference DFS."""
    piles, foundations = ref.game_of(pos)
    return ref._solve_game(piles, foundations, False, budget)


@filtering
@given(any_deals, st.lists(st.integers(0, 15), max_size=30))
def test_reachable_and_hint_from_mid_game_match_the_reference(deck, choices):
    """Along random legal play, the still-reachable score and the line figures equal
    the reference twin's from that position, never rise, and the hint keeps them."""
    start = ref.reference_solve(deck, budget=BUDGET)
    assume(start is not None)  # every later position then has fewer positions below it
    game = Game(deck, PositionSolver(1 << 10))
    assert game.optimum == start[0]
    previous = game.optimum
    checked = 0
    for choice in choices + [None]:
        expected = reference_figures(game.pos)
        assert game.reachable() == expected[0] <= previous
        assert game.solver.figures(game.pos) == expected
        previous = expected[0]
        legal = game.legal_moves()
        if legal and expected[1] > 0:
            before = game.pos.copy()
            hint = game.hint()
            assert np.array_equal(ref.position_meaning(game.pos), ref.position_meaning(before))
            n = len(legal)
            game.play(hint.move)
            assert reference_figures(game.pos) == (expected[0], expected[1] - 1,
                                                   expected[2] - (n > 1))
            game.undo()
            assert np.array_equal(ref.position_meaning(game.pos), ref.position_meaning(before))
        checked += 1
        if choice is None or not legal:
            break
        game.play(legal[choice % len(legal)])
    assert checked >= 1


def play_best_alone(game):
    """Follow the hints until the optimal score is on the foundations; the still
    reachable figure stays at the optimum all the way."""
    steps = 0
    while True:
        assert game.reachable() == game.optimum
        hint = game.hint()
        if hint.move is None or not hint.gains:
            break
        game.play(hint.move)
        steps += 1
        assert steps <= 56
    return steps


@settings(max_examples=20)
@given(st.one_of(random_deals(), hard_deals()))
def test_best_alone_reaches_the_optimal_score(deck):
    game = Game(deck)
    expected = solve_deals(deck)
    steps = play_best_alone(game)
    assert game.score == game.optimum == expected.score[0]
    assert steps == expected.moves[0]  # the hints follow a shortest optimal line
    check_line(deck, line_of_moves(deck, game.history))


def test_best_alone_wins_a_won_deal():
    results = solve_deals(deals(2026, 0, 60))
    won = int(np.nonzero(results.score == 52)[0][0])
    game = Game(deals(2026, won, won + 1)[0])
    assert play_best_alone(game) == results.moves[won]
    assert game.score == 52
    check_line(game.deck, line_of_moves(game.deck, game.history), seed=2026, index=won)


@pytest.mark.slow
def test_best_alone_plays_out_the_hardest_known_deal():
    # the deal of seed 0 that thrashes the default table (README.md): the solver
    # grows its table and still answers exactly
    hard = deals(0, 347269, 347270)[0]
    game = Game(hard, PositionSolver(1 << 12))
    assert game.optimum == solve_deals(hard).score[0]
    play_best_alone(game)
    assert game.score == game.optimum
    check_line(hard, line_of_moves(hard, game.history), seed=0, index=347269)


def test_cards_are_read_in_every_spelling():
    for text, card in [("9c", 3 * 13 + 8), ("9♣", 3 * 13 + 8), ("10h", 13 + 9), ("Td", 26 + 9),
                       ("K♠", 12), ("ks", 12), ("AH", 13), ("q ♦", 26 + 11), ("10♥", 22)]:
        assert parse_card(text) == card
    for text in ("1c", "11h", "9x", "c9", "", "10"):
        assert parse_card(text) is None


def deal_2026_7():
    return Game(deals(2026, 7, 8)[0])


def test_moves_by_card_and_by_piles_name_the_same_move():
    game = deal_2026_7()
    # README's session: 9♣ (and 3 cards on it) from pile 5 onto 10♣ (pile 2)
    by_card = game.parse_move("9c")
    assert by_card == game.parse_move("9♣") == game.parse_move("5 2")
    assert by_card in game.legal_moves()
    assert game.describe(by_card) == "9♣ (and 3 cards on it) from pile 5 onto 10♣ (pile 2)"
    assert game.play(by_card) == []
    assert game.play(game.parse_move("3d")) == [13, 14]  # A♥ 2♥ go to the foundations
    assert game.score == 5 and game.reachable() == 5


@pytest.mark.parametrize("text, reason", [
    ("9x", "neither a card"),
    ("2s", "on its foundation"),          # A♠ 2♠ are on the foundation after the deal
    ("K♥", "not face up"),                # face down at the bottom of pile 2
    ("Q♣", "onto K♣, which is not exposed"),
    ("6c", "onto 7♣, which is not exposed"),   # 7♣ is face down
    ("3 5", "only Q♦ goes onto K♦ .pile 5., and it is not face up in pile 3"),
    ("0 3", "numbered 1 to 7"),
    ("4 4", "another pile"),
    ("3 8", "numbered 1 to 7"),
])
def test_illegal_moves_say_why(text, reason):
    game = deal_2026_7()
    with pytest.raises(IllegalMove, match=reason):
        game.parse_move(text)


def test_kings_need_an_empty_pile_and_an_ambiguous_pile_move_is_refused():
    # a deal whose pile 1 is an ace (played at once: pile 1 is empty) and whose
    # pile 7 ends with two kings face up
    deck = list(range(52))
    deck[0], deck[deck.index(13)] = 13, deck[0]                       # A♥ alone on pile 1
    for card, slot in ((12, 50), (25, 51)):                          # K♠ then K♥ on pile 7
        at = deck.index(card)
        deck[at], deck[slot] = deck[slot], deck[at]
    game = Game(np.array(deck))
    assert game.piles()[0] == (0, [])
    with pytest.raises(IllegalMove, match="K♠ and K♥"):
        game.parse_move("7 1")
    king = game.parse_move("K♠")
    assert king // 8 == 12 and king % 8 == 0
    game.play(king)
    assert game.piles()[0][1][:2] == [12, 25]   # K♥ came along on K♠
    with pytest.raises(IllegalMove, match="bottom of pile 1"):
        game.parse_move("ks")


def test_undo_restart_and_counts():
    game = deal_2026_7()
    start = game.pos.copy()
    assert not game.undo()
    for text in ("9c", "3d"):
        game.play(game.parse_move(text))
    assert game.undo() and game.undo() and not game.undo()
    assert np.array_equal(ref.position_meaning(game.pos), ref.position_meaning(start))
    game.play(game.parse_move("9c"))
    game.restart()
    assert np.array_equal(ref.position_meaning(game.pos), ref.position_meaning(start))
    assert (game.moves_made, game.undos, game.restarts, game.history) == (3, 2, 1, [])


def test_a_deal_with_no_move_is_over_at_once():
    results = solve_deals(deals(0, 0, 2000))
    index = int(np.nonzero(results.opening_moves == 0)[0][0])
    game = Game(deals(0, index, index + 1)[0])
    assert game.over and game.legal_moves() == []
    assert game.optimum == game.score == results.score[index]
    hint = game.hint()
    assert hint.move is None and hint.score == game.score


def test_solver_grows_its_table_and_answers_the_same():
    deck = deals(0, 347269, 347270)[0]
    small, large = PositionSolver(4, 1 << 20), PositionSolver(1 << 18)
    pos = R.new_position(deck)
    assert small.figures(pos) == large.figures(pos)
    assert small.capacity > 4


def test_a_deal_without_a_decision_point_ends_at_its_optimum_whatever_the_play():
    results = solve_deals(deals(5, 0, 300))
    forced = np.nonzero((results.decisions == 0) & (results.opening_moves > 0))[0]
    assert forced.size > 0
    rng = np.random.default_rng(5)
    for index in forced[:20].tolist():
        game = Game(deals(5, index, index + 1)[0])
        while game.legal_moves():
            legal = game.legal_moves()
            game.play(legal[int(rng.integers(len(legal)))])
        assert game.score == game.optimum == results.score[index]
