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
written right after the move that freed it, in the order they happen.

This module sits on the solver's side (it reads the solver's :class:`.search.Step`
list and replays the piles to name each card's pile); the checker never imports it.
"""
from __future__ import annotations

import numpy as np

from ..errors import InputError
from .._store import atomic_write_text

FORMAT_LINE = "jitgames solitaire solution 1"
"""First line of every solution file: the notation's name and version."""
RULE_SETS = ("etude", "yukon", "alaska")
"""Rule sets the notation names (docs/solitaire.md)."""
AUTOMATIC_FOUNDATIONS = {"etude": True, "yukon": False, "alaska": False}
"""Whether the rules play foundations by themselves (written after ``+``) or the
player does (written as ``F`` move lines)."""
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


def solution_text(deck, line, *, rules: str = "etude", seed: int | None = None,
                  index: int | None = None, shuffle: str = "fisher-yates",
                  comment: str | None = None) -> str:
    """The solution file of ``line`` (an :class:`~jitgames.solitaire.OptimalLine`) of ``deck``.

    Parameters
    ----------
    deck : sequence of int
        The deal (52 card ids); written as the ``deal:`` header line.
    line : OptimalLine
        Its ``score`` is the claim; its ``foundations`` (cards per suit right after
        the deal) name the plays made before the first move; each of its ``steps``
        is a player move followed by the foundation plays in ``to_foundation``.
    rules : str
        One of :data:`RULE_SETS`.
    seed, index, shuffle
        Where the deal comes from (deal ``index`` of ``seed``), when it does: the
        checker then derives the deal itself and compares.
    comment : str, optional
        A ``#`` line written after the header (the solver's figures, say).
    """
    if rules not in RULE_SETS:
        raise InputError(f"unknown rules {rules!r}; choose from {', '.join(RULE_SETS)}")
    automatic = AUTOMATIC_FOUNDATIONS[rules]
    deck = [int(c) for c in np.asarray(deck).ravel()]
    lines = [FORMAT_LINE, f"rules: {rules}"]
    if seed is not None:
        lines += [f"shuffle: {shuffle}", f"seed: {seed}", f"index: {index}"]
    lines += ["deal: " + " ".join(map(str, deck)), f"score: {line.score}"]
    if comment:
        lines.append(f"# {comment}")
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
    return [f"{card_text(card)} {pile + 1}>F {card_text(card)}"
            for card, pile in _play_in_order(piles, heights, cards)]


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
