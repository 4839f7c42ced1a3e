"""Mastermind for people in the terminal: ``play``, ``match`` and ``stats``.

- ``play`` (default ``--role breaker``): the computer makes a secret and the person
  guesses (``1123`` or ``1 1 2 3``; ``?`` shows how many codes are still possible;
  ``quit`` gives up and shows the code, recorded as an unsolved game). A guess that
  cannot be the secret given the earlier answers is pointed out with the first
  answer it contradicts; with ``--hard`` it is refused and not counted. ``--role maker``: the person keeps a secret and answers the
  computer's guesses with blacks and whites (``1 2``, ``12`` or ``1b2w``); an answer
  that contradicts the earlier ones is shown and refused.
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
import re
import sys

import numpy as np

from ..errors import InputError
from .. import _cli
from .._interrupt import run_interruptible
from .._random import below, stream_key
from .._store import StoreError
from .breaker import Breaker, InconsistentAnswer, consistent_codes
from .codes import decode_feedback, encode_feedback
from .evaluate import load_game
from .stats import open_db, player_table, record_game, record_match

__all__ = ["add_play_arguments", "COMMANDS", "Board"]

MAX_SEED = 2**62  # seeds must stay within the int64 of the kernels (as in __main__)
MATCH_GUESSES = 10  # a person's limit in a match unless --max-guesses says otherwise
# 256-colour backgrounds for colours 1..; beyond the list pegs are shown plainly.
PEG_COLOURS = (196, 34, 27, 226, 208, 129, 51, 231, 94, 245)


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
    """Renders guesses and their feedback, coloured or plain."""

    def __init__(self, space, colour: bool):
        self.space, self.colour = space, colour

    def code(self, index: int) -> str:
        text = self.space.format(index)
        if not self.colour:
            return " ".join(text)
        out = []
        for d, ch in zip(self.space.digits[index], text):
            if d < len(PEG_COLOURS):
                fg = 16 if PEG_COLOURS[d] in (226, 231, 51) else 231
                out.append(f"\x1b[48;5;{PEG_COLOURS[d]}m\x1b[38;5;{fg}m {ch} \x1b[0m")
            else:
                out.append(f" {ch} ")
        return "".join(out)

    def row(self, number: int, guess: int, answer: int) -> str:
        black, white = decode_feedback(answer, self.space.pegs)
        pegs = "\u25cf" * black + "\u25cb" * white if self.colour else ""
        return f"{number:>3}. {self.code(guess)}   {black} black {white} white {pegs}".rstrip()

    def show(self, history) -> None:
        for i, (guess, answer) in enumerate(history, 1):
            print(self.row(i, guess, answer))


def parse_answer(text: str, pegs: int) -> int:
    """Encoded feedback from ``"1 2"``, ``"12"`` or ``"1b2w"``; ValueError with a reason."""
    if "-" in text:
        raise InputError("blacks and whites cannot be negative")
    numbers = re.findall(r"\d+", text)
    if any(len(n) > 3 for n in numbers):  # int() refuses 5,000 digits; no game has 1,000 pegs
        raise InputError(f"blacks plus whites cannot exceed {pegs}")
    if len(numbers) == 1 and len(numbers[0]) == 2 and pegs < 10:
        numbers = list(numbers[0])
    if len(numbers) != 2:
        raise InputError("answer with two numbers: blacks and whites, e.g. '1 2'")
    black, white = int(numbers[0]), int(numbers[1])
    if black + white > pegs:
        raise InputError(f"blacks plus whites cannot exceed {pegs}")
    if black == pegs - 1 and white == 1:
        raise InputError(f"{pegs - 1} blacks and 1 white is impossible")
    return encode_feedback(black, white, pegs)


def _random_secret(space, seed: int | None) -> int:
    seed = int.from_bytes(os.urandom(7), "little") if seed is None else seed
    value, _ = below(np.uint64(stream_key(seed, 0)), 0, space.size)
    return int(value)


def contradiction(space, history, guess: int) -> str | None:
    """Why ``guess`` cannot be the secret given ``history`` (``(guess, answer)`` pairs):
    the first earlier answer it contradicts, in words; None if it is consistent."""
    for number, (earlier, answer) in enumerate(history, 1):
        would = space.feedback(earlier, guess)
        if would != answer:
            b, w = decode_feedback(answer, space.pegs)
            wb, ww = decode_feedback(would, space.pegs)
            return (f"{space.format(guess)} cannot be the code: guess {number} "
                    f"({space.format(earlier)}) got {b} black {w} white, but against "
                    f"{space.format(guess)} it would get {wb} black {ww} white")
    return None


def human_breaks(space, matrix, board, secret: int, name: str, max_guesses: int | None,
                 hard: bool = False):
    """The person guesses ``secret``; returns guesses used, or None if not solved.

    A guess inconsistent with the earlier answers is pointed out; with ``hard`` it is
    refused (not counted) and the person asked again.
    """
    history = []
    print(f"Guess my code: {space.pegs} digits from 1 to {space.format(space.size - 1)[0]}"
          f"{'' if space.repeats else ', no repeats'}. '?' = codes still possible, "
          f"'quit' = give up.")
    while max_guesses is None or len(history) < max_guesses:
        text = ask(f"{name}, guess {len(history) + 1}: ")
        if text in ("?", "possible"):
            left = consistent_codes(space, matrix, history).size
            print(f"{left} code{'s' if left != 1 else ''} still possible")
            continue
        if text.lower() in ("quit", "q", "exit"):
            print(f"Given up; the code was {space.format(secret)}.")
            return None
        try:
            guess = space.parse(text)
        except InputError as exc:
            print(f"not a code: {exc}")
            continue
        reason = contradiction(space, history, guess)
        if reason is not None:
            if hard:
                print(f"refused (--hard): {reason}.")
                continue
            print(f"note: {reason}.")
        answer = space.feedback(guess, secret)
        history.append((guess, answer))
        print(board.row(len(history), guess, answer))
        if answer == space.solved:
            print(f"Solved in {len(history)} guesses.")
            return len(history)
    print(f"Out of guesses; the code was {space.format(secret)}.")
    return None


def computer_breaks(space, matrix, board, strategy: str, seed: int, secret: int | None = None):
    """The computer guesses; the person answers unless ``secret`` is given.

    Returns the number of guesses used.
    """
    breaker = Breaker(strategy, space, matrix, seed)
    if secret is None:
        print(f"Think of a code of {space.pegs} digits from 1 to "
              f"{space.format(space.size - 1)[0]}; answer each guess with blacks and whites.")
    while True:
        guess = run_interruptible(breaker.guess)  # Ctrl-C heard while it thinks
        number = len(breaker.history) + 1
        if secret is not None:
            answer = space.feedback(guess, secret)
        else:
            print(f"{strategy} guess {number}: {board.code(guess)}")
            while True:
                text = ask("blacks whites: ")
                try:
                    answer = parse_answer(text, space.pegs)
                    solved = breaker.answer(answer)
                    break
                except InconsistentAnswer as exc:
                    print(f"inconsistent: {exc}. Your answers so far:")
                    board.show(breaker.history + [(guess, answer)])
                    print("check your code and answer again.")
                except InputError as exc:
                    print(f"not an answer: {exc}")
            print(board.row(number, guess, answer))
            if solved:
                print(f"{strategy} solved it in {number} guesses.")
                return number
            continue
        solved = breaker.answer(answer)
        print(board.row(number, guess, answer))
        if solved:
            return number


def _ask_secret(space, name: str) -> int:
    while True:
        try:
            return space.parse(ask(f"{name}, type your secret code (hide it!): "))
        except InputError as exc:
            print(f"not a code: {exc}")


def _board(space, args) -> Board:
    return Board(space, colour=not args.no_colour and sys.stdout.isatty())


def _cmd_play(args):
    space, matrix = load_game(args.pegs, args.colours, not args.no_repeats,
                              args.max_matrix_bytes)
    board = _board(space, args)
    con = open_db(args.db)
    try:
        if args.role == "breaker":
            secret = _random_secret(space, args.secret_seed)
            used = human_breaks(space, matrix, board, secret, args.name, args.max_guesses,
                                args.hard)
            record_game(con, args.name, space.pegs, space.colours, space.repeats,
                        used or 0, used is not None)
        else:
            used = computer_breaks(space, matrix, board, args.strategy, args.seed)
            record_game(con, args.strategy, space.pegs, space.colours, space.repeats,
                        used, True)
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
    raise _cli.CLIError(f"a player is human:NAME or a strategy name, got {text!r}")


def _cmd_match(args):
    space, matrix = load_game(args.pegs, args.colours, not args.no_repeats,
                              args.max_matrix_bytes)
    board = _board(space, args)
    players = [_player(p) for p in args.players]
    names = [p[1] for p in players]
    if names[0] == names[1]:
        raise _cli.CLIError("the two players need different names")
    if args.rounds % 2:
        raise _cli.CLIError(f"--rounds must be even, so that each player makes as many codes "
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
                secret = _ask_secret(space, name_m)
            if kind_b == "human":
                limit = args.max_guesses or MATCH_GUESSES
                used = human_breaks(space, matrix, board, secret, name_b, limit)
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
    try:  # opened for writing when it can be, so that pending records are merged first
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
        print("no games recorded yet")
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


def add_play_arguments(sub, size_arguments, strategy_argument) -> None:
    """Add the ``play``, ``match`` and ``stats`` sub-commands to ``sub``."""
    def people(parser):
        _cli.add_db(parser, "mastermind.sqlite", "the player statistics")
        parser.add_argument("--no-colour", "--no-color", action="store_true",
                            help="plain board even on a terminal")
        parser.add_argument("--max-guesses", type=_cli.positive_int, default=None,
                            help="a person gives up after this many guesses")

    pl = sub.add_parser("play", help="play against the computer")
    size_arguments(pl)
    strategy_argument(pl)
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
