# cython: language_level=3
"""The compiled simulation and policy loops: whole games, duels, perft's steps, pubeval.

Private module, an extension of its own built on the move generator: it cimports the
generator's declarations (fastgen/core/_core.pxd: the context, generate(), the counting
batch, the stop flag), the shared bit helpers (_bits.pxd) and the rollout hash
(_dice.pxd), so every play it makes comes from the one generator, called once per turn (or position) through Cython's table
of the core's C functions. The Python layers (fastgen.sim.rollout, fastgen.sim.duel,
fastgen.perft, fastgen.players.pubeval) check the inputs; everything here trusts them and runs
without the GIL.

Files
-----
Its source is cut by job into files included here (one extension, so the C compiler
inlines across them):

* _games.pxi: whole games (native rollouts, the rollout pool's turn, the rollout hash).
* _perft.pxi: perft's merge of a level and its last level (count_rolls).
* _pubeval.pxi: pubeval, choosing as GNU Backgammon's pubeval player does; Tesauro's
  published weights are compiled in and its tables filled when this module loads.
* _duel.pxi: duels, two built-in policies in one game loop (fastgen.sim.duel.front).
"""

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memcmp, memcpy, memset

from fastgen.core._core cimport (
    BOARD_BYTES, OWN, Ctx, StopFlag, ctx_new, ctx_free, generate, board_check, counting_ctx, count_range, win_of,
)
from fastgen.core._bits cimport fg_load8, fg_rev8, fg_nonzero8, fg_bytesum8
from fastgen.core._dice cimport (
    PURPOSE_DICE, PURPOSE_OPENING, PURPOSE_CHOICE, mix64, game_hash, uniform_index, purpose_key, roll_of,
)

cdef extern from "_platform.h":
    int fg_stopped(const int* flag) noexcept nogil   # the stop flag's poll (see _platform.h)


cdef int _never = 0      # the flag of calls made without a StopFlag: never set


cdef inline const int* flag_of(StopFlag stop):
    return &_never if stop is None else &stop.flag


cdef class Chooser:
    """A policy of another extension for the game loops (see _play.pxd): a C function and
    its state, set by that extension (fastgen.nets: a compiled network's greedy play)."""

    def __cinit__(self, *args, **kwargs):  # a subclass's arguments are its own
        self.fn = NULL
        self.state = NULL


cdef inline int ext_choose(choose_fn fn, void* state, const int8_t* board, int d1, int d2, const int8_t* cands,
                           int k, uint64_t game, uint64_t turn) noexcept nogil:
    """The choice of a chooser's function, -1 when it failed or is out of range."""
    cdef int j = fn(state, board, d1, d2, cands, k, game, turn)
    return j if 0 <= j < k else -1


cdef inline choose_fn fn_of(Chooser ch):
    return NULL if ch is None else ch.fn


cdef inline void* state_of(Chooser ch):
    return NULL if ch is None else ch.state


include "_games.pxi"
include "_perft.pxi"
include "_pubeval.pxi"
include "_duel.pxi"
