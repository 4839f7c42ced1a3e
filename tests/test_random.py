"""The counter-based generator against its reference twin and a published vector."""
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jitgames import _random
from tests.reference import _random as ref

u64 = st.integers(0, 2**64 - 1)
seeds = st.integers(0, 2**63 - 1)


@pytest.mark.kernel
@given(u64)
def test_mix64_matches_reference(x):
    assert int(_random.mix64(np.uint64(x))) == ref.mix64(x)


@pytest.mark.kernel
@given(seeds, st.integers(0, 2**40), st.integers(0, 1000))
def test_stream_matches_reference(seed, index, counter):
    key = _random.stream_key(seed, index)
    assert int(key) == ref.stream_key(seed, index)
    assert int(_random.next_u64(np.uint64(key), counter)) == ref.next_u64(int(key), counter)


@pytest.mark.kernel
@given(seeds, st.integers(0, 2**40), st.integers(1, 2**62))
def test_below_matches_reference(seed, index, n):
    key = _random.stream_key(seed, index)
    value, counter = _random.below(np.uint64(key), 0, n)
    assert (int(value), int(counter)) == ref.below(int(key), 0, n)
    assert 0 <= value < n


@pytest.mark.kernel
@given(u64, st.integers(1, 300))
def test_remainder_equals_python_remainder(r, n):
    """The division-free remainder (divisors up to 256) and the plain one above it."""
    assert int(_random.remainder(np.uint64(r), np.uint64(n))) == r % n


@pytest.mark.kernel
def test_remainder_at_the_edges():
    """Each divisor 1..257 against the numbers where an estimate one short shows: 0,
    multiples of n and their neighbours, and the top of the range."""
    top = 2**64 - 1
    for n in range(1, 258):
        for r in (0, 1, n - 1, n, n + 1, top, top - 1, top - n, top // n * n,
                  top // n * n - 1, 2**63, 2**63 - 1, 2**32 * n - 1):
            r %= 2**64
            assert int(_random.remainder(np.uint64(r), np.uint64(n))) == r % n, (r, n)


def test_below_is_roughly_uniform():
    key = np.uint64(_random.stream_key(7, 3))
    counts = np.zeros(6, dtype=np.int64)
    counter = 0
    for _ in range(60_000):
        value, counter = _random.below(key, counter, 6)
        counts[value] += 1
    expected = 10_000
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 25.0  # p ~ 1e-4 for 5 degrees of freedom


@pytest.mark.kernel
def test_splitmix64_published_vector():
    """A stream with key k is SplitMix64 seeded with k: its outputs are the published ones."""
    data = json.loads((Path(__file__).parent / "data" / "splitmix64_vectors.json").read_text())
    assert data["source"].startswith("Rosetta Code")
    outputs = [int(_random.next_u64(np.uint64(data["seed"]), j)) for j in range(len(data["outputs"]))]
    assert outputs == data["outputs"]
