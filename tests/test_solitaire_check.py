"""Solutions anyone can check: the notation's writer, the independent checker, and
the command lines ``--show SEED INDEX --solution FILE`` and ``check FILE``.

The checker (:mod:`jitgames.solitaire.check`) shares no code with the solver; here it
must accept every optimal line the solver writes (with the same score), reject lines
that were tampered with, know each rule set's building rule, and refuse files that
are not solutions with one line and status 2.
"""
import ast
import json
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from jitgames.solitaire import __main__ as cli
from jitgames.solitaire import check as C
from jitgames.solitaire import deals, optimal_line
from jitgames.solitaire import rules as R
from jitgames.solitaire.solution import line_of_moves, solution_text
from tests.reference.solitaire_strategies import hard_deals, random_deals

from .solution_check import check_line

EXAMPLE = Path(__file__).parent / "data" / "solitaire_solution_2026_7.txt"
# Deals of seed 0 with long optimal lines (scores 2 to 52; 24 and 31 are won).
LONG_LINES = [2, 3, 11, 14, 16, 22, 24, 31]
lines_setting = settings(max_examples=25, suppress_health_check=[HealthCheck.filter_too_much])


def run(capsys, *argv):
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# ----------------------------------------------------------------------------- independence

def test_the_checker_imports_nothing_of_the_solver():
    """Its deck, shuffle, deal and rules are its own: it imports only the standard
    library, the error type and the file/CLI helpers (never a solitaire module)."""
    tree = ast.parse(Path(C.__file__).read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            imported.add("." * node.level + (node.module or ""))
        elif isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
    assert imported <= {"__future__", "collections", "dataclasses", "..errors", ".._store",
                        ".._cli"}, imported


@settings(max_examples=40)
@given(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1),
       st.sampled_from(["fisher-yates", "naive"]))
def test_the_checkers_own_shuffle_deals_the_documented_deals(seed, index, shuffle):
    assert C.shuffled_deck(seed, index, shuffle) == deals(seed, index, index + 1,
                                                          shuffle)[0].tolist()


# ----------------------------------------------------------------------------- solver lines pass

@pytest.mark.parametrize("index", LONG_LINES)
def test_long_optimal_lines_check(index):
    deck = deals(0, index, index + 1)[0]
    report = check_line(deck, optimal_line(deck), seed=0, index=index)
    assert report.source == f"deal {index} of seed 0 (fisher-yates shuffle)"


@lines_setting
@given(st.one_of(random_deals(), hard_deals()))
def test_every_solver_line_checks_with_the_same_score(deck):
    check_line(deck, optimal_line(deck))


@lines_setting
@given(st.one_of(random_deals(), hard_deals()))
def test_an_etude_line_is_an_alaska_line_with_its_foundation_plays_written_out(deck):
    """Alaska allows every étude move (same suit, one rank higher) and leaves foundation
    plays to the player: the étude's line written for alaska (each automatic play an
    ``F`` line, those of the deal first) replays to the same score; it is no yukon line
    (same-suit builds are illegal there) once it builds on a card (a king into an empty
    pile is legal everywhere)."""
    line = optimal_line(deck)
    text = solution_text(deck, line, rules="alaska")
    report = C.check_text(text)
    assert report.ok and report.score == line.score == text.count(">F ")
    assert report.moves == line.moves + line.score and " + " not in text
    if any(step.onto is not None for step in line.steps):
        yukon = C.check_text(solution_text(deck, line, rules="yukon"))
        assert not yukon.legal and "does not go on" in yukon.reason


@settings(max_examples=40)
@given(st.one_of(random_deals(), hard_deals()), st.lists(st.integers(0, 15), max_size=60))
def test_any_legal_game_replays_to_the_same_score(deck, choices):
    """Not only optimal lines: a game of arbitrary legal moves (the solver's rules pick
    them) replays under the checker's own rules to the same foundations, as an étude
    line and as an alaska line with its foundation plays written out."""
    pos, buffer, moves = R.new_position(deck), np.zeros(R.MAX_MOVES, dtype=np.int64), []
    for choice in choices:
        n = R.legal_moves(pos, buffer, 0)
        if n == 0:
            break
        moves.append(int(buffer[choice % n]))
        R.apply_move(pos, moves[-1])
    line = line_of_moves(deck, moves)
    assert line.score == int(pos[R.SCORE])
    check_line(deck, line)
    alaska = C.check_text(solution_text(deck, line, rules="alaska"))
    assert alaska.ok and alaska.score == line.score


def _mutated(text: str, change) -> str:
    lines = text.splitlines()
    moves = [k for k, line in enumerate(lines) if ">" in line]
    return "\n".join(change(lines, moves)) + "\n"


@lines_setting
@given(st.one_of(random_deals(), hard_deals(), st.sampled_from(LONG_LINES).map(
    lambda i: deals(0, i, i + 1)[0])), st.data())
def test_a_line_with_a_move_dropped_is_rejected_or_scores_lower(deck, data):
    """The optimal line has the fewest moves: without one of them the rest is illegal
    somewhere or ends below the claimed score."""
    line = optimal_line(deck)
    assume(line.moves > 0)
    drop = data.draw(st.integers(0, line.moves - 1))
    text = _mutated(solution_text(deck, line),
                    lambda lines, moves: lines[:moves[drop]] + lines[moves[drop] + 1:])
    report = C.check_text(text)
    assert not report.ok
    assert not report.legal or report.score < report.claimed


@lines_setting
@given(st.one_of(random_deals(), st.sampled_from(LONG_LINES).map(
    lambda i: deals(0, i, i + 1)[0])), st.data())
def test_a_changed_move_is_rejected_at_its_line(deck, data):
    """A move sent to another pile (a card that is not a king has one destination), a
    wrong list of moved cards or of foundation plays: illegal at that very line."""
    line = optimal_line(deck)
    assume(line.moves > 0)
    k = data.draw(st.integers(0, line.moves - 1))
    step = line.steps[k]
    text = solution_text(deck, line)
    lines = text.splitlines()
    at = [n for n, row in enumerate(lines) if ">" in row][k]
    fields = lines[at].split()
    how = data.draw(st.sampled_from(["target", "moved", "played"]))
    if how == "target":
        assume(step.card % 13 != 12)
        other = data.draw(st.sampled_from([p for p in range(7) if p != step.pile]))
        fields[1] = f"{step.from_pile + 1}>{other + 1}"
    elif how == "moved":
        fields = fields[:3] + [C.name((step.card + 1) % 52)] + fields[3:]
    else:
        fields += ["Kc"] if "+" in fields else ["+", "Kc"]   # a card the rules did not play
    lines[at] = " ".join(fields)
    report = C.check_text("\n".join(lines) + "\n")
    assert not report.legal and report.line == at + 1, (report, lines[at])
    assert report.moves == k


def test_a_wrong_claim_is_reported():
    deck = deals(0, 16, 17)[0]
    text = solution_text(deck, optimal_line(deck), seed=0, index=16)
    report = C.check_text(text.replace("score: 9", "score: 10"))
    assert report.legal and report.score == 9 and report.claimed == 10 and not report.ok
    assert "differs from the claimed 10" in C.report_line(report)


# ----------------------------------------------------------------------------- the rules

def _table(rules, piles, down=None, foundation=(0, 0, 0, 0)):
    """A table with the given piles (card names, bottom to top) instead of a deal."""
    table = C.Table(list(range(52)), rules)
    table.piles = [[C.parse_card(c) for c in pile.split()] for pile in piles]
    table.down = list(down or [0] * 7)
    table.foundation = list(foundation)
    return table


@pytest.mark.parametrize("rules, card, onto, legal", [
    ("etude", "9h", "Th", True), ("etude", "9h", "Ts", False), ("etude", "9h", "8h", False),
    ("yukon", "9h", "Ts", True), ("yukon", "9h", "Tc", True), ("yukon", "9h", "Td", False),
    ("yukon", "9h", "Th", False), ("yukon", "9s", "Th", True), ("yukon", "9h", "8s", False),
    ("alaska", "9h", "Th", True), ("alaska", "9h", "8h", True), ("alaska", "9h", "Ts", False),
    ("alaska", "9h", "Jh", False), ("alaska", "Kd", "Qd", True), ("alaska", "Ad", "2d", True),
])
def test_each_rule_set_builds_as_its_rules_say(rules, card, onto, legal):
    table = _table(rules, [f"{card} 3c", onto, "", "", "", "", ""])
    if legal:
        assert table.move(C.parse_card(card), 0, 1) == [C.parse_card(card), C.parse_card("3c")]
        assert table.piles[1][-2:] == [C.parse_card(card), C.parse_card("3c")]
    else:
        with pytest.raises(C._Illegal, match="does not go on"):
            table.move(C.parse_card(card), 0, 1)


@pytest.mark.parametrize("rules", C.RULES)
def test_kings_alone_go_to_empty_piles_and_face_down_cards_stay(rules):
    card = C.parse_card
    table = _table(rules, ["5d Qh Kc", "Qs 9c", "", "", "", "", ""], down=[1, 0, 0, 0, 0, 0, 0])
    with pytest.raises(C._Illegal, match="only a king"):
        table.move(card("Qs"), 1, 2)
    with pytest.raises(C._Illegal, match="face down"):
        table.move(card("5d"), 0, 2)
    with pytest.raises(C._Illegal, match="not in pile 2"):
        table.move(card("Kc"), 1, 2)
    table.move(card("Kc"), 0, 2)
    assert table.piles[2] == [card("Kc")] and table.down[0] == 1
    with pytest.raises(C._Illegal, match="only a king"):   # a queen, even uncovered
        table.move(card("Qh"), 0, 3)
    turned = _table(rules, ["5d Kh", "", "", "", "", "", ""], down=[1, 0, 0, 0, 0, 0, 0])
    turned.move(card("Kh"), 0, 1)
    assert turned.down[0] == 0 and turned.piles[0] == [card("5d")]  # turned face up


def test_foundation_plays_are_the_players_under_yukon_and_alaska():
    for rules in ("yukon", "alaska"):
        table = _table(rules, ["Ah", "2h 3s", "", "", "", "", ""])
        assert table.automatic_plays() == [] and table.score == 0
        table.to_foundation(C.parse_card("Ah"), 0)
        with pytest.raises(C._Illegal, match="not the top card"):
            table.to_foundation(C.parse_card("2h"), 1)
        with pytest.raises(C._Illegal, match="does not fit its foundation"):
            table.to_foundation(C.parse_card("3s"), 1)
        assert table.score == 1
    # deal 7 of seed 2026 shows As, 2s and Ad on top: the etude plays them at once,
    # yukon waits for the player's moves
    header = "\n".join([C.FORMAT_LINE, "rules: yukon", "seed: 2026", "index: 7", "score: 3"])
    assert C.check_text(header + "\n").score == 0
    played = C.check_text(header + "\nAs 1>F As\n")
    assert not played.legal and "not in pile 1" in played.reason
    etude = C.check_text(header.replace("yukon", "etude") + "\n")
    assert etude.ok and etude.score == 3
    again = C.check_text(header.replace("yukon", "etude") + "\nAd 3>F Ad\n")
    assert not again.legal and "by themselves" in again.reason


def test_etude_plays_foundations_by_itself_and_checks_the_plus_list():
    deck = deals(2026, 7, 8)[0]
    line = optimal_line(deck)
    text = solution_text(deck, line, seed=2026, index=7)
    assert "3d 2>6 3d Kd + Ah 2h" in text
    assert C.check_text(text.replace(" + Ah 2h", "")).ok      # the '+' list may be left out
    wrong = C.check_text(text.replace("+ Ah 2h", "+ Ah"))
    assert not wrong.legal and "the line says Ah" in wrong.reason


def test_nothing_leaves_a_foundation():
    text = "\n".join([C.FORMAT_LINE, "rules: yukon", "seed: 2026", "index: 7", "score: 3",
                      "As F>1 As"])
    with pytest.raises(C.SolutionError, match="line 6: 'F' is not a pile"):
        C.check_text(text)


# ----------------------------------------------------------------------------- command lines

def test_show_writes_a_solution_that_check_accepts(capsys, tmp_path):
    path = tmp_path / "line.txt"
    status, out, _ = run(capsys, "--show", "2026", "7", "--solution", str(path))
    assert status == 0 and "Optimal score 5" in out
    assert path.read_text() == EXAMPLE.read_text()   # the committed example is this line
    status, out, err = run(capsys, "check", str(path))
    assert status == 0 and err == ""
    assert out.strip() == ("2 legal move(s) under etude rules on deal 7 of seed 2026 "
                           "(fisher-yates shuffle): final score 5, which equals the claim")
    status, out, _ = run(capsys, "check", str(path), "--json")
    record = json.loads(out)
    assert status == 0 and record["ok"] and record["score"] == 5 and record["complete"]


def test_check_reports_the_first_illegal_move_with_status_1(capsys, tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text(EXAMPLE.read_text().replace("9c 5>2", "9c 5>3"))
    status, out, err = run(capsys, "check", str(path))
    assert status == 1 and err == ""
    assert out.startswith("illegal move at line 10: 9c does not go on 8d under etude rules")
    path.write_text(EXAMPLE.read_text().replace("score: 5", "score: 6"))
    status, out, _ = run(capsys, "check", str(path), "--json")
    assert status == 1 and json.loads(out)["score_equals_claim"] is False


def test_deal_file_solution(capsys, tmp_path):
    deck = deals(0, 24, 25)[0]   # a won deal
    (tmp_path / "one.txt").write_text(" ".join(map(str, deck)) + "\n")
    path = tmp_path / "won.txt"
    status, _, _ = run(capsys, "--deal-file", str(tmp_path / "one.txt"), "--solution", str(path))
    assert status == 0
    report = C.check_file(path)
    assert report.ok and report.score == 52 and report.source == "the deal line"
    (tmp_path / "two.txt").write_text(" ".join(map(str, deck)) + "\n" * 2 + " ".join(
        map(str, deals(0, 0, 1)[0])) + "\n")
    status, _, err = run(capsys, "--deal-file", str(tmp_path / "two.txt"), "--solution",
                         str(path))
    assert status == 2 and "holds 2 deals" in err and err.count("\n") == 1
    status, _, err = run(capsys, "20", "--solution", str(path))
    assert status == 2 and "--solution applies to" in err


HEADER = [C.FORMAT_LINE, "rules: etude", "seed: 2026", "index: 7", "score: 5"]


@pytest.mark.parametrize("text, message", [
    ("", "not a solution file"),
    ("hello\n", "not a solution file"),
    ("\n".join(HEADER[:1] + HEADER[2:]), "no 'rules' line"),
    ("\n".join(HEADER[:-1]), "no 'score' line"),
    ("\n".join(HEADER).replace("etude", "spider"), "unknown rules 'spider'"),
    ("\n".join(HEADER).replace("score: 5", "score: 53"), "score must be an integer from 0 to 52"),
    ("\n".join(HEADER).replace("score: 5", "score: \u00b2"), "score must be an integer"),
    ("\n".join(HEADER[:2] + HEADER[4:] + ["deal: " + "\u0663 " * 52]), "52 card ids"),
    ("\n".join(HEADER).replace("index: 7", "index: 18446744073709551616"), "index must be"),
    ("\n".join(HEADER[:3] + HEADER[4:]), "both 'seed' and 'index'"),
    ("\n".join(HEADER + ["colour: red"]), "unknown header key 'colour'"),
    ("\n".join(HEADER + ["score: 4"]), "'score' given twice"),
    ("\n".join(HEADER + ["deal: " + " ".join(map(str, range(52)))]), "differs from deal 7"),
    ("\n".join(HEADER[:2] + HEADER[4:] + ["deal: " + "1 " * 52]), "not a permutation"),
    ("\n".join(HEADER[:2] + HEADER[4:] + ["deal: 1 2 3"]), "52 card ids"),
    ("\n".join(HEADER[:2] + HEADER[4:]), "needs 'deal' or 'seed'"),
    ("\n".join(HEADER + ["9c 5-2 9c"]), "a move is CARD FROM>TO"),
    ("\n".join(HEADER + ["9x 5>2 9c"]), "'9x' is not a card"),
    ("\n".join(HEADER + ["9c 8>2 9c"]), "'8' is not a pile"),
    ("\n".join(HEADER + ["9c 5>2 9c +"]), "nothing after '+'"),
    ("\n".join(HEADER + ["9c 5>2 9c Ah 3d Kd", "rules: yukon"]), "after the moves"),
])
def test_a_file_that_is_not_a_solution_is_one_line_and_status_2(capsys, tmp_path, text,
                                                                    message):
    path = tmp_path / "s.txt"
    path.write_text(text)
    status, out, err = run(capsys, "check", str(path))
    assert status == 2 and out == "" and err.count("\n") == 1 and message in err, err


def test_unreadable_and_hostile_files_are_refused(capsys, tmp_path):
    big = tmp_path / "big.txt"
    big.write_bytes(b"#" * (C.MAX_BYTES + 1))
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"\xff\xfe" * 10)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    many = tmp_path / "many.txt"
    many.write_text("\n".join(HEADER + ["9c 5>2 9c"] * (C.MAX_MOVE_LINES + 1)))
    for path, message in [(tmp_path / "missing", "cannot read"), (tmp_path, "not a regular"),
                          (big, "larger than"), (binary, "not UTF-8"), (fifo, "a FIFO"),
                          ("/dev/zero", "not a regular"), (many, "more than 10,000 moves")]:
        status, out, err = run(capsys, "check", str(path))
        assert status == 2 and out == "" and err.count("\n") == 1 and message in err, err


@settings(max_examples=60)
@given(st.lists(st.one_of(st.text(alphabet="AKQJT98 2shdcF>+1734:#rulesco\t10", max_size=30),
                          st.text(max_size=30)), max_size=6))
def test_any_move_lines_give_a_report_or_one_error(rows):
    text = "\n".join(HEADER + rows) + "\n"
    try:
        report = C.check_text(text)
    except C.SolutionError as exc:
        assert "\n" not in str(exc)
    else:
        assert 0 <= report.score <= 52 and report.moves <= len(rows)
