"""Converters between fastgen's (2, 25) board and the signed vectors other programs use.

Both layouts put the side on roll (row 1 of the canonical board, R4) positive and the
opponent negative, with points numbered from the side on roll (it moves from 24 toward 1):

- **26-vector** (:func:`to_signed26` / :func:`from_signed26`): index 0 = opponent's bar
  (<= 0), 1..24 = points 1..24 (own checkers > 0, opponent's < 0), 25 = own bar (>= 0).
  This is the board part of a FIBS ``board:`` line as GNU Backgammon writes it for the
  player to move (``FIBSBoard`` in drawboard.c: opponent's bar, the 24 points, own bar),
  and the first 26 entries of Tesauro's pubeval layout below. Borne-off checkers are
  implied (15 minus the checkers shown).
- **28-vector** (:func:`to_pubeval28` / :func:`from_pubeval28`): Tesauro's ``pubeval``
  ``pos[]`` array (pub_eval.c, also shipped with GNU Backgammon): indices 0..25 as above,
  26 = own checkers borne off (>= 0), 27 = opponent's checkers borne off (<= 0).

Every function takes one board or a batch (``(..., 2, 25)`` / ``(..., 26)`` / ``(..., 28)``)
and returns ``int8`` arrays. Malformed vectors raise
:class:`~fastgen.errors.InvalidBoardError` quoting the input.

>>> from fastgen import STARTING_BOARD
>>> v = to_pubeval28(STARTING_BOARD)
>>> v[[0, 1, 6, 8, 12, 13, 17, 19, 24, 25, 26, 27]].tolist()
[0, -2, 5, 3, -5, 5, -3, -5, 2, 0, 0, 0]
>>> bool((from_pubeval28(v) == STARTING_BOARD).all())
True
"""

from __future__ import annotations

import numpy as np

from fastgen.core.boards import as_boards
from fastgen.errors import InvalidBoardError
from typing import Any
from numpy.typing import NDArray
from fastgen._typing import ArrayLike

__all__ = ["to_signed26", "from_signed26", "to_pubeval28", "from_pubeval28"]


def _as_batch(board) -> tuple[np.ndarray, tuple]:
    """Validated (N, 2, 25) view of *board* and the leading shape to restore."""
    try:
        arr = np.asarray(board)
    except (TypeError, ValueError):
        raise InvalidBoardError(f"board(s) must be an integer array of shape (..., 2, 25), got {board!r}") from None
    if arr.ndim < 2 or arr.shape[-2:] != (2, 25):
        raise InvalidBoardError(f"board(s) must have shape (..., 2, 25), got {arr.shape}: {board!r}")
    lead = arr.shape[:-2]
    return as_boards(arr.reshape((-1, 2, 25))), lead


def to_signed26(board: ArrayLike) -> NDArray[Any]:
    """The 26-vector (FIBS board order, side on roll positive) of *board*.

    >>> from fastgen import STARTING_BOARD
    >>> to_signed26(STARTING_BOARD).tolist()[:9]
    [0, -2, 0, 0, 0, 0, 5, 0, 3]
    """
    boards, lead = _as_batch(board)
    mine, opp = boards[:, 1, :].astype(np.int16), boards[:, 0, :].astype(np.int16)
    out = np.zeros((boards.shape[0], 26), dtype=np.int16)
    out[:, 0] = -opp[:, 24]
    # My point p (index p) holds my checkers on my index p-1, the opponent's on its 24-p.
    out[:, 1:25] = mine[:, :24] - opp[:, 23::-1]
    out[:, 25] = mine[:, 24]
    return out.astype(np.int8).reshape(lead + (26,))


def to_pubeval28(board: ArrayLike) -> NDArray[Any]:
    """Tesauro's pubeval ``pos[]`` 28-vector of *board* (side on roll positive)."""
    boards, lead = _as_batch(board)
    flat = to_signed26(boards)
    out = np.zeros((boards.shape[0], 28), dtype=np.int8)
    out[:, :26] = flat
    out[:, 26] = 15 - boards[:, 1, :].sum(axis=1, dtype=np.int16)
    out[:, 27] = -(15 - boards[:, 0, :].sum(axis=1, dtype=np.int16))
    return out.reshape(lead + (28,))


def _check_vector(vec, size: int, name: str) -> tuple[np.ndarray, tuple]:
    """(M, size) int64 rows of *vec* and its leading shape; every entry checked to lie in
    -15..15 *before* any conversion, so nothing wraps (261 is not read as 5)."""
    try:
        arr = np.asarray(vec)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.dtype.kind not in "iu" or arr.ndim < 1 or arr.shape[-1] != size:
        shown = "an object" if arr is None else f"{arr.dtype} {arr.shape}"
        raise InvalidBoardError(f"{name} must be integers of shape (..., {size}), got {shown}: {vec!r}")
    if arr.size and (int(arr.min()) < -15 or int(arr.max()) > 15):
        raise InvalidBoardError(f"{name} holds a count outside -15..15: {vec!r}")
    return arr.reshape((-1, size)).astype(np.int64), arr.shape[:-1]


def from_signed26(vec: ArrayLike) -> NDArray[Any]:
    """The canonical (2, 25) board of a 26-vector; the inverse of :func:`to_signed26`.

    >>> from fastgen import STARTING_BOARD
    >>> bool((from_signed26(to_signed26(STARTING_BOARD)) == STARTING_BOARD).all())
    True
    """
    arr, lead = _check_vector(vec, 26, "a 26-vector")
    if (arr[:, 0] > 0).any() or (arr[:, 25] < 0).any():
        raise InvalidBoardError(
            f"a 26-vector holds the opponent's bar (<= 0) at index 0 and the own bar (>= 0) at 25: {vec!r}"
        )
    boards = np.zeros((arr.shape[0], 2, 25), dtype=np.int64)
    points = arr[:, 1:25]
    boards[:, 1, :24] = np.clip(points, 0, None)
    boards[:, 0, 23::-1] = np.clip(-points, 0, None)
    boards[:, 1, 24] = arr[:, 25]
    boards[:, 0, 24] = -arr[:, 0]
    if (boards.sum(axis=2) > 15).any():
        raise InvalidBoardError(f"a 26-vector has more than 15 checkers on one side: {vec!r}")
    return as_boards(boards.astype(np.int8)).reshape(lead + (2, 25))


def from_pubeval28(vec: ArrayLike) -> NDArray[Any]:
    """The canonical (2, 25) board of a pubeval 28-vector; checks the borne-off counts."""
    arr, lead = _check_vector(vec, 28, "a pubeval 28-vector")
    boards = from_signed26(arr[:, :26]).reshape(-1, 2, 25)
    off_mine = 15 - boards[:, 1, :].sum(axis=1, dtype=np.int64)
    off_opp = 15 - boards[:, 0, :].sum(axis=1, dtype=np.int64)
    if (arr[:, 26] != off_mine).any() or (arr[:, 27] != -off_opp).any():
        raise InvalidBoardError(
            "a pubeval 28-vector must hold the own borne-off count at 26 (>= 0) and the "
            f"opponent's at 27 (<= 0), each 15 minus the checkers on the board: {vec!r}"
        )
    return boards.reshape(lead + (2, 25))
