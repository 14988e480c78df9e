"""Cubeful rollouts of a cube decision: ``rollout_position(..., cubeful=True)``."""

from __future__ import annotations

import numpy as np
import pytest

import fastgen
from fastgen import evaluators
from fastgen.core.ids import board_from_position_id
from fastgen.cube import CubeAction
from fastgen.errors import InvalidArgumentError, InvalidCubeStateError
from fastgen.sim.decide.cubeful import rollout_cube

OPENING = board_from_position_id("4HPwATDgc/ABMA")


def _sure_win() -> np.ndarray:
    b = np.zeros((2, 25), np.int8)
    b[1, :2], b[0, 3] = 1, 10   # off next roll whatever it is; the opponent has five off: no gammon
    return b


def test_a_sure_single_win_is_double_pass_with_exact_values():
    r = fastgen.rollout_position(_sure_win(), evaluators.baseline(), cubeful=True, trials=72, seed=1)
    assert (r.no_double, r.double_take, r.double_pass) == (1.0, 2.0, 1.0)
    assert r.no_double_se == 0.0 and r.difference_se == 0.0
    assert r.action is CubeAction.DOUBLE_PASS


def test_the_same_seed_gives_the_same_rollout_and_the_difference_is_paired():
    a = rollout_cube(OPENING, "baseline", trials=324, seed=2)
    b = rollout_cube(OPENING, evaluators.baseline(), trials=324, seed=2)
    assert (a.no_double, a.double_take) == (b.no_double, b.double_take)
    # common dice: the difference is known better than the double/take value alone
    assert a.difference_se < a.double_take_se
    assert a.action in (CubeAction.NO_DOUBLE_TAKE, CubeAction.NO_DOUBLE_BEAVER)
    assert "Proper cube action" in str(a) and a.to_dict()["trials"] == 324


def test_the_rollout_agrees_with_the_cube_formula_in_a_race():
    # a long race: the 0-ply formula and the rollout of the same evaluator should agree
    # within four standard errors (the formula's cube life is a model, the margin allows for it)
    race = np.zeros((2, 25), np.int8)
    race[1, [2, 4, 5, 7]] = [4, 4, 4, 3]
    race[0, [1, 3, 5]] = [5, 5, 5]
    ev = evaluators.baseline()
    formula = fastgen.cube.cube_action(race, evaluator=ev)
    r = rollout_cube(race, ev, trials=1296, seed=3)
    assert abs(r.no_double - formula.no_double) < 4 * r.no_double_se + 0.05, (r.no_double, formula.no_double)


def test_match_play_values_are_match_winning_chances():
    state = fastgen.MatchState(match_length=7, score=(2, 4), on_roll=1)
    r = rollout_cube(OPENING, "baseline", state, trials=324, seed=4)
    assert r.match and 0 < r.no_double < 1 and 0 < r.double_take < 1
    assert r.double_pass == pytest.approx(fastgen.cube.default_met().mwc(2, 5))
    assert r.equities[2] == pytest.approx(1.0)


def test_bad_requests_are_refused():
    with pytest.raises(InvalidCubeStateError, match="cannot double"):
        rollout_cube(OPENING, "baseline", fastgen.MatchState(match_length=7, score=(4, 6), crawford=True, on_roll=1))
    with pytest.raises(InvalidArgumentError, match="trials"):
        rollout_cube(OPENING, "baseline", trials=0)
    with pytest.raises(InvalidArgumentError, match="cubeful rollout takes"):
        fastgen.rollout_position(OPENING, "baseline", cubeful=True, truncate=5)
    with pytest.raises(InvalidArgumentError, match="cubeful=True"):
        fastgen.rollout_position(OPENING, "baseline", state=fastgen.MatchState())
