"""Match analysis: every decision of a match judged by an evaluator, with each
player's errors, luck and rating, as GNU Backgammon's ``analyse match`` and ``show
statistics match`` give them.

- :mod:`fastgen.analysis.walk`: a match read as its turns and cube decisions;
- :mod:`fastgen.analysis.judge`: the equities of every play, roll and cube decision of
  a match, in a few batches;
- :mod:`fastgen.analysis.records`: the per-decision records and their marks;
- :mod:`fastgen.analysis.stats`: the per-player totals and rates;
- :mod:`fastgen.analysis.report`: the statistics table as text;
- :mod:`fastgen.analysis.single`: one match analysed, :class:`MatchAnalysis`;
- :mod:`fastgen.analysis.many`: many matches on a Dask cluster;
- :mod:`fastgen.analysis.options`: :class:`AnalysisOptions`, how a match is analysed;
- :mod:`fastgen.analysis.front`: :func:`analyse`, the front door.

The command line: ``fastgen analyse FILE.mat`` (docs/guides/analysis.rst).
"""

from fastgen.analysis.front import analyse
from fastgen.analysis.options import AnalysisOptions
from fastgen.analysis.single import MatchAnalysis
from fastgen.analysis.records import CubeRecord, MoveRecord
from fastgen.analysis.stats import PlayerStats

__all__ = ["analyse", "AnalysisOptions", "MatchAnalysis", "MoveRecord", "CubeRecord", "PlayerStats"]
