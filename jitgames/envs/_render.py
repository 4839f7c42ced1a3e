"""Render modes shared by the environments: ``"ansi"`` returns the drawing of the
command line as a string, ``"human"`` prints it (after every reset and step, as
Gymnasium and PettingZoo environments do) and returns None."""
from __future__ import annotations

import gymnasium

from ..errors import InputError

RENDER_MODES = ["human", "ansi"]


def check_render_mode(render_mode) -> None:
    if render_mode not in (None, *RENDER_MODES):
        raise InputError(f"render_mode must be None, 'human' or 'ansi', got {render_mode!r}")


def render(render_mode, drawing):
    """What ``render()`` returns for ``render_mode``, given the ``drawing`` function."""
    if render_mode is None:
        gymnasium.logger.warn("render() called without a render_mode; make the environment "
                              "with render_mode='ansi' or 'human'")
        return None
    if render_mode == "ansi":
        return drawing()
    print(drawing() + "\n", flush=True)
    return None


class TextEnv(gymnasium.Env):
    """A Gymnasium environment drawn as text.

    Subclasses define ``_reset(options)`` (after ``np_random`` is seeded), ``_step(action)``
    and ``drawing()``; with ``render_mode="human"`` the drawing is printed after every
    reset and step.
    """

    # render_fps means nothing for text; Gymnasium's checker asks for it
    metadata = {"render_modes": RENDER_MODES, "render_fps": 4}
    render_mode = None

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        returned = self._reset(options or {})
        if self.render_mode == "human":
            self.render()
        return returned

    def step(self, action):
        returned = self._step(action)
        if self.render_mode == "human":
            self.render()
        return returned

    def render(self):
        return render(self.render_mode, self.drawing)

    def drawing(self) -> str:  # pragma: no cover - every subclass defines it
        raise NotImplementedError
