"""Studies of many deals under a rule set of :mod:`.family` (Yukon, Alaska, or the
étude's rules through the family's search).

A chunk's result (a *partial*) is three histograms over the scores 0..52: of the
decided deals' optimal scores, of the undecided deals' lower bounds (the best score
their search saw before a limit, see :mod:`.family_search`) and of their proven upper
bounds, with the positions searched. Partials merge by addition, so a study does not depend on the
chunk size, the thread count or the machines.

The summary never counts an undecided deal as lost unless the search proved it (its
proven upper bound, a third histogram, below 52): the win rate is reported with its
Wilson 95% interval over all deals counting undecided deals as not won, and the
interval's upper end widened by the undecided deals not proven lost (the rate if
every one were won); the mean optimal score likewise as a lower bound (undecided
deals at their lower bound) and an upper bound (at their proven upper bound),
besides the mean over decided deals.
"""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .._chunked import PartialChunk, check_count
from .deal import deals
from .family import RULE_NAMES
from .family_search import (DEFAULT_NODE_LIMIT, N_FIELDS, UNDECIDED, FamilyScratch,
                            solve_family_rows)
from .study import wilson_interval

BLOCK = 64
"""Deals a thread takes at a time (a slow deal holds up only its own thread)."""


def capacity_for(node_limit: int) -> int:
    """Slots of a set that holds ``node_limit`` positions below its 3/4 fill limit."""
    capacity = 16
    while 3 * capacity < 4 * (node_limit + 2):
        capacity *= 2
    return capacity


_SCRATCH: dict = {}
"""Per-process scratch, by (thread, capacity), reused by every chunk: one study at a
time per process (as the étude's study); a game (:mod:`.family_play`) has its own."""


def _scratch(w: int, capacity: int) -> FamilyScratch:
    key = (w, capacity)
    if key not in _SCRATCH:
        _SCRATCH[key] = FamilyScratch.new(capacity)
    return _SCRATCH[key]


def solve_many(decks: np.ndarray, rules: int, node_limit: int = DEFAULT_NODE_LIMIT,
               workers: int = 1, stop=None) -> np.ndarray:
    """Per-deal rows of :func:`.family_search.solve_family_rows` for validated ``decks``,
    on ``workers`` threads taking blocks of :data:`BLOCK` deals. ``stop`` (a list whose
    first item turns true) ends the work after the blocks under way; the rows of
    blocks never started are then left at -1 in the score column."""
    out = np.zeros((decks.shape[0], N_FIELDS), dtype=np.int64)
    out[:, 0] = -1
    capacity = capacity_for(node_limit)
    starts = iter(range(0, decks.shape[0], BLOCK))
    lock = threading.Lock()

    def work(w: int) -> None:
        while not (stop and stop[0]):
            with lock:
                start = next(starts, None)
            if start is None:
                return
            block = slice(start, start + BLOCK)
            out[block] = solve_family_rows(decks[block], rules, node_limit,
                                           _scratch(w, capacity))

    workers = max(1, min(workers, -(-decks.shape[0] // BLOCK)))
    if workers == 1:
        work(0)
        return out
    with ThreadPoolExecutor(workers) as pool:
        for done in [pool.submit(work, w) for w in range(workers)]:
            done.result()
    return out


HISTOGRAMS = ("decided", "undecided", "undecided_upper")
"""A partial's histograms over the scores 0..52: the decided deals' optimal scores,
the undecided deals' lower bounds (best score seen) and their proven upper bounds."""


def partial_of(rows: np.ndarray) -> dict:
    """The partial of finished rows (score >= 0)."""
    undecided = rows[:, 1] == UNDECIDED
    return {"decided": np.bincount(rows[~undecided, 0], minlength=53).tolist(),
            "undecided": np.bincount(rows[undecided, 0], minlength=53).tolist(),
            "undecided_upper": np.bincount(rows[undecided, 5], minlength=53).tolist(),
            "positions": int(rows[:, 2].sum())}


def merge_partials(a: dict, b: dict) -> dict:
    merged = {name: [x + y for x, y in zip(a[name], b[name])] for name in HISTOGRAMS}
    merged["positions"] = a["positions"] + b["positions"]
    return merged


def empty_partial() -> dict:
    partial = {name: [0] * 53 for name in HISTOGRAMS}
    partial["positions"] = 0
    return partial


def family_worker(params: dict, start: int, stop: int) -> dict:
    """Chunked-job worker: the partial of deals ``[start, stop)`` of ``params["seed"]``
    under ``params["rules"]``; Ctrl-C keeps the finished blocks (PartialChunk)."""
    from .._interrupt import stop_flag
    from .._jit import thread_count

    decks = deals(params["seed"], start, stop, params["shuffle"])
    flag = stop_flag()
    rows = solve_many(decks, RULE_NAMES.index(params["rules"]), params["node_limit"],
                      thread_count(), flag)
    done = rows[:, 0] >= 0
    if not done.all():
        end = start + int(np.argmin(done))  # blocks finish in order of their start
        if end > start and done[:end - start].all():
            raise PartialChunk(end, partial_of(rows[:end - start]))
        raise KeyboardInterrupt
    return partial_of(rows)


def family_validate(params: dict, start: int, stop: int, partial) -> None:
    """Raise ValueError unless ``partial`` is a well-formed partial of ``stop - start`` deals."""
    if not isinstance(partial, dict) or set(partial) != {*HISTOGRAMS, "positions"}:
        raise ValueError("not a family study partial")
    counts = {}
    for name in HISTOGRAMS:
        hist = partial[name]
        if not isinstance(hist, list) or len(hist) != 53:
            raise ValueError(f"{name} is not a histogram of 53 scores")
        counts[name] = sum(check_count(x, name) for x in hist)
    total = counts["decided"] + counts["undecided"]
    if total != stop - start:
        raise ValueError(f"the histograms hold {total} deals, not {stop - start}")
    if counts["undecided_upper"] != counts["undecided"]:
        raise ValueError("the undecided deals' upper bounds are not one a deal")
    check_count(partial["positions"], "positions", total)


def summarise_family(partial: dict, rules: str) -> dict:
    """Win rate and mean optimal score with their intervals (module docstring)."""
    decided = np.array(partial["decided"], dtype=np.int64)
    undecided = np.array(partial["undecided"], dtype=np.int64)
    upper = np.array(partial["undecided_upper"], dtype=np.int64)
    scores = np.arange(53)
    n_decided, n_undecided = int(decided.sum()), int(undecided.sum())
    n = n_decided + n_undecided
    wins = int(decided[52])
    open_wins = int(upper[52])      # undecided deals that no proven bound keeps from 52
    summary = {"rules": rules, "deals": n, "decided": n_decided, "undecided": n_undecided,
               "win_undecided": open_wins, "wins": wins, "positions": partial["positions"],
               "histogram": {str(s): int(decided[s]) for s in range(53)},
               "undecided_lower_bounds": {str(s): int(undecided[s]) for s in range(53)},
               "undecided_upper_bounds": {str(s): int(upper[s]) for s in range(53)}}
    if n == 0:
        summary.update(win_rate=None, win_rate_ci95=None, mean_lower=None, mean_upper=None,
                       mean_decided=None, sd_decided=None, mean_ci95=None)
        return summary
    low, high = wilson_interval(wins, n)
    high_all = wilson_interval(wins + open_wins, n)[1]
    decided_sum = int((decided * scores).sum())
    summary.update(win_rate=wins / n, win_rate_ci95=[low, high_all],
                   win_rate_ci95_if_undecided_lost=[low, high],
                   mean_lower=(decided_sum + int((undecided * scores).sum())) / n,
                   mean_upper=(decided_sum + int((upper * scores).sum())) / n)
    if n_decided:
        mean = float((decided * scores).sum() / n_decided)
        var = float((decided * (scores - mean) ** 2).sum() / max(n_decided - 1, 1))
        half = 1.959963984540054 * (var / n_decided) ** 0.5 if n_decided > 1 else None
        summary.update(mean_decided=mean, sd_decided=var ** 0.5,
                       mean_ci95=[mean - half, mean + half] if half is not None else None)
    else:
        summary.update(mean_decided=None, sd_decided=None, mean_ci95=None)
    return summary


def format_family(s: dict) -> str:
    """The summary of :func:`summarise_family` as text."""
    n = s["deals"]
    lines = [f"Optimal score under {s['rules']} rules over {n:,} deals "
             f"(seed {s.get('seed')}, node limit {s.get('node_limit'):,} positions a deal)"]
    if n == 0:
        return lines[0] + ": no deal finished."
    wl, wh = s["win_rate_ci95"]
    lines.append(f"  wins (52 cards): {s['wins']:,} = {100 * s['win_rate']:.3f}% "
                 f"(95% [{100 * wl:.3f}%, {100 * wh:.3f}%], undecided deals counted either way)")
    lines.append(f"  undecided (search limit): {s['undecided']:,} = {100 * s['undecided'] / n:.3f}%, "
                 f"of which {s['win_undecided']:,} = {100 * s['win_undecided'] / n:.3f}% may be "
                 f"won (the others proven lost)")
    if s["mean_decided"] is not None:
        ci = s["mean_ci95"]
        ci_text = f", 95% [{ci[0]:.4f}, {ci[1]:.4f}]" if ci else ""
        lines.append(f"  mean optimal score of the decided deals {s['mean_decided']:.4f} cards"
                     f"{ci_text}; over all deals between {s['mean_lower']:.4f} and "
                     f"{s['mean_upper']:.4f}")
    lines.append("  score distribution (decided deals; undecided at their lower bound):")
    top = max(max(s["histogram"].values()), 1)
    for score in range(53):
        count, low = s["histogram"][str(score)], s["undecided_lower_bounds"][str(score)]
        if count or low:
            bar = "#" * max(1, round(40 * count / top)) if count else ""
            more = f"  (+{low:,} undecided)" if low else ""
            lines.append(f"    {score:2d} {count:9,d} {100 * count / n:7.3f}% {bar}{more}")
    if s.get("seconds"):
        rate, resumed = s.get("deals_per_second"), s.get("resumed_deals", 0)
        speed = f"{rate:,.0f} deals/s, " if rate else ""
        if resumed:  # the rate is of the deals this run solved
            speed = f"{resumed:,} deals read back, {speed}"
        lines.append(f"  {s['seconds']:.2f} s wall on {s['threads']} thread(s), {speed}"
                     f"{s['positions'] / n:,.0f} positions a deal")
    return "\n".join(lines)
