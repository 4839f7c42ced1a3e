"""The worst-case optimum (:mod:`jitgames.mastermind.worst_case`): kernels against their
twins, the search against an exhaustive recursion, published values, trees, the CLI."""
import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from jitgames.mastermind import worst_case, worst_kernels
from jitgames.mastermind.codes import feedback_slots, load_game, packed_codes
from jitgames.mastermind.minimax import answers_besides_solved
from jitgames.mastermind.tree import check_tree
from jitgames.mastermind.worst_case import WorstCaseSearch, decide_worst_case, most_told
from tests.reference import mastermind_worst as ref
from tests.test_mastermind_cli import run

DATA = Path(__file__).parent / "data"
PUBLISHED = json.loads((DATA / "mastermind_worst_case.json").read_text())["values"]
MORE = json.loads((DATA / "mastermind_worst_case_more.json").read_text())
RESULTS = Path(__file__).parents[1] / "bench" / "results"
SMALL = [(2, 3), (3, 3), (2, 4), (3, 4), (4, 2), (5, 2)]


def _node(space, matrix, history, secret):
    """The codes consistent with ``history`` answered as for ``secret`` (sorted)."""
    members = np.arange(space.size, dtype=np.int64)
    for h in history:
        members = members[matrix[h, members] == matrix[h, secret]]
    return members


node_strategy = st.tuples(st.sampled_from(SMALL), st.lists(st.integers(0, 10 ** 6),
                                                            max_size=2),
                          st.integers(0, 10 ** 6))


def _draw_node(drawn):
    (pegs, colours), history, secret = drawn
    space, matrix = load_game(pegs, colours)
    history = [h % space.size for h in history]
    return space, matrix, history, _node(space, matrix, history, secret % space.size)


NO_WORDS = np.zeros((0, 2), np.uint64)
"""Packed codes of no rows: the kernels read every answer from the matrix."""


def _answer_sources(space):
    """Both ways the kernels get answers, each to be equal to the twin's: packed codes
    (sets of fewer than ``worst_kernels.PACKED_BELOW`` codes), and the matrix."""
    return [(packed_codes(space), space.pegs), (NO_WORDS, space.pegs)]


def _scratch(space):
    slots = feedback_slots(space.pegs)
    return (np.zeros(slots + 1, np.int64), np.zeros(slots, np.int64),
            np.zeros(space.size, np.int64), np.zeros(slots, np.int64))


@pytest.mark.kernel
@given(node_strategy, st.integers(0, 40))
def test_screen_and_split_match_reference(drawn, limit):
    space, matrix, _, members = _draw_node(drawn)
    marks = (np.arange(space.size) % 3 != 1).astype(np.uint8)
    outs = [[np.full(space.size, -1, np.int64) for _ in range(3)] for _ in range(2)]
    sizes = np.zeros(feedback_slots(space.pegs), np.int64)
    expected = ref.screen_guesses(matrix, members, len(members), marks, space.solved,
                                  limit, *outs[1], sizes)
    for words, pegs in _answer_sources(space):
        outs[0] = [np.full(space.size, -1, np.int64) for _ in range(3)]
        kept = worst_kernels.screen_guesses(matrix, words, pegs, members, len(members),
                                            marks, space.solved, limit, *outs[0], sizes)
        assert kept == expected
        for a, b in zip(*outs):
            assert a[:kept].tolist() == b[:kept].tolist()
    for guess in (0, space.size - 1, space.size // 2):
        got = [np.zeros(feedback_slots(space.pegs) + 1, np.int64),
               np.full(len(members) + 2, -1, np.int64)]
        want = [x.copy() for x in got]
        worst_kernels.split_classes(matrix, members, 1 if len(members) > 1 else 0,
                                    len(members), guess, *got)
        ref.split_classes(matrix, members, 1 if len(members) > 1 else 0, len(members),
                          guess, *want)
        assert [x.tolist() for x in got] == [x.tolist() for x in want]


@pytest.mark.kernel
@given(st.sampled_from(SMALL), st.lists(st.integers(0, 10 ** 6), min_size=1, max_size=24,
                                        unique=True),
       st.integers(0, 10 ** 6))
# sets whose first candidate fails, so the three-guess kernel builds its table
@example((2, 4), [3463, 352612, 377229, 415637, 432962, 644586, 757547, 880193, 920895,
                  928412, 971776], 193280)
@example((5, 2), [32038, 88131, 196845, 413571, 417788, 523788, 528856, 580370, 610698,
                  822422, 984300, 989463], 68506)
def test_last_guess_kernels_match_reference(size, picks, seed):
    space, matrix = load_game(*size)
    members = np.array(sorted({p % space.size for p in picks}), np.int64)
    starts, fill, order, seen = _scratch(space)
    most = answers_besides_solved(space.pegs) + 1
    n = len(members)
    two = ref.two_guess_witness(matrix, members, 0, n, space.solved, most, seen)
    marks = ((np.arange(space.size) * 7 + seed) % 5 != 0).astype(np.uint8)
    three = (ref.three_guess_witness(matrix, members, 0, n, marks, space.solved, most,
                                     starts, fill, order, seen)
             if n <= 12 else None)  # the twin is exhaustive
    for words, pegs in _answer_sources(space):
        assert worst_kernels.two_guess_witness(matrix, words, pegs, members, 0, n,
                                               space.solved, most, seen) == two
        if three is not None:
            assert worst_kernels.three_guess_witness(
                matrix, words, pegs, members, 0, n, marks, space.solved, most, starts,
                fill, order, seen) == three


@pytest.mark.kernel
@given(node_strategy, st.integers(0, 10 ** 6))
def test_answer_table_kernels_match_reference(drawn, start):
    space, matrix, _, members = _draw_node(drawn)
    start = start % (len(members) + 1)
    n = len(members) - start
    want = [np.zeros((space.size, max(n, 1)), np.uint8), np.zeros(space.size, np.int64)]
    widest = ref.answer_rows(matrix, members, start, len(members), *want)
    for words, pegs in _answer_sources(space):
        got = [np.zeros_like(x) for x in want]
        assert worst_kernels.answer_rows(matrix, words, pegs, members, start, len(members),
                                         *got) == widest
        assert [x.tolist() for x in got] == [x.tolist() for x in want]
    outs = [np.full(space.size, -1, np.int64) for _ in range(2)]
    worst_kernels.rows_by_width(got[1], widest, outs[0])
    ref.rows_by_width(want[1], widest, outs[1])
    assert outs[0].tolist() == outs[1].tolist()


@pytest.mark.kernel
@given(node_strategy, st.integers(0, 10 ** 6), st.integers(0, 10 ** 6), st.integers(0, 5),
       st.lists(st.integers(0, 30), max_size=6))
def test_counting_sort_and_class_choice_match_reference(drawn, guess, start, base, checks):
    """The worst-case kernels' shared steps: classes by answer (a stable counting sort
    from ``base`` on) and the largest class not yet checked, repeatedly."""
    space, matrix, _, members = _draw_node(drawn)
    guess %= space.size
    start = start % (len(members) + 1)
    slots = 256
    starts = np.full(slots + 1, -7, np.int64)
    fill = np.full(slots, -7, np.int64)
    out = np.full(base + len(members) - start, -1, np.int64)
    worst_kernels._count_answers(matrix, guess, members, start, len(members), starts)
    worst_kernels._place_by_answer(matrix, guess, members, start, len(members), starts, fill,
                                   out, base)
    want_starts, want_out = ref.classes_by_answer(matrix, guess, members, start,
                                                  len(members), base)
    assert starts.tolist() == want_starts and out[base:].tolist() == want_out
    assert fill.tolist() == want_starts[1:]
    sizes = np.diff(starts).tolist()
    checked = set(f for f in checks if f < slots)
    for f in checked:
        fill[f] = -1
    while True:
        want = ref.largest_unchecked(sizes, checked, space.solved)
        assert worst_kernels._largest_unchecked(starts, fill, space.solved) == want
        if want < 0:
            break
        checked.add(want)
        assert fill[want] == -1


@given(st.tuples(st.sampled_from([(2, 3), (3, 3), (2, 4), (4, 2), (5, 2)]),
                 st.lists(st.integers(0, 10 ** 6), max_size=2), st.integers(0, 10 ** 6)),
       st.integers(1, 5))
def test_search_decides_like_the_exhaustive_recursion(drawn, guesses):
    space, matrix, history, members = _draw_node(drawn)
    search = WorstCaseSearch(space, matrix)
    got = search.witness(members, guesses, tuple(history))
    want = ref._within(matrix, [int(s) for s in members], guesses, space.solved)
    assert (got >= 0) == want


@pytest.mark.parametrize("pegs,colours", [(2, 2), (2, 3), (3, 2), (2, 4), (3, 3), (4, 2)])
def test_worst_case_matches_the_exhaustive_reference(pegs, colours):
    space, matrix = load_game(pegs, colours)
    want = ref.least_worst_case(matrix, range(space.size), space.solved)
    for heuristics in ((), ("knuth",)):  # the tree found by the search, or Knuth's
        result = decide_worst_case(space, matrix, heuristics=heuristics)
        assert result.complete and result.upper == result.lower == want
    guesses = result.tree.guesses(matrix=matrix)
    assert guesses.min() >= 1 and guesses.max() == want


def test_counting_capacity():
    # four pegs: 13 answers besides "solved"; N(1..4) = 1, 14, 183, 2380
    assert [most_told(d, 4) for d in range(1, 5)] == [1, 14, 183, 2380]
    assert most_told(0, 5) == 0


def test_published_worst_cases():
    rows = PUBLISHED + [r for r in MORE["published"] if not r.get("bench")]
    for row in rows:
        space, matrix = load_game(row["pegs"], row["colours"])
        result = decide_worst_case(space, matrix, heuristics=())
        assert result.complete and result.upper == row["worst_case"], row
        assert result.tree.guesses(matrix=matrix).max() == row["worst_case"]


def test_derived_worst_cases_of_the_quick_sizes():
    for row in MORE["derived"]:
        if row.get("bench"):
            continue
        space, matrix = load_game(row["pegs"], row["colours"])
        result = decide_worst_case(space, matrix, heuristics=())
        assert result.complete and result.upper == row["worst_case"], row


def test_heavy_sizes_recorded_by_the_bench():
    """The sizes too slow for the suite are decided by ``bench/mastermind_worst.py``;
    its record must agree with tests/data, and its committed trees must check."""
    record = json.loads((RESULTS / "mastermind_worst.json").read_text())
    by_size = {(r["pegs"], r["colours"]): r for r in record["rows"]}
    for row in MORE["published"] + MORE["derived"]:
        if not row.get("bench"):
            continue
        got = by_size[(row["pegs"], row["colours"])]
        assert got["worst_case"] == row["worst_case"] == got["lower"] == got["upper"], row
    for path in sorted((RESULTS / "mastermind_trees").glob("worst-*.json.gz")):
        import gzip

        doc = json.loads(gzip.decompress(path.read_bytes()))
        checked = check_tree(doc)
        row = by_size[(doc["pegs"], doc["colours"])]
        assert max(checked.guesses.values()) == row["upper"] == doc["max_guesses"]
        assert row["worst_case"] in (None, row["upper"])


def test_interrupted_run_resumes_from_its_checkpoint(tmp_path, monkeypatch):
    space, matrix = load_game(3, 7)
    checkpoint = tmp_path / "w.ckpt"
    calls = {"n": 0}
    original = WorstCaseSearch.witness

    def stop_later(self, *args):
        calls["n"] += 1
        if calls["n"] == 40:
            raise KeyboardInterrupt
        return original(self, *args)

    monkeypatch.setattr(WorstCaseSearch, "witness", stop_later)
    cut = decide_worst_case(space, matrix, checkpoint=checkpoint, heuristics=())
    assert not cut.complete and checkpoint.exists()
    kept = sum(len(v) for v in cut.refuted.values())
    monkeypatch.setattr(WorstCaseSearch, "witness", original)
    resumed = decide_worst_case(space, matrix, checkpoint=checkpoint, heuristics=())
    assert resumed.complete and resumed.upper == 6 and resumed.upper_strategy == "search"
    assert sum(len(v) for v in resumed.refuted.values()) >= kept >= 1


def test_cli_worst(capsys, tmp_path):
    status, out, _ = run(capsys, ["worst", "-p", "3", "-k", "5", "--json"])
    data = json.loads(out)
    assert status == 0 and data["worst_case"] == 5 and data["complete"] is True
    assert data["lower"] == data["upper"] == 5 and data["tree"]["max"] == 5
    tree_file = tmp_path / "t.json.gz"
    status, out, _ = run(capsys, ["worst", "-p", "2", "-k", "5", "--out", str(tree_file)])
    assert status == 0 and "worst case 4" in out
    status, out, _ = run(capsys, ["evaluate", "--tree", str(tree_file), "--json"])
    assert status == 0 and json.loads(out)["max"] == 4
    for bad in (["worst", "-p", "0"], ["worst", "-k", "x"], ["worst", "--at-most", "0"]):
        status, out, err = run(capsys, bad)
        assert status == 2 and out == "" and len(err.strip().splitlines()) == 1, bad
    other = tmp_path / "c.ckpt"
    assert run(capsys, ["worst", "-p", "2", "-k", "3", "--checkpoint", str(other)])[0] == 0
    status, _, err = run(capsys, ["worst", "-p", "3", "-k", "3", "--checkpoint", str(other)])
    assert status == 2 and "another game size" in err


def _outcome(result):
    return (result.lower, result.upper, result.first_guess, result.upper_strategy,
            result.refuted, result.roots,
            None if result.tree is None else result.tree.to_document("worst", result.upper))


def test_run_stopped_below_the_root_resumes_to_the_same_answer(tmp_path):
    space, matrix = load_game(3, 7)
    whole = decide_worst_case(space, matrix, heuristics=())
    checkpoint = tmp_path / "w.ckpt"
    runs, searched, kept_below, within = 0, 0, 0, False
    while True:
        runs += 1
        assert runs <= whole.nodes + 1  # each run searches at least one set more
        steps = []

        def stop_at_the_fourth_step():
            steps.append(1)
            if len(steps) == 4:
                raise KeyboardInterrupt

        # stopped by its budget of sets, or (odd runs) inside a set by the hook
        part = decide_worst_case(space, matrix, checkpoint=checkpoint, heuristics=(),
                                 budget=5, hook=stop_at_the_fourth_step if runs % 2
                                 else None)
        searched += part.nodes
        stored = worst_case._load_checkpoint(checkpoint, space,
                                             worst_case.space_identity(space, matrix))
        kept_below = max(kept_below, len(stored["memo"]) + len(stored["progress"]))
        within = within or any(stored["progress"].values())
        if part.complete:
            break
        assert part.nodes == 5 or len(steps) == 4
    assert runs >= 5 and kept_below >= 5 and within  # guesses refuted inside a set kept
    assert _outcome(part) == _outcome(whole)
    # sets decided below the root are not searched again: at most the set under
    # search at each stop is entered twice
    assert searched <= whole.nodes + runs * 3


def test_checkpoint_is_checked_before_use(tmp_path):
    space, matrix = load_game(3, 7)
    checkpoint = tmp_path / "w.ckpt"
    decide_worst_case(space, matrix, checkpoint=checkpoint, heuristics=(), budget=3)
    payload = json.loads(checkpoint.read_bytes().split(b"\n", 1)[1])
    assert payload["memo"] and payload["identity"]

    def rewrite(doc):
        worst_case._store.write_checked(checkpoint, worst_case.CHECKPOINT_KIND,
                                        worst_case.CHECKPOINT_SCHEMA,
                                        json.dumps(doc).encode())

    bad_guess = json.loads(json.dumps(payload))
    name = next(iter(bad_guess["memo"]))
    bad_guess["memo"][name] = [0, 5, space.size]
    other_space = dict(payload, identity="0" * 64)
    no_identity = {k: v for k, v in payload.items() if k != "identity"}
    for doc, words in ((bad_guess, "damaged"), (other_space, "another code space"),
                       (no_identity, "without the digest")):
        rewrite(doc)
        with pytest.raises(worst_case.InputError, match=words):
            decide_worst_case(space, matrix, checkpoint=checkpoint, heuristics=())
    rewrite(payload)
    data = checkpoint.read_bytes()
    assert b'"colours": 7' in data
    checkpoint.write_bytes(data.replace(b'"colours": 7', b'"colours": 8'))
    with pytest.raises(Exception, match="checksum mismatch"):
        decide_worst_case(space, matrix, checkpoint=checkpoint, heuristics=())


def test_checkpoints_of_the_earlier_format_still_load():
    """The committed checkpoints of the open sizes may predate the sets kept below the
    root (no identity, memo or progress): they load as root refutations."""
    paths = sorted((RESULTS / "mastermind_worst_checkpoints").glob("*.ckpt"))
    assert paths
    for path in paths:
        pegs, colours = (int(x) for x in path.stem.split("x"))
        space = SimpleNamespace(pegs=pegs, colours=colours, repeats=True,
                                size=colours ** pegs)
        doc = json.loads(path.read_bytes().split(b"\n", 1)[1])
        stored = worst_case._load_checkpoint(path, space, doc.get("identity", "old"))
        assert stored["refuted"] == {int(d): v for d, v in doc["refuted"].items()}
        assert len(stored["memo"]) == len(doc.get("memo", {}))


def test_position_symmetry_of_seven_pegs(monkeypatch):
    """Seven pegs: the first guess ranges over shapes once position permutations are
    symmetries (as they are up to PERMUTED_PEGS); the answers stay those of the
    exhaustive recursion (7x2) and of the search without them (7x3)."""
    space, matrix = load_game(7, 2)
    result = decide_worst_case(space, matrix, heuristics=())
    assert result.complete and result.upper == ref.least_worst_case(
        matrix, range(space.size), space.solved)
    assert result.roots[result.upper] == 4  # 1111111, 1111112, 1111122, 1111222
    space, matrix = load_game(7, 3)
    with_them = decide_worst_case(space, matrix, heuristics=())
    monkeypatch.setattr(worst_case, "PERMUTED_PEGS", 6)
    without = decide_worst_case(space, matrix, heuristics=())
    assert with_them.complete and without.complete
    assert (with_them.lower, with_them.upper) == (without.lower, without.upper) == (5, 5)
    assert with_them.roots[4] == 8 < without.roots[4]


@pytest.mark.kernel
@pytest.mark.parametrize("picked", [1296, worst_kernels.PACKED_BELOW,
                                    worst_kernels.PACKED_BELOW - 1, 300])
def test_screen_takes_the_matrix_for_large_sets_and_the_same_answers(picked):
    """4 x 6 against sets on both sides of ``PACKED_BELOW``: packed answers below it,
    matrix rows from it on; equal to the twin either way."""
    space, matrix = load_game(4, 6)
    members = np.sort(np.random.default_rng(picked).choice(space.size, picked,
                                                           replace=False)).astype(np.int64)
    marks = np.ones(space.size, np.uint8)
    sizes = np.zeros(feedback_slots(space.pegs), np.int64)
    want = [np.full(space.size, -1, np.int64) for _ in range(3)]
    kept = ref.screen_guesses(matrix, members, picked, marks, space.solved, picked, *want,
                              sizes)
    got = [np.full(space.size, -1, np.int64) for _ in range(3)]
    assert worst_kernels.screen_guesses(matrix, packed_codes(space), space.pegs, members,
                                        picked, marks, space.solved, picked, *got,
                                        sizes) == kept == space.size
    assert [x.tolist() for x in got] == [x.tolist() for x in want]


def test_games_beyond_the_packed_limit_read_the_matrix():
    space, _ = load_game(3, 10)
    assert packed_codes(space).shape == (0, 2)


@pytest.mark.parametrize("pegs, colours", [(4, 4), (3, 5), (5, 3)])
def test_the_search_with_packed_answers_decides_as_with_the_matrix(pegs, colours,
                                                                   monkeypatch):
    """Small games keep the matrix (it fits the caches); with every answer to a small
    set computed from packed codes instead, the decision, the proof, the sets searched
    and the strategy are the same."""
    space, matrix = load_game(pegs, colours)
    monkeypatch.setattr(worst_case, "PACKED_FROM_BYTES", 1 << 40)
    with_matrix = decide_worst_case(space, matrix)
    monkeypatch.setattr(worst_case, "PACKED_FROM_BYTES", 0)
    assert WorstCaseSearch(space, matrix).words.shape == (space.size, 2)
    packed = decide_worst_case(space, matrix)
    keys = ("worst_case", "lower", "upper", "first_guess", "upper_from", "refuted",
            "root_guesses", "nodes", "tree")
    assert ({k: packed.to_dict().get(k) for k in keys}
            == {k: with_matrix.to_dict().get(k) for k in keys})
