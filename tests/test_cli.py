"""Shared command-line helpers."""
import json
import os
import stat

import pytest

from jitgames import _cli, _store
from jitgames.errors import InputError


def test_cli_error_is_one_line_and_status_2(capsys):
    def body(argv):
        raise _cli.InputError("no such deal file: x.txt")

    assert _cli.run_cli(body, [], prog="jitgames.test") == 2
    err = capsys.readouterr().err
    assert err == "jitgames.test: error: no such deal file: x.txt\n"


def test_argparse_error_is_one_line_and_status_2(capsys):
    parser = _cli.ArgumentParser(prog="p")
    parser.add_argument("n", type=_cli.positive_int)
    with pytest.raises(SystemExit) as exc:
        parser.parse_args(["-3"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "positive integer" in err


def test_int_types():
    assert _cli.positive_int("1_000") == 1000
    assert _cli.int_in_range(2, 5)("5") == 5
    with pytest.raises(Exception):
        _cli.int_in_range(2, 5)("6")
    with pytest.raises(Exception):
        _cli.nonnegative_int("x")


def test_atomic_write_replaces_whole_file(tmp_path):
    target = tmp_path / "sub" / "file.txt"
    _store.atomic_write_text(target, "one")
    _store.atomic_write_text(target, "two")
    assert target.read_text() == "two"
    assert [p.name for p in target.parent.iterdir()] == ["file.txt"]


def test_atomic_write_streams_pieces_with_plain_file_permissions(tmp_path):
    target = tmp_path / "out.csv"
    old = os.umask(0o027)
    try:
        _store.atomic_write_text(target, (f"{i}\n" for i in range(3)))
    finally:
        os.umask(old)
    assert target.read_text() == "0\n1\n2\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_data_dir_honours_xdg(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert _store.data_dir() == tmp_path / "jitgames"
    assert _store.data_dir(tmp_path / "x") == tmp_path / "x"


def test_unusable_directories_are_store_errors(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(_store.StoreError, match="cannot use directory"):
        _store.data_dir(blocker / "sub")
    with pytest.raises(_store.StoreError, match="Is a directory"):
        _store.check_writable(tmp_path)
    _store.check_writable(tmp_path / "new" / "out.csv")  # creates the directory, no file
    assert list((tmp_path / "new").iterdir()) == []


def test_memory_error_is_one_line_and_status_2(capsys):
    def body(argv):
        raise MemoryError

    assert _cli.run_cli(body, [], prog="jitgames.test") == 2
    assert capsys.readouterr().err == ("jitgames.test: error: not enough memory for this size; "
                                       "try a smaller one\n")


@pytest.mark.parametrize("text, value", [
    ("10^9", 10**9), ("10**9", 10**9), ("1e9", 10**9), ("2.5e3", 2500),
    ("10^15+10^8", 10**15 + 10**8), ("2^64-1", 2**64 - 1), ("1_000", 1000), ("-5", -5),
    (" 7 ", 7), ("2^64 - 1", 2**64 - 1)])
def test_parse_int_accepts_every_documented_form(text, value):
    assert _cli.parse_int(text) == value


@pytest.mark.parametrize("text", ["1.5", "1e-3", "x", "", "10^", "++1", "1 2", "0x10",
                                  "nan", "inf", "2^99999", "1e5000", "10^-1", "3-"])
def test_parse_int_refuses_with_input_error(text):
    with pytest.raises(InputError):
        _cli.parse_int(text)


def test_range_errors_write_round_bounds_as_powers():
    with pytest.raises(Exception, match=r"from 1 to 10\^10, got 10\^11"):
        _cli.int_in_range(1, 10**10)("1e11")
    with pytest.raises(Exception, match=r"2\^64-1"):
        _cli.int_in_range(0, 2**64 - 1)("2^64")


def test_float_in_range_refuses_non_finite_and_out_of_range():
    parse = _cli.float_in_range(1e-3, 52, "a number of cards")
    assert parse("0.01") == 0.01
    for text in ("1e-300", "nan", "inf", "x", "53"):
        with pytest.raises(Exception, match="a number of cards"):
            parse(text)


def test_print_json_is_strict(capsys):
    import numpy as np

    _cli.print_json({"sd": float("nan"), "high": np.float64("inf"), "n": np.int64(3),
                     "rows": np.array([1, 2]), 4: (1.5,)})
    text = capsys.readouterr().out

    def refuse(name):
        raise AssertionError(f"non-strict JSON constant {name}")

    assert json.loads(text, parse_constant=refuse) == {
        "sd": None, "high": None, "n": 3, "rows": [1, 2], "4": [1.5]}


def test_emit_sets_complete_and_status(capsys):
    class Args:
        json = True

    assert _cli.emit(Args(), {"n": 1}, complete=False) == 130
    out, err = capsys.readouterr()
    assert json.loads(out) == {"n": 1, "complete": False} and "interrupted" in err
    Args.json = False
    assert _cli.emit(Args(), {"n": 1}, ["one", "two"]) == 0
    assert capsys.readouterr().out == "one\ntwo\n"


def test_input_error_from_the_body_is_one_line(capsys):
    def body(argv):
        raise InputError("a message\nspread over lines")

    assert _cli.run_cli(body, [], prog="p") == 2
    assert capsys.readouterr().err == "p: error: a message spread over lines\n"


def test_front_door_names_the_game_as_invoked(capsys):
    from jitgames.__main__ import main

    assert main(["primes", "count", "0", "x"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("jitgames primes count: error:") and err.count("\n") == 1
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("jitgames ")
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert all(f"  {game} " in out for game in ("solitaire", "mastermind", "kalah", "puzzles",
                                                "primes"))
    assert main([]) == 2 and main(["chess"]) == 2
