"""Mastermind for people in the terminal: ``play``, ``match`` and ``stats``.

- ``play`` (default ``--role breaker``): the computer makes a secret and the person
  guesses (``1123``, ``1 1 2 3`` or by colour letter ``rrgb``, :mod:`.game`); ``?``
  shows how many codes are still possible, ``hint`` the coach's guess (``--strategy``,
  default optimal where it is quick, :mod:`.advice`), ``best`` plays it, ``undo``
  takes back a guess (any number), ``quit`` gives up and shows the code (recorded as
  an unsolved game), ``help`` lists these. A guess that cannot be the secret given
  the earlier answers is pointed out with the first answer it contradicts; with
  ``--hard`` it is refused and not counted. A solved game is recorded with the
  guesses the strategy needs for the same code. ``--role maker``: the person keeps
  a secret and answers the computer's guesses with blacks and whites (``1 2``, ``12``
  or ``1b2w``); an answer that contradicts the earlier ones is shown (with the
  earlier answers it contradicts) and taken back at once; ``undo`` takes back
  earlier answers and ``quit`` stops, at any prompt. Both roles play the game model
  :class:`.game.Game` (2..8 pegs, 2..10 colours, repeats allowed).
- ``match``: two players (``human:NAME`` or a strategy name) alternate as codemaker
  for ``--rounds`` rounds; fewer guesses in total as codebreaker wins (a person who
  gives up or runs out of ``--max-guesses``, default 10, scores one more).
- ``stats``: the player table kept in SQLite (``--db`` overrides the file), one row
  per player and game size (means of different sizes are not comparable).

Input is read line by line from ``sys.stdin``; end of input ends the game cleanly.
Pegs are drawn in ANSI colours only when stdout is a terminal (never with
``--no-colour``).
"""
from __future__ import annotations

import os
import sys

import numpy as np

from ..errors import InputError
from .. import _cli
from .._interrupt import run_interruptible
from .._random import below, stream_key
from .breaker import Breaker
from .codes import decode_feedback, encode_feedback
from .codes import load_game
from .._store import NoRecords, StoreError
from .advice import check_strategy
from .game import (COLOURS, MAX_COLOURS, MAX_PEGS, MIN_COLOURS, MIN_PEGS, Game, Turn,
                   format_code)
from .game import parse_answer as game_answer
from .stats import open_db, player_table, record_game, record_match

__all__ = ["add_play_arguments", "COMMANDS", "Board"]

MAX_SEED = 2**62  # seeds must stay within the int64 of the kernels (as in __main__)
MATCH_GUESSES = 10  # a person's limit in a match unless --max-guesses says otherwise


class EndOfInput(Exception):
    """Standard input ended (or the person quit)."""


def ask(prompt: str) -> str:
    """Print ``prompt`` and read one line from stdin; EndOfInput at end of input."""
    while True:
        print(prompt, end="", flush=True)
        try:
            line = sys.stdin.readline()
            break
        except UnicodeDecodeError:  # bytes that are not text: ask again
            print("not text in the terminal's encoding; type again")
    if line == "":
        print()
        raise EndOfInput
    return line.strip()


class Board:
    """Renders codes (0-based colour tuples) and answers, coloured or plain."""

    def __init__(self, colour: bool):
        self.colour = colour

    def code(self, code) -> str:
        text = format_code(code)
        if not self.colour:
            return " ".join(text)
        out = []
        for d, ch in zip(code, text):
            ansi = COLOURS[d].ansi
            fg = 16 if ansi in (226, 231, 51) else 231
            out.append(f"\x1b[48;5;{ansi}m\x1b[38;5;{fg}m {ch} \x1b[0m")
        return "".join(out)

    def row(self, number: int, turn: Turn) -> str:
        black, white = turn.black, turn.white
        pegs = "\u25cf" * black + "\u25cb" * white if self.colour else ""
        left = f"  ({turn.remaining} possible)" if black < len(turn.guess) else ""
        return (f"{number:>3}. {self.code(turn.guess)}   {black} black {white} white "
                f"{pegs}".rstrip() + left)

    def show(self, turns) -> None:
        for i, turn in enumerate(turns, 1):
            print(self.row(i, turn))


def parse_answer(text: str, pegs: int) -> int:
    """Encoded feedback from ``"1 2"``, ``"12"`` or ``"1b2w"`` (:func:`.game.parse_answer`);
    InputError with a reason."""
    return encode_feedback(*game_answer(text, pegs), pegs)


def _random_secret(space, seed: int | None) -> int:
    seed = int.from_bytes(os.urandom(7), "little") if seed is None else seed
    value, _ = below(np.uint64(stream_key(seed, 0)), 0, space.size)
    return int(value)


def _model_size(space) -> None:
    """InputError unless the game model (:mod:`.game`) plays this size."""
    if not space.repeats:
        raise InputError("play and match use codes with repeated colours (no --no-repeats)")
    if not (MIN_PEGS <= space.pegs <= MAX_PEGS and MIN_COLOURS <= space.colours <= MAX_COLOURS):
        raise InputError(f"play and match take {MIN_PEGS} to {MAX_PEGS} pegs and "
                         f"{MIN_COLOURS} to {MAX_COLOURS} colours")


BREAKER_HELP = """Type a guess as colour numbers or letters, e.g. 1123 or rrgb
({colours}); spaces are ignored.
  ?       how many codes are still possible
  hint    the {strategy} strategy's guess from here (not played)
  best    play that guess
  undo    take back your last guess (any number of times)
  quit    give up and see the code
  help    this text"""


def human_breaks(game: Game, board, name: str, max_guesses: int | None, hard: bool = False):
    """The person guesses ``game``'s secret; returns guesses used, or None if not solved.

    A guess inconsistent with the earlier answers is pointed out; with ``hard`` it is
    refused (not counted) and the person asked again.
    """
    letters = " ".join(c.letter for c in COLOURS[:game.colours])
    print(f"Guess my code: {game.pegs} colours from 1 to {format_code([game.colours - 1])} "
          f"(or letters {letters}). 'help' lists the commands.")
    while max_guesses is None or len(game.turns) < max_guesses:
        text = ask(f"{name}, guess {len(game.turns) + 1}: ")
        word = text.lower()
        if word in ("?", "possible"):
            left = game.turns[-1].remaining if game.turns else game.codes
            print(f"{left} code{'s' if left != 1 else ''} still possible")
            continue
        if word in ("quit", "q", "exit"):
            game.give_up()
            print(f"Given up; the code was {format_code(game.secret)}.")
            return None
        if word in ("help", "h"):
            print(BREAKER_HELP.format(colours=f"1-{format_code([game.colours - 1])} or "
                                      f"{letters}", strategy=game.strategy))
            continue
        if word == "undo":
            if game.undo():
                print(f"Guess {len(game.turns) + 1} taken back.")
                board.show(game.turns)
            else:
                print("nothing to undo")
            continue
        if word == "hint":
            print(f"hint ({game.strategy}): {board.code(game.hint())}")
            continue
        try:
            code = game.hint() if word == "best" else game.parse(text)
        except InputError as exc:
            print(f"not a code: {exc}")
            continue
        reason = game.contradiction(code)
        if reason is not None and hard:
            print(f"refused (--hard): {reason}.")
            continue
        turn = game.play(code)
        if reason is not None:
            print(f"note: {reason}.")
        print(board.row(len(game.turns), turn))
        if game.solved:
            print(f"Solved in {len(game.turns)} guesses.")
            return len(game.turns)
    print(f"Out of guesses; the code was {format_code(game.secret)}.")
    return None


MAKER_HELP = """Answer each guess with blacks (right colour, right place) and whites
(right colour, wrong place): '1 2', '12' or '1b2w'.
  undo    take back your last answer (any number of times)
  quit    stop the game
  help    this text"""


def person_makes(game: Game, board) -> int | None:
    """The computer breaks the person's code (``game`` in the maker role); returns the
    guesses it used, or None if the person quit. An answer that contradicts the
    earlier ones is shown and taken back at once; ``undo`` takes back earlier ones."""
    print(f"Think of a code of {game.pegs} colours from 1 to {format_code([game.colours - 1])}"
          f"; answer each guess with blacks and whites. 'help' lists the commands.",
          flush=True)  # shown before the computer thinks (a Ctrl-C then still leaves it)
    while not game.solved:
        guess = run_interruptible(game.pending)  # Ctrl-C heard while it thinks
        number = len(game.turns) + 1
        print(f"{game.strategy} guess {number}: {board.code(guess)}")
        while True:
            text = ask("blacks whites: ")
            word = text.lower()
            if word in ("quit", "q", "exit"):
                game.give_up()
                print("Game stopped.")
                return None
            if word in ("help", "h"):
                print(MAKER_HELP)
                continue
            if word == "undo":
                if game.undo():
                    print(f"Answer {len(game.turns) + 1} taken back. Your answers now:")
                    board.show(game.turns)
                else:
                    print("nothing to undo")
                break
            try:
                black, white = decode_feedback(parse_answer(text, game.pegs), game.pegs)
            except InputError as exc:
                print(f"not an answer: {exc}")
                continue
            turn = run_interruptible(lambda: game.answer(black, white))
            if game.contradicted:
                print(f"inconsistent: {turn.note}. Your answers:")
                board.show(game.turns)
                game.undo()
                print("That answer is taken back: check your code and answer again "
                      "('undo' takes back the one before too, 'quit' stops).")
                continue
            print(board.row(number, turn))
            break
    print(f"{game.strategy} solved it in {len(game.turns)} guesses.")
    return len(game.turns)


def computer_breaks(space, matrix, board, strategy: str, seed: int, secret: int) -> int:
    """The computer guesses a known ``secret`` (index) on its own; returns the guesses
    used (a person's code is answered by the person instead: :func:`person_makes`)."""
    breaker = Breaker(strategy, space, matrix, seed)
    while True:
        guess = run_interruptible(breaker.guess)  # Ctrl-C heard while it thinks
        answer = space.feedback(guess, secret)
        solved = breaker.answer(answer)
        black, white = decode_feedback(answer, space.pegs)
        turn = Turn(tuple(int(d) for d in space.digits[guess]), black, white,
                    int(breaker.consistent.size))
        print(board.row(len(breaker.history), turn))
        if solved:
            return len(breaker.history)


def _ask_secret(space, name: str) -> str:
    """A person's secret, typed (numbers or colour letters)."""
    while True:
        text = ask(f"{name}, type your secret code (hide it!): ")
        try:
            return format_code(Game(space.pegs, space.colours, "breaker", 0, "random",
                                    text).secret)
        except InputError as exc:
            print(f"not a code: {exc}")


def _board(args) -> Board:
    return Board(colour=not args.no_colour and sys.stdout.isatty())


def _cmd_play(args):
    if args.no_repeats:
        raise InputError("play uses codes with repeated colours (no --no-repeats)")
    if args.strategy is not None:
        check_strategy(args.strategy, args.pegs, args.colours)
    board = _board(args)
    con = open_db(args.db)
    try:
        if args.role == "breaker":
            seed = args.secret_seed
            seed = int.from_bytes(os.urandom(7), "little") if seed is None else seed
            game = Game(args.pegs, args.colours, "breaker", seed, args.strategy)
            used = human_breaks(game, board, args.name, args.max_guesses, args.hard)
            mine = None
            if used is not None:
                mine = run_interruptible(game.strategy_guesses)
                print(f"The {game.strategy} strategy needs {mine} guesses for this code.")
            record_game(con, args.name, game.pegs, game.colours, True, used or 0,
                        used is not None, game.strategy if mine is not None else None, mine)
        else:
            game = Game(args.pegs, args.colours, "maker", args.seed, args.strategy)
            used = person_makes(game, board)
            if used is not None:
                record_game(con, game.strategy, game.pegs, game.colours, True, used, True)
    except EndOfInput:
        print("Game over (no more input).")
    finally:
        con.close()
    return 0


def _player(text: str):
    if text.startswith("human:") and len(text) > 6:
        return ("human", text[6:])
    from .evaluate import strategy_names
    if text in strategy_names():
        return ("computer", text)
    raise _cli.InputError(f"a player is human:NAME or a strategy name, got {text!r}")


def _cmd_match(args):
    space, matrix = load_game(args.pegs, args.colours, not args.no_repeats,
                              args.max_matrix_bytes)
    _model_size(space)
    board = _board(args)
    players = [_player(p) for p in args.players]
    names = [p[1] for p in players]
    if names[0] == names[1]:
        raise _cli.InputError("the two players need different names")
    if args.rounds % 2:
        raise _cli.InputError(f"--rounds must be even, so that each player makes as many codes "
                              f"as they break (got {args.rounds})")
    totals = [0, 0]
    con = open_db(args.db)
    try:
        for rnd in range(args.rounds):
            maker, breaker = rnd % 2, 1 - rnd % 2
            (kind_m, name_m), (kind_b, name_b) = players[maker], players[breaker]
            print(f"Round {rnd + 1}: {name_m} makes the code, {name_b} breaks it.")
            secret = None  # a person making the code for the computer answers instead
            if kind_m == "computer":
                secret = _random_secret(space, None if args.seed is None else args.seed + rnd)
            elif kind_b == "human":
                secret = _ask_secret(space, name_m)  # typed, in the shared format
            if kind_b == "human":
                limit = args.max_guesses or MATCH_GUESSES
                game = Game(space.pegs, space.colours, "breaker", 0, None, secret
                            if isinstance(secret, str) else space.format(secret))
                used = human_breaks(game, board, name_b, limit)
            elif secret is None:
                used = person_makes(Game(space.pegs, space.colours, "maker", rnd, name_b),
                                    board)
                if used is None:  # the person stopped answering
                    raise EndOfInput
            else:
                used = computer_breaks(space, matrix, board, name_b, rnd, secret)
            solved = used is not None
            if not solved:  # gave up or ran out: scored one over the limit, recorded unsolved
                used = limit + 1
            record_game(con, name_b, space.pegs, space.colours, space.repeats, used, solved)
            totals[breaker] += used
            print(f"{name_b}: {used} guesses (total {totals[breaker]})")
        if totals[0] == totals[1]:
            results = ["draw", "draw"]
        else:
            results = ["win", "loss"] if totals[0] < totals[1] else ["loss", "win"]
        record_match(con, *((names[i], names[1 - i], results[i], totals[i]) for i in (0, 1)))
        winner = "a draw" if results[0] == "draw" else names[results.index("win")] + " wins"
        print(f"Match: {names[0]} {totals[0]} guesses, {names[1]} {totals[1]}: {winner}.")
    except EndOfInput:
        print("Match abandoned (no more input).")
    finally:
        con.close()
    return 0


def _cmd_stats(args):
    missing = None
    try:
        con = open_db(args.db, write=False)  # creates nothing: a missing file is NoRecords
    except NoRecords as exc:
        table, missing = [], exc.path
    else:
        con.close()
        try:  # it exists: opened for writing when it can be, so pending records are merged
            con = open_db(args.db)
        except StoreError as exc:
            if "cannot be written" not in str(exc):
                raise
            con = open_db(args.db, write=False)  # a read-only database is shown as it is
        try:
            table = player_table(con)
        finally:
            con.close()
    if args.json:
        return _cli.emit(args, {"players": table})
    if not table:
        print("no games recorded yet" + (f" ({missing} does not exist)" if missing else ""))
        return 0
    print(f"{'player':<16}{'size':>9}{'games':>6}{'solved':>7}{'mean':>7}"
          f"  distribution (guesses: games)")
    for row in table:
        for size in row["sizes"]:
            label = f"{size['pegs']}x{size['colours']}" + ("" if size["repeats"] else "nr")
            mean = f"{size['mean_guesses']:.2f}" if size["mean_guesses"] is not None else "-"
            dist = ", ".join(f"{k}: {v}" for k, v in size["distribution"].items())
            print(f"{row['player']:<16}{label:>9}{size['games']:>6}{size['solved']:>7}"
                  f"{mean:>7}  {dist}")
    matches = [row for row in table if row["matches"]]
    if matches:
        print(f"{'player':<16}{'matches':>8}{'wins':>6}")
        for row in matches:
            print(f"{row['player']:<16}{row['matches']:>8}{row['wins']:>6}")
    print("size: pegs x colours (nr: no repeated colours); mean over solved games")
    return 0


def add_play_arguments(sub, size_arguments) -> None:
    """Add the ``play``, ``match`` and ``stats`` sub-commands to ``sub``."""
    def people(parser):
        _cli.add_db(parser, "mastermind.sqlite", "the player statistics")
        parser.add_argument("--no-colour", "--no-color", action="store_true",
                            help="plain board even on a terminal")
        parser.add_argument("--max-guesses", type=_cli.positive_int, default=None,
                            help="a person gives up after this many guesses")

    pl = sub.add_parser("play", help="play against the computer")
    size_arguments(pl)
    from .evaluate import strategy_names
    pl.add_argument("--strategy", "-s", default=None, choices=strategy_names(), metavar="NAME",
                    help="the coach's strategy (breaker: hint, best) or the computer's "
                         "(maker); default optimal where it is quick (up to 1296 codes, "
                         "7 pegs), else most-parts (up to 8192 codes), else random")
    _cli.add_seed(pl, MAX_SEED, 0, "seed of the random strategies")
    pl.add_argument("--role", choices=("breaker", "maker"), default="breaker",
                    help="breaker: you guess the computer's code; maker: you keep a code")
    pl.add_argument("--name", default="player", help="your name in the statistics")
    pl.add_argument("--secret-seed", type=_cli.int_in_range(0, MAX_SEED), default=None,
                    help="seed of the computer's secret (0..2^62, default: random)")
    pl.add_argument("--hard", action="store_true",
                    help="as breaker, a guess that contradicts earlier answers is refused "
                         "(without it, it is pointed out and played)")
    people(pl)

    ma = sub.add_parser("match", help="two players alternate as codemaker")
    size_arguments(ma)
    ma.add_argument("--players", nargs=2, required=True, metavar=("A", "B"),
                    help="human:NAME or a strategy name, twice")
    ma.add_argument("--rounds", type=_cli.positive_int, default=2,
                    help="games in all, the players taking turns as codemaker (default 2)")
    _cli.add_seed(ma, MAX_SEED, None, "seed of the computer's secrets (default: random)")
    people(ma)

    st = sub.add_parser("stats", help="the player statistics: one row per player and "
                                      "game size, then the matches")
    _cli.add_db(st, "mastermind.sqlite", "the player statistics")
    _cli.add_json(st)


COMMANDS = {"play": _cmd_play, "match": _cmd_match, "stats": _cmd_stats}
