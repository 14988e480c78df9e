"""The compiled board measures of fastgen.core._features: ``row_measures`` (each row's
checkers left, rearmost checker, checkers on its points 19..24 and bar) and
``first_equal`` (the first of equal boards), each against a plain reference on boards
from games of mixed play, with repeats and edge rows."""

from __future__ import annotations

import numpy as np

from fastgen.core import _features

from _gnubg_positions import mixed


def _boards() -> np.ndarray:
    games = mixed(21, 40)
    rng = np.random.default_rng(9)
    extra = np.zeros((50, 2, 25), np.int8)
    for b in extra:  # short rows, empty rows, checkers on the bar
        for side in range(2):
            for _ in range(int(rng.integers(0, 6))):
                b[side, int(rng.integers(0, 25))] += 1
    arr = np.concatenate([games, extra, games[::7]])  # the last ones repeat earlier boards
    return np.ascontiguousarray(arr[rng.permutation(arr.shape[0])])


def test_row_measures_equal_a_plain_loop():
    arr = _boards()
    got = _features.row_measures(arr)
    assert got.shape == (arr.shape[0], 2, 3) and got.dtype == np.uint8
    for b, m in zip(arr, got):
        for side in range(2):
            row = b[side].tolist()
            back = max((k + 1 for k in range(25) if row[k]), default=0)
            assert m[side].tolist() == [sum(row), back, sum(row[18:25])]


def test_first_equal_gives_the_first_of_equal_boards():
    arr = _boards()
    got = _features.first_equal(arr)
    seen: dict[bytes, int] = {}
    want = [seen.setdefault(b.tobytes(), i) for i, b in enumerate(arr)]
    assert got.tolist() == want
    assert (got < np.arange(arr.shape[0])).sum() >= arr.shape[0] // 10  # repeats were found
    assert _features.first_equal(arr[:1]).tolist() == [0]
    assert _features.first_equal(arr[:0]).shape == (0,)
