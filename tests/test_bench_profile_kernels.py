"""bench/profile_kernels.py: bad input gets one line and status 2 before anything runs."""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "bench" / "profile_kernels.py"


@pytest.mark.parametrize("words", [
    ["mastermind", "--size", "6x5", "--job", "11122:1,0"],     # five digits for six pegs
    ["mastermind", "--size", "6x5", "--job", "111226:1,0"],    # colour 6 of five
    ["mastermind", "--size", "6x5", "--job", "111223:4,3"],    # seven pegs answered
    ["mastermind", "--size", "6x5", "--job", "111223"],        # no answer
    ["mastermind", "--size", "6by5"],
])
def test_bad_input_is_one_line_and_status_2(words):
    run = subprocess.run([sys.executable, str(SCRIPT), *words], capture_output=True, text=True,
                         timeout=120, cwd=ROOT)
    assert run.returncode == 2
    assert run.stdout == ""
    assert len(run.stderr.strip().splitlines()) == 1
    assert run.stderr.startswith("profile_kernels.py: ")
