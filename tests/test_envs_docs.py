"""The examples of docs/environments.md run, and print what the page says they print."""
import contextlib
import io
import re
from pathlib import Path

import pytest

pytest.importorskip("gymnasium", reason="needs the envs extra (gymnasium)")
pytest.importorskip("pettingzoo", reason="needs the envs extra (pettingzoo)")

PAGE = Path(__file__).resolve().parents[1] / "docs" / "environments.md"


def blocks(kind: str) -> list[str]:
    return re.findall(rf"^```{kind}\n(.*?)^```", PAGE.read_text(), flags=re.S | re.M)


def run(code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(PAGE), "exec"), {"__name__": "__docs__"})
    return out.getvalue()


def test_pettingzoo_loop_of_two_random_agents():
    printed = run(blocks("python")[0]).splitlines()
    assert len(printed) == 2
    margins = {}
    for line in printed:
        agent, margin = re.fullmatch(r"(player_[01]): final margin ([+-]\d+)", line).groups()
        margins[agent] = int(margin)
    assert margins["player_0"] == -margins["player_1"]


def test_gymnasium_solitaire_loop_prints_what_the_page_shows():
    printed = run(blocks("python")[1])
    shown = blocks("text")[0]
    assert printed == shown
    for score, optimal in re.findall(r"random agent +(\d+) cards, optimal +(\d+)", printed):
        assert int(score) <= int(optimal)
