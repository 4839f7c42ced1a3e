"""The one-level-deeper bound of the optimal search (``candidates.set_bound``) alone,
this code against a checkout of the code before it, on the sets where the 5 x 6
search spends its time.

``python bench/mastermind_set_bound.py --before DIR --repeats 3`` draws sets like
those of the profile in ``docs/mastermind_optimal.md`` (the 984-code class of the
root guess 11223 answering (1, 2), split by a random second guess and a random
candidate, classes of 6 to 40 codes, the sizes ``set_bound`` gets), each with caps
at its own bound minus 6, minus 3, plus 0 and plus 3 and without a cap (three in five
calls end at the cap, about the two in three of the real search), then times every
call in a fresh process per checkout, alternating, after one untimed pass (compiling
and the rows of the response matrix loaded). Records CPU seconds per call
(``time.process_time``), checks that both checkouts return the same bounds, prints
medians and the ratio before / after, and writes ``bench/results/mastermind_set_bound.json``.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _harness import machine, save_result  # noqa: E402

RUN = """
import hashlib, json, sys, time
sys.path.insert(0, {root!r})
import numba
import numpy as np
from jitgames.mastermind.candidates import set_bound
from jitgames.mastermind.codes import load_game
from jitgames.mastermind.optimal import OptimalSearch

@numba.njit  # (the driving loop only, not cached: this script has no file)
def every_bound(tables, src, calls, search, out):
    for i in range(calls.shape[0]):
        out[i] = set_bound(tables, src, calls[i, 0], calls[i, 1], calls[i, 2], search)

data = np.load({data!r})
space, matrix = load_game(5, 6)
search = OptimalSearch(space, matrix, None, workers=1)
out = np.zeros(data["calls"].shape[0], dtype=np.int64)
every_bound(search.tables, data["src"], data["calls"], search.states[0], out)  # untimed
cpu = time.process_time()
every_bound(search.tables, data["src"], data["calls"], search.states[0], out)
cpu = time.process_time() - cpu
print(json.dumps({{"cpu_s": cpu, "us_per_call": cpu / out.size * 1e6,
                  "clipped": float((out >= data["calls"][:, 2]).mean()),
                  "digest": hashlib.sha256(out.tobytes()).hexdigest()[:16]}}))
"""


def draw_sets(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``(src, calls)``: the members of every set, and per call its ``start, end, cap``."""
    from jitgames.mastermind.candidates import INFEASIBLE, set_bound
    from jitgames.mastermind.codes import load_game
    from jitgames.mastermind.optimal import OptimalSearch
    space, matrix = load_game(5, 6)
    first = int(np.searchsorted(space.values, int("00112", 6)))  # 11223
    root_class = np.flatnonzero(matrix[first] == 8)  # (1 black, 2 white): 984 codes
    search = OptimalSearch(space, matrix, None, workers=1)
    rng = np.random.default_rng(seed)
    sets = []
    while len(sets) < count:
        codes = root_class
        for guess in rng.integers(space.size, size=2):
            answers = matrix[guess, codes]
            codes = codes[answers == answers[rng.integers(codes.size)]]
        if 6 <= codes.size <= 40:
            sets.append(codes.astype(np.int32))
    src = np.concatenate(sets)
    calls, start = [], 0
    for codes in sets:
        end = start + codes.size
        bound = int(set_bound(search.tables, src, start, end, INFEASIBLE, search.states[0]))
        for cap in (bound - 6, bound - 3, bound, bound + 3, INFEASIBLE):
            calls.append((start, end, cap))
        start = end
    return src, np.array(calls, dtype=np.int64)


def run(root: Path, data: Path, timeout: float) -> dict:
    out = subprocess.run([sys.executable, "-c", RUN.format(root=str(root), data=str(data))],
                         capture_output=True, text=True, timeout=timeout, check=True, cwd="/")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, type=Path, help="checkout of the code before")
    ap.add_argument("--sets", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per run")
    ap.add_argument("--out", default="mastermind_set_bound.json")
    args = ap.parse_args()
    src, calls = draw_sets(args.sets, args.seed)
    runs = {"before": [], "after": []}
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "calls.npz"
        np.savez(data, src=src, calls=calls)
        for _ in range(args.repeats):
            for label, root in (("before", args.before.resolve()), ("after", ROOT)):
                result = run(root, data, args.timeout)
                runs[label].append(result)
                print(f"{label}: {result['us_per_call']:.1f} us a call "
                      f"({result['cpu_s']:.2f} CPU s), digest {result['digest']}", flush=True)
    digests = {r["digest"] for label in runs for r in runs[label]}
    if len(digests) != 1:
        raise SystemExit(f"the bounds differ between the checkouts: {sorted(digests)}")
    before = statistics.median(r["us_per_call"] for r in runs["before"])
    after = statistics.median(r["us_per_call"] for r in runs["after"])
    sizes = calls[:, 1] - calls[:, 0]
    print(f"{calls.shape[0]} calls (sets of {sizes.mean():.1f} codes on average), "
          f"{runs['after'][0]['clipped']:.0%} at the cap: us a call, median before "
          f"{before:.1f}, after {after:.1f}, before / after {before / after:.2f}")
    save_result(ROOT / "bench" / "results" / args.out,
                {"command": " ".join(sys.argv), "machine": machine(), "calls": int(calls.shape[0]),
                 "mean_set_size": float(sizes.mean()), "before_us": before, "after_us": after,
                 "ratio": before / after, "runs": runs,
                 "digest": hashlib.sha256(np.ascontiguousarray(calls).tobytes()).hexdigest()[:16]})


if __name__ == "__main__":
    main()
