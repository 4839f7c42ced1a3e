"""Peg solitaire on the 33-hole English and 37-hole French boards.

Boards live on a 7 x 7 grid; hole (r, c) is bit ``7*r + c`` of a uint64 position
(row 0 on top, column 0 on the left); holes are named like a chess board, column
letter a..g and row number 1..7 from the top (``d4`` is the centre). A move jumps a
peg orthogonally over a neighbouring peg into an empty hole and removes the jumped
peg; it is written ``d2-d4``.

The rules (board, moves, symmetries) are here; the searches are in
:mod:`jitgames.puzzles.pegsearch`.

Choices docs/design.md leaves open:

- The classic problems use the starting patterns and targets of the usual puzzle
  books (cross, plus, fireplace, pyramid, arrow on the English board; the central
  game on both boards). Each problem's target is one peg at a named hole.
- Path counts are int64: a count of 2**62 or more is refused (OverflowError); the
  central game's 4.1e16 is far below. Layer counts also stay below the number of
  move sequences of half the game.
- Before searching, the position-class test of de Bruijn (counts of pegs on the
  three diagonal classes mod 2, in both diagonal directions) rules out impossible
  problems at once (for instance the central game on the French board).
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from jitgames.puzzles import pegsearch
from jitgames.errors import InputError

__all__ = [
    "BOARDS",
    "PROBLEMS",
    "Board",
    "Problem",
    "PegSolution",
    "PegCount",
    "board",
    "problem",
    "holes_of",
    "position_of",
    "hole_name",
    "move_name",
    "draw",
    "legal_moves",
    "apply_move",
    "same_class",
    "solve",
    "count_solutions",
    "FirstMove",
    "first_moves",
    "first_moves_iter",
    "symmetry_classes",
]

CENTRE = (3, 3)


def _english_holes():
    return [(r, c) for r in range(7) for c in range(7)
            if 2 <= r <= 4 or 2 <= c <= 4]


def _french_holes():
    return _english_holes() + [(1, 1), (1, 5), (5, 1), (5, 5)]


BOARDS = {"english": _english_holes(), "french": _french_holes()}


def position_of(holes) -> int:
    """Bitboard (Python int) with a peg in each of the (row, column) ``holes``."""
    pos = 0
    for r, c in holes:
        pos |= 1 << (7 * r + c)
    return pos


def holes_of(position: int) -> list[tuple[int, int]]:
    """The (row, column) pairs of the pegs of ``position``, row by row."""
    return [(i // 7, i % 7) for i in range(49) if position >> i & 1]


def hole_name(r: int, c: int) -> str:
    """Chess-like name of hole (r, c): column letter, row number from the top."""
    return f"{'abcdefg'[c]}{r + 1}"


def _symmetry_maps():
    """The 8 symmetries of the 7 x 7 grid as maps (r, c) -> (r', c')."""
    maps = []
    for turns in range(4):
        for mirror in (False, True):
            def f(r, c, turns=turns, mirror=mirror):
                if mirror:
                    c = 6 - c
                for _ in range(turns):
                    r, c = c, 6 - r
                return r, c
            maps.append(f)
    return maps


_SYMMETRIES = _symmetry_maps()


def _sym_table() -> np.ndarray:
    table = np.zeros((8, 7, 256), dtype=np.uint64)
    for s, f in enumerate(_SYMMETRIES):
        for b in range(7):
            for value in range(256):
                out = 0
                for bit in range(8):
                    i = 8 * b + bit
                    if value >> bit & 1 and i < 49:
                        r, c = f(i // 7, i % 7)
                        out |= 1 << (7 * r + c)
                table[s, b, value] = out
    return table


_SYM_TABLE = _sym_table()


@dataclass(frozen=True)
class Board:
    """A board: its holes as a bitmask and its moves as (from, over, to) bit masks."""

    name: str
    holes: int
    jump_from: np.ndarray
    jump_over: np.ndarray
    jump_to: np.ndarray

    @property
    def size(self) -> int:
        return bin(self.holes).count("1")


def board(name: str = "english") -> Board:
    """The English (33 holes) or French (37 holes) board."""
    if name not in BOARDS:
        raise InputError(f"board must be one of {sorted(BOARDS)}, got {name!r}")
    holes = set(BOARDS[name])
    moves = []
    for r, c in sorted(holes):
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            over, to = (r + dr, c + dc), (r + 2 * dr, c + 2 * dc)
            if over in holes and to in holes:
                moves.append((1 << (7 * r + c), 1 << (7 * over[0] + over[1]),
                              1 << (7 * to[0] + to[1])))
    arr = np.array(moves, dtype=np.uint64)
    return Board(name, position_of(holes), arr[:, 0].copy(), arr[:, 1].copy(),
                 arr[:, 2].copy())


@dataclass(frozen=True)
class Problem:
    """A start position and a one-peg target on a board."""

    name: str
    board: str
    start: int
    goal: int


def _pattern(rows):
    return position_of((r, c) for r, line in rows for c in line)


PROBLEMS = {
    # 6 pegs: a small latin cross above the centre
    "cross": (_pattern([(1, [3]), (2, [2, 3, 4]), (3, [3]), (4, [3])]), CENTRE),
    # 9 pegs: a plus sign through the centre
    "plus": (_pattern([(1, [3]), (2, [3]), (3, [1, 2, 3, 4, 5]), (4, [3]), (5, [3])]),
             CENTRE),
    # 11 pegs: the top arm and the square below it, centre empty
    "fireplace": (_pattern([(0, [2, 3, 4]), (1, [2, 3, 4]), (2, [2, 3, 4]), (3, [2, 4])]),
                  CENTRE),
    # 16 pegs: rows of 1, 3, 5, 7
    "pyramid": (_pattern([(1, [3]), (2, [2, 3, 4]), (3, [1, 2, 3, 4, 5]),
                          (4, [0, 1, 2, 3, 4, 5, 6])]), CENTRE),
    # 17 pegs: an arrow pointing up
    "arrow": (_pattern([(0, [3]), (1, [2, 3, 4]), (2, [1, 2, 3, 4, 5]), (3, [3]), (4, [3]),
                        (5, [2, 3, 4]), (6, [2, 3, 4])]), CENTRE),
    # 32 pegs: the full board with the centre empty
    "central": (None, CENTRE),
}


def problem(name: str, board_name: str = "english") -> Problem:
    """A classic problem by name (``central`` on either board; others English only)."""
    if name not in PROBLEMS:
        raise InputError(f"problem must be one of {sorted(PROBLEMS)}, got {name!r}")
    b = board(board_name)
    pattern, target = PROBLEMS[name]
    if pattern is None:
        pattern = b.holes & ~position_of([target])
    elif board_name != "english":
        raise InputError(f"problem {name!r} is defined on the english board only")
    return Problem(name, board_name, pattern, position_of([target]))


def move_name(b: Board, m: int) -> str:
    """Text of move ``m`` of board ``b``, e.g. ``d2-d4``."""
    (r1, c1), = holes_of(int(b.jump_from[m]))
    (r2, c2), = holes_of(int(b.jump_to[m]))
    return f"{hole_name(r1, c1)}-{hole_name(r2, c2)}"


def draw(b: Board, position: int) -> str:
    """A text drawing: ``o`` a peg, ``.`` an empty hole, blank outside the board."""
    lines = []
    for r in range(7):
        cells = []
        for c in range(7):
            bit = 1 << (7 * r + c)
            cells.append(" " if not b.holes & bit else ("o" if position & bit else "."))
        lines.append(" ".join(cells).rstrip())
    return "\n".join(lines)


def legal_moves(b: Board, position: int) -> list[int]:
    """Indices of the moves of ``b`` that apply to ``position``."""
    return [m for m in range(len(b.jump_from))
            if position & int(b.jump_from[m]) and position & int(b.jump_over[m])
            and not position & int(b.jump_to[m])]


def apply_move(b: Board, position: int, m: int) -> int:
    """The position after move ``m`` (which must be legal)."""
    if m not in legal_moves(b, position):
        raise InputError(f"move {m} is not legal here")
    return position ^ int(b.jump_from[m] | b.jump_over[m] | b.jump_to[m])


def _class_signature(position: int) -> tuple[int, int, int, int]:
    counts = [[0, 0, 0], [0, 0, 0]]
    for r, c in holes_of(position):
        counts[0][(r + c) % 3] += 1
        counts[1][(r - c) % 3] += 1
    return tuple((k[0] + k[1]) % 2 for k in counts) + tuple((k[1] + k[2]) % 2 for k in counts)


def same_class(a: int, b_: int) -> bool:
    """de Bruijn's position-class test: False proves ``b_`` unreachable from ``a``.

    A jump changes the peg count of each of the three diagonal classes by one, so
    the parities of n0 + n1 and n1 + n2 (both diagonal directions) never change.
    """
    return _class_signature(a) == _class_signature(b_)


def _group(*positions: int) -> np.ndarray:
    """Indices of the symmetries fixing every one of ``positions`` (identity first)."""
    keep = []
    for s in range(8):
        if all(int(pegsearch.image(np.uint64(p), _SYM_TABLE, s)) == p for p in positions):
            keep.append(s)
    return np.array(keep, dtype=np.int64)


def _check_position(b: Board, position: int, what: str) -> int:
    position = int(position)
    if position < 0 or position & ~b.holes:
        raise InputError(f"{what} has pegs outside the {b.name} board")
    return position


@dataclass(frozen=True)
class PegSolution:
    """A solution as move indices, their names, and the positions passed through."""

    board: Board
    moves: tuple[int, ...]
    positions: tuple[int, ...]

    @property
    def names(self) -> list[str]:
        return [move_name(self.board, m) for m in self.moves]


def solve(start: int, goal: int, board_name: str = "english",
          table_bits: int = 22) -> PegSolution | None:
    """One move sequence from ``start`` to ``goal``, or None if there is none.

    Depth-first search with a transposition table of ``2**table_bits`` dead
    positions (8 bytes each), canonical under the symmetries fixing the goal.
    """
    b = board(board_name)
    start = _check_position(b, start, "start")
    goal = _check_position(b, goal, "goal")
    if not same_class(start, goal):
        return None
    dead = np.full(1 << table_bits, pegsearch.EMPTY_KEY, dtype=np.uint64)
    path = np.zeros(max(bin(start).count("1"), 1), dtype=np.int64)
    length = pegsearch.solve_dfs(np.uint64(start), np.uint64(goal), b.jump_from, b.jump_over,
                                 b.jump_to, _SYM_TABLE, _group(goal), dead, path)
    if length < 0:
        return None
    positions = [start]
    for m in path[:length]:
        positions.append(apply_move(b, positions[-1], int(m)))
    return PegSolution(b, tuple(int(m) for m in path[:length]), tuple(positions))


@dataclass(frozen=True)
class PegCount:
    """Number of move sequences from start to goal, with what the count cost."""

    solutions: int
    layer_sizes: tuple[int, ...]
    seconds: float


def _layers(b: Board, start: int, depth: int, group: np.ndarray, progress=None):
    """Breadth-first layers 0..depth from ``start``: (sorted keys, path counts)."""
    keys = np.array([int(pegsearch.canonical(np.uint64(start), _SYM_TABLE, group))],
                    dtype=np.uint64)
    counts = np.array([int(pegsearch.orbit_sizes(keys, _SYM_TABLE, group)[0])],
                      dtype=np.int64)
    layers = [(keys, counts)]
    size = 1 << 10
    for _ in range(depth):
        while True:
            table_keys = np.full(size, pegsearch.EMPTY_KEY, dtype=np.uint64)
            table_counts = np.zeros(size, dtype=np.int64)
            used = pegsearch.expand_layer(keys, counts, b.jump_from, b.jump_over, b.jump_to,
                                          _SYM_TABLE, group, table_keys, table_counts)
            if used >= 0:
                break
            size *= 2
        full = table_keys != pegsearch.EMPTY_KEY
        order = np.argsort(table_keys[full])
        keys = table_keys[full][order]
        counts = table_counts[full][order]
        del table_keys, table_counts, full, order
        layers.append((keys, counts))
        while size > 4 * max(len(keys), 256):
            size //= 2
        size *= 2
        if progress is not None:
            progress(1)
    return layers


def count_solutions(start: int, goal: int, board_name: str = "english",
                    progress=None) -> PegCount:
    """Exact number of move sequences leading from ``start`` to ``goal``.

    Meets in the middle (see :mod:`~jitgames.puzzles.pegsearch`): forward layers from
    ``start`` and from the complement of ``goal``; for the central game these are
    one search. ``progress(k)`` is called after each layer.
    """
    t0 = time.perf_counter()
    b = board(board_name)
    start = _check_position(b, start, "start")
    goal = _check_position(b, goal, "goal")
    total, sizes = _count(b, start, goal, {}, progress)
    return PegCount(total, sizes, time.perf_counter() - t0)


def _count(b: Board, start: int, goal: int, dual_cache: dict, progress=None):
    """(number of move sequences start -> goal, layer sizes); see count_solutions.

    ``dual_cache`` maps a depth to the layers of the search from ~goal, so counts
    from several starts towards one goal search that side once.
    """
    moves = bin(start).count("1") - bin(goal).count("1")
    if moves < 0 or not same_class(start, goal):
        return 0, ()
    if moves == 0:
        return int(start == goal), (1,)
    half = moves // 2
    dual = b.holes ^ goal
    dual_group = _group(goal)
    if dual == start:  # self-dual (the central game): one search serves both sides
        group = dual_group
        layers = other = _layers(b, start, moves - half, group, progress)
    else:
        group = _group(start, goal)
        if 4 * len(group) <= len(dual_group) and moves >= 8:
            # the forward layers are stored 4+ times less reduced: meet nearer to start
            # (after a first move of the central game, 13 + 17 layers instead of 15 + 15)
            half -= 2
        layers = _layers(b, start, half, group, progress)
        other = dual_cache.get(moves - half)
        if other is None:
            other = _layers(b, dual, moves - half, dual_group, progress)
            dual_cache[moves - half] = other
    keys, counts = layers[half]
    other_keys, other_counts = other[moves - half]
    other_orbit = pegsearch.orbit_sizes(other_keys, _SYM_TABLE, dual_group)
    total, estimate = pegsearch.meet_sum(keys, counts, other_keys, other_counts, other_orbit,
                                         np.uint64(b.holes), _SYM_TABLE, dual_group)
    if estimate >= 2.0 ** 62:
        raise OverflowError("the path count does not fit in 62 bits")
    sizes = tuple(len(k) for k, _ in layers) + (
        () if other is layers else tuple(len(k) for k, _ in other))
    return int(total), sizes


@dataclass(frozen=True)
class FirstMove:
    """One opening move of a problem, and how many winning games continue it."""

    name: str
    position: int
    solutions: int

    @property
    def wins(self) -> bool:
        """True when the goal can still be reached after this move."""
        return self.solutions > 0


def first_moves_iter(start: int, goal: int, board_name: str = "english", progress=None):
    """Every legal first move from ``start`` with its count of winning games, one by one.

    Each count is the number of move sequences from the position after the move to
    ``goal``, computed on its own (no symmetry between first moves is assumed: the
    search from the position after the move uses only the symmetries fixing it), so
    equal counts for symmetric first moves are a check, and their sum is the count
    of the whole problem. The search from ~goal is shared by the moves.
    ``progress(k)`` is called after each layer.
    """
    b = board(board_name)
    start = _check_position(b, start, "start")
    goal = _check_position(b, goal, "goal")
    dual_cache: dict = {}
    for m in legal_moves(b, start):
        after = apply_move(b, start, m)
        total, _ = _count(b, after, goal, dual_cache, progress)
        yield FirstMove(move_name(b, m), after, total)


def first_moves(start: int, goal: int, board_name: str = "english",
                progress=None) -> list[FirstMove]:
    """The list of :func:`first_moves_iter`."""
    return list(first_moves_iter(start, goal, board_name, progress))


def symmetry_classes(start: int, goal: int, positions, board_name: str = "english"):
    """Class numbers (1, 2, ...) of ``positions`` under the symmetries fixing start and
    goal: equal numbers for positions that one of them maps onto another."""
    group = _group(start, goal)
    seen: dict[int, int] = {}
    out = []
    for p in positions:
        key = int(pegsearch.canonical(np.uint64(p), _SYM_TABLE, group))
        out.append(seen.setdefault(key, len(seen) + 1))
    return out
