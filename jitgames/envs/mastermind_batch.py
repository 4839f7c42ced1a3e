"""Batched Mastermind: N codebreaking games in arrays, one parallel kernel call a step.

The kernel under ``jitgames/Mastermind-v0``'s vector environment
(:class:`jitgames.envs.vector.MastermindVectorEnv`). Game ``i`` keeps its secret, its
history of guesses and answers, and the flags of the codes still consistent with the
answers (one row of an ``(N, codes)`` uint8 array, narrowed by
:func:`jitgames.envs.mastermind.narrow_consistent`, the single environment's kernel).
New secrets are drawn in Python from each sub-environment's own generator, so that a
vector environment plays the secrets of the single environments with the same seeds.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._jit import jit, prange
from .._random import below, stream_key
from ..mastermind.codes import feedback_digits
from .mastermind import narrow_consistent

__all__ = ["Codebreaks", "Codes", "new_codebreaks", "guess_codes", "random_games"]


class Codes(NamedTuple):
    """The code space (:class:`jitgames.mastermind.codes.CodeSpace`) as the kernel reads it.

    Attributes
    ----------
    digits : np.ndarray
        int8 ``(codes, pegs)``: the 0-based colours of every code.
    counts : np.ndarray
        Colour counts of every code (``CodeSpace.counts``).
    pegs : int
        Pegs a code.
    solved : int
        The encoded answer of ``pegs`` blacks.
    """

    digits: np.ndarray
    counts: np.ndarray
    pegs: int
    solved: int


class Codebreaks(NamedTuple):
    """State of ``N`` games and the arrays of the last step (one row each).

    Attributes
    ----------
    secrets : np.ndarray
        int64 ``(N,)``: code index of each secret.
    guesses, answers : np.ndarray
        int64 ``(N, max_guesses)``: the guesses and encoded answers so far.
    played : np.ndarray
        int64 ``(N,)``: guesses made in the episode.
    consistent : np.ndarray
        uint8 ``(N, codes)``: 1 for codes consistent with every answer so far.
    left : np.ndarray
        int64 ``(N,)``: codes still consistent.
    seen_guesses : np.ndarray
        int8 ``(N, max_guesses, pegs)``: the observation, ``-1`` in rows not played.
    seen_feedback : np.ndarray
        int8 ``(N, max_guesses, 2)``: blacks and whites, ``-1`` in rows not played.
    """

    secrets: np.ndarray
    guesses: np.ndarray
    answers: np.ndarray
    played: np.ndarray
    consistent: np.ndarray
    left: np.ndarray
    seen_guesses: np.ndarray
    seen_feedback: np.ndarray


def new_codebreaks(count: int, codes: int, pegs: int, max_guesses: int) -> Codebreaks:
    """State of ``count`` games, all to be started."""
    return Codebreaks(np.zeros(count, np.int64), np.zeros((count, max_guesses), np.int64),
                      np.zeros((count, max_guesses), np.int64), np.zeros(count, np.int64),
                      np.ones((count, codes), np.uint8), np.full(count, codes, np.int64),
                      np.full((count, max_guesses, pegs), -1, np.int8),
                      np.full((count, max_guesses, 2), -1, np.int8))


@jit
def _guess_one(codes, games, i, guess, active):
    """Game ``i``: play ``guess`` when ``active``, then write its observation rows."""
    row = games.played[i]
    if active:
        secret = games.secrets[i]
        answer = feedback_digits(codes.digits[guess], codes.counts[guess],
                                 codes.digits[secret], codes.counts[secret], codes.pegs)
        games.guesses[i, row] = guess
        games.answers[i, row] = answer
        row += 1
        games.played[i] = row
        games.left[i] = narrow_consistent(codes.digits, codes.counts, codes.pegs, guess,
                                          answer, games.consistent[i])
    for r in range(games.seen_guesses.shape[1]):
        for p in range(codes.pegs):
            games.seen_guesses[i, r, p] = codes.digits[games.guesses[i, r], p] if r < row else -1
        games.seen_feedback[i, r, 0] = games.answers[i, r] // (codes.pegs + 1) if r < row else -1
        games.seen_feedback[i, r, 1] = games.answers[i, r] % (codes.pegs + 1) if r < row else -1


@jit(parallel=True)
def guess_codes(codes, games, actions, active):
    """Each game ``i`` with ``active[i]`` guesses code ``actions[i]`` (valid index; the
    game not over): the answer, the history, the consistent codes; then every game's
    observation rows (``seen_guesses``, ``seen_feedback``)."""
    for i in prange(games.secrets.shape[0]):
        _guess_one(codes, games, i, actions[i], active[i])


@jit(parallel=True)
def random_games(digits, counts, pegs, max_guesses, seed, guesses, solved):
    """Play ``len(guesses)`` whole games of a random consistent codebreaker in one call.

    Game ``g`` draws from the stream ``stream_key(seed, g)``: first the secret (a
    uniform code index), then each guess uniformly among the codes consistent with every
    answer so far (the ``k``-th of them in code order), until the answer is ``pegs``
    blacks or ``max_guesses`` guesses are made. ``guesses[g]``: guesses made;
    ``solved[g]``: the secret was found. ``digits`` and ``counts`` are the code
    space's (:class:`Codes`). Each game owns its consistent flags, so the results do
    not depend on the thread count."""
    size = digits.shape[0]
    target = pegs * (pegs + 1)
    for g in prange(guesses.shape[0]):
        consistent = np.ones(size, np.uint8)
        key = stream_key(seed, g)
        secret, counter = below(key, 0, size)
        left = size
        made = 0
        broken = False
        while made < max_guesses and not broken:
            pick, counter = below(key, counter, left)
            guess = 0
            seen = 0
            for c in range(size):  # the pick-th consistent code
                if consistent[c]:
                    if seen == pick:
                        guess = c
                        break
                    seen += 1
            answer = feedback_digits(digits[guess], counts[guess], digits[secret],
                                     counts[secret], pegs)
            made += 1
            broken = answer == target
            left = narrow_consistent(digits, counts, pegs, guess, answer, consistent)
        guesses[g] = made
        solved[g] = broken
