"""The counter-based hash (splitmix64) behind every random number of rollouts and duels.

A game's dice and random choices are a pure function of ``(seed, game, turn, purpose)``,
so game ``i`` is the same game whatever the batch size, the threads or the order games
finish in. The core computes the same hash for the dice it rolls (``_core.roll_dice``);
this is its numpy twin, used by the random policy and the dice of rollouts that decide.
"""

from __future__ import annotations

import numpy as np

__all__ = ["game_hash", "uniform_index", "PURPOSE_DICE", "PURPOSE_OPENING", "PURPOSE_CHOICE"]

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_U64_GAMMA = np.uint64(_GAMMA)
_S30, _S27, _S31, _S32 = (np.uint64(s) for s in (30, 27, 31, 32))

#: Purposes of the counter-based hash.
PURPOSE_DICE, PURPOSE_OPENING, PURPOSE_CHOICE = 1, 2, 3


def _mix(z: np.ndarray) -> np.ndarray:
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
    z = _mix(key + g * _U64_GAMMA)
    return _mix(z + (t + np.uint64(1)) * _U64_GAMMA)


def uniform_index(h: np.ndarray, n) -> np.ndarray:
    """Map 64-bit hashes to 0..n-1 (n < 2**32) from the high 32 bits, nearly unbiased."""
    return ((h >> _S32) * np.asarray(n, dtype=np.uint64)) >> _S32
