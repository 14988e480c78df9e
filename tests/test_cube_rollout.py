"""Cubeful rollouts of a cube decision: ``rollout_cube(...)``."""

from __future__ import annotations

import numpy as np
import pytest

import fastgen
from fastgen.players import evaluators
from fastgen.core.ids import parse_position_id
from fastgen.cube import CubeAction
from fastgen.errors import InvalidArgumentError, InvalidCubeStateError
from fastgen.sim.decide.cubeful import rollout_cube

OPENING = parse_position_id("4HPwATDgc/ABMA")


def _sure_win() -> np.ndarray:
    b = np.zeros((2, 25), np.int8)
    b[1, :2], b[0, 3] = 1, 10   # off next roll whatever it is; the opponent has five off: no gammon
    return b


def test_a_sure_single_win_is_double_pass_with_exact_values():
    r = fastgen.rollout_cube(_sure_win(), evaluators.baseline(), trials=72, seed=1)
    assert (r.no_double, r.double_take, r.double_pass) == (1.0, 2.0, 1.0)
    assert r.no_double_se == 0.0 and r.difference_se == 0.0
    assert r.action is CubeAction.DOUBLE_PASS


def test_the_same_seed_gives_the_same_rollout_and_the_difference_is_paired():
    a = rollout_cube(OPENING, "baseline", trials=144, seed=2)
    b = rollout_cube(OPENING, evaluators.baseline(), trials=144, seed=2)
    assert (a.no_double, a.double_take) == (b.no_double, b.double_take)
    # common dice: the difference is known better than the double/take value alone
    assert a.difference_se < a.double_take_se
    assert a.action in (CubeAction.NO_DOUBLE_TAKE, CubeAction.NO_DOUBLE_BEAVER)
    assert "Proper cube action" in str(a) and a.to_dict()["trials"] == 144


def test_the_last_roll_is_rolled_out_exactly():
    # two checkers on the 6-point, the opponent off next roll whatever it throws: the side
    # on roll wins with 6-6, 5-5, 4-4 or 3-3 only, so no double is 2 p - 1 with p = 4/36 and
    # double/take twice that. Plain trials scatter around it (within 4 SE); with the luck
    # subtracted every trial is worth nearly exactly that (the evaluator's value of the
    # opponent's sure win is within 0.01 of 1).
    board = np.zeros((2, 25), np.int8)
    board[1, 5], board[0, 0] = 2, 2
    exact = 2 * 4 / 36 - 1
    plain = rollout_cube(board, "baseline", trials=1296, seed=3, variance_reduction=False)
    assert abs(plain.no_double - exact) <= 4 * plain.no_double_se
    vr = rollout_cube(board, "baseline", trials=1296, seed=3)
    assert vr.no_double == pytest.approx(exact, abs=0.01) and vr.double_take == pytest.approx(2 * exact, abs=0.02)
    assert vr.no_double_se < 0.01


def test_match_play_values_are_match_winning_chances():
    state = fastgen.MatchState(match_length=7, score=(2, 4), on_roll=1)
    r = rollout_cube(OPENING, "baseline", state, trials=144, seed=4)
    assert r.match and 0 < r.no_double < 1 and 0 < r.double_take < 1
    assert r.double_pass == pytest.approx(fastgen.cube.default_met().mwc(2, 5))
    assert r.equities[2] == pytest.approx(1.0)


def test_bad_requests_are_refused():
    with pytest.raises(InvalidCubeStateError, match="cannot double"):
        rollout_cube(OPENING, "baseline", fastgen.MatchState(match_length=7, score=(4, 6), crawford=True, on_roll=1))
    with pytest.raises(InvalidArgumentError, match="trials"):
        rollout_cube(OPENING, "baseline", trials=0)
    with pytest.raises(InvalidArgumentError, match="cubeful rollout takes"), pytest.warns(DeprecationWarning):
        fastgen.rollout_position(OPENING, "baseline", cubeful=True, truncate=5)
    with pytest.raises(InvalidArgumentError, match="truncate does not apply"):
        fastgen.rollout_cube(OPENING, "baseline", options=fastgen.sim.TrialOptions(truncate=5))
    with pytest.raises(InvalidArgumentError, match="variance_reduction"):
        rollout_cube(OPENING, "baseline", variance_reduction="yes")
    with pytest.raises(InvalidArgumentError, match="rollout_cube"):
        fastgen.rollout_position(OPENING, "baseline", state=fastgen.MatchState())


def test_variance_reduction_keeps_the_mean_and_shrinks_the_error():
    # a race, 324 trials, seed 5: with and without the luck subtracted the estimates must
    # agree within three combined standard errors (the luck averages 0), and the error
    # with it must be at most half the error without (measured: about a quarter)
    race = parse_position_id("ttuxAAC2uzMAAA")
    plain = rollout_cube(race, "baseline", trials=324, seed=5, variance_reduction=False)
    vr = rollout_cube(race, "baseline", trials=324, seed=5)
    assert vr.variance_reduction and not plain.variance_reduction
    for field in ("no_double", "double_take"):
        a, b = getattr(plain, field), getattr(vr, field)
        sa, sb = getattr(plain, f"{field}_se"), getattr(vr, f"{field}_se")
        assert abs(a - b) <= 3 * (sa ** 2 + sb ** 2) ** 0.5, (field, a, b)
        assert sb <= 0.5 * sa, (field, sa, sb)
