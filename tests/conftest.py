"""Shared test configuration.

Hypothesis profiles: ``ci`` (the default) has no deadline (first calls compile
kernels) and derandomised example generation, so CI runs are reproducible; ``dev``
searches more. Under ``NUMBA_DISABLE_JIT=1`` kernels run as plain Python, so the
``nojit`` profile generates fewer examples. Choose with ``--hypothesis-profile``.
"""
import os

from hypothesis import HealthCheck, settings

_common = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", derandomize=True, max_examples=60, **_common)
settings.register_profile("dev", max_examples=300, **_common)
settings.register_profile("nojit", derandomize=True, max_examples=10, **_common)

if os.environ.get("NUMBA_DISABLE_JIT") == "1":
    settings.load_profile("nojit")
else:
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
