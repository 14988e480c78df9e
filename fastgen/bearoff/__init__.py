"""Bear-off databases: GNU Backgammon's one- and two-sided .bd files, built from fastgen's
own move generation, written byte for byte as gnubg's makebearoff writes them, read back
memory-mapped, and used for exact evaluation of bear-off positions.

- Numbering (:mod:`fastgen.bearoff.index`): :func:`position_index`, :func:`index_position`,
  :func:`n_positions`, and on (N, 2, 25) batches :func:`side_index`, :func:`in_database`.
- Building (:mod:`fastgen.bearoff.build`, compiled in ``_build``, no GIL):
  :func:`build_one_sided` (makebearoff -o P), :func:`build_two_sided` (makebearoff -t PxC).
- Files (:mod:`fastgen.bearoff.files`): :func:`write_gnubg`, :func:`read_gnubg`.
- Evaluation (:mod:`fastgen.bearoff.evaluate`): :func:`evaluate` gives gnubg's five
  outputs for the side on roll, :func:`covered` which boards the databases hold.
- GNU Backgammon's 0-ply value (:mod:`fastgen.bearoff.gnubg`): :func:`gnubg_bearoff`
  gives what gnubg-nn's ``probabilities(board, 0)`` gives for bear-off positions, to the
  bit; :func:`first_checker_distributions` the exact first-checker distributions it uses.
- Errors: :class:`BearoffFileError` (a file that cannot be read),
  :class:`OutsideDatabaseError` (a position a database does not hold).

The command line: ``fastgen bearoff build|dump|eval`` (docs/guides/bearoff.rst).

>>> from fastgen import bearoff
>>> db = bearoff.build_two_sided(6, 2)
>>> db.size, db.values.shape
(28, (28, 28, 4))
"""

from fastgen.errors import BearoffFileError, OutsideDatabaseError
from fastgen.bearoff.build import build_one_sided, build_two_sided
from fastgen.bearoff.database import OneSidedDatabase, TwoSidedDatabase
from fastgen.bearoff.evaluate import covered, evaluate
from fastgen.bearoff.files import read_gnubg, write_gnubg
from fastgen.bearoff.gnubg import first_checker_distributions, gnubg_bearoff
from fastgen.bearoff.index import in_database, index_position, n_positions, position_index, side_index

__all__ = [
    "build_one_sided",
    "build_two_sided",
    "OneSidedDatabase",
    "TwoSidedDatabase",
    "write_gnubg",
    "read_gnubg",
    "evaluate",
    "covered",
    "gnubg_bearoff",
    "first_checker_distributions",
    "n_positions",
    "position_index",
    "index_position",
    "side_index",
    "in_database",
    "BearoffFileError",
    "OutsideDatabaseError",
]
