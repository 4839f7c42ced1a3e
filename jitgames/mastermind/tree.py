"""Decision trees of codebreaker strategies: walking, JSON export and check, printing.

A tree is an int32 table with one row per decision node in preorder, columns
``guess, parent, feedback, depth`` (see :data:`engine.TREE_COLUMNS`): the guess made
at the node, the parent row (-1 at the root), the answer that leads from the parent
to the node, and the number of guesses made before it. A secret is solved at the
node whose guess it is, when the answers on the path lead there.

JSON document (``tree --out FILE``, read back by ``evaluate --tree FILE``; the format
is described in ``docs/mastermind_optimal.md``)::

    {"format": "jitgames.mastermind.tree", "version": 1,
     "pegs": 4, "colours": 6, "repeats": true, "strategy": "optimal",
     "max_guesses": null, "total": 5625,
     "tree": {"guess": "1122", "next": {"1,0": {"guess": "1344", "next": {...}}, ...}}}

Answers are written ``"black,white"``; a node whose guess solves the only remaining
code has no ``next``. :func:`check_tree` verifies such a document with its own code
(plain Python feedback over written codes, no table or kernel of this package).
"""
from __future__ import annotations

import gzip
import json
import math
from dataclasses import dataclass
from itertools import permutations, product

import numpy as np

from .._jit import jit
from .._store import atomic_write_bytes, shorten
from ..errors import InputError
from .codes import CodeSpace, decode_feedback, encode_feedback
from .engine import response

__all__ = ["DecisionTree", "walk_tree", "check_tree", "TREE_FORMAT", "TREE_VERSION"]

TREE_FORMAT = "jitgames.mastermind.tree"
TREE_VERSION = 1
MAX_CHECKED_CODES = 1 << 21  # the check walks every code in Python: seconds per 10^5
MAX_TREE_DEPTH = 64
"""Most guesses on one branch of a checked tree (the strategies here need at most 12)."""
MAX_WALK_PER_CODE = 16
"""The check walks at most this many nodes per code on average (the sum of the
secrets met at every node, which for a tree that only splits is its total of
guesses): a tree needing more than 16 guesses a secret on average is refused before
its walk, of at most 16 x codes steps, can keep the check busy for minutes."""
TREE_FILE_LIMIT = 256 << 20
"""Largest tree file read (bytes); a FIFO or device is refused, never read."""


@jit
def walk_tree(tree, children, tables, secrets, out):
    """Guesses the tree needs for each secret index; -1 if the tree does not solve it.

    ``children[v, f]`` is the row reached from row ``v`` by answer ``f`` (-1: none);
    ``tables`` are the :class:`.codes.CodeTables` of the space.
    """
    solved = tables.pegs * (tables.pegs + 1)
    for i in range(secrets.shape[0]):
        s = secrets[i]
        node = 0
        out[i] = -1
        while node >= 0:
            f = response(tables, tree[node, 0], s)
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
        walk_tree(self.table, self.children(), space.tables(matrix), secrets, out)
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

    def to_document(self, strategy: str | None = None, max_guesses: int | None = None
                    ) -> dict:
        """The JSON document of the tree (see the module docstring)."""
        return {"format": TREE_FORMAT, "version": TREE_VERSION, "pegs": self.space.pegs,
                "colours": self.space.colours, "repeats": self.space.repeats,
                "strategy": strategy, "max_guesses": max_guesses,
                "total": int(self.guesses().sum()), "tree": self.to_dict()}

    def to_json(self, strategy: str | None = None, max_guesses: int | None = None) -> str:
        """The tree as one JSON document (:meth:`to_document`)."""
        return json.dumps(self.to_document(strategy, max_guesses))

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


@dataclass(frozen=True)
class TreeCheck:
    """What :func:`check_tree` found: the guesses each secret needs, by written code."""

    pegs: int
    colours: int
    repeats: bool
    strategy: str | None
    guesses: dict  # written secret -> guesses the tree needs for it

    @property
    def total(self) -> int:
        """Guesses summed over all secrets."""
        return sum(self.guesses.values())


def _bad(message: str) -> InputError:
    return InputError(f"tree file: {message}")


def _size_field(doc: dict, name: str, low: int, high: int) -> int:
    value = doc.get(name)
    if type(value) is not int or not low <= value <= high:
        raise _bad(f"{name!r} must be an integer from {low} to {high}, got {value!r}")
    return value


def check_tree(doc, max_walk: int | None = None) -> TreeCheck:
    """Verify a tree document independently of the search that made it.

    Every legal code is played down the tree from the root: at each node the
    consistent codes are split by their feedback to the node's guess, computed here
    from the written codes; every answer that occurs must have a branch (or be the
    solving one), and every branch must be an answer that occurs. Totals are counted
    from those walks, never read from the document; a ``"total"`` in the document
    must agree with them. The walk is bounded: at most :data:`MAX_TREE_DEPTH` guesses
    on a branch and ``max_walk`` (default :data:`MAX_WALK_PER_CODE` x codes) secrets
    met over all nodes.

    Raises
    ------
    jitgames.errors.InputError
        Naming the first fault: a malformed document, an illegal guess, a secret the
        tree leaves unsolved, a branch no secret reaches, a wrong stated total.
    """
    if not isinstance(doc, dict):
        raise _bad("the document must be a JSON object")
    if doc.get("format", TREE_FORMAT) != TREE_FORMAT or doc.get("version", 1) != TREE_VERSION:
        raise _bad(f"not a {TREE_FORMAT} document of version {TREE_VERSION}")
    pegs = _size_field(doc, "pegs", 1, 8)
    colours = _size_field(doc, "colours", 1, 35)
    repeats = doc.get("repeats", True)
    if not isinstance(repeats, bool):
        raise _bad(f"'repeats' must be true or false, got {repeats!r}")
    count = colours ** pegs if repeats else 0 if colours < pegs else math.perm(colours, pegs)
    if not 1 <= count <= MAX_CHECKED_CODES:
        raise _bad(f"{pegs} pegs of {colours} colours give {count:,} codes; the check handles "
                   f"1 to {MAX_CHECKED_CODES:,}")
    symbols = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:colours]
    if repeats:
        codes = ["".join(c) for c in product(symbols, repeat=pegs)]
    else:
        codes = ["".join(c) for c in permutations(symbols, pegs)]
    legal = set(codes)

    def feedback(a: str, b: str) -> tuple[int, int]:
        black = sum(x == y for x, y in zip(a, b))
        common = sum(min(a.count(c), b.count(c)) for c in set(a))
        return black, common - black

    guesses = {}
    solved = (pegs, 0)
    budget = MAX_WALK_PER_CODE * len(codes) if max_walk is None else max_walk
    stack = [(doc.get("tree"), codes, 1, "the root")]
    while stack:
        node, members, depth, where = stack.pop()
        if not isinstance(node, dict) or not isinstance(node.get("guess"), str):
            raise _bad(f"the node at {where} needs a \"guess\" string")
        guess = node["guess"].upper()
        if guess not in legal:
            raise _bad(f"guess {shorten(node['guess'])} at {where} is not a legal code")
        budget -= len(members)
        if depth > MAX_TREE_DEPTH or budget < 0:
            raise _bad(f"too deep or too long to check: more than {MAX_TREE_DEPTH} guesses "
                       f"on a branch, or more than {MAX_WALK_PER_CODE} a secret on average "
                       f"(at {where})")
        classes = {}
        for secret in members:
            classes.setdefault(feedback(guess, secret), []).append(secret)
        branches = node.get("next", {})
        if not isinstance(branches, dict):
            raise _bad(f"\"next\" at {where} must be an object")
        for key in branches:
            try:
                black, white = (int(x) for x in key.split(","))
            except ValueError:
                raise _bad(f"answer {shorten(key)} after {guess} at {where} is not "
                           f"\"black,white\"") from None
            if (black, white) not in classes or (black, white) == solved:
                raise _bad(f"no secret answers {key} to {guess} at {where}")
        for answer, part in classes.items():
            if answer == solved:
                guesses[guess] = depth
                continue
            key = f"{answer[0]},{answer[1]}"
            if key not in branches:
                raise _bad(f"secret {part[0]} is not solved: no branch for answer {key} "
                           f"to {guess} at {where}")
            stack.append((branches[key], part, depth + 1, f"{where} -> {guess} {key}"))
    if len(guesses) != len(codes):  # unreachable: every code ends in some class
        raise _bad("some secrets are not solved")
    check = TreeCheck(pegs, colours, repeats, doc.get("strategy"), guesses)
    stated = doc.get("total")
    if stated is not None and stated != check.total:
        raise _bad(f"states a total of {stated} guesses; its secrets need {check.total}")
    return check


def write_document(path, doc: dict) -> None:
    """Write a tree document (:meth:`DecisionTree.to_document`, perhaps with more
    fields) to ``path`` atomically, gzip compressed when the name ends in ``.gz``
    (``mtime`` 0, so the same tree gives the same bytes)."""
    text = json.dumps(doc, separators=(",", ":")) + "\n"
    data = gzip.compress(text.encode(), mtime=0) if str(path).endswith(".gz") else text.encode()
    atomic_write_bytes(path, data)
