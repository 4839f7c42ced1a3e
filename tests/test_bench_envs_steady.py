"""bench/envs_steady.py: bad input is one line and status 2 before anything runs, and the
summary's ratios are the per-window ratios of the timings it is given."""
import json

import pytest

from tests.bench_scripts import assert_bad_input_rejected, bench_module


@pytest.mark.parametrize("words", [
    ["--seconds", "0"],
    ["--seconds", "-3"],
    ["--window", "0"],
    ["--envs", "0"],
    ["--threads", "1", "1"],
    ["--threads", "1", "4096"],
])
def test_bad_input_is_one_line_and_status_2(words):
    assert_bad_input_rejected("envs_steady.py", words)


def _envs_steady():
    return bench_module("envs_steady")


def test_the_summary_takes_each_ratio_within_its_window():
    steady = _envs_steady()
    moves = steady.OPENSPIEL_MOVES
    # window k: one thread's steps take 2k s, two threads' k s (2x) ... except the last,
    # where two threads gain nothing; the machine gives 2x, then 1.5x, then 2x
    windows = [
        {"openspiel": 1.0, "games_1": 4.0, "steps_1": 2.0, "games_2": 2.0, "steps_2": 1.0},
        {"openspiel": 2.0, "games_1": 3.0, "steps_1": 4.0, "games_2": 2.0, "steps_2": 2.0},
        {"openspiel": 4.0, "games_1": 2.0, "steps_1": 6.0, "games_2": 1.0, "steps_2": 6.0},
    ]
    summary = steady.summarise(windows, [1, 2], num_envs=10, window=3)
    assert summary["windows"] == 3
    assert summary["steps_2_over_1"]["median"] == pytest.approx(2.0)
    assert summary["machine_2_over_1"]["median"] == pytest.approx(2.0)
    # per window 2/2, 2/1.5, 1/2: the median of the shares, not a share of medians
    assert summary["steps_share_of_machine_2"]["median"] == pytest.approx(1.0)
    # 3 steps of 10 games over `moves` moves, per window: (30/2)/(moves/1), ...
    over = sorted([(30 / 2) / (moves / 1), (30 / 4) / (moves / 2), (30 / 6) / (moves / 4)])
    assert summary["steps_1_thread_over_openspiel_moves"]["median"] == pytest.approx(over[1])
    assert summary["openspiel_moves_per_second"] == pytest.approx(moves / 2.0)
    assert summary["steps_per_second_1"] == pytest.approx(30 / 4.0)
    assert summary["steps_per_second_2"] == pytest.approx(30 / 2.0)
    # windows where the machine gave at least 0.95 x 2: the first and the last
    assert summary["windows_machine_free_2"] == 2
    assert summary["steps_2_over_1_machine_free"] == pytest.approx((2.0 + 1.0) / 2)


class _FakeParts:
    """Stands in for :class:`envs_steady.Parts` (no kernels): every part takes 1 s of
    made-up time, and the ``cut``-th run of steps is cut short by Ctrl-C."""

    def __init__(self, cut):
        self.with_openspiel, self.calls, self.cut, self.closed = False, 0, cut, False

    def games(self, n):
        return 2.0 / n

    def steps(self, n):
        self.calls += 1
        if self.calls == self.cut:
            raise KeyboardInterrupt
        return 2.0 / n

    def close(self):
        self.closed = True


def test_ctrl_c_keeps_the_windows_done_and_says_the_run_is_incomplete(tmp_path, monkeypatch,
                                                                       capsys):
    steady = _envs_steady()
    fake = _FakeParts(cut=7)  # two runs of steps a window: windows 1-3 done, 4 cut
    monkeypatch.setattr(steady, "Parts", lambda *args: fake)
    out = tmp_path / "steady.json"
    status = steady.main(["--seconds", "3600", "--out", str(out)])
    assert status == 130
    assert fake.closed
    saved = json.loads(out.read_text())
    assert saved["complete"] is False
    assert saved["windows"]["columns"] == ["games_1", "steps_1", "games_2", "steps_2"]
    # the order of the parts alternates, the columns keep theirs
    assert saved["windows"]["seconds"] == [[2.0, 2.0, 1.0, 1.0]] * 3
    assert saved["summary"]["steps_2_over_1"]["median"] == pytest.approx(2.0)
    assert "interrupted after 3 windows" in capsys.readouterr().err


def test_ctrl_c_before_the_first_window_saves_nothing(tmp_path, monkeypatch):
    steady = _envs_steady()
    fake = _FakeParts(cut=1)
    monkeypatch.setattr(steady, "Parts", lambda *args: fake)
    out = tmp_path / "steady.json"
    assert steady.main(["--seconds", "3600", "--out", str(out)]) == 130
    assert fake.closed
    assert not out.exists()
