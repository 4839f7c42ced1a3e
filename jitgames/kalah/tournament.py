"""Tournaments between evaluations and depths, Elo-style ratings, and a weight search.

A player is ``EVAL@DEPTH``: ``store@4``, ``sides@6`` or comma-separated weights
(``m+1`` values mirrored for North, or ``2m+2``) such as ``0,0,0,0,0,1,3@4``; the
suffix ``+win`` turns on the win rule of :mod:`.evaluation` (``store+win@4``).

Besides the ratings, each pair's head-to-head result of this run is reported with a
95% interval on its score share, the opening (two games, colours swapped) being the
unit of the sample: ``store+win@4 store@4`` answers "does the win rule win more?".

Every pair of players meets on every opening twice, once with each colour; an
opening is the start position after ``--random-plies`` random plies (uniform over
legal moves, opening ``i`` drawn from stream ``(seed, i)`` of
:mod:`jitgames._random`). Players choose moves deterministically (lowest pit among
equal values), so a game depends only on its opening and players, and the games of
a run are played in parallel (``prange``) with results independent of the thread
count.

Ratings (choices docs/design.md leaves open): a Bradley-Terry model fitted by maximum
likelihood to the games of this run (a draw counts half a win for each side), on the
Elo scale (400 log10), centred on mean 0; intervals are +/- 1.96 standard errors from
the inverse observed information (a pseudo-inverse, since ratings are fixed only up
to a constant). Games are stored in SQLite (table ``kalah_games``), each once: a game
is identified by its full definition (board, variant, players with their colours,
seed, random plies, opening number), a unique index of the table, so rerunning a
tournament adds nothing. ``--pool`` rates every distinct stored game among the listed
players on this board and variant instead, this run's included; rows stored before
schema version 2 lack their random plies, cannot be told apart, and are left out of
pools.

Weight search: a (1+1) evolution strategy over the ``m+1`` mirrored weights; each
generation mutates one weight of the incumbent by a random step in ``[-3, 3]``
(seeded), plays the mutant against the incumbent on all openings with both colours,
and keeps the mutant if it scores more than half the points.
"""
from __future__ import annotations

import math
import sqlite3
import sys
import time
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .._cli import (add_db, add_json, add_quiet, add_seed, add_threads, emit,
                     exit_status, int_in_range, parse_int, progress)
from .._jit import jit, prange, threads
from .._store import RecordSchema, open_records
from .._random import below, stream_key
from .evaluation import parse_evaluation
from .rules import SOUTH, VARIANTS, apply_move, final_margin, is_over, legal_moves, new_board
from .search import ALPHABETA, choose_move

MAX_OPENINGS = 100_000  # x both colours x every pair: minutes to hours of games
SCHEMA = RecordSchema("Kalah tournament games", 0x6A674B41, (
    # version 1: the table of the first releases (which set no user_version)
    """
    CREATE TABLE IF NOT EXISTS kalah_games (
        id INTEGER PRIMARY KEY,
        created REAL NOT NULL,
        pits INTEGER NOT NULL, stones INTEGER NOT NULL, variant TEXT NOT NULL,
        south TEXT NOT NULL, north TEXT NOT NULL,
        seed INTEGER NOT NULL, opening INTEGER NOT NULL,
        margin INTEGER NOT NULL
    );
    """,
    # version 2: the random plies complete a game's definition (NULL in older rows, which
    # the unique index, where NULLs differ, leaves as they are); each game stored once
    """
    ALTER TABLE kalah_games ADD COLUMN random_plies INTEGER;
    CREATE UNIQUE INDEX IF NOT EXISTS kalah_games_game ON kalah_games
        (pits, stones, variant, south, north, seed, random_plies, opening);
    """,
))
"""The games database: ``application_id`` 'jgKA', versions in ``docs/storage.md``."""
GAME_COLUMNS = ("created", "pits", "stones", "variant", "south", "north", "seed", "opening",
                "margin", "random_plies")


@jit
def random_opening(board, plies, variant, key):
    """Play ``plies`` uniformly random legal plies on ``board`` in place (South first).

    Returns the player to move (stops early if the game ends).
    """
    m = (board.shape[0] - 2) // 2
    moves = np.zeros(m, dtype=np.int64)
    player = np.int64(SOUTH)
    counter = 0
    for _ in range(plies):
        n = legal_moves(board, player, moves)
        if n == 0:
            break
        pick, counter = below(key, counter, n)
        player, _ = apply_move(board, player, moves[pick], variant)
    return player


@jit(parallel=True)
def play_games(openings, first, south, north, weights, depths, variant, margins):
    """Play game ``g`` from ``openings[g]`` (``first[g]`` to move) between players
    ``south[g]`` and ``north[g]`` (rows of ``weights``, ``depths``); South's final
    margins go to ``margins``."""
    for g in prange(openings.shape[0]):
        board = openings[g].copy()
        player = first[g]
        nodes = np.zeros(1, dtype=np.int64)
        while not is_over(board):
            who = south[g] if player == SOUTH else north[g]
            move, _, _ = choose_move(board, player, depths[who], weights[who], variant,
                                     ALPHABETA, True, False, np.uint64(0), 0, nodes)
            player, _ = apply_move(board, player, move, variant)
        margins[g] = final_margin(board)


@dataclass(frozen=True)
class Standing:
    """One row of the results table (``margin``: mean final margin for this player)."""

    player: str
    games: int
    wins: int
    draws: int
    losses: int
    margin: float
    elo: float
    low: float
    high: float


def parse_player(text: str, m: int):
    """``(weights, depth)`` of a player spec ``EVAL@DEPTH``; InputError if malformed."""
    evaluation, at, depth = text.rpartition("@")
    if not at:
        raise InputError(f"a player is EVAL@DEPTH (e.g. store@4), got {text!r}")
    try:
        depth = parse_int(depth)
    except InputError:
        raise InputError(f"depth of player {text!r} is not an integer") from None
    if not 1 <= depth <= 14:
        raise InputError(f"depth of player {text!r} must be from 1 to 14")
    return parse_evaluation(evaluation, m), depth


def make_openings(m, n, count, plies, variant, seed):
    """``count`` opening boards (int8 rows) and who moves in each."""
    boards = np.zeros((count, 2 * m + 2), dtype=np.int8)
    first = np.zeros(count, dtype=np.int64)
    for i in range(count):
        boards[i] = new_board(m, n)
        first[i] = random_opening(boards[i], plies, variant, np.uint64(stream_key(seed, i)))
    return boards, first


def play_round(names, m, n, variant, openings, first, quiet=True):
    """Every pair on every opening, both colours.

    Returns ``(rows, interrupted)``: rows ``(south, north, opening, margin)``; after
    Ctrl-C the pairings finished so far, with ``interrupted`` True.
    """
    # one more column than the board: the win rule's flag (0 for plain evaluations)
    weights = np.zeros((len(names), 2 * m + 3), dtype=np.int64)
    depths = np.zeros(len(names), dtype=np.int64)
    for i, name in enumerate(names):
        vector, depths[i] = parse_player(name, m)
        weights[i, :len(vector)] = vector
    pairs = [(a, b) for a in range(len(names)) for b in range(len(names)) if a != b]
    rows = []
    with progress(len(pairs), "pairings", quiet) as bar:
        for a, b in pairs:
            margins = np.zeros(len(openings), dtype=np.int64)
            count = len(openings)
            try:
                play_games(openings, first, np.full(count, a), np.full(count, b), weights,
                           depths, VARIANTS[variant], margins)
            except KeyboardInterrupt:
                return rows, True
            rows += [(names[a], names[b], i, int(margins[i])) for i in range(count)]
            bar.update(1)
    return rows, False


def ratings(names, games):
    """Bradley-Terry/Elo ratings with 95% intervals from ``(south, north, margin)`` rows.

    Returns ``{name: (elo, low, high)}``; mean rating 0. With no decisive
    information the intervals are infinite.
    """
    index = {name: i for i, name in enumerate(names)}
    k = len(names)
    score = np.zeros((k, k))   # score[i, j]: points of i against j
    count = np.zeros((k, k))
    for south, north, margin in games:
        i, j = index[south], index[north]
        s = 1.0 if margin > 0 else 0.5 if margin == 0 else 0.0
        score[i, j] += s
        score[j, i] += 1 - s
        count[i, j] += 1
        count[j, i] += 1
    # MM algorithm (Hunter 2004) on strengths, with a tiny prior of one draw against
    # a virtual average opponent so that perfect scores stay finite.
    strength = np.ones(k)
    wins = score.sum(axis=1) + 0.5
    for _ in range(2000):
        denom = (count / (strength[:, None] + strength[None, :])).sum(axis=1) + 1 / (strength + 1)
        new = wins / denom
        new /= np.exp(np.mean(np.log(new)))
        if np.max(np.abs(new - strength)) < 1e-12:
            strength = new
            break
        strength = new
    theta = np.log(strength)
    p = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))
    info = -count * p * (1 - p)
    np.fill_diagonal(info, 0)
    np.fill_diagonal(info, -info.sum(axis=1))
    cov = np.linalg.pinv(info)   # the Laplacian's pseudo-inverse: centred ratings
    scale = 400 / math.log(10)
    elo = theta * scale
    elo -= elo.mean()
    se = np.sqrt(np.maximum(np.diag(cov), 0)) * scale
    return {name: (float(elo[i]), float(elo[i] - 1.96 * se[i]), float(elo[i] + 1.96 * se[i]))
            for name, i in index.items()}


@dataclass(frozen=True)
class HeadToHead:
    """Player ``first`` against ``second`` on the openings of one run.

    ``score`` is ``first``'s share of the points (win 1, draw 1/2) over all games;
    ``low``/``high`` a 95% interval for it. Each opening is played twice (colours
    swapped), so the unit of the interval is the opening: the mean of the
    ``openings`` per-opening shares +- 1.96 standard errors (clipped to [0, 1]).
    """

    first: str
    second: str
    openings: int
    wins: int
    draws: int
    losses: int
    score: float
    low: float
    high: float


def head_to_head(names, rows) -> list[HeadToHead]:
    """Every pair of ``names`` (in listed order) from ``(south, north, opening, margin)`` rows."""
    result = []
    for a, first in enumerate(names):
        for second in names[a + 1:]:
            per_opening: dict[int, list[float]] = {}
            w = d = l = 0
            for south, north, opening, margin in rows:
                if {south, north} != {first, second}:
                    continue
                mine = margin if south == first else -margin
                w, d, l = w + (mine > 0), d + (mine == 0), l + (mine < 0)
                per_opening.setdefault(opening, []).append(
                    1.0 if mine > 0 else 0.5 if mine == 0 else 0.0)
            shares = np.array([np.mean(p) for p in per_opening.values()])
            if len(shares) == 0:
                continue
            mean = float(shares.mean())
            half = (1.96 * float(shares.std(ddof=1)) / math.sqrt(len(shares))
                    if len(shares) > 1 else math.inf)
            result.append(HeadToHead(first, second, len(shares), w, d, l, mean,
                                     max(0.0, mean - half), min(1.0, mean + half)))
    return result


def format_head_to_head(pairs) -> str:
    """The pairwise results as aligned text."""
    lines = ["head to head this run (score: first player's share of the points, "
             "95% interval over openings):"]
    for h in pairs:
        lines.append(f"  {h.first} vs {h.second}: +{h.wins} ={h.draws} -{h.losses}, "
                     f"score {h.score:.3f} [{h.low:.3f}, {h.high:.3f}]")
    return "\n".join(lines)


def standings(names, games) -> list[Standing]:
    """Results table (best rating first) from ``(south, north, margin)`` rows."""
    rated = ratings(names, games)
    table = []
    for name in names:
        w = d = l = 0
        total = 0
        for south, north, margin in games:
            if name not in (south, north):
                continue
            mine = margin if name == south else -margin
            total += mine
            w, d, l = w + (mine > 0), d + (mine == 0), l + (mine < 0)
        played = w + d + l
        elo, low, high = rated[name]
        table.append(Standing(name, played, w, d, l, total / played if played else 0.0,
                              elo, low, high))
    return sorted(table, key=lambda s: -s.elo)


def format_table(table) -> str:
    """The standings as aligned text."""
    width = max(8, *(len(s.player) for s in table))
    lines = [f"{'player':<{width}} {'games':>6} {'win':>5} {'draw':>5} {'loss':>5} "
             f"{'margin':>7} {'elo':>6}  95% interval"]
    for s in table:
        lines.append(f"{s.player:<{width}} {s.games:>6} {s.wins:>5} {s.draws:>5} "
                     f"{s.losses:>5} {s.margin:>+7.2f} {s.elo:>+6.0f}  "
                     f"[{s.low:+.0f}, {s.high:+.0f}]")
    return "\n".join(lines)


def weight_search(m, n, variant, openings, first, generations, seed, start, depth,
                  quiet=True):
    """(1+1) evolution strategy over mirrored weights; returns (best half-weights, log)."""
    incumbent = np.array(start, dtype=np.int64)
    key = np.uint64(stream_key(seed, 1 << 20))
    counter = 0
    log = []
    for gen in range(generations):
        which, counter = below(key, counter, m + 1)
        step, counter = below(key, counter, 6)
        step = step - 3 if step < 3 else step - 2   # -3..-1, 1..3
        mutant = incumbent.copy()
        mutant[which] += step
        a = ",".join(map(str, incumbent)) + f"@{depth}"
        b = ",".join(map(str, mutant)) + f"@{depth}"
        if a == b:
            continue
        rows, interrupted = play_round([b, a], m, n, variant, openings, first, quiet)
        if interrupted:
            break
        points = sum((1.0 if mg > 0 else 0.5 if mg == 0 else 0.0) if s == b else
                     (1.0 if mg < 0 else 0.5 if mg == 0 else 0.0) for s, _, _, mg in rows)
        share = points / len(rows)
        accepted = share > 0.5
        log.append({"generation": gen, "mutant": mutant.tolist(), "score": share,
                    "accepted": accepted})
        if accepted:
            incumbent = mutant
    return incumbent, log


def add_parser(sub) -> None:
    """Register the ``tournament`` sub-command."""
    p = sub.add_parser("tournament", help="evaluations and depths against each other",
                       description="Every pair of players on every opening, both colours; "
                                   "Elo ratings over this run's games (--pool: over every "
                                   "distinct stored game of these players), and each pair's "
                                   "score this run with a 95% interval (e.g. store+win@6 "
                                   "store@6: does the win rule win more? docs/kalah.md).")
    p.add_argument("players", nargs="*", default=["store@2", "store@4", "sides@4"],
                   help="players EVAL@DEPTH, EVAL = store, sides or weights, optionally "
                        "with +win (won games score the maximum: the winner takes all; "
                        "docs/kalah.md) (default: store@2 store@4 sides@4)")
    p.add_argument("--pits", type=int_in_range(1, 10), default=6, help="pits a side (6)")
    p.add_argument("--stones", type=int_in_range(1, 10), default=4, help="stones a pit (4)")
    p.add_argument("--variant", choices=list(VARIANTS), default="empty-capture",
                   help="capture rule (default: empty-capture, capture also from an "
                        "empty opposite pit)")
    p.add_argument("--openings", type=int_in_range(1, MAX_OPENINGS), default=20,
                   help=f"openings (20; at most {MAX_OPENINGS:,})")
    p.add_argument("--random-plies", type=int_in_range(0, 20), default=4,
                   help="random plies that make an opening (4)")
    add_seed(p, 2**62, default=1, what="seed of the random openings")
    p.add_argument("--search-weights", type=int_in_range(0, 10_000), default=0,
                   metavar="GENERATIONS",
                   help="also run a weight search for this many generations")
    p.add_argument("--search-depth", type=int_in_range(1, 10), default=2,
                   help="depth of the players in the weight search (2)")
    p.add_argument("--pool", action="store_true",
                   help="rate every distinct game stored in the database among these players "
                        "on this board and variant, not only this run's (a game played "
                        "again, same definition, counts once)")
    add_db(p, "kalah.sqlite", "the tournament's games, each stored once")
    add_json(p)
    add_quiet(p)
    add_threads(p)
    p.set_defaults(run=run_tournament)


def _finite(record: dict) -> dict:
    """``record`` with infinite floats as None (strict JSON)."""
    return {k: (None if isinstance(v, float) and not math.isfinite(v) else v)
            for k, v in record.items()}


def _open_db(path):
    """The games database, checked (kind, schema version, writable) before any game;
    :class:`jitgames._store.StoreError` (one line) if it cannot be used."""
    return open_records(path, "kalah.sqlite", SCHEMA)


def _pooled_games(db, m, n, variant, names, seed, plies, this_run):
    """``(south, north, margin)`` of every distinct game among ``names`` on this board:
    the stored ones with a full definition and this run's (``(south, north, opening,
    margin)`` rows), each game once, whether or not it is stored yet (a pending file)."""
    marks = ",".join("?" * len(names))
    games = {(s, t, seed, plies, i): mg for s, t, i, mg in this_run}
    try:
        rows = db.con.execute(
            f"SELECT south, north, seed, random_plies, opening, margin FROM kalah_games "
            f"WHERE pits = ? AND stones = ? AND variant = ? AND random_plies IS NOT NULL "
            f"AND south IN ({marks}) AND north IN ({marks})",
            [m, n, variant, *names, *names]).fetchall()
    except sqlite3.Error as exc:  # busy beyond the timeout: rate this run's games alone
        print(f"jitgames: cannot read {db.path} ({exc}); the table shows this run's games",
              file=sys.stderr)
        rows = []
    for south, north, game_seed, game_plies, opening, margin in rows:
        games.setdefault((south, north, game_seed, game_plies, opening), margin)
    return [(south, north, margin) for (south, north, *_), margin in games.items()]


def _count_games(db) -> int | None:
    """Rows of ``kalah_games`` (None if the database cannot be read now)."""
    try:
        return db.con.execute("SELECT COUNT(*) FROM kalah_games").fetchone()[0]
    except sqlite3.Error:
        return None


def run_tournament(args) -> int:
    """Play the round, store its new games, print the standings over this run's games
    (``--pool``: over every distinct stored game of these players)."""
    m, n = args.pits, args.stones
    if 2 * m * n > 127:
        raise InputError(f"{2 * m * n} stones do not fit an int8 board (at most 127)")
    names = list(dict.fromkeys(args.players))
    if len(names) < 2:
        raise InputError("a tournament needs at least two different players")
    for name in names:
        parse_player(name, m)
    db = _open_db(args.db)  # before the games: they are stored when the round ends
    openings, first = make_openings(m, n, args.openings, args.random_plies,
                                    VARIANTS[args.variant], args.seed)
    start = time.perf_counter()
    with threads(args.threads):  # the games of a pairing are played in parallel
        rows, interrupted = play_round(names, m, n, args.variant, openings, first, args.quiet)
    seconds = time.perf_counter() - start
    now = time.time()
    with db:
        before = _count_games(db)
        saved = db.insert("kalah_games", GAME_COLUMNS,
                          [(now, m, n, args.variant, s, t, args.seed, i, mg, args.random_plies)
                           for s, t, i, mg in rows], skip_existing=True)
        after = _count_games(db) if saved else None
        rated = (_pooled_games(db, m, n, args.variant, names, args.seed, args.random_plies,
                               rows) if args.pool else [(s, t, mg) for s, t, _, mg in rows])
    added = after - before if before is not None and after is not None else None
    table = standings(names, rated)
    pairs = head_to_head(names, rows)
    result = {"pits": m, "stones": n, "variant": args.variant, "games_this_run": len(rows),
              "games_new_in_database": added, "pooled": args.pool,
              "games_rated": len(rated), "seconds": round(seconds, 3),
              "standings": [s.__dict__ for s in table],
              "head_to_head": [_finite(h.__dict__) for h in pairs]}
    if not interrupted and args.search_weights:
        half = np.zeros(m + 1, dtype=np.int64)
        half[m] = 4
        with threads(args.threads):
            best, log = weight_search(m, n, args.variant, openings, first, args.search_weights,
                                      args.seed, half, args.search_depth, args.quiet)
        result["weight_search"] = {"start": half.tolist(), "best": best.tolist(), "log": log}
    if args.json:
        return emit(args, result, complete=not interrupted)
    if interrupted:
        print("interrupted: the games finished so far are stored and rated below")
    new = "" if added is None else f", {added} new in the database"
    over = (f"{len(rated)} distinct stored games of these players (--pool)" if args.pool
            else "this run's games")
    print(f"Kalah({m},{n}) {args.variant}: {len(rows)} games this run "
          f"({args.openings} openings x both colours x {len(names) * (len(names) - 1) // 2} "
          f"pairs) in {seconds:.2f} s{new}; table over {over}")
    print(format_table(table))
    if pairs:
        print(format_head_to_head(pairs))
    if args.search_weights:
        ws = result["weight_search"]
        kept = sum(e["accepted"] for e in ws["log"])
        print(f"weight search ({args.search_weights} generations, {kept} improvements): "
              f"{','.join(map(str, ws['start']))} -> {','.join(map(str, ws['best']))} "
              f"(use as EVAL: {','.join(map(str, ws['best']))}@{args.search_depth})")
    return exit_status(not interrupted)
