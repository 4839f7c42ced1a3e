"""Reference twin of :mod:`jitgames._random` with Python integers masked to 64 bits."""
MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def mix64(x):
    z = x & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def stream_key(seed, index):
    return mix64(mix64(seed + GOLDEN) ^ index)


def next_u64(key, counter):
    return mix64(key + (counter + 1) * GOLDEN)


def below(key, counter, n):
    limit = (1 << 64) % n
    while True:
        r = next_u64(key, counter)
        counter += 1
        if r >= limit:
            return r % n, counter
