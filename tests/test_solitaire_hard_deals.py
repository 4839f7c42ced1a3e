"""The solitaire solver on the deals where its bounds, pruning and table matter.

The Hypothesis twin tests keep to deals the plain-Python twin finishes within a few
hundred positions, which are mostly deals of low score or wins. Here the twin's
exhaustive search (``tests/reference/solitaire.py``: every move sequence, memoised on
the whole position, written from the rules alone) solves deals of middling scores,
10 to 45 cards, chosen across that whole range from a pool of random deals, and the
kernel's score, optimal-line length and decision count must equal its answers.
"""
import numpy as np
import pytest

from jitgames.solitaire import deals, solve_deals
from tests.reference.solitaire import reference_solve

POOL_SEED, POOL_SIZE = 20261124, 6000
CHECKED_DEALS = 60         # deals the twin must solve; each needs 0.1-2 s of plain Python
POSITION_BUDGET = 400_000  # a deal the twin cannot finish within this is set aside


@pytest.mark.slow
def test_middling_scores_equal_the_exhaustive_twin():
    pool = deals(POOL_SEED, 0, POOL_SIZE)
    ours = solve_deals(pool)
    by_score = {}
    for i in np.flatnonzero((ours.score >= 10) & (ours.score <= 45)):
        by_score.setdefault(int(ours.score[i]), []).append(int(i))
    # Round-robin over scores, so the checked deals cover the range evenly.
    order = [deals_of_score[k] for k in range(max(map(len, by_score.values())))
             for deals_of_score in by_score.values() if k < len(deals_of_score)]
    # A fixed number of deals, not a time budget: the same deals are checked on a
    # slow or busy machine as on a fast one (each deal's search is bounded by
    # POSITION_BUDGET, so the loop ends).
    checked, set_aside, scores_seen = 0, 0, set()
    for i in order:
        if checked == CHECKED_DEALS:
            break
        answer = reference_solve(pool[i], score_only=False, budget=POSITION_BUDGET)
        if answer is None:
            set_aside += 1
            continue
        assert answer == (int(ours.score[i]), int(ours.moves[i]), int(ours.decisions[i])), i
        checked += 1
        scores_seen.add(answer[0])
    assert checked == CHECKED_DEALS, (checked, set_aside)
    assert set_aside <= checked // 10
    assert min(scores_seen) <= 12 and max(scores_seen) >= 35, sorted(scores_seen)
    assert len(scores_seen) >= 15
