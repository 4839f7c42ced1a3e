"""``python -m jitgames.solitaire play`` and ``stats``: scripted games, the results
database, and the terminal (a pseudo-terminal) - every wait bounded."""
import io
import json
import os
import re
import select
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from jitgames.solitaire import __main__ as cli
from jitgames.solitaire import deals, solve_deals
from jitgames.solitaire.records import SCHEMA
from tests.solution_check import check_line

ROOT = Path(__file__).resolve().parents[1]
END = re.compile(r"^score (\d+) of optimal (\d+); (\d+) moves, (\d+) hints, (\d+) undos$", re.M)


def play(capsys, monkeypatch, script, *argv):
    monkeypatch.setattr(sys, "stdin", io.StringIO(script))
    try:
        status = cli.main(["play", *argv])
    except SystemExit as exc:  # argparse's own errors
        status = exc.code
    out, err = capsys.readouterr()
    return status, out, err


def rows(db):
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT player, shuffle, seed, deal_index, deal_file, deal_line, "
                           "score, optimum, moves, hints, undos FROM solitaire_games").fetchall()
    finally:
        con.close()


SCRIPT = """help
3 5
0 9
2s
9x
undo
moves
1
undo
undo 3
moves
3
hint
restart
board
9c
3d
best
undo
undo 5
frobnicate
quit
"""


def test_scripted_game_uses_every_command(capsys, monkeypatch, tmp_path):
    db = tmp_path / "r.sqlite"
    status, out, err = play(capsys, monkeypatch, SCRIPT, "2026", "7", "--db", str(db),
                            "--name", "ann")
    assert status == 0 and err == ""
    lines = out.splitlines()
    said = [lines[k + 1] for k, line in enumerate(lines[:-1]) if line.startswith("> ")]
    assert [line for line in lines if line.startswith("> ")][:6] == [
        "> help", "> 3 5", "> 0 9", "> 2s", "> 9x", "> undo"]      # piped commands echoed
    assert said[:6] == [
        "Moves: a card (9c, 9♣, 10h, Td, K♠) goes with every card on it to its one possible",
        "cannot: only Q♦ goes onto K♦ (pile 5), and it is not face up in pile 3",
        "cannot: piles are numbered 1 to 7, not 0",
        "cannot: 2♠ is on its foundation",
        "cannot: '9x' is neither a card (9c, 10h, K♠) nor two piles (3 5); type help for "
        "the commands",
        "nothing to undo: this is the deal"]                      # undo past the start
    assert "Deal 7 of seed 2026" in out
    assert "  4. 3♣ (and 1 card on it) from pile 3 onto 4♣ (pile 7)" in out   # moves
    assert "> 1\n9♣ (and 3 cards on it) from pile 5 onto 10♣ (pile 2)" in out   # move 1
    assert "> 3\n3♦ (and 1 card on it) from pile 5 onto 4♦ (pile 6); to the foundations: A♥" in out
    assert "> hint\nhint: 9♣ from pile 5 onto 10♣ (pile 2) (keeps 5 cards reachable)" in out
    assert "to the foundations: A♥ 2♥" in out                      # 9c then 3d
    assert "> best\nthe optimal score 5 is on the foundations: every move keeps it" in out  # best
    assert "> undo 5\nundid 2 moves, back at the deal" in out              # undo 5 after 2 moves
    assert "> frobnicate\ncannot: 'frobnicate' is neither" in out
    # the board at the start and after each of 5 moves, 3 undos, restart and board
    assert out.count("foundations  ") == 11
    assert out.count("still reachable 5 (deal's optimum 5)") == 11
    assert "on the foundations 5, still reachable 5 (deal's optimum 5); 3 moves, 2 hints, 1 undos" in out
    assert END.findall(out) == [("3", "5", "0", "2", "4")]
    assert rows(db) == [("ann", "fisher-yates", "2026", "7", None, None, 3, 5, 0, 2, 4)]


def test_a_move_that_throws_cards_away_is_flagged_and_the_figure_never_rises(
        capsys, monkeypatch, tmp_path):
    results = solve_deals(deals(2026, 0, 40))
    # find a deal and a first move that loses cards (by the solver, checked by the output)
    from jitgames.solitaire.play import Game
    for index in np.argsort(-results.score).tolist():
        game = Game(deals(2026, index, index + 1)[0])
        for number, move in enumerate(game.legal_moves(), start=1):
            game.play(move)
            lost = game.reachable() < game.optimum
            game.undo()
            if lost:
                break
        else:
            continue
        break
    else:
        pytest.fail("no losing first move in 40 deals")
    status, out, _ = play(capsys, monkeypatch, f"{number}\nbest\nbest\n", "2026", str(index),
                          "--db", str(tmp_path / "r.sqlite"))
    assert status == 0
    assert "that move threw away" in out
    reachable = [int(x) for x in re.findall(r"still reachable (\d+) \(deal", out)]
    assert reachable[0] == results.score[index] and reachable[-1] < reachable[0]
    assert reachable == sorted(reachable, reverse=True)


def test_best_alone_ends_at_the_optimal_score_and_when_no_move_is_left(capsys, monkeypatch,
                                                                       tmp_path):
    results = solve_deals(deals(2026, 0, 60))
    won = int(np.nonzero(results.score == 52)[0][0])
    db = tmp_path / "r.sqlite"
    status, out, _ = play(capsys, monkeypatch, "best\n" * 60, "2026", str(won), "--db", str(db))
    assert status == 0
    assert "No move is left." in out
    score, optimum, moves, hints, undos = END.findall(out)[0]
    assert score == optimum == "52" and hints == moves and undos == "0"


def test_end_of_input_quits_and_random_deals_print_their_seed(capsys, monkeypatch, tmp_path):
    db = tmp_path / "r.sqlite"
    status, out, _ = play(capsys, monkeypatch, "", "--db", str(db))
    assert status == 0
    seed, index = re.search(r"Deal (\d+) of seed (\d+)", out).group(2, 1)
    assert f"play {seed} {index}" in out
    optimum = solve_deals(deals(int(seed), int(index), int(index) + 1)).score[0]
    assert END.findall(out)[0][1] == str(optimum)
    assert rows(db)[0][2:4] == (seed, index)


def test_deal_files_and_lines(capsys, monkeypatch, tmp_path):
    file = tmp_path / "d.txt"
    decks = deals(2026, 7, 9)
    file.write_text("\n".join(" ".join(map(str, d)) for d in decks.tolist()) + "\n")
    db = tmp_path / "r.sqlite"
    for flag, extra, optimum in (("--deals", [], solve_deals(decks[0]).score[0]),
                                 ("--deal-file", ["--line", "2"], solve_deals(decks[1]).score[0])):
        status, out, _ = play(capsys, monkeypatch, "quit\n", flag, str(file), *extra,
                              "--db", str(db))
        assert status == 0 and END.findall(out)[0][1] == str(optimum)
    assert [r[4:6] for r in rows(db)] == [(str(file), 1), (str(file), 2)]
    for argv, message in ((["--deals", str(file), "--line", "3"], "has 2 deal"),
                          (["--line", "2"], "--line applies to --deal-file"),
                          (["5"], "SEED INDEX"),
                          (["1", "2", "--deals", str(file)], "not both"),
                          (["-1", "2"], "error"),
                          (["--name", "\udcff"], "not valid text"),
                          (["--name", " "], "a name of 1 to 100")):
        status, out, err = play(capsys, monkeypatch, "", *argv, "--db", str(db))
        assert status == 2 and out == "" and message in err and len(err.splitlines()) == 1


def test_stats_per_player(capsys, monkeypatch, tmp_path):
    db = tmp_path / "r.sqlite"
    # deal 7 of seed 2026 starts with 3 cards up; optimum 5
    for name, script in (("ann", "best\nbest\nquit\n"),   # 5 cards: counts
                         ("ann", "quit\n"),                  # quit at the deal: abandoned
                         ("ann", "9c\nquit\n"),             # one move, quit: 3 cards, counts
                         ("bob", "")):                        # end of input at the deal
        play(capsys, monkeypatch, script, "2026", "7", "--db", str(db), "--name", name)
    assert cli.main(["stats", "--db", str(db), "--json"]) == 0
    table = json.loads(capsys.readouterr().out)["players"]
    ann, bob = table
    assert (ann["player"], ann["games"], ann["abandoned"]) == ("ann", 2, 1)
    assert ann["mean_score"] == pytest.approx(4.0)      # 5 and 3 cards, optimum 5
    assert ann["mean_lost"] == pytest.approx(1.0) and ann["wins"] == 0
    assert (bob["games"], bob["abandoned"], bob["mean_score"]) == (0, 1, None)
    assert cli.main(["stats", "--db", str(db)]) == 0
    text = capsys.readouterr().out
    assert "mean lost" in text and re.search(r"^ann\s+2\s+4\.00\s+1\.00\s+0\s+1\s+1$", text, re.M)
    assert re.search(r"^bob\s+0\s+-\s+-\s+0\s+0\s+1$", text, re.M)


def test_ctrl_c_at_the_deal_is_stored_abandoned_and_not_counted(capsys, monkeypatch, tmp_path):
    """The issue's case: a mean of 5.00, then a game stopped by Ctrl-C at move 0 (score
    3 of 5) stored as finished pulled it down. Stored as abandoned, it counts nowhere."""
    from jitgames.solitaire import game_cli

    db = tmp_path / "r.sqlite"
    play(capsys, monkeypatch, "best\nbest\nquit\n", "2026", "7", "--db", str(db), "--name", "ann")

    def interrupted(game, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(game_cli, "play_session", interrupted)
    status, out, _ = play(capsys, monkeypatch, "", "2026", "7", "--db", str(db), "--name", "ann")
    assert status == 130 and "abandoned: stored, and not counted in your record" in out
    assert "Your record: 1 game, mean score 5.0" in out
    con = sqlite3.connect(db)
    assert con.execute("SELECT score, moves, abandoned FROM solitaire_games").fetchall() == [
        (5, 2, 0), (3, 0, 1)]
    con.close()
    assert cli.main(["stats", "--db", str(db), "--json"]) == 0
    (ann,) = json.loads(capsys.readouterr().out)["players"]
    assert (ann["games"], ann["mean_score"], ann["abandoned"]) == (1, 5.0, 1)


def test_is_abandoned_by_how_the_game_ended():
    from jitgames.solitaire.console import SessionEnd
    from jitgames.solitaire.game_cli import is_abandoned

    assert is_abandoned(None, 0) and is_abandoned(None, 7)            # Ctrl-C
    for reason in ("quit", "end of input"):
        assert is_abandoned(SessionEnd(reason), 0) and not is_abandoned(SessionEnd(reason), 1)
    assert not is_abandoned(SessionEnd("over"), 0)                    # a deal with no move


def test_stats_creates_no_file_and_no_folder(capsys, tmp_path, monkeypatch):
    missing = tmp_path / "new" / "folder" / "r.sqlite"
    for argv in (["stats", "--db", str(missing)], ["stats", "--db", str(missing), "--json"]):
        assert cli.main(argv) == 0
        out, err = capsys.readouterr()
        assert err == "" and not (tmp_path / "new").exists()
        if "--json" in argv:
            assert json.loads(out) == {"players": [], "complete": True}
        else:
            assert out == f"no games recorded yet ({missing} does not exist)\n"
    # the default database in an empty data directory: nothing made there either
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert cli.main(["stats"]) == 0
    assert "does not exist" in capsys.readouterr().out and not (tmp_path / "data").exists()
    assert list(tmp_path.iterdir()) == []


def test_a_version_1_database_is_migrated_with_its_games_counted(capsys, tmp_path):
    db = tmp_path / "old.sqlite"
    con = sqlite3.connect(db)
    con.executescript(SCHEMA.migrations[0])
    con.execute("INSERT INTO solitaire_games VALUES ('ann', 'fisher-yates', '2026', '7', NULL, "
                "NULL, 4, 5, 3, 0, 0, '2026-11-20T10:00:00+00:00')")
    con.execute(f"PRAGMA application_id = {SCHEMA.application_id}")
    con.execute("PRAGMA user_version = 1")
    con.commit()
    con.close()
    assert cli.main(["stats", "--db", str(db), "--json"]) == 0
    (ann,) = json.loads(capsys.readouterr().out)["players"]
    assert (ann["games"], ann["mean_score"], ann["abandoned"]) == (1, 4.0, 0)
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA.version == 2
    con.close()


def bad_databases(tmp_path):
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not a database\n" * 100)
    foreign = tmp_path / "foreign.db"
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE games (player TEXT, score INTEGER)")
    con.execute("INSERT INTO games VALUES ('x', 3)")
    con.commit()
    con.close()
    newer = tmp_path / "newer.db"
    con = sqlite3.connect(newer)
    con.execute("CREATE TABLE solitaire_games (player TEXT)")
    con.execute(f"PRAGMA application_id = {SCHEMA.application_id}")
    con.execute(f"PRAGMA user_version = {SCHEMA.version + 1}")
    con.commit()
    con.close()
    other = tmp_path / "other_kind.db"          # another kind of jitgames database
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE solitaire_games (x)")
    con.execute("PRAGMA application_id = 1")
    con.commit()
    con.close()
    columns = tmp_path / "columns.db"           # our table's name with other columns
    con = sqlite3.connect(columns)
    con.execute("CREATE TABLE solitaire_games (player TEXT, score INTEGER)")
    con.commit()
    con.close()
    blocked = tmp_path / "a_file" / "r.db"   # its directory is a file
    (tmp_path / "a_file").write_text("")
    return [garbage, foreign, newer, other, columns, blocked]


def test_a_bad_database_is_one_line_before_any_play_and_nothing_is_lost(capsys, monkeypatch,
                                                                        tmp_path):
    good = tmp_path / "good.db"
    play(capsys, monkeypatch, "quit\n", "2026", "7", "--db", str(good), "--name", "ann")
    kept = good.read_bytes()
    for bad in bad_databases(tmp_path):
        before = bad.read_bytes() if bad.exists() else None
        for argv in (["play", "2026", "7"], ["stats"]):
            monkeypatch.setattr(sys, "stdin", io.StringIO("best\nquit\n"))
            status = cli.main([*argv, "--db", str(bad)])
            out, err = capsys.readouterr()
            assert status == 2, (bad, argv)
            assert out == "" and len(err.strip().splitlines()) == 1 and "Traceback" not in err
            assert (bad.read_bytes() if bad.exists() else None) == before
    assert good.read_bytes() == kept
    assert cli.main(["stats", "--db", str(good), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["players"][0]["abandoned"] == 1  # quit at the deal


@pytest.mark.slow  # a fresh interpreter loads the kernels: ~10 s on a loaded machine
def test_piped_input_through_a_real_pipe(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), XDG_DATA_HOME=str(tmp_path))
    done = subprocess.run([sys.executable, "-m", "jitgames.solitaire", "play", "2026", "7"],
                          input="9♣\nhint\nundo\nundo\n", capture_output=True, text=True,
                          env=env, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "\x1b[" not in done.stdout                          # plain text into a pipe
    assert END.findall(done.stdout) == [("3", "5", "0", "1", "1")]
    assert (tmp_path / "jitgames" / "solitaire.sqlite").exists()  # the default place


@pytest.mark.slow
def test_colours_on_a_terminal(tmp_path):
    """Through a pseudo-terminal the suits are coloured; a deadline bounds every read."""
    import pty

    env = dict(os.environ, PYTHONPATH=str(ROOT), XDG_DATA_HOME=str(tmp_path), TERM="xterm")
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "jitgames.solitaire", "play", "2026", "7"],
                            stdin=slave, stdout=slave, stderr=slave, env=env, cwd=ROOT,
                            close_fds=True)
    os.close(slave)
    output = b""
    deadline = time.monotonic() + 120

    def read_until(marker):
        nonlocal output
        while marker not in output:
            left = deadline - time.monotonic()
            assert left > 0, f"no {marker!r} in time: {output[-500:]!r}"
            ready, _, _ = select.select([master], [], [], left)
            if ready:
                try:
                    chunk = os.read(master, 4096)
                except OSError:  # the child closed the terminal
                    break
                if not chunk:
                    break
                output += chunk

    try:
        read_until(b"> ")
        os.write(master, "9c\n".encode())
        read_until(b"still reachable 5 (deal's optimum 5); 1 moves")
        os.write(master, b"quit\n")
        read_until(b"score 3 of optimal 5")
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        os.close(master)
    text = output.decode("utf-8", "replace")
    assert "\x1b[31m3♦\x1b[0m" in text          # a red suit
    assert "\x1b[1m9♣\x1b[0m" in text           # a black suit
    assert "\x1b[2m##\x1b[0m" in text           # face-down cards dimmed


def test_show_board_draws_every_position_of_the_line(capsys):
    from jitgames.solitaire import optimal_line

    assert cli.main(["--show", "2026", "7", "--board"]) == 0
    out = capsys.readouterr().out
    line = optimal_line(deals(2026, 7, 8)[0])
    check_line(deals(2026, 7, 8)[0], line, seed=2026, index=7)
    assert out.count("foundations  ") == line.moves + 1
    assert "[K♥]" in out                               # face-down cards revealed
    last = [row for row in out.splitlines() if row.startswith("foundations  ")][-1]
    assert last.split() == ["foundations", "2♠", "2♥", "A♦", "-♣"]   # 5 cards, the optimum
    assert cli.main(["200", "--board"]) == 2
    assert "--board applies to --show" in capsys.readouterr().err


@pytest.mark.slow
def test_ctrl_c_ends_the_game_with_status_130_and_keeps_the_result(tmp_path):
    import signal

    env = dict(os.environ, PYTHONPATH=str(ROOT), XDG_DATA_HOME=str(tmp_path))
    proc = subprocess.Popen([sys.executable, "-m", "jitgames.solitaire", "play", "2026", "7",
                             "--name", "cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, cwd=ROOT)
    try:
        proc.stdin.write(b"9c\n")
        proc.stdin.flush()
        output = b""
        deadline = time.monotonic() + 120
        while b"1 moves" not in output:       # the board after the move: now at a prompt
            assert time.monotonic() < deadline, output[-300:]
            ready, _, _ = select.select([proc.stdout], [], [], 1.0)
            if ready:
                chunk = os.read(proc.stdout.fileno(), 4096)
                assert chunk, output[-300:]
                output += chunk
        time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    assert proc.returncode == 130, err
    assert END.findall((output + rest).decode()) == [("3", "5", "1", "0", "0")]
    db = tmp_path / "jitgames" / "solitaire.sqlite"
    assert rows(db)[0][0] == "cat" and rows(db)[0][6:] == (3, 5, 1, 0, 0)
    con = sqlite3.connect(db)
    assert con.execute("SELECT abandoned FROM solitaire_games").fetchall() == [(1,)]
    con.close()


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_a_slow_solve_shows_progress_on_a_terminal_only():
    from jitgames.solitaire.console import with_progress

    terminal, pipe = FakeTerminal(), io.StringIO()
    assert with_progress(lambda: time.sleep(1.3) or 7, terminal) == 7
    assert "solving... " in terminal.getvalue()
    assert with_progress(lambda: time.sleep(1.3) or 8, pipe) == 8
    assert pipe.getvalue() == ""
    terminal = FakeTerminal()
    assert with_progress(lambda: 9, terminal) == 9 and terminal.getvalue() == ""
    with pytest.raises(ZeroDivisionError):
        with_progress(lambda: 1 // 0, FakeTerminal())


class _Terminal(io.StringIO):
    """Typed input at an interactive terminal."""

    def isatty(self):
        return True


def _game_to_its_end(seed=0, index=7):
    """The typed moves (card names) that play deal ``index`` of ``seed`` to its end,
    taking the first legal move each time, so a test can finish a game quickly."""
    from jitgames.solitaire.play import Game

    game, typed = Game(deals(seed, index, index + 1)[0]), []
    while not game.over and len(typed) < 300:
        move = game.legal_moves()[0]
        typed.append(game.describe(move).split()[0])
        game.play(move)
    assert game.over, "the first-move line did not end within 300 moves"
    return "\n".join(typed) + "\n"


def test_play_again_at_a_terminal_same_deal_then_stop(capsys, monkeypatch, tmp_path):
    index, moves = 7, _game_to_its_end()
    db = str(tmp_path / "g.sqlite")
    monkeypatch.setattr(sys, "stdin", _Terminal(moves + "r\n" + moves + "\n"))
    status = cli.main(["play", "0", str(index), "--db", db, "--name", "ann"])
    out = capsys.readouterr().out
    assert status == 0
    assert out.count("Play again?") == 2 and len(END.findall(out)) == 2
    games = rows(db)
    assert len(games) == 2 and games[0] == games[1] and games[0][3] == str(index)


def test_play_again_a_new_deal_and_never_asked_when_piped(capsys, monkeypatch, tmp_path):
    index, moves = 7, _game_to_its_end()
    db = str(tmp_path / "g.sqlite")
    monkeypatch.setattr(sys, "stdin", _Terminal(moves + "n\nquit\n"))
    assert cli.main(["play", "0", str(index), "--db", db, "--name", "ann"]) == 0
    out = capsys.readouterr().out
    # the second game's end line follows its prompt ("> score 0 of optimal ...")
    assert out.count("Play again?") == 1 and len(re.findall(r"score \d+ of optimal", out)) == 2
    first, second = rows(db)
    assert first[2:4] == ("0", str(index)) and second[2:4] != ("0", str(index))  # a new deal
    status, out, _ = play(capsys, monkeypatch, moves + "r\n", "0", str(index), "--db", db)
    assert status == 0 and "Play again?" not in out and len(END.findall(out)) == 1
