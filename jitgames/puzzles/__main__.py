"""``python -m jitgames.puzzles <puzzle> N ...``: solve one classic puzzle.

Every sub-command takes ``--json`` (print one JSON object) and ``-q/--quiet``; the
command-line contract is ``docs/cli.md``, the puzzles are documented in
``docs/puzzles.md``. Long work (queens, peg-solitaire counts) shows a
progress bar on a terminal; Ctrl-C prints what was computed so far and exits 130.
"""
from __future__ import annotations

import time

from jitgames import _chunked, _cli, _store
from jitgames._interrupt import run_interruptible
from jitgames._jit import threads
from jitgames.puzzles import (domination, fibnim, frogs, hanoi, pegsolitaire, queens,
                              queens_constellations, rings, tait)

PROG = "python -m jitgames.puzzles"
SHOW_LIMIT = 200
"""Most moves or solutions printed as text unless --all is given."""


def _limited(items, args):
    items = list(items)
    return items if args.all or len(items) <= SHOW_LIMIT else items[:SHOW_LIMIT]


# ----------------------------------------------------------------- sub-commands
def _queens(args):
    n = args.n
    if n > queens.MAX_N:
        raise _cli.InputError(f"n must be at most {queens.MAX_N}")
    if args.all or args.method != "kernel":
        return _queens_list(args)
    if args.scheduler is not None or args.checkpoint is not None:
        return _queens_chunked(args)
    if args.show and n > 12:
        raise _cli.InputError("--show lists solutions for n <= 12 only")
    start = time.perf_counter()
    state = {"count": 0, "unique": None, "done": 0, "tasks": 0}

    def count(batches):
        # In a helper thread (run_interruptible): Ctrl-C sets the kernel's stop flag.
        with _cli.progress(batches, f"queens {n}", args.quiet, unit="batch") as bar:
            for done, total_tasks, total, unique in queens_constellations.iter_census(
                    n, batches):
                state.update(count=total, unique=unique, done=done, tasks=total_tasks)
                bar.update(1)

    try:
        with threads(args.threads):
            # Progress batches: each is a parallel launch whose slowest task idles the
            # other threads for a moment, so few of them on small boards.
            run_interruptible(lambda: count(1 if n < 14 else 8 if n < 17 else 32))
    except KeyboardInterrupt:
        # The counts of the finished tasks: a lower bound of the whole count.
        done, total_tasks = state["done"], state["tasks"]
        return _cli.emit(args, {"n": n, "count": state["count"], "unique": None,
                                "tasks_done": done, "tasks": total_tasks},
                         [f"{n} queens: at least {state['count']} solutions ({done} of "
                          f"{total_tasks} tasks done)"], complete=False)
    seconds = time.perf_counter() - start
    count_, unique = state["count"], state["unique"]
    lines = [f"{n} queens: {count_} solutions, {unique} up to symmetry ({seconds:.3f} s)"]
    if args.show:
        for sol in queens.unique_solutions(queens.solutions_iterative(n))[:SHOW_LIMIT]:
            lines += ["", " ".join(map(str, sol)), queens.draw(sol)]
    return _cli.emit(args, {"n": n, "count": count_, "unique": unique, "seconds": seconds},
                     lines)


def _queens_list(args):
    """``queens N --all`` and ``--method recursive|iterative``: the solutions one by one.

    The count and the count up to symmetry come from the list itself; ``--all``
    prints every solution as its queens' columns, row by row.
    """
    n = args.n
    if n > queens.MAX_LIST_N:
        raise _cli.InputError("listing the solutions one by one (--all, --method recursive, "
                              f"--method iterative) needs n <= {queens.MAX_LIST_N}")
    if args.scheduler is not None or args.checkpoint is not None:
        raise _cli.InputError("--scheduler and --checkpoint count with the kernel only "
                              "(no --all, no --method recursive|iterative)")
    start = time.perf_counter()
    with threads(args.threads):
        sols = queens.solutions(n, args.method)
    unique = queens.unique_solutions(sols)
    seconds = time.perf_counter() - start
    obj = {"n": n, "count": len(sols), "unique": len(unique), "method": args.method,
           "seconds": seconds}
    lines = [f"{n} queens: {len(sols)} solutions, {len(unique)} up to symmetry "
             f"({args.method}, {seconds:.3f} s)"]
    if args.all:
        obj["solutions"] = [list(s) for s in sols]
        lines += [" ".join(map(str, s)) for s in sols]
    if args.show:
        for sol in unique[:SHOW_LIMIT]:
            lines += ["", " ".join(map(str, sol)), queens.draw(sol)]
    return _cli.emit(args, obj, lines)


def _queens_chunked(args):
    """The queens count as a chunked job: on a Dask cluster and/or with a checkpoint.

    The constellation tasks are dealt round-robin into ``--chunks`` parts whose counts
    sum exactly to the whole, so the answer is the in-process one whatever the backend.
    """
    n = args.n
    if n < 2:
        raise _cli.InputError("--scheduler and --checkpoint need n >= 2")
    from jitgames import __version__

    params = {"n": n, "chunks": args.chunks, "method": "constellations",
              "version": __version__}
    job = _chunked.ChunkedJob("puzzles.queens", params,
                              tuple(_chunked.split_range(0, args.chunks, 1)),
                              queens_constellations.chunk_worker,
                              queens_constellations.chunk_validate)
    start = time.perf_counter()
    with _chunked.open_client(args.scheduler) as client, threads(args.threads):
        run = _chunked.run_chunks(job, client=client, checkpoint=args.checkpoint,
                                  quiet=args.quiet, desc=f"queens {n}")
    count = sum(part[0] for part in run.partials)
    sym = sum(part[1] for part in run.partials)
    seconds = time.perf_counter() - start
    obj = {"n": n, "count": count, "unique": None, "seconds": seconds, "chunks": args.chunks,
           "chunks_done": len(run.chunks_done), "resumed_chunks": run.resumed_chunks}
    progress = (f"({seconds:.3f} s, {len(run.chunks_done)} of {args.chunks} chunks, "
                f"{run.resumed_chunks} from the checkpoint)")
    if run.interrupted:
        return _cli.emit(args, obj, [f"{n} queens: at least {count} solutions {progress}"],
                         complete=False)
    obj["unique"] = queens_constellations.unique_from(count, sym)
    return _cli.emit(args, obj, [f"{n} queens: {count} solutions, {obj['unique']} up to "
                                 f"symmetry {progress}"])


def _domination(args):
    n = args.n
    if n > 11:
        raise _cli.InputError("n must be at most 11 (the search grows fast)")
    start = time.perf_counter()
    result = domination.domination(n)
    seconds = time.perf_counter() - start
    obj = {"n": n, "minimum": result.minimum, "sets": result.sets, "unique": result.unique,
           "independent": result.independent, "independent_sets": result.independent_sets,
           "independent_unique": result.independent_unique, "seconds": seconds}
    lines = [f"{n} x {n}: {result.minimum} queens dominate; {result.sets} minimum sets, "
             f"{result.unique} up to symmetry",
             f"independent: {result.independent} queens; {result.independent_sets} sets, "
             f"{result.independent_unique} up to symmetry"]
    if args.show:
        _domination_show(n, obj, lines)
    return _cli.emit(args, obj, lines)


def _domination_show(n, obj, lines):
    """--show: one minimum dominating set and one minimum independent one, drawn."""
    for independent, title in ((False, "a minimum dominating set"),
                               (True, "a minimum independent dominating set "
                                      "(no two queens attack each other)")):
        _, _, sets = domination.minimum_dominating(n, independent)
        squares = [int(x) for x in sets[0]]
        obj["independent_example" if independent else "example"] = squares
        lines += ["", f"{title}: squares {' '.join(map(str, squares))} (row * {n} + column)",
                  domination.draw(n, squares)]


def _hanoi(args):
    if args.move is not None:
        return _hanoi_move(args)
    n, k = args.n, args.pegs
    if k > 3 and n > hanoi.MAX_MULTIPEG_N:
        raise _cli.InputError(f"n must be at most {hanoi.MAX_MULTIPEG_N} with more than 3 pegs")
    moves = hanoi.frame_stewart(n, k)
    obj = {"n": n, "pegs": k, "moves": moves}
    lines = [f"{n} disks, {k} pegs: {moves} moves"]
    if k > 3 and n >= 2:
        obj["optimal_splits"] = hanoi.optimal_splits(n, k)
    if args.table:
        rows = hanoi.frame_stewart_table(n, k)
        obj["table"] = [{"n": m, "moves": f, "splits": p} for m, f, p in rows]
        lines += [f"{'n':>4} {'f(n)':>10}  optimal p"]
        lines += [f"{m:>4} {f:>10}  {','.join(map(str, p))}" for m, f, p in rows]
    if args.bfs:
        obj["bfs_moves"] = hanoi.bfs_distance(n, k)
        lines.append(f"breadth-first search: {obj['bfs_moves']} moves")
    if args.show:
        if n > 10:
            raise _cli.InputError("--show draws the moves for n <= 10 only")
        if k > 3:
            seq = hanoi.moves_multipeg(n, k)
        elif args.method == "recursive":
            seq = hanoi.moves_recursive(n)
        else:
            seq = hanoi.moves_iterative(n)
        states = hanoi.replay(n, seq, k)
        lines += ["", hanoi.draw(states[0])]
        for i, (disk, a, b) in enumerate(_limited(seq, args), 1):
            lines += ["", f"move {i}: disk {disk} from peg {a} to peg {b}", hanoi.draw(states[i])]
    return _cli.emit(args, obj, lines)


def _hanoi_move(args):
    """``hanoi N --move K``: which disk moves at move K, and between which pegs.

    Computed from K alone: by the bit rule of the 3-peg solution (``--method
    iterative``) or by descending the recursive definition (``--method recursive``,
    the only way with more pegs).
    """
    n, pegs, k = args.n, args.pegs, args.move
    method = args.method or ("iterative" if pegs == 3 else "recursive")
    if pegs > 3 and method == "iterative":
        raise _cli.InputError("no iterative rule is known for more than 3 pegs (see "
                              "docs/puzzles.md); use --method recursive")
    if pegs > 3 and n > hanoi.MAX_MULTIPEG_N:
        raise _cli.InputError(f"n must be at most {hanoi.MAX_MULTIPEG_N} with more than 3 pegs")
    if n == 0:
        raise _cli.InputError("no disks, no moves: --move needs n >= 1")
    total = hanoi.frame_stewart(n, pegs)
    if k > total:
        raise _cli.InputError(f"--move must be at most {total}, the number of moves")
    if method == "iterative":
        disk, a, b = hanoi.move_number(n, k)
    else:
        disk, a, b = hanoi.move_at(n, k, pegs)
    obj = {"n": n, "pegs": pegs, "move": k, "disk": disk, "from": a, "to": b,
           "method": method}
    return _cli.emit(args, obj, [f"move {k} of {total}: disk {disk} from peg {a} to peg {b}"])


def _rings(args):
    n = args.n
    put_on = not args.take_off
    count = rings.move_count(n)
    obj = {"n": n, "moves": count, "task": "put_on" if put_on else "take_off"}
    lines = [f"{'put on' if put_on else 'take off'} {n} rings: {count} moves"]
    if args.position is not None:
        if args.position > count:
            raise _cli.InputError(f"--position must be at most {count}")
        pos = rings.position_after(n, args.position, put_on)
        obj["position"] = rings.draw(n, pos)
        lines.append(f"after {args.position} moves: {rings.draw(n, pos)}")
    if args.show:
        if n > 20:
            raise _cli.InputError("--show prints the moves for n <= 20 only")
        seq = rings.solve_iterative(n, put_on)
        positions = rings.replay(n, seq, put_on)
        lines.append(f"{0:>6}  {rings.draw(n, positions[0])}")
        for i, (ring, on) in enumerate(_limited(seq, args), 1):
            lines.append(f"{i:>6}  {rings.draw(n, positions[i])}  ring {ring} "
                         f"{'on' if on else 'off'}")
    return _cli.emit(args, obj, lines)


def _frogs(args):
    n = args.n
    count = frogs.move_count(n)
    obj = {"n": n, "moves": count}
    lines = [f"{n} frogs and {n} toads: {count} moves"]
    if args.show:
        if n > 30:
            raise _cli.InputError("--show prints the moves for n <= 30 only")
        seq = frogs.solve_iterative(n)
        positions = frogs.replay(n, seq)
        lines += [f"{i:>5}  {p}" for i, p in enumerate(_limited(positions, args))]
    return _cli.emit(args, obj, lines)


def _tait(args):
    n = args.n
    block = tait.construct(n, "block")
    gap = tait.construct(n, "gap")
    obj = {"n": n, "moves_block": len(block), "moves_gap": len(gap)}
    if args.bfs:
        if n > tait.BFS_LIMIT:
            raise _cli.InputError(f"--bfs needs n <= {tait.BFS_LIMIT}")
        obj["bfs_block"] = tait.bfs_minimum(n, "block")
        obj["bfs_gap"] = tait.bfs_minimum(n, "gap")
    lines = [f"{n} pairs: block in {len(block)} moves, b^n..a^n in {len(gap)} moves"]
    if args.bfs:
        lines.append(f"breadth-first search minimum: block {obj['bfs_block']}, "
                     f"gap {obj['bfs_gap']}")
    if args.show:
        for name, seq in (("block", block), ("gap", gap)):
            lines += ["", f"{name}:"] + [f"{i:>4}  {p}" for i, p in
                                         enumerate(tait.replay(n, seq))]
    return _cli.emit(args, obj, lines)


def _fibnim(args):
    p = args.p
    if p > fibnim.MAX_HEAP:
        raise _cli.InputError(f"P must be at most {fibnim.MAX_HEAP} (the SG table is P^2)")
    table = fibnim.table(p)
    grundy = int(table.start[p])
    move = fibnim.winning_move(p)
    obj = {"p": p, "losing": grundy == 0, "grundy": grundy, "zeckendorf": fibnim.zeckendorf(p),
           "winning_move": move}
    lines = [f"heap {p}: Zeckendorf {' + '.join(map(str, fibnim.zeckendorf(p)))}; "
             f"SG = {grundy}; " + ("first player loses" if move is None
                                   else f"first player wins by taking {move}")]
    if args.rule:
        _fibnim_rule(table, obj, lines)
    if args.plot:
        _fibnim_plot(table, args.plot, obj, lines)
    if args.show:
        lines += ["", f"{'p':>5} {'g(p)':>5} {'SG(start)':>9}"]
        lines += [f"{q:>5} {g:>5} {int(table.start[q]):>9}" for q, g in
                  _limited(table.losing_positions(), args)]
    return _cli.emit(args, obj, lines)


def _fibnim_rule(table, obj, lines):
    """--rule: check "the next zero heap is 2 further when g = 1, 3 when g > 1"."""
    failures = fibnim.gap_rule_failures(table)
    zeros = fibnim.zero_heaps(table)
    obj["gap_rule"] = {"zero_heaps": len(zeros), "failures": failures}
    if failures:
        lines.append(f"gap rule fails at p = {', '.join(map(str, failures[:20]))}")
    else:
        lines.append(f"gap rule holds for all {len(zeros)} zero heaps up to "
                     f"{table.heap_max}: next one 2 further when g = 1, 3 when g > 1")


def _fibnim_plot(table, path, obj, lines):
    """--plot FILE: the lost positions in the (p, q) plane."""
    from jitgames.puzzles import pictures

    _store.check_writable(path)
    fig, _ = pictures.fibnim_losing(table)
    try:
        pictures.save(fig, path)
    except (OSError, ValueError) as exc:  # ValueError: a suffix Matplotlib cannot write
        raise _cli.InputError(f"cannot write {path}: {exc}") from None
    obj["plot"] = str(path)
    lines.append(f"lost positions drawn in {path}")


def _pegsolitaire(args):
    prob = pegsolitaire.problem(args.problem, args.board)
    b = pegsolitaire.board(args.board)
    obj = {"problem": args.problem, "board": args.board}
    lines = []
    if args.first_moves:
        return _pegsolitaire_first_moves(args, prob, obj)
    if args.count:
        layers = bin(prob.start).count("1") - bin(prob.goal).count("1")
        try:
            with _cli.progress(layers, f"count {args.problem}", args.quiet,
                               unit="layer") as bar:
                result = pegsolitaire.count_solutions(prob.start, prob.goal, args.board,
                                                      progress=bar.update)
        except KeyboardInterrupt:
            # Solutions are counted from the last layer: nothing partial to report.
            return _cli.emit(args, {**obj, "solutions": None},
                             [f"{args.problem} ({args.board}): count not finished"],
                             complete=False)
        obj.update(solutions=result.solutions, seconds=result.seconds)
        lines.append(f"{args.problem} ({args.board}): {result.solutions} winning move "
                     f"sequences ({result.seconds:.1f} s)")
    else:
        sol = pegsolitaire.solve(prob.start, prob.goal, args.board)
        obj["solvable"] = sol is not None
        obj["moves"] = sol.names if sol else None
        if sol is None:
            lines.append(f"{args.problem} ({args.board}): no solution")
        else:
            lines.append(f"{args.problem} ({args.board}): {' '.join(sol.names)}")
            if args.show:
                lines += ["", pegsolitaire.draw(b, sol.positions[0])]
                for name, pos in zip(sol.names, sol.positions[1:]):
                    lines += ["", name, pegsolitaire.draw(b, pos)]
    return _cli.emit(args, obj, lines)


def _pegsolitaire_first_moves(args, prob, obj):
    """--first-moves: each opening move, whether it can still win, and in how many ways.

    Each move's count is computed on its own; moves that a symmetry of the board
    fixing start and goal maps onto each other share a class number, and their
    equal counts are a check of the count.
    """
    b = pegsolitaire.board(args.board)
    legal = pegsolitaire.legal_moves(b, prob.start)
    layers = (bin(prob.start).count("1") - bin(prob.goal).count("1")) * len(legal)
    rows = []
    try:
        with _cli.progress(layers, f"first moves of {args.problem}", args.quiet,
                           unit="layer") as bar:
            for move in pegsolitaire.first_moves_iter(prob.start, prob.goal, args.board,
                                                      progress=bar.update):
                rows.append(move)
    except KeyboardInterrupt:  # the moves counted so far are exact: print them
        return _first_moves_report(args, prob, obj, rows, complete=False)
    return _first_moves_report(args, prob, obj, rows, complete=True)


def _first_moves_report(args, prob, obj, moves, complete):
    table = _first_move_rows(prob, moves, args.board)
    total = sum(r["solutions"] for r in table)
    obj.update(first_moves=table, solutions=total if complete else None)
    lines = [f"{args.problem} ({args.board}): {len(table)} first moves"
             + (f", {total} winning move sequences in all" if complete else
                " counted before the interruption"),
             f"{'move':<8} {'outcome':<8} {'class':>5}  winning continuations"]
    lines += [f"{r['move']:<8} {'win' if r['wins'] else 'lost':<8} {r['class']:>5}  "
              f"{r['solutions']}" for r in table]
    return _cli.emit(args, obj, lines, complete=complete)


def _first_move_rows(prob, moves, board_name):
    """JSON rows of first moves, with the symmetry class of each (numbered from 1)."""
    classes = pegsolitaire.symmetry_classes(prob.start, prob.goal,
                                            [m.position for m in moves], board_name)
    return [{"move": m.name, "wins": m.wins, "solutions": m.solutions, "class": c}
            for m, c in zip(moves, classes)]


def build_parser() -> _cli.ArgumentParser:
    parser = _cli.ArgumentParser(
        prog=PROG, description="Classic puzzles solved exactly: n queens, queen domination, "
                               "Hanoi, Chinese rings, frogs and toads, Tait's counters, "
                               "Fibonacci nim, peg solitaire (docs/puzzles.md).")
    sub = parser.add_subparsers(dest="puzzle", required=True, metavar="PUZZLE",
                                parser_class=_cli.ArgumentParser)

    def add(name, help_text, handler):
        p = sub.add_parser(name, help=help_text, description=help_text)
        _cli.add_json(p)
        _cli.add_quiet(p)
        p.set_defaults(handler=handler)
        return p

    p = add("queens", "count n-queens solutions (total and up to symmetry)", _queens)
    p.add_argument("n", type=_cli.positive_int, help=f"board side (at most {queens.MAX_N})")
    _cli.add_threads(p)
    p.add_argument("--show", action="store_true",
                   help=f"draw one solution per symmetry class (the first {SHOW_LIMIT})")
    p.add_argument("--all", action="store_true",
                   help="list every solution, one per line: the queens' columns row by "
                        f"row (JSON key 'solutions'; n <= {queens.MAX_LIST_N})")
    p.add_argument("--method", choices=queens.METHODS, default="kernel",
                   help="recursive backtracking, the iterative automaton, or the Numba "
                        "kernels (default; counts from border constellations, lists by a "
                        "bitmask search); the first two list solutions, so "
                        f"n <= {queens.MAX_LIST_N}. See docs/puzzles.md")
    p.add_argument("--scheduler", type=_chunked.scheduler_address, metavar="ADDRESS",
                   help="count on a Dask cluster: tcp://HOST:PORT or local:W worker processes")
    _cli.add_checkpoint(p)
    p.add_argument("--chunks", type=_cli.int_in_range(1, 4096), default=64,
                   help="parts the search is dealt into with --scheduler/--checkpoint "
                        "(default 64; the count does not depend on it)")

    p = add("domination", "fewest queens covering the board, and the sets", _domination)
    p.add_argument("n", type=_cli.positive_int, help="board side (at most 11)")
    p.add_argument("--show", action="store_true",
                   help="draw one minimum set and one minimum independent set")

    p = add("hanoi", "towers of Hanoi (Frame-Stewart for more pegs)", _hanoi)
    p.add_argument("n", type=_cli.int_in_range(0, 10_000), help="disks (0..10,000)")
    p.add_argument("--pegs", type=_cli.int_in_range(3, 64), default=3,
                   help="pegs (3..64, default 3)")
    p.add_argument("--table", action="store_true", help="Frame-Stewart table up to n")
    p.add_argument("--bfs", action="store_true", help="confirm by breadth-first search")
    p.add_argument("--show", action="store_true", help="draw every move")
    p.add_argument("--all", action="store_true", help=f"no {SHOW_LIMIT}-move limit")
    p.add_argument("--move", type=_cli.positive_int, metavar="K",
                   help="only move K (1 .. number of moves): which disk, from which peg "
                        "to which (pegs numbered 0.., the tower goes from 0 to the last)")
    p.add_argument("--method", choices=("recursive", "iterative"), default=None,
                   help="recursive definition or iterative rule (3 pegs: disk 1 steps "
                        "cyclically; --move uses the bit rule of K); more pegs have no "
                        "known iterative rule: docs/puzzles.md")

    p = add("rings", "Chinese rings: put on (or take off) n rings", _rings)
    p.add_argument("n", type=_cli.int_in_range(1, 10_000), help="rings (1..10,000)")
    p.add_argument("--take-off", action="store_true",
                   help="take the rings off (start with all on) instead of putting them on")
    p.add_argument("--position", type=_cli.nonnegative_int, default=None,
                   help="show the position after this many moves")
    p.add_argument("--show", action="store_true", help="print every move")
    p.add_argument("--all", action="store_true", help=f"no {SHOW_LIMIT}-move limit")

    p = add("frogs", "frogs and toads: exchange n and n counters", _frogs)
    p.add_argument("n", type=_cli.int_in_range(1, 10_000),
                   help="frogs, and as many toads (1..10,000)")
    p.add_argument("--show", action="store_true", help="print every position")
    p.add_argument("--all", action="store_true", help=f"no {SHOW_LIMIT}-move limit")

    p = add("tait", "Tait's counters: sort abab..ab by moving pairs", _tait)
    p.add_argument("n", type=_cli.int_in_range(3, 200), help="pairs")
    p.add_argument("--bfs", action="store_true",
                   help=f"prove the minimum by search (n <= {tait.BFS_LIMIT})")
    p.add_argument("--show", action="store_true", help="print every position")

    p = add("fibnim", "Fibonacci nim: is a heap of P lost for the first player?", _fibnim)
    p.add_argument("p", type=_cli.positive_int, metavar="P",
                   help=f"heap size (at most {fibnim.MAX_HEAP})")
    p.add_argument("--show", action="store_true", help="print the table g(p)")
    p.add_argument("--all", action="store_true", help=f"no {SHOW_LIMIT}-row limit")
    p.add_argument("--plot", metavar="FILE",
                   help="draw the lost positions (p, q), p <= P, in the (p, q) plane (PNG)")
    p.add_argument("--rule", action="store_true",
                   help="check for every heap up to P: after a heap with g >= 1 the next "
                        "is 2 further when g = 1, 3 further when g > 1 (docs/puzzles.md)")

    p = add("pegsolitaire", "peg solitaire: solve (or --count) a classic problem",
            _pegsolitaire)
    p.add_argument("problem", choices=sorted(pegsolitaire.PROBLEMS),
                   help="the problem: which holes start empty and where the last peg ends")
    p.add_argument("--board", choices=sorted(pegsolitaire.BOARDS), default="english",
                   help="the board's shape (default english)")
    p.add_argument("--count", action="store_true", help="count all winning sequences")
    p.add_argument("--first-moves", action="store_true",
                   help="each first move: can it still win, and in how many ways (each "
                        "counted on its own; for central 4 to 7 minutes and 0.9 GB)")
    p.add_argument("--show", action="store_true", help="draw the board after each move")
    return parser


def _main(argv):
    args = build_parser().parse_args(argv)
    return args.handler(args)


def main(argv=None) -> int:
    """Entry point; returns the exit status."""
    return _cli.run_cli(_main, argv, prog=PROG)


if __name__ == "__main__":
    _cli.exit_process(main())
