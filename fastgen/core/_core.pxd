# Declarations of the nogil move-generation engine (bodies in _core.pyx), cimported by
# the extensions built on it: the game loops (fastgen/sim/_play.pyx), pubeval, the bear-off
# builders (fastgen/bearoff/_build.pyx) and the RL kernel (fastgen/envs/_kernel.pyx).
#
# A generation context owns a working board, the dedup table and growable output
# buffers. One context is used by one thread at a time.

from libc.stdint cimport int8_t, int64_t, uint32_t, uint64_t

cdef enum:
    BOARD_BYTES = 50     # one (2, 25) int8 board
    MOVE_BYTES = 8       # one (4, 2) int8 move list
    OWN = 25             # offset of the mover's row in a flat board
    HASH_BITS = 11       # dedup table of 2048 slots: a non-double has at most 25 x 25
                         # two-step sequences per die order plus 50 single steps (< 1,300),
                         # so the table never fills and a probe always ends

ctypedef struct Slot:    # one entry of the dedup table
    uint64_t ka
    uint64_t kb
    uint64_t stamp       # live when equal to the context's stamp: no clearing

ctypedef struct Ctx:
    int8_t b[50]         # working board, flat (2, 25): b[0:25] opponent, b[25:50] mover
    int outside          # mover's checkers not in its home board (indices 6..24)
    uint32_t occ         # bit i: the mover has a checker on index i (bit 24: bar)
    uint32_t blocked     # bit i: my index i holds 2+ opponent checkers (fixed for a turn)
    uint32_t blots       # bit i: my index i holds exactly one opponent checker at the start
    uint64_t ka          # exact key of the working position: mover's counts at 0..15 ...
    uint64_t kb          # ... counts at 16..24, then one bit per hit point (bits 36..59)
    int8_t path[8]       # steps of the current sequence, (from, to) as point numbers
    int best             # most dice used by a sequence found in this generation
    int dedup            # 1: look results up in the table (non-doubles); 0: doubles
    int count_only       # 1: count plays, write nothing
    int fixed            # 1: the output buffers are borrowed and must not grow
    int tables           # 1: count bear-offs by table (set by Counter once they are filled)
    Slot* table          # 2**HASH_BITS slots
    uint64_t stamp
    int8_t* boards       # output, `cap` plays
    int8_t* moves
    int64_t n            # plays written so far (all generations of a batch)
    int64_t cap
    int64_t base         # first play of the current generation

cdef class StopFlag:
    # Asks the loops of one call to stop (set from any thread, polled with _platform.h's
    # fg_stopped between positions or turns).
    cdef int flag

cdef Ctx* ctx_new(int count_only, int64_t cap) noexcept nogil
cdef void ctx_free(Ctx* c) noexcept nogil
cdef int generate(Ctx* c, const int8_t* board, int d1, int d2) noexcept nogil

# A board check and the counting batch (bodies in _validate.pxi, _count.pxi): for the
# pubeval batch (fastgen/players/_pubeval.pyx) and perft's last level
# (fastgen/search/_perft.pyx).
cdef int board_check(const int8_t* b) noexcept nogil
cdef Ctx* counting_ctx() except NULL
cdef Py_ssize_t count_range(Ctx* c, const int8_t* boards, const int8_t* dice, int own_dice, Py_ssize_t nrolls,
                            int64_t* out, Py_ssize_t lo, Py_ssize_t hi, const int* stop) noexcept nogil

# The end of a game (R17), inline: every turn of the game loops (sim/_play.pyx) asks it,
# and game_value below is it for the RL kernel.
cdef inline int8_t win_of(const int8_t* b) noexcept nogil:
    """0 while the side that just moved (row OWN of b) has checkers left, else its win
    (R17): 1 single, 2 gammon (the loser has borne off none), 3 backgammon (and still has
    one on the bar or in the winner's home board, the loser's indices 18..24)."""
    cdef int i, left = 0, loser = 0
    for i in range(25):
        left |= b[OWN + i]
    if left:
        return 0
    for i in range(25):
        loser += b[i]
    if loser < 15:
        return 1
    for i in range(18, 25):
        if b[i]:
            return 3
    return 2


# The rules one step at a time, for extensions outside the search (the RL environments'
# kernel): bodies in _rules.pxi.
cdef uint32_t playable_steps(Ctx* c, const int8_t* board, int d, int more, int w) noexcept nogil
cdef void play_step(int8_t* board, int f, int d) noexcept nogil
cdef int game_value(const int8_t* board) noexcept nogil
