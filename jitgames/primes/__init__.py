"""Prime patterns: a segmented sieve, deterministic Miller-Rabin, integers laid on
the plane (Ulam's spiral, the diagonal triangle), and the prime-rich lines of those
pictures as quadratic polynomials with their Bateman-Horn constants.

Modules: :mod:`.primality` (64-bit Miller-Rabin), :mod:`.sieve` (counting and
listing primes in [a, b)), :mod:`.layouts` (n <-> (x, y) kernels),
:mod:`.counting` (pi(x) to 2^64 by the combinatorial method, the n-th prime),
:mod:`.polynomials` (quadratics, factoring, Bateman-Horn), :mod:`.polysieve` (prime
values of a quadratic by sieving), :mod:`.lines` (the lines of a window),
:mod:`.pictures` (matplotlib); ``python -m jitgames.primes`` is the command line.

The names below are imported on first use, so that a prime count loads only the
sieve's modules (start-up is a large part of a short count).
"""
import importlib

_PUBLIC = {
    "LAYOUTS": "layouts", "Layout": "layouts",
    "Line": "lines", "LineAnalysis": "lines", "analyse_lines": "lines",
    "PolyCount": "polynomials", "Quadratic": "polynomials", "Verdict": "polynomials",
    "bateman_horn_constant": "polynomials", "classify": "polynomials",
    "logarithmic_integral": "polynomials", "poly_count": "polynomials",
    "is_prime": "primality", "is_prime_int": "primality",
    "PrimeCount": "sieve", "count_primes": "sieve", "primes_between": "sieve",
    "prime_pi": "counting", "nth_prime": "counting",
}
__all__ = list(_PUBLIC)


def __getattr__(name):
    if name in _PUBLIC:
        return getattr(importlib.import_module(f"{__name__}.{_PUBLIC[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + __all__)
