"""bench/profile_kernels.py: bad input gets one line and status 2 before anything runs."""
import pytest

from tests.bench_scripts import assert_bad_input_rejected, bench_module


@pytest.mark.parametrize("words", [
    ["mastermind", "--size", "6x5", "--job", "11122:1,0"],     # five digits for six pegs
    ["mastermind", "--size", "6x5", "--job", "111226:1,0"],    # colour 6 of five
    ["mastermind", "--size", "6x5", "--job", "111223:4,3"],    # seven pegs answered
    ["mastermind", "--size", "6x5", "--job", "111223"],        # no answer
    ["mastermind", "--size", "6by5"],
])
def test_bad_input_is_one_line_and_status_2(words):
    assert_bad_input_rejected("profile_kernels.py", words)


def _profile_kernels():
    return bench_module("profile_kernels")


SCREEN = ("_ZN8jitgames10mastermind13worst_kernels14screen_guessesB2v1B44c8tJTC_2fWQAlzW1yBDkop6G"
          "EOEUMEOYSPGuIQMViAQ3iQ8IbKQIMbwoOGNoQDDWwQR1NJAoQwkhUsRA2APmFEiXAsgJgA_3dE5ArrayIhLi2E1C"
          "7mutable7alignedE5ArrayIiLi1E1C7mutable7alignedEx")


@pytest.mark.parametrize("symbol, name", [
    (SCREEN, "jitgames.mastermind.worst_kernels.screen_guesses"),
    ("_ZN8jitgames9solitaire6search11solve_decksB3v42E5ArrayIaLi2E1C7mutable7alignedE",
     "jitgames.solitaire.search.solve_decks"),
    ("_ZN5numba7cpython7unicode4_hashB2v1E", None),         # not this package's
    ("[unknown]", None),
    ("jitgames_but_not_mangled", None),
    ("_ZN8jitgames", "jitgames"),
])
def test_kernel_names_are_read_from_numba_symbols(symbol, name):
    assert _profile_kernels().kernel_name(symbol) == name


def test_a_long_symbol_is_read_in_one_pass():
    """Thousands of digit-letter runs with no tag after them: the nested repeats of a
    regular expression backtracked for minutes on such symbols; the names are read in
    one pass (a 40,000-character symbol here)."""
    symbol = "_ZN8jitgames4long" + "1a2bc" * 8000
    assert _profile_kernels().kernel_name(symbol).startswith("jitgames.long.a.bc.a.bc")
