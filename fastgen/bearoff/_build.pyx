# Bear-off database builders (fastgen.bearoff): the one-sided roll distributions and the
# two-sided equities of GNU Backgammon's .bd files, computed from fastgen's own move
# generation (fastgen.core._core.generate), without the GIL.
#
# Positions of up to C checkers on P points are numbered as gnubg numbers them (see
# fastgen/bearoff/index.py): by number of checkers, then in descending lexicographic order
# of (count on point 1, ..., count on point P). A play only moves checkers down or off, so
# every child of a position has a smaller number: one pass in index order suffices for the
# one-sided database, and "shells" of max(player, opponent) for the two-sided one.
#
# The arithmetic is integer and reproduces gnubg's files bit for bit (docs/guides/bearoff.rst):
# - one-sided: each probability is an integer in 1/65535; a position's distribution is
#   sum over the 21 rolls of weight (1 or 2) x the chosen child's stored distribution,
#   shifted by one roll, divided by 36 and rounded half up; the largest entry then takes
#   whatever makes the total exactly 65535. The play chosen is the child with the smallest
#   mean (sum k x p_k of the stored values), the first in generation order on a tie; the
#   first-checker ("gammon") distribution chooses its own child by its own mean.
# - two-sided: a stored value q encodes an equity e = q / 32767.5 - 1 rounded towards
#   32768 (floor at or above, ceiling below). Sums run in units of 1/131070, where a no-
#   double equity is 4q - 131070 and a doubled one 2 (4q - 131071), a pass (+1) once
#   q >= 49151. The four values of a pair are cubeless, cube owned by the side on roll,
#   centred, owned by the opponent, all "no double" equities normalised to the cube.

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, malloc, realloc, free
from libc.string cimport memcpy, memmove, memset

import numpy as np

from fastgen.errors import InvalidArgumentError

from fastgen.core._core cimport Ctx, ctx_new, ctx_free, generate

cdef extern from "_platform.h":
    int fg_stopped(const int* flag) nogil
    void fg_request_stop(int* flag) nogil

cdef enum:
    MAXP = 15          # points, the most a board's home side can hold for a build
    NDIST = 32         # entries of a one-sided distribution (rolls 0..31), as gnubg stores
    U = 131070         # two-sided sums: 1.0 in these units

cdef int ROLL_A[21]
cdef int ROLL_B[21]
cdef int ROLL_W[21]
cdef int ROLL_I[21]     # the roll's place among the rolls of its kind (doubles, non-doubles)
cdef int64_t BINOM[64][MAXP + 2]     # BINOM[n][k] = n choose k, n < 64, k <= MAXP + 1
cdef int64_t SUFFIX[MAXP + 1][16]    # see rank_of
cdef int64_t LEVEL[MAXP + 1][16]


cdef void _init_tables() noexcept:
    cdef int a, b, r = 0, n, k
    for a in range(1, 7):
        for b in range(1, a + 1):
            ROLL_A[r] = a
            ROLL_B[r] = b
            ROLL_W[r] = 1 if a == b else 2
            ROLL_I[r] = a - 1 if a == b else r - a + 1   # doubles 0..5; non-doubles 0..14 in order
            r += 1
    for n in range(64):
        for k in range(MAXP + 2):
            if k == 0:
                BINOM[n][k] = 1
            elif n == 0:
                BINOM[n][k] = 0
            else:
                BINOM[n][k] = BINOM[n - 1][k - 1] + BINOM[n - 1][k]
    for k in range(MAXP + 1):
        for n in range(16):
            SUFFIX[k][n] = BINOM[n - 1 + k][k] if n > 0 else 0
            LEVEL[k][n] = BINOM[n - 1 + k][k] if n > 0 else 0


_init_tables()


cdef class BuildStop:
    """Asks a running build to stop; set from any thread (see fastgen._util.run_threads)."""
    cdef int flag

    def set(self):
        """Ask the build loops reading this flag to stop."""
        fg_request_stop(&self.flag)

    def is_set(self):
        """True once set() was called."""
        return fg_stopped(&self.flag) != 0


cdef inline int64_t rank_of(const int8_t* a, int P) noexcept nogil:
    """gnubg's number of the position a[0..P-1] (checkers on points 1..P).

    With s_j = a[j] + ... + a[P-1] (the checkers on points above j) and n = s_0, the number
    is C(n - 1 + P, P) (the positions of fewer checkers) plus, for j = 1..P-1, C(s_j - 1 +
    P - j, P - j) when s_j > 0 (those of n checkers with more on point j, the same above).
    SUFFIX[k][s] holds C(s - 1 + k, k) (0 for s = 0) and LEVEL[P][n] = C(n - 1 + P, P)."""
    cdef int j, s = 0
    cdef int64_t idx = 0
    for j in range(P - 1, 0, -1):
        s += a[j]
        idx += SUFFIX[P - j][s]
    return idx + LEVEL[P][s + a[0]]


cdef inline int next_position(int8_t* a, int P) noexcept nogil:
    """Step a[0..P-1] to the next position in gnubg's order (the total may grow by one)."""
    cdef int j = P - 2, i, rest, n
    while j >= 0 and a[j] == 0:
        j -= 1
    if j < 0:   # (0, ..., 0, n): the first position of n + 1 checkers
        n = a[P - 1] + 1
        for i in range(P):
            a[i] = 0
        a[0] = n
        return 0
    rest = 0
    for i in range(j + 1, P):
        rest += a[i]
        a[i] = 0
    a[j] -= 1
    a[j + 1] = rest + 1
    return 0


def rank_positions(const int8_t[:, ::1] a):
    """gnubg's numbers of the rows of a (N, P) int8 array of checker counts (checked by the caller)."""
    cdef Py_ssize_t i, N = a.shape[0]
    cdef int P = a.shape[1]
    out = np.empty(N, dtype=np.int64)
    cdef int64_t[::1] o = out
    with nogil:
        for i in range(N):
            o[i] = rank_of(&a[i, 0], P)
    return out


# The jobs, one file each, in this order (each uses the ones before):
include "_children.pxi"    # the plays of a position: the core's generate(), cached by pattern
include "_one_sided.pxi"   # the one-sided builder (compressed layout) and its expansion
include "_two_sided.pxi"   # the two-sided builder
include "_evaluate.pxi"    # reading: side numbers of boards, one-sided outputs of pairs
include "_verify.pxi"      # checking a file as it is opened: the first bad position
include "_first.pxi"       # the first-checker distributions of gnubg-nn's bear-off gammons
