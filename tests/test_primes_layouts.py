"""Layouts: kernels against step-by-step walks, and inverse(forward(k)) == k."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jitgames.primes import layouts
from tests.reference import primes as ref

small = st.integers(0, 400)
any_index = st.integers(0, layouts.MAX_INDEX - 1)


@pytest.mark.kernel
@given(small)
def test_spiral_point_matches_walk(k):
    assert tuple(layouts.spiral_point(k)) == ref.spiral_point(k)


@pytest.mark.kernel
@given(small)
def test_triangle_point_matches_reference(k):
    assert tuple(layouts.triangle_point(k)) == ref.triangle_point(k)


@pytest.mark.kernel
@given(st.integers(-6, 6), st.integers(-6, 6))
def test_spiral_index_matches_walk(x, y):
    assert layouts.spiral_index(x, y) == ref.spiral_index(x, y)


@pytest.mark.kernel
@given(st.integers(-3, 12), st.integers(-3, 12))
def test_triangle_index_matches_reference(x, y):
    assert layouts.triangle_index(x, y) == ref.triangle_index(x, y)


@pytest.mark.kernel
@given(st.lists(small, max_size=10))
def test_points_match_reference(ks):
    array = np.array(ks, dtype=np.int64)
    for ours, theirs in ((layouts.spiral_points, ref.spiral_points),
                         (layouts.triangle_points, ref.triangle_points)):
        got, want = ours(array), theirs(array)
        assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()


@pytest.mark.kernel
@given(st.integers(-5, 5), st.integers(-5, 5), st.integers(1, 5), st.integers(1, 5))
def test_grids_match_reference(x0, y0, width, height):
    assert layouts.spiral_grid(x0, y0, width, height).tolist() == \
        ref.spiral_grid(x0, y0, width, height).tolist()
    assert layouts.triangle_grid(x0, y0, width, height).tolist() == \
        ref.triangle_grid(x0, y0, width, height).tolist()


@pytest.mark.kernel
@given(st.one_of(any_index, st.integers(layouts.MAX_INDEX - 1000, layouts.MAX_INDEX - 1)))
def test_inverse_of_forward_is_identity(k):
    for name, layout in layouts.LAYOUTS.items():
        x, y = layout.point(k)
        assert layout.index(x, y) == k, name


@given(st.integers(-10**8, 10**8), st.integers(-10**8, 10**8))
def test_forward_of_inverse_is_identity(x, y):
    assert tuple(layouts.spiral_point(layouts.spiral_index(x, y))) == (x, y)
    k = layouts.triangle_index(x, y)
    assert (k == -1) == (x < 0 or y < 0)
    if k >= 0:
        assert tuple(layouts.triangle_point(k)) == (x, y)


def test_spiral_picture_matches_the_classic_drawing():
    grid = layouts.spiral_grid(-2, -2, 5, 5)[::-1] + 1  # top row first
    assert grid.tolist() == [[17, 16, 15, 14, 13], [18, 5, 4, 3, 12], [19, 6, 1, 2, 11],
                             [20, 7, 8, 9, 10], [21, 22, 23, 24, 25]]


def test_windows():
    assert layouts.LAYOUTS["spiral"].window(5) == (-2, -2)
    assert layouts.LAYOUTS["triangle"].window(5) == (0, 0)
    assert layouts.LAYOUTS["spiral"].window(3, 1) == (0, -1)
