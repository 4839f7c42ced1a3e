"""Every kernel is made by ``jitgames._jit.jit`` and runs as plain Python in CI.

The README's test command runs the suite twice: compiled, then the ``kernel`` tests
again with ``NUMBA_DISABLE_JIT=1``. The second run is what checks the kernels' bodies
line by line as Python; these tests prove that no kernel escaped it. The conftest
runs this file last.
"""
import importlib
import pkgutil
from pathlib import Path

import numba
import pytest
from numba.core.registry import CPUDispatcher

import jitgames
from jitgames import _jit

ROOT = Path(jitgames.__file__).parent


def _import_every_module():
    names = []
    for info in pkgutil.walk_packages([str(ROOT)], prefix="jitgames."):
        if info.name.endswith("__main__"):
            continue
        try:
            importlib.import_module(info.name)
        except ImportError as exc:   # an optional extra that is not installed
            if "jitgames" in str(exc):
                raise
            continue
        names.append(info.name)
    return names


def test_only_jit_py_calls_numba_njit():
    offenders = [str(path.relative_to(ROOT)) for path in ROOT.rglob("*.py")
                 if path.name != "_jit.py"
                 and any(word in path.read_text() for word in ("numba.njit", "@njit", "import njit"))]
    assert offenders == []


def test_every_compiled_kernel_is_in_the_registry():
    if numba.config.DISABLE_JIT:
        pytest.skip("kernels are plain functions in this mode; the compiled run checks this")
    modules = _import_every_module()
    assert len(modules) > 20
    registered = {id(kernel) for kernel in _jit.KERNELS.values()}
    strays = [f"{name}.{attr}" for name in modules
              for attr, value in vars(importlib.import_module(name)).items()
              if isinstance(value, CPUDispatcher) and id(value) not in registered]
    assert strays == []
    assert len(_jit.KERNELS) > 100


@pytest.mark.kernel
def test_every_kernel_ran_as_plain_python(request):
    if not numba.config.DISABLE_JIT:
        pytest.skip("checked by the NUMBA_DISABLE_JIT=1 run of the README's test command")
    if not request.config.jitgames_whole_suite:
        pytest.skip("only meaningful when the whole suite's kernel tests were selected")
    _import_every_module()
    missed = sorted(set(_jit.KERNELS) - _jit.executed_kernels())
    assert missed == [], f"{len(missed)} kernels never ran as plain Python: {missed}"
