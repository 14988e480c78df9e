"""Files and other programs' layouts: the checked way in for every file fastgen reads
(``checked``: regular files only, sizes bounded before allocating), match files (text
``.mat`` in ``matfile``, read in bulk by the compiled scanner of ``_matscan`` through
``matbatch``; GNU Backgammon's ``.sgf`` in ``sgf`` and ``sgfprops``; eXtreme Gammon's
``.xg`` in ``xg`` and ``xgrecords``; ``reader`` tells them apart), board conversions
(``convert``), pictures of boards as SVG (``svg``) and FIBS ``board:`` lines (``fibs``).
Move text and IDs are the core's vocabulary (:mod:`fastgen.core.notation`,
:mod:`fastgen.core.ids`).

The readers and writers are imported on first use (``fastgen.formats.read_sgf``), as are
the modules ``fibs`` and ``svg`` (``fastgen.formats.fibs.parse_board``); the errors of the
match files, FIBS lines and pictures are importable here.
"""

from typing import TYPE_CHECKING

from fastgen._util import lazy_attributes
from fastgen.errors import (
    InvalidFibsBoardError,
    InvalidSVGOptionError,
    MatFileError,
    MatFileWarning,
    SgfFileError,
    XgFileError,
)
from fastgen.formats.convert import from_pubeval28, from_signed26, to_pubeval28, to_signed26

#: The public names imported on first use (PEP 562), each from the module that defines it.
_LAZY_NAMES: dict[str, str] = {
    **dict.fromkeys(("read_match", "read_matches", "match_files"), "fastgen.formats.reader"),
    **dict.fromkeys(("read_mat", "write_mat"), "fastgen.formats.matfile"),
    **dict.fromkeys(("read_mat_files", "MatchBatch"), "fastgen.formats.matbatch"),
    **dict.fromkeys(("read_sgf", "write_sgf"), "fastgen.formats.sgf"),
    **dict.fromkeys(("read_xg", "read_xg_position", "XgPosition"), "fastgen.formats.xg"),
}
#: Modules reached as attributes, imported on first use too.
_LAZY_MODULES = ("fibs", "svg")

if TYPE_CHECKING:
    from fastgen.formats import fibs, svg
    from fastgen.formats.matbatch import MatchBatch, read_mat_files
    from fastgen.formats.matfile import read_mat, write_mat
    from fastgen.formats.reader import match_files, read_match, read_matches
    from fastgen.formats.sgf import read_sgf, write_sgf
    from fastgen.formats.xg import XgPosition, read_xg, read_xg_position
else:
    __getattr__, __dir__ = lazy_attributes(
        __name__, {**_LAZY_NAMES, **{name: f"{__name__}.{name}" for name in _LAZY_MODULES}})

__all__ = [
    "read_match",
    "read_matches",
    "match_files",
    "read_mat",
    "write_mat",
    "read_mat_files",
    "MatchBatch",
    "read_sgf",
    "write_sgf",
    "read_xg",
    "read_xg_position",
    "XgPosition",
    "to_signed26",
    "from_signed26",
    "to_pubeval28",
    "from_pubeval28",
    "fibs",
    "svg",
    "MatFileError",
    "MatFileWarning",
    "SgfFileError",
    "XgFileError",
    "InvalidFibsBoardError",
    "InvalidSVGOptionError",
]
