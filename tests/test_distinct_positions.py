"""Evaluators whose positions are costly (the attribute ``distinct_only``: GNU
Backgammon's nets, every look-ahead, or a user's that sets it) are asked about each
distinct position of a batch once, and the answers are the same as asking about all."""

from __future__ import annotations

import numpy as np
import pytest

import fastgen
from fastgen.players import evaluators
from fastgen.players.base import Evaluator


class Recording(Evaluator):
    """A toy evaluator: a fixed function of the pip counts, recording its batches."""

    name = "recording"
    trusted = True

    def __init__(self, distinct: bool) -> None:
        self.distinct_only = distinct  # type: ignore[misc]
        self.batches: list[np.ndarray] = []

    def evaluate(self, boards, *, threads=1):
        b = np.asarray(boards)
        self.batches.append(b.copy())
        pips = (b[:, 1, :].astype(np.float64) * np.arange(1, 26)).sum(axis=1)
        opp = (b[:, 0, :].astype(np.float64) * np.arange(1, 26)).sum(axis=1)
        win = 1.0 / (1.0 + np.exp((pips - opp) / 40.0))
        out = np.zeros((b.shape[0], 5))
        out[:, 0] = win
        out[:, 1] = 0.2 * win
        out[:, 3] = 0.2 * (1 - win)
        return out


def test_a_rollout_with_gnubg_s_nets_values_fewer_positions_to_the_same_results():
    """A variance-reduced rollout with gnubg's nets compiled: the same values with and
    without asking about each distinct position once, fewer positions valued."""
    from fastgen.errors import GnubgWeightsNotFoundError
    from fastgen.nets import gnubg

    try:
        nets = gnubg.load()
    except GnubgWeightsNotFoundError as exc:
        pytest.skip(f"no GNU Backgammon weights found: {exc}")
    runs = []
    try:
        for flag in (True, False):
            gnubg.GnubgNetworks.distinct_only = flag
            runs.append(fastgen.rollout_position(fastgen.STARTING_BOARD, nets, trials=24, seed=3))
    finally:
        gnubg.GnubgNetworks.distinct_only = True
    once, every = runs
    assert once.rows[0].probabilities == every.rows[0].probabilities and once.rows[0].equity == every.rows[0].equity
    assert once.stats["positions"] < 0.95 * every.stats["positions"]


def test_evaluate_expands_the_distinct_answers_back():
    other = fastgen.STARTING_BOARD.copy()
    other[1, 5] -= 1  # a checker from the 6-point to the 5-point
    other[1, 4] += 1
    boards = np.ascontiguousarray(np.stack([fastgen.STARTING_BOARD, other, fastgen.STARTING_BOARD, other]))
    ev = Recording(True)
    out = evaluators.evaluate(ev, boards)
    assert out.shape == (4, 5) and [x.shape[0] for x in ev.batches] == [2]
    assert np.array_equal(out, Recording(False).evaluate(boards))


def test_a_users_callable_keeps_its_distinct_only():
    def f(boards):
        return Recording(False).evaluate(boards)

    f.distinct_only = True  # type: ignore[attr-defined]
    from fastgen.players.base import as_evaluator

    assert as_evaluator(f).distinct_only is True
