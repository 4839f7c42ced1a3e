"""The worst-case optimum of Mastermind decided by a feasibility search.

``worst(C)`` is the least ``D`` such that some strategy solves every code of the
space ``C`` within ``D`` guesses (the final, correct guess counted); Jäger and
Peczarski write it ``f(p, c)``. :mod:`.minimax` finds it with the least-total search,
which also minimises the total and is too slow beyond 4 x 7 and 5 x 5. Here only the
question "can the set ``S`` be solved within ``d`` guesses?" is asked, and answered by
depth-first search with these cuts:

- **counting**: one guess leaves at most ``P = answers_besides_solved(pegs)`` classes
  besides "solved", so ``d`` guesses tell at most ``N(d) = 1 + P * N(d - 1)``
  (``N(1) = 1``) codes apart; a guess is screened out when its largest class exceeds
  ``N(d - 1)`` (:func:`.worst_kernels.screen_guesses`);
- **the last guesses in kernels**: ``d = 2`` and ``d = 3`` are decided inside
  :mod:`.worst_kernels` without recursion in Python (for ``d = 3`` on a table of the
  answers of every code to the set, :func:`.worst_kernels.three_guess_witness`);
- **symmetry**: only one guess of each class of equivalent guesses is tried
  (:func:`.symmetry.mark_representatives`: colours never guessed, colours no
  remaining code uses, position permutations fixing every guess so far, up to
  :data:`PERMUTED_PEGS` pegs), so the first guess ranges over the shapes of a code
  alone (7 for five pegs, 11 for seven pegs and four colours);
- **class by class**: the classes of a guess are tried largest first and the guess is
  dropped at the first class that fails;
- **memo**: every decided ``(set, d)`` at ``d >= 4`` is kept (a set solvable within
  ``d`` is solvable within more; one that is not, within less), with the guess that
  works.

The guesses of a node are tried best first by Knuth's score (smallest largest class,
then most classes), so a feasible depth is usually settled by the first guess; an
infeasible one needs every representative refuted. The answer is exact either way:
``worst(C) = D`` comes with a strategy tree of worst case ``D`` (an upper bound anyone
can check with ``evaluate --tree``) and the refutation of ``D - 1`` (every first guess
up to symmetry fails, a lower bound).

:func:`decide_worst_case` runs the search from the counting bound upwards, one root
guess at a time; the root guesses decided so far, the sets decided below the root and,
for each set under search, the guesses refuted so far are kept in a checkpoint
(checked when loaded), so a long run cut short (Ctrl-C, a kill, ``budget``) resumes
where it stopped and gives the answer of an uninterrupted run.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, field

import numpy as np

from .. import _store
from ..errors import InputError
from .codes import CodeSpace, decode_feedback, feedback_slots, packed_codes
from .minimax import answers_besides_solved, counting_bound, most_told
from .symmetry import (history_group, mark_representatives, position_permutations,
                       present_colours)
from .tree import DecisionTree, write_document
from .worst_kernels import (screen_guesses, split_classes, three_guess_witness,
                            two_guess_witness)

__all__ = ["WorstCaseSearch", "WorstCaseResult", "decide_worst_case", "most_told",
           "write_worst_tree", "heuristic_upper", "HEURISTICS", "BudgetSpent", "set_key",
           "space_identity"]

HEURISTICS = ("knuth", "most-parts", "entropy", "expected-size")
"""Greedy strategies whose worst case gives the search its first upper bound."""

CHECKPOINT_KIND = "jitgames.mastermind.worst"
CHECKPOINT_SCHEMA = 1  # later fields (identity, memo, progress) are optional
PERMUTED_PEGS = 7
"""Position permutations are symmetries up to this many pegs (5,040 for seven): the
search asks the symmetry of a node once per set, where the strategy evaluations ask it
at every decision and stop at six pegs."""
WITHIN_THREE_KEPT = 1 << 21
"""Most sets kept as solvable within three (about 200 bytes each)."""
SAVE_EVERY = 30.0
"""Seconds (wall) between checkpoint writes while the sets below the root are searched."""


class BudgetSpent(Exception):
    """The search stopped at its budget of sets (``WorstCaseSearch.budget``)."""


def set_key(members: np.ndarray) -> str:
    """The name of a set of codes (sorted int64 indices) in the memo and the
    checkpoint: 128 bits of BLAKE2b over its bytes."""
    return hashlib.blake2b(np.ascontiguousarray(members, dtype=np.int64).tobytes(),
                           digest_size=16).hexdigest()


def space_identity(space: CodeSpace, matrix: np.ndarray) -> str:
    """A digest of what the facts of a checkpoint are about: the size, the order of
    the codes (code indices name the sets) and the answers (the first and last rows
    and the diagonal of the response matrix, which fix its encoding)."""
    digest = hashlib.sha256(f"{space.pegs}x{space.colours}:{space.repeats}:"
                            f"{space.size}".encode())
    digest.update(np.ascontiguousarray(space.digits).tobytes())
    for row in (matrix[0], matrix[-1], np.diagonal(matrix)):
        digest.update(np.ascontiguousarray(row).tobytes())
    return digest.hexdigest()


PACKED_FROM_BYTES = 128 << 20
"""Response matrices larger than this (128 MiB, well past a server's last-level cache)
leave the answers to small sets to the packed codes
(:data:`.worst_kernels.PACKED_BELOW`); a smaller one stays in the caches enough that
reading it is as fast or faster (whole searches, ``bench/mastermind_worst.py
--baseline``: 5 x 6, 60 MB, x0.95 with packed answers; 5 x 7, 282 MB, x1.09-1.28)."""


class WorstCaseSearch:
    """The feasibility search on one code space (see the module docstring).

    Attributes
    ----------
    nodes : int
        Sets decided in Python (``d >= 4``), memo hits excluded.
    memo : dict
        ``set key -> [most guesses known too few, fewest known enough, its guess]``
        (:func:`set_key`).
    within_three : dict
        ``set key -> guess`` for sets found solvable within three guesses, so that
        building the strategy tree does not search them again (at most
        :data:`WITHIN_THREE_KEPT`).
    progress : dict
        ``(set key, d) -> guesses refuted so far`` for the sets whose search at ``d``
        guesses is under way (a guess is refuted when one of its classes is not
        solvable within ``d - 1``); a resumed search skips them, so it returns what
        an uninterrupted one does.
    budget : int or None
        Stop (:class:`BudgetSpent`) when ``nodes`` would exceed it.
    on_step : callable or None
        Called after each guess refuted and each set decided at ``d >= 4`` (the
        checkpoint's clock).
    """

    def __init__(self, space: CodeSpace, matrix: np.ndarray):
        if matrix.shape != (space.size, space.size):
            raise InputError("the worst-case search needs the response matrix; raise "
                             "--max-matrix-bytes")
        self.space, self.matrix = space, matrix
        # answers to small sets computed, not read, once the matrix outgrows the caches
        self.words = (packed_codes(space) if matrix.nbytes > PACKED_FROM_BYTES
                      else np.zeros((0, 2), dtype=np.uint64))
        self.solved = space.solved
        self.most = answers_besides_solved(space.pegs) + 1  # N(2)
        slots = feedback_slots(space.pegs)
        self._starts = np.zeros(slots + 1, dtype=np.int64)
        self._fill = np.zeros(slots, dtype=np.int64)
        self._seen = np.zeros(slots, dtype=np.int64)
        self._sizes = np.zeros(slots, dtype=np.int64)
        self._order = np.zeros(space.size, dtype=np.int64)
        self._perms = position_permutations(space.pegs, PERMUTED_PEGS)
        self.nodes = 0
        self.memo: dict[str, list] = {}
        self.progress: dict[tuple[str, int], list[int]] = {}
        self.within_three: dict[str, int] = {}
        self.budget: int | None = None
        self.on_step = None

    # ------------------------------------------------------------------ symmetry
    def marks(self, members: np.ndarray, history: tuple[int, ...]) -> np.ndarray:
        """One representative per class of equivalent guesses at a node."""
        space = self.space
        used = np.zeros(space.colours, dtype=np.bool_)
        for g in history:
            used[space.digits[g]] = True
        hist = np.array(history, dtype=np.int64)
        group, maps = history_group(space.digits, used, space.colours, hist, len(hist),
                                    self._perms)
        present = int(present_colours(space.digits, members, 0, len(members)))
        absent = ((1 << space.colours) - 1) & ~present
        marks = np.zeros(space.size, dtype=np.uint8)
        mark_representatives(space.digits, used, space.colours, group, maps, absent,
                             space.repeats, marks)
        return marks

    def candidates(self, members: np.ndarray, guesses: int,
                   history: tuple[int, ...]) -> np.ndarray:
        """The guesses worth trying for ``members`` within ``guesses`` guesses, best
        first: representatives whose largest class fits ``N(guesses - 1)``, by
        smallest largest class, then most classes, then index."""
        n = self.space.size
        out_guess = np.empty(n, dtype=np.int64)
        out_largest = np.empty(n, dtype=np.int64)
        out_parts = np.empty(n, dtype=np.int64)
        kept = screen_guesses(self.matrix, self.words, self.space.pegs, members,
                              len(members), self.marks(members, history), self.solved,
                              most_told(guesses - 1, self.space.pegs), out_guess,
                              out_largest, out_parts, self._sizes)
        order = np.lexsort((out_guess[:kept], -out_parts[:kept], out_largest[:kept]))
        return out_guess[:kept][order]

    def classes(self, members: np.ndarray, guess: int) -> list[np.ndarray]:
        """The classes of ``members`` (sorted) by their answer to ``guess``, "solved"
        left out, largest first (ties by answer)."""
        out = np.empty_like(members)
        split_classes(self.matrix, members, 0, len(members), guess, self._starts, out)
        starts = self._starts.copy()
        parts = [out[starts[f]:starts[f + 1]] for f in range(len(starts) - 1)
                 if f != self.solved and starts[f + 1] > starts[f]]
        parts.sort(key=len, reverse=True)
        return parts

    # ------------------------------------------------------------------ the search
    def witness(self, members: np.ndarray, guesses: int,
                history: tuple[int, ...] = ()) -> int:
        """A guess after which every code of ``members`` (sorted code indices) is
        solved within ``guesses`` guesses in all; ``-1`` if there is none."""
        n = len(members)
        if n == 0 or guesses <= 0:
            return -1
        if n == 1:
            return int(members[0])
        if n > most_told(guesses, self.space.pegs):
            return -1
        if guesses == 2:
            return int(two_guess_witness(self.matrix, self.words, self.space.pegs, members,
                                         0, n, self.solved, self.most, self._seen))
        key = set_key(members)
        if guesses == 3:
            found = self.within_three.get(key)
            if found is None:
                found = int(three_guess_witness(self.matrix, self.words, self.space.pegs,
                                                members, 0, n, self.marks(members, history),
                                                self.solved, self.most, self._starts,
                                                self._fill, self._order, self._seen))
                if found >= 0 and len(self.within_three) < WITHIN_THREE_KEPT:
                    self.within_three[key] = found
            return found
        known = self.memo.get(key)
        if known is not None:
            too_few, enough, guess = known
            if guesses >= enough:
                return guess
            if guesses <= too_few:
                return -1
        if self.budget is not None and self.nodes >= self.budget:
            raise BudgetSpent(f"{self.nodes} sets searched")
        self.nodes += 1
        found = -1
        refuted = self.progress.setdefault((key, guesses), [])
        skip = set(refuted)
        for guess in self.candidates(members, guesses, history):
            guess = int(guess)
            if guess in skip:
                continue
            after = history + (guess,)
            if all(self.witness(part, guesses - 1, after) >= 0
                   for part in self.classes(members, guess)):
                found = guess
                break
            refuted.append(guess)
            if self.on_step is not None:
                self.on_step()
        del self.progress[(key, guesses)]
        known = self.memo.setdefault(key, [0, 1 << 30, -1])
        if found >= 0:
            if guesses < known[1]:
                known[1], known[2] = guesses, found
        else:
            known[0] = max(known[0], guesses)
        if self.on_step is not None:
            self.on_step()
        return found

    def answer_key(self, guess: int, part: np.ndarray) -> str:
        """The written answer (``"black,white"``) that leads from ``guess`` to ``part``."""
        black, white = decode_feedback(int(self.matrix[guess, part[0]]), self.space.pegs)
        return f"{black},{white}"

    def subtree(self, members: np.ndarray, guesses: int, guess: int,
                history: tuple[int, ...]) -> dict:
        """The strategy found for ``members`` opening with ``guess`` (which must work
        within ``guesses``), as the nested dict of the tree document."""
        if guess < 0:
            raise RuntimeError("no witness where the search found one")
        node = {"guess": self.space.format(guess)}
        after = history + (guess,)
        nxt = {self.answer_key(guess, part): self.subtree(
                   part, guesses - 1, self.witness(part, guesses - 1, after), after)
               for part in self.classes(members, guess)}
        if nxt:
            node["next"] = nxt
        return node


@dataclass
class WorstCaseResult:
    """What :func:`decide_worst_case` established.

    ``lower``: no strategy solves every code within ``lower - 1`` guesses (proved);
    ``upper``: a strategy within ``upper`` guesses was found (``None``: not yet), by
    ``upper_strategy`` (a greedy strategy's name, or ``"search"``) with its ``tree``;
    ``greedy_upper`` is the best greedy strategy's worst case; complete when ``lower``
    and ``upper`` meet. ``refuted[d]`` lists the first guesses shown not to work
    within ``d`` guesses (written codes), ``roots[d]`` how many first guesses there are
    up to symmetry.
    """

    pegs: int
    colours: int
    codes: int
    lower: int
    upper: int | None = None
    first_guess: str | None = None
    upper_strategy: str | None = None
    greedy_upper: int | None = None
    tree: DecisionTree | None = field(default=None, repr=False)
    refuted: dict[int, list[str]] = field(default_factory=dict)
    roots: dict[int, int] = field(default_factory=dict)
    nodes: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    counting_bound: int = 0

    @property
    def complete(self) -> bool:
        return self.upper is not None and self.upper == self.lower

    def to_dict(self) -> dict:
        out = {"pegs": self.pegs, "colours": self.colours, "codes": self.codes,
               "worst_case": self.upper if self.complete else None,
               "lower": self.lower, "upper": self.upper,
               "counting_bound": self.counting_bound, "first_guess": self.first_guess,
               "upper_from": self.upper_strategy, "greedy_max": self.greedy_upper,
               "refuted": {str(d): v for d, v in sorted(self.refuted.items())},
               "root_guesses": {str(d): v for d, v in sorted(self.roots.items())},
               "nodes": self.nodes, "seconds": round(self.seconds, 3),
               "cpu_seconds": round(self.cpu_seconds, 3)}
        if self.tree is not None:
            guesses = self.tree.guesses(matrix=None)
            out["tree"] = {"nodes": self.tree.nodes, "total": int(guesses.sum()),
                           "max": int(guesses.max())}
        return out


def _load_checkpoint(path, space: CodeSpace, identity: str) -> dict:
    """What an earlier run established: the first guesses refuted, the classes decided
    for the first guess under test, the sets decided below the root and the guesses
    refuted at the sets still under search. Checked before use: the file's checksum
    (:func:`_store.read_checked`), the game size, the digest of the code space
    (:func:`space_identity`) and the form of every entry (a file written before these
    were kept holds root refutations only and is read as such)."""
    empty = {"refuted": {}, "classes": {}, "memo": {}, "progress": {}}
    if path is None or not os.path.exists(path):
        return empty
    data = _store.load_json(_store.read_checked(path, CHECKPOINT_KIND, CHECKPOINT_SCHEMA,
                                                "checkpoint"), "checkpoint")
    if (data.get("pegs"), data.get("colours"), data.get("repeats")) != (
            space.pegs, space.colours, space.repeats):
        raise InputError(f"the checkpoint {path} is for another game size")
    if data.get("identity", identity) != identity:
        raise InputError(f"the checkpoint {path} is for another code space (its digest "
                         "differs)")
    if "identity" not in data and (data.get("memo") or data.get("progress")):
        raise InputError(f"the checkpoint {path} keeps sets without the digest of its "
                         "code space")

    def guess(value):
        if type(value) is not int or not 0 <= value < space.size:
            raise InputError(f"the checkpoint {path} is damaged (a guess out of range)")
        return value

    def depth(text):
        if not str(text).isdigit() or not 1 <= int(text) <= 64:
            raise InputError(f"the checkpoint {path} is damaged (a depth out of range)")
        return int(text)

    def key(text):
        if not (isinstance(text, str) and len(text) == 32
                and all(c in "0123456789abcdef" for c in text)):
            raise InputError(f"the checkpoint {path} is damaged (a set key)")
        return text

    memo = {}
    for name, entry in data.get("memo", {}).items():
        if not (isinstance(entry, list) and len(entry) == 3
                and all(type(x) is int for x in entry)
                and 0 <= entry[0] < entry[1] and (entry[2] == -1) == (entry[1] == 1 << 30)):
            raise InputError(f"the checkpoint {path} is damaged (a decided set)")
        if entry[2] != -1:
            guess(entry[2])
        memo[key(name)] = list(entry)
    progress = {}
    for name, guesses in data.get("progress", {}).items():
        set_name, _, at = str(name).partition("/")
        if not isinstance(guesses, list):
            raise InputError(f"the checkpoint {path} is damaged (a set under search)")
        progress[(key(set_name), depth(at))] = [guess(g) for g in guesses]
    return {"refuted": {depth(d): list(v) for d, v in data.get("refuted", {}).items()},
            "classes": {depth(d): v for d, v in data.get("classes", {}).items()},
            "memo": memo, "progress": progress}


def _save_checkpoint(path, space: CodeSpace, identity: str, refuted: dict, classes: dict,
                     search: WorstCaseSearch | None = None) -> None:
    if path is None:
        return
    doc = {"pegs": space.pegs, "colours": space.colours, "repeats": space.repeats,
           "identity": identity,
           "refuted": {str(d): v for d, v in sorted(refuted.items())},
           "classes": {str(d): v for d, v in sorted(classes.items())}}
    if search is not None:
        doc["memo"] = search.memo
        doc["progress"] = {f"{name}/{d}": guesses
                           for (name, d), guesses in search.progress.items() if guesses}
    _store.write_checked(path, CHECKPOINT_KIND, CHECKPOINT_SCHEMA,
                         json.dumps(doc, separators=(",", ":")).encode())


def heuristic_upper(space: CodeSpace, matrix: np.ndarray,
                    names=HEURISTICS) -> tuple[int, str, DecisionTree]:
    """The least worst case among the greedy strategies ``names`` (canonical ties):
    ``(guesses, strategy, its tree)``, an upper bound of ``worst(space)``."""
    from .evaluate import decision_tree
    from .strategies import get_strategy

    best = None
    for name in names:
        tree = decision_tree(get_strategy(name), space, matrix)
        worst = int(tree.guesses(matrix=matrix).max())
        if best is None or worst < best[0]:
            best = (worst, name, tree)
    return best


def decide_worst_case(space: CodeSpace, matrix: np.ndarray, checkpoint=None,
                      say=None, at_most: int | None = None,
                      heuristics=HEURISTICS, budget: int | None = None,
                      save_every: float = SAVE_EVERY, hook=None) -> WorstCaseResult:
    """Decide ``worst(space)``: depths from the counting bound up, each refuted first
    guess by first guess (up to symmetry) until one depth is feasible.

    The checkpoint keeps the first guesses refuted, for the first guess under test
    each class decided (its strategy when it has one), and below the root the sets
    decided and, for the sets under search, the guesses refuted so far (written at
    least every ``save_every`` seconds of wall time and when the run stops), so a run
    cut short (KeyboardInterrupt, or ``budget`` sets searched) resumes from there and
    loses at most those seconds; the result then holds the bounds proved so far
    (``complete`` False). ``at_most`` stops after that depth (bounds only). ``hook``,
    if given, is called after each step below the root (a guess refuted or a set
    decided) and may raise KeyboardInterrupt to stop the run there.

    The greedy ``heuristics`` first give an upper bound with its tree
    (:func:`heuristic_upper`); when every depth below it is refuted, that tree is the
    strategy of the result and the search never has to build one.
    """
    started, cpu_started = time.perf_counter(), time.process_time()
    search = WorstCaseSearch(space, matrix)
    search.budget = budget
    identity = space_identity(space, matrix) if checkpoint is not None else ""
    stored = _load_checkpoint(checkpoint, space, identity)
    refuted, decided = stored["refuted"], stored["classes"]
    search.memo, search.progress = stored["memo"], stored["progress"]
    clock = {"saved": time.perf_counter()}

    def save():
        _save_checkpoint(checkpoint, space, identity, refuted, decided, search)
        clock["saved"] = time.perf_counter()

    def step():
        if time.perf_counter() - clock["saved"] >= save_every:
            save()
        if hook is not None:
            hook()

    search.on_step = step
    save()  # it names its size from the start
    bound = counting_bound(space.size, space.pegs)
    result = WorstCaseResult(space.pegs, space.colours, space.size, bound,
                             counting_bound=bound, refuted=refuted)
    everything = np.arange(space.size, dtype=np.int64)
    depth = bound
    try:
        if heuristics:
            upper, name, tree = heuristic_upper(space, matrix, heuristics)
            result.upper, result.upper_strategy, result.tree = upper, name, tree
            result.greedy_upper = upper
            result.first_guess = space.format(int(tree.table[0, 0]))
            if say is not None:
                say(f"{name}: every secret within {upper} guesses (an upper bound)")
        while at_most is None or depth <= at_most:
            if result.upper is not None and depth >= result.upper:
                result.lower = max(result.lower, depth)
                break
            roots = search.candidates(everything, depth, ())
            result.roots[depth] = len(roots)
            done = set(refuted.get(depth, []))
            for guess in (int(g) for g in roots):
                written = space.format(guess)
                if written in done:
                    continue
                known = decided.setdefault(depth, {}).setdefault(written, {})
                tree = {"guess": written, "next": {}}
                works = True
                for part in search.classes(everything, guess):
                    answer = search.answer_key(guess, part)
                    if answer not in known:
                        found = search.witness(part, depth - 1, (guess,))
                        known[answer] = None if found < 0 else search.subtree(
                            part, depth - 1, found, (guess,))
                        save()
                        if say is not None:
                            say(f"{written} then {answer}: {len(part)} codes "
                                f"{'within' if found >= 0 else 'not within'} "
                                f"{depth - 1} more guesses "
                                f"({time.process_time() - cpu_started:.0f} CPU s)")
                    if known[answer] is None:
                        works = False
                        break
                    tree["next"][answer] = known[answer]
                if works:
                    result.upper, result.first_guess = depth, written
                    result.tree = DecisionTree.from_dict(space, tree)
                    result.upper_strategy = "search"
                    break
                refuted.setdefault(depth, []).append(written)
                del decided[depth][written]
                save()
                if say is not None:
                    say(f"{written}: not within {depth} guesses")
            if result.upper == depth:
                break
            result.lower = depth + 1  # every first guess refuted
            if say is not None:
                say(f"{depth} guesses are not enough")
            depth += 1
    except (KeyboardInterrupt, BudgetSpent):
        save()
    result.refuted = refuted
    result.nodes = search.nodes
    result.seconds = time.perf_counter() - started
    result.cpu_seconds = time.process_time() - cpu_started
    return result


def write_worst_tree(path, result: WorstCaseResult) -> None:
    """Write the strategy tree of a decided run as the tree document
    (``docs/mastermind_optimal.md``; ``max_guesses`` = the worst case), gzip compressed
    when the name ends in ``.gz``; ``evaluate --tree`` checks it."""
    doc = result.tree.to_document("worst", result.upper)
    doc["worst_case"] = {"lower": result.lower, "upper": result.upper,
                         "tree_from": result.upper_strategy,
                         "refuted": {str(d): v for d, v in sorted(result.refuted.items())}}
    write_document(path, doc)
