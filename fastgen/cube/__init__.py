"""The doubling cube: match equity tables, cubeful equities and cube decisions.

- :mod:`fastgen.cube.met_files`, :mod:`fastgen.cube.met`: GNU Backgammon's match equity
  table files, read (:func:`read_met`) and extended to 64 points as the program extends
  them; :func:`default_met` is its default table, shipped with fastgen.
- :mod:`fastgen.cube.efficiency`: the cube life of a position (contact, race, bear-off).
- :mod:`fastgen.cube.money`, :mod:`fastgen.cube.match`: cubeful money equity and cubeful
  match-winning chances from five cubeless probabilities, on arrays.
- :mod:`fastgen.cube.decision`: :func:`cube_decisions` for many positions: no double,
  double/take, double/pass and the proper action (:class:`CubeAction`), as GNU
  Backgammon decides at 0-ply; :mod:`fastgen.cube.action`: :func:`cube_action` for one
  position, at 0 or 1 ply (:mod:`fastgen.cube.lookahead`: the 21 rolls).
- Errors: :class:`METFileError` (a match equity table file that cannot be read),
  :class:`InvalidCubeStateError` (a cube question that has no answer).

The command line: ``fastgen cube --position ID`` (docs/guides/cube.rst).

>>> import fastgen
>>> from fastgen.cube import cube_action
>>> state = fastgen.MatchState(match_length=7, score=(2, 4), on_roll=0)
>>> cube_action(fastgen.STARTING_BOARD, [0.827, 0.313, 0.012, 0.034, 0.000], state).action
<CubeAction.TOO_GOOD_PASS: 'Too good to double, pass'>
"""

from fastgen.errors import InvalidCubeStateError, METFileError
from fastgen.cube.action import cube_action
from fastgen.cube.decision import CubeAction, CubeDecision, CubeDecisions, cube_decisions
from fastgen.cube.met import MatchEquityTable, default_met, read_met

__all__ = ["CubeAction", "CubeDecision", "CubeDecisions", "cube_action", "cube_decisions", "MatchEquityTable",
           "default_met", "read_met", "METFileError", "InvalidCubeStateError"]
