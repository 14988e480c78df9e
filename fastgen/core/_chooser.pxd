# The ABI of a native policy (bodies in _chooser.pyx): how an extension hands the game
# loops of another a policy of its own, with no Python a turn. The core's vocabulary, so
# every floor above can speak it: the network's greedy play is made in
# fastgen/nets/_forward.pyx (NetChooser) and played by the game loops of
# fastgen/sim/_play.pyx, neither importing the other.

from libc.stdint cimport int8_t, uint64_t

# A policy's choice for one turn: the index (0..k-1) of its play among the k candidates
# `cands` (the generator's plays of `board`, side on roll in row 1, with dice d1, d2; each
# a (2, 25) board, the mover in row 1), or -1 when it cannot choose (out of memory).
ctypedef int (*choose_fn)(void* state, const int8_t* board, int d1, int d2, const int8_t* cands, int k,
                          uint64_t game, uint64_t turn) noexcept nogil

cdef class Chooser:
    # A policy the game loops call without the GIL: fn(state, ...). One chooser is used by
    # one thread at a time (its state may hold scratch memory); the extension that makes
    # it owns the state.
    cdef choose_fn fn
    cdef void* state
