"""A computer codebreaker that plays one game step by step, answer after answer.

It makes exactly the decisions of the strategy's decision tree (same scoring,
tie-breaking and random keys as :mod:`.engine`, or the optimal tree), and checks every
answer against the earlier ones: an answer that no code could give together with the
earlier answers raises :class:`InconsistentAnswer` and is not recorded.
"""
from __future__ import annotations

import numpy as np

from ..errors import InputError
from .._random import stream_key
from .codes import CodeSpace
from .engine import child_key, choose_guess, new_scratch
from .evaluate import decision_tree
from .strategies import get_strategy

__all__ = ["Breaker", "InconsistentAnswer", "consistent_codes"]


class InconsistentAnswer(InputError):
    """An answer that contradicts the earlier answers (no code fits them all)."""


def consistent_codes(space: CodeSpace, matrix: np.ndarray, history) -> np.ndarray:
    """Indices of the codes that give every ``(guess, feedback)`` of ``history``."""
    keep = np.ones(space.size, dtype=bool)
    codes = np.arange(space.size)
    for guess, answer in history:
        if matrix.shape[0]:
            keep &= matrix[guess] == answer
        else:
            keep &= np.array([space.feedback(guess, s) for s in codes]) == answer
    return codes[keep].astype(np.int32)


class Breaker:
    """Codebreaker ``name`` (a registered strategy or an optimal one) for one game."""

    def __init__(self, name: str, space: CodeSpace, matrix: np.ndarray, seed: int = 0):
        strategy = get_strategy(name)
        self.name, self.space, self.matrix, self.seed = name, space, matrix, seed
        self.history: list[tuple[int, int]] = []
        self.consistent = np.arange(space.size, dtype=np.int32)
        self._key = np.uint64(stream_key(seed, 1))
        self._node = 0
        self._tree = None
        if strategy.optimal:
            self._tree = decision_tree(strategy, space, matrix)
            self._children = self._tree.children()
        self._pending: int | None = None

    def guess(self) -> int:
        """The next guess (index); call :meth:`answer` with its feedback before the next."""
        if self._pending is not None:
            return self._pending
        if self._tree is not None:
            self._pending = int(self._tree.table[self._node, 0])
            return self._pending
        strategy = get_strategy(self.name)
        members = self.consistent
        if members.size == 1:
            self._pending = int(members[0])
        elif not self.history and strategy.first_guess is not None:
            self._pending = int(strategy.first_guess(self.space, self.seed))
        else:
            n = self.space.size
            previous = self.history[-1][0] if self.history else -1
            self._pending = int(choose_guess(
                strategy.adapter, self.space.tables(self.matrix), strategy.rules, members, 0,
                members.size, previous, self._key, False, new_scratch(n, self.space.pegs)))
        return self._pending

    def answer(self, answer: int) -> bool:
        """Record the feedback to the pending guess; True when it solves the game.

        Raises
        ------
        InconsistentAnswer
            If no code gives this answer together with the earlier ones.
        """
        guess = self.guess()
        if answer == self.space.solved:
            if guess not in set(self.consistent.tolist()):
                raise InconsistentAnswer("that guess cannot be the secret given the earlier answers")
            self.history.append((guess, answer))
            return True
        left = consistent_codes(self.space, self.matrix, [(guess, answer)])
        left = np.intersect1d(self.consistent, left).astype(np.int32)
        if left.size == 0:
            raise InconsistentAnswer("no code gives this answer together with the earlier ones")
        self.history.append((guess, answer))
        self.consistent = left
        self._key = np.uint64(child_key(self._key, guess, answer))
        if self._tree is not None:
            self._node = int(self._children[self._node, answer])
        self._pending = None
        return False
