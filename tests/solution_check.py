"""Every line the solver prints is checked: write it as a solution file and replay it.

``check_line`` is the helper the tests that solve a deal with a line call: it writes
the line through the solution writer (:mod:`jitgames.solitaire.solution`) to a real
file, replays it with the independent checker (:mod:`jitgames.solitaire.check`) and
asserts that every move is legal, that the checker's final score is the line's score
and that it counted the line's moves.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from jitgames.solitaire.check import check_file
from jitgames.solitaire.solution import write_solution


def check_line(deck, line, **origin):
    """Write ``line`` (an OptimalLine of ``deck``) as a solution file, check it and
    return the checker's report; ``origin``: ``rules``, ``seed``, ``index``, ``shuffle``."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "solution.txt"
        write_solution(path, deck, line, **origin)
        report = check_file(path)
    assert report.legal, (report, path)
    assert report.score == report.claimed == line.score, report
    assert report.moves == line.moves, report
    return report
