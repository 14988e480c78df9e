# The rollout hash, inline: each game's dice and random choices are a counter-based hash
# (splitmix64) of the seed, the game, the turn and a purpose, so games are the same in
# any order, batch or thread. fastgen.core.hashing computes the same in numpy. Cimported
# by the game loops (fastgen/sim/_play.pyx), its dice (_roll.pyx), perft and self-play.

from libc.stdint cimport int8_t, uint64_t

cdef enum:
    PURPOSE_DICE = 1
    PURPOSE_OPENING = 2
    PURPOSE_CHOICE = 3

cdef extern from *:
    """
    #define FG_GOLDEN 0x9E3779B97F4A7C15ULL
    """
    const uint64_t GOLDEN "FG_GOLDEN"


cdef inline uint64_t mix64(uint64_t z) noexcept nogil:
    z = (z ^ (z >> 30)) * <uint64_t> 0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t> 0x94D049BB133111EB
    return z ^ (z >> 31)


cdef inline uint64_t game_hash(uint64_t key, uint64_t game, uint64_t turn) noexcept nogil:
    return mix64(mix64(key + game * GOLDEN) + (turn + 1) * GOLDEN)


cdef inline uint64_t uniform_index(uint64_t h, uint64_t n) noexcept nogil:
    return ((h >> 32) * n) >> 32


cdef inline uint64_t purpose_key(uint64_t seed, uint64_t purpose) noexcept nogil:
    """The per-(seed, purpose) constant of the hash (fastgen.sim.rollout.front computes the same)."""
    return mix64(mix64(seed * GOLDEN + purpose) + GOLDEN)


cdef inline void roll_of(int8_t* out, uint64_t kd, uint64_t ko, uint64_t game, uint64_t turn,
                         bint opening, const int8_t* opening_rolls) noexcept nogil:
    """out[0], out[1] = the roll of *game* at *turn*: an opening roll (R16: one of the 15
    pairs in opening_rolls, uniform) when *opening*, else one of 36 (kd, ko: the
    purpose_keys of the dice and of the opening)."""
    cdef uint64_t idx
    if opening:
        idx = uniform_index(game_hash(ko, game, turn), 15)
        out[0] = opening_rolls[2 * idx]
        out[1] = opening_rolls[2 * idx + 1]
    else:
        idx = uniform_index(game_hash(kd, game, turn), 36)
        out[0] = <int8_t> (idx // 6 + 1)
        out[1] = <int8_t> (idx % 6 + 1)
