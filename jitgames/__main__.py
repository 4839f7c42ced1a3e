"""The front door: ``jitgames <game> ...`` (also ``python -m jitgames <game> ...``).

``jitgames solitaire 100000`` runs exactly what ``python -m jitgames.solitaire 100000``
runs: the game's own ``main(argv)`` with the arguments after the game's name. The
command-line contract shared by the games is in ``docs/cli.md``.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from . import __version__
from ._cli import EXIT_CUT_SHORT, ArgumentParser, as_program, command_name, exit_process
from ._kept_interrupts import interrupts_kept
from ._warmup import start_ahead_of

__all__ = ["GAMES", "main"]

GAMES = {
    "solitaire": "optimal scores of a patience: studies of random deals, replays",
    "mastermind": "codebreaking strategies, optimal trees, games against the computer",
    "kalah": "exact game values of Kalah(m, n), alpha-beta play, tournaments",
    "puzzles": "queens, domination, Hanoi, rings, frogs, Tait, Fibonacci nim, pegs",
    "primes": "prime counts, primality, prime-rich polynomials, lines, pictures",
    "serve": "play the games in a local web page, the exact solvers as coach",
}
"""Sub-command name -> one line of what it does; each is the package ``jitgames.<name>``
(``serve`` is :mod:`jitgames.web`)."""
PACKAGES = {"serve": "web"}
"""Sub-commands whose package has another name."""


def build_parser() -> ArgumentParser:
    """The front door's parser (used for ``--help``, ``--version`` and errors; the
    arguments after the game's name belong to the game's own parser)."""
    games = "\n".join(f"  {name:<12}{summary}" for name, summary in GAMES.items())
    parser = ArgumentParser(
        prog="jitgames", usage="jitgames [-h] [--version] GAME [ARGS ...]",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Classic computer-recreation problems solved exactly and fast.\n\n"
                    f"games:\n{games}",
        epilog="Run 'jitgames GAME --help' for the options of one game; the options "
               "shared by\nevery game are described in docs/cli.md.")
    parser.add_argument("--version", action="version", version=f"jitgames {__version__}")
    sub = parser.add_subparsers(dest="game", metavar="GAME", required=True,
                                parser_class=ArgumentParser, help=argparse.SUPPRESS)
    for name in GAMES:
        sub.add_parser(name, add_help=False)
    return parser


def main(argv=None) -> int:
    """Entry point of ``jitgames``; returns the exit status."""
    program = argv is None  # the process's own command line (see _cli.run_cli)
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] not in GAMES:
        # --help, --version, a missing or unknown game: argparse answers (and exits).
        try:
            build_parser().parse_args(argv[:1])
        except SystemExit as exc:
            return 0 if exc.code is None else int(exc.code)
        return 2  # not reached: a lone valid game name is handled below
    package = PACKAGES.get(argv[0], argv[0])
    # Ctrl-C can come at any bytecode, even in the import system's callbacks or in an
    # extension module's import, and still ends the command with 130 (_kept_interrupts).
    with interrupts_kept() as kept:
        try:
            # A first run's compiling helper imports beside the game's modules (about a
            # second each).
            start_ahead_of(argv[0], argv[1:])
            game = importlib.import_module(f"{__name__.rpartition('.')[0] or 'jitgames'}."
                                           f"{package}.__main__")
            with command_name("jitgames"), as_program(program):
                return game.main(argv[1:])
        except KeyboardInterrupt:  # before or after the game's own handling
            pass
        except Exception:
            if not kept.arrived:  # a failure of its own, not a Ctrl-C turned into one
                raise
    print(f"jitgames {argv[0]}: interrupted", file=sys.stderr)
    return EXIT_CUT_SHORT


if __name__ == "__main__":
    exit_process(main())
