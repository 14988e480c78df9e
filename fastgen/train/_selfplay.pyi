"""Type stubs of the compiled TD(lambda) self-play loop (fastgen/train/_selfplay.pyx)."""

import numpy as np
import numpy.typing as npt

from fastgen.core._core import StopFlag

INPUTS: int
CONTACT_INPUTS: int
PAD: int

def select_kernels(level: int | None = ...) -> int: ...

class Learner:
    def __init__(self, w1: npt.NDArray[np.float32], b1: npt.NDArray[np.float32], w2t: npt.NDArray[np.float32],
                 b2: npt.NDArray[np.float32], hidden: int) -> None: ...
    def forward(self, board: npt.NDArray[np.int8]) -> tuple[list[float], list[float]]: ...
    def inputs(self, board: npt.NDArray[np.int8]) -> list[tuple[int, float]]: ...
    def learn(self, board: npt.NDArray[np.int8], target: npt.NDArray[np.float32], lr: float) -> float: ...
    def play(self, seed: int, g0: int, g1: int, lam: float, lr: float, start: npt.NDArray[np.int8],
             opening_rolls: npt.NDArray[np.int8], max_turns: int,
             stop: StopFlag | None = ...) -> tuple[int, int, float, int, int, int]: ...
