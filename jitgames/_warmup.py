"""Compile a command's kernels in a helper process beside the main one, on first use.

Numba compiles one function at a time in a process (its compiler lock), so a command's
first run on an empty cache compiles its kernels one after the other on one core. A
second process can compile other kernels at the same time into the same on-disk cache:
the internal copy of a kernel called from kernels (``jitgames._jit``:
``_one_specialisation_per_type``, :func:`jitgames._jit.compile_for_kernels`) is cached
with the optimised IR that a caller links, and the main process, when it types a call
of that kernel, loads the copy from the cache instead of compiling it. The caller's
machine code is the same either way.

A *plan* names what the helper compiles: the kernel the main process compiles last
(``target``, with its argument types: when it is cached already, nothing is started)
and the callees, in the order the helper compiles them (``callees``): the reverse of
the order in which the main process meets them, so that the two work towards each
other. Whatever the helper has not finished when the main process needs it, the main
process compiles itself, as without a helper; where their work meets, each claims the
internal copy it is compiling in a folder both see (:func:`jitgames._jit.share_compiles`),
so that none is compiled twice: the main process waits for one the helper is compiling
and loads it, and the helper skips one the main process is compiling. A plan entry may
also name a kernel the command calls from Python after the target (:data:`FOR_PYTHON`);
the command then compiles the target first (:func:`compile_target`), or a callee that the
command compiles itself before its target (:data:`COMMAND`: one it would otherwise meet
only after waiting for the helper), so that both processes stay busy. A callee must be
compiled under the flags its first caller in the main process passes down (a plain
kernel under a leaf kernel: no reference counting), and before any kernel of the plan
that calls it, since the cache keys entries on argument types only. A plan may take parameters (the game's size
for ``mastermind.optimal``: the argument types depend on it). Plans:
``solitaire.study`` (:mod:`jitgames.solitaire.warm_up`, the study's first call) and
``mastermind.optimal`` (:mod:`jitgames.mastermind.warm_up`, ``mastermind optimal``'s
first search).

The helper is ``python -m jitgames._warmup PLAN [PARAMETER ...]`` (it imports the plan's
modules without their game package's ``__init__``, which it does not need). The front
door (``jitgames GAME ...``; ``python -m jitgames.solitaire`` from the package's
``__init__``, :func:`start_ahead_of_program`) starts it *ahead* (:func:`start_ahead_of`),
before the game's modules are imported, when the command's words say that it runs a plan:
its imports (about a second) and Numba's set-up then run beside the command's own, and it
waits for :func:`start` to tell it to compile (:data:`GO` and its claims' folder on its
standard input) or to end it (no helper wanted after all: the plan's target cached, no
CPU idle; the CPU time of a helper still importing counts as idle); one that nobody tells
ends with the command. Its output
goes nowhere, an error only ends it, Ctrl-C ends it at once (the default action of SIGINT),
and the main process ends it when its own first call is done (or cut short, also when
Ctrl-C ends it at once while compiling); on Linux the helper also ends with the process
that started it, however that one ends (``PR_SET_PDEATHSIG``). Cache files are written
whole and renamed into place by Numba, so a helper ended mid-way leaves none
half-written. No helper is started when kernels run as plain Python, when the plan's
target is cached, when no CPU is idle for it (one usable, or fewer than about two CPUs
idle over 50 ms, this process's included: on a busy machine two compiling processes
share the same cores and the main one only finishes later), or when
``JITGAMES_WARM_UP=0``; ``JITGAMES_WARM_UP=1`` starts it whatever the load.
"""
from __future__ import annotations

import atexit
import contextlib
import functools
import importlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

PLANS = {"solitaire.study": "jitgames.solitaire.warm_up:study_plan",
         "mastermind.optimal": "jitgames.mastermind.warm_up:optimal_plan"}
"""Plan name -> ``module:function`` returning ``(target, callees)``, each an entry
``(kernel, argument types)`` (a tuple of Numba types); a callee's entry may add the
compile flags it inherits from its first caller (``{"nrt": False}`` under a leaf
kernel: :func:`jitgames._jit.compile_for_kernels`). The function takes the plan's
parameters, strings (a game's size: ``mastermind.optimal``), as the helper's command
line passes them."""

CLAIMS_VARIABLE = "JITGAMES_COMPILE_CLAIMS"
"""Environment variable naming the folder where processes that compile into one cache
(a command and its helper) claim the internal copies they are compiling
(:func:`jitgames._jit.share_compiles`); a helper inherits it from the command."""

STOP_SECONDS = 2.0
"""How long the main process waits for the helper to end once asked (then kills it)."""


def _plan(name: str, params=()):
    module, _, function = PLANS[name].partition(":")
    return getattr(importlib.import_module(module), function)(*params)


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


IDLE_WINDOW_SECONDS = 0.05
"""How long :func:`_idle_cpus` watches the machine's CPU counters (a bounded wait)."""

IDLE_NEEDED = 1.5
"""Idle CPUs the helper needs, this process's own included (it sleeps while they are
counted): its core and the helper's, less half a CPU for the counters' coarseness
(100 ticks a second: 10 ticks over 50 ms on 2 CPUs)."""


def _cpu_ticks(text: str) -> tuple[int, int]:
    """``(idle, total)`` ticks of the machine's CPUs from the text of ``/proc/stat``:
    idle and waiting for I/O count as idle; time given to niced processes does not
    (with autogroup scheduling, the default of many Linux distributions, sessions share
    the CPUs equally whatever the nice values within them, so another session's niced
    job still takes a core from a second compiling process)."""
    fields = [int(v) for v in text.split("\n", 1)[0].split()[1:9]]
    return fields[3] + fields[4], sum(fields)


def _process_ticks(pid: int) -> int:
    """CPU ticks (user and system) process ``pid`` has used, from ``/proc/PID/stat``."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rpartition(")")[2].split()
    return int(fields[11]) + int(fields[12])


def _idle_cpus(window: float = IDLE_WINDOW_SECONDS, ours=()) -> float | None:
    """CPUs idle over the next ``window`` seconds (this process sleeps meanwhile), from
    ``/proc/stat``, the CPU time of the processes ``ours`` (process ids: a helper started
    ahead, still importing) counted as idle; None where it cannot be read."""
    import time

    try:
        with open("/proc/stat") as f:
            idle, total = _cpu_ticks(f.read())
        used = sum(_process_ticks(pid) for pid in ours)
        time.sleep(window)
        with open("/proc/stat") as f:
            idle_after, total_after = _cpu_ticks(f.read())
        used = sum(_process_ticks(pid) for pid in ours) - used
    except (OSError, ValueError, IndexError):  # not Linux, or another format
        return None
    if total_after <= total:  # no tick elapsed: nothing measured
        return None
    return (os.cpu_count() or 1) * min(1.0, (idle_after - idle + used) / (total_after - total))


def _core_to_spare(ours=()) -> bool:
    """Whether a CPU is idle for the helper: more than one usable, and over a short
    window (:func:`_idle_cpus`, the processes ``ours`` counted as idle) at least
    :data:`IDLE_NEEDED` CPUs idle; where the CPU
    counters cannot be read, the one-minute load average leaving one free beside this
    process. (The load average lags: a minute after a busy spell it still reads about 1
    on an idle machine, which kept the helper off.)"""
    cpus = _cpus()
    if cpus < 2:
        return False
    idle = _idle_cpus(ours=ours)
    if idle is not None:
        return idle >= IDLE_NEEDED
    try:
        load = os.getloadavg()[0]
    except (OSError, AttributeError):  # no load average here: assume the machine is ours
        load = 0.0
    return load <= cpus - 1


def wanted(name: str, *params: str, ours=()) -> bool:
    """Whether a helper for plan ``name`` (with ``params``) would do any good now:
    kernels compiled, the plan's target not cached yet, and a CPU to spare
    (:func:`_core_to_spare`; ``ours``: ids of processes whose CPU time counts as idle,
    a helper started ahead), unless ``JITGAMES_WARM_UP`` says ``0`` (never) or ``1``
    (whatever the load)."""
    import numba

    from ._jit import is_cached

    setting = os.environ.get("JITGAMES_WARM_UP")
    if numba.config.DISABLE_JIT or setting == "0":
        return False
    (kernel, args), _ = _plan(name, params)
    if is_cached(kernel, args):  # first: a warm cache never waits for the idle window
        return False
    return setting == "1" or _core_to_spare(ours)


_AHEAD: dict = {}
"""Helpers started ahead (:func:`start_ahead`), by ``(plan, parameters)``, waiting to be
told to compile or to end."""

GO = b"go "
"""What a helper started ahead reads on its standard input before it compiles, followed
by its claims' folder and a newline."""


def _spawn(name: str, params, ahead: bool) -> subprocess.Popen | None:
    """The helper process of plan ``name`` with ``params`` (None where none can be
    started), with a folder of its own for the claims it shares with this process; one
    started ``ahead`` waits, its imports done, for :data:`GO` on its standard input, and
    gets its folder only then (:func:`start`: a command killed before it leaves none)."""
    root = str(Path(__file__).resolve().parent.parent)  # this package, wherever it is
    path = os.environ.get("PYTHONPATH")
    env = dict(os.environ, PYTHONPATH=root if not path else root + os.pathsep + path)
    env["JITGAMES_WARM_UP_PARENT"] = str(os.getpid())
    claims = None if ahead else _claims_folder()
    if not ahead:
        if claims is None:  # no temporary folder: no helper, the main process compiles alone
            return None
        env[CLAIMS_VARIABLE] = claims
    command = [sys.executable, "-m", "jitgames._warmup", *([AHEAD_FLAG] if ahead else []),
               name, *params]
    try:
        helper = subprocess.Popen(command, env=env,
                                  stdin=subprocess.PIPE if ahead else subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  close_fds=True)
    except OSError:  # no process to spare: the main process compiles everything
        if claims is not None:
            shutil.rmtree(claims, ignore_errors=True)
        return None
    helper.claims = claims
    helper.end_now = functools.partial(_end_now, helper)
    _end_with_this_process(helper)
    return helper


def _end_with_this_process(helper: subprocess.Popen) -> None:
    """Ctrl-C or SIGTERM while importing or compiling ends this process at once
    (:mod:`jitgames._interrupt`), with no ``finally`` block or ``atexit`` handler run:
    have ``helper`` killed there too, and its claims removed (:mod:`jitgames._at_end`)."""
    from ._at_end import also_at_end

    also_at_end(helper.end_now)


AHEAD_FLAG = "--when-told"
"""The helper's first argument when started ahead (:func:`start_ahead`)."""


def start_ahead(name: str, *params: str) -> subprocess.Popen | None:
    """Start plan ``name``'s helper now, before this process imports the kernels, so
    that its own imports (about a second) run beside this process's; it compiles
    nothing until :func:`start` tells it to (or ends it, when no helper is wanted after
    all; it also ends, unused, with this process). Not started where it could never be
    used: ``JITGAMES_WARM_UP=0``, kernels run as plain Python, one usable CPU."""
    if (os.environ.get("JITGAMES_WARM_UP") == "0" or _cpus() < 2
            or os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")):
        return None
    helper = _spawn(name, params, ahead=True)
    if helper is not None:
        if not _AHEAD:
            atexit.register(_discard_unused)
        _discard(_AHEAD.pop((name, tuple(params)), None))  # a second start (tests call main)
        _AHEAD[(name, tuple(params))] = helper
    return helper


def _discard_unused() -> None:
    """End the helpers started ahead that no :func:`start` took (at exit: the command
    took another path), and remove their claims' folders."""
    while _AHEAD:
        _discard(_AHEAD.popitem()[1])


_NOT_A_STUDY = ("--help", "--show", "--deal-file", "--deals", "--bias", "--compare-shuffles",
                "--rules")
"""Options of ``jitgames solitaire`` that make it something else than a study of N
deals with the study's rules (``--rules etude`` excepted), for :func:`_solitaire_study`."""


def _solitaire_study(argv) -> bool:
    """Whether ``jitgames solitaire ARGV`` looks like a study of N deals, the command
    that runs plan ``solitaire.study``, from its words alone (its parser is not imported
    yet): no sub-command first, no option, or abbreviation of one, that asks for another
    mode. A wrong guess costs little: the helper started ahead only imports."""
    if not argv or argv[0] in ("play", "stats", "check"):
        return False
    words = list(argv)
    for i, word in enumerate(words):
        if word == "-h":
            return False
        option, _, value = word.partition("=")
        if len(option) < 3 or not option.startswith("--"):
            continue
        if option == "--rules" or (len(option) > 3 and "--rules".startswith(option)):
            value = value or (words[i + 1] if i + 1 < len(words) else "")
            if value != "etude":
                return False
        elif any(mode.startswith(option) for mode in _NOT_A_STUDY):
            return False
    return True


AHEAD_OF = {"solitaire": ("solitaire.study", _solitaire_study,
                          ("solitaire/search.py", "search.solve_decks"))}
"""Front-door command (``jitgames GAME ...``) -> the plan its helper compiles, the test
of the command's words that says it runs that plan, and where the plan's target is
defined: its module (a path within the package) and the name Numba gives its cache
files (:func:`start_ahead_of`)."""


def _probably_cached(module: str, name: str) -> bool:
    """Whether Numba's on-disk cache seems to hold function ``name`` of ``module`` (a
    path within this package): an index file of it in the folder Numba 0.68 caches that
    module's functions in (under ``NUMBA_CACHE_DIR`` when set, else the module's
    ``__pycache__`` or the user's cache folder). A hint read without importing Numba:
    an index may hold other entries (other argument types, older source), and another
    Numba may keep its files elsewhere; either way the command still checks the cache
    itself (:func:`wanted`)."""
    import glob
    import hashlib

    folder = os.path.dirname(os.path.join(os.path.dirname(os.path.abspath(__file__)), module))
    mirror = f"{os.path.basename(folder)}_{hashlib.sha1(folder.encode()).hexdigest()}"
    if os.environ.get("NUMBA_CACHE_DIR"):
        folders = [os.path.join(os.environ["NUMBA_CACHE_DIR"], mirror)]
    else:
        user = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
        folders = [os.path.join(folder, "__pycache__"), os.path.join(user, "numba", mirror)]
    return any(glob.glob(os.path.join(glob.escape(f), glob.escape(name) + "-*.nbi"))
               for f in folders)


def start_ahead_of(game: str, argv) -> None:
    """From ``jitgames GAME ARGV``'s front door, before the game's modules are imported:
    start the helper of the plan the command will run ahead (:func:`start_ahead`), if it
    has one (:data:`AHEAD_OF`) and its target is not cached already, as far as the cache's
    files tell (:func:`_probably_cached`: on a warm cache the helper's imports would
    only take CPU from the command's)."""
    plan = AHEAD_OF.get(game)
    if plan is not None and plan[1](argv) and not _probably_cached(*plan[2]):
        start_ahead(plan[0])


def start_ahead_of_program(package: str) -> None:
    """From the ``__init__`` of game package ``package`` (``jitgames.solitaire``): when
    this process is ``python -m PACKAGE ARGS``, :func:`start_ahead_of` its game with ARGS
    before the package's own imports (most of the command's start-up), as the front door
    does for ``jitgames GAME ARGS``. Python runs the package's ``__init__`` while it
    locates the package's ``__main__``, with ``sys.argv`` then ``["-m", *ARGS]``; any
    other import of the package (the front door's, a program's) starts nothing here."""
    command = getattr(sys, "orig_argv", ())
    if sys.argv[:1] != ["-m"] or "-m" not in command:
        return
    at = command.index("-m")
    if command[at + 1:at + 2] in ([package], [package + ".__main__"]):
        start_ahead_of(package.rpartition(".")[2], sys.argv[1:])


def start(name: str, *params: str) -> subprocess.Popen | None:
    """Start the helper process of plan ``name`` with ``params`` if :func:`wanted`
    (else None): the one started ahead for it (:func:`start_ahead`) is told to compile,
    or ended when not wanted."""
    ahead = _AHEAD.pop((name, tuple(params)), None)
    if ahead is not None and ahead.poll() is not None:  # it failed: start another
        _discard(ahead)
        ahead = None
    if not wanted(name, *params, ours=() if ahead is None else (ahead.pid,)):
        _discard(ahead)
        return None
    if ahead is None:
        helper = _spawn(name, params, ahead=False)
    else:
        helper = ahead
        helper.claims = _claims_folder()
        try:
            if helper.claims is None:
                raise OSError("no temporary folder")
            helper.stdin.write(GO + helper.claims.encode() + b"\n")
            helper.stdin.close()
        except OSError:  # it has ended meanwhile: the main process compiles alone
            _discard(helper)
            return None
    if helper is not None:
        from ._jit import share_compiles

        share_compiles(helper.claims)
    return helper


def _discard(helper: subprocess.Popen | None) -> None:
    """End a helper started ahead that will not compile, and reap it."""
    if helper is None:
        return
    from ._at_end import no_longer_at_end

    no_longer_at_end(helper.end_now)
    helper.end_now()
    with contextlib.suppress(subprocess.TimeoutExpired):
        helper.wait(STOP_SECONDS)


def _end_now(helper: subprocess.Popen) -> None:
    """Kill ``helper`` and remove the folder of claims it shared with this process."""
    helper.kill()
    if helper.claims is not None:
        shutil.rmtree(helper.claims, ignore_errors=True)


def _claims_folder() -> str | None:
    """A new folder for a helper's claims (None where none can be made)."""
    try:
        return tempfile.mkdtemp(prefix="jitgames-compiling-")
    except OSError:
        return None


def stop(helper: subprocess.Popen | None) -> None:
    """End ``helper`` (if still running) and reap it, waiting at most a few seconds."""
    if helper is None:
        return
    from ._at_end import no_longer_at_end

    no_longer_at_end(helper.end_now)
    if helper.poll() is None:
        helper.terminate()
        try:
            helper.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            helper.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                helper.wait(STOP_SECONDS)
    from ._jit import share_compiles

    share_compiles(None)
    if helper.claims is not None:
        shutil.rmtree(helper.claims, ignore_errors=True)


@contextlib.contextmanager
def helper_compiling(name: str, *params: str):
    """Inside the block, a helper process compiles plan ``name``'s callees (with
    ``params``; when it would help, :func:`wanted`); it is ended when the block ends,
    however it ends."""
    helper = start(name, *params)
    try:
        yield helper
    finally:
        stop(helper)


FOR_PYTHON = "python"
"""In place of a plan entry's inherited flags: compile the kernel for calls from Python
(a kernel the command calls from Python after the plan's target)."""

COMMAND = "command"
"""In place of a plan entry's inherited flags: the command compiles this callee itself,
for calls from kernels, before the plan's target (:func:`compile_target`), while the
helper compiles the entries before it; the helper, when it gets there, finds it cached
(or claimed) and moves on. For a callee the command would otherwise meet late, after
waiting for the helper."""


def compile_plan(name: str, *params: str) -> None:
    """Compile the callees of plan ``name`` (with ``params``) for calls from kernels,
    in its order, into the cache (those cached already are loaded instead); an entry
    marked :data:`FOR_PYTHON` for calls from Python."""
    from ._jit import compile_for_kernels

    _, callees = _plan(name, params)
    for kernel, args, *inherited in callees:
        if inherited == [FOR_PYTHON]:
            kernel.compile(tuple(args))
        elif inherited == [COMMAND]:
            compile_for_kernels(kernel, args)
        else:
            compile_for_kernels(kernel, args, *inherited)


def compile_target(name: str, *params: str) -> None:
    """Compile plan ``name``'s target (with ``params``) for calls from Python, or load it
    from the cache, here: a command that compiles its target before the kernels it calls
    first (the study's deal generation) leaves those to its helper. On an empty cache the
    plan's :data:`COMMAND` entries are compiled first, for calls from kernels."""
    import numba

    from ._jit import compile_for_kernels, is_cached

    if numba.config.DISABLE_JIT:
        return
    (kernel, args), callees = _plan(name, params)
    if not is_cached(kernel, args):
        for callee, callee_args, *how in callees:
            if how == [COMMAND]:
                compile_for_kernels(callee, callee_args)
    kernel.compile(tuple(args))


def _end_with_parent() -> None:
    """Have Linux end this process when the process that started it ends, however it
    ends (killed included); elsewhere nothing (the main process ends it on its exits)."""
    parent = os.environ.get("JITGAMES_WARM_UP_PARENT")
    if not sys.platform.startswith("linux") or parent is None:
        return
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if str(os.getppid()) != parent:  # it ended before the line above
        os._exit(0)


def _skip_package_init(name: str) -> None:
    """Let plan ``name``'s module be imported without running its game package's
    ``__init__`` (the package's public API: modules whose kernels the plan does not
    compile; for the study's plan about 0.2 s of a 1.3 to 1.5 s start-up). The package is
    registered unexecuted, so its modules import as they would; the helper only."""
    import importlib.util

    package = PLANS[name].partition(":")[0].rpartition(".")[0]
    if package in sys.modules:
        return
    spec = importlib.util.find_spec(package)
    if spec is not None and spec.submodule_search_locations is not None:
        sys.modules[package] = importlib.util.module_from_spec(spec)


def _set_up_numba() -> None:
    """Load Numba's typing and lowering registries now, as its first compile or cache
    look-up in a process would (about 0.2 s): a helper started ahead does it while the
    command still imports, when its own imports are done first."""
    from numba.core.registry import cpu_target

    cpu_target.target_context.refresh()


def main(argv=None) -> int:
    """The helper process: ``python -m jitgames._warmup PLAN [PARAMETER ...]``."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends it at once, silently
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _end_with_parent()
    name, *params = sys.argv[1:] if argv is None else argv
    told = name == AHEAD_FLAG
    if told:
        name, *params = params
    _skip_package_init(name)
    if told:
        _plan(name, params)  # the imports, while the command does its own
        _set_up_numba()
        line = sys.stdin.buffer.readline()
        if not line.startswith(GO) or not line.endswith(b"\n"):  # ended unused
            return 0
        from ._jit import share_compiles

        share_compiles(line[len(GO):-1].decode())
    compile_plan(name, *params)
    return 0


if __name__ == "__main__":
    sys.exit(main())
