"""The kernel wrapper: leaf kernels (compiled without array reference counting)."""
import numpy as np
from numba.core.errors import TypingError
import pytest

from jitgames._jit import jit


@jit(leaf=True)
def _add_into(out, values, scale):
    for i in range(values.shape[0]):
        out[i] += scale * values[i]


@jit
def _scaled_sum(values):
    out = np.zeros(values.shape[0], dtype=np.int64)
    _add_into(out, values, 2)
    _add_into(out, values, 3)
    return out


@pytest.mark.kernel
def test_leaf_kernel_works_from_python_and_from_a_kernel_that_allocates():
    values = np.arange(5, dtype=np.int64)
    out = np.ones(5, dtype=np.int64)
    _add_into(out, values, 7)
    assert out.tolist() == [1, 8, 15, 22, 29]
    assert _scaled_sum(values).tolist() == [0, 5, 10, 15, 20]


def test_leaf_kernel_cannot_allocate():
    """Compile-time contract (this test is not run with NUMBA_DISABLE_JIT=1)."""
    @jit(leaf=True)
    def allocates(n):
        return np.zeros(n, dtype=np.int64).sum()

    with pytest.raises(TypingError):
        allocates(3)

