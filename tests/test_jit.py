"""The kernel wrapper: leaf kernels (compiled without array reference counting), the
prefetch hint."""
import os

import numba
import numpy as np
from numba.core.errors import TypingError
import pytest

from jitgames._jit import (atomic_load, compiled_entry, fetch_add, jit, prange, prefetch,
                           threads, threads_now)


@jit(leaf=True)
def _add_into(out, values, scale):
    for i in range(values.shape[0]):
        out[i] += scale * values[i]


@jit
def _scaled_sum(values):
    out = np.zeros(values.shape[0], dtype=np.int64)
    _add_into(out, values, 2)
    _add_into(out, values, 3)
    return out


@pytest.mark.kernel
def test_leaf_kernel_works_from_python_and_from_a_kernel_that_allocates():
    values = np.arange(5, dtype=np.int64)
    out = np.ones(5, dtype=np.int64)
    _add_into(out, values, 7)
    assert out.tolist() == [1, 8, 15, 22, 29]
    assert _scaled_sum(values).tolist() == [0, 5, 10, 15, 20]


def test_leaf_kernel_cannot_allocate():
    """Compile-time contract (this test is not run with NUMBA_DISABLE_JIT=1)."""
    @jit(leaf=True)
    def allocates(n):
        return np.zeros(n, dtype=np.int64).sum()

    with pytest.raises(TypingError):
        allocates(3)



@jit(leaf=True)
def _clear_scattered(words, indices, ahead):
    for k in range(indices.size):
        if k + ahead < indices.size:
            prefetch(words, indices[k + ahead])
        words[indices[k]] &= ~np.uint64(1)


@pytest.mark.kernel
def test_prefetch_is_only_a_hint():
    """A kernel that prefetches the words it clears leaves what it would without."""
    indices = np.random.default_rng(5).integers(0, 1000, 300)
    words = np.full(1000, np.uint64(7))
    _clear_scattered(words, indices, 8)
    expected = np.full(1000, np.uint64(7))
    expected[indices] = 6
    assert words.tolist() == expected.tolist()


def test_prefetch_compiles_to_the_llvm_intrinsic():
    if numba.config.DISABLE_JIT:
        pytest.skip("plain Python has nothing to compile")

    def touch(words, i):
        prefetch(words, i)
        return words[i]

    compiled = numba.njit(cache=False)(touch)  # uncached, so that its code can be read
    assert compiled(np.arange(4, dtype=np.uint64), 2) == 2
    assert "llvm.prefetch" in compiled.inspect_llvm(compiled.signatures[0])


@jit(inline=True)
def _clamp_step(x, low, high):
    if x < low:
        return low
    while x > high:  # several blocks, so that the copy of the callee has several
        x -= high - low + 1
    return x


@jit(inline=True)
def _walk(start, steps, low, high):
    x = start
    for s in range(steps):
        x = _clamp_step(x + s * 3 - 2, low, high)  # an inline kernel inlining another
    return x


@jit
def _walks(starts, steps):
    out = np.empty(starts.shape[0], dtype=np.int64)
    for i in range(starts.shape[0]):
        out[i] = _walk(starts[i], steps, -5, 9)
    return out


def _walk_reference(start, steps, low, high):
    """The rule of ``_walk`` written out: wrap into [low, high] from above, clamp below."""
    x = start
    for s in range(steps):
        x = x + s * 3 - 2
        if x < low:
            x = low
        elif x > high:
            x = low + (x - low) % (high - low + 1)
    return x


@pytest.mark.kernel
def test_inline_kernels_nested_in_inline_kernels_compute_the_rule():
    starts = np.arange(-40, 41, 7, dtype=np.int64)
    for steps in (0, 1, 6):
        assert _walks(starts, steps).tolist() == [_walk_reference(int(x), steps, -5, 9)
                                                  for x in starts]


def test_inlining_copies_the_callee_with_one_memo_and_puts_copy_back():
    """The wrapper of Numba's inliner is installed and leaves Numba's module as it was."""
    if numba.config.DISABLE_JIT:
        pytest.skip("plain Python inlines nothing")
    import copy
    from numba.core import inline_closurecall

    assert hasattr(inline_closurecall.InlineWorker.inline_ir, "__wrapped__")

    @jit(inline=True)
    def inner(x):
        return x + 1 if x > 0 else x - 1

    @jit
    def outer(x):
        return inner(x) * 2

    assert outer(3) == 8 and outer(-3) == -8
    assert inline_closurecall.copy is copy


def test_instructions_list_the_same_variables_in_the_same_order_as_in_numba():
    if numba.config.DISABLE_JIT:
        pytest.skip("plain Python has no Numba IR")
    from numba.core import ir
    from numba.core.compiler import run_frontend

    from jitgames.mastermind import branch_and_bound
    from jitgames.solitaire import search

    patched = ir.Inst._rec_list_vars
    assert getattr(patched, "jitgames_patch", False) and numba.__version__.startswith("0.68.")
    values = []
    for kernel in (search.solve_line, search.solve_decks, branch_and_bound.solve):
        for block in run_frontend(kernel.py_func).blocks.values():
            for inst in block.body:
                values += [inst] + [v for v in inst.__dict__.values() if isinstance(v, ir.Inst)]
    ours = [value.list_vars() for value in values]
    ir.Inst._rec_list_vars = patched.jitgames_original  # Numba's own, for the reference
    try:
        numba_own = [value.list_vars() for value in values]
    finally:
        ir.Inst._rec_list_vars = patched
    assert len(values) > 1000 and ours == numba_own


@jit(leaf=True)
def _bump(values, i, by):
    values[i] += by
    return values[i]


@jit(leaf=True)
def _bump_all(values, by):
    total = 0
    for i in range(values.shape[0]):
        total += _bump(values, i, by)  # a kernel-to-kernel call: the internal copy
    total += _bump(values, 0, 1)       # a constant argument: the same copy (int64)
    return total


@pytest.mark.kernel
def test_a_kernel_called_from_kernels_and_from_python_computes_the_same():
    values = np.arange(4, dtype=np.int64)
    assert _bump_all(values, 10) == 10 + 11 + 12 + 13 + 11
    assert values.tolist() == [11, 11, 12, 13]
    assert _bump(values, 3, 2) == 15  # from Python: the kernel itself
    assert values.tolist() == [11, 11, 12, 15]


def test_kernel_calls_compile_one_internal_copy_without_python_entry_point():
    """Calls from kernels go to one wrapper-less copy of the callee (one specialisation,
    literals typed as plain integers), cached in files of its own; calls from Python
    compile the kernel itself, as before."""
    if numba.config.DISABLE_JIT:
        pytest.skip("plain Python compiles nothing")

    @jit(leaf=True)
    def step(values, i, by):
        values[i] += by
        return values[i]

    @jit(leaf=True)
    def steps(values):
        return step(values, 0, 1) + step(values, 1, 2) + step(values, np.int64(2), 3)

    values = np.zeros(3, dtype=np.int64)
    assert steps(values) == 6
    assert step.signatures == []  # never called from Python yet
    (copy,) = step.internal_copy
    assert len(copy.signatures) == 1
    assert copy.targetoptions["no_cpython_wrapper"] and copy.targetoptions["no_cfunc_wrapper"]
    index = copy._cache._cache_file._index_name  # never the kernel's own index
    assert index.endswith("-internal.nbi") and index != step._cache._cache_file._index_name
    assert step(values, 0, 5) == 6 and len(step.signatures) == 1
    assert steps(values) == 7 + 4 + 6


def test_a_kernel_compiled_for_python_first_is_linked_not_compiled_again():
    """A kernel called from Python and then from another kernel with the same argument
    types is compiled once: the caller links the compilation Python's call made (no
    internal copy); with other argument types the caller still gets the internal copy."""

    @jit(leaf=True)
    def step(values, i, by):
        values[i] += by
        return values[i]

    @jit(leaf=True)
    def steps(values):
        return step(values, 0, 1) + step(values, np.int64(1), 2)

    @jit(leaf=True)
    def float_steps(values):
        return step(values, 0, 1.5)

    values = np.zeros(2, dtype=np.int64)
    assert step(values, 1, 4) == 4 and len(step.signatures) == 1
    assert steps(values) == 1 + 6
    assert step.internal_copy == [] and len(step.signatures) == 1
    floats = np.zeros(1)
    assert float_steps(floats) == 1.5
    (copy,) = step.internal_copy
    assert len(copy.signatures) == 1 and len(step.signatures) == 1


def test_compile_for_kernels_makes_the_internal_copy_a_caller_then_links():
    """What the warm-up helper does (jitgames._warmup): compile the internal copy for
    given argument types ahead of the first caller, which then compiles no copy."""
    from numba.core import types

    from jitgames._jit import compile_for_kernels

    @jit(leaf=True)
    def step(values, i, by):
        values[i] += by
        return values[i]

    @jit(leaf=True)
    def steps(values):
        return step(values, 0, 1) + step(values, 1, 2)

    compile_for_kernels(step, (types.int64[::1], types.int64, types.int64))
    (copy,) = step.internal_copy
    assert len(copy.signatures) == 1 and step.signatures == []
    values = np.zeros(2, dtype=np.int64)
    assert steps(values) == 3
    assert len(copy.signatures) == 1 and step.signatures == []  # linked, not compiled again
    # types already compiled for Python: linked from that compilation, no copy made
    assert step(values, 0, 1) == 2 and len(step.signatures) == 1
    compile_for_kernels(step, step.signatures[0])
    assert len(copy.signatures) == 1


def test_claimed_internal_copies_are_skipped_or_waited_for_until_the_holder_ends(tmp_path):
    """Two processes compiling into one cache (a command and its helper) claim the
    internal copies they compile: the helper skips one the other holds, a caller waits
    until the claim is given up, and the claim of a process that ended is taken."""
    import subprocess
    import sys
    import threading
    import time
    from pathlib import Path

    from numba.core import types

    from jitgames import _jit

    @jit(leaf=True)
    def step(values, i):
        values[i] += 1
        return values[i]

    args = (types.int64[::1], types.int64)
    claim = Path(_jit._claim_path(str(tmp_path), step, args))
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        _jit.share_compiles(str(tmp_path))
        claim.write_text(str(holder.pid))
        with _jit._claim(step, args, wait=False) as claimed:
            assert claimed is False
        _jit.compile_for_kernels(step, args)  # the helper's way: skipped, nothing compiled
        if not numba.config.DISABLE_JIT:
            assert step.internal_copy[0].signatures == [] and step.signatures == []
        waited = []

        def caller():
            begin = time.monotonic()
            with _jit._claim(step, args, wait=True) as claimed:
                waited.append((claimed, time.monotonic() - begin, claim.read_text()))

        thread = threading.Thread(target=caller)
        thread.start()
        time.sleep(0.3)
        assert waited == []  # still waiting while the holder keeps its claim
        claim.unlink()  # the holder gives it up
        thread.join(30)
        assert not thread.is_alive()
        (claimed, seconds, owner), = waited
        assert claimed is True and seconds >= 0.25 and owner == str(os.getpid())
        assert not claim.exists()  # given up after the block
        holder.kill()
        holder.wait(30)
        claim.write_text(str(holder.pid))  # left behind by a process that ended
        begin = time.monotonic()
        with _jit._claim(step, args, wait=True) as claimed:
            assert claimed is True and claim.read_text() == str(os.getpid())
        assert time.monotonic() - begin < 5 and not claim.exists()
        # a child that ended but is not reaped yet (a zombie) has ended too (told by
        # Linux's /proc, which the helper's gate reads as well)
        if Path("/proc/self/stat").exists():
            zombie = subprocess.Popen([sys.executable, "-c", "pass"])
            stat = Path(f"/proc/{zombie.pid}/stat")
            deadline = time.monotonic() + 30
            while stat.read_text().rpartition(")")[2].split()[0] != "Z":
                assert time.monotonic() < deadline
                time.sleep(0.01)
            claim.write_text(str(zombie.pid))
            begin = time.monotonic()
            with _jit._claim(step, args, wait=True) as claimed:
                assert claimed is True
            assert time.monotonic() - begin < 5 and not claim.exists()
            zombie.wait(30)
    finally:
        _jit.share_compiles(None)
        holder.kill()
        holder.wait(30)
    values = np.zeros(2, dtype=np.int64)
    assert step(values, 1) == 1 and values.tolist() == [0, 1]


def test_compile_for_kernels_compiles_under_the_flags_a_caller_passes_down():
    """Numba passes a caller's reference counting switch down to plain callees: a plain
    kernel first called from a leaf kernel is compiled without reference counting. A
    helper compiles such a callee ahead with ``inherited={"nrt": False}`` and makes the
    compilation the leaf caller would have made (same flags: same ABI tags), where
    compiling it plainly makes another (which the caller would then link from the cache,
    whose entries are keyed on argument types only)."""
    from numba.core import types

    from jitgames._jit import compile_for_kernels

    @jit
    def peek_plain(values, i):
        return values[i]

    @jit
    def peek_ahead(values, i):
        return values[i]

    @jit
    def peek_by_caller(values, i):
        return values[i]

    @jit(leaf=True)
    def first_of(values):
        return peek_by_caller(values, 0) + peek_by_caller(values, 1)

    args = (types.int64[::1], types.int64)
    compile_for_kernels(peek_plain, args)
    compile_for_kernels(peek_ahead, args, {"nrt": False})
    assert first_of(np.arange(3, dtype=np.int64)) == 1
    tags = [kernel.internal_copy[0].overloads[args].fndesc.abi_tags
            for kernel in (peek_plain, peek_ahead, peek_by_caller)]
    assert tags[1] == tags[2] != tags[0]


@jit(leaf=True)
def _triangle(n):
    if n <= 0:
        return 0
    return n + _triangle(n - 1)  # a kernel that calls itself


@jit(leaf=True)
def _two_triangles(n):
    return _triangle(n) + _triangle(n + 1)


@pytest.mark.kernel
def test_a_recursive_kernel_called_from_a_kernel_computes_the_sum():
    """A kernel that calls itself is typed against its own dispatcher (no internal
    copy, which would recurse into its own compilation), from Python and from kernels."""
    assert _two_triangles(4) == 10 + 15
    assert _triangle(5) == 15


@jit(parallel=True)
def _claimed_squares(values, out):
    """Squares of ``values`` into ``out``, one slot a thread, each slot claiming items
    from a shared counter (the schedule of ``random_step``); returns the slots' count
    of items done, the number of slots, and the most slots seen started at once."""
    slots = max(1, min(threads_now(), values.shape[0]))
    tally = np.zeros((3, 8), np.int64)  # claimed, done, started
    for slot in prange(slots):
        fetch_add(tally[2], 1)
        item = fetch_add(tally[0], 1)
        while item < values.shape[0]:
            out[item] = values[item] * values[item]
            fetch_add(tally[1], 1)
            item = fetch_add(tally[0], 1)
    return atomic_load(tally[1]), slots, atomic_load(tally[2])


@pytest.mark.kernel
@pytest.mark.parametrize("count", [1, 2])
def test_threads_now_and_atomic_counters(count):
    """``threads_now`` in a kernel is Numba's thread count; items claimed with
    ``fetch_add`` and counted with ``atomic_load`` are each done once."""
    values = np.arange(-50, 50, dtype=np.int64)
    out = np.zeros(100, dtype=np.int64)
    with threads(min(count, numba.config.NUMBA_NUM_THREADS)) as n:
        done, slots, started = _claimed_squares(values, out)
    assert (done, slots, started) == (100, n, n)
    assert out.tolist() == [v * v for v in range(-50, 50)]


def test_compiled_entry_is_the_kernel_for_those_types():
    """The compiled entry computes what the dispatcher computes, for the types of the
    example arguments; with kernels as plain Python it is the kernel itself."""
    values = np.arange(5, dtype=np.int64)
    entry = compiled_entry(_add_into, np.zeros(5, dtype=np.int64), values, 7)
    if numba.config.DISABLE_JIT:
        assert entry is _add_into
    else:
        assert entry is not _add_into and callable(entry)
    out, twin = np.ones(5, dtype=np.int64), np.ones(5, dtype=np.int64)
    entry(out, values, 3)
    _add_into(twin, values, 3)
    assert out.tolist() == twin.tolist() == [1, 4, 7, 10, 13]


@pytest.mark.parametrize("chosen, expected", [
    ({}, ("PASSIVE", None)),
    ({"OMP_WAIT_POLICY": "ACTIVE"}, ("ACTIVE", None)),
    ({"GOMP_SPINCOUNT": "20000"}, (None, "20000")),
])
def test_threads_sleep_unless_the_user_chose_how_they_wait(chosen, expected):
    """jitgames sets ``OMP_WAIT_POLICY=PASSIVE`` (idle threads sleep at once) before
    OpenMP starts, unless the user chose a policy or a spin count of their own."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    env.update(chosen, NUMBA_DISABLE_JIT="1")  # no compiling: only the settings are read
    code = ("import os, jitgames._jit; "
            "print(os.environ.get('OMP_WAIT_POLICY'), os.environ.get('GOMP_SPINCOUNT'))")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parents[1], timeout=60, check=True)
    assert done.stdout.split() == [str(v) for v in expected]


_PROBE_CALLER = '''from ._jit import jit
from ._cache_probe_callee import step


@jit
def run(x):
    return step(x)
'''
_PROBE_CALLEE = '''from ._jit import jit


@jit
def step(x):
    return x + {}
'''


def test_a_cached_kernel_is_compiled_again_when_a_callee_in_another_module_changes(tmp_path):
    """Numba alone would load ``run`` from its cache (its own file unchanged) with the
    old ``step`` linked in; the package fingerprint in every cache entry's identity
    makes it compile again. A copy of the package gets a caller and a callee in two
    modules; only the callee's file is rewritten between runs."""
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    package = tmp_path / "copy" / "jitgames"
    shutil.copytree(Path(__file__).resolve().parents[1] / "jitgames", package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    (package / "_cache_probe_caller.py").write_text(_PROBE_CALLER)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "cache")
    code = ("import jitgames; from jitgames._cache_probe_caller import run; "
            "assert jitgames.__file__.startswith({!r}); "
            "print(run(1), run.stats.cache_hits.get(run.signatures[0], 0))").format(str(package))

    def call(added):
        (package / "_cache_probe_callee.py").write_text(_PROBE_CALLEE.format(added))
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True, cwd=package.parent, timeout=120)
        assert done.returncode == 0, done.stderr
        value, hits = done.stdout.split()
        return int(value), int(hits)

    assert call(1) == (2, 0)  # compiled and stored
    assert call(1) == (2, 1)  # nothing changed: loaded from the cache
    assert call(2) == (3, 0)  # the callee's module changed: compiled again
    assert call(2) == (3, 1)
