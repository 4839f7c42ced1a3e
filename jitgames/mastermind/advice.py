"""A strategy's next guess from any position of a game: the coach of :mod:`.game`.

A person's game leaves the strategy's own decision tree at the first guess the
strategy would not have made, so advice is computed from the position itself: the
answers so far (any guesses) and the strategy's rules.

Which strategies a size offers (``codes`` = colours ** pegs):

- ``codes <= 1296`` and ``pegs <= 7`` (every size up to 4 x 6, 3 x 10, 5 x 4, 6 x 3,
  7 x 2): all strategies, **optimal** by default. Their optimal trees took at most
  0.8 s each on the 2-core development machine (3 x 10: 0.8 s, 4 x 6: 0.19 s; 8 x 2,
  256 codes, took 92 s and is left out). On the strategy's own tree (every guess so
  far the one it would have made) the tree's guess is given; off it, the optimal
  continuation from the position (:meth:`.optimal.OptimalSearch.best`, least total
  guesses over the codes still possible, no guess limit).
- ``codes <= 8192`` otherwise (up to 4 x 9, 5 x 6, 6 x 4, 8 x 3): the scored
  strategies (:mod:`.strategies`), **most-parts** by default (the best of them on
  4 x 6: 5668 guesses in total against optimal 5625, Kooi 2005), with the response
  matrix (64 MiB at most); a whole game of 5 x 6 by its advice took 0.35 s. Beyond,
  without the matrix, one opening of 4 x 10 took about 10 s.
- larger sizes (up to 8 x 10, 10^8 codes): **random** only (a uniformly random code
  still possible, drawn from the decision's key as the ``random`` strategy does),
  found by :func:`.scan.scan_consistent` without any code table; a whole 8 x 10 game
  by its advice took 4 s, most of it the opening (kept per size and seed).

A scored strategy's guess is the engine's decision at that node (same candidates,
scores, ties and random key: ``stream_key(seed, 1)`` advanced by ``child_key`` for
each guess and answer), so a game played by its advice is the game of
:func:`.evaluate.evaluate`. Advice is computed under one lock: the searches keep
state that two threads (two browser tabs) must not share.
"""
from __future__ import annotations

import threading

import numpy as np

from ..errors import InputError
from .._random import stream_key
from .codes import encode_feedback
from .engine import child_key, choose_guess, new_scratch
from .scan import Constraints
from .strategies import STRATEGIES, get_strategy

__all__ = ["strategies_for", "default_strategy", "advise", "strategy_guesses", "tier",
           "OPTIMAL_CODES", "OPTIMAL_PEGS", "SCORED_CODES", "MATRIX_BYTES"]

OPTIMAL_CODES = 1296   # optimal trees within a second (see the module docstring)
OPTIMAL_PEGS = 7       # 8 x 2 (256 codes) took 92 s
SCORED_CODES = 8192  # scored strategies with the matrix: within about a second a hint
MATRIX_BYTES = 64 << 20  # the response matrix of up to 8192 codes
SCAN_MEMBERS = 1 << 22   # consistent sets listed for the engine up to this size

_LOCK = threading.RLock()
_SEARCHES: dict = {}  # (pegs, colours) -> OptimalSearch for positions off the tree
_FIRST_RANDOM: dict = {}  # (pegs, colours, seed) -> random's opening on large sizes


def tier(pegs: int, colours: int) -> str:
    """``"optimal"``, ``"scored"`` or ``"random"``: what the size offers (docstring)."""
    codes = colours ** pegs
    if codes <= OPTIMAL_CODES and pegs <= OPTIMAL_PEGS:
        return "optimal"
    return "scored" if codes <= SCORED_CODES else "random"


def strategies_for(pegs: int, colours: int) -> list[str]:
    """Names of the strategies that give advice on this size, the default first."""
    level = tier(pegs, colours)
    if level == "random":
        return ["random"]
    scored = [n for n, s in STRATEGIES.items() if not s.optimal]
    scored.remove("most-parts")
    if level == "scored":
        return ["most-parts"] + scored
    searched = [n for n, s in STRATEGIES.items() if s.optimal]
    searched.remove("optimal")
    return ["optimal"] + searched + ["most-parts"] + scored


def default_strategy(pegs: int, colours: int) -> str:
    """The strategy advice comes from unless another is chosen (module docstring)."""
    return strategies_for(pegs, colours)[0]


def check_strategy(name: str, pegs: int, colours: int) -> str:
    """``name`` if it gives advice on this size; InputError (saying which do) if not."""
    get_strategy(name)  # unknown names: the message lists them all
    offered = strategies_for(pegs, colours)
    if name not in offered:
        raise InputError(f"strategy {name!r} is not offered for {pegs} pegs and {colours} "
                         f"colours ({colours ** pegs} codes); choose from {', '.join(offered)}")
    return name


def _game(pegs: int, colours: int):
    from .codes import load_game
    return load_game(pegs, colours, True, MATRIX_BYTES)


def _members(pegs: int, colours: int, turns) -> np.ndarray:
    """The codes still possible after ``turns`` (``(guess value, black, white)``), int32."""
    cons = _constraints(pegs, colours, turns)
    count, _, _ = cons.scan(limit=SCAN_MEMBERS + 1)
    if count > SCAN_MEMBERS:
        raise InputError(f"more than {SCAN_MEMBERS} codes still possible: no advice here")
    out = np.zeros(count, dtype=np.int64)
    cons.scan(out)
    return out.astype(np.int32)


def digits_of(value: int, pegs: int, colours: int) -> tuple:
    """0-based colours of the code ``value``, first position first."""
    out = []
    for _ in range(pegs):
        value, d = divmod(value, colours)
        out.append(d)
    return tuple(reversed(out))


def _constraints(pegs, colours, turns) -> Constraints:
    return Constraints(pegs, colours, [(digits_of(g, pegs, colours), b, w) for g, b, w in turns])


def _key(seed: int, pegs: int, turns) -> np.uint64:
    key = np.uint64(stream_key(seed, 1))
    for guess, black, white in turns:
        key = np.uint64(child_key(key, guess, encode_feedback(black, white, pegs)))
    return key


def _tree_guess(strategy, space, matrix, turns):
    """The tree's guess if every turn so far followed it, else None."""
    from .evaluate import decision_tree
    tree = decision_tree(strategy, space, matrix)
    children = tree.children()
    node = 0
    for guess, black, white in turns:
        if node < 0 or int(tree.table[node, 0]) != guess:
            return None
        node = int(children[node, encode_feedback(black, white, space.pegs)])
    return None if node < 0 else int(tree.table[node, 0])


def _search_guess(space, matrix, turns, members) -> int:
    """The optimal (least total guesses) next guess at an arbitrary position."""
    from .optimal import OptimalSearch
    key = (space.pegs, space.colours)
    if key not in _SEARCHES:
        _SEARCHES.clear()  # one size at a time: the search holds per-size buffers
        _SEARCHES[key] = OptimalSearch(space, matrix, None, workers=1)
    search = _SEARCHES[key]
    used = np.zeros(space.colours, dtype=np.bool_)
    for guess, _, _ in turns:
        used[space.digits[guess]] = True
    _, guess = search.best(members, search.remaining - len(turns), used,
                           [g for g, _, _ in turns])
    return int(guess)


def _random_guess(pegs, colours, seed, turns) -> int:
    """The ``random`` strategy's choice by scanning: the smallest consistent code whose
    score is within 1e-9 of the least (the engine's tie rule)."""
    cons = _constraints(pegs, colours, turns)
    key = _key(seed, pegs, turns)
    count, least, _ = cons.scan(scored=True, key=int(key))
    if count == 0:
        raise InputError("no code fits all the answers")
    _, _, first = cons.scan(scored=True, key=int(key), below=least + 1e-9)
    return first


def advise(name: str, pegs: int, colours: int, seed: int, turns) -> int:
    """Strategy ``name``'s next guess (a code value) after ``turns``.

    ``turns`` are ``(guess value, black, white)``. InputError if the answers fit no
    code or the strategy is not offered for this size.
    """
    check_strategy(name, pegs, colours)
    turns = [(int(g), int(b), int(w)) for g, b, w in turns]
    with _LOCK:
        if tier(pegs, colours) == "random":
            if not turns:
                k = (pegs, colours, seed)
                if k not in _FIRST_RANDOM:
                    _FIRST_RANDOM[k] = _random_guess(pegs, colours, seed, turns)
                return _FIRST_RANDOM[k]
            return _random_guess(pegs, colours, seed, turns)
        strategy = get_strategy(name)
        space, matrix = _game(pegs, colours)
        members = _members(pegs, colours, turns)
        if members.size == 0:
            raise InputError("no code fits all the answers")
        if members.size == 1:
            return int(members[0])
        if strategy.optimal:
            guess = _tree_guess(strategy, space, matrix, turns)
            return _search_guess(space, matrix, turns, members) if guess is None else guess
        if not turns and strategy.first_guess is not None:
            return int(strategy.first_guess(space, seed))
        previous = turns[-1][0] if turns else -1
        return int(choose_guess(strategy.adapter, space.tables(matrix), strategy.rules,
                                members, 0, members.size, previous, _key(seed, pegs, turns),
                                False, new_scratch(space.size, pegs)))


def feedback_values(guess: int, secret: int, pegs: int, colours: int) -> tuple[int, int]:
    """``(black, white)`` of code value ``guess`` against ``secret``."""
    a, b = digits_of(guess, pegs, colours), digits_of(secret, pegs, colours)
    black = sum(x == y for x, y in zip(a, b))
    common = sum(min(a.count(c), b.count(c)) for c in set(a))
    return black, common - black


def strategy_guesses(name: str, pegs: int, colours: int, seed: int, secret: int) -> int:
    """Guesses strategy ``name`` needs for ``secret`` playing its own advice."""
    turns = []
    while True:
        guess = advise(name, pegs, colours, seed, turns)
        black, white = feedback_values(guess, secret, pegs, colours)
        turns.append((guess, black, white))
        if black == pegs:
            return len(turns)
