"""Run the command lines in-process, as a user would, and walk their parsers.

Shared by the contract test (``test_contract.py``) and the fuzz test
(``test_cli_fuzz.py``). Each game's ``main(argv)`` returns its exit status (argparse
errors included: ``run_cli`` turns them into a return value), so a command runs here
without a subprocess; stdin, stdout and stderr are replaced for the call.
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import pkgutil
import sys
from dataclasses import dataclass
from pathlib import Path

from jitgames.__main__ import GAMES, PACKAGES


VALID = {
    ("solitaire",): ["3", "-q"],
    ("solitaire", "play"): ["2026", "7", "--db", "{tmp}/solitaire.sqlite"],
    ("solitaire", "stats"): ["--db", "{tmp}/solitaire.sqlite"],
    ("solitaire", "check"): [str(Path(__file__).parent / "data" / "solitaire_solution_2026_7.txt")],
    ("mastermind", "evaluate"): ["-p", "2", "-k", "3"],
    ("mastermind", "tournament"): ["--sizes", "2x2", "--strategies", "knuth,random"],
    ("mastermind", "tree"): ["-p", "2", "-k", "2"],
    ("mastermind", "optimal"): ["-p", "2", "-k", "3"],
    ("mastermind", "best"): ["-p", "2", "-k", "3"],
    ("mastermind", "worst"): ["-p", "2", "-k", "3"],
    ("mastermind", "play"): ["-p", "2", "-k", "2", "--db", "{tmp}/mm.sqlite"],
    ("mastermind", "match"): ["-p", "2", "-k", "2", "--players", "knuth", "random",
                              "--db", "{tmp}/mm.sqlite"],
    ("mastermind", "stats"): ["--db", "{tmp}/mm.sqlite"],
    ("kalah", "solve"): ["2", "1", "--no-endgame-files"],
    ("kalah", "play"): ["--pits", "2", "--stones", "1", "--human", "none", "--depth", "2"],
    ("kalah", "stats"): ["--db", "{tmp}/kalah_play.sqlite"],
    ("kalah", "tournament"): ["store@1", "sides@1", "--pits", "2", "--stones", "1",
                              "--openings", "1", "--db", "{tmp}/kalah.sqlite"],
    ("puzzles", "queens"): ["6"],
    ("puzzles", "domination"): ["4"],
    ("puzzles", "hanoi"): ["3"],
    ("puzzles", "rings"): ["3"],
    ("puzzles", "frogs"): ["2"],
    ("puzzles", "tait"): ["3"],
    ("puzzles", "fibnim"): ["5"],
    ("puzzles", "pegsolitaire"): ["cross"],
    ("primes", "count"): ["0", "100"],
    ("primes", "pi"): ["10^6"],
    ("primes", "nth"): ["1000"],
    ("primes", "isprime"): ["7"],
    ("primes", "list"): ["0", "30"],
    ("primes", "poly"): ["1", "1", "41", "--upto", "10"],
    ("primes", "lines"): ["--size", "11", "--top", "1"],
    ("primes", "spiral"): ["--size", "11", "--out", "{tmp}/spiral.png"],
    ("primes", "triangle"): ["--size", "11", "--out", "{tmp}/triangle.png"],
    ("serve",): ["--port", "0", "--no-browser", "--db", "{tmp}/db"],
}
"""A small valid command line of each leaf command (``{tmp}``: a scratch directory)."""

SERVERS = {("serve",)}
"""Commands that run until Ctrl-C (their valid line serves for ever): the fuzz test
leaves them out; tests/test_web_http.py runs the server and stops it."""


@dataclass(frozen=True)
class Outcome:
    status: int
    out: str
    err: str


def run(argv, stdin: str = "") -> Outcome:
    """``jitgames *argv`` in this process, with ``stdin`` as its input."""
    from jitgames.__main__ import main

    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(list(argv))
    finally:
        sys.stdin = saved
    return Outcome(status, out.getvalue(), err.getvalue())


def game_parser(game: str) -> argparse.ArgumentParser:
    """The parser of ``jitgames <game>`` (each game's ``build_parser()``)."""
    return importlib.import_module(f"jitgames.{PACKAGES.get(game, game)}.__main__").build_parser()


def commands():
    """Every command as ``(path, parser)``: ``path`` the words after ``jitgames``
    (``("solitaire",)``, ``("kalah", "solve")``, ...), ``parser`` the one that reads the
    rest. Commands with sub-commands are walked down to their leaves."""
    found = []

    def walk(path, parser):
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            found.append((path, parser))
            return
        for name, child in subs[0].choices.items():
            walk(path + (name,), child)

    for game in GAMES:
        walk((game,), game_parser(game))
        found.extend(dispatched(game))
    return found


def dispatched(game: str):
    """Sub-commands a game recognises by its first word before its own parser
    (``SUBCOMMANDS`` of its ``__main__``), as ``(path, parser)``; ``parser`` is the
    sub-command's ``<name>_parser()`` from the module that runs it (every such
    sub-command must have one, so the contract covers it)."""
    game = PACKAGES.get(game, game)
    module = importlib.import_module(f"jitgames.{game}.__main__")
    found = []
    for name in getattr(module, "SUBCOMMANDS", ()):
        builder = None
        package = importlib.import_module(f"jitgames.{game}")
        for info in pkgutil.iter_modules(package.__path__, f"jitgames.{game}."):
            builder = getattr(importlib.import_module(info.name), f"{name}_parser", None)
            if builder is not None:
                break
        assert builder is not None, f"{game} {name}: no {name}_parser() to check"
        found.append(((game, name), builder()))
    return found


def arguments(parser):
    """The arguments a user gives a leaf parser (``--help`` excluded)."""
    return [a for a in parser._actions if not isinstance(a, argparse._HelpAction)
            and a.help is not argparse.SUPPRESS]
