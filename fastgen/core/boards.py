"""Board arrays: validation, conversion, the starting position, side swapping and the
distinct boards of a batch.

The canonical board (docs/RULES.md R4) is an ``int8`` array of shape ``(2, 25)``:
row 0 is the opponent, row 1 the side on roll; index ``i`` in 0..23 is that side's
checkers on its own point ``i + 1`` and index 24 its bar. A batch has shape ``(N, 2, 25)``.

Validation happens once here, at the Python boundary; the compiled core trusts its input.
"""

from __future__ import annotations

import numpy as np

from fastgen.core import _core, _features
from fastgen.errors import InvalidBoardError, InvalidDiceError
from fastgen._typing import ArrayLike, DiceLike, Int8Array

__all__ = [
    "STARTING_BOARD",
    "DISTINCT_ROLLS",
    "ROLL_CHANCES",
    "as_board",
    "as_boards",
    "as_dice",
    "as_dice_batch",
    "swap_sides",
    "distinct_boards",
]

_START_ROW = np.zeros(25, dtype=np.int8)
_START_ROW[[23, 12, 7, 5]] = [2, 5, 3, 5]  # R3: 24, 13, 8 and 6 points

#: The starting position (R3), read-only. Both rows are the same: each side sees itself.
STARTING_BOARD: Int8Array = np.stack([_START_ROW, _START_ROW])
STARTING_BOARD.setflags(write=False)

#: The 15 opening rolls (R16: each side rolls one die, ties are rolled again, the higher
#: die moves first with both), larger die first.
OPENING_ROLLS = tuple((hi, lo) for hi in range(2, 7) for lo in range(1, hi))

#: The 21 distinct rolls, smaller die first, and the chance of each (a double 1/36, the
#: others 2/36), read-only: what a look over the next roll averages.
DISTINCT_ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(a, 7)], dtype=np.int8)
DISTINCT_ROLLS.setflags(write=False)
ROLL_CHANCES = np.array([1.0 if a == b else 2.0 for a, b in DISTINCT_ROLLS]) / 36.0
ROLL_CHANCES.setflags(write=False)

# Messages for the error codes of _core.validate_boards (kept beside the code numbers).
_BOARD_ERRORS = {
    1: "a negative checker count",
    2: "more than 15 checkers on one side",
    3: "both sides on one physical point",
}


def _to_int8(value, what: str) -> np.ndarray:
    """Convert array-like *value* to a C-contiguous int8 array, refusing lossy conversions."""
    if isinstance(value, np.ndarray):
        arr = value
    else:
        try:
            arr = np.asarray(value)
        except (ValueError, TypeError) as exc:
            raise InvalidBoardError(f"{what} {value!r} is not an array of integers: {exc}") from None
    if arr.dtype == np.int8:
        return np.ascontiguousarray(arr)
    if arr.dtype.kind not in "iu" or arr.dtype == np.bool_:
        raise InvalidBoardError(
            f"{what} must hold integers (int8 preferred), got dtype {arr.dtype} in {value!r}"
        )
    if arr.size and (arr.min() < -128 or arr.max() > 127):
        raise InvalidBoardError(f"{what} has counts outside int8 range: {value!r}")
    return np.ascontiguousarray(arr, dtype=np.int8)


def as_board(board: ArrayLike) -> Int8Array:
    """Return *board* as a validated C-contiguous ``int8`` array of shape (2, 25).

    Raises :class:`InvalidBoardError` quoting the input for a wrong shape or dtype,
    negative counts, more than 15 checkers a side, or both sides on one point (R4).

    >>> as_board(STARTING_BOARD).shape
    (2, 25)
    """
    arr = _to_int8(board, "board")
    if arr.shape != (2, 25):
        raise InvalidBoardError(f"board must have shape (2, 25), got {arr.shape}: {board!r}")
    code = _core.validate_board(arr)
    if code:
        raise InvalidBoardError(f"invalid board ({_BOARD_ERRORS[code]}): {board!r}")
    return arr


def as_boards(boards: ArrayLike, *, check_counts: bool = True) -> Int8Array:
    """Return *boards* as a validated C-contiguous ``int8`` array of shape (N, 2, 25).

    With ``check_counts=False`` only the type and shape are checked: the batch
    generators check each board's counts in the core, inside their worker threads, and
    call this again with the check on when one is invalid.
    """
    arr = _to_int8(boards, "boards")
    if arr.ndim != 3 or arr.shape[1:] != (2, 25):
        raise InvalidBoardError(f"boards must have shape (N, 2, 25), got {arr.shape}")
    if not check_counts:
        return arr
    index, code = _core.validate_boards(arr)
    if code:
        raise InvalidBoardError(
            f"invalid board at index {index} ({_BOARD_ERRORS[code]}): {arr[index]!r}"
        )
    return arr


def as_dice(dice: DiceLike) -> tuple[int, int]:
    """Return *dice* as a pair of Python ints in 1..6 (R5); raise InvalidDiceError otherwise.

    >>> as_dice((6, 1))
    (6, 1)
    """
    try:
        d1, d2 = dice
    except (TypeError, ValueError):
        raise InvalidDiceError(f"dice must be a pair (d1, d2), got {dice!r}") from None
    out = []
    for d in (d1, d2):
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)):
            raise InvalidDiceError(f"dice must be integers 1..6, got {dice!r}")
        if not 1 <= d <= 6:
            raise InvalidDiceError(f"dice must be integers 1..6, got {dice!r}")
        out.append(int(d))
    return out[0], out[1]


def as_dice_batch(dice: ArrayLike, n: int) -> Int8Array:
    """Return *dice* as a C-contiguous ``int8`` array of shape (n, 2), every die in 1..6."""
    try:
        arr = np.asarray(dice)
    except (ValueError, TypeError):
        raise InvalidDiceError(f"dice must be an (N, 2) integer array, got {dice!r}") from None
    if arr.dtype.kind not in "iu" or arr.dtype == np.bool_:
        raise InvalidDiceError(f"dice must hold integers, got dtype {arr.dtype}: {dice!r}")
    if arr.shape != (n, 2):
        raise InvalidDiceError(f"dice must have shape ({n}, 2), got {arr.shape}: {dice!r}")
    if arr.dtype != np.int8 and arr.size and (arr.min() < 1 or arr.max() > 6):
        # out of range before the int8 conversion could wrap a value into range
        i = int(np.flatnonzero(((arr < 1) | (arr > 6)).any(axis=1))[0])
        raise InvalidDiceError(f"dice at index {i} out of range 1..6: {arr[i].tolist()!r}")
    arr = np.ascontiguousarray(arr, dtype=np.int8)
    i = _core.first_bad_dice(arr)
    if i >= 0:
        raise InvalidDiceError(f"dice at index {i} out of range 1..6: {arr[i].tolist()!r}")
    return arr


def swap_sides(boards: ArrayLike) -> Int8Array:
    """The same position(s) seen from the other side: rows 0 and 1 exchanged.

    Works for any leading shape ``(..., 2, 25)`` and returns a new array.

    >>> bool((swap_sides(swap_sides(STARTING_BOARD)) == STARTING_BOARD).all())
    True
    """
    arr = np.asarray(boards)
    if arr.ndim < 2 or arr.shape[-2:] != (2, 25):
        raise InvalidBoardError(f"boards must have shape (..., 2, 25), got {arr.shape}")
    return arr[..., ::-1, :].copy()


def distinct_boards(boards: Int8Array) -> tuple[np.ndarray, np.ndarray] | None:
    """None when no two of the (N, 2, 25) int8 *boards* (checked by the caller) are equal;
    else ``(distinct, back)``: the index of the first of each group of equal boards, in
    order, and for each board the place of its first among them, so that
    ``boards[distinct][back]`` is *boards*: what lets a costly evaluator be asked about
    each distinct position once and its answers be spread back."""
    n = boards.shape[0]
    first = _features.first_equal(np.ascontiguousarray(boards))
    distinct = np.flatnonzero(first == np.arange(n))
    if distinct.size == n:
        return None
    where = np.empty(n, dtype=np.int64)
    where[distinct] = np.arange(distinct.size)
    return distinct, where[first]
