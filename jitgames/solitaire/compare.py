"""Two studies compared: differences with 95% intervals and a verdict that allows for chance.

``--compare-shuffles`` puts the study of the same deals under two shuffles side by
side. Several figures are compared at once, so a 95% interval that excludes zero for
one of them is no evidence by itself: with four figures, one such false alarm comes
in about one run in six when the shuffles do not differ at all. :func:`compare`
therefore tests every compared figure two-sided and claims a difference only for the
figures that survive Holm's step-down correction at the family level (5%: the
chance of claiming any difference when there is none stays at most 5%).

The figures tested (each for the two independent samples of deals):

- **mean optimal score**: z = d / sqrt(sd1^2 / n1 + sd2^2 / n2) (normal
  approximation, fine for the hundreds of deals and more a study uses);
- **win rate**, **no move after the deal**, **no decision point** (the last in full
  mode only): two-proportion z test, pooled standard error for the p-value, unpooled
  for the 95% interval of the difference.

Figures shown but not tested (sd, mean moves of the optimal line) take no part in the
verdict: a study keeps no variance of the moves.
"""
from __future__ import annotations

import math

from .study import Z95

__all__ = ["FAMILY_LEVEL", "compare", "holm", "two_sided_p", "verdict_line"]

FAMILY_LEVEL = 0.05
"""Family-wise error rate of the verdict: at most this chance of claiming any
difference between two studies of shuffles that do not differ."""


def two_sided_p(z: float) -> float:
    """P(|Z| >= |z|) for a standard normal Z (1.0 for z = 0)."""
    return math.erfc(abs(z) / math.sqrt(2.0))


def holm(p_values, level: float = FAMILY_LEVEL) -> list[bool]:
    """Holm's step-down test: which hypotheses are rejected at family-wise ``level``.

    The k-th smallest p-value (k = 0, 1, ...) of m is compared with level / (m - k);
    rejection stops at the first that exceeds its threshold. Returned in the order of
    ``p_values``.
    """
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    rejected = [False] * len(p_values)
    for rank, i in enumerate(order):
        if p_values[i] > level / (len(p_values) - rank):
            break
        rejected[i] = True
    return rejected


def _mean_test(a: dict, b: dict) -> dict:
    """Difference b - a of the mean scores: 95% interval and two-sided p-value."""
    diff = b["mean"] - a["mean"]
    se = math.sqrt(a["sd"] ** 2 / a["deals"] + b["sd"] ** 2 / b["deals"])
    if se > 0:
        p = two_sided_p(diff / se)
    else:  # every deal scored the same in each study: the means are exact
        p = 1.0 if diff == 0 else 0.0
    return {"difference": diff, "ci95": [diff - Z95 * se, diff + Z95 * se], "p_value": p}


def _rate_test(k1: int, n1: int, k2: int, n2: int) -> dict:
    """Difference k2/n2 - k1/n1 of two proportions: unpooled 95% interval, pooled p."""
    p1, p2 = k1 / n1, k2 / n2
    diff = p2 - p1
    se = math.sqrt(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2)
    pooled = (k1 + k2) / (n1 + n2)
    se0 = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    p = two_sided_p(diff / se0) if se0 > 0 else 1.0  # both 0% or both 100%: no difference
    return {"difference": diff, "ci95": [diff - Z95 * se, diff + Z95 * se], "p_value": p}


def compare(a: dict, b: dict, level: float = FAMILY_LEVEL) -> dict | None:
    """Compare two study summaries (:func:`.study.summarise`), ``b`` minus ``a``.

    Returns None when either study has fewer than 2 deals. Otherwise a JSON-ready dict:
    ``tests`` (one per figure: ``figure``, ``unit``, ``difference``, ``ci95`` (the
    unadjusted 95% interval), ``p_value`` (two-sided), ``different`` (survives Holm)),
    ``method`` ("holm"), ``family_level``, ``figures_tested`` and ``differ`` (the
    figures that differ; empty: no difference detected at this size).
    """
    if a["deals"] < 2 or b["deals"] < 2:
        return None
    tests = [dict(figure="mean optimal score", unit="cards", **_mean_test(a, b))]
    rates = [("win rate", lambda s: (s["wins"], s["deals"])),
             ("no move after the deal",
              lambda s: (s["no_move_at_deal"]["deals"], s["deals"]))]
    if a["score_fixed_by_deal"] is not None and b["score_fixed_by_deal"] is not None:
        rates.append(("no decision point",
                      lambda s: (s["score_fixed_by_deal"]["deals"], s["deals"])))
    for figure, count in rates:
        tests.append(dict(figure=figure, unit="rate", **_rate_test(*count(a), *count(b))))
    for test, rejected in zip(tests, holm([t["p_value"] for t in tests], level)):
        test["different"] = rejected
    return {"tests": tests, "method": "holm", "family_level": level,
            "figures_tested": len(tests),
            "differ": [t["figure"] for t in tests if t["different"]]}


def verdict_line(comparison: dict) -> str:
    """The verdict in one sentence, naming the correction and the figures that differ."""
    m, level = comparison["figures_tested"], comparison["family_level"]
    rule = f"Holm-corrected over the {m} figures tested, family level {100 * level:g}%"
    if not comparison["differ"]:
        return f"no difference detected at this size ({rule})"
    return f"the shuffles differ in {', '.join(comparison['differ'])} ({rule})"
