# cython: language_level=3
"""Network input encoders: the nogil loops behind fastgen.core.features.encode; and
``row_measures``, each side's checkers left, rearmost checker and checkers far back,
which the game results and the cube's position classes read; ``first_equal``, the
first of equal boards, which lets an evaluator value each distinct position once.

Private module. fastgen.core.features validates the boards once (fastgen.core.boards); the loops
(in _features.h, plain C) trust them: every count is in 0..15 and a side's counts sum to
at most 15, so a count indexes the 16-row tables directly.

Each output row is one board seen from its side on roll ("the mover"): row 1 of a
(2, 25) board, or row 0 when ``swap`` is set (the view of the side to roll next after
a play, whose resulting board keeps the mover in row 1). The layouts are specified in
fastgen/features.py.
"""

from libc.stdint cimport int8_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport calloc, free

import numpy as np

cdef extern from "_board_hash.h":
    uint64_t fg_board_slot(const int64_t* table, uint64_t mask, const int8_t* base, const int8_t* p) noexcept nogil

cdef extern from "_features.h":
    void fg_init_tables() noexcept nogil
    int fg_select_kernels(int best) noexcept nogil
    void fg_encode_range(const int8_t* boards, int scheme, int swap, float* out,
                         int64_t width, int64_t lo, int64_t hi) noexcept nogil

fg_init_tables()


def select_kernels(bint best=True):
    """Use the fastest row kernels this CPU supports (AVX2 on x86-64), or with
    ``best=False`` the portable C ones (the tests compare both). Returns True when the
    AVX2 kernels are in use. Not thread-safe: call it while nothing is encoding."""
    return bool(fg_select_kernels(best))


def encode_range(const int8_t[:, :, ::1] boards, int scheme, bint swap,
                 float[:, ::1] out, Py_ssize_t lo, Py_ssize_t hi):
    """Write the features of boards lo..hi-1 into out[lo..hi-1] without the GIL.

    scheme: 0 tesauro198 (198 columns), 1 raw (52 columns), 2 contact (22 columns); the caller checks the
    shapes (boards and out have the same number of rows, out the scheme's width).
    """
    if hi <= lo:
        return
    with nogil:
        fg_encode_range(&boards[0, 0, 0], scheme, swap, &out[0, 0], out.shape[1], lo, hi)


def row_measures(const int8_t[:, :, ::1] boards):
    """(N, 2, 3) uint8: for each (2, 25) board (checked by the caller) and each of its
    rows, in the row's own numbering: its checkers on the board (bar included), its
    rearmost checker's point (1..24, 25 for the bar, 0 when none is left) and its
    checkers on its points 19..24 and the bar (where a backgammon is lost)."""
    cdef Py_ssize_t i, n = boards.shape[0]
    cdef int s, k, total, far
    cdef const int8_t* p
    out = np.zeros((n, 2, 3), dtype=np.uint8)
    if n == 0:
        return out
    cdef uint8_t[:, :, ::1] o = out
    with nogil:
        for i in range(n):
            for s in range(2):
                p = &boards[i, s, 0]
                total = 0
                for k in range(25):  # plain sums, which the compiler vectorises
                    total += p[k]
                far = 0
                for k in range(18, 25):
                    far += p[k]
                k = 24
                while k >= 0 and p[k] == 0:
                    k -= 1
                o[i, s, 0] = <uint8_t> total
                o[i, s, 1] = <uint8_t> (k + 1)
                o[i, s, 2] = <uint8_t> far
    return out


def first_equal(const int8_t[:, :, ::1] boards):
    """(N,) int64: for each (2, 25) board, the index of the first board equal to it, byte
    for byte (its own index when none comes before). One pass over a hash table of
    twice the boards (their indices), without the GIL."""
    cdef Py_ssize_t i, n = boards.shape[0]
    out = np.arange(n, dtype=np.int64)
    if n < 2:
        return out
    cdef int64_t[::1] o = out
    cdef Py_ssize_t size = 1
    while size < 2 * n:
        size <<= 1
    cdef int64_t* table = <int64_t*> calloc(size, sizeof(int64_t))  # index + 1; 0: empty
    if table == NULL:
        raise MemoryError()
    cdef uint64_t mask = <uint64_t> (size - 1), j
    with nogil:
        for i in range(n):
            j = fg_board_slot(table, mask, &boards[0, 0, 0], &boards[i, 0, 0])
            if table[j]:
                o[i] = table[j] - 1
            else:
                table[j] = i + 1
    free(table)
    return out
