"""How the optimal Mastermind run scales with threads (and Dask workers).

    python bench/mastermind_scaling.py --sizes 4x7,4x8 --threads 1 2 [--repeats 3]
    python bench/mastermind_scaling.py --sizes 4x8,5x6 --threads 1 16 --split-above default none
    python bench/mastermind_scaling.py --sizes 4x7,4x8 --threads 1 16 --window 2 none
    python bench/mastermind_scaling.py --sizes 4x8 --threads --dask 1 4    # needs [dask]
    python bench/mastermind_scaling.py --sizes 4x8 --simulate 16 --plan default "window=2,child_window=2"
    python bench/mastermind_scaling.py --sizes 4x8 --threads 1 16 --plan "spare=0,twins=0,driver=herd" default

For every size, thread count and split setting, :func:`jitgames.mastermind.optimal_run.
optimal_run` is timed in this process (wall and process-CPU seconds), the settings
alternating within each round so that a busy machine weighs on all alike; the kernels
are compiled first on a small game. ``--split-above`` takes class sizes, ``default``
(``optimal_run``'s choice: :func:`~jitgames.mastermind.optimal_run.default_split_above`
with several threads, no split on one) or ``none`` (root jobs only: the run before
jobs were split below the root). ``--window`` takes the open candidates a node lets
run at once (:class:`~jitgames.mastermind.optimal_run.RunPlan`), ``default`` or
``none`` (no limit: the run before the window); ``--plan`` takes settings of the plan
and driver as for ``--simulate`` (``driver=herd``: the thread driver before
2026-11-27 21:40 UTC, :func:`_run_herd`). Each run also records its CPU
seconds (over those of one thread with the same settings: the work that many threads
add, which shows on a machine of any number of cores) and how many threads had a task
on average (task seconds over wall seconds: the parallelism the plan let out), and
how many waited for the driver's lock and how many had no task (``RunPlan.lock_seconds``,
``idle_seconds`` over wall seconds; measured by the driver of ``optimal_run`` only).
``--dask W ...`` also times a
local cluster of W single-thread worker processes per W (``--dask-split-above``:
``default``, ``none``, both whole root jobs, or a class size). Every run's total must equal
the first one's (the total and the guess never depend on threads, workers or
splitting). Medians and speed-ups (median wall of one thread / of T threads, per
split setting) go to ``bench/results/mastermind_scaling.json`` with the machine.

``--simulate P ...`` times nothing: it replays the run of ``P`` threads in virtual time
from each task's measured thread-CPU seconds (:func:`simulate`), for every ``--plan``
setting, against one thread's replayed run, and reports the predicted speed-up
(makespan of one thread over that of ``P``), the work over one thread's and the busy
threads per tenth of the run: what ``P`` free cores would do, measured on a machine
with fewer (see ``docs/mastermind_optimal.md``).
"""
from __future__ import annotations

import argparse
import heapq
import statistics
import sys
import threading
import time
from contextlib import contextmanager
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import ROOT, machine, save_result  # noqa: E402

sys.path.insert(0, str(ROOT))
import jitgames.mastermind.optimal_run as optimal_run_module  # noqa: E402
from jitgames.mastermind.codes import load_game  # noqa: E402
from jitgames.mastermind.optimal import OptimalSearch  # noqa: E402
from jitgames.mastermind.optimal_jobs import job_bounds, job_value, root_split  # noqa: E402
from jitgames.mastermind.optimal_run import (  # noqa: E402
    CHILD_WINDOW, CLASS_ABOVE, EARLY_START, SPARE, WINDOW, RunPlan, child_node,
    default_split_above, optimal_run)

NO_SPLIT = 1 << 40  # a class size no game reaches: root jobs only


def _size(text: str):
    pegs, colours = text.lower().split("x")
    return int(pegs), int(colours)


def _split(text: str) -> int | None:
    if text == "default":  # optimal_run's choice: split only with several threads
        return None
    if text == "none":
        return NO_SPLIT
    return int(text)


def _window(text: str) -> dict:
    """``optimal_run``'s keyword for a ``--window`` value (``default``: none given)."""
    if text == "default":
        return {}
    return {"window": None if text == "none" else int(text)}


def _timed(call):
    wall, cpu = time.perf_counter(), time.process_time()
    run = call()
    return run, time.perf_counter() - wall, time.process_time() - cpu


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="4x7", help="comma-separated PxK (default 4x7)")
    parser.add_argument("--threads", type=int, nargs="*", default=[1, 2],
                        help="thread counts (none: Dask runs only)")
    parser.add_argument("--split-above", nargs="+", default=["default"],
                        help="class sizes above which jobs are split, 'default' or 'none'")
    parser.add_argument("--window", nargs="+", default=["default"],
                        help="open candidates per node run at once, 'default' or 'none'")
    parser.add_argument("--dask", type=int, nargs="*", default=[],
                        help="also local Dask clusters of these numbers of worker processes")
    parser.add_argument("--dask-split-above", default="default",
                        help="class size above which a Dask run splits jobs, 'default' "
                             "(optimal_run's: none on a cluster) or 'none'")
    parser.add_argument("--simulate", type=int, nargs="*", default=[],
                        help="instead of timing runs: replay runs of these thread counts "
                             "in virtual time (simulate()) against one thread's")
    parser.add_argument("--plan", nargs="+", default=["default"],
                        help="plan settings (for --simulate, else beside --split-above "
                             "and --window), each 'default' or "
                             "KEY=VALUE,... of window, child_window, class_above, "
                             "split_above (a number or 'none'), spare, twins, early_start "
                             "(0 or 1), "
                             "driver (handoff or herd), acquire_us")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--out", default="mastermind_scaling.json")
    args = parser.parse_args(argv)
    optimal_run(3, 4)  # compile the kernels before any clock starts
    if args.simulate:
        return _simulations(args)
    result = {"machine": machine(), "argv": sys.argv[1:], "sizes": {}}
    settings = [(s, w, p) for s in args.split_above for w in args.window for p in args.plan]
    for size_text in args.sizes.split(","):
        pegs, colours = _size(size_text)
        runs = {}
        totals = set()
        for repeat in range(args.repeats):
            for split_text, window_text, plan_text in settings:
                for threads in args.threads:
                    name = f"{_setting(split_text, window_text, plan_text)}, {threads} threads"
                    plans = []
                    options = _plan_options(plan_text)
                    driver = options.pop("driver", "handoff")
                    if "acquire_us" in options:
                        raise SystemExit("--plan acquire_us: only with --simulate")
                    with _driver(driver):
                        run, wall, cpu = _timed(lambda: optimal_run(
                            pegs, colours, workers=threads, progress=plans.append,
                            split_above=_split(split_text), **_window(window_text),
                            **options))
                    totals.add((run.total, run.guess))
                    # threads with a task, on average: the parallelism the plan let out
                    # (on a machine with fewer cores than threads, wall says nothing of it)
                    busy = plans[-1].busy_seconds / wall if plans else 0.0
                    # threads waiting for the driver's lock, and idle (no task to take)
                    locked = plans[-1].lock_seconds / wall if plans else 0.0
                    idle = plans[-1].idle_seconds / wall if plans else 0.0
                    runs.setdefault(name, []).append({"wall": wall, "cpu": cpu,
                                                      "tasks": run.tasks, "busy": busy,
                                                      "waiting_for_lock": locked,
                                                      "idle": idle})
                    print(f"{size_text} {name} run {repeat + 1}: total {run.total}, "
                          f"{wall:.2f} s wall, {cpu:.2f} s CPU, {run.tasks} tasks, "
                          f"{busy:.1f} threads busy, {locked:.1f} waiting for the lock, "
                          f"{idle:.1f} idle", flush=True)
            for workers in args.dask:
                run, wall, cpu = _dask_run(pegs, colours, workers,
                                           _split(args.dask_split_above))
                totals.add((run.total, run.guess))
                name = f"dask {workers} workers"
                runs.setdefault(name, []).append({"wall": wall, "worker_cpu": cpu,
                                                  "tasks": run.tasks})
                print(f"{size_text} {name} run {repeat + 1}: total {run.total}, "
                      f"{wall:.2f} s wall, {cpu:.2f} s CPU on the workers", flush=True)
        if len(totals) != 1:
            raise SystemExit(f"{size_text}: the runs disagree: {totals}")
        medians = {name: statistics.median(r["wall"] for r in rs) for name, rs in runs.items()}
        cpus = {name: statistics.median(r["cpu"] for r in rs)
                for name, rs in runs.items() if "cpu" in rs[0]}
        speedups, cpu_ratios = {}, {}
        for split_text, window_text, plan_text in settings:
            setting = _setting(split_text, window_text, plan_text)
            one = f"{setting}, 1 threads"
            if one in medians:
                speedups[setting] = {str(t): medians[one] / medians[f"{setting}, {t} threads"]
                                     for t in args.threads}
                cpu_ratios[setting] = {str(t): cpus[f"{setting}, {t} threads"] / cpus[one]
                                       for t in args.threads}
        if args.dask and 1 in args.dask:
            speedups["dask"] = {str(w): medians["dask 1 workers"] / medians[f"dask {w} workers"]
                                for w in args.dask}
            one = statistics.median(r["worker_cpu"] for r in runs["dask 1 workers"])
            cpu_ratios["dask"] = {str(w): statistics.median(
                r["worker_cpu"] for r in runs[f"dask {w} workers"]) / one for w in args.dask}
        result["sizes"][size_text] = {"total": next(iter(totals))[0], "runs": runs,
                                      "median_wall": medians, "median_cpu": cpus,
                                      "speedup": speedups, "cpu_ratio": cpu_ratios}
        print(f"{size_text}: median wall {medians}; speed-up {speedups}; "
              f"CPU over one thread's {cpu_ratios}", flush=True)
    save_result(ROOT / "bench" / "results" / args.out, result)
    return 0


def _setting(split_text: str, window_text: str, plan_text: str) -> str:
    plan = "" if plan_text == "default" else f", plan {plan_text}"
    return f"split {split_text}, window {window_text}{plan}"


@contextmanager
def _driver(kind: str):
    """``optimal_run`` with the thread driver ``kind``: ``handoff`` (its own) or
    ``herd`` (the driver before 2026-11-27 21:40 UTC, :func:`_run_herd`)."""
    if kind == "handoff":
        yield
        return
    if kind != "herd":
        raise SystemExit(f"--plan driver: handoff or herd, not {kind!r}")
    own = optimal_run_module._run_here
    optimal_run_module._run_here = _run_herd
    try:
        yield
    finally:
        optimal_run_module._run_here = own


def _run_herd(plan, search) -> None:
    """The thread driver of ``optimal_run`` before 2026-11-27 21:40 UTC, kept here to be
    measured against its own: every result wakes every waiting thread, and each looks
    for a task under the lock."""
    cond = threading.Condition()

    def work(worker):
        while True:
            with cond:
                while True:
                    if search.stop[0] != 0 or plan.finished:
                        cond.notify_all()
                        return
                    found = plan.next_job()
                    if found is not None:
                        break
                    cond.wait(0.5)
            key, task, budget = found
            try:
                value, exact = job_value(search, worker, plan.split, task, budget)
            except BaseException:
                with cond:
                    plan.dropped(key)
                    cond.notify_all()
                raise
            with cond:
                plan.done(key, value, exact, budget)
                cond.notify_all()

    search.on_threads(work)


def _dask_run(pegs: int, colours: int, workers: int, split_above: int | None = None):
    """``(run, wall, cpu)`` of the game on a fresh local cluster of ``workers``
    single-thread processes (started before the clock; each compiles nothing, the
    kernels are in the on-disk cache, loaded by each worker before the clock); ``cpu``
    is the CPU seconds of the worker processes together (the work the run did);
    ``split_above`` as :func:`optimal_run`'s (None: its default on a cluster)."""
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        client.run(partial(optimal_run, 3, 4, workers=1))  # every worker loads its kernels
        before = client.run(time.process_time)
        run, wall, _ = _timed(lambda: optimal_run(pegs, colours, client=client,
                                                  split_above=split_above))
        after = client.run(time.process_time)
        return run, wall, sum(after[w] - before[w] for w in after)


def simulate(pegs: int, colours: int, threads: int, split_above: int | None = None,
             window: int | None = WINDOW, class_above: int | None = CLASS_ABOVE,
             child_window: int | None = CHILD_WINDOW, spare: int = SPARE,
             twins: bool = True, driver: str = "handoff", acquire_us: float = 0.0,
             early_start: bool = EARLY_START) -> dict:
    """The run of ``threads`` threads replayed in virtual time on this one thread.

    The real :class:`~jitgames.mastermind.optimal_run.RunPlan` hands out the tasks and
    takes their results, exactly as :func:`optimal_run` drives it, but every task is
    searched here at once, on the search state of the virtual thread that took it, and
    its thread-CPU seconds ``d`` become its virtual duration: its result reaches the
    plan only at virtual time ``start + d``, after the results of every task that
    finishes earlier. The plan's own bookkeeping (``next_job``, ``done``, listing a
    split job's candidates) runs under one lock in the real drivers, so here it takes
    its measured seconds on one virtual lock. What it returns:

    - ``makespan``: the virtual wall seconds of the run on ``threads`` free cores (a
      prediction: memory and turbo effects of a real machine are not in it);
    - ``work``: the tasks' seconds summed (the CPU the run spends searching);
    - ``driver``: the bookkeeping's seconds (serial, on the lock), ``holds`` of the lock;
    - ``busy``: ``work / makespan``, the threads with a task on average, and
      ``busy_by_tenth``: the same in each tenth of the makespan;
    - ``kinds``: the work by kind of task (whole jobs, whole candidates, classes by
      stage, see :func:`~jitgames.mastermind.optimal_run.child_node`);
    - ``tasks``, ``total``, ``guess``.

    ``split_above`` None: :func:`default_split_above` with several threads, no split
    on one (as :func:`optimal_run`); ``window``, ``child_window``, ``class_above``,
    ``spare``, ``twins``, ``early_start``: the plan's settings
    (:class:`~jitgames.mastermind.optimal_run.RunPlan`). ``driver``: how the threads
    take tasks after a result: ``handoff`` (the thread that records it takes a task
    for itself and for each idle thread: the driver of ``optimal_run`` now), ``herd``
    (every idle thread wakes and looks for a task itself, each a separate hold of the
    lock: the driver before, 2026-11-27). ``acquire_us``: microseconds added to every
    hold of the lock (taking it, and the GIL, from another core; 0: not modelled).
    """
    split = root_split(pegs, colours)
    space = split.space
    _, matrix = load_game(pegs, colours)
    if split_above is None and threads > 1:
        split_above = default_split_above(space.size)
    search = OptimalSearch(space, matrix, None, workers=threads)
    lister = OptimalSearch(space, matrix, None, workers=1, cache_slots=1024)
    expand = ((lambda j: child_node(lister, split, j, class_above)) if split_above is not None
              else None)
    plan = RunPlan(split, expand, split_above, window=window, child_window=child_window,
                   bounds=job_bounds(split, lister), spare=spare,
                   twins=twins, early_start=early_start)  # as optimal_run
    if driver not in ("handoff", "herd"):
        raise ValueError(f"unknown driver {driver!r}")
    driver_kind, acquire = driver, acquire_us * 1e-6
    events, idle = [], list(range(threads))  # (finish, order, thread, key, result, budget)
    lock = driver = work = 0.0
    holds = 0  # holds of the lock
    kinds: dict[str, float] = {}  # work by kind of task
    spans = []  # (start, end) of every task
    order = 0

    def locked(call, at):
        """``call()`` on the lock, wanted at virtual time ``at``: its result and end
        (``acquire`` seconds more for taking the lock)."""
        nonlocal lock, driver, holds
        holds += 1
        begin = time.thread_time()
        result = call()
        spent = time.thread_time() - begin + acquire
        driver += spent
        lock = max(lock, at) + spent
        return result, lock

    def start(thread, found, at):
        """Search the task ``found`` on ``thread`` now; its result is due at ``at`` + its
        seconds."""
        nonlocal work, order
        key, task, budget = found
        begin = time.thread_time()
        value, exact = job_value(search, thread, split, task, budget)
        spent = time.thread_time() - begin
        work += spent
        kind = ("job" if task[1] < 0 else "candidate" if task[2] is None else
                f"classes, stage {plan.root.children[key[0]].stage[key[1]]}")
        kinds[kind] = kinds.get(kind, 0.0) + spent
        order += 1
        spans.append((at, at + spent))
        heapq.heappush(events, (at + spent, order, thread, key, (value, exact), budget))

    def next_for_herd():
        return plan.next_job() if not plan.finished else None

    def hand_out(at):
        """The idle threads take tasks, as the driver has them do after a result."""
        if driver_kind == "herd":  # each wakes, takes the lock, looks for a task
            for thread in list(idle):
                found, end = locked(next_for_herd, at)
                if found is not None:
                    idle.remove(thread)
                    start(thread, found, end)
            return
        while idle:  # one thread takes a task for each idle one
            found, at = locked(plan.next_job, at)
            if found is None:
                locked(lambda: plan.finished, at)
                return
            start(idle.pop(), found, at)

    now = 0.0
    hand_out(now)
    while events:
        finish, _, thread, key, (value, exact), budget = heapq.heappop(events)
        _, now = locked(lambda: plan.done(key, value, exact, budget), finish)
        idle.append(thread)
        hand_out(now)
    if not plan.finished:
        raise RuntimeError("the simulated run stopped before the plan was settled")
    return {"makespan": now, "work": work, "driver": driver, "holds": holds,
            "busy": work / now if now else 0.0, "tasks": plan.tasks_run, "kinds": kinds,
            "busy_by_tenth": _busy_by_tenth(spans, now),
            "total": plan.best, "guess": space.format(int(split.guesses[plan.best_guess]))}


def _plan_options(text: str) -> dict:
    """simulate()'s keywords of a ``--plan`` setting."""
    if text == "default":
        return {}
    options = {}
    for item in text.split(","):
        key, value = item.split("=")
        if key not in ("window", "child_window", "class_above", "split_above", "spare",
                       "twins", "driver", "acquire_us", "early_start"):
            raise SystemExit(f"--plan: unknown setting {key!r}")
        options[key] = (value if key == "driver" else float(value) if key == "acquire_us"
                        else None if value == "none"
                        else bool(int(value)) if key in ("twins", "early_start")
                        else int(value))
    return options


def _simulations(args) -> int:
    """``--simulate``: every plan setting and thread count replayed, one thread's run
    (root jobs only, as :func:`optimal_run` does on one thread) first in each round."""
    simulate(3, 5, 2, split_above=0)  # compile the kernel that lists candidates
    result = {"machine": machine(), "argv": sys.argv[1:], "simulated": True, "sizes": {}}
    for size_text in args.sizes.split(","):
        pegs, colours = _size(size_text)
        runs: dict[str, list] = {}
        for repeat in range(args.repeats):
            cases = [("1 thread", 1, {})] + [(f"{plan}, {p} threads", p, _plan_options(plan))
                                             for plan in args.plan for p in args.simulate]
            for name, threads, options in cases:
                sim = simulate(pegs, colours, threads, **options)
                runs.setdefault(name, []).append(sim)
                print(f"{size_text} {name} run {repeat + 1}: total {sim['total']}, "
                      f"makespan {sim['makespan']:.2f} s, work {sim['work']:.2f} s, "
                      f"driver {sim['driver']:.2f} s in {sim['holds']} holds, "
                      f"{sim['tasks']} tasks, "
                      f"{sim['busy']:.1f} threads busy, by tenth {sim['busy_by_tenth']}",
                      flush=True)
        if len({(sim["total"], sim["guess"]) for rs in runs.values() for sim in rs}) != 1:
            raise SystemExit(f"{size_text}: the runs disagree")
        one = runs["1 thread"]
        base_span = statistics.median(sim["makespan"] for sim in one)
        base_work = statistics.median(sim["work"] for sim in one)
        summary = {}
        for name, rs in runs.items():
            span = statistics.median(sim["makespan"] for sim in rs)
            work = statistics.median(sim["work"] for sim in rs)
            summary[name] = {"makespan": span, "work": work,
                             "predicted_speedup": base_span / span,
                             "work_ratio": work / base_work}
        result["sizes"][size_text] = {"total": one[0]["total"], "runs": runs,
                                      "summary": summary}
        for name, row in summary.items():
            print(f"{size_text} {name}: predicted speed-up {row['predicted_speedup']:.2f}, "
                  f"work over one thread's {row['work_ratio']:.2f}", flush=True)
    save_result(ROOT / "bench" / "results" / args.out, result)
    return 0


def _busy_by_tenth(spans, end: float) -> list[float]:
    """Threads with a task on average in each tenth of ``[0, end]``."""
    tenths = [0.0] * 10
    for start, stop in spans:
        for i in range(10):
            low, high = end * i / 10, end * (i + 1) / 10
            tenths[i] += max(0.0, min(stop, high) - max(start, low))
    return [round(t / (end / 10), 2) if end else 0.0 for t in tenths]


if __name__ == "__main__":
    sys.exit(main())
