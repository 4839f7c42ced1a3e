"""Every line the solver prints is checked: write it as a solution file and replay it.

``check_line`` is the helper the tests that solve a deal with a line call: it writes
the line through the solution writer (:mod:`jitgames.solitaire.solution`) to a real
file, replays it with the independent checker (:mod:`jitgames.solitaire.check`) and
asserts that every move is legal, that the checker's final score is the line's score
and that it counted the line's moves. ``check_moves`` does the same for a line of the
family search or a played family game (moves ``card * 8 + destination`` under a rule
set of :mod:`jitgames.solitaire.family`).
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from jitgames.solitaire.check import check_file
from jitgames.solitaire.solution import AUTOMATIC_FOUNDATIONS, FamilyLine, family_line, \
    write_solution


def check_line(deck, line, **origin):
    """Write ``line`` (an OptimalLine or a FamilyLine of ``deck``) as a solution file,
    check it and return the checker's report; ``origin``: ``rules``, ``seed``,
    ``index``, ``shuffle``.

    The checker counts a move line per player move, and under yukon and alaska one per
    foundation play the rules made by themselves as well (they are written as moves).
    """
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "solution.txt"
        write_solution(path, deck, line, **origin)
        report = check_file(path)
    assert report.legal, (report, path)
    assert report.score == report.claimed == line.score, report
    if isinstance(line, FamilyLine):
        assert report.rules == line.rules, report
        expected = line.move_lines
    else:
        # an étude line's automatic plays are moves of their own under yukon and alaska
        automatic = AUTOMATIC_FOUNDATIONS[origin.get("rules", "etude")]
        expected = line.moves if automatic else line.moves + line.score
    assert report.moves == expected, report
    return report


def check_moves(deck, rules, moves, score=None, **origin):
    """Check the family line of ``moves`` from ``deck`` under ``rules`` (a name or code)
    with :func:`check_line`, and that it ends at ``score`` when given; return the report."""
    line = family_line(deck, rules, moves)
    if score is not None:
        assert line.score == score, (line.score, score)
    return check_line(deck, line, **origin)
