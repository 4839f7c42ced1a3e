"""Writing a solved line in the solution notation that ``solitaire check`` replays.

The notation (docs/solitaire.md, "Solutions anyone can check") is plain text, one
player move a line, so a line printed by the solver can be replayed by a person with
a deck of cards or by the independent checker :mod:`.check`, which shares no code
with the solver::

    jitgames solitaire solution 1
    rules: etude
    shuffle: fisher-yates
    seed: 2026
    index: 7
    deal: 48 17 ... (the 52 card ids, docs/design.md)
    score: 5
    # after the deal, to the foundations: As 2s Ad
    9c 5>2 9c 2h 6h Kc
    3d 2>6 3d 8d + Ah 2h

A move line is ``CARD FROM>TO MOVED... [+ PLAYED...]``: the card taken, the pile it
leaves (1..7) and the pile it goes onto (1..7) or ``F`` for its foundation, the cards
moved (the card and every card on it, bottom to top), and after ``+`` the cards the
rules then send to the foundations by themselves (the étude plays foundations
automatically). Cards are two characters, rank ``A23456789TJQK`` and suit ``shdc``
(``10`` is read for ``T``). Lines starting with ``#`` are comments.

Under a rule set whose foundation plays are the player's choice (``yukon``,
``alaska``), every foundation play is a move line of its own (``Ah 4>F Ah``),
written right after the move that freed it, in the order they happen. That holds for
the plays the family search makes by itself too (:mod:`.family`: a card that fits
when no card that could ever be put on it is off the foundations, which provably
never lowers the score): the checker knows no automatic play under those rules, so
the writer writes each of them as an ``F`` line, after the move (or the deal) that
allowed it, in the order the solver made them.

This module sits on the solver's side (it reads the solver's :class:`.search.Step`
list, or replays a family line with :mod:`.family`'s kernels, and replays the piles
to name each card's pile); the checker never imports it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .._store import atomic_write_text

FORMAT_LINE = "jitgames solitaire solution 1"
"""First line of every solution file: the notation's name and version."""
RULE_SETS = ("etude", "yukon", "alaska")
"""Rule sets the notation names (docs/solitaire.md)."""
AUTOMATIC_FOUNDATIONS = {"etude": True, "yukon": False, "alaska": False}
"""Whether the notation (and the checker) plays foundations by themselves (written
after ``+``) or the player does (written as ``F`` move lines; under yukon and alaska
the plays :mod:`.family`'s solver makes by itself, being provably safe, are written
as ``F`` lines too)."""
RANKS = "A23456789TJQK"
SUITS = "shdc"


def card_text(card: int) -> str:
    """Two-character name of card id ``card`` (``As``, ``Td``, ``Kc``)."""
    return RANKS[card % 13] + SUITS[card // 13]


def _dealt_piles(deck) -> list[list[int]]:
    """The seven piles as dealt (docs/design.md), bottom to top, before any play."""
    piles = [[int(deck[p * (p + 1) // 2 + i]) for i in range(p + 1)] for p in range(7)]
    for k in range(24):
        piles[1 + k // 4].append(int(deck[28 + k]))
    return piles


def _play_in_order(piles, heights, cards) -> list[tuple[int, int]]:
    """Play ``cards`` (all of which go to the foundations now) off ``piles`` in an order
    in which each is exposed and next on its foundation when played, updating
    ``piles`` and ``heights``; return the ``(card, pile)`` plays in that order."""
    left, plays = set(cards), []
    while left:
        for card in sorted(left):
            pile = next((p for p, cards_on in enumerate(piles)
                         if cards_on and cards_on[-1] == card), None)
            if pile is not None and heights[card // 13] == card % 13:
                piles[pile].pop()
                heights[card // 13] += 1
                plays.append((card, pile))
                left.discard(card)
                break
        else:  # the solver's plays are legal: never reached
            raise AssertionError("the foundation plays have no legal order")
    return plays


def solution_text(deck, line, *, rules: str | None = None, seed: int | None = None,
                  index: int | None = None, shuffle: str = "fisher-yates",
                  comment: str | None = None) -> str:
    """The solution file of ``line`` (an :class:`~jitgames.solitaire.OptimalLine` or a
    :class:`FamilyLine`) of ``deck``.

    Parameters
    ----------
    deck : sequence of int
        The deal (52 card ids); written as the ``deal:`` header line.
    line : OptimalLine or FamilyLine
        Its ``score`` is the claim. An OptimalLine's ``foundations`` (cards per suit
        right after the deal) name the plays made before the first move; each of its
        ``steps`` is a player move followed by the foundation plays in
        ``to_foundation``. A FamilyLine is written move for move (:func:`family_line`).
    rules : str, optional
        One of :data:`RULE_SETS`: by default ``etude`` for an OptimalLine (which may
        also be written under another rule set's notation) and the line's own rule
        set for a FamilyLine (which is written under its own rules only).
    seed, index, shuffle
        Where the deal comes from (deal ``index`` of ``seed``), when it does: the
        checker then derives the deal itself and compares.
    comment : str, optional
        A ``#`` line written after the header (the solver's figures, say).
    """
    family = isinstance(line, FamilyLine)
    if rules is None:
        rules = line.rules if family else "etude"
    if rules not in RULE_SETS:
        raise InputError(f"unknown rules {rules!r}; choose from {', '.join(RULE_SETS)}")
    if family and rules != line.rules:
        raise InputError(f"a line found under {line.rules} rules is written under them, "
                         f"not under {rules}")
    automatic = AUTOMATIC_FOUNDATIONS[rules]
    deck = [int(c) for c in np.asarray(deck).ravel()]
    lines = [FORMAT_LINE, f"rules: {rules}"]
    if seed is not None:
        lines += [f"shuffle: {shuffle}", f"seed: {seed}", f"index: {index}"]
    lines += ["deal: " + " ".join(map(str, deck)), f"score: {line.score}"]
    if comment:
        lines.append(f"# {comment}")
    if family:
        return "\n".join(lines + _family_move_lines(line, automatic)) + "\n"
    piles, heights = _dealt_piles(deck), [0, 0, 0, 0]
    dealt_up = [s * 13 + r for s, h in enumerate(line.foundations) for r in range(h)]
    if dealt_up:
        if automatic:
            plays = _play_in_order(piles, heights, dealt_up)
            lines.append("# after the deal, to the foundations: "
                         + " ".join(card_text(card) for card, _ in plays))
        else:
            lines += _foundation_lines(piles, heights, dealt_up)
    for step in line.steps:
        src, dest, cut = step.from_pile, step.pile, len(piles[step.from_pile]) - step.carried
        run = piles[src][cut:]
        del piles[src][cut:]
        piles[dest].extend(run)
        text = f"{card_text(step.card)} {src + 1}>{dest + 1} " + " ".join(map(card_text, run))
        played = [int(c) for c in step.to_foundation]
        if automatic:
            _play_in_order(piles, heights, played)
            lines.append(text + (" + " + " ".join(map(card_text, played)) if played else ""))
        else:
            lines.append(text)
            lines += _foundation_lines(piles, heights, played)
    return "\n".join(lines) + "\n"


def _foundation_lines(piles, heights, cards) -> list[str]:
    """Move lines (``Ah 4>F Ah``) of the foundation plays of ``cards``, in a legal order."""
    return [_home_line(card, pile) for card, pile in _play_in_order(piles, heights, cards)]


def _home_line(card: int, pile: int) -> str:
    """The move line of a foundation play: ``Ah 4>F Ah``."""
    return f"{card_text(card)} {pile + 1}>F {card_text(card)}"


@dataclass(frozen=True)
class FamilyMove:
    """One player move of a :class:`FamilyLine`: ``card`` leaves pile ``from_pile``
    (0..6) for pile ``pile`` (0..6) with the ``moved`` cards (it and every card on it,
    bottom to top), or for its foundation (``pile`` None, ``moved`` the card alone);
    ``automatic`` the ``(card, pile)`` foundation plays the rules made by themselves
    right after it, in the order made."""

    card: int
    from_pile: int
    pile: int | None
    moved: tuple[int, ...]
    automatic: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class FamilyLine:
    """A line played under a rule set of :mod:`.family`, as the notation writes it.

    ``rules`` its name; ``score`` the foundation cards at its end; ``dealt`` the
    ``(card, pile)`` foundation plays the rules made right after the deal (in a legal
    order); ``steps`` the player's moves (:class:`FamilyMove`).
    """

    rules: str
    score: int
    dealt: tuple[tuple[int, int], ...]
    steps: tuple[FamilyMove, ...]

    @property
    def moves(self) -> int:
        """The player's moves (foundation plays of the player's included)."""
        return len(self.steps)

    @property
    def automatic(self) -> int:
        """The foundation plays the rules made by themselves (after the deal included)."""
        return len(self.dealt) + sum(len(step.automatic) for step in self.steps)

    @property
    def move_lines(self) -> int:
        """Move lines the notation writes: the player's moves, plus each automatic
        play under a rule set whose notation writes them as moves (yukon, alaska)."""
        return self.moves + (0 if AUTOMATIC_FOUNDATIONS[self.rules] else self.automatic)


def family_line(deck, rules, moves) -> FamilyLine:
    """The line of ``moves`` (codes ``card * 8 + destination``, 7 = its foundation, as
    :func:`.family_search.optimal_line_moves` and :attr:`.FamilyGame.history` hold
    them) played from the deal ``deck`` under ``rules`` (a name or code of
    :mod:`.family`), replayed with :mod:`.family`'s kernels: each automatic
    foundation play is read from the undo log with the pile it left.

    Raises
    ------
    InputError
        When a move is not legal where it is played (naming it, counting from 1), or
        there are more than :data:`.family.MAX_DEPTH` moves (the position's undo log
        holds no more).
    """
    from .deal import validate_deals
    from .family import (HEIGHT, LENGTH, LOG, LOG_LENGTH, MAX_DEPTH, MAX_MOVES, PILE_STRIDE,
                         PILES, RULE_NAMES, SCORE, TO_FOUNDATION, WHERE, apply_move,
                         legal_moves, new_position, rules_code)

    moves = [int(m) for m in moves]
    if len(moves) > MAX_DEPTH:
        raise InputError(f"a line holds at most {MAX_DEPTH} moves, got {len(moves)}")
    code = rules_code(rules)
    deck = validate_deals(deck)[0]
    pos = new_position(deck, code)
    heights = [0, 0, 0, 0]
    dealt = _play_in_order(_dealt_piles(deck), heights,
                           [c for c in range(52) if pos[WHERE + c] < 0])
    buffer, steps = np.zeros(MAX_MOVES, dtype=np.int64), []
    for number, move in enumerate(moves):
        if move not in buffer[:legal_moves(pos, buffer, 0)]:
            raise InputError(f"move {number + 1} of the line ({move}) is not legal there")
        card, dest = move // 8, move % 8
        src = int(pos[WHERE + card])
        start, end = int(pos[HEIGHT + card]), int(pos[LENGTH + src])
        moved = tuple(int(c) for c in pos[PILES + src * PILE_STRIDE + start:
                                          PILES + src * PILE_STRIDE + end])
        before = int(pos[LOG_LENGTH])
        apply_move(pos, move)
        # the log holds the move's entry, then one per automatic play:
        # kind + 4 * (card + 64 * (pile + ...))
        automatic = tuple((int(e // 4 % 64), int(e // 256 % 8))
                          for e in pos[LOG + before + 1:LOG + int(pos[LOG_LENGTH])])
        steps.append(FamilyMove(card, src, None if dest == TO_FOUNDATION else dest, moved,
                                automatic))
    return FamilyLine(RULE_NAMES[code], int(pos[SCORE]), tuple(dealt), tuple(steps))


def _family_move_lines(line: FamilyLine, automatic: bool) -> list[str]:
    """The move lines of ``line``; the rules' own plays after ``+`` when ``automatic``,
    else each as an ``F`` line right after the move (or the deal) that allowed it."""
    if automatic:
        lines = ["# after the deal, to the foundations: "
                 + " ".join(card_text(card) for card, _ in line.dealt)] if line.dealt else []
    else:
        lines = [_home_line(card, pile) for card, pile in line.dealt]
    for step in line.steps:
        if step.pile is None:
            text = _home_line(step.card, step.from_pile)
        else:
            text = (f"{card_text(step.card)} {step.from_pile + 1}>{step.pile + 1} "
                    + " ".join(map(card_text, step.moved)))
        if automatic:
            played = [card_text(card) for card, _ in step.automatic]
            lines.append(text + (" + " + " ".join(played) if played else ""))
        else:
            lines.append(text)
            lines += [_home_line(card, pile) for card, pile in step.automatic]
    return lines


def write_solution(path, deck, line, **header) -> None:
    """Write :func:`solution_text` of ``deck`` and ``line`` to ``path`` atomically
    (write-then-rename: a reader sees the old file or the whole new one).

    Raises
    ------
    InputError
        When ``path`` cannot be written (one line).
    """
    text = solution_text(deck, line, **header)
    try:
        atomic_write_text(path, text)
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None


def line_of_moves(deck, moves):
    """The line of legal ``moves`` (codes ``card * 8 + pile``, as a game's history holds
    them) played from the deal ``deck``, as an :class:`~jitgames.solitaire.OptimalLine`
    whose score is the cards on the foundations at its end: a played game written
    like a solved line (each step's ``choices`` the legal moves before it)."""
    from . import OptimalLine
    from .rules import FOUNDATION, MAX_MOVES, SCORE, apply_move, legal_moves, new_position, \
        piles_of
    from .search import Step, describe_move, foundation_plays

    pos = new_position(np.asarray(deck, dtype=np.int64))
    piles = tuple((down, tuple(cards)) for down, cards in piles_of(pos))
    foundations = tuple(int(f) for f in pos[FOUNDATION:FOUNDATION + 4])
    buffer, steps = np.zeros(MAX_MOVES, dtype=np.int64), []
    for move in moves:
        choices = legal_moves(pos, buffer, 0)
        card, onto, src, dest, carried = describe_move(pos, int(move))
        before = int(pos[SCORE])
        apply_move(pos, int(move))
        steps.append(Step(card, onto, src, dest, carried,
                          foundation_plays(pos, int(pos[SCORE]) - before), choices))
    return OptimalLine(int(pos[SCORE]), tuple(steps), piles, foundations)
