"""The optimal strategy: brute force on tiny sizes, Koyama and Lai's totals, helpers."""
import _thread
import json
import threading
import time
from itertools import permutations
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from jitgames._bits import popcount
from jitgames.mastermind import evaluate, strategy_tree
from jitgames.mastermind import (STRATEGIES, candidates, engine, optimal, screen, solved_sets,
                                  symmetry)
from jitgames.errors import InputError
from jitgames.mastermind.codes import load_game
from jitgames.mastermind.optimal import optimal_cost
from tests.reference import bits as ref_bits
from tests.reference import mastermind as ref

KNOWN = json.loads((Path(__file__).parent / "data" / "mastermind_known.json").read_text())


def _brute(space, matrix, limit):
    src = np.arange(space.size, dtype=np.int32)
    return ref.solve(space.tables(matrix), src, 0, space.size, limit, None, 0, 0, None, None)


TINY = pytest.mark.kernel   # seconds as plain Python, brute force included


@pytest.mark.parametrize("pegs,colours,repeats", [
    pytest.param(2, 3, True, marks=TINY), pytest.param(3, 3, True, marks=TINY),
    pytest.param(2, 4, True, marks=TINY), (3, 4, False), (2, 5, True)])
@pytest.mark.parametrize("limit", [None, 3])
def test_optimal_search_equals_brute_force(pegs, colours, repeats, limit):
    space, matrix = load_game(pegs, colours, repeats)
    expected = _brute(space, matrix, 62 if limit is None else limit)
    if expected >= ref.INFEASIBLE:
        with pytest.raises(ValueError, match="within"):
            optimal_cost(space, matrix, limit)
        return
    assert optimal_cost(space, matrix, limit) == expected
    tree = optimal.optimal_tree(space, matrix, limit)
    counts = tree.guesses()
    assert counts.sum() == expected and (counts >= 1).all()
    if limit is not None:
        assert counts.max() <= limit


@given(st.sampled_from([(3, 4, True), (4, 3, True), (3, 5, False)]),
       st.lists(st.integers(0, 10 ** 6), min_size=1, max_size=2), st.integers(0, 10 ** 6),
       st.sampled_from([2, 3, 4, 62]))
@settings(max_examples=25)
def test_search_after_a_history_equals_brute_force(size, history, secret, remaining):
    """Deep nodes: the consistent set left by one or two guesses, with the history's
    symmetries, absent colours, fast cases and sharpened bounds all in play (sets of
    at most 10 codes keep the pure-Python brute force quick)."""
    space, matrix, history, members, used = _node(size, history, secret)
    assume(2 <= members.size <= 10)
    search = optimal.OptimalSearch(space, matrix, remaining)
    cost, guess = search.best(members, remaining, used, list(history))
    expected = ref.solve(space.tables(matrix), members, 0, members.size, remaining, None, 0,
                         0, None, None)
    if expected >= ref.INFEASIBLE:
        assert cost >= optimal.INFEASIBLE
        return
    assert cost == expected
    # The chosen guess attains the cost: play it and solve each class again.
    answers = matrix[guess, members]
    total = members.size
    used[space.digits[guess]] = True
    for f in np.unique(answers):
        if f != space.solved:
            part = members[answers == f]
            total += optimal.OptimalSearch(space, matrix, remaining - 1).best(
                part, remaining - 1, used, list(history) + [guess])[0]
    assert total == expected


@given(st.sampled_from([(3, 4, True), (4, 3, True), (3, 5, False)]),
       st.lists(st.integers(0, 10 ** 6), min_size=0, max_size=1), st.integers(0, 10 ** 6),
       st.sampled_from([3, 4, 62]), st.sampled_from([1, 2]))
@settings(max_examples=25)
def test_a_known_cost_gives_the_same_guess(size, history, secret, remaining, workers):
    """best(..., known=cost) answers as best(...) does; a known cost below the true one is
    refused (no guess attains it), one above it never gives a guess costing more."""
    space, matrix, history, members, used = _node(size, history, secret)
    assume(members.size >= 3)
    cost, guess = optimal.OptimalSearch(space, matrix, remaining, workers).best(
        members, remaining, used, list(history))
    assume(cost < optimal.INFEASIBLE)
    hinted = optimal.OptimalSearch(space, matrix, remaining, workers).best(
        members, remaining, used, list(history), known=cost)
    assert hinted == (cost, guess)
    with pytest.raises(InputError, match="stored cost"):
        optimal.OptimalSearch(space, matrix, remaining, workers).best(
            members, remaining, used, list(history), known=cost - 1)
    above, _ = optimal.OptimalSearch(space, matrix, remaining, workers).best(
        members, remaining, used, list(history), known=cost + 1)
    assert cost <= above <= cost + 1


@pytest.mark.kernel
@given(st.integers(1, 400), st.integers(1, 20))
def test_bound_tables_match_reference(n, branches):
    assert (candidates.lower_bounds(n, branches) == ref.lower_bounds(n, branches)).all()
    assert (candidates.capacities(branches, n) == ref.capacities(branches, n)).all()


@pytest.mark.kernel
@given(st.lists(st.integers(0, 5), min_size=4, max_size=4),
       st.lists(st.booleans(), min_size=6, max_size=6))
def test_free_colour_rule_matches_reference(code, used):
    digits, used = np.array(code, np.int8), np.array(used)
    assert symmetry.free_colours_canonical(digits, used, 6) == ref.free_colours_canonical(
        digits, used, 6)


def _orbit_min_brute(space, history, code):
    """Smallest code in the orbit of ``code`` under symmetries fixing every history guess."""
    best = None
    for sigma in permutations(range(space.pegs)):
        for tau in permutations(range(space.colours)):
            def act(c):
                out = [0] * space.pegs
                for i in range(space.pegs):
                    out[sigma[i]] = tau[space.digits[c, i]]
                return tuple(out)
            if all(act(h) == tuple(space.digits[h]) for h in history):
                image = act(code)
                best = image if best is None or image < best else best
    return best


@pytest.mark.kernel
@given(st.sampled_from([3, 5]), st.lists(st.integers(0, 624), max_size=2), st.integers(0, 624),
       st.integers(-1, 4))
def test_orbit_representatives_are_orbit_minima(colours, history, code, garbage):
    """Five colours leave some never used, which the test relabels smallest first; the
    scratch comes in holding anything (``garbage``)."""
    space, _ = load_game(4, colours)
    history, code = [h % space.size for h in history], code % space.size
    used = np.zeros(colours, np.bool_)
    for h in history:
        used[space.digits[h]] = True
    perms = np.array(list(permutations(range(4))), np.int64)
    group, maps = symmetry.history_group(space.digits, used, colours,
                                        np.array(history + [0], np.int64), len(history), perms)
    ours = symmetry.orbit_minimal(space.digits, used, colours, group, maps, code,
                                  np.full(4, garbage, np.int64), np.full(colours, garbage, np.int64))
    assert ours == (_orbit_min_brute(space, history, code) == tuple(space.digits[code]))


def _fixing_symmetries(space, history):
    """Every (position permutation, colour permutation) fixing each guess of ``history``."""
    kept = []
    for sigma in permutations(range(space.pegs)):
        for tau in permutations(range(space.colours)):
            if all(tuple(tau[space.digits[h, sigma.index(i)]] for i in range(space.pegs))
                   == tuple(space.digits[h]) for h in history):
                kept.append((sigma, tau))
    return kept


@pytest.mark.kernel
@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(0, 624), min_size=1, max_size=2))
def test_orbit_minimal_on_every_code_after_a_history(history):
    """Every code of 4 x 5 after one or two guesses (so some colours are never used):
    ``orbit_minimal`` says whether the code is the least of its orbit, with the
    scratch reused from code to code as the search reuses it."""
    space, _ = load_game(4, 5)
    used = np.zeros(5, np.bool_)
    for h in history:
        used[space.digits[h]] = True
    syms = _fixing_symmetries(space, history)
    perms = np.array(list(permutations(range(4))), np.int64)
    group, maps = symmetry.history_group(space.digits, used, 5, np.array(history + [0], np.int64),
                                        len(history), perms)
    image, relabel = np.zeros(4, np.int64), np.zeros(5, np.int64)
    for code in range(space.size):
        least = min(tuple(tau[space.digits[code, sigma.index(i)]] for i in range(4))
                    for sigma, tau in syms)
        ours = symmetry.orbit_minimal(space.digits, used, 5, group, maps, code, image, relabel)
        assert ours == (least == tuple(space.digits[code])), (history, code)


def test_koyama_lai_totals():
    for name in ("optimal", "optimal-max5"):
        known = next(v for v in KNOWN["values"]
                     if (v["strategy"], v["pegs"], v["colours"], v["repeats"])
                     == (name, 4, 6, True))
        result = evaluate(name, 4, 6)
        assert (result.total, result.max) == (known["total"], known["max"])
    tree = strategy_tree("optimal-max5", 4, 6)
    assert tree.guesses().sum() == 5626 and tree.nodes >= 1296


def test_ctrl_c_stops_a_long_optimal_search_at_once():
    """Ctrl-C (here a simulated one after 0.5 s) must stop a long optimal search at
    once, not when the kernel would have returned. The search is 5x6's, a minute or
    more on any machine (4x7's, once a minute, takes 0.6 s on a Zen 5 core and had
    finished before the Ctrl-C came)."""
    small = optimal.search_and_build(*load_game(2, 3), None)[0]  # compiled before the clock
    space, matrix = load_game(5, 6)
    timer = threading.Timer(0.5, _thread.interrupt_main)
    start = time.perf_counter()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            optimal.search_and_build(space, matrix, None)
    finally:
        timer.cancel()
    assert time.perf_counter() - start < 10
    # a new search is unaffected by the stopped one
    assert optimal.search_and_build(*load_game(2, 3), None)[0] == small


def test_max_guesses_5_on_4x6_is_koyama_lais_5626():
    result = evaluate("optimal", 4, 6, max_guesses=5)
    assert (result.total, result.max) == (5626, 5)


@pytest.mark.parametrize("size,limit", [((4, 4, True), None), ((3, 6, False), None),
                                        ((4, 4, True), 4)])
def test_tree_does_not_depend_on_the_thread_count(size, limit):
    """The parallel root hands candidates to the workers in any interleaving; the
    tree (every guess, not only the total) must be the same for 1, 2 and 3 workers,
    with the workers' caches shared after every node."""
    space, matrix = load_game(*size)
    trees = []
    for workers in (1, 2, 3):
        search = optimal.OptimalSearch(space, matrix, limit, workers)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(optimal, "MERGE_AFTER_SECONDS", -1.0)
            total, tree = optimal.search_and_build(space, matrix, limit, search)
        assert tree.guesses().sum() == total
        trees.append((total, tree.table.tobytes()))
    assert trees[0] == trees[1] == trees[2]


@pytest.mark.kernel
@pytest.mark.parametrize("size", [(2, 2, True), (2, 3, True), (3, 3, False)])
def test_grouped_record_kernels_equal_the_twin(size, monkeypatch):
    """The kernels that take grouped records (code tables, search state, node
    scratch) against the brute-force twin on a whole small space, with one and two
    workers sharing their caches; and the engine's decision with a fresh scratch."""
    monkeypatch.setattr(optimal, "MERGE_AFTER_SECONDS", -1.0)
    space, matrix = load_game(*size)
    expected = _brute(space, matrix, 62)
    for workers in (1, 2):
        search = optimal.OptimalSearch(space, matrix, None, workers)
        total, tree = optimal.search_and_build(space, matrix, None, search)
        assert total == expected == tree.guesses().sum()
    knuth = STRATEGIES["knuth"]
    members = np.arange(space.size, dtype=np.int32)
    guess = engine.choose_guess(knuth.adapter, space.tables(matrix), knuth.rules, members, 0,
                                space.size, -1, np.uint64(0), False,
                                engine.new_scratch(space.size, space.pegs))
    _, rows = ref.play_all("knuth", *size, 0, np.ones(space.size, np.int8))
    assert guess == rows[0][0]   # Knuth's score does not depend on the decision key


def _node(size, history, secret, with_matrix=True):
    """The consistent set left by ``history`` for ``secret`` (indices reduced modulo
    the space), with its used colours, on tables with or without the matrix."""
    space, matrix = load_game(*size)
    history = [h % space.size for h in history]
    secret %= space.size
    members = np.arange(space.size)
    for h in history:
        members = members[matrix[h, members] == matrix[h, secret]]
    used = np.zeros(space.colours, np.bool_)
    for h in history:
        used[space.digits[h]] = True
    if not with_matrix:
        matrix = np.zeros((0, 0), np.uint8)
    return space, matrix, history, members.astype(np.int32), used


NODES = st.tuples(st.sampled_from([(3, 4, True), (2, 5, True), (3, 5, False)]),
                  st.lists(st.integers(0, 10 ** 6), max_size=2), st.integers(0, 10 ** 6))


@pytest.mark.kernel
@given(NODES, st.sampled_from([2, 3, 62]), st.sampled_from([12, 40, optimal.INFEASIBLE + 1]),
       st.booleans())
@settings(max_examples=40)
def test_candidate_lists_equal_the_twin(node, remaining, bound, with_matrix):
    """Every candidate with its estimate, in code order: the bit-mask estimate (small
    sets), the tally (larger ones) and the matrix-less one against the twin."""
    space, matrix, history, src, used = _node(*node, with_matrix=with_matrix)
    assume(src.size >= 2)
    search = optimal.OptimalSearch(space, matrix, remaining)
    state = search.states[0]
    state.history[:len(history)] = history
    tables = space.tables(matrix)
    filters = candidates.node_filters(tables, src, 0, src.size, len(history), used,
                                   state.history, state.perms)
    slots = (space.pegs + 1) ** 2
    scratch = candidates.new_node_scratch(space.pegs, space.colours, np.zeros(slots, np.int64))
    expected = ref.list_candidates(tables, src, 0, src.size, remaining, bound, len(history),
                                   used, None, filters, None, False)
    unfiltered = set(ref.list_candidates(tables, src, 0, src.size, remaining, bound,
                                         len(history), used, None, None, None, False))

    def check(n_cand):
        """Rows in code order, each right; those the filters keep are the twin's."""
        rows = [tuple(int(x) for x in r) for r in state.order_keys[len(history), :n_cand]]
        assert rows == sorted(rows, key=lambda r: r[1]) and set(rows) <= unfiltered
        kept = [r for r in rows if candidates.canonical(tables, r[1], filters, used, scratch)]
        assert kept == expected

    check(candidates.list_candidates(tables, src, 0, src.size, remaining, bound, len(history),
                                  used, state, filters, scratch, False))
    assert not state.tally.any()   # left zero for the next node
    # the same after the fast cases left their answer masks
    _, guess = candidates.fast_case(tables, src, 0, src.size, remaining, state.masks,
                                 np.zeros(slots, np.int64))
    # the masks are left when no member splits the set apart (else the search is done)
    by_masks = matrix.shape[0] > 0 and slots <= 64 and src.size <= slots  # fast_case's rule
    ready = by_masks and (
        guess < 0 or guess not in src or ref.fast_case(tables, src, 0, src.size, remaining,
                                                        None, None)[0] != 2 * src.size - 1)
    check(candidates.list_candidates(tables, src, 0, src.size, remaining, bound, len(history),
                                  used, state, filters, scratch, ready))


@pytest.mark.kernel
@given(NODES, st.integers(0, 80), st.booleans(), st.booleans())
@settings(max_examples=40)
def test_set_bounds_equal_the_twin(node, cap, unlimited, with_matrix):
    """The one-level-deeper bound of a set (least estimate over every guess, clipped at
    ``cap``) against the twin; the tally is left zero for the next node."""
    space, matrix, history, src, used = _node(*node, with_matrix=with_matrix)
    assume(src.size >= 2)
    if unlimited:
        cap = optimal.INFEASIBLE
    search = optimal.OptimalSearch(space, matrix, None)
    state = search.states[0]
    tables = space.tables(matrix)
    ours = candidates.set_bound(tables, src, 0, src.size, cap, state)
    assert int(ours) == ref.set_bound(tables, src, 0, src.size, cap)
    assert not state.tally.any()


@pytest.mark.kernel
@given(st.integers(2, 40), st.integers(0, 120), st.booleans(), st.sampled_from([3, 4, 5]))
@settings(max_examples=40)
def test_bounds_by_number_of_classes_equal_the_twin(m, cap, unlimited, pegs):
    """The bound of a guess by its number of classes (the even split) against every
    composition of the codes into that many classes, and the fewest classes below cap."""
    lb = candidates.lower_bounds(200, candidates.branches(pegs))
    if unlimited:
        cap = optimal.INFEASIBLE
    by_parts = np.zeros((2, 65), np.int64)
    need = candidates.parts_bounds(m, cap, lb, by_parts, 65)
    table, need_other, need_member = ref.parts_bounds(m, cap, lb)
    assert {key: int(by_parts[key]) for key in table} == table
    assert int(by_parts[0, 0]) == int(by_parts[0, 1]) == int(by_parts[1, 1]) == cap
    assert tuple(int(x) for x in need) == (65 if need_other is None else need_other,
                                            65 if need_member is None else need_member)


@pytest.mark.kernel
@given(NODES, st.integers(0, 80), st.booleans(), st.booleans())
@settings(max_examples=40)
def test_colour_bounds_equal_the_twin(node, cap, unlimited, with_matrix):
    """The bound of a set from its colours alone against the twin, and never above the
    one-level-deeper bound (which it bounds from below)."""
    space, matrix, history, src, used = _node(*node, with_matrix=with_matrix)
    assume(src.size >= 2)
    if unlimited:
        cap = optimal.INFEASIBLE
    state = optimal.OptimalSearch(space, matrix, None).states[0]
    tables = space.tables(matrix)
    ours = int(candidates.colour_bound(tables, src, 0, src.size, cap, state))
    assert ours == ref.colour_bound(tables, src, 0, src.size, cap)
    assert ours <= ref.set_bound(tables, src, 0, src.size, cap)
    assert not state.multisets.weight.any()   # left zero for the next call


@pytest.mark.kernel
@given(st.sampled_from([(3, 4, True), (4, 3, True), (3, 5, False), (2, 5, True)]),
       st.lists(st.integers(0, 10 ** 6), min_size=1, max_size=2), st.integers(0, 10 ** 6))
@settings(max_examples=25)
def test_colour_bound_never_exceeds_the_optimum(size, history, secret):
    """Admissible: on small consistent sets the colour bound (no cap) is at most the
    exact optimum of the brute-force twin, so every cut it makes is exact."""
    space, matrix, history, src, used = _node(size, history, secret)
    assume(2 <= src.size <= 10)
    state = optimal.OptimalSearch(space, matrix, None).states[0]
    tables = space.tables(matrix)
    bound = int(candidates.colour_bound(tables, src, 0, src.size, optimal.INFEASIBLE, state))
    optimum = ref.solve(tables, src, 0, src.size, 62, None, 0, 0, None, None)
    assert bound <= optimum


@pytest.mark.kernel
@given(st.lists(st.integers(0, 10 ** 6), min_size=1, max_size=2), st.integers(0, 10 ** 6),
       st.integers(-3, 3), st.sampled_from([(4, 4, True), (3, 6, True), (4, 5, False)]))
@settings(max_examples=25)
def test_set_bounds_near_their_value_equal_the_twin(history, secret, offset, size):
    """Caps just below, at and above the set's own bound (where the least bound found
    from the largest numbers of classes decides whether the guesses are tallied), on
    sets of up to a few dozen codes of 4 pegs (13 answers besides "solved": the
    tally is needed from 15 codes)."""
    space, matrix, history, src, used = _node(size, history, secret)
    assume(2 <= src.size <= 80)
    search = optimal.OptimalSearch(space, matrix, None)
    state = search.states[0]
    tables = space.tables(matrix)
    cap = ref.set_bound(tables, src, 0, src.size, optimal.INFEASIBLE) + offset
    ours = candidates.set_bound(tables, src, 0, src.size, cap, state)
    assert int(ours) == ref.set_bound(tables, src, 0, src.size, cap)
    assert not state.tally.any()


@pytest.mark.kernel
@given(st.tuples(st.sampled_from([(3, 4, True), (2, 5, True), (3, 5, False), (4, 3, True)]),
                 st.lists(st.integers(0, 10 ** 6), max_size=2), st.integers(0, 10 ** 6)),
       st.integers(0, 16), st.integers(0, 16))
@settings(max_examples=40)
def test_screened_guesses_equal_the_twin(node, need_other, need_member):
    """The guesses that set_bound's screen keeps (by the colours of the set alone)
    against the twin, and the screen never drops a guess that makes as many classes as
    needed (the bound it uses is an upper bound of a guess's number of classes)."""
    space, matrix, history, src, used = _node(*node)
    assume(src.size >= 1)
    search = optimal.OptimalSearch(space, matrix, None)
    state = search.states[0]
    tables = space.tables(matrix)
    kept = screen.screen_guesses(tables, state.multisets, src, 0, src.size, need_other,
                                 need_member, state.screened)
    ours = sorted(int(g) for g in state.screened[:kept])
    assert ours == ref.screen_guesses(tables, src, 0, src.size, need_other, need_member)
    assert not state.multisets.weight.any()   # left zero for the next call
    colours = {tuple(sorted(space.digits[s])) for s in src}
    for g in set(range(space.size)) - set(ours):
        need = need_member if tuple(sorted(space.digits[g])) in colours else need_other
        assert len(set(int(a) for a in matrix[g, src])) < need


@pytest.mark.kernel
@given(NODES, st.lists(st.integers(0, 10 ** 6), max_size=40))
@settings(max_examples=30)
def test_gathered_answer_masks_equal_the_twin(node, picks):
    """The answer masks of some guesses only, from the members' rows."""
    space, matrix, history, src, used = _node(*node)
    guesses = np.array(sorted({p % space.size for p in picks}), dtype=np.int64)
    ours = np.full(space.size, 7, dtype=np.uint32)
    twin = ours.copy()
    candidates.gather_answer_masks(matrix, src, 0, src.size, guesses, guesses.size, ours)
    ref.gather_answer_masks(matrix, src, 0, src.size, guesses, guesses.size, twin)
    assert ours.tolist() == twin.tolist()


@pytest.mark.kernel
@given(NODES, st.sampled_from([2, 3, 62]), st.booleans())
@settings(max_examples=40)
def test_fast_cases_equal_the_twin(node, remaining, with_matrix):
    space, matrix, history, src, used = _node(*node, with_matrix=with_matrix)
    assume(src.size >= 2)
    search = optimal.OptimalSearch(space, matrix, remaining)
    tables = space.tables(matrix)
    seen = np.zeros((space.pegs + 1) ** 2, np.int64)
    ours = candidates.fast_case(tables, src, 0, src.size, remaining, search.states[0].masks, seen)
    expected = ref.fast_case(tables, src, 0, src.size, remaining, None, None)
    assert tuple(int(x) for x in ours) == expected


@pytest.mark.kernel
@given(st.sampled_from([(3, 4, True), (2, 5, True), (3, 5, False)]),
       st.lists(st.integers(0, 10 ** 6), min_size=1, max_size=40))
@settings(max_examples=30)
def test_tallies_and_answer_masks_equal_the_twin(size, picks):
    space, matrix = load_game(*size)
    src = np.unique(np.array(picks) % space.size).astype(np.int32)
    search = optimal.OptimalSearch(space, matrix, None)
    state = search.states[0]
    tally, sums = state.tally.astype(np.int64), np.zeros(space.size, np.int64)
    guesses = np.unique(np.array(picks[::2]) % space.size)   # some guesses, in order
    ref.tally_classes(matrix, src, 0, src.size, state.steps, guesses, guesses.size, tally, sums)
    candidates.tally_classes(matrix, src, 0, src.size, state.steps, state.lb, guesses,
                             guesses.size, state.tally, state.sums)
    assert (state.tally == tally).all() and (state.sums[guesses] == sums[guesses]).all()
    candidates.clear_tally(matrix, guesses.size, state.tally)
    assert not state.tally.any()
    masks = [0] * space.size
    ref.answer_masks(matrix, src, 0, src.size, masks)
    candidates.answer_masks(matrix, src, 0, src.size, state.masks)
    assert [int(x) for x in state.masks] == masks
    assert [popcount(x) for x in state.masks] == [ref_bits.popcount(x) for x in masks]


@pytest.mark.kernel
@pytest.mark.parametrize("members", [1, 15, 16, 17, 64])
def test_tally_sums_by_either_pass_equal_the_twin(members):
    """Sets below and at or above the slots per guess (16 for 3 pegs): the class sums
    come from the per-member steps below, from ``lb`` of the finished tally above."""
    space, matrix = load_game(3, 4, True)
    state = optimal.OptimalSearch(space, matrix, None).states[0]
    assert state.tally.size // space.size == 16
    src = np.arange(0, 3 * members, 3, dtype=np.int32) % space.size
    guesses = np.arange(space.size)
    tally, sums = state.tally.astype(np.int64), np.zeros(space.size, np.int64)
    ref.tally_classes(matrix, src, 0, src.size, state.steps, guesses, guesses.size, tally, sums)
    candidates.tally_classes(matrix, src, 0, src.size, state.steps, state.lb, guesses,
                             guesses.size, state.tally, state.sums)
    assert (state.tally == tally).all() and (state.sums == sums).all()
    candidates.clear_tally(matrix, guesses.size, state.tally)


@pytest.mark.kernel
@given(st.sampled_from([(3, 4, True), (5, 2, True), (6, 2, True), (2, 5, True)]),
       st.lists(st.integers(0, 10 ** 6), min_size=1, max_size=40),
       st.lists(st.integers(0, 2 ** 31 - 1), min_size=1, max_size=8), st.booleans())
@settings(max_examples=30)
def test_answer_rows_added_to_masks_equal_the_twin(size, picks, start_bits, wide):
    """Answers OR-ed into masks that already hold bits, in 64 bits and (where every
    answer slot is below 32, up to 5 pegs) in the 32 bits the search uses; the
    members in any order (the kernel takes them eight, four, then one at a time)."""
    space, matrix = load_game(*size)
    src = (np.array(picks) % space.size).astype(np.int32)
    narrow = space.pegs * (space.pegs + 1) < 32
    dtype = np.uint64 if wide or not narrow else np.uint32
    masks = np.array([start_bits[g % len(start_bits)] for g in range(space.size)], dtype=dtype)
    expected = [int(x) for x in masks]
    ref.or_answer_rows(matrix, src, 0, src.size, expected)
    candidates.or_answer_rows(matrix, src, 0, src.size, masks)
    assert [int(x) for x in masks] == expected
    assert optimal.OptimalSearch(space, matrix, None).states[0].masks.dtype == (
        np.uint32 if narrow else np.uint64)


@pytest.mark.kernel
@given(st.lists(st.tuples(st.integers(1, 200), st.integers(0, 10 ** 6)), max_size=60),
       st.lists(st.tuples(st.integers(1, 200), st.integers(0, 10 ** 6)), max_size=60),
       st.sampled_from([32, 64]))
@settings(max_examples=40)
def test_cache_table_equals_the_twin(puts, others, slots):
    """A small table, so that probes wrap around and full neighbourhoods forget."""
    ours, twin = np.zeros((slots, 2), np.int64), [[0, 0] for _ in range(slots)]
    for key, entry in puts:
        solved_sets.cache_put(ours, key, entry)
        ref.cache_put(twin, key, entry)
    assert ours.tolist() == twin
    for key in range(1, 201):
        assert solved_sets.cache_get(ours, key) == ref.cache_get(twin, key)
    other = np.zeros((slots, 2), np.int64)
    for key, entry in others:
        solved_sets.cache_put(other, key, entry)
    solved_sets.merge_cache(ours, other)
    ref.merge_cache(twin, other.tolist())
    assert ours.tolist() == twin
    for key in range(1, 201):
        # the entry layout: (guess + 1) << GUESS_SHIFT | value << 1 | exact
        entry = ref.cache_get(twin, key)
        expected = (((entry >> 1) & solved_sets.VALUE_MASK, bool(entry & 1),
                     (entry >> solved_sets.GUESS_SHIFT) - 1) if entry >= 0 else (-1, False, -1))
        assert solved_sets.lookup(ours, key) == expected


@pytest.mark.kernel
@given(st.integers(0, (1 << 40) - 1), st.booleans(), st.integers(-1, 1 << 21))
def test_entries_pack_and_unpack(value, exact, guess):
    """What goes into an entry comes out: the value, exactness, and the guess of an
    exact value when it fits (below 2 ** 20 - 1), else none."""
    kept = guess if exact and guess + 1 < 1 << 20 else -1
    assert solved_sets.unpack_entry(solved_sets.pack_entry(value, exact, guess)) == (
        value, exact, kept)


@pytest.mark.parametrize("size,limit", [((4, 4, True), None), ((3, 5, False), 4)])
def test_a_tiny_cache_gives_the_same_tree(size, limit):
    """A table of 32 slots forgets nearly everything: the search and the tree are the
    same (only slower), on one worker and on two."""
    space, matrix = load_game(*size)
    expected = optimal.search_and_build(space, matrix, limit)
    for workers in (1, 2):
        search = optimal.OptimalSearch(space, matrix, limit, workers, cache_slots=32)
        total, tree = optimal.search_and_build(space, matrix, limit, search)
        assert (total, tree.table.tobytes()) == (expected[0], expected[1].table.tobytes())
