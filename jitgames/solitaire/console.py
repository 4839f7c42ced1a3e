"""The solitaire at the terminal: the board drawn in text, and the command loop of ``play``.

Everything here is input and output around :class:`.play.Game`: :func:`draw_board`
draws seven piles as columns (face-down cards hidden as ``##``, or shown in
brackets by ``reveal`` for replays), the foundations and, on a terminal, red and
black suits in ANSI colours; :func:`play_session` reads one command a line (piped
input works: every line a command, end of input quits) and redraws the board after
every move. A solver call that takes more than a second shows an indicator on
stderr when stderr is a terminal (:func:`with_progress`).
"""
from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass

from .._store import shorten
from .play import Game, IllegalMove
from .rules import SUITS, card_name

__all__ = ["draw_board", "play_session", "with_progress", "HELP", "SessionEnd"]

_RED = "\x1b[31m"
_BLACK = "\x1b[1m"
_DIM = "\x1b[2m"
_RESET = "\x1b[0m"
_CELL = 6  # columns per pile: "[10♥]" and a space

HELP = """\
Moves: a card (9c, 9♣, 10h, Td, K♠) goes with every card on it to its one possible
place (onto the card of its suit one rank higher; a king into an empty pile), or two
pile numbers (3 5) move the movable run of pile 3 onto pile 5. A number after
`moves` plays that move. Cards that fit the foundations go there by themselves.
Commands:
  hint      the solver's best move and the optimal score it keeps
  best      make that move
  undo [N]  take back the last move (or N moves); any number of times
  restart   back to the deal
  moves     the legal moves, numbered
  board     draw the board again
  help      this text
  quit      end the game (so does the end of input; at the deal: abandoned, not counted)"""


def _card(card: int, colour: bool) -> str:
    text = card_name(card)
    if not colour:
        return text
    return f"{_RED if card // 13 in (1, 2) else _BLACK}{text}{_RESET}"


def _cell(text: str, shown: str, colour: bool) -> str:
    """``shown`` (``text`` with its colour codes, if any) padded to the cell width."""
    return (shown if colour else text) + " " * max(1, _CELL - len(text))


def draw_board(piles, foundations, colour: bool = False, reveal: bool = False) -> str:
    """The board as text: the foundations' top cards, then the piles as columns.

    ``piles`` are ``(face_down_count, cards bottom to top)``; ``foundations`` the
    cards per suit. Face-down cards are ``##`` unless ``reveal`` (then ``[K♥]``).
    """
    tops = []
    for suit, height in enumerate(foundations):
        if height:
            tops.append(_cell(card_name(suit * 13 + height - 1), _card(suit * 13 + height - 1, colour),
                              colour))
        else:
            tops.append(_cell(f"-{SUITS[suit]}", f"{_DIM}-{SUITS[suit]}{_RESET}", colour))
    lines = ["foundations  " + "".join(tops).rstrip(), ""]
    lines.append("".join(f"{p + 1:>3}" + " " * (_CELL - 3) for p in range(len(piles))).rstrip())
    rows = max(max(len(cards) for _, cards in piles), 1)
    for i in range(rows):
        cells = []
        for down, cards in piles:
            if i >= len(cards):
                text = "--" if i == 0 else ""
                cells.append(_cell(f" {text}", f" {_DIM}{text}{_RESET}" if text else " ", colour))
            elif i < down and not reveal:
                cells.append(_cell(" ##", f" {_DIM}##{_RESET}", colour))
            elif i < down:
                name = card_name(cards[i])
                cells.append(_cell(f"[{name}]", f"[{_card(cards[i], colour)}]", colour))
            else:
                name = card_name(cards[i])
                cells.append(_cell(f" {name}", f" {_card(cards[i], colour)}", colour))
        lines.append("".join(cells).rstrip())
    return "\n".join(lines)


def status_line(game: Game) -> str:
    """Cards on the foundations, the optimal score still reachable, and the counts."""
    return (f"on the foundations {game.score}, still reachable {game.reachable()} "
            f"(deal's optimum {game.optimum}); {len(game.history)} moves, "
            f"{game.hints} hints, {game.undos} undos")


def with_progress(call, stream=None, after: float = 1.0):
    """``call()``, with ``solving... N s`` on ``stream`` (stderr) while it takes more
    than ``after`` seconds, when ``stream`` is a terminal. The solver kernels release
    the GIL, so the call runs in a thread and the indicator in this one."""
    stream = sys.stderr if stream is None else stream
    if not stream.isatty():
        return call()
    outcome = {}

    def target():
        try:
            outcome["value"] = call()
        except BaseException as exc:  # re-raised in the caller's thread
            outcome["error"] = exc

    worker = threading.Thread(target=target, daemon=True)
    begin = time.perf_counter()
    worker.start()
    worker.join(after)
    if worker.is_alive():
        while worker.is_alive():
            stream.write(f"\rsolving... {time.perf_counter() - begin:.1f} s")
            stream.flush()
            worker.join(0.2)
        stream.write("\r" + " " * 24 + "\r")
        stream.flush()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


@dataclass(frozen=True)
class SessionEnd:
    """How a session ended: ``"over"`` (no move left), ``"quit"`` or ``"end of input"``."""

    reason: str


def _read(prompt: str, stream) -> str | None:
    """One line from ``stream`` after ``prompt``; None at end of input."""
    print(prompt, end="", flush=True)
    while True:
        try:
            line = stream.readline()
            break
        except UnicodeDecodeError:
            print("not text in the terminal's encoding; type again")
    if line == "":
        print()
        return None
    if not stream.isatty():  # echo piped commands, so the output reads as a session
        print(line.rstrip("\n"))
    return line.strip()


def end_line(game: Game) -> str:
    """``score X of optimal Y`` and the counts of the game."""
    return (f"score {game.score} of optimal {game.optimum}; {len(game.history)} moves, "
            f"{game.hints} hints, {game.undos} undos")


def play_session(game: Game, *, colour: bool = False, stdin=None, title: str = "") -> SessionEnd:
    """Play ``game`` with commands read from ``stdin`` (one a line); print to stdout.

    Returns when no move is left, on ``quit`` or at the end of input; the caller
    prints :func:`end_line` and stores the result.
    """
    stdin = sys.stdin if stdin is None else stdin
    if title:
        print(title)
    print("Type a move (9c, K♠, 3 5), or hint, best, undo, restart, moves, help, quit.")
    listed: list[int] = []

    def show():
        print()
        print(draw_board(game.piles(), game.foundations(), colour))
        print(with_progress(lambda: status_line(game)))

    def make(move: int):
        nonlocal listed
        before = with_progress(game.reachable)
        text = game.describe(move)
        played = game.play(move)
        print(text + ("; to the foundations: " + " ".join(card_name(c) for c in played)
                      if played else ""))
        after = with_progress(game.reachable)
        if after < before:
            print(f"that move threw away {before - after} card{'s' if before - after > 1 else ''}"
                  f": {after} still reachable, {before} before it")
        listed = []
        show()

    show()
    while True:
        if game.over:
            print("No move is left.")
            return SessionEnd("over")
        line = _read("> ", stdin)
        if line is None:
            return SessionEnd("end of input")
        words = line.lower().split()
        if not words:
            continue
        command = words[0]
        if command in ("quit", "q", "exit"):
            return SessionEnd("quit")
        if command in ("help", "?"):
            print(HELP)
        elif command in ("board", "b"):
            show()
        elif command in ("hint", "best"):
            hint = with_progress(game.hint)
            if not hint.gains:
                print(f"the optimal score {hint.score} is on the foundations: every move keeps it"
                      + ("" if command == "best" else f"; for example {game.describe(hint.move)}"))
            elif command == "hint":
                cards = "card" if hint.score == 1 else "cards"
                print(f"hint: {game.describe(hint.move)} (keeps {hint.score} {cards} reachable)")
            if command == "best":
                make(hint.move)
        elif command == "undo":
            count = 1
            if len(words) > 1:
                # isdecimal and short: int() refuses "³" and 5,000 digits
                if not (words[1].isdecimal() and len(words[1]) <= 6) or int(words[1]) < 1:
                    print(f"undo takes a number of moves, not {shorten(words[1])}")
                    continue
                count = int(words[1])
            undone = 0
            while undone < count and game.undo():
                undone += 1
            if undone < count:
                print("nothing to undo: this is the deal" if undone == 0
                      else f"undid {undone} move{'s' if undone > 1 else ''}, back at the deal")
            if undone:
                listed = []
                show()
        elif command == "restart":
            game.restart()
            listed = []
            show()
        elif command == "moves":
            listed = game.legal_moves()
            for k, move in enumerate(listed, start=1):
                print(f"{k:3d}. {game.describe(move)}")
        elif len(words) == 1 and command.isdecimal() and len(command) <= 6:  # not "²"
            choices = listed or game.legal_moves()
            number = int(command)
            if not 1 <= number <= len(choices):
                print(f"there are {len(choices)} moves (type moves to list them), not {number}")
                continue
            make(choices[number - 1])
        else:
            try:
                move = game.parse_move(line)
            except IllegalMove as exc:
                print(f"cannot: {exc}")
                continue
            make(move)
