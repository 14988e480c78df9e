"""Cube decisions at 1 ply: the 21 rolls looked at before the formula is used.

For each of the two ways the game can go on (no double: the cube as it is; double,
take: twice the cube, owned by the opponent), the side on roll's value is the average
over its 21 rolls (a double 1/36, the others 2/36) of the best of its plays, each play
valued as the opponent then sees the position at 0 ply, cube included: the opponent's
cubeful value with its cube action (no double; or, where it may double and doubling
gains whatever the answer, the smaller of double/take and double/pass), from the 0-ply
formula of :mod:`fastgen.cube.decision`, turned round to the side on roll. A play that
bears off the last checker is worth its result exactly (a gammon counting single under
the Jacoby rule with the cube centred). :func:`one_ply_batch` values many positions at
once, each at its own score and cube. Money values are per unit of the cube on
the table; match values are match-winning chances. Double/pass is not looked at: it is
worth the cube.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from fastgen.core.boards import DISTINCT_ROLLS, ROLL_CHANCES
from fastgen.core.generate import plays_batch
from fastgen.core.state import MatchState
from fastgen.cube.decision import check_state, cube_decisions, may_double
from fastgen.cube.efficiency import CubeEfficiency, position_class
from fastgen.cube.match import Score
from fastgen.cube.met import MatchEquityTable, default_met
from fastgen.games.game import result_types
from fastgen.nets.probs import checked_answer

__all__ = ["one_ply_batch", "one_ply_values"]

def one_ply_batch(boards: np.ndarray, evaluator: Callable[[np.ndarray], Any], states: list[MatchState],
                  row_state: np.ndarray, *, met: MatchEquityTable | None = None, database: Any = None,
                  threads: int = 1, efficiency: CubeEfficiency | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(no double, double take) of each of *boards* ((N, 2, 25), side on roll in row 1,
    before its roll) at 1 ply (module docstring), board i at ``states[row_state[i]]``:
    money per unit of the state's cube, match MWC (double/take NaN where the side on roll
    cannot double: :func:`fastgen.cube.decision.may_double`). All the boards' 21 rolls go
    through the generator and the evaluator at once (its answers checked by
    :func:`fastgen.nets.probs.checked_answer`); a state no cube question can be asked at is
    refused first (:func:`fastgen.cube.decision.check_state`). *efficiency*: the
    opponent's cube life after each roll (:func:`fastgen.cube.efficiency.gnubg_efficiency`;
    default GNU Backgammon 1.07's)."""
    states = [check_state(st) for st in states]  # refused here, before any work, as cube_decisions refuses them
    met = default_met() if met is None else met
    n = boards.shape[0]
    nd_out, dt_out = np.empty(n), np.empty(n)
    if not n:
        return nd_out, dt_out
    batch = plays_batch(np.repeat(boards, len(DISTINCT_ROLLS), axis=0), np.tile(DISTINCT_ROLLS, (n, 1)),
                        threads=threads)
    after = np.asarray(batch.boards)
    offsets = np.asarray(batch.offsets, dtype=np.int64)
    row_board = np.repeat(np.repeat(np.arange(n), len(DISTINCT_ROLLS)), np.diff(offsets))
    row_st = np.asarray(row_state, dtype=np.int64)[row_board]
    res = result_types(after)
    going = res == 0
    opp_boards = np.ascontiguousarray(after[going][:, ::-1])
    # (N, 5) finite probabilities, or InvalidOutputError naming the evaluator
    probs = checked_answer(evaluator, opp_boards, threads) if opp_boards.shape[0] else np.zeros((0, 5))
    opp_probs = np.zeros((after.shape[0], 5))
    opp_probs[going] = probs
    classes = position_class(after)  # the same from either side: once for both branches
    chances = np.tile(ROLL_CHANCES, n)
    for out in (nd_out, dt_out):
        values = np.empty(after.shape[0])
        for k, state in enumerate(states):
            rows = np.flatnonzero(row_st == k)
            if not rows.size:
                continue
            if out is dt_out and not may_double(state):  # no double/take where the side on roll cannot double
                values[rows] = np.nan
                continue
            me, c = state.on_roll, state.cube_value
            cube, owner = (c, state.cube_owner) if out is nd_out else (2 * c, 1 - me)
            score = None
            if state.match_length:
                score = Score(met, state.match_length - state.score[me], state.match_length - state.score[1 - me],
                              crawford=state.crawford, player=me)
            ended, live = rows[~going[rows]], rows[going[rows]]
            if ended.size:
                points = res[ended].astype(np.int64)
                if score is None:
                    if state.jacoby and owner is None:  # gammons count single with the cube centred
                        points[:] = 1
                    values[ended] = points * cube / c
                else:
                    values[ended] = [score.win(int(r) * cube) for r in points]
            if live.size:
                opp_state = MatchState(match_length=state.match_length, score=state.score, cube_value=cube,
                                       cube_owner=owner, crawford=state.crawford, jacoby=state.jacoby, on_roll=1 - me,
                                       max_cube=state.max_cube)
                d = cube_decisions(after[live][:, ::-1], opp_probs[live], opp_state, met=met, database=database,
                                   classes=classes[live], efficiency=efficiency)
                nd, dt, dp = d.no_double, d.double_take, d.double_pass
                with np.errstate(invalid="ignore"):  # NaN where the opponent cannot double
                    doubles = (dt >= nd) & (dp >= nd)
                v = np.where(doubles, np.minimum(dt, dp), nd)
                values[live] = -v * cube / c if score is None else 1.0 - v
        best = np.maximum.reduceat(values, offsets[:-1])
        out[:] = np.bincount(np.repeat(np.arange(n), len(DISTINCT_ROLLS)), weights=best * chances, minlength=n)
    return nd_out, dt_out


def one_ply_values(board: np.ndarray, evaluator: Callable[[np.ndarray], Any], state: MatchState,
                   *, met: MatchEquityTable | None = None, database: Any = None,
                   threads: int = 1, efficiency: CubeEfficiency | None = None) -> tuple[float, float]:
    """(no double, double take) of one *board* at 1 ply: :func:`one_ply_batch`."""
    nd, dt = one_ply_batch(board[None], evaluator, [state], np.zeros(1, np.int64), met=met, database=database,
                           threads=threads, efficiency=efficiency)
    return float(nd[0]), float(dt[0])
