"""The study: exact, mergeable statistics of the optimal score over many deals.

A study of deals ``[0, N)`` of a seed is computed chunk by chunk:
:func:`study_chunk` solves deals ``[start, stop)`` and returns a
:class:`StudyPartial` of exact integers; :func:`merge` adds partials (exact,
associative and commutative, so any chunking, order or machine gives the same
statistics); :func:`summarise` turns a partial into everything the command line
prints or emits as JSON. Wall-clock seconds are kept apart from the exact fields and
do not take part in equality.

Statistics choices: the standard deviation is the sample one (divisor n - 1); the
95% interval of the mean is mean +- 1.959964 sd / sqrt(n) (normal approximation,
fine for the thousands of deals a study uses); the win rate's interval is Wilson's
score interval. The casino reading: a deck costs $52, plus $3 to start, and pays $5
a card scored, so the player's net per game is 5 * score - 55 and the break-even
score is 11 cards.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, fields

import numpy as np

from ..errors import InputError
from .deal import deals as make_deals
from .rules import N_CARDS
from .search import N_FIELDS, Scratch, make_scratch, solve_rows
from .table import DEFAULT_CAPACITY, table_bytes

Z95 = 1.959963984540054
DECK_PRICE = 52
START_FEE = 3
PAY_PER_CARD = 5
DEFAULT_PRECISION = 0.1  # cards: the half-width the precision sentence is about
CSV_FIELDS = ("score", "moves", "decisions", "positions")
"""Columns of a per-deal CSV file (``--out``), after the deal's index or number."""


@dataclass(frozen=True)
class StudyPartial:
    """Exact statistics of a set of deals (every field but ``seconds`` is an integer).

    ``histogram[s]`` counts deals of optimal score ``s`` (53 entries). ``moves_sum``
    and ``decisions_sum``, and their sums of squares ``moves_squares`` and
    ``decisions_squares`` (for the standard deviations and intervals), are None in
    score-only mode. ``capacity`` is the slots of
    one thread's table and ``peak_occupancy`` the most entries a deal solved on it
    used; ``grown`` counts the deals that thrashed it and were solved on a larger
    table (see :mod:`.search`), ``largest_capacity`` is the largest table used.
    ``peak_occupancy`` and ``largest_capacity`` are maxima, every other figure a sum.
    ``no_move_deals`` counts deals with no legal move right after the deal;
    ``forced_deals`` (None in score-only mode) deals whose optimal line has no
    decision point, so that every game of them ends with the optimal score.
    """

    deals: int
    score_sum: int
    score_squares: int
    histogram: tuple[int, ...]
    moves_sum: int | None
    decisions_sum: int | None
    positions: int
    capacity: int
    peak_occupancy: int
    lookups: int
    probes: int
    evictions: int
    grown: int
    largest_capacity: int
    no_move_deals: int
    forced_deals: int | None
    moves_squares: int | None
    decisions_squares: int | None
    seconds: float = field(default=0.0, compare=False)

    def to_dict(self) -> dict:
        """JSON-serialisable form (for checkpoints and distributed runs)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["histogram"] = list(self.histogram)
        return out

    @classmethod
    def from_dict(cls, data: dict) -> "StudyPartial":
        data = dict(data)
        data["histogram"] = tuple(int(h) for h in data["histogram"])
        return cls(**data)

    def validate(self, deals: int, capacity: int, score_only: bool) -> None:
        """Raise ValueError unless this is a possible result of ``deals`` deals solved
        on tables of ``capacity`` slots: integers where integers belong, none negative,
        53 histogram bins summing to ``deals``, score sums equal to the histogram's,
        table figures within their bounds (a partial read from a checkpoint)."""
        from .._chunked import check_count, check_counts

        check_count(self.deals, "deals", deals, deals)
        histogram = check_counts(list(self.histogram), "histogram", N_CARDS + 1)
        if sum(histogram) != deals:
            raise ValueError(f"histogram counts {sum(histogram)} deals, not {deals}")
        if check_count(self.score_sum, "score_sum") != sum(s * h for s, h in enumerate(histogram)):
            raise ValueError("score_sum differs from the histogram's")
        if check_count(self.score_squares, "score_squares") != sum(
                s * s * h for s, h in enumerate(histogram)):
            raise ValueError("score_squares differs from the histogram's")
        for name in ("moves_sum", "decisions_sum", "moves_squares", "decisions_squares"):
            if score_only:
                if getattr(self, name) is not None:
                    raise ValueError(f"{name} in a score-only partial")
            else:
                check_count(getattr(self, name), name)
        if not score_only:
            # each deal's figure m is a non-negative integer, so m <= m * m, and the sum of
            # squares is at least the square of the sum spread evenly over the deals
            for total, squares in (("moves_sum", "moves_squares"),
                                   ("decisions_sum", "decisions_squares")):
                s, q = getattr(self, total), getattr(self, squares)
                if q < s or (deals and q * deals < s * s):
                    raise ValueError(f"{squares} cannot be the sum of squares of {total}")
        check_count(self.capacity, "capacity", capacity, capacity)
        check_count(self.peak_occupancy, "peak_occupancy", 0, capacity)
        for name in ("positions", "lookups", "probes", "evictions"):
            check_count(getattr(self, name), name)
        check_count(self.grown, "grown", 0, deals)
        largest = check_count(self.largest_capacity, "largest_capacity", capacity)
        if largest & (largest - 1) or (largest == capacity) != (self.grown == 0):
            raise ValueError("largest_capacity does not match the grown deals")
        if not (isinstance(self.seconds, (int, float)) and 0 <= self.seconds < math.inf):
            raise ValueError(f"seconds is {self.seconds!r}")


def empty_partial(capacity: int = DEFAULT_CAPACITY, score_only: bool = False) -> StudyPartial:
    """The statistics of no deals (the identity of :func:`merge`)."""
    line = None if score_only else 0
    return StudyPartial(0, 0, 0, (0,) * (N_CARDS + 1), line, line, 0, capacity, 0, 0, 0, 0, 0,
                        capacity, 0, line, line, line)


def partial_from_rows(rows: np.ndarray, capacity: int, score_only: bool,
                      seconds: float = 0.0) -> StudyPartial:
    """Statistics of per-deal result rows (see :data:`.search.RESULT_FIELDS`)."""
    scores = rows[:, 0]
    on_thread_table = rows[:, 8] == capacity
    histogram = np.bincount(scores, minlength=N_CARDS + 1)
    return StudyPartial(
        deals=int(rows.shape[0]),
        score_sum=int(scores.sum()),
        score_squares=int((scores * scores).sum()),
        histogram=tuple(int(h) for h in histogram),
        moves_sum=None if score_only else int(rows[:, 1].sum()),
        decisions_sum=None if score_only else int(rows[:, 2].sum()),
        positions=int(rows[:, 3].sum()),
        capacity=int(capacity),
        peak_occupancy=int(rows[on_thread_table, 7].max(initial=0)),
        lookups=int(rows[:, 4].sum()),
        probes=int(rows[:, 5].sum()),
        evictions=int(rows[:, 6].sum()),
        grown=int((~on_thread_table).sum()),
        largest_capacity=int(rows[:, 8].max(initial=capacity)),
        no_move_deals=int((rows[:, 9] == 0).sum()),
        forced_deals=None if score_only else int((rows[:, 2] == 0).sum()),
        moves_squares=None if score_only else int((rows[:, 1] * rows[:, 1]).sum()),
        decisions_squares=None if score_only else int((rows[:, 2] * rows[:, 2]).sum()),
        seconds=seconds,
    )


def merge(a: StudyPartial, b: StudyPartial) -> StudyPartial:
    """Exact sum of two partials (same mode and table capacity).

    Raises
    ------
    InputError
        If one partial is score-only and the other is not, or capacities differ.
    """
    if len({x is None for x in (a.moves_sum, a.forced_deals, a.moves_squares, b.moves_sum,
                                b.forced_deals, b.moves_squares)}) > 1:
        raise InputError("cannot merge a score-only partial with a full one")
    if a.capacity != b.capacity:
        raise InputError(f"cannot merge partials of table capacity {a.capacity} and {b.capacity}")

    def add(x, y):
        return None if x is None else x + y

    return StudyPartial(
        deals=a.deals + b.deals,
        score_sum=a.score_sum + b.score_sum,
        score_squares=a.score_squares + b.score_squares,
        histogram=tuple(x + y for x, y in zip(a.histogram, b.histogram)),
        moves_sum=add(a.moves_sum, b.moves_sum),
        decisions_sum=add(a.decisions_sum, b.decisions_sum),
        positions=a.positions + b.positions,
        capacity=a.capacity,
        peak_occupancy=max(a.peak_occupancy, b.peak_occupancy),
        lookups=a.lookups + b.lookups,
        probes=a.probes + b.probes,
        evictions=a.evictions + b.evictions,
        grown=a.grown + b.grown,
        largest_capacity=max(a.largest_capacity, b.largest_capacity),
        no_move_deals=a.no_move_deals + b.no_move_deals,
        forced_deals=add(a.forced_deals, b.forced_deals),
        moves_squares=add(a.moves_squares, b.moves_squares),
        decisions_squares=add(a.decisions_squares, b.decisions_squares),
        seconds=a.seconds + b.seconds,
    )


def solve_chunk_rows(seed: int, start: int, stop: int, *, shuffle: str = "fisher-yates",
                     score_only: bool = False, scratch: Scratch) -> np.ndarray:
    """Per-deal result rows of deals ``[start, stop)`` of ``seed``."""
    return solve_rows(make_deals(seed, start, stop, shuffle), score_only, scratch)


def study_chunk(seed: int, start: int, stop: int, *, shuffle: str = "fisher-yates",
                table_capacity: int = DEFAULT_CAPACITY, score_only: bool = False,
                scratch: Scratch | None = None) -> StudyPartial:
    """Statistics of deals ``[start, stop)`` of ``seed``.

    ``scratch`` (from :func:`.search.make_scratch`) is reused when given, so a long
    run allocates its tables once; otherwise one worker per thread is allocated.
    """
    import time

    from .._jit import thread_count

    if scratch is None:
        scratch = make_scratch(thread_count(), table_capacity)
    elif scratch.capacity != table_capacity:
        raise InputError(f"scratch tables have {scratch.capacity} slots, not {table_capacity}")
    begin = time.perf_counter()
    rows = solve_chunk_rows(seed, start, stop, shuffle=shuffle, score_only=score_only,
                            scratch=scratch)
    return partial_from_rows(rows, table_capacity, score_only, time.perf_counter() - begin)


_PROCESS_SCRATCH: dict = {}
"""Scratch tables of this process by (threads, capacity): allocated once per process,
reused by every chunk a worker process solves."""


STOP_BLOCK = 1024
"""Deals per kernel call of a chunk, per thread: Ctrl-C is heard between calls (a
fraction of a second) and the deals of the finished calls are kept."""


def study_worker(params: dict, start: int, stop: int) -> dict:
    """Chunked-job worker (see :mod:`jitgames._chunked`) for deals ``[start, stop)``.

    ``params`` holds ``seed``, ``shuffle``, ``score_only``, ``table_capacity`` and
    ``rows`` (true: also return the deals' CSV lines, :func:`csv_lines` with the deal
    indices; some 20 bytes a deal, so 10**8 deals fit in memory). Returns
    ``{"partial": StudyPartial.to_dict(), "rows": str or None}``. The deals are solved
    in blocks of :data:`STOP_BLOCK` a thread; Ctrl-C (the stop flag of
    :mod:`jitgames._interrupt`) raises :class:`jitgames._chunked.PartialChunk` with the
    result of the finished blocks.
    """
    import time

    from .._chunked import PartialChunk
    from .._interrupt import stop_flag
    from .._jit import thread_count

    key = (thread_count(), params["table_capacity"])
    if key not in _PROCESS_SCRATCH:
        _PROCESS_SCRATCH[key] = make_scratch(*key)
    begin = time.perf_counter()
    blocks = []

    def result():
        rows = np.concatenate(blocks) if blocks else np.zeros((0, N_FIELDS), np.int64)
        partial = partial_from_rows(rows, params["table_capacity"], params["score_only"],
                                    time.perf_counter() - begin)
        end = start + rows.shape[0]
        lines = csv_lines(range(start, end), rows) if params["rows"] else None
        return end, {"partial": partial.to_dict(), "rows": lines}

    step = STOP_BLOCK * key[0]
    flag = stop_flag()
    try:
        for a in range(start, stop, step):
            if flag[0]:
                raise KeyboardInterrupt
            blocks.append(solve_chunk_rows(params["seed"], a, min(stop, a + step),
                                           shuffle=params["shuffle"],
                                           score_only=params["score_only"],
                                           scratch=_PROCESS_SCRATCH[key]))
        if flag[0]:
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        end, partial = result()
        if end > start:
            raise PartialChunk(end, partial) from None
        raise
    return result()[1]


def study_validate(params: dict, start: int, stop: int, result) -> None:
    """Raise ValueError unless ``result`` is a well-formed :func:`study_worker` result
    for deals ``[start, stop)`` (a checkpoint's content): a valid partial, and CSV
    lines (when ``params["rows"]``) of exactly those deals agreeing with it."""
    if not isinstance(result, dict) or set(result) != {"partial", "rows"}:
        raise ValueError("not a study result")
    partial = StudyPartial.from_dict(result["partial"])
    partial.validate(stop - start, params["table_capacity"], params["score_only"])
    rows = result["rows"]
    if not params["rows"]:
        if rows is not None:
            raise ValueError("per-deal rows where none were asked for")
        return
    if not isinstance(rows, str) or not all(c in "0123456789,\n" for c in set(rows)):
        raise ValueError("per-deal rows are not lines of integers")
    table = np.fromstring(rows.replace("\n", ","), dtype=np.int64, sep=",") if rows else \
        np.zeros(0, np.int64)
    if not rows.endswith("\n") or rows.count("\n") != stop - start \
            or table.size != 5 * (stop - start) or ",," in rows or "\n," in rows:
        raise ValueError("per-deal rows do not hold one line of 5 numbers a deal")
    table = table.reshape(-1, 5)
    if not np.array_equal(table[:, 0], np.arange(start, stop)):
        raise ValueError("per-deal rows are not the deals of this range")
    if tuple(np.bincount(table[:, 1], minlength=N_CARDS + 1)) != partial.histogram:
        raise ValueError("per-deal scores disagree with the histogram")
    sums = table[:, 2:].sum(axis=0).tolist()
    if (not params["score_only"] and sums[:2] != [partial.moves_sum, partial.decisions_sum]) \
            or sums[2] != partial.positions:
        raise ValueError("per-deal moves, decisions or positions disagree with the sums")


def csv_lines(labels, rows: np.ndarray) -> str:
    """One CSV line ``label,score,moves,decisions,positions`` per result row
    (``rows``: n x N_FIELDS, :data:`.search.RESULT_FIELDS` order), each ending in a newline."""
    return "".join(f"{label},{r[0]},{r[1]},{r[2]},{r[3]}\n" for label, r in zip(labels, rows.tolist()))


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (``(0, 1)`` when n = 0)."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def deals_needed(sd: float, precision: float, z: float = Z95) -> int:
    """Deals needed for a 95% interval of the mean of half-width ``precision``."""
    return max(2, math.ceil((z * sd / precision) ** 2))


def _fraction(count: int, n: int) -> dict:
    """``count`` of ``n`` deals as a JSON-ready dict with the Wilson 95% interval."""
    return {"deals": count, "rate": count / n if n else None,
            "ci95": list(wilson_interval(count, n)) if n else None}


def mean_sd_half(total: int, squares: int, n: int) -> tuple[float, float, float]:
    """Mean, sample standard deviation and the 95% interval's half-width of ``n``
    integers whose sum is ``total`` and sum of squares ``squares`` (NaN where
    undefined). The variance is computed exactly in integers, then divided: at 10**8
    deals the sums reach 10**11, past where float rounding would lose digits."""
    if n == 0:
        return float("nan"), float("nan"), float("nan")
    if n == 1:
        return total / n, float("nan"), float("nan")
    # (n * squares - total**2) / (n * (n - 1)) is the sample variance, exact numerator
    sd = math.sqrt(max(n * squares - total * total, 0) / (n * (n - 1)))
    return total / n, sd, Z95 * sd / math.sqrt(n)


def _line_figure(total, squares, n) -> dict | None:
    """Mean, sd and 95% interval of a per-deal line figure (None in score-only mode)."""
    if total is None or not n:
        return None
    mean, sd, half = mean_sd_half(total, squares, n)
    return {"mean": mean, "sd": sd if n > 1 else None,
            "ci95": [mean - half, mean + half] if n > 1 else None}


def summarise(partial: StudyPartial, precision: float = DEFAULT_PRECISION) -> dict:
    """Everything the study reports, as a JSON-ready dict (no timing; the CLI adds it)."""
    n = partial.deals
    mean, sd, half = mean_sd_half(partial.score_sum, partial.score_squares, n)
    wins = partial.histogram[N_CARDS]
    win_low, win_high = wilson_interval(wins, n)
    needed = deals_needed(sd, precision) if n > 1 else None
    net = PAY_PER_CARD * mean - DECK_PRICE - START_FEE
    full = partial.moves_sum is not None
    forced = partial.forced_deals
    return {
        "deals": n,
        "mean": mean,
        "sd": sd,
        "ci95": [mean - half, mean + half],
        "ci95_half_width": half,
        "precision": precision,
        "deals_needed_for_precision": needed,
        "enough_for_precision": bool(needed is not None and n >= needed),
        "wins": wins,
        "win_rate": wins / n if n else float("nan"),
        "win_rate_ci95": [win_low, win_high],
        "histogram": {str(s): c for s, c in enumerate(partial.histogram)},
        "mean_moves": partial.moves_sum / n if full and n else None,
        "mean_decisions": partial.decisions_sum / n if full and n else None,
        "moves": _line_figure(partial.moves_sum, partial.moves_squares, n),
        "decisions": _line_figure(partial.decisions_sum, partial.decisions_squares, n),
        "no_move_at_deal": _fraction(partial.no_move_deals, n),
        "score_fixed_by_deal": _fraction(forced, n) if forced is not None else None,
        "score_only": not full,
        "positions": partial.positions,
        "mean_positions": partial.positions / n if n else float("nan"),
        "table": {
            "capacity": partial.capacity,
            "bytes": table_bytes(partial.capacity),
            "peak_occupancy": partial.peak_occupancy,
            "lookups": partial.lookups,
            "probes_per_lookup": partial.probes / partial.lookups if partial.lookups else 0.0,
            "evictions": partial.evictions,
            "grown_deals": partial.grown,
            "largest_capacity": partial.largest_capacity,
            "largest_bytes": table_bytes(partial.largest_capacity),
        },
        "casino": {
            "deck_price": DECK_PRICE,
            "start_fee": START_FEE,
            "pay_per_card": PAY_PER_CARD,
            "expected_net": net,
            "expected_net_ci95": [PAY_PER_CARD * (mean - half) - DECK_PRICE - START_FEE,
                                  PAY_PER_CARD * (mean + half) - DECK_PRICE - START_FEE],
            "break_even_score": math.ceil((DECK_PRICE + START_FEE) / PAY_PER_CARD),
        },
    }
