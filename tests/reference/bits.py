"""Reference twin of jitgames/_bits.py: the bits of a word counted in its binary digits."""


def popcount(x):
    return bin(int(x)).count("1")
