"""Type stubs of the compiled ``.mat`` scanner (fastgen/formats/_matscan.pyx): what
fastgen.formats.matbatch calls. The arrays ``Scanner.take()`` returns are C-contiguous
numpy arrays that own their memory."""

import numpy as np
import numpy.typing as npt

KINDS: tuple[str, ...]
REASONS: tuple[str, ...]
FILE_FIELDS: tuple[str, ...]
GAME_FIELDS: tuple[str, ...]

def set_start(board: npt.NDArray[np.int8]) -> None: ...

class Scanner:
    def scan(self, datas: list[bytes], first_index: int) -> None: ...
    def scan_paths(self, paths: list[bytes], first_index: int, limit: int) -> bool: ...
    @property
    def generated(self) -> int: ...
    def take(self) -> dict[str, np.ndarray]: ...
