"""Network inputs: boards encoded as float32 feature vectors for neural networks.

Every scheme sees a board from its side on roll ("the mover": row 1 of the (2, 25)
board, docs/RULES.md R4), the opponent being row 0; each side's points are in its own
numbering (index i = its point i + 1, index 24 = its bar). Borne-off checkers are
``15 - row.sum()``. The loops run in the compiled module ``fastgen.core._features``
without the GIL, after the boards are checked once here.

``"tesauro198"`` (198 floats), TD-Gammon's inputs as Tesauro published them, mover first:

=========  =====================================================================
columns    meaning
=========  =====================================================================
0..95      the mover's points 1..24, four units per point for n checkers:
           ``[n >= 1, n >= 2, n >= 3, max(n - 3, 0) / 2]`` (point p at 4 (p - 1))
96..191    the opponent's points 1..24 in the opponent's own numbering, same units
192, 193   mover's bar n / 2, opponent's bar n / 2
194, 195   mover's borne off n / 15, opponent's borne off n / 15
196, 197   the turn units, fixed at ``[1, 0]``: the view is always the mover's
=========  =====================================================================

``"contact"`` (22 floats), hand-made features of the position, computed twice: columns
0..9 for the side on roll against the other side, 10..19 for the other side against the
side on roll (each "side" below is the one the column is about, "the other" its
opponent), then two about both:

=========  =====================================================================
column     meaning
=========  =====================================================================
0          the side's pip count / 100 (a checker on the bar counts 25)
1          shots: the rolls, of 36, on which the other side can hit at least one of
           the side's blots, / 36. A hit is a checker of the other side reaching
           the blot with one die, with both dice one after the other (the point
           after the first die not held by the side: 2 or more of its checkers),
           or with a double in two, three or four steps (no point on the way
           held). While the other side has a checker on the bar, only checkers
           entering from the bar are counted.
2          the side's blots (points with exactly one checker) / 5
3          escapes: the rolls, of 36, that take the side's rearmost checker (on the
           bar, else on its highest point) to a point below every point the other
           side holds within 12 pips in front of it, moving as for shots (no stop
           on a point the other side holds), / 36; 1 when the other side holds
           no point there, 0 when the side has no checker left
4          the longest run of consecutive points the side holds / 6
5          the points of the side's home board (1..6) it holds / 6
6          the points 19..24 (the other side's home board) the side holds / 3
7          the side's checkers on points 19..24 and on the bar / 15
8          the other side's chance of failing to enter one checker, (points the
           side holds in its home board / 6) squared, when the other side has a
           checker on the bar; else 0
9          the side's checkers past contact (below the other side's rearmost
           checker, so that no checker of the other side can meet them) / 15
20         1 when no checker of either side can meet one of the other side's (a
           race), else 0
21         the pip lead of the side on roll: (the other's pips - its pips) / 50
=========  =====================================================================

Columns 10..19 are columns 0..9 with the sides' roles swapped.

``"raw"`` (52 floats), the board's counts scaled to 0..1, mover first:

=========  =====================================================================
columns    meaning
=========  =====================================================================
0..24      the mover's row as stored: points 1..24 then the bar, each n / 15
25..49     the opponent's row as stored (its own numbering), each n / 15
50, 51     mover's borne off n / 15, opponent's borne off n / 15
=========  =====================================================================

>>> import fastgen
>>> x = fastgen.encode(fastgen.STARTING_BOARD, "tesauro198")
>>> x.shape, x.dtype.name, x[4 * 5 : 4 * 6].tolist(), x[196:].tolist()
((198,), 'float32', [1.0, 1.0, 1.0, 1.0], [1.0, 0.0])
"""

from __future__ import annotations

import sys
import threading

import numpy as np

from fastgen.core import _features
from fastgen._util import run_in_chunks
from fastgen.core.boards import as_board, as_boards
from fastgen.errors import InvalidBoardError, InvalidOutputError, UnknownSchemeError
from fastgen._typing import ArrayLike, Float32Array
from fastgen.core._core import StopFlag

__all__ = ["SCHEMES", "encode", "count_units"]

#: Feature count of each scheme: ``{"tesauro198": 198, "raw": 52, "contact": 22}``.
SCHEMES = {"tesauro198": 198, "raw": 52, "contact": 22}
_CODES = {"tesauro198": 0, "raw": 1, "contact": 2}
#: The schemes whose every input is a function of one count (see :func:`count_units`).
COUNT_SCHEMES = ("tesauro198", "raw")


def scheme_width(scheme) -> int:
    """The number of features of *scheme*; :class:`UnknownSchemeError` quoting it otherwise."""
    if not isinstance(scheme, str) or scheme not in SCHEMES:
        raise UnknownSchemeError(
            f"unknown encoding scheme {scheme!r}: expected one of {sorted(SCHEMES)!r}"
        )
    return SCHEMES[scheme]


def _check_out(out, shape) -> np.ndarray:
    if not isinstance(out, np.ndarray) or out.dtype != np.float32 or out.shape != shape \
            or not out.flags.c_contiguous or not out.flags.writeable:
        desc = f"{type(out).__name__} {getattr(out, 'dtype', '')} {getattr(out, 'shape', '')}"
        raise InvalidOutputError(
            f"out must be a writeable C-contiguous float32 array of shape {shape}, got {desc}: {out!r}"
        )
    return out


# Large output buffers kept for reuse once every array made from them is gone (fresh
# pages cost ~9 us per 4 KiB the first time; a whole-workload batch of tesauro198
# features is ~0.5 GB). Two are kept, as plays_batch keeps two mappings of each kind: a
# caller that holds one result while making the next alternates between them. Numpy
# views hold their owner as ``base``, so the owner's reference count says whether any
# array made from it is still alive.
_REUSE_MIN = 1 << 20
#: Rows encoded per compiled call (a few ms): Ctrl-C is handled between calls.
CHUNK_ROWS = 1 << 15
_KEEP = 2
_GROWTH = 1.5
_SLACK = 4
_spare: list = []
_spare_lock = threading.Lock()


def _free_spares() -> list:
    """Indexes of the kept buffers no array uses (call with _spare_lock held)."""
    # references to a free buffer: the list and getrefcount's argument; a live view adds one
    return [i for i in range(len(_spare)) if sys.getrefcount(_spare[i]) == 2]


def _output(rows: int, width: int) -> np.ndarray:
    """A (rows, width) float32 array, carved from a kept buffer that is free and large
    enough (but not more than _SLACK times too large), else new (and kept).

    A new buffer gets _GROWTH more room than asked: calls of similar sizes (an RL loop's
    steps) then keep reusing it instead of each slightly larger one mapping fresh pages
    (of the 42 steps of 1,024 vector-workload positions, 9 did so with exact sizes)."""
    nbytes = rows * width * 4
    if nbytes < _REUSE_MIN:
        return np.empty((rows, width), dtype=np.float32)
    with _spare_lock:
        free = _free_spares()
        for i in free:
            if nbytes <= _spare[i].nbytes <= _SLACK * nbytes:
                return _spare[i][: rows * width].reshape(rows, width)
        fresh = np.empty(int(rows * _GROWTH) * width, dtype=np.float32)
        if len(_spare) >= _KEEP and free:  # make room by dropping a free buffer, not one in use
            del _spare[free[0]]
        _spare[:] = (_spare + [fresh])[-_KEEP:]
        return fresh[: rows * width].reshape(rows, width)


def release_spare() -> int:
    """Drop the kept output buffers (see :func:`fastgen.release_memory`); returns the
    bytes freed now (a buffer an array still uses is freed with that array)."""
    with _spare_lock:
        freed = sum(_spare[i].nbytes for i in _free_spares())
        _spare.clear()
        return freed


def encode_trusted(boards: np.ndarray, scheme: str, *, next_player: bool = False,
                   out=None, threads: int = 1) -> np.ndarray:
    """Encode a checked (N, 2, 25) int8 C-contiguous batch (no validation: for callers
    such as :func:`fastgen.plays_batch` whose boards come from the core).

    ``next_player=True`` encodes each board as its row 0 sees it (the side to roll after
    a play, whose resulting board keeps the mover in row 1): the same as
    ``encode(swap_sides(boards))`` without the copy.
    """
    width = scheme_width(scheme)
    n = boards.shape[0]
    if out is None:
        out = _output(n, width)
    code = _CODES[scheme]
    run_in_chunks(lambda lo, hi: _features.encode_range(boards, code, next_player, out, lo, hi),
                  n, CHUNK_ROWS, max(1, min(threads, n // 4096 or 1)), StopFlag())
    return out


def encode(boards: ArrayLike, scheme: str, *, out: Float32Array | None = None) -> Float32Array:
    """Encode boards as float32 network inputs, each seen from its side on roll (row 1).

    *boards* is one (2, 25) board, giving an ``(F,)`` vector, or a batch (N, 2, 25),
    giving ``(N, F)``; *scheme* is ``"tesauro198"`` (F = 198), ``"raw"`` (F = 52) or
    ``"contact"`` (F = 22),
    laid out as the module docstring specifies. The boards are checked once
    (:class:`InvalidBoardError` quoting them), then encoded in compiled code; an unknown
    scheme raises :class:`UnknownSchemeError`. *out*, when given, is a C-contiguous
    float32 array of the result's shape that is written and returned. Without *out*, a
    result of 1 MiB or more is written into memory kept from an earlier result once no
    array of that one is alive (as :func:`fastgen.plays_batch` does with its output;
    :func:`fastgen.release_memory` gives it back).

    To encode a play's resulting board for the side to roll next, encode
    ``swap_sides(board)``, or ask :func:`fastgen.plays_batch` for ``encode=``.

    >>> import fastgen, numpy as np
    >>> fastgen.encode(np.stack([fastgen.STARTING_BOARD] * 3), "raw").shape
    (3, 52)
    """
    width = scheme_width(scheme)
    if not isinstance(boards, np.ndarray):
        try:
            boards = np.asarray(boards)
        except (ValueError, TypeError) as exc:
            raise InvalidBoardError(f"boards {boards!r} are not an array of integers: {exc}") from None
    if boards.ndim == 2:
        arr = as_board(boards)[np.newaxis]
        if out is not None:
            _check_out(out, (width,))
            encode_trusted(arr, scheme, out=out.reshape(1, width))
            return out
        return encode_trusted(arr, scheme)[0]
    arr = as_boards(boards)
    if out is not None:
        _check_out(out, (arr.shape[0], width))
    return encode_trusted(arr, scheme, out=out)


def count_units(scheme: str) -> tuple[np.ndarray, np.ndarray]:
    """Every input of *scheme* as a function of one count: ``(units, constant)``.

    ``units[side, point, n]`` (shape (2, 26, 16, width), float32) is the scheme's
    inputs that n checkers of one side make, everything else zero: side 0 the side on
    roll, 1 the opponent; point 0..23 the side's points 1..24 in its own numbering, 24
    its bar, 25 its borne-off checkers. ``constant`` (width,) is the inputs no count
    makes (Tesauro's turn units). A board's encoding is ``constant`` plus the units of
    its 50 counts and 2 borne-off counts, exactly (each input comes from one count);
    what compiled networks build their first layer from (fastgen.nets). The
    ``"contact"`` features are not: each depends on the whole board
    (:class:`UnknownSchemeError` here)."""
    width = scheme_width(scheme)
    if scheme not in COUNT_SCHEMES:
        raise UnknownSchemeError(f"scheme {scheme!r} has inputs that depend on more than one count")
    units = np.zeros((2, 26, 16, width), dtype=np.float32)
    constant = np.zeros(width, dtype=np.float32)
    n = np.arange(16)
    fifteenths = n.astype(np.float32) / np.float32(15)
    for side in (0, 1):
        if scheme == "tesauro198":
            for p in range(24):
                col = 96 * side + 4 * p
                units[side, p, :, col] = n >= 1
                units[side, p, :, col + 1] = n >= 2
                units[side, p, :, col + 2] = n >= 3
                units[side, p, :, col + 3] = np.maximum(n - 3, 0) * np.float32(0.5)
            units[side, 24, :, 192 + side] = n * np.float32(0.5)
            units[side, 25, :, 194 + side] = fifteenths
        else:
            for p in range(25):
                units[side, p, :, 25 * side + p] = fifteenths
            units[side, 25, :, 50 + side] = fifteenths
    if scheme == "tesauro198":
        constant[196] = 1.0
    return units, constant
