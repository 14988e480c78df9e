"""Tesauro's public evaluation function "pubeval": its weights and its choice of play.

Source: Gerald Tesauro, ``pubeval.c`` (IBM Research, 1993), "provided as a public
service to the backgammon programming community"; the two published weight vectors
``wr`` (race) and ``wc`` (contact) of 122 weights each are compiled into pubeval's
extension as constant data (fastgen/players/_pubeval.pyx), which fills its tables from
them when it loads; :data:`RACE_WEIGHTS` and :data:`CONTACT_WEIGHTS` are copies read from there.
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
from fastgen.players import _pubeval
from fastgen._util import run_threads
from fastgen.core.boards import as_board, as_boards, as_dice, as_dice_batch
from fastgen.core.generate import WATCH_FROM
from fastgen.core.plays import Plays
from fastgen.errors import InvalidArgumentError

__all__ = ["RACE_WEIGHTS", "CONTACT_WEIGHTS", "is_race", "best_play", "pubeval_best"]

_contact, _race = _pubeval.pubeval_weights()

#: Tesauro's race weights ``wr[122]`` (read-only: the compiled pubeval's own).
RACE_WEIGHTS = np.array(_race)
RACE_WEIGHTS.flags.writeable = False

#: Tesauro's contact weights ``wc[122]`` (read-only: the compiled pubeval's own).
CONTACT_WEIGHTS = np.array(_contact)
CONTACT_WEIGHTS.flags.writeable = False


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
    _pubeval.pubeval_pick(before[None], dice, candidates, offsets, pick)
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
        bad[0] = _pubeval.pubeval_best_batch(arr, dice_arr, out, stop)

    if stop is None:
        work(0)
    else:
        run_threads(work, 1, stop)
    if bad[0] >= 0:
        as_boards(arr)  # raises for the first invalid board
        raise AssertionError("the core rejected a board that as_boards accepts")  # pragma: no cover
    return out
