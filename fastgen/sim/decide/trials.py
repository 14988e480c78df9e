"""The trials of rollouts that decide (:mod:`fastgen.sim.decide.front`): :func:`simulate` plays
trials of every start position at once, half-move by half-move, with the 0-ply player of
the evaluator, measuring the luck of variance reduction; :func:`play_range` plays a range
of trial ids in blocks of about *pool_games* games (what a Dask chunk runs).

A trial is finished once the games of every start position with its dice have ended; a
KeyboardInterrupt (Ctrl-C) leaving :func:`simulate` carries the trials finished in order
from its first trial on (its attribute ``finished_trials``).

Trial ``k``'s dice depend only on ``(seed, k, turn)`` (:mod:`fastgen.sim.decide.dice`), so a
trial's result does not depend on which block, chunk or worker played it.

With ``threads`` > 1 and a compiled network (its kernel keeps no state and runs without
the GIL), :func:`simulate` cuts its trials into that many consecutive groups and plays
them side by side, one thread each: one group's Python bookkeeping runs while another's
network and generator run, and no network call is too small to share. Each group is
played as it would be alone, so the values are the same for any thread count.
"""

from __future__ import annotations

import time

import numpy as np

from fastgen.players.evaluators import Afterstates, evaluate, flip, flip_diff, group_best
from fastgen.core._core import StopFlag
from fastgen.core.generate import plays_batch
from fastgen.players.base import runs_without_gil
from fastgen.errors import InvalidArgumentError, TurnLimitError
from fastgen.core.ids import position_id
from fastgen.sim.decide.dice import dice_at
from fastgen._util import check_stopped, side_by_side

__all__ = ["simulate", "play_range", "block_size", "MAX_HALF_MOVES", "ROLLS", "WEIGHTS"]

#: A trial still running after this many half-moves stops the rollout (TurnLimitError).
MAX_HALF_MOVES = 100_000

#: Trials a group of trials played side by side gets at least (see :func:`simulate`).
MIN_GROUP = 8

#: The 21 distinct rolls (larger die first) and their weights out of 36.
ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(1, a + 1)], dtype=np.int8)
WEIGHTS = np.where(ROLLS[:, 0] == ROLLS[:, 1], 1.0, 2.0)
_ROLL_OF = np.zeros((7, 7), dtype=np.int64)
for _i, (_a, _b) in enumerate(ROLLS.tolist()):
    _ROLL_OF[_a, _b] = _ROLL_OF[_b, _a] = _i


def simulate(starts: np.ndarray, self_first: bool, evaluator, trials: np.ndarray, *, seed: int,
             variance_reduction: bool, quasi_random: bool, truncate: int | None, threads: int = 1,
             stats: dict | None = None, truncate_bearoff: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Play the trials *trials* (int64 ids) from each start position (C, 2, 25) (side on
    roll in row 1). The row player is that side when *self_first*, else its opponent.

    Returns ``(raw, estimate)``, each (C, len(trials), 5) float64: the row player's
    outcome probabilities of each trial (exact at the end of a game, the evaluator's at a
    truncation) and the same minus the trial's luck (equal to raw without variance
    reduction). With *truncate_bearoff*, a trial whose position (side on roll to roll)
    ``evaluator.covers`` is scored there with the evaluator and stops.

    A KeyboardInterrupt (Ctrl-C, or SIGTERM turned into one) goes on with the attribute
    ``finished_trials``: ``(raw, estimate)``, each (C, k, 5), of the first k trials, those
    finished (the games of every start position ended) in order from the first. A later
    trial that had finished is left out: short games finish first, so keeping whichever
    trials had finished would bias the result towards them.
    """
    n_start, n = starts.shape[0], trials.shape[0]
    games = n_start * n
    board = np.ascontiguousarray(np.repeat(starts, n, axis=0))
    trial = np.tile(trials, n_start)
    outcome = np.zeros((games, 5))
    luck = np.zeros((games, 5))
    alive = np.arange(games)
    stats = {} if stats is None else stats
    finished = np.zeros(games, dtype=bool)  # set once a game's outcome and luck are final

    def play(which: np.ndarray, threads: int, stats: dict) -> None:
        _play(board, trial, outcome, luck, finished, which, self_first, evaluator, seed, variance_reduction,
              quasi_random, truncate, threads, stats, truncate_bearoff)

    groups = min(threads, n // MIN_GROUP) if runs_without_gil(evaluator) else 1
    try:
        if groups <= 1:
            play(alive, threads, stats)
        else:
            _side_by_side(play, groups, n_start, n, stats)
    except KeyboardInterrupt as exc:
        whole = finished.reshape(n_start, n).all(axis=0)
        k = n if whole.all() else int(np.argmin(whole))
        setattr(exc, "finished_trials", (outcome.reshape(n_start, n, 5)[:, :k].copy(),  # read by the caller
                                         (outcome - luck).reshape(n_start, n, 5)[:, :k].copy()))
        raise
    raw = outcome.reshape(n_start, n, 5)
    return raw, (outcome - luck).reshape(n_start, n, 5)


def _side_by_side(play, groups: int, n_start: int, n: int, stats: dict) -> None:
    """``play(games, threads, stats)`` (:func:`_play` of some games, start-major: game
    ``s * n + j`` is trial ``j`` from start position ``s``) of *groups* consecutive groups
    of the *n* trials, one thread each (:func:`fastgen._util.side_by_side`: the first in
    the calling thread, where Ctrl-C arrives; the others stop at their next chunk of
    compiled work). Each group fills its own games of the shared arrays; its statistics
    are added to *stats* at the end."""
    bounds = [n * k // groups for k in range(groups + 1)]
    games = np.arange(n_start * n, dtype=np.int64).reshape(n_start, n)
    parts: list[dict] = [{} for _ in range(groups)]

    def work(k: int) -> None:
        play(np.ascontiguousarray(games[:, bounds[k] : bounds[k + 1]]).reshape(-1), 1, parts[k])

    try:
        side_by_side(work, groups, StopFlag())
    finally:
        for part in parts:
            for key, value in part.items():
                stats[key] = stats.get(key, 0) + value


def _play(board, trial, outcome, luck, finished, alive, self_first, evaluator, seed, variance_reduction, quasi_random,
          truncate, threads, stats, truncate_bearoff) -> None:
    """The half-moves of :func:`simulate`: fills *outcome* and *luck* of each game and sets
    its *finished* flag once they are final. In a group played side by side whose call
    is stopping, :class:`fastgen._util.Stopped` ends it between two steps."""
    may_not = np.zeros(0, dtype=bool)  # no play can end the game
    t = 0
    while alive.size:
        check_stopped()
        if t >= MAX_HALF_MOVES:
            raise TurnLimitError(
                f"a trial from position ID {position_id(board[alive[0]])!r} reached {MAX_HALF_MOVES:,} "
                "half-moves without ending; the rollout was stopped"
            )
        roller_is_self = self_first == (t % 2 == 0)
        here = board[alive]
        if truncate is not None and t == truncate:
            probs = evaluate(evaluator, here, stats, threads=threads)
            outcome[alive] = probs if roller_is_self else flip(probs)
            finished[alive] = True
            break
        if truncate_bearoff:
            covered = _covered(evaluator, here)
            if covered.any():
                probs = evaluate(evaluator, here[covered], stats, threads=threads)
                outcome[alive[covered]] = probs if roller_is_self else flip(probs)
                finished[alive[covered]] = True
                stats["bearoff_stops"] = stats.get("bearoff_stops", 0) + int(covered.sum())
                alive, here = alive[~covered], here[~covered]
                if not alive.size:
                    break
        dice = dice_at(seed, trial[alive], t, quasi_random)
        m = alive.size
        # Only a side with at most 4 checkers left can bear off its last one this turn.
        few = here[:, 1].sum(axis=1, dtype=np.int64) <= 4
        if variance_reduction:
            t0 = time.perf_counter()
            batch = plays_batch(np.repeat(here, 21, axis=0), np.tile(ROLLS, (m, 1)), threads=threads)
            stats["generate"] = stats.get("generate", 0.0) + time.perf_counter() - t0
            may = np.repeat(np.repeat(few, 21), batch.counts) if few.any() else may_not
            scored = Afterstates(evaluator, batch.boards, stats, may, threads=threads)
            best = group_best(scored.equity, batch.offsets)  # (m * 21,)
            value = scored.mover_probs(best).reshape(m, 21, 5)  # the roller's view
            mean = np.einsum("mrk,r->mk", value, WEIGHTS) / 36.0
            thrown = _ROLL_OF[dice[:, 0], dice[:, 1]]
            rows = np.arange(m)
            lucky = value[rows, thrown] - mean
            luck[alive] += lucky if roller_is_self else flip_diff(lucky)
            chosen = batch.boards[best.reshape(m, 21)[rows, thrown]]
        else:
            t0 = time.perf_counter()
            batch = plays_batch(here, dice, threads=threads)
            stats["generate"] = stats.get("generate", 0.0) + time.perf_counter() - t0
            may = np.repeat(few, batch.counts) if few.any() else may_not
            scored = Afterstates(evaluator, batch.boards, stats, may, threads=threads)
            chosen = batch.boards[group_best(scored.equity, batch.offsets)]
        del batch, scored  # their memory goes back to plays_batch's reuse pool
        done = ~chosen[:, 1].any(axis=1)
        if done.any():
            won = np.zeros((int(done.sum()), 5))
            loser = chosen[done, 0].astype(np.int64)
            won[:, 0] = 1.0
            won[:, 1] = loser.sum(axis=1) == 15
            won[:, 2] = won[:, 1] * (loser[:, 18:25].sum(axis=1) > 0)
            outcome[alive[done]] = won if roller_is_self else flip(won)
            finished[alive[done]] = True
        board[alive[~done]] = chosen[~done, ::-1]  # the other side on roll
        alive = alive[~done]
        t += 1


def _covered(evaluator, boards: np.ndarray) -> np.ndarray:
    """``evaluator.covers(boards)`` as an (N,) bool array, checked."""
    got = evaluator.covers(boards)
    try:
        mask = np.asarray(got, dtype=bool)
    except (TypeError, ValueError):
        mask = None
    if mask is None or mask.shape != (boards.shape[0],):
        raise InvalidArgumentError(
            f"evaluator {getattr(evaluator, '__name__', evaluator)!r}: covers must return ({boards.shape[0]},) bools, got {got!r}"
        )
    return mask


def block_size(pool_games: int, candidates: int) -> int:
    """Trials per block for *candidates* start positions: about *pool_games* games, whole
    blocks of 36 trials when that many fit."""
    block = max(1, pool_games // max(1, candidates))
    if block >= 36:
        block -= block % 36
    return block


def play_range(starts: np.ndarray, self_first: bool, evaluator, lo: int, hi: int, *, pool_games: int,
               stats: dict, **options) -> tuple[np.ndarray, np.ndarray]:
    """:func:`simulate` of trials ``lo .. hi-1`` in blocks (see :func:`block_size`):
    ``(raw, estimate)``, each (C, hi - lo, 5). *options* are simulate's keywords."""
    block = block_size(pool_games, starts.shape[0])
    raws, ests = [], []
    for a in range(lo, hi, block):
        ids = np.arange(a, min(hi, a + block), dtype=np.int64)
        r, s = simulate(starts, self_first, evaluator, ids, stats=stats, **options)
        raws.append(r)
        ests.append(s)
    if not raws:
        empty = np.zeros((starts.shape[0], 0, 5))
        return empty, empty.copy()
    return np.concatenate(raws, axis=1), np.concatenate(ests, axis=1)
