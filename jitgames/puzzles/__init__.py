"""Classic puzzles to program, each solved recursively and iteratively, exactly.

One module per puzzle: :mod:`rings` (Chinese rings), :mod:`frogs` (frogs and toads),
:mod:`tait` (Tait's counters), :mod:`pegsolitaire` (+ :mod:`pegsearch`, its kernels),
:mod:`hanoi` (three pegs and Frame-Stewart), :mod:`fibnim` (Fibonacci nim),
:mod:`queens` (n queens) and :mod:`domination` (queen domination); :mod:`pictures`
draws their figures. The command line is ``python -m jitgames.puzzles <puzzle> ...``;
the documentation is ``docs/puzzles.md``.
"""
from jitgames.puzzles import (domination, fibnim, frogs, hanoi, pegsolitaire, queens,
                              rings, tait)
from jitgames.puzzles.domination import Domination
from jitgames.puzzles.domination import domination as queen_domination
from jitgames.puzzles.queens import QueensCount, count_queens, queens_census

__all__ = [
    "domination", "fibnim", "frogs", "hanoi", "pegsolitaire", "queens", "rings", "tait",
    "Domination", "queen_domination", "QueensCount", "count_queens", "queens_census",
]
