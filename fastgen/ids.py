"""GNU Backgammon interchange IDs.

Position ID: 14 base64 characters holding 80 bits. For each side, row 0 (the side *not*
on roll) first, then row 1, for each index 0..24 of that row: as many 1 bits as
checkers, then one 0 bit. Bits fill each byte from its least significant bit; the 10
bytes are base64-encoded and the two padding characters dropped.
"""

from __future__ import annotations

import base64
import binascii
import re

import numpy as np

from fastgen.boards import as_board
from fastgen.errors import InvalidBoardError, InvalidPositionIDError

__all__ = ["position_id", "board_from_position_id"]

_PID_RE = re.compile(r"[A-Za-z0-9+/]{14}\Z")


def position_id(board) -> str:
    """Return the 14-character GNU Backgammon Position ID of *board*.

    >>> from fastgen import STARTING_BOARD
    >>> position_id(STARTING_BOARD)
    '4HPwATDgc/ABMA'
    """
    arr = as_board(board)
    key = 0
    nbits = 0
    for row in (0, 1):
        for count in arr[row].tolist():
            key |= ((1 << count) - 1) << nbits  # `count` one bits ...
            nbits += count + 1  # ... then a zero bit
    return base64.b64encode(key.to_bytes(10, "little")).decode("ascii")[:14]


def board_from_position_id(pid) -> np.ndarray:
    """Decode a Position ID into a (2, 25) int8 board; the inverse of :func:`position_id`.

    Raises :class:`InvalidPositionIDError` quoting *pid* when it is not 14 base64
    characters or does not encode a valid position.

    >>> board_from_position_id('4HPwATDgc/ABMA')[1, :].tolist()[:8]
    [0, 0, 0, 0, 0, 5, 0, 3]
    """
    if not isinstance(pid, str) or not _PID_RE.match(pid):
        raise InvalidPositionIDError(
            f"a Position ID is 14 base64 characters (A-Z a-z 0-9 + /), got {pid!r}"
        )
    try:
        raw = base64.b64decode(pid + "==", validate=True)
    except (binascii.Error, ValueError):  # pragma: no cover - the regex already guards this
        raise InvalidPositionIDError(f"Position ID {pid!r} is not valid base64") from None
    key = int.from_bytes(raw, "little")
    board = np.zeros((2, 25), dtype=np.int8)
    bit = 0
    for row in (0, 1):
        for index in range(25):
            count = 0
            while bit < 80 and (key >> bit) & 1:
                count += 1
                bit += 1
            if bit >= 80 or count > 15:
                raise InvalidPositionIDError(
                    f"Position ID {pid!r} does not encode a position (too many checkers)"
                )
            board[row, index] = count
            bit += 1  # the terminating zero bit
    if key >> bit:
        raise InvalidPositionIDError(f"Position ID {pid!r} has stray bits after the position")
    try:
        return as_board(board)
    except InvalidBoardError as exc:
        raise InvalidPositionIDError(f"Position ID {pid!r} encodes an invalid position: {exc}") from None
