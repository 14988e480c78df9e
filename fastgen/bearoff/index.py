"""GNU Backgammon's numbering of bear-off positions, both ways, and on board batches.

A one-sided bear-off position is up to C checkers on a side's points 1..P. gnubg numbers
them 0, 1, 2, ...: by number of checkers first (0 = all borne off, then the P positions of
one checker, ...), and among positions of the same number of checkers in descending
lexicographic order of (checkers on point 1, ..., checkers on point P). For P = 3:
0 = (0, 0, 0), 1 = (1, 0, 0), 2 = (0, 1, 0), 3 = (0, 0, 1), 4 = (2, 0, 0), 5 = (1, 1, 0) ...
The number does not depend on C, so the positions of up to C checkers are numbers
0 .. n_positions(P, C) - 1 for every C.

>>> from fastgen.bearoff import position_index, index_position, n_positions
>>> int(position_index([0, 2, 0]))
7
>>> index_position(7, 3).tolist()
[0, 2, 0]
>>> n_positions(6, 15)
54264
"""

from __future__ import annotations

from math import comb

import numpy as np

from fastgen._typing import ArrayLike
from fastgen.bearoff import _build
from fastgen.core.boards import as_boards
from fastgen.errors import InvalidArgumentError, OutsideDatabaseError

__all__ = [
    "MAX_POINTS",
    "n_positions",
    "position_index",
    "index_position",
    "side_index",
    "side_index_trusted",
    "in_database",
]

#: The most points a bear-off database may span (fastgen's builders; gnubg's makebearoff
#: accepts up to 18 for one-sided files). Beyond 12 the two sides could be in contact.
MAX_POINTS = 12

#: Checkers per side (R1): the most a database position can hold.
MAX_CHECKERS = 15


def check_dimensions(points: object, checkers: object = MAX_CHECKERS) -> tuple[int, int]:
    """(points, checkers) as ints, or OutsideDatabaseError quoting the one out of range."""
    for name, value, top in (("points", points, MAX_POINTS), ("checkers", checkers, MAX_CHECKERS)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not 1 <= value <= top:
            raise OutsideDatabaseError(f"{name} must be an integer from 1 to {top}, got {value!r}")
    return int(points), int(checkers)  # type: ignore[call-overload]


def n_positions(points: int, checkers: int = MAX_CHECKERS) -> int:
    """How many positions of up to *checkers* checkers on *points* points: C(points + checkers, points)."""
    points, checkers = check_dimensions(points, checkers)
    return comb(points + checkers, points)


def _level_offsets(points: int) -> np.ndarray:
    """offsets[n]: the number of the first position of n checkers (n = 0..15), int64."""
    return np.array([0] + [comb(n - 1 + points, points) for n in range(1, MAX_CHECKERS + 2)], dtype=np.int64)


def _binomials() -> np.ndarray:
    table = np.zeros((MAX_CHECKERS + MAX_POINTS + 2, MAX_POINTS + 1), dtype=np.int64)
    for n in range(table.shape[0]):
        for k in range(table.shape[1]):
            table[n, k] = comb(n, k)
    return table


_BINOM = _binomials()


def position_index(counts: ArrayLike) -> np.ndarray:
    """gnubg's number of each position in *counts*, (..., P) checker counts on points 1..P.

    Returns an int64 array of shape counts.shape[:-1] (a 0-d array for one position).
    Counts must be integers >= 0 totalling at most 15; OutsideDatabaseError otherwise.
    """
    a = np.asarray(counts)
    if a.ndim == 0 or a.shape[-1] < 1 or a.shape[-1] > MAX_POINTS or not np.issubdtype(a.dtype, np.integer):
        raise OutsideDatabaseError(f"counts must be integers of shape (..., P) with 1 <= P <= {MAX_POINTS}, got {counts!r}")
    a = a.astype(np.int64)
    total = a.sum(axis=-1)
    if (a < 0).any() or (total > MAX_CHECKERS).any():
        raise OutsideDatabaseError(f"counts must be >= 0 and total at most {MAX_CHECKERS}, got {counts!r}")
    points = a.shape[-1]
    idx = _level_offsets(points)[total]
    rest = total.copy()
    for i in range(points - 1):
        k = points - i - 1
        m = rest - a[..., i] - 1
        idx = idx + np.where(m >= 0, _BINOM[np.maximum(m, 0) + k, k], 0)
        rest = rest - a[..., i]
    return idx


def index_position(index: ArrayLike, points: int, checkers: int = MAX_CHECKERS) -> np.ndarray:
    """The position(s) numbered *index*: int8 counts of shape index.shape + (points,).

    OutsideDatabaseError when an index is not in 0 .. n_positions(points, checkers) - 1.
    """
    points, checkers = check_dimensions(points, checkers)
    idx = np.asarray(index)
    if not np.issubdtype(idx.dtype, np.integer):
        raise OutsideDatabaseError(f"a position number must be an integer, got {index!r}")
    idx = idx.astype(np.int64)
    limit = comb(points + checkers, points)
    if ((idx < 0) | (idx >= limit)).any():
        raise OutsideDatabaseError(
            f"position numbers of up to {checkers} checkers on {points} points run from 0 to {limit - 1}, got {index!r}"
        )
    offsets = _level_offsets(points)
    total = np.searchsorted(offsets, idx, side="right") - 1
    rem = idx - offsets[total]
    rest = total.copy()
    out = np.zeros(idx.shape + (points,), dtype=np.int8)
    for i in range(points - 1):
        k = points - i - 1
        # the positions before the block where point i holds v: C(rest - v - 1 + k, k) for v < rest
        value = rest.copy()
        for v in range(checkers, -1, -1):
            before = np.where(v < rest, _BINOM[np.maximum(rest - v - 1, 0) + k, k], 0)
            hit = (v <= rest) & (before <= rem)
            value = np.where(hit, v, value)
        before = np.where(value < rest, _BINOM[np.maximum(rest - value - 1, 0) + k, k], 0)
        rem = rem - before
        out[..., i] = value
        rest = rest - value
    out[..., points - 1] = rest
    return out


def side_index(boards: ArrayLike, side: int, points: int, checkers: int = MAX_CHECKERS) -> np.ndarray:
    """The number of row *side* (1 = the side on roll, 0 its opponent) of each board of an
    (N, 2, 25) batch in the database of *points* x *checkers*, or -1 where that side has
    a checker above point *points* (or on the bar) or more than *checkers* checkers."""
    points, checkers = check_dimensions(points, checkers)
    if side not in (0, 1):
        raise InvalidArgumentError(f"side must be 0 (opponent) or 1 (on roll), got {side!r}")
    return side_index_trusted(as_boards(boards), side, points, checkers)


def side_index_trusted(arr: np.ndarray, side: int, points: int, checkers: int) -> np.ndarray:
    """side_index on an already validated (N, 2, 25) int8 batch (a compiled loop)."""
    return _build.side_numbers(np.ascontiguousarray(arr), side, points, checkers)


def in_database(boards: ArrayLike, points: int, checkers: int = MAX_CHECKERS) -> np.ndarray:
    """Boolean (N,): both sides of each board fit the database of *points* x *checkers*."""
    return (side_index(boards, 1, points, checkers) >= 0) & (side_index(boards, 0, points, checkers) >= 0)
