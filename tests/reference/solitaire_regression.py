"""Recompute tests/data/solitaire_regression.json with the plain-Python twin alone.

The regression file's figures (histogram of optimal scores, sums of optimal-line
moves and decision points over 2,000 deals of seed 2026) were produced by the
library's solver; this script solves the same deals with the twin's exhaustive
search (``reference_solve``, no position budget) and compares every figure, so the
file is checked by a code path that shares nothing with the solver but the deals'
generator (itself checked against its twin and the published SplitMix64 vector).

Run: ``python -m tests.reference.solitaire_regression`` (tens of minutes).
"""
import json
import sys
import time
from pathlib import Path

import numpy as np

from tests.reference.solitaire import deal_range, reference_solve

DATA = Path(__file__).resolve().parents[1] / "data" / "solitaire_regression.json"


def main() -> int:
    data = json.loads(DATA.read_text())
    decks = np.zeros((data["deals"], 52), dtype=np.int64)
    deal_range(data["seed"], 0, data["shuffle"] == "naive", decks)
    histogram, moves, decisions = [0] * 53, 0, 0
    start = time.monotonic()
    for i, deck in enumerate(decks):
        score, m, d = reference_solve(deck, score_only=False, budget=10**9)
        histogram[score] += 1
        moves += m
        decisions += d
        if i % 200 == 199:
            print(f"{i + 1} deals, {time.monotonic() - start:.0f} s", file=sys.stderr, flush=True)
    ok = (histogram == data["histogram"] and moves == data["moves_sum"]
          and decisions == data["decisions_sum"])
    print(json.dumps({"deals": len(decks), "histogram_equal": histogram == data["histogram"],
                      "moves_sum": moves, "decisions_sum": decisions, "agree": ok,
                      "seconds": round(time.monotonic() - start)}))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
