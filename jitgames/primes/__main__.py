"""``python -m jitgames.primes``: prime counts, primality, polynomials, lines, pictures.

Sub-commands (``--help`` on each for details)::

    count A B            primes in [A, B)                 (--json: count, ...)
    pi X                 primes <= X, X < 2^64 (combinatorial method)
    nth K                the K-th prime (K <= pi(2^64))
    isprime N [N ...]    deterministic primality of 64-bit integers
    list A B             the primes in [A, B), one a line
    poly A B C --upto N  x in [0, N) with A x^2 + B x + C prime, and Bateman-Horn
    lines                the richest lines through a window of a layout
    spiral / triangle    draw the primes of a layout to a PNG
"""
from __future__ import annotations

import os

from jitgames._cli import (ArgumentParser, InputError, add_json, add_quiet, add_threads, emit,
                           exit_process, int_in_range, integer, progress, run_cli)
from jitgames._jit import threads

PROG = "python -m jitgames.primes"
_BLOCK = 10**10  # count wide intervals block by block (progress, Ctrl-C keeps the sum)


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(prog=PROG, description="Primes: counts, primality, polynomials, "
                                                   "lines, pictures (docs/cli.md: the shared "
                                                   "options and number forms).")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=ArgumentParser)

    def common(p):
        add_json(p)
        add_quiet(p)
        add_threads(p)
        return p

    p = common(sub.add_parser("count", help="number of primes in [A, B)",
                              description="Count the primes p with A <= p < B."))
    p.add_argument("a", type=integer, metavar="A", help="lower end, counted (e.g. 0, 10^12)")
    p.add_argument("b", type=integer, metavar="B", help="upper end, not counted (e.g. 10^9)")
    p.add_argument("--method", choices=("auto", "sieve", "hybrid", "test", "pi"),
                   default="auto",
                   help="sieve: full wheel sieve (b <= 10^18); hybrid: sieve by small "
                        "primes, Baillie-PSW on survivors; test: every odd number tested; "
                        "pi: pi(B-1) - pi(A-1) by the combinatorial method; auto: the "
                        "cheaper (pi once B - A >= max(10^10, 20 B^(2/3)); docs/primes.md)")

    p = common(sub.add_parser("pi", help="number of primes <= X (X < 2^64)",
                              description="pi(X), the number of primes <= X, for 0 <= X < "
                                          "2^64, by the combinatorial method (Deleglise-"
                                          "Rivat; docs/primes.md): about X^(2/3) work."))
    p.add_argument("x", type=integer, metavar="X",
                   help="count the primes up to X, X included (e.g. 10^15)")

    p = common(sub.add_parser("nth", help="the K-th prime (K <= pi(2^64))",
                              description="The K-th prime (the 1st is 2): pi at an estimate "
                                          "from the inverse logarithmic integral, then a "
                                          "sieve of the gap."))
    p.add_argument("k", type=integer, metavar="K",
                   help="which prime: 1 for 2, 2 for 3, ... (e.g. 10^12)")

    p = common(sub.add_parser("isprime", help="primality of 64-bit integers"))
    p.add_argument("numbers", type=integer, nargs="+", metavar="N",
                   help="integers to test, 0..2^64-1 (e.g. 2^61-1)")

    p = common(sub.add_parser("list", help="the primes in [A, B) (width <= 10^7)",
                              description="List the primes p with A <= p < B."))
    p.add_argument("a", type=integer, metavar="A", help="lower end, included")
    p.add_argument("b", type=integer, metavar="B", help="upper end, excluded (B - A <= 10^7)")

    p = common(sub.add_parser(
        "poly", help="prime values of A x^2 + B x + C for 0 <= x < N",
        description="Count the x in [0, N) with A x^2 + B x + C prime. With A > 0 the "
                    "values are sieved on x (values beyond 2^64 are fine; the sieving "
                    "primes, up to the square root of the largest value, at most 10^11, "
                    "each with its roots found once per pass; one bit per x, a pass "
                    "marking as many x as --memory holds); otherwise each value "
                    "is tested (N up to 10^9). Ctrl-C stops with the exact count of the x "
                    "decided so far, a prefix of [0, N) (exit 130). See docs/primes.md."))
    for name, example in (("A", 1), ("B", 1), ("C", 41)):  # three names: clear usage
        p.add_argument(f"coefficient_{name.lower()}", type=integer, metavar=name,
                       help=f"coefficient {name} (e.g. {example} for x^2 + x + 41)")
    p.add_argument("--upto", type=integer, required=True, metavar="N",
                   help="count x from 0 to N - 1 (e.g. 10^9)")
    p.add_argument("--prime-limit", type=int_in_range(3, 10**9), default=10**7,
                   help="truncate the Bateman-Horn product at this prime (3..10^9, "
                        "default 10^7)")
    p.add_argument("--memory", type=int_in_range(1, 1 << 20), default=2048, metavar="MIB",
                   help="MiB of marks per pass of the sieve, 8 x 2^20 x each (default "
                        "2048: 2^34 x; 10^11 x in one pass, each root found once: 11921)")
    p.add_argument("--check", type=int_in_range(0, 10**6), default=64, metavar="K",
                   help="test K x of each newly decided range one by one with Miller-Rabin "
                        "(values below 3.3 x 10^24) against the sieve (default 64)")

    p = common(sub.add_parser("lines", help="the richest lines through a window"))
    _window_options(p, default_size=201)
    p.add_argument("--length", type=int_in_range(1, 10**7), default=None,
                   help="count every line over t < LENGTH (default: its length in the window)")
    p.add_argument("--top", type=int_in_range(0, 1000), default=10,
                   help="how many of the richest lines to list (default 10)")

    for name in ("spiral", "triangle"):
        p = common(sub.add_parser(name, help=f"draw the primes of the {name} to a PNG"))
        _window_options(p, default_size=201, layout=name)
        p.add_argument("--out", required=True, help="PNG file to write")
        p.add_argument("--highlight", type=int_in_range(0, 10), default=0, metavar="K",
                       help="draw the K richest lines on top")
    return parser


def _window_options(p, default_size, layout=None):
    if layout is None:
        p.add_argument("--layout", choices=("spiral", "triangle"), default="spiral",
                       help="how the integers are laid out (default spiral)")
    p.add_argument("--size", type=int_in_range(3, 10001), default=default_size,
                   help=f"window side in cells (3..10001, default {default_size})")
    p.add_argument("--start", type=int_in_range(0, 2**60), default=1,
                   help="the integer at the layout's origin (0..2^60, default 1)")
    p.add_argument("--centre", "--center", type=integer, default=None,
                   help="centre the window on this integer (e.g. 10^12)")


def _pi_run(desc: str, quiet: bool, compute):
    """Run ``compute(progress)`` (a pi or nth computation) interruptibly, with a bar
    over the hard-leaf blocks; returns the value, or None after Ctrl-C."""
    from jitgames._interrupt import run_interruptible, stop_flag

    with progress(0, desc, quiet, unit="block") as bar:
        def advance(done, total):
            if stop_flag()[0]:
                raise KeyboardInterrupt
            if bar.total != total:
                bar.reset(total=total)
            bar.update(done - bar.n)

        try:
            return run_interruptible(lambda: compute(advance))
        except KeyboardInterrupt:
            return None


def _pi(args) -> int:
    from jitgames.primes.counting import check_x, prime_pi

    x = check_x(args.x)
    value = _pi_run("pi", args.quiet, lambda advance: prime_pi(x, advance))
    if value is None:
        return emit(args, {"x": x, "pi": None}, f"pi({x}) not finished", False,
                    note="interrupted: pi(x) was not finished (no partial result)")
    return emit(args, {"x": x, "pi": value}, str(value))


def _nth(args) -> int:
    from jitgames.primes.counting import MAX_NTH, nth_prime

    if not 1 <= args.k <= MAX_NTH:
        nth_prime(args.k)  # raises the InputError (before any progress bar or thread)
    value = _pi_run("nth", args.quiet, lambda advance: nth_prime(args.k, advance))
    if value is None:
        return emit(args, {"k": args.k, "prime": None}, f"prime {args.k} not found", False,
                    note="interrupted: the prime was not found (no partial result)")
    return emit(args, {"k": args.k, "prime": value}, str(value))


def _count(args) -> int:
    from jitgames.primes.sieve import check_count, count_primes

    a, b, method = check_count(args.a, args.b, args.method)
    if method == "pi":
        return _count_by_pi(args, a, b)
    total, done, complete = 0, a, True
    with progress(b - a, "count", args.quiet, unit="n") as bar:
        try:
            while done < b:
                step = b - done if method != "sieve" else min(b - done, _BLOCK)
                total += count_primes(done, done + step, method).count
                done += step
                bar.update(step)
        except KeyboardInterrupt:
            complete = False  # [a, done) is counted: report that interval
    return emit(args, {"a": a, "b": done, "count": total},
                f"{total} primes in [{a}, {done})", complete)


def _count_by_pi(args, a: int, b: int) -> int:
    """``count A B`` as ``pi(B - 1) - pi(A - 1)`` (the interval is [A, B))."""
    from jitgames.primes.counting import prime_pi

    def both(advance):
        high = prime_pi(b - 1, advance) if b >= 1 else 0
        low = prime_pi(a - 1, advance) if a >= 1 else 0
        return high - low

    value = _pi_run("count (pi)", args.quiet, both)
    if value is None:
        return emit(args, {"a": a, "b": a, "count": 0}, f"0 primes in [{a}, {a})", False,
                    note="interrupted: pi(B-1) - pi(A-1) was not finished (no partial count)")
    return emit(args, {"a": a, "b": b, "count": value}, f"{value} primes in [{a}, {b})")


def _isprime(args) -> int:
    from jitgames.primes.primality import is_prime_int

    answers = {str(n): is_prime_int(n) for n in args.numbers}
    return emit(args, {"prime": answers},
                [f"{n} {'prime' if prime else 'composite'}" for n, prime in answers.items()])


def _list(args) -> int:
    from jitgames.primes.sieve import primes_between

    if args.b - args.a > 10**7:
        raise InputError(f"interval too wide to print: {args.b - args.a} > 10^7")
    found = primes_between(args.a, args.b)
    return emit(args, {"a": args.a, "b": args.b, "primes": found}, map(str, found.tolist()))


def _poly(args) -> int:
    from jitgames.primes.polynomials import PartialCount, Quadratic, poly_count

    a, b, c = args.coefficient_a, args.coefficient_b, args.coefficient_c
    complete = True
    with progress(args.upto, "poly", args.quiet, unit="x") as bar:
        def advance(done, _count):
            bar.update(done - bar.n)

        try:
            result = poly_count(Quadratic(a, b, c), args.upto, args.prime_limit,
                                progress=advance, pass_size=args.memory << 23,
                                samples=args.check)
        except PartialCount as cut:  # the finished blocks: exact for x < result.upto
            result, complete = cut.result, False
    text = [f"f(x) = {result.f.formula('x')}: {result.count} primes for 0 <= x < {result.upto}",
            f"  {result.verdict.kind}: {result.verdict.reason}"]
    if result.verdict.kind == "irreducible" and result.predicted:
        text.append(f"  Bateman-Horn: C_f = {result.constant:.6f}, predicted C_f li(N) = "
                    f"{result.predicted:.1f}, observed / predicted = {result.ratio:.4f}")
    if result.checked:
        text.append(f"  {result.checked} sieved values tested one by one (Miller-Rabin): "
                    "all agree")
    # print_json writes an undefined ratio (NaN) as null
    return emit(args, {"polynomial": result.f.formula("x"), "upto": result.upto,
                       "count": result.count, "checked": result.checked,
                       "predicted": result.predicted,
                       "constant": result.constant, "ratio": result.ratio,
                       "kind": result.verdict.kind, "reason": result.verdict.reason}, text,
                complete)


def _line_record(line) -> dict:
    """One line as JSON (undefined figures, NaN here, print as null)."""
    return {"direction": line.direction, "x": line.x, "y": line.y, "dx": line.dx,
            "dy": line.dy, "formula": line.f.formula(), "a": line.f.a, "b": line.f.b,
            "c": line.f.c, "d": line.f.d, "length": line.length, "primes": line.primes,
            "fraction": line.fraction, "kind": line.verdict.kind,
            "reason": line.verdict.reason, "constant": line.constant,
            "expected": line.expected, "ratio": line.ratio}


def _analyse(args, layout, top):
    from jitgames.primes.lines import analyse_lines

    return analyse_lines(layout, args.size, args.start, args.centre,
                         getattr(args, "length", None), top)


def _lines(args) -> int:
    result = _analyse(args, args.layout, args.top)
    if args.json:
        return emit(args, {"layout": result.layout, "size": result.size, "start": result.start,
                           "x0": result.x0, "y0": result.y0, "lines": result.n_lines,
                           "primality": result.primality,
                           "richest": [_line_record(x) for x in result.richest],
                           "factoring": [_line_record(x) for x in result.factoring]})
    print(f"{result.n_lines} lines through the {result.size} x {result.size} window of the "
          f"{result.layout} (start {result.start}, corner ({result.x0}, {result.y0}); "
          f"primality by {result.primality})")
    print("\nrichest lines (t = 0 at the smallest integer; C_f = Bateman-Horn constant, "
          "expected = C * sum 1/ln f(t)):")
    print(f"{'direction':<13}{'from':>16} {'step':>7}  {'f(t)':<34}{'len':>6}{'primes':>7}"
          f"{'frac':>7}{'C_f':>8}{'expect':>8}{'ratio':>7}")
    for x in result.richest:
        start = f"({x.x}, {x.y})"
        step = f"({x.dx},{x.dy})"
        tail = (f"{x.constant:8.4f}{x.expected:8.1f}{x.ratio:7.3f}" if x.verdict.kind ==
                "irreducible" else f"  {x.verdict.kind}")
        print(f"{x.direction:<13}{start:>16} {step:>7}  {x.f.formula():<34}{x.length:>6}"
              f"{x.primes:>7}{x.fraction:7.3f}{tail}")
    if result.factoring:
        print("\nlines that cannot be rich (the polynomial factors or has a fixed divisor):")
        for x in result.factoring:
            print(f"  {x.direction} from ({x.x}, {x.y}): {x.f.formula()}, "
                  f"{x.primes} primes in {x.length}: {x.verdict.reason}")
    return 0


def _picture(args) -> int:
    from jitgames.primes.pictures import draw

    # Checked before the (possibly long) drawing; an empty name or a directory used to
    # write OUT.png and report OUT.
    if not args.out or os.path.isdir(args.out):
        raise InputError(f"--out needs a file name, got {args.out!r}")
    if not os.path.isdir(os.path.dirname(os.path.abspath(args.out))):
        raise InputError(f"cannot write {args.out}: no such directory")
    from matplotlib.backend_bases import FigureCanvasBase
    suffix = os.path.splitext(args.out)[1][1:].lower()
    formats = FigureCanvasBase.get_supported_filetypes()
    if suffix and suffix not in formats:
        raise InputError(f"--out {args.out}: cannot draw a .{suffix} file; use one of "
                         f"{', '.join('.' + f for f in sorted(formats))}")

    lines = _analyse(args, args.command, args.highlight).richest if args.highlight else ()
    try:
        draw(args.command, args.size, args.out, args.start, args.centre, lines)
    except OSError as exc:
        raise InputError(f"cannot write {args.out}: {exc}") from None
    if args.json:
        return emit(args, {"out": args.out, "layout": args.command, "size": args.size,
                           "highlighted": [_line_record(x) for x in lines]})
    if not args.quiet:
        print(f"wrote {args.out}")
    return 0


_COMMANDS = {"count": _count, "pi": _pi, "nth": _nth, "isprime": _isprime, "list": _list,
             "poly": _poly, "lines": _lines, "spiral": _picture, "triangle": _picture}


def _main(argv) -> int:
    args = build_parser().parse_args(argv)
    with threads(args.threads):
        return _COMMANDS[args.command](args)


def main(argv=None) -> int:
    """Entry point: ``python -m jitgames.primes ...``; returns the exit status."""
    return run_cli(_main, argv, prog=PROG)


if __name__ == "__main__":
    exit_process(main())
