"""GNU Backgammon's race net, as :func:`fastgen.nets.gnubg_weights.read_weights` reads it,
answers as gnubg-nn does: the end-to-end check of the reader (which array is which, the
betas, the order of the numbers in each array).

The net is fed the race inputs and run through gnubg's sigmoid, both written here from
their published definitions, as plain numpy (a test's reference, not fastgen's
implementation):

- the race inputs, 107 a side, the opponent's side first: for points 1 to 23 of the
  side's own count four units (one checker: 1 0 0 0; two: 0 1 0 0; three: 0 0 1 0; n >= 4:
  0 0 1 (n - 3) / 2); fourteen units, one of them 1 when the side has borne off 1 to 14
  checkers; and the crossovers to come divided by 10 (each checker on points 7-12 counts
  1, on 13-18 counts 2, on 19-24 counts 3);
- gnubg's sigmoid ``1 / (1 + e^x)``, with e^x taken from a table of e^(k/10) / 10 and
  linear inside each tenth, clamped beyond +-10 (GNU Backgammon's ``sigmoid.h``, as
  described in fastgen's notes on gnubg's nets);
- the forward pass ``a = sigmoid(-beta_hidden (b + x W))``, ``o = sigmoid(-beta_output
  (c + V a))``, in float32.

gnubg-nn's ``probabilities(board, 0)`` then corrects the outputs (its backgammon
override for races, its certain-win and gammon tests, clamps), so the comparison takes
the outputs those corrections leave alone: P(win) strictly between 1e-4 and 1 - 1e-4,
and the gammons of boards where both sides still have 15 checkers, strictly between 1e-4
and their side's wins less 1e-4. The margin is 2e-6: the net is computed in float32,
and the order in which 214 products are added moves the last bits (measured on this
test's positions: 5.7e-7 on P(win), 1.0e-6 on the gammons).
"""

from __future__ import annotations

import numpy as np
import pytest

from fastgen.nets.gnubg_weights import find_weights, read_weights

gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg-nn is not installed: pip install gnubg-nn (the peers extra)")

SEED = 20261204
POSITIONS = 600
MARGIN = 2e-6

_E = np.array([np.exp(k / 10.0) / 10.0 for k in range(100)] + [np.exp(9.9) / 10.0], dtype=np.float32)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    """gnubg's sigmoid 1 / (1 + e^x), float32, as its table computes it."""
    x = np.asarray(x, dtype=np.float32)
    mag = np.where(np.abs(x) < 10, np.abs(x), np.float32(0))  # beyond +-10: the clamps below
    x1 = (mag * np.float32(10)).astype(np.float32)
    i = x1.astype(np.int64)
    pos = np.float32(1) / (np.float32(1) + _E[i] * ((np.float32(10) - i.astype(np.float32)) + x1))
    out = np.where(x >= 0, pos, np.float32(1) - pos).astype(np.float32)
    out = np.where(x >= 10, np.float32(1 / 19931.370438230298), out)
    return np.where(x <= -10, np.float32(19930.370438230298 / 19931.370438230298), out).astype(np.float32)


def _units(n: int) -> list[float]:
    return [[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]][n] if n < 4 else [0, 0, 1, (n - 3) / 2]


def _race_inputs(board: np.ndarray) -> np.ndarray:
    x: list[float] = []
    for side in board:  # the opponent (row 0) first
        for point in range(23):
            x += _units(int(side[point]))
        off = [0.0] * 14
        borne = 15 - int(side.sum())
        if 1 <= borne <= 14:
            off[borne - 1] = 1.0
        x += off
        x.append(sum(k * int(side[6 * k : 6 * k + 6].sum()) for k in (1, 2, 3)) / 10.0)
    return np.array(x, dtype=np.float32)


def _forward(net, x: np.ndarray) -> np.ndarray:
    h = (net.hidden_bias + x @ net.hidden_weights).astype(np.float32)
    a = _sigmoid(np.float32(-net.beta_hidden) * h)
    return _sigmoid(np.float32(-net.beta_output) * (net.output_bias + net.output_weights @ a))


def _race_positions(rng: np.random.Generator, full: bool) -> list[np.ndarray]:
    """Race positions gnubg-nn classes as races (not bear-offs); *full*: 15 checkers a side."""
    found = []
    while len(found) < POSITIONS:
        me = int(rng.integers(6, 17))
        them = 22 - me - int(rng.integers(0, 5))
        board = np.zeros((2, 25), dtype=np.int8)
        for side, top in ((1, me), (0, them)):
            n = 15 if full else int(rng.integers(8, 16))
            for point in rng.integers(max(0, top - 10) if full else 0, top + 1, size=n):
                board[side, point] += 1
        if gnubg_nn.classify(board.tolist()) == gnubg_nn.c_race:
            found.append(board)
    return found


@pytest.fixture(scope="module")
def race_net():
    try:
        path = find_weights()
    except Exception as exc:  # pragma: no cover - gnubg-nn is installed, so its file is found
        pytest.skip(f"no GNU Backgammon weights file: {exc}")
    return read_weights(path).nets["race"]


def test_the_race_net_gives_gnubg_nns_race_probabilities(race_net):
    rng = np.random.default_rng(SEED)
    compared = {0: 0, 1: 0, 3: 0}
    worst = {0: 0.0, 1: 0.0, 3: 0.0}
    for full in (False, True):
        for board in _race_positions(rng, full):
            want = np.array(gnubg_nn.probabilities(board.tolist(), 0))
            got = _forward(race_net, _race_inputs(board))
            limits = {0: 1 - 1e-4, 1: want[0] - 1e-4, 3: 1 - want[0] - 1e-4}
            for j in (0, 1, 3):
                if (j == 0 or full) and 1e-4 < want[j] < limits[j]:
                    compared[j] += 1
                    worst[j] = max(worst[j], abs(float(got[j]) - float(want[j])))
    assert min(compared.values()) >= 100, compared  # each output compared on many positions
    assert max(worst.values()) <= MARGIN, (worst, compared)
