"""Issue 6: studies on a Dask cluster and resumable checkpointed runs give the
in-process answers exactly (n-queens, solitaire, Mastermind)."""
import json
import os

import pytest

from jitgames._chunked import open_client
from jitgames.puzzles import queens_classes
from jitgames.puzzles.__main__ import main as puzzles_main


@pytest.fixture(scope="module")
def scheduler():
    """Address of a LocalCluster of 2 worker processes, shared by this module."""
    with open_client("local:2") as client:
        yield client.scheduler.address, client


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
    real = queens_classes.count_classes_chunk

    def stop_at_chunk_5(n, index, chunks):
        if index == 5:
            raise KeyboardInterrupt
        return real(n, index, chunks)

    monkeypatch.setattr(queens_classes, "count_classes_chunk", stop_at_chunk_5)
    status, partial = run_json(puzzles_main, ["queens", "11", "--checkpoint", str(path),
                                              "--chunks", "9"], capsys)
    assert status == 130 and partial["partial"] and partial["chunks_done"] == 5
    monkeypatch.setattr(queens_classes, "count_classes_chunk", real)
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
