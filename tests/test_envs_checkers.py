"""The ecosystems' own checkers on every environment: PettingZoo's ``api_test``,
``seed_test`` and ``render_test`` on the Kalah AEC environment, Gymnasium's
``check_env`` on the registered single-agent environments.

PettingZoo's parallel tests do not apply: Kalah is turn-based (one agent moves at a
time, an extra move keeps the same agent), which the parallel API cannot express.
"""
import warnings

import pytest

gymnasium = pytest.importorskip("gymnasium", reason="needs the envs extra (gymnasium)")
pytest.importorskip("pettingzoo", reason="needs the envs extra (pettingzoo)")

import jitgames.envs  # noqa: E402  (registers the environments)
from gymnasium.utils.env_checker import check_env  # noqa: E402
from jitgames.envs import kalah  # noqa: E402
from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402

# Warnings PettingZoo's api_test gives for every environment with a dict observation
# (an action mask beside the board), as its own classic games have; any other
# warning fails the test.
EXPECTED_PETTINGZOO_WARNINGS = (
    "Observation space for each agent probably should be gymnasium.spaces.box",
    "Observation is not a NumPy array",
)


@pytest.mark.parametrize("options", [
    {},
    {"pits": 4, "stones": 3, "variant": "standard", "reward": "outcome"},
    {"pits": 1, "stones": 1},
])
def test_kalah_aec_passes_pettingzoo_api_test(options):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(kalah.env(**options), num_cycles=1000)
    unexpected = [str(w.message) for w in caught
                  if not str(w.message).startswith(EXPECTED_PETTINGZOO_WARNINGS)]
    assert unexpected == []


def test_kalah_aec_passes_seed_and_render_tests():
    seed_test(kalah.env, num_cycles=500)
    render_test(lambda render_mode=None: kalah.env(render_mode=render_mode))


@pytest.mark.parametrize("env_id, options", [
    ("jitgames/Kalah-v0", {}),
    ("jitgames/Kalah-v0", {"pits": 4, "stones": 3, "opponent": "perfect", "side": "north",
                           "reward": "outcome"}),
    ("jitgames/Kalah-v0", {"opponent": "random", "variant": "standard"}),
    ("jitgames/Mastermind-v0", {}),
    ("jitgames/Mastermind-v0", {"pegs": 3, "colours": 5, "repeats": False, "max_guesses": 4}),
    ("jitgames/Solitaire-v0", {}),
    ("jitgames/Solitaire-v0", {"seed": 0, "index": 3, "show_face_down": True,
                               "reachable": True}),
])
def test_gymnasium_check_env(env_id, options):
    env = gymnasium.make(env_id, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning of the checker fails the test
        check_env(env.unwrapped)
    env.close()


def test_registered_ids():
    registered = set(gymnasium.registry)
    assert set(jitgames.envs.ENV_IDS) <= registered


@pytest.mark.parametrize("env_id", jitgames.envs.ENV_IDS)
def test_human_render_prints_the_ansi_drawing(env_id, capsys):
    ansi = gymnasium.make(env_id, render_mode="ansi")
    human = gymnasium.make(env_id, render_mode="human")
    ansi.reset(seed=5)
    capsys.readouterr()
    human.reset(seed=5)
    assert capsys.readouterr().out == ansi.render() + "\n\n"
