"""Type stubs of perft's compiled steps (fastgen/search/_perft.pyx). Arrays are
C-contiguous numpy arrays of the dtype named (the Cython signatures take typed
memoryviews)."""

import numpy as np
import numpy.typing as npt

_I8 = npt.NDArray[np.int8]
_I64 = npt.NDArray[np.int64]
_U64 = npt.NDArray[np.uint64]

def merge_children(
    kids: _I8, offsets: _I64, row_w: _I64, out: _I8, out_w: _I64, out_key: _U64
) -> tuple[int, int]: ...
def count_rolls(boards: _I8, rolls: _I8, out: _I64) -> int: ...
