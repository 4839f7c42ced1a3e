"""The solitaire command line, called through main() as a user would."""
import json

import numpy as np
import pytest

from jitgames.solitaire import __main__ as cli
from jitgames.solitaire import deals, solve_deals
from jitgames.solitaire.check import check_file


def run(capsys, *argv):
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_study_json_contract(capsys):
    status, out, err = run(capsys, "300", "--seed", "5", "--json", "--quiet", "--chunk-size", "70")
    assert status == 0
    data = json.loads(out)
    for key in ("deals", "mean", "sd", "ci95", "win_rate", "histogram", "mean_moves",
                "mean_decisions", "seconds"):
        assert key in data
    results = solve_deals(deals(5, 0, 300))
    assert data["deals"] == 300
    assert data["mean"] == pytest.approx(results.score.mean())
    assert data["histogram"] == {str(s): int(c) for s, c in
                                 enumerate(np.bincount(results.score, minlength=53))}
    assert data["mean_moves"] == pytest.approx(results.moves.mean())
    assert data["ci95"][0] < data["mean"] < data["ci95"][1]
    assert data["complete"] is True


def test_study_text_report_out_and_plot(capsys, tmp_path):
    out_file = tmp_path / "deals.csv"
    plot = tmp_path / "hist.png"
    status, out, _ = run(capsys, "200", "--seed", "1", "--out", str(out_file), "--plot", str(plot),
                         "--threads", "1")
    assert status == 0
    for phrase in ("mean", "95% interval", "Wilson", "decision points", "position table",
                   "deals/s", "compile", "break-even at 11 cards", "precision"):
        assert phrase in out
    rows = out_file.read_text().splitlines()
    assert rows[0] == "index,score,moves,decisions,positions"
    assert len(rows) == 201
    results = solve_deals(deals(1, 0, 200))
    assert rows[10].split(",")[:4] == [str(9), str(results.score[9]), str(results.moves[9]),
                                       str(results.decisions[9])]
    assert plot.read_bytes()[:4] == b"\x89PNG"


def test_out_file_of_a_study_in_several_chunks(capsys, tmp_path):
    out_file = tmp_path / "deals.csv"
    status, _, _ = run(capsys, "250", "--seed", "4", "--chunk-size", "60", "--out", str(out_file),
                       "--quiet")
    assert status == 0
    r = solve_deals(deals(4, 0, 250))
    expected = ["index,score,moves,decisions,positions"] + [
        f"{i},{r.score[i]},{r.moves[i]},{r.decisions[i]},{r.positions[i]}" for i in range(250)]
    assert out_file.read_text().splitlines() == expected


@pytest.mark.parametrize("output", [["--out", "."], ["--plot", "scores.foo"]])
def test_unwritable_output_fails_before_the_run(capsys, monkeypatch, output):
    def no_solving(*args, **kwargs):
        raise AssertionError("the run started")

    monkeypatch.setattr(cli, "make_scratch", no_solving)
    status, out, err = run(capsys, "500", "--quiet", *output)
    assert status == 2 and out == "" and err.count("\n") == 1


def test_largest_seed_and_index_deal(capsys, tmp_path):
    top = str(2**64 - 1)
    solution = tmp_path / "line.txt"
    status, out, _ = run(capsys, "--show", top, top, "--json", "--solution", str(solution))
    assert status == 0
    data = json.loads(out)
    assert data["deck"] == deals(2**64 - 1, 2**64 - 1, 2**64)[0].tolist()
    report = check_file(solution)   # the checker deals the largest deal itself
    assert report.ok and report.score == data["score"] and report.moves == data["moves"]


def test_small_table_grows_and_the_report_says_so(capsys):
    """A table too small for some deals: those are solved again on larger tables, the
    figures stay those of the default table, and text and JSON count them."""
    status, out, _ = run(capsys, "300", "--seed", "5", "--json", "--quiet",
                         "--table-capacity", "1024")
    small = json.loads(out)
    status_default, out, _ = run(capsys, "300", "--seed", "5", "--json", "--quiet")
    default = json.loads(out)
    assert status == status_default == 0
    assert small["table"]["grown_deals"] > 0 == default["table"]["grown_deals"]
    assert small["table"]["largest_capacity"] > 1024 == small["table"]["capacity"]
    for key in ("mean", "sd", "histogram", "mean_moves", "mean_decisions"):
        assert small[key] == default[key]
    status, out, _ = run(capsys, "300", "--seed", "5", "--quiet", "--table-capacity", "1024")
    assert status == 0 and "thrashed that table and were solved again" in out


def test_score_only_study(capsys):
    status, out, _ = run(capsys, "100", "--score-only", "--json")
    data = json.loads(out)
    assert status == 0 and data["score_only"] and data["mean_moves"] is None


def test_ctrl_c_keeps_the_finished_chunks(capsys, monkeypatch):
    from jitgames.solitaire import study

    calls = []
    real = study.solve_chunk_rows

    def interrupted_on_third_chunk(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:  # chunks 1 and 2 finish, the third is interrupted
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(study, "solve_chunk_rows", interrupted_on_third_chunk)
    status, out, err = run(capsys, "100", "--chunk-size", "20", "--json")
    assert status == 130
    data = json.loads(out)
    assert data["deals"] == 40 and data["complete"] is False
    assert "interrupted after 40 of 100 deals" in err


def test_show_prints_the_line(capsys, tmp_path):
    solution = tmp_path / "line.txt"
    status, out, _ = run(capsys, "--show", "1", "1", "--solution", str(solution))
    assert status == 0
    assert "pile 7:" in out and "Optimal score" in out
    assert any(s in out for s in "♠♥♦♣")
    status, out, _ = run(capsys, "--show", "1", "1", "--json")
    data = json.loads(out)
    results = solve_deals(deals(1, 1, 2))
    assert (data["score"], data["moves"], data["decisions"]) == (
        results.score[0], results.moves[0], results.decisions[0])
    assert len(data["line"]) == data["moves"]
    report = check_file(solution)
    assert report.ok and (report.score, report.moves) == (data["score"], data["moves"])


def test_deal_file(capsys, tmp_path):
    sample = deals(2, 0, 3)
    path = tmp_path / "deals.txt"
    path.write_text("# three deals\n" + "\n".join(", ".join(map(str, d)) for d in sample) + "\n\n")
    out_file, plot = tmp_path / "results.csv", tmp_path / "scores.svg"
    status, out, _ = run(capsys, "--deal-file", str(path), "--out", str(out_file), "--plot", str(plot))
    assert status == 0
    results = solve_deals(sample)
    assert f"deal 2: score {results.score[1]}" in out
    lines = out_file.read_text().splitlines()
    assert lines[0] == "deal,score,moves,decisions,positions" and len(lines) == 4
    assert lines[2] == (f"2,{results.score[1]},{results.moves[1]},{results.decisions[1]},"
                        f"{results.positions[1]}")
    assert "over 3 deals (deals of deals.txt)" in plot.read_text()
    status, out, _ = run(capsys, "--deal-file", str(path), "--json")
    assert json.loads(out)["score"] == results.score.tolist()


def test_deal_file_not_utf8_is_one_line_error(capsys, tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"\xff\xfe 1 2 3\n")
    status, out, err = run(capsys, "--deal-file", str(path))
    assert status == 2 and out == "" and "not UTF-8" in err and err.count("\n") == 1


def test_one_deal_is_a_result_with_undefined_spread(capsys):
    status, out, err = run(capsys, "1", "--quiet")
    assert status == 0 and "one deal" in out and "Traceback" not in err

    def refuse(name):
        raise AssertionError(f"non-strict JSON constant {name}")

    status, out, _ = run(capsys, "1", "--quiet", "--json")
    data = json.loads(out, parse_constant=refuse)
    assert status == 0 and data["deals"] == 1 and data["sd"] is None and data["complete"]


@pytest.mark.parametrize("content, message", [
    ("1 2 3\n", "line 1: expected 52 cards, got 3"),
    ("\n" + " ".join(["0"] * 52) + "\n", "line 2: card 0 appears 52 times"),
    (" ".join(map(str, range(1, 53))) + "\n", "line 1: card 52 is out of range"),
    ("a b c\n", "line 1: not a list of integers"),
    ("# nothing\n", "no deals found"),
])
def test_bad_deal_files_are_one_line_errors(capsys, tmp_path, content, message):
    path = tmp_path / "bad.txt"
    path.write_text(content)
    status, out, err = run(capsys, "--deal-file", str(path))
    assert status == 2 and out == ""
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize("argv", [
    ["0"], ["-5"], ["x"], [], ["10", "--threads", "0"], ["10", "--threads", "999"],
    ["--deal-file", "/no/such/file"], ["10", "--deal-file", "f"], ["--deals", "/no/such/file"],
    ["--show", "1"], ["10", "--table-capacity", "100"], ["10", "--shuffle", "riffle"],
    ["10", "--precision", "-1"], ["10", "--precision", "1e-300"], ["10", "--precision", "nan"],
    ["10", "--scheduler", "tcp://"], ["10", "--scheduler", "tcp://[::1"],
    ["10", "--scheduler", "inproc://x"],
    ["--show", "1", "2", "--bias"], ["--show", "1", "2", "--checkpoint", "c.json"],
    ["10", "--scheduler", "local:0"], ["10", "--scheduler", "nowhere"], ["10", "--chunk-size", "0"],
    # numbers beyond what the program can honour: one line, never a traceback or a hang
    ["10", "--seed", str(2**64)], ["--show", str(2**64), "0"], ["--show", "0", str(2**64)],
    [str(cli.MAX_DEALS + 1)], [str(10**9), "--chunk-size", "100"],
    ["10", "--chunk-size", str(cli.MAX_CHUNK + 1)], ["10", "--bias"],
    [str(cli.MAX_BIAS_SHUFFLES + 1), "--bias"], ["10", "--table-capacity", str(2**40)],
    # outputs that cannot be written, or that the mode does not make
    ["10", "--plot", "scores.txt"], ["10", "--out", "."], ["--show", "1", "2", "--out", "a.csv"],
    ["100", "--bias", "--plot", "a.png"],
])
def test_bad_input_is_one_line_and_status_2(capsys, argv):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error" in err


def test_bias_command(capsys):
    status, out, _ = run(capsys, "5000", "--bias", "--json")
    data = json.loads(out)
    assert status == 0
    assert data["naive"]["p_value"] < data["fisher-yates"]["p_value"]
    status, out, _ = run(capsys, "5000", "--bias")
    assert "naive" in out and "chi-square" in out


def test_naive_shuffle_study_runs(capsys):
    status, out, _ = run(capsys, "50", "--shuffle", "naive", "--json")
    assert status == 0 and json.loads(out)["shuffle"] == "naive"
