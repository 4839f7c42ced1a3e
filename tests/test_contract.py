"""The command-line contract (docs/cli.md), checked on every sub-command of every game.

The parsers are walked (``tests/clirun.py``), so a new sub-command or argument is
covered without being listed here -- except that each leaf command needs one *valid*
small command line in ``VALID`` (the test fails until it has one), against which
single bad values are tried:

- ``--help`` of every command prints help and exits 0;
- every argument that has a type or choices refuses a representative bad value
  (not a number, below its range, above it, not one of the choices) with exactly one
  line on stderr and status 2, nothing on stdout;
- the shared flags mean the same everywhere: ``--json`` and ``-q/--quiet`` are flags,
  ``--threads`` and ``--seed`` take the shared types;
- every command with ``--json`` prints strict JSON (no NaN or Infinity) with
  ``"complete": true`` when run on its small valid command line.
"""
from __future__ import annotations

import argparse
import json

import pytest

from jitgames import _cli

from .clirun import VALID, arguments, commands, run

COMMANDS = commands()
IDS = [" ".join(path) for path, _ in COMMANDS]


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    """Work in a scratch directory, with the data directory inside it."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path


def valid_argv(path, tmp):
    return [word.replace("{tmp}", str(tmp)) for word in VALID[path]]



def test_every_command_has_a_valid_example():
    assert sorted(VALID) == sorted(path for path, _ in COMMANDS)


@pytest.mark.parametrize("path, parser", COMMANDS, ids=IDS)
def test_help(path, parser, scratch):
    outcome = run([*path, "--help"])
    assert outcome.status == 0 and outcome.err == ""
    assert outcome.out.startswith("usage: jitgames " + " ".join(path))


def bad_values(action):
    """Representative values ``action`` must refuse (empty: free text, e.g. a file)."""
    kind = action.type
    if action.choices is not None and not isinstance(action, argparse._SubParsersAction):
        return ["no-such-choice"]
    if kind is None:
        return []
    low, high = getattr(kind, "low", None), getattr(kind, "high", None)
    if isinstance(low, float) or isinstance(high, float):
        return ["nan", "inf", "x", repr(low / 10 if low > 0 else low - 1)]
    if kind.__name__ == "scheduler_address":
        return ["tcp://", "tcp://[::1", "inproc://x", "local:0"]
    values = ["x", "1.5", "10^"]
    if low is not None:
        values.append(str(low - 1))
    if high is not None:
        values.append(str(high + 1))
    if kind.__name__ == "_capacity":  # a table capacity: a power of two in range
        values.append("100")
    return values


def with_bad_value(path, parser, action, value, tmp):
    """The valid command line of ``path`` with ``value`` given to ``action``."""
    argv = valid_argv(path, tmp)
    if action.option_strings:
        count = action.nargs if isinstance(action.nargs, int) else 1
        return argv + [action.option_strings[0]] + [value] * count
    # A positional: replace its words in the valid line (positionals come first, in order).
    positionals = [a for a in arguments(parser) if not a.option_strings]
    start = 0
    for a in positionals:  # each given once in VALID ("?" and "+" as one word)
        count = a.nargs if isinstance(a.nargs, int) else 1
        if a is action:
            return argv[:start] + [value] * count + argv[start + count:]
        start += count
    raise AssertionError(f"positional {action.dest} not found")


CASES = [(path, parser, action, value) for path, parser in COMMANDS
         for action in arguments(parser) for value in bad_values(action)]


@pytest.mark.parametrize("path, parser, action, value", CASES,
                         ids=[f"{' '.join(p)} {a.option_strings[:1] or [a.dest]} {v}"
                              for p, _, a, v in CASES])
def test_bad_value_is_one_line_and_status_2(path, parser, action, value, scratch):
    argv = with_bad_value(path, parser, action, value, scratch)
    outcome = run(argv)
    assert outcome.status == 2, (argv, outcome)
    assert outcome.out == "" and outcome.err.count("\n") == 1, (argv, outcome)
    assert "Traceback" not in outcome.err and "error" in outcome.err


def test_every_typed_argument_is_tried():
    """Arguments without a type or choices take free text (file names, player specs,
    lists); they are exercised by the fuzz test and the games' own tests."""
    typed = {(p, a.dest) for p, _, a, _ in CASES}
    assert len(typed) > 60


@pytest.mark.parametrize("path, parser", COMMANDS, ids=IDS)
def test_shared_flags_mean_the_same(path, parser):
    by_flag = {s: a for a in arguments(parser) for s in a.option_strings}
    if "--json" in by_flag:
        assert by_flag["--json"].nargs == 0 and by_flag["--json"].const is True
    if "--quiet" in by_flag:
        assert by_flag["--quiet"] is by_flag.get("-q"), "--quiet comes with -q"
    if "--threads" in by_flag:
        assert by_flag["--threads"].type.__name__ == "thread count"
    if "--seed" in by_flag:
        assert by_flag["--seed"].type.low == 0
    for action in arguments(parser):
        kind = action.type
        if kind is int or kind is float:
            pytest.fail(f"{action.dest} reads numbers with {kind.__name__}, not _cli's parsers")


def has_json(parser) -> bool:
    return any("--json" in a.option_strings for a in arguments(parser))


JSON_COMMANDS = [(path, parser) for path, parser in COMMANDS if has_json(parser)]


def refuse_constant(name):
    raise AssertionError(f"non-strict JSON constant {name}")


@pytest.mark.parametrize("path, parser", JSON_COMMANDS, ids=[" ".join(p) for p, _ in JSON_COMMANDS])
def test_json_is_strict_and_says_complete(path, parser, scratch):
    outcome = run([*path, *valid_argv(path, scratch), "--json"])
    assert outcome.status == 0, outcome
    record = json.loads(outcome.out, parse_constant=refuse_constant)
    if path != ("mastermind", "tree"):  # the tree's export format is its own (docs/cli.md)
        assert record["complete"] is True


def test_readme_number_forms_reach_every_integer_argument():
    """One parser reads every integer: the types carry parse_int's forms."""
    for path, parser in COMMANDS:
        for action in arguments(parser):
            if getattr(action.type, "low", "absent") != "absent" and action.choices is None:
                if isinstance(getattr(action.type, "low", None), float):
                    continue
                if action.type.__name__ in ("thread count", "_capacity"):
                    continue
                low = action.type.low if action.type.low is not None else 0
                assert action.type(f"{low}") == low
                assert action.type(f"{low}e0") == low
                assert action.type(f"{low + 1}-1") == low
    assert _cli.positive_int("10^15+10^8") == 10**15 + 10**8
