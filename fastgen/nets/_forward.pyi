"""Type stubs of the compiled forward pass (fastgen/nets/_forward.pyx)."""

import numpy as np
import numpy.typing as npt

from fastgen.core._chooser import Chooser
from fastgen.core._core import StopFlag

MAX_LAYERS: int
MAX_WIDTH: int

PAD: int
MAX_PLIES: int

def select_kernels(level: int | None = ...) -> int: ...

class Kernel:
    def __init__(self, table: npt.NDArray[np.float32], bias0: npt.NDArray[np.float32],
                 hidden_w: list[npt.NDArray[np.float32]], hidden_b: list[npt.NDArray[np.float32]],
                 last_t: npt.NDArray[np.float32], last_b: npt.NDArray[np.float32], widths: list[int],
                 activation: int, outputs: int, extra: npt.NDArray[np.float32] | None = ...) -> None: ...
    def rows(self, boards: npt.NDArray[np.int8], swap: bool, raw: bool, out: npt.NDArray[np.float32],
             lo: int, hi: int) -> None: ...
    def choose(self, cand: npt.NDArray[np.int8], offsets: npt.NDArray[np.int64], choice: npt.NDArray[np.int64],
               values: npt.NDArray[np.float64], g0: int, g1: int) -> None: ...
    def chooser(self) -> "NetChooser": ...
    def ply_rows(self, boards: npt.NDArray[np.int8], swap: bool, out: npt.NDArray[np.float64], lo: int, hi: int,
                 plies: int, stop: StopFlag | None = ...) -> bool: ...

class NetChooser(Chooser):
    def __init__(self, kernel: Kernel) -> None: ...
