"""Research prototype: does h² (reachability over pairs of facts) prove Yukon and
Alaska deals lost at the root, where ``family_bound.py``'s delete-free bound cannot?

    python bench/solitaire_family_h2.py [--deals 400] [--node-limit 100000] [--depth 2]

A bench-only prototype: the fixed point is a plain ``numba.njit`` function here, not a
``jitgames._jit.jit`` kernel of the package, and the package's search is untouched.

The model (an exact STRIPS model of the game)
---------------------------------------------
Piles are labelled 0..6 as dealt (the twin, ``tests/reference/solitaire_family.py``,
and the kernels keep that order and put a king into the *first* empty pile). A
*location* ``x`` is a card (0..51) or the bottom of pile ``p`` (``52 + p``). Facts:

- ``home(c)``: card ``c`` is on its foundation;
- ``clear(x)``: nothing lies on ``x`` (for a pile bottom: the pile is empty);
- ``up(c)``: ``c`` is face up -- only for cards face down in the model's start
  position (a face-up card never turns down, so for the others the fact is always
  true and is left out of every precondition);
- ``at(c, x)``: ``c`` lies directly on ``x``, for every location ``c`` can ever
  occupy: where it lies at the start, its places (the cards it may go on: Yukon the
  two cards of the other colour one rank higher; Alaska the cards of its suit one rank
  higher and lower) and, for a king, the seven pile bottoms.

Actions:

- ``move(c, x -> y)``, ``y != x`` a place of ``c`` (or a pile bottom for a king):
  pre ``{at(c,x), up(c), clear(y)}``; add ``{at(c,y), clear(x), up(x) if x is a card}``;
  del ``{at(c,x), clear(y)}``. A face-up card moves with every card on it, and those
  keep lying on what they lay on, so nothing about them changes.
- ``home(c from x)``: pre ``{at(c,x), up(c), clear(c), home(pred(c)) unless an ace}``;
  add ``{home(c), clear(x), up(x) if x is a card}``; del ``{at(c,x), clear(c)}``
  (nothing is ever put on a card at home).

Goal of a win: ``home(c)`` for all 52 cards.

Every real move is a model action: a run led by ``c`` from ``x`` onto the exposed card
``y`` (a place of ``c``) or into the empty pile ``y`` (a king) is ``move(c, x -> y)``;
a foundation play is ``home(c from x)``; the card freed under ``c`` turns up, which is
``up(x)``. The real game then makes its automatic (provably safe) foundation plays;
each of those is a ``home`` action whose precondition holds at that point, so a real
move is one model action followed by zero or more ``home`` actions, and the model's
reachable states contain (the images of) the real ones. The model has more: a king
at the bottom of a pile may move to another empty pile, a run may be put on a card of
its own run, a safe play may be postponed. More transitions only enlarge the
reachable set, so "no reachable model state has every card home" still proves that
no real line wins. ``check_mapping`` verifies the correspondence state by state
against the twin's move generator.

h² (Haslum and Geffner 2000)
----------------------------
``R`` is a set of pairs of facts (a singleton ``{p}`` is the pair ``(p, p)``),
initially every pair true in the start state, grown to a fixed point: for an action
``a`` whose precondition pairs are all in ``R``, add every pair within ``add(a)``; for
every fact ``q`` outside ``add(a) ∪ del(a)`` with ``(q, q)`` and ``(r, q)`` in ``R`` for
every ``r`` in ``pre(a)``, add ``(p, q)`` for every ``p`` in ``add(a)``. By induction over
the actions of a plan every pair of facts true together in a reachable state is in
``R`` (a pair survives an action or was made by it exactly by these rules), so a pair
of goal facts missing from ``R`` (or a goal singleton) proves the win unreachable:
the deal is lost. ``R`` is a symmetric bit matrix (one row of ``ceil(F / 64)`` words a
fact), so ``{q : (q,q) in R, (r,q) in R for all r in pre(a)}`` is the AND of a few rows.

What is measured
----------------
Deals 0..N-1 of seed 2026 under Yukon's and Alaska's rules, solved by the package's
search (one thread, ``--node-limit`` positions) for the exact status: (1) h² must
call the win reachable on every deal the search won (soundness smoke test); (2) of
the deals whose win is open, how many h² proves lost; (3) of the deals the search
proved lost (score or proven upper bound below 52), how many h² proves lost too;
(4) CPU seconds of h² a deal (model build in Python and fixed point apart). The cards
whose ``home`` fact is in ``R`` bound the score (a card at home in a reachable state has
its singleton in ``R``); they are checked against every exact score and compared with
the root bound of ``family_bound.py`` and the search's proven upper bound. With
``--depth D`` it also runs h² at every position within ``D`` player moves of the
root of each open deal and counts those it proves lost (what h² as the goal search's
pruning test at shallow positions would cut). Results go to
``bench/results/solitaire_family_h2.json`` with the machine.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numba
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from tests.reference import solitaire_family as ref  # noqa: E402

BOTTOM = 52            # location 52 + p: the bottom of pile p
N_LOCATIONS = 59


class Model:
    """The STRIPS model of the game from a start position (see the module docstring).

    ``facts[i]`` is ``("home", c)``, ``("clear", x)``, ``("up", c)`` or ``("at", c, x)``;
    ``index`` its inverse; ``actions[a]`` is ``(name, pre, add, delete)`` with tuples of
    fact ids; ``init`` the start state's facts; ``goal`` the 52 ``home`` facts.
    """

    def __init__(self, rules: str, piles, foundations):
        self.rules = rules
        self.facts = [("home", c) for c in range(52)] + [("clear", x) for x in range(N_LOCATIONS)]
        on_tableau, face_down, start = set(), set(), {}
        for p, (down, cards) in enumerate(piles):
            for h, card in enumerate(cards):
                on_tableau.add(card)
                start[card] = cards[h - 1] if h else BOTTOM + p
                if h < down:
                    face_down.add(card)
        self.face_down = face_down
        self.facts += [("up", c) for c in sorted(face_down)]
        self.locations = {}
        for c in sorted(on_tableau):
            locs = [start[c]] + [u for u in ref.places(rules, c) if u != start[c]]
            if c % 13 == 12:
                locs += [BOTTOM + p for p in range(7) if BOTTOM + p != start[c]]
            self.locations[c] = locs
            self.facts += [("at", c, x) for x in locs]
        self.index = {f: i for i, f in enumerate(self.facts)}
        self.actions = []
        for c, locs in self.locations.items():
            for x in locs:
                for y in locs:
                    if y == x or (y < BOTTOM and not ref.may_go_on(rules, c, y)) or (
                            y >= BOTTOM and c % 13 != 12):
                        continue   # the start location need not be a place
                    if y < BOTTOM and y not in on_tableau:
                        continue   # a card at home is never clear
                    self._add_action(("move", c, x, y), [self._at(c, x), self._up(c), self._clear(y)],
                                     [self._at(c, y), self._clear(x), self._up(x)],
                                     [self._at(c, x), self._clear(y)])
                pred = [] if c % 13 == 0 else [self.index["home", c - 1]]
                self._add_action(("home", c, x), [self._at(c, x), self._up(c), self._clear(c)] + pred,
                                 [self.index["home", c], self._clear(x), self._up(x)],
                                 [self._at(c, x), self._clear(c)])
        self.init = state_of(self, piles, foundations)
        self.goal = [self.index["home", c] for c in range(52)]

    def _at(self, c, x):
        return self.index["at", c, x]

    def _clear(self, x):
        return self.index["clear", x]

    def _up(self, x):
        """The id of ``up(x)``, or None when ``x`` is a pile bottom or always face up."""
        return self.index.get(("up", x))

    def _add_action(self, name, pre, add, delete):
        self.actions.append((name, tuple(f for f in pre if f is not None),
                             tuple(f for f in add if f is not None), tuple(delete)))


def state_of(model: Model, piles, foundations) -> frozenset:
    """The model state (a set of fact ids) of a twin position."""
    state = set()
    for c in range(52):
        if c % 13 < foundations[c // 13]:
            state.add(model.index["home", c])
            if ("up", c) in model.index:
                state.add(model.index["up", c])
    for p, (down, cards) in enumerate(piles):
        if not cards:
            state.add(model.index["clear", BOTTOM + p])
            continue
        state.add(model.index["clear", cards[-1]])
        for h, card in enumerate(cards):
            state.add(model.index["at", card, cards[h - 1] if h else BOTTOM + p])
            if h >= down and ("up", card) in model.index:
                state.add(model.index["up", card])
    return frozenset(state)


def applicable(model: Model, a: int, state) -> bool:
    return all(f in state for f in model.actions[a][1])


def result(model: Model, a: int, state) -> frozenset:
    _, _, add, delete = model.actions[a]
    return frozenset((set(state) - set(delete)) | set(add))


def action_of_move(model: Model, piles, move) -> int:
    """The model action of the twin's move ``(card, "F" | under | "empty")``."""
    card, target = move
    p = next(i for i, (_, cards) in enumerate(piles) if card in cards)
    cards = piles[p][1]
    h = cards.index(card)
    x = cards[h - 1] if h else BOTTOM + p
    if target == "F":
        name = ("home", card, x)
    elif target == "empty":
        name = ("move", card, x, BOTTOM + next(q for q, (_, c) in enumerate(piles) if not c))
    else:
        name = ("move", card, x, target)
    return next(a for a, act in enumerate(model.actions) if act[0] == name)


def check_mapping(model: Model, piles, foundations, move) -> list[int]:
    """The model actions of the twin's ``move`` from ``(piles, foundations)``: the
    player's action, then the ``home`` actions of the automatic plays. Raises
    AssertionError unless each is applicable in turn and the last state is exactly
    the image of the twin's next position."""
    state = state_of(model, piles, foundations)
    after = state_of(model, *ref.play(model.rules, piles, foundations, move))
    first = action_of_move(model, piles, move)
    assert applicable(model, first, state), (move, model.actions[first])
    state = result(model, first, state)
    taken = [first]
    while state != after:
        missing = [f for f in after - state if model.facts[f][0] == "home"]
        options = [a for a, act in enumerate(model.actions) if act[0][0] == "home"
                   and model.index["home", act[0][1]] in missing and applicable(model, a, state)]
        assert options, (move, sorted(model.facts[f] for f in after ^ state))
        state = result(model, options[0], state)
        taken.append(options[0])
    return taken


# ---------------------------------------------------------------------------------------
# h² as bit matrices


def arrays(model: Model):
    """``(n_facts, pre, add, delete, init)`` as int64 arrays (-1 padded) for :func:`h2`."""
    n = len(model.actions)
    pre = np.full((n, 4), -1, np.int64)
    add = np.full((n, 3), -1, np.int64)
    delete = np.full((n, 2), -1, np.int64)
    for a, (_, p, ad, d) in enumerate(model.actions):
        pre[a, :len(p)] = p
        add[a, :len(ad)] = ad
        delete[a, :len(d)] = d
    return len(model.facts), pre, add, delete, np.array(sorted(model.init), np.int64)


@numba.njit(cache=True)
def _bit(f):
    return np.uint64(1) << np.uint64(f & 63)


@numba.njit(cache=True)
def h2(n_facts, pre, add, delete, init):
    """The h² fixed point: ``R[p, q >> 6] >> (q & 63) & 1`` is 1 when the pair
    ``(p, q)`` may be true together in a reachable state (the module docstring)."""
    words = (n_facts + 63) // 64
    R = np.zeros((n_facts, words), np.uint64)
    diag = np.zeros(words, np.uint64)      # the singletons (p, p) in R
    for i in range(init.shape[0]):
        diag[init[i] >> 6] |= _bit(init[i])
        for j in range(init.shape[0]):
            R[init[i], init[j] >> 6] |= _bit(init[j])
    n = pre.shape[0]
    premask = np.zeros((n, words), np.uint64)
    keep = np.zeros((n, words), np.uint64)    # facts outside add(a) and del(a)
    addmask = np.zeros((n, words), np.uint64)
    for a in range(n):
        keep[a, :] = ~np.uint64(0)
        for k in range(pre.shape[1]):
            if pre[a, k] >= 0:
                premask[a, pre[a, k] >> 6] |= _bit(pre[a, k])
        for k in range(add.shape[1]):
            if add[a, k] >= 0:
                addmask[a, add[a, k] >> 6] |= _bit(add[a, k])
                keep[a, add[a, k] >> 6] &= ~_bit(add[a, k])
        for k in range(delete.shape[1]):
            if delete[a, k] >= 0:
                keep[a, delete[a, k] >> 6] &= ~_bit(delete[a, k])
    q = np.zeros(words, np.uint64)
    changed = True
    while changed:
        changed = False
        for a in range(n):
            ok = True
            for k in range(pre.shape[1]):
                r = pre[a, k]
                if r < 0:
                    break
                for w in range(words):
                    if R[r, w] & premask[a, w] != premask[a, w]:
                        ok = False
                        break
                if not ok:
                    break
            if not ok:
                continue
            for w in range(words):
                q[w] = diag[w] & keep[a, w]
            for k in range(pre.shape[1]):
                r = pre[a, k]
                if r < 0:
                    break
                for w in range(words):
                    q[w] &= R[r, w]
            for k in range(add.shape[1]):
                p = add[a, k]
                if p < 0:
                    break
                for w in range(words):
                    new = (q[w] | addmask[a, w]) & ~R[p, w]
                    if new == 0:
                        continue
                    changed = True
                    R[p, w] |= new
                    while new:
                        low = new & (~new + np.uint64(1))
                        other = w * 64 + _popcount_low(low)
                        R[other, p >> 6] |= _bit(p)
                        if other == p:
                            diag[p >> 6] |= _bit(p)
                        new ^= low
    return R


@numba.njit(cache=True)
def _popcount_low(low):
    """The index of the single set bit of ``low``."""
    i = 0
    while low > np.uint64(1):
        low >>= np.uint64(1)
        i += 1
    return i


def goal_unreachable(model: Model, R: np.ndarray) -> bool:
    """True when some pair (or singleton) of goal facts is not in ``R``: no reachable
    state has every card home."""
    goal = np.array(model.goal)
    rows = R[goal]
    bits = (rows[:, goal >> 6] >> (goal & 63).astype(np.uint64)) & np.uint64(1)
    return not bool(bits.all())


def reachable_homes(model: Model, R: np.ndarray) -> int:
    """Cards whose ``home`` fact h² keeps reachable (a bound of the score: a card goes
    home only after every lower card of its suit)."""
    return sum(int(R[f, f >> 6] >> np.uint64(f & 63) & np.uint64(1)) for f in model.goal)


def lost_by_h2(rules: str, piles, foundations):
    """``(proven lost, cards home reachable, facts, actions)`` of a twin position."""
    model = Model(rules, piles, foundations)
    R = h2(*arrays(model))
    return goal_unreachable(model, R), reachable_homes(model, R), len(model.facts), len(model.actions)


# ---------------------------------------------------------------------------------------
# the measurement


def _solve(decks, rules_code, node_limit):
    from jitgames._jit import threads
    from jitgames.solitaire.family_study import solve_many
    with threads(1):
        solve_many(decks[:1], rules_code, 1000)
        cpu = time.process_time()
        rows = solve_many(decks, rules_code, node_limit)
        return rows, time.process_time() - cpu


def main(argv=None) -> int:
    from _harness import machine, save_result
    from jitgames.solitaire import deals
    from jitgames.solitaire.family import new_position
    from jitgames.solitaire.family_bound import bound_of
    from jitgames.solitaire.family_search import SEARCH_VERSION, UNDECIDED

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=400)
    parser.add_argument("--node-limit", type=int, default=100_000)
    parser.add_argument("--depth", type=int, default=0,
                        help="also run h² at every position within this many moves of an open deal's root")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "solitaire_family_h2.json"))
    args = parser.parse_args(argv)
    decks = deals(2026, 0, args.deals)
    lost_by_h2("yukon", *ref.deal(decks[0].tolist(), "yukon"))    # compile
    table = {}
    for code, rules in ((1, "yukon"), (2, "alaska")):
        rows, search_cpu = _solve(decks, code, args.node_limit)
        won = rows[:, 0] == 52
        lost = (rows[:, 5] < 52)
        open_ = (rows[:, 1] == UNDECIDED) & ~lost
        verdict, homes, build_cpu, h2_cpu, sizes = [], [], 0.0, 0.0, []
        root_bound = np.array([bound_of(new_position(deck, code)) for deck in decks])
        for deck in decks:
            t = time.process_time()
            model = Model(rules, *ref.deal(deck.tolist(), rules))
            packed = arrays(model)
            t2 = time.process_time()
            R = h2(*packed)
            t3 = time.process_time()
            build_cpu += t2 - t
            h2_cpu += t3 - t2
            verdict.append(goal_unreachable(model, R))
            homes.append(reachable_homes(model, R))
            sizes.append((len(model.facts), len(model.actions)))
        verdict, homes = np.array(verdict), np.array(homes)
        unsound = np.nonzero(won & verdict)[0]
        exact = rows[:, 1] != UNDECIDED
        # the search's proven upper bound (the exact score when decided) and h²'s
        upper = rows[:, 5]
        row = {
            "deals": args.deals, "won": int(won.sum()), "proven_lost_by_search": int(lost.sum()),
            "open": int(open_.sum()), "search_cpu_seconds": search_cpu,
            "h2_lost_on_won_deals (must be 0)": len(unsound), "unsound_deals": unsound.tolist(),
            "h2_lost_of_open": int((verdict & open_).sum()),
            "h2_lost_of_search_lost": int((verdict & lost).sum()),
            "h2_lost_total": int(verdict.sum()),
            "open_deals_h2_lost": np.nonzero(verdict & open_)[0].tolist(),
            "search_lost_deals_h2_lost": np.nonzero(verdict & lost)[0].tolist(),
            "root_bound_below_52": int((root_bound < 52).sum()),
            "h2_lost_where_root_bound_52": int((verdict & (root_bound >= 52)).sum()),
            "h2_homes_below_exact_score (must be 0)": int((exact & (homes < rows[:, 0])).sum()),
            "h2_homes_below_search_upper": int((homes < upper).sum()),
            "h2_homes_below_root_bound": int((homes < root_bound).sum()),
            "h2_homes_above_root_bound": int((homes > root_bound).sum()),
            "undecided": int((~exact).sum()),
            "undecided_h2_homes_equal_lower_bound": int((~exact & (homes == rows[:, 0])).sum()),
            "open_deals": np.nonzero(open_)[0].tolist(),
            "open_deals_score_and_h2_homes": [[int(i), int(rows[i, 0]), int(homes[i])]
                                              for i in np.nonzero(open_)[0]],
            "model_build_cpu_ms_a_deal": 1000 * build_cpu / args.deals,
            "h2_cpu_ms_a_deal": 1000 * h2_cpu / args.deals,
            "facts_median": int(np.median([s[0] for s in sizes])),
            "actions_median": int(np.median([s[1] for s in sizes])),
        }
        print(f"{rules}: {row['won']} won, {row['proven_lost_by_search']} lost, {row['open']} open "
              f"(search {search_cpu:.1f} CPU s); h² lost: {row['h2_lost_total']} "
              f"(on won deals {len(unsound)}, of open {row['h2_lost_of_open']}, of search-lost "
              f"{row['h2_lost_of_search_lost']}); {row['model_build_cpu_ms_a_deal']:.2f} ms build + "
              f"{row['h2_cpu_ms_a_deal']:.2f} ms h² a deal, {row['facts_median']} facts, "
              f"{row['actions_median']} actions; root bound < 52 on {row['root_bound_below_52']}, h² lost "
              f"where it is 52: {row['h2_lost_where_root_bound_52']}; h²'s home cards below the root "
              f"bound on {row['h2_homes_below_root_bound']}, below the search's upper bound on "
              f"{row['h2_homes_below_search_upper']}, below an exact score on "
              f"{row['h2_homes_below_exact_score (must be 0)']}; undecided {row['undecided']}, of which h²'s "
              f"home cards equal the best score seen (score proven) on "
              f"{row['undecided_h2_homes_equal_lower_bound']}")
        if args.depth:
            rest = np.nonzero(open_ & ~verdict)[0]
            row["shallow"] = shallow(rules, decks[rest], rest, args.depth)
        table[rules] = row
    save_result(args.out, {"machine": machine(), "seed": 2026, "node_limit": args.node_limit,
                           "threads": 1, "search_version": SEARCH_VERSION, "rules": table})
    return 0


def shallow(rules: str, decks, indices, depth: int) -> dict:
    """h² at every distinct position 1..``depth`` player moves from each deal's root
    (the twin's moves; a position met again is counted once): how many it proves lost,
    and how many of those the project's bound (its twin, ``ref.score_bound``) keeps
    at 52 -- the positions h² would add to the goal search's pruning there."""
    per_deal, cpu = [], time.process_time()
    for deck, index in zip(decks, indices):
        start = ref.deal(deck.tolist(), rules)
        frontier, seen = [start], {ref.key(*start)}
        counts = {"deal": int(index), "positions": [], "h2_lost": [], "h2_lost_bound_52": []}
        for _ in range(depth):
            following = []
            for piles, foundations in frontier:
                for move in ref.moves(rules, piles, foundations):
                    child = ref.play(rules, piles, foundations, move)
                    if ref.key(*child) not in seen:
                        seen.add(ref.key(*child))
                        following.append(child)
            frontier = following
            lost = [lost_by_h2(rules, *child)[0] for child in following]
            counts["positions"].append(len(following))
            counts["h2_lost"].append(sum(lost))
            counts["h2_lost_bound_52"].append(sum(
                1 for child, gone in zip(following, lost) if gone and ref.score_bound(rules, *child) >= 52))
        per_deal.append(counts)
    cpu = time.process_time() - cpu
    total = {k: [sum(d[k][i] for d in per_deal) for i in range(depth)]
             for k in ("positions", "h2_lost", "h2_lost_bound_52")}
    print(f"{rules}: the {len(per_deal)} open deals h² does not prove lost at the root, positions at "
          f"depth 1..{depth}: {total['positions']}, h² proves lost {total['h2_lost']}, of which the "
          f"bound keeps at 52 {total['h2_lost_bound_52']} ({cpu:.1f} CPU s)")
    return {"depth": depth, "deals": len(per_deal), **total, "cpu_seconds": cpu, "per_deal": per_deal}


if __name__ == "__main__":
    sys.exit(main())
