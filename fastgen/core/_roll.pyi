"""Type stubs of the rollout hash's dice and random chooser (fastgen/core/_roll.pyx). Arrays are C-contiguous
numpy arrays of the dtype named (the Cython signature takes typed memoryviews)."""

import numpy as np
import numpy.typing as npt

from fastgen.core._chooser import Chooser

def roll_dice(
    seed: int,
    gid: npt.NDArray[np.int64],
    turn: npt.NDArray[np.int64],
    opening: npt.NDArray[np.uint8],
    opening_rolls: npt.NDArray[np.int8],
    out: npt.NDArray[np.int8],
) -> None: ...

class RandomChooser(Chooser):
    def __init__(self, seed: int) -> None: ...
