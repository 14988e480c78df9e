"""Exact bear-off evaluation: gnubg's five outputs from bear-off databases, on batches.

For the side on roll (row 1 of each board): P(win), P(win a gammon), P(win a
backgammon), P(lose a gammon), P(lose a backgammon); gammons include backgammons, as
gnubg counts them.

- Two-sided database: the exact cubeless win probability, (equity + 1) / 2, no gammons
  (a side with fewer than 15 checkers has borne one off).
- One-sided database: each side's distribution of the number of rolls it needs, the side
  on roll winning when it needs no more rolls than its opponent (it rolls first):
  P(win) = sum_i A_i P(B >= i). Gammons from the first-checker distributions (positions
  of 15 checkers): the side on roll wins a gammon when it is off before the opponent's
  first checker, sum_i A_i P(G_B >= i), and loses one when the opponent is off before
  its own first checker, sum_j B_j P(G_A > j). Each side plays to bear off fastest, as
  the database was built, so these are the one-sided database's numbers, not a perfect
  player's (a two-sided database is exact).
- No backgammons: a bear-off has no checker in the winner's home board or on the bar.

Every output is in [0, 1]: a file's distributions are checked as it is read
(:func:`fastgen.bearoff.read_gnubg`), and the sums of one read unchecked are capped at 1.
"""

from __future__ import annotations

from typing import Sequence, Union

import numpy as np

from fastgen._typing import ArrayLike
from fastgen.bearoff import _build
from fastgen.bearoff.database import OneSidedDatabase, TwoSidedDatabase
from fastgen.bearoff.index import side_index_trusted
from fastgen.core.boards import as_boards
from fastgen.errors import InvalidArgumentError, OutsideDatabaseError
from fastgen.core.ids import position_id

__all__ = ["evaluate", "covered", "one_sided_probabilities"]

Database = Union[OneSidedDatabase, TwoSidedDatabase]

def _checked(databases: Sequence[object]) -> list[Database]:
    if not databases:
        raise InvalidArgumentError("evaluate needs at least one bear-off database (build_* or read_gnubg)")
    for db in databases:
        if not isinstance(db, (OneSidedDatabase, TwoSidedDatabase)):
            raise InvalidArgumentError(f"expected bear-off databases, got {db!r}")
    return list(databases)  # type: ignore[arg-type]


def _indices(arr: np.ndarray, db: Database) -> tuple[np.ndarray, np.ndarray]:
    return side_index_trusted(arr, 1, db.points, db.checkers), side_index_trusted(arr, 0, db.points, db.checkers)


def covered(boards: ArrayLike, *databases: Database) -> np.ndarray:
    """Boolean (N,): which boards of an (N, 2, 25) batch one of *databases* holds (both
    sides within its points and checkers)."""
    dbs = _checked(databases)
    arr = as_boards(boards)
    mask = np.zeros(arr.shape[0], dtype=bool)
    for db in dbs:
        me, opp = _indices(arr, db)
        mask |= (me >= 0) & (opp >= 0)
    return mask


def one_sided_probabilities(db: OneSidedDatabase, on_roll: np.ndarray, opponent: np.ndarray) -> np.ndarray:
    """(n, 5) outputs for pairs of one-sided position numbers (side on roll, opponent):
    with A, B their roll distributions, P(win) = sum_i A_i P(B >= i) (the side on roll
    rolls first); P(win gammon) = sum_i A_i P(G_B >= i) and P(lose gammon) =
    sum_j B_j P(G_A > j) from the first-checker distributions G (a compiled loop)."""
    me = np.ascontiguousarray(on_roll, dtype=np.int64)
    opp = np.ascontiguousarray(opponent, dtype=np.int64)
    out = np.empty((me.shape[0], 5))
    _build.one_sided_outputs(me, opp, out, *db.storage())
    return out


def evaluate(boards: ArrayLike, *databases: Database, outside: str = "raise") -> np.ndarray:
    """gnubg's five outputs for the side on roll of each board of an (N, 2, 25) batch.

    Each board is evaluated by the first of *databases* that holds it (pass a two-sided
    database before a one-sided one to have it used where it applies). Boards no
    database holds raise OutsideDatabaseError quoting the first one (``outside="raise"``)
    or get a row of NaN (``outside="mask"``; :func:`covered` gives the mask).

    >>> import numpy as np
    >>> from fastgen.bearoff import build_one_sided, evaluate
    >>> board = np.zeros((2, 25), np.int8); board[1, 1] = 2; board[0, 0] = 1
    >>> evaluate(board[None], build_one_sided(2)).round(4).tolist()   # 2 on my 2-point, 1 on its ace
    [[0.7222, 0.0, 0.0, 0.0, 0.0]]
    """
    if outside not in ("raise", "mask"):
        raise InvalidArgumentError(f"outside must be 'raise' or 'mask', got {outside!r}")
    dbs = _checked(databases)
    arr = as_boards(boards)
    n = arr.shape[0]
    out = np.full((n, 5), np.nan)
    todo = np.ones(n, dtype=bool)
    for db in dbs:
        if not todo.any():
            break
        me, opp = _indices(arr, db)
        take = todo & (me >= 0) & (opp >= 0)
        if not take.any():
            continue
        rows = np.nonzero(take)[0]
        if isinstance(db, TwoSidedDatabase):
            out[rows] = 0.0
            out[rows, 0] = (db.equities(me[rows], opp[rows])[:, 0] + 1.0) / 2.0
        else:
            out[rows] = one_sided_probabilities(db, me[rows], opp[rows])
        todo &= ~take
    if outside == "raise" and todo.any():
        first = int(np.nonzero(todo)[0][0])
        names = ", ".join(f"{db.kind} {db.points}x{db.checkers}" for db in dbs)
        raise OutsideDatabaseError(
            f"board {first} (Position ID {position_id(arr[first])!r}, {arr[first].tolist()!r}) "
            f"is in none of the bear-off databases given ({names})"
        )
    return out
