"""The verdict of ``--compare-shuffles``: intervals, two-sided tests, Holm's correction."""
from __future__ import annotations

import json
import math

import pytest

from jitgames.solitaire import __main__ as cli
from jitgames.solitaire.compare import FAMILY_LEVEL, compare, holm, two_sided_p, verdict_line


def summary(deals, mean, sd, wins, no_move, forced):
    """The fields of a :func:`jitgames.solitaire.study.summarise` result that a
    comparison reads."""
    return {"deals": deals, "mean": mean, "sd": sd, "wins": wins,
            "no_move_at_deal": {"deals": no_move}, "score_fixed_by_deal":
            None if forced is None else {"deals": forced}}


def test_two_sided_p_is_the_normal_tail_both_sides():
    assert two_sided_p(0.0) == 1.0
    assert two_sided_p(1.959963984540054) == pytest.approx(0.05, rel=1e-9)
    assert two_sided_p(-2.5758293035489) == pytest.approx(0.01, rel=1e-9)


def test_holm_steps_down_and_stops_at_the_first_survivor():
    # sorted: 0.005 <= 0.05/4, 0.01 <= 0.05/3, then 0.03 > 0.05/2 stops (0.04 too)
    assert holm([0.01, 0.04, 0.03, 0.005]) == [True, False, False, True]
    # Holm rejects what Bonferroni (0.05/3 each) would not: 0.02 <= 0.05/2 after 0.01
    assert holm([0.01, 0.02, 0.5]) == [True, True, False]
    assert holm([0.0125, 1.0, 1.0, 1.0]) == [True, False, False, False]
    assert holm([0.0126, 1.0, 1.0, 1.0]) == [False] * 4
    assert holm([]) == []


def test_clearly_equal_studies_show_no_difference():
    a = summary(10_000, 6.5, 13.0, 670, 40, 3340)
    c = compare(a, dict(a))
    assert [t["figure"] for t in c["tests"]] == [
        "mean optimal score", "win rate", "no move after the deal", "no decision point"]
    for t in c["tests"]:
        assert t["difference"] == 0 and t["p_value"] == 1.0 and not t["different"]
        assert t["ci95"][0] < 0 < t["ci95"][1]
    assert c["differ"] == [] and c["figures_tested"] == 4 and c["family_level"] == FAMILY_LEVEL
    assert verdict_line(c).startswith("no difference detected at this size (Holm-corrected "
                                      "over the 4 figures tested, family level 5%)")


def test_clearly_different_studies_are_told_apart():
    a = summary(100_000, 6.5, 13.0, 6700, 400, 33_400)
    b = summary(100_000, 8.0, 13.0, 9000, 400, 33_400)
    c = compare(a, b)
    mean, wins = c["tests"][0], c["tests"][1]
    se = 13.0 * math.sqrt(2 / 100_000)
    assert mean["difference"] == pytest.approx(1.5)
    assert mean["ci95"] == pytest.approx([1.5 - 1.959963984540054 * se, 1.5 + 1.959963984540054 * se])
    assert mean["p_value"] < 1e-100 and mean["different"]
    assert wins["difference"] == pytest.approx(0.023) and wins["different"]
    assert c["differ"] == ["mean optimal score", "win rate"]
    assert verdict_line(c).startswith("the shuffles differ in mean optimal score, win rate")


def test_a_borderline_mean_is_not_a_difference_among_four_figures():
    # z = 2.2 on the mean alone: the 95% interval excludes zero (p = 0.028), but four
    # figures are compared and Holm's first threshold is 0.05 / 4 = 0.0125
    n, sd = 2000, 13.0
    a = summary(n, 6.5, sd, 134, 9, 690)
    b = summary(n, 6.5 - 2.2 * sd * math.sqrt(2 / n), sd, 134, 9, 690)
    c = compare(a, b)
    mean = c["tests"][0]
    assert mean["ci95"][1] < 0 and mean["p_value"] == pytest.approx(two_sided_p(2.2))
    assert not mean["different"] and c["differ"] == []
    # z = 2.6 (p = 0.0093) survives: the others are equal, so Holm's first step decides
    b = summary(n, 6.5 - 2.6 * sd * math.sqrt(2 / n), sd, 134, 9, 690)
    assert compare(a, b)["differ"] == ["mean optimal score"]


def test_score_only_studies_compare_three_figures_and_tiny_ones_none():
    a = summary(500, 6.0, 12.0, 30, 2, None)
    c = compare(a, summary(500, 6.1, 12.0, 31, 2, None))
    assert c["figures_tested"] == 3 and "3 figures" in verdict_line(c)
    assert compare(summary(1, 6.0, float("nan"), 0, 0, 0), a) is None
    constant = summary(10, 0.0, 0.0, 0, 0, 0)
    assert compare(constant, dict(constant))["tests"][0]["p_value"] == 1.0


def test_seed_0_at_2000_deals_no_longer_claims_a_difference(capsys):
    """The README's command: its mean differs by -0.84 cards with a 95% interval that
    excludes zero (a chance result, gone at 10**6 deals); the verdict allows for the
    four figures compared and claims nothing."""
    assert cli.main(["2000", "--seed", "0", "--compare-shuffles", "--json", "--quiet"]) == 0
    data = json.loads(capsys.readouterr().out)
    c = data["comparison"]
    mean = c["tests"][0]
    assert mean["ci95"][1] < 0 < 0.01 < mean["p_value"] < 0.05  # the chance result
    assert c["differ"] == [] and data["difference_of_means"]["significant"] is False
    text = cli.format_comparison(data)
    assert "verdict: no difference detected at this size" in text
    assert "differ measurably" not in text
