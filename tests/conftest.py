"""Shared test configuration.

Hypothesis profiles: ``ci`` (the default) has no deadline (first calls compile
kernels) and derandomised example generation, so CI runs are reproducible; ``dev``
searches more. Under ``NUMBA_DISABLE_JIT=1`` kernels run as plain Python, so the
``nojit`` profile generates fewer examples. Choose with ``--hypothesis-profile``.
"""
import os
import signal
from pathlib import Path

from hypothesis import HealthCheck, settings

_common = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", derandomize=True, max_examples=60, **_common)
settings.register_profile("dev", max_examples=300, **_common)
settings.register_profile("nojit", derandomize=True, max_examples=10, **_common)

if os.environ.get("NUMBA_DISABLE_JIT") == "1":
    settings.load_profile("nojit")
else:
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# A test that sends itself SIGINT must be heard even when the shell that started pytest
# ignores SIGINT (a background job, some CI runners): install Python's own handler
# instead of inheriting whatever was set. Children started by tests then begin with
# the default disposition, and Python installs its handler in them as usual.
signal.signal(signal.SIGINT, signal.default_int_handler)

_LAST = "test_zz_kernel_registry.py"


def pytest_collection_modifyitems(session, config, items):
    """Run the kernel-registry checks last, and note whether the whole suite was chosen.

    The check that every kernel ran as plain Python only means something when every
    kernel test of the suite was selected; ``config.jitgames_whole_suite`` says so.
    """
    items.sort(key=lambda item: item.nodeid.split("::")[0].endswith(_LAST))
    tests_dir = Path(__file__).parent.resolve()
    chosen = [Path(arg.split("::")[0]).resolve() for arg in config.args] or [tests_dir]
    config.jitgames_whole_suite = (
        all(path in (tests_dir, tests_dir.parent) for path in chosen)
        and not config.getoption("keyword", "")
        and not config.getoption("lf", False)
        and config.getoption("markexpr", "") in ("", "kernel")
        and not config.getoption("maxfail", 0)
    )
