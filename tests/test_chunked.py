"""Chunked jobs: exact merging, checkpoints, resumption, refusal of foreign checkpoints."""
import json
import os
import time

import pytest

from jitgames._chunked import (CHECKPOINT_KIND, CHECKPOINT_SCHEMA, ChunkedJob, check_count,
                               open_client, run_chunks, split_range)
from jitgames._cli import InputError
from jitgames._store import StoreError, read_checked


def sum_of_squares(params, start, stop):
    """Toy worker: exact partial sums over [start, stop)."""
    return {"count": stop - start,
            "sum": sum(i * i * params["scale"] for i in range(start, stop))}


def interrupting_worker(params, start, stop):
    if start >= params["interrupt_at"]:
        raise KeyboardInterrupt
    return sum_of_squares(params, start, stop)


def validate_sum_of_squares(params, start, stop, partial):
    """The toy job's partial checks: the count of its range, a non-negative sum."""
    if set(partial) != {"count", "sum"}:
        raise ValueError("not a toy partial")
    check_count(partial["count"], "count", stop - start, stop - start)
    check_count(partial["sum"], "sum")


def stored(path):
    """The payload of a checkpoint file (checked)."""
    return json.loads(read_checked(path, CHECKPOINT_KIND, CHECKPOINT_SCHEMA, "checkpoint"))


def total(run):
    return sum(p["sum"] for p in run.partials), sum(p["count"] for p in run.partials)


def job(n, size, worker=sum_of_squares, **params):
    params = {"n": n, "chunk": size, "scale": 3, **params}
    return ChunkedJob("toy", params, tuple(split_range(0, n, size)), worker,
                      validate_sum_of_squares)


def test_split_range_covers_exactly():
    assert split_range(0, 10, 4) == [(0, 4), (4, 8), (8, 10)]
    assert split_range(5, 5, 3) == []
    with pytest.raises(ValueError):
        split_range(0, 3, 0)


@pytest.mark.parametrize("size", [1, 7, 100, 1000])
def test_any_chunk_size_gives_the_same_answer(size):
    run = run_chunks(job(1000, size), quiet=True)
    assert run.complete and not run.interrupted
    assert total(run) == (3 * sum(i * i for i in range(1000)), 1000)


def test_interrupted_run_resumes_to_the_same_answer(tmp_path):
    path = tmp_path / "run.ckpt"
    first = run_chunks(job(100, 10, interrupting_worker, interrupt_at=40), checkpoint=path,
                       quiet=True)
    assert first.interrupted and first.chunks_done == [(0, 10), (10, 20), (20, 30), (30, 40)]
    on_disk = stored(path)
    assert len(on_disk["chunks"]) == 4
    # Same job (same params) resumed with a worker that no longer stops.
    resumed_job = job(100, 10, sum_of_squares, interrupt_at=40)
    second = run_chunks(resumed_job, checkpoint=path, quiet=True)
    assert second.resumed_chunks == 4 and second.complete
    assert total(second) == total(run_chunks(job(100, 10), quiet=True))
    # its rate is of the 60 items it computed, not of the 40 read back
    assert second.resumed_items == 40 and second.items_per_second(2.0) == 30.0
    assert run_chunks(resumed_job, checkpoint=path, quiet=True).items_per_second(2.0) is None


def test_mismatched_checkpoint_is_refused_and_kept(tmp_path):
    path = tmp_path / "run.ckpt"
    run_chunks(job(50, 10), checkpoint=path, quiet=True)
    before = path.read_bytes()
    with pytest.raises(StoreError, match="different run.*scale"):
        run_chunks(job(50, 10, scale=4), checkpoint=path, quiet=True)
    other = ChunkedJob("other", job(50, 10).params, job(50, 10).chunks, sum_of_squares,
                       validate_sum_of_squares)
    with pytest.raises(StoreError, match="is for 'toy'"):
        run_chunks(other, checkpoint=path, quiet=True)
    assert path.read_bytes() == before


@pytest.mark.parametrize("content", [b"", b"{not json", b'{"format": "x"}', b"[1, 2]",
                                     b'{"format": "jitgames-checkpoint-1", "chunks": 5}'])
def test_corrupt_checkpoint_is_refused_and_kept(tmp_path, content):
    path = tmp_path / "run.ckpt"
    path.write_bytes(content)
    with pytest.raises(StoreError, match=f"checkpoint {path}: not a jitgames"):
        run_chunks(job(50, 10), checkpoint=path, quiet=True)
    assert path.read_bytes() == content


def slow_sum_of_squares(params, start, stop):
    """Toy worker that takes a moment, so a worker can be killed mid-run."""
    import time

    time.sleep(params["sleep"])
    return sum_of_squares(params, start, stop)


@pytest.fixture(scope="module")
def local_cluster():
    import distributed

    with open_client("local:2") as client:
        assert isinstance(client, distributed.Client)
        yield client


def test_dask_backend_gives_the_same_answer(local_cluster):
    run = run_chunks(job(1000, 37), client=local_cluster, quiet=True)
    assert run.complete and total(run) == total(run_chunks(job(1000, 37), quiet=True))


def test_killed_worker_chunk_is_retried(local_cluster):
    import os
    import signal
    import threading

    pids = local_cluster.run(os.getpid)
    victim = sorted(pids.values())[0]
    timer = threading.Timer(1.0, os.kill, (victim, signal.SIGKILL))
    timer.start()
    try:
        run = run_chunks(job(200, 10, slow_sum_of_squares, sleep=0.25), client=local_cluster,
                         quiet=True)
    finally:
        timer.cancel()
    assert victim not in local_cluster.run(os.getpid).values()
    assert run.complete and total(run) == total(run_chunks(job(200, 10, sleep=0.25),
                                                           quiet=True))


@pytest.mark.parametrize("spec, message", [("local:0", "positive worker count"),
                                           ("local:x", "positive worker count"),
                                           ("myhost:8786", "tcp://HOST:PORT or local:W"),
                                           ("tcp://", "tcp://HOST:PORT or local:W"),
                                           ("tcp://[::1", "tcp://HOST:PORT or local:W"),
                                           ("inproc://x", "tcp://HOST:PORT or local:W"),
                                           ("tcp://host:0", "tcp://HOST:PORT or local:W"),
                                           ("tcp://127.0.0.1:1", "cannot reach")])
def test_bad_scheduler_is_one_clear_error(spec, message):
    with pytest.raises(InputError, match=message):
        with open_client(spec):
            pass


def failing_worker(params, start, stop):
    if start >= params["fail_at"]:
        raise RuntimeError("worker crashed")
    return sum_of_squares(params, start, stop)


def test_chunks_finished_before_a_crash_are_kept(tmp_path):
    path = tmp_path / "run.ckpt"
    with pytest.raises(RuntimeError, match="crashed"):
        run_chunks(job(100, 10, failing_worker, fail_at=30), checkpoint=path, quiet=True)
    assert [c[:2] for c in stored(path)["chunks"]] == [[0, 10], [10, 20], [20, 30]]


def test_checkpoint_rewrites_are_throttled_and_flushed(tmp_path):
    from jitgames._chunked import Checkpoint

    path = tmp_path / "run.ckpt"
    store = Checkpoint.open(path, job(30, 10))
    store.interval = 3600.0
    store.record((0, 10), {"count": 10, "sum": 1})  # first write is immediate
    store.record((10, 20), {"count": 10, "sum": 2})  # within the interval: not yet
    assert len(stored(path)["chunks"]) == 1
    store.flush()
    assert len(stored(path)["chunks"]) == 2
    assert Checkpoint.open(path, job(30, 10)).done == store.done


def test_slow_checkpoint_rewrites_wait_ten_times_their_duration(tmp_path, monkeypatch):
    """A rewrite that took t seconds is followed by none for 10 t. The checkpoint's
    clock is a fake one that only the (slow) writes advance, so the test does not
    depend on how busy the machine is."""
    from jitgames import _chunked

    now = [1000.0]
    writes = []

    def slow_write(path, kind, schema, payload):
        now[0] += 0.05
        writes.append(len(json.loads(payload)["chunks"]))

    monkeypatch.setattr(_chunked, "write_checked", slow_write)
    monkeypatch.setattr(_chunked.time, "monotonic", lambda: now[0])
    store = _chunked.Checkpoint.open(tmp_path / "run.ckpt", job(30, 10))
    store.interval = 0.0  # would rewrite after every chunk, were the rewrites quick
    store.record((0, 10), {"count": 10, "sum": 1})
    assert writes == [1] and store._due == pytest.approx(now[0] + 0.5)
    now[0] += 0.49                                   # within 10 x 0.05 s of the write
    store.record((10, 20), {"count": 10, "sum": 2})
    assert writes == [1]
    now[0] += 0.02                                   # past it
    store.record((20, 30), {"count": 10, "sum": 3})
    assert writes == [1, 3]


def test_unwritable_checkpoint_is_refused_before_any_chunk(tmp_path):
    (tmp_path / "file").write_text("")
    calls = []

    def worker(params, start, stop):
        calls.append(start)
        return {"count": stop - start, "sum": 0}

    with pytest.raises(StoreError, match="cannot write"):
        run_chunks(job(30, 10, worker), checkpoint=tmp_path / "file" / "run.ckpt", quiet=True)
    assert calls == []


def test_local_cluster_is_private_and_serves_no_pages(local_cluster):
    """``local:W``: TLS with certificates only this process holds, no dashboard."""
    import urllib.error
    import urllib.request

    import distributed
    import psutil

    address = local_cluster.scheduler.address
    assert address.startswith("tls://127.0.0.1:")
    # a client without this process's temporary certificates cannot join: not with
    # certificates of its own, not by plain TCP
    from distributed.security import Security

    for attempt, security in ((address, Security.temporary()),
                              (address.replace("tls://", "tcp://"), None)):
        with pytest.raises((OSError, TimeoutError)):
            distributed.Client(attempt, security=security, timeout="3s")
    # every HTTP server Dask starts answers nothing: no dashboard, info, proxy or metrics
    pids = [os.getpid(), *local_cluster.run(os.getpid).values()]
    comms = [address, *local_cluster.scheduler_info()["workers"],
             *(nanny.address for nanny in local_cluster.cluster.workers.values())]
    tcp_ports = {int(a.rsplit(":", 1)[1]) for a in comms}
    http = [c.laddr for c in psutil.net_connections("tcp") if c.status == "LISTEN"
            and c.pid in pids and c.laddr.port not in tcp_ports]
    assert http and all(laddr.ip == "127.0.0.1" for laddr in http)
    for laddr in http:
        for page in ("/status", "/info/main/workers.html", "/json/identity.json", "/metrics",
                     "/health", "/proxy/8787/127.0.0.1/status"):
            with pytest.raises(urllib.error.HTTPError) as info:
                urllib.request.urlopen(f"http://127.0.0.1:{laddr.port}{page}", timeout=5)
            assert info.value.code == 404


def test_a_cluster_whose_close_times_out_is_dropped_not_waited_on(local_cluster):
    """A local cluster whose close times out (workers reaped late on a loaded machine)
    ends the ``with`` block quietly and is taken off Dask's list of clusters with its
    event loop stopped, so that Dask's own close at exit does not wait for it again."""
    from jitgames import _chunked

    # the private parts of Dask this relies on are there in the installed release
    real = local_cluster.cluster
    assert real in type(real)._instances and hasattr(type(real)._instances, "discard")
    assert callable(real._loop_runner.stop)

    stopped = []

    class LateReaping:
        _instances = set()

        def __init__(self, **kwargs):
            self._loop_runner = type("Loop", (), {"stop": lambda _: stopped.append(True)})()
            LateReaping._instances.add(self)

        def close(self):
            raise TimeoutError("workers not reaped")

    with _chunked._secure_local_cluster(1, LateReaping) as cluster:
        assert cluster in LateReaping._instances
    assert cluster not in LateReaping._instances
    assert stopped == [True]


def test_ctrl_c_while_a_local_cluster_starts_is_heard_at_once_and_the_start_abandoned():
    """Ctrl-C while the cluster is still starting (in a helper thread deaf to SIGINT, so
    that its worker processes never hear a terminal's Ctrl-C): the waiting thread raises
    KeyboardInterrupt at once; the start is left to finish, recorded as abandoned work,
    and what it started is closed there, unused."""
    import signal
    import threading

    from jitgames import _chunked, _interrupt
    from tests.test_sigint import ctrl_c_once

    began, closed, deaf = threading.Event(), threading.Event(), []

    class SlowCluster:
        def close(self):
            closed.set()

    def start():
        deaf.append(signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, []))
        began.set()
        time.sleep(3.0)
        return SlowCluster()

    with ctrl_c_once(began):
        begin = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            _chunked._start_deaf_to_ctrl_c(start)
        heard = time.monotonic() - begin
    assert heard < 2.0, heard  # not after the start's three seconds
    assert deaf == [True]
    starter = next(t for t in _interrupt._abandoned if t.name == "jitgames-cluster-start")
    assert closed.wait(10)  # the cluster the start made anyway is closed, unused
    starter.join(10)
    assert not starter.is_alive()
    _interrupt._abandoned.remove(starter)
