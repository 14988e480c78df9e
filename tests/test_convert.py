"""Signed-vector converters (fastgen.formats.convert): FIBS/pubeval layouts, side on roll positive."""

from __future__ import annotations

import random

import numpy as np
import pytest

import fastgen
from fastgen.formats.convert import from_pubeval28, from_signed26, to_pubeval28, to_signed26
from fastgen.errors import InvalidBoardError

from _positions import random_board

START = fastgen.STARTING_BOARD


def test_start_vectors():
    v26 = to_signed26(START)
    # Own checkers: 24 (2), 13 (5), 8 (3), 6 (5); opponent's seen from us: 1, 12, 17, 19.
    want = [0] * 26
    for point, n in {24: 2, 13: 5, 8: 3, 6: 5, 1: -2, 12: -5, 17: -3, 19: -5}.items():
        want[point] = n
    assert v26.tolist() == want
    v28 = to_pubeval28(START)
    assert v28.tolist() == want + [0, 0]
    assert v26.dtype == np.int8 and v28.dtype == np.int8


def test_bars_and_borne_off():
    board = np.zeros((2, 25), dtype=np.int8)
    board[1, 24] = 2  # two of mine on the bar
    board[1, 0] = 3   # three on my ace point
    board[0, 24] = 1  # one of theirs on the bar
    board[0, 5] = 4   # four on their 6 point = my 19
    v = to_pubeval28(board)
    assert v[25] == 2 and v[0] == -1 and v[1] == 3 and v[19] == -4
    assert v[26] == 10 and v[27] == -10


def test_round_trips_on_random_positions():
    rng = random.Random(8)
    boards = np.stack([random_board(rng) for _ in range(2000)])
    assert (from_signed26(to_signed26(boards)) == boards).all()
    assert (from_pubeval28(to_pubeval28(boards)) == boards).all()
    for board in boards[:200]:
        assert (from_pubeval28(to_pubeval28(board)) == board).all()
        v = to_signed26(board)
        assert v[1:25][v[1:25] > 0].sum() + v[25] == board[1].sum()  # own checkers positive


def test_batch_shapes():
    boards = np.stack([START] * 6).reshape(2, 3, 2, 25)
    assert to_signed26(boards).shape == (2, 3, 26)
    assert to_pubeval28(boards).shape == (2, 3, 28)
    assert from_pubeval28(to_pubeval28(boards)).shape == (2, 3, 2, 25)


def test_pubeval_scores_agree_with_gnubg():
    gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg-nn (GNU Backgammon's bindings) not installed: pip install '.[peers]'")
    # Only a smoke test: gnubg's pub_eval_score takes a TanBoard; our 28-vector is the
    # pos[] array the same pubeval reads, so equal boards must give equal scores.
    score = gnubg_nn.pub_eval_score(START.tolist())
    assert isinstance(score, float)


@pytest.mark.parametrize(
    "bad",
    [
        np.zeros(25, dtype=np.int8),                      # wrong length
        np.array([1] + [0] * 25, dtype=np.int8),          # opponent's bar must be <= 0
        np.array([0] * 25 + [-1], dtype=np.int8),         # own bar must be >= 0
        np.array([0] + [16] + [0] * 24, dtype=np.int8),   # 16 checkers
        np.zeros(26, dtype=np.float64),                   # not integers
    ],
)
def test_bad_26_vectors(bad):
    with pytest.raises(InvalidBoardError) as info:
        from_signed26(bad)
    assert "26" in str(info.value)


def test_bad_28_vectors():
    v = to_pubeval28(START).copy()
    v[26] = 3  # wrong borne-off count
    with pytest.raises(InvalidBoardError):
        from_pubeval28(v)
    with pytest.raises(InvalidBoardError):
        from_pubeval28(v[:27])
    with pytest.raises(InvalidBoardError):
        to_signed26(np.zeros((2, 24), dtype=np.int8))
