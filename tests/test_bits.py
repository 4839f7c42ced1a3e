"""The shared bit count (jitgames/_bits.py) against its twin."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

from jitgames._bits import popcount
from tests.reference import bits as ref


@pytest.mark.kernel
@given(st.integers(0, 2 ** 64 - 1))
def test_popcount_matches_reference(x):
    assert popcount(np.uint64(x)) == ref.popcount(x)


@pytest.mark.kernel
def test_popcount_extremes():
    assert [popcount(np.uint64(x)) for x in (0, 1, 2 ** 63, 2 ** 64 - 1)] == [0, 1, 1, 64]
