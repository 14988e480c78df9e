# Declarations of pubeval's compiled choice (bodies in _pubeval.pyx) for the extensions
# that play it in their own loops: the game loops of fastgen/sim/_play.pyx (rollouts and
# duels with pubeval play it every turn, with no Python a turn).

from libc.stdint cimport int8_t

# Index (0..k-1) of pubeval's choice among the k candidates `cands` (positions after the
# move, the generator's plays of `board` with dice d0, d1 in that order, each a (2, 25)
# board, the mover in row 1), as GNU Backgammon's pubeval player chooses. k >= 1.
cdef int pub_choose(const int8_t* board, int d0, int d1, const int8_t* cands, int k) noexcept nogil
