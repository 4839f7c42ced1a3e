"""Decision trees of codebreaker strategies: walking, JSON export, readable printing.

A tree is an int32 table with one row per decision node in preorder, columns
``guess, parent, feedback, depth`` (see :data:`engine.TREE_COLUMNS`): the guess made
at the node, the parent row (-1 at the root), the answer that leads from the parent
to the node, and the number of guesses made before it. A secret is solved at the
node whose guess it is, when the answers on the path lead there.

JSON form (nested, answers written ``"black,white"``)::

    {"guess": "1122", "next": {"1,0": {"guess": "1344", "next": {...}}, ...}}

A node whose guess solves the only remaining code has no ``next``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from .._jit import jit
from .codes import CodeSpace, decode_feedback, encode_feedback
from .engine import response

__all__ = ["DecisionTree", "walk_tree"]


@jit
def walk_tree(tree, children, matrix, digits, counts, pegs, secrets, out):
    """Guesses the tree needs for each secret index; -1 if the tree does not solve it.

    ``children[v, f]`` is the row reached from row ``v`` by answer ``f`` (-1: none).
    """
    solved = pegs * (pegs + 1)
    for i in range(secrets.shape[0]):
        s = secrets[i]
        node = 0
        out[i] = -1
        while node >= 0:
            f = response(matrix, digits, counts, pegs, tree[node, 0], s)
            if f == solved:
                out[i] = tree[node, 3] + 1
                break
            node = children[node, f]


@dataclass(frozen=True, eq=False)
class DecisionTree:
    """A strategy as a decision tree over one code space."""

    space: CodeSpace
    table: np.ndarray  # int32 (nodes, 4)

    @property
    def nodes(self) -> int:
        """Number of decision nodes."""
        return int(self.table.shape[0])

    def children(self) -> np.ndarray:
        """int32 table ``children[v, f]`` of the row reached by answer f (-1: none)."""
        slots = (self.space.pegs + 1) ** 2
        out = np.full((self.nodes, slots), -1, dtype=np.int32)
        rows = np.arange(1, self.nodes)
        out[self.table[1:, 1], self.table[1:, 2]] = rows
        return out

    def guesses(self, secrets: np.ndarray | None = None, matrix: np.ndarray | None = None
                ) -> np.ndarray:
        """Guesses needed for each secret index (all secrets by default); -1 if unsolved."""
        space = self.space
        secrets = np.arange(space.size) if secrets is None else np.asarray(secrets)
        secrets = secrets.astype(np.int64)
        matrix = np.zeros((0, 0), np.uint8) if matrix is None else matrix
        out = np.empty(secrets.shape[0], dtype=np.int32)
        walk_tree(self.table, self.children(), matrix, space.digits, space.counts,
                  space.pegs, secrets, out)
        return out

    def to_dict(self) -> dict:
        """Nested-dict form of the tree (see the module docstring)."""
        space = self.space
        kids = self.children()

        def node(v):
            out = {"guess": space.format(self.table[v, 0])}
            nxt = {}
            for f in np.flatnonzero(kids[v] >= 0):
                b, w = decode_feedback(f, space.pegs)
                nxt[f"{b},{w}"] = node(int(kids[v, f]))
            if nxt:
                out["next"] = nxt
            return out

        return node(0)

    def to_json(self) -> str:
        """The tree as one JSON document."""
        return json.dumps({"pegs": self.space.pegs, "colours": self.space.colours,
                           "repeats": self.space.repeats, "tree": self.to_dict()})

    def render(self, max_depth: int | None = None) -> str:
        """Readable indented text in depth-first order: one line per node, ``answer -> guess``."""
        space = self.space
        kids = self.children()
        lines = []
        stack = [0]
        while stack:
            v = stack.pop()
            guess, parent, answer, depth = (int(x) for x in self.table[v])
            if parent < 0:
                lines.append(space.format(guess))
            else:
                b, w = decode_feedback(answer, space.pegs)
                lines.append(f"{'  ' * depth}{b}B{w}W -> {space.format(guess)}")
            if max_depth is None or depth < max_depth:
                stack.extend(int(c) for c in kids[v][::-1] if c >= 0)
        return "\n".join(lines)

    @classmethod
    def from_dict(cls, space: CodeSpace, data: dict) -> "DecisionTree":
        """Rebuild a tree from :meth:`to_dict` output (used to check exports)."""
        rows = []

        def visit(d, parent, answer, depth):
            row = len(rows)
            rows.append((space.parse(d["guess"]), parent, answer, depth))
            for key in d.get("next", {}):
                b, w = (int(x) for x in key.split(","))
                visit(d["next"][key], row, encode_feedback(b, w, space.pegs), depth + 1)

        visit(data, -1, -1, 0)
        return cls(space, np.array(rows, dtype=np.int32).reshape(-1, 4))
