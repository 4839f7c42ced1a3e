"""The solitaire game model's additions for the web page (jitgames.solitaire.play):
a game's one-line text read back exactly, deals typed as ids or cards, and a card
dropped on a pile (``Game.move_to``) accepted exactly when the rules allow it."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jitgames.errors import InputError
from jitgames.solitaire import deals
from jitgames.solitaire import rules as R
from jitgames.solitaire.play import Game, IllegalMove, card_code, parse_deal
from jitgames.solitaire.search import PositionSolver
from tests.reference.solitaire_strategies import any_deals


def state(game):
    return game.piles(), game.foundations(), game.score, game.history, int(game.pos[R.KEY])


@settings(max_examples=30)
@given(any_deals, st.lists(st.integers(0, 15), max_size=40))
def test_text_reads_back_the_same_game(deck, choices):
    game = Game(deck, PositionSolver(1 << 10))
    for choice in choices:
        legal = game.legal_moves()
        if not legal:
            break
        game.play(legal[choice % len(legal)])
    copy = Game.from_text(game.text(), PositionSolver(1 << 10))
    assert state(copy) == state(game)
    assert copy.reachable() == game.reachable() and copy.optimum == game.optimum
    assert copy.text() == game.text() and "\n" not in game.text()


@settings(max_examples=30)
@given(any_deals, st.lists(st.integers(0, 15), max_size=40), st.integers(0, 51),
       st.integers(0, 6))
def test_move_to_accepts_exactly_the_legal_drops(deck, choices, card, pile):
    """A drop of ``card`` on ``pile`` is accepted exactly when the rules allow that
    move (a king into any empty pile), and then makes that move; else IllegalMove."""
    game = Game(deck, PositionSolver(1 << 10))
    for choice in choices:
        legal = game.legal_moves()
        if not legal:
            break
        game.play(legal[choice % len(legal)])
    legal = game.legal_moves()
    lengths = game.pos[R.LENGTH:R.LENGTH + 7]
    allowed = any(m // 8 == card and (m % 8 == pile or (card % 13 == 12 and lengths[pile] == 0
                                                         and game.pos[R.WHERE + card] != pile))
                  for m in legal)
    if not allowed:
        with pytest.raises(IllegalMove):
            game.move_to(card, pile)
        return
    move = game.move_to(card, pile)
    assert move == card * 8 + pile
    key = [m for m in legal if m // 8 == card][0]
    other = Game(deck, PositionSolver(1 << 10))
    for m in game.history:
        other.play(m)
    other.play(key)
    game.play(move)
    assert int(game.pos[R.KEY]) == int(other.pos[R.KEY]) and game.score == other.score


def test_move_to_names_the_right_pile():
    for index in range(200):
        game = Game(deals(2026, index, index + 1)[0])
        plain = [m for m in game.legal_moves() if m // 8 % 13 != 12]
        if plain:
            break
    card, dest = plain[0] // 8, plain[0] % 8
    wrong = next(p for p in range(7) if p != dest and p != game.pos[R.WHERE + card])
    with pytest.raises(IllegalMove, match=f"can go only onto .* \\(pile {dest + 1}\\), not "
                                          f"onto pile {wrong + 1}"):
        game.move_to(card, wrong)


def test_deals_as_ids_or_cards():
    deck = deals(5, 9, 10)[0]
    ids = " ".join(map(str, deck))
    codes = "".join(card_code(int(c)) for c in deck)
    assert np.array_equal(parse_deal(ids), deck)
    assert np.array_equal(parse_deal(ids.replace(" ", ", ")), deck)
    assert np.array_equal(parse_deal(codes), deck)
    assert np.array_equal(parse_deal(" ".join(codes[i:i + 2] for i in range(0, 104, 2))), deck)
    assert card_code(0) == "As" and card_code(9) == "Ts" and card_code(51) == "Kc"


@pytest.mark.parametrize("text, words", [
    (" ".join(["0"] * 52), "card 0 appears 52 times"),
    (" ".join(map(str, range(51))), "52 card ids, got 51"),
    (" ".join(map(str, range(1, 53))), "out of range"),
    ("Xx" * 52, "is not a card"),
    ("As" * 52, "appears 52 times"),
    ("As2s", "52 card ids (0..51) or 52 cards"),
    ("", "52 card ids (0..51) or 52 cards"),
])
def test_bad_deals_say_why(text, words):
    with pytest.raises(InputError, match=words.replace("(", r"\(").replace(")", r"\)")
                       .replace(".", r"\.")):
        parse_deal(text)


def test_bad_positions_say_why():
    game = Game(deals(1, 2, 3)[0])
    deal = game.text()
    for text, words in [("", "empty position"), ("As", "104 characters"),
                        (deal + " 9x>3", "move 1, '9x>3', is not a card"),
                        (deal + " As>9", "is not a card and a pile"),
                        (deal + " Ks>3", "move 1 (Ks>3)")]:
        with pytest.raises(InputError, match=words.replace("(", r"\(").replace(")", r"\)")):
            Game.from_text(text)


def test_terminal_game_shows_the_running_record(tmp_path, monkeypatch):
    """After each game at the terminal, the player's running record (the line the web
    page shows too), read back from the database the game was stored in."""
    from .clirun import run

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    db = str(tmp_path / "games.sqlite")
    first = run(["solitaire", "play", "2026", "7", "--db", db, "--name", "ann"], "best\nquit\n")
    # a game quit at the deal would be stored as abandoned and left out of the record
    second = run(["solitaire", "play", "2026", "8", "--db", db, "--name", "ann"], "best\nquit\n")
    assert first.status == 0 and second.status == 0
    assert "Your record: 1 game, mean score" in first.out
    assert "Your record: 2 games, mean score" in second.out
