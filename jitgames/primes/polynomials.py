"""Integer-valued quadratics, whether they factor, and how many primes they hold.

A line of a layout is ``f(t) = (a t^2 + b t + c) / d`` in the step ``t`` along it,
with integers a, b, c and d in {1, 2} (every integer-valued quadratic has this form;
the diagonal filling needs d = 2). A "prime value" is a value that is a positive
prime; values below 2 never count.

Bateman-Horn (Hardy-Littlewood conjecture F for quadratics): the number of
``0 <= t < N`` with ``f(t)`` prime is about ``C_f li(N)`` with

    C_f = (1 / deg f) * prod_p (1 - w(p) / p) / (1 - 1 / p),

where ``w(p) / p`` is the share of residues t mod p (mod p*d when p | d) with
``p | f(t)``. The product converges only conditionally; we truncate it at
``p < prime_limit`` (default 10^7). For an irreducible quadratic the tail is
``prod_{p >= P} (1 - chi(p) / (p - 1))`` for a quadratic character chi, whose
logarithm is about ``-sum_{p >= P} chi(p) / p``: an oscillating sum of size
O(log(P |disc|) / sqrt(P)) under GRH. For Euler's x^2 + x + 41 the truncation at
10^7 is within 5e-5 (relative) of the exact 3.3197731775... that the class-number
formula gives, and at 10^6 within 2e-4 (both checked by the tests); for lines far out the local form
``C * sum_t 1 / ln f(t)`` replaces ``li``, since then f(t) is not near t^2.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from jitgames._jit import jit, prange
from jitgames.primes.primality import is_prime
from jitgames.errors import InputError

__all__ = [
    "Quadratic", "Verdict", "classify", "bateman_horn_product", "bateman_horn_constant",
    "count_prime_values", "prime_value", "check_values_fit", "zero_share", "jacobi", "logarithmic_integral", "local_expectation", "PolyCount",
    "poly_count", "PartialCount", "DEFAULT_PRIME_LIMIT",
]

DEFAULT_PRIME_LIMIT = 10**7
MAX_PRIME_LIMIT = 10**9  # = sieve.MAX_LIST_WIDTH, the most primes_between lists
MAX_UPTO = 10**9  # one Miller-Rabin test per value: minutes at most
_VALUE_LIMIT = 2**63 - 1


@dataclass(frozen=True)
class Quadratic:
    """``f(t) = (a t^2 + b t + c) / d`` with ``d`` in {1, 2}, integer on integers."""

    a: int
    b: int
    c: int
    d: int = 1

    def __post_init__(self):
        if self.d not in (1, 2):
            raise InputError(f"denominator must be 1 or 2, got {self.d}")
        if self.d == 2 and (self.c % 2 or (self.a + self.b) % 2):
            raise InputError(f"{self.formula()} is not integer-valued")

    @classmethod
    def from_values(cls, v0: int, v1: int, v2: int) -> "Quadratic":
        """The quadratic with ``f(0), f(1), f(2) = v0, v1, v2`` (in lowest terms)."""
        s = v2 - 2 * v1 + v0
        a, b, c, d = s, 2 * (v1 - v0) - s, 2 * v0, 2
        if a % 2 == 0 and b % 2 == 0 and c % 2 == 0:
            a, b, c, d = a // 2, b // 2, c // 2, 1
        return cls(int(a), int(b), int(c), d)

    def __call__(self, t: int) -> int:
        return (self.a * t * t + self.b * t + self.c) // self.d

    @property
    def degree(self) -> int:
        return 2 if self.a else (1 if self.b else 0)

    def formula(self, var: str = "t") -> str:
        """Human-readable form, e.g. ``4t^2 + 2t + 41`` or ``(t^2 + 3t + 2)/2``."""
        text = _polynomial_text(self.a, self.b, self.c, var)
        return text if self.d == 1 else f"({text})/{self.d}"


def _polynomial_text(a: int, b: int, c: int, var: str) -> str:
    terms = []
    for coef, power in ((a, 2), (b, 1), (c, 0)):
        if coef == 0:
            continue
        mag = abs(coef)
        body = {2: f"{var}^2", 1: var, 0: ""}[power]
        digits = "" if (mag == 1 and power) else str(mag)
        sign = "-" if coef < 0 else "+"
        terms.append((sign, digits + body))
    if not terms:
        return "0"
    first_sign, first = terms[0]
    text = ("-" if first_sign == "-" else "") + first
    for sign, body in terms[1:]:
        text += f" {sign} {body}"
    return text


@dataclass(frozen=True)
class Verdict:
    """Why a line can or cannot be rich in primes.

    ``kind`` is ``irreducible``, ``reducible`` (factors over Q), ``fixed divisor``
    (an integer > 1 divides every value) or ``constant``; ``reason`` says it in words.
    """

    kind: str
    reason: str


def _linear_factor(num: int, den: int, var: str) -> str:
    """Text of the primitive factor ``den t - num``."""
    g = math.gcd(num, den)
    num, den = num // g, den // g
    if den < 0:
        num, den = -num, -den
    text = _polynomial_text(0, den, -num, var)
    return text if text == var else f"({text})"


def classify(f: Quadratic, var: str = "t") -> Verdict:
    """Sort ``f`` into irreducible / reducible / fixed divisor / constant, with reasons."""
    if f.a == 0 and f.b == 0:
        return Verdict("constant", f"constant {f.c // f.d}")
    divisor = math.gcd(math.gcd(f(0), f(1)), f(2))  # gcd of all values of a quadratic
    if f.a != 0:
        disc = f.b * f.b - 4 * f.a * f.c
        root = math.isqrt(disc) if disc >= 0 else -1
        if root * root == disc:
            content = math.gcd(math.gcd(f.a, f.b), f.c)
            a, b = f.a // content, f.b // content
            factors = [_linear_factor(-b + sign * root // content, 2 * a, var)
                       for sign in (1, -1)]
            unit = -1 if a < 0 else 1
            scale = content * unit
            product = factors[0] + "^2" if factors[0] == factors[1] else "".join(factors)
            head = "" if scale == 1 else ("-" if scale == -1 else f"{scale}")
            tail = "" if f.d == 1 else f"/{f.d}"
            return Verdict("reducible", f"factors as {head}{product}{tail}: a value is "
                           "prime only when all factors but one are 1, at most a few t")
    if divisor > 1:
        return Verdict("fixed divisor", f"every value is divisible by {divisor}, so "
                       f"f(t) is prime only where f(t) = {divisor}")
    return Verdict("irreducible", "irreducible over Q with no fixed divisor")


@jit
def jacobi(a, n):
    """Jacobi symbol ``(a / n)`` for odd ``n > 0`` (the Legendre symbol for prime n)."""
    a = a % n
    result = 1
    while a != 0:
        while a % 2 == 0:
            a //= 2
            if n % 8 == 3 or n % 8 == 5:
                result = -result
        a, n = n, a
        if a % 4 == 3 and n % 4 == 3:
            result = -result
        a = a % n
    return result if n == 1 else 0


@jit
def zero_share(a, b, c, d, p):
    """Share of residues t (mod p, or mod p*d) with ``p | f(t)``: ``w(p) / p``.

    ``p`` is a prime below 2^31; a, b, c are int64.
    """
    if p == 2:
        period = 2 * d
        modulus = 2 * d
        hits = 0
        for t in range(period):
            value = ((a % modulus) * t * t + (b % modulus) * t + c % modulus) % modulus
            if value == 0:
                hits += 1
        return hits / period
    am = a % p
    bm = b % p
    cm = c % p
    if am == 0:
        if bm != 0:
            return 1.0 / p
        return 1.0 if cm == 0 else 0.0
    disc = (bm * bm - (4 * am % p) * cm) % p
    if disc == 0:
        return 1.0 / p
    return 2.0 / p if jacobi(disc, p) == 1 else 0.0


@jit
def bateman_horn_product(a, b, c, d, primes):
    """``prod_p (1 - w(p)/p) / (1 - 1/p)`` over the given primes (int64 array)."""
    product = 1.0
    for i in range(primes.size):
        p = primes[i]
        product *= (1.0 - zero_share(a, b, c, d, p)) / (1.0 - 1.0 / p)
    return product


_prime_cache: dict[int, np.ndarray] = {}


def _primes_below(limit: int) -> np.ndarray:
    if limit not in _prime_cache:
        from jitgames.primes.sieve import primes_between
        _prime_cache.clear()
        _prime_cache[limit] = primes_between(0, limit).astype(np.int64)
    return _prime_cache[limit]


def bateman_horn_constant(f: Quadratic, prime_limit: int = DEFAULT_PRIME_LIMIT) -> float:
    """``C_f = (1 / deg f) * prod_{p < prime_limit} (1 - w(p)/p) / (1 - 1/p)``.

    Zero when some prime divides every value, and for constants.
    """
    if f.degree == 0:
        return 0.0
    if not 3 <= prime_limit <= MAX_PRIME_LIMIT:  # the primes below it are listed
        raise InputError(f"prime_limit must be in [3, 10^9], got {prime_limit}")
    product = bateman_horn_product(f.a, f.b, f.c, f.d, _primes_below(prime_limit))
    return float(product) / f.degree


def logarithmic_integral(x: float) -> float:
    """``li(x)`` (principal value, li(2) = 1.045...) by Ramanujan's series; x > 1."""
    if x <= 1:
        raise InputError(f"li(x) needs x > 1, got {x}")
    log_x = math.log(x)
    total, term, inner = 0.0, -1.0, 0.0
    for n in range(1, 400):
        term *= -log_x / n
        if (n - 1) % 2 == 0:
            inner += 1.0 / (2 * ((n - 1) // 2) + 1)
        step = term / 2 ** (n - 1) * inner
        total += step
        if abs(step) < 1e-17 * abs(total) and n > 2 * log_x:
            break
    return 0.5772156649015329 + math.log(log_x) + math.sqrt(x) * total


@jit
def prime_value(value, table, table_lo):
    """Is ``value`` (int64) a positive prime? Looked up in ``table`` (1 = prime, entry
    ``i`` for ``table_lo + i``) when it falls inside, else tested by Miller-Rabin."""
    if value < 2:
        return False
    offset = value - table_lo
    if 0 <= offset < table.size:
        return table[offset] != 0
    return is_prime(np.uint64(value))


@jit(parallel=True)
def count_prime_values(a, b, c, d, n, table, table_lo):
    """Number of ``0 <= t < n`` with ``(a t^2 + b t + c) / d`` a positive prime.

    See :func:`prime_value` for ``table``; the caller guarantees that every value
    and intermediate fits in int64.
    """
    blocks = (n + 4095) // 4096
    per_block = np.zeros(blocks, dtype=np.int64)
    for blk in prange(blocks):
        found = 0
        for t in range(blk * 4096, min(n, (blk + 1) * 4096)):
            if prime_value((a * t * t + b * t + c) // d, table, table_lo):
                found += 1
        per_block[blk] = found
    return per_block.sum()


def check_values_fit(f: Quadratic, n: int) -> None:
    """Raise ValueError when some value or intermediate of f on [0, n) overflows int64."""
    top = max(n - 1, 0)
    if abs(f.a) * top * top + abs(f.b) * top + abs(f.c) > _VALUE_LIMIT:
        raise InputError(f"values of {f.formula()} for t < {n} do not fit in 63 bits")


def local_expectation(f: Quadratic, n: int, product: float) -> float:
    """Bateman-Horn expectation ``product * sum_{t<n, f(t)>=2} 1/ln f(t)``."""
    total = 0.0
    for start in range(0, n, 1 << 20):
        t = np.arange(start, min(n, start + (1 << 20)), dtype=np.float64)
        values = (f.a * t * t + f.b * t + f.c) / f.d
        values = values[values >= 2]
        total += float(np.sum(1.0 / np.log(values)))
    return product * total


@dataclass(frozen=True)
class PolyCount:
    """Prime values of ``f`` on ``0 <= t < upto`` against the Bateman-Horn forecast.

    ``constant`` is C_f; ``predicted`` is ``C_f li(upto)``; ``verdict`` explains
    reducible or fixed-divisor polynomials (then C_f = 0 or does not apply).
    """

    f: Quadratic
    upto: int
    count: int
    constant: float
    predicted: float
    verdict: Verdict
    checked: int = 0  # sieved values also tested one by one (all agreed)

    @property
    def ratio(self) -> float:
        return self.count / self.predicted if self.predicted else math.nan


def poly_count(f: Quadratic, upto: int, prime_limit: int = DEFAULT_PRIME_LIMIT,
               var: str = "x", progress=None, pass_size: int | None = None,
               samples: int = 0) -> PolyCount:
    """Count the prime values of ``f`` for ``0 <= x < upto`` and compare with C_f li(N).

    Quadratics with a positive leading coefficient (and ``d = 1``) are sieved on x
    (:mod:`.polysieve`, ``upto`` up to 10^12, values beyond 2^64 included); the others
    are tested value by value with Miller-Rabin (``upto`` up to 10^9, values in 63
    bits). ``progress(x_done, count_so_far)`` is called each time the sieve has
    decided a longer prefix ``x < x_done``; a KeyboardInterrupt raised meanwhile
    propagates as :class:`PartialCount` carrying the count of the decided prefix.
    ``pass_size``: x values the sieve marks at once (one bit each; default
    ``polysieve.MAX_PASS``, 2 GiB of marks). ``samples``: x per decided range of the
    sieve also tested one by one (values below 3.3 x 10^24; a disagreement raises
    RuntimeError), counted in ``checked``. ``var`` names the variable in the verdict's text.
    """
    from jitgames._interrupt import run_interruptible, stop_flag, stop_requested
    from jitgames._jit import thread_count
    from jitgames.primes import polysieve

    verdict = classify(f, var)
    constant = bateman_horn_constant(f, prime_limit) if verdict.kind == "irreducible" else 0.0
    if f.d == 1 and f.a > 0:
        polysieve.check_sieve_request(f.a, f.b, f.c, upto)
        decided = [(0, 0, 0)]  # (x_end, count, checked) of the decided prefix

        def sieve():  # in a helper thread: Ctrl-C is heard while a kernel runs
            blocks = polysieve.sieve_blocks(f.a, f.b, f.c, upto, thread_count(),
                                            pass_size=pass_size or polysieve.MAX_PASS,
                                            samples=samples)
            for done, found, tested in blocks:
                _, count, checked = decided[0]
                decided[0] = (done, count + found, checked + tested)
                if progress is not None:
                    progress(done, count + found)
                if stop_requested(stop_flag()):
                    raise KeyboardInterrupt

        try:
            run_interruptible(sieve)
        except KeyboardInterrupt:
            done, count, checked = decided[0]
            raise PartialCount(_result(f, done, count, constant, verdict, checked)) from None
        _, count, checked = decided[0]
        return _result(f, upto, count, constant, verdict, checked)
    if not 0 <= upto <= MAX_UPTO:
        raise InputError(f"upto must be between 0 and 10^9, got {upto}")
    check_values_fit(f, upto)
    lookup = np.zeros(0, dtype=np.uint8)
    count = int(count_prime_values(f.a, f.b, f.c, f.d, upto, lookup, 0)) if upto else 0
    return _result(f, upto, count, constant, verdict)


def _result(f, upto, count, constant, verdict, checked=0) -> PolyCount:
    predicted = constant * logarithmic_integral(upto) if upto >= 2 else 0.0
    return PolyCount(f, upto, count, constant, predicted, verdict, checked)


class PartialCount(KeyboardInterrupt):
    """A count cut short: ``result`` holds the exact count for ``x < result.upto``."""

    def __init__(self, result: PolyCount):
        super().__init__(f"interrupted at x = {result.upto}")
        self.result = result
