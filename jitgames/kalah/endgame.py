"""Endgame database of Kalah: exact values of every position with few stones in play.

Stones that reach a store never come back into play, so the value of the rest of
the game depends only on the pits, not on the stores. The database stores, for
every distribution of at most ``S`` stones over the ``2m`` pits with the player to
move seen as South, the value ``v`` = (stones the player to move will still gain) -
(stones the opponent will still gain) under perfect play. South's final margin from
a position is then ``store_S - store_N + v`` (``v`` with South to move).

Index: pits are read in mover-relative order (the mover's ``m`` pits, then the
opponent's ``m``); a distribution ``a`` of ``s`` stones gets
``C(s + 2m - 1, 2m) + rank(a)`` where ``rank`` is the combinatorial-number-system
rank of the stars-and-bars bar positions ``p_j = a_0 + .. + a_j + j``. Indices of
all distributions with at most ``S`` stones are exactly ``0 .. C(S + 2m, 2m) - 1``.

Building (choice left open by docs/design.md): a memoised full-width search over the
positions, level by level (stones in play), each level split among threads and into
kernel calls of at most ``SLICE`` positions; Ctrl-C stops a call within moments (its
stop flag, :mod:`jitgames._interrupt`). Every
child has at most as many stones in play, so it is in the table; the recursion
terminates because a move either takes stones out of play or moves stones of one
side towards its own store. Values are int8; ``UNKNOWN = -128`` marks an entry not
yet computed. Unranking each position (``set_position``) is about 10-15% of the build.

On disk (:func:`endgame_database`): one file per (m, variant, S), written atomically
with a header holding its schema version and SHA-256 (:func:`jitgames._store.write_checked`;
format in ``docs/storage.md``). Before a file is used, its checksum and every invariant
of the entries are checked (:func:`check_entries`: int8, exact length, and for a
position of ``s`` stones in play ``|v| <= s`` and ``v = s (mod 2)``, since the two
players' gains add up to ``s``), and a random sample of entries is re-derived from
their children (:func:`check_sample`: a forged table with a recomputed checksum is
caught); a file that fails is rebuilt, and stderr says so. A table that cannot be
saved (full disk) is used from memory, with one line on stderr.
m = 6, 20 stones: 225.8M entries, 226 MB, built in about 4 minutes on this 2-core
machine.

Numba note: recursive kernels are called with non-literal int64 arguments only
(``np.int64(0)``, not ``0``). A second, literal-typed overload of a recursive
function crashes when loaded back from Numba's on-disk cache.
"""
from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import numpy as np

from .._store import StoreError, read_checked, write_checked
from .._interrupt import run_interruptible, stop_flag, stop_requested
from .._jit import jit, prange
from .rules import (SOUTH, VARIANTS, apply_move, legal_moves, pits_per_side, side_stones,
                    store_of, undo_move)

UNKNOWN = -128


def binomials(top: int, width: int | None = None) -> np.ndarray:
    """Table ``C[n, k]`` (int64) for ``0 <= n <= top`` and ``0 <= k <= width``
    (default ``width = top``).

    The index of a board with ``m`` pits a side reads only ``k <= 2m``, so callers
    pass ``width = 2m + 1``: the full square would overflow int64 for large ``top``.
    """
    width = top if width is None else min(width, top)
    table = np.zeros((top + 1, width + 1), dtype=np.int64)
    for n in range(top + 1):
        table[n, 0] = 1
        for k in range(1, min(n, width) + 1):
            table[n, k] = table[n - 1, k - 1] + table[n - 1, k]
    return table


def table_size(m: int, stones: int) -> int:
    """Entries of the database of Kalah with ``m`` pits a side and at most ``stones``."""
    return int(binomials(stones + 2 * m, 2 * m)[stones + 2 * m, 2 * m])


@jit
def relative_pit(m, player, j):
    """Board index of the ``j``-th pit in ``player``-relative order (own pits first)."""
    if player == SOUTH:
        return j if j < m else j + 1
    return m + 1 + j if j < m else j - m


@jit
def position_index(board, player, binom):
    """Database index of the pits of ``board`` with ``player`` to move."""
    m = pits_per_side(board)
    k = 2 * m
    prefix = np.int64(0)
    rank = np.int64(0)
    for j in range(k - 1):
        prefix += board[relative_pit(m, player, j)]
        rank += binom[prefix + j, j + 1]
    total = prefix + board[relative_pit(m, player, k - 1)]
    return binom[total + k - 1, k] + rank


@jit
def endgame_value(board, player, variant, db, binom, scratch, ply):
    """Value of the pits of ``board`` for ``player`` to move, memoised in ``db``.

    All positions reached must have at most as many stones as the table covers.
    ``scratch`` (int64, one row of ``m`` per recursion level) holds move lists.
    """
    index = position_index(board, player, binom)
    known = db[index]
    if known != UNKNOWN:
        return np.int64(known)
    own = side_stones(board, player)
    other = side_stones(board, 1 - player)
    if own == 0 or other == 0:
        value = np.int64(own - other)
    else:
        m = pits_per_side(board)
        store = store_of(m, player)
        moves = scratch[ply]
        n = legal_moves(board, player, moves)
        value = np.int64(-1000)
        for i in range(n):
            before = board[store]
            nxt, record = apply_move(board, player, moves[i], variant)
            gain = np.int64(board[store] - before)
            child = endgame_value(board, nxt, variant, db, binom, scratch, ply + 1)
            undo_move(board, player, record)
            v = gain + child if nxt == player else gain - child
            if v > value:
                value = v
    db[index] = value
    return value


@jit
def set_position(board, player, stones, rank, binom):
    """Inverse of :func:`position_index` within one level: write to the pits of
    ``board`` (``player``-relative order) the distribution of ``stones`` stones whose
    rank among distributions of that many stones is ``rank``."""
    m = pits_per_side(board)
    k = 2 * m
    top = stones + k - 2            # bar positions lie in 0 .. top
    previous = top + 1
    # greedy combinatorial number system, largest bar first
    for j in range(k - 2, -1, -1):
        p = previous - 1
        while binom[p, j + 1] > rank:
            p -= 1
        rank -= binom[p, j + 1]
        board[relative_pit(m, player, j + 1)] = previous - p - 1 if j < k - 2 else top - p
        previous = p
    board[relative_pit(m, player, 0)] = previous


@jit(parallel=True)
def build_positions(m, level, start, stop, variant, db, binom, halt):
    """Compute the entries of ranks ``start .. stop - 1`` of ``level`` (stones in play).

    All lower levels must be complete. Chunks of positions are shared among threads
    (``prange``); a position's value may recurse into other positions of the same
    level. Two threads may compute the same entry at once; both write the same exact
    value, so the table does not depend on the thread count. Chunks not begun when
    ``halt[0]`` is set (Ctrl-C, :mod:`jitgames._interrupt`) are skipped: the entries
    written are exact, but the range is then incomplete.
    """
    k = 2 * m
    first = binom[level + k - 1, k]
    rows = level * level * m + level * m + level + 4
    chunk = 4096
    chunks = (stop - start + chunk - 1) // chunk
    for c in prange(chunks):
        if stop_requested(halt):
            continue
        board = np.zeros(k + 2, dtype=np.int8)
        scratch = np.zeros((rows, m), dtype=np.int64)
        for rank in range(start + c * chunk, min(stop, start + (c + 1) * chunk)):
            if db[first + rank] == UNKNOWN:
                set_position(board, SOUTH, level, rank, binom)
                endgame_value(board, np.int64(SOUTH), variant, db, binom, scratch,
                              np.int64(0))


SLICE = 1 << 20     # positions per kernel call: progress is reported between calls


def build_endgame(m: int, stones: int, variant: int, db: np.ndarray, binom: np.ndarray,
                  first_level: int = 0, on_slice=None) -> int:
    """Fill ``db`` (int8, ``C(stones + 2m, 2m)`` entries) with every position's value.

    Levels (stones in play) ``first_level .. stones`` are computed in increasing
    order, each in slices of at most :data:`SLICE` positions; the entries of the
    levels below ``first_level`` must already hold their values (a smaller
    database extended). ``on_slice(positions)`` is called after each slice (progress).
    Returns the number of entries.
    """
    k = 2 * m
    db[int(binom[first_level + k - 1, k]):] = UNKNOWN

    def build_slice(level, start, stop):
        halt = stop_flag()  # of the helper thread run_interruptible runs this in
        build_positions(m, level, start, stop, variant, db, binom, halt)
        if halt[0]:
            raise KeyboardInterrupt

    for level in range(first_level, stones + 1):
        size = int(binom[level + k - 1, k - 1])
        for start in range(0, size, SLICE):
            stop = min(size, start + SLICE)
            run_interruptible(lambda: build_slice(level, start, stop))
            if on_slice is not None:
                on_slice(stop - start)
    return db.shape[0]


# ---------------------------------------------------------------------------------
# Databases kept on disk: one .npy file per (m, variant, stones). The entries of a
# database with at most S stones are the first C(S + 2m, 2m) entries of any larger
# one, so a file serves every smaller request and is extended by building only the
# levels above it.

TABLE_KIND = "jitgames-kalah-endgame"
TABLE_SCHEMA = 1
"""Version of the table file's payload (a ``.npy`` int8 array behind the header)."""


def database_file(directory, m: int, variant: int, stones: int) -> Path:
    """Path of the on-disk database of ``m`` pits a side, ``variant``, ``<= stones``."""
    name = {v: k for k, v in VARIANTS.items()}[variant]
    return Path(directory) / f"kalah-endgame-{m}pits-{name}-{stones}stones.table"


def check_entries(db: np.ndarray, m: int, stones: int) -> None:
    """Raise ValueError unless ``db`` can be the database of ``m`` pits a side and at
    most ``stones`` stones in play: int8, ``table_size(m, stones)`` entries, and each
    entry of level ``s`` (stones in play) within ``[-s, s]`` with the parity of ``s``."""
    if db.dtype != np.int8 or db.shape != (table_size(m, stones),):
        raise ValueError(f"{db.dtype} array of shape {db.shape}, not int8 of "
                         f"{table_size(m, stones)} entries")
    binom = binomials(stones + 2 * m, 2 * m)
    k = 2 * m
    for level in range(stones + 1):
        values = db[binom[level + k - 1, k]:binom[level + k, k]]
        magnitude = np.abs(values.astype(np.int16))
        if magnitude.max(initial=0) > level or ((magnitude - level) % 2).any():
            raise ValueError(f"impossible values among the positions of {level} stones")


SAMPLE = 400
"""Entries of a table file re-derived from their children when it is loaded."""


def check_sample(db: np.ndarray, m: int, variant: int, stones: int, samples: int = SAMPLE,
                 rng: np.random.Generator | None = None) -> None:
    """Raise ValueError unless ``samples`` entries of ``db``, drawn at random (a fresh,
    unpredictable draw by default), equal the value their children give them.

    The meaning check of a loaded table (the checksum only proves the bytes are as
    written, and a forger can recompute it): a position with one side empty must hold
    ``own - other``; any other must hold the best over its moves of ``gain + child``
    (another move by the same player) or ``gain - child``, exactly as
    :func:`endgame_value` defines it. A negated, shuffled or otherwise rewritten table
    fails at the first few entries; a table with a handful of wrong entries may pass
    (``docs/storage.md``). Costs about 25 ms for 400 entries (Python calls of the kernels).
    """
    if db.size == 0:
        return
    rng = np.random.default_rng() if rng is None else rng
    k = 2 * m
    binom = binomials(stones + k, k)
    starts = np.array([binom[level + k - 1, k] for level in range(stones + 1)] + [db.size])
    board = np.zeros(k + 2, dtype=np.int8)
    moves = np.zeros(m, dtype=np.int64)
    store = store_of(m, SOUTH)
    for index in rng.integers(0, db.size, size=samples):
        level = int(np.searchsorted(starts, index, side="right")) - 1
        board[:] = 0
        set_position(board, SOUTH, level, int(index - starts[level]), binom)
        own, other = int(side_stones(board, SOUTH)), int(side_stones(board, 1 - SOUTH))
        if own == 0 or other == 0:
            expected = own - other
        else:
            expected = -1000
            for i in range(int(legal_moves(board, SOUTH, moves))):
                before = int(board[store])
                nxt, record = apply_move(board, SOUTH, moves[i], variant)
                gain = int(board[store]) - before
                child = int(db[position_index(board, nxt, binom)])
                undo_move(board, SOUTH, record)
                expected = max(expected, gain + child if nxt == SOUTH else gain - child)
        if int(db[index]) != expected:
            raise ValueError(f"entry {int(index)} holds {int(db[index])} where its children "
                             f"give {expected}: the table was altered")


def _files_on_disk(directory, m: int, variant: int) -> dict[int, Path]:
    """``{stones: path}`` of the database files present for ``m`` and ``variant``."""
    pattern = re.compile(re.escape(database_file(directory, m, variant, 0).name)
                         .replace("0stones", r"(\d+)stones") + "$")
    found = {}
    if Path(directory).is_dir():
        for path in Path(directory).iterdir():
            match = pattern.match(path.name)
            if match:
                found[int(match.group(1))] = path
    return found


def _read(path: Path, m: int, variant: int, file_stones: int,
          stones: int) -> np.ndarray | None:
    """The first ``table_size(m, stones)`` entries of a database file, or None (and a
    line on stderr) when it is not a regular file, or its checksum, entries
    (:func:`check_entries`) or a sample of their meaning (:func:`check_sample`) fail."""
    try:
        payload = read_checked(path, TABLE_KIND, TABLE_SCHEMA, "endgame table")
        try:
            data = np.load(io.BytesIO(payload), allow_pickle=False)
            check_entries(data, m, file_stones)
            check_sample(data, m, variant, file_stones)
        except (ValueError, OverflowError, EOFError) as exc:
            raise StoreError(f"endgame table {path}: {exc}") from None
    except StoreError as exc:
        print(f"jitgames: {exc}; building it again", file=sys.stderr)
        return None
    return np.array(data[:table_size(m, stones)])


def _write(directory, m: int, variant: int, stones: int, db: np.ndarray) -> None:
    """Save ``db`` atomically and remove the smaller files it supersedes.

    A table that cannot be saved (a full disk, a FIFO or device in its place) costs
    only the next run's time: one line on stderr says so, and the solve goes on with
    the table in memory."""
    buffer = io.BytesIO()
    np.save(buffer, db, allow_pickle=False)
    try:
        write_checked(database_file(directory, m, variant, stones), TABLE_KIND,
                      TABLE_SCHEMA, buffer.getvalue())
    except StoreError as exc:
        print(f"jitgames: endgame table not saved: {exc}; it is used in memory this time",
              file=sys.stderr)
        return
    for smaller, path in _files_on_disk(directory, m, variant).items():
        if smaller < stones:
            path.unlink(missing_ok=True)


def endgame_database(m: int, stones: int, variant: int, binom: np.ndarray, directory=None,
                     on_slice=None) -> tuple[np.ndarray, str]:
    """The database of ``m`` pits a side with at most ``stones`` stones in play.

    With a ``directory``, a file there holding at least ``stones`` stones is read
    (``"loaded"``); otherwise the largest smaller file is extended, or a new table is
    built, and the result is saved there atomically (``"extended"``, ``"built"``).
    Ctrl-C during the build saves the levels finished so far before re-raising.
    Without a directory the table is built in memory. Returns ``(db, how)``.
    """
    files = _files_on_disk(directory, m, variant) if directory is not None else {}
    for file_stones in sorted(s for s in files if s >= stones):
        db = _read(files[file_stones], m, variant, file_stones, stones)
        if db is not None:
            return db, "loaded"
    db = np.empty(table_size(m, stones), dtype=np.int8)
    done = -1
    for file_stones in sorted((s for s in files if s < stones), reverse=True):
        known = _read(files[file_stones], m, variant, file_stones, file_stones)
        if known is not None:
            db[:known.size] = known
            done = file_stones
            break
    saved = done
    how = "extended" if done >= 0 else "built"
    try:
        for level in range(done + 1, stones + 1):
            build_endgame(m, level, variant, db[:table_size(m, level)], binom,
                          first_level=level, on_slice=on_slice)
            done = level
    except KeyboardInterrupt:
        if directory is not None and done > saved:
            _write(directory, m, variant, done, db[:table_size(m, done)])
        raise
    if directory is not None:
        _write(directory, m, variant, stones, db)
    return db, how
