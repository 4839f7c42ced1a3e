"""What a process compiles, and the machine code a kernel runs: Numba's compile events
for the compile notice (:func:`jitgames._jit.compile_notice`) and Ctrl-C's handling
(``jitgames._interrupt``), and the probes that the compiling helper's tests
(``tests/test_warmup*.py``) and the compile benchmark (``bench/compile.py``) read.

This module imports nothing of jitgames, so that the benchmark can load it by its path
into a process that runs an older checkout of the package (its baseline).
"""
from __future__ import annotations

import contextlib
import hashlib
import re

# Numba names each compiled function with a version number it counts up per process
# (another when a callee came from the cache) ...
_VERSION = re.compile(r"B[0-9]+v[0-9]+")
# ... and tags it with a digest of its compile flags (its ABI tag).
_ABI_TAG = re.compile(r"B[0-9]+c8tJTI[A-Za-z0-9_]*?_3d(_3d)?E")


def machine_code(kernel, signature=None, mask_flags: bool = False) -> list[str]:
    """The instructions of ``kernel``'s compilation for ``signature`` (its first one by
    default), one a line: comments and assembler directives dropped (local labels
    kept), the per-process version numbers in symbol names masked.

    Parameters
    ----------
    kernel : numba dispatcher, compiled for ``signature`` in this process.
    mask_flags : bool
        Also mask the ABI tags of the callees' symbols, which change with their compile
        flags: for comparing code across checkouts whose flags differ. Left unmasked,
        a callee linked under other flags shows as a difference.
    """
    if signature is None:
        signature = kernel.signatures[0]
    lines = []
    for line in kernel.inspect_asm(signature).splitlines():
        line = line.split("#")[0].rstrip()
        stripped = line.lstrip()
        if not line or (stripped.startswith(".") and not stripped.startswith(".L")):
            continue
        if mask_flags:
            line = _ABI_TAG.sub("ABI", line)
        lines.append(_VERSION.sub("Bv", line))
    return lines


def machine_code_digest(kernel, signature=None, mask_flags: bool = False) -> dict:
    """``{"instructions": count, "sha1": hex digest}`` of :func:`machine_code`: two
    compilations run the same code when their digests are equal."""
    lines = machine_code(kernel, signature, mask_flags)
    return {"instructions": len(lines),
            "sha1": hashlib.sha1("\n".join(lines).encode()).hexdigest()}


def machine_code_by_function(kernel, signature=None, mask_flags: bool = False) -> dict:
    """``{symbol: {"instructions": count, "sha1": hex digest}}`` of each function in
    ``kernel``'s compiled library (:func:`machine_code`, split at the functions' labels):
    which of the functions linked into a kernel changed between two compilations."""
    functions: dict[str, list[str]] = {}
    lines = None
    for line in machine_code(kernel, signature, mask_flags):
        label = _FUNCTION_LABEL.match(line)
        if label:
            lines = functions.setdefault(label.group(1), [])
        elif lines is not None:
            lines.append(line)
    return {name: {"instructions": len(body),
                   "sha1": hashlib.sha1("\n".join(body).encode()).hexdigest()}
            for name, body in functions.items()}


_FUNCTION_LABEL = re.compile(r"^([A-Za-z_$][\w$.@]*):$")
"""A function's label in :func:`machine_code`'s lines (local labels start with ``.L``)."""


def _listener(on_start, on_end):
    from numba.core import event

    class Listener(event.Listener):
        def on_start(self, ev):
            on_start(ev)

        def on_end(self, ev):
            if on_end is not None:
                on_end(ev)

    return Listener()


@contextlib.contextmanager
def compile_events(on_start, on_end=None):
    """Inside the block, call ``on_start(event)`` as Numba starts compiling a kernel
    (a cache miss: a kernel loaded from the cache fires nothing) and ``on_end(event)``
    as it ends (``event.data["dispatcher"]`` is the kernel); the calls come on the
    compiling thread."""
    from numba.core import event

    with event.install_listener("numba:compile", _listener(on_start, on_end)):
        yield


def watch_compile_events(on_start, on_end=None) -> None:
    """:func:`compile_events` for the rest of the process."""
    from numba.core import event

    event.register("numba:compile", _listener(on_start, on_end))


@contextlib.contextmanager
def compiled_names(qualified: bool = False):
    """Inside the block, the names of the Python functions Numba compiles (cache misses),
    in the order compiling starts, appended to the list yielded (``__qualname__`` when
    ``qualified``)."""
    names: list[str] = []
    attribute = "__qualname__" if qualified else "__name__"
    with compile_events(lambda ev: names.append(getattr(ev.data["dispatcher"].py_func,
                                                        attribute))):
        yield names
