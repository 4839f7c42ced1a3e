"""Reference twin of the Fibonacci-nim SG kernel: the definition, memoised."""
from functools import lru_cache


def grundy_kernel(heap_max, sg, start):
    @lru_cache(maxsize=None)
    def value(p, limit):
        """SG of p tokens when up to ``limit`` may be taken."""
        options = {value(p - t, min(p - t, 2 * t)) for t in range(1, min(p, limit) + 1)}
        g = 0
        while g in options:
            g += 1
        return g

    for p in range(heap_max + 1):
        sg[p, 0] = 0
        for q in range(1, heap_max + 1):
            sg[p, q] = value(p, 2 * q)
        start[p] = value(p, p - 1) if p >= 1 else 0
