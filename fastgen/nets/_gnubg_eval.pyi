"""Type stubs of GNU Backgammon's nets evaluated compiled (fastgen/nets/_gnubg_eval.pyx)."""

import numpy as np
import numpy.typing as npt

from fastgen.core._chooser import Chooser
from fastgen.core._core import StopFlag

NEEDS_TABLE: int
MAX_INPUTS: int
MAX_HIDDEN: int
MAX_PLIES: int

_NetSpec = tuple[tuple[npt.NDArray[np.float32], ...], float, float]

def select_kernels(level: int | None = ...) -> int: ...

class GnubgKernel:
    def __init__(self, race: _NetSpec, crashed: _NetSpec, contact: _NetSpec, version: int,
                 bearoff: npt.NDArray[np.uint16], escape: npt.NDArray[np.float32],
                 first: npt.NDArray[np.float64] | None = ...,
                 two: tuple[npt.NDArray[np.uint16], int, int] | None = ...,
                 prune: tuple[_NetSpec, _NetSpec, _NetSpec] | None = ...) -> None: ...
    def attach_first(self, first: npt.NDArray[np.float64]) -> None: ...
    @property
    def has_first(self) -> bool: ...
    def _need_first(self) -> None: ...
    def rows(self, boards: npt.NDArray[np.int8], swap: bool, out: npt.NDArray[np.float32],
             classes: npt.NDArray[np.int8], lo: int, hi: int, corrected: bool = ...) -> None: ...
    def ply_rows(self, boards: npt.NDArray[np.int8], swap: bool, out: npt.NDArray[np.float64], lo: int,
                 hi: int, plies: int, stop: StopFlag | None = ..., prune: int = ...) -> bool: ...
    @property
    def has_prune(self) -> bool: ...
    def prune_keep(self, boards: npt.NDArray[np.int8], swap: bool, offsets: npt.NDArray[np.int64], least: int,
                   prices: npt.NDArray[np.float64], kept: npt.NDArray[np.uint8], g_lo: int, g_hi: int) -> None: ...
    def prune_rows(self, boards: npt.NDArray[np.int8], swap: bool, out: npt.NDArray[np.float32],
                   classes: npt.NDArray[np.int8], lo: int, hi: int, corrected: bool = ...) -> None: ...
    def chooser(self) -> GnubgChooser: ...

class GnubgChooser(Chooser):
    def __init__(self, kernel: GnubgKernel) -> None: ...
