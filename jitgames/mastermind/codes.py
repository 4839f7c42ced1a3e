"""Codes, feedback and the response matrix of Mastermind with ``pegs`` pegs and ``colours`` colours.

A code is written as ``pegs`` symbols ``1..colours`` (``"1122"``); colours above 9
are written ``A`` (10) to ``Z`` (35) -- a choice docs/design.md leaves open. Internally
a code's *value* is the base-``colours`` integer of its digits minus one, first digit
most significant, so numeric order of values is the order of the written codes.
A :class:`CodeSpace` lists the legal codes in increasing value; kernels address a
code by its *index* in that list (index == value when repeats are allowed).

Feedback ``(black, white)`` is encoded as the small integer ``black * (pegs + 1) +
white``, so ``(pegs + 1) ** 2`` slots exist (some never occur) and the solved answer
is ``pegs * (pegs + 1)``. Codes without repeated digits (``repeats=False``) give the
Bulls-and-Cows family.

The response matrix ``R[g, s] = feedback(guess g, secret s)`` is a uint8 array of
``n * n`` bytes; :func:`matrix_fits` decides whether it is built, else kernels compute
feedback on the fly from the digit and colour-count tables.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from itertools import permutations
from typing import NamedTuple

import numpy as np

from .._bits import popcount
from .._jit import jit, thread_count
from ..errors import InputError

__all__ = [
    "SYMBOLS",
    "CodeSpace",
    "CodeTables",
    "MemoryLimitError",
    "code_space",
    "feedback",
    "pack_codes",
    "packed_codes",
    "encode_feedback",
    "decode_feedback",
    "feedback_slots",
    "response_matrix",
    "matrix_fits",
    "DEFAULT_MATRIX_BYTES",
    "load_game",
]

SYMBOLS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
MAX_PEGS = 14  # (pegs + 1) ** 2 feedback slots must fit in a uint8
MAX_CODES = 1 << 27  # the code tables of a larger space would not fit in memory
DEFAULT_MATRIX_BYTES = 2 << 30  # 2 GiB: 5 x 8 (1 GiB) still gets its matrix


class MemoryLimitError(InputError):
    """The requested size cannot be held in memory; the message gives the bytes needed."""


def feedback_slots(pegs: int) -> int:
    """Number of feedback codes ``(pegs + 1) ** 2`` (including impossible ones)."""
    return (pegs + 1) ** 2


def encode_feedback(black: int, white: int, pegs: int) -> int:
    """Small-integer code of ``(black, white)``."""
    return black * (pegs + 1) + white


def decode_feedback(code: int, pegs: int) -> tuple[int, int]:
    """Inverse of :func:`encode_feedback`."""
    return divmod(int(code), pegs + 1)


@jit
def feedback_digits(digits_a, counts_a, digits_b, counts_b, pegs):
    """Encoded feedback of code a against code b from their digit and colour-count rows.

    ``digits_*`` are the 0-based colours by position, ``counts_*`` how often each
    colour occurs. Symmetric in a and b.
    """
    black = 0
    for i in range(digits_a.shape[0]):
        if digits_a[i] == digits_b[i]:
            black += 1
    common = 0
    for c in range(counts_a.shape[0]):
        common += min(counts_a[c], counts_b[c])
    return black * (pegs + 1) + (common - black)


PACKED_LIMIT = 8
"""Most pegs and most colours of a game whose codes :func:`pack_code` packs (a byte
each in one 64-bit word)."""
_LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)
_HIGH = np.uint64(0x8080808080808080)
_ONES = np.uint64(0x0101010101010101)


@jit(leaf=True)
def pack_code(digits_row, counts_row):
    """``(position word, colour word)`` of one code for :func:`feedback_packed`
    (uint64 each): byte ``i`` of the first holds the colour at position ``i``, byte
    ``c`` of the second how often colour ``c`` occurs, other bytes 0. At most
    :data:`PACKED_LIMIT` pegs and colours."""
    positions = np.uint64(0)
    for i in range(digits_row.shape[0]):
        positions |= np.uint64(digits_row[i]) << np.uint64(8 * i)
    colours = np.uint64(0)
    for c in range(counts_row.shape[0]):
        colours |= np.uint64(counts_row[c]) << np.uint64(8 * c)
    return positions, colours


@jit(leaf=True)
def feedback_packed(positions_a, colours_a, positions_b, colours_b, pegs):
    """:func:`feedback_digits` of two codes packed by :func:`pack_code`, in a fixed
    number of word operations and no memory read.

    Blacks are the zero bytes of ``positions_a ^ positions_b`` among the ``pegs`` low
    bytes; common colours the sum of the byte-wise minimum of the colour words. Every
    byte is below 128, so no carry or borrow crosses from one byte to the next.
    """
    x = np.uint64(positions_a) ^ np.uint64(positions_b)  # (Python passes its ints as int64)
    colours_a, colours_b = np.uint64(colours_a), np.uint64(colours_b)
    zero = ~(((x & _LOW7) + _LOW7) | x | _LOW7)  # 0x80 in each zero byte of x, else 0
    if pegs < 8:
        zero &= (np.uint64(1) << np.uint64(8 * pegs)) - np.uint64(1)
    black = popcount(zero)
    # 0x80 in each byte where a's count >= b's, moved down to 1, spread to 0xFF
    a_not_less = ((((colours_a | _HIGH) - colours_b) & _HIGH) >> np.uint64(7)) * np.uint64(0xFF)
    least = (colours_b & a_not_less) | (colours_a & ~a_not_less)
    common = np.int64((least * _ONES) >> np.uint64(56))
    return black * (pegs + 1) + (common - black)


@jit
def pack_codes(digits, counts, out):
    """``out[i] = pack_code(digits[i], counts[i])`` for every code (``out`` uint64, shape
    ``(codes, 2)``)."""
    for i in range(digits.shape[0]):
        out[i, 0], out[i, 1] = pack_code(digits[i], counts[i])


def packed_codes(space) -> np.ndarray:
    """Every code of ``space`` packed (:func:`pack_codes`), or an array of no rows when
    the game has more than :data:`PACKED_LIMIT` pegs or colours (then answers come from
    the response matrix)."""
    if space.pegs > PACKED_LIMIT or space.colours > PACKED_LIMIT:
        return np.zeros((0, 2), dtype=np.uint64)
    out = np.empty((space.size, 2), dtype=np.uint64)
    pack_codes(space.digits, space.counts, out)
    return out


@jit
def response_matrix_kernel(digits, counts, pegs, out, first):
    """Fill ``out[r, s]`` with the encoded feedback of code ``first + r`` against code s
    (uint8), for the rows of ``out`` (a block of rows of the whole matrix).

    Row by row, with the inner loops running over secrets so they vectorise: blacks
    from position-wise equality, common colours from the colours the guess uses.
    Serial: :func:`response_matrix` runs blocks of rows on threads (the kernel releases
    the GIL), which costs none of the compile time of a ``parallel=True`` kernel.
    """
    n = digits.shape[0]
    colours = counts.shape[1]
    digits_t = np.ascontiguousarray(digits.T)
    counts_t = np.ascontiguousarray(counts.T)
    black = np.empty(n, dtype=np.int8)
    common = np.empty(n, dtype=np.int8)
    for r in range(out.shape[0]):
        g = first + r
        black[:] = 0
        common[:] = 0
        for i in range(pegs):
            d = digits[g, i]
            row = digits_t[i]
            for s in range(n):
                black[s] += row[s] == d
        for c in range(colours):
            m = counts[g, c]
            if m == 0:
                continue
            row = counts_t[c]
            for s in range(n):
                common[s] += min(row[s], m)
        for s in range(n):
            out[r, s] = black[s] * (pegs + 1) + common[s] - black[s]


@jit
def code_tables_kernel(values, pegs, colours, digits, counts):
    """Fill the digit table (0-based colours, first digit most significant) and counts."""
    for i in range(values.shape[0]):
        v = values[i]
        for j in range(pegs - 1, -1, -1):
            d = v % colours
            v //= colours
            digits[i, j] = d
            counts[i, d] += 1


class CodeTables(NamedTuple):
    """The tables a kernel reads feedback from (one argument instead of four).

    Attributes
    ----------
    matrix : ndarray of uint8, shape (n, n) or (0, 0)
        Response matrix, or empty: feedback is then computed from the tables below.
    digits : ndarray of int8, shape (n, pegs)
        0-based colour of each position of each code.
    counts : ndarray of int8, shape (n, colours)
        Number of pegs of each colour of each code.
    pegs : int
        Code length.
    colours : int
        Number of colours (``counts.shape[1]``, carried so no kernel re-derives it).
    repeats : bool
        Whether codes may repeat a colour.
    """

    matrix: np.ndarray
    digits: np.ndarray
    counts: np.ndarray
    pegs: int
    colours: int
    repeats: bool


@dataclass(frozen=True, eq=False)
class CodeSpace:
    """The legal codes of one game size, in increasing value.

    Attributes
    ----------
    pegs, colours : int
        Code length and number of colours.
    repeats : bool
        False restricts codes (and guesses) to codes without a repeated digit.
    values : ndarray of int64
        Code values (base-``colours`` integers), increasing.
    digits : ndarray of int8, shape (n, pegs)
        0-based colour of each position.
    counts : ndarray of int8, shape (n, colours)
        Number of pegs of each colour.
    """

    pegs: int
    colours: int
    repeats: bool
    values: np.ndarray = field(repr=False)
    digits: np.ndarray = field(repr=False)
    counts: np.ndarray = field(repr=False)

    @property
    def size(self) -> int:
        """Number of legal codes."""
        return int(self.values.shape[0])

    @property
    def solved(self) -> int:
        """Encoded feedback of a correct guess."""
        return self.pegs * (self.pegs + 1)

    def format(self, index: int) -> str:
        """Written form of the code at ``index`` (e.g. ``"1122"``)."""
        return "".join(SYMBOLS[d] for d in self.digits[int(index)])

    def parse(self, text: str) -> int:
        """Index of the written code ``text`` (spaces and commas ignored).

        Raises
        ------
        InputError
            With a reason a person can act on, if ``text`` is not a legal code.
        """
        symbols = "".join(ch for ch in str(text) if ch not in " ,\t").upper()
        if len(symbols) != self.pegs:
            raise InputError(f"a code has {self.pegs} digits, got {len(symbols)}")
        digits = []
        for ch in symbols:
            d = SYMBOLS.find(ch)
            if d < 0 or d >= self.colours:
                raise InputError(f"digits go from 1 to {SYMBOLS[self.colours - 1]}, got {ch!r}")
            digits.append(d)
        if not self.repeats and len(set(digits)) != len(digits):
            raise InputError("repeated digits are not allowed in this game")
        value = 0
        for d in digits:
            value = value * self.colours + d
        index = int(np.searchsorted(self.values, value))
        return index

    def tables(self, matrix: np.ndarray) -> CodeTables:
        """The kernels' :class:`CodeTables` of this space with ``matrix`` (or ``(0, 0)``)."""
        return CodeTables(matrix, self.digits, self.counts, self.pegs, self.colours, self.repeats)

    def feedback(self, guess: int, secret: int) -> int:
        """Encoded feedback of the code at index ``guess`` against index ``secret``."""
        return int(feedback_digits(self.digits[guess], self.counts[guess],
                                   self.digits[secret], self.counts[secret], self.pegs))


def _check_size(pegs: int, colours: int) -> None:
    if not 1 <= pegs <= MAX_PEGS:
        raise InputError(f"pegs must be from 1 to {MAX_PEGS}, got {pegs}")
    if not 1 <= colours <= len(SYMBOLS):
        raise InputError(f"colours must be from 1 to {len(SYMBOLS)}, got {colours}")


def count_codes(pegs: int, colours: int, repeats: bool = True) -> int:
    """Number of codes: ``colours ** pegs``, or the falling factorial without repeats."""
    if repeats:
        return colours ** pegs
    n = 1
    for i in range(pegs):
        n *= max(colours - i, 0)
    return n


def code_space(pegs: int, colours: int, repeats: bool = True) -> CodeSpace:
    """Build the :class:`CodeSpace` of a size.

    Raises
    ------
    InputError
        For sizes out of range or with no legal code.
    MemoryLimitError
        If the code tables alone would not fit (message gives the bytes needed).
    """
    _check_size(pegs, colours)
    n = count_codes(pegs, colours, repeats)
    if n == 0:
        raise InputError(f"no code of {pegs} digits from {colours} colours without repeats")
    if n > MAX_CODES:
        need = n * (pegs + colours + 8 + 16)
        raise MemoryLimitError(
            f"{n} codes of {pegs} pegs and {colours} colours need about {need:,} bytes "
            f"of tables (limit {MAX_CODES:,} codes)")
    if repeats:
        values = np.arange(n, dtype=np.int64)
    else:
        values = np.array(sorted(
            sum(d * colours ** (pegs - 1 - j) for j, d in enumerate(p))
            for p in permutations(range(colours), pegs)), dtype=np.int64)
    digits = np.zeros((n, pegs), dtype=np.int8)
    counts = np.zeros((n, colours), dtype=np.int8)
    code_tables_kernel(values, pegs, colours, digits, counts)
    return CodeSpace(pegs, colours, repeats, values, digits, counts)


def feedback(guess: str, secret: str, pegs: int | None = None,
             colours: int = len(SYMBOLS)) -> tuple[int, int]:
    """``(black, white)`` of a written guess against a written secret.

    >>> feedback("1123", "4221")
    (1, 1)
    """
    pegs = len(guess) if pegs is None else pegs
    if len(guess) != pegs or len(secret) != pegs:
        raise InputError("guess and secret must both have length pegs")
    black = sum(a == b for a, b in zip(guess, secret))
    common = sum(min(guess.count(c), secret.count(c)) for c in set(guess))
    return black, common - black


def matrix_fits(space: CodeSpace, max_bytes: int = DEFAULT_MATRIX_BYTES) -> bool:
    """Whether the ``n * n``-byte response matrix is within ``max_bytes``."""
    return space.size * space.size <= max_bytes


def response_matrix(space: CodeSpace, max_bytes: int = DEFAULT_MATRIX_BYTES) -> np.ndarray:
    """The uint8 response matrix ``R[g, s]`` of a code space.

    Raises
    ------
    MemoryLimitError
        If it would take more than ``max_bytes`` (message gives the bytes needed).
    """
    need = space.size * space.size
    if need > max_bytes:
        raise MemoryLimitError(
            f"the response matrix of {space.size} codes needs {need:,} bytes, "
            f"more than the limit of {max_bytes:,}")
    try:
        out = np.empty((space.size, space.size), dtype=np.uint8)
    except MemoryError:  # a --max-matrix-bytes beyond this machine's memory
        raise MemoryLimitError(
            f"the response matrix of {space.size} codes needs {need:,} bytes, more than "
            f"this machine can allocate; lower --max-matrix-bytes") from None
    _fill_rows_on_threads(space, out)
    return out


MATRIX_ROWS_PER_BLOCK = 256  # rows of the response matrix one kernel call fills


def _fill_rows_on_threads(space: CodeSpace, out: np.ndarray) -> None:
    """Fill the response matrix ``out`` by blocks of rows on the threads of
    :func:`jitgames._jit.thread_count` (the serial kernel releases the GIL)."""
    blocks = range(0, space.size, MATRIX_ROWS_PER_BLOCK)

    def fill(first):
        response_matrix_kernel(space.digits, space.counts, space.pegs,
                               out[first:first + MATRIX_ROWS_PER_BLOCK], first)

    workers = min(thread_count(), len(blocks))
    if workers <= 1:
        for first in blocks:
            fill(first)
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(fill, blocks))


@lru_cache(maxsize=2)
def load_game(pegs: int, colours: int, repeats: bool = True,
              max_matrix_bytes: int = DEFAULT_MATRIX_BYTES) -> tuple[CodeSpace, np.ndarray]:
    """The code space of a game and its response matrix (``(0, 0)`` when it would exceed
    ``max_matrix_bytes``: feedback is then computed on the fly), cached per process for
    the strategies, the optimal search and play alike."""
    space = code_space(pegs, colours, repeats)
    if matrix_fits(space, max_matrix_bytes):
        return space, response_matrix(space, max_matrix_bytes)
    return space, np.zeros((0, 0), dtype=np.uint8)
