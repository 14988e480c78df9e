"""GNU Backgammon's 0-ply value of bear-off positions, equal to gnubg-nn's to the bit.

A position is in gnubg's bear-off class when each side has at least one checker left
and all of them on its own points 1 to 6. :func:`gnubg_bearoff` gives the five outputs gnubg-nn's
``probabilities(board, 0)`` gives for such a board, as float32 values held in float64:
P(win), P(win gammon), P(win backgammon), P(lose gammon), P(lose backgammon) for the
side on roll (row 1). Its rules, each measured against gnubg-nn:

1. **Two-sided database** (both sides within it, 6 points x 6 checkers in gnubg's
   ``gnubg_ts0.bd``): from the stored cubeless value q, P(win) = (q / 32767.5 - 1) / 2 +
   0.5 computed in float32; no gammons.
2. **One-sided database** otherwise (``gnubg_os0.bd``, 6 points x 15 checkers): with A and
   B the stored roll distributions of the side on roll and its opponent (integers out of
   65535), P(win) = sum over i <= j of A_i B_j / 65535^2, the exact value rounded to float32.
3. **Certain win from a 32-bit product**: when some term A_i B_j with i <= j reaches 2^31,
   gnubg-nn gives P(win) = 1 exactly. It happens only when the side on roll has at most 6
   checkers and a turn count it reaches with probability above 0.69 while the opponent,
   with 7 to 10 checkers, needs a later turn count with probability above 0.69 too (5,691
   of the 6.5 million such pairs); the true value is then 0.952 to 0.99999 (0.952 for
   (2 1 0 0 2) on roll against (2 1 2 2), points 1 to 6). Such a term never involves a
   side of 15 checkers, so no gammon output is affected.
4. **Gammons** (one-sided only): a side that still has all 15 checkers can be gammoned.
   Its first-checker distribution G is not the database's stored one but an exact one
   (:func:`first_checker_distributions`): each roll bears a checker off at once when it
   can, and is otherwise played to the 15-checker position with the fewest expected turns
   until the first checker is off; and as gnubg-nn has it, a first checker later than
   the 4th turn counts as off on the 4th, 2-2 counts as bearing one off from checkers on
   points 1 and 3 only (it cannot), and fifteen on the ace point cannot be gammoned (they
   can). P(win gammon) = sum_i A_i P(G_B >= i) and P(lose gammon) = sum_j B_j P(G_A > j),
   rounded to float32.
5. **Small gammons are zero**: a gammon output below 1e-4 is 0.
6. **No backgammons**: both backgammon outputs are 0.

:func:`fastgen.bearoff.evaluate` gives the databases' own numbers instead (the stored
first-checker distributions, no rules 3 and 5, float64).

>>> import numpy as np
>>> from fastgen.bearoff import build_one_sided, gnubg_bearoff
>>> board = np.zeros((2, 25), np.int8); board[1, :6] = [4, 3, 0, 4, 0, 4]; board[0, 0] = 1
>>> gnubg_bearoff(board[None], build_one_sided(6))[0].tolist()   # 15 checkers against one on the ace
[0.0, 0.0, 0.0, 0.0833333358168602, 0.0]
"""

from __future__ import annotations

import threading
from typing import Optional

import numpy as np

from fastgen._typing import ArrayLike
from fastgen.bearoff.database import OneSidedDatabase, TwoSidedDatabase
from fastgen.bearoff import _build
from fastgen.bearoff.build import children
from fastgen.bearoff.index import index_position, n_positions, side_index_trusted
from fastgen.core.boards import as_boards
from fastgen.core.ids import position_id
from fastgen.errors import InvalidArgumentError, OutsideDatabaseError

__all__ = ["gnubg_bearoff", "first_checker_distributions"]

#: Points of gnubg's bear-off class: a side's home board.
POINTS = 6
#: Checkers a side starts with: only a side that still has them all can be gammoned.
FULL = 15
#: Turns a distribution holds (gnubg's one-sided files: 0 to 31 turns).
NDIST = 32
#: gnubg-nn's first-checker distributions end here: a later first checker counts at this turn.
HORIZON = 4
#: Gammon outputs below this are 0.
SMALL_GAMMON = 1e-4
#: A product A_i B_j of stored integers that reaches this gives P(win) = 1.
PRODUCT_LIMIT = 1 << 31
#: The scale of a one-sided distribution: its integers sum to this.
UNIT = 65535


_first_lock = threading.Lock()
_first: Optional[np.ndarray] = None


def _first_rows() -> int:
    """The number of the first position of 15 checkers (gnubg numbers by checkers first)."""
    return n_positions(POINTS, FULL - 1)


def _compute_first_checker() -> np.ndarray:
    start = _first_rows()
    count = n_positions(POINTS, FULL) - start
    positions = np.ascontiguousarray(index_position(np.arange(start, start + count), POINTS), dtype=np.int8)
    dist = np.zeros((count, NDIST))
    if _build.first_checker(children(POINTS), positions, start, HORIZON, dist) < 0:
        raise MemoryError("fastgen: no memory for the first-checker distributions")
    # gnubg-nn has fifteen on the ace point with no gammon chances at all
    dist[0] = 0.0
    dist[0, 0] = 1.0
    return dist


def first_checker_distributions() -> np.ndarray:
    """(15504, 32) float64: for each one-sided position of 15 checkers on 6 points (row =
    gnubg's position number minus 38,760, the first such number), the probability that its
    first checker comes off on turn t = 0..31, as gnubg-nn's gammon outputs use it. Each
    roll bears a checker off when it can; otherwise it is played to the 15-checker
    position with the fewest expected turns until that happens (the first such play in
    fastgen's order on a tie). Exact, but for gnubg-nn's three departures: turns after
    the 4th count as the 4th (column 4 holds P(first checker on turn 4 or later), columns
    5.. are 0), 2-2 bears a checker off from checkers on points 1 and 3 only, and
    fifteen on the ace point have theirs off already (row 0 is all turn 0). Computed once
    per process (compiled, about 50 ms) and kept; read-only."""
    global _first
    with _first_lock:
        if _first is None:
            table = _compute_first_checker()
            table.setflags(write=False)
            _first = table
        return _first


def _checked(one_sided_db: object, two_sided_db: object) -> None:
    if not isinstance(one_sided_db, OneSidedDatabase) or one_sided_db.points != POINTS:
        raise InvalidArgumentError(
            f"gnubg_bearoff needs a one-sided database of {POINTS} points (gnubg_os0.bd, "
            f"read_gnubg or build_one_sided(6)), got {one_sided_db!r}")
    if two_sided_db is not None and not isinstance(two_sided_db, TwoSidedDatabase):
        raise InvalidArgumentError(f"two_sided_db must be a TwoSidedDatabase or None, got {two_sided_db!r}")


def _two_sided_win(values: np.ndarray) -> np.ndarray:
    """P(win) from stored cubeless values, in float32 as gnubg computes it."""
    f32 = np.float32
    q = values.astype(f32)
    return ((q / f32(32767.5) - f32(1.0)) / f32(2.0) + f32(0.5)).astype(np.float64)


def _one_sided(db: OneSidedDatabase, me: np.ndarray, opp: np.ndarray, out: np.ndarray) -> None:
    table = db.rolls  # the whole table, decoded once and kept by the database (3.5 MB)
    a = table[me].astype(np.int64)
    b = table[opp].astype(np.int64)
    tail = np.cumsum(b[:, ::-1], axis=1)[:, ::-1]  # stored P(B >= i)
    wins = (a * tail).sum(axis=1)  # exact: at most 65535^2
    win = (wins / float(UNIT * UNIT)).astype(np.float32).astype(np.float64)
    latest = np.maximum.accumulate(b[:, ::-1], axis=1)[:, ::-1]  # max over j >= i of B_j
    win[(a * latest >= PRODUCT_LIMIT).any(axis=1)] = 1.0
    out[:, 0] = win
    out[:, 1:] = 0.0
    start = _first_rows()
    they_full = opp >= start
    we_full = me >= start
    if not (they_full.any() or we_full.any()):
        return
    first = first_checker_distributions()
    if they_full.any():
        g = first[opp[they_full] - start]
        at_least = np.cumsum(g[:, ::-1], axis=1)[:, ::-1]  # P(G_B >= i)
        out[they_full, 1] = ((a[they_full] / float(UNIT)) * at_least).sum(axis=1)
    if we_full.any():
        g = first[me[we_full] - start]
        beyond = np.zeros_like(g)
        beyond[:, :-1] = np.cumsum(g[:, ::-1], axis=1)[:, ::-1][:, 1:]  # P(G_A > j)
        out[we_full, 3] = ((b[we_full] / float(UNIT)) * beyond).sum(axis=1)
    for k in (1, 3):
        col = out[:, k].astype(np.float32).astype(np.float64)
        col[col < SMALL_GAMMON] = 0.0
        out[:, k] = col


def gnubg_bearoff(boards: ArrayLike, one_sided_db: OneSidedDatabase,
                  two_sided_db: Optional[TwoSidedDatabase] = None) -> np.ndarray:
    """GNU Backgammon's 0-ply outputs (gnubg-nn's ``probabilities(board, 0)``) of each
    bear-off board of an (N, 2, 25) batch, (N, 5) float64 holding float32 values.

    *one_sided_db* is the 6-point one-sided database (gnubg's ``gnubg_os0.bd`` read with
    :func:`read_gnubg`, or ``build_one_sided(6)``, the same numbers); *two_sided_db*, when
    given (gnubg's ``gnubg_ts0.bd``, 6 x 6), is used where both sides fit it, as gnubg
    does. The rules are the module's (:mod:`fastgen.bearoff.gnubg`). A board outside
    gnubg's bear-off class (a checker off the home board, on the bar, or a side with no
    checker left) raises OutsideDatabaseError naming the first one.
    """
    _checked(one_sided_db, two_sided_db)
    arr = as_boards(boards)
    n = arr.shape[0]
    me = side_index_trusted(arr, 1, POINTS, FULL)
    opp = side_index_trusted(arr, 0, POINTS, FULL)
    outside = (me <= 0) | (opp <= 0)  # -1: not in the home board; 0: no checker left
    if outside.any():
        first = int(np.nonzero(outside)[0][0])
        raise OutsideDatabaseError(
            f"board {first} (Position ID {position_id(arr[first])!r}, {arr[first].tolist()!r}) "
            "is not a bear-off position: each side needs at least one checker, all on its points 1 to 6")
    out = np.zeros((n, 5))
    todo = np.ones(n, dtype=bool)
    if two_sided_db is not None:
        tm = side_index_trusted(arr, 1, two_sided_db.points, two_sided_db.checkers)
        to = side_index_trusted(arr, 0, two_sided_db.points, two_sided_db.checkers)
        take = (tm >= 0) & (to >= 0)
        if take.any():
            out[take, 0] = _two_sided_win(np.asarray(two_sided_db.values[tm[take], to[take], 0]))
            todo &= ~take
    if todo.any():
        rows = np.nonzero(todo)[0]
        part = np.empty((rows.shape[0], 5))
        _one_sided(one_sided_db, me[rows].astype(np.int64), opp[rows].astype(np.int64), part)
        out[rows] = part
    return out
