"""The command line: the JSON contract, pictures, and one-line errors for bad input."""
import json

import pytest

from jitgames.primes.__main__ import main


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_count_json_contract(capsys):
    status, out, _ = run(capsys, "count", "0", "1000000", "--json")
    assert status == 0 and json.loads(out)["count"] == 78498
    status, out, _ = run(capsys, "count", "10^12", "1000000001000", "--json")
    assert status == 0 and json.loads(out)["count"] == 37


def test_count_text_and_test_method(capsys):
    status, out, _ = run(capsys, "count", "18446744073709551000", "18446744073709551616",
                         "--method", "test")
    assert status == 0 and out.startswith("13 primes in")


def test_poly_json_contract(capsys):
    status, out, _ = run(capsys, "poly", "1", "1", "41", "--upto", "1000", "--json")
    record = json.loads(out)
    assert status == 0 and record["count"] == 581 and record["checked"] >= 64
    assert 3.31 < record["constant"] < 3.33
    assert record["predicted"] == pytest.approx(589.65, rel=1e-3)


def test_poly_memory_sets_the_pass_and_not_the_count(capsys):
    """--memory 1 marks 2^23 x a pass: 10^7 x take two passes, same count as one."""
    status, out, _ = run(capsys, "poly", "1", "1", "41", "--upto", "10^7", "--memory", "1",
                         "--json")
    assert status == 0 and json.loads(out)["count"] == 2208197  # OEIS A319906(14)


def test_poly_reducible_explains(capsys):
    status, out, _ = run(capsys, "poly", "4", "4", "1", "--upto", "100")
    assert status == 0 and "(2x + 1)^2" in out and "0 primes" in out


def test_isprime_and_list(capsys):
    status, out, _ = run(capsys, "isprime", "18446744073709551557", "2047", "--json")
    assert json.loads(out)["prime"] == {"18446744073709551557": True, "2047": False}
    status, out, _ = run(capsys, "list", "10", "30")
    assert out.split() == ["11", "13", "17", "19", "23", "29"]


def test_lines_json(capsys):
    status, out, _ = run(capsys, "lines", "--size", "61", "--top", "3", "--json")
    record = json.loads(out)
    assert status == 0 and len(record["richest"]) == 3 and record["factoring"]
    assert record["richest"][0]["primes"] >= record["richest"][2]["primes"]
    status, out, _ = run(capsys, "lines", "--layout", "triangle", "--size", "31", "--top", "2")
    assert status == 0 and "richest lines" in out and "cannot be rich" in out


def test_pictures(capsys, tmp_path):
    for layout in ("spiral", "triangle"):
        target = tmp_path / f"{layout}.png"
        status, out, _ = run(capsys, layout, "--size", "51", "--out", str(target),
                             "--highlight", "2", "--json")
        assert status == 0 and target.read_bytes()[:4] == b"\x89PNG"
        assert len(json.loads(out)["highlighted"]) == 2
    target = tmp_path / "far.png"
    assert run(capsys, "spiral", "--size", "21", "--centre", "10^12", "--out",
               str(target), "--quiet")[0] == 0
    assert target.exists()


@pytest.mark.parametrize("argv", [
    ["count", "5", "3"], ["count", "0", "abc"], ["count", "0", "10^20"],
    ["count", "0", "10^13+1", "--method", "sieve"], ["poly", "1", "1", "41", "--upto", "-1"],
    ["poly", "1", "1", "41"], ["poly", "2^41", "1", "1", "--upto", "10^6"], ["poly", "10^9", "1", "1", "--upto", "10^7"],
    ["poly", "1", "1", "41", "--upto", "10", "--memory", "0"],
    ["lines", "--size", "2"], ["lines", "--centre", "0"], ["isprime", "-3"],
    ["list", "0", "10^8"], ["spiral", "--out", "/nonexistent/dir/x.png", "--size", "11"],
    ["bogus"], [],
])
def test_bad_input_is_one_line_and_status_2(capsys, argv):
    status = main(argv)
    err = capsys.readouterr().err
    assert status == 2
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize("argv,message", [
    # beyond int64 / the layout's range: a traceback, or (2^63 - 1) silently wrong lines
    (["lines", "--start", "99999999999999999999999"], "from 0 to"),
    (["lines", "--start", str(2**63 - 1)], "from 0 to"),
    (["spiral", "--start", "99999999999999999999999", "--out", "x.png"], "from 0 to"),
    # help said 2^31, the primes below it could not be listed above 10^9
    (["poly", "1", "1", "41", "--upto", "10", "--prime-limit", str(2**31)], "from 3 to 10^9"),
])
def test_out_of_range_options_name_their_range(capsys, argv, message):
    status = main(argv)
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and message in err


def test_powers_are_integers_of_sensible_size(capsys):
    import argparse

    from jitgames._cli import integer
    assert integer("10^9") == 10**9 and integer("2**64") == 2**64 and integer("0^5") == 0
    with pytest.raises(argparse.ArgumentTypeError):
        integer("10^-1")  # was the float 0.1
    with pytest.raises(argparse.ArgumentTypeError):
        integer("10^99999999999")  # was computed for ever
    assert main(["count", "0", "2^" + "9" * 400]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_sums_of_powers_are_integers(capsys):
    # The README's command: the end of the interval written 10^15+10^8.
    status, out, _ = run(capsys, "count", "10^12", "10^12+10^3", "--json")
    assert status == 0 and json.loads(out) == {"a": 10**12, "b": 10**12 + 1000, "count": 37,
                                               "complete": True}


def test_picture_out_must_be_a_file_name(capsys, tmp_path):
    # A directory was written as DIR.png (reporting "wrote DIR"); checked before drawing.
    status, out, err = run(capsys, "spiral", "--size", "11", "--out", str(tmp_path))
    assert status == 2 and out == "" and err.count("\n") == 1 and "--out" in err
    assert list(tmp_path.iterdir()) == []
    # Without a suffix the file written is the one named (a PNG), not NAME.png.
    target = tmp_path / "picture"
    status, out, _ = run(capsys, "spiral", "--size", "11", "--out", str(target))
    assert status == 0 and target.read_bytes()[:4] == b"\x89PNG"
    assert list(tmp_path.iterdir()) == [target]
