"""The helper process that compiles ``mastermind optimal``'s search callees beside the
main process on an empty cache (jitgames._warmup, jitgames.mastermind.warm_up).

Each check runs fresh interpreters on caches of their own (``NUMBA_CACHE_DIR`` under
``tmp_path``): what is checked is what a first run on a new machine does. A 4 x 5 game
has the argument types of 4 x 7 (the dtypes change only from 6 pegs or 2**16 codes) and
is searched in moments. Every wait is bounded.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fresh_child import child_json, helpers_of, run_child

GAME = (4, 5, True)

FIRST_SEARCH = r"""
import json, os, re
from jitgames._compiled import compiled_names, machine_code_digest
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
with compiled_names() as compiled:
    run = optimal_run(*%r, workers=1)
linked = {}  # per callee, the compilation the command's kernels link (its flags' digest)
for kernel, types, *inherited in callees:
    if not any(tuple(types) in d.overloads for d in kernel.internal_copy + [kernel]):
        # linked into a caller loaded from the cache: its own entry, loaded now
        compile_for_kernels(kernel, types, *inherited)
    found = [d for d in kernel.internal_copy + [kernel] if tuple(types) in d.overloads]
    name = found[0].overloads[tuple(types)].fndesc.mangled_name
    # Numba numbers functions per process: the version number left out
    linked[kernel.py_func.__name__] = re.sub(r"B[0-9]+v[0-9]+", "", name)
print(json.dumps({
    "before": before,
    "after": {"wanted": wanted_if_on(), "target_cached": is_cached(target, args)},
    "compiled": compiled, "callees": [k.py_func.__name__ for k, *_ in callees],
    "linked": linked,
    "signature": str(solve.signatures[0]), "target": str(args),
    "total": run.total, "guess": run.guess, "sha1": machine_code_digest(solve)["sha1"]}))
""" % (GAME, GAME)


NO_HELPER = {"JITGAMES_WARM_UP": "0", "PYTHONHASHSEED": "0"}
"""No helper process unless a test asks for one. One hash seed for all: ``solve``'s
machine code follows it (Numba emits some reference count increments in the order of
a set), so two runs compare their code under the same seed."""


def _first_search(cache: Path) -> dict:
    return child_json(FIRST_SEARCH, cache, **NO_HELPER)


@pytest.fixture(scope="module")
def alone(tmp_path_factory):
    """The first search of the game on an empty cache with no helper: what it
    compiles, its total and ``solve``'s machine code."""
    return _first_search(tmp_path_factory.mktemp("alone"))


def test_the_helper_leaves_cache_entries_the_main_process_loads_instead_of_compiling(
        alone, tmp_path):
    cache = tmp_path / "cache"
    helper = run_child(["-m", "jitgames._warmup", "mastermind.optimal", "4", "5", "1"], cache,
                       **NO_HELPER)
    assert helper.returncode == 0 and helper.stderr == "", helper.stderr[-3000:]
    after_helper = _first_search(cache)
    callees = set(alone["callees"])
    # The plan's target is what the command compiles for Python, with the same types.
    assert alone["signature"] == alone["target"]
    # Alone, the first search compiles every callee of the plan; after the helper, none
    # of them (nor their own callees), and nothing it did not compile alone.
    assert len(callees) == len(alone["callees"]) == 35
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
    done = run_child(["-m", "jitgames", "mastermind", "optimal", "-p", "4", "-k", "5", "--json",
                      "-q", "--threads", "1"], cache, **dict(NO_HELPER, JITGAMES_WARM_UP="1"))
    assert done.returncode == 0 and done.stderr == "", done.stderr[-3000:]
    out = json.loads(done.stdout)
    assert out["complete"] and (out["total"], out["first_guess"]) == (alone["total"],
                                                                      alone["guess"])
    assert helpers_of(cache) == []  # ended at the first result, not left behind
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
