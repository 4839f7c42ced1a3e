"""Reinforcement-learning environments on the jitgames rule kernels (``docs/environments.md``).

- :func:`jitgames.envs.kalah.env`: Kalah(m, n) for two agents, a PettingZoo AEC
  environment.
- Gymnasium environments, registered when this package is imported:
  ``jitgames/Kalah-v0`` (one agent against a built-in opponent),
  ``jitgames/Mastermind-v0`` (break a secret code) and ``jitgames/Solitaire-v0``
  (play one deal; ``info`` carries the deal's optimal score).

Every step calls the same Numba rule kernels as the solvers and searches of the
games (:mod:`jitgames.kalah.rules`, :mod:`jitgames.mastermind.codes`,
:mod:`jitgames.solitaire.rules`); nothing of the rules is written twice.

Conventions shared by the environments (those of the PettingZoo classic games and of
Gymnasium):

- seeding through ``reset(seed=...)``; everything random (opponents' ties, secrets,
  deals) is drawn from the environment's ``np_random``;
- ``render_mode="ansi"``: ``render()`` returns the board as the command line draws it;
- Kalah and the solitaire put an action mask (int8, 1 = legal) in the observation
  under ``"action_mask"``, so ``action_space.sample(mask=obs["action_mask"])`` picks a
  legal action; an action outside the mask ends the episode (the Gymnasium
  environments) or is punished by PettingZoo's ``TerminateIllegalWrapper`` (the AEC
  environment). Every Mastermind code is a legal guess.

Requires the optional extra ``pip install "jitgames[envs]"`` (gymnasium, pettingzoo).
"""
from __future__ import annotations

try:
    import gymnasium
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError("jitgames.envs needs gymnasium and pettingzoo: "
                      "pip install 'jitgames[envs]'") from exc

__all__ = ["ENV_IDS"]

ENV_IDS = ("jitgames/Kalah-v0", "jitgames/Mastermind-v0", "jitgames/Solitaire-v0")

_ENTRY_POINTS = {
    "jitgames/Kalah-v0": "jitgames.envs.kalah:KalahEnv",
    "jitgames/Mastermind-v0": "jitgames.envs.mastermind:MastermindEnv",
    "jitgames/Solitaire-v0": "jitgames.envs.solitaire:SolitaireEnv",
}

_VECTOR_ENTRY_POINTS = {
    "jitgames/Kalah-v0": "jitgames.envs.vector:KalahVectorEnv",
    "jitgames/Mastermind-v0": "jitgames.envs.vector:MastermindVectorEnv",
    "jitgames/Solitaire-v0": "jitgames.envs.vector:SolitaireVectorEnv",
}

for _id, _entry in _ENTRY_POINTS.items():
    # Importing twice (or after a reload) must not register twice: Gymnasium warns.
    if _id not in gymnasium.registry:
        gymnasium.register(id=_id, entry_point=_entry,
                           vector_entry_point=_VECTOR_ENTRY_POINTS.get(_id))
