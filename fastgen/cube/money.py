"""Cubeful money equity from cubeless probabilities (Janowski's model).

Everything is for the side on roll, per unit of the cube on the table, from its five
cubeless probabilities p (win), wg (win a gammon, backgammons included), wb (win a
backgammon), lg, lb (the same for losing), arrays of any shape.

- Dead cube: the cubeless equity ``2 p - 1 + (wg - lg) + (wb - lb)``; with the Jacoby
  rule and the cube centred gammons count single (``2 p - 1``).
- Live cube: with the average value of a win W = 1 + (wg + wb) / p and of a loss
  L = 1 + (lg + lb) / (1 - p), the opponent's take point (the p at which it is indifferent
  between taking, then redoubling perfectly, and passing) is TP = (L - 1/2) / (W + L + 1/2)
  and the cash point CP = (L + 1) / (W + L + 1/2). The live equity is piecewise linear in
  p through (0, -L), (1, W), and:

  - cube centred: (TP, -1) and (CP, +1) (either side can double and be passed at
    its cash point); with the Jacoby rule the equity is -1 below TP and +1 above CP;
  - the side on roll owns the cube: (CP, +1);
  - the opponent owns it: (TP, -1).

- Cubeful: ``(1 - x) dead + x live`` with x the cube life
  (:mod:`fastgen.cube.efficiency`); at p = 0 or 1 (within 1e-7) the dead equity.

The three answers to "should I double?" (:func:`money_decision`): no double = the
cubeful equity with the cube as it is; double, take = twice the cubeful equity with the
opponent owning the cube (gammons count: a turned cube ends the Jacoby rule);
double, pass = +1.
"""

from __future__ import annotations

import numpy as np

__all__ = ["dead_equity", "live_equity", "cubeful_equity", "money_decision", "CENTRED", "OWN", "OPPONENT"]

#: Cube owner codes, seen by the side on roll.
CENTRED, OWN, OPPONENT = 0, 1, 2
_EDGE = 1e-7


def dead_equity(probs: np.ndarray, *, jacoby: bool = False) -> np.ndarray:
    """Cubeless money equity of (..., 5) *probs*; gammons count single when *jacoby*."""
    p, wg, wb, lg, lb = np.moveaxis(np.asarray(probs, dtype=np.float64), -1, 0)
    if jacoby:
        return 2.0 * p - 1.0
    return 2.0 * p - 1.0 + (wg - lg) + (wb - lb)


def _lerp(p: np.ndarray, x0, y0, x1, y1) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return y0 + (y1 - y0) * (p - x0) / (x1 - x0)


def live_equity(probs: np.ndarray, owner: int, *, jacoby: bool = False) -> np.ndarray:
    """Live-cube money equity of (..., 5) *probs* with the cube *owner* (CENTRED, OWN,
    OPPONENT; module docstring). NaN where p is 0 or 1 (no average win or loss)."""
    p, wg, wb, lg, lb = np.moveaxis(np.asarray(probs, dtype=np.float64), -1, 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        win = 1.0 + (wg + wb) / p
        loss = 1.0 + (lg + lb) / (1.0 - p)
    tp = (loss - 0.5) / (win + loss + 0.5)
    cp = (loss + 1.0) / (win + loss + 0.5)
    if owner == OWN:
        return np.where(p < cp, _lerp(p, 0.0, -loss, cp, 1.0), _lerp(p, cp, 1.0, 1.0, win))
    if owner == OPPONENT:
        return np.where(p < tp, _lerp(p, 0.0, -loss, tp, -1.0), _lerp(p, tp, -1.0, 1.0, win))
    low = np.full_like(p, -1.0) if jacoby else _lerp(p, 0.0, -loss, tp, -1.0)
    high = np.full_like(p, 1.0) if jacoby else _lerp(p, cp, 1.0, 1.0, win)
    return np.where(p < tp, low, np.where(p < cp, _lerp(p, tp, -1.0, cp, 1.0), high))


def cubeful_equity(probs: np.ndarray, x: np.ndarray | float, owner: int, *, jacoby: bool = False) -> np.ndarray:
    """Cubeful money equity per unit cube of (..., 5) *probs* with cube life *x* and
    the cube *owner*; the Jacoby rule (if *jacoby*) applies only with the cube centred."""
    arr = np.asarray(probs, dtype=np.float64)
    dead = dead_equity(arr, jacoby=jacoby and owner == CENTRED)
    live = live_equity(arr, owner, jacoby=jacoby and owner == CENTRED)
    p = arr[..., 0]
    x = np.asarray(x, dtype=np.float64)
    edge = (p <= _EDGE) | (p >= 1.0 - _EDGE)
    return np.where(edge, dead, (1.0 - x) * dead + x * np.where(edge, 0.0, live))


def money_decision(probs: np.ndarray, x: np.ndarray | float, owner: int, *,
                   jacoby: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(no double, double take, double pass) per unit of the current cube for the side
    on roll owning the cube (*owner* OWN) or with it centred (CENTRED)."""
    nd = cubeful_equity(probs, x, owner, jacoby=jacoby)
    dt = 2.0 * cubeful_equity(probs, x, OPPONENT)
    return nd, dt, np.ones_like(nd)
