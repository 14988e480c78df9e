# cython: language_level=3
"""The rollout hash's dice, compiled: a batch of rolls, each game's at each turn.

Private module of the core (fastgen.core.hashing.roll_dice calls it). It cimports only
the rollout hash (_dice.pxd, inline C), so the rolls are the numbers the compiled game
loops draw for the games they play themselves.
"""

from libc.stdint cimport int8_t, int64_t, uint8_t, uint64_t

from fastgen.core._dice cimport PURPOSE_DICE, PURPOSE_OPENING, purpose_key, roll_of


def roll_dice(uint64_t seed, const int64_t[::1] gid, const int64_t[::1] turn, const uint8_t[::1] opening,
              const int8_t[:, ::1] opening_rolls, int8_t[:, ::1] out):
    """out[j] = the roll of game gid[j] at turn turn[j], from the same hash as the native
    rollouts: an opening roll (one of opening_rolls) where opening[j], else one of 36."""
    cdef uint64_t kd = purpose_key(seed, PURPOSE_DICE)
    cdef uint64_t ko = purpose_key(seed, PURPOSE_OPENING)
    cdef Py_ssize_t j, n = gid.shape[0]
    with nogil:
        for j in range(n):
            roll_of(&out[j, 0], kd, ko, <uint64_t> gid[j], <uint64_t> turn[j], opening[j], &opening_rolls[0, 0])
