"""Tesauro's public evaluation function "pubeval": its weights and its choice of play.

Source: Gerald Tesauro, ``pubeval.c`` (IBM Research, 1993), "provided as a public
service to the backgammon programming community"; the two published weight vectors
``wr`` (race) and ``wc`` (contact) of 122 weights each are reproduced below as data.
(They are the same numbers GNU Backgammon ships in ``lib/pub_eval.c``; no code is taken
from there.)

The score is linear, ``W . x``, with 122 inputs describing the position *after* the
move from the mover's view. For each of the mover's points p = 24, 23, ..., 1 (block
``k = 24 - p``) with ``n`` = mover's checkers there minus the opponent's:
``x[5k] = [n == -1]``, ``x[5k+1] = [n == 1]``, ``x[5k+2] = [n >= 2]``,
``x[5k+3] = [n == 3]``, ``x[5k+4] = (n - 3) / 2 if n >= 4``; then
``x[120] = opponent's bar / 2`` and ``x[121] = mover's checkers off / 15``. (The mover's
own bar is not an input.) A position with all 15 of the mover's checkers off scores
99999999. The race weights apply when the position *before* the move is a race
(no contact), the contact weights otherwise.

Boards are fastgen boards (docs/RULES.md R4) after the move and before swapping sides:
row 1 is the side that just moved.

:func:`pubeval_best` plays pubeval's choice for a batch of positions inside the
compiled core, exactly as GNU Backgammon's pubeval player (``gnubg_nn.pub_best_move``)
chooses it: scores in single precision in its order of operations, ties to the play its
generator lists first. :func:`best_play` is the same choice among one position's legal
plays (the pubeval opponent of :class:`fastgen.envs.BackgammonEnv`), and the rollout
policy ``"pubeval"`` makes it too.
"""

from __future__ import annotations

import numpy as np

from fastgen.core import _core
from fastgen._util import run_threads
from fastgen.core.boards import as_board, as_boards, as_dice, as_dice_batch
from fastgen.core.generate import WATCH_FROM
from fastgen.core.plays import Plays
from fastgen.errors import InvalidArgumentError

__all__ = ["RACE_WEIGHTS", "CONTACT_WEIGHTS", "is_race", "best_play", "pubeval_best"]

#: Tesauro's race weights ``wr[122]``.
RACE_WEIGHTS = np.array([
    .00000, -.17160, .27010, .29906, -.08471, .00000, -1.40375, -1.05121, .07217, -.01351,
    .00000, -1.29506, -2.16183, .13246, -1.03508, .00000, -2.29847, -2.34631, .17253, .08302,
    .00000, -1.27266, -2.87401, -.07456, -.34240, .00000, -1.34640, -2.46556, -.13022, -.01591,
    .00000, .27448, .60015, .48302, .25236, .00000, .39521, .68178, .05281, .09266,
    .00000, .24855, -.06844, -.37646, .05685, .00000, .17405, .00430, .74427, .00576,
    .00000, .12392, .31202, -.91035, -.16270, .00000, .01418, -.10839, -.02781, -.88035,
    .00000, 1.07274, 2.00366, 1.16242, .22520, .00000, .85631, 1.06349, 1.49549, .18966,
    .00000, .37183, -.50352, -.14818, .12039, .00000, .13681, .13978, 1.11245, -.12707,
    .00000, -.22082, .20178, -.06285, -.52728, .00000, -.13597, -.19412, -.09308, -1.26062,
    .00000, 3.05454, 5.16874, 1.50680, 5.35000, .00000, 2.19605, 3.85390, .88296, 2.30052,
    .00000, .92321, 1.08744, -.11696, -.78560, .00000, -.09795, -.83050, -1.09167, -4.94251,
    .00000, -1.00316, -3.66465, -2.56906, -9.67677, .00000, -2.77982, -7.26713, -3.40177, -12.32252,
    .00000, 3.42040,
])

#: Tesauro's contact weights ``wc[122]``.
CONTACT_WEIGHTS = np.array([
    .25696, -.66937, -1.66135, -2.02487, -2.53398, -.16092, -1.11725, -1.06654, -.92830, -1.99558,
    -1.10388, -.80802, .09856, -.62086, -1.27999, -.59220, -.73667, .89032, -.38933, -1.59847,
    -1.50197, -.60966, 1.56166, -.47389, -1.80390, -.83425, -.97741, -1.41371, .24500, .10970,
    -1.36476, -1.05572, 1.15420, .11069, -.38319, -.74816, -.59244, .81116, -.39511, .11424,
    -.73169, -.56074, 1.09792, .15977, .13786, -1.18435, -.43363, 1.06169, -.21329, .04798,
    -.94373, -.22982, 1.22737, -.13099, -.06295, -.75882, -.13658, 1.78389, .30416, .36797,
    -.69851, .13003, 1.23070, .40868, -.21081, -.64073, .31061, 1.59554, .65718, .25429,
    -.80789, .08240, 1.78964, .54304, .41174, -1.06161, .07851, 2.01451, .49786, .91936,
    -.90750, .05941, 1.83120, .58722, 1.28777, -.83711, -.33248, 2.64983, .52698, .82132,
    -.58897, -1.18223, 3.35809, .62017, .57353, -.07276, -.36214, 4.37655, .45481, .21746,
    .10504, -.61977, 3.54001, .04612, -.18108, .63211, -.87046, 2.47673, -.48016, -1.27157,
    .86505, -1.11342, 1.24612, -.82385, -2.77082, 1.23606, -1.59529, .10438, -1.30206, -4.11520,
    5.62596, -2.75800,
])

assert RACE_WEIGHTS.shape == CONTACT_WEIGHTS.shape == (122,)
_core.pubeval_load(CONTACT_WEIGHTS, RACE_WEIGHTS)

def is_race(boards) -> np.ndarray:
    """(M,) bool: True where no contact remains (every checker of each side is past every
    checker of the other, bars counted), for boards (M, 2, 25).
    """
    b = np.asarray(boards)
    idx = np.arange(1, 26, dtype=np.int16)  # index i holds point i+1; the bar is "point 25"
    back_mine = np.where(b[:, 1] > 0, idx, 0).max(axis=1)
    back_opp = np.where(b[:, 0] > 0, idx, 0).max(axis=1)
    # The mover's rearmost checker on point a meets the opponent's rearmost on its point c
    # (= the mover's point 25-c) only if a > 25 - c.
    return back_mine + back_opp <= 25


def best_play(plays: Plays) -> int:
    """The index in *plays* (one position's legal plays, :func:`fastgen.legal_plays`) of
    pubeval's play: the one :func:`pubeval_best` makes, as GNU Backgammon's pubeval player
    chooses (race weights when the position before the move has no contact, ties to the
    play its generator lists first). The pubeval opponent of
    :class:`fastgen.envs.BackgammonEnv` plays it.

    >>> import fastgen
    >>> plays = fastgen.legal_plays(fastgen.STARTING_BOARD, (3, 1))
    >>> str(plays[best_play(plays)])
    '8/5 6/5'
    """
    if not isinstance(plays, Plays):
        raise InvalidArgumentError(f"best_play needs the Plays of one position (fastgen.legal_plays), got {plays!r}")
    # A Plays can be built by hand: the core trusts its input, so check it first.
    before = as_board(plays.board)
    dice = np.array([as_dice(plays.dice)], dtype=np.int8)
    candidates = as_boards(plays.boards)
    if candidates.shape[0] == 0:
        raise InvalidArgumentError(f"best_play needs at least one play, got {plays!r}")
    pick = np.empty(1, dtype=np.int64)
    offsets = np.array([0, candidates.shape[0]], dtype=np.int64)
    _core.pubeval_pick(before[None], dice, candidates, offsets, pick)
    return int(pick[0])


def pubeval_best(boards, dice) -> np.ndarray:
    """The position after pubeval's play for each of N positions: (N, 2, 25) int8.

    *boards* (N, 2, 25) with the side on roll in row 1, *dice* (N, 2); the result is
    oriented like :func:`fastgen.plays_batch`'s boards (row 1 is the side that moved). The
    play is the one GNU Backgammon's pubeval player picks with the dice in the order
    given (``gnubg_nn.pub_best_move(board, d1, d2)``): race weights when the position
    before the move has no contact, ties to the play its generator lists first. Runs in
    the compiled core without the GIL. A position with no legal play is returned as is.

    >>> import fastgen, numpy as np
    >>> after = fastgen.pubeval_best(np.stack([fastgen.STARTING_BOARD] * 2), [(3, 1), (6, 5)])
    >>> after.shape
    (2, 2, 25)
    >>> [str(p) for p in fastgen.legal_plays(fastgen.STARTING_BOARD, (3, 1)) if (p.board_after == after[0]).all()]
    ['8/5 6/5']
    """
    arr = as_boards(boards, check_counts=False)  # counts are checked in the core
    dice_arr = as_dice_batch(dice, arr.shape[0])
    out = np.empty_like(arr)
    bad = [-1]
    # A large batch runs in a worker thread while this one waits for Ctrl-C (stops it).
    stop = _core.StopFlag() if arr.shape[0] >= WATCH_FROM else None

    def work(_):
        bad[0] = _core.pubeval_best_batch(arr, dice_arr, out, stop)

    if stop is None:
        work(0)
    else:
        run_threads(work, 1, stop)
    if bad[0] >= 0:
        as_boards(arr)  # raises for the first invalid board
        raise AssertionError("the core rejected a board that as_boards accepts")  # pragma: no cover
    return out
