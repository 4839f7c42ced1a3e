"""Every package the code imports is declared in pyproject.toml, in the extra that needs it.

A fresh machine has only what pyproject.toml asks for: an import that works here only
because this machine happens to have the package would fail for a new user (as
``cryptography`` did for local Dask clusters).
"""
from __future__ import annotations

import ast
import re
import sys
from importlib import metadata
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = None

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "jitgames"

IMPLIED = {"llvmlite": "numba"}
"""Modules installed by a declared package and used through it (numba's own compiler)."""

NEEDED_BESIDE = {"distributed": ["cryptography"]}
"""Packages that must be declared beside another in the same extra: distributed makes
the local cluster's TLS certificates with cryptography but does not require it."""


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_name(spec: str) -> str:
    return _normal(re.split(r"[\s<>=!~;\[]", spec, maxsplit=1)[0])


def _declared():
    if tomllib is None:
        pytest.fail("reading pyproject.toml needs Python 3.11's tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    groups = {"": {_requirement_name(s) for s in project["dependencies"]}}
    for extra, specs in project["optional-dependencies"].items():
        groups[extra] = {_requirement_name(s) for s in specs}
    return groups


def _imported_modules() -> set[str]:
    found = set()
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return {m for m in found if m not in sys.stdlib_module_names and m != "jitgames"}


def test_every_imported_package_is_declared():
    declared = set().union(*_declared().values())
    owners = metadata.packages_distributions()
    missing = []
    for module in sorted(_imported_modules()):
        if module in IMPLIED:
            module_owner = IMPLIED[module]
            assert _normal(module_owner) in declared, module
            continue
        distributions = {_normal(d) for d in owners.get(module, [module])}
        if not distributions & declared:
            missing.append(f"{module} (from {sorted(distributions)})")
    assert not missing, f"imported but declared in no group of pyproject.toml: {missing}"


def test_companions_are_declared_in_the_same_extra():
    for extra, names in _declared().items():
        for package, companions in NEEDED_BESIDE.items():
            if package in names:
                absent = [c for c in companions if c not in names]
                assert not absent, f"[{extra or 'dependencies'}] has {package} without {absent}"


def test_the_test_extra_holds_every_optional_package_the_tests_use():
    groups = _declared()
    for extra in ("dask", "envs"):
        assert groups[extra] <= groups["test"], (extra, groups[extra] - groups["test"])


def test_a_local_cluster_without_cryptography_names_the_extra(monkeypatch):
    from jitgames._chunked import open_client
    from jitgames.errors import InputError

    monkeypatch.setitem(sys.modules, "cryptography", None)  # its import now fails
    with pytest.raises(InputError, match=r"pip install 'jitgames\[dask\]'"):
        with open_client("local:1"):
            pass


def test_a_missing_dask_is_one_line_and_status_2(monkeypatch, capsys):
    from jitgames.solitaire.__main__ import main

    monkeypatch.setitem(sys.modules, "distributed", None)
    assert main(["20", "--scheduler", "local:1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "jitgames[dask]" in err and "Traceback" not in err
