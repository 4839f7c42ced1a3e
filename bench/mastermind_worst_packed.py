"""The worst-case search's answers from packed codes against matrix rows, side by side.

Two measurements, each alternating the two ways in one process (the kernels' answers
come from the packed codes when given ``words`` and the set is small, from the matrix
when ``words`` has no rows: ``jitgames/mastermind/worst_kernels.py``):

1. **Every guess against one set** (what the screens do), by set size, on 5 x 8: a
   guess's answers computed from packed words, or read from its 32 KiB matrix row.
   Two small loops written here for the comparison alone, so that both ways run at
   every size (the kernels switch at ``PACKED_BELOW``); they count answers exactly as
   ``worst_kernels.screen_guesses`` does and are checked equal.
2. **The sets the 5 x 8 search asks the three-guess kernel**: the run is resumed from
   the committed checkpoint (a copy) until it has asked ``--sets`` of them, which are
   kept; each is then decided by ``three_guess_witness`` with the packed codes and
   with the matrix alone, alternately, ``--repeats`` times (the same guess is
   checked). This is 99 % of the run's kernel time (``perf``, session 52).

    python bench/mastermind_worst_packed.py                # about 5 minutes
    python bench/mastermind_worst_packed.py --sets 40 --repeats 3
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np
from numba import njit

from _harness import ROOT, machine, save_result

sys.path.insert(0, str(ROOT))
from jitgames.mastermind import worst_case  # noqa: E402
from jitgames.mastermind.codes import feedback_packed, load_game, packed_codes  # noqa: E402
from jitgames.mastermind.minimax import answers_besides_solved  # noqa: E402
from jitgames.mastermind.worst_kernels import PACKED_BELOW, three_guess_witness  # noqa: E402

CHECKPOINT = ROOT / "bench" / "results" / "mastermind_worst_checkpoints" / "5x8.ckpt"
SIZES = (8, 32, 128, 512, 1024, 2048, 4096)
NO_WORDS = np.zeros((0, 2), dtype=np.uint64)


@njit(cache=False)
def _largest_from_rows(matrix, members, sizes, out):
    for g in range(matrix.shape[0]):
        sizes[:] = 0
        for t in range(members.shape[0]):
            sizes[matrix[g, members[t]]] += 1
        out[g] = sizes.max()


@njit(cache=False)
def _largest_from_words(words, pegs, members, sizes, out):
    n = members.shape[0]
    positions = np.empty(n, np.uint64)
    colours = np.empty(n, np.uint64)
    for t in range(n):
        positions[t], colours[t] = words[members[t], 0], words[members[t], 1]
    for g in range(words.shape[0]):
        sizes[:] = 0
        for t in range(n):
            sizes[feedback_packed(words[g, 0], words[g, 1], positions[t], colours[t],
                                  pegs)] += 1
        out[g] = sizes.max()


def every_guess_by_size(space, matrix, words, repeats: int) -> list[dict]:
    rng = np.random.default_rng(2026)
    sizes = np.zeros(256, np.int64)
    rows = []
    for n in SIZES:
        members = np.sort(rng.choice(space.size, n, replace=False)).astype(np.int64)
        a, b = np.zeros(space.size, np.int64), np.zeros(space.size, np.int64)
        _largest_from_rows(matrix, members, sizes, a)
        _largest_from_words(words, space.pegs, members, sizes, b)
        assert (a == b).all()
        t_rows, t_words = [], []
        for _ in range(repeats):
            start = time.process_time()
            _largest_from_rows(matrix, members, sizes, a)
            t_rows.append(time.process_time() - start)
            start = time.process_time()
            _largest_from_words(words, space.pegs, members, sizes, b)
            t_words.append(time.process_time() - start)
        row = {"codes": n, "matrix_ms": 1e3 * statistics.median(t_rows),
               "packed_ms": 1e3 * statistics.median(t_words)}
        row["packed_speedup"] = row["matrix_ms"] / row["packed_ms"]
        rows.append(row)
        print(f"  {n:5d} codes: matrix {row['matrix_ms']:8.2f} ms, packed "
              f"{row['packed_ms']:8.2f} ms, x{row['packed_speedup']:.2f}", flush=True)
    return rows


def captured_sets(space, matrix, count: int) -> tuple[list, float]:
    """The first ``count`` sets the resumed 5 x 8 search decides with the three-guess
    kernel (members, marks), and the seconds to reach them."""
    kept = []
    real = worst_case.three_guess_witness

    def capture(mat, words, pegs, members, start, end, marks, *rest):
        kept.append((members[start:end].copy(), marks.copy()))
        found = real(mat, words, pegs, members, start, end, marks, *rest)
        if len(kept) >= count:
            raise KeyboardInterrupt  # the run saves its (copied) checkpoint and returns
        return found

    with tempfile.TemporaryDirectory() as tmp:
        copy = shutil.copy(CHECKPOINT, tmp)
        worst_case.three_guess_witness = capture
        started = time.perf_counter()
        try:
            worst_case.decide_worst_case(space, matrix, checkpoint=copy)
        finally:
            worst_case.three_guess_witness = real
    return kept, time.perf_counter() - started


def three_guess_sets(space, matrix, words, sets, repeats: int) -> dict:
    most = answers_besides_solved(space.pegs) + 1
    slots = 256
    starts = np.zeros(slots + 1, np.int64)
    fill, seen = np.zeros(slots, np.int64), np.zeros(slots, np.int64)
    order = np.zeros(space.size, np.int64)
    per_set = []
    for members, marks in sets:
        n = len(members)
        times = {"matrix": [], "packed": []}
        found = {}
        for _ in range(repeats):
            for way, source in (("matrix", NO_WORDS), ("packed", words)):
                start = time.process_time()
                found[way] = three_guess_witness(matrix, source, space.pegs, members, 0, n,
                                                 marks, space.solved, most, starts, fill,
                                                 order, seen)
                times[way].append(time.process_time() - start)
        assert found["matrix"] == found["packed"]
        per_set.append({"codes": n, "guess": int(found["packed"]),
                        "matrix_s": statistics.median(times["matrix"]),
                        "packed_s": statistics.median(times["packed"])})
    matrix_s = sum(s["matrix_s"] for s in per_set)
    packed_s = sum(s["packed_s"] for s in per_set)
    return {"sets": len(per_set), "matrix_s": matrix_s, "packed_s": packed_s,
            "packed_speedup": matrix_s / packed_s,
            "codes": {"min": min(s["codes"] for s in per_set),
                      "median": statistics.median(s["codes"] for s in per_set),
                      "max": max(s["codes"] for s in per_set)},
            "solvable": sum(s["guess"] >= 0 for s in per_set), "per_set": per_set}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", type=int, default=30,
                        help="three-guess sets of the 5 x 8 search to replay (1..1000)")
    parser.add_argument("--repeats", type=int, default=3, help="alternations (1..20)")
    parser.add_argument("--out", default="mastermind_worst_packed.json")
    args = parser.parse_args(argv)
    if not 1 <= args.sets <= 1000 or not 1 <= args.repeats <= 20:
        print("mastermind_worst_packed.py: --sets is 1..1000 and --repeats 1..20",
              file=sys.stderr)
        return 2
    space, matrix = load_game(5, 8)
    words = packed_codes(space)
    print("every guess against one set of 5 x 8 (CPU ms, medians):")
    by_size = every_guess_by_size(space, matrix, words, max(args.repeats, 3))
    print(f"capturing {args.sets} three-guess sets of the 5 x 8 search ...", flush=True)
    sets, reach = captured_sets(space, matrix, args.sets)
    replay = three_guess_sets(space, matrix, words, sets, args.repeats)
    print(f"three-guess sets of the 5 x 8 search: {replay['sets']} sets of "
          f"{replay['codes']['min']}..{replay['codes']['max']} codes "
          f"({replay['solvable']} solvable): matrix {replay['matrix_s']:.2f} CPU s, packed "
          f"{replay['packed_s']:.2f} CPU s, x{replay['packed_speedup']:.2f}")
    save_result(ROOT / "bench" / "results" / args.out, {
        "command": " ".join(["python bench/mastermind_worst_packed.py",
                             *(argv if argv is not None else sys.argv[1:])]),
        "machine": machine(), "packed_below": PACKED_BELOW,
        "every_guess_by_set_size": by_size, "capture_seconds": reach,
        "three_guess_sets": replay})
    return 0


if __name__ == "__main__":
    sys.exit(main())
