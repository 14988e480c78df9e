"""fastgen.players.policies.lookahead: the 1-ply player, held to a plain loop (every play, every
roll, every reply through fastgen.legal_plays, the network in float64 numpy), and to the
game (it beats its own 0-ply player)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import fastgen
from fastgen.errors import InvalidArgumentError
from fastgen.nets import Network
from fastgen.players.policies import lookahead

from _positions import positions

#: A small network that plays sensible games (bench/data/SOURCE.md says how it was made).
NET = Network.load(Path(__file__).resolve().parent.parent / "bench" / "data" / "distilled-198-40-5.npz")


def _probs64(board: np.ndarray) -> np.ndarray:
    """NET's consistent probabilities for the side on roll of *board*, in float64 numpy."""
    x = fastgen.encode(board, "tesauro198").astype(np.float64)
    w, b = NET.weights, NET.biases
    h = 1 / (1 + np.exp(-(x @ w[0].astype(np.float64) + b[0])))
    y = 1 / (1 + np.exp(-(h @ w[1].astype(np.float64) + b[1])))
    y[1] = min(y[1], y[0])
    y[2] = min(y[2], y[1])
    y[3] = min(y[3], 1 - y[0])
    y[4] = min(y[4], y[3])
    return y


def _equity_on_roll(board: np.ndarray) -> float:
    """The equity of the side on roll (row 1) of *board*; exact when the other side has
    just borne off its last checker."""
    if not board[0].any():
        loser_off = 15 - int(board[1].sum())
        result = 1 if loser_off else (3 if board[1, 18:].any() else 2)
        return -float(result)
    p = _probs64(board)
    return 2 * p[0] - 1 + p[1] + p[2] - p[3] - p[4]


def _plain_one_ply(board: np.ndarray, dice: tuple[int, int]) -> tuple[int, np.ndarray]:
    """(index, values) of every play of *board* with *dice* judged at 1 ply by loops."""
    plays = fastgen.legal_plays(board, dice).boards
    values = []
    for after in plays:
        if not after[1].any():  # the mover bore off its last checker
            values.append(np.inf)
            continue
        opp = after[::-1]
        total = 0.0
        for a in range(1, 7):
            for b in range(a, 7):
                replies = fastgen.legal_plays(opp, (a, b)).boards
                # the opponent takes its best reply by 0 ply: the worst for the mover
                mover = min(_equity_on_roll(r[::-1]) for r in replies)
                total += mover * (1 if a == b else 2) / 36
        values.append(total)
    values = np.array(values)
    return int(np.argmax(values)), values


def test_equals_a_plain_loop():
    """With every play looked at (keep and margin unbounded), lookahead's choice is the
    plain loop's on 24 positions, except where the loop's two best values are within
    1e-5 (float32 network against float64 numpy)."""
    player = lookahead(NET, keep=10**6, margin=1e9)
    checked = 0
    for board, dice in positions(31, 24):
        if not board[1].any() or not board[0].any():
            continue
        plays = fastgen.legal_plays(board, dice).boards
        if len(plays) < 2:
            continue
        pick = int(player(plays, np.array([0, len(plays)]))[0])
        want, values = _plain_one_ply(board, dice)
        top = np.sort(values)[::-1]
        if top[0] - top[1] < 1e-5:
            continue
        assert pick == want, (fastgen.position_id(board), dice, values)
        checked += 1
    assert checked >= 14


def test_many_games_at_once_equal_one_at_a_time():
    boards = [b for b, _ in positions(32, 12)]
    dice = [d for _, d in positions(32, 12)]
    batch = fastgen.plays_batch(np.stack(boards), np.array(dice, np.int8))
    player = lookahead(NET)
    together = player(batch.boards, batch.offsets)
    for i in range(12):
        lo, hi = batch.offsets[i], batch.offsets[i + 1]
        alone = player(batch.boards[lo:hi], np.array([0, hi - lo]))
        assert together[i] == alone[0]


def test_it_beats_its_own_greedy_player():
    """1 ply against 0 ply of the same network over 600 mirrored games (fixed seed):
    +0.15 seen, interval above 0 asserted (the standard error is about 0.05, so the bound
    holds with room for three of them)."""
    r = fastgen.duel(lookahead(NET), NET, 600, seed=11)
    assert r.ci95[0] > 0, str(r)


@pytest.mark.parametrize("kw", [dict(plies=4), dict(plies=-1), dict(keep=0), dict(margin=-1.0), dict(margin="x")])
def test_bad_arguments(kw):
    with pytest.raises(InvalidArgumentError):
        lookahead(NET, **kw)
    with pytest.raises(InvalidArgumentError):
        lookahead("not an evaluator")


def test_zero_plies_is_greedy():
    assert lookahead(NET, 0).network is NET
