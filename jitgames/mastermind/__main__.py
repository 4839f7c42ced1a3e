"""Command line: ``python -m jitgames.mastermind {evaluate,tournament,tree,play,match,stats}``.

``evaluate`` prints total, mean, worst case and distribution of one strategy over all
secrets (``--json``: one object with ``total``, ``mean``, ``max``, ``distribution``),
or checks a strategy tree read from a file (``--tree FILE``); ``tournament`` runs
several strategies over several sizes in one table; ``tree`` prints or exports a
strategy's decision tree (``--out FILE``: the JSON document of
``docs/mastermind_optimal.md``); ``play`` and ``match`` are the games
for people; ``stats`` shows the player statistics kept in SQLite.
"""
from __future__ import annotations

import sys

import numpy as np

from .. import _chunked, _cli
from .._jit import threads
from .codes import DEFAULT_MATRIX_BYTES, MemoryLimitError, code_space

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
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    parser.add_argument("--threads", type=_cli.positive_int, default=None,
                        help="threads for the kernels (default: all)")


def _max_guesses_argument(parser):
    parser.add_argument("--max-guesses", type=_cli.int_in_range(1, 62), default=None,
                        metavar="N", help="optimal strategies: no secret may need more than "
                                          "N guesses (the least total under that limit)")


def _strategy_argument(parser, default="knuth"):
    from .evaluate import strategy_names
    parser.add_argument("--strategy", "-s", default=default, choices=strategy_names(),
                        metavar="NAME", help=f"one of {', '.join(strategy_names())} "
                                             f"(default {default})")
    parser.add_argument("--seed", type=_cli.int_in_range(0, MAX_SEED), default=0,
                        help="seed of the random strategies (0..2^62, default 0)")


def _build_parser():
    parser = _cli.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    ev = sub.add_parser("evaluate", help="one strategy over all secrets")
    _size_arguments(ev)
    _strategy_argument(ev)
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
    to.add_argument("--no-repeats", action="store_true")
    to.add_argument("--seed", type=_cli.int_in_range(0, MAX_SEED), default=0,
                    help="seed of the random strategies (0..2^62, default 0)")
    to.add_argument("--max-matrix-bytes", type=_cli.positive_int, default=DEFAULT_MATRIX_BYTES)
    _common_arguments(to)

    tr = sub.add_parser("tree", help="print or export a strategy's decision tree")
    _size_arguments(tr)
    _strategy_argument(tr)
    tr.add_argument("--depth", type=_cli.nonnegative_int, default=None,
                    help="print only nodes up to this depth")
    _max_guesses_argument(tr)
    tr.add_argument("--out", metavar="FILE", default=None,
                    help="write the tree as a JSON document to FILE "
                         "(format in docs/mastermind_optimal.md)")
    _common_arguments(tr)

    from .play import add_play_arguments
    add_play_arguments(sub, _size_arguments, _strategy_argument)
    return parser


def _evaluate_in_chunks(args, seed):
    """Evaluate ``args.strategy`` as a chunked job over the secret indices.

    Small spaces are one chunk, large ones ``CHUNKS`` (each chunk re-decides the
    nodes above it, so few chunks) unless ``--chunk-size`` says otherwise; chunks run
    here or on a Dask cluster (``--scheduler``) and are kept in ``--checkpoint``.
    Returns ``(evaluation, complete)``; Ctrl-C keeps the finished chunks.
    """
    from .. import __version__
    from .evaluate import Evaluation, evaluate_worker, load_game

    repeats = not args.no_repeats
    space, _ = load_game(args.pegs, args.colours, repeats, args.max_matrix_bytes)
    size = args.chunk_size or (space.size if space.size < LARGE else -(-space.size // CHUNKS))
    params = {"strategy": args.strategy, "pegs": args.pegs, "colours": args.colours,
              "repeats": repeats, "seed": seed, "max_matrix_bytes": args.max_matrix_bytes,
              "max_guesses": args.max_guesses,
              "chunk_size": size, "version": __version__}
    job = _chunked.ChunkedJob("mastermind.evaluate", params,
                              tuple(_chunked.split_range(0, space.size, size)), evaluate_worker)
    with _chunked.open_client(args.scheduler) as client:
        run = _chunked.run_chunks(job, client=client, checkpoint=args.checkpoint,
                                  quiet=args.quiet, desc=f"{args.strategy} {args.pegs}x{args.colours}")
    if not run.partials:
        raise KeyboardInterrupt
    secrets = np.concatenate([np.arange(a, b) for a, b in run.chunks_done])
    guesses = np.concatenate([np.asarray(p, dtype=np.int32) for p in run.partials])
    result = Evaluation(args.strategy, args.pegs, args.colours, repeats, seed, secrets, guesses)
    if run.interrupted:
        print(f"{PROG}: interrupted; partial result over {len(secrets)} of {space.size} secrets",
              file=sys.stderr)
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


def _cmd_check_tree(args):
    """``evaluate --tree FILE``: the tree's figures, recomputed by :func:`.tree.check_tree`."""
    import json

    from .tree import check_tree

    try:
        with open(args.tree, encoding="utf-8") as handle:
            doc = json.load(handle)
    except OSError as exc:
        raise _cli.CLIError(f"cannot read {args.tree}: {exc.strerror or exc}") from None
    except (ValueError, RecursionError) as exc:
        raise _cli.CLIError(f"{args.tree} is not a JSON document: {exc}") from None
    check = check_tree(doc)
    guesses = np.array(list(check.guesses.values()), dtype=np.int64)
    worst = int(guesses.max())
    if args.max_guesses is not None and worst > args.max_guesses:
        raise _cli.CLIError(f"the tree needs {worst} guesses for some secret, more than "
                            f"--max-guesses {args.max_guesses}")
    values, counts = np.unique(guesses, return_counts=True)
    out = {"tree": args.tree, "strategy": check.strategy, "pegs": check.pegs,
           "colours": check.colours, "repeats": check.repeats, "secrets": int(guesses.size),
           "total": check.total, "mean": check.total / guesses.size, "max": worst,
           "distribution": {str(int(v)): int(c) for v, c in zip(values, counts)},
           "verified": True, "complete": True}
    if args.json:
        _cli.print_json(out)
        return 0
    rep = "" if check.repeats else ", no repeats"
    print(f"tree {args.tree} ({check.strategy or 'strategy not named'}) on {check.pegs} pegs x "
          f"{check.colours} colours{rep}: verified, every one of {guesses.size} secrets solved")
    print(f"total {out['total']}  mean {out['mean']:.4f}  max {worst}")
    print(f"distribution (guesses: secrets) {_format_distribution(out['distribution'])}")
    return 0


def _cmd_evaluate(args):
    if args.tree is not None:
        return _cmd_check_tree(args)
    repeats = not args.no_repeats
    results, complete = [], True
    if args.checkpoint is not None and args.seeds > 1:
        raise _cli.CLIError("--checkpoint keeps one seed's run; drop --seeds or the checkpoint")
    for seed in range(args.seed, args.seed + args.seeds):
        try:
            result, complete = _evaluate_in_chunks(args, seed)
        except KeyboardInterrupt:
            if not results:
                raise
            print(f"{PROG}: interrupted; pooled result over the {len(results)} finished seeds",
                  file=sys.stderr)
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
    out["complete"] = complete
    if args.json:
        _cli.print_json(out)
        return 0
    rep = "" if repeats else ", no repeats"
    print(f"{args.strategy} on {args.pegs} pegs x {args.colours} colours{rep}: "
          f"{out['secrets']} secrets" + (f" x {len(results)} seeds" if args.seeds > 1 else ""))
    print(f"total {out['total']}  mean {out['mean']:.4f}  max {out['max']}")
    print(f"distribution (guesses: secrets) {_format_distribution(out['distribution'])}")
    return 0


def _parse_sizes(text):
    sizes = []
    for item in text.split(","):
        try:
            p, k = (int(x) for x in item.lower().strip().split("x"))
        except ValueError:
            raise _cli.CLIError(f"a size is written PxK like 4x6, got {item.strip()!r}") from None
        sizes.append((p, k))
    return sizes


def _cmd_tournament(args):
    from .evaluate import evaluate, strategy_names

    names = strategy_names() if args.strategies is None else [
        s.strip() for s in args.strategies.split(",")]
    for n in names:
        if n not in strategy_names():
            raise _cli.CLIError(f"unknown strategy {n!r}; choose from {', '.join(strategy_names())}")
    sizes = _parse_sizes(args.sizes)
    repeats = not args.no_repeats
    table = {}
    bar = _cli.progress(len(names) * len(sizes), "tournament", args.quiet)
    try:
        for p, k in sizes:
            for n in names:
                e = evaluate(n, p, k, repeats, args.seed, None, args.max_matrix_bytes)
                table.setdefault(n, {})[f"{p}x{k}"] = {"total": e.total, "mean": e.mean,
                                                       "max": e.max}
                bar.update(1)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted; showing what was computed", file=sys.stderr)
    finally:
        bar.close()
    labels = [f"{p}x{k}" for p, k in sizes]
    if args.json:
        _cli.print_json({"sizes": labels, "repeats": repeats, "seed": args.seed,
                         "results": table})
        return 0
    width = max(len(n) for n in names) + 2
    print("strategy".ljust(width) + "".join(f"{s:>22}" for s in labels))
    for n in names:
        cells = []
        for s in labels:
            r = table.get(n, {}).get(s)
            cells.append(f"{r['total']:>8} {r['mean']:7.4f} ({r['max']})" if r else "-")
        print(n.ljust(width) + "".join(f"{c:>22}" for c in cells))
    print("cells: total guesses, mean, (worst case) over all secrets")
    return 0


def _cmd_tree(args):
    from .evaluate import strategy_tree

    if args.out is not None:
        _cli.check_writable(args.out)
    tree = strategy_tree(args.strategy, args.pegs, args.colours, not args.no_repeats,
                         args.seed, args.max_matrix_bytes, args.max_guesses)
    if args.out is not None:
        _cli.atomic_write_text(args.out, tree.to_json(args.strategy, args.max_guesses) + "\n")
        if not args.quiet:
            print(f"{PROG}: tree of {tree.nodes} nodes written to {args.out}", file=sys.stderr)
    if args.json:
        print(tree.to_json(args.strategy, args.max_guesses))
    elif args.out is None:
        print(tree.render(args.depth))
    return 0


def _body(argv):
    args = _build_parser().parse_args(argv)
    if hasattr(args, "pegs"):
        try:
            code_space(args.pegs, args.colours, not args.no_repeats)
        except MemoryLimitError as exc:
            raise _cli.CLIError(str(exc)) from None
        except ValueError as exc:
            raise _cli.CLIError(str(exc)) from None
    commands = {"evaluate": _cmd_evaluate, "tournament": _cmd_tournament, "tree": _cmd_tree}
    from .play import COMMANDS
    commands.update(COMMANDS)
    try:
        with threads(getattr(args, "threads", None)):
            return commands[args.command](args)
    except MemoryLimitError as exc:
        raise _cli.CLIError(str(exc)) from None
    except ValueError as exc:
        raise _cli.CLIError(str(exc)) from None


def main(argv=None) -> int:
    """Entry point; returns the exit status."""
    return _cli.run_cli(_body, argv, prog=PROG)


if __name__ == "__main__":
    sys.exit(main())
