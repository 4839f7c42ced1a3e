"""Strategies: the engine against its reference twin, Knuth's figures, splitting, trees."""
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jitgames._jit import jit, threads
from jitgames._random import stream_key
from jitgames.mastermind import STRATEGIES, evaluate, merge, register, strategy_tree
from jitgames.mastermind import engine, strategies
from jitgames.mastermind.codes import code_space
from jitgames.mastermind.codes import load_game
from jitgames.mastermind.symmetry import position_permutations
from jitgames.mastermind.tree import DecisionTree
from tests.reference import mastermind as ref

KNOWN = json.loads((Path(__file__).parent / "data" / "mastermind_known.json").read_text())
GREEDY = [name for name, s in STRATEGIES.items() if not s.optimal]


def _paths(table):
    """Tree as {path of answers: guess}, independent of row order."""
    path = {}
    for row, (guess, parent, answer, _) in enumerate(table):
        path[row] = () if parent < 0 else path[parent] + (int(answer),)
    return {path[r]: int(table[r][0]) for r in range(len(table))}


def _engine(name, space, matrix, seed, tracked):
    s = STRATEGIES[name]
    first = s.first_guess(space, seed) if s.first_guess else -1
    guesses = np.zeros(space.size, np.int32)
    tree = np.zeros((4 * space.size + 1, 4), np.int32)
    task = engine.Task(first, tracked, guesses, position_permutations(space.pegs))
    rows = engine.play_all(s.adapter, space.tables(matrix), s.rules, task,
                           np.uint64(stream_key(seed, 1)), 2, tree)
    return guesses, tree[:rows]


@pytest.mark.kernel
@settings(max_examples=min(20, settings.default.max_examples))
@given(st.sampled_from([(2, 3, True), (3, 3, True), (2, 4, True), (3, 4, False)]),
       st.sampled_from(GREEDY), st.integers(0, 2 ** 32), st.lists(st.booleans(), min_size=1))
def test_engine_matches_reference(size, name, seed, mask):
    pegs, colours, repeats = size
    space = code_space(pegs, colours, repeats)
    tracked = np.resize(np.array(mask, np.int8), space.size)
    theirs = ref.play_all(name, pegs, colours, repeats, seed, tracked)
    for matrix in (load_game(pegs, colours, repeats)[1], np.zeros((0, 0), np.uint8)):
        ours = _engine(name, space, matrix, seed, tracked)
        assert (ours[0] == theirs[0]).all()
        assert _paths(ours[1]) == _paths(theirs[1])


def _twin_nodes(rows, pegs, colours, repeats, seed):
    """Each node of a twin tree with its consistent set, previous guess and key,
    rebuilt from the rules (the root holds every code)."""
    codes = ref.all_codes(pegs, colours, repeats)
    state = []
    for guess, parent, answer, _ in rows:
        if parent < 0:
            state.append((list(range(len(codes))), -1, ref.stream_key(seed, 1)))
            continue
        members, _, key = state[parent]
        parent_guess = rows[parent][0]
        left = [s for s in members
                if ref.code_feedback(codes[parent_guess], codes[s], pegs) == answer]
        state.append((left, parent_guess, ref.child_key(key, parent_guess, answer)))
    return state


@pytest.mark.kernel
@settings(max_examples=min(10, settings.default.max_examples))
@given(st.sampled_from([(2, 3, True), (3, 3, True), (2, 4, True)]),
       st.sampled_from(GREEDY), st.integers(0, 2 ** 32))
def test_choose_guess_is_the_twins_choice_at_every_node(size, name, seed):
    """The engine's single decision (the step-by-step breaker's), serial and in
    parallel blocks, equals the twin's guess at every node of the twin's tree."""
    pegs, colours, repeats = size
    space = code_space(pegs, colours, repeats)
    matrix = load_game(pegs, colours, repeats)[1]
    s = STRATEGIES[name]
    _, rows = ref.play_all(name, pegs, colours, repeats, seed, np.ones(space.size, np.int8))
    n = space.size
    checked = 0
    for (guess, parent, _, _), (members, previous, key) in zip(
            rows, _twin_nodes(rows, pegs, colours, repeats, seed)):
        if len(members) < 2 or (parent < 0 and s.first_guess is not None):
            continue
        for parallel in (False, True):
            chosen = engine.choose_guess(
                s.adapter, space.tables(matrix), s.rules, np.array(members, np.int32), 0,
                len(members), previous, np.uint64(key), parallel, engine.new_scratch(n, pegs))
            assert chosen == guess
        checked += 1
    assert checked >= 1


@pytest.mark.kernel
@pytest.mark.parametrize("pegs,colours,repeats", [(2, 3, True), (3, 3, True), (3, 4, False)])
def test_walk_tree_counts_the_twin_trees_guesses(pegs, colours, repeats):
    """Walking the twin's tree secret by secret (matrix or feedback computed on the fly)
    gives the guesses the twin counted while building it, and the twin's walk agrees on
    every secret (-1 for an untracked one in a branch left unexpanded)."""
    space = code_space(pegs, colours, repeats)
    tracked = (np.arange(space.size) % 3 != 1).astype(np.int8)
    for name in ("knuth", "random"):
        guesses, rows = ref.play_all(name, pegs, colours, repeats, 4, tracked)
        tree = DecisionTree(space, np.array(rows, np.int32))
        secrets = np.arange(space.size, dtype=np.int64)
        for matrix in (load_game(pegs, colours, repeats)[1], None):
            walked = tree.guesses(secrets, matrix)
            assert (walked[tracked == 1] == guesses[tracked == 1]).all()
            assert (walked[tracked == 1] >= 1).all()
        twin = np.empty(space.size, np.int32)
        ref.walk_tree(tree.table, tree.children(), (None, space.digits, space.counts, pegs),
                      secrets, twin)
        assert (walked == twin).all()


@pytest.mark.kernel
@given(st.lists(st.integers(0, 9), min_size=16, max_size=16), st.integers(0, 200),
       st.integers(-1, 24), st.integers(0, 2 ** 64 - 1))
def test_scoring_kernels_match_reference(sizes, guess, previous, key):
    sizes = np.array(sizes, np.int64)
    sizes[0] = max(sizes[0], 1)
    for name in ("knuth_score", "expected_size_score", "entropy_score", "most_parts_score",
                 "random_score", "cooley_score"):
        ours = getattr(strategies, name)(sizes, guess, previous, np.uint64(key))
        assert ours == pytest.approx(getattr(ref, name)(sizes, guess, previous, key), abs=1e-12)
    assert engine.child_key(np.uint64(key), guess, previous + 1) == ref.child_key(
        key, guess, previous + 1)


def test_knuth_figures_exactly_and_first_guess_by_rule():
    known = next(v for v in KNOWN["values"]
                 if (v["strategy"], v["pegs"], v["colours"], v["repeats"]) == ("knuth", 4, 6, True))
    result = evaluate("knuth", 4, 6)
    assert (result.total, result.max) == (known["total"], known["max"])
    assert result.distribution == {int(k): v for k, v in known["distribution"].items()}
    assert round(result.mean, 3) == 4.476
    tree = strategy_tree("knuth", 4, 6)
    assert tree.space.format(tree.table[0, 0]) == known["first_guess"]


def test_most_parts_total_from_the_literature():
    known = next(v for v in KNOWN["values"]
                 if (v["strategy"], v["pegs"], v["colours"], v["repeats"]) == ("most-parts", 4, 6, True))
    result = evaluate("most-parts", 4, 6)
    assert (result.total, result.max) == (known["total"], known["max"])


@pytest.mark.parametrize("pegs,colours,repeats", [(4, 6, True), (3, 5, True), (4, 6, False)])
@pytest.mark.parametrize("name", GREEDY)
def test_every_tree_solves_every_secret_with_legal_guesses(name, pegs, colours, repeats):
    tree = strategy_tree(name, pegs, colours, repeats, seed=7)
    space = tree.space
    assert ((tree.table[:, 0] >= 0) & (tree.table[:, 0] < space.size)).all()
    counts = tree.guesses()
    assert (counts >= 1).all()
    assert (counts == evaluate(name, pegs, colours, repeats, seed=7).guesses).all()
    rebuilt = type(tree).from_dict(space, json.loads(tree.to_json())["tree"])
    assert (rebuilt.guesses() == counts).all()


@pytest.mark.parametrize("name", ["knuth", "cooley", "random", "entropy"])
def test_chunks_merge_into_the_whole(name):
    whole = evaluate(name, 4, 6, seed=3)
    chunks = np.array_split(np.random.default_rng(1).permutation(1296), 5)
    merged = merge([evaluate(name, 4, 6, seed=3, secrets=c) for c in chunks])
    assert (merged.secrets == whole.secrets).all() and (merged.guesses == whole.guesses).all()
    assert merged.total == whole.total and merged.distribution == whole.distribution


def test_merge_refuses_overlaps_and_mixtures():
    a = evaluate("knuth", 3, 3, secrets=[0, 1])
    with pytest.raises(ValueError, match="share"):
        merge([a, evaluate("knuth", 3, 3, secrets=[1, 2])])
    with pytest.raises(ValueError, match="same strategy"):
        merge([a, evaluate("entropy", 3, 3, secrets=[5])])


@pytest.mark.parametrize("name", ["knuth", "random"])
def test_thread_count_does_not_change_results(name):
    results = []
    for n in (1, 2):
        with threads(n):
            results.append(strategy_tree(name, 4, 6, seed=5).table)
    assert _paths(results[0]) == _paths(results[1])


def test_random_strategies_depend_on_seed_only():
    a, b = evaluate("cooley", 4, 6, seed=1), evaluate("cooley", 4, 6, seed=1)
    assert (a.guesses == b.guesses).all()
    totals = {evaluate("random", 4, 6, seed=s).total for s in range(4)}
    assert len(totals) > 1
    space = code_space(4, 6)
    for seed in range(20):
        opening = space.format(strategies.cooley_first_guess(space, seed))
        assert sorted(opening.count(c) for c in set(opening)) == [1, 1, 2]


def test_cooley_plays_least_similar_consistent_code():
    tree = strategy_tree("cooley", 4, 6, seed=2)
    space, matrix = load_game(4, 6)
    kids = tree.children()
    root = tree.table[0, 0]
    for f in np.flatnonzero(kids[0] >= 0):
        consistent = np.flatnonzero(matrix[root] == f)
        nxt = tree.table[kids[0, f], 0]
        assert nxt in consistent
        assert matrix[root, nxt] == matrix[root, consistent].min()


def test_a_strategy_is_one_scoring_kernel():
    @register("test-min-pairs", perfect_split_best=True)
    @jit
    def min_pairs(sizes, guess, previous, key):
        return float((sizes * (sizes - 1)).sum())

    try:
        result = evaluate("test-min-pairs", 3, 4)
        assert (result.guesses >= 1).all()
        assert result.total == evaluate("expected-size", 3, 4).total  # same ordering
    finally:
        del STRATEGIES["test-min-pairs"]


def test_on_the_fly_feedback_equals_matrix():
    small = evaluate("knuth", 3, 5, max_matrix_bytes=10)
    assert (small.guesses == evaluate("knuth", 3, 5).guesses).all()
