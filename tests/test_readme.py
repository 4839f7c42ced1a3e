"""Every example in README.md runs, and shows what the README says it shows.

The README is read as python-chess reads its own: a runnable session. The rules, for
whoever writes the README:

1. **Commands.** In a ```` ```bash ```` (or ``sh``/``shell``) block, every line that
   starts with ``python -m jitgames`` or ``jitgames`` is run (``jitgames`` as
   ``python -m jitgames``, the same code) in a scratch directory and must exit 0. Other
   lines (``pip install``, ``pytest``) are not run here.
2. **Sessions.** A ```` ```text ```` or ```` ```console ```` block whose first line
   starts with ``$ `` is a session: each ``$ command`` is run and its stdout compared
   with the lines under it, up to the next ``$`` line. ``...`` matches anything (a
   time, the rest of a line, omitted lines) and runs of whitespace compare equal, as
   in doctest (``ELLIPSIS``, ``NORMALIZE_WHITESPACE``). A ``$`` line with no output
   under it only has to exit 0.
3. **Python.** A ```` ```python ```` block with ``>>>`` prompts is a doctest (same
   options, ``python -m doctest``); one without prompts is run as a script
   (``python block.py``) and must exit 0. Each block runs in a fresh interpreter in the
   scratch directory. Define ``@jit`` kernels in script blocks, not doctests (a kernel
   needs a real file for its cache).
4. **Smaller runs.** The README shows commands at the size a reader runs them; the
   test runs some of them smaller, by the word replacements listed in ``RUN_SMALLER``
   below (``{"jitgames solitaire 100000": {"100000": "2000"}}``), so the README
   carries no test markers. Comments in commands are ignored. Input files a command
   needs are made by an earlier command of the same block.
5. ``NOT_RUN`` below lists, with the reason, commands of the README that are not run
   here (a person at the keys, minutes of work). An entry of either list whose command
   is no longer in the README fails the test, so neither list goes stale.

A README example that fails, or whose output differs from the one shown, fails CI.
"""
from __future__ import annotations

import doctest
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
TIMEOUT = 600
"""Seconds a README command may take here (the long ones are marked to run small)."""
OPTIONS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

RUN_SMALLER: dict[str, dict[str, str]] = {
    "jitgames solitaire 100000": {"100000": "2000"},
    "jitgames solitaire 100000 --seed 7 --json": {"100000": "500"},
    "jitgames solitaire 20000 --score-only": {"20000": "500"},
    "jitgames solitaire 2000 --compare-shuffles": {"2000": "200"},
    "jitgames mastermind optimal -p 4 -k 10 --no-repeats --checkpoint bc.ckpt --out bc.json.gz":
        {"10": "5"},
}
"""README command (as written, without its comment) -> word replacements that make the
test's run of it small."""

NOT_RUN: dict[str, str] = {
    "jitgames serve": "a server that runs until Ctrl-C (tests/test_web_*.py drive it)",
    "jitgames mastermind play": "a person at the keys",
    "jitgames kalah play --pits 3 --stones 3 --opponent perfect": "a person at the keys",
    "jitgames kalah solve 6 4": "minutes of work and a 226 MB endgame database",
}
"""README command (as written, without its comment) -> why the test does not run it."""


@dataclass
class Example:
    """One runnable thing of the README: a command (with its expected output, if
    shown), or a Python block."""

    kind: str  # "command" or "doctest" or "script"
    line: int  # line number in README.md, for messages
    text: str  # the command as written (no comment), or the Python source
    expected: str | None = None  # stdout shown under a session command
    replacements: dict = field(default_factory=dict)

    @property
    def name(self):
        first = self.text.strip().splitlines()[0] if self.text.strip() else ""
        return f"README.md:{self.line} {first[:60]}"


_FENCE = re.compile(r"^```(\w*)\s*$")
_COMMAND = re.compile(r"^(python -m jitgames|jitgames)(\s|$|\.)")


def _split_comment(line: str) -> str:
    """The command of a line without its trailing comment (a ``#`` that starts a word
    begins the comment, as in the shell)."""
    match = re.search(r"(^|\s)#", line)
    return (line if match is None else line[:match.start()]).strip()


def _example(line: int, command: str, expected: str | None = None) -> Example:
    return Example("command", line, command, expected,
                   dict(RUN_SMALLER.get(command, {})))


def examples(text: str) -> list[Example]:
    """The examples of README text, in order (see the module's rules)."""
    found = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if fence is None:
            i += 1
            continue
        lang, start = fence[1].lower(), i + 1
        end = start
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        body = lines[start:end]
        i = end + 1
        if lang in ("bash", "sh", "shell"):
            for k, line in enumerate(body):
                command = _split_comment(line)
                if _COMMAND.match(command):
                    found.append(_example(start + k + 1, command))
        elif lang in ("text", "console", "") and body and body[0].startswith("$ "):
            current = None
            for k, line in enumerate(body):
                if line.startswith("$ "):
                    command = _split_comment(line[2:])
                    current = _example(start + k + 1, command, expected="")
                    if _COMMAND.match(command):
                        found.append(current)
                elif current is not None:
                    current.expected += line + "\n"
        elif lang in ("python", "py", "pycon"):
            source = "\n".join(body) + "\n"
            kind = "doctest" if any(x.lstrip().startswith(">>>") for x in body) else "script"
            found.append(Example(kind, start + 1, source))
    return found


def _argv(example: Example) -> list[str]:
    words = shlex.split(example.text)
    words = [example.replacements.get(w, w) for w in words]
    if words[:2] == ["python", "-m"]:
        return [sys.executable, "-m", *words[2:]]
    return [sys.executable, "-m", "jitgames", *words[1:]]  # the console script's code


EXAMPLES = examples(README.read_text(encoding="utf-8")) if README.exists() else []


def _environment(tmp_path):
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    env["MPLBACKEND"] = "Agg"
    return env


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """One scratch directory for the whole README, so a command can use a file an
    earlier command of the README wrote (as a reader's session would)."""
    return tmp_path_factory.mktemp("readme")


def _check_output(expected: str, got: str) -> bool:
    return doctest.OutputChecker().check_output(expected, got, OPTIONS)


@pytest.mark.slow
@pytest.mark.parametrize("example", [e for e in EXAMPLES
                                     if e.kind == "command" and e.text not in NOT_RUN],
                         ids=lambda e: e.name)
def test_readme_command(example, scratch):
    argv = _argv(example)
    done = subprocess.run(argv, cwd=scratch, env=_environment(scratch), capture_output=True,
                          text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, (f"README.md:{example.line}: `{example.text}` exited "
                                  f"{done.returncode}\n{done.stderr[-2000:]}")
    if example.expected and example.expected.strip():
        assert _check_output(example.expected, done.stdout), (
            f"README.md:{example.line}: `{example.text}` printed\n{done.stdout}\n"
            f"where the README shows\n{example.expected}")


@pytest.mark.slow
@pytest.mark.parametrize("example", [e for e in EXAMPLES if e.kind != "command"],
                         ids=lambda e: e.name)
def test_readme_python(example, scratch):
    # A fresh interpreter per block, as a reader gets; the block is a real file, so
    # kernels it defines with @jit can be cached like any others.
    source = scratch / f"readme_{example.line}.{'txt' if example.kind == 'doctest' else 'py'}"
    source.write_text(example.text, encoding="utf-8")
    if example.kind == "doctest":
        argv = [sys.executable, "-m", "doctest", "-o", "ELLIPSIS", "-o",
                "NORMALIZE_WHITESPACE", source.name]
    else:
        argv = [sys.executable, source.name]
    done = subprocess.run(argv, cwd=scratch, env=_environment(scratch), capture_output=True,
                          text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, (f"README.md:{example.line}: the Python example failed\n"
                                  f"{done.stdout[-3000:]}{done.stderr[-3000:]}")


def test_listed_commands_are_still_in_the_readme():
    commands = {e.text for e in EXAMPLES if e.kind == "command"}
    stale = sorted((set(NOT_RUN) | set(RUN_SMALLER)) - commands)
    assert not stale, f"NOT_RUN or RUN_SMALLER list commands no longer in README.md: {stale}"


def test_readme_shows_no_test_markers():
    text = README.read_text(encoding="utf-8")
    assert "# ci:" not in text, "README.md carries a test marker; use RUN_SMALLER or NOT_RUN"


def test_the_rules_find_every_kind_of_example():
    """The extraction itself, on a small README written for the test."""
    text = "\n".join([
        "```bash", "pip install -e .", "python -m jitgames.primes count 0 100   # note",
        "jitgames solitaire 100000   # the main job", "```",
        "```text", "$ python -m jitgames.primes isprime 7", "7 prime",
        "$ jitgames puzzles queens 8", "...", "```",
        "```python", ">>> 1 + 1", "2", "```",
        "```python", "x = 1", "```",
        "```text", "not a session", "```"])
    found = examples(text)
    assert [(e.kind, e.text) for e in found] == [
        ("command", "python -m jitgames.primes count 0 100"),
        ("command", "jitgames solitaire 100000"),
        ("command", "python -m jitgames.primes isprime 7"),
        ("command", "jitgames puzzles queens 8"),
        ("doctest", ">>> 1 + 1\n2\n"), ("script", "x = 1\n")]
    assert found[1].replacements == {"100000": "2000"}  # from RUN_SMALLER
    assert _argv(found[1])[-2:] == ["solitaire", "2000"]
    assert found[2].expected == "7 prime\n" and found[3].expected == "...\n"
    assert _check_output("1 ... 3\n", "1 2 3\n") and not _check_output("1 2\n", "1 3\n")
