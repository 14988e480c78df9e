"""Type aliases of fastgen's public signatures (for type checkers and for readers).

fastgen ships ``py.typed`` (PEP 561): a user's ``mypy --strict`` sees these types. Inputs
are checked at run time whatever their static type; bad ones raise fastgen's errors.
"""

from __future__ import annotations

from typing import Any, Sequence, SupportsIndex, Union

import numpy as np
import numpy.typing as npt

__all__ = ["ArrayLike", "DiceLike", "StepsLike", "Int8Array", "Int64Array", "Float32Array"]

#: A board (2, 25) or boards (N, 2, 25), or a batch of dice (N, 2), as an array or nested lists.
ArrayLike = npt.ArrayLike
#: One roll ``(d1, d2)``, as a tuple, list or array of two ints 1..6.
DiceLike = Union[Sequence[SupportsIndex], npt.NDArray[Any]]
#: Checker steps ``[(from, to), ...]`` in the mover's numbering (25 = bar, 0 = off).
StepsLike = Union[Sequence[Sequence[SupportsIndex]], npt.NDArray[Any]]
#: A board (2, 25), a batch of boards (N, 2, 25) or moves (K, 4, 2), as fastgen returns them.
Int8Array = npt.NDArray[np.int8]
#: Offsets and counts of batches.
Int64Array = npt.NDArray[np.int64]
#: Network inputs (fastgen.encode).
Float32Array = npt.NDArray[np.float32]
