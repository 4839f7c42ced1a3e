"""Issue 6: studies on a Dask cluster and resumable checkpointed runs give the
in-process answers exactly (n-queens, solitaire, Mastermind)."""
import contextlib
import importlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jitgames._chunked import (ChunkedJob, local_worker_threads, open_client, run_chunks,
                               split_range)
from jitgames.mastermind.__main__ import main as mastermind_main
from jitgames.puzzles import queens_constellations
from jitgames.puzzles.__main__ import main as puzzles_main
from jitgames.solitaire import study
from jitgames.solitaire.__main__ import main as solitaire_main

# The package exports a function named evaluate, so fetch the module by name.
mastermind_evaluate = importlib.import_module("jitgames.mastermind.evaluate")
ROOT = Path(__file__).resolve().parents[1]
TIMING = {"seconds", "deals_per_second", "compile_seconds", "scheduler", "threads",
          "resumed_chunks", "resumed_deals", "complete"}


SERVER_START = 120.0
"""Seconds the scheduler and its workers are given to start (compiling nothing)."""


def _start(argv, log, env):
    """A Dask command-line server as its own process group, its output in ``log``."""
    return subprocess.Popen([sys.executable, "-m", *argv], stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, env=env, cwd=ROOT,
                            start_new_session=True)


def _stop(process, wait=20.0):
    """SIGTERM to the server's process group (it closes its workers), then SIGKILL."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(wait)
        except subprocess.TimeoutExpired:
            pass
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)  # whatever of the group is left
    process.wait(wait)


def _written_address(path):
    """The address in a scheduler file, or None while it is not (completely) written."""
    try:
        return json.loads(path.read_text())["address"]
    except (OSError, ValueError, KeyError):
        return None


@contextlib.contextmanager
def dask_servers(folder, workers):
    """A scheduler and ``workers`` worker processes started as a user would start them
    (``dask scheduler``, ``dask worker --nworkers W``), in process groups of their own,
    bound to this machine only and without dashboard pages; yields the scheduler's
    address and its process. Their output goes to ``folder/cluster.log``."""
    address_file = folder / "scheduler.json"
    env = dict(os.environ, NUMBA_NUM_THREADS=str(local_worker_threads(2)),
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT),
                                                        os.environ.get("PYTHONPATH")])),
               DASK_DISTRIBUTED__SCHEDULER__HTTP__ROUTES="[]",
               DASK_DISTRIBUTED__WORKER__HTTP__ROUTES="[]")
    log = open(folder / "cluster.log", "wb")
    servers = [_start(["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
                       "--no-dashboard", "--scheduler-file", str(address_file)], log, env)]
    try:
        deadline = time.monotonic() + SERVER_START
        while (address := _written_address(address_file)) is None:
            assert servers[0].poll() is None, "the scheduler ended at its start"
            assert time.monotonic() < deadline, "the scheduler did not start in time"
            time.sleep(0.1)
        servers.append(_start(["distributed.cli.dask_worker", address, "--nworkers",
                               str(workers), "--nthreads", "1", "--host", "127.0.0.1",
                               "--no-dashboard"], log, env))
        yield address, servers[0]
    finally:
        for server in reversed(servers):
            _stop(server)
        log.close()


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory):
    """Address of a running scheduler with 2 worker processes (:func:`dask_servers`),
    and a client of it. Nothing of the cluster runs in the test process, which holds
    only clients, as a user's command does."""
    from distributed import Client

    with dask_servers(tmp_path_factory.mktemp("dask"), 2) as (address, _):
        with Client(address, timeout="30s") as client:
            client.wait_for_workers(2, timeout=SERVER_START)
            yield address, client


def _numba_threads():
    import numba
    return numba.get_num_threads()


def test_local_workers_share_the_cores():
    """Two local workers run their share of the Numba threads each, not all cores each."""
    with open_client("local:2") as client:
        threads = client.run(_numba_threads)
    assert len(threads) == 2
    assert set(threads.values()) == {local_worker_threads(2)}
    assert local_worker_threads(2) == max(1, (os.cpu_count() or 1) // 2)


def run_json(main, argv, capsys):
    status = main(argv + ["--json", "--quiet"])
    out = capsys.readouterr().out
    return status, json.loads(out)


def test_queens_on_a_cluster_equal_in_process(scheduler, capsys):
    address, _ = scheduler
    status, here = run_json(puzzles_main, ["queens", "10"], capsys)
    assert status == 0
    status, there = run_json(puzzles_main, ["queens", "10", "--scheduler", address,
                                            "--chunks", "7"], capsys)
    assert status == 0
    assert (there["count"], there["unique"]) == (here["count"], here["unique"]) == (724, 92)


def test_queens_interrupted_checkpoint_resumes_to_the_same_answer(tmp_path, monkeypatch,
                                                                  capsys):
    path = tmp_path / "queens.ckpt"
    real = queens_constellations.count_chunk

    def stop_at_chunk_5(n, index, chunks):
        if index == 5:
            raise KeyboardInterrupt
        return real(n, index, chunks)

    monkeypatch.setattr(queens_constellations, "count_chunk", stop_at_chunk_5)
    status, partial = run_json(puzzles_main, ["queens", "11", "--checkpoint", str(path),
                                              "--chunks", "9"], capsys)
    assert status == 130 and partial["complete"] is False and partial["chunks_done"] == 5
    monkeypatch.setattr(queens_constellations, "count_chunk", real)
    status, resumed = run_json(puzzles_main, ["queens", "11", "--checkpoint", str(path),
                                              "--chunks", "9"], capsys)
    assert status == 0 and resumed["resumed_chunks"] == 5
    assert (resumed["count"], resumed["unique"]) == (2680, 341)


def test_queens_mismatched_checkpoint_is_refused_and_kept(tmp_path, capsys):
    path = tmp_path / "queens.ckpt"
    assert puzzles_main(["queens", "8", "--checkpoint", str(path), "--chunks", "4",
                         "--quiet"]) == 0
    before = path.read_bytes()
    capsys.readouterr()
    assert puzzles_main(["queens", "9", "--checkpoint", str(path), "--chunks", "4"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "different run" in err and "n: 8 there, 9 here" in err
    assert path.read_bytes() == before


def exact_figures(summary):
    """A study summary without its timing and run-description fields."""
    return {k: v for k, v in summary.items() if k not in TIMING}


def test_solitaire_study_on_a_cluster_equals_in_process(scheduler, capsys):
    address, _ = scheduler
    status, here = run_json(solitaire_main, ["600", "--seed", "5"], capsys)
    assert status == 0
    status, there = run_json(solitaire_main, ["600", "--seed", "5", "--scheduler", address,
                                              "--chunk-size", "70"], capsys)
    assert status == 0 and there["deals"] == 600
    assert exact_figures(there) == exact_figures(here)


def test_solitaire_study_that_loses_its_scheduler_is_one_line_and_resumes(
        tmp_path, monkeypatch, capsys, caplog):
    """The scheduler killed after the second chunk came back: one line and status 2 (no
    traceback, no log lines, no cancellation taken for a result), the finished chunks
    kept in the checkpoint, and a run from it in process gives the whole study's
    figures."""
    from jitgames import _chunked

    path = tmp_path / "study.ckpt"
    argv = ["600", "--seed", "5", "--chunk-size", "50", "--checkpoint", str(path)]
    real = _chunked.Checkpoint.record
    with dask_servers(tmp_path, 1) as (address, scheduler_process):
        def record_then_kill_at_the_second(self, chunk, partial):
            real(self, chunk, partial)
            if len(self.done) == 2:
                os.killpg(scheduler_process.pid, signal.SIGKILL)

        monkeypatch.setattr(_chunked.Checkpoint, "record", record_then_kill_at_the_second)
        status = solitaire_main(argv + ["--scheduler", address, "--quiet"])
        monkeypatch.setattr(_chunked.Checkpoint, "record", real)
    captured = capsys.readouterr()
    assert status == 2 and captured.out == ""
    assert captured.err.count("\n") == 1 and "lost the Dask scheduler" in captured.err
    assert not [r for r in caplog.records if r.name.startswith("distributed")]
    status, resumed = run_json(solitaire_main, argv, capsys)
    assert status == 0 and resumed["resumed_chunks"] >= 2 and resumed["deals"] == 600
    status, whole = run_json(solitaire_main, ["600", "--seed", "5"], capsys)
    assert exact_figures(resumed) == exact_figures(whole)


def dying_study_worker(params, start, stop):
    """The study worker, except that the process solving chunk ``kill_at`` dies there once."""
    marker = params["marker"]
    if start == params["kill_at"] and not os.path.exists(marker):
        open(marker, "w").close()
        os.kill(os.getpid(), signal.SIGKILL)
    return study.study_worker(params, start, stop)


def merged(run):
    partial = study.empty_partial()
    for result in run.partials:
        partial = study.merge(partial, study.StudyPartial.from_dict(result["partial"]))
    return partial


def test_solitaire_chunk_of_a_killed_worker_is_retried(scheduler, tmp_path):
    _, client = scheduler
    params = {"seed": 9, "shuffle": "fisher-yates", "score_only": False,
              "table_capacity": study.DEFAULT_CAPACITY, "rows": False}
    chunks = tuple(split_range(0, 400, 50))
    plain = run_chunks(ChunkedJob("t", params, chunks, study.study_worker, study.study_validate),
                       quiet=True)
    pids_before = set(client.run(os.getpid).values())
    dying = ChunkedJob("t", {**params, "kill_at": 150, "marker": str(tmp_path / "died")},
                       chunks, dying_study_worker, study.study_validate)
    run = run_chunks(dying, client=client, quiet=True)
    assert (tmp_path / "died").exists()  # a worker really died mid-run
    assert set(client.run(os.getpid).values()) != pids_before
    assert run.complete and merged(run) == merged(plain)


def test_solitaire_interrupted_checkpoint_resumes_to_the_same_answer(tmp_path, monkeypatch,
                                                                     capsys):
    path, out_file, whole_file = tmp_path / "study.ckpt", tmp_path / "s.csv", tmp_path / "w.csv"
    argv = ["500", "--seed", "3", "--chunk-size", "100", "--checkpoint", str(path),
            "--out", str(out_file)]
    real = study.solve_chunk_rows

    def stop_at_deal_300(seed, start, stop, **kwargs):
        if start == 300:
            raise KeyboardInterrupt
        return real(seed, start, stop, **kwargs)

    monkeypatch.setattr(study, "solve_chunk_rows", stop_at_deal_300)
    status, cut = run_json(solitaire_main, argv, capsys)
    assert status == 130 and cut["deals"] == 300 and cut["complete"] is False
    assert len(out_file.read_text().splitlines()) == 301  # the finished deals' rows
    monkeypatch.setattr(study, "solve_chunk_rows", real)
    status, resumed = run_json(solitaire_main, argv, capsys)
    assert status == 0 and resumed["resumed_chunks"] == 3 and resumed["deals"] == 500
    # the rate is of the 200 deals this run solved, not of the 300 read back
    assert resumed["resumed_deals"] == 300
    assert resumed["deals_per_second"] == pytest.approx(200 / resumed["seconds"])
    status, whole = run_json(solitaire_main, ["500", "--seed", "3", "--out", str(whole_file)],
                             capsys)
    assert exact_figures(resumed) == exact_figures(whole)
    assert out_file.read_text() == whole_file.read_text()
    assert len(out_file.read_text().splitlines()) == 501


@pytest.mark.parametrize("content", [b"garbage", b'{"format": "jitgames-checkpoint-1"}'])
def test_solitaire_corrupt_checkpoint_is_one_line_and_kept(tmp_path, capsys, content):
    path = tmp_path / "study.ckpt"
    path.write_bytes(content)
    assert solitaire_main(["50", "--checkpoint", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(path) in err
    assert path.read_bytes() == content


def test_solitaire_checkpoint_of_another_seed_is_refused(tmp_path, capsys):
    path = tmp_path / "study.ckpt"
    assert solitaire_main(["50", "--seed", "1", "--checkpoint", str(path), "--quiet"]) == 0
    before = path.read_bytes()
    capsys.readouterr()
    assert solitaire_main(["50", "--seed", "2", "--checkpoint", str(path), "--quiet"]) == 2
    assert "seed: 1 there, 2 here" in capsys.readouterr().err
    assert path.read_bytes() == before


def test_mastermind_evaluation_on_a_cluster_equals_in_process(scheduler, capsys):
    address, _ = scheduler
    argv = ["evaluate", "-p", "3", "-k", "5", "-s", "random", "--seed", "4"]
    status, here = run_json(mastermind_main, argv, capsys)
    assert status == 0
    status, there = run_json(mastermind_main, argv + ["--scheduler", address,
                                                      "--chunk-size", "17"], capsys)
    assert status == 0 and there == here and there["secrets"] == 125


def test_mastermind_interrupted_checkpoint_resumes_to_the_same_answer(tmp_path, monkeypatch,
                                                                     capsys):
    path = tmp_path / "mm.ckpt"
    argv = ["evaluate", "-p", "4", "-k", "4", "-s", "knuth", "--chunk-size", "50",
            "--checkpoint", str(path)]
    real = mastermind_evaluate.evaluate

    def stop_at_secret_100(name, pegs, colours, repeats, seed, secrets, *args, **options):
        if secrets[0] == 100:
            raise KeyboardInterrupt
        return real(name, pegs, colours, repeats, seed, secrets, *args, **options)

    monkeypatch.setattr(mastermind_evaluate, "evaluate", stop_at_secret_100)
    status, cut = run_json(mastermind_main, argv, capsys)
    assert status == 130 and cut["complete"] is False and cut["secrets"] == 100
    monkeypatch.setattr(mastermind_evaluate, "evaluate", real)
    status, resumed = run_json(mastermind_main, argv, capsys)
    status, whole = run_json(mastermind_main, argv[:7], capsys)
    assert resumed == whole and whole["complete"] and whole["secrets"] == 256
