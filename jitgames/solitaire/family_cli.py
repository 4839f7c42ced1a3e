"""``python -m jitgames.solitaire ... --rules yukon|alaska``: the study, deal files and
``--show`` under another rule set of :mod:`.family` (the étude's own commands stay
in :mod:`.__main__`, with its line figures and faster solver)."""
from __future__ import annotations

import itertools
import time

from .._chunked import ChunkedJob, open_client, run_chunks, split_range
from .._cli import display_name, emit
from .._jit import thread_count, threads
from .._store import atomic_write_text, check_writable
from ..errors import InputError
from .deal import deals, read_deal_file
from .family import FOUNDATION, RULE_NAMES, new_position, piles_of
from .family_search import RESULT_FIELDS, SEARCH_VERSION, UNDECIDED, FamilyScratch
from .family_shortest import shortest_line_moves
from .family_study import (capacity_for, empty_partial, family_validate, family_worker,
                           format_family, merge_partials, partial_of, solve_many,
                           summarise_family)
from .rules import card_name, draw_position

PROG = "python -m jitgames.solitaire"


def family_handlers(args):
    """The (show, solve_file, study) handlers for a parsed command line whose ``--rules``
    is not the étude's; the caller's dispatch picks among them as for the étude."""
    if args.bias or args.compare_shuffles or args.plot or args.board:
        raise InputError("--bias, --compare-shuffles, --plot and --board apply to the "
                         "etude's rules only")
    return show, solve_file, study


def study(args) -> int:
    if args.out:
        raise InputError("--out applies to --deal-file FILE under --rules yukon or alaska")
    from .. import __version__

    params = {"seed": args.seed, "deals": args.deals, "shuffle": args.shuffle,
              "rules": args.rules, "node_limit": args.node_limit, "chunk_size": args.chunk_size,
              "version": __version__, "search": SEARCH_VERSION}
    job = ChunkedJob("solitaire.family_study", params,
                     tuple(split_range(0, args.deals, args.chunk_size)), family_worker,
                     family_validate)
    with open_client(args.scheduler) as client, threads(args.threads):
        begin = time.perf_counter()
        solve_many(deals(0, 0, 1), RULE_NAMES.index(args.rules), 1)  # compile or load
        compile_seconds = time.perf_counter() - begin
        begin = time.perf_counter()
        run = run_chunks(job, client=client, checkpoint=args.checkpoint, quiet=args.quiet,
                         desc="deal chunks")
        wall = time.perf_counter() - begin
    partial = empty_partial()
    for result in run.partials:
        partial = merge_partials(partial, result)
    summary = summarise_family(partial, args.rules)
    summary.update(seed=args.seed, shuffle=args.shuffle, requested=args.deals,
                   node_limit=args.node_limit, threads=args.threads or thread_count(),
                   resumed_chunks=run.resumed_chunks, resumed_deals=run.resumed_items,
                   seconds=wall, deals_per_second=run.items_per_second(wall),
                   compile_seconds=compile_seconds)
    return emit(args, summary, format_family(summary), not run.interrupted,
                note=f"{display_name(PROG)}: interrupted after {summary['deals']} of "
                     f"{args.deals} deals")


def solve_file(args) -> int:
    decks = read_deal_file(args.deal_file)
    if args.solution is not None and decks.shape[0] != 1:
        raise InputError(f"--solution writes the line of one deal; {args.deal_file} holds "
                         f"{decks.shape[0]} deals")
    if args.out:
        check_writable(args.out)
    with threads(args.threads):
        begin = time.perf_counter()
        rows = solve_many(decks, RULE_NAMES.index(args.rules), args.node_limit, thread_count())
        wall = time.perf_counter() - begin
    summary = summarise_family(partial_of(rows), args.rules)
    summary.update(file=str(args.deal_file), seconds=wall, node_limit=args.node_limit,
                   score=rows[:, 0], undecided_deals=(rows[:, 1] == UNDECIDED).tolist(),
                   positions=rows[:, 2])
    text = [f"deal {k}: score {row[0]}{' (undecided: at least)' if row[1] == UNDECIDED else ''}"
            f" ({row[2]} positions)" for k, row in enumerate(rows.tolist(), start=1)]
    text.append(f"{len(rows)} deals under {args.rules} rules: {summary['wins']} won, "
                f"{int((rows[:, 1] == UNDECIDED).sum())} undecided, {wall:.3f} s")
    if args.solution is not None:
        rules = RULE_NAMES.index(args.rules)
        scratch = FamilyScratch.new(capacity_for(args.node_limit))
        _write_solution(args, decks[0], shortest_line_moves(decks[0], rules, args.node_limit,
                                                            scratch))
    emit(args, summary, text)
    if args.out:
        header = ",".join(("deal",) + RESULT_FIELDS[:3]) + "\n"
        lines = (f"{k},{r[0]},{r[1]},{r[2]}\n" for k, r in enumerate(rows.tolist(), start=1))
        try:
            atomic_write_text(args.out, itertools.chain([header], lines))
        except OSError as exc:
            raise InputError(f"cannot write {args.out}: {exc.strerror or exc}") from None
    return 0


def move_text(pos, move: int) -> str:
    """One move of ``pos`` in words (before it is made)."""
    from .family import HEIGHT, LENGTH, PILES, PILE_STRIDE, TO_FOUNDATION, WHERE

    card, dest = move // 8, move % 8
    src = int(pos[WHERE + card])
    if dest == TO_FOUNDATION:
        return f"{card_name(card)} from pile {src + 1} to its foundation"
    carried = int(pos[LENGTH + src] - pos[HEIGHT + card]) - 1
    more = f" (and {carried} card{'s' if carried > 1 else ''} on it)" if carried else ""
    n = int(pos[LENGTH + dest])
    onto = f"onto {card_name(int(pos[PILES + dest * PILE_STRIDE + n - 1]))}" if n \
        else "into the empty pile"
    return f"{card_name(card)}{more} from pile {src + 1} {onto} (pile {dest + 1})"


def _write_solution(args, deck, found, **origin) -> None:
    """Write the line ``found`` (a :class:`.family_shortest.ShortestLine` of the deal
    ``deck``) to ``args.solution`` in the notation of :mod:`.solution`, its header
    saying what the line is; ``origin``: the seed, index and shuffle of a numbered deal."""
    from .solution import family_line, write_solution

    line = family_line(deck, args.rules, found.moves)
    write_solution(args.solution, deck, line, comment=(
        f"{found.label()}; the {line.automatic} foundation plays the solver makes by "
        f"itself (provably safe) are written as moves too"), **origin)


def show(args) -> int:
    from .family import SCORE, apply_move

    seed, index = args.show
    rules = RULE_NAMES.index(args.rules)
    deck = deals(seed, index, index + 1, args.shuffle)[0]
    scratch = FamilyScratch.new(capacity_for(args.node_limit))
    found = shortest_line_moves(deck, rules, args.node_limit, scratch)
    if args.solution is not None:
        _write_solution(args, deck, found, seed=seed, index=index, shuffle=args.shuffle)
    pos = new_position(deck, rules)
    start = pos.copy()
    steps = []
    for move in found.moves:
        before = int(pos[SCORE])
        text = move_text(pos, move)
        apply_move(pos, move)
        if pos[SCORE] - before > (move % 8 == 7):
            text += f"; {int(pos[SCORE]) - before - (move % 8 == 7)} card(s) played home safely"
        steps.append(text)
    if args.json:
        return emit(args, {"seed": seed, "index": index, "rules": args.rules, "deck": deck,
                           "score": found.score, "undecided": not found.decided,
                           "positions": found.search_positions, "shortest": found.shortest,
                           "shortest_positions": found.positions, "line_is": found.label(),
                           "line": steps})
    print(f"Deal {index} of seed {seed} under {args.rules} rules ({args.shuffle} shuffle); "
          f"face-down cards in brackets:")
    print(draw_position(piles_of(start), start[FOUNDATION:FOUNDATION + 4].tolist()))
    what = "Optimal score" if found.decided else "Undecided (search limit); best score found"
    print(f"{what} {found.score} cards; {found.label()}:")
    for k, step in enumerate(steps, start=1):
        print(f"  {k:2d}. {step}")
    return 0

