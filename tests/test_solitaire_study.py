"""Mergeable study statistics: any chunking gives the same numbers."""
import dataclasses
import json
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jitgames.solitaire import __main__ as cli
from jitgames.solitaire import deals, shuffle_bias, solve_deals
from jitgames.solitaire import study as S
from jitgames.solitaire.deal import chi_square_tail, position_counts
from jitgames.solitaire.search import make_scratch
from tests.reference import solitaire as ref

N = 160
SEED = 6
SCRATCH = make_scratch(2, S.DEFAULT_CAPACITY)


@pytest.fixture(scope="module")
def whole():
    return S.study_chunk(SEED, 0, N)


@settings(max_examples=15)
@given(st.lists(st.integers(1, N - 1), max_size=5, unique=True))
def test_any_chunking_gives_identical_statistics(whole, cuts):
    bounds = [0] + sorted(cuts) + [N]
    partial = S.empty_partial()
    for a, b in zip(bounds, bounds[1:]):
        partial = S.merge(partial, S.study_chunk(SEED, a, b, scratch=SCRATCH))
    assert partial == whole
    assert S.summarise(partial) == S.summarise(whole)


def test_merge_is_associative_and_commutative_and_round_trips():
    parts = [S.study_chunk(9, a, a + 30) for a in (0, 30, 60)]
    left = S.merge(S.merge(parts[0], parts[1]), parts[2])
    right = S.merge(parts[0], S.merge(parts[1], parts[2]))
    assert left == right == S.merge(S.merge(parts[2], parts[0]), parts[1])
    assert S.StudyPartial.from_dict(left.to_dict()) == left
    with pytest.raises(ValueError):
        S.merge(left, S.study_chunk(9, 0, 5, score_only=True))
    with pytest.raises(ValueError):
        S.merge(left, dataclasses.replace(parts[0], capacity=1 << 10))


def test_partial_agrees_with_per_deal_results(whole):
    results = solve_deals(deals(SEED, 0, N))
    assert whole.deals == N
    assert whole.score_sum == int(results.score.sum())
    assert whole.score_squares == int((results.score ** 2).sum())
    assert list(whole.histogram) == np.bincount(results.score, minlength=53).tolist()
    assert whole.moves_sum == int(results.moves.sum())
    assert whole.decisions_sum == int(results.decisions.sum())
    assert whole.moves_squares == int((results.moves ** 2).sum())
    assert whole.decisions_squares == int((results.decisions ** 2).sum())
    assert whole.positions == int(results.positions.sum())
    assert whole.peak_occupancy == int(results.occupancy.max())
    s = S.summarise(whole)
    for key, figures in (("moves", results.moves), ("decisions", results.decisions)):
        half = 1.959963984540054 * figures.std(ddof=1) / math.sqrt(N)
        assert s[key]["mean"] == pytest.approx(figures.mean())
        assert s[key]["sd"] == pytest.approx(figures.std(ddof=1))
        assert s[key]["ci95"] == pytest.approx([figures.mean() - half, figures.mean() + half])
    only = S.summarise(S.study_chunk(SEED, 0, 20, score_only=True))
    assert only["moves"] is None and only["decisions"] is None


def test_the_sd_stays_exact_at_the_studys_sizes():
    """Sums of 10**8 deals' scores and squares: the integer numerator of the variance
    keeps every digit (a float difference of the two large terms would not)."""
    n, total, squares = 10**8, 653 * 10**6, 213 * 10**8
    mean, sd, half = S.mean_sd_half(total, squares, n)
    exact = (n * squares - total * total) / (n * (n - 1))
    assert mean == 6.53 and sd == math.sqrt(exact) and half == pytest.approx(1.96 * sd / 10**4, rel=1e-3)
    assert S.mean_sd_half(7, 49, 1)[0] == 7 and math.isnan(S.mean_sd_half(7, 49, 1)[1])
    with pytest.raises(ValueError, match="cannot be the sum of squares"):
        dataclasses.replace(S.study_chunk(SEED, 0, 10), moves_squares=0).validate(
            10, S.DEFAULT_CAPACITY, False)


def test_summary_statistics(whole):
    s = S.summarise(whole)
    scores = np.repeat(np.arange(53), whole.histogram)
    assert s["mean"] == pytest.approx(scores.mean())
    assert s["sd"] == pytest.approx(scores.std(ddof=1))
    half = 1.959963984540054 * scores.std(ddof=1) / math.sqrt(N)
    assert s["ci95"] == pytest.approx([scores.mean() - half, scores.mean() + half])
    assert s["win_rate"] == pytest.approx((scores == 52).mean())
    low, high = s["win_rate_ci95"]
    assert 0 <= low <= s["win_rate"] <= high <= 1
    assert s["casino"]["break_even_score"] == 11
    assert s["casino"]["expected_net"] == pytest.approx(5 * scores.mean() - 55)
    assert s["deals_needed_for_precision"] == math.ceil((1.959963984540054 * s["sd"] / 0.1) ** 2)
    assert sum(s["histogram"].values()) == N


def test_wilson_interval_known_value():
    # Wilson (1927) interval for 0 successes of 10 at 95%: [0, 0.2775]
    low, high = S.wilson_interval(0, 10)
    assert low == 0 and high == pytest.approx(0.27753, abs=1e-4)
    low, high = S.wilson_interval(50, 100)
    assert (low, high) == pytest.approx((0.40383, 0.59617), abs=1e-4)


def test_score_only_partial_has_no_line_figures():
    partial = S.study_chunk(4, 0, 20, score_only=True)
    summary = S.summarise(partial)
    assert summary["mean_moves"] is None and summary["score_only"]


@pytest.mark.kernel
@given(st.integers(0, 1000), st.booleans())
def test_position_counts_match_reference(seed, naive):
    ours = np.zeros((52, 52), dtype=np.int64)
    theirs = np.zeros((52, 52), dtype=np.int64)
    position_counts(np.uint64(seed), 7, naive, ours)
    ref.position_counts(seed, 7, naive, theirs)
    assert ours.tolist() == theirs.tolist()


def test_naive_shuffle_is_biased_and_fisher_yates_is_not():
    naive = shuffle_bias(20_000, "naive", seed=1)
    fair = shuffle_bias(20_000, "fisher-yates", seed=1)
    assert naive.p_value < 1e-12
    assert fair.p_value > 1e-3
    assert naive.statistic > 2 * fair.statistic


def test_chi_square_tail_is_accurate():
    # chi-square upper quantiles with 2601 degrees of freedom: median ~ dof - 2/3
    assert chi_square_tail(2601 - 2 / 3, 2601) == pytest.approx(0.5, abs=2e-3)
    # 95% point of chi-square(100) is 124.342 (standard tables)
    assert chi_square_tail(124.342, 100) == pytest.approx(0.05, abs=1e-3)


def test_study_counts_deals_without_a_move_and_without_a_decision(capsys):
    assert cli.main(["2000", "--seed", "0", "--json", "--quiet"]) == 0
    data = json.loads(capsys.readouterr().out)
    decks = deals(0, 0, 2000)
    no_move = sum(not ref.game_moves(ref.deal_game(deck)[0]) for deck in decks)
    forced = int((solve_deals(decks).decisions == 0).sum())
    assert no_move > 0 and forced > 0
    for key, count in (("no_move_at_deal", no_move), ("score_fixed_by_deal", forced)):
        figure = data[key]
        assert figure["deals"] == count and figure["rate"] == count / 2000
        assert figure["ci95"][0] < figure["rate"] < figure["ci95"][1]
    assert cli.main(["300", "--score-only", "--json", "--quiet"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["score_fixed_by_deal"] is None and data["no_move_at_deal"]["deals"] >= 0


def test_compare_shuffles_reports_both_studies_and_the_difference(capsys):
    assert cli.main(["300", "--seed", "9", "--compare-shuffles", "--json", "--quiet"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["complete"] is True
    means = {}
    for shuffle in ("fisher-yates", "naive"):
        scores = solve_deals(deals(9, 0, 300, shuffle)).score
        assert data["shuffles"][shuffle]["mean"] == pytest.approx(scores.mean())
        means[shuffle] = (scores.mean(), scores.std(ddof=1))
    d = data["difference_of_means"]
    assert d["naive_minus_fisher_yates"] == pytest.approx(means["naive"][0] - means["fisher-yates"][0])
    half = 1.959963984540054 * math.sqrt((means["naive"][1] ** 2 + means["fisher-yates"][1] ** 2) / 300)
    assert d["ci95"][1] - d["ci95"][0] == pytest.approx(2 * half)
    assert cli.main(["300", "--seed", "9", "--compare-shuffles", "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "differences (naive - fisher-yates), 95% intervals, two-sided p:" in text
    assert re.search(r"^    mean optimal score\s+[+-]\d+\.\d{4} cards \[", text, re.M)
    assert "  verdict: " in text


def test_compare_shuffles_keeps_one_checkpoint_per_shuffle_and_resumes(capsys, tmp_path):
    checkpoint = tmp_path / "cmp.ckpt"
    argv = ["200", "--seed", "4", "--compare-shuffles", "--json", "--quiet", "--chunk-size", "64",
            "--checkpoint", str(checkpoint)]
    assert cli.main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    assert (tmp_path / "cmp.ckpt.fisher-yates").exists() and (tmp_path / "cmp.ckpt.naive").exists()
    assert cli.main(argv) == 0
    again = json.loads(capsys.readouterr().out)
    for shuffle in ("fisher-yates", "naive"):
        for key in ("mean", "histogram", "no_move_at_deal", "score_fixed_by_deal"):
            assert again["shuffles"][shuffle][key] == first["shuffles"][shuffle][key]
    assert again["difference_of_means"] == first["difference_of_means"]


def test_the_study_bench_saves_its_sessions_and_resumes(tmp_path):
    """bench/solitaire_study.py: a finished study run again resumes every chunk from its
    checkpoint and adds a session record; the summary and histogram are those of the
    command line, with the machine and time of each session."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "bench" / "solitaire_study.py"
    spec = importlib.util.spec_from_file_location("solitaire_study_bench", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    out = tmp_path / "study.json"
    argv = ["--deals", "1500", "--seed", str(SEED), "--chunk-size", "500", "--threads", "1",
            "--checkpoint", str(tmp_path / "study.ckpt"), "--out", str(out)]
    assert bench.main(argv) == 0 and bench.main(argv) == 0
    result = json.loads(out.read_text())
    first, second = result["sessions"]
    assert (first["deals_before"], first["deals_after"]) == (0, 1500)
    assert (second["deals_before"], second["deals_after"], second["resumed_chunks"]) == (
        1500, 1500, 3)
    assert result["complete"] and first["machine"]["cpus"] >= 1 and "utc" in first["machine"]
    expected = S.summarise(S.study_chunk(SEED, 0, 1500))
    for key in ("mean", "sd", "ci95", "win_rate", "moves", "decisions", "histogram"):
        assert result["summary"][key] == expected[key]
    assert result["histogram"] == expected["histogram"]
