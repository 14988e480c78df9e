"""Type stubs of GNU Backgammon's inputs, classes and sigmoid, compiled (fastgen/nets/_gnubg.pyx)."""

import numpy as np
import numpy.typing as npt

OVER: int
BEAROFF: int
RACE: int
CRASHED: int
CONTACT: int
RACE_WIDTH: int
CONTACT_WIDTH: int

def classify(boards: npt.ArrayLike) -> npt.NDArray[np.int8]: ...
def race_inputs(boards: npt.ArrayLike) -> npt.NDArray[np.float32]: ...
def contact_inputs(boards: npt.ArrayLike, version: float | str = ...) -> npt.NDArray[np.float32]: ...
def crashed_inputs(boards: npt.ArrayLike, version: float | str = ...) -> npt.NDArray[np.float32]: ...
def sigmoid(x: npt.ArrayLike) -> npt.NDArray[np.float32]: ...
