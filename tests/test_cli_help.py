"""Every --help is written for users, and a missing argument is explained, not just named."""
from __future__ import annotations

import argparse
import importlib

import pytest

from jitgames.__main__ import GAMES, PACKAGES
from jitgames.__main__ import main as front_door


def _parsers(parser, path):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, f"{path} {name}")


def _all_parsers():
    for game in GAMES:
        module = importlib.import_module(f"jitgames.{PACKAGES.get(game, game)}.__main__")
        yield from _parsers(module.build_parser(), game)


PARSERS = list(_all_parsers())


@pytest.mark.parametrize("path,parser", PARSERS, ids=[p for p, _ in PARSERS])
def test_every_argument_has_help_for_users(path, parser):
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._VersionAction,
                               argparse._SubParsersAction)):
            continue
        if action.help == argparse.SUPPRESS:
            continue
        assert action.help, f"{path}: {action.option_strings or action.dest} has no help"
    text = parser.format_help()
    for developer_markup in ("``", ":func:", ":class:", ":mod:", ":meth:"):
        assert developer_markup not in text, f"{path} --help shows {developer_markup!r}"


def test_the_poly_usage_names_each_coefficient_once():
    module = importlib.import_module("jitgames.primes.__main__")
    usage = module.build_parser()._subparsers._group_actions[0].choices["poly"].format_usage()
    assert usage.count("A B C") == 1 and "A B C A" not in usage


@pytest.mark.parametrize("game", ["mastermind", "kalah", "puzzles", "primes"])
def test_a_missing_command_lists_the_commands(game, capsys):
    assert front_door([game]) == 2
    err = capsys.readouterr().err.strip()
    module = importlib.import_module(f"jitgames.{game}.__main__")
    commands = module.build_parser()._subparsers._group_actions[0].choices
    assert err.startswith(f"jitgames {game}: error: missing a command: ")
    assert all(name in err for name in commands) and "\n" not in err


def test_a_missing_argument_says_what_it_is(capsys):
    assert front_door(["primes", "count", "1e9"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("jitgames primes count: error: missing B: upper end, not counted")


def test_messages_name_the_command_as_typed(capsys, tmp_path):
    out_file = tmp_path / "tree.json"
    assert front_door(["mastermind", "tree", "-p", "2", "-k", "2", "--out", str(out_file)]) == 0
    err = capsys.readouterr().err
    assert "jitgames mastermind: tree of" in err and "python -m" not in err


BAD_INPUT = [  # (game, sub-command words, the rest): each raises InputError after parsing
    ("solitaire", [], ["5", "--board"]),
    ("solitaire", ["play"], ["--deal-file", "no-such-deal-file.txt"]),
    ("mastermind", ["evaluate"], ["-p", "12", "-k", "12"]),
    ("kalah", ["solve"], ["10", "10"]),
    ("puzzles", ["queens"], ["99"]),
    ("primes", ["count"], ["5", "1"]),
]


@pytest.mark.parametrize("game,command,rest", BAD_INPUT,
                         ids=[" ".join([g, *c, *r]) for g, c, r in BAD_INPUT])
@pytest.mark.parametrize("front", [True, False], ids=["jitgames", "python -m"])
def test_an_error_after_parsing_names_the_sub_command(game, command, rest, front, capsys):
    """An error the command raises (not argparse) names the sub-command as typed, like
    argparse's own errors: one line, status 2."""
    if front:
        status, program = front_door([game, *command, *rest]), "jitgames " + game
    else:
        module = importlib.import_module(f"jitgames.{PACKAGES.get(game, game)}.__main__")
        status, program = module.main([*command, *rest]), "python -m jitgames." + game
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith(" ".join([program, *command]) + ": error: ")
    assert err.count("\n") == 1 and err.endswith("\n")
