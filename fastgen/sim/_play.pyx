# cython: language_level=3
"""The compiled game loops of the simulations: whole games, the rollout pool's turn, duels.

Private module, an extension of its own built on the move generator: it cimports the
generator's declarations (fastgen/core/_core.pxd: the context, generate(), the stop
flag), the rollout hash (fastgen/core/_dice.pxd), a native policy's ABI
(fastgen/core/_chooser.pxd) and pubeval's choice (fastgen/players/_pubeval.pxd), so every
play it makes comes from the one generator, called once per turn through Cython's table
of the core's C functions, and pubeval and a compiled network play with no Python a turn.
The Python layers (fastgen.sim.rollout, fastgen.sim.duel) check the inputs; everything
here trusts them and runs without the GIL.

Files
-----
Its source is cut by job into files included here (one extension, so the C compiler
inlines across them):

* _games.pxi: whole games (native rollouts, the rollout pool's turn).
* _duel.pxi: duels, two built-in policies in one game loop (fastgen.sim.duel.front).
"""

from libc.stdint cimport int8_t, int32_t, int64_t, uint64_t
from libc.string cimport memcpy

from fastgen.core._core cimport BOARD_BYTES, OWN, Ctx, StopFlag, ctx_new, ctx_free, generate, win_of
from fastgen.core._dice cimport (
    PURPOSE_DICE, PURPOSE_OPENING, PURPOSE_CHOICE, game_hash, uniform_index, purpose_key, roll_of,
)
from fastgen.core._chooser cimport Chooser, choose_fn
from fastgen.players._pubeval cimport pub_choose

cdef extern from "_platform.h":
    int fg_stopped(const int* flag) noexcept nogil   # the stop flag's poll (see _platform.h)


cdef int _never = 0      # the flag of calls made without a StopFlag: never set


cdef inline const int* flag_of(StopFlag stop):
    return &_never if stop is None else &stop.flag


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
include "_duel.pxi"
