# cython: language_level=3
"""The rollout hash, compiled: a batch of rolls, each game's at each turn, and the
uniform-random choice as a native policy.

Private module of the core (fastgen.core.hashing.roll_dice calls it). It cimports the
rollout hash (_dice.pxd, inline C), so the rolls are the numbers the compiled game
loops draw for the games they play themselves, and the native policy's ABI
(_chooser.pxd): :class:`RandomChooser` is the random policy's choice as the game loops
call it, the same index the Python policy draws from the hash of (seed, game, turn).
"""

from libc.stdint cimport int8_t, int64_t, uint8_t, uint64_t

from fastgen.core._chooser cimport Chooser
from fastgen.core._dice cimport (
    PURPOSE_CHOICE, PURPOSE_DICE, PURPOSE_OPENING, game_hash, purpose_key, roll_of, uniform_index,
)


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


cdef int random_choose(void* state, const int8_t* board, int d1, int d2, const int8_t* cands, int k,
                       uint64_t game, uint64_t turn) noexcept nogil:
    """One of the k plays, uniformly, from the hash of (seed, game, turn) (state: the
    seed's choice key)."""
    return <int> uniform_index(game_hash((<uint64_t*> state)[0], game, turn), <uint64_t> k)


cdef class RandomChooser(Chooser):
    """The random policy's choice for the game loops, for the games of *seed*. It keeps
    no scratch memory: any number of threads may share it."""

    cdef uint64_t key

    def __cinit__(self, uint64_t seed):
        self.key = purpose_key(seed, PURPOSE_CHOICE)
        self.fn = random_choose
        self.state = &self.key
