"""The bound's predicate "card x must leave before the target below it", against its twin.

Random play seldom reaches the positions where the bound asks it (a card that has
already moved, lying above a target of its suit it must leave first), so it is
checked here directly over every pair of cards and random target sets.
"""
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jitgames.solitaire.bound import _must_leave
from tests.reference import solitaire as ref


@pytest.mark.kernel
@given(st.integers(0, 2**52 - 1))
def test_must_leave_matches_reference_for_every_pair(targets):
    for x in range(52):
        for below in range(52):
            if x != below:
                assert bool(_must_leave(targets, x, below)) == ref._must_leave(targets, x, below)
