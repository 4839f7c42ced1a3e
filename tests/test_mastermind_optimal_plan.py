"""Branch and bound over jobs (jitgames/mastermind/optimal_plan.py): whatever order the
jobs finish in, however many run at once, whichever classes are split into child
nodes, however many candidates a node lets run at once (its window, widened or not)
and whichever classes wait for earlier ones (stages), the node's cost and the first candidate
attaining it are those of the plain minimum over the candidates' sums."""
import random

import pytest

from hypothesis import given, settings
from hypothesis import strategies as st

from jitgames.mastermind.candidates import INFEASIBLE
from jitgames.mastermind.optimal_plan import Node

BOUND = INFEASIBLE + 1

# A game: candidates, each a list of classes; a class is (lower bound, true cost,
# None) or (lower bound, true cost, child tasks' true costs) when it is split, its
# cost then being the least of its tasks.
CLASS = st.integers(1, 30).flatmap(lambda low: st.tuples(
    st.just(low), st.integers(low, low + 40),
    st.one_of(st.none(), st.lists(st.integers(0, 40), min_size=1, max_size=4))))
GAME = st.lists(st.lists(CLASS, min_size=1, max_size=4), min_size=1, max_size=6)


def _true(cls):
    low, cost, tasks = cls
    return cost if tasks is None else low + min(tasks)


def _search(value, budget, rng):
    """What a kernel search with a budget may answer: exact below it, else any
    proved lower bound at least the budget (never above the true value)."""
    if value < budget:
        return value, True
    return rng.randint(budget, value), False


@settings(max_examples=150, deadline=None)
@given(GAME, st.integers(0, 2 ** 32), st.integers(1, 4), st.integers(1, 20),
       st.one_of(st.none(), st.integers(1, 3)), st.integers(0, 3), st.booleans())
def test_any_interleaving_gives_the_least_total(game, seed, parallel, size, window, spare,
                                                early):
    """(``spare``: a task is looked for in windows widened by up to that much, by a
    random amount each time, as an idle thread of RunPlan does; ``early``: the later
    candidates start once the first is bounded above, or not.)"""
    rng = random.Random(seed)
    starts = [0]
    classes = [cls for candidate in game for cls in candidate]
    for candidate in game:
        starts.append(starts[-1] + len(candidate))
    # stages: random, never decreasing along a candidate's classes
    stage = [x for candidate in game
             for x in sorted(rng.randint(0, 2) for _ in candidate)]
    root = Node(size, starts, [cls[0] for cls in classes], window=window, stage=stage,
                early_start=early)
    totals = [size + sum(_true(cls) for cls in candidate) for candidate in game]
    running = []  # (path, budget)
    steps = 0
    while True:
        steps += 1
        assert steps < 10_000
        root.settle_children(BOUND)
        while len(running) < parallel:
            widen = rng.randint(0, spare)
            found = root.next_task(BOUND, widen=widen)
            # one walk finds what widening by 0, 1, ... in turn finds first
            assert found == next((task for w in range(widen + 1)
                                  if (task := root.next_task(BOUND, widen=w)) is not None),
                                 None)
            if found is None:
                break
            path, budget = found
            k = path[0]
            if len(path) == 1 and classes[k][2] is not None and k not in root.children:
                low, _, tasks = classes[k]
                child = Node(0, range(len(tasks) + 1), [low] * len(tasks), window=window)
                root.attach(k, child)
                continue
            node = root if len(path) == 1 else root.children[k]
            node.running.add(path[-1])
            running.append((path, budget))
        if not running:
            break
        path, budget = running.pop(rng.randrange(len(running)))
        k = path[0]
        if len(path) == 1:
            root.running.discard(k)
            root.record(k, *_search(_true(classes[k]), budget, rng))
        else:
            child = root.children[k]
            child.running.discard(path[1])
            low, _, tasks = classes[k]
            child.record(path[1], *_search(low + tasks[path[1]], budget, rng))
    assert root.settled(BOUND)
    least = min(totals)
    assert root.result(BOUND) == (least, True)
    assert root.best_guess == totals.index(least)


def test_a_bound_below_every_total_gives_a_lower_bound():
    """A node that cannot matter (its bound below every candidate's total) settles
    with a proved lower bound at least the bound, not an exact value."""
    root = Node(3, [0, 1, 2], [5, 5])
    found = root.next_task(10)
    while found is not None:
        path, budget = found
        root.running.add(path[0])
        root.running.discard(path[0])
        root.record(path[0], max(budget, 9), False)
        found = root.next_task(10)
    assert root.settled(10)
    value, exact = root.result(10)
    assert not exact and value >= 10


def _ready(node, bound):
    """Candidates of the classes that may start now (marked running as handed out)."""
    owners = []
    found = node.next_task(bound)
    while found is not None:
        owners.append(node.owner[found[0][0]])
        node.running.add(found[0][0])
        found = node.next_task(bound)
    return owners


def test_the_window_holds_back_later_candidates_until_earlier_ones_close():
    """Once a total is known, only the first ``window`` open candidates may start; a
    later one starts when an earlier one closes, with the budget the best total gives."""
    starts = [0, 1, 2, 3, 4, 5]  # five candidates, one class each
    with_window = Node(1, starts, [5] * 5, window=2)
    unlimited = Node(1, starts, [5] * 5)
    for node in (with_window, unlimited):
        assert _ready(node, BOUND) == [0]  # no bound yet: the first candidate alone
        node.running.discard(0)
        node.record(0, 20, True)  # candidate 0 totals 21
    assert _ready(unlimited, BOUND) == [1, 2, 3, 4]
    assert _ready(with_window, BOUND) == [1, 2]
    with_window.running.discard(1)
    with_window.record(1, 20, False)  # candidate 1 cut: 3 enters the window
    assert _ready(with_window, BOUND) == [3]
    with_window.running.discard(2)
    with_window.record(2, 9, True)  # candidate 2 totals 10: 4 starts with that bound
    assert with_window.next_task(BOUND) == ((4,), 9)


def test_a_widened_window_lets_later_candidates_start():
    """``widen`` opens that many more candidates, in order, with the same budgets (an
    idle thread's task); without a total only the first candidate runs, widened or not."""
    starts = [0, 1, 2, 3, 4, 5]
    node = Node(1, starts, [5] * 5, window=2)
    assert node.next_task(BOUND, widen=3) == ((0,), INFEASIBLE)
    node.running.add(0)
    assert node.next_task(BOUND, widen=3) is None  # no bound yet
    node.running.discard(0)
    node.record(0, 20, True)  # candidate 0 totals 21
    assert node.next_task(BOUND, widen=2) == ((1,), 20)  # inside the window first
    assert _ready(node, BOUND) == [1, 2]
    assert node.next_task(BOUND, widen=1) == ((3,), 20)
    node.running.add(3)
    assert node.next_task(BOUND, widen=1) is None
    assert node.next_task(BOUND, widen=2) == ((4,), 20)


def test_a_stage_waits_until_the_earlier_ones_are_exact():
    """Classes of a later stage start only once every earlier class of their candidate
    is known exactly, with the budget that the exact values leave."""
    node = Node(1, [0, 3, 4], [2, 5, 5, 10], stage=[0, 1, 1, 0])
    assert _ready(node, BOUND) == [0]  # no bound yet: candidate 0's first stage alone
    node.running.discard(0)
    node.record(0, 4, True)
    assert _ready(node, BOUND) == [0, 0]  # classes 1 and 2 together
    for k, value in ((1, 6), (2, 7)):
        node.running.discard(k)
        node.record(k, value, True)  # candidate 0 totals 1 + 4 + 6 + 7 = 18
    assert node.next_task(BOUND) == ((3,), 17)


def test_stages_are_one_per_class():
    with pytest.raises(ValueError, match="one stage per class"):
        Node(1, [0, 2], [1, 1], stage=[0])


def test_a_child_total_bounds_later_candidates_before_the_first_total():
    """Once every class of the first candidate is exact or a child with a total, that
    strategy's cost (an upper bound) lets the later candidates start, with the budget
    it gives, before the first candidate's total is exact; the result is unchanged."""
    root = Node(2, [0, 1, 2], [3, 3], early_start=True)
    child = Node(0, [0, 1, 2], [3, 3])
    root.attach(0, child)
    assert root.next_task(BOUND)[0] == (0, 0)  # the child's first candidate
    child.running.add(0)
    assert root.next_task(BOUND) is None  # no total anywhere yet
    child.running.discard(0)
    child.record(0, 7, True)  # the child's first candidate totals 7
    assert root.next_task(BOUND) == ((0, 1), 7)
    child.running.add(1)
    assert root.next_task(BOUND) == ((1,), 7)  # 2 + 7 = 9 bounds candidate 1: 9 - 2
    assert (root.upper, root.upper_at, root.best) == (9, 0, INFEASIBLE)
    root.running.add(1)
    child.running.discard(1)
    child.record(1, 7, False)  # the child's second candidate costs at least 7
    root.running.discard(1)
    root.record(1, 7, False)  # candidate 1 costs at least 2 + 7 = 9: candidate 0 wins ties
    root.settle_children(BOUND)
    assert root.settled(BOUND)
    assert root.result(BOUND) == (9, True) and root.best_guess == 0
