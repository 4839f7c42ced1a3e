"""The ``play`` and ``stats`` sub-commands of ``python -m jitgames.solitaire``.

    python -m jitgames.solitaire play                  a random deal (its seed and index shown)
    python -m jitgames.solitaire play SEED INDEX       deal INDEX of SEED, as --show numbers them
    python -m jitgames.solitaire play --deal-file FILE [--line K]   line K (default 1) of a deal file
    python -m jitgames.solitaire stats [--json]        games, mean score, cards lost, wins

Both take ``--db FILE`` (default ``solitaire.sqlite`` in the jitgames data
directory); ``play`` checks the database before the game starts and stores the
result when the game ends (no move left, ``quit``, end of input, or Ctrl-C, which
exits with status 130; Ctrl-C, or quitting at the deal, stores it as abandoned and
keeps it out of the statistics). ``stats`` only reads: it creates no file. See
docs/solitaire.md.
"""
from __future__ import annotations

import getpass
import secrets
import sys

from .._cli import (ArgumentParser, InputError, add_db, add_json, display_name, int_in_range,
                    positive_int, print_json)
from .._store import NoRecords
from .console import end_line, play_session, with_progress
from .deal import SHUFFLES, deals, read_deal_file
from .family import RULE_NAMES
from .play import Game
from .records import DB_FILE, GameRecord, open_db, player_table, record_game, record_line
from .search import PositionSolver
from .table import DEFAULT_CAPACITY

PROG = "python -m jitgames.solitaire"
uint64 = int_in_range(0, 2**64 - 1)
RANDOM_SEEDS = 2**32
"""A random deal's seed is drawn below this (short enough to type back), its index
below ``RANDOM_INDICES``."""
RANDOM_INDICES = 10**6


def _player() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no user name in the environment (e.g. a bare container)
        return "player"


MAX_NAME = 100
"""Longest player name (characters)."""


def player_name(text: str) -> str:
    """argparse type of ``--name``: printable text of 1 to ``MAX_NAME`` characters."""
    import argparse

    name = text.strip()
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise argparse.ArgumentTypeError("the name is not valid text") from None
    if not name or len(name) > MAX_NAME or not name.isprintable():
        raise argparse.ArgumentTypeError(f"expected a name of 1 to {MAX_NAME} printable "
                                         f"characters, got {text!r}")
    return name


def _text(path) -> str:
    """A file name as storable text (undecodable bytes of the name shown as U+FFFD)."""
    return str(path).encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def play_parser() -> ArgumentParser:
    parser = ArgumentParser(prog=f"{display_name(PROG)} play", description=(
        "Play one deal at the terminal, with the exact solver as coach: after every move "
        "it shows the optimal score still reachable. See docs/solitaire.md."))
    parser.add_argument("deal", nargs="*", type=uint64, metavar="SEED INDEX",
                        help="deal INDEX of seed SEED (default: a random deal)")
    parser.add_argument("--deal-file", "--deals", dest="deal_file", metavar="FILE",
                        help="play a deal of FILE (52 card ids a line; docs/design.md)")
    parser.add_argument("--line", type=positive_int, metavar="K",
                        help="with --deal-file: the deal on line K (default 1)")
    parser.add_argument("--shuffle", choices=SHUFFLES, default="fisher-yates",
                        help="shuffle of SEED INDEX (default fisher-yates)")
    parser.add_argument("--name", type=player_name, default=None,
                        help="player name (default: the user's)")
    add_db(parser, DB_FILE, "game results")
    parser.add_argument("--rules", choices=RULE_NAMES, default="etude",
                        help="rule set: etude (the default), yukon or alaska (docs/solitaire.md); "
                             "games under yukon or alaska are not stored in the records")
    parser.add_argument("--no-colour", "--no-color", dest="colour", action="store_false",
                        help="plain text even on a terminal")
    return parser


def _choose_deal(args):
    """``(deck, title, record fields)`` of the deal ``args`` name."""
    if args.deal_file is not None:
        if args.deal:
            raise InputError("give either SEED INDEX or --deal-file FILE, not both")
        try:
            decks = read_deal_file(args.deal_file)
        except ValueError as exc:
            raise InputError(str(exc)) from None
        line = args.line or 1
        if line > decks.shape[0]:
            raise InputError(f"--line {line}: {args.deal_file} has {decks.shape[0]} deal(s)")
        return decks[line - 1], f"Deal on line {line} of {_text(args.deal_file)}", dict(
            shuffle=None, seed=None, deal_index=None, deal_file=_text(args.deal_file),
            deal_line=line)
    if args.line is not None:
        raise InputError("--line applies to --deal-file FILE")
    if len(args.deal) not in (0, 2):
        raise InputError("give a deal as SEED INDEX (two numbers), or nothing for a random deal")
    if args.deal:
        seed, index = args.deal
        title = f"Deal {index} of seed {seed} ({args.shuffle} shuffle)"
    else:
        seed, index = secrets.randbelow(RANDOM_SEEDS), secrets.randbelow(RANDOM_INDICES)
        shuffle = "" if args.shuffle == "fisher-yates" else f" --shuffle {args.shuffle}"
        title = (f"Deal {index} of seed {seed} ({args.shuffle} shuffle); play it again with "
                 f"`{display_name(PROG)} play {seed} {index}{shuffle}`")
    deck = deals(seed, index, index + 1, args.shuffle)[0]
    return deck, title, dict(shuffle=args.shuffle, seed=seed, deal_index=index, deal_file=None,
                             deal_line=None)


AGAIN_PROMPT = "Play again? n: a new random deal, r: this deal again, Enter: stop > "


def play_command(argv) -> int:
    """``play``: a game, then (at a terminal, after a game played to its end) another
    if the player asks; 0 when the last ended by play, quit or end of input, 130 on
    Ctrl-C."""
    args = play_parser().parse_args(argv)
    deck, title, where = _choose_deal(args)
    records = open_db(args.db)  # before any play: a bad file costs no game
    try:
        while True:
            status, end = _play_one(args, records, deck, title, where)
            again = _ask_again(status, end)
            if again is None:
                return status
            if again == "n":
                args.deal, args.deal_file, args.line = [], None, None
                deck, title, where = _choose_deal(args)
    finally:
        records.close()


def _play_one(args, records, deck, title, where):
    """One game of ``deck``, stored in ``records``; ``(status, session end)``, the end
    None after Ctrl-C."""
    if args.rules != "etude":
        return _play_family(args, deck, title)
    # the deal's optimum is solved here (a second or so for the hardest deals)
    game = with_progress(lambda: Game(deck, PositionSolver(DEFAULT_CAPACITY)))
    colour = args.colour and sys.stdout.isatty()
    status, end = 0, None
    try:
        end = play_session(game, colour=colour, title=title)
    except KeyboardInterrupt:
        print()
        status = 130
    print(end_line(game))
    player = args.name or _player()
    abandoned = is_abandoned(end, len(game.history))
    if abandoned:
        print("abandoned: stored, and not counted in your record")
    if record_game(records, GameRecord(player=player, score=game.score,
                                       optimum=game.optimum, moves=len(game.history),
                                       hints=game.hints, undos=game.undos,
                                       abandoned=abandoned, **where)):
        line = record_line(records, player)  # the running record, as the web page shows
        if line:
            print(line)
    return status, end


def _play_family(args, deck, title):
    """One game under Yukon's or Alaska's rules (:mod:`.family_play`); not recorded."""
    from .family_play import FamilyGame

    game = with_progress(lambda: FamilyGame(deck, args.rules))
    status, end = 0, None
    try:
        end = play_session(game, colour=args.colour and sys.stdout.isatty(),
                           title=f"{title}, {args.rules} rules")
    except KeyboardInterrupt:
        print()
        status = 130
    print(end_line(game))
    print(f"games under {args.rules} rules are not stored in the records")
    return status, end


def _ask_again(status: int, end) -> str | None:
    """After a game played to its end, at an interactive terminal: ``"n"`` (a new random
    deal), ``"r"`` (the same deal again) or None (stop). Piped input is never asked, so
    a script's lines are not read as an answer."""
    if status != 0 or end is None or end.reason != "over" or not sys.stdin.isatty():
        return None
    try:
        answer = input(AGAIN_PROMPT).strip().lower()
    except EOFError:
        print()
        return None
    return answer if answer in ("n", "r") else None


def is_abandoned(end, moves: int) -> bool:
    """Whether a game is stored as abandoned (see :mod:`.records`): stopped by Ctrl-C
    (``end`` None), or ended by ``quit`` or the end of input with no move on the board.
    A game that reached its end (no move left) always counts."""
    if end is None:
        return True
    return end.reason != "over" and moves == 0


def stats_parser() -> ArgumentParser:
    """The ``stats`` sub-command's parser."""
    parser = ArgumentParser(prog=f"{display_name(PROG)} stats", description=(
        "Each player's games, mean score, mean cards lost against the deal's optimal "
        "score, and wins (52 cards); abandoned games (Ctrl-C, or quit at the deal) are "
        "counted apart. Only reads: a missing database is an empty table, not created."))
    add_db(parser, DB_FILE, "game results")
    add_json(parser)
    return parser


def stats_command(argv) -> int:
    """``stats``: the player table of the results database."""
    args = stats_parser().parse_args(argv)
    missing = None
    try:
        with open_db(args.db, write=False) as records:
            rows = player_table(records)
    except NoRecords as exc:  # a read-only query: nothing is created
        rows, missing = [], exc.path
    if args.json:
        print_json({"players": rows, "complete": True})
        return 0
    if not rows:
        print("no games recorded yet" + (f" ({missing} does not exist)" if missing else ""))
        return 0
    width = max(6, *(len(r["player"]) for r in rows))
    print(f"{'player':<{width}}  games  mean score  mean lost  wins  perfect  abandoned")

    def mean(value, width):
        return f"{value:{width}.2f}" if value is not None else f"{'-':>{width}}"

    for r in rows:
        print(f"{r['player']:<{width}}  {r['games']:5d}  {mean(r['mean_score'], 10)}  "
              f"{mean(r['mean_lost'], 9)}  {r['wins']:4d}  {r['perfect']:7d}  "
              f"{r['abandoned']:9d}")
    return 0
