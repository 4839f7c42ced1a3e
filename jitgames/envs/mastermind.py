"""``jitgames/Mastermind-v0``: break a secret code of ``pegs`` pegs and ``colours`` colours.

A step is a guess; the environment answers with the feedback computed by the
library's kernel :func:`jitgames.mastermind.codes.feedback_digits`. Reward -1 a guess,
so the return is minus the number of guesses. ``info["consistent"]`` is the number of
codes still consistent with every answer so far (the secret among them), the quantity
the codebreaker strategies of :mod:`jitgames.mastermind.strategies` work on.

Spaces:

- action: ``Discrete(N)``, the index of a code in the code space (codes in increasing
  order of their written form; without repeats only codes of distinct colours, see
  :class:`jitgames.mastermind.codes.CodeSpace`);
- observation: a dict of the history, row ``i`` for guess ``i + 1`` and ``-1`` in
  rows not yet played: ``"guesses"`` (int8, ``max_guesses x pegs``, the 0-based
  colour of each peg) and ``"feedback"`` (int8, ``max_guesses x 2``, blacks and
  whites).

The episode ends (``terminated``) when a guess has ``pegs`` blacks, and is
truncated after ``max_guesses`` guesses otherwise.
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces

from .._jit import jit
from ..errors import InputError
from ..mastermind.codes import code_space, decode_feedback, feedback_digits
from ..mastermind.play import Board
from ._render import TextEnv, check_render_mode

__all__ = ["MastermindEnv", "narrow_consistent"]


@jit
def narrow_consistent(digits, counts, pegs, guess, answer, consistent):
    """Clear ``consistent[s]`` (uint8, one per code) of every code ``s`` that would not
    answer ``answer`` to code ``guess``; return how many codes stay set."""
    left = 0
    for s in range(consistent.shape[0]):
        if consistent[s]:
            if feedback_digits(digits[guess], counts[guess], digits[s], counts[s],
                               pegs) == answer:
                left += 1
            else:
                consistent[s] = 0
    return left


class MastermindEnv(TextEnv):
    """Mastermind with ``pegs`` pegs, ``colours`` colours, with or without repeats.

    Parameters
    ----------
    pegs, colours : int
        Code length and number of colours (sizes of :func:`~jitgames.mastermind.codes.code_space`).
    repeats : bool
        False: secret and guesses have distinct colours (Bulls and Cows).
    max_guesses : int
        Guesses before the episode is truncated (rows of the observation).
    render_mode : str, optional
        ``"ansi"``: :meth:`render` returns the rows of guesses and answers as
        ``jitgames mastermind play`` prints them.

    ``reset(options={"secret": "1122"})`` sets the secret (written form); otherwise it
    is drawn uniformly from ``np_random``. ``info`` has ``"consistent"`` and
    ``"guesses"``; at the end also ``"secret"`` (written form).
    """

    def __init__(self, pegs: int = 4, colours: int = 6, repeats: bool = True,
                 max_guesses: int = 10, render_mode: str | None = None):
        self.space = code_space(pegs, colours, bool(repeats))  # InputError if out of range
        if not isinstance(max_guesses, (int, np.integer)) or not 1 <= max_guesses <= 10_000:
            raise InputError(f"max_guesses must be an integer from 1 to 10000, got {max_guesses!r}")
        check_render_mode(render_mode)
        self.pegs, self.colours, self.repeats = pegs, colours, bool(repeats)
        self.max_guesses, self.render_mode = int(max_guesses), render_mode
        self.action_space = spaces.Discrete(self.space.size)
        self.observation_space = spaces.Dict({
            "guesses": spaces.Box(-1, colours - 1, shape=(self.max_guesses, pegs), dtype=np.int8),
            "feedback": spaces.Box(-1, pegs, shape=(self.max_guesses, 2), dtype=np.int8),
        })
        self.secret = 0
        self.history: list[tuple[int, int]] = []
        self._consistent = np.ones(self.space.size, dtype=np.uint8)
        self._left = self.space.size

    def _observation(self):
        guesses = np.full((self.max_guesses, self.pegs), -1, dtype=np.int8)
        feedback = np.full((self.max_guesses, 2), -1, dtype=np.int8)
        for row, (guess, answer) in enumerate(self.history):
            guesses[row] = self.space.digits[guess]
            feedback[row] = decode_feedback(answer, self.pegs)
        return {"guesses": guesses, "feedback": feedback}

    def _reset(self, options: dict):
        if "secret" in options:
            try:
                self.secret = self.space.parse(options["secret"])
            except ValueError as exc:
                raise InputError(f"secret: {exc}") from None
        else:
            self.secret = int(self.np_random.integers(self.space.size))
        self.history = []
        self._consistent[:] = 1
        self._left = self.space.size
        return self._observation(), {"consistent": self._left, "guesses": 0}

    def _step(self, action):
        guess = int(action)
        if not 0 <= guess < self.space.size:
            raise InputError(f"action must be a code index from 0 to {self.space.size - 1}, "
                             f"got {action}")
        if len(self.history) >= self.max_guesses or (
                self.history and self.history[-1][1] == self.space.solved):
            raise InputError("the episode is over; call reset()")
        space = self.space
        answer = int(feedback_digits(space.digits[guess], space.counts[guess],
                                     space.digits[self.secret], space.counts[self.secret],
                                     space.pegs))
        self.history.append((guess, answer))
        self._left = int(narrow_consistent(space.digits, space.counts, space.pegs, guess,
                                           answer, self._consistent))
        terminated = answer == space.solved
        truncated = not terminated and len(self.history) == self.max_guesses
        info = {"consistent": self._left, "guesses": len(self.history)}
        if terminated or truncated:
            info["secret"] = space.format(self.secret)
        return self._observation(), -1.0, terminated, truncated, info

    def drawing(self) -> str:
        """The guesses and answers as ``jitgames mastermind play`` prints them."""
        board = Board(colour=False)
        rows = []
        for number, (guess, answer) in enumerate(self.history, start=1):
            black, white = decode_feedback(answer, self.space.pegs)
            code = board.code(tuple(int(d) for d in self.space.digits[guess]))
            rows.append(f"{number:>3}. {code}   {black} black {white} white")
        rows.append(f"{self._left} code{'s' if self._left != 1 else ''} still possible")
        return "\n".join(rows)
