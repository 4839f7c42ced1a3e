"""Terminal game driven by scripted stdin; search tree; tournaments and ratings."""
import io
import json
import sqlite3

import numpy as np
import pytest

from jitgames._jit import threads
from jitgames.kalah import evaluation, play, rules, search, tournament
from jitgames.kalah.__main__ import main


@pytest.fixture(autouse=True)
def _records_in_tmp(tmp_path, monkeypatch):
    """Games a test plays are recorded under its own data directory."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def _run(argv, stdin, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_person_plays_with_illegal_and_malformed_moves(monkeypatch, capsys):
    # Kalah(3,1): pits 1..3. "9" is off the board, "x" malformed, "1" then empties
    # pit 1, so the second "1" is refused; later answers cover every later turn.
    script = "9\nx\n\n1\n1\n" + "3\n2\n1\n" * 10
    status, out, err = _run(["play", "--pits", "3", "--stones", "1", "--depth", "3"], script,
                            monkeypatch, capsys)
    assert status == 0 and err == ""
    assert "refused: no pit 9: your pits are numbered 1..3" in out
    assert "refused: not a pit number: 'x'" in out
    assert "refused: not a pit number: ''" in out
    assert "North (computer) plays pit" in out
    assert "Game over: South" in out
    assert "is empty" in out   # some scripted answer hit an empty pit


def test_end_of_input_and_resignation_end_cleanly(monkeypatch, capsys):
    status, out, err = _run(["play", "--stones", "3"], "", monkeypatch, capsys)
    assert status == 0 and "end of input: game abandoned." in out and err == ""
    status, out, _ = _run(["play", "--human", "north", "--depth", "2"], "q\n", monkeypatch,
                          capsys)
    assert status == 0 and "South (computer) plays pit" in out and "North resigns." in out


def test_computer_plays_itself_with_tree(monkeypatch, capsys):
    status, out, _ = _run(["play", "--human", "none", "--pits", "4", "--stones", "2",
                           "--depth", "3", "--tree", "2", "--first", "north",
                           "--evaluation", "sides"], "", monkeypatch, capsys)
    assert status == 0
    assert out.index("North (computer) plays") < out.index("South (computer) plays")
    assert "search tree (values from South's view):" in out
    assert "Game over:" in out


def test_play_bad_options(monkeypatch, capsys):
    for argv in (["play", "--evaluation", "bogus"], ["play", "--pits", "10", "--stones", "10"],
                 ["play", "--depth", "0"]):
        try:
            status, _, err = _run(argv, "", monkeypatch, capsys)
        except SystemExit as exc:
            status, err = exc.code, capsys.readouterr().err
        assert status == 2 and err.count("\n") == 1


def test_undecodable_input_is_refused_and_asked_again(monkeypatch, capsys):
    stdin = io.TextIOWrapper(io.BytesIO(b"\xff\xfe\n"), encoding="utf-8", errors="strict")
    monkeypatch.setattr("sys.stdin", stdin)
    status = main(["play", "--pits", "3", "--stones", "1"])
    out, err = capsys.readouterr()
    assert status == 0 and err == ""
    assert "refused: not text" in out and "end of input: game abandoned." in out


@pytest.mark.parametrize("argv,message", [
    # a traceback from stream_key / np.asarray before
    (["play", "--seed", "99999999999999999999999"], "integer from 0 to"),
    (["play", "--seed", "-1"], "integer from 0 to"),
    (["play", "--evaluation", "99999999999999999999999,0,0,0,0,0,1"], "weights must be"),
    # beyond the search's INF the values would be silently wrong
    (["play", "--evaluation", "0,0,0,0,0,0,1000000001"], "weights must be"),
    (["tournament", "99999999999999999999999,0,0,0,0,0,1@2", "store@2"], "weights must be"),
    # a traceback from np.zeros, or a hang setting up the openings
    (["tournament", "--openings", "99999999999999999999999"], "integer from 1 to 100000"),
    (["tournament", "--openings", "100001"], "integer from 1 to 100000"),
])
def test_out_of_range_options_are_one_line_errors(argv, message, monkeypatch, capsys):
    try:
        status, _, err = _run(argv, "", monkeypatch, capsys)
    except SystemExit as exc:
        status, err = exc.code, capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and message in err


def test_largest_weights_are_accepted(monkeypatch, capsys):
    status, out, _ = _run(["play", "--human", "none", "--pits", "3", "--stones", "2",
                           "--depth", "2", "--evaluation=-1000000000,0,0,1000000000"], "",
                          monkeypatch, capsys)
    assert status == 0 and "Game over:" in out


def test_tournament_unusable_db_is_refused_before_the_games(tmp_path, capsys, monkeypatch):
    def no_games(*args, **kwargs):
        raise AssertionError("games played before the database was checked")

    monkeypatch.setattr(tournament, "play_round", no_games)
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_text("not a database, " * 100)
    for db in (blocker / "k.sqlite", garbage):
        assert main(["tournament", "--pits", "3", "--stones", "2", "--openings", "2",
                     "--db", str(db)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "database" in err and "Traceback" not in err


@pytest.mark.parametrize("seed", range(6))
def test_traced_tree_is_the_kernel_search(seed):
    rng = np.random.default_rng(seed)
    board = rules.new_board(5, 3)
    player = tournament.random_opening(board, int(rng.integers(0, 8)), 0,
                                       np.uint64(seed + 1))
    if rules.is_over(board):
        return
    w = evaluation.weights_for("store", 5)
    depth = int(rng.integers(1, 6))
    nodes = np.zeros(1, np.int64)
    move, value, _ = search.choose_move(board, player, depth, w, 0, search.ALPHABETA, True,
                                        False, np.uint64(0), 0, nodes)
    t_move, t_value, t_nodes, lines = play.trace_tree(board, player, depth, w, 0, True, 3)
    assert (t_move, t_value, t_nodes) == (move, value, nodes[0])
    assert all(line.startswith(("South", "North", "  ", "cut off")) for line in lines)


def test_draw_board_and_moves():
    text = play.draw_board(rules.new_board(3, 2))
    assert text.splitlines()[1].strip() == "[ 2][ 2][ 2]"
    assert play.pit_index(3, rules.NORTH, 1) == 4 and play.pit_number(3, 4) == 1
    with pytest.raises(ValueError, match="empty"):
        play.parse_move("1", np.array([0, 1, 0, 0, 1, 0], np.int8), rules.SOUTH)


def test_tournament_rates_its_own_games_and_a_rerun_adds_none(tmp_path, capsys):
    db = tmp_path / "k.sqlite"
    argv = ["tournament", "store@1", "store@3", "--pits", "4", "--stones", "3",
            "--openings", "6", "--db", str(db), "--json", "--quiet"]
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["games_this_run"] == 12 and first["games_rated"] == 12
    assert first["games_new_in_database"] == 12 and first["pooled"] is False
    rows = {s["player"]: s for s in first["standings"]}
    assert rows["store@1"]["wins"] == rows["store@3"]["losses"]
    assert rows["store@1"]["games"] == 12
    assert abs(rows["store@1"]["elo"] + rows["store@3"]["elo"]) < 1e-6
    assert rows["store@3"]["low"] < rows["store@3"]["elo"] < rows["store@3"]["high"]
    # The same tournament again: the same games, so the same ratings and intervals, and
    # nothing new stored.
    assert main(argv) == 0
    second = json.loads(capsys.readouterr().out)
    assert second["games_rated"] == 12 and second["games_new_in_database"] == 0
    assert second["standings"] == first["standings"]
    assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM kalah_games").fetchone()[0] == 12
    # --pool rates every distinct stored game once: a rerun adds no game to the pool ...
    assert main(argv + ["--pool"]) == 0
    pooled = json.loads(capsys.readouterr().out)
    assert pooled["pooled"] is True and pooled["games_rated"] == 12
    assert pooled["games_new_in_database"] == 0 and pooled["standings"] == first["standings"]
    # ... and another seed's openings (other games) do add to it
    assert main(argv + ["--seed", "2"]) == 0
    other = json.loads(capsys.readouterr().out)
    assert other["games_rated"] == 12 and other["games_new_in_database"] == 12
    assert main(argv + ["--seed", "2", "--pool"]) == 0
    both = json.loads(capsys.readouterr().out)
    assert both["games_rated"] == 24 and both["games_new_in_database"] == 0
    games = {s["player"]: s["games"] for s in both["standings"]}
    assert games == {"store@1": 24, "store@3": 24}
    # other random plies make other openings: other games, not the same ones again
    assert main(argv + ["--random-plies", "2", "--pool"]) == 0
    assert json.loads(capsys.readouterr().out)["games_rated"] == 36
    assert main(argv + ["--pool"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["games_rated"] == 36 and again["games_new_in_database"] == 0


def test_tournament_migrates_version_1_and_pools_only_full_definitions(tmp_path, capsys):
    """A database of schema version 1 (no random plies, the same games stored twice) is
    migrated in place with its rows kept; its rows, which cannot be told apart, stay out
    of pools."""
    db = tmp_path / "old.sqlite"
    con = sqlite3.connect(db)
    con.executescript(tournament.SCHEMA.migrations[0])
    con.executemany("INSERT INTO kalah_games (created, pits, stones, variant, south, north, "
                    "seed, opening, margin) VALUES (0, 4, 3, 'empty-capture', ?, ?, 1, 0, ?)",
                    [("store@1", "store@3", -5), ("store@1", "store@3", -5)])
    con.execute(f"PRAGMA application_id = {tournament.SCHEMA.application_id}")
    con.execute("PRAGMA user_version = 1")
    con.commit()
    con.close()
    assert main(["tournament", "store@1", "store@3", "--pits", "4", "--stones", "3",
                 "--openings", "3", "--db", str(db), "--json", "--quiet", "--pool"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games_rated"] == 6 and out["games_new_in_database"] == 6
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA user_version").fetchone()[0] == tournament.SCHEMA.version == 2
    assert con.execute("SELECT COUNT(*) FROM kalah_games WHERE random_plies IS NULL"
                       ).fetchone()[0] == 2
    con.close()


def test_tournament_text_weight_search_and_bad_input(tmp_path, capsys):
    assert main(["tournament", "store@2", "sides@2", "0,0,1,2@2", "--pits", "3",
                 "--stones", "3", "--openings", "4", "--db", str(tmp_path / "t.sqlite"),
                 "--search-weights", "3", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "elo" in out and "weight search (3 generations" in out
    for argv in (["tournament", "store@2", "--db", str(tmp_path / "x")],
                 ["tournament", "store", "sides@2", "--db", str(tmp_path / "x")],
                 ["tournament", "store@2", "1,2@2", "--db", str(tmp_path / "x")]):
        assert main(argv) == 2
        assert capsys.readouterr().err.count("\n") == 1


def test_parallel_games_do_not_depend_on_thread_count():
    boards, first = tournament.make_openings(4, 3, 8, 3, 0, seed=9)
    w = np.stack([evaluation.weights_for("store", 4), evaluation.weights_for("sides", 4)])
    depths = np.array([2, 3])
    results = []
    for n in (1, 2):
        margins = np.zeros(8, np.int64)
        with threads(min(n, __import__("numba").config.NUMBA_NUM_THREADS)):
            tournament.play_games(boards, first, np.zeros(8, np.int64), np.ones(8, np.int64), w,
                                  depths, 0, margins)
        results.append(margins.tolist())
    assert results[0] == results[1]


def test_ratings_order_and_intervals():
    games = [("a", "b", 3)] * 8 + [("b", "a", -2)] * 6 + [("b", "a", 1)] * 2
    rated = tournament.ratings(["a", "b"], games)
    assert rated["a"][0] > 0 > rated["b"][0]
    assert rated["a"][1] < rated["a"][0] < rated["a"][2]


def test_ctrl_c_in_tournament_keeps_finished_games(tmp_path, capsys, monkeypatch):
    calls = []
    real = tournament.play_games

    def interrupt_second_pairing(*args):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(tournament, "play_games", interrupt_second_pairing)
    db = tmp_path / "k.sqlite"
    assert main(["tournament", "store@1", "store@2", "--pits", "3", "--stones", "2",
                 "--openings", "3", "--db", str(db), "--json", "--quiet"]) == 130
    out = json.loads(capsys.readouterr().out)
    assert out["complete"] is False and out["games_this_run"] == 3 and out["games_rated"] == 3
    assert out["games_new_in_database"] == 3
    # the rest of the tournament, run again: the 3 stored games are not stored twice
    monkeypatch.setattr(tournament, "play_games", real)
    assert main(["tournament", "store@1", "store@2", "--pits", "3", "--stones", "2",
                 "--openings", "3", "--db", str(db), "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games_this_run"] == 6 and out["games_new_in_database"] == 3


def _computer_moves(out):
    return [int(line.split("plays pit ")[1].split()[0]) for line in out.splitlines()
            if "(computer) plays pit" in line]


def _reference_self_play(m, n, depth, randomize, seed):
    """Pit numbers of a computer-vs-computer game by the reference search."""
    from tests.reference import kalah as ref

    board, player = rules.new_board(m, n), 0
    key = ref.below.__globals__["stream_key"](seed, 0) if randomize else 0
    w = evaluation.weights_for("store", m)
    counter, moves = 0, []
    while not ref.is_over(board):
        move, _, counter = ref.choose_move(board, player, depth, w, 0, 0, False, randomize,
                                           key, counter, None)
        moves.append(play.pit_number(m, move))
        player, _ = ref.apply_move(board, player, move, 0)
    return moves


def test_random_ties_by_default_with_the_seed_printed_and_replayable(monkeypatch, capsys):
    argv = ["play", "--human", "none", "--pits", "4", "--stones", "2", "--depth", "1"]
    status, out, _ = _run(argv, "", monkeypatch, capsys)
    assert status == 0
    seed = int(out.split("replay with --seed ")[1].split(")")[0])
    status, again, _ = _run(argv + ["--seed", str(seed)], "", monkeypatch, capsys)
    assert status == 0 and again == out
    assert _computer_moves(out) == _reference_self_play(4, 2, 1, True, seed)
    games = set()
    for s in range(6):
        _, text, _ = _run(argv + ["--seed", str(s)], "", monkeypatch, capsys)
        moves = _computer_moves(text)
        assert moves == _reference_self_play(4, 2, 1, True, s)
        games.add(tuple(moves))
    assert len(games) > 1   # depth 1 ties abound: the seeds give different games
    _, fixed, _ = _run(argv + ["--no-random"], "", monkeypatch, capsys)
    assert "lowest pit" in fixed and "seed" not in fixed
    assert _computer_moves(fixed) == _reference_self_play(4, 2, 1, False, 0)
    status, _, err = _run(argv + ["--no-random", "--seed", "3"], "", monkeypatch, capsys)
    assert status == 2 and "--no-random" in err and err.count("\n") == 1


def test_hint_names_every_equally_good_pit_and_prints_the_tree(monkeypatch, capsys):
    from tests.reference import kalah as ref

    # Kalah(6,4) at depth 1: pits 3..6 each put a stone in the store (4 ties).
    for depth in (1, 3):
        status, out, _ = _run(["play", "--depth", str(depth), "--tree", "1"], "?\nq\n",
                              monkeypatch, capsys)
        assert status == 0
        board = rules.new_board(6, 4)
        w = evaluation.weights_for("store", 6)
        values = {}
        for pit in range(6):
            child = board.copy()
            nxt, _ = ref.apply_move(child, 0, pit, 0)
            values[pit + 1] = ref.minimax(child, nxt, depth - 1, w, 0, None, [0])
        best = max(values.values())
        ties = sorted(p for p, v in values.items() if v == best)
        line = next(x for x in out.splitlines() if "hint:" in x)
        assert line.split("hint: ")[1].startswith(
            f"pit{'s' if len(ties) > 1 else ''} {', '.join(map(str, ties))} [value {best} for South,")
        assert "search tree (values from South's view):" in out.split("hint:")[1]
        assert "South resigns." in out


def test_move_ordering_switch_changes_nodes_not_moves(monkeypatch, capsys):
    argv = ["play", "--human", "none", "--pits", "5", "--stones", "3", "--depth", "5",
            "--no-random"]
    _, ordered, _ = _run(argv, "", monkeypatch, capsys)
    _, plain, _ = _run(argv + ["--no-ordering"], "", monkeypatch, capsys)
    assert "no move ordering" in plain and "no move ordering" not in ordered

    def decisions(text):
        """(move line, value, nodes) of every computer move."""
        rows = []
        for line in text.splitlines():
            if "plays pit" in line:
                move, rest = line.split("  [value ")
                value, nodes = rest.rstrip("]").split(", ")
                value = value.split(" for ")[0]   # "3 for North": the mover's side
                rows.append((move, int(value), int(nodes.split()[0])))
        return rows

    with_order, without = decisions(ordered), decisions(plain)
    assert [r[:2] for r in with_order] == [r[:2] for r in without]
    assert sum(r[2] for r in with_order) < sum(r[2] for r in without)
    board = rules.new_board(5, 3)
    w = evaluation.weights_for("store", 5)
    for ordering, rows in ((True, with_order), (False, without)):
        count = np.zeros(1, np.int64)
        search.choose_move(board.copy(), 0, 5, w, 0, search.ALPHABETA, ordering, False,
                           np.uint64(0), 0, count)
        assert rows[0][2] == count[0]


def test_head_to_head_score_and_interval():
    rows = []
    # a vs b on 4 openings: opening 0: a wins both; 1: split; 2: a wins one, draws one;
    # 3: b wins both. Per-opening shares of a: 1, 0.5, 0.75, 0.
    for opening, (as_south, as_north) in enumerate([(5, -2), (3, 4), (0, -1), (-2, 6)]):
        rows.append(("a", "b", opening, as_south))
        rows.append(("b", "a", opening, as_north))
    (h,) = tournament.head_to_head(["a", "b"], rows)
    shares = [1.0, 0.5, 0.75, 0.0]
    mean = sum(shares) / 4
    sd = (sum((x - mean) ** 2 for x in shares) / 3) ** 0.5
    assert (h.first, h.second, h.openings) == ("a", "b", 4)
    assert (h.wins, h.draws, h.losses) == (4, 1, 3)
    assert h.score == pytest.approx(mean)
    assert h.low == pytest.approx(max(0, mean - 1.96 * sd / 2))
    assert h.high == pytest.approx(min(1, mean + 1.96 * sd / 2))


def test_tournament_with_the_win_rule_reports_head_to_head(tmp_path, capsys):
    assert main(["tournament", "store+win@3", "store@3", "--pits", "4", "--stones", "3",
                 "--openings", "8", "--db", str(tmp_path / "w.sqlite"), "--json",
                 "--quiet"]) == 0
    result = json.loads(capsys.readouterr().out)
    (h,) = result["head_to_head"]
    rows = {s["player"]: s for s in result["standings"]}
    assert (h["first"], h["second"], h["openings"]) == ("store+win@3", "store@3", 8)
    assert (h["wins"], h["draws"], h["losses"]) == (
        rows["store+win@3"]["wins"], rows["store+win@3"]["draws"], rows["store+win@3"]["losses"])
    assert h["score"] == pytest.approx((h["wins"] + h["draws"] / 2) / 16)


def test_the_answers_are_visible_from_help(capsys):
    for argv, phrases in ((["play", "--help"], ("--no-random", "--no-ordering", "+win",
                                                 "for a hint", "replayed with --seed")),
                          (["tournament", "--help"], ("+win", "95% interval"))):
        try:
            status = main(argv)
        except SystemExit as exc:
            status = exc.code
        text = " ".join(capsys.readouterr().out.split())
        assert status == 0
        for phrase in phrases:
            assert phrase in text, phrase


# -- the console on the game model: help, undo, values, announcements, records ----------------

def test_help_values_position_and_undo_at_the_terminal(monkeypatch, capsys):
    from jitgames.kalah.game import Coach, Game

    script = "help\nvalues\nposition\nundo\n1\nundo\nposition\n2\nq\n"
    status, out, err = _run(["play", "--pits", "3", "--stones", "3", "--opponent", "perfect",
                             "--no-random"], script, monkeypatch, capsys)
    assert status == 0 and err == ""
    assert "Commands at your turn:" in out and "Last stone in your store: you move again" in out
    advice = Coach().advise(Game(3, 3))
    shown = ", ".join(f"pit {p + 1}: {v:+d}" for p, v in zip(advice.moves, advice.values))
    assert f"values for South (perfect play; final margin with perfect play, from South's " \
           f"side): {shown}" in out
    assert out.count("position: 3,3,3/0/3,3,3/0 s empty-capture") == 2
    assert "nothing to undo: you have not moved yet" in out
    # pit 1 (3 stones) ends in South's store: announced, South moves again
    assert "South plays pit 1." in out
    assert "South's last stone fell in South's store: South moves again." in out
    assert "undone: South pit 1" in out
    assert "South resigns." in out
    # North (the perfect computer) answered pit 2 with its value from North's side
    line = next(x for x in out.splitlines() if "North (computer) plays pit" in x)
    assert line.endswith("for North, perfect play]")


def test_two_computer_moves_in_a_row_are_both_announced(monkeypatch, capsys):
    # North to move; its pit 3 (one stone) lands in North's store, then its pit 1 (two
    # stones) ends in the emptied pit 3 and captures South's pit 1: two moves in a row
    # (the other order gains nothing).
    status, out, _ = _run(["play", "--position", "3,3,3/0/2,0,1/0 n", "--opponent",
                           "alpha-beta", "--depth", "3", "--no-random"], "q\n",
                          monkeypatch, capsys)
    assert status == 0
    lines = out.splitlines()
    plays = [i for i, x in enumerate(lines) if "North (computer) plays pit" in x]
    assert [lines[i].split("plays pit ")[1][0] for i in plays] == ["3", "1"]
    assert "North's last stone fell in North's store: North moves again." in lines[plays[0] + 1]
    assert "capture! North's last stone fell in an empty pit of its own: it and the 3 " \
           "stones of South's pit 1 go to North's store." in lines[plays[1] + 1]
    assert "South resigns." in out


def test_captures_are_announced(monkeypatch, capsys):
    # South's pit 1 (one stone) lands in empty pit 2 opposite North's pit 2 (3 stones).
    status, out, _ = _run(["play", "--position", "1,0,2/0/1,3,1/0 s", "--no-random"],
                          "1\nq\n", monkeypatch, capsys)
    assert status == 0
    assert ("capture! South's last stone fell in an empty pit of its own: it and the 3 "
            "stones of North's pit 2 go to South's store.") in out


def test_results_are_recorded_by_opponent(tmp_path, monkeypatch, capsys):
    db = str(tmp_path / "k.sqlite")
    # a finished game against random moves: South plays its first legal pit every turn
    script = "1\n2\n3\n" * 40
    status, out, _ = _run(["play", "--pits", "3", "--stones", "2", "--opponent", "random",
                           "--seed", "4", "--db", db, "--name", "Ada"], script,
                          monkeypatch, capsys)
    assert status == 0 and "Game over: South" in out and "Result recorded" in out
    south, north = (int(x) for x in out.split("Game over: South ")[1].split(" --")[0]
                    .split(", North "))
    status, out, _ = _run(["play", "--pits", "3", "--stones", "2", "--opponent", "perfect",
                           "--db", db, "--name", "Ada"], "q\n", monkeypatch, capsys)
    assert status == 0 and "South resigns." in out
    assert main(["stats", "--db", db, "--json"]) == 0
    rows = {r["opponent"]: r for r in json.loads(capsys.readouterr().out)["opponents"]}
    assert set(rows) == {"random", "perfect"}
    won = south > north
    assert (rows["random"]["games"], rows["random"]["wins"], rows["random"]["draws"]) == (
        1, int(won), int(south == north))
    assert rows["random"]["mean_margin"] == south - north
    assert (rows["perfect"]["games"], rows["perfect"]["resigned"],
            rows["perfect"]["losses"]) == (1, 1, 1)
    assert main(["stats", "--db", db]) == 0
    text = capsys.readouterr().out
    assert "opponent" in text and "random" in text and "perfect" in text
    # the computer playing itself is no person's game: nothing recorded
    _run(["play", "--human", "none", "--pits", "2", "--stones", "1", "--db", db],
         "", monkeypatch, capsys)
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT COUNT(*) FROM kalah_play_games").fetchone()[0] == 2


def test_perfect_opponent_and_position_are_checked(monkeypatch, capsys):
    for argv, message in ((["play", "--opponent", "perfect"], "perfect play is offered"),
                          (["play", "--position", "1,2/0/3/0 s"], "South has 2 pits")):
        status, _, err = _run(argv, "", monkeypatch, capsys)
        assert status == 2 and err.count("\n") == 1 and message in err


def test_colours_only_on_a_terminal():
    from jitgames.kalah.play import draw_board

    board = rules.new_board(3, 2)
    assert "\x1b[" not in draw_board(board)
    coloured = draw_board(board, colour=True)
    assert "\x1b[36m" in coloured and "\x1b[33m" in coloured
    plain = draw_board(board).splitlines()
    assert "North [ 0]" in plain[2] and "[ 0] South" in plain[2]
    assert "North's pits" in plain[0] and "South's pits" in plain[4]


def test_stats_of_a_missing_database_creates_nothing(tmp_path, capsys):
    missing = tmp_path / "new" / "k.sqlite"
    assert main(["stats", "--db", str(missing)]) == 0
    out, err = capsys.readouterr()
    assert err == "" and out == f"no games recorded yet ({missing} does not exist)\n"
    assert main(["stats", "--db", str(missing), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["opponents"] == []
    assert list(tmp_path.iterdir()) == []
