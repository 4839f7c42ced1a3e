"""The command line: evaluate's JSON contract, tournament, tree, play, match, stats."""
import io
import json

import pytest

from jitgames.mastermind.__main__ import main
from jitgames.mastermind.codes import code_space


def run(capsys, argv, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_evaluate_json_contract(capsys):
    status, out, _ = run(capsys, ["evaluate", "--pegs", "4", "--colours", "6",
                                  "--strategy", "knuth", "--json"])
    data = json.loads(out)
    assert status == 0 and out.count("\n") == 1
    assert (data["total"], data["max"]) == (5801, 5)
    assert data["mean"] == pytest.approx(5801 / 1296)
    assert data["distribution"] == {"1": 1, "2": 6, "3": 62, "4": 533, "5": 694}


@pytest.mark.parametrize("name", ["cooley", "expected-size", "entropy", "most-parts", "random",
                                  "optimal", "optimal-max5"])
def test_evaluate_every_name_small_and_no_repeats(capsys, name):
    status, out, _ = run(capsys, ["evaluate", "-p", "3", "-k", "4", "-s", name, "--seed", "2",
                                  "--no-repeats", "--json"])
    data = json.loads(out)
    assert status == 0 and data["secrets"] == 24 and data["repeats"] is False
    assert sum(data["distribution"].values()) == 24
    assert data["total"] == sum(int(k) * v for k, v in data["distribution"].items())


def test_evaluate_pools_seeds_and_prints_text(capsys):
    status, out, _ = run(capsys, ["evaluate", "-p", "3", "-k", "4", "-s", "cooley",
                                  "--seeds", "4", "--json"])
    data = json.loads(out)
    assert status == 0 and data["seeds"] == 4 and len(data["seed_means"]) == 4
    assert sum(data["distribution"].values()) == 4 * 64
    status, out, _ = run(capsys, ["evaluate", "-p", "3", "-k", "3"])
    assert status == 0 and "total" in out and "distribution" in out


def test_tournament_table_and_json(capsys):
    status, out, _ = run(capsys, ["tournament", "--sizes", "2x3,3x3", "--strategies",
                                  "knuth,optimal", "--json"])
    data = json.loads(out)
    assert status == 0 and data["sizes"] == ["2x3", "3x3"]
    assert data["results"]["optimal"]["3x3"]["total"] <= data["results"]["knuth"]["3x3"]["total"]
    status, out, _ = run(capsys, ["tournament", "--sizes", "2x3", "--strategies", "knuth"])
    assert status == 0 and "knuth" in out and "2x3" in out


def test_tree_text_and_json(capsys):
    status, out, _ = run(capsys, ["tree", "-p", "4", "-k", "6", "--depth", "1"])
    assert status == 0 and out.splitlines()[0] == "1122"
    assert all("->" in line for line in out.splitlines()[1:])
    status, out, _ = run(capsys, ["tree", "-p", "2", "-k", "3", "-s", "optimal", "--json"])
    assert status == 0 and json.loads(out)["tree"]["guess"]


@pytest.mark.parametrize("argv,message", [
    (["evaluate", "--strategy", "nope"], "invalid choice"),
    (["evaluate", "--pegs", "0"], "integer from 1"),
    (["evaluate", "--pegs", "12", "--colours", "9"], "bytes"),
    (["evaluate", "--pegs", "5", "--colours", "3", "--no-repeats"], "no code"),
    (["tournament", "--sizes", "4by6"], "PxK"),
    (["tournament", "--strategies", "knuth,zzz"], "unknown strategy"),
    (["match", "--players", "knuth", "robot"], "human:NAME"),
    # Seeds beyond the kernels' int64 (a traceback before): refused with their range.
    (["evaluate", "--seed", "99999999999999999999999"], "integer from 0 to"),
    (["evaluate", "-s", "random", "--seed", str(2**63 - 1)], "integer from 0 to"),
    (["tournament", "--seed", "99999999999999999999999"], "integer from 0 to"),
    (["play", "--secret-seed", "99999999999999999999999"], "integer from 0 to"),
    (["match", "--players", "knuth", "random", "--seed", "99999999999999999999999"],
     "integer from 0 to"),
    # So many seeds that the run would never end (it looped without printing).
    (["evaluate", "--seeds", "99999999999999999999999"], "integer from 1 to 100000"),
])
def test_bad_input_is_one_line_and_status_2(capsys, argv, message):
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse errors exit from parse_args
        status = exc.code
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and message in err


def test_play_person_guesses_with_bad_input_and_hint(capsys, monkeypatch, tmp_path):
    db = str(tmp_path / "stats.sqlite")
    space = code_space(3, 3)
    # Find the secret of seed 4 by asking once, then solve it.
    status, out, _ = run(capsys, ["play", "-p", "3", "-k", "3", "--secret-seed", "4", "--db", db,
                                  "--name", "ann"], "12\n1a3\n?\nquit\n", monkeypatch)
    assert status == 0
    assert "not a code: a code has 3 pegs" in out and "is not in this game of 3 colours" in out
    assert "27 codes still possible" in out and "Given up; the code was" in out
    from jitgames._random import below, stream_key
    import numpy as np
    secret = space.format(below(np.uint64(stream_key(4, 0)), 0, 27)[0])
    script = f"111\n{secret}\n"
    status, out, _ = run(capsys, ["play", "-p", "3", "-k", "3", "--secret-seed", "4", "--db", db,
                                  "--name", "ann", "--no-colour"], script, monkeypatch)
    assert status == 0 and "Solved in" in out and "\x1b[" not in out
    status, out, _ = run(capsys, ["stats", "--db", db, "--json"])
    row = json.loads(out)["players"][0]
    assert row["player"] == "ann" and row["solved"] == 1 and row["games"] == 2


def test_play_computer_guesses_and_catches_inconsistent_answers(capsys, monkeypatch, tmp_path):
    db = str(tmp_path / "s.sqlite")
    # Secret 4321 (no repeats). Knuth opens 1122 -> 0 black 2 white; the person first
    # claims "4 0" (wrong: inconsistent with nothing but not solved) -- use a clear lie:
    # "3 1" is impossible, then answers truthfully.
    space = code_space(4, 6)
    secret = space.parse("4321")
    answers = []
    from jitgames.mastermind.breaker import Breaker
    from jitgames.mastermind.codes import load_game
    _, matrix = load_game(4, 6)
    b = Breaker("knuth", space, matrix)
    while True:
        g = b.guess()
        f = space.feedback(g, secret)
        answers.append("%d %d" % divmod(f, 5))
        if b.answer(f):
            break
    lie = "0 0" if answers[1] != "0 0" else "1 0"
    script = "\n".join(["3 1", "x", answers[0], lie] + answers[1:]) + "\n"
    # (the default strategy is now the coach's, optimal on 4x6: knuth is named)
    status, out, _ = run(capsys, ["play", "--role", "maker", "-s", "knuth", "--db", db], script,
                         monkeypatch)
    assert status == 0
    assert "impossible" in out and "not an answer" in out
    assert "inconsistent" in out or "solved it" in out
    assert f"knuth solved it in {len(answers)} guesses" in out


def test_inconsistent_answer_is_refused():
    from jitgames.mastermind.breaker import Breaker, InconsistentAnswer
    from jitgames.mastermind.codes import load_game
    space, matrix = load_game(3, 3)
    b = Breaker("knuth", space, matrix)
    g = b.guess()
    b.answer(space.feedback(g, space.parse("123")))
    with pytest.raises(InconsistentAnswer):
        b.answer(space.solved) if b.guess() != space.parse("123") else b.answer(0)
    with pytest.raises(InconsistentAnswer):
        for _ in range(10):
            b.answer(0)


def test_play_eof_is_clean(capsys, monkeypatch, tmp_path):
    status, out, err = run(capsys, ["play", "--role", "maker", "--db", str(tmp_path / "d")],
                           "", monkeypatch)
    assert status == 0 and "Game over" in out and "Traceback" not in err


def test_match_strategy_against_strategy_and_person(capsys, monkeypatch, tmp_path):
    db = str(tmp_path / "m.sqlite")
    status, out, _ = run(capsys, ["match", "-p", "3", "-k", "3", "--players", "knuth", "random",
                                  "--rounds", "4", "--seed", "1", "--db", db])
    assert status == 0 and "Match:" in out
    status, out, _ = run(capsys, ["stats", "--db", db, "--json"])
    players = {r["player"]: r for r in json.loads(out)["players"]}
    assert players["knuth"]["matches"] == 1 and players["random"]["games"] == 2
    assert players["knuth"]["wins"] + players["random"]["wins"] <= 1
    # A person makes a code (22) for knuth, then breaks the computer's code.
    from jitgames.mastermind.breaker import Breaker
    from jitgames.mastermind.codes import load_game
    space, matrix = load_game(2, 2)
    b, answers = Breaker("knuth", space, matrix), []
    while True:
        f = space.feedback(b.guess(), space.parse("22"))
        answers.append("%d %d" % divmod(f, 3))
        if b.answer(f):
            break
    script = "\n".join(answers + ["11", "12", "21", "22"]) + "\n"
    status, out, _ = run(capsys, ["match", "-p", "2", "-k", "2", "--players", "human:bo",
                                  "knuth", "--rounds", "2", "--seed", "0", "--db", db,
                                  "--max-guesses", "4"], script, monkeypatch)
    assert status == 0 and "Match:" in out and "Solved in" in out
    status, out, _ = run(capsys, ["stats", "--db", db])
    assert status == 0 and "bo" in out and "knuth" in out


def test_large_spaces_are_evaluated_in_chunks_with_the_same_result(capsys, monkeypatch):
    import jitgames.mastermind.__main__ as cli
    status, whole, _ = run(capsys, ["evaluate", "-p", "3", "-k", "4", "-s", "entropy", "--json"])
    monkeypatch.setattr(cli, "LARGE", 10)
    status, chunked, _ = run(capsys, ["evaluate", "-p", "3", "-k", "4", "-s", "entropy", "--json"])
    assert status == 0 and json.loads(chunked) == json.loads(whole)


def test_tree_text_is_depth_first(capsys):
    status, out, _ = run(capsys, ["tree", "-p", "3", "-k", "3"])
    depths = [(len(line) - len(line.lstrip())) // 2 for line in out.splitlines()]
    assert status == 0 and depths[0] == 0
    assert all(b <= a + 1 for a, b in zip(depths, depths[1:]))  # children follow parents
    from jitgames.mastermind import strategy_tree
    assert len(depths) == strategy_tree("knuth", 3, 3).nodes


def test_unusable_files_are_one_line_errors(capsys, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_text("not a database, " * 100)
    for argv in (["stats", "--db", str(blocker / "s.sqlite")],
                 ["stats", "--db", str(garbage)],
                 ["play", "--db", str(garbage)],
                 # checked before the run, not when the finished run is saved
                 ["evaluate", "-p", "3", "-k", "3", "--checkpoint", str(blocker / "c.json")]):
        status, out, err = run(capsys, argv)
        assert status == 2 and err.count("\n") == 1 and "Traceback" not in err, argv
        assert str(blocker) in err or str(garbage) in err
        assert out == ""


def test_negative_answer_is_refused():
    from jitgames.mastermind.play import parse_answer
    with pytest.raises(ValueError, match="negative"):
        parse_answer("-1 2", 4)  # was read as 1 black 2 white
    assert parse_answer("1 2", 4) == parse_answer("1b2w", 4)


def test_undecodable_input_asks_again(capsys, monkeypatch, tmp_path):
    stdin = io.TextIOWrapper(io.BytesIO(b"\xff\xfe\n"), encoding="utf-8", errors="strict")
    monkeypatch.setattr("sys.stdin", stdin)
    status = main(["play", "-p", "3", "-k", "3", "--db", str(tmp_path / "d.sqlite")])
    out, err = capsys.readouterr()
    assert status == 0 and err == ""
    assert "not text" in out and "Game over (no more input)" in out


def test_ctrl_c_between_seeds_keeps_the_finished_seeds(capsys, monkeypatch):
    import jitgames.mastermind.__main__ as cli
    real, calls = cli._evaluate_in_chunks, []

    def interrupt_third_seed(args, seed):
        calls.append(seed)
        if len(calls) == 3:
            raise KeyboardInterrupt  # no chunk of this seed finished
        return real(args, seed)

    monkeypatch.setattr(cli, "_evaluate_in_chunks", interrupt_third_seed)
    status, out, err = run(capsys, ["evaluate", "-p", "3", "-k", "4", "-s", "cooley",
                                    "--seeds", "5", "--json"])
    data = json.loads(out)
    assert status == 130 and data["complete"] is False and data["seeds"] == 2
    assert sum(data["distribution"].values()) == 2 * 64
    assert "interrupted" in err and err.count("\n") == 1


def test_matrix_too_big_for_the_machine_is_a_one_line_error(capsys, monkeypatch):
    import numpy as np

    from jitgames.mastermind import codes
    from jitgames.mastermind.codes import load_game
    real_empty = np.empty

    def no_memory(shape, dtype=float, *args, **kwargs):
        if shape == (64, 64):  # the 3x4 response matrix: as if 64 GiB were asked for
            raise MemoryError("Unable to allocate")
        return real_empty(shape, dtype, *args, **kwargs)

    monkeypatch.setattr(codes.np, "empty", no_memory)
    load_game.cache_clear()
    try:
        status, out, err = run(capsys, ["evaluate", "-p", "3", "-k", "4"])
    finally:
        load_game.cache_clear()
    assert status == 2 and out == "" and err.count("\n") == 1
    assert "more than this machine can allocate" in err


def test_stats_of_a_missing_database_creates_nothing(capsys, tmp_path):
    missing = tmp_path / "new" / "s.sqlite"
    status, out, err = run(capsys, ["stats", "--db", str(missing)])
    assert status == 0 and err == ""
    assert out == f"no games recorded yet ({missing} does not exist)\n"
    status, out, _ = run(capsys, ["stats", "--db", str(missing), "--json"])
    assert status == 0 and json.loads(out)["players"] == []
    assert list(tmp_path.iterdir()) == []
