"""First-use compile time of the main commands on an empty Numba cache, beside another
checkout of the code (the code before a change), alternating run by run.

    python bench/compile.py [--before DIR] [--repeats R] [--mastermind] [--no-solitaire]

Each run starts a fresh interpreter with an empty ``NUMBA_CACHE_DIR`` in the checkout
being measured and records:

- ``solitaire``: ``jitgames solitaire 200 --json -q``'s own ``compile_seconds`` (the
  first call of the study kernels, the figure the issue targets) and the process's CPU
  seconds from start to exit;
- ``mastermind`` (with ``--mastermind``): ``mastermind optimal -p 4 -k 7 --json -q``'s
  wall and CPU seconds on an empty cache minus the same on the warm cache it left, i.e.
  the seconds spent compiling;
- the machine code of the study's kernel (``solve_decks``) compiled in each checkout
  (with ``--mastermind``, also that of ``mastermind optimal``'s ``solve``, under one
  Python hash seed: Numba orders some of its reference count increments by a set's
  order, so its code differs from seed to seed, in every checkout):
  its instructions (comments and assembler directives dropped) and their SHA-1, so a
  change that is only meant to compile faster can be shown to leave the code that runs
  unchanged (same digest: same speed, same results), and each function of its library
  (``functions``; ``solve_decks_functions_changed`` names those that differ from the
  other checkout's);
- per-kernel costs of the solitaire study in this checkout: each compiled
  specialisation's own compile seconds as Numba records them (inclusive of the kernels
  it calls, so the top ones sum more than the whole), and the count of specialisations;
- ``stages_solitaire``, in each checkout: the study's first call's CPU seconds by
  compiler stage, exclusive (each second charged to the innermost stage running: Numba's
  type inference, lowering, entry points; LLVM's IR parsing, function and module
  passes, machine code; the cache), and by compiled function (``compiles``, exclusive
  of the functions it compiles in turn: a callee's internal copy is named like it),
  with the number of compilations and the functions compiled more than once;
- ``stages_mastermind`` (with ``--mastermind``), in each checkout: the same for the whole
  ``mastermind optimal -p 4 -k 7`` command;
- ``by_function_solitaire`` (with ``--by-function``), in this checkout: the study's
  first call's exclusive CPU seconds by (function compiled, stage), Numba's passes
  named one by one, and that matrix summed into groups of functions (the study's
  callees, its own kernel, Numba's implementations, outside any compilation).

This checkout runs with ``JITGAMES_WARM_UP=1`` (its helper process compiling callees
beside the main one, whatever the load), the other as its default gate decides (with
``--before-helper`` also forced on); with ``--no-helper-too`` this one is also measured with
``JITGAMES_WARM_UP=0`` (no helper) as a third arm, alternating; the
``solve_decks`` machine code is also recorded when its callees were compiled by the
helper (``this, callees from the helper``). The process CPU seconds include the helper's.

With ``--main-cpu``, the study's first call is also timed in the main process of each
arm, alternating: wall seconds and the main process's own CPU seconds (with a core free
for the helper, about the wall time it would take).

CPU seconds are reported beside wall seconds: on a shared, busy machine they move much
less with the other jobs. Results go to ``bench/results/compile.json`` (with
``--no-solitaire``: ``compile_mastermind.json``; ``--out NAME``: ``NAME``).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import ROOT, machine, save_result  # noqa: E402

PER_KERNEL = r"""
import json, time
from jitgames._jit import KERNELS
from jitgames.solitaire.deal import deals
from jitgames.solitaire.search import make_scratch, solve_rows
begin = time.process_time()
solve_rows(deals(0, 0, 1), False, make_scratch(1))
cpu = time.process_time() - begin
rows = []
for name, kernel in KERNELS.items():
    copies = [("", kernel)] + [(" (internal)", k) for k in getattr(kernel, "internal_copy", [])]
    for suffix, compiled in copies:
        for signature in getattr(compiled, "signatures", []):
            timers = compiled.get_metadata(signature).get("timers", {})
            rows.append([name + suffix, str(signature),
                         round(timers.get("compiler_lock", 0.0), 3)])
rows.sort(key=lambda r: -r[2])
print(json.dumps({"first_call_cpu_seconds": cpu, "specialisations": len(rows), "top": rows[:15]}))
"""

PROBES = f"""
import importlib.util
spec = importlib.util.spec_from_file_location("probes", {str(ROOT / "jitgames" / "_compiled.py")!r})
probes = importlib.util.module_from_spec(spec)
spec.loader.exec_module(probes)
"""
"""A snippet's prelude: this checkout's :mod:`jitgames._compiled` loaded by its path as
``probes``, also into a process that runs a baseline checkout (which may lack it)."""

MACHINE_CODE = PROBES + r"""
import json
from jitgames.solitaire.deal import deals
from jitgames.solitaire.search import make_scratch, solve_decks, solve_rows
solve_rows(deals(0, 0, 1), False, make_scratch(1))
# the callees' ABI tags masked: their compile flags changed when they lost their
# Python entry points, and the digest compares the instructions alone
print(json.dumps(dict(probes.machine_code_digest(solve_decks, mask_flags=True),
                      functions=probes.machine_code_by_function(solve_decks, mask_flags=True))))
"""

STAGES = r"""
import collections, functools, json, sys, time
from numba.core import caching, codegen, compiler, dispatcher, lowering, typed_passes
from numba.core import typeinfer, untyped_passes
seconds = collections.defaultdict(float)
kernels = collections.defaultdict(float)
counts = collections.Counter()
stack = [["outside", time.process_time()]]
names = ["-"]

def charge(until):
    label, since = stack[-1]
    seconds[label] += until - since
    if label != "outside":
        kernels[names[-1]] += until - since

def timed(owner, attr, label):
    inner = getattr(owner, attr)

    @functools.wraps(inner)
    def run(*args, **kwargs):
        now = time.process_time()
        charge(now)
        if label == "numba: other":
            name = args[0].py_func.__qualname__
            names.append(name)
            counts[name] += 1
        stack.append([label, now])
        try:
            return inner(*args, **kwargs)
        finally:
            now = time.process_time()
            charge(now)
            stack.pop()
            stack[-1][1] = now
            if label == "numba: other":
                names.pop()
    setattr(owner, attr, run)

for owner, attr, label in [
        (dispatcher._FunctionCompiler, "compile", "numba: other"),
        (compiler.CompilerBase, "_compile_core", "numba: other passes (bytecode, SSA, rewrites)"),
        (untyped_passes.InlineInlinables, "run_pass", "numba: inline=True copies"),
        (typed_passes.BaseTypeInference, "run_pass", "numba: type inference"),
        (typed_passes.BaseNativeLowering, "run_pass", "numba: lowering, other"),
        (typed_passes.ParforPass, "run_pass", "numba: parfor passes"),
        (typed_passes.ParforFusionPass, "run_pass", "numba: parfor passes"),
        (typed_passes.ParforPreLoweringPass, "run_pass", "numba: parfor passes"),
        (lowering.Lower, "lower", "numba: lowering to LLVM IR"),
        (lowering.Lower, "create_cpython_wrapper", "numba: Python entry points"),
        (lowering.Lower, "create_cfunc_wrapper", "numba: C entry points"),
        (codegen.CPUCodeLibrary, "add_ir_module", "llvm: parsing IR text"),
        (codegen.CPUCodeLibrary, "_optimize_functions", "llvm: function passes"),
        (codegen.CPUCodeLibrary, "finalize", "llvm: linking, verifying"),
        (codegen.CPUCodeLibrary, "_optimize_final_module", "llvm: module passes"),
        (codegen.JITCodeLibrary, "_finalize_specific", "llvm: machine code"),
        (caching.Cache, "save_overload", "cache: saving"),
        (caching.Cache, "load_overload", "cache: looking up")]:
    timed(owner, attr, label)
begin = time.process_time()
stack[-1][1] = begin
%s
charge(time.process_time())
seconds.pop("outside", None)
print(json.dumps({"first_call_cpu_seconds": time.process_time() - begin,
                  "compilations": sum(counts.values()),
                  "compiled_more_than_once": {k: n for k, n in counts.items() if n > 1},
                  "stages": {k: round(v, 3) for k, v in sorted(seconds.items(), key=lambda kv: -kv[1])},
                  "compiles": {k: round(v, 3) for k, v in sorted(kernels.items(), key=lambda kv: -kv[1])[:%d]}}))
"""
FIRST_CALL = """
from jitgames.solitaire.deal import deals
from jitgames.solitaire.search import make_scratch, solve_rows
solve_rows(deals(0, 0, 1), False, make_scratch(1))
"""
FIRST_CALL_CPU = r"""
import json, os, time
from jitgames.solitaire.deal import deals
from jitgames.solitaire.search import make_scratch, solve_rows
try:
    from jitgames._warmup import helper_compiling
    from jitgames.solitaire.warm_up import STUDY_PLAN
except ImportError:  # the code before: no helper
    import contextlib
    helper_compiling, STUDY_PLAN = (lambda name: contextlib.nullcontext()), None
try:  # what the command's warm-up does first, in checkouts that have it
    from jitgames._warmup import compile_target
except ImportError:
    compile_target = lambda name: None
wall, cpu = time.perf_counter(), time.process_time()
with helper_compiling(STUDY_PLAN) as helper:
    compile_target(STUDY_PLAN)
    solve_rows(deals(0, 0, 1), False, make_scratch(1))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
print(json.dumps({"wall": wall, "main_cpu": cpu, "helper": helper is not None}))
"""
"""--main-cpu: the study's first call (what ``compile_seconds`` times) with its helper, as
the solitaire command starts it, timed in the main process: wall seconds and the main
process's own CPU seconds (the helper's not counted). With a core free for the helper,
the wall time is about the main process's CPU time; on a busy machine the helper gets
less of a core, finishes less, and the main process compiles more itself."""

BY_FUNCTION = r"""
import collections, functools, json, time
from numba.core import caching, codegen, compiler_machinery, lowering
table = collections.defaultdict(float)
stack = [["outside", "-", time.process_time()]]

def charge(now):
    label, name, since = stack[-1]
    table[(name, label)] += now - since

def timed(owner, attr, label, function_name=None):
    inner = getattr(owner, attr)

    @functools.wraps(inner)
    def run(*args, **kwargs):
        now = time.process_time()
        charge(now)
        name = function_name(args) if function_name else stack[-1][1]
        stack.append([label(args), name, now])
        try:
            return inner(*args, **kwargs)
        finally:
            now = time.process_time()
            charge(now)
            stack.pop()
            stack[-1][2] = now
    setattr(owner, attr, run)

timed(compiler_machinery.PassManager, "run", lambda a: "numba: pipeline",
      lambda a: a[1].func_id.func_qualname)
timed(compiler_machinery.PassManager, "_runPass", lambda a: "numba pass: " + a[2].name())
for owner, attr, label in [
        (codegen.CPUCodeLibrary, "add_ir_module", "llvm: parsing IR text"),
        (codegen.CPUCodeLibrary, "_optimize_functions", "llvm: function passes"),
        (codegen.CPUCodeLibrary, "_optimize_final_module", "llvm: module passes"),
        (codegen.CPUCodeLibrary, "finalize", "llvm: linking, verifying"),
        (codegen.JITCodeLibrary, "_finalize_specific", "llvm: machine code"),
        (lowering.Lower, "create_cpython_wrapper", "numba: entry points"),
        (lowering.Lower, "create_cfunc_wrapper", "numba: entry points"),
        (caching.Cache, "save_overload", "cache"),
        (caching.Cache, "load_overload", "cache")]:
    timed(owner, attr, lambda a, label=label: label)
begin = time.process_time()
stack[-1][2] = begin
%s
charge(time.process_time())
from jitgames._jit import KERNELS
inline = {name.rsplit(".", 1)[1] for name, k in KERNELS.items()
          if getattr(k, "targetoptions", {}).get("inline") == "always"}
called_from_python = {"solve_decks", "fisher_yates_range"}

def group(name):
    if name == "-":
        return "outside any compilation"
    if name in called_from_python:
        return name + " (called from Python)"
    if name in inline:
        return "inline=True kernels (their own untyped passes)"
    if "<locals>" in name or name.startswith("_call_"):
        return "Numba's own implementations (overloads)"
    return "internal copies of the callees"

def stage(label):
    if label.startswith("numba pass: "):
        return {"native_lowering": "numba: lowering to LLVM IR",
                "nopython_type_inference": "numba: type inference",
                "inline_inlinables": "numba: inline=True copies"}.get(
            label[len("numba pass: "):], "numba: other passes (bytecode, SSA, rewrites)")
    return "numba: other passes (bytecode, SSA, rewrites)" if label == "numba: pipeline" else label

groups, members = collections.defaultdict(float), collections.defaultdict(set)
for (name, label), seconds in table.items():
    groups[(group(name), stage(label))] += seconds
    members[group(name)].add(name)
print(json.dumps({
    "first_call_cpu_seconds": time.process_time() - begin,
    "by_function": sorted([[n, l, round(v, 4)] for (n, l), v in table.items()], key=lambda r: -r[2]),
    "by_group": [[g, s, round(v, 3)] for (g, s), v in sorted(groups.items())],
    "group_members": {g: sorted(m) for g, m in members.items()}}))
"""


def stage_table(by_group) -> str:
    """The markdown table (stages x groups of compiled functions) of ``by_group`` rows."""
    cell = {(g, s): v for g, s, v in by_group}
    groups = sorted({g for g, _, _ in by_group}, key=lambda g: -sum(v for (h, _), v in cell.items() if h == g))
    stages = sorted({s for _, s, _ in by_group}, key=lambda s: -sum(v for (_, t), v in cell.items() if t == s))
    lines = ["| stage | " + " | ".join(groups) + " | all |", "|---" * (len(groups) + 2) + "|"]
    for s in stages:
        row = [cell.get((g, s), 0.0) for g in groups]
        lines.append(f"| {s} | " + " | ".join(f"{v:.2f}" for v in row) + f" | {sum(row):.2f} |")
    totals = [sum(cell.get((g, s), 0.0) for s in stages) for g in groups]
    lines.append("| all | " + " | ".join(f"{v:.2f}" for v in totals) + f" | {sum(totals):.2f} |")
    return "\n".join(lines)


SOLVE_MACHINE_CODE = PROBES + r"""
import contextlib, io, json
from jitgames.__main__ import main
try:
    from jitgames.mastermind.branch_and_bound import solve
except ImportError:  # the code of issue 29's baseline: the search was in optimal.py
    from jitgames.mastermind.optimal import solve
with contextlib.redirect_stdout(io.StringIO()) as out:
    assert main(%r) == 0
print(json.dumps(dict(probes.machine_code_digest(solve, mask_flags=True),
                      total=json.loads(out.getvalue())["total"])))
"""
"""--mastermind: ``solve``'s machine code after the whole command (masked as
``MACHINE_CODE`` masks ``solve_decks``'), with the command's total."""

WHOLE_COMMAND = """
import contextlib, io
from jitgames.__main__ import main
with contextlib.redirect_stdout(io.StringIO()):
    assert main(%r) == 0
"""
MASTERMIND_ARGV = ["mastermind", "optimal", "-p", "4", "-k", "7", "--json", "-q", "--threads",
                   "1"]


CALLEE_OPT = PROBES + r"""
import json, time
from numba.core import codegen
level = %d
library = codegen.CPUCodeLibrary
optimize_functions, optimize_final_module = library._optimize_functions, library._optimize_final_module

def callee(self):  # every library but the study kernel's own (its callees, deal generation)
    return level < 3 and self.name != "solve_decks"

def _optimize_functions(self, ll_module):
    if not callee(self):
        return optimize_functions(self, ll_module)
    ll_module.data_layout = self._codegen._data_layout
    for func in ll_module.functions:
        fpm, pb = self._codegen._function_pass_manager(opt=level)
        fpm.run(func, pb)

def _optimize_final_module(self):
    if not callee(self):
        return optimize_final_module(self)
    mpm, pb = self._codegen._module_pass_manager(opt=level)
    mpm.run(self._final_module, pb)

library._optimize_functions, library._optimize_final_module = _optimize_functions, _optimize_final_module
from jitgames.solitaire.deal import deals
from jitgames.solitaire.search import make_scratch, solve_decks, solve_rows
begin = time.process_time()
solve_rows(deals(0, 0, 1), False, make_scratch(1))
cpu = time.process_time() - begin
code = probes.machine_code_digest(solve_decks, mask_flags=True)
decks, scratch = deals(0, 0, 1000), make_scratch(1)
runs = []
for _ in range(3):
    begin = time.process_time()
    solve_rows(decks, False, scratch)
    runs.append(time.process_time() - begin)
print(json.dumps({"llvm_level_of_callees": level, "first_call_cpu_seconds": cpu,
                  "solve_decks_instructions": code["instructions"],
                  "solve_decks_sha1": code["sha1"],
                  "run_1000_deals_cpu_seconds_min": min(runs)}))
"""
"""--callee-opt: the study's first call with LLVM's O1 (or O0) pipeline for every library
but ``solve_decks``' own (its callees, which LLVM inlines into it, and the deal
generation), beside O3: the first call's CPU seconds, ``solve_decks``' machine code and
the CPU seconds of 1,000 deals (option (b) of issue 29, measured and dropped)."""


def _snippet(checkout: Path, code: str, helper_first=None, env=None) -> dict:
    """The JSON printed by ``code`` run in ``checkout`` on an empty Numba cache (with
    ``helper_first``, a helper's plan and parameters: on the cache that helper process
    left, run to its end), with the variables ``env`` added to the environment."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(checkout), **(env or {}))
        if helper_first:
            subprocess.run([sys.executable, "-m", "jitgames._warmup", *helper_first],
                           cwd=checkout, env=env, check=True, timeout=1800)
        done = subprocess.run([sys.executable, "-c", code], cwd=checkout, text=True, env=env,
                              capture_output=True, check=True, timeout=1800)
    return json.loads(done.stdout)


ARMS = {"this": {"JITGAMES_WARM_UP": "1"}, "before": {}, "no helper": {"JITGAMES_WARM_UP": "0"}}
"""Environment each arm adds: ``this`` always starts the helper process that compiles
callees beside the main one on an empty cache (``jitgames._warmup``; by default it is
left out when the load average leaves no core idle), ``no helper`` never does."""


def _run(checkout: Path, argv, cache: str, arm: str = "this"):
    """``(wall, cpu, stdout)`` of ``python -m jitgames argv`` in ``checkout``; CPU
    seconds of the process and its children (a helper process included)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(checkout), **ARMS[arm])
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    begin = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "jitgames", *argv], cwd=checkout, env=env,
                          capture_output=True, text=True, timeout=1800)
    wall = time.perf_counter() - begin
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{checkout}: jitgames {' '.join(argv)} failed:\n{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def solitaire_once(checkout: Path, arm: str = "this") -> dict:
    with tempfile.TemporaryDirectory() as cache:
        wall, cpu, out = _run(checkout, ["solitaire", "200", "--json", "-q", "--threads", "1"],
                              cache, arm)
    return {"compile_seconds": json.loads(out)["compile_seconds"], "wall": wall, "cpu": cpu}


def mastermind_once(checkout: Path, arm: str = "this") -> dict:
    argv = MASTERMIND_ARGV
    with tempfile.TemporaryDirectory() as cache:
        cold_wall, cold_cpu, out = _run(checkout, argv, cache, arm)
        warm_wall, warm_cpu, _ = _run(checkout, argv, cache, arm)
    return {"total": json.loads(out)["total"], "compile_wall": cold_wall - warm_wall,
            "compile_cpu": cold_cpu - warm_cpu, "warm_wall": warm_wall, "warm_cpu": warm_cpu}


def _medians(runs):
    return {key: statistics.median(r[key] for r in runs) for key in runs[0]
            if isinstance(runs[0][key], float)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, default=None,
                        help="another checkout to measure alternately (e.g. a git worktree "
                             "of the commit before)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--mastermind", action="store_true",
                        help="also mastermind optimal -p 4 -k 7 (minutes a run)")
    parser.add_argument("--no-solitaire", action="store_true",
                        help="leave out the solitaire runs and its per-kernel costs "
                             "(with --mastermind: mastermind only)")
    parser.add_argument("--callee-opt", type=int, choices=(0, 1, 2), default=None,
                        metavar="LEVEL", help="also the study's first call with the callees "
                        "of solve_decks optimised at LLVM level LEVEL, alternating with 3")
    parser.add_argument("--by-function", action="store_true",
                        help="also the study's first call in this checkout by (function "
                             "compiled, compiler stage), with the table of groups")
    parser.add_argument("--out", default=None, metavar="NAME",
                        help="file name under bench/results (default compile.json, with "
                             "--no-solitaire compile_mastermind.json)")
    parser.add_argument("--main-cpu", action="store_true",
                        help="also the study's first call's wall and main-process CPU seconds "
                             "in each arm, alternating (no per-kernel figures)")
    parser.add_argument("--before-helper", action="store_true",
                        help="run the other checkout with its own helper process forced on "
                             "(JITGAMES_WARM_UP=1) too, not by its default gate")
    parser.add_argument("--no-helper-too", action="store_true",
                        help="also this checkout without the helper process (JITGAMES_WARM_UP=0) "
                             "as a third arm, alternating")
    args = parser.parse_args(argv)
    if args.before_helper:
        ARMS["before"] = {"JITGAMES_WARM_UP": "1"}
    checkouts = {"this": ROOT}
    if args.before is not None:
        checkouts["before"] = args.before.resolve()
    code_checkouts = dict(checkouts)  # the snippets below start no helper: one run each
    if args.no_helper_too:
        checkouts["no helper"] = ROOT
    result = {"machine": machine(), "checkouts": {k: str(v) for k, v in checkouts.items()},
              "environment": {k: ARMS[k] for k in checkouts},
              "solitaire": {k: [] for k in checkouts},
              "mastermind": {k: [] for k in checkouts} if args.mastermind else None}
    for repeat in range(args.repeats):
        for name, checkout in checkouts.items():  # alternating: this, before, this, ...
            if not args.no_solitaire:
                run = solitaire_once(checkout, name)
                result["solitaire"][name].append(run)
                print(f"solitaire {name:6s} run {repeat + 1}: compile_seconds "
                      f"{run['compile_seconds']:.2f}, process CPU {run['cpu']:.2f} s",
                      flush=True)
            if args.mastermind:
                run = mastermind_once(checkout, name)
                result["mastermind"][name].append(run)
                print(f"mastermind {name:6s} run {repeat + 1}: compiling {run['compile_wall']:.2f} "
                      f"s wall, {run['compile_cpu']:.2f} s CPU; warm run {run['warm_wall']:.2f} s "
                      f"({run['warm_cpu']:.2f} s CPU); total {run['total']}",
                      flush=True)
    if args.main_cpu:
        result["first_call_main_cpu"] = {name: [] for name in checkouts}
        for repeat in range(args.repeats):
            for name, checkout in checkouts.items():
                run = _snippet(checkout, FIRST_CALL_CPU, env=ARMS[name])
                result["first_call_main_cpu"][name].append(run)
                print(f"first call {name:9s} run {repeat + 1}: {run['wall']:.2f} s wall, main "
                      f"process {run['main_cpu']:.2f} CPU s, helper {run['helper']}", flush=True)
    summary = {} if args.no_solitaire else {
        "solitaire": {k: _medians(v) for k, v in result["solitaire"].items()}}
    if args.mastermind:
        summary["mastermind"] = {k: _medians(v) for k, v in result["mastermind"].items()}
    if "before" in checkouts:
        for game, keys in (("solitaire", ("compile_seconds", "cpu")),
                           ("mastermind", ("compile_wall", "compile_cpu", "warm_wall",
                                           "warm_cpu"))):
            if game in summary:
                for arm, label in (("this", "ratio_this_to_before"),
                                   ("no helper", "ratio_no_helper_to_before")):
                    if arm in summary[game]:
                        summary[game][label] = {k: summary[game][arm][k] /
                                                summary[game]["before"][k] for k in keys}
    if not args.no_solitaire:
        result["per_kernel_solitaire"] = _snippet(ROOT, PER_KERNEL)
        result["stages_solitaire"] = {name: _snippet(checkout, STAGES % (FIRST_CALL, 12))
                                      for name, checkout in code_checkouts.items()}
        for name, run in result["stages_solitaire"].items():
            print(f"stages of the first call, {name}:", json.dumps(run["stages"]))
        result["solve_decks_machine_code"] = {name: _snippet(checkout, MACHINE_CODE)
                                              for name, checkout in code_checkouts.items()}
        result["solve_decks_machine_code"]["this, callees from the helper"] = _snippet(
            ROOT, MACHINE_CODE, helper_first=["solitaire.study"])
        print("solve_decks machine code:", json.dumps(
            {k: {"instructions": v["instructions"], "sha1": v["sha1"]}
             for k, v in result["solve_decks_machine_code"].items()}))
        if "before" in code_checkouts:
            ours, theirs = (result["solve_decks_machine_code"][k]["functions"]
                            for k in ("this", "before"))
            result["solve_decks_functions_changed"] = sorted(
                name for name in set(ours) | set(theirs) if ours.get(name) != theirs.get(name))
            print("functions of solve_decks' library that differ from before:",
                  result["solve_decks_functions_changed"])
    if args.by_function:
        result["by_function_solitaire"] = _snippet(ROOT, BY_FUNCTION % FIRST_CALL)
        print(stage_table(result["by_function_solitaire"]["by_group"]))
    if args.callee_opt is not None:
        result["callee_opt"] = [_snippet(ROOT, CALLEE_OPT % level) for _ in range(args.repeats)
                                for level in (3, args.callee_opt)]
        for run in result["callee_opt"]:
            print("callee LLVM level:", json.dumps(run), flush=True)
    if args.mastermind:
        command = STAGES % (WHOLE_COMMAND % (MASTERMIND_ARGV,), 60)
        result["stages_mastermind"] = {name: _snippet(checkout, command)
                                       for name, checkout in code_checkouts.items()}
        for name, run in result["stages_mastermind"].items():
            print(f"mastermind compilations, {name}: {run['compilations']}, more than once: "
                  f"{run['compiled_more_than_once']}")
        code, seed = SOLVE_MACHINE_CODE % (MASTERMIND_ARGV,), {"PYTHONHASHSEED": "0"}
        result["solve_machine_code"] = {
            name: _snippet(checkout, code, env=dict(seed, JITGAMES_WARM_UP="0"))
            for name, checkout in code_checkouts.items()}
        result["solve_machine_code"]["this, callees from the helper"] = _snippet(
            ROOT, code, helper_first=["mastermind.optimal", "4", "7", "1"],
            env=dict(seed, JITGAMES_WARM_UP="0"))
        print("solve machine code (PYTHONHASHSEED=0):", json.dumps(result["solve_machine_code"]))
    if args.main_cpu:
        summary["first_call_main_cpu"] = {
            name: {key: statistics.median(r[key] for r in runs) for key in ("wall", "main_cpu")}
            for name, runs in result["first_call_main_cpu"].items()}
    result["summary"] = summary
    print(json.dumps(summary, indent=2))
    save_result(ROOT / "bench" / "results" / (args.out or (
        "compile_mastermind.json" if args.no_solitaire else "compile.json")), result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
