"""Cubeful match-winning chances from cubeless probabilities, at any score.

One score at a time (:class:`Score`: the match length, both scores, the Crawford
game, which player is on roll), many positions at once: the probabilities are (..., 5)
arrays for the side on roll, as in :mod:`fastgen.cube.money`, and every answer is its
chance of winning the match (MWC).

- ``win(k)`` / ``lose(k)``: the MWC after the side on roll wins or loses *k* points
  (the match equity table; after the Crawford game or in a post-Crawford game its
  post-Crawford row).
- Dead cube at cube value c: each result weighted by its probability, with the gammon
  and backgammon *prices* of the score (what a gammon adds to a win, in units of half
  the swing between winning and losing c points; negative prices count 0):
  the normalised cubeless equity ``U = 2p - 1 + gw wg - gl lg + bw wb - bl lb`` and
  ``MWC = (U (W - L) + W + L) / 2`` with W = win(c), L = lose(c).
- Live cube: the MWC is piecewise linear in p between losing (0, the average of losing
  c, 2c, 3c by the loser's gammon rates) and winning (1, likewise); the points between
  are the cash points, the p at which a side's double is a pass. A side's cash point is
  found from the top of the cube's possible levels down: at the highest level that
  still matters (doubling again would leave a side with no use for the cube, or make
  the taker redouble at once), the taker is indifferent between passing (losing v) and
  taking a dead cube (the average MWC of the game played for 2v, or 4v after the
  taker's automatic redouble); below it, a take is worth what the taker's own cash
  point at the next level gives it. With the cube centred the line runs
  (0, lose) - (opponent's cash point, lose c) - (own cash point, win c) - (1, win);
  owned by the side on roll only its own cash point; owned by the opponent only the
  opponent's.
- Cubeful: ``(1 - x) dead + x live`` with x the cube life; a cube that cannot be used
  by either side (both within c points of the match, both 2 away, the Crawford game)
  is dead (x = 0).

:func:`match_decision` gives the three answers to a double, in MWC: no double (the
cube as it is), double take (cube 2c owned by the opponent), double pass (win c).
:func:`Score.equity` turns an MWC into the equity normalised to the current cube
(-1 = lose c, +1 = win c), as GNU Backgammon compares them.
"""

from __future__ import annotations

import numpy as np

from fastgen.cube.met import MatchEquityTable
from fastgen.cube.money import CENTRED, OPPONENT, OWN

__all__ = ["Score", "Split", "dead_mwc", "cubeful_mwc", "match_decision"]


class Score:
    """The lookups of one score for the side on roll: *length* points, the side on
    roll *away* points from winning and its opponent *opponent_away*, *crawford* (this
    game is the Crawford game), *player* (0 or 1: the side on roll's side of the table,
    which matters only for asymmetric tables). Checked by the caller."""

    def __init__(self, met: MatchEquityTable, away: int, opponent_away: int, *, crawford: bool, player: int) -> None:
        self.met = met
        self.a_me, self.a_opp = away - 1, opponent_away - 1
        self.crawford = crawford
        self.player = player
        self.post = crawford or self.a_me == 0 or self.a_opp == 0  # results lead to post-Crawford games
        self._memo: dict[tuple[bool, int], float] = {}

    def _after(self, a_me: int, a_opp: int) -> float:
        a0, a1 = (a_me, a_opp) if self.player == 0 else (a_opp, a_me)
        v0 = self.met.player0(a0, a1, post=self.post)
        return v0 if self.player == 0 else 1.0 - v0

    def win(self, k: int) -> float:
        """MWC after the side on roll wins *k* points."""
        key = (True, k)
        if key not in self._memo:
            self._memo[key] = self._after(self.a_me - k, self.a_opp)
        return self._memo[key]

    def lose(self, k: int) -> float:
        """MWC after the side on roll loses *k* points."""
        key = (False, k)
        if key not in self._memo:
            self._memo[key] = self._after(self.a_me, self.a_opp - k)
        return self._memo[key]

    def side(self, me: bool, win: bool, k: int) -> float:
        """MWC of one side (*me*: the side on roll, else its opponent) after it wins (or
        loses) *k* points."""
        if me:
            return self.win(k) if win else self.lose(k)
        return 1.0 - (self.lose(k) if win else self.win(k))

    def dead_cube(self, c: int) -> bool:
        """True when a cube of value *c* is of no use to either side (module docstring)."""
        return (self.a_me < c and self.a_opp < c) or (self.a_me == 1 and self.a_opp == 1) or self.crawford

    def prices(self, c: int) -> tuple[float, float, float, float]:
        """(gammon won, backgammon won, gammon lost, backgammon lost) prices at cube *c*."""
        w, l_ = self.win(c), self.lose(c)
        half = (w - l_) / 2.0
        if abs(half) <= 1e-7:
            return 0.0, 0.0, 0.0, 0.0
        gw = (self.win(2 * c) - w) / half
        bw = (self.win(3 * c) - self.win(2 * c)) / half
        gl = (l_ - self.lose(2 * c)) / half
        bl = (self.lose(2 * c) - self.lose(3 * c)) / half
        return max(gw, 0.0), max(bw, 0.0), max(gl, 0.0), max(bl, 0.0)

    def swing(self, c: int) -> float:
        """The MWC between losing and winning *c* points, ``win(c) - lose(c)``: what an
        equity of 2 stands for at cube *c*. Where a table gives both exactly the same
        chance (an extreme score, where its values are rounded flat: GNU Backgammon's
        ``jac100`` at 2 away against 25 away), the swing of a gammon, else of a
        backgammon, at cube *c* (else 1), so that equities stay finite and in the order
        of their MWCs."""
        for k in (c, 2 * c, 3 * c):
            d = self.win(k) - self.lose(k)
            if d > 0.0:
                return d
        return 1.0

    def mwc(self, equity: np.ndarray | float, c: int) -> np.ndarray:
        """MWC of an equity normalised to cube *c* (the same MWC whatever the equity
        where winning and losing *c* points give the same chance)."""
        w, l_ = self.win(c), self.lose(c)
        return 0.5 * (np.asarray(equity) * (w - l_) + (w + l_))

    def equity(self, mwc: np.ndarray | float, c: int) -> np.ndarray:
        """The equity normalised to cube *c* of an MWC (-1: lose c points, +1: win c;
        :meth:`swing` where the two are the same)."""
        w, l_ = self.win(c), self.lose(c)
        return (2.0 * np.asarray(mwc) - (w + l_)) / self.swing(c)


class Split:
    """Five cubeless probabilities (..., 5) taken apart once for the formulas below: p,
    wg, wb, lg, lb, and each side's gammon-only and backgammon rates per game it wins
    (``me`` for the side on roll, ``opp`` for its opponent)."""

    def __init__(self, probs: np.ndarray) -> None:
        arr = np.asarray(probs, dtype=np.float64)
        self.p, self.wg, self.wb, self.lg, self.lb = np.moveaxis(arr, -1, 0)
        p = self.p
        with np.errstate(divide="ignore", invalid="ignore"):
            self.me = (np.where(p > 0, (self.wg - self.wb) / p, 0.0), np.where(p > 0, self.wb / p, 0.0))
            self.opp = (np.where(p < 1, (self.lg - self.lb) / (1.0 - p), 0.0),
                        np.where(p < 1, self.lb / (1.0 - p), 0.0))


def _split(probs: np.ndarray | Split) -> Split:
    return probs if isinstance(probs, Split) else Split(probs)


def dead_mwc(score: Score, probs: np.ndarray | Split, c: int) -> np.ndarray:
    """The dead-cube MWC of (..., 5) *probs* (or their :class:`Split`) at cube *c*
    (module docstring)."""
    sp = _split(probs)
    gw, bw, gl, bl = score.prices(c)
    u = 2.0 * sp.p - 1.0 + gw * sp.wg - gl * sp.lg + bw * sp.wb - bl * sp.lb
    return score.mwc(u, c)


def _average(score: Score, me: bool, win: bool, stake: int, rates) -> np.ndarray:
    g, b = rates
    return (1.0 - g - b) * score.side(me, win, stake) + g * score.side(me, win, 2 * stake) + b * score.side(
        me, win, 3 * stake)


def cash_points(score: Score, probs: np.ndarray | Split, c: int) -> tuple[np.ndarray, np.ndarray]:
    """(own, opponent's) cash points at cube *c*, both as the side on roll's p: it
    doubles the opponent out from its own; the opponent doubles it out below the other."""
    sp = _split(probs)
    rates = {True: sp.me, False: sp.opp}
    away = {True: score.a_me, False: score.a_opp}
    v = c
    while score.a_me >= 2 * v and score.a_opp >= 2 * v:
        v *= 2
    cash: dict[bool, np.ndarray] = {}
    for k in (True, False):
        stake = 4 * v if away[k] < 2 * v <= away[not k] else 2 * v
        take_win = _average(score, k, True, stake, rates[k])
        take_lose = _average(score, k, False, stake, rates[not k])
        drop = score.side(k, True, v)
        with np.errstate(divide="ignore", invalid="ignore"):
            cash[k] = (take_lose - drop) / (take_lose - take_win)
    while v > c:
        v //= 2
        below: dict[bool, np.ndarray] = {}
        for k in (True, False):
            take_win = _average(score, k, True, 2 * v, rates[k])
            redouble_pass = score.side(k, False, 2 * v)
            drop = score.side(k, True, v)
            with np.errstate(divide="ignore", invalid="ignore"):
                below[k] = 1.0 - cash[not k] * (drop - take_win) / (redouble_pass - take_win)
        cash = below
    return cash[True], 1.0 - cash[False]


def _line(p, x0, y0, x1, y1):
    with np.errstate(divide="ignore", invalid="ignore"):
        return y0 + (y1 - y0) * (p - x0) / (x1 - x0)


def live_mwc(score: Score, probs: np.ndarray | Split, c: int, owner: int) -> np.ndarray:
    """The live-cube MWC of (..., 5) *probs* (or their :class:`Split`) at cube *c* with the
    cube *owner*."""
    sp = _split(probs)
    p, me_rates, opp_rates = sp.p, sp.me, sp.opp
    tg, otg = cash_points(score, sp, c)
    cash, opp_cash = score.win(c), score.lose(c)
    win = _average(score, True, True, c, me_rates)
    lose = _average(score, True, False, c, opp_rates)
    low = np.where(otg <= 0, lose, _line(p, 0.0, lose, otg, opp_cash))
    high = np.where(tg >= 1, win, _line(p, tg, cash, 1.0, win))
    if owner == CENTRED:
        return np.where(p <= otg, low, np.where(p < tg, _line(p, otg, opp_cash, tg, cash), high))
    if owner == OWN:
        return np.where(p <= tg, np.where(tg <= 0, lose, _line(p, 0.0, lose, tg, cash)), high)
    return np.where(p <= otg, low, _line(p, otg, opp_cash, 1.0, win))


def cubeful_mwc(score: Score, probs: np.ndarray | Split, x: np.ndarray | float, c: int, owner: int) -> np.ndarray:
    """The cubeful MWC of (..., 5) *probs* (or their :class:`Split`) with cube life *x*, at
    cube *c* with *owner*."""
    sp = _split(probs)
    dead = dead_mwc(score, sp, c)
    if score.dead_cube(c):
        return dead
    return (1.0 - np.asarray(x, dtype=np.float64)) * dead + np.asarray(x) * live_mwc(score, sp, c, owner)


def match_decision(score: Score, probs: np.ndarray | Split, x: np.ndarray | float, c: int, owner: int,
                   x_double: np.ndarray | float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(no double, double take, double pass) MWCs at cube *c* with *owner* (CENTRED or
    OWN); *x_double* is the cube life after the double (default *x*). *probs* may be
    given as their :class:`Split`, taken apart once for every formula."""
    sp = _split(probs)
    nd = cubeful_mwc(score, sp, x, c, owner)
    dt = cubeful_mwc(score, sp, x if x_double is None else x_double, 2 * c, OPPONENT)
    return nd, dt, np.full_like(nd, score.win(c))
