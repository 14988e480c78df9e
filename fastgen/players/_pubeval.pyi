"""Type stubs of pubeval compiled (fastgen/players/_pubeval.pyx): the functions the Python
layer calls. Arrays are C-contiguous numpy arrays of the dtype named (the Cython
signatures take typed memoryviews)."""

from typing import Optional

import numpy as np
import numpy.typing as npt

from fastgen.core._chooser import Chooser
from fastgen.core._core import StopFlag

_I8 = npt.NDArray[np.int8]
_I32 = npt.NDArray[np.int32]
_I64 = npt.NDArray[np.int64]

def pubeval_weights() -> tuple[list[float], list[float]]: ...
def pubeval_best_batch(boards: _I8, dice: _I8, out: _I8, stop: Optional[StopFlag] = ...) -> int: ...
def pubeval_pick(before: _I8, dice: _I8, cands: _I8, offsets: _I64, out: _I64) -> None: ...
def pubeval_egg_first(board: _I8, d0: int, d1: int, cands: _I8, tied: _I32) -> int: ...

class PubevalChooser(Chooser):
    def __init__(self) -> None: ...
