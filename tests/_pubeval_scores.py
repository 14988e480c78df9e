"""Pubeval scores in double precision with numpy: the tests' oracle for the core's pubeval
choice (fastgen.pubeval_best, fastgen.players.pubeval.best_play, which score in single
precision as GNU Backgammon does). Checked against hand-computed values and a literal
transcription of Tesauro's encoding in test_pubeval.py."""

from __future__ import annotations

import numpy as np

from fastgen.players.pubeval import CONTACT_WEIGHTS, RACE_WEIGHTS, is_race

WIN_SCORE = 99999999.0  # Tesauro's score of a position with all the mover's checkers off


def _point_tables(weights: np.ndarray) -> np.ndarray:
    """(24, 31) table: contribution of block k holding n = -15..15 (column n + 15)."""
    n = np.arange(-15, 16)
    features = np.stack([
        (n == -1).astype(float),
        (n == 1).astype(float),
        (n >= 2).astype(float),
        (n == 3).astype(float),
        np.where(n >= 4, (n - 3) / 2.0, 0.0),
    ])  # (5, 31)
    return weights[:120].reshape(24, 5) @ features


# Per-point lookup tables: the 120 point inputs are a function of one count each, so the
# dot product becomes 24 table lookups per board.
_TABLES = np.stack([_point_tables(CONTACT_WEIGHTS), _point_tables(RACE_WEIGHTS)])  # (2, 24, 31)
_FLAT_TABLES = _TABLES.ravel()  # flat index: race * 744 + block * 31 + (n + 15)
_BLOCK_OFFSETS = np.arange(24, dtype=np.intp) * 31 + 15


def _counts(boards: np.ndarray) -> np.ndarray:
    """(M, 24) intp: n for blocks k = 0..23 (mover's points 24..1)."""
    # Block k is the mover's point 24-k (index 23-k); the opponent's checkers there are on
    # its own point k+1 (index k).
    return boards[:, 1, 23::-1].astype(np.intp) - boards[:, 0, :24]


def evaluate(boards, race=None) -> np.ndarray:
    """Pubeval scores (M,) float64 of boards (M, 2, 25) after the move (row 1 = mover).

    *race* selects the weights: a bool or an (M,) bool array, normally the race status of
    the position *before* the move (Tesauro's convention); default: computed from
    *boards* themselves.
    """
    b = np.asarray(boards)
    if b.ndim != 3 or b.shape[1:] != (2, 25):
        raise ValueError(f"boards must have shape (M, 2, 25), got {b.shape}")
    m = b.shape[0]
    if race is None:
        race = is_race(b)
    race = np.broadcast_to(np.asarray(race, dtype=bool), (m,))
    index = _counts(b)
    index += _BLOCK_OFFSETS
    index += np.where(race, 24 * 31, 0)[:, None]
    score = _FLAT_TABLES[index].sum(axis=1)
    weights = np.where(race[:, None], RACE_WEIGHTS[120:], CONTACT_WEIGHTS[120:])  # (M, 2)
    off = 15 - b[:, 1].sum(axis=1, dtype=np.int16)
    score += weights[:, 0] * (b[:, 0, 24] / 2.0) + weights[:, 1] * (off / 15.0)
    return np.where(off == 15, WIN_SCORE, score)
