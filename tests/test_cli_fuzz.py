"""Fuzz every command line with Hypothesis: whatever the words, the answer is a result
(status 0), one line of error (status 2) or a run cut short (status 130) -- never a
traceback.

The words are drawn from each command's own options and from a pool of small, odd and
bad values, so the runs stay tiny (sizes 0..3) and fast; a run that still takes long
is cut by an alarm that raises ``KeyboardInterrupt`` (as Ctrl-C does), which the
command must turn into status 130. Everything runs in a scratch directory with its
own data directory; stdin is empty, so interactive games end at once.
"""
from __future__ import annotations

import signal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .clirun import SERVERS, VALID, arguments, commands, run

VALUES = ["0", "1", "2", "3", "-1", "x", "", "1.5", "1e-3", "10^", "2^", "1e400",
          "10^1000", "nan", "-", "--", "tcp://", "tcp://[::1", "inproc://x", "local:0",
          "knuth", "store@1", "2x2", "\udcff", "a b", "."]
"""Argument values: small sizes, and every kind of malformed number and address."""

ALARM_SECONDS = 120
"""A run longer than this (only a first, compiling call comes near it) is cut as by
Ctrl-C: status 130 is then expected."""

COMMANDS = [(path, parser) for path, parser in commands() if path not in SERVERS]


def _words(path, parser):
    """A command's words: from nothing, or from its valid small example, then a few
    of its options and values (so both parse errors and runs are tried)."""
    options = [s for a in arguments(parser) for s in a.option_strings
               if s not in ("--scheduler",)]  # a real cluster per example would be slow
    extra = st.lists(st.one_of(st.sampled_from(options or ["--json"]),
                               st.sampled_from(VALUES)), max_size=4)
    base = st.sampled_from([(), tuple(VALID.get(path, ()))])
    return st.tuples(base, extra).map(lambda parts: [*parts[0], *parts[1]])


CASES = st.sampled_from(COMMANDS).flatmap(
    lambda command: st.tuples(st.just(command[0]), _words(*command)))


def _interrupt(signum, frame):
    raise KeyboardInterrupt


@pytest.mark.slow
@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=CASES)
def test_any_words_give_status_0_2_or_130(case, tmp_path, monkeypatch):
    path, words = case
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    argv = [*path, *(word.replace("{tmp}", str(tmp_path)) for word in words)]
    previous = signal.signal(signal.SIGALRM, _interrupt)
    signal.alarm(ALARM_SECONDS)
    try:
        outcome = run(argv)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert outcome.status in (0, 2, 130), (argv, outcome)
    assert "Traceback" not in outcome.err, (argv, outcome)
    if outcome.status == 2:
        assert outcome.err.count("\n") == 1, (argv, outcome)
