"""Branch and bound over jobs (jitgames/mastermind/optimal_plan.py): whatever order the
jobs finish in, however many run at once and whichever classes are split into child
nodes, the node's cost and the first candidate attaining it are those of the plain
minimum over the candidates' sums."""
import random

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
@given(GAME, st.integers(0, 2 ** 32), st.integers(1, 4), st.integers(1, 20))
def test_any_interleaving_gives_the_least_total(game, seed, parallel, size):
    rng = random.Random(seed)
    starts = [0]
    classes = [cls for candidate in game for cls in candidate]
    for candidate in game:
        starts.append(starts[-1] + len(candidate))
    root = Node(size, starts, [cls[0] for cls in classes])
    totals = [size + sum(_true(cls) for cls in candidate) for candidate in game]
    running = []  # (path, budget)
    steps = 0
    while True:
        steps += 1
        assert steps < 10_000
        root.settle_children(BOUND)
        while len(running) < parallel:
            found = root.next_task(BOUND)
            if found is None:
                break
            path, budget = found
            k = path[0]
            if len(path) == 1 and classes[k][2] is not None and k not in root.children:
                low, _, tasks = classes[k]
                child = Node(0, range(len(tasks) + 1), [low] * len(tasks))
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
