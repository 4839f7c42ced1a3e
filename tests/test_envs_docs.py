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
    """Deals and optima exactly as shown; the random agent's scores come from
    Gymnasium's sampler, so they are checked against the optimum only."""
    line = re.compile(r"deal (\d+): random agent +(\d+) cards, optimal +(\d+)")
    printed = [line.fullmatch(x).groups() for x in run(blocks("python")[1]).splitlines()]
    shown = [line.fullmatch(x).groups() for x in blocks("text")[0].splitlines()]
    assert [(d, o) for d, _, o in printed] == [(d, o) for d, _, o in shown]
    assert all(int(score) <= int(optimal) for _, score, optimal in printed)


def test_pettingzoo_example_is_reproducible():
    """The example seeds the game (and so the agents' samplers): two runs print the same."""
    code = blocks("python")[0]
    assert run(code) == run(code)


def test_vector_env_training_loop_prints_what_the_page_shows():
    """The REINFORCE loop on the vector environment: seeded, so its output is exactly
    the page's, and the agent won more games at the end than at the start."""
    printed = run(blocks("python")[2])
    assert printed.strip() == blocks("text")[1].strip()
    first, last = map(int, re.findall(r"won (\d+)% of the first 2000 and (\d+)%", printed)[0])
    assert last > first


def test_self_play_batch_loop():
    printed = run(blocks("python")[3]).strip()
    won, drew = map(float, re.fullmatch(
        r"South won (\d+\.\d)%, drew (\d+\.\d)% of 1000 random games", printed).groups())
    assert 0 < won < 100 and 0 <= drew < 100 and won + drew <= 100


def test_vector_env_random_agent_with_the_batched_sampler_prints_what_the_page_shows():
    """The sampler loop on 1024 games: seeded, so its output is exactly the page's."""
    assert run(blocks("python")[4]).strip() == blocks("text")[2].strip()
