"""Cube decisions at 1 ply: the 21 rolls looked at before the formula is used.

For each of the two ways the game can go on (no double: the cube as it is; double,
take: twice the cube, owned by the opponent), the side on roll's value is the average
over its 21 rolls (a double 1/36, the others 2/36) of the best of its plays, each play
valued as the opponent then sees the position at 0 ply, cube included: the opponent's
cubeful value with its proper cube action (no double; or, where it may double and
should, the smaller of double/take and double/pass), from the 0-ply formula of
:mod:`fastgen.cube.decision`, turned round to the side on roll. A play that bears off
the last checker is worth its result exactly. Money values are per unit of the cube on
the table; match values are match-winning chances. Double/pass is not looked at: it is
worth the cube.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from fastgen.core.boards import DISTINCT_ROLLS, ROLL_CHANCES
from fastgen.core.generate import plays_batch
from fastgen.core.ids import MatchState
from fastgen.cube.decision import cube_decisions
from fastgen.cube.match import Score
from fastgen.games.game import result_types

__all__ = ["one_ply_values"]

def one_ply_values(board: np.ndarray, evaluator: Callable[[np.ndarray], Any], state: MatchState, score: Score | None,
                   *, met: Any = None, database: Any = None) -> tuple[float, float]:
    """(no double, double take) of *board* (side on roll in row 1, before its roll) at
    1 ply (module docstring): money per unit of ``state.cube_value``, match MWC."""
    me, c = state.on_roll, state.cube_value
    batch = plays_batch(np.repeat(board[None], len(DISTINCT_ROLLS), axis=0), DISTINCT_ROLLS)
    after = np.asarray(batch.boards)
    offsets = np.asarray(batch.offsets, dtype=np.int64)
    res = result_types(after)
    going = np.flatnonzero(res == 0)
    opp_boards = np.ascontiguousarray(after[going][:, ::-1])
    probs = np.asarray(evaluator(opp_boards), dtype=np.float64)[:, :5] if going.size else np.zeros((0, 5))
    out = []
    branches = ((c, state.cube_owner), (2 * c, 1 - me))
    for cube, owner in branches:
        values = np.empty(after.shape[0])
        ended = res > 0
        if score is None:
            values[ended] = res[ended] * cube / c
        else:
            values[ended] = [score.win(int(r) * cube) for r in res[ended]]
        if going.size:
            opp_state = MatchState(match_length=state.match_length, score=state.score, cube_value=cube,
                                   cube_owner=owner, crawford=state.crawford, jacoby=state.jacoby, on_roll=1 - me)
            d = cube_decisions(opp_boards, probs, opp_state, met=met, database=database)
            nd, dt, dp = d.no_double, d.double_take, d.double_pass
            v = np.where(d.doubles, np.minimum(dt, dp), nd)
            if score is None:
                values[going] = -v * cube / c
            else:
                values[going] = 1.0 - v
        best = np.maximum.reduceat(values, offsets[:-1])
        out.append(float(best @ ROLL_CHANCES))
    return out[0], out[1]
