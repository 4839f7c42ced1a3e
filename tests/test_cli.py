"""Shared command-line helpers."""
import os
import stat

import pytest

from jitgames import _cli, _store


def test_cli_error_is_one_line_and_status_2(capsys):
    def body(argv):
        raise _cli.CLIError("no such deal file: x.txt")

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
