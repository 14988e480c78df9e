# cython: language_level=3
"""The compiled game loops of the simulations: whole games (rollouts and duels), and the
batched Python loop's turn.

Private module, an extension of its own built on the move generator: it cimports the
generator's declarations (fastgen/core/_core.pxd: the context, generate(), the stop
flag), the rollout hash (fastgen/core/_dice.pxd), a native policy's ABI
(fastgen/core/_chooser.pxd) and the one game loop (fastgen/sim/_loop.pxd), so every play
it makes comes from the one generator, called once per turn through Cython's table of
the core's C functions, and the random policy, pubeval and a compiled network play with
no Python a turn. The Python layers
(fastgen.sim.rollout, fastgen.sim.duel) check the inputs; everything here trusts them
and runs without the GIL.

Files
-----
Its source is cut by job into files included here (one extension, so the C compiler
inlines across them):

* _games.pxi: whole games, a range a call, over the one game loop (rollouts, duels).
* _pool.pxi: the batched Python loop's turn (fastgen.sim.pool).
"""

from libc.stdint cimport int8_t, int32_t, int64_t, uint64_t
from libc.string cimport memcpy

from fastgen.core._core cimport BOARD_BYTES, OWN, Ctx, StopFlag, ctx_new, ctx_free, win_of
from fastgen.core._dice cimport PURPOSE_DICE, PURPOSE_OPENING, purpose_key, roll_of
from fastgen.core._chooser cimport Chooser, choose_fn
from fastgen.sim._loop cimport Keys, Outcome, Seat, keys_of, play_game


cdef int _never = 0      # the flag of calls made without a StopFlag: never set


cdef inline const int* flag_of(StopFlag stop):
    return &_never if stop is None else &stop.flag


include "_games.pxi"
include "_pool.pxi"
