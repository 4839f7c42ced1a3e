"""The constellation counter of n queens: the task split, the kernels, the CLI around them."""
import csv
import functools
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jitgames import _store
from jitgames._jit import threads
from jitgames.puzzles import queens_constellations as qc
from jitgames.puzzles.__main__ import main
from tests.reference import puzzles_queens_constellations as ref

KNOWN = {int(r["n"]): (int(r["count"]), int(r["unique"]), r["source"])
         for r in csv.DictReader(open(Path(__file__).parent / "data" / "puzzles_queens.csv"))}
NEVER = np.zeros(1, np.int64)


@functools.lru_cache(maxsize=None)
def solutions(n):
    """The brute-force solutions of n, computed once per test session."""
    return tuple(ref.solutions(n))


def _run_all(ts):
    out = np.zeros((len(ts), 3), np.int64)
    done = np.zeros(len(ts), np.bool_)
    qc._run(ts, np.arange(len(ts), dtype=np.int64), out, done, NEVER)
    assert done.all()
    return out


@pytest.mark.parametrize("n", range(2, 10))
def test_constellations_are_one_per_orbit_with_the_orbit_size(n):
    orbits = ref.orbits(n)
    cons = qc.constellations(n)
    assert len(cons) == len(orbits)
    seen = set()
    for k in cons:
        sq = ref.squares(n, (k.a, k.b, k.c, k.d))
        orbit = next(o for o in orbits if sq in o)
        assert orbit not in seen
        seen.add(orbit)
        assert k.weight == len(orbit)
        turns = [frozenset(f(r, x) for r, x in sq) for f in ref.symmetries(n)[:4]]
        assert (k.half, k.quarter) == (turns[2] == sq, turns[1] == sq)
    assert sum(k.weight for k in cons) == len(ref.border_placements(n))


@pytest.mark.kernel
@given(st.integers(4, 9), st.integers(0, 1), st.data())
def test_every_task_counts_its_solutions(n, split, data):
    # Per-task counts against the brute force: solutions with the task's border queens
    # and the queen pre-placed in its first free row (split 1), with their invariances.
    ts = qc.tasks(n, split)
    t = data.draw(st.integers(0, len(ts) - 1))
    c = int(ts.con[t])
    k = qc.constellations(n)[c]
    prefix = ()
    if ts.start[t] == 1:
        prefix = ((int(ts.rows[c, 0]), int(ts.cols[t]).bit_length() - 1),)
    else:
        assert ts.start[t] == 0 and ts.cols[t] == 0
    out = np.zeros((len(ts), 3), np.int64)
    done = np.zeros(len(ts), np.bool_)
    qc._run(ts, np.array([t], np.int64), out, done, NEVER)
    assert done[t]
    count, half, quarter = ref.census_of_constellation(n, (k.a, k.b, k.c, k.d), prefix,
                                                       solutions(n))
    if ts.symmetric[c]:
        assert out[t].tolist() == [count, half, quarter]
    else:
        assert out[t].tolist() == [count, 0, 0]
        assert half == quarter == 0  # a constellation no turn fixes has no fixed solution


@pytest.mark.kernel
@given(st.integers(4, 10), st.integers(0, 2), st.data())
def test_task_kernel_equals_its_twin(n, split, data):
    ts = qc.tasks(n, split)
    t = data.draw(st.integers(0, len(ts) - 1))
    c = int(ts.con[t])
    args = (ts.fixed[c], ts.shift[c], int(ts.free_rows[c]), int(ts.start[t]), int(ts.cols[t]),
            int(ts.ld[t]), int(ts.rd[t]), NEVER)
    assert qc.complete_task(*args) == ref.complete_task(*args)


@pytest.mark.kernel
@given(st.integers(12, 13), st.data())
def test_unrolled_last_rows_equal_the_twin(n, data):
    # Tasks with at least TAIL free rows left hand their last TAIL rows to the unrolled
    # loop nest (from the stack loop, or at once): arbitrary sparse queens above them.
    ts = qc.tasks(n, 0)
    c = data.draw(st.sampled_from(np.flatnonzero(ts.free_rows >= qc.TAIL).tolist()))
    m = int(ts.free_rows[c])
    start = data.draw(st.integers(max(0, m - qc.TAIL - 1), m - qc.TAIL))
    cols, ld, rd = (sum(1 << x for x in data.draw(st.sets(st.integers(0, n - 1), max_size=3)))
                    for _ in range(3))
    expected = ref.complete_task(ts.fixed[c], ts.shift[c], m, start, cols, ld, rd, NEVER)
    assert qc.complete_task(ts.fixed[c], ts.shift[c], m, start, cols, ld, rd, NEVER) == expected
    if start == m - qc.TAIL:
        assert qc._last_rows(ts.fixed[c], ts.shift[c], start, cols, ld, rd) == expected


@pytest.mark.kernel
@given(st.integers(4, 10), st.data())
def test_symmetric_kernel_equals_its_twin(n, data):
    ts = qc.tasks(n, 0)
    symmetric = np.flatnonzero(ts.symmetric)
    assert len(symmetric) > 0
    c = int(data.draw(st.sampled_from(symmetric.tolist())))
    ours, theirs = np.zeros(3, np.int64), np.zeros(3, np.int64)
    args = (n, ts.fixed[c], ts.shift[c], int(ts.free_rows[c]), ts.rows[c], ts.border[c])
    assert qc.complete_task_symmetric(*args, ours, NEVER)
    ref.complete_task_symmetric(*args, theirs, NEVER)
    assert ours.tolist() == theirs.tolist()


@pytest.mark.parametrize("n", range(1, 15))
def test_known_counts(n):
    count, unique, source = KNOWN[n]
    assert source.startswith("OEIS")
    assert qc.count_census(n) == (count, unique)


@pytest.mark.slow
@pytest.mark.parametrize("n", [15, 16])
def test_known_counts_of_larger_boards(n):
    assert qc.count_census(n) == KNOWN[n][:2]


@pytest.mark.parametrize("n", range(4, 10))
def test_constellation_sums_equal_brute_force(n):
    # The split of the whole count: per constellation, the tasks add up to the
    # solutions with those border queens, and the weights to the whole count.
    ts = qc.tasks(n, 1)
    out = _run_all(ts)
    per_con = np.zeros((len(qc.constellations(n)), 3), np.int64)
    np.add.at(per_con, ts.con, out)
    brute = {}
    for sol in solutions(n):
        brute[ref.border_queens(sol)] = brute.get(ref.border_queens(sol), 0) + 1
    for i, k in enumerate(qc.constellations(n)):
        assert per_con[i, 0] == brute.get((k.a, k.b, k.c, k.d), 0)
    assert qc.census_of(ts, out)[0] == len(solutions(n))


def test_counts_do_not_depend_on_threads_batches_or_chunks():
    ts = qc.tasks(12)
    with threads(1):
        one = _run_all(ts)
    with threads(2):
        two = _run_all(ts)
    assert one.tolist() == two.tolist()
    *_, last = qc.iter_census(12, batches=7)
    assert last[2:] == KNOWN[12][:2]
    parts = [qc.count_chunk(12, i, 5) for i in range(5)]
    count, sym = map(sum, zip(*parts))
    assert (count, qc.unique_from(count, sym)) == KNOWN[12][:2]


def test_task_bound_and_checkpoint_validation():
    params = {"n": 10, "chunks": 3}
    partial = qc.chunk_worker(params, 1, 2)
    qc.chunk_validate(params, 1, 2, partial)
    ts = qc.tasks(10)
    bound = qc.task_bound(ts, qc._chunk_index(ts, 1, 3))
    assert partial[0] <= bound
    for bad in ([bound + 1, 0], [-1, 0], [partial[0], 3 * partial[0] + 1], [1.5, 0], [1]):
        with pytest.raises(ValueError):
            qc.chunk_validate(params, 1, 2, bad)


def test_bad_input():
    from jitgames.errors import InputError
    with pytest.raises(InputError):
        qc.count_census(31)
    with pytest.raises(InputError):
        qc.count_chunk(8, 3, 3)
    with pytest.raises(TypeError):
        qc.count_census(8.0)


# ----------------------------------------------------------------- command line
def test_cli_counts_with_the_constellations(capsys):
    assert main(["queens", "10", "--json", "--threads", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["count"], out["unique"], out["complete"]) == (724, 92, True)


def test_cli_ctrl_c_prints_the_partial_count(monkeypatch, capsys):
    def interrupted(n, batches):
        yield 10, 100, 1234, None
        raise KeyboardInterrupt

    monkeypatch.setattr(qc, "iter_census", interrupted)
    assert main(["queens", "14", "--quiet", "--json"]) == 130
    out = json.loads(capsys.readouterr().out)
    assert out["complete"] is False and out["tasks_done"] == 10 and out["count"] == 1234
    assert out["unique"] is None


def test_cli_unwritable_checkpoint_is_refused_before_the_count(tmp_path, capsys, monkeypatch):
    def no_run(*args, **kwargs):
        raise AssertionError("counted before the checkpoint was checked")

    monkeypatch.setattr(qc, "chunk_worker", no_run)
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert main(["queens", "8", "--checkpoint", str(blocker / "q.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot write" in err and "Traceback" not in err


def test_cli_checkpoint_resumes_and_one_beyond_its_bound_is_refused(tmp_path, capsys):
    from jitgames._chunked import CHECKPOINT_KIND, CHECKPOINT_SCHEMA

    path = tmp_path / "q.ckpt"
    argv = ["queens", "9", "--checkpoint", str(path), "--chunks", "3", "--quiet", "--json"]
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    assert (first["count"], first["unique"], first["resumed_chunks"]) == (352, 46, 0)
    assert main(argv) == 0
    resumed = json.loads(capsys.readouterr().out)
    assert (resumed["count"], resumed["unique"], resumed["resumed_chunks"]) == (352, 46, 3)
    # a checkpoint with a valid checksum whose first chunk claims more than its tasks
    # can hold is refused, and left as it is
    data = json.loads(_store.read_checked(path, CHECKPOINT_KIND, CHECKPOINT_SCHEMA, "test"))
    data["chunks"][0][2][0] = 10**12
    _store.write_checked(path, CHECKPOINT_KIND, CHECKPOINT_SCHEMA, json.dumps(data).encode())
    before = path.read_bytes()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "count is" in err and "Traceback" not in err
    assert path.read_bytes() == before
    # and a checkpoint of another n is refused
    assert main(["queens", "10", "--checkpoint", str(path), "--chunks", "3"]) == 2
    assert "n: 9 there, 10 here" in capsys.readouterr().err


def test_cli_checkpoint_of_a_cut_run_resumes_to_the_known_count(tmp_path, capsys, monkeypatch):
    # the third chunk is cut by Ctrl-C: the two finished ones are kept, and the next run
    # counts only the three left and adds up to the known count
    calls = []
    worker = qc.chunk_worker

    def cut_at_the_third_chunk(params, start, stop):
        calls.append(start)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return worker(params, start, stop)

    monkeypatch.setattr(qc, "chunk_worker", cut_at_the_third_chunk)
    path = tmp_path / "q.ckpt"
    argv = ["queens", "11", "--checkpoint", str(path), "--chunks", "5", "--quiet", "--json"]
    assert main(argv) == 130
    cut = json.loads(capsys.readouterr().out)
    assert cut["complete"] is False and cut["chunks_done"] == 2 and cut["unique"] is None
    assert 0 < cut["count"] < KNOWN[11][0]
    monkeypatch.setattr(qc, "chunk_worker", worker)
    assert main(argv) == 0
    resumed = json.loads(capsys.readouterr().out)
    assert (resumed["count"], resumed["unique"]) == KNOWN[11][:2]
    assert (resumed["resumed_chunks"], resumed["chunks_done"]) == (2, 5)
