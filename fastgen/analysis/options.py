"""How a match is analysed, as one checked object: :class:`AnalysisOptions`.

:func:`fastgen.analysis.analyse` takes these settings either as keywords or as one
``options=AnalysisOptions(...)`` (not both), checks them once and keeps the object on
every :class:`fastgen.analysis.MatchAnalysis` it returns (``analysis.options``).

>>> AnalysisOptions(plies=1, threads=2).plies
1
>>> AnalysisOptions(plies=3)
Traceback (most recent call last):
...
fastgen.errors.InvalidArgumentError: plies must be a non-negative integer at most 1, got 3
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fastgen._util import check_int, check_threads
from fastgen.cube.met import MatchEquityTable
from fastgen.errors import InvalidArgumentError
from fastgen.sim.options import Options

__all__ = ["AnalysisOptions", "MAX_PLIES"]

#: The deepest analysis: 1 ply (each candidate valued after the opponent's 21 rolls).
MAX_PLIES = 1


@dataclass(frozen=True)
class AnalysisOptions(Options):
    """How :func:`fastgen.analysis.analyse` judges a match.

    ``plies`` (0 or 1), ``cube`` (judge the cube decisions too), ``met`` (None: GNU
    Backgammon's match equity table, or a :class:`fastgen.cube.MatchEquityTable`),
    ``threads`` (>= 1; the same results for any number) and ``database`` (``"auto"``:
    the two-sided bear-off database where a match reaches one; None: the evaluator
    everywhere; or a cubeful :func:`fastgen.bearoff.build_two_sided` database).
    """

    plies: int = 0
    cube: bool = True
    met: MatchEquityTable | None = None
    threads: int = 1
    database: Any = "auto"

    def __post_init__(self) -> None:
        object.__setattr__(self, "plies", check_int(self.plies, "plies", 0, MAX_PLIES))
        if not isinstance(self.cube, (bool, np.bool_)):
            raise InvalidArgumentError(f"cube must be True or False, got {self.cube!r}")
        object.__setattr__(self, "cube", bool(self.cube))
        if self.met is not None and not isinstance(self.met, MatchEquityTable):
            raise InvalidArgumentError(f"met must be None or a fastgen.cube.MatchEquityTable, got {self.met!r}")
        object.__setattr__(self, "threads", check_threads(self.threads))
        if isinstance(self.database, str) and self.database != "auto":
            raise InvalidArgumentError(f"database must be 'auto', None or a cubeful two-sided bear-off database, "
                                       f"got {self.database!r}")
