"""The dice of rollouts that decide: common random numbers, optionally quasi-random.

Trial ``k`` of a rollout with seed ``S`` throws the same dice for every candidate play,
whatever the number of threads, the batch size or the workers: turn ``t`` of trial
``k`` is a pure function of ``(S, k, t)``, computed from the counter-based hash
(splitmix64) that :func:`fastgen.rollout` uses for its games
(:func:`fastgen.core.hashing.game_hash`). Turn 0 is the first roll after the candidate
play (the opponent's); for :func:`fastgen.rollout_position` it is the roll of the side on
roll.

Plain dice: roll index ``r = floor(h * 36 / 2**32)`` of the high 32 bits ``h`` of
``game_hash(S, k, t, PURPOSE_DICE)``, dice ``(r // 6 + 1, r % 6 + 1)`` (ordered: 3-1 and
1-3 are two rolls of the 36).

Quasi-random dice (stratified first two rolls) replace turns 0 and 1. Write
``k = 1296 b + 36 c + a`` (``0 <= a, c < 36``):

* the first roll is ``P[b, c][a]``, where ``P[b, c]`` is a permutation of the 36 rolls
  drawn from the hash (the argsort of 36 hashes of ``(S, 36 b + c, i)``, i = 0..35);
  so every block of 36 consecutive trials starting at a multiple of 36 throws each
  ordered first roll exactly once, in a random order;
* the second roll is ``Q[b, f][c]`` where ``f`` is the first roll and ``Q[b, f]`` is
  another hashed permutation: within a block of 1,296 trials, the 36 trials whose first
  roll is ``f`` have 36 different ``c``, so they throw each second roll once, and every
  ordered pair of first two rolls appears exactly once.

Each trial's rolls are still uniform (a uniformly random permutation puts any roll at any
place with probability 1/36), so the estimates stay unbiased; only their dependence
across trials changes, which lowers the variance of the mean. Turns 2 and later are the
plain hash.

>>> d = rollout_dice(0, 36, 2)
>>> d.shape, sorted(map(tuple, d[:, 0].tolist())) == [(i, j) for i in range(1, 7) for j in range(1, 7)]
((36, 2, 2), True)
"""

from __future__ import annotations

import numpy as np

from fastgen._util import check_int
from fastgen.errors import InvalidArgumentError
from fastgen.core.hashing import PURPOSE_DICE, game_hash, uniform_index

__all__ = ["rollout_dice", "dice_at", "PURPOSE_FIRST", "PURPOSE_SECOND"]

#: Hash purposes of the two quasi-random permutations (``PURPOSE_DICE`` = 1 is the plain roll).
PURPOSE_FIRST, PURPOSE_SECOND = 11, 12

_ALL = np.arange(36, dtype=np.int64)

#: Bounds of rollout_dice's arguments (trial ids stay far inside int64; the array in memory).
MAX_TRIALS, MAX_TURNS, MAX_ROLLS = 2**40, 100_000, 2**31


def _perm_pick(seed: int, purpose: int, rows: np.ndarray, place: np.ndarray) -> np.ndarray:
    """Element *place* of the hashed permutation of 0..35 numbered *rows* (arrays alike)."""
    uniq, inv = np.unique(rows, return_inverse=True)
    h = game_hash(seed, uniq[:, None], _ALL[None, :], purpose)
    perms = np.argsort(h, axis=1, kind="stable")
    return perms[inv, place]


def _roll_index(seed: int, trials: np.ndarray, turn: int, quasi_random: bool) -> np.ndarray:
    """(n,) roll indexes 0..35 of turn *turn* of *trials*."""
    if quasi_random and turn < 2:
        b, j = np.divmod(trials, 1296)
        c, a = np.divmod(j, 36)
        first = _perm_pick(seed, PURPOSE_FIRST, 36 * b + c, a)
        if turn == 0:
            return first
        return _perm_pick(seed, PURPOSE_SECOND, 36 * b + first, c)
    h = game_hash(seed, trials, np.full(trials.shape, turn, dtype=np.int64), PURPOSE_DICE)
    return uniform_index(h, 36).astype(np.int64)


def dice_at(seed: int, trials: np.ndarray, turn: int, quasi_random: bool = True) -> np.ndarray:
    """(n, 2) int8 dice of turn *turn* of the trials *trials* (int64 array); no checks."""
    r = _roll_index(seed, np.asarray(trials, dtype=np.int64), turn, quasi_random)
    out = np.empty((r.shape[0], 2), dtype=np.int8)
    out[:, 0] = r // 6 + 1
    out[:, 1] = r % 6 + 1
    return out


def rollout_dice(seed: int, trials: int, turns: int, *, quasi_random: bool = True) -> np.ndarray:
    """The dice of trials ``0 .. trials-1``, turns ``0 .. turns-1``: (trials, turns, 2) int8.

    Parameters
    ----------
    seed:
        Non-negative int below 2**64, as :func:`fastgen.rollout_plays`'s *seed*.
    trials, turns:
        Non-negative ints (at most 2**40 trials, 100,000 turns, 2**31 rolls in all).
    quasi_random:
        Stratify the first two rolls (see the module docstring); else every roll is the
        plain hash.

    Returns
    -------
    numpy.ndarray
        ``dice[k, t]`` is the roll of turn *t* of trial *k*: turn 0 is the first roll
        after the candidate play. Every candidate's trial *k* plays exactly these dice.
    """
    seed = check_int(seed, "seed", 0, 2**64 - 1)
    trials = check_int(trials, "trials", 0, MAX_TRIALS)
    turns = check_int(turns, "turns", 0, MAX_TURNS)
    if trials * turns > MAX_ROLLS:
        raise InvalidArgumentError(f"rollout_dice of {trials} trials x {turns} turns is over {MAX_ROLLS:,} rolls")
    if not isinstance(quasi_random, (bool, np.bool_)):
        raise InvalidArgumentError(f"quasi_random must be True or False, got {quasi_random!r}")
    ks = np.arange(trials, dtype=np.int64)
    out = np.empty((trials, turns, 2), dtype=np.int8)
    for t in range(turns):
        out[:, t] = dice_at(seed, ks, t, bool(quasi_random))
    return out
