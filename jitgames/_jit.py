"""The one place that wraps :func:`numba.njit`.

Every kernel in jitgames is decorated with :func:`jit` (or ``jit(parallel=True)``),
never with ``numba.njit`` directly, so that compilation options are uniform:

- ``cache=True``: compiled machine code is kept in ``__pycache__`` between runs;
- ``nogil=True``: kernels release the GIL, so Python threads (Dask workers,
  progress display) keep running beside them;
- ``error_model="numpy"``: no Python exception checks on division (integer code
  here never divides by zero; the check only costs speed);
- no fastmath: it changes float results and does nothing for integer code;
- ``jit(leaf=True)`` for kernels that create no array: no reference counting of
  their array arguments (Numba's NRT). Small kernels called in a search loop (make a
  move, look up the table) otherwise pay an atomic increment and decrement per array
  argument per call; in the solitaire search that was a quarter of the time.

Setting the environment variable ``NUMBA_DISABLE_JIT=1`` runs every kernel as plain
Python; the test suite uses that to exercise kernel bodies under coverage. Every kernel
is recorded in :data:`KERNELS`; in the plain-Python mode each call is also recorded, so
a test can prove that the plain-Python run executed every kernel
(:func:`executed_kernels`).

Callbacks of a fixed C signature (a strategy handed to an engine kernel as a
first-class function, so the engine compiles once for all of them) are made with
:func:`jit_callback`, the one place that wraps ``numba.cfunc``.

Dynamic schedules: ``prange`` gives each thread one fixed contiguous block of its
range (Numba 0.68, omp and workqueue layers, ``parallel_chunksize`` or not), so a
parallel kernel whose items differ much in cost runs one slot per thread, each taking
its next items from a shared counter with :func:`fetch_add` (an atomic add).

Threads: Numba's OpenMP layer spins idle threads by default, which on a shared
2-core machine slows parallel kernels many times over when other processes are busy;
``OMP_WAIT_POLICY=PASSIVE`` is set unless the user has chosen a policy
(``OMP_WAIT_POLICY``, or a spin count of their own, ``GOMP_SPINCOUNT``: idle threads
then spin that many rounds before they sleep, which on a machine with free cores
saves the wake-up of a sleeping thread at every parallel call). OpenMP reads both once,
when Numba first starts its threads, so they are set here, before any kernel runs.
Kernels can ask how many threads a parallel loop would use (:func:`threads_now`),
read and write a shared counter atomically (:func:`atomic_load`, :func:`atomic_store`,
:func:`fetch_add_acq_rel`), hint the CPU that they spin (:func:`spin_pause`), give way
to another thread (:func:`yield_thread`) and hand
arrays to a kernel waiting in another thread by address (:func:`address_of`,
:func:`array_at`): the persistent step pool of the vector environments
(:mod:`jitgames.envs.step_pool`) is built from these. Python can call a compiled
kernel without the dispatcher's type checks (:func:`compiled_entry`).

Compile time (first use on an empty cache; docs/performance.md has the measurements):
Numba's inliner (``jit(inline=True)``) is wrapped so that it copies a callee's IR once
per inlining, as one whole (Numba copies it block by block, then copies the copy:
:func:`_inlining_copies_the_callee_once`);
a call's type is resolved once per compilation, not at every round of type inference
and again at lowering (:func:`_resolving_each_call_type_once`); and a kernel called from
another kernel is compiled as an internal copy without Python or C entry points, since
only the copy linked into its caller ever runs (:func:`_one_specialisation_per_type`;
cached in files of its own, so that a helper process can compile it ahead of the main
one: :func:`compile_for_kernels`, :mod:`jitgames._warmup`), unless the kernel was
already compiled for a call from Python with the same argument types: then that
compilation is linked instead of compiling the function again; Numba's listing of an IR
instruction's variables walks its values once (:func:`_listing_variables_without_recursion_per_value`).
The machine code of the callers is unchanged. Two processes compiling into one cache (a command and its helper)
claim the internal copies they compile, so that neither compiles one the other is
compiling (:func:`share_compiles`). LLVM types' ABI sizes are computed once per process
(:func:`_abi_sizes_computed_once`).

On-disk cache: Numba keeps a kernel's machine code with the source stamp of the
kernel's own file only, so a kernel whose file is unchanged would be loaded with the
code of a callee in *another* module that has changed since (an edit, a ``git pull``
on an editable install): stale code, slower (1.4x measured on Mastermind) or wrong.
Every kernel and callback here is cached under the fingerprint of the whole package's
source instead (:func:`_package_cache`): any change to any module makes every cache
entry miss once and be compiled again.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import sys
from pathlib import Path

if "GOMP_SPINCOUNT" not in os.environ:  # a spin count of the user's own is their choice
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numba  # noqa: E402  (after the OpenMP setting)
from numba import prange  # noqa: E402


def _load_array_math_without_blas_probe():
    """Import Numba's array-math registry while SciPy's BLAS module reads as absent.

    On its first compilation or cache load Numba imports ``numba.np.arraymath``, which
    probes for BLAS by importing ``scipy.linalg`` (a quarter of a second, a third of the
    start-up of a short run). No kernel here calls BLAS (``np.dot`` of float arrays);
    with the probe answered "absent" such a call would fall back to a plain loop. The
    marker is removed at once, so SciPy itself stays importable.
    """
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return
    sys.modules["scipy.linalg.cython_blas"] = None  # an import of it raises ImportError
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        del sys.modules["scipy.linalg.cython_blas"]


def _inlining_copies_the_callee_once():
    """Make Numba's ``inline="always"`` copy a callee's IR as one whole, not block by block.

    Numba 0.68 (``InlineWorker.inline_ir``) deep-copies the callee's IR one block at a
    time, each block with a fresh copy memo, so every block drags along its own copy of
    the callee's variable scope (every variable of the function); an inlined kernel
    that itself inlined others has a large scope, and copying it once per block took a
    fifth of the solitaire study's first compilation (measured, bench/compile.py). Here
    the copies made during one ``inline_ir`` share one memo: the blocks of a copy share
    one scope, as the blocks of the callee itself do (Numba keeps only the first
    block's scope anyway: it renames the callee's variables from it). The resulting IR
    is the same function; only the copying is cheaper.

    ``inline_ir`` then copies its copy again, block by block, as an "unmutated original"
    that it returns first; both of Numba's callers (``InlineInlinables`` for
    ``inline="always"`` kernels, ``InlineOverloads`` for overloads) throw that away.
    That second copy is skipped here (the blocks are handed over as they are, so the
    value thrown away is not a copy): in the study's first call it was half the copying.
    """
    import copy
    import types as pytypes
    from numba.core import inline_closurecall

    worker = inline_closurecall.InlineWorker
    if getattr(inline_closurecall, "copy", None) is not copy or not hasattr(worker, "inline_ir"):
        return  # another Numba: leave it as it is
    inline_ir = worker.inline_ir

    @functools.wraps(inline_ir)
    def inline_ir_copying_once(self, caller_ir, block, i, callee_ir, *args, **kwargs):
        memo = {}
        left = [len(callee_ir.blocks)]  # the first copy's deep copies: one per block

        def deepcopy(value):
            if not left[0]:  # the copy of the copy, whose result nobody reads
                return value
            left[0] -= 1
            return copy.deepcopy(value, memo)

        inline_closurecall.copy = pytypes.SimpleNamespace(deepcopy=deepcopy)
        try:
            return inline_ir(self, caller_ir, block, i, callee_ir, *args, **kwargs)
        finally:
            inline_closurecall.copy = copy

    worker.inline_ir = inline_ir_copying_once


def _resolving_each_call_type_once():
    """Make Numba resolve the type of a call of a built-in function once per compilation.

    Numba 0.68 types ``a[i]``, ``a + b``, ``bool(x)`` ... by trying the function's typing
    templates in turn (each failed one formats an error message) every time the call
    is looked at: at each round of type inference and again when the call is lowered.
    In the solitaire study's first call that was 3,805 resolutions of 254 distinct
    calls (``getitem`` of an int64 array alone 478 times, about a millisecond each).
    Here the answer is kept per function, argument types and compilation (the flags
    object the compilation pushes on Numba's config stack: answers may depend on it,
    so they are never shared between compilations), and a repeated call gets the same
    signature and implementation key as the first. Only successful resolutions are
    kept; the last few compilations' answers are held (nested compilations of callees
    interleave with their caller's).
    """
    import collections
    from numba.core import targetconfig
    from numba.core.types import functions

    base = functions.BaseFunction
    resolve = base.get_call_type
    if getattr(resolve, "jitgames_patch", False):
        return
    by_compilation = collections.OrderedDict()  # id(flags) -> (flags, {key: (sig, impl key)})

    @functools.wraps(resolve)
    def get_call_type(self, context, args, kws):
        flags = targetconfig.ConfigStack.top_or_none()
        try:
            key = (self, context, tuple(args), tuple(kws.items()))
            hash(key)
        except TypeError:  # an unhashable argument type: resolve as Numba does
            return resolve(self, context, args, kws)
        entry = by_compilation.get(id(flags))
        if entry is None or entry[0] is not flags:
            entry = (flags, {})  # holding ``flags`` keeps its id from being reused
            by_compilation[id(flags)] = entry
            while len(by_compilation) > 16:
                by_compilation.popitem(last=False)
        else:
            by_compilation.move_to_end(id(flags))
        known = entry[1].get(key)
        if known is not None:
            sig, impl_key = known
            self._impl_keys[sig.args] = impl_key  # as the first resolution left it
            return sig
        sig = resolve(self, context, args, kws)
        if sig is not None:
            entry[1][key] = (sig, self._impl_keys[sig.args])
        return sig

    get_call_type.jitgames_patch = True
    base.get_call_type = get_call_type


def _abi_sizes_computed_once():
    """Make Numba compute the ABI size and alignment of an LLVM type once per process.

    llvmlite 0.50 answers ``Type.get_abi_size`` by writing a module declaring a global
    of the type, parsing it with LLVM and asking the parsed global: a few milliseconds
    for every array structure, record and ``alloca`` that Numba's lowering sizes (169
    times in the lowering of the solitaire study's callees alone). The answer depends on
    the type's text and the target's data layout only, so it is kept per (data
    layout, type text); the IR produced is the same.
    """
    from numba.core import base

    context = base.BaseContext
    if getattr(context.get_abi_sizeof, "jitgames_patch", False):
        return
    size_of, alignment_of = context.get_abi_sizeof, context.get_abi_alignment
    sizes, alignments = {}, {}

    def remembered(compute, known):
        @functools.wraps(compute)
        def lookup(self, ty):
            key = (str(self.target_data), str(ty))
            value = known.get(key)
            if value is None:
                value = known[key] = compute(self, ty)
            return value

        lookup.jitgames_patch = True
        return lookup

    context.get_abi_sizeof = remembered(size_of, sizes)
    context.get_abi_alignment = remembered(alignment_of, alignments)


def _listing_variables_without_recursion_per_value():
    """Make Numba list an IR instruction's variables with a single walk over its values.

    Numba 0.68 lists the variables an instruction reads or writes (``Inst.list_vars``,
    called by its use-def, liveness and SSA analyses for every instruction, pass after
    pass) by a recursive call per attribute value, with four ``isinstance`` tests each,
    a new list per value, and its source location and names among the values: 558,000
    calls in the solitaire study's first call, about 2 % of its CPU time. Here one walk
    fills one list: the values of the common exact types (a variable, a string, a
    number, a location, a list, a tuple, a dict) are told apart by their type alone, an
    instruction whose ``list_vars`` is Numba's generic one is walked in place, and
    anything else goes through the same tests in the same order as before. The same
    variables come out in the same order.
    """
    from numba.core import ir

    inst = ir.Inst
    if getattr(inst._rec_list_vars, "jitgames_patch", False):
        return
    if not numba.__version__.startswith("0.68."):
        return  # the walk below is Numba 0.68's, checked against it (tests/test_jit.py)
    var, statement, expression = ir.Var, ir.Stmt.list_vars, ir.Expr.list_vars
    nothing = {str, int, float, bool, type(None), ir.Loc}

    def collect(value, out):
        kind = type(value)
        if kind is var:
            out.append(value)
        elif kind in nothing:
            pass
        elif kind is list or kind is tuple:
            for v in value:
                collect(v, out)
        elif kind is dict:
            for v in value.values():
                collect(v, out)
        elif isinstance(value, var):
            out.append(value)
        elif isinstance(value, inst):
            own = kind.list_vars
            if own is statement:
                collect(value.__dict__, out)
            elif own is expression:
                collect(value._kws, out)
            else:
                out.extend(value.list_vars())
        elif isinstance(value, (list, tuple)):
            for v in value:
                collect(v, out)
        elif isinstance(value, dict):
            for v in value.values():
                collect(v, out)

    def _rec_list_vars(self, value):
        out = []
        collect(value, out)
        return out

    _rec_list_vars.jitgames_patch = True
    _rec_list_vars.jitgames_original = inst._rec_list_vars  # (the test's reference)
    inst._rec_list_vars = _rec_list_vars


if not numba.config.DISABLE_JIT:
    _load_array_math_without_blas_probe()
    _inlining_copies_the_callee_once()
    _resolving_each_call_type_once()
    _abi_sizes_computed_once()
    _listing_variables_without_recursion_per_value()

from .errors import InputError  # noqa: E402
from ._warmup import CLAIMS_VARIABLE  # noqa: E402  (the helper's module imports no kernels)

__all__ = ["jit", "jit_callback", "prefetch", "mul_high", "fetch_add", "fetch_add_acq_rel", "atomic_load",
           "atomic_load_with", "atomic_store", "spin_pause", "yield_thread", "address_of", "array_at",
           "threads_now",
           "compiled_entry", "prange", "thread_count", "threads", "KERNELS", "executed_kernels",
           "compile_notice", "package_fingerprint"]

_OPTIONS = dict(cache=True, nogil=True, error_model="numpy")

KERNELS: dict[str, object] = {}
"""Every kernel made by :func:`jit`, by qualified name (``module.function``)."""

_executed: set[str] = set()


def jit(func=None, *, parallel: bool = False, leaf: bool = False, inline: bool = False):
    """Compile ``func`` as a jitgames kernel.

    Use as ``@jit``, ``@jit(parallel=True)`` (enables ``prange``), ``@jit(leaf=True)``
    or ``@jit(inline=True)``. An *inline* kernel is copied into every kernel that calls
    it (Numba's ``inline="always"``), for small per-item steps called in a ``prange``
    loop, where a call that passes records of arrays costs more than the work (the
    batched environments measured twice the time without it).
    A *leaf* kernel creates no array and returns none (it reads and writes the arrays
    it is given, and calls only leaf kernels); it is compiled without Numba's array
    reference counting, which otherwise costs an atomic increment and decrement of
    every array argument at every call that is not inlined away. Numba refuses to
    compile one that creates an array; one that returned an array (even an argument or
    a view of one) would hand its caller a reference that was never counted.
    """
    options = dict(_OPTIONS, parallel=parallel)
    if leaf:
        options["_nrt"] = False  # Numba's (underscored) switch for its reference counting
    if inline:
        options["inline"] = "always"

    def wrap(f):
        name = f"{f.__module__}.{f.__qualname__}"
        if numba.config.DISABLE_JIT:
            kernel = _recording(f, name)
        else:
            kernel = numba.njit(**options)(f)
            kernel._cache = _package_cache(f)
            kernel = _one_specialisation_per_type(kernel, options)
        KERNELS[name] = kernel
        return kernel

    return wrap if func is None else wrap(func)


def _one_specialisation_per_type(kernel, options):
    """Make calls from other kernels use one internal copy of ``kernel``, compiled once
    per argument type without the entry points only Python needs.

    - Constants: Numba types a constant argument in a kernel-to-kernel call as a
      literal (``Literal[int](0)``) and compiles the callee once more for it, and again
      for every other constant: a second or third copy of the callee and everything it
      calls, which costs compile time on first use and gains nothing here (LLVM inlines
      the small callees and propagates the constants anyway). Each call is typed with
      the constants' plain types (``int64``, ``bool``) instead.
    - Internal copy: a kernel called from another kernel runs only inside its caller
      (Numba links the callee's optimised LLVM module into the caller's, which is then
      optimised and turned into machine code as a whole). Such calls are typed and
      lowered against a second dispatcher of the same function compiled without
      Numba's Python entry point (argument unboxing) and C-callback entry point:
      per small kernel that was a third of its compile time, for wrappers that were
      built, optimised and turned into machine code only to be thrown away.
      The caller's machine code is unchanged (same callee function, same module).
      The copy is cached on disk under index and data files of its own (``-internal``
      added to the kernel's file names, never loaded for a call from Python): a caller
      compiled later, or in another process (a helper compiling callees ahead of the
      main process, :mod:`jitgames._warmup`), links it from there; writing it costs
      little, since Numba keeps each library's object code anyway.
      A call from Python still compiles ``kernel`` itself, as before.
    - No second compilation: a kernel called from Python and then from a kernel with
      the same argument types (Mastermind's ``set_bound``: 1.5-2 CPU s each time) is
      linked from the compilation Python's call made; an internal copy is made only for
      argument types Python has not compiled yet (and once made, it keeps serving them).

    ``inline`` kernels are copied into their callers as IR and need neither. Nor do
    kernels that call themselves (``minimax``): Numba types a recursive call only
    against the dispatcher being compiled, so an internal copy would recurse into its
    own compilation.
    """
    from numba.core import sigutils, types

    recursive = kernel.py_func.__name__ in kernel.py_func.__code__.co_names
    if options.get("inline") == "always" or recursive:
        own_call_template = kernel.get_call_template

        def get_call_template(args, kws):
            return own_call_template(tuple(types.unliteral(a) for a in args),
                                    {k: types.unliteral(v) for k, v in kws.items()})

        kernel.get_call_template = get_call_template
        return kernel

    internal_options = dict(options, cache=False, no_cpython_wrapper=True,
                            no_cfunc_wrapper=True)
    own_call_template = kernel.get_call_template
    internal = []  # made on the first call from a kernel
    own_overload = kernel.get_overload

    def internal_dispatcher():
        if not internal:
            copy = numba.njit(**internal_options)(kernel.py_func)
            copy._cache = _package_cache(kernel.py_func, variant="internal")
            internal.append(copy)
        return internal[0]

    def get_call_template(args, kws):
        args = tuple(types.unliteral(a) for a in args)
        kws = {k: types.unliteral(v) for k, v in kws.items()}
        if not kws and args in kernel.overloads and not (internal and args in internal[0].overloads):
            # Already compiled for a call from Python (Mastermind's set_bound is called
            # from both): link that compilation rather than compile the function again.
            return own_call_template(args, kws)
        copy = internal_dispatcher()
        if args in copy.overloads or kws:
            return copy.get_call_template(args, kws)
        with _claim(kernel, args, wait=True):
            return copy.get_call_template(args, kws)

    def get_overload(sig):
        # the implementation a typed kernel-to-kernel call is lowered to
        args, _ = sigutils.normalize_signature(sig)
        if internal and tuple(args) in internal[0].overloads:
            return internal[0].overloads[tuple(args)].entry_point
        return own_overload(sig)

    kernel.get_call_template = get_call_template
    kernel.get_overload = get_overload
    kernel.internal_copy = internal  # for bench/compile.py's per-kernel figures
    kernel.internal_dispatcher = internal_dispatcher  # for compile_for_kernels
    return kernel


def compile_for_kernels(kernel, args, inherited=None) -> None:
    """Compile ``kernel``'s internal copy for calls from kernels with the Numba argument
    types ``args`` (a tuple), or load it from the cache, as the first kernel calling it
    with those types would; a kernel called from Python first with those types links
    that compilation instead, so nothing is compiled for it here. For a helper process
    that fills the cache ahead of the main one (:mod:`jitgames._warmup`).

    ``inherited``: the compile flags the kernel takes from that first caller (a dict,
    e.g. ``{"nrt": False}``). Numba passes a caller's reference counting switch down to
    callees that do not set their own: a plain kernel first called from a ``leaf``
    kernel is compiled without reference counting, into other code than from Python or
    a plain caller. Its cache entry is keyed on the argument types only, so a helper
    must compile it under the same flags as the main process would, or the main process
    links other code (measured on Mastermind's ``response``: no longer inlined).
    """
    if numba.config.DISABLE_JIT or not hasattr(kernel, "internal_dispatcher"):
        return
    args = tuple(args)
    if args in kernel.overloads or args in kernel.internal_dispatcher().overloads:
        return
    with _claim(kernel, args, wait=False) as claimed:
        if not claimed:  # the other process is compiling it: no need to do it twice
            return
        if not inherited:
            kernel.internal_dispatcher().compile(args)
            return
        from numba.core.compiler import Flags
        from numba.core.targetconfig import ConfigStack

        caller = Flags()  # what the first caller's compilation holds on Numba's config stack
        for name, value in inherited.items():
            setattr(caller, name, value)
        with ConfigStack().enter(caller):
            kernel.internal_dispatcher().compile(args)


CLAIM_WAIT_SECONDS = 120.0
"""The longest a process waits for the other to finish an internal copy it claimed
(then it compiles the copy itself)."""

_claims = {"folder": os.environ.get(CLAIMS_VARIABLE)}  # a helper's, from its command


def share_compiles(folder: str | None) -> None:
    """Claim each internal copy this process compiles in ``folder`` (None: no longer),
    where another process compiling into the same cache claims its own.

    Two processes compiling the same kernels into one cache (a command and its helper,
    :mod:`jitgames._warmup`) otherwise compile some kernels both, where their work meets
    (Numba's cache has no notion of a compilation in progress). With claims, a process
    that needs an internal copy the other is compiling waits for it and loads it from
    the cache instead (a bounded wait, ended early when the other process ends), and
    the helper skips a kernel of its plan that the command is compiling. Claims are
    held only while a copy compiles, and a copy's callees are claimed while it holds
    its own: since calls between kernels form no cycle, two processes never wait for
    each other.
    """
    _claims["folder"] = folder


@contextlib.contextmanager
def _claim(kernel, args, wait: bool):
    """Hold the claim on ``kernel``'s internal copy for ``args`` while the block runs,
    and say so (True); while another live process holds it, wait until it is given up
    (``wait``: then hold it and say True; the copy is in the cache by then, or is
    compiled here) or give up at once (False). Nothing to claim (True) when no folder is
    shared (:func:`share_compiles`)."""
    folder = _claims["folder"]
    if folder is None:
        yield True
        return
    import time

    path = _claim_path(folder, kernel, args)
    deadline = time.monotonic() + CLAIM_WAIT_SECONDS
    held = False
    while True:
        try:
            handle = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            if not wait:
                break
            if time.monotonic() > deadline or not _holder_alive(path):
                with contextlib.suppress(OSError):  # waited long enough, or it ended
                    os.unlink(path)
                continue
            time.sleep(0.005)
            continue
        except OSError:  # the folder is gone (the helper ended): compile unclaimed
            break
        os.write(handle, str(os.getpid()).encode())
        os.close(handle)
        held = True
        break
    try:
        yield held or wait
    finally:
        if held:
            with contextlib.suppress(OSError):
                os.unlink(path)


def _claim_path(folder: str, kernel, args) -> str:
    """The file that claims ``kernel``'s internal copy for ``args`` in ``folder``."""
    function = kernel.py_func
    name = f"{function.__module__}.{function.__qualname__}{tuple(args)}"
    return os.path.join(folder, hashlib.sha1(name.encode()).hexdigest())


def _holder_alive(path: str) -> bool:
    """Whether the process that wrote claim ``path`` is still running (True while the
    file is being written or cannot be read). A helper that ended is the command's
    child and stays a zombie until the command reaps it: that counts as ended."""
    try:
        with open(path) as f:
            pid = int(f.read() or 0)
    except (OSError, ValueError):
        return True
    if not pid:
        return True
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] not in ("Z", "X")
    except FileNotFoundError:  # no such process (where /proc exists)
        if os.path.isdir("/proc/self"):
            return False
    except (OSError, IndexError):
        pass
    try:  # no /proc: ask the kernel
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's: alive
        return True
    return True


def is_cached(kernel, args) -> bool:
    """Whether ``kernel``'s on-disk cache holds a compilation for calls from Python with
    the Numba argument types ``args``, without loading it (False under plain Python)."""
    if numba.config.DISABLE_JIT:
        return False
    cache = kernel._cache
    key = cache._index_key(tuple(args), kernel.targetctx.codegen())
    return key in cache._cache_file._load_index()


def _recording(f, name):
    """Plain-Python stand-in for a kernel that records its first call in ``_executed``."""
    @functools.wraps(f)
    def kernel(*args, **kwargs):
        _executed.add(name)
        return f(*args, **kwargs)
    kernel.py_func = f
    return kernel


def executed_kernels() -> set[str]:
    """Names of the kernels called so far in this process (plain-Python mode only).

    Raises
    ------
    RuntimeError
        When kernels are compiled: calls of compiled kernels from other kernels are
        not visible to Python, so only ``NUMBA_DISABLE_JIT=1`` runs can answer.
    """
    if not numba.config.DISABLE_JIT:
        raise RuntimeError("executed_kernels needs NUMBA_DISABLE_JIT=1")
    return set(_executed)


def jit_callback(signature):
    """Compile a C callback of the given Numba ``signature`` (cached like the kernels,
    :func:`_package_cache`), for kernels that take a function argument of a fixed type."""
    from numba.core import sigutils
    from numba.core.ccallback import CFunc

    def wrap(f):
        # numba.cfunc(signature, cache=True) without its plain per-file cache
        callback = CFunc(f, sigutils.normalize_signature(signature), locals={}, options={})
        callback._cache = _package_cache(f)
        callback.compile()
        return callback

    return wrap


@functools.cache
def package_fingerprint() -> str:
    """SHA-256 (hex) of every module of the package: its path within the package and
    its bytes, in sorted order. Part of every kernel's cache identity."""
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def _package_cache(py_func, variant: str = ""):
    """Numba's on-disk cache of ``py_func`` (a kernel's or a callback's), valid only for
    the package source it was compiled from.

    Numba's cache index records its file's source stamp (modification time and size)
    and drops every entry when the stamp differs; here the stamp also holds
    :func:`package_fingerprint`, so an index written under other source is dropped the
    same way (and its data files reused), whichever module changed. The key of each
    entry (signature, target, the function's bytecode) is Numba's own.
    """
    from numba.core.caching import FunctionCache

    cache = FunctionCache(py_func)
    file = cache._cache_file  # Numba's IndexDataCacheFile: compares the stamp on load
    file._source_stamp = (file._source_stamp, package_fingerprint())
    if variant:  # files of their own: an internal copy has no Python entry point
        base = file._index_name[:-len(".nbi")] + "-" + variant
        file._index_name = base + ".nbi"
        file._index_path = os.path.join(file._cache_path, file._index_name)
        file._data_name_pattern = base + ".{number:d}.nbc"
    return cache


def _prefetch_intrinsic():
    """``prefetch(array, index)`` for compiled kernels: LLVM's prefetch of the cache
    line of ``array[index]`` (1-d array, integer index), for writing, kept in all
    cache levels. A hint only: it reads nothing, changes nothing and cannot fault."""
    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    @intrinsic
    def prefetch(typingctx, array, index):
        def codegen(context, builder, signature, args):
            array_type = signature.args[0]
            view = context.make_array(array_type)(context, builder, args[0])
            address = cgutils.get_item_pointer(context, builder, array_type, view, [args[1]],
                                               wraparound=False)
            byte_pointer = ir.IntType(8).as_pointer()
            i32 = ir.IntType(32)
            hint = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32]),
                "llvm.prefetch.p0")
            # write (1), highest locality (3), data cache (1)
            builder.call(hint, [builder.bitcast(address, byte_pointer), i32(1), i32(3), i32(1)])
            return context.get_dummy_value()

        return types.void(array, index), codegen

    return prefetch


def _no_prefetch(array, index):
    """Plain-Python stand-in for :func:`prefetch` (a cache hint has nothing to do)."""


prefetch = _no_prefetch if numba.config.DISABLE_JIT else _prefetch_intrinsic()
"""``prefetch(array, index)``: ask for the cache line of ``array[index]`` ahead of a
write to it, so that kernels walking scattered addresses overlap their cache misses.
Callable from kernels only (plain Python under ``NUMBA_DISABLE_JIT=1``)."""


def mul_high(a, b):
    """High 64 bits of the 128-bit product of two ``uint64`` values, exactly (a uint64).

    Plain Python here and under ``NUMBA_DISABLE_JIT=1``; inside kernels the overload
    registered below replaces it by one native 64 x 64 -> 128-bit multiplication (LLVM's
    ``i128``: one instruction on x86-64 and ARM64), which Numba's Python dialect cannot
    write. Used by the primality kernels' modular products and by the random draws'
    remainder (:func:`jitgames._random.remainder_inline`)."""
    import numpy as np

    return np.uint64((int(a) * int(b)) >> 64)


def _register_mul_high() -> None:
    """The kernels' version of :func:`mul_high` (an intrinsic, through an overload)."""
    from llvmlite import ir
    from numba.core import types
    from numba.extending import intrinsic, overload

    @intrinsic
    def native(typingctx, a, b):
        if not (isinstance(a, types.Integer) and isinstance(b, types.Integer)):
            return None

        def codegen(context, builder, signature, args):
            wide = ir.IntType(128)
            x, y = (builder.zext(context.cast(builder, value, kind, types.uint64), wide)
                    for value, kind in zip(args, signature.args))
            return builder.trunc(builder.lshr(builder.mul(x, y), wide(64)), ir.IntType(64))

        return types.uint64(a, b), codegen

    @overload(mul_high)
    def _in_kernels(a, b):
        return lambda a, b: native(a, b)


_register_mul_high()


def thread_count() -> int:
    """Number of threads parallel kernels currently use."""
    return numba.get_num_threads()


@contextlib.contextmanager
def threads(n: int | None):
    """Run parallel kernels on ``n`` threads inside the block (``None``: leave as is).

    Raises
    ------
    InputError
        If ``n`` is not between 1 and ``numba.config.NUMBA_NUM_THREADS``.
    """
    if n is None:
        yield numba.get_num_threads()
        return
    top = numba.config.NUMBA_NUM_THREADS
    if not 1 <= n <= top:
        raise InputError(f"threads must be between 1 and {top}, got {n}")
    before = numba.get_num_threads()
    numba.set_num_threads(n)
    try:
        yield n
    finally:
        numba.set_num_threads(before)


class _CompileNotice:
    """Say on ``stream`` that kernels are being compiled, once, when the first one
    misses the cache; on a terminal, tick the seconds spent compiling until the
    compiling stops (then the line is cleared, so later progress bars stand alone)."""

    def __init__(self, label: str, estimate: str, stream, tick: bool):
        import threading

        self.label, self.estimate, self.stream, self.tick = label, estimate, stream, tick
        self.depth = 0
        self.announced = False
        self.started = 0.0
        self.lock = threading.Lock()
        self.compiling = threading.Event()
        self.done = threading.Event()
        self.ticker = None

    def on_start(self, event) -> None:
        import time

        with self.lock:
            self.depth += 1
            if self.depth > 1:
                return
            self.started = time.perf_counter()
            if not self.announced:
                self.announced = True
                print(f"{self.label}: compiling kernels for first use, {self.estimate}; "
                      f"cached afterwards", file=self.stream, flush=True)
            self.compiling.set()
            if self.tick and self.ticker is None:
                self._start_ticker()

    def on_end(self, event) -> None:
        with self.lock:
            self.depth -= 1
            if self.depth == 0:
                self.compiling.clear()

    def _start_ticker(self) -> None:
        import threading
        import time

        def run():
            shown = False
            while not self.done.is_set():
                if self.compiling.wait(0.25) and not self.done.is_set():
                    seconds = time.perf_counter() - self.started
                    self.stream.write(f"\r  compiling ... {seconds:4.0f} s")
                    self.stream.flush()
                    shown = True
                    time.sleep(0.5)
                elif shown:
                    self.stream.write("\r" + " " * 30 + "\r")
                    self.stream.flush()
                    shown = False
            if shown:
                self.stream.write("\r" + " " * 30 + "\r")
                self.stream.flush()

        self.ticker = threading.Thread(target=run, name="compile-notice", daemon=True)
        self.ticker.start()

    def close(self) -> None:
        self.done.set()
        if self.ticker is not None:
            self.ticker.join(2)


@contextlib.contextmanager
def compile_notice(label: str, estimate: str = "some seconds", quiet: bool = False,
                   stream=None):
    """Inside the block, announce on ``stream`` (stderr) the first kernel compiled for
    first use ("LABEL: compiling kernels for first use, ESTIMATE; cached afterwards")
    and, on a terminal, tick the seconds while compiling lasts.

    Silent when ``quiet``, when kernels run as plain Python, and when ``stream`` is not
    a terminal unless ``JITGAMES_COMPILE_NOTICE=1`` asks for the line anyway (as the
    progress bars are: nothing is written into files and pipes by default).
    """
    from jitgames._compiled import compile_events

    stream = sys.stderr if stream is None else stream
    terminal = hasattr(stream, "isatty") and stream.isatty()
    wanted = terminal or os.environ.get("JITGAMES_COMPILE_NOTICE") == "1"
    if quiet or not wanted or numba.config.DISABLE_JIT:
        yield
        return
    notice = _CompileNotice(label, estimate, stream, tick=terminal)
    try:
        with compile_events(notice.on_start, notice.on_end):
            yield
    finally:
        notice.close()


def _fetch_add_intrinsic(order):
    """``fetch_add(counter, value)`` for compiled kernels: ``counter[0] += value`` (an
    int64 array) as one atomic step, returning the value before, with the memory
    ``order`` given (LLVM's name: ``"monotonic"``, ``"acq_rel"``). Threads of a parallel
    kernel take their next piece of work from such a counter (a dynamic schedule: prange
    alone gives each thread one fixed contiguous block of its range)."""
    from numba.core import types
    from numba.extending import intrinsic

    @intrinsic
    def fetch_add(typingctx, counter, value):
        if not (isinstance(counter, types.Array) and counter.dtype == types.int64
                and isinstance(value, types.Integer)):
            return None

        def codegen(context, builder, signature, args):
            data = context.make_array(signature.args[0])(context, builder, args[0]).data
            step = context.cast(builder, args[1], signature.args[1], types.int64)
            return builder.atomic_rmw("add", data, step, order)

        return types.int64(counter, value), codegen

    return fetch_add


def _plain_fetch_add(counter, value):
    """Plain-Python stand-in for :func:`fetch_add` (prange runs one slot at a time)."""
    old = counter[0]
    counter[0] += value
    return old


fetch_add = _plain_fetch_add if numba.config.DISABLE_JIT else _fetch_add_intrinsic("monotonic")
fetch_add_acq_rel = (_plain_fetch_add if numba.config.DISABLE_JIT
                     else _fetch_add_intrinsic("acq_rel"))
"""``fetch_add`` that also orders the thread's other memory accesses around it
(acquire and release): a thread that claims work published by another with
:func:`atomic_store` sees what was written before the store, and what it wrote
before raising a counter is seen by a thread that reads the counter with
:func:`atomic_load`."""


def atomic_load_with(order: str):
    """``load(counter)`` for compiled kernels: ``counter[0]`` (an int64 array) read as one
    atomic load of the memory ``order`` given (LLVM's name: ``"monotonic"``, relaxed, for
    a flag polled alone; ``"acquire"`` when what another thread wrote before raising the
    counter is read after it). A thread waiting on a counter that others raise must read
    it so: a plain read may be hoisted out of the loop. Plain Python under
    ``NUMBA_DISABLE_JIT=1``."""
    if numba.config.DISABLE_JIT:
        return _plain_atomic_load

    from numba.core import types
    from numba.extending import intrinsic

    @intrinsic
    def atomic_load(typingctx, counter):
        if not (isinstance(counter, types.Array) and counter.dtype == types.int64):
            return None

        def codegen(context, builder, signature, args):
            data = context.make_array(signature.args[0])(context, builder, args[0]).data
            return builder.load_atomic(data, order, 8)

        return types.int64(counter), codegen

    return atomic_load


def _plain_atomic_load(counter):
    """Plain-Python stand-in for :func:`atomic_load`."""
    return counter[0]


atomic_load = atomic_load_with("acquire")
"""``atomic_load(counter)``: ``counter[0]`` read atomically, acquire order
(:func:`atomic_load_with`)."""


def _atomic_store_intrinsic():
    """``atomic_store(counter, value)`` for compiled kernels: ``counter[0] = value`` (an
    int64 array) as one atomic store, release order: a thread that reads the new value
    with :func:`atomic_load` (or claims from it with :func:`fetch_add_acq_rel`) also
    sees everything written before the store (a publication)."""
    from numba.core import types
    from numba.extending import intrinsic

    @intrinsic
    def atomic_store(typingctx, counter, value):
        if not (isinstance(counter, types.Array) and counter.dtype == types.int64
                and isinstance(value, types.Integer)):
            return None

        def codegen(context, builder, signature, args):
            data = context.make_array(signature.args[0])(context, builder, args[0]).data
            stored = context.cast(builder, args[1], signature.args[1], types.int64)
            builder.store_atomic(stored, data, "release", 8)
            return context.get_dummy_value()

        return types.void(counter, value), codegen

    return atomic_store


def _plain_atomic_store(counter, value):
    """Plain-Python stand-in for :func:`atomic_store`."""
    counter[0] = value


atomic_store = _plain_atomic_store if numba.config.DISABLE_JIT else _atomic_store_intrinsic()


def _spin_pause_intrinsic():
    """``spin_pause()`` for compiled kernels: the CPU's hint that the thread is
    spinning on a memory location (x86's ``pause``: the core lets its sibling hyperthread
    run and saves power, and leaving the loop does not flush the pipeline); nothing on
    other processors (the loop around it is bounded anyway)."""
    import platform

    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    x86 = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686", "x86")

    @intrinsic
    def spin_pause(typingctx):
        def codegen(context, builder, signature, args):
            if x86:
                hint = cgutils.get_or_insert_function(
                    builder.module, ir.FunctionType(ir.VoidType(), []), "llvm.x86.sse2.pause")
                builder.call(hint, [])
            return context.get_dummy_value()

        return types.void(), codegen

    return spin_pause


def _no_pause():
    """Plain-Python stand-in for :func:`spin_pause`."""


spin_pause = _no_pause if numba.config.DISABLE_JIT else _spin_pause_intrinsic()


def _yield_thread_intrinsic():
    """``yield_thread()`` for compiled kernels: give the rest of the thread's time slice
    to another runnable thread (POSIX ``sched_yield``; a pause hint elsewhere). A thread
    waiting for another on a machine with no free core lets it run instead of spinning
    against it; with a free core it returns at once (a system call, under a microsecond)."""
    import sys as _sys

    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    posix = _sys.platform != "win32"
    pause = _spin_pause_intrinsic()

    @intrinsic
    def yield_thread(typingctx):
        def codegen(context, builder, signature, args):
            if posix:
                function = cgutils.get_or_insert_function(
                    builder.module, ir.FunctionType(ir.IntType(32), []), "sched_yield")
                builder.call(function, [])
            return context.get_dummy_value()

        return types.void(), codegen

    return yield_thread if posix else pause


yield_thread = _no_pause if numba.config.DISABLE_JIT else _yield_thread_intrinsic()


def _address_intrinsics():
    """``address_of(array)`` (the address of its data, int64) and ``array_at(address,
    like)`` (an array of ``like``'s type, shape and strides over the memory at
    ``address``, owned by nobody) for compiled kernels: a kernel that waits in another
    thread is handed the arrays of each call by their addresses, through a shared int64
    array. ``array_at`` is only for leaf kernels (no reference counting), and only while
    the caller that published the address keeps the array alive."""
    from numba.core import types
    from numba.extending import intrinsic

    @intrinsic
    def address_of(typingctx, array):
        if not isinstance(array, types.Array):
            return None

        def codegen(context, builder, signature, args):
            data = context.make_array(signature.args[0])(context, builder, args[0]).data
            return builder.ptrtoint(data, context.get_value_type(types.int64))

        return types.int64(array), codegen

    @intrinsic
    def array_at(typingctx, address, like):
        if not (isinstance(address, types.Integer) and isinstance(like, types.Array)):
            return None

        def codegen(context, builder, signature, args):
            kind = signature.args[1]
            model = context.make_array(kind)(context, builder, args[1])
            view = context.make_array(kind)(context, builder)
            address_64 = context.cast(builder, args[0], signature.args[0], types.int64)
            context.populate_array(view, data=builder.inttoptr(address_64, model.data.type),
                                   shape=model.shape, strides=model.strides,
                                   itemsize=model.itemsize, meminfo=None)
            return view._getvalue()

        return like(address, like), codegen

    return address_of, array_at


def _plain_address_of(array):
    """Plain-Python stand-in for :func:`address_of`."""
    return array.__array_interface__["data"][0]


def _plain_array_at(address, like):
    """Plain-Python stand-in for :func:`array_at` (``like`` C-contiguous)."""
    import ctypes

    import numpy as np

    memory = (ctypes.c_char * like.nbytes).from_address(int(address))
    return np.frombuffer(memory, dtype=like.dtype).reshape(like.shape)


address_of, array_at = ((_plain_address_of, _plain_array_at) if numba.config.DISABLE_JIT
                        else _address_intrinsics())


def _threads_now_intrinsic():
    """``threads_now()`` for compiled kernels: the number of threads a parallel loop
    started here would use (``numba.get_num_threads()``). Numba's own
    ``numba.get_num_threads()`` in a kernel goes through a ctypes pointer, which keeps the
    kernel out of the on-disk cache; this calls the threading layer's C function by name,
    as Numba's parallel loops do. A kernel loaded from the cache that calls it starts
    the threading layer first, as one with a ``prange`` loop does (Numba's reload hook
    for parallel kernels, added to the kernel's code library), so the name is resolved
    in kernels without a parallel loop too."""
    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.core.typed_passes import _reload_parfors
    from numba.extending import intrinsic

    @intrinsic
    def threads_now(typingctx):
        from numba.np.ufunc.parallel import _launch_threads

        _launch_threads()  # registers the threading layer's functions

        def codegen(context, builder, signature, args):
            # a kernel loaded from the cache starts the threading layer first (as a
            # parallel loop's does), so the name resolves in kernels without one
            context.active_code_library._reload_init.add(_reload_parfors)
            function = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(cgutils.intp_t, []), "get_num_threads")
            return builder.call(function, [])

        return types.intp(), codegen

    return threads_now


threads_now = numba.get_num_threads if numba.config.DISABLE_JIT else _threads_now_intrinsic()


def compiled_entry(kernel, *args):
    """The compiled ``kernel`` for the Numba types of ``args``, as a function that takes
    arguments of exactly those types without the dispatcher's typing of each argument
    (compiled, or loaded from the cache, now if need be; ``kernel`` itself when kernels
    run as plain Python).

    A kernel called with many arrays spends microseconds of every call on typing them
    (about 0.1 to 0.2 us an array: 4.2 us for 22 arrays on the 2-core box, against 1.8 us
    through the compiled entry); a caller that calls the same kernel again and again with
    arguments it made itself can skip that. The entry converts each argument as its type
    says and checks little (an array's item size, not its dimensions, layout or
    writeability): only give it arguments whose types are those of ``args``, C-contiguous,
    aligned and writeable arrays where ``args`` had such, the same dimensions, dtypes and
    kinds of numbers (check what comes from users first).
    """
    if numba.config.DISABLE_JIT:
        return kernel
    return kernel.compile(tuple(numba.typeof(a) for a in args))
