"""jitgames: classic computer-recreation problems solved exactly and fast.

Sub-packages, each with a command line ``python -m jitgames.<name>``:

- :mod:`jitgames.solitaire` -- optimal scores of a Yukon-layout patience
- :mod:`jitgames.mastermind` -- codemaker, codebreaker and optimal strategies
- :mod:`jitgames.kalah` -- alpha-beta play, tournaments and exact solutions
- :mod:`jitgames.puzzles` -- queens, Hanoi, rings, peg solitaire and friends
- :mod:`jitgames.primes` -- segmented sieve, Ulam spiral and prime-rich lines

Sub-packages are imported lazily so that ``import jitgames`` stays cheap.
"""
import importlib
import sys

if sys.argv[:1] == ["-m"]:
    # ``python -m jitgames.<name>`` being located (Python's placeholder for argv[0]):
    # this process is one of the commands, not a program importing the library, so a
    # Ctrl-C during its imports ends it with status 130 and one line
    from ._kept_interrupts import keep_for_this_program

    keep_for_this_program()

__version__ = "0.1.0"
__all__ = ["solitaire", "mastermind", "kalah", "puzzles", "primes", "__version__"]


def __getattr__(name):
    if name in __all__:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
