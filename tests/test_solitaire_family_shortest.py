"""A shortest line to the optimal score (family_shortest) against the twin's own
breadth-first search, replayed by the twin (reduced decks) and by the independent
checker (dealt decks)."""
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from jitgames.solitaire import deals
from jitgames.solitaire import family as F
from jitgames.solitaire import family_shortest as SH
from jitgames.solitaire.family_bound import bound_of
from jitgames.solitaire.family_search import EXACT, FamilyScratch, best_score, optimal_line_moves
from jitgames.solitaire.family_study import capacity_for
from tests.reference import solitaire_family as ref

from .solution_check import check_moves
from .test_solitaire_family import BUDGET, game_of, kernel_position, meaning, small_positions, \
    twin_move

cases = settings(max_examples=30, deadline=None,
                 suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])


def kernel_shortest(pos, node_limit=10**6, capacity=1 << 14):
    """``(optimal score, outcome, line)``: the family search's score from ``pos``, then
    the breadth-first search's line to it."""
    scratch = FamilyScratch.new(capacity)
    score, status, _, _ = best_score(pos, scratch.slots, scratch.meta, scratch.stack,
                                     scratch.moves, scratch.line, 10**9, bound_of(pos))
    assert status == EXACT
    parent = np.zeros(node_limit + 1, dtype=np.int64)
    move = np.zeros(node_limit + 1, dtype=np.int64)
    line = np.zeros(F.MAX_DEPTH + 1, dtype=np.int64)
    outcome, _, levels = SH.shortest_line(pos, score, scratch.slots, scratch.meta, parent, move,
                                  np.zeros(F.MAX_DEPTH, dtype=np.int64),
                                  np.zeros(F.MAX_DEPTH, dtype=np.int64),
                                  np.zeros(F.MAX_MOVES, dtype=np.int64), node_limit, line)
    if outcome == SH.FOUND:
        assert levels == max(line[0] - 1, 0)
    return int(score), outcome, [int(m) for m in line[1:1 + line[0]]]


@pytest.mark.kernel
@cases
@given(small_positions(), st.sampled_from(range(3)))
def test_shortest_line_has_the_twins_length(position, rules):
    """Exact equality with the twin's level of the optimum, on reduced decks under every
    rule set; the line replays under the twin's rules to the optimal score, and the
    position is restored."""
    piles, foundations = position
    name = ref.RULES[rules]
    expected = ref.shortest_line_length(name, piles, foundations, budget=BUDGET)
    assume(expected is not None)
    pos = kernel_position(piles, foundations, rules)
    before = meaning(pos)
    score, outcome, line = kernel_shortest(pos)
    assert outcome == SH.FOUND and (score, len(line)) == expected
    event(f"{min(len(line), 5)}+ player moves" if len(line) >= 5 else f"{len(line)} player moves")
    assert meaning(pos) == before
    game = game_of(pos)
    for m in line:   # each move is legal under the twin's rules, from the twin's position
        move = twin_move(pos, m)
        assert move in ref.moves(name, *game)
        game = ref.play(name, *game, move)
        F.apply_move(pos, m)
    assert sum(game[1]) == score


@pytest.mark.kernel
def test_a_small_node_limit_cuts_the_search():
    """Past the limit nothing is proven: ``CUT``, the position restored."""
    deck = deals(2026, 21, 22)[0]   # won under Yukon, decided in 69 positions
    pos = F.new_position(deck, F.YUKON)
    before = meaning(pos)
    _, outcome, line = kernel_shortest(pos, node_limit=50, capacity=1 << 16)
    assert outcome == SH.CUT and line == [] and meaning(pos) == before


NODE_LIMIT = 20_000
SCRATCH = FamilyScratch.new(capacity_for(NODE_LIMIT))


@pytest.mark.parametrize("rules, indices", [("yukon", (0, 1, 44, 172, 215, 248, 272, 287)),
                                            ("alaska", (0, 1, 24, 28))])
def test_dealt_lines_check_and_are_never_longer_than_the_searchs(rules, indices):
    """Deals of seed 2026 (won, undecided, and lost ones with a shortest line in reach):
    every line (shortest or fallback) replays under the independent checker to its
    score, the shortest is never longer than the family search's line, and shortest
    lines and fallbacks both occur."""
    code = F.rules_code(rules)
    kinds = set()
    for index in indices:
        deck = deals(2026, index, index + 1)[0]
        found = SH.shortest_line_moves(deck, code, NODE_LIMIT, SCRATCH)
        searched = optimal_line_moves(deck, code, NODE_LIMIT, SCRATCH)
        report = check_moves(deck, rules, list(found.moves), found.score)
        assert report.score == found.score
        if found.shortest:
            assert found.decided and len(found.moves) <= len(searched)
            assert found.label().startswith("a shortest line to the optimal score")
        else:
            assert found.moves == tuple(searched) and found.why
        kinds.add((found.shortest, found.decided))
    assert (True, True) in kinds and len(kinds) > 1


def test_undecided_and_cut_deals_fall_back_labelled():
    """Under Yukon, deal 0 of seed 2026 (won, its shortest line not found in 2,000
    positions) and deal 1 (undecided in 2,000): the family search's line, labelled."""
    deck = deals(2026, 0, 1)[0]
    scratch = FamilyScratch.new(capacity_for(2000))
    cut = SH.shortest_line_moves(deck, F.YUKON, 2000, scratch)
    assert (cut.shortest, cut.decided, cut.score) == (False, True, 52)
    assert cut.moves == tuple(optimal_line_moves(deck, F.YUKON, 2000, scratch))
    assert cut.label().startswith("not proven shortest (the breadth-first search passed 2000")
    assert 0 < cut.levels < len(cut.moves) and f"fewer than {cut.levels + 1} moves" in cut.label()
    check_moves(deck, "yukon", list(cut.moves), cut.score)
    deck = deals(2026, 1, 2)[0]
    undecided = SH.shortest_line_moves(deck, F.YUKON, 2000, scratch)
    assert (undecided.shortest, undecided.decided) == (False, False)
    assert undecided.label().startswith("undecided (search limit), no shortest line")
    assert undecided.moves == tuple(optimal_line_moves(deck, F.YUKON, 2000, scratch))
    check_moves(deck, "yukon", list(undecided.moves), undecided.score)


@pytest.mark.parametrize("rules, index, length", [("yukon", 44, 4), ("alaska", 24, 2)])
def test_show_writes_the_shortest_line_and_check_accepts_it(capsys, tmp_path, rules, index,
                                                            length):
    """``--show SEED INDEX --rules R --solution FILE``: the header says "a shortest line to
    the optimal score: N player moves"; ``check FILE`` reports the optimal score.
    (Deal 44 under Yukon: 2 cards at best, 4 moves; deal 24 under Alaska: 2 cards, 2
    moves; their lengths are this project's, the breadth-first search's own.)"""
    from jitgames.solitaire import __main__ as cli

    path = tmp_path / "line.txt"
    status = cli.main(["--show", "2026", str(index), "--rules", rules, "--json",
                       "--solution", str(path)])
    shown = json.loads(capsys.readouterr().out)
    assert status == 0 and shown["shortest"] and not shown["undecided"]
    assert shown["line_is"] == f"a shortest line to the optimal score: {length} player moves"
    assert len(shown["line"]) == length and f"# {shown['line_is']}; " in path.read_text()
    status = cli.main(["check", str(path), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert status == 0 and report["ok"] and report["score"] == shown["score"] == 2
    status = cli.main(["--show", "2026", str(index), "--rules", rules])
    assert status == 0 and shown["line_is"] in capsys.readouterr().out


def test_library_function_validates_and_gives_the_same_line():
    from jitgames.errors import InputError
    from jitgames.solitaire import family_shortest_line

    deck = deals(2026, 44, 45)[0]
    line = family_shortest_line(deck, "yukon", node_limit=NODE_LIMIT)
    assert line == SH.shortest_line_moves(deck, F.YUKON, NODE_LIMIT, SCRATCH) and line.shortest
    for bad in [dict(deck=deck[:51]), dict(deck=deals(2026, 0, 2)), dict(rules="klondike"),
                dict(node_limit=0)]:
        args = dict(deck=deck, rules="yukon", node_limit=NODE_LIMIT) | bad
        with pytest.raises(InputError):
            family_shortest_line(args.pop("deck"), **args)
