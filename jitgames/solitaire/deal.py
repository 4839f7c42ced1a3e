"""Dealing: reproducible shuffles, deal validation, deal files, and the naive shuffle's bias.

Deal ``i`` of seed ``s`` is shuffled from the counter-based stream
``stream_key(s, i)`` of :mod:`jitgames._random`, so it is the same on any number of
threads or machines.

Shuffles
--------
``"fisher-yates"`` (Knuth's Algorithm P): for ``i = 51 .. 1`` swap ``deck[i]`` with
``deck[j]``, ``j`` uniform in ``0..i``; every permutation has probability 1/52!.

``"naive"``: the classic textbook mistake, swap ``deck[i]`` with ``deck[j]``, ``j``
uniform in ``0..51``, for every ``i``. It has 52**52 equally likely paths, which
52! does not divide, so some permutations are more likely than others;
:func:`shuffle_bias` measures it with a chi-square test on card positions.

The chi-square p-value uses the Wilson-Hilferty normal approximation of the
chi-square distribution (accurate to about three significant digits for the
2601 degrees of freedom used here), to avoid a dependency on SciPy.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .._jit import jit, prange
from .._random import below, stream_key

SHUFFLES = ("fisher-yates", "naive")


@jit
def fisher_yates_deck(key, deck):
    """Fill ``deck`` (52 int64) with a uniform permutation drawn from stream ``key``."""
    for i in range(52):
        deck[i] = i
    counter = 0
    for i in range(51, 0, -1):
        j, counter = below(key, counter, i + 1)
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t


@jit
def naive_deck(key, deck):
    """Fill ``deck`` with the biased "swap each card with any card" shuffle of stream ``key``."""
    for i in range(52):
        deck[i] = i
    counter = 0
    for i in range(52):
        j, counter = below(key, counter, 52)
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t


@jit
def fisher_yates_range(seed, start, out):
    """Fill row ``k`` of ``out`` (n x 52 int64) with Fisher-Yates deal ``start + k`` of
    ``seed``. Serial: a deal takes about a microsecond, a thousandth of its solving,
    and a parallel loop would cost seconds of compiling on first use."""
    for k in range(out.shape[0]):
        fisher_yates_deck(stream_key(seed, start + k), out[k])


@jit
def naive_range(seed, start, out):
    """Fill row ``k`` of ``out`` (n x 52 int64) with deal ``start + k`` of ``seed`` under
    the text's biased shuffle (:func:`naive_deck`)."""
    for k in range(out.shape[0]):
        naive_deck(stream_key(seed, start + k), out[k])


def deal_range(seed, start, naive: bool, out) -> None:
    """Fill row ``k`` of ``out`` (n x 52 int64) with deal ``start + k`` of ``seed``
    (``seed``, ``start``: uint64), by the biased shuffle when ``naive``. Each shuffle
    has its own kernel, so a run compiles only the one it uses."""
    (naive_range if naive else fisher_yates_range)(seed, start, out)


def deals(seed: int, start: int, stop: int, shuffle: str = "fisher-yates") -> np.ndarray:
    """Deals ``start .. stop - 1`` of ``seed`` as an (n, 52) int64 array.

    Raises
    ------
    InputError
        On a seed or start outside 0..2**64 - 1, ``stop < start``, ``stop > 2**64`` or
        an unknown shuffle name.
    """
    if shuffle not in SHUFFLES:
        raise InputError(f"unknown shuffle {shuffle!r}; choose from {', '.join(SHUFFLES)}")
    if not (0 <= seed < 2**64 and 0 <= start <= stop <= 2**64):
        raise InputError(f"need 0 <= seed < 2**64 and 0 <= start <= stop <= 2**64; "
                         f"got {seed}, {start}, {stop}")
    out = np.empty((stop - start, 52), dtype=np.int64)
    deal_range(np.uint64(seed), np.uint64(start), shuffle == "naive", out)
    return out


def validate_deals(deals_in, what: str = "deal") -> np.ndarray:
    """Check an (n, 52) array of deals; return it as a C-contiguous int64 array.

    Raises
    ------
    InputError
        Naming the first bad row (``"{what} 3: ..."``, counting from 1) when a row is
        not a permutation of 0..51, or when the shape is wrong.
    """
    array = np.asarray(deals_in)
    if array.ndim == 1 and array.size == 52:
        array = array.reshape(1, 52)
    if array.ndim != 2 or array.shape[1] != 52:
        raise InputError(f"deals must be an (n, 52) array, got shape {array.shape}")
    if array.size and not np.issubdtype(array.dtype, np.integer):
        raise InputError(f"deals must be integers, got {array.dtype}")
    array = np.ascontiguousarray(array, dtype=np.int64)
    for row, deck in enumerate(array, start=1):
        problem = _deck_problem(deck)
        if problem:
            raise InputError(f"{what} {row}: {problem}")
    return array


def _deck_problem(deck) -> str | None:
    if len(deck) != 52:
        return f"expected 52 cards, got {len(deck)}"
    bad = [int(c) for c in deck if not 0 <= c < 52]
    if bad:
        return f"card {bad[0]} is out of range 0..51"
    counts = np.bincount(np.asarray(deck, dtype=np.int64), minlength=52)
    if counts.max() > 1:
        return f"card {int(np.argmax(counts))} appears {int(counts.max())} times"
    return None


DEAL_FILE_LIMIT = 1 << 30
"""Largest deal file read (bytes): about 6 million deals; a FIFO or device
(``/dev/zero``) is refused, never read."""


def read_deal_file(path) -> np.ndarray:
    """Read a deal file: one deal a line, 52 integers separated by spaces or commas.

    Blank lines and lines starting with ``#`` are skipped. The file must be a regular
    file of at most :data:`DEAL_FILE_LIMIT` bytes.

    Raises
    ------
    InputError
        If the file cannot be read, or naming the line of the first bad deal.
    """
    from .._store import read_limited

    data = read_limited(path, "deal file", DEAL_FILE_LIMIT)  # a regular file, bounded
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"cannot read deal file {path}: not UTF-8 text (byte {exc.start})"
                         ) from None
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.replace(",", " ").split()
        try:
            deck = [int(f) for f in fields]
        except ValueError:
            raise InputError(f"{path} line {number}: not a list of integers") from None
        problem = _deck_problem(deck)
        if problem:
            raise InputError(f"{path} line {number}: {problem}")
        rows.append(deck)
    if not rows:
        raise InputError(f"{path}: no deals found")
    return np.array(rows, dtype=np.int64)


@jit(parallel=True)
def position_counts(seed, n, naive, counts):
    """Add to ``counts[card, position]`` (52 x 52 int64) the first ``n`` deals of ``seed``.

    Work is split into 64 blocks, each with its own count matrix, summed at the end.
    """
    blocks = 64
    partial = np.zeros((blocks, 52, 52), dtype=np.int64)
    for b in prange(blocks):
        deck = np.empty(52, dtype=np.int64)
        for i in range(b, n, blocks):
            key = stream_key(seed, i)
            if naive:
                naive_deck(key, deck)
            else:
                fisher_yates_deck(key, deck)
            for position in range(52):
                partial[b, deck[position], position] += 1
    for b in range(blocks):
        counts += partial[b]


@dataclass(frozen=True)
class ShuffleBias:
    """Chi-square test of uniform card positions for ``deals`` shuffles.

    ``statistic`` is sum over the 52 x 52 (card, position) cells of
    (observed - expected)**2 / expected with expected = deals / 52;
    ``dof`` = 51 * 51; ``p_value`` its upper tail (Wilson-Hilferty);
    ``worst`` = (card, position, observed / expected) of the most deviant cell.
    """

    shuffle: str
    deals: int
    statistic: float
    dof: int
    p_value: float
    worst: tuple[int, int, float]


def chi_square_tail(statistic: float, dof: int) -> float:
    """P(X >= statistic) for X chi-square with ``dof`` degrees (Wilson-Hilferty)."""
    z = ((statistic / dof) ** (1 / 3) - (1 - 2 / (9 * dof))) / math.sqrt(2 / (9 * dof))
    return 0.5 * math.erfc(z / math.sqrt(2))


def shuffle_bias(n: int, shuffle: str = "naive", seed: int = 0) -> ShuffleBias:
    """Chi-square test of the positions of the cards in ``n`` shuffles of ``seed``."""
    if shuffle not in SHUFFLES:
        raise InputError(f"unknown shuffle {shuffle!r}; choose from {', '.join(SHUFFLES)}")
    if n < 52:
        raise InputError(f"need at least 52 shuffles for the test, got {n}")
    if not 0 <= seed < 2**64:
        raise InputError(f"need 0 <= seed < 2**64, got {seed}")
    counts = np.zeros((52, 52), dtype=np.int64)
    position_counts(np.uint64(seed), n, shuffle == "naive", counts)
    expected = n / 52
    cells = (counts - expected) ** 2 / expected
    card, position = np.unravel_index(int(np.argmax(np.abs(counts - expected))), counts.shape)
    statistic = float(cells.sum())
    dof = 51 * 51
    return ShuffleBias(shuffle, n, statistic, dof, chi_square_tail(statistic, dof),
                       (int(card), int(position), float(counts[card, position] / expected)))
