"""Published values whose check takes tens of seconds (``slow``), and the bookkeeping
that every row of a known-values file names where it is checked.

The quick published values are checked next to the code they test; the ones that
take hours (Kalah(6,5), Bulls and Cows) are checked by the benchmark named in their
data row.
"""
import csv
import json
from pathlib import Path

import pytest

from jitgames.kalah import solver

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).parent.parent
KALAH = list(csv.DictReader(open(DATA / "kalah_solved.csv")))


def test_every_kalah_value_names_an_existing_check():
    for row in KALAH:
        assert row["source"].strip() and row["checked_by"].strip()
        assert (ROOT / row["checked_by"].split()[0]).exists(), row


@pytest.mark.slow
@pytest.mark.parametrize("row", [r for r in KALAH if r["checked_by"].startswith("tests/test_published_values.py")],
                         ids=lambda r: f"{r['pits']}x{r['stones']}-{r['variant']}")
def test_kalah_values_of_four_pit_boards(row):
    m, n, variant = int(row["pits"]), int(row["stones"]), row["variant"]
    result = solver.solve(m, n, variant, endgame_stones=min(12, 2 * m * n), table_bits=20)
    assert result.value == int(row["value"])


def test_slow_published_values_name_their_benchmark():
    """Rows too slow for CI say which benchmark checks them, and that benchmark exists."""
    mastermind = json.loads((DATA / "mastermind_known.json").read_text())["values"]
    bulls = [v for v in mastermind if v["colours"] == 10 and not v["repeats"]]
    assert bulls and all("bench/mastermind.py" in v["source"] for v in bulls)
    assert (ROOT / "bench" / "mastermind.py").exists()
