"""Command line: ``python -m jitgames.kalah {solve,play,tournament} ...``.

- ``solve M N [--variant empty-capture|standard] [--json]``: game value of Kalah(M, N)
  from the opening (South's final margin under perfect play) and one perfect game.
  Endgame databases are kept in ``kalah/`` under the user's data directory
  (``--endgame-dir`` elsewhere, ``--no-endgame-files`` none) and read by later solves.
- ``play``: a person against the computer, or the computer against itself.
- ``stats``: the results of the games people played, by opponent.
- ``tournament``: evaluations and depths against each other; ratings in SQLite.
"""
from __future__ import annotations

import sys
from pathlib import Path

from .._cli import (ArgumentParser, InputError, add_db, add_json, add_quiet, add_threads, emit,
                    exit_process, int_in_range, progress, run_cli)
from .._jit import threads
from .._store import check_writable, data_dir
from .rules import VARIANTS
from .solver import TABLE_BITS

PROG = "python -m jitgames.kalah"


def _add_solve(sub):
    p = sub.add_parser("solve", help="exact game value of Kalah(M, N) and a perfect game")
    p.add_argument("pits", type=int_in_range(1, 6), metavar="M", help="pits a side (1..6)")
    p.add_argument("stones", type=int_in_range(0, 10), metavar="N", help="stones a pit")
    p.add_argument("--variant", choices=list(VARIANTS), default="empty-capture",
                   help="capture rule (default: empty-capture, capture also from an "
                        "empty opposite pit)")
    p.add_argument("--endgame-stones", type=int_in_range(0, 40), default=None, metavar="S",
                   help="endgame database covers positions with at most this many stones "
                        "in play (default: the largest with <= 3 million entries, or "
                        "<= 250 million when more than 30 stones lie beyond that)")
    p.add_argument("--table-bits", type=int_in_range(10, 30), default=None, metavar="BITS",
                   help="transposition table of 2**BITS entries of 16 bytes (default "
                        f"{TABLE_BITS})")
    p.add_argument("--endgame-dir", default=None, metavar="DIR",
                   help="directory where endgame databases are kept between runs "
                        "(default: kalah/ in the user's data directory)")
    p.add_argument("--no-endgame-files", action="store_true",
                   help="build the endgame database in memory; read and write no files")
    add_json(p)
    add_quiet(p)
    add_threads(p)
    p.set_defaults(run=_run_solve)


def _run_solve(args) -> int:
    from .solver import SolveInterrupted, solve

    total = 2 * args.pits * args.stones
    if total > 127:
        raise InputError(f"Kalah({args.pits},{args.stones}) has {total} stones; at most 127 fit")
    if args.endgame_stones is not None and args.endgame_stones > total:
        raise InputError(f"--endgame-stones {args.endgame_stones} exceeds the {total} stones "
                         f"of Kalah({args.pits},{args.stones})")
    if not args.quiet and not args.json and sys.stderr.isatty():
        print(f"solving Kalah({args.pits},{args.stones}) ...", file=sys.stderr)
    directory = None if args.no_endgame_files else data_dir(
        args.endgame_dir if args.endgame_dir is not None else Path(data_dir()) / "kalah")
    if directory is not None:  # a database built for minutes must be savable
        check_writable(Path(directory) / "kalah-endgame.table")
    bits = TABLE_BITS if args.table_bits is None else args.table_bits
    bar = progress(None, "endgame database", args.quiet, unit="pos")
    try:
        # the endgame database is built in parallel
        with threads(args.threads):
            result = solve(args.pits, args.stones, args.variant, args.endgame_stones, bits,
                           endgame_dir=directory, on_slice=bar.update)
    except SolveInterrupted as stop:
        bar.close()
        return emit(args, {"pits": args.pits, "stones": args.stones, "variant": args.variant,
                           "value": stop.lower if stop.lower == stop.upper else None,
                           "lower": stop.lower, "upper": stop.upper, "line": None,
                           "seconds": round(stop.seconds, 3), "nodes": stop.nodes},
                    f"interrupted after {stop.seconds:.1f} s: South's margin is between "
                    f"{stop.lower:+d} and {stop.upper:+d}", complete=False)
    bar.close()
    if args.json:
        return emit(args, {"pits": result.pits, "stones": result.stones,
                           "variant": result.variant, "value": result.value,
                           "line": list(result.line), "seconds": round(result.seconds, 3),
                           "nodes": result.nodes, "endgame_stones": result.endgame_stones,
                           "endgame_seconds": round(result.endgame_seconds, 3),
                           "endgame_source": result.endgame_source,
                           "table_entries": result.table_entries,
                           "lower": result.value, "upper": result.value})
    else:
        verdict = ("a draw" if result.value == 0 else
                   f"South (first player) wins by {result.value}" if result.value > 0 else
                   f"North (second player) wins by {-result.value}")
        print(f"Kalah({result.pits},{result.stones}) [{result.variant}]: value {result.value:+d}"
              f" -- {verdict}")
        print(f"perfect game (pit indices): {' '.join(map(str, result.line))}")
        print(f"{result.seconds:.2f} s ({result.endgame_seconds:.2f} s for the "
              f"{result.endgame_stones}-stone endgame database, {result.endgame_source}), "
              f"{result.nodes} nodes")
    return 0


def _add_stats(sub):
    from .records import DB_FILE

    p = sub.add_parser("stats", help="results of the games played, by opponent")
    p.add_argument("--name", default=None, help="only this player's games")
    add_db(p, DB_FILE, "Kalah game results")
    add_json(p)
    p.set_defaults(run=_run_stats)


def _run_stats(args) -> int:
    from .._store import NoRecords
    from .records import open_db, opponent_table

    missing = None
    try:
        with open_db(args.db, write=False) as records:  # a read-only query: creates nothing
            rows = opponent_table(records, args.name)
    except NoRecords as exc:
        rows, missing = [], exc.path
    if args.json:
        return emit(args, {"opponents": rows})
    if not rows:
        print("no games recorded yet" + (f" ({missing} does not exist)" if missing else ""))
        return 0
    print(f"{'opponent':<24} {'board':<22} {'games':>5} {'won':>4} {'drawn':>5} "
          f"{'lost':>4} {'resigned':>8} {'mean margin':>11}")
    for r in rows:
        board = f"Kalah({r['pits']},{r['stones'] if r['stones'] is not None else '?'}) " \
                f"{r['variant']}"
        print(f"{r['opponent']:<24} {board:<22} {r['games']:>5} {r['wins']:>4} "
              f"{r['draws']:>5} {r['losses']:>4} {r['resigned']:>8} {r['mean_margin']:>+11.2f}")
    return 0


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(prog=PROG,
                            description="Kalah: exact solutions, alpha-beta play, tournaments "
                                        "(rules and variants: docs/design.md).")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=ArgumentParser)
    _add_solve(sub)
    from . import play, tournament

    play.add_parser(sub)
    _add_stats(sub)
    tournament.add_parser(sub)
    return parser


def _main(argv) -> int:
    args = build_parser().parse_args(argv)
    return args.run(args)


def main(argv=None) -> int:
    """Entry point; returns the exit status."""
    return run_cli(_main, argv, prog=PROG)


if __name__ == "__main__":
    exit_process(main())
