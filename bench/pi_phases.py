"""Where the time of pi(x) goes, stage by stage, on one thread, beside primecount.

Run ``python bench/pi_phases.py [--points 1e15 1e16 1e17] [--alpha 8 10 14]
[--no-peer] [--out bench/results/pi_phases.json]``.

For each x (and each ``alpha`` in ``y = alpha x^(1/3)``; default: the tuned
:func:`jitgames.primes.counting.choose_y`) one ``pi_parts(x)`` on one thread in this
process (the compiled kernels loaded first by a pi(10^7)), with the process CPU
seconds of its stages (tables, ordinary leaves S1, easy special leaves, hard special
leaves with P2), then primecount's command line on one thread (Debian package, CPU
seconds of its whole process), alternately. The growth of both from one x to the
next tells how the ratio will move further out.
"""
from __future__ import annotations

import argparse
import sys

from _harness import machine, save_result, ROOT
from primes import find_peer, timed_child

sys.path.insert(0, str(ROOT))

from jitgames._jit import threads  # noqa: E402
from jitgames.primes import counting  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", nargs="*", default=["1e15", "1e16", "1e17"])
    parser.add_argument("--alpha", nargs="*", type=float, default=[None])
    parser.add_argument("--no-peer", action="store_true")
    parser.add_argument("--primecount", default=None)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "pi_phases.json"))
    args = parser.parse_args(argv)
    found, version = (None, None) if args.no_peer else find_peer("primecount", args.primecount)
    result = {"machine": machine(), "peer": version, "peer_path": found, "rows": []}
    print(f"{'x':>8} {'alpha':>6} {'y':>10} {'tables':>7} {'S1':>6} {'easy':>7} {'hard':>8} "
          f"{'total':>8} {'primecount':>10} {'ratio':>6}", flush=True)
    with threads(1):
        counting.pi_parts(10**7)  # load the compiled kernels
        for point in args.points:
            x = int(float(point)) if "e" in point else int(point)
            for alpha in args.alpha:
                y = counting.choose_y(x, alpha)
                stages: dict = {}
                value = counting.pi_parts(x, y, timings=stages).pi
                total = sum(stages.values())
                row = {"x": x, "alpha": alpha, "y": y, "pi": value, "cpu_s": stages,
                       "total_cpu_s": total}
                peer = ""
                if found:
                    run = timed_child([found, str(x), "--threads=1"])
                    if int(run["out"].split()[0]) != value:
                        raise SystemExit(f"pi({x}): ours {value}, primecount {run['out']}")
                    row.update(primecount_cpu_s=run["cpu"], ratio_cpu=total / run["cpu"])
                    peer = f"{run['cpu']:10.2f} {total / run['cpu']:6.2f}"
                result["rows"].append(row)
                print(f"{x:8.0e} {y / round(x ** (1 / 3)):6.2f} {y:10d} {stages['tables']:7.2f} "
                      f"{stages['s1']:6.2f} {stages['easy']:7.2f} {stages['hard']:8.2f} "
                      f"{total:8.2f} {peer}", flush=True)
    save_result(args.out, result)


if __name__ == "__main__":
    main()
