"""The Kalah game model (jitgames/kalah/game.py) against the reference rules, its text
form, undo, the coach's values and perfect play reaching the published margins."""
import csv
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from jitgames.errors import InputError
from jitgames.kalah import rules
from jitgames.kalah.evaluation import weights_for
from jitgames.kalah.game import (Coach, Computer, Game, IllegalMove, Opponent,
                                 format_position, parse_opponent, parse_position)
from jitgames.kalah.solver import solve
from tests.reference import kalah as ref
from tests.reference.kalah_strategies import positions

DATA = Path(__file__).parent / "data"
VARIANT_NAMES = list(rules.VARIANTS)


def _games():
    """(pits, stones, variant, first, move choices): a game driven by the choices."""
    return st.tuples(st.integers(1, 6), st.integers(1, 5), st.sampled_from(VARIANT_NAMES),
                     st.sampled_from([rules.SOUTH, rules.NORTH]),
                     st.lists(st.integers(0, 10**6), min_size=1, max_size=60))


@given(_games())
def test_random_games_follow_the_reference_rules(spec):
    pits, stones, variant, first, choices = spec
    game = Game(pits, stones, variant, first)
    board, player = rules.new_board(pits, stones).tolist(), first
    m = pits
    for choice in choices:
        out = [0] * m
        count = ref.legal_moves(board, player, out)
        assert game.legal_moves() == out[:count]
        assert game.over == ref.is_over(board) and game.player == player
        if count == 0:
            break
        pit = out[choice % count]
        before = board.copy()
        nxt, record = ref.apply_move(board, player, pit, rules.VARIANTS[variant])
        report = game.apply(pit)
        assert game.board.tolist() == board and game.player == nxt
        assert report.pit == pit and report.player == player
        assert len(report.path) == before[pit]
        captured = (record >> 16) & 0xFF
        assert report.capture == captured
        assert report.over == ref.is_over(board)
        assert report.extra_turn == (nxt == player and not report.over)
        # the path is where the stones fell: undo the capture, then count them
        sown = board.copy()
        if captured:
            last = report.path[-1]
            assert report.captured_from == 2 * m - last
            sown[rules.store_of(m, player)] -= captured
            sown[report.captured_from] = captured - 1
            sown[last] = 1
        for i in range(2 * m + 2):
            expected = (0 if i == pit else before[i]) + report.path.count(i)
            assert sown[i] == expected
        assert rules.store_of(m, 1 - player) not in report.path
        player = nxt
    south, north = game.scores()
    assert south - north == ref.final_margin(board) == game.margin()


@given(_games(), st.integers(0, 60))
def test_undo_restores_the_exact_position(spec, back):
    pits, stones, variant, first, choices = spec
    game = Game(pits, stones, variant, first)
    seen = [game.text()]
    for choice in choices:
        moves = game.legal_moves()
        if not moves:
            break
        game.apply(moves[choice % len(moves)])
        seen.append(game.text())
    made = len(game.history)
    undone = game.undo(back)
    assert len(undone) == min(back, made)
    assert game.text() == seen[made - len(undone)]
    assert len(game.history) == made - len(undone)
    game.undo(made)
    assert game.text() == seen[0] == game.start and game.board.tolist() == \
        rules.new_board(pits, stones).tolist()


@given(positions(max_pits=10, max_stones=6), st.sampled_from(VARIANT_NAMES))
def test_text_form_round_trip(position, variant):
    board, player = position
    text = format_position(board, player, variant)
    assert "\n" not in text
    parsed, who, name = parse_position(text)
    assert parsed.tolist() == board.tolist() and who == player and name == variant
    game = Game.from_text(text)
    assert game.text() == text and game.player == player and game.pits == len(board) // 2 - 1


def test_text_form_of_the_opening_and_bad_texts():
    game = Game(6, 4)
    assert game.text() == "4,4,4,4,4,4/0/4,4,4,4,4,4/0 s empty-capture"
    assert Game.from_text("3,3,3/0/3,3,3/0 n").stones == 3
    assert Game.from_text("3,0,3/1/3,3,3/2 n standard").stones is None
    for bad, reason in (("", "a Kalah position is"), ("1,2/0/1,2/0", "a Kalah position"),
                        ("1,2/0/1/0 s", "South has 2 pits"), ("1,2/0/1,x/0 s", "whole numbers"),
                        ("1,2/0/1,2 s", "four parts"), ("1,-2/0/1,2/0 s", "negative"),
                        ("100,2/0/1,30/0 s", "at most 127"), ("1,2/0/1,2/0 w", "side to move"),
                        ("1,2/0/1,2/0 s other", "variant")):
        with pytest.raises(InputError, match=reason):
            parse_position(bad)


def test_illegal_moves_are_refused_with_the_reason():
    game = Game.from_text("0,2,1/0/1,1,1/0 s")
    for pit, reason in ((0, "pit 1 is empty"), (3, "South's store"), (4, "that pit is North's"),
                        (7, "North's store"), (9, "no pit"), ("1", "no pit")):
        with pytest.raises(IllegalMove, match=reason):
            game.apply(pit)
    report = game.apply(2)   # one stone into South's store: an extra turn
    assert report.extra_turn and report.path == (3,) and game.player == rules.SOUTH
    report = game.apply(1)   # 2 stones: pit 3 (empty) then the store
    assert report.path == (2, 3) and report.extra_turn
    assert game.over is False and game.status() == "South to move"


def test_capture_and_the_end_are_reported():
    # South sows pit 1 (one stone) into empty pit 2, opposite North's pit 2 (3 stones).
    game = Game.from_text("1,0,0/0/1,3,1/0 s")
    report = game.apply(0)
    assert (report.capture, report.captured_from, report.path) == (4, 5, (1,))
    assert report.over and game.over and game.status() == "South 4, North 2"
    assert game.result() == "South wins by 2"
    with pytest.raises(IllegalMove, match="over"):
        game.apply(4)


def test_undo_turn_takes_back_the_computers_replies():
    game = Game(3, 3)
    game.apply(0)                      # South: extra turn (3 stones reach the store)
    game.apply(1)                      # South again; now North
    game.apply(4)                      # North
    assert game.undo_turn(rules.NORTH)[0].player == rules.NORTH
    assert game.player == rules.NORTH and len(game.history) == 2
    game.apply(4)
    undone = game.undo_turn(rules.SOUTH)
    assert [r.player for r in undone] == [rules.NORTH, rules.SOUTH]
    assert game.player == rules.SOUTH and len(game.history) == 1
    assert Game(3, 3).undo_turn(rules.SOUTH) == []


# -- the coach ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def coach():
    return Coach(depth=4)


def _mover_value(board, player, pit, variant):
    """Final margin from ``player``'s side after ``pit`` under perfect play (reference)."""
    child = list(board)
    nxt, _ = ref.apply_move(child, player, pit, variant)
    m = len(board) // 2 - 1
    lead = child[m] - child[2 * m + 1]
    lead = lead if player == rules.SOUTH else -lead
    rest = ref.pits_value(child, nxt, variant)
    return lead + (rest if nxt == player else -rest)


@settings(max_examples=25)
@given(positions(min_pits=1, max_pits=3, max_stones=2), st.sampled_from(VARIANT_NAMES))
def test_perfect_values_are_the_reference_negamax(coach, position, variant):
    board, player = position
    game = Game.from_text(format_position(board, player, variant))
    advice = coach.advise(game)
    assert advice.method == "perfect" and advice.depth is None
    assert list(advice.moves) == game.legal_moves()
    for pit, value in zip(advice.moves, advice.values):
        assert value == _mover_value(board.tolist(), player, pit, rules.VARIANTS[variant])
    if advice.moves:
        assert advice.best_value == max(advice.values)
        assert all(advice.value_of(p) == advice.best_value for p in advice.best)


@settings(max_examples=25)
@given(positions(min_pits=2, max_pits=5, max_stones=4), st.integers(1, 3))
def test_alphabeta_values_are_the_reference_minimax_from_the_movers_side(coach, position,
                                                                        depth):
    board, player = position
    game = Game.from_text(format_position(board, player))
    advice = coach.advise(game, "alpha-beta", depth)
    m = game.pits
    weights = weights_for("store", m)
    for pit, value in zip(advice.moves, advice.values):
        child = board.tolist()
        nxt, _ = ref.apply_move(child, player, pit, 0)
        south = ref.minimax(child, nxt, depth - 1, weights, 0, None, [0])
        assert value == (south if player == rules.SOUTH else -south)


def test_perfect_is_refused_where_the_solver_is_slow(coach):
    game = Game(6, 4)
    assert not coach.perfect_available(game)
    with pytest.raises(InputError, match="perfect play is available"):
        coach.advise(game, "perfect")
    assert coach.advise(game, depth=2).method == "alpha-beta"
    assert Coach.perfect_available(Game(3, 3)) and Coach.perfect_available(Game(4, 3))
    assert "Kalah(6, n <= 2)" in Coach.perfect_boards_text()


def _published():
    with open(DATA / "kalah_solved.csv") as f:
        return [(int(r["pits"]), int(r["stones"]), r["variant"], int(r["value"]))
                for r in csv.DictReader(f) if int(r["pits"]) * int(r["stones"]) <= 12
                and r["source"]]


def _best_move_game(pits, stones, variant, seed, coach):
    game = Game(pits, stones, variant)
    players = [Computer(Opponent("perfect"), coach, True, seed, side) for side in (0, 1)]
    while not game.over:
        advice = coach.advise(game)
        assert advice.method == "perfect"
        game.apply(players[game.player].choose(game)[0])
    return game


@pytest.mark.parametrize("pits,stones,variant,value", _published())
def test_best_move_on_both_sides_ends_with_the_published_margin(pits, stones, variant,
                                                                 value, coach):
    game = _best_move_game(pits, stones, variant, 7, coach)
    assert game.margin() == value


def test_best_move_on_both_sides_of_kalah_3_3_ends_with_the_solved_margin(coach):
    value = solve(3, 3, table_bits=16).value     # +2 (docs/kalah.md)
    for seed in range(3):                       # random choice among equal moves
        game = _best_move_game(3, 3, "empty-capture", seed, coach)
        south, north = game.scores()
        assert south - north == value and south + north == 18


def test_opponents_and_their_random_choice(coach):
    assert parse_opponent("random") == Opponent("random")
    assert parse_opponent("alpha-beta-6") == parse_opponent("ab6") == Opponent("alpha-beta", 6)
    assert parse_opponent("Perfect").name == "perfect"
    for bad in ("alpha-beta-0", "alpha-beta-99", "minimax", ""):
        with pytest.raises(InputError, match="opponent"):
            parse_opponent(bad)

    def game_of(opponent, randomize, seed):
        game = Game(4, 2)
        computer = Computer(opponent, coach, randomize, seed)
        while not game.over:
            game.apply(computer.choose(game)[0])
        return tuple(r.pit for r in game.history)

    for opponent in (Opponent("random"), Opponent("alpha-beta", 1)):
        games = {game_of(opponent, True, seed) for seed in range(6)}
        assert game_of(opponent, True, 3) == game_of(opponent, True, 3)
        assert len(games) > 1
    # no random choice: the lowest of the equally good pits, every time
    fixed = game_of(Opponent("alpha-beta", 1), False, 0)
    assert fixed == game_of(Opponent("alpha-beta", 1), False, 5)
    game = Game(4, 2)
    for pit in fixed:
        advice = coach.advise(game, "alpha-beta", 1)
        assert pit == min(advice.best)
        game.apply(pit)


def test_board_options_are_checked():
    for kwargs, reason in ((dict(pits=0), "pits a side"), (dict(pits=6, stones=11), "int8"),
                           (dict(variant="x"), "variant"), (dict(first=2), "first player")):
        with pytest.raises(InputError, match=reason):
            Game(**kwargs)
    assert np.array_equal(Game(2, 1).board, rules.new_board(2, 1))
