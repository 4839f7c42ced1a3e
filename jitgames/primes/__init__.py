"""Prime patterns: a segmented sieve, deterministic Miller-Rabin, integers laid on
the plane (Ulam's spiral, the diagonal triangle), and the prime-rich lines of those
pictures as quadratic polynomials with their Bateman-Horn constants.

Modules: :mod:`.primality` (64-bit Miller-Rabin), :mod:`.sieve` (counting and
listing primes in [a, b)), :mod:`.layouts` (n <-> (x, y) kernels),
:mod:`.polynomials` (quadratics, factoring, Bateman-Horn), :mod:`.lines` (the lines
of a window), :mod:`.pictures` (matplotlib); ``python -m jitgames.primes`` is the
command line.
"""
from jitgames.primes.layouts import LAYOUTS, Layout
from jitgames.primes.lines import Line, LineAnalysis, analyse_lines
from jitgames.primes.polynomials import (PolyCount, Quadratic, Verdict,
                                         bateman_horn_constant, classify,
                                         logarithmic_integral, poly_count)
from jitgames.primes.primality import is_prime, is_prime_int
from jitgames.primes.sieve import PrimeCount, count_primes, primes_between

__all__ = [
    "LAYOUTS", "Layout", "Line", "LineAnalysis", "analyse_lines", "PolyCount",
    "Quadratic", "Verdict", "bateman_horn_constant", "classify", "logarithmic_integral",
    "poly_count", "is_prime", "is_prime_int", "PrimeCount", "count_primes",
    "primes_between",
]
