"""Questions of the Mastermind text answered from the command line: contradictions in
play, statistics per size, Cooley's rule, Knuth's tie rule, the minimax strategy,
the opening guess and the shrinking of the consistent set."""
import io
import json

import numpy as np

from jitgames._random import below, stream_key
from jitgames.mastermind.__main__ import main
from jitgames.mastermind.codes import code_space
from tests.reference import mastermind as ref


def run(capsys, argv, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


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


def test_play_points_out_a_contradicting_guess_and_counts_it(capsys, monkeypatch, tmp_path):
    space = code_space(3, 4)
    secret = _secret(space, 11)
    first = 0 if secret != 0 else 1
    bad = _contradicting_guess(space, first, secret)
    script = f"{space.format(first)}\n{space.format(bad)}\n{space.format(secret)}\n"
    status, out, _ = run(capsys, ["play", "-p", "3", "-k", "4", "--secret-seed", "11",
                                  "--db", str(tmp_path / "s.sqlite"), "--no-colour"],
                         script, monkeypatch)
    assert status == 0
    want = (f"note: {space.format(bad)} cannot be the code: guess 1 ({space.format(first)}) "
            f"got {_words(_reference_feedback(space, first, secret))}, but against "
            f"{space.format(bad)} it would get {_words(_reference_feedback(space, first, bad))}.")
    assert want in out
    assert "Solved in 3 guesses." in out     # the contradicting guess was played
    assert out.count("cannot be the code") == 1   # the secret itself is consistent


def test_hard_mode_refuses_a_contradicting_guess(capsys, monkeypatch, tmp_path):
    space = code_space(3, 4)
    secret = _secret(space, 11)
    first = 0 if secret != 0 else 1
    bad = _contradicting_guess(space, first, secret)
    script = f"{space.format(first)}\n{space.format(bad)}\n{space.format(secret)}\n"
    status, out, _ = run(capsys, ["play", "-p", "3", "-k", "4", "--secret-seed", "11",
                                  "--db", str(tmp_path / "s.sqlite"), "--hard"],
                         script, monkeypatch)
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
