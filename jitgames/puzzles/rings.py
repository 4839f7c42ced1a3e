"""Chinese rings (baguenaudier): putting n rings on, and taking them off.

A position is an int whose bit k-1 is set when ring k is on (ring 1 is the one
that may always move). Ring k > 1 may be put on or taken off only when ring k-1
is on and rings 1..k-2 are off. A move is ``(ring, on)`` with ``on`` True for
putting the ring on.

Choices docs/design.md leaves open: positions are plain Python ints (n is unbounded);
the "Gray-code view" uses the binary reflected Gray code ``k ^ (k >> 1)``, which is
the position after k moves of PUT_ON (for every n with k <= moves(n)).
"""
from __future__ import annotations

from ..errors import InputError

__all__ = [
    "move_count",
    "legal",
    "put_on_recursive",
    "take_off_recursive",
    "solve_iterative",
    "position_after",
    "replay",
    "draw",
]


def _check(n):
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError("n must be an integer")
    if n < 0:
        raise InputError(f"n must be at least 0, got {n}")
    return n


def move_count(n: int) -> int:
    """Moves of PUT_ON(n) and of TAKE_OFF(n): floor(2**(n+1) / 3) (OEIS A000975)."""
    return 2 ** (_check(n) + 1) // 3


def legal(position: int, ring: int) -> bool:
    """True if ``ring`` may be moved (on or off) in ``position``."""
    if ring == 1:
        return True
    below = (1 << (ring - 2)) - 1  # rings 1..k-2
    return bool(position >> (ring - 2) & 1) and not position & below


def _recursive(n: int, putting_on: bool) -> list[tuple[int, bool]]:
    """The two mutually recursive procedures; returns PUT_ON(n) or TAKE_OFF(n)."""
    _check(n)
    out: list[tuple[int, bool]] = []

    def put_on(k):
        if k <= 0:
            return
        if k == 1:
            out.append((1, True))
            return
        put_on(k - 1)
        take_off(k - 2)
        out.append((k, True))
        put_on(k - 2)

    def take_off(k):
        if k <= 0:
            return
        if k == 1:
            out.append((1, False))
            return
        take_off(k - 2)
        out.append((k, False))
        put_on(k - 2)
        take_off(k - 1)

    (put_on if putting_on else take_off)(n)
    return out


def put_on_recursive(n: int) -> list[tuple[int, bool]]:
    """PUT_ON(n) = PUT_ON(n-1); TAKE_OFF(n-2); put n on; PUT_ON(n-2)."""
    return _recursive(n, True)


def take_off_recursive(n: int) -> list[tuple[int, bool]]:
    """TAKE_OFF(n) = TAKE_OFF(n-2); take n off; PUT_ON(n-2); TAKE_OFF(n-1)."""
    return _recursive(n, False)


def solve_iterative(n: int, put_on: bool = True) -> list[tuple[int, bool]]:
    """PUT_ON(n) or TAKE_OFF(n) without recursion: every other move is forced.

    Only two moves are ever legal: ring 1, or the ring just above the lowest ring
    that is on. The solution alternates between them; it starts with ring 1 when
    putting on, and when taking off an odd number of rings.
    """
    _check(n)
    position = 0 if put_on else (1 << n) - 1
    target = (1 << n) - 1 if put_on else 0
    ring_one_next = put_on or n % 2 == 1
    out = []
    while position != target:
        if ring_one_next:
            ring = 1
        else:
            lowest = (position & -position).bit_length()
            ring = lowest + 1
        position ^= 1 << (ring - 1)
        out.append((ring, bool(position >> (ring - 1) & 1)))
        ring_one_next = not ring_one_next
    return out


def position_after(n: int, k: int, put_on: bool = True) -> int:
    """Position after k moves of PUT_ON(n) (or TAKE_OFF(n)), without the others.

    PUT_ON visits the Gray codes 0, 1, 3, 2, 6, 7, 5, ... in order; TAKE_OFF visits
    them backwards from moves(n) (whose Gray code is the full position).
    """
    total = move_count(n)
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= total:
        raise InputError(f"k must be an integer from 0 to {total}")
    index = k if put_on else total - k
    return index ^ (index >> 1)


def replay(n: int, moves, put_on: bool = True) -> list[int]:
    """Positions visited by ``moves``; InputError at the first illegal move."""
    position = 0 if put_on else (1 << _check(n)) - 1
    out = [position]
    for i, (ring, on) in enumerate(moves, 1):
        if not 1 <= ring <= n or not legal(position, ring):
            raise InputError(f"move {i}: ring {ring} cannot move")
        if bool(position >> (ring - 1) & 1) == on:
            raise InputError(f"move {i}: ring {ring} is already {'on' if on else 'off'}")
        position ^= 1 << (ring - 1)
        out.append(position)
    return out


def draw(n: int, position: int) -> str:
    """Rings 1..n left to right: ``O`` on, ``-`` off."""
    return "".join("O" if position >> k & 1 else "-" for k in range(n))
