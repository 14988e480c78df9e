"""fastgen: every legal backgammon play, fast and correct.

The board is GNU Backgammon's (2, 25) int8 layout (docs/RULES.md R4): row 0 the opponent,
row 1 the side on roll, index i = own point i + 1, index 24 = bar.

>>> import fastgen
>>> len(fastgen.legal_plays(fastgen.STARTING_BOARD, (3, 1)))
16
"""

import importlib.util as _importlib_util

if any(_importlib_util.find_spec(f"fastgen.{m}") is None for m in ("_core", "_features")):
    raise ImportError(  # checked first: a clear message instead of a failed import below
        f"fastgen's compiled modules (fastgen._core, fastgen._features) are not built in {__path__[0]!r}. "
        "Python is importing the source tree, e.g. from the repository root after "
        "`pip install .`. Either build them in place there "
        "(`python setup.py build_ext --inplace`) or run Python from another directory "
        "so that the installed fastgen is imported."
    )
del _importlib_util

from fastgen._version import __version__
from fastgen.boards import STARTING_BOARD, swap_sides
from fastgen.errors import (
    FastgenError,
    InvalidBoardError,
    InvalidDiceError,
    InvalidOutputError,
    InvalidPositionIDError,
    UnknownSchemeError,
)
from fastgen.features import encode
from fastgen import svg  # fastgen.svg.board: boards as SVG (standard library only)
from fastgen.generate import count_plays_batch, iter_plays_batch, legal_plays, plays_batch, release_memory
from fastgen.ids import board_from_position_id, position_id
from fastgen.plays import PlayBatch, Plays
from fastgen.pubeval import pubeval_best

# The readable layer (notation, IDs, validation, Board) and game flow build on the above.
from fastgen import _api_game, _api_notation
from fastgen._api_game import *  # noqa: E402,F401,F403
from fastgen._api_notation import *  # noqa: E402,F401,F403

__all__ = [
    "__version__",
    "STARTING_BOARD",
    "swap_sides",
    "FastgenError",
    "InvalidBoardError",
    "InvalidDiceError",
    "InvalidPositionIDError",
    "UnknownSchemeError",
    "InvalidOutputError",
    "encode",
    "legal_plays",
    "plays_batch",
    "count_plays_batch",
    "iter_plays_batch",
    "release_memory",
    "position_id",
    "board_from_position_id",
    "Plays",
    "PlayBatch",
    "pubeval_best",
    *_api_notation.__all__,
    *_api_game.__all__,
]
