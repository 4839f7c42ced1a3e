"""The kernel wrapper: leaf kernels (compiled without array reference counting), the
prefetch hint."""
import numba
import numpy as np
from numba.core.errors import TypingError
import pytest

from jitgames._jit import jit, prefetch


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



@jit(leaf=True)
def _clear_scattered(words, indices, ahead):
    for k in range(indices.size):
        if k + ahead < indices.size:
            prefetch(words, indices[k + ahead])
        words[indices[k]] &= ~np.uint64(1)


@pytest.mark.kernel
def test_prefetch_is_only_a_hint():
    """A kernel that prefetches the words it clears leaves what it would without."""
    indices = np.random.default_rng(5).integers(0, 1000, 300)
    words = np.full(1000, np.uint64(7))
    _clear_scattered(words, indices, 8)
    expected = np.full(1000, np.uint64(7))
    expected[indices] = 6
    assert words.tolist() == expected.tolist()


def test_prefetch_compiles_to_the_llvm_intrinsic():
    if numba.config.DISABLE_JIT:
        pytest.skip("plain Python has nothing to compile")

    def touch(words, i):
        prefetch(words, i)
        return words[i]

    compiled = numba.njit(cache=False)(touch)  # uncached, so that its code can be read
    assert compiled(np.arange(4, dtype=np.uint64), 2) == 2
    assert "llvm.prefetch" in compiled.inspect_llvm(compiled.signatures[0])
