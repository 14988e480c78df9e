"""The counter-based hash behind every simulation's dice and random choices.

Each game's (or trial's) dice and random choices come from a hash (splitmix64) of
``(seed, game index, turn, purpose)``, never from a shared sequential stream, so game
``i`` is the same game whatever the batch size, the threads, the chunking or the order
games finish in. :func:`fastgen.rollout`, :func:`fastgen.duel` and the rollouts that
decide (:func:`fastgen.sim.rollout_dice`) all draw from this one hash; the compiled core
computes the same numbers for the games it plays itself (:func:`roll_dice` draws them in
compiled code too, ``fastgen.core._roll``).

>>> g = np.arange(4)
>>> bool((game_hash(1, g, np.zeros(4), PURPOSE_DICE) == game_hash(1, g, np.zeros(4), PURPOSE_DICE)).all())
True
"""

from __future__ import annotations

import numpy as np

from fastgen.core import _roll
from fastgen.core.boards import OPENING_ROLLS

__all__ = [
    "game_hash", "mix", "uniform_index", "roll_dice", "OPENING_DICE",
    "PURPOSE_DICE", "PURPOSE_OPENING", "PURPOSE_CHOICE",
]

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_U64_GAMMA = np.uint64(_GAMMA)
_S30, _S27, _S31, _S32 = (np.uint64(s) for s in (30, 27, 31, 32))

#: Purposes of the hash: a roll, an opening roll, a random choice of play. (The rollouts
#: that decide add their own for the quasi-random permutations.)
PURPOSE_DICE, PURPOSE_OPENING, PURPOSE_CHOICE = 1, 2, 3

#: The 15 opening rolls (R16), larger die first: (15, 2) int8.
OPENING_DICE = np.array(OPENING_ROLLS, dtype=np.int8)


def mix(z: np.ndarray) -> np.ndarray:
    """The splitmix64 finalizer on a uint64 array (wrapping arithmetic)."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


def _mix_int(x: int) -> int:
    """The splitmix64 finalizer on a Python int (for per-call constants)."""
    x &= _MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    return x ^ (x >> 31)


def game_hash(seed: int, games, turns, purpose: int) -> np.ndarray:
    """64-bit hash of ``(seed, game, turn, purpose)`` for arrays of games and turns.

    >>> int(game_hash(1, np.array([0]), np.array([0]), 1)[0]) == int(game_hash(1, np.array([0]), np.array([0]), 1)[0])
    True
    """
    key = np.uint64(_mix_int(_mix_int(seed * _GAMMA + purpose) + _GAMMA))
    g = np.asarray(games).astype(np.uint64)
    t = np.asarray(turns).astype(np.uint64)
    z = mix(key + g * _U64_GAMMA)
    return mix(z + (t + np.uint64(1)) * _U64_GAMMA)


def uniform_index(h: np.ndarray, n) -> np.ndarray:
    """Map 64-bit hashes to 0..n-1 (n < 2**32) from the high 32 bits, nearly unbiased."""
    return ((h >> _S32) * np.asarray(n, dtype=np.uint64)) >> _S32


def roll_dice(seed: int, gid: np.ndarray, turn: np.ndarray, opening: np.ndarray) -> np.ndarray:
    """(A, 2) int8 dice: a uniform roll of 36, or an opening roll (R16) where *opening*
    (each side rolls one die, ties re-rolled, the higher starts with both: the first play
    is uniform over the 15 non-double rolls). The hash is game_hash's, computed in the
    core (the same numbers as ``uniform_index(game_hash(...), 36)``)."""
    dice = np.empty((gid.shape[0], 2), dtype=np.int8)
    _roll.roll_dice(
        seed,
        np.ascontiguousarray(gid, dtype=np.int64),
        np.ascontiguousarray(turn, dtype=np.int64),
        np.ascontiguousarray(opening, dtype=np.uint8),
        OPENING_DICE,
        dice,
    )
    return dice
