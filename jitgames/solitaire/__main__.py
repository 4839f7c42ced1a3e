"""Command line: ``python -m jitgames.solitaire N`` and friends.

    python -m jitgames.solitaire N [--seed S] [--threads T] [--json] [--out FILE] [--plot FILE.png]
    python -m jitgames.solitaire --show SEED INDEX [--board]   replay one deal's optimal line
    python -m jitgames.solitaire --deal-file FILE [--out results.csv]
    python -m jitgames.solitaire play [SEED INDEX | --deal-file FILE [--line K]] [--name NAME] [--db FILE]
    python -m jitgames.solitaire stats [--db FILE] [--json]    the players' results
    python -m jitgames.solitaire N --bias                chi-square test of both shuffles
    python -m jitgames.solitaire N --rules yukon|alaska  the same under another rule set

The study runs deals ``[0, N)`` in chunks through :mod:`jitgames._chunked`: in this
process, or on a Dask cluster with ``--scheduler``, resumable with ``--checkpoint``;
the statistics are merged exactly in chunk order, so they do not depend on the
backend, the chunk size or the number of workers. Ctrl-C stops after the chunks
finished so far and reports them.
"""
from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from pathlib import Path

import numpy as np

from .._cli import (ArgumentParser, add_json, add_quiet, add_seed, add_threads,
                    display_name, emit, exit_process, float_in_range, int_in_range,
                    positive_int, run_cli)
from ..errors import InputError
from .._chunked import ChunkedJob, add_chunk_arguments, open_client, run_chunks, split_range
from .._jit import thread_count, threads
from .._store import atomic_write_text, check_writable
from .._warmup import compile_target, helper_compiling, stop as stop_helper
from .compare import compare, verdict_line
from .deal import SHUFFLES, deals, read_deal_file, shuffle_bias
from .family import RULE_NAMES
from .family_search import DEFAULT_NODE_LIMIT
from .rules import card_name, draw_position
from .search import make_scratch, solve_rows
from .study import (CSV_FIELDS, DEFAULT_PRECISION, StudyPartial, csv_lines, empty_partial, merge,
                    partial_from_rows, study_validate, study_worker, summarise)
from .table import DEFAULT_CAPACITY, validate_capacity
from .warm_up import STUDY_PLAN

PROG = "python -m jitgames.solitaire"
DEFAULT_CHUNK = 16384
"""Deals per chunk: about 2 s of work on 2 threads. The threads wait for each other at
the end of a chunk (some 20 ms); with 4,096 that cost 3% of the 100,000-deal study."""
MAX_DEALS = 10**10
"""Largest N of a study (about nine days of full-mode solving on this 2-core machine)."""
MAX_CHUNK = 1 << 20
"""Largest chunk (a chunk's deals and results are in memory at once: ~0.5 KiB a deal)."""
MAX_CHUNKS = 10**6
"""Most chunks of one study (each costs a little bookkeeping and checkpoint space)."""
MAX_BIAS_SHUFFLES = 10**8
"""Largest N of ``--bias`` (about 25 s; the test's counting cannot be interrupted)."""
uint64 = int_in_range(0, 2**64 - 1)
"""Argument type of seeds and deal indices: unsigned 64-bit integers (the shuffle's
stream key)."""


def _capacity(text: str) -> int:
    """argparse type of ``--table-capacity`` (the table's own check, as an argparse error)."""
    import argparse
    try:
        return validate_capacity(positive_int(text))
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


MIN_PRECISION = 1e-4
"""Smallest ``--precision`` in cards: it already asks for some 10^10 deals."""
_precision = float_in_range(MIN_PRECISION, 52, f"a number of cards from {MIN_PRECISION:g} to 52")


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(prog=PROG, description=(
        "Exact optimal score of solitaire deals (rules: docs/design.md) and statistics over "
        "N random deals; shared options and number forms: docs/cli.md."))
    parser.add_argument("deals", nargs="?", type=int_in_range(1, MAX_DEALS), metavar="N",
                        help="number of random deals to study (deals 0..N-1 of the seed; "
                             "at most 10^10)")
    add_seed(parser)
    add_threads(parser)
    parser.add_argument("--shuffle", choices=SHUFFLES, default="fisher-yates",
                        help="shuffle used to deal (default fisher-yates)")
    parser.add_argument("--score-only", action="store_true",
                        help="only the optimal score (faster; no moves/decisions)")
    parser.add_argument("--table-capacity", type=_capacity, default=DEFAULT_CAPACITY,
                        metavar="SLOTS", help=f"slots per thread's position table "
                                              f"(power of two, default {DEFAULT_CAPACITY}); a "
                                              f"deal that thrashes it is solved again on a "
                                              f"larger one")
    parser.add_argument("--precision", type=_precision, default=DEFAULT_PRECISION,
                        metavar="CARDS", help="half-width of the 95%% interval of the mean the "
                                              f"report checks N against (default {DEFAULT_PRECISION})")
    add_json(parser)
    parser.add_argument("--out", metavar="FILE", help="write per-deal results as CSV")
    parser.add_argument("--plot", metavar="FILE.png",
                        help="draw the score histogram (.png, .pdf, .svg, ...)")
    add_quiet(parser)
    parser.add_argument("--show", nargs=2, type=uint64, metavar=("SEED", "INDEX"),
                        help="print deal INDEX of SEED and its optimal line move by move")
    parser.add_argument("--board", action="store_true",
                        help="with --show: draw the board after each move of the line")
    parser.add_argument("--solution", metavar="FILE",
                        help="with --show (or --deal-file of one deal): write the optimal "
                             "line (under --rules yukon or alaska, the search's line to "
                             "its best score) in the solution notation that `check FILE` "
                             "replays (docs/solitaire.md)")
    parser.add_argument("--deal-file", dest="deal_file", metavar="FILE",
                        help="solve the deals of FILE (52 card ids a line; docs/design.md)")
    # The flag's earlier spelling, kept so existing scripts run; N alone counts deals.
    parser.add_argument("--deals", dest="deal_file", help=argparse.SUPPRESS)
    parser.add_argument("--compare-shuffles", action="store_true",
                        help="study N deals under each shuffle (Fisher-Yates and the text's "
                             "naive one) and the difference of the mean scores")
    parser.add_argument("--bias", action="store_true",
                        help="chi-square test of card positions over N shuffles of each kind")
    parser.add_argument("--rules", choices=RULE_NAMES, default="etude",
                        help="rule set: etude (docs/design.md, the default), yukon (build down "
                             "in alternating colours) or alaska (up or down by suit); "
                             "docs/solitaire.md")
    parser.add_argument("--node-limit", type=int_in_range(1, 10**9), default=DEFAULT_NODE_LIMIT,
                        metavar="POSITIONS",
                        help="with --rules yukon or alaska: positions a deal's search may see "
                             f"before the deal is reported undecided (default {DEFAULT_NODE_LIMIT:,})")
    add_chunk_arguments(parser, DEFAULT_CHUNK)
    return parser


def main(argv=None) -> int:
    return run_cli(_main, argv, prog=PROG)


SUBCOMMANDS = ("play", "stats", "check")
"""Sub-commands, recognised as the first argument (the study keeps its positional N)."""


def _main(argv) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "check":  # the independent checker: no solver code imported
        from .check import check_command
        return check_command(argv[1:])
    if argv and argv[0] in SUBCOMMANDS:
        from . import game_cli
        return getattr(game_cli, f"{argv[0]}_command")(argv[1:])
    args = build_parser().parse_args(argv)
    modes = [args.show is not None, args.deal_file is not None, args.bias, args.compare_shuffles]
    if sum(modes) > 1:
        raise InputError("choose one of --show, --deal-file, --bias and --compare-shuffles")
    if (args.scheduler or args.checkpoint) and (any(modes[:3]) or args.deals is None):
        raise InputError("--scheduler and --checkpoint apply to a study of N deals only")
    if (args.out or args.plot) and (args.show is not None or args.bias):
        raise InputError("--out and --plot apply to a study of N deals or to --deal-file FILE")
    if args.board and args.show is None:
        raise InputError("--board applies to --show SEED INDEX")
    if args.solution is not None and args.show is None and args.deal_file is None:
        raise InputError("--solution applies to --show SEED INDEX or --deal-file FILE")
    if args.solution is not None:
        check_writable(args.solution)
    show, solve_file, study = _show, _solve_file, None
    if args.rules != "etude":
        from .family_cli import family_handlers
        show, solve_file, study = family_handlers(args)
    if args.show is not None:
        return show(args)
    if args.deal_file is not None:
        if args.deals is not None:
            raise InputError("give either N or --deal-file FILE, not both")
        return solve_file(args)
    if args.deals is None:
        raise InputError("give the number of deals N (or --show, --deal-file; see --help)")
    if study is not None:
        return study(args)
    if args.bias:
        return _bias(args)
    if args.compare_shuffles:
        return _compare_shuffles(args)
    return _study(args)


# ----------------------------------------------------------------------------- study

def study_job(args) -> ChunkedJob:
    """The study of ``args`` as a chunked job (deals ``[0, N)`` in chunks of consecutive
    indices); its parameters identify the run in a checkpoint."""
    from .. import __version__

    params = {"seed": args.seed, "deals": args.deals, "shuffle": args.shuffle,
              "score_only": args.score_only, "table_capacity": args.table_capacity,
              "chunk_size": args.chunk_size, "rows": "csv" if args.out is not None else False,
              "partial_fields": "opening moves, squares of the line figures",
              "version": __version__}
    return ChunkedJob("solitaire.study", params,
                      tuple(split_range(0, args.deals, args.chunk_size)), study_worker,
                      study_validate)


def _study(args) -> int:
    n = args.deals
    if args.chunk_size > MAX_CHUNK:
        raise InputError(f"--chunk-size is at most {MAX_CHUNK:,} deals, got {args.chunk_size:,}")
    if -(-n // args.chunk_size) > MAX_CHUNKS:
        raise InputError(f"{n:,} deals in chunks of {args.chunk_size:,} make more than "
                         f"{MAX_CHUNKS:,} chunks; use --chunk-size {-(-n // MAX_CHUNKS):,} or more")
    _check_outputs(args)
    job = study_job(args)
    # On an empty cache a helper process compiles half the kernels beside this one.
    with helper_compiling(STUDY_PLAN) as helper, open_client(args.scheduler) as client, \
            threads(args.threads):
        # Compiles (or loads from the cache) here, so workers on this machine load it.
        compile_seconds = _warm_up(make_scratch(1, args.table_capacity), args.score_only)
        stop_helper(helper)  # it has nothing left to do that is still needed
        begin = time.perf_counter()
        run = run_chunks(job, client=client, checkpoint=args.checkpoint, quiet=args.quiet,
                         desc="deal chunks")
        wall = time.perf_counter() - begin
    partial = empty_partial(args.table_capacity, args.score_only)
    for result in run.partials:
        partial = merge(partial, StudyPartial.from_dict(result["partial"]))
    summary = summarise(partial, args.precision)
    summary.update(seed=args.seed, shuffle=args.shuffle, requested=n,
                   threads=args.threads or thread_count(),
                   scheduler=args.scheduler, resumed_chunks=run.resumed_chunks,
                   resumed_deals=run.resumed_items, seconds=wall,
                   deals_per_second=run.items_per_second(wall),
                   compile_seconds=compile_seconds)
    status = emit(args, summary, format_summary(summary), not run.interrupted,
                  note=f"{display_name(PROG)}: interrupted after {partial.deals} of {n} deals")
    _write_outputs(args, summary, "index", (result["rows"] for result in run.partials),
                   f"seed {args.seed}")
    return status


def _warm_up(scratch, score_only) -> float:
    """Seconds for the first (compiling or cache-loading) call of the kernels: the
    study's kernel first, so that a helper compiles the deal generation meanwhile."""
    begin = time.perf_counter()
    compile_target(STUDY_PLAN)
    solve_rows(deals(0, 0, 1), score_only, scratch)
    return time.perf_counter() - begin


def format_summary(s: dict) -> str:
    """The study report as readable text."""
    n = s["deals"]
    lines = [f"Optimal solitaire score over {n:,} deal{'' if n == 1 else 's'} (seed {s['seed']}, {s['shuffle']} shuffle)"]
    if n == 0:
        return lines[0] + ": no deal finished."
    low, high = s["ci95"]
    if s["deals_needed_for_precision"] is None:  # one deal: no spread, no interval
        lines.append(f"  score {s['mean']:.4f} cards (one deal: sd and interval undefined)")
    else:
        lines.append(f"  mean {s['mean']:.4f} cards, sd {s['sd']:.4f}; "
                     f"95% interval of the mean [{low:.4f}, {high:.4f}]")
        verdict = "enough" if s["enough_for_precision"] else "not enough"
        lines.append(f"  {n:,} deals are {verdict} for a precision of +-{s['precision']:g} "
                     f"cards (that needs {s['deals_needed_for_precision']:,} deals); the "
                     f"interval's half-width is {s['ci95_half_width']:.4f}")
    wl, wh = s["win_rate_ci95"]
    lines.append(f"  wins (52 cards): {s['wins']:,} = {100 * s['win_rate']:.3f}% "
                 f"(Wilson 95% [{100 * wl:.3f}%, {100 * wh:.3f}%])")
    if s["moves"] is not None and s["moves"]["sd"] is not None:
        for label, key in (("moves", "moves"), ("decision points", "decisions")):
            f = s[key]
            lines.append(f"  optimal line, {label}: mean {f['mean']:.4f}, sd {f['sd']:.4f}; "
                         f"95% interval of the mean [{f['ci95'][0]:.4f}, {f['ci95'][1]:.4f}]")
    elif s["mean_moves"] is not None:
        lines.append(f"  optimal line: {s['mean_moves']:.3f} moves, "
                     f"{s['mean_decisions']:.3f} decision points on average")
    none = s["no_move_at_deal"]
    lines.append(f"  no move at all right after the deal: {none['deals']:,} = "
                 f"{100 * none['rate']:.3f}% (Wilson 95% [{100 * none['ci95'][0]:.3f}%, "
                 f"{100 * none['ci95'][1]:.3f}%])")
    fixed = s["score_fixed_by_deal"]
    if fixed is not None:
        lines.append(f"  score fixed by the deal (no decision point): {fixed['deals']:,} = "
                     f"{100 * fixed['rate']:.3f}% (Wilson 95% [{100 * fixed['ci95'][0]:.3f}%, "
                     f"{100 * fixed['ci95'][1]:.3f}%])")
    lines.append("  score distribution:")
    hist = s["histogram"]
    top = max(hist.values())
    for score in range(53):
        count = hist[str(score)]
        if count:
            bar = "#" * max(1, round(40 * count / top))
            lines.append(f"    {score:2d} {count:9,d} {100 * count / n:7.3f}% {bar}")
    t = s["table"]
    lines.append(f"  position table per thread: {t['capacity']:,} slots ({t['bytes'] / 2**20:.1f} MiB), "
                 f"peak occupancy {t['peak_occupancy']:,}, {t['probes_per_lookup']:.2f} probes/lookup, "
                 f"{t['evictions']:,} evictions; {s['mean_positions']:.1f} positions expanded per deal")
    if t["grown_deals"]:
        lines.append(f"  {t['grown_deals']:,} deal(s) thrashed that table and were solved "
                     f"again on a larger one (largest {t['largest_capacity']:,} slots, "
                     f"{t['largest_bytes'] / 2**20:.0f} MiB)")
    rate, resumed = s["deals_per_second"], s.get("resumed_deals", 0)
    lines.append(f"  {s['seconds']:.2f} s wall on {s['threads']} thread(s), "
                 f"{rate:,.0f} deals/s" if rate else f"  {s['seconds']:.2f} s wall")
    if resumed:  # the rate is of the deals this run solved
        lines[-1] += f" ({resumed:,} deals read back from the checkpoint)"
    lines[-1] += f"; compile/load {s['compile_seconds']:.2f} s (separate)"
    c = s["casino"]
    cl, ch = c["expected_net_ci95"]
    interval = f" (95% [{cl:+.2f}, {ch:+.2f}])" if math.isfinite(cl) else ""
    lines.append(f"  casino: deck ${c['deck_price']} + ${c['start_fee']} to start, ${c['pay_per_card']} "
                 f"a card: expected net ${c['expected_net']:+.2f} a game{interval}; "
                 f"break-even at {c['break_even_score']} cards")
    return "\n".join(lines)


def _check_outputs(args) -> None:
    """Fail now, not after a long run, when ``--out`` or ``--plot`` cannot be written."""
    if args.out:
        check_writable(args.out)
    if args.plot:
        from .plotting import check_plot_path
        check_plot_path(args.plot)


def _write_outputs(args, summary, first_column, blocks, source) -> None:
    """Write ``--out`` (CSV blocks of :func:`.study.csv_lines`) and ``--plot`` (the
    histogram of ``summary``, titled with ``source``), after the results are printed."""
    if args.out:
        _write_csv(args.out, first_column, blocks)
    if args.plot and summary["deals"]:
        from .plotting import plot_histogram
        plot_histogram(summary, args.plot, source)


def _write_csv(path, first_column, blocks) -> None:
    """CSV file of per-deal results: a header, then the blocks of :func:`.study.csv_lines`."""
    header = ",".join((first_column,) + CSV_FIELDS) + "\n"
    try:
        atomic_write_text(path, itertools.chain([header], blocks))
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None


# ----------------------------------------------------------------------------- shuffles compared

def _compare_shuffles(args) -> int:
    """The study of N deals under each shuffle, side by side, the differences of the
    compared figures with their 95% intervals, and a verdict that allows for the
    number of figures compared (:mod:`.compare`)."""
    if args.out or args.plot:
        raise InputError("--out and --plot do not apply to --compare-shuffles")
    summaries, interrupted = {}, False
    with open_client(args.scheduler) as client, threads(args.threads):
        _warm_up(make_scratch(1, args.table_capacity), args.score_only)
        for shuffle in SHUFFLES:
            one = replace_args(args, shuffle=shuffle)
            checkpoint = f"{args.checkpoint}.{shuffle}" if args.checkpoint else None
            begin = time.perf_counter()
            run = run_chunks(study_job(one), client=client, checkpoint=checkpoint,
                             quiet=args.quiet, desc=f"{shuffle} chunks")
            partial = empty_partial(args.table_capacity, args.score_only)
            for result in run.partials:
                partial = merge(partial, StudyPartial.from_dict(result["partial"]))
            summaries[shuffle] = summarise(partial, args.precision)
            summaries[shuffle]["seconds"] = time.perf_counter() - begin
            if run.interrupted:
                interrupted = True
                break
    a, b = (summaries.get(k) for k in SHUFFLES)
    comparison = compare(a, b) if a and b else None
    difference = None
    if comparison is not None:
        mean = comparison["tests"][0]
        difference = {"naive_minus_fisher_yates": mean["difference"], "ci95": mean["ci95"],
                      "p_value": mean["p_value"], "significant": mean["different"]}
    report = {"seed": args.seed, "requested": args.deals, "shuffles": summaries,
              "difference_of_means": difference, "comparison": comparison}
    return emit(args, report, format_comparison(report), not interrupted,
                note=f"{display_name(PROG)}: interrupted")


def replace_args(args, **changes):
    """A copy of the ``argparse.Namespace`` ``args`` with ``changes``."""
    return argparse.Namespace(**{**vars(args), **changes})


def format_comparison(report: dict) -> str:
    """The two studies of :func:`_compare_shuffles` side by side, as text."""
    rows = [("deals", lambda s: f"{s['deals']:,}"),
            ("mean score", lambda s: f"{s['mean']:.4f}"),
            ("sd", lambda s: f"{s['sd']:.4f}"),
            ("95% interval of the mean", lambda s: f"[{s['ci95'][0]:.4f}, {s['ci95'][1]:.4f}]"),
            ("wins", lambda s: f"{100 * s['win_rate']:.3f}%"),
            ("no move after the deal", lambda s: f"{100 * s['no_move_at_deal']['rate']:.3f}%"),
            ("no decision point", lambda s: "-" if s["score_fixed_by_deal"] is None
             else f"{100 * s['score_fixed_by_deal']['rate']:.3f}%"),
            ("mean moves of the optimal line", lambda s: "-" if s["mean_moves"] is None
             else f"{s['mean_moves']:.3f}")]
    shuffles = report["shuffles"]
    lines = [f"Optimal score under each shuffle, {report['requested']:,} deals each "
             f"(seed {report['seed']}):",
             f"  {'':32s}" + "".join(f"{k:>24s}" for k in shuffles)]
    for label, cell in rows:
        lines.append(f"  {label:32s}" + "".join(f"{cell(s):>24s}" for s in shuffles.values()
                                                if s["deals"] > 1))
    comparison = report.get("comparison")
    if comparison is not None:
        lines.append("  differences (naive - fisher-yates), 95% intervals, two-sided p:")
        for t in comparison["tests"]:
            if t["unit"] == "cards":
                figures = (f"{t['difference']:+.4f} cards [{t['ci95'][0]:+.4f}, "
                           f"{t['ci95'][1]:+.4f}]")
            else:
                figures = (f"{100 * t['difference']:+.3f} points [{100 * t['ci95'][0]:+.3f}, "
                           f"{100 * t['ci95'][1]:+.3f}]")
            lines.append(f"    {t['figure']:30s}{figures}  p = {t['p_value']:.3g}")
        lines.append(f"  verdict: {verdict_line(comparison)}")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- deal files

def _solve_file(args) -> int:
    decks = read_deal_file(args.deal_file)
    if args.solution is not None and decks.shape[0] != 1:
        raise InputError(f"--solution writes the line of one deal; {args.deal_file} holds "
                         f"{decks.shape[0]} deals")
    _check_outputs(args)
    with threads(args.threads):
        scratch = make_scratch(thread_count(), args.table_capacity)
        begin = time.perf_counter()
        rows = solve_rows(decks, args.score_only, scratch)
        wall = time.perf_counter() - begin
    numbers = np.arange(1, rows.shape[0] + 1).tolist()
    summary = summarise(partial_from_rows(rows, args.table_capacity, args.score_only))
    summary.update(file=str(args.deal_file), seconds=wall,
                   score=rows[:, 0], moves=rows[:, 1], decisions=rows[:, 2], positions=rows[:, 3])
    text = []
    for number, row in zip(numbers, rows.tolist()):
        figures = "" if args.score_only else f", {row[1]} moves, {row[2]} decision points"
        text.append(f"deal {number}: score {row[0]}{figures} ({row[3]} positions)")
    text.append(f"{len(rows)} deals: mean score {summary['mean']:.3f}, "
                f"{summary['wins']} won, {wall:.3f} s")
    if args.solution is not None:
        _write_solution(args, decks[0])
    emit(args, summary, text)
    _write_outputs(args, summary, "deal", [csv_lines(numbers, rows)],
                   f"deals of {Path(args.deal_file).name}")
    return 0


# ----------------------------------------------------------------------------- replay

def _show(args) -> int:
    from . import optimal_line

    seed, index = args.show
    deck = deals(seed, index, index + 1, args.shuffle)[0]
    line = optimal_line(deck, table_capacity=args.table_capacity)
    if args.solution is not None:
        _write_solution(args, deck, line, seed=seed, index=index, shuffle=args.shuffle)
    if args.json:
        return emit(args, {"seed": seed, "index": index, "deck": deck, "score": line.score,
                           "moves": line.moves, "decisions": line.decisions,
                           "line": [_step_text(step) for step in line.steps]})
    print(f"Deal {index} of seed {seed} ({args.shuffle} shuffle); face-down cards in brackets:")
    print(draw_position(line.piles, line.foundations))
    print(f"Optimal score {line.score} cards, reached in {line.moves} moves with "
          f"{line.decisions} decision points:")
    if args.board:
        return _show_boards(deck, line)
    for k, step in enumerate(line.steps, start=1):
        print(f"  {k:2d}. {_step_text(step)}")
    return 0


def _write_solution(args, deck, line=None, **origin) -> None:
    """Write the optimal line of ``deck`` to ``args.solution`` (:mod:`.solution`);
    ``origin``: the seed, index and shuffle of a numbered deal."""
    from . import optimal_line
    from .solution import write_solution

    if line is None:
        line = optimal_line(deck, table_capacity=args.table_capacity)
    figures = (f"optimal line: {line.moves} moves, {line.decisions} decision points "
               f"(the solver's figures; the checker counts the moves itself)")
    write_solution(args.solution, deck, line, comment=figures,
                   rules=args.rules, **origin)


def _show_boards(deck, line) -> int:
    """Each step of ``line`` followed by the board it leaves (face-down cards in
    brackets, colours on a terminal)."""
    from .console import draw_board
    from .rules import FOUNDATION, apply_move, new_position, piles_of

    colour = sys.stdout.isatty()
    pos = new_position(deck)
    print()
    print(draw_board(piles_of(pos), pos[FOUNDATION:FOUNDATION + 4].tolist(), colour, reveal=True))
    for k, step in enumerate(line.steps, start=1):
        apply_move(pos, step.card * 8 + step.pile)
        print()
        print(f"{k:2d}. {_step_text(step)}")
        print(draw_board(piles_of(pos), pos[FOUNDATION:FOUNDATION + 4].tolist(), colour,
                         reveal=True))
    return 0


def _step_text(step) -> str:
    onto = f"onto {card_name(step.onto)}" if step.onto is not None else "into the empty pile"
    carried = f" (and {step.carried - 1} card{'s' if step.carried > 2 else ''} on it)" \
        if step.carried > 1 else ""
    text = f"{card_name(step.card)}{carried} from pile {step.from_pile + 1} {onto} (pile {step.pile + 1})"
    if step.to_foundation:
        text += "; to the foundations: " + " ".join(card_name(c) for c in step.to_foundation)
    if step.choices > 1:
        text += f"   [{step.choices} choices]"
    return text


# ----------------------------------------------------------------------------- shuffle bias

def _bias(args) -> int:
    if not 52 <= args.deals <= MAX_BIAS_SHUFFLES:
        raise InputError(f"--bias needs 52 to {MAX_BIAS_SHUFFLES:,} shuffles, got {args.deals:,}")
    results = [shuffle_bias(args.deals, kind, args.seed) for kind in SHUFFLES]
    if args.json:
        return emit(args, {r.shuffle: {"deals": r.deals, "chi_square": r.statistic,
                                       "dof": r.dof, "p_value": r.p_value,
                                       "worst_cell": list(r.worst)} for r in results})
    print(f"Chi-square test of card positions over {args.deals:,} shuffles "
          f"(52 x 52 cells, {results[0].dof} degrees of freedom):")
    for r in results:
        card, position, ratio = r.worst
        p_text = f"p = {r.p_value:.3g}" if r.p_value > 0 else "p < 1e-300"
        print(f"  {r.shuffle:12s} chi-square {r.statistic:12.1f}  {p_text}  "
              f"worst cell: {card_name(card)} at position {position} seen {ratio:.3f}x as often as uniform")
    return 0


if __name__ == "__main__":
    exit_process(main())
