"""``--rules`` on the solitaire command line, the family study, and the hardest deals."""
import json
from pathlib import Path

import numpy as np
import pytest

from jitgames.solitaire import __main__ as cli
from jitgames.solitaire import deals
from jitgames.solitaire.check import check_file
from jitgames.solitaire import family as F
from jitgames.solitaire.family_search import EXACT, UNDECIDED
from jitgames.solitaire.family_study import solve_many

HARD = Path(__file__).parent / "data" / "solitaire_family_hard.json"


def run(capsys, *argv):
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("rules", ["yukon", "alaska"])
def test_study_json_agrees_with_the_rows(capsys, rules):
    status, out, _ = run(capsys, "150", "--seed", "3", "--rules", rules, "--json", "-q",
                         "--chunk-size", "40", "--node-limit", "20000")
    assert status == 0
    data = json.loads(out)
    rows = solve_many(deals(3, 0, 150), F.RULE_NAMES.index(rules), 20_000)
    decided = rows[:, 1] == EXACT
    assert data["complete"] and data["deals"] == 150 and data["rules"] == rules
    assert data["undecided"] == int((~decided).sum()) and data["wins"] == int((rows[:, 0] == 52).sum())
    assert data["histogram"] == {str(s): int(c) for s, c in
                                 enumerate(np.bincount(rows[decided, 0], minlength=53))}
    assert data["mean_lower"] == pytest.approx(rows[:, 0].mean())
    # the upper end: decided deals at their score, undecided ones at their proven bound
    assert data["mean_upper"] == pytest.approx(np.where(decided, rows[:, 0], rows[:, 5]).mean())
    assert data["win_undecided"] == int(((~decided) & (rows[:, 5] == 52)).sum())
    assert (rows[:, 5] >= rows[:, 0]).all() and (rows[decided, 5] == rows[decided, 0]).all()
    low, high = data["win_rate_ci95"]
    assert low <= data["win_rate"] <= high


def test_deal_file_out_and_show(capsys, tmp_path):
    deal_file = tmp_path / "deals.txt"
    decks = deals(2026, 5, 8)
    deal_file.write_text("\n".join(" ".join(map(str, d)) for d in decks) + "\n")
    out_file = tmp_path / "out.csv"
    status, out, _ = run(capsys, "--deal-file", str(deal_file), "--rules", "yukon",
                         "--out", str(out_file))
    assert status == 0 and "under yukon rules" in out
    rows = solve_many(decks, F.YUKON)
    lines = out_file.read_text().splitlines()
    assert lines[0] == "deal,score,status,positions"
    assert [list(map(int, line.split(","))) for line in lines[1:]] == \
        [[k + 1, *r[:3]] for k, r in enumerate(rows.tolist())]
    status, out, _ = run(capsys, "--show", "2026", "5", "--rules", "yukon", "--json")
    data = json.loads(out)
    assert status == 0 and data["score"] == rows[0, 0] and len(data["line"]) > 0
    status, out, _ = run(capsys, "--show", "2026", "5", "--rules", "alaska")
    assert status == 0 and "under alaska rules" in out and "1. " in out


@pytest.mark.parametrize("rules", ["yukon", "alaska"])
def test_show_and_a_deal_file_write_solutions_that_check(capsys, tmp_path, rules):
    """``--show SEED INDEX --rules R --solution FILE`` and ``--deal-file`` of one deal
    write a line to its score (deal 5 is won under both: past the node limit of the
    shortest-line search, the family search's line, labelled); ``check FILE`` accepts
    it with that score."""
    path = tmp_path / "line.txt"
    status, out, _ = run(capsys, "--show", "2026", "5", "--rules", rules, "--json",
                         "--solution", str(path))
    assert status == 0
    shown = json.loads(out)
    text = path.read_text()
    assert f"rules: {rules}\nshuffle: fisher-yates\nseed: 2026\nindex: 5\n" in text
    assert not shown["shortest"] and shown["line_is"].startswith("not proven shortest")
    assert f"# {shown['line_is']}; " in text
    status, out, err = run(capsys, "check", str(path), "--json")
    report = json.loads(out)
    assert status == 0 and err == "" and report["ok"] and report["score"] == shown["score"]
    assert report["deal"] == "deal 5 of seed 2026 (fisher-yates shuffle)"
    # one move line per step shown, plus one per card the solver sent home by itself
    assert report["moves"] == len(shown["line"]) + text.count(">F ") - sum(
        "to its foundation" in step for step in shown["line"])
    one = tmp_path / "one.txt"
    one.write_text(" ".join(map(str, deals(2026, 5, 6)[0])) + "\n")
    status, _, _ = run(capsys, "--deal-file", str(one), "--rules", rules, "--solution",
                       str(tmp_path / "file.txt"))
    from_file = check_file(tmp_path / "file.txt")
    assert status == 0 and from_file.ok and from_file.score == shown["score"]
    assert from_file.source == "the deal line"
    two = tmp_path / "two.txt"
    two.write_text(one.read_text() * 2)
    status, _, err = run(capsys, "--deal-file", str(two), "--rules", rules, "--solution",
                         str(path))
    assert status == 2 and "holds 2 deals" in err and err.count("\n") == 1
    assert path.read_text() == text   # nothing written
    # cut by its node limit, the deal is undecided: the line to the best score found
    # is written (and says so), and checks with that score as the claim
    status, out, _ = run(capsys, "--show", "2026", "5", "--rules", rules, "--json",
                         "--node-limit", "40", "--solution", str(path))
    cut = json.loads(out)
    assert status == 0 and cut["undecided"] and "# undecided (search limit)" in path.read_text()
    assert check_file(path).ok and check_file(path).score == cut["score"] < shown["score"]


@pytest.mark.parametrize("argv", [["3", "--rules", "klondike"], ["3", "--rules", "yukon", "--bias"],
                                  ["--deal-file", "x", "3", "--rules", "alaska"],
                                  ["3", "--rules", "yukon", "--out", "x.csv"]])
def test_bad_rules_commands_are_one_line_errors(capsys, argv):
    status, out, err = run(capsys, *argv)
    assert status == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_etude_default_is_unchanged(capsys):
    """No --rules and --rules etude give the étude's study, byte for byte."""
    first = run(capsys, "200", "--json", "-q", "--seed", "4")
    second = run(capsys, "200", "--json", "-q", "--seed", "4", "--rules", "etude")
    strip = lambda out: {k: v for k, v in json.loads(out).items()
                         if k not in ("seconds", "deals_per_second", "compile_seconds")}
    assert strip(first[1]) == strip(second[1]) and "mean_moves" in json.loads(first[1])


@pytest.mark.slow
def test_hardest_deals_keep_their_scores():
    """The hardest decided deals of a sample (tests/data, derived by this project)."""
    data = json.loads(HARD.read_text())
    for item in data["deals"]:
        deck = deals(data["seed"], item["index"], item["index"] + 1)
        rows = solve_many(deck, F.RULE_NAMES.index(item["rules"]), data["node_limit"])
        assert rows[0, :3].tolist() == [item["score"], EXACT, item["positions"]], item
        # a limit below the positions it needs leaves it undecided, never lost
        cut = solve_many(deck, F.RULE_NAMES.index(item["rules"]), item["positions"] // 2)
        assert cut[0, 1] == UNDECIDED or cut[0, 0] == item["score"]
        assert cut[0, 0] <= item["score"]


def test_library_solve_rules_and_game():
    from jitgames.solitaire import FamilyGame, solve_deals, solve_rules
    from jitgames.errors import InputError

    decks = deals(9, 0, 40)
    yukon = solve_rules(decks, "yukon", node_limit=20_000, threads=2)
    rows = solve_many(decks, F.YUKON, 20_000)
    assert yukon.rules == "yukon" and len(yukon) == 40
    assert yukon.score.tolist() == rows[:, 0].tolist()
    assert yukon.undecided.tolist() == (rows[:, 1] == UNDECIDED).tolist()
    etude = solve_rules(decks[:10], "etude", node_limit=10**6)
    assert etude.score.tolist() == solve_deals(decks[:10], score_only=True).score.tolist()
    assert FamilyGame(decks[0], "alaska").rules == "alaska"
    with pytest.raises(InputError):
        solve_rules(decks, "klondike")


def test_a_resumed_study_reports_the_speed_of_what_it_solved(capsys, tmp_path):
    """Deals read back from a checkpoint took none of the run's time: the rate counts
    only the deals the run solved (a run that solved none gives none)."""
    checkpoint = tmp_path / "study.ckpt"
    argv = ("20", "--rules", "yukon", "--node-limit", "2000", "--chunk-size", "10",
            "--checkpoint", str(checkpoint))
    status, out, _ = run(capsys, *argv, "--json")
    first = json.loads(out)
    assert status == 0 and first["resumed_deals"] == 0
    assert first["deals_per_second"] == pytest.approx(20 / first["seconds"])
    status, out, _ = run(capsys, *argv, "--json")
    again = json.loads(out)
    assert status == 0 and (again["deals"], again["resumed_deals"]) == (20, 20)
    assert again["deals_per_second"] is None
    status, out, _ = run(capsys, *argv)
    assert status == 0 and "20 deals read back" in out and "deals/s" not in out


def test_checkpoint_of_another_search_is_refused(capsys, tmp_path, monkeypatch):
    """A study's checkpoint records the search version: a search that can answer
    differently (another SEARCH_VERSION) refuses it with one line, exit status 2."""
    from jitgames.solitaire import family_cli

    checkpoint = tmp_path / "study.ckpt"
    argv = ("20", "--rules", "yukon", "--node-limit", "2000", "--chunk-size", "10", "-q",
            "--checkpoint", str(checkpoint))
    status, _, _ = run(capsys, *argv)
    assert status == 0 and checkpoint.exists()
    monkeypatch.setattr(family_cli, "SEARCH_VERSION", family_cli.SEARCH_VERSION - 1)
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "search" in err and "Traceback" not in err
