"""The helper process that compiles ``mastermind optimal``'s search callees beside the
main process on an empty cache (jitgames._warmup, jitgames.mastermind.warm_up).

Each check runs fresh interpreters on caches of their own (``NUMBA_CACHE_DIR`` under
``tmp_path``): what is checked is what a first run on a new machine does. A 4 x 5 game
has the argument types of 4 x 7 (the dtypes change only from 6 pegs or 2**16 codes) and
is searched in moments. Every wait is bounded.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_warmup import _helpers_of

ROOT = Path(__file__).resolve().parent.parent
GAME = (4, 5, True)

FIRST_SEARCH = r"""
import hashlib, json, os, re
from numba.core import event
from jitgames._jit import compile_for_kernels, is_cached
from jitgames._warmup import wanted
from jitgames.mastermind.branch_and_bound import solve
from jitgames.mastermind.optimal_run import optimal_run
from jitgames.mastermind.warm_up import OPTIMAL_PLAN, optimal_plan, plan_parameters

params = plan_parameters(*%r)
(target, args), callees = optimal_plan(*params)
def wanted_if_on():  # this process runs with JITGAMES_WARM_UP=0: no helper of its own
    os.environ["JITGAMES_WARM_UP"] = "1"
    try:
        return wanted(OPTIMAL_PLAN, *params)
    finally:
        os.environ["JITGAMES_WARM_UP"] = "0"

before = {"wanted": wanted_if_on(), "target_cached": is_cached(target, args)}
compiled = []

class Listener(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__name__)

    def on_end(self, ev):
        pass

with event.install_listener("numba:compile", Listener()):
    run = optimal_run(*%r, workers=1)
linked = {}  # per callee, the compilation the command's kernels link (its flags' digest)
for kernel, types, *inherited in callees:
    if not any(tuple(types) in d.overloads for d in kernel.internal_copy + [kernel]):
        # linked into a caller loaded from the cache: its own entry, loaded now
        compile_for_kernels(kernel, types, *inherited)
    found = [d for d in kernel.internal_copy + [kernel] if tuple(types) in d.overloads]
    name = found[0].overloads[tuple(types)].fndesc.mangled_name
    linked[kernel.py_func.__name__] = re.sub(r"B[0-9]+v[0-9]+", "", name)
lines = []
for line in solve.inspect_asm(solve.signatures[0]).splitlines():
    line = line.split("#")[0].rstrip()
    if line and not (line.lstrip().startswith(".") and not line.lstrip().startswith(".L")):
        # Numba numbers functions per process and tags them with a digest of their flags
        lines.append(re.sub(r"B[0-9]+v[0-9]+", "", line))
print(json.dumps({
    "before": before,
    "after": {"wanted": wanted_if_on(), "target_cached": is_cached(target, args)},
    "compiled": compiled, "callees": [k.py_func.__name__ for k, *_ in callees],
    "linked": linked,
    "signature": str(solve.signatures[0]), "target": str(args),
    "total": run.total, "guess": run.guess,
    "sha1": hashlib.sha1("\n".join(lines).encode()).hexdigest()}))
""" % (GAME, GAME)


def _env(cache: Path, **extra) -> dict:
    """A child's environment: this checkout, compiled kernels, cache ``cache``; no helper
    process unless ``extra`` asks for one. One hash seed for all: ``solve``'s machine
    code follows it (Numba emits some reference count increments in the order of a
    set), so two runs compare their code under the same seed."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    env.update(NUMBA_CACHE_DIR=str(cache), PYTHONPATH=os.pathsep.join([str(ROOT)] + sys.path),
               JITGAMES_WARM_UP="0", PYTHONHASHSEED="0")
    env.update(extra)
    return env


def _first_search(cache: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", FIRST_SEARCH], env=_env(cache), cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def alone(tmp_path_factory):
    """The first search of the game on an empty cache with no helper: what it
    compiles, its total and ``solve``'s machine code."""
    return _first_search(tmp_path_factory.mktemp("alone"))


def test_the_helper_leaves_cache_entries_the_main_process_loads_instead_of_compiling(
        alone, tmp_path):
    cache = tmp_path / "cache"
    helper = subprocess.run([sys.executable, "-m", "jitgames._warmup", "mastermind.optimal",
                             "4", "5", "1"], env=_env(cache), cwd=ROOT, capture_output=True,
                            text=True, timeout=600)
    assert helper.returncode == 0 and helper.stderr == "", helper.stderr[-3000:]
    after_helper = _first_search(cache)
    callees = set(alone["callees"])
    # The plan's target is what the command compiles for Python, with the same types.
    assert alone["signature"] == alone["target"]
    # Alone, the first search compiles every callee of the plan; after the helper, none
    # of them (nor their own callees), and nothing it did not compile alone.
    assert len(callees) == len(alone["callees"]) == 33
    assert callees <= set(alone["compiled"])
    assert not callees & set(after_helper["compiled"])
    assert set(after_helper["compiled"]) <= set(alone["compiled"]) - callees
    assert {"solve", "set_bound", "code_tables_kernel"} <= set(after_helper["compiled"])
    # Each callee the command links was compiled under the same flags (a plain kernel
    # under a leaf caller inherits "no reference counting"), and the same machine code
    # runs, with the same result.
    assert after_helper["linked"] == alone["linked"]
    assert after_helper["sha1"] == alone["sha1"]
    assert (after_helper["total"], after_helper["guess"]) == (alone["total"], alone["guess"])
    # A helper is wanted while solve is not cached, not once it is.
    assert after_helper["before"] == {"wanted": True, "target_cached": False}
    assert after_helper["after"] == {"wanted": False, "target_cached": True}


def test_the_command_on_an_empty_cache_with_its_helper_gives_the_same_answer(alone, tmp_path):
    cache = tmp_path / "cache"
    done = subprocess.run([sys.executable, "-m", "jitgames", "mastermind", "optimal", "-p", "4",
                           "-k", "5", "--json", "-q", "--threads", "1"],
                          env=_env(cache, JITGAMES_WARM_UP="1"), cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0 and done.stderr == "", done.stderr[-3000:]
    out = json.loads(done.stdout)
    assert out["complete"] and (out["total"], out["first_guess"]) == (alone["total"],
                                                                      alone["guess"])
    assert _helpers_of(cache) == []  # ended at the first result, not left behind
    # The helper cached callees' internal copies in files of their own.
    names = {p.name for p in cache.rglob("*.nbi")}
    assert any(n.startswith("candidates.list_candidates-") and n.endswith("-internal.nbi")
               for n in names)
    assert any(n.startswith("branch_and_bound.solve-") and not n.endswith("-internal.nbi")
               for n in names)


def test_the_plan_follows_the_game_size():
    """Games of 6 pegs or 2**16 codes and more widen the answer masks and the tally;
    the plan's types follow (:func:`jitgames.mastermind.optimal.scratch_dtypes`)."""
    from numba.core import types

    from jitgames.mastermind.warm_up import optimal_plan, plan_parameters

    def mask_and_tally(pegs, colours):
        _, callees = optimal_plan(*plan_parameters(pegs, colours, True))
        by_name = {k.py_func.__name__: args for k, args, *_ in callees}
        return by_name["answer_masks"][-1].dtype, by_name["clear_tally"][-1].dtype

    assert mask_and_tally(4, 7) == (types.uint32, types.uint16)
    assert mask_and_tally(6, 6) == (types.uint64, types.uint16)  # 46,656 codes: masks only
    assert mask_and_tally(5, 10) == (types.uint32, types.uint32)  # 100,000 codes: the tally
