"""Questions of the Mastermind text answered from the command line: contradictions in
play, statistics per size, Cooley's rule, Knuth's tie rule, the minimax strategy,
the opening guess and the shrinking of the consistent set."""
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jitgames._random import below, stream_key
from jitgames.mastermind import engine, evaluate, strategies, strategy_tree
from jitgames.mastermind.__main__ import main
from jitgames.mastermind.codes import code_space
from jitgames.mastermind.codes import load_game
from jitgames.mastermind.minimax import counting_bound, minimax_guesses
from jitgames.mastermind.shrink import shrink_sums
from jitgames.mastermind.symmetry import position_permutations
from tests.reference import mastermind as ref
from tests.test_mastermind_cli import run

KNOWN_WORST = json.loads((Path(__file__).parent / "data" / "mastermind_worst_case.json")
                         .read_text())


def _words(black_white):
    return f"{black_white[0]} black {black_white[1]} white"


def _reference_feedback(space, a, b):
    code = ref.feedback_digits(space.digits[a], space.counts[a], space.digits[b],
                               space.counts[b], space.pegs)
    return divmod(code, space.pegs + 1)


def _secret(space, seed):
    return int(below(np.uint64(stream_key(seed, 0)), 0, space.size)[0])


def _contradicting_guess(space, first, secret):
    """The smallest code that is not the secret and contradicts the answer to ``first``."""
    answer = _reference_feedback(space, first, secret)
    return next(c for c in range(space.size)
                if _reference_feedback(space, first, c) != answer)


def _play_a_contradicting_guess(capsys, monkeypatch, tmp_path, option):
    """A 3x4 game (secret of seed 11) whose second guess contradicts the first answer,
    then the secret: ``(space, secret, first, bad, status, out)``."""
    space = code_space(3, 4)
    secret = _secret(space, 11)
    first = 0 if secret != 0 else 1
    bad = _contradicting_guess(space, first, secret)
    script = f"{space.format(first)}\n{space.format(bad)}\n{space.format(secret)}\n"
    status, out, _ = run(capsys, ["play", "-p", "3", "-k", "4", "--secret-seed", "11",
                                  "--db", str(tmp_path / "s.sqlite"), option],
                         script, monkeypatch)
    return space, secret, first, bad, status, out


def test_play_points_out_a_contradicting_guess_and_counts_it(capsys, monkeypatch, tmp_path):
    space, secret, first, bad, status, out = _play_a_contradicting_guess(
        capsys, monkeypatch, tmp_path, "--no-colour")
    assert status == 0
    want = (f"note: {space.format(bad)} cannot be the code: guess 1 ({space.format(first)}) "
            f"got {_words(_reference_feedback(space, first, secret))}, but against "
            f"{space.format(bad)} it would get {_words(_reference_feedback(space, first, bad))}.")
    assert want in out
    assert "Solved in 3 guesses." in out     # the contradicting guess was played
    assert out.count("cannot be the code") == 1   # the secret itself is consistent


def test_hard_mode_refuses_a_contradicting_guess(capsys, monkeypatch, tmp_path):
    space, _, _, bad, status, out = _play_a_contradicting_guess(
        capsys, monkeypatch, tmp_path, "--hard")
    assert status == 0
    assert f"refused (--hard): {space.format(bad)} cannot be the code" in out
    assert "Solved in 2 guesses." in out


def test_stats_report_each_size_separately(capsys, monkeypatch, tmp_path):
    db = str(tmp_path / "s.sqlite")
    played = {}   # (pegs, colours) -> guesses of each solved game
    for pegs, colours, seed, extra in [(2, 3, 1, 0), (2, 3, 2, 1), (3, 4, 3, 2)]:
        space = code_space(pegs, colours)
        secret = _secret(space, seed)
        wrong = [c for c in range(space.size) if c != secret][:extra]
        script = "".join(f"{space.format(c)}\n" for c in wrong) + space.format(secret) + "\n"
        assert run(capsys, ["play", "-p", str(pegs), "-k", str(colours), "--secret-seed",
                            str(seed), "--db", db, "--name", "ann"], script, monkeypatch)[0] == 0
        played.setdefault((pegs, colours), []).append(extra + 1)
    status, out, _ = run(capsys, ["stats", "--db", db, "--json"])
    (row,) = json.loads(out)["players"]
    assert row["games"] == 3 and row["solved"] == 3
    by_size = {(s["pegs"], s["colours"]): s for s in row["sizes"]}
    assert set(by_size) == set(played)
    for size, guesses in played.items():
        assert by_size[size]["games"] == len(guesses)
        assert by_size[size]["mean_guesses"] == sum(guesses) / len(guesses)
        assert by_size[size]["distribution"] == {str(g): guesses.count(g) for g in set(guesses)}
    status, text, _ = run(capsys, ["stats", "--db", db])
    assert status == 0
    lines = [x.split() for x in text.splitlines() if x.startswith("ann")]
    assert [(x[1], x[4]) for x in lines] == [("2x3", "1.50"), ("3x4", "3.00")]


# ----- the minimax strategy ------------------------------------------------------------



@pytest.mark.parametrize("pegs,colours", [(2, 2), (2, 3), (3, 2), (4, 2), (2, 4),
                                          pytest.param(3, 3, marks=pytest.mark.slow),
                                          pytest.param(2, 5, marks=pytest.mark.slow)])
def test_minimax_matches_the_exhaustive_reference(pegs, colours):
    space = code_space(pegs, colours)
    worst, total = ref.minimax_values(space.digits, space.counts, pegs)
    result = evaluate("minimax", pegs, colours)
    assert (result.max, result.total) == (worst, total)
    assert minimax_guesses(space, load_game(pegs, colours)[1]) == worst
    knuth = evaluate("knuth", pegs, colours)
    assert knuth.max >= worst and (knuth.max > worst or knuth.total >= total)


def test_minimax_published_worst_cases():
    for row in KNOWN_WORST["values"]:
        result = evaluate("minimax", row["pegs"], row["colours"])
        assert result.max == row["worst_case"], row
        if "total" in row:
            assert result.total == row["total"], row


def test_counting_bound():
    # 4 pegs: 13 answers besides "solved"; 1 + 13 = 14 < 1296 <= 1 + 13 + 169 + 2197
    assert counting_bound(1296, 4) == 4
    assert counting_bound(14, 4) == 2 and counting_bound(15, 4) == 3
    assert counting_bound(1, 3) == 1


# ----- Knuth's written tie rule ----------------------------------------------------------

def _run(strategy, space, matrix, seed, first=-1, kernel=None):
    guesses = np.zeros(space.size, np.int32)
    tree = np.zeros((4 * space.size + 1, 4), np.int32)
    play_all = kernel or engine.play_all
    adapter = strategy.adapter if kernel is None else kernel.adapter
    task = engine.Task(first, np.ones(space.size, np.int8), guesses,
                       position_permutations(space.pegs))
    rows = play_all(adapter, space.tables(matrix), strategy.rules, task,
                    np.uint64(stream_key(seed, 1)), 2, tree)
    return guesses, tree[:rows]


def _paths(table):
    path = {}
    for row, (guess, parent, answer, _) in enumerate(table):
        path[row] = () if parent < 0 else path[parent] + (int(answer),)
    return {path[r]: int(table[r][0]) for r in range(len(table))}


@pytest.mark.kernel
@settings(max_examples=min(10, settings.default.max_examples))
@given(st.sampled_from([(2, 3), (3, 3), (2, 4)]),
       st.sampled_from(["knuth", "expected-size", "most-parts"]), st.integers(0, 2**32))
def test_random_ties_engine_matches_reference(size, name, seed):
    pegs, colours = size
    space, matrix = load_game(pegs, colours)
    strategy = strategies.with_ties(strategies.get_strategy(name), "random")
    ours = _run(strategy, space, matrix, seed)
    guesses, tree = ref.play_all(name, pegs, colours, True, seed, np.ones(space.size, np.int8),
                                 ties="random")
    assert (ours[0] == guesses).all()
    assert _paths(ours[1]) == _paths(tree)


def test_random_ties_follow_knuths_written_rule():
    """At every node: the guess minimises the largest class; it is consistent whenever
    some minimiser is; and over seeds the choice among minimisers varies."""
    space, matrix = load_game(3, 3)
    choices = set()
    for seed in range(8):
        tree = strategy_tree("knuth", 3, 3, seed=seed, ties="random")
        kids = tree.children()
        stack = [(0, list(range(space.size)))]
        while stack:
            node, members = stack.pop()
            guess = int(tree.table[node, 0])
            if len(members) > 1:
                def largest(g):
                    answers = [_reference_feedback(space, g, s) for s in members]
                    return max(answers.count(a) for a in set(answers))
                scores = {g: largest(g) for g in range(space.size)
                          if largest(g) < len(members) or g in members}
                best = min(scores.values())
                assert scores[guess] == best
                if any(g in members for g, v in scores.items() if v == best):
                    assert guess in members
                if node == 0:
                    choices.add(guess)
            classes = {}
            for s in members:
                classes.setdefault(space.feedback(guess, s), []).append(s)
            for answer, codes in classes.items():
                if answer != space.solved:
                    stack.append((int(kids[node, answer]), codes))
    assert len(choices) > 1   # the opening is drawn among Knuth's equal first guesses


def test_random_ties_are_seeded_and_refused_where_scores_are_not_integers(capsys):
    a = evaluate("knuth", 4, 6, seed=5, ties="random")
    b = evaluate("knuth", 4, 6, seed=5, ties="random")
    assert (a.guesses == b.guesses).all() and a.ties == "random"
    status, _, err = run(capsys, ["evaluate", "-s", "entropy", "--ties", "random"])
    assert status == 2 and "random ties apply to" in err and err.count("\n") == 1


# ----- Cooley's rule and the opening guess -----------------------------------------------

@pytest.mark.parametrize("pegs,colours,seed", [(3, 4, 0), (4, 6, 7), (4, 6, 8)])
def test_cooley_as_written_is_a_random_consistent_code(pegs, colours, seed):
    """Secret by secret, Cooley's rule plays exactly the random consistent code of the
    same seed once the opening is the same."""
    space = code_space(pegs, colours)
    opening = space.format(strategies.cooley_first_guess(space, seed))
    cooley = evaluate("cooley", pegs, colours, seed=seed)
    random = evaluate("random", pegs, colours, seed=seed, first=opening)
    assert (cooley.guesses == random.guesses).all()
    assert (strategy_tree("cooley", pegs, colours, seed=seed).table
            == strategy_tree("random", pegs, colours, seed=seed, first=opening).table).all()


def test_first_guess_is_fixed_and_matches_the_reference_engine(capsys):
    space = code_space(3, 4)
    for opening in ("123", "444", "112"):
        tree = strategy_tree("knuth", 3, 4, first=opening)
        assert space.format(tree.table[0, 0]) == opening
        ours = evaluate("knuth", 3, 4, first=opening)
        guesses, _ = ref.play_all("knuth", 3, 4, True, 0, np.ones(space.size, np.int8),
                                  first_guess=space.parse(opening))
        assert (ours.guesses == guesses).all()
    # Knuth's own opening fixed changes nothing (the published 5801 of tests/data)
    assert evaluate("knuth", 4, 6, first="1122").total == 5801
    status, out, _ = run(capsys, ["evaluate", "-s", "knuth", "--first", "1123", "--json"])
    assert status == 0 and json.loads(out)["first"] == "1123"
    status, _, err = run(capsys, ["evaluate", "-s", "optimal", "-p", "2", "-k", "2",
                                  "--first", "12"])
    assert status == 2 and "--first" in err
    status, _, err = run(capsys, ["evaluate", "--first", "1a"])
    assert status == 2 and err.count("\n") == 1


# ----- the shrink factor --------------------------------------------------------------

def _reference_shrink(space, tree):
    """Per guess number: [secrets, sum of |P(i-1)|/|P(i)|, sum of logs], by replaying
    every secret and filtering the codes with the reference feedback."""
    import math
    kids = tree.children()
    sums = {}
    for secret in range(space.size):
        consistent = list(range(space.size))
        node, i = 0, 0
        while True:
            i += 1
            guess = int(tree.table[node, 0])
            answer = _reference_feedback(space, guess, secret)
            after = [c for c in consistent if _reference_feedback(space, guess, c) == answer]
            row = sums.setdefault(i, [0, 0.0, 0.0])
            row[0] += 1
            row[1] += len(consistent) / len(after)
            row[2] += math.log(len(consistent) / len(after))
            if guess == secret:
                break
            consistent = after
            node = int(kids[node, space.feedback(guess, secret)])
    return sums


@pytest.mark.parametrize("name,pegs,colours", [("knuth", 3, 4), ("cooley", 3, 4),
                                               ("optimal", 3, 3), ("random", 4, 4)])
def test_shrink_factors_match_a_replay_of_every_secret(name, pegs, colours):
    space, matrix = load_game(pegs, colours)
    tree = strategy_tree(name, pegs, colours, seed=3)
    ours = shrink_sums(tree, matrix)
    want = _reference_shrink(space, tree)
    assert sorted(ours) == sorted(want)
    for i in want:
        assert ours[i][0] == want[i][0]
        assert ours[i][1] == pytest.approx(want[i][1], rel=1e-12)
        assert ours[i][2] == pytest.approx(want[i][2], rel=1e-9, abs=1e-9)
    without_matrix = shrink_sums(tree, np.zeros((0, 0), np.uint8))
    assert sorted(without_matrix) == sorted(ours)
    for i, (count, first, second) in ours.items():  # field by field: exact count, floats
        assert without_matrix[i][0] == count
        assert without_matrix[i][1] == pytest.approx(first, rel=1e-12)
        assert without_matrix[i][2] == pytest.approx(second, rel=1e-9, abs=1e-9)


def test_evaluate_shrink_cli(capsys):
    status, out, _ = run(capsys, ["evaluate", "-p", "3", "-k", "4", "-s", "cooley", "--seed",
                                  "2", "--seeds", "2", "--shrink", "--json"])
    assert status == 0
    result = json.loads(out)
    space = code_space(3, 4)
    want = {}
    for seed in (2, 3):
        for i, row in _reference_shrink(space, strategy_tree("cooley", 3, 4, seed=seed)).items():
            acc = want.setdefault(i, [0, 0.0])
            acc[0] += row[0]
            acc[1] += row[1]
    assert [r["guess"] for r in result["shrink"]] == sorted(want)
    for r in result["shrink"]:
        assert r["secrets"] == want[r["guess"]][0]
        assert r["mean_factor"] == pytest.approx(want[r["guess"]][1] / want[r["guess"]][0])
    # every game makes a first guess; the counts fall to the games of the longest
    assert result["shrink"][0]["secrets"] == 2 * 64
    assert result["shrink"][-1]["secrets"] == result["distribution"][str(result["max"])]
    status, text, _ = run(capsys, ["evaluate", "-p", "3", "-k", "4", "--shrink"])
    assert status == 0 and "geometric mean factor" in text and "more than six" in text


def test_the_answers_are_visible_from_help(capsys):
    try:
        status = main(["evaluate", "--help"])
    except SystemExit as exc:
        status = exc.code
    text = " ".join(capsys.readouterr().out.split())
    assert status == 0
    for phrase in ("--shrink", "--ties {first,random}", "--first GUESS", "minimax",
                   "reduces to a random consistent code", "about 4 times per guess",
                   "if possible, else at random"):
        assert phrase in text, phrase
    try:
        main(["play", "--help"])
    except SystemExit:
        pass
    assert "--hard" in capsys.readouterr().out
