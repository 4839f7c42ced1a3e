"""The optimal total as a resumable run of root jobs (jitgames/mastermind/optimal_run.py):
equal to the whole search, independent of threads and workers, resumable, checked."""
import gzip
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jitgames._chunked import run_chunks
from jitgames._store import read_checked, write_checked
from jitgames.mastermind import optimal_jobs as mj
from jitgames.mastermind import optimal_run as mr
from jitgames.mastermind.__main__ import main as mastermind_main
from jitgames.mastermind.codes import load_game
from jitgames.mastermind.tree import check_tree
from jitgames.mastermind.optimal import INFEASIBLE, optimal_cost, search_and_build
from tests.reference import mastermind as ref

ROOT = Path(__file__).resolve().parents[1]
LARGER = json.loads((ROOT / "tests" / "data" / "mastermind_optimal_larger.json").read_text())

SMALL = [(2, 3, True, None), (3, 4, True, None), (3, 5, True, None), (4, 4, True, None),
         (4, 4, True, 4), (3, 6, False, None), (5, 3, True, None), (4, 5, True, 5)]


@pytest.mark.parametrize("pegs,colours,repeats,limit", SMALL)
def test_total_equals_the_whole_search(pegs, colours, repeats, limit):
    space, matrix = load_game(pegs, colours, repeats)
    run = mr.optimal_run(pegs, colours, repeats, limit)
    assert run.complete and run.total == optimal_cost(space, matrix, limit)
    assert run.lower == run.upper == run.total
    assert run.jobs_exact + run.jobs_cut <= run.jobs


@pytest.mark.parametrize("pegs,colours,repeats", [(2, 3, True), (3, 3, True), (2, 4, True),
                                                   (3, 4, False)])
def test_total_equals_the_brute_force_twin(pegs, colours, repeats):
    space, matrix = load_game(pegs, colours, repeats)
    src = np.arange(space.size, dtype=np.int32)
    expected = ref.solve(space.tables(matrix), src, 0, space.size, 62, None, 0, 0, None, None)
    assert mr.optimal_run(pegs, colours, repeats).total == expected


@pytest.mark.parametrize("size", [(3, 4, True, None), (4, 4, True, 4), (3, 6, False, None)])
def test_every_job_in_full_gives_the_same_optimum(size):
    """No budgets, no cuts: every job searched exactly (the chunked job's plain worker
    through run_chunks), the optimum n + min over guesses of the class sums."""
    split = mj.root_split(*size)
    run = run_chunks(mj.root_job(split), quiet=True)
    # exact, or no strategy fits the guesses left (a class under a depth limit)
    assert run.complete and all(p["exact"] or p["value"] >= INFEASIBLE for p in run.partials)
    values = [p["value"] for p in run.partials]
    totals = [split.space.size + sum(values[split.starts[c]:split.starts[c + 1]])
              for c in range(split.guesses.size)]
    assert min(totals) == mr.optimal_run(*size).total
    best = int(np.argmin(totals))  # the first guess attaining it, as reported
    assert split.space.format(split.guesses[best]) == mr.optimal_run(*size).guess


def test_root_guesses_are_one_per_orbit():
    """The partitions of the pegs: every code's orbit under colour and position
    permutations holds exactly one of them."""
    assert mj.root_guesses(4, 6, True) == [(0, 0, 0, 0), (0, 0, 0, 1), (0, 0, 1, 1),
                                           (0, 0, 1, 2), (0, 1, 2, 3)]
    assert mj.root_guesses(4, 2, True) == [(0, 0, 0, 0), (0, 0, 0, 1), (0, 0, 1, 1)]
    assert mj.root_guesses(3, 5, False) == [(0, 1, 2)]
    assert mj.root_guesses(5, 4, False) == []
    space, _ = load_game(4, 3)
    seen = set()
    for digits in space.digits:
        counts = sorted((list(digits).count(c) for c in set(digits)), reverse=True)
        seen.add(tuple(c for c, size in enumerate(counts) for _ in range(size)))
    assert sorted(seen) == sorted(mj.root_guesses(4, 3, True))


def test_split_covers_every_code_once_per_guess():
    split = mj.root_split(4, 4)
    n = split.space.size
    for c in range(split.guesses.size):
        jobs = range(split.starts[c], split.starts[c + 1])
        codes = np.concatenate([split.class_codes(j) for j in jobs])
        # every code but the guess itself (it answers "solved"), each in one class
        assert np.array_equal(np.sort(codes), np.setdiff1d(np.arange(n), split.guesses[c]))
        assert list(split.job_size[jobs.start:jobs.stop]) == sorted(
            split.job_size[jobs.start:jobs.stop], reverse=True)


@pytest.mark.parametrize("size", [(4, 4, True), (3, 6, False), (4, 5, True)])
def test_result_does_not_depend_on_the_thread_count(size):
    runs = [mr.optimal_run(*size, workers=w) for w in (1, 2, 3)]
    assert len({(r.total, r.guess) for r in runs}) == 1


@pytest.mark.parametrize("size", [(4, 4, True, None), (3, 6, False, None), (4, 5, True, 5),
                                  (4, 5, True, None)])
def test_splitting_below_the_root_changes_nothing(size):
    """Every job split into its candidates' tasks (split_above=0), on one thread and
    on three, with the default window, one candidate per node at a time and no limit,
    widened for idle threads or not, the later candidates split into their classes
    above the default size, above 2 codes (small classes together, then stages), above
    none, or not at all, twins taking each other's results or searched apart, later
    root guesses started early or not: the total and the guess of the run with root
    jobs only."""
    whole = mr.optimal_run(*size, workers=1, split_above=1 << 40, twins=False)
    assert whole.tasks <= whole.jobs
    for workers, window, class_above, spare, twins, early in (
            (1, mr.WINDOW, 2, 0, True, True),
            (3, mr.WINDOW, mr.CLASS_ABOVE, mr.SPARE, True, True),
            (3, 1, 0, 3, False, True), (3, None, 2, 0, True, False),
            (3, mr.WINDOW, None, 8, True, True), (3, 2, None, 0, False, False)):
        plans = []
        split = mr.optimal_run(*size, workers=workers, split_above=0, window=window,
                               child_window=window, class_above=class_above, spare=spare,
                               twins=twins, early_start=early, progress=plans.append)
        # every task handed out came back, and the tasks' seconds fit in the threads'
        assert plans[-1].in_flight == 0 and plans[-1].tasks_run == split.tasks
        assert 0 < plans[-1].busy_seconds <= workers * split.seconds
        assert split.tasks > split.jobs_exact + split.jobs_cut  # tasks below the root ran
        assert (split.total, split.guess, split.lower) == (whole.total, whole.guess, whole.lower)


def test_twin_jobs_are_the_jobs_of_equal_classes():
    """twin_jobs: every job whose class holds the same codes as another's, paired with
    exactly those (4 x 4: the class "no peg" of 1122 and of 1112, the codes of colours
    3 and 4), and the twins' exact costs are equal."""
    for game in ((4, 4), (4, 5), (3, 6), (5, 4)):
        split = mj.root_split(*game)
        classes = [frozenset(split.class_codes(j).tolist()) for j in range(split.jobs)]
        expected = {j: tuple(t for t in range(split.jobs) if t != j and classes[t] == classes[j])
                    for j in range(split.jobs)}
        assert mr.twin_jobs(split) == {j: t for j, t in expected.items() if t}
    split = mj.root_split(4, 4)
    space = split.space
    (a, b), = {tuple(sorted((j,) + t)) for j, t in mr.twin_jobs(split).items()}
    assert {space.format(int(split.guesses[split.job_guess[j]])) for j in (a, b)} == {
        "1122", "1112"}
    assert set(split.class_codes(a).tolist()) == {
        c for c in range(space.size) if set(space.format(c)) <= {"3", "4"}}
    params = mj.root_job(split).params
    assert mj.exact_job_worker(params, a, a + 1) == mj.exact_job_worker(params, b, b + 1)


def test_a_twin_waits_for_the_other_and_takes_its_value():
    """4 x 5, every open candidate at once: the later twin is held (never handed out)
    while the earlier one runs, then takes its exact value, kept in the checkpoint as
    its own."""
    split = mj.root_split(4, 5)
    values = _job_values((4, 5))
    (first, later), = {tuple(sorted((j,) + t)) for j, t in mr.twin_jobs(split).items()}
    kept = {}
    plan = mr.RunPlan(split, window=None, keep=lambda j, partial: kept.setdefault(j, partial))
    handed, running = [], []
    while True:
        found = plan.next_job()
        while found is not None:
            handed.append(found[0][0])
            running.append(found)
            found = plan.next_job()
        if not running:
            break
        if first in handed and first in [r[0][0] for r in running]:
            assert later not in handed
        key, _, budget = running.pop(0)
        plan.done(key, values[key[0]], values[key[0]] < budget, budget)
    assert plan.finished and first in handed and later not in handed
    assert plan.known[later] == plan.known[first] == (values[first], True)
    assert kept[later] == kept[first]


_JOB_VALUES: dict = {}


def _job_values(game):
    """Every root job's exact cost (searched without a budget), once per process."""
    if game not in _JOB_VALUES:
        split = mj.root_split(*game)
        params = mj.root_job(split).params
        _JOB_VALUES[game] = [mj.exact_job_worker(params, j, j + 1)["value"]
                             for j in range(split.jobs)]
    return _JOB_VALUES[game]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([(4, 4), (4, 5)]), st.integers(0, 2 ** 32), st.integers(1, 8),
       st.sampled_from([1, 2, 3, None]), st.integers(0, 4), st.booleans())
def test_any_interleaving_of_the_run_gives_the_optimum(game, seed, parallel, window,
                                                       spare, twins):
    """RunPlan driven as by ``parallel`` threads, results coming back in a random order,
    each search answering what a kernel may (exact below its budget, else any lower
    bound from the budget to the true cost): with or without twins and idle threads'
    widened windows, the optimum and the first root guess attaining it; and no two
    twins are ever in flight at once."""
    rng = random.Random(seed)
    split = mj.root_split(*game)
    values = _job_values(game)
    plan = mr.RunPlan(split, window=window, spare=spare, twins=twins)
    twin_of = mr.twin_jobs(split)
    running = []
    while True:
        while len(running) < parallel:
            found = plan.next_job()
            if found is None:
                break
            job = found[0][0]
            if twins:
                assert not any(r[0][0] in twin_of.get(job, ()) for r in running)
            running.append(found)
        if not running:
            break
        key, _, budget = running.pop(rng.randrange(len(running)))
        value = values[key[0]]
        result = (value, True) if value < budget else (rng.randint(budget, value), False)
        plan.done(key, *result, budget)
    assert plan.finished
    totals = [split.space.size + sum(values[split.starts[c]:split.starts[c + 1]])
              for c in range(len(split.guesses))]
    assert (plan.best, plan.best_guess) == (min(totals), totals.index(min(totals)))


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_a_task_of_classes_is_their_summed_cost(data):
    """job_value of (job, guess, answers): exact and equal to the classes' costs summed
    (each searched in full, without a budget) when that is below the budget, else a
    lower bound at least the budget and at most the sum."""
    split = mj.root_split(4, 4)
    space, matrix = load_game(4, 4)
    search = mr.OptimalSearch(space, matrix, None, workers=1)
    job = data.draw(st.sampled_from([j for j in range(split.jobs) if split.job_size[j] > 3]))
    codes = split.class_codes(job)
    guess = data.draw(st.integers(0, space.size - 1))
    present = sorted(set(int(f) for f in matrix[guess, codes]) - {space.solved})
    answers = tuple(data.draw(st.lists(st.sampled_from(present), min_size=1, unique=True)))
    costs = [mj.job_value(search, 0, split, (job, guess, (f,)), INFEASIBLE + 1)
             for f in answers]
    assert all(exact for _, exact in costs)
    true = sum(value for value, _ in costs)
    budget = data.draw(st.integers(1, true + 5))
    value, exact = mj.job_value(search, 0, split, (job, guess, answers), budget)
    if true < budget:
        assert (value, exact) == (true, True)
    else:
        assert not exact and budget <= value <= true


def test_a_candidate_by_its_classes_costs_its_total():
    """The codes of a job (m) plus its classes under a guess, summed: the total of that
    guess first (the task (job, guess, None))."""
    split = mj.root_split(4, 4)
    space, matrix = load_game(4, 4)
    search = mr.OptimalSearch(space, matrix, None, workers=1)
    job = int(np.argmax(split.job_size))
    codes = split.class_codes(job)
    for guess in (0, 5, int(codes[0])):
        answers = tuple(sorted(set(int(f) for f in matrix[guess, codes]) - {space.solved}))
        parts, _ = mj.job_value(search, 0, split, (job, guess, answers), INFEASIBLE + 1)
        total, _ = mj.job_value(search, 0, split, (job, guess, None), INFEASIBLE + 1)
        assert codes.size + parts == total


def test_the_child_node_stages_a_candidates_classes():
    """child_node: the first candidate by its classes, all stage 0; a later one with
    classes above class_above (60 codes) as its small classes together (stage 0), its large
    ones (stage 1) and its largest (stage 2), or one whole task; every class of a
    candidate's codes exactly once."""
    split = mj.root_split(4, 5)
    space, matrix = load_game(4, 5)
    search = mr.OptimalSearch(space, matrix, None, workers=1)
    job = int(np.argmax(split.job_size))
    codes = split.class_codes(job)
    node = mr.child_node(search, split, job, class_above=60)
    assert node.size == codes.size
    kinds = set()
    for c in range(node.candidates):
        labels = [node.labels[k] for k in node.classes(c)]
        stages = [node.stage[k] for k in node.classes(c)]
        guess = labels[0][0]
        assert all(g == guess for g, _ in labels)
        if labels[0][1] is None:
            assert c > 0 and len(labels) == 1
            kinds.add("whole")
            continue
        sizes = np.bincount(matrix[guess, codes], minlength=(space.pegs + 1) ** 2)
        sizes[space.solved] = 0
        found = [f for _, part in labels for f in part]
        assert sorted(found) == list(np.flatnonzero(sizes))
        if c == 0:
            assert stages == [0] * len(labels)
        else:
            assert stages == sorted(stages) and stages[-1] == 2
            large = [part[0] for (_, part), x in zip(labels, stages) if x > 0]
            assert all(sizes[f] > 60 for f in large) and sizes[large[-1]] == max(sizes)
            kinds.add("staged")
    assert kinds == {"whole", "staged"}


def test_interrupted_run_resumes_to_the_same_total(tmp_path, monkeypatch, capsys):
    path = tmp_path / "4x5.ckpt"
    argv = ["optimal", "-p", "4", "-k", "5", "--checkpoint", str(path), "--json", "-q",
            "--threads", "1"]
    real = mj.job_value
    calls = []

    def stop_after_five(*args):
        calls.append(1)
        if len(calls) > 5:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(mr, "job_value", stop_after_five)
    assert mastermind_main(argv) == 130
    cut = json.loads(capsys.readouterr().out)
    assert cut["complete"] is False and cut["total"] is None
    assert cut["jobs_exact"] + cut["jobs_cut"] == 5
    assert cut["lower_bound"] <= 2463
    kept = json.loads(read_checked(path, "jitgames-checkpoint", 2, "checkpoint"))["chunks"]
    assert len(kept) == 5
    monkeypatch.setattr(mr, "job_value", real)
    assert mastermind_main(argv) == 0
    resumed = json.loads(capsys.readouterr().out)
    assert resumed["complete"] and resumed["jobs_resumed"] == 5
    assert mastermind_main(argv[:5] + ["--json", "-q"]) == 0
    whole = json.loads(capsys.readouterr().out)
    assert (resumed["total"], resumed["first_guess"]) == (whole["total"], whole["first_guess"])
    assert whole["total"] == 2463


def _checkpoint(tmp_path, capsys):
    path = tmp_path / "3x5.ckpt"
    assert mastermind_main(["optimal", "-p", "3", "-k", "5", "--checkpoint", str(path),
                            "-q"]) == 0
    capsys.readouterr()
    return path


def _refused(path, capsys, *argv):
    before = path.read_bytes()
    status = mastermind_main(["optimal", "-p", "3", "-k", "5", "--checkpoint", str(path),
                              "-q", *argv])
    captured = capsys.readouterr()
    assert status == 2 and captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1 and str(path) in captured.err
    assert path.read_bytes() == before
    return captured.err


def test_tampered_checkpoint_is_refused_and_kept(tmp_path, capsys):
    path = _checkpoint(tmp_path, capsys)
    data = path.read_bytes()
    at = data.index(b'"value": ') + len(b'"value": ')
    path.write_bytes(data[:at] + bytes([data[at] ^ 1]) + data[at + 1:])
    assert "checksum mismatch" in _refused(path, capsys)


def test_checkpoint_with_an_impossible_value_is_refused(tmp_path, capsys):
    """A well-formed file (right checksum) whose job claims an exact cost below the
    class's lower bound."""
    path = _checkpoint(tmp_path, capsys)
    data = json.loads(read_checked(path, "jitgames-checkpoint", 2, "checkpoint"))
    row = next(r for r in data["chunks"] if r[2]["exact"])
    row[2]["value"] = 0
    write_checked(path, "jitgames-checkpoint", 2, json.dumps(data).encode())
    assert "value is 0" in _refused(path, capsys)


def test_checkpoint_of_another_game_is_refused(tmp_path, capsys):
    path = _checkpoint(tmp_path, capsys)
    assert "belongs to a different run" in _refused(path, capsys, "--max-guesses", "5")


@pytest.mark.parametrize("partial, reason", [
    ({"value": 5, "exact": True}, "not a job result"),
    ({"value": 5, "exact": 1, "budget": 9}, "exact is not"),
    ({"value": 9, "exact": True, "budget": 9}, "value is 9"),
    ({"value": 4, "exact": False, "budget": 9}, "value is 4"),
    ({"value": 5.0, "exact": True, "budget": 9}, "not an integer"),
])
def test_validate_refuses_impossible_partials(partial, reason):
    params = mj.job_params(3, 4, True, None, mj.root_split(3, 4))
    split = mj.root_split(3, 4)
    job = int(np.flatnonzero(split.job_size == 3)[0])  # lb(3) = 5, at most 6 exactly
    with pytest.raises(ValueError, match=reason):
        mj.validate_partial(params, job, job + 1, partial)
    mj.validate_partial(params, job, job + 1, {"value": 5, "exact": True, "budget": 9})


@pytest.fixture(scope="module")
def dask_client():
    """A cluster of two worker threads in this process (bounded start and stop)."""
    import dask
    from distributed import Client, LocalCluster

    with dask.config.set({"distributed.scheduler.http.routes": [],
                          "distributed.worker.http.routes": []}):
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                               dashboard_address="127.0.0.1:0",
                               scheduler_kwargs={"dashboard": False}, timeout="30s")
    with cluster, Client(cluster, timeout="30s") as client:
        yield client


@pytest.mark.parametrize("size", [(4, 4, True, None), (3, 6, False, None), (4, 5, True, 5)])
def test_dask_run_equals_the_local_run(size, dask_client, tmp_path):
    here = mr.optimal_run(*size)
    there = mr.optimal_run(*size, client=dask_client, checkpoint=tmp_path / "d.ckpt")
    assert there.complete and (there.total, there.guess) == (here.total, here.guess)
    # every job split into tasks below the root, run on the workers
    split = mr.optimal_run(*size, client=dask_client, split_above=0)
    assert split.tasks > split.jobs_exact + split.jobs_cut
    assert (split.total, split.guess) == (here.total, here.guess)
    again = mr.optimal_run(*size, checkpoint=tmp_path / "d.ckpt")  # resumed locally
    assert (again.total, again.guess) == (here.total, here.guess)


@pytest.mark.parametrize("workers", [1, 2])
def test_coarse_dask_tasks_give_the_threads_result(workers):
    """On 1 or 2 workers, whole root jobs (a cluster's default) or only the largest
    class of the first root guess split, the run proves the same total, guess and
    bounds as threads."""
    import dask
    from distributed import Client, LocalCluster

    size = (4, 4, True, None)
    here = mr.optimal_run(*size, workers=2)
    split = mj.root_split(4, 4)
    with dask.config.set({"distributed.scheduler.http.routes": [],
                          "distributed.worker.http.routes": []}):
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=False,
                               dashboard_address="127.0.0.1:0",
                               scheduler_kwargs={"dashboard": False}, timeout="30s")
    with cluster, Client(cluster, timeout="30s") as client:
        whole = mr.optimal_run(*size, client=client)
        first = split.job_size[split.starts[0]:split.starts[1]]  # largest first
        largest = mr.optimal_run(*size, client=client, split_above=int(first[1]) + 1)
    # one task per root job (a twin may take the other's result instead)
    settled = whole.jobs_exact + whole.jobs_cut
    assert whole.tasks <= settled <= whole.tasks + len(mr.twin_jobs(split))
    assert largest.tasks > largest.jobs_exact + largest.jobs_cut  # some jobs split
    for run in (whole, largest):
        assert run.complete
        assert (run.total, run.guess, run.lower, run.upper) == (
            here.total, here.guess, here.lower, here.upper)


def test_bad_input_is_one_line_and_status_2(capsys):
    for argv in (["optimal", "-p", "3", "-k", "4", "--max-guesses", "3"],
                 ["optimal", "-p", "2", "-k", "3", "--scheduler", "local:0"],
                 ["optimal", "-p", "5", "-k", "4", "--no-repeats"]):
        assert mastermind_main(argv) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and len(captured.err.strip().splitlines()) == 1


def test_published_totals_of_the_sizes_checked_here():
    """The rows of tests/data/mastermind_optimal_larger.json small enough for CI."""
    rows = [r for r in LARGER["values"] if r["checked_by"] == "tests/test_mastermind_optimal_run.py"]
    assert rows
    for row in rows:
        run = mr.optimal_run(row["pegs"], row["colours"], row["repeats"])
        assert run.total == row["total"], row


GODDARD = json.loads((ROOT / "tests" / "data" / "mastermind_expected_small.json").read_text())


@pytest.mark.parametrize("row", GODDARD["values"], ids=lambda r: f"{r['pegs']}x{r['colours']}")
def test_goddards_table_of_least_averages(row):
    """Every published r(n, k) of Goddard (2004) to its three decimals, halves up."""
    codes = row["colours"] ** row["pegs"]
    assert codes <= 1000  # so that three decimals pin the integer total
    total = mr.optimal_run(row["pegs"], row["colours"]).total
    assert abs(total - row["mean"] * codes) <= 0.0005 * codes + 1e-9, (total, codes)


SLOW_ROWS = [r for r in LARGER["values"] if r["checked_by"].endswith("test_larger_total (slow)")]


@pytest.mark.slow
@pytest.mark.parametrize("row", SLOW_ROWS, ids=lambda r: f"{r['pegs']}x{r['colours']}" + (f"-max{r['max_guesses']}" if r.get("max_guesses") else ""))
def test_larger_total(row):
    """4 x 7 (Ville), 4 x 8 and 4 x 8 in at most 6 guesses (arfst23), 6 x 4 (derived
    here), Bulls and Cows (Tanaka): under a minute each on two cores."""
    run = mr.optimal_run(row["pegs"], row["colours"], row["repeats"], row.get("max_guesses"))
    assert run.total == row["total"], row


def test_the_slow_rows_cover_the_published_larger_values():
    assert {(r["pegs"], r["colours"], r["repeats"]) for r in SLOW_ROWS} >= {
        (4, 7, True), (4, 8, True), (6, 4, True), (4, 10, False)}
    assert any(r.get("max_guesses") for r in SLOW_ROWS)


def test_every_larger_value_names_its_source_and_status():
    for row in LARGER["values"]:
        assert row["status"] in ("published", "derived by this project")
        assert row["source"] and row["checked_by"]
        if row["status"] == "derived by this project":
            assert "jitgames" in row["source"]


@pytest.mark.slow
def test_ctrl_c_keeps_the_finished_jobs(tmp_path):
    """A real SIGINT to a run of 4 x 7 (about a minute): status 130 within seconds,
    "complete": false, and the checkpoint holds the finished jobs."""
    path = tmp_path / "4x7.ckpt"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "jitgames.mastermind", "optimal", "-p",
                             "4", "-k", "7", "--checkpoint", str(path), "--json", "-q"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    def jobs_kept():  # (the checkpoint is written, empty, before the first task file)
        if not path.exists():
            return 0
        return len(json.loads(read_checked(path, "jitgames-checkpoint", 2, "checkpoint"))["chunks"])

    try:
        deadline = time.monotonic() + 120
        while not jobs_kept() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
        assert jobs_kept(), "no job finished within two minutes"
        proc.send_signal(signal.SIGINT)
        stopped = time.monotonic()
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert time.monotonic() - stopped < 10
    if proc.returncode == 0:  # the whole run finished first: nothing left to cut
        assert json.loads(out)["total"] == 11228
        return
    assert proc.returncode == 130, err
    cut = json.loads(out)
    assert cut["complete"] is False and cut["jobs_exact"] + cut["jobs_cut"] >= 1
    kept = json.loads(read_checked(path, "jitgames-checkpoint", 2, "checkpoint"))["chunks"]
    assert len(kept) == cut["jobs_exact"] + cut["jobs_cut"]


@pytest.mark.parametrize("pegs,colours,repeats,limit", [(3, 4, True, None), (4, 4, True, 4),
                                                        (3, 6, False, None), (4, 3, True, None)])
@pytest.mark.parametrize("threads", [1, 2])
def test_the_runs_tree_is_the_whole_searchs_tree(pegs, colours, repeats, limit, threads):
    """optimal_run(tree=True) searches only the best root guess's classes, each with its
    proved cost as the bound, and gives node for node the tree of the search from the
    root (the same first guess attaining the cost at every node)."""
    space, matrix = load_game(pegs, colours, repeats)
    run = mr.optimal_run(pegs, colours, repeats, limit, workers=threads, tree=True)
    total, tree = search_and_build(space, matrix, limit)
    assert run.tree is not None and np.array_equal(run.tree.table, tree.table)
    assert int(run.tree.guesses().sum()) == run.total == total
    assert space.format(int(run.tree.table[0, 0])) == run.guess


def test_optimal_out_writes_a_checked_tree_from_a_finished_checkpoint(tmp_path, capsys):
    """--out after a finished run: every job read back, the tree written (gzip) and
    verified by evaluate --tree, equal to the tree command's optimal tree."""
    path = _checkpoint(tmp_path, capsys)
    out = tmp_path / "optimal-3x5.json.gz"
    assert mastermind_main(["optimal", "-p", "3", "-k", "5", "--checkpoint", str(path),
                            "--out", str(out), "--json", "-q"]) == 0
    run = json.loads(capsys.readouterr().out)
    assert run["jobs_resumed"] == run["jobs_exact"] + run["jobs_cut"] and run["out"] == str(out)
    doc = json.loads(gzip.decompress(out.read_bytes()))
    assert doc["strategy"] == "optimal" and doc["total"] == run["total"] == 451
    assert doc["optimal"]["first_guess"] == run["first_guess"]
    assert mastermind_main(["evaluate", "--tree", str(out), "--json"]) == 0
    checked = json.loads(capsys.readouterr().out)
    assert checked["total"] == 451 and checked["secrets"] == 125
    plain = tmp_path / "tree.json"
    assert mastermind_main(["tree", "-p", "3", "-k", "5", "--strategy", "optimal", "--out",
                            str(plain), "-q"]) == 0
    assert json.loads(plain.read_text())["tree"] == doc["tree"]


def test_a_forged_job_value_is_caught_when_the_tree_is_built(tmp_path, capsys):
    """A checkpoint with a right checksum whose exact job of the best guess claims one
    guess less than its true cost (still above its class's bound): the total alone
    would take it, the tree search finds no guess attaining it: one line, status 2."""
    path = _checkpoint(tmp_path, capsys)
    split = mj.root_split(3, 5)
    best = next(i for i in range(split.guesses.size)
                if split.space.format(int(split.guesses[i])) == "123")
    data = json.loads(read_checked(path, "jitgames-checkpoint", 2, "checkpoint"))
    rows = [r for r in data["chunks"] if split.starts[best] <= r[0] < split.starts[best + 1]
            and r[2]["exact"] and r[2]["value"] > split.job_lb[r[0]]]
    assert rows
    rows[0][2]["value"] -= 1
    write_checked(path, "jitgames-checkpoint", 2, json.dumps(data).encode())
    out = tmp_path / "tree.json"
    status = mastermind_main(["optimal", "-p", "3", "-k", "5", "--checkpoint", str(path),
                              "--out", str(out), "-q"])
    captured = capsys.readouterr()
    assert status == 2 and not out.exists()
    assert len(captured.err.strip().splitlines()) == 1 and "stored" in captured.err


def test_committed_optimal_trees():
    """Every committed optimal tree passes the independent check, has the total of its
    row in tests/data (and is no worse than any other strategy's total there)."""
    trees = sorted((ROOT / "bench" / "results" / "mastermind_trees").glob("optimal-*.json.gz"))
    assert trees
    rows = {(r["pegs"], r["colours"], r["repeats"]): r for r in LARGER["values"]
            if r.get("max_guesses") is None}
    for path in trees:
        doc = json.loads(gzip.decompress(path.read_bytes()))
        checked = check_tree(doc)
        row = rows[(doc["pegs"], doc["colours"], doc["repeats"])]
        assert checked.total == doc["total"] == row["total"], path
        assert doc["strategy"] == "optimal" and path.name in row["source"]
        assert doc["optimal"]["lower_bound"] == doc["optimal"]["upper_bound"] == row["total"]


def test_optimal_out_of_a_one_code_game(tmp_path, capsys):
    out = tmp_path / "one.json"
    assert mastermind_main(["optimal", "-p", "1", "-k", "1", "--out", str(out), "-q"]) == 0
    capsys.readouterr()
    assert check_tree(json.loads(out.read_text())).total == 1


def test_a_tree_that_cannot_be_written_keeps_the_printed_result(tmp_path, capsys,
                                                                monkeypatch):
    """A full disk after a long run: the total is printed all the same, then one error
    line and status 2."""
    from jitgames.mastermind import tree as tree_module

    def full_disk(path, doc):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tree_module, "write_document", full_disk)
    status = mastermind_main(["optimal", "-p", "3", "-k", "4", "--out",
                              str(tmp_path / "t.json"), "--json", "-q"])
    captured = capsys.readouterr()
    assert status == 2
    printed = json.loads(captured.out)
    assert printed["total"] == mr.optimal_run(3, 4).total and "out" not in printed
    assert "No space left" in printed["out_error"]
    assert len(captured.err.strip().splitlines()) == 1 and "could not be written" in captured.err


# ----------------------------------------------------------------------------- task files

def _cut_after(tasks: int, size, path, split_above=0):
    """``optimal_run`` on one thread with every job split, stopped (as by Ctrl-C) when
    its ``tasks + 1``-th search starts."""
    real = mr.job_value
    calls = []

    def cut(*args):
        calls.append(1)
        if len(calls) > tasks:
            raise KeyboardInterrupt
        return real(*args)

    mr.job_value = cut
    try:
        return mr.optimal_run(*size, workers=1, split_above=split_above, checkpoint=path)
    finally:
        mr.job_value = real


_FRESH_SPLIT = {}


@settings(max_examples=12, deadline=None)
@given(size=st.sampled_from([(4, 4, True, None), (3, 5, True, None)]), fraction=st.floats(0, 1))
def test_finished_tasks_of_split_jobs_are_not_searched_again(size, fraction, tmp_path_factory):
    """A run stopped inside split jobs keeps their finished tasks (``CHECKPOINT.tasks``);
    the restarted run reads each back instead of searching it: on one thread (a fixed
    order) it searches exactly the tasks the stopped run had not, and proves the same
    total, guess and bounds."""
    if size not in _FRESH_SPLIT:
        _FRESH_SPLIT[size] = mr.optimal_run(*size, workers=1, split_above=0)
    fresh = _FRESH_SPLIT[size]
    done = min(int(fraction * fresh.tasks), fresh.tasks - 1)
    path = tmp_path_factory.mktemp("tasks") / "run.ckpt"
    cut = _cut_after(done, size, path)
    assert not cut.complete and cut.tasks == done
    split = mj.root_split(*size)
    params = mj.job_params(*size, split)
    kept = mj.TaskStore.open(mj.tasks_path(path), split, params, load_game(*size[:3])[1]).results
    # only tasks of jobs not settled are kept
    settled = (json.loads(read_checked(path, "jitgames-checkpoint", 2, "checkpoint"))["chunks"]
               if path.exists() else [])  # (none when no job was settled)
    assert not {key[0] for key in kept} & {row[0] for row in settled}
    again = mr.optimal_run(*size, workers=1, split_above=0, checkpoint=path)
    assert again.complete and again.tasks_resumed == len(kept)
    assert again.tasks == fresh.tasks - done
    assert (again.total, again.guess, again.lower, again.upper) == (
        fresh.total, fresh.guess, fresh.lower, fresh.upper)
    assert not mj.tasks_path(path).exists()  # every job settled: nothing left for a restart


def test_a_jobs_tasks_stay_until_the_checkpoint_on_disk_holds_the_job(tmp_path, monkeypatch):
    """A run whose checkpoint can no longer be written (a full disk) after its first
    write keeps the tasks of the jobs it settles: the restart then searches exactly the
    tasks the stopped run had not, though the checkpoint holds none of its jobs."""
    from jitgames import _chunked

    size = (4, 4, True, None)
    fresh = mr.optimal_run(*size, workers=1, split_above=0)
    real, writes = _chunked.write_checked, []
    path = tmp_path / "run.ckpt"

    def full_after_one(target, *args):
        # the task file shares the writer; only the checkpoint's rewrites fail
        if Path(target) == path:
            writes.append(1)
            if len(writes) > 1:
                raise _chunked.StoreError("cannot write run.ckpt: No space left on device")
        return real(target, *args)

    searched = []
    real_value = mr.job_value

    def counted(search, worker, split, task, budget):
        searched.append(task)
        return real_value(search, worker, split, task, budget)

    with monkeypatch.context() as patch:
        patch.setattr(_chunked, "write_checked", full_after_one)
        patch.setattr(mr, "job_value", counted)
        cut = _cut_after(120, size, path)
    assert cut.jobs_exact + cut.jobs_cut > 0  # jobs settled, none of them on disk
    assert json.loads(read_checked(path, "jitgames-checkpoint", 2, "checkpoint"))["chunks"] == []
    # a job that a fast case settles runs whole (not split): its result was in the
    # checkpoint alone, and is searched again
    whole = sum(1 for task in searched[:120] if task[1] == -1)
    again = mr.optimal_run(*size, workers=1, split_above=0, checkpoint=path)
    assert again.complete and again.tasks_resumed == 120 - whole
    assert again.tasks == fresh.tasks - 120 + whole
    assert (again.total, again.guess) == (fresh.total, fresh.guess)


def test_a_task_file_without_its_checkpoint_is_refused(tmp_path, capsys):
    """The checkpoint is written before its task file, so a task file alone means the
    checkpoint was removed to start afresh: one line, status 2, the file untouched."""
    path = _task_file(tmp_path)
    path.unlink()
    assert "without its checkpoint" in _refused_run(path, capsys)


def _task_file(tmp_path):
    """A stopped 4 x 4 run's checkpoint whose task file holds an exact and a cut task."""
    path = tmp_path / "run.ckpt"
    for done in range(20, 200):
        for f in (path, mj.tasks_path(path)):
            f.unlink(missing_ok=True)
        _cut_after(done, (4, 4, True, None), path)
        rows = json.loads(read_checked(mj.tasks_path(path), "jitgames-checkpoint", 2,
                                       "task file"))["tasks"]
        if len(rows) >= 2 and any(r[4] for r in rows):
            return path
    raise AssertionError("no stop left an exact task in the task file")


def _files(path):
    return [f.read_bytes() if f.exists() else None for f in (path, mj.tasks_path(path))]


def _refused_run(path, capsys):
    before = _files(path)
    status = mastermind_main(["optimal", "-p", "4", "-k", "4", "--checkpoint", str(path),
                              "--json", "-q"])
    captured = capsys.readouterr()
    assert status == 2 and captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1
    assert str(mj.tasks_path(path)) in captured.err
    assert _files(path) == before
    return captured.err


def _forge(path, change):
    tasks = mj.tasks_path(path)
    data = json.loads(read_checked(tasks, "jitgames-checkpoint", 2, "task file"))
    change(data)
    write_checked(tasks, "jitgames-checkpoint", 2, json.dumps(data).encode())


def test_a_tampered_task_file_is_refused_and_kept(tmp_path, capsys):
    path = _task_file(tmp_path)
    tasks = mj.tasks_path(path)
    data = tasks.read_bytes()
    tasks.write_bytes(data[:-3] + bytes([data[-3] ^ 1]) + data[-2:])
    assert "checksum mismatch" in _refused_run(path, capsys)


def test_a_task_file_with_an_impossible_value_is_refused(tmp_path, capsys):
    """Right checksum, but an exact task worth less than its classes' lower bounds."""
    path = _task_file(tmp_path)

    def zero(data):
        next(r for r in data["tasks"] if r[4])[3] = 0

    _forge(path, zero)
    assert "value is 0" in _refused_run(path, capsys)


@pytest.mark.parametrize("change, reason", [
    (lambda d: d["tasks"].append(list(d["tasks"][0])), "appears twice"),
    (lambda d: d["tasks"][0].__setitem__(0, 10**6), "job is"),
    (lambda d: d["tasks"][0].__setitem__(2, [20, 20]), "answers"),
    (lambda d: d["params"].__setitem__("colours", 5), "belongs to a different run"),
    (lambda d: d.__setitem__("tasks", {}), "no list of tasks"),
])
def test_a_forged_task_file_is_refused(change, reason, tmp_path, capsys):
    path = _task_file(tmp_path)
    _forge(path, change)
    assert reason in _refused_run(path, capsys)
