"""Symmetry filters: twins of the kernels, the property they rely on, and that the
engine's shortcuts (filters, blocked counting) change no decision."""
from itertools import permutations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jitgames._random import stream_key
from jitgames.mastermind import STRATEGIES, engine, symmetry
from jitgames.mastermind.codes import load_game
from jitgames.mastermind.symmetry import position_permutations
from tests.reference import mastermind as ref

PARTITION_ONLY = [name for name, s in STRATEGIES.items() if s.partition_only]


@pytest.mark.kernel
@given(st.lists(st.integers(0, 63), min_size=1, max_size=12), st.integers(0, 2 ** 9 - 1),
       st.booleans())
def test_colour_helpers_match_reference(members, mask, repeats):
    space, _ = load_game(3, 4)
    members = np.array(members, np.int32)
    present = symmetry.present_colours(space.digits, members, 0, members.size)
    assert present == ref.present_colours(space.digits, members, 0, members.size)
    for code in range(space.size):
        row = space.digits[code]
        assert symmetry.absent_canonical(row, mask, repeats) == ref.absent_canonical(
            row, mask, repeats)
    for n, pegs, colours in ((64, 3, 4), (24, 3, 4), (10 ** 6, 14, 35), (1296, 4, 6)):
        assert symmetry.repeats_allowed(n, pegs, colours) == ref.repeats_allowed(
            n, pegs, colours)


def _node(space, matrix, history, secret):
    """Consistent codes after the history (guesses answered as for ``secret``), and the
    colours the history used."""
    members = np.arange(space.size)
    used = np.zeros(space.colours, np.bool_)
    for h in history:
        members = members[matrix[h, members] == matrix[h, secret]]
        used[space.digits[h]] = True
    return members.astype(np.int32), used


def _marks(space, matrix, history, secret):
    members, used = _node(space, matrix, history, secret)
    perms = np.array(list(permutations(range(space.pegs))), np.int64)
    group, maps = symmetry.history_group(space.digits, used, space.colours,
                                         np.array(history + [0], np.int64), len(history),
                                         perms)
    present = symmetry.present_colours(space.digits, members, 0, members.size)
    absent = ~present & ((1 << space.colours) - 1)
    marks = np.full(space.size, 7, np.int8)
    symmetry.mark_representatives(space.digits, used, space.colours, group, maps, absent,
                                  space.repeats, marks)
    return members, (group, maps, used, absent), marks


@pytest.mark.kernel
@given(st.sampled_from([(3, 3, True), (2, 4, True), (3, 4, True), (3, 5, False)]),
       st.lists(st.integers(0, 63), max_size=2), st.integers(0, 63))
def test_marks_match_reference(size, history, secret):
    space, matrix = load_game(*size)
    history = [h % space.size for h in history]
    members, (group, maps, used, absent), ours = _marks(space, matrix, history,
                                                       secret % space.size)
    theirs = np.full(space.size, 7, np.int8)
    ref.mark_representatives(space.digits, used, space.colours, group, maps, absent,
                             space.repeats, theirs)
    assert (ours == theirs).all()


@given(st.sampled_from([(4, 4, True), (3, 5, True), (4, 5, True), (3, 6, False),
                        (4, 7, False)]),
       st.lists(st.integers(0, 10 ** 6), max_size=3), st.integers(0, 10 ** 6))
@settings(max_examples=30)
def test_every_dropped_code_has_a_smaller_equivalent(size, history, secret):
    """What the filters promise: same class sizes, same consistency, smaller code."""
    space, matrix = load_game(*size)
    history = [h % space.size for h in history]
    members, _, marks = _marks(space, matrix, history, secret % space.size)
    slots = (space.pegs + 1) ** 2
    sizes = np.zeros((space.size, slots), np.int64)
    for s in members:
        sizes[np.arange(space.size), matrix[:, s]] += 1
    member = np.zeros(space.size, bool)
    member[members] = True
    assert marks[0] == 1 or member.sum() == 0
    for g in np.flatnonzero(marks == 0):
        same = (sizes[:g] == sizes[g]).all(axis=1) & (member[:g] == member[g])
        assert same.any(), space.format(g)


@pytest.mark.kernel
@given(st.lists(st.integers(0, 63), min_size=1, max_size=10, unique=True),
       st.lists(st.booleans(), min_size=64, max_size=64))
def test_first_splitting_code_matches_reference(members, marks):
    _, matrix = load_game(3, 4)
    members = np.array(sorted(members), np.int32)
    marks = np.array(marks, np.int8)
    assert engine.first_splitting_code(matrix, members, 0, members.size, marks) == \
        ref.first_splitting_code(matrix, members, 0, members.size, marks)


def _table(name, space, matrix, partition_only):
    s = STRATEGIES[name]
    guesses = np.zeros(space.size, np.int32)
    tree = np.zeros((4 * space.size + 1, 4), np.int32)
    task = engine.Task(-1, np.ones(space.size, np.int8), guesses,
                       position_permutations(space.pegs))
    rows = engine.play_all(s.adapter, space.tables(matrix),
                           s.rules._replace(partition_only=partition_only), task,
                           np.uint64(stream_key(0, 1)), 2, tree)
    return guesses, tree[:rows]


@pytest.mark.parametrize("size", [(4, 6, True), (3, 7, True), (4, 7, False)])
@pytest.mark.parametrize("name", PARTITION_ONLY)
def test_shortcuts_change_no_decision(size, name):
    """Symmetry filters on/off and matrix (blocked counting, sequential split test) or
    on-the-fly feedback: the same tree, row for row."""
    space, matrix = load_game(*size)
    plain = _table(name, space, np.zeros((0, 0), np.uint8), False)
    for m, filtered in ((matrix, True), (matrix, False), (np.zeros((0, 0), np.uint8), True)):
        ours = _table(name, space, m, filtered)
        assert (ours[0] == plain[0]).all()
        assert (ours[1] == plain[1]).all()
