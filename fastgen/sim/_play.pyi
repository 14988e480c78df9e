"""Type stubs of the compiled game loops (fastgen/sim/_play.pyx): the functions the
Python layer calls. Arrays are C-contiguous numpy arrays of the dtype named (the Cython
signatures take typed memoryviews)."""

from typing import Optional

import numpy as np
import numpy.typing as npt

from fastgen.core._chooser import Chooser
from fastgen.core._core import StopFlag

_I8 = npt.NDArray[np.int8]
_I32 = npt.NDArray[np.int32]
_I64 = npt.NDArray[np.int64]

MAX_ROLLOUT_TURNS: int

def play_range(
    start: _I8,
    from_opening: bool,
    seed: int,
    opening_rolls: _I8,
    lo: int,
    hi: int,
    chooser_a: Chooser,
    chooser_b: Chooser,
    winner: _I8,
    result: _I8,
    turns: _I32,
    *,
    alternate: bool = ...,
    mirrored: bool = ...,
    stop: Optional[StopFlag] = ...,
    max_turns: int = ...,
) -> int: ...
def pool_turn(
    src: _I8,
    offsets: _I64,
    pick: _I64,
    boards: _I8,
    gid: _I64,
    turn: _I64,
    dice: _I8,
    winner: _I8,
    result: _I8,
    turns: _I32,
    start_boards: _I8,
    first_game: int,
    next_game: int,
    end: int,
    max_turns: int,
    seed: int,
    from_opening: bool,
    opening_rolls: _I8,
    info: _I64,
) -> int: ...
