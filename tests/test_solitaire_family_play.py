"""Playing under Yukon's and Alaska's rules: the coach (the family search) and the moves."""
import subprocess
import sys

import pytest

from jitgames.solitaire import deals
from jitgames.solitaire import family as F
from jitgames.solitaire.family_play import FamilyGame
from jitgames.solitaire.family_study import solve_many
from jitgames.solitaire.play import IllegalMove

from .solution_check import check_moves


def small_deals(rules, count, most=3000):
    """The first ``count`` deals of seed 11 that the search decides within ``most`` positions."""
    decks = deals(11, 0, 60)
    rows = solve_many(decks, F.rules_code(rules), most)
    return [(d, r) for d, r in zip(decks, rows) if r[1] == 0][:count]


@pytest.mark.parametrize("rules", ["yukon", "alaska"])
def test_best_moves_reach_the_optimum_and_undo_restores(rules):
    for deck, row in small_deals(rules, 3):
        game = FamilyGame(deck, rules)
        assert game.optimum == row[0] and not game.undecided
        start = F.piles_of(game.pos), game.foundations()
        while True:
            hint = game.hint()
            if not hint.gains:
                break
            assert hint.move in game.legal_moves()
            game.play(hint.move)
            assert game.reachable() == game.optimum  # a best move keeps the optimum
        assert game.score == game.optimum
        check_moves(deck, rules, game.history, game.optimum)   # the game, checked
        while game.undo():
            pass
        assert (F.piles_of(game.pos), game.foundations()) == start


def test_moves_by_card_by_piles_and_refusals():
    deck = deals(2026, 5, 6)[0]
    game = FamilyGame(deck, "yukon")
    for move in game.legal_moves():
        card, dest = move // 8, move % 8
        text = f"{'A23456789TJQK'[card % 13]}{'shdc'[card // 13]} {'f' if dest == 7 else dest + 1}"
        assert game.parse_move(text) == move
        described = game.describe(move)
        assert ("to its foundation" in described) == (dest == 7)
    with pytest.raises(IllegalMove):
        game.parse_move("9c")  # 9♣ has no legal move at this deal
    with pytest.raises(IllegalMove):
        game.parse_move("8 2")
    with pytest.raises(IllegalMove):
        game.parse_move("hello")
    played = game.play(game.legal_moves()[0])
    assert isinstance(played, list) and len(game.history) == 1
    game.restart()
    assert game.history == [] and game.restarts == 1


def test_play_command_with_rules_through_a_pipe(tmp_path):
    script = "hint\nbest\nmoves\n1\nundo\nquit\n"
    out = subprocess.run([sys.executable, "-m", "jitgames.solitaire", "play", "2026", "5",
                          "--rules", "alaska", "--db", str(tmp_path / "x.sqlite")],
                         input=script, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "alaska rules" in out.stdout and "hint:" in out.stdout
    assert "not stored in the records" in out.stdout
