"""The Mastermind game model (jitgames/mastermind/game.py), its advice (advice.py) and
the consistent-code scan (scan.py): random games in both roles against brute force
over all codes, undo, the text form, the strategies' advice against evaluate(), and
the terminal fixes (letters, help/hint/best/undo as codebreaker; undo and quit after
a contradicting answer as codemaker)."""
from __future__ import annotations

import io
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jitgames.errors import InputError
from jitgames.mastermind import advice
from jitgames.mastermind.__main__ import main
from jitgames.mastermind.evaluate import evaluate
from jitgames.mastermind.game import Game, Turn, feedback, format_code, parse_code
from jitgames.mastermind.scan import Constraints, scan_consistent
from tests.reference import mastermind as ref

SIZES = st.sampled_from([(2, 2), (2, 3), (3, 2), (3, 3), (2, 5), (3, 4), (4, 3), (4, 4)])


def brute_remaining(pegs, colours, turns) -> int:
    """Codes that give every turn its answer, counted over all codes (the rules alone)."""
    count = 0
    for code in itertools.product(range(colours), repeat=pegs):
        if all(feedback(t.guess, code) == (t.black, t.white) for t in turns):
            count += 1
    return count


def codes(pegs, colours):
    return st.tuples(*[st.integers(0, colours - 1)] * pegs)


# ----------------------------------------------------------------------------- the kernel
@pytest.mark.kernel
@given(st.data())
def test_scan_matches_its_twin(data):
    pegs, colours = data.draw(SIZES)
    h = data.draw(st.integers(0, 3))
    secret = data.draw(codes(pegs, colours))
    turns = []
    for _ in range(h):
        guess = data.draw(codes(pegs, colours))
        if data.draw(st.booleans()):
            black, white = feedback(guess, secret)   # consistent with the secret
        else:
            black = data.draw(st.integers(0, pegs))  # any answer, maybe none fits
            white = data.draw(st.integers(0, pegs - black))
        turns.append((guess, black, white))
    cons = Constraints(pegs, colours, turns)
    scored = data.draw(st.booleans())
    key = np.uint64(data.draw(st.integers(0, 2**64 - 1)))
    below = data.draw(st.sampled_from([-1.0, 0.0, 0.3, 1.0]))
    limit = data.draw(st.integers(1, colours ** pegs + 1))
    n_out = data.draw(st.integers(0, 6))
    out, twin_out = np.zeros(n_out, np.int64), np.zeros(n_out, np.int64)
    got = scan_consistent(pegs, colours, cons.digits, cons.counts, cons.blacks, cons.commons,
                          scored, key, below, limit, out)
    want = ref.scan_consistent(pegs, colours, cons.digits, cons.counts, cons.blacks,
                               cons.commons, scored, key, below, limit, twin_out)
    assert tuple(got) == want
    assert out.tolist() == twin_out.tolist()


# ----------------------------------------------------------------------------- codes
def test_codes_by_number_letter_or_both():
    assert parse_code("rrgg", 4, 6) == parse_code("1122", 4, 6) == parse_code("R 1,g2", 4, 6)
    assert parse_code("ckmA", 4, 10) == (6, 8, 9, 9)
    assert format_code(parse_code("wkma", 4, 10)) == "89AA"
    for text, message in [("rrg", "a code has 4 pegs, got 3"), ("rrgz", "'z' is not a colour"),
                          ("rrgc", "colour 7 (cyan) is not in this game of 6 colours")]:
        with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
            parse_code(text, 4, 6)


# ----------------------------------------------------------------------------- breaker
ACTIONS = st.lists(st.one_of(st.tuples(st.just("play"), st.integers(0, 10**6)),
                             st.tuples(st.just("undo"), st.integers(1, 3)),
                             st.tuples(st.just("best"), st.just(0))), min_size=1, max_size=8)


@given(SIZES, st.integers(0, 2**62), ACTIONS, st.sampled_from(["knuth", "random", "optimal"]))
@settings(max_examples=40)
def test_random_breaker_games(size, seed, actions, strategy):
    pegs, colours = size
    game = Game(pegs, colours, "breaker", seed, strategy)
    snapshots = [game.to_text()]  # the text after 0, 1, 2, ... turns
    for kind, arg in actions:
        if game.finished:
            break
        if kind == "undo":
            taken = game.undo(arg)
            assert taken == min(arg, len(snapshots) - 1)
            del snapshots[len(snapshots) - taken:]
            assert game.to_text() == snapshots[-1]  # undo restores the position
            continue
        if kind == "best":
            turn = game.best()
        else:
            code = np.unravel_index(arg % game.codes, (colours,) * pegs)
            turn = game.play(tuple(int(d) for d in code))
        snapshots.append(game.to_text())
        assert (turn.black, turn.white) == feedback(turn.guess, game.secret)
        assert turn.remaining == brute_remaining(pegs, colours, game.turns) >= 1
        assert (turn.note is None) == (brute_remaining(pegs, colours, game.turns[:-1] + [
            Turn(turn.guess, pegs, 0, 0)]) == 1), "a guess is noted iff it cannot be the code"
    copy = Game.from_text(game.to_text())
    assert copy.to_text() == game.to_text() and copy.to_dict() == game.to_dict()
    assert copy.turns == game.turns


def test_best_moves_play_the_strategys_game():
    # every secret of 3x3, every strategy: advice from the position equals evaluate()
    for name in advice.strategies_for(3, 3):
        expected = evaluate(name, 3, 3, True, 7).guesses
        for secret in range(27):
            game = Game(3, 3, "breaker", 7, name, format_code(
                np.unravel_index(secret, (3, 3, 3))))
            while not game.solved:
                game.best()
            assert len(game.turns) == expected[secret] == game.strategy_guesses(), (name, secret)


@pytest.mark.parametrize("pegs,colours", [(3, 4), (2, 6), (4, 3)])
def test_random_by_scan_is_the_engines_random(pegs, colours):
    # large sizes play ``random`` by scanning (no code table): the same choice as the
    # engine's at every node reached by some answers
    rng = np.random.default_rng(pegs * 10 + colours)
    for _ in range(30):
        secret = tuple(int(d) for d in rng.integers(0, colours, pegs))
        turns, game = [], Game(pegs, colours, "breaker", int(rng.integers(0, 1000)), "random",
                               format_code(secret))
        for _ in range(int(rng.integers(0, 3))):
            game.play(tuple(int(d) for d in rng.integers(0, colours, pegs)))
        turns = game._value_turns()  # noqa: SLF001 - the advice's input
        scanned = advice._random_guess(pegs, colours, game.seed, turns)  # noqa: SLF001
        assert scanned == advice.advise("random", pegs, colours, game.seed, turns)


def test_large_sizes_use_random_and_count_without_tables():
    assert advice.tier(8, 10) == "random" and advice.strategies_for(8, 10) == ["random"]
    assert advice.default_strategy(4, 6) == "optimal"
    assert advice.default_strategy(5, 6) == "most-parts" and advice.tier(8, 2) == "scored"
    with pytest.raises(InputError, match="choose from random"):
        Game(7, 10, "breaker", 1, "knuth")
    game = Game(6, 10, "breaker", 3)
    turn = game.play("123456")
    # the scan's count against a count by NumPy over all 10^6 codes
    digits = np.stack(np.unravel_index(np.arange(10**6), (10,) * 6), axis=1)
    guess = np.array(turn.guess)
    black = (digits == guess).sum(axis=1)
    common = sum(np.minimum((digits == c).sum(axis=1), (guess == c).sum()) for c in range(10))
    assert turn.remaining == int(((black == turn.black) & (common - black == turn.white)).sum())
    hint = game.hint()
    assert game.contradiction(hint) is None  # random plays a code still possible


# ----------------------------------------------------------------------------- maker
@given(SIZES, st.data())
@settings(max_examples=30)
def test_random_maker_games(size, data):
    pegs, colours = size
    strategy = data.draw(st.sampled_from(advice.strategies_for(pegs, colours)))
    game = Game(pegs, colours, "maker", data.draw(st.integers(0, 99)), strategy)
    secret = data.draw(codes(pegs, colours))
    for _ in range(12):
        if game.solved:
            break
        guess = game.pending()
        truth = feedback(guess, secret)
        lie = data.draw(st.booleans())
        if lie:
            black = data.draw(st.integers(0, pegs))
            white = data.draw(st.integers(0, pegs - black))
            if (black, white) == (pegs - 1, 1):
                with pytest.raises(InputError, match="impossible"):
                    game.answer(black, white)
                continue
        else:
            black, white = truth
        turn = game.answer(black, white)
        left = brute_remaining(pegs, colours, game.turns)
        assert turn.remaining == left and game.contradicted == (left == 0)
        assert (turn.note is not None) == (left == 0)
        if game.contradicted:
            # the note names the fewest earlier answers that the answer contradicts
            j = next(j for j in range(len(game.turns)) if brute_remaining(
                pegs, colours, game.turns[:j] + game.turns[-1:]) == 0)
            assert ("no code of this game" if j == 0 else "guess 1 " if j == 1
                    else f"guesses 1 to {j} ") in turn.note
            assert not game.solved
            assert game.pending() is None and "take it back" in game.status()
            with pytest.raises(InputError, match="take it back"):
                game.answer(*truth)
            copy = Game.from_text(game.to_text())
            assert copy.to_dict() == game.to_dict()
            game.undo()
            assert not game.contradicted and game.pending() == guess
        elif (black, white) != truth:  # a consistent lie: take it back too
            game.undo()
    copy = Game.from_text(game.to_text())
    assert copy.to_dict() == game.to_dict()


def test_text_form_is_checked():
    with pytest.raises(InputError, match="gets"):
        Game.from_text("mastermind 4x6 breaker seed=17 strategy=optimal 1122:4-0")
    with pytest.raises(InputError, match="guesses 1123 here"):
        Game.from_text("mastermind 4x6 maker seed=0 strategy=optimal 1122:0-0")
    with pytest.raises(InputError, match="pegs must be from 2 to 8"):
        Game.from_text("mastermind 9x6 breaker seed=1 strategy=random")
    game = Game.from_text("mastermind 3x3 breaker secret=rgb strategy=knuth 111:1-0 gave-up")
    assert game.gave_up and game.status() == "given up after 1 guess; the code was 123"
    assert Game.from_text(game.to_text()).to_text() == game.to_text()
    with pytest.raises(InputError, match="given up"):
        game.undo()


# ----------------------------------------------------------------------------- terminal
def run(capsys, monkeypatch, argv, stdin):
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_terminal_breaker_letters_help_hint_best_undo(capsys, monkeypatch, tmp_path):
    db = str(tmp_path / "s.sqlite")
    game = Game(4, 6, "breaker", 11)
    hint = format_code(game.hint())
    script = "help\nrrgg\nundo\nundo\nhint\nbest\nbest\nbest\nbest\nbest\nbest\n"
    status, out, err = run(capsys, monkeypatch, ["play", "--secret-seed", "11", "--db", db,
                                                 "--no-colour"], script)
    assert status == 0 and err == ""
    assert "hint    the optimal strategy's guess" in out          # help
    assert "  1. 1 1 2 2   " in out and "Guess 1 taken back." in out  # letters, undo
    assert "nothing to undo" in out and f"hint (optimal): {' '.join(hint)}" in out
    while not game.solved:
        game.best()
    assert f"Solved in {len(game.turns)} guesses." in out
    assert f"The optimal strategy needs {len(game.turns)} guesses for this code." in out


def test_terminal_maker_undo_and_quit_after_a_contradiction(capsys, monkeypatch, tmp_path):
    db = str(tmp_path / "s.sqlite")
    # knuth opens 1122; "0 0" twice, then an answer no code fits with them
    game = Game(4, 6, "maker", 0, "knuth")
    game.answer(0, 0)
    game.answer(0, 0)
    third = game.pending()
    wrong = next((b, w) for b in range(5) for w in range(5 - b) if (b, w) != (3, 1)
                 and game.remaining(game.turns + [Turn(third, b, w, 0)]) == 0)
    note = game.answer(*wrong).note
    script = f"0 0\n0 0\n{wrong[0]} {wrong[1]}\nundo\nundo\nquit\n"
    status, out, err = run(capsys, monkeypatch, ["play", "--role", "maker", "-s", "knuth",
                                                 "--db", db, "--no-colour"], script)
    assert status == 0 and err == ""
    assert f"inconsistent: {note}." in out
    assert "That answer is taken back" in out
    assert "Answer 2 taken back." in out and "Answer 1 taken back." in out
    assert "Game stopped." in out and "solved it" not in out
