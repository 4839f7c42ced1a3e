"""Command line: ``python -m jitgames.mastermind {evaluate,tournament,tree,optimal,best,worst,play,match,stats}``.

``evaluate`` prints total, mean, worst case and distribution of one strategy over all
secrets (``--json``: one object with ``total``, ``mean``, ``max``, ``distribution``;
``--shrink`` adds the mean shrink factor of the consistent set at each guess), or
checks a strategy tree read from a file (``--tree FILE``); ``tournament`` runs several
strategies over several sizes in one table; ``tree`` prints or exports a strategy's
decision tree (``--out FILE``: the JSON document of ``docs/mastermind_optimal.md``);
``optimal`` computes the optimal total of a large game as a resumable run of
independent jobs (``--checkpoint``, ``--scheduler``); ``best`` builds a strong strategy
tree for a game too large to solve exactly (rollouts and entropy above a set size, the
exact search below; ``--lower-bound`` proves a bound of the optimum); ``play`` and
``match`` are the games for people; ``stats`` shows the player statistics kept in SQLite;
``worst`` decides the least worst case with its proof (``--checkpoint`` resumes).
"""
from __future__ import annotations

import re
import sys

import numpy as np

from .. import _chunked, _cli, _store
from .._jit import threads
from .codes import DEFAULT_MATRIX_BYTES, code_space

__all__ = ["main"]

PROG = "python -m jitgames.mastermind"
LARGE = 20_000  # code spaces at least this big are evaluated in chunks (progress, Ctrl-C)
CHUNKS = 4  # each chunk re-decides the nodes above it, so few chunks
MAX_SEED = 2**62  # seeds (plus --seeds or --rounds) must stay within the int64 of the kernels
MAX_SEEDS = 100_000


def _size_arguments(parser, pegs=4, colours=6):
    parser.add_argument("--pegs", "-p", type=_cli.int_in_range(1, 14), default=pegs,
                        help=f"code length (default {pegs})")
    parser.add_argument("--colours", "--colors", "-k", type=_cli.int_in_range(1, 35),
                        default=colours, help=f"number of colours (default {colours})")
    parser.add_argument("--no-repeats", action="store_true",
                        help="codes and guesses without repeated digits (Bulls and Cows)")
    parser.add_argument("--max-matrix-bytes", type=_cli.positive_int,
                        default=DEFAULT_MATRIX_BYTES,
                        help="largest response matrix to build; above it feedback is "
                             "computed on the fly (default 2 GiB)")


def _common_arguments(parser):
    _cli.add_json(parser)
    _cli.add_quiet(parser)
    _cli.add_threads(parser)


def _max_guesses_argument(parser):
    parser.add_argument("--max-guesses", type=_cli.int_in_range(1, 62), default=None,
                        metavar="N", help="optimal strategies: no secret may need more than "
                                          "N guesses (the least total under that limit)")


def _strategy_argument(parser, default="knuth"):
    from .evaluate import strategy_names
    parser.add_argument("--strategy", "-s", default=default, choices=strategy_names(),
                        metavar="NAME", help=f"one of {', '.join(strategy_names())} "
                                             f"(default {default})")
    _cli.add_seed(parser, MAX_SEED, 0, "seed of the random strategies")


def _variant_arguments(parser):
    """``--first`` and ``--ties``: options of the scored strategies."""
    parser.add_argument("--first", default=None, metavar="GUESS",
                        help="fix the opening guess (e.g. 1122), to reproduce published "
                             "tables that fix it; scored strategies only")
    parser.add_argument("--ties", choices=("first", "random"), default="first",
                        help="tie rule among equally scored guesses: first = a consistent "
                             "code, then the smallest (canonical, default); random = Knuth's "
                             "text, 'a code of P_{i-1} if possible, else at random', drawn "
                             "from --seed (knuth, expected-size, most-parts)")


STRATEGY_NOTES = (
    "strategies: cooley is Cooley's rule as written -- the consistent code least like "
    "the previous guess -- but every consistent code gives the previous guess the same "
    "answer, so it reduces to a random consistent code after a one-pair opening; "
    "minimax is exact: fewest guesses in the worst case, then fewest in total "
    "(docs/mastermind.md).")


def build_parser() -> _cli.ArgumentParser:
    parser = _cli.ArgumentParser(
        prog=PROG, description="Mastermind: evaluate codebreaking strategies over every "
                               "secret, compute optimal strategies, play against the computer "
                               "(docs/mastermind.md; shared options: docs/cli.md).")
    sub = parser.add_subparsers(dest="command", required=True)

    ev = sub.add_parser("evaluate", help="one strategy over all secrets", epilog=STRATEGY_NOTES)
    _size_arguments(ev)
    _strategy_argument(ev)
    _variant_arguments(ev)
    ev.add_argument("--shrink", action="store_true",
                    help="also report, at each guess number, the mean factor by which the "
                         "consistent set shrinks (the text: 'about 4 times per guess'), "
                         "arithmetic and geometric, over the secrets that make that guess")
    ev.add_argument("--seeds", type=_cli.int_in_range(1, MAX_SEEDS), default=1,
                    help="run seeds SEED..SEED+N-1 and pool them (random strategies; "
                         f"at most {MAX_SEEDS:,})")
    _max_guesses_argument(ev)
    ev.add_argument("--tree", metavar="FILE", default=None,
                    help="check the strategy tree in FILE (written by tree --out) with an "
                         "independent walk and report it, instead of a strategy")
    _common_arguments(ev)
    _chunked.add_chunk_arguments(ev, None)

    to = sub.add_parser("tournament", help="strategies side by side over several sizes")
    to.add_argument("--sizes", default="3x3,3x4,4x4,4x6",
                    help="comma-separated PxK sizes, e.g. 4x6,5x8 (default 3x3,3x4,4x4,4x6)")
    to.add_argument("--strategies", default=None,
                    help="comma-separated names (default: all)")
    to.add_argument("--no-repeats", action="store_true",
                    help="codes and guesses without repeated digits (Bulls and Cows)")
    _cli.add_seed(to, MAX_SEED, 0, "seed of the random strategies")
    to.add_argument("--max-matrix-bytes", type=_cli.positive_int, default=DEFAULT_MATRIX_BYTES,
                    help="largest response matrix to build; above it feedback is computed "
                         "on the fly (default 2 GiB)")
    _common_arguments(to)

    tr = sub.add_parser("tree", help="print or export a strategy's decision tree",
                        epilog=STRATEGY_NOTES)
    _size_arguments(tr)
    _strategy_argument(tr)
    _variant_arguments(tr)
    tr.add_argument("--depth", type=_cli.nonnegative_int, default=None,
                    help="print only nodes up to this depth")
    _max_guesses_argument(tr)
    tr.add_argument("--out", metavar="FILE", default=None,
                    help="write the tree as a JSON document to FILE "
                         "(format in docs/mastermind_optimal.md)")
    _common_arguments(tr)

    op = sub.add_parser("optimal", help="the optimal total of a large game, as a resumable run "
                                        "of independent jobs (docs/mastermind_optimal.md)")
    _size_arguments(op)
    _max_guesses_argument(op)
    _common_arguments(op)
    group = op.add_argument_group("long runs")
    group.add_argument("--scheduler", type=_chunked.scheduler_address, metavar="ADDRESS",
                       help="run the jobs on a Dask cluster: tcp://HOST:PORT of a running "
                            "scheduler, or local:W for W worker processes on this machine")
    _cli.add_checkpoint(group)
    op.add_argument("--out", metavar="FILE", default=None,
                    help="also write the optimal strategy's tree to FILE once the total is "
                         "known (gzip if it ends in .gz; checked by evaluate --tree); a "
                         "finished checkpoint makes this a search of the best guess only")

    be = sub.add_parser("best", help="a strong strategy tree for a game too large to solve "
                                     "exactly: rollouts above a set size, the exact search "
                                     "below it (docs/mastermind_optimal.md)")
    _size_arguments(be)
    be.add_argument("--exact-below", type=_cli.nonnegative_int, default=30, metavar="M",
                    help="solve sets of at most M codes exactly (default 30)")
    be.add_argument("--top", type=_cli.int_in_range(0, 64), default=3,
                    help="guesses tried per score by a rollout (0: the entropy guess "
                         "alone; default 3)")
    be.add_argument("--rollout-above", type=_cli.nonnegative_int, default=0, metavar="M",
                    help="roll out only at sets of more than M codes; smaller ones take "
                         "the entropy guess (default 0)")
    be.add_argument("--first", default=None, metavar="GUESS",
                    help="fix the first guess (e.g. 11223)")
    be.add_argument("--lower-bound", action="store_true",
                    help="also prove a lower bound of the optimum (root partition "
                         "bound, docs/mastermind_optimal.md)")
    be.add_argument("--out", metavar="FILE", default=None,
                    help="write the tree as a JSON document to FILE (gzip if it ends "
                         "in .gz)")
    _common_arguments(be)
    _cli.add_checkpoint(be)

    wo = sub.add_parser("worst", help="the least worst case (fewest guesses that solve "
                                      "every secret), decided with its proof "
                                      "(docs/mastermind.md)")
    _size_arguments(wo)
    wo.add_argument("--at-most", type=_cli.int_in_range(1, 62), default=None, metavar="N",
                    help="stop after deciding whether N guesses suffice (bounds only)")
    wo.add_argument("--max-sets", type=_cli.int_in_range(0, None), default=None,
                    metavar="N", help="stop (resumable, like Ctrl-C) after N sets searched "
                                      "below the root")
    wo.add_argument("--out", metavar="FILE", default=None,
                    help="write the strategy tree found as a JSON document to FILE (gzip "
                         "if it ends in .gz), checked by evaluate --tree")
    _cli.add_json(wo)
    _cli.add_quiet(wo)
    _cli.add_checkpoint(wo)

    from .play import add_play_arguments
    add_play_arguments(sub, _size_arguments)
    return parser


def _evaluate_in_chunks(args, seed):
    """Evaluate ``args.strategy`` as a chunked job over the secret indices.

    Small spaces are one chunk, large ones ``CHUNKS`` (each chunk re-decides the
    nodes above it, so few chunks) unless ``--chunk-size`` says otherwise; chunks run
    here or on a Dask cluster (``--scheduler``) and are kept in ``--checkpoint``.
    Returns ``(evaluation, complete)``; Ctrl-C keeps the finished chunks.
    """
    from .. import __version__
    from .evaluate import Evaluation, evaluate_validate, evaluate_worker
    from .codes import load_game

    repeats = not args.no_repeats
    space, _ = load_game(args.pegs, args.colours, repeats, args.max_matrix_bytes)
    size = args.chunk_size or (space.size if space.size < LARGE else -(-space.size // CHUNKS))
    params = {"strategy": args.strategy, "pegs": args.pegs, "colours": args.colours,
              "repeats": repeats, "seed": seed, "max_matrix_bytes": args.max_matrix_bytes,
              "max_guesses": args.max_guesses,
              "chunk_size": size, "version": __version__, "ties": args.ties,
              "first": args.first}
    job = _chunked.ChunkedJob("mastermind.evaluate", params,
                              tuple(_chunked.split_range(0, space.size, size)), evaluate_worker,
                              evaluate_validate)
    with _chunked.open_client(args.scheduler) as client:
        run = _chunked.run_chunks(job, client=client, checkpoint=args.checkpoint,
                                  quiet=args.quiet, desc=f"{args.strategy} {args.pegs}x{args.colours}")
    if not run.partials:
        raise KeyboardInterrupt
    secrets = np.concatenate([np.arange(a, b) for a, b in run.chunks_done])
    guesses = np.concatenate([np.asarray(p, dtype=np.int32) for p in run.partials])
    first = None if args.first is None else space.format(space.parse(args.first))
    result = Evaluation(args.strategy, args.pegs, args.colours, repeats, seed, secrets, guesses,
                        args.ties, first)
    if run.interrupted:
        print(f"{_cli.display_name(PROG)}: interrupted; partial result over {len(secrets)} "
              f"of {space.size} secrets", file=sys.stderr)
    return result, not run.interrupted


def _pooled(evaluations):
    """Total, mean, max and distribution pooled over several evaluations (seeds)."""
    guesses = np.concatenate([e.guesses for e in evaluations])
    values, counts = np.unique(guesses, return_counts=True)
    return {"total": int(guesses.sum()), "mean": float(guesses.mean()),
            "max": int(guesses.max()),
            "distribution": {str(int(v)): int(c) for v, c in zip(values, counts)}}


def _format_distribution(distribution: dict) -> str:
    return ", ".join(f"{k}: {v}" for k, v in distribution.items())


def _gunzip_limited(data: bytes, path, limit: int) -> bytes:
    """The gzip stream ``data`` decompressed, refused (one line) past ``limit`` bytes."""
    import zlib

    unpack = zlib.decompressobj(wbits=31)
    try:
        out = unpack.decompress(data, limit + 1)
    except zlib.error as exc:
        raise _cli.InputError(f"{path} is not a readable gzip file: {exc}") from None
    if len(out) > limit or unpack.unconsumed_tail:
        raise _cli.InputError(f"{path}: more than {limit:,} bytes once decompressed, the "
                              f"most read")
    return out


def _cmd_check_tree(args):
    """``evaluate --tree FILE``: the tree's figures, recomputed by :func:`.tree.check_tree`."""
    from .tree import check_tree

    from .._store import load_json, read_limited
    from .tree import TREE_FILE_LIMIT

    data = read_limited(args.tree, "tree file", TREE_FILE_LIMIT)  # regular, bounded
    if data[:2] == b"\x1f\x8b":  # gzip (the committed trees are compressed)
        data = _gunzip_limited(data, args.tree, TREE_FILE_LIMIT)
    try:
        doc = load_json(data, "tree file")
    except ValueError as exc:
        raise _cli.InputError(f"{args.tree} is not a JSON document: {exc}") from None
    check = check_tree(doc)
    guesses = np.array(list(check.guesses.values()), dtype=np.int64)
    worst = int(guesses.max())
    if args.max_guesses is not None and worst > args.max_guesses:
        raise _cli.InputError(f"the tree needs {worst} guesses for some secret, more than "
                              f"--max-guesses {args.max_guesses}")
    values, counts = np.unique(guesses, return_counts=True)
    out = {"tree": args.tree, "strategy": check.strategy, "pegs": check.pegs,
           "colours": check.colours, "repeats": check.repeats, "secrets": int(guesses.size),
           "total": check.total, "mean": check.total / guesses.size, "max": worst,
           "distribution": {str(int(v)): int(c) for v, c in zip(values, counts)},
           "verified": True}
    rep = "" if check.repeats else ", no repeats"
    text = [f"tree {args.tree} ({check.strategy or 'strategy not named'}) on {check.pegs} pegs "
            f"x {check.colours} colours{rep}: verified, every one of {guesses.size} secrets "
            f"solved",
            f"total {out['total']}  mean {out['mean']:.4f}  max {worst}",
            f"distribution (guesses: secrets) {_format_distribution(out['distribution'])}"]
    return _cli.emit(args, out, text)


def _cmd_evaluate(args):
    if args.tree is not None:
        return _cmd_check_tree(args)
    repeats = not args.no_repeats
    results, complete = [], True
    if args.checkpoint is not None and args.seeds > 1:
        raise _cli.InputError("--checkpoint keeps one seed's run; drop --seeds or the checkpoint")
    for seed in range(args.seed, args.seed + args.seeds):
        try:
            result, complete = _evaluate_in_chunks(args, seed)
        except KeyboardInterrupt:
            if not results:
                raise
            print(f"{_cli.display_name(PROG)}: interrupted; pooled result over the "
                  f"{len(results)} finished seeds", file=sys.stderr)
            complete = False
            break
        results.append(result)
        if not complete:
            break
    out = results[0].to_dict()
    if args.seeds > 1:
        out.update(_pooled(results))
        out["seeds"] = len(results)
        out["seed_means"] = [r.mean for r in results]
    rep = "" if repeats else ", no repeats"
    options = ("" if args.ties == "first" else ", random ties") + (
        "" if args.first is None else f", opening {out['first']}")
    text = [f"{args.strategy} on {args.pegs} pegs x {args.colours} colours{rep}{options}: "
            f"{out['secrets']} secrets" + (f" x {len(results)} seeds" if args.seeds > 1 else ""),
            f"total {out['total']}  mean {out['mean']:.4f}  max {out['max']}",
            f"distribution (guesses: secrets) {_format_distribution(out['distribution'])}"]
    if args.shrink and complete:
        out["shrink"] = _shrink(args, [r.seed for r in results])
        text += _format_shrink(out["shrink"], out)
    return _cli.emit(args, out, text, complete, note=None)  # said above


def _shrink(args, seeds):
    """The shrink table of ``args.strategy`` over the trees of ``seeds`` (pooled)."""
    from .evaluate import strategy_tree
    from .codes import load_game
    from .shrink import pool_sums, shrink_sums, shrink_table

    repeats = not args.no_repeats
    _, matrix = load_game(args.pegs, args.colours, repeats, args.max_matrix_bytes)
    sums = []
    for seed in seeds:
        tree = strategy_tree(args.strategy, args.pegs, args.colours, repeats, seed,
                             args.max_matrix_bytes, ties=args.ties, first=args.first)
        sums.append(shrink_sums(tree, matrix))
    return shrink_table(pool_sums(sums))


def _format_shrink(rows, out) -> list[str]:
    over_six = sum(v for k, v in out["distribution"].items() if int(k) > 6)
    overall = out["secrets"] ** (1 / out["mean"]) if out["mean"] else None
    lines = ["shrink of the consistent set |P(i-1)| / |P(i)| at guess i "
             "(mean over the secrets that make guess i):",
             f"{'guess':>7}{'secrets':>9}{'mean':>9}{'geometric':>11}"]
    lines += [f"{r['guess']:>7}{r['secrets']:>9}{r['mean_factor']:>9.2f}"
              f"{r['geometric_factor']:>11.2f}" for r in rows]
    if overall is not None:
        lines.append(f"all guesses: geometric mean factor {overall:.2f} "
                     f"(= codes ** (1 / mean guesses)); games needing more than six "
                     f"guesses: {over_six}")
    return lines


def _parse_sizes(text):
    """``[(pegs, colours), ...]`` of ``--sizes`` (``4x6,5x8``), each size checked."""
    sizes = []
    for item in text.split(","):
        match = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", item)
        if match is None:
            raise _cli.InputError(f"a size is written PxK like 4x6, got {item.strip()!r}")
        p, k = int(match[1]), int(match[2])
        code_space(p, k, True)  # InputError for a size out of range
        sizes.append((p, k))
    return sizes


def _cmd_tournament(args):
    from .evaluate import evaluate, strategy_names

    names = strategy_names() if args.strategies is None else [
        s.strip() for s in args.strategies.split(",")]
    for n in names:
        if n not in strategy_names():
            raise _cli.InputError(f"unknown strategy {n!r}; choose from {', '.join(strategy_names())}")
    sizes = _parse_sizes(args.sizes)
    repeats = not args.no_repeats
    table, complete = {}, True
    bar = _cli.progress(len(names) * len(sizes), "tournament", args.quiet)
    try:
        for p, k in sizes:
            for n in names:
                e = evaluate(n, p, k, repeats, args.seed, None, args.max_matrix_bytes)
                table.setdefault(n, {})[f"{p}x{k}"] = {"total": e.total, "mean": e.mean,
                                                       "max": e.max}
                bar.update(1)
    except KeyboardInterrupt:
        complete = False  # the cells computed so far are shown
    finally:
        bar.close()
    labels = [f"{p}x{k}" for p, k in sizes]
    width = max(len(n) for n in names) + 2
    text = ["strategy".ljust(width) + "".join(f"{s:>22}" for s in labels)]
    for n in names:
        cells = []
        for s in labels:
            r = table.get(n, {}).get(s)
            cells.append(f"{r['total']:>8} {r['mean']:7.4f} ({r['max']})" if r else "-")
        text.append(n.ljust(width) + "".join(f"{c:>22}" for c in cells))
    text.append("cells: total guesses, mean, (worst case) over all secrets")
    return _cli.emit(args, {"sizes": labels, "repeats": repeats, "seed": args.seed,
                            "results": table}, text, complete)


def _cmd_tree(args):
    from .evaluate import strategy_tree

    if args.out is not None:
        _store.check_writable(args.out)
    tree = strategy_tree(args.strategy, args.pegs, args.colours, not args.no_repeats,
                         args.seed, args.max_matrix_bytes, args.max_guesses, ties=args.ties,
                         first=args.first)
    if args.out is not None:
        _store.atomic_write_text(args.out, tree.to_json(args.strategy, args.max_guesses) + "\n")
        if not args.quiet:
            print(f"{_cli.display_name(PROG)}: tree of {tree.nodes} nodes written to "
                  f"{args.out}", file=sys.stderr)
    if args.json:
        return _cli.emit(args, tree.to_document(args.strategy, args.max_guesses))
    if args.out is None:
        print(tree.render(args.depth))
    return 0


def _cmd_optimal(args):
    """``optimal``: the least total guesses, as jobs split at the root (resumable)."""
    from .optimal_run import optimal_run
    from .tree import write_document

    repeats = not args.no_repeats
    if args.out is not None:
        _store.check_writable(args.out)
    with _cli.progress(0, f"optimal {args.pegs}x{args.colours}", args.quiet,
                       unit="job") as bar, _chunked.open_client(args.scheduler) as client:
        def show(plan):
            bar.total = plan.split.jobs
            bar.n = len(plan.known)
            lower, upper = plan.bounds()
            if lower == upper and args.out is not None:
                bar.set_postfix_str(f"total {lower}; searching the best guess's classes "
                                    "again for the tree")
            else:
                bar.set_postfix_str(f"{lower}..{upper if upper is not None else '?'}")

        run = optimal_run(args.pegs, args.colours, repeats, args.max_guesses,
                          checkpoint=args.checkpoint, client=client,
                          max_matrix_bytes=args.max_matrix_bytes, progress=show,
                          tree=args.out is not None)
    out = run.to_dict()
    out["scheduler"] = args.scheduler
    unwritten = None
    if run.tree is not None:
        doc = run.tree.to_document("optimal", args.max_guesses)
        doc["optimal"] = {"first_guess": run.guess, "lower_bound": run.lower,
                          "upper_bound": run.upper, "jobs": run.jobs}
        try:
            write_document(args.out, doc)
            out["out"] = args.out
        except (OSError, _store.StoreError) as exc:  # the result is still printed
            unwritten = f"the tree could not be written to {args.out}: {exc}"
            out["out_error"] = unwritten
    rep = "" if repeats else ", no repeats"
    limit = "" if args.max_guesses is None else f", at most {args.max_guesses} guesses"
    head = f"optimal on {args.pegs} pegs x {args.colours} colours{rep}{limit}: {run.codes} codes"
    if run.total is not None:
        text = [head, f"total {run.total}  mean {run.total / run.codes:.4f}  "
                      f"first guess {run.guess}"]
    else:
        upper = "?" if run.upper is None else run.upper
        text = [head, f"not finished: the total lies in [{run.lower}, {upper}]"]
    text.append(f"jobs: {run.jobs_exact} exact, {run.jobs_cut} cut at their budget, "
                f"{run.jobs_resumed} from the checkpoint, of {run.jobs}; {run.seconds:.1f} s"
                + (f"; {run.tasks_resumed} tasks of split jobs read back" if run.tasks_resumed
                   else ""))
    if run.tree is not None and unwritten is None:
        text.append(f"tree of {run.tree.nodes} nodes written to {args.out}")
    note = None if run.complete else (
        f"{_cli.display_name(PROG)}: interrupted; "
        + ("nothing is kept (--checkpoint FILE keeps finished work)" if args.checkpoint is None
           else f"finished jobs and tasks are kept in {args.checkpoint} (and "
                f"{args.checkpoint}.tasks); the same command resumes"))
    status = _cli.emit(args, out, text, run.complete, note=note)
    if unwritten is not None:
        print(f"{_cli.display_name(PROG)}: error: {unwritten}", file=sys.stderr)
        return 2
    return status


def _cmd_best(args):
    """``best``: the rollout strategy tree (:mod:`.best_strategy`), its total and bound."""
    import time

    from .best_strategy import build_best, lower_bound, write_tree
    from .codes import load_game

    if args.out is not None:
        _store.check_writable(args.out)
    space, matrix = load_game(args.pegs, args.colours, not args.no_repeats,
                              args.max_matrix_bytes)
    first = None if args.first is None else space.parse(args.first)
    say = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    result = build_best(space, matrix, args.exact_below, args.top, args.rollout_above,
                        first, args.checkpoint, say)
    if args.out is not None:
        write_tree(args.out, result)
    out = {"pegs": args.pegs, "colours": args.colours, "repeats": not args.no_repeats,
           "codes": space.size, "total": result.total, "mean": result.total / space.size,
           "max": int(result.tree.guesses(matrix=matrix).max()),
           "first_guess": space.format(int(result.tree.table[0, 0])),
           "settings": result.settings, "seconds": round(result.seconds, 1),
           "out": args.out}
    text = [f"best strategy on {args.pegs} pegs x {args.colours} colours: total "
            f"{result.total}  mean {out['mean']:.4f}  max {out['max']}  first guess "
            f"{out['first_guess']}  ({result.seconds:.1f} s; an upper bound of the optimum)"]
    if args.lower_bound:
        started = time.perf_counter()
        bound, per_guess = lower_bound(space, matrix)
        out["lower_bound"], out["lower_bound_by_first_guess"] = bound, per_guess
        text.append(f"proven lower bound of the optimum: {bound} "
                    f"({time.perf_counter() - started:.1f} s)")
    return _cli.emit(args, out, text)


def _cmd_worst(args):
    """``worst``: the least worst case, by refuting depths (:mod:`.worst_case`)."""
    from .codes import load_game
    from .worst_case import decide_worst_case, write_worst_tree

    if args.out is not None:
        _store.check_writable(args.out)
    space, matrix = load_game(args.pegs, args.colours, not args.no_repeats,
                              args.max_matrix_bytes)
    say = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    result = decide_worst_case(space, matrix, args.checkpoint, say, args.at_most,
                               budget=args.max_sets)
    if args.out is not None and result.tree is not None:
        write_worst_tree(args.out, result)
    out = result.to_dict()
    out["repeats"], out["out"] = not args.no_repeats, args.out
    rep = "" if space.repeats else ", no repeats"
    text = [f"worst case on {args.pegs} pegs x {args.colours} colours{rep}: {space.size} "
            f"codes (counting bound {result.counting_bound})"]
    if result.complete:
        tree = out["tree"]
        text.append(f"worst case {result.upper}: no strategy solves every secret within "
                    f"{result.lower - 1} (every first guess refuted), a strategy within "
                    f"{result.upper} opens with {result.first_guess} ({result.upper_strategy}; "
                    f"tree of {tree['nodes']} nodes, total {tree['total']})")
    else:
        upper = "?" if result.upper is None else result.upper
        text.append(f"not decided: the worst case lies in [{result.lower}, {upper}]")
    text.append(f"{result.nodes} sets searched, {result.cpu_seconds:.1f} CPU s")
    stopped = args.at_most is not None and result.lower > args.at_most
    complete = result.complete or stopped
    note = None if complete else (
        f"{_cli.display_name(PROG)}: interrupted"
        + ("" if args.checkpoint is None else f"; the work done is kept in "
                                             f"{args.checkpoint}, the same command resumes"))
    if note is not None:
        print(note, file=sys.stderr)
    return _cli.emit(args, out, text, complete, note=None)


def _body(argv):
    args = build_parser().parse_args(argv)
    if hasattr(args, "pegs") and args.command != "play":  # play's model checks its sizes
        code_space(args.pegs, args.colours, not args.no_repeats)  # checks the size
    commands = {"evaluate": _cmd_evaluate, "tournament": _cmd_tournament, "tree": _cmd_tree,
                "optimal": _cmd_optimal, "best": _cmd_best, "worst": _cmd_worst}
    from .play import COMMANDS
    commands.update(COMMANDS)
    with threads(getattr(args, "threads", None)):
        return commands[args.command](args)


def main(argv=None) -> int:
    """Entry point; returns the exit status."""
    return _cli.run_cli(_body, argv, prog=PROG)


if __name__ == "__main__":
    _cli.exit_process(main())
