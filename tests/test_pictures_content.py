"""Pictures show exactly their data: every cell of a drawn prime window is read back
from the rendered pixels and compared with an independent computation (the spiral
walked step by step, primes by trial division), not with the library's own arrays."""
import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from jitgames.primes import pictures  # noqa: E402
from tests.reference.primes import trial_division_is_prime  # noqa: E402


def _walk_spiral(count):
    """Points of indices 0..count-1 on the counter-clockwise square spiral: one step
    east, then north, west, west, south, south, east x3, north x3, ..."""
    x = y = 0
    points = [(0, 0)]
    directions = [(1, 0), (0, 1), (-1, 0), (0, -1)]
    run, d = 1, 0
    while len(points) < count:
        for _ in range(2):
            dx, dy = directions[d % 4]
            for _ in range(run):
                x, y = x + dx, y + dy
                points.append((x, y))
            d += 1
        run += 1
    return points[:count]


def _rendered_cells(monkeypatch, tmp_path, size, start):
    """Draw a window to a PNG and return (dark, x0, y0): dark[i, j] is True where the
    file's pixel at the centre of cell (x0 + j, y0 + i) is dark. The figure is kept
    from ``plt.close`` only to map data coordinates to the file's pixels."""
    captured = {}
    real_close = plt.close

    def keep(fig=None):
        captured["fig"] = fig
        real_close(fig)

    monkeypatch.setattr(plt, "close", keep)
    png = tmp_path / "w.png"
    pictures.draw("spiral", size, png, start=start)
    fig = captured["fig"]
    pixels = plt.imread(png)[:, :, :3]          # the saved file, floats in [0, 1]
    ax = fig.axes[0]
    image = ax.get_images()[0]
    left, right, bottom, top = image.get_extent()
    x0, y0 = int(round(left + 0.5)), int(round(bottom + 0.5))
    dark = np.zeros((size, size), dtype=bool)
    height = pixels.shape[0]
    for i in range(size):
        for j in range(size):
            px, py = ax.transData.transform((x0 + j, y0 + i))
            dark[i, j] = pixels[int(height - py), int(px)].sum() < 1.5
    return dark, x0, y0


@pytest.mark.parametrize("size,start", [(21, 1), (30, 41)])
def test_spiral_picture_pixels_are_the_primes(monkeypatch, tmp_path, size, start):
    dark, x0, y0 = _rendered_cells(monkeypatch, tmp_path, size, start)
    reach = (max(abs(x0), abs(y0), abs(x0 + size), abs(y0 + size)) * 2 + 3) ** 2
    index_of = {point: k for k, point in enumerate(_walk_spiral(reach))}
    expected = np.array([[trial_division_is_prime(index_of[(x0 + j, y0 + i)] + start)
                          for j in range(size)] for i in range(size)])
    assert expected.sum() > size            # the window holds primes to compare
    assert (dark == expected).all(), np.argwhere(dark != expected)[:5].tolist()
