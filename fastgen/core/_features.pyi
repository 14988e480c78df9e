"""Type stubs of the compiled feature encoders (fastgen/core/_features.pyx)."""

import numpy as np
import numpy.typing as npt

def select_kernels(best: bool = ...) -> bool: ...
def encode_range(
    boards: npt.NDArray[np.int8], scheme: int, swap: bool, out: npt.NDArray[np.float32], lo: int, hi: int
) -> None: ...
def row_measures(boards: npt.NDArray[np.int8]) -> npt.NDArray[np.uint8]: ...
