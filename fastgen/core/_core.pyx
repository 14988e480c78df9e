# cython: language_level=3
"""The compiled move generator: every legal play of a position and roll (R5-R14).

Private module. The public layer (fastgen.core.generate) validates inputs once; everything
here trusts them and runs without the GIL over raw int8 buffers.

How the search works
--------------------
* The working board is a flat (2, 25) int8 array; a step edits it in place and is undone
  on the way back, so no board is copied until a play is written out.
* Each position carries an exact 124-bit key (mover's counts in 4-bit nibbles plus one bit
  per point where a blot was hit). The opponent's row only changes by hits, so the key
  identifies the resulting position exactly; the dedup table compares keys, never boards.
* Sources are bit masks: the occupied points, minus those whose landing point is blocked
  (fixed for the turn), plus the bear-off candidates.
* Doubles: steps are taken from non-increasing source points. Any legal sequence of one
  die value stays legal when reordered that way (bar first, higher checkers home before
  bearing off), and for one die value distinct multisets of sources give distinct
  positions, so every play is produced exactly once and needs no dedup at all. The
  search moves only the mover's checkers; hits are applied when a play is written, from
  the mask of blots. Counting runs the same search on the mover's counts alone.
* Non-doubles: larger die first, then smaller (order 1), then the reverse (order 2).
  Once a two-dice play is known, order 2 only tries what order 1 cannot have produced:
  the checker that just moved moving on, bear-offs, and bar cases. Pairs of on-board
  steps that cannot be reached another way skip the dedup table; counting works first
  steps out from the masks and keys without moving, and counts a bear-off with no
  opposing checker in the way by table (BO_COUNT, BO_DCOUNT).
* Output: plays are written once, into buffers that become the numpy arrays (see the
  sections on batches below).
* Maximum dice (R11-R13): a leaf using more dice than any before drops what was written
  for this generation; leaves using fewer are never written. With one die playable, the
  larger die's plays come first and the smaller die's are then skipped (R13).

Files
-----
One extension, its source cut by job into files included here (so the C compiler still
inlines across them): this file holds the imports, the stop flag and one generation
(generate); _core.pxd the context (Ctx), the stop flag and the functions other extensions
cimport (the game loops, pubeval, perft's steps, the bear-off builders, the RL kernel).

* _bits.pxd: bit and word helpers (C inline functions, cimported: shared with pubeval,
  the .mat scanner and the RL kernel).
* _ctx.pxi: the context and its output buffers, one step, the leaves (dedup, admission).
* _doubles.pxi, _nondoubles.pxi: writing the plays of a double, of a non-double.
* _count.pxi: counting without writing (closed forms, bear-off tables), Counter.
* _validate.pxi: board and dice checks (R4).
* _batch.pxi: single-position calls, batch parts and their merge, two-thread batches.
* _rules.pxi: single steps and the game value for other extensions (the RL kernel).

Whole games (native rollouts, the rollout pool, duels) are fastgen.sim._play's, pubeval
fastgen.players._pubeval's, perft's merges fastgen.search._perft's: each calls
generate() (or the counting batch) through _core.pxd.
"""

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t, uintptr_t
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memcmp, memcpy, memset

cimport cython
from cython.view cimport array as cvarray

import numpy as np
cimport numpy as cnp

cnp.import_array()

cdef extern from "_platform.h":
    # Platform calls, each guarded with a portable fallback (see _platform.h).
    void* fg_reserve(size_t nbytes) noexcept nogil
    void fg_unreserve(void* p, size_t nbytes) noexcept nogil
    void fg_advise_huge(void* p, size_t nbytes) noexcept nogil
    void fg_discard(void* p, size_t nbytes) noexcept nogil
    int fg_stopped(const int* flag) noexcept nogil
    void fg_request_stop(int* flag) noexcept nogil
    int FG_USES_MMAP

cdef extern from "assert.h":
    void c_assert "assert"(bint condition) noexcept nogil

from fastgen.core._bits cimport (
    BAR_BIT, POINTS, fg_highest, fg_step_word, fg_put_moves, fg_popcount, fg_popcount24, fg_load8, fg_rev8,
    fg_nonzero8, fg_atleast2_8, fg_atleast3_8, fg_atleast16_8, fg_nibbles8, fg_bytesum8,
)


# ---------------------------------------------------------------- stopping long calls
#
# Long calls run in worker threads while the calling thread waits, handling signals
# (fastgen._util.run_threads); on Ctrl-C it sets the call's StopFlag, which every nogil
# loop below polls between positions (generation) or turns (rollouts), so the workers
# return within one position or turn.

cdef class StopFlag:
    """Asks the core loops of one call to stop; set from any thread (its flag is declared
    in _core.pxd, so the game loops of fastgen.sim._play and others read it too)."""

    def set(self):
        """Ask the loops reading this flag to stop."""
        fg_request_stop(&self.flag)

    def is_set(self):
        """True once set() was called."""
        return fg_stopped(&self.flag) != 0


cdef int _never = 0      # the flag of calls made without a StopFlag: never set


cdef inline const int* flag_of(StopFlag stop):
    return &_never if stop is None else &stop.flag


# The order of these includes is the order of the C functions, which sways GCC's inlining:
# counting before the non-doubles keeps generate() as fast as before the split (measured
# with bench/callgrind.sh; the other order cost 1-1.5% more instructions).
include "_ctx.pxi"
include "_doubles.pxi"
include "_count.pxi"
include "_nondoubles.pxi"


# ---------------------------------------------------------------- one generation

cdef int generate(Ctx* c, const int8_t* board, int d1, int d2) noexcept nogil:
    """Append the legal plays of `board` with dice d1, d2 to the context's output.

    Returns the number of plays appended (>= 1), or -1 when memory is short.
    """
    cdef int r, best
    cdef int64_t count
    cdef uint64_t o0, o1, o2, p0, p1, p2
    cdef int bar
    memcpy(c.b, board, BOARD_BYTES)
    # Word-at-a-time set-up (the board is valid: every count is 0..15). The words are
    # read from the input, not from the copy just written: a read spanning two of the
    # copy's stores would wait for them to reach the cache (store-forwarding stall).
    o0 = fg_load8(board + OWN)        # mover's indices 0..7
    o1 = fg_load8(board + OWN + 8)    # 8..15
    o2 = fg_load8(board + OWN + 16)   # 16..23
    bar = board[OWN + 24]
    c.occ = fg_nonzero8(o0) | (fg_nonzero8(o1) << 8) | (fg_nonzero8(o2) << 16) | ((bar != 0) << 24)
    c.outside = (fg_bytesum8(o0 & <uint64_t> 0xFFFF000000000000) + fg_bytesum8(o1)
                 + fg_bytesum8(o2) + bar)
    # R6: my index t is blocked when the opponent has 2+ on its index 23 - t; byte
    # reversal puts the opponent's row in my numbering.
    p0 = fg_rev8(fg_load8(board + 16))
    p1 = fg_rev8(fg_load8(board + 8))
    p2 = fg_rev8(fg_load8(board))
    c.blocked = fg_atleast2_8(p0) | (fg_atleast2_8(p1) << 8) | (fg_atleast2_8(p2) << 16)
    c.best = 0
    c.base = c.n
    if (c.count_only and c.outside == 0 and (d1 != d2 or d1 >= 3) and c.occ and c.tables
            and not fg_nonzero8(p0) & ((2u << fg_highest(c.occ)) - 1)):
        # a bear-off with no opposing checker in the way: by table (see BO_COUNT)
        if d1 != d2:
            r = BO_COUNT[bo_roll(d1, d2)][BO_T3[c.occ] + BO_T3[fg_atleast2_8(o0) & 63]]
        else:
            r = BO_DCOUNT[d1 - 3][bo_double_key(board + OWN, d1)]
        c.n = c.base + r
        return r
    if d1 == d2 and c.count_only:
        c.dedup = 0
        count_double(c, d1, &best, &count)
        c.best = best
        c.n = c.base + count
        r = 0
    else:
        # Writing plays also needs the blots and the path (doubles and non-doubles),
        # the keys and the dedup table (non-doubles).
        # R7: blots, points with exactly one opposing checker (occupied and not blocked)
        c.blots = (fg_nonzero8(p0) | (fg_nonzero8(p1) << 8) | (fg_nonzero8(p2) << 16)) & ~c.blocked
        if c.count_only and bar:
            # counting a non-double from the bar (R8): closed form (count_from_bar)
            r = count_from_bar(c.occ & POINTS, bar, c.blocked, c.blots, d1, d2)
            if r:
                c.best = 2
                c.n = c.base + r
                return r
        if c.count_only and not bar and c.outside >= 1:
            # counting a non-double with no bar and no bear-off all turn, or the bear-offs
            # of one checker outside coming home added: closed form
            r = count_simple(c.occ, (fg_nonzero8(o0) & ~fg_atleast2_8(o0)) | ((fg_nonzero8(o1) & ~fg_atleast2_8(o1)) << 8)
                             | ((fg_nonzero8(o2) & ~fg_atleast2_8(o2)) << 16), c.blocked, c.blots,
                             d1 if d1 > d2 else d2, d2 if d1 > d2 else d1)
            if r and c.outside == 1:
                r += count_one_out_bearoffs(c.occ, c.blocked, c.blots, d1 if d1 > d2 else d2, d2 if d1 > d2 else d1)
            if r:
                c.best = 2
                c.n = c.base + r
                return r
        memset(c.path, -1, 8)
        if d1 == d2:
            c.dedup = 0
            r = write_double(c, d1, 0, 24, 0)
            if r < 0:
                return -1
            return <int> (c.n - c.base)
        c.ka = fg_nibbles8(o0) | (fg_nibbles8(o1) << 32)
        c.kb = fg_nibbles8(o2) | ((<uint64_t> bar) << 32)
        new_table(c)
        c.dedup = 1
        r = gen_nondouble(c, d1 if d1 > d2 else d2, d2 if d1 > d2 else d1)
        if r == 0 and c.n == c.base:
            r = record(c, 0, <uint64_t> -1)  # R14: no step at all, the turn is lost
    if r < 0:
        return -1
    c_assert(memcmp_board(c.b, board) == 0)  # every step was undone
    return <int> (c.n - c.base)


cdef inline int memcmp_board(const int8_t* x, const int8_t* y) noexcept nogil:
    cdef int i
    for i in range(BOARD_BYTES):
        if x[i] != y[i]:
            return 1
    return 0


include "_validate.pxi"
include "_batch.pxi"
include "_rules.pxi"
