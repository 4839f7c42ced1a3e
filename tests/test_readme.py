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
4. **Markers**, in a trailing comment of a command (``python -m ... # ci: ...``):

   - ``# ci: A->B`` runs the command with the word ``A`` replaced by ``B``
     (e.g. ``# ci: 100000->1000`` for the long study: the README shows the real size,
     the test runs a small one). Several replacements are separated by ``;``.
   - ``# ci: skip REASON`` does not run it (a cluster address, a person at the keys,
     hours of work). Use sparingly: every skip is a README example nobody checks.

   Other comments are ignored. Input files a command needs are made by an earlier
   command of the same block, or the command is marked.
5. ``NOT_RUN`` below lists, with the reason, commands of the current README that are
   neither runnable nor marked; an entry whose command is no longer in the README
   fails the test, so the list only shrinks.

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

NOT_RUN: dict[str, str] = {
    # Long runs the README shows at full size: mark them `# ci: 100000->1000` and so on.
    "python -m jitgames.solitaire 100000": "the 100,000-deal study (minutes on 2 cores)",
    "python -m jitgames.solitaire 100000 --seed 7 --json": "the 100,000-deal study",
    "python -m jitgames.mastermind evaluate -s optimal": "the optimal strategy (minutes)",
    "python -m jitgames.mastermind tournament --sizes 2x3,3x3,3x4,4x4": "every strategy, "
                                                                        "minutes",
    "python -m jitgames.mastermind play --role maker -s optimal": "the optimal strategy",
    "python -m jitgames.kalah solve 6 4": "builds a 226 MB endgame database (minutes)",
    "python -m jitgames.puzzles pegsolitaire central --count --json": "minutes",
    # A file the README does not create.
    "python -m jitgames.solitaire --deals my_deals.txt --out results.csv": "needs my_deals.txt",
    # A cluster address that stands for the reader's own scheduler.
    "python -m jitgames.solitaire 10000000 --seed 1 --scheduler tcp://HEAD:8786 "
    "--checkpoint study.ckpt": "needs a Dask cluster",
    "python -m jitgames.puzzles queens 19 --scheduler tcp://HEAD:8786 --chunks 256":
        "needs a Dask cluster",
    "python -m jitgames.mastermind evaluate -p 5 -k 8 -s entropy --scheduler tcp://HEAD:8786 "
    "--chunk-size 2048": "needs a Dask cluster",
    # Output shown before "complete" joined every JSON object, and before the
    # tournament's head-to-head lines: the README's rewrite shows the new output.
    "python -m jitgames.puzzles queens 8 --json": "shown output predates \"complete\"",
    "python -m jitgames.puzzles tait 8 --json": "shown output predates \"complete\"",
    "python -m jitgames.kalah tournament store@2 store@4 sides@4 --openings 10":
        "shown output predates the head-to-head lines",
    "python -m jitgames.mastermind evaluate --pegs 4 --colours 6 --strategy knuth --json":
        "shown output predates the \"ties\" and \"first\" keys",
    "python -m jitgames.kalah play --pits 3 --stones 2 --depth 3 --human none --tree 1":
        "play now breaks ties at random unless --seed is given: the shown game needs one",
}
"""README command (as written, without its comment) -> why it is not run. Prefer a
``# ci:`` marker in the README; this list is for commands the README cannot mark."""


@dataclass
class Example:
    """One runnable thing of the README: a command (with its expected output, if
    shown), or a Python block."""

    kind: str  # "command" or "doctest" or "script"
    line: int  # line number in README.md, for messages
    text: str  # the command as written (no comment), or the Python source
    expected: str | None = None  # stdout shown under a session command
    replacements: list = field(default_factory=list)
    skip: str | None = None

    @property
    def name(self):
        first = self.text.strip().splitlines()[0] if self.text.strip() else ""
        return f"README.md:{self.line} {first[:60]}"


_FENCE = re.compile(r"^```(\w*)\s*$")
_COMMAND = re.compile(r"^(python -m jitgames|jitgames)(\s|$|\.)")


def _split_comment(line: str):
    """``(command, marker)``: the command without its trailing comment, and the text
    after ``# ci:`` if the comment is a marker (else None)."""
    # A '#' that starts a word begins the comment, as in the shell.
    match = re.search(r"(^|\s)#", line)
    if match is None:
        return line.strip(), None
    command, comment = line[:match.start()].strip(), line[match.end():].strip()
    marker = comment[len("ci:"):].strip() if comment.startswith("ci:") else None
    return command, marker


def _apply_marker(example: Example, marker: str | None) -> None:
    if marker is None:
        return
    if marker.startswith("skip"):
        example.skip = marker[len("skip"):].strip() or "marked # ci: skip"
        return
    for part in marker.split(";"):
        if "->" not in part:
            raise ValueError(f"README.md:{example.line}: unreadable marker '# ci: {marker}'")
        old, new = (x.strip() for x in part.split("->", 1))
        example.replacements.append((old, new))


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
                command, marker = _split_comment(line)
                if _COMMAND.match(command):
                    example = Example("command", start + k + 1, command)
                    _apply_marker(example, marker)
                    found.append(example)
        elif lang in ("text", "console", "") and body and body[0].startswith("$ "):
            current = None
            for k, line in enumerate(body):
                if line.startswith("$ "):
                    command, marker = _split_comment(line[2:])
                    current = Example("command", start + k + 1, command, expected="")
                    _apply_marker(current, marker)
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
    words = [dict(example.replacements).get(w, w) for w in words]
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
@pytest.mark.parametrize("example", [e for e in EXAMPLES if e.kind == "command"],
                         ids=lambda e: e.name)
def test_readme_command(example, scratch):
    if example.skip is not None:
        pytest.skip(f"marked in the README: {example.skip}")
    if example.text in NOT_RUN:
        pytest.skip(f"NOT_RUN: {NOT_RUN[example.text]}")
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


def test_not_run_entries_are_still_in_the_readme():
    commands = {e.text for e in EXAMPLES if e.kind == "command"}
    stale = sorted(set(NOT_RUN) - commands)
    assert not stale, f"NOT_RUN lists commands no longer in README.md: {stale}"


def test_the_rules_find_every_kind_of_example():
    """The extraction itself, on a small README written for the test."""
    text = "\n".join([
        "```bash", "pip install -e .", "python -m jitgames.primes count 0 100   # note",
        "jitgames solitaire 100000 --json   # ci: 100000->10", "```",
        "```text", "$ python -m jitgames.primes isprime 7", "7 prime",
        "$ jitgames puzzles queens 8  # ci: skip shown only", "...", "```",
        "```python", ">>> 1 + 1", "2", "```",
        "```python", "x = 1", "```",
        "```text", "not a session", "```"])
    found = examples(text)
    assert [(e.kind, e.text) for e in found] == [
        ("command", "python -m jitgames.primes count 0 100"),
        ("command", "jitgames solitaire 100000 --json"),
        ("command", "python -m jitgames.primes isprime 7"),
        ("command", "jitgames puzzles queens 8"),
        ("doctest", ">>> 1 + 1\n2\n"), ("script", "x = 1\n")]
    assert found[1].replacements == [("100000", "10")]
    assert _argv(found[1])[-3:] == ["solitaire", "10", "--json"]
    assert found[2].expected == "7 prime\n" and found[3].skip == "shown only"
    assert _check_output("1 ... 3\n", "1 2 3\n") and not _check_output("1 2\n", "1 3\n")
