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


# ---------------------------------------------------------------- context lifetime

cdef Ctx* ctx_new(int count_only, int64_t cap) noexcept nogil:
    """A fresh context, or NULL when memory is short."""
    cdef Ctx* c = <Ctx*> calloc(1, sizeof(Ctx))
    if c == NULL:
        return NULL
    c.count_only = count_only
    c.table = <Slot*> calloc(1 << HASH_BITS, sizeof(Slot))
    if cap < 16:
        cap = 16
    if not count_only:
        c.boards = <int8_t*> malloc(cap * BOARD_BYTES)
        c.moves = <int8_t*> malloc(cap * MOVE_BYTES)
    c.cap = cap
    if not count_only and c.boards != NULL and c.moves != NULL:
        advise_huge(c.boards, cap * BOARD_BYTES)
        advise_huge(c.moves, cap * MOVE_BYTES)
    if (c.table == NULL or (not count_only and (c.boards == NULL or c.moves == NULL))):
        ctx_free(c)
        return NULL
    return c


cdef void ctx_free(Ctx* c) noexcept nogil:
    if c == NULL:
        return
    free(c.table)
    free(c.boards)
    free(c.moves)
    free(c)


cdef void advise_huge(void* p, int64_t nbytes) noexcept nogil:
    """Ask for transparent huge pages on a large output buffer: a batch writes tens of
    MB of fresh memory, and 4 KiB page faults were a third of its time. Advisory only."""
    cdef uintptr_t start, end
    if nbytes < (4 << 20):
        return
    start = (<uintptr_t> p + 4095) & ~(<uintptr_t> 4095)
    end = (<uintptr_t> p + <uintptr_t> nbytes) & ~(<uintptr_t> 4095)
    if end > start:
        fg_advise_huge(<void*> start, end - start)


cdef inline int ensure_room(Ctx* c) noexcept nogil:
    """Make room for one more play; -1 when memory is short (buffers left intact)."""
    if c.n < c.cap:
        return 0
    return grow(c, c.n + 1)


cdef int grow(Ctx* c, int64_t need) noexcept nogil:
    """Grow the output buffers to hold at least `need` plays (by half again, at least);
    -1 when memory is short or the buffers are borrowed (fixed)."""
    cdef int64_t cap
    cdef int8_t* nb
    cdef int8_t* nm
    if need <= c.cap:
        return 0
    if c.fixed:
        return -1
    cap = c.cap + (c.cap >> 1) + 64
    if cap < need:
        cap = need
    nb = <int8_t*> realloc(c.boards, cap * BOARD_BYTES)
    if nb == NULL:
        return -1
    c.boards = nb
    nm = <int8_t*> realloc(c.moves, cap * MOVE_BYTES)
    if nm == NULL:
        return -1
    c.moves = nm
    c.cap = cap
    advise_huge(c.boards, cap * BOARD_BYTES)
    advise_huge(c.moves, cap * MOVE_BYTES)
    return 0


cdef void new_table(Ctx* c) noexcept nogil:
    """Forget every key in O(1): bump the stamp (64 bits: it never wraps)."""
    c.stamp += 1


# ---------------------------------------------------------------- bit tricks

cdef extern from *:
    """
    #include <string.h>
    #if defined(__SSE2__) && !defined(FG_PORTABLE) && !defined(FG_CORE_SSE2)
    #define FG_CORE_SSE2 1
    #include <emmintrin.h>
    #endif
    /* Bit-reversed bytes, and the 24 low bits of m in reverse order. */
    #define FG_R2(n) n, n + 2 * 64, n + 1 * 64, n + 3 * 64
    #define FG_R4(n) FG_R2(n), FG_R2(n + 2 * 16), FG_R2(n + 1 * 16), FG_R2(n + 3 * 16)
    #define FG_R6(n) FG_R4(n), FG_R4(n + 2 * 4), FG_R4(n + 1 * 4), FG_R4(n + 3 * 4)
    static const unsigned char fg_rev_bits8[256] = { FG_R6(0), FG_R6(2), FG_R6(1), FG_R6(3) };
    static inline unsigned int fg_rev24(unsigned int m) {
        return ((unsigned int) fg_rev_bits8[m & 255u] << 16) | ((unsigned int) fg_rev_bits8[(m >> 8) & 255u] << 8)
               | fg_rev_bits8[(m >> 16) & 255u];
    }
    /* board_error (R4) with SSE2, 16 bytes at a time (reads only the 50 bytes of the board);
       FG_SSE2_CHECK is 0 and the plain C version in _core.pyx is used without SSE2. */
    #ifdef FG_CORE_SSE2
    #define FG_SSE2_CHECK 1
    static const signed char fg_opp_tail[16] = {-1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0};
    static inline int fg_board_error_sse2(const signed char* b) {
        const __m128i z = _mm_setzero_si128(), f15 = _mm_set1_epi8(15);
        __m128i x0 = _mm_loadu_si128((const __m128i*) b), x1 = _mm_loadu_si128((const __m128i*) (b + 16));
        __m128i x2 = _mm_loadu_si128((const __m128i*) (b + 32)), x3 = _mm_loadu_si128((const __m128i*) (b + 34));
        __m128i tail = _mm_loadu_si128((const __m128i*) fg_opp_tail), so, sm;
        unsigned int mine, theirs;
        int opp, own;
        if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(x0, x1), _mm_or_si128(x2, x3))))
            return 1;  /* a negative count */
        if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(_mm_cmpgt_epi8(x0, f15), _mm_cmpgt_epi8(x1, f15)),
                                           _mm_or_si128(_mm_cmpgt_epi8(x2, f15), _mm_cmpgt_epi8(x3, f15)))))
            return 2;  /* over 15 on one point */
        /* side totals: the opponent's bytes 0..24, the mover's 25..49 */
        so = _mm_add_epi64(_mm_sad_epu8(x0, z), _mm_sad_epu8(_mm_and_si128(x1, tail), z));
        sm = _mm_add_epi64(_mm_sad_epu8(_mm_andnot_si128(tail, x1), z), _mm_sad_epu8(x2, z));
        opp = _mm_cvtsi128_si32(so) + _mm_cvtsi128_si32(_mm_srli_si128(so, 8));
        own = _mm_cvtsi128_si32(sm) + _mm_cvtsi128_si32(_mm_srli_si128(sm, 8)) + b[48] + b[49];
        if (opp > 15 || own > 15)
            return 2;
        /* both sides on one physical point: my index t is the opponent's index 23 - t */
        mine = (unsigned int) _mm_movemask_epi8(_mm_cmpgt_epi8(_mm_loadu_si128((const __m128i*) (b + 25)), z))
               | ((unsigned int) _mm_movemask_epi8(_mm_cmpgt_epi8(_mm_loadu_si128((const __m128i*) (b + 33)), z)) << 8);
        theirs = (unsigned int) _mm_movemask_epi8(_mm_cmpgt_epi8(x0, z))
                 | ((unsigned int) _mm_movemask_epi8(_mm_cmpgt_epi8(_mm_loadu_si128((const __m128i*) (b + 8)), z)) << 8);
        return (mine & fg_rev24(theirs) & 0xFFFFFFu) ? 3 : 0;
    }
    #else
    #define FG_SSE2_CHECK 0
    static inline int fg_board_error_sse2(const signed char* b) { (void) b; return 0; }
    #endif
    /* Move lists as words: byte k of a move list (4 steps of from, to as point numbers,
       unused -1) is bits 8k..8k+7 of the word. The non-doubles keep their path in a
       register and store each move list as one word: bytes stored one by one and read
       back as a word would stall until they reach the cache (store-forwarding stall).
       Byte by byte where the byte order is not known. */
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && !defined(FG_PORTABLE)
    #define FG_LE_WORDS 1
    #endif
    static inline unsigned long long fg_step_word(int k, int a, int b) {
        return ((unsigned long long) (unsigned char) a | ((unsigned long long) (unsigned char) b << 8)) << (16 * k);
    }
    static inline void fg_put_moves(signed char* dst, unsigned long long x) {
    #ifdef FG_LE_WORDS
        memcpy(dst, &x, 8);
    #else
        int i;
        for (i = 0; i < 8; i++)
            dst[i] = (signed char) (unsigned char) (x >> (8 * i));
    #endif
    }
    static inline int fg_highest(unsigned int m) { return 31 - fg_clz32(m); }
    static inline int fg_popcount(unsigned int m) {
        /* portable SWAR popcount (no -mpopcnt needed) */
        m = m - ((m >> 1) & 0x55555555u);
        m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
        return (int)((((m + (m >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24);
    }
    /* bits set in m < 2**24, by table (cheaper than the SWAR count above) */
    #define FG_B2(n) n, n + 1, n + 1, n + 2
    #define FG_B4(n) FG_B2(n), FG_B2(n + 1), FG_B2(n + 1), FG_B2(n + 2)
    #define FG_B6(n) FG_B4(n), FG_B4(n + 1), FG_B4(n + 1), FG_B4(n + 2)
    static const unsigned char fg_pc8[256] = { FG_B6(0), FG_B6(1), FG_B6(1), FG_B6(2) };
    static inline int fg_popcount24(unsigned int m) {
        return fg_pc8[m & 255u] + fg_pc8[(m >> 8) & 255u] + fg_pc8[(m >> 16) & 255u];
    }
    /* Word-at-a-time helpers over 8 board bytes, each 0..15 unless said otherwise. */
    static inline unsigned long long fg_load8(const signed char* p) {
        unsigned long long x; memcpy(&x, p, 8); return x;
    }
    static inline unsigned long long fg_rev8(unsigned long long x) { return fg_bswap64(x); }
    /* bit k set when byte k is >= 1 (bytes 0..127) */
    static inline unsigned fg_nonzero8(unsigned long long x) {
        x = (x + 0x7F7F7F7F7F7F7F7FULL) & 0x8080808080808080ULL;
        return (unsigned)((x * 0x0002040810204081ULL) >> 56);
    }
    /* bit k set when byte k is >= 2 (bytes 0..125) */
    static inline unsigned fg_atleast2_8(unsigned long long x) {
        x = (x + 0x7E7E7E7E7E7E7E7EULL) & 0x8080808080808080ULL;
        return (unsigned)((x * 0x0002040810204081ULL) >> 56);
    }
    /* bit k set when byte k is >= 3 (bytes 0..124) */
    static inline unsigned fg_atleast3_8(unsigned long long x) {
        x = (x + 0x7D7D7D7D7D7D7D7DULL) & 0x8080808080808080ULL;
        return (unsigned)((x * 0x0002040810204081ULL) >> 56);
    }
    /* bit k set when byte k is >= 16 (bytes 0..127) */
    static inline unsigned fg_atleast16_8(unsigned long long x) {
        x = (x + 0x7070707070707070ULL) & 0x8080808080808080ULL;
        return (unsigned)((x * 0x0002040810204081ULL) >> 56);
    }
    /* byte k's low nibble moved to bits 4k..4k+3 */
    static inline unsigned long long fg_nibbles8(unsigned long long x) {
        x = (x | (x >> 4)) & 0x00FF00FF00FF00FFULL;
        x = (x | (x >> 8)) & 0x0000FFFF0000FFFFULL;
        return (x | (x >> 16)) & 0x00000000FFFFFFFFULL;
    }
    /* sum of the 8 bytes (total below 256) */
    static inline int fg_bytesum8(unsigned long long x) {
        return (int)((x * 0x0101010101010101ULL) >> 56);
    }
    """
    int fg_highest(unsigned int m) noexcept nogil    # m != 0
    uint64_t fg_step_word(int k, int a, int b) noexcept nogil
    void fg_put_moves(int8_t* dst, uint64_t x) noexcept nogil
    int fg_popcount(unsigned int m) noexcept nogil
    bint FG_SSE2_CHECK
    int fg_board_error_sse2(const int8_t* b) noexcept nogil
    int fg_popcount24(unsigned int m) noexcept nogil   # m < 2**24
    uint64_t fg_load8(const int8_t* p) noexcept nogil
    uint64_t fg_rev8(uint64_t x) noexcept nogil
    uint32_t fg_nonzero8(uint64_t x) noexcept nogil
    uint32_t fg_atleast2_8(uint64_t x) noexcept nogil
    uint32_t fg_atleast3_8(uint64_t x) noexcept nogil
    uint32_t fg_atleast16_8(uint64_t x) noexcept nogil
    uint64_t fg_nibbles8(uint64_t x) noexcept nogil
    int fg_bytesum8(uint64_t x) noexcept nogil

cdef enum:
    BAR_BIT = 1 << 24
    POINTS = (1 << 24) - 1   # bits 0..23: the 24 points


# ---------------------------------------------------------------- stopping long calls
#
# Long calls run in worker threads while the calling thread waits, handling signals
# (fastgen._util.run_threads); on Ctrl-C it sets the call's StopFlag, which every nogil
# loop below polls between positions (generation) or turns (rollouts), so the workers
# return within one position or turn.

cdef class StopFlag:
    """Asks the core loops of one call to stop; set from any thread."""
    cdef int flag

    def set(self):
        """Ask the loops reading this flag to stop."""
        fg_request_stop(&self.flag)

    def is_set(self):
        """True once set() was called."""
        return fg_stopped(&self.flag) != 0


cdef int _never = 0      # the flag of calls made without a StopFlag: never set


cdef inline const int* flag_of(StopFlag stop):
    return &_never if stop is None else &stop.flag


# ---------------------------------------------------------------- one step

cdef inline uint64_t nibble(int i) noexcept nogil:
    return (<uint64_t> 1) << (4 * (i & 15))


cdef inline uint64_t hit_bit(int t) noexcept nogil:
    return (<uint64_t> 1) << (36 + t)


cdef inline uint32_t sources_for(uint32_t occ, int outside, uint32_t blocked, int d) noexcept nogil:
    """Bit f set when a step of d pips from index f is legal, with no checker on the bar:
    occupancy `occ`, `outside` checkers not home, `blocked` points (R6, R9)."""
    cdef uint32_t m
    # On-board steps land on index f-d >= 0, which must not be blocked (R6).
    m = occ & ~(blocked << d) & (POINTS << d) & POINTS
    if outside == 0 and occ:
        # R9 bear-off, judged before this step: exact from index d-1, or from the
        # highest occupied point when nothing stands on d-1 or above.
        if (occ >> (d - 1)) & 1:
            m |= 1u << (d - 1)
        elif (occ >> (d - 1)) == 0:
            m |= 1u << fg_highest(occ)
    return m


cdef inline uint32_t step_sources(Ctx* c, int d) noexcept nogil:
    """Bit f set when a step of d pips from index f is legal now (bit 24 = the bar)."""
    if c.occ & BAR_BIT:
        # R8: only the bar may move; it enters on my point 25-d, index 24-d (R6).
        return 0 if (c.blocked >> (24 - d)) & 1 else BAR_BIT
    return sources_for(c.occ, c.outside, c.blocked, d)


cdef inline int do_step(Ctx* c, int f, int t) noexcept nogil:
    """Move one checker from index f to t (-1 = off); returns 1 when it hit a blot (R7)."""
    cdef int hit = 0
    c.b[OWN + f] -= 1
    if c.b[OWN + f] == 0:
        c.occ &= ~(1u << f)
    if f < 16:
        c.ka -= nibble(f)
    else:
        c.kb -= nibble(f)
    if t >= 0:
        if c.b[23 - t] == 1:  # R7: the blot goes to the opponent's bar
            c.b[23 - t] = 0
            c.b[24] += 1
            c.kb ^= hit_bit(t)
            hit = 1
        c.b[OWN + t] += 1
        c.occ |= 1u << t
        if t < 16:
            c.ka += nibble(t)
        else:
            c.kb += nibble(t)
        if f >= 6 and t < 6:
            c.outside -= 1
    return hit


cdef inline void undo_step(Ctx* c, int f, int t, int hit) noexcept nogil:
    if t >= 0:
        if f >= 6 and t < 6:
            c.outside += 1
        c.b[OWN + t] -= 1
        if c.b[OWN + t] == 0:
            c.occ &= ~(1u << t)
        if t < 16:
            c.ka -= nibble(t)
        else:
            c.kb -= nibble(t)
        if hit:
            c.b[23 - t] = 1
            c.b[24] -= 1
            c.kb ^= hit_bit(t)
    c.b[OWN + f] += 1
    c.occ |= 1u << f
    if f < 16:
        c.ka += nibble(f)
    else:
        c.kb += nibble(f)


# ---------------------------------------------------------------- leaves

cdef inline uint32_t slot_of(uint64_t ka, uint64_t kb) noexcept nogil:
    cdef uint64_t h = (ka ^ (kb * <uint64_t> 0x9E3779B97F4A7C15)) * <uint64_t> 0xBF58476D1CE4E5B9
    return <uint32_t> (h >> (64 - HASH_BITS))


cdef inline int seen(Ctx* c, uint64_t ka, uint64_t kb) noexcept nogil:
    """1 when position (ka, kb) is already in this generation's table, else 0 (and it
    is now)."""
    cdef uint32_t s = slot_of(ka, kb)
    cdef Slot* e = &c.table[s]
    while e.stamp == c.stamp:
        if e.ka == ka and e.kb == kb:
            return 1
        s = (s + 1) & ((1 << HASH_BITS) - 1)
        e = &c.table[s]
    e.stamp = c.stamp
    e.ka = ka
    e.kb = kb
    return 0


cdef inline int admit(Ctx* c, int depth, uint64_t ka, uint64_t kb, int unique) noexcept nogil:
    """1 when a sequence of `depth` steps ending in position (ka, kb) is a new play.
    `unique`: the caller knows no other sequence gives this position (no lookup)."""
    if depth < c.best:
        return 0  # R11/R12: a sequence using more dice exists
    if depth > c.best:
        c.best = depth  # everything kept so far used fewer dice: drop it
        c.n = c.base
        new_table(c)
    if c.dedup and not unique:  # R10: plays are distinct by resulting position
        return not seen(c, ka, kb)
    return 1


cdef inline int8_t* out_slot(Ctx* c) noexcept nogil:
    """Room for one play: copies the path (unused steps are -1), returns its board slot."""
    if ensure_room(c) < 0:
        return NULL
    memcpy(c.moves + c.n * MOVE_BYTES, c.path, MOVE_BYTES)
    return c.boards + c.n * BOARD_BYTES


cdef int record(Ctx* c, int depth, uint64_t path) noexcept nogil:
    """The current position, reached in `depth` steps (the move-list word `path`, see
    fg_put_moves), is a complete sequence."""
    if not admit(c, depth, c.ka, c.kb, 0):
        return 0
    if not c.count_only:
        if ensure_room(c) < 0:
            return -1
        fg_put_moves(c.moves + c.n * MOVE_BYTES, path)
        memcpy(c.boards + c.n * BOARD_BYTES, c.b, BOARD_BYTES)
    c.n += 1
    return 0


cdef int record_step(Ctx* c, int depth, int f, int d, int unique, uint64_t path) noexcept nogil:
    """The current position plus one last step of d pips from f (legal, not applied):
    a complete sequence of depth + 1 steps. Cheaper than do/record/undo. `unique`: no
    other sequence gives this position, so it needs no key and no lookup."""
    cdef int t = f - d
    cdef uint64_t ka = c.ka, kb = c.kb
    cdef int8_t* dst
    cdef int hit = 0
    if t < 0:
        t = -1
    if c.dedup and not unique:
        if f < 16:
            ka -= nibble(f)
        else:
            kb -= nibble(f)
        if t >= 0:
            if t < 16:
                ka += nibble(t)
            else:
                kb += nibble(t)
            if c.b[23 - t] == 1:
                kb ^= hit_bit(t)
    if not admit(c, depth + 1, ka, kb, unique):
        return 0
    if not c.count_only:
        if ensure_room(c) < 0:
            return -1
        fg_put_moves(c.moves + c.n * MOVE_BYTES, (path & ~fg_step_word(depth, -1, -1)) | fg_step_word(depth, f + 1, t + 1))
        dst = c.boards + c.n * BOARD_BYTES
        memcpy(dst, c.b, BOARD_BYTES)
        dst[OWN + f] -= 1
        if t >= 0:
            dst[OWN + t] += 1
            if dst[23 - t] == 1:
                dst[23 - t] = 0
                dst[24] += 1
    c.n += 1
    return 0


# ---------------------------------------------------------------- doubles

cdef inline uint32_t double_sources(uint32_t occ, int outside, uint32_t blocked, int d, int maxf) noexcept nogil:
    """Sources of the next step of a double: bar first (R8), else sources <= maxf, so
    the steps of a play come from non-increasing sources."""
    if occ & BAR_BIT:
        return BAR_BIT if maxf == 24 and not (blocked >> (24 - d)) & 1 else 0
    return sources_for(occ, outside, blocked, d) & ((2u << maxf) - 1)


cdef inline void board_after(Ctx* c, int8_t* dst, int f, int t, uint32_t hits) noexcept nogil:
    """dst = the working board with one more checker moved f -> t (t = -1: off; none
    when f < 0) and the blots in `hits`, plus t's, sent to the bar (R7)."""
    cdef int tt
    memcpy(dst, c.b, BOARD_BYTES)
    if f >= 0:
        dst[OWN + f] -= 1
        if t >= 0:
            dst[OWN + t] += 1
            hits |= (1u << t) & c.blots
    while hits:
        tt = fg_highest(hits)
        hits &= ~(1u << tt)
        dst[23 - tt] = 0
        dst[24] += 1


cdef inline int leaf_double(Ctx* c, int depth, int f, int d, uint32_t hits) noexcept nogil:
    """Write the play of a double ending here: the `depth` steps on the path, plus one
    more step of d pips from f when f >= 0. The search moves only the mover's checkers;
    `hits` holds the landing points of the path that held a lone opposing checker (R7),
    applied here. Returns -1 when memory is short."""
    cdef int total = depth + (f >= 0)
    cdef int t = f - d if f >= d else -1
    cdef int8_t* dst
    if total < c.best:
        return 0  # R12: more steps can be played
    if total > c.best:
        c.best = total
        c.n = c.base
    if f >= 0:
        c.path[2 * depth] = f + 1
        c.path[2 * depth + 1] = t + 1
    dst = out_slot(c)
    if f >= 0:
        c.path[2 * depth] = -1
        c.path[2 * depth + 1] = -1
    if dst == NULL:
        return -1
    board_after(c, dst, f, t, hits)
    c.n += 1
    return 0


cdef inline int room_for_four_step(Ctx* c, int k) noexcept nogil:
    """Before writing k four-step plays of a double: four steps beat any shorter play
    written so far (R12), and room for k more plays; -1 when memory is short."""
    if c.best < 4:
        c.best = 4
        c.n = c.base
    if c.n + k > c.cap and grow(c, c.n + k) < 0:
        return -1
    return 0


cdef int last_steps_double(Ctx* c, int d, uint32_t m, uint32_t hits) noexcept nogil:
    """Write the four-step plays that end with one step from each source in m (three
    steps are on the path): one tight loop, room made once."""
    cdef int k = fg_popcount(m)
    cdef int f, t
    cdef int8_t* dst
    cdef int8_t* mv
    if room_for_four_step(c, k) < 0:
        return -1
    dst = c.boards + c.n * BOARD_BYTES
    mv = c.moves + c.n * MOVE_BYTES
    while m:
        f = fg_highest(m)
        m &= ~(1u << f)
        t = f - d if f >= d else -1
        board_after(c, dst, f, t, hits)
        memcpy(mv, c.path, 6)
        mv[6] = f + 1
        mv[7] = t + 1
        dst += BOARD_BYTES
        mv += MOVE_BYTES
    c.n += k
    return 0


cdef int last_two_double(Ctx* c, int d, uint32_t m2, uint32_t hits) noexcept nogil:
    """The plays of a double after two steps (on the path and the working board), when
    neither the bar nor a bear-off can take part (no checker on the bar, two or more
    outside home: each step takes at most one home): the third step from each source f2
    in m2, then the fourth from the sources left at or below f2, worked out from the masks
    (as count_double counts them: no recursion, no source recomputation), the third step
    applied to the working board only while its plays are written; in the order of
    write_double and last_steps_double: the same plays, boards and move lists."""
    cdef uint32_t ok = ~(c.blocked << d) & (POINTS << d) & POINTS  # steps that land open (R6)
    cdef uint32_t m3, h2, hh
    cdef int f2, t2, f3, t3, tt, k
    cdef uint64_t w2
    cdef uint64_t base = (<uint64_t> <uint8_t> c.path[0] | (<uint64_t> <uint8_t> c.path[1] << 8)
                          | (<uint64_t> <uint8_t> c.path[2] << 16) | (<uint64_t> <uint8_t> c.path[3] << 24))
    cdef int8_t* dst
    cdef int8_t* mv
    while m2:
        f2 = fg_highest(m2)
        m2 &= ~(1u << f2)
        t2 = f2 - d  # on the board: no bear-off
        # sources of the fourth step: f2 is left when its checker was not alone, t2 is
        # now occupied; at or below f2 (non-increasing), landing open
        m3 = (((c.occ & ~(<uint32_t> (c.b[OWN + f2] == 1) << f2)) | (1u << t2)) & ok) & ((2u << f2) - 1)
        w2 = base | (<uint64_t> (f2 + 1) << 32) | (<uint64_t> (t2 + 1) << 40)
        if m3 == 0:  # a three-step play (leaf_double)
            if c.best > 3:
                continue  # R12: more steps can be played
            if c.best < 3:
                c.best = 3
                c.n = c.base
            if ensure_room(c) < 0:
                return -1
            board_after(c, c.boards + c.n * BOARD_BYTES, f2, t2, hits)
            fg_put_moves(c.moves + c.n * MOVE_BYTES, w2 | (<uint64_t> 0xFFFF << 48))
            c.n += 1
            continue
        k = fg_popcount24(m3)
        if room_for_four_step(c, k) < 0:
            return -1
        dst = c.boards + c.n * BOARD_BYTES
        mv = c.moves + c.n * MOVE_BYTES
        h2 = hits | ((1u << t2) & c.blots)
        c.n += k
        c.b[OWN + f2] -= 1  # the third step on the working board for its leaves (undone below)
        c.b[OWN + t2] += 1
        while m3:
            f3 = fg_highest(m3)
            m3 &= ~(1u << f3)
            t3 = f3 - d
            memcpy(dst, c.b, BOARD_BYTES)
            dst[OWN + f3] -= 1
            dst[OWN + t3] += 1
            hh = h2 | ((1u << t3) & c.blots)
            while hh:  # R7: each blot landed on goes to the bar
                tt = fg_highest(hh)
                hh &= ~(1u << tt)
                dst[23 - tt] = 0
                dst[24] += 1
            fg_put_moves(mv, w2 | (<uint64_t> (f3 + 1) << 48) | (<uint64_t> (t3 + 1) << 56))
            dst += BOARD_BYTES
            mv += MOVE_BYTES
        c.b[OWN + f2] += 1
        c.b[OWN + t2] -= 1
    return 0


cdef int second_step_double(Ctx* c, int d, uint32_t m, uint32_t hits) noexcept nogil:
    """write_double after one step, with no checker on the bar and three or more outside
    home (so no bear-off in the three steps left): the second step from each source in
    m, then the sources of the third worked out from the masks and handed straight to
    last_two_double (or the two-step play written): the same plays in the same order."""
    cdef uint32_t ok = ~(c.blocked << d) & (POINTS << d) & POINTS  # steps that land open (R6)
    cdef uint32_t occ0 = c.occ
    cdef uint32_t m2, h
    cdef int out0 = c.outside
    cdef int f, t, r
    while m:
        f = fg_highest(m)
        m &= ~(1u << f)
        t = f - d  # on the board: no bear-off
        c.b[OWN + f] -= 1
        c.b[OWN + t] += 1
        c.occ = (occ0 & ~(<uint32_t> (c.b[OWN + f] == 0) << f)) | (1u << t)
        c.outside = out0 - (f >= 6 and t < 6)
        c.path[2] = f + 1
        c.path[3] = t + 1
        m2 = c.occ & ok & ((2u << f) - 1)  # non-increasing
        h = hits | ((1u << t) & c.blots)
        if m2:
            r = last_two_double(c, d, m2, h)
        else:
            r = leaf_double(c, 2, -1, d, h)
        c.b[OWN + f] += 1
        c.b[OWN + t] -= 1
        if r < 0:
            c.occ = occ0
            c.outside = out0
            return -1
    c.occ = occ0
    c.outside = out0
    c.path[2] = -1  # keep unused steps at -1
    c.path[3] = -1
    return 0


cdef int write_double(Ctx* c, int d, int depth, int maxf, uint32_t hits) noexcept nogil:
    """Plays of a double: steps of d pips from sources <= maxf, non-increasing, so every
    play is produced once (R12, no permutations). Moves the mover's checkers only;
    `hits` collects the blots landed on so far."""
    cdef uint32_t m, occ0
    cdef int f, t, out0, r
    if c.b[OWN + 24]:  # R8: bar first
        m = 0 if maxf != 24 or (c.blocked >> (24 - d)) & 1 else BAR_BIT
    else:
        m = sources_for(c.occ, c.outside, c.blocked, d) & ((2u << maxf) - 1)
    if m == 0:
        return leaf_double(c, depth, -1, d, hits)
    if depth == 3:
        return last_steps_double(c, d, m, hits)
    if depth == 2 and c.outside >= 2 and not c.b[OWN + 24]:
        return last_two_double(c, d, m, hits)
    if depth == 1 and c.outside >= 3 and not c.b[OWN + 24]:
        return second_step_double(c, d, m, hits)
    while m:
        f = fg_highest(m)
        m &= ~(1u << f)
        t = f - d if f >= d else -1
        occ0 = c.occ
        out0 = c.outside
        c.b[OWN + f] -= 1
        if c.b[OWN + f] == 0:
            c.occ &= ~(1u << f)
        if t >= 0:
            c.b[OWN + t] += 1
            c.occ |= 1u << t
            if f >= 6 and t < 6:
                c.outside -= 1
        c.path[2 * depth] = f + 1
        c.path[2 * depth + 1] = t + 1
        r = write_double(c, d, depth + 1, f, hits | (((1u << t) & c.blots) if t >= 0 else 0))
        c.b[OWN + f] += 1
        if t >= 0:
            c.b[OWN + t] -= 1
        c.occ = occ0
        c.outside = out0
        if r < 0:
            return -1
    c.path[2 * depth] = -1  # keep unused steps at -1
    c.path[2 * depth + 1] = -1
    return 0


cdef inline void own_step(const int8_t* src, int8_t* dst, int f, int d, uint32_t* occ, int* outside,
                          uint32_t* ones) noexcept nogil:
    """dst = the mover's row src with one checker moved d pips from f (legal); updates
    the occupancy mask, the count of checkers outside home and the mask of points
    holding exactly one checker."""
    cdef int t
    memcpy(dst, src, 25)
    dst[f] -= 1
    if dst[f] == 0:
        occ[0] &= ~(1u << f)
    ones[0] = (ones[0] & ~(1u << f)) | (<uint32_t> (dst[f] == 1) << f)
    if f >= d:
        t = f - d
        dst[t] += 1
        occ[0] |= 1u << t
        ones[0] = (ones[0] & ~(1u << t)) | (<uint32_t> (dst[t] == 1) << t)
        if f >= 6 and t < 6:
            outside[0] -= 1


cdef inline void mask_step(const int8_t* own, int f, int d, uint32_t* occ, int* outside,
                           uint32_t* ones) noexcept nogil:
    """own_step on the masks alone (the row own is left as it is); branch-free."""
    cdef int t, n = own[f]
    occ[0] &= ~(<uint32_t> (n == 1) << f)
    ones[0] = (ones[0] & ~(1u << f)) | (<uint32_t> (n == 2) << f)
    if f >= d:
        t = f - d
        occ[0] |= 1u << t
        ones[0] = (ones[0] & ~(1u << t)) | (<uint32_t> (own[t] == 0) << t)
        outside[0] -= (f >= 6) & (t < 6)


cdef inline void count_leaf(int depth, int* best, int64_t* count, int64_t k) noexcept nogil:
    """k plays of `depth` steps: counted unless a longer play exists (R12)."""
    if depth > best[0]:
        best[0] = depth
        count[0] = 0
    if depth == best[0]:
        count[0] += k


cdef inline void count_last_three(uint32_t m, uint32_t occ, uint32_t ones, uint32_t twos, uint32_t ok, int d,
                                  int* best, int64_t* count) noexcept nogil:
    """Counting a double: the plays of its last three steps after the first, from the
    sources m (bit f: a step of d from f is legal, f at or below the first step's source),
    in closed form, with no checker on the bar and at least three outside home (so no
    bear-off can come into them). `occ`: the occupied points, `ones` and `twos` those
    holding exactly one and two checkers, `ok` the points whose step of d lands open.

    A second step from f1 (y-th source from the bottom of m) leaves y + e(f1) sources for
    the third, e = 1 when f1 - d becomes a new source (empty and in ok: N) and -1 when f1
    loses its last checker (O), and count_double's two-step closed form gives the plays
    after it from those sources and their singles and new-source cases, which change only
    at f1 and f1 - d. Summed over f1 these are sums of ranks over O and N, so only their
    points are visited."""
    cdef uint32_t O = m & ones
    cdef uint32_t nall = ((ok & ~occ) << d) & POINTS   # x - d empty and in ok
    cdef uint32_t N = m & nall
    cdef uint32_t x = O | N
    cdef int64_t k = fg_popcount24(m)
    cdef int64_t t, y, r, three
    cdef int f
    # sum over f1 of: y(y+1)/2 (two-step plays from y sources), e's correction, less the
    # singles among the sources left, plus the new sources among them
    t = (k * (k + 1) * (k + 2)) // 6 + fg_popcount24(O) - fg_popcount24(m & twos) \
        + fg_popcount24(m & (O << d)) - 2 * fg_popcount24(N) + fg_popcount24(N & (nall << d))
    three = (k * (k + 1)) // 2
    while x:
        f = fg_highest(x)
        x &= ~(1u << f)
        y = fg_popcount24(m & ((2u << f) - 1))  # sources at or below f
        r = k - y + 1                           # sources at or above f
        if (O >> f) & 1:
            t -= r
            if not (N >> f) & 1:
                t -= y
                three -= 1
        if (N >> f) & 1:
            t += r
            if not (O >> f) & 1:
                t += y + 1
                three += 1
    if t:
        count_leaf(4, best, count, t)
    elif three:
        count_leaf(3, best, count, three)
    else:
        count_leaf(2, best, count, k)


cdef void count_double(Ctx* c, int d, int* best, int64_t* count) noexcept nogil:
    """Counting a double: the search of write_double on the mover's row only (no keys,
    no opponent: for one die value every play is produced once), copy-make, the last two
    steps counted without moving. Sets *best to the most steps playable and *count to
    the plays using that many (R12).

    The last two steps in closed form, when no bar and no bear-off can be involved: the
    sources of the fourth step after a third from f2 are those of the third at or below
    f2 (k, k-1, ..., 1 of them down the k sources of m2), less f2 when its checker was
    alone, plus f2 - d when that point was empty and a source itself (its step lands
    open)."""
    cdef int8_t o0[25]
    cdef int8_t o1[25]
    cdef uint32_t blocked = c.blocked
    cdef uint32_t m0, m1, m2, m3, occ1, occ2, occ3, ones0, ones1, ones2, twos0, twos1
    cdef int f0, f1, f2, t2, out1, out2, out3
    cdef int64_t k, s
    cdef uint32_t ok = ~(blocked << d) & (POINTS << d) & POINTS  # sources whose step lands open (R6)
    memcpy(o0, c.b + OWN, 25)
    best[0] = 0
    count[0] = 0
    m0 = double_sources(c.occ, c.outside, blocked, d, 24)
    if m0 == 0:
        count[0] = 1  # R14: no step at all
        return
    ones0 = ((fg_nonzero8(fg_load8(o0)) & ~fg_atleast2_8(fg_load8(o0)))
             | ((fg_nonzero8(fg_load8(o0 + 8)) & ~fg_atleast2_8(fg_load8(o0 + 8))) << 8)
             | ((fg_nonzero8(fg_load8(o0 + 16)) & ~fg_atleast2_8(fg_load8(o0 + 16))) << 16)
             | (<uint32_t> (o0[24] == 1) << 24))
    twos0 = ((fg_atleast2_8(fg_load8(o0)) & ~fg_atleast3_8(fg_load8(o0)))
             | ((fg_atleast2_8(fg_load8(o0 + 8)) & ~fg_atleast3_8(fg_load8(o0 + 8))) << 8)
             | ((fg_atleast2_8(fg_load8(o0 + 16)) & ~fg_atleast3_8(fg_load8(o0 + 16))) << 16))
    while m0:
        f0 = fg_highest(m0)
        m0 &= ~(1u << f0)
        occ1 = c.occ
        out1 = c.outside
        ones1 = ones0
        mask_step(o0, f0, d, &occ1, &out1, &ones1)
        m1 = double_sources(occ1, out1, blocked, d, f0)
        if m1 == 0:
            count_leaf(1, best, count, 1)
            continue
        if out1 >= 3 and not occ1 & BAR_BIT:
            # the last three steps in closed form (see count_last_three)
            twos1 = twos0 & ~(1u << f0)
            if o0[f0] == 3:
                twos1 |= 1u << f0
            if f0 >= d:
                twos1 = (twos1 & ~(1u << (f0 - d))) | (<uint32_t> (o0[f0 - d] == 1) << (f0 - d))
            count_last_three(m1, occ1, ones1, twos1, ok, d, best, count)
            continue
        memcpy(o1, o0, 25)  # the row after the first step, for the loops below
        o1[f0] -= 1
        if f0 >= d:
            o1[f0 - d] += 1
        while m1:
            f1 = fg_highest(m1)
            m1 &= ~(1u << f1)
            occ2 = occ1
            out2 = out1
            ones2 = ones1
            mask_step(o1, f1, d, &occ2, &out2, &ones2)  # the third level needs no row
            m2 = double_sources(occ2, out2, blocked, d, f1)
            if m2 == 0:
                count_leaf(2, best, count, 1)
                continue
            if out2 >= 2 and not occ2 & BAR_BIT:
                k = fg_popcount24(m2)
                s = (k * (k + 1)) // 2 - fg_popcount24(m2 & ones2) + fg_popcount24(m2 & ((ok & ~occ2) << d) & POINTS)
                if s:
                    count_leaf(4, best, count, s)
                else:
                    count_leaf(3, best, count, k)
                continue
            while m2:
                f2 = fg_highest(m2)
                m2 &= ~(1u << f2)
                occ3 = (occ2 & ~(1u << f2)) if (ones2 >> f2) & 1 else occ2
                out3 = out2
                if f2 >= d:
                    t2 = f2 - d
                    occ3 |= 1u << t2
                    if f2 >= 6 and t2 < 6:
                        out3 -= 1
                m3 = double_sources(occ3, out3, blocked, d, f2)
                if m3:
                    count_leaf(4, best, count, fg_popcount(m3))
                else:
                    count_leaf(3, best, count, 1)


# ---------------------------------------------------------------- non-doubles

cdef inline void key_move(uint64_t* k, int f, int t) noexcept nogil:
    """Key arithmetic of one checker moving from index f to on-board index t."""
    k[0 if f < 16 else 1] -= nibble(f)
    k[0 if t < 16 else 1] += nibble(t)


cdef void count_after_first(Ctx* c, int f, int t, int b, int simple) noexcept nogil:
    """Counting only: order 1 after a first on-board step f -> t with no bar and no
    bear-off possible afterwards, worked out from the masks and keys without moving.
    Same plays as the general loop of gen_nondouble, in the same admission order rules.

    `simple`: no bar and no bear-off anywhere in this generation. Then the two second
    steps that need the table in general are decided by rule: the hop (t moving on) is
    always new here (the only other sequence giving its checkers, from f - b, comes
    later), and the swap (f + b onto f) repeats order 1's hop from f + b exactly when
    that hop was legal with the same hits, i.e. f + b - a is open and holds no blot.
    Nothing needs the table then: order 2 decides by rule too (hop_is_new)."""
    cdef uint32_t occ2, m2, plain, special
    cdef uint64_t k[2]
    cdef uint64_t q[2]
    cdef int f2, t2, n2
    occ2 = (c.occ & ~((1u << f) if c.b[OWN + f] == 1 else 0)) | (1u << t)
    m2 = occ2 & ~(c.blocked << b) & (POINTS << b) & POINTS  # on-board second steps (R6)
    if simple and m2:
        n2 = fg_popcount24(m2)
        if f + b < 24 and (m2 >> (f + b)) & 1 and not ((c.blocked | c.blots) >> (t + b)) & 1:
            n2 -= 1  # the swap: f + b - a = t + b
        if admit(c, 2, 0, 0, 1):
            c.n += n2
        return
    k[0] = c.ka
    k[1] = c.kb
    key_move(k, f, t)
    if c.b[23 - t] == 1:  # R7: the first step hits
        k[1] ^= hit_bit(t)
    if m2 == 0:
        if admit(c, 1, k[0], k[1], 0):
            c.n += 1
        return
    plain = m2 & ~((1u << t) | ((1u << (f + b)) if f + b < 24 else 0))
    if plain and admit(c, 2, 0, 0, 1):
        c.n += fg_popcount24(plain)
    special = m2 & ~plain
    while special:
        f2 = fg_highest(special)
        special &= ~(1u << f2)
        t2 = f2 - b
        q[0] = k[0]
        q[1] = k[1]
        key_move(q, f2, t2)
        if t2 != t and c.b[23 - t2] == 1:
            q[1] ^= hit_bit(t2)
        if admit(c, 2, q[0], q[1], 0):
            c.n += 1


cdef inline int hop_is_new(Ctx* c, int f, int t, int a) noexcept nogil:
    """Order 2 after an on-board step f -> t by the smaller die, with no bar and no
    bear-off possible, once a two-dice play is known: only the checker on t moving on by
    a (to t - a) can give a new play (see gen_nondouble). 1 when it does, worked out from
    the masks without moving and without the dedup table: order 1 already produced the
    same position with the same hits when a checker of the mover stood on t (it moved by
    a first, then f's checker by b), or when f - a is open and neither f - a nor t holds
    a blot (the same checker by a then b); any other sequence changes other points."""
    cdef int t2 = t - a
    if t2 < 0 or (c.blocked >> t2) & 1 or c.b[OWN + t]:
        return 0
    return ((c.blocked | c.blots) >> (f - a)) & 1 or (c.blots >> t) & 1


cdef int write_hop(Ctx* c, int f, int t, int t2) noexcept nogil:
    """Write the play f -> t -> t2 (both on board, legal) of the working position."""
    cdef int8_t* dst
    if ensure_room(c) < 0:
        return -1
    memset(c.moves + c.n * MOVE_BYTES, -1, MOVE_BYTES)
    dst = c.moves + c.n * MOVE_BYTES
    dst[0] = f + 1
    dst[1] = t + 1
    dst[2] = t + 1
    dst[3] = t2 + 1
    dst = c.boards + c.n * BOARD_BYTES
    memcpy(dst, c.b, BOARD_BYTES)
    dst[OWN + f] -= 1
    dst[OWN + t2] += 1
    if (c.blots >> t) & 1:  # R7: each landing point's blot goes to the bar
        dst[23 - t] = 0
        dst[24] += 1
    if (c.blots >> t2) & 1:
        dst[23 - t2] = 0
        dst[24] += 1
    c.n += 1
    return 0


cdef inline int order1_onboard(Ctx* c, int f, int t, int b, int simple) noexcept nogil:
    """Order 1 after an on-board first step f -> t with no bar and no bear-off possible
    after it: the same plays, in the same order, as the general loop of gen_nondouble
    (record, record_step), written from a local copy of the board after the first step
    (no do/undo) in one tight loop whose state the output stores cannot alias. Returns
    -1 when memory is short."""
    cdef int8_t w[50]
    cdef uint64_t mw
    cdef int hit
    cdef uint32_t occ2, m2, plain
    cdef uint64_t k[2]
    cdef uint64_t q[2]
    cdef int f2, t2
    cdef int64_t n
    cdef int8_t* dst
    cdef int8_t* boards
    cdef int8_t* moves
    memcpy(w, c.b, BOARD_BYTES)
    w[OWN + f] -= 1
    w[OWN + t] += 1
    hit = w[23 - t] == 1
    if hit:  # R7: the first step hits
        w[23 - t] = 0
        w[24] += 1
    occ2 = (c.occ & ~((1u << f) if w[OWN + f] == 0 else 0)) | (1u << t)
    m2 = occ2 & ~(c.blocked << b) & (POINTS << b) & POINTS  # on-board second steps (R6)
    if m2 == 0 or not simple:
        # the key after the first step: for the table (never needed in a simple turn
        # with a second step)
        k[0] = c.ka
        k[1] = c.kb
        key_move(k, f, t)
        if hit:
            k[1] ^= hit_bit(t)
    if m2 == 0:
        if admit(c, 1, k[0], k[1], 0):
            if ensure_room(c) < 0:
                return -1
            memcpy(c.boards + c.n * BOARD_BYTES, w, BOARD_BYTES)
            fg_put_moves(c.moves + c.n * MOVE_BYTES, (<uint64_t> -1 << 16) | fg_step_word(0, f + 1, t + 1))
            c.n += 1
        return 0
    # the two-step move lists as words (see fg_put_moves): mw + f2 * 0x1010000 has the
    # second step (f2 + 1, f2 + 1 - b) in bytes 2 and 3 (exact sums, no carry)
    mw = (<uint64_t> 0xFFFFFFFF00010000u - (<uint64_t> (b - 1) << 24)) + <uint64_t> (f + 1) + (<uint64_t> (t + 1) << 8)
    if c.best < 2:
        c.best = 2  # two dice beat anything kept so far (R11)
        c.n = c.base
        new_table(c)
    n = c.n
    if n + 24 > c.cap and grow(c, n + 24) < 0:  # room for any m2 (24 points at most)
        return -1
    boards = c.boards
    moves = c.moves
    # Pairs that need the table: see gen_nondouble.
    plain = m2 & ~((1u << t) | ((1u << (f + b)) if f + b < 24 else 0))
    if simple:
        # No bar, no bear-off all turn: the hop and the swap are decided by rule, as in
        # count_after_first, and nothing needs the table.
        if f + b < 24 and not ((c.blocked | c.blots) >> (t + b)) & 1:
            m2 &= ~(1u << (f + b))  # the swap repeats order 1's hop from f + b
        plain = m2
    while m2:
        f2 = fg_highest(m2)
        m2 &= ~(1u << f2)
        t2 = f2 - b
        if not (plain >> f2) & 1:
            q[0] = k[0]
            q[1] = k[1]
            key_move(q, f2, t2)
            if w[23 - t2] == 1:
                q[1] ^= hit_bit(t2)
            if seen(c, q[0], q[1]):
                continue
        dst = boards + n * BOARD_BYTES
        memcpy(dst, w, BOARD_BYTES)
        dst[OWN + f2] -= 1
        dst[OWN + t2] += 1
        if w[23 - t2] == 1:
            dst[23 - t2] = 0
            dst[24] += 1
        fg_put_moves(moves + n * MOVE_BYTES, mw + <uint64_t> f2 * 0x1010000u)
        n += 1
    c.n = n
    return 0


cdef inline int count_simple(uint32_t occ, uint32_t ones, uint32_t blocked, uint32_t blots, int a, int b) noexcept nogil:
    """Counting the non-double a-b (a > b) with no checker on the bar and at least two
    outside home (no bear-off all turn: the first step can bring one of them home, not
    both): the plays of gen_nondouble in closed form, or 0
    when no two-dice play comes from the larger die first (the caller then searches).
    `ones`: the points holding exactly one of the mover's checkers.

    Order 1 (a from f, then b) gives, summed over the sources f of a, the sources of b
    after that step: all of them (B), less f when its checker was alone, plus f - a when
    it was empty and a source of b, less the swap that repeats order 1's hop from f + b
    (count_after_first). Order 2 adds only the hops hop_is_new accepts. With one checker
    outside, these are the plays that bear nothing off; count_one_out_bearoffs counts
    the others."""
    cdef uint32_t A = occ & ~(blocked << a) & (POINTS << a) & POINTS   # sources of a (R6)
    cdef uint32_t okb = ~(blocked << b) & (POINTS << b) & POINTS      # steps of b landing open
    cdef uint32_t B = occ & okb
    cdef int n
    n = (fg_popcount24(A) * fg_popcount24(B) - fg_popcount24(A & B & ones)
         + fg_popcount24(A & ((okb & ~occ) << a) & POINTS)
         - fg_popcount24(A & (B >> b) & ~((blocked | blots) << (a - b))))
    if n == 0:
        return 0
    # order 2: b from f onto an empty t = f - b, then a on to an open t - a, new when
    # f - a is blocked or a blot, or t is a blot
    return n + fg_popcount24(B & ~(occ << b) & ((~blocked & POINTS) << (a + b))
                             & (((blocked | blots) << a) | (blots << b)) & POINTS)


cdef inline int count_from_bar(uint32_t occ, int bar, uint32_t blocked, uint32_t blots, int a, int b) noexcept nogil:
    """Counting the non-double a-b with `bar` checkers on the bar (occ: the points, bar
    excluded), or 0 when no play uses both dice (the caller then searches).

    Two or more on the bar: each die can only enter one (R8), so there is one play.
    One: enter with one die, then the other die from any point (the entered checker's
    included; it is outside home, so no bear-off). The two orders give the same
    position only as the entered checker's hop to 24 - a - b, and only when neither
    entry point holds a blot (the hits would differ)."""
    cdef int ea = not (blocked >> (24 - a)) & 1   # entry points open (R6)
    cdef int eb = not (blocked >> (24 - b)) & 1
    cdef uint32_t oka, okb
    cdef int n = 0
    if bar >= 2:
        return 1
    if ea:  # enter with a, then b from anywhere
        okb = ~(blocked << b) & (POINTS << b) & POINTS
        n += fg_popcount24((occ | (1u << (24 - a))) & okb)
    if eb:  # enter with b, then a
        oka = ~(blocked << a) & (POINTS << a) & POINTS
        n += fg_popcount24((occ | (1u << (24 - b))) & oka)
    if ea and eb and not (blocked >> (24 - a - b)) & 1 and not ((blots >> (24 - a)) | (blots >> (24 - b))) & 1:
        n -= 1  # the hop, reached both ways with the same hits
    return n


cdef inline int bearoff_source(uint32_t occ, int d) noexcept nogil:
    """The point a step of d bears off from with every checker home (R9), or -1."""
    if (occ >> (d - 1)) & 1:
        return d - 1
    if (occ >> (d - 1)) == 0:
        return fg_highest(occ)
    return -1


cdef inline int count_one_out_bearoffs(uint32_t occ, uint32_t blocked, uint32_t blots, int a, int b) noexcept nogil:
    """With one checker outside home (on x, the highest point; no bar), the plays
    count_simple leaves out: the checker comes home with one die and the other die bears
    off (R9), one play for each order at most. Both orders give the same position only
    when each bears that checker off itself, with the same hits (no blot on x - a or
    x - b). Every other play of the turn moves two checkers on the board or hops, as
    count_simple counts them (a bear-off changes the number of checkers, so none of
    those repeats it)."""
    cdef int x = fg_highest(occ)
    cdef int g = -2, h = -2, n = 0
    if x - a < 6 and not (blocked >> (x - a)) & 1:  # home with a, then b bears off
        g = bearoff_source((occ & ~(1u << x)) | (1u << (x - a)), b)
        n += g >= 0
    if x - b < 6 and not (blocked >> (x - b)) & 1:  # home with b, then a bears off
        h = bearoff_source((occ & ~(1u << x)) | (1u << (x - b)), a)
        n += h >= 0
    if g == x - a and h == x - b and not ((blots >> (x - a)) | (blots >> (x - b))) & 1:
        n -= 1
    return n


cdef int gen_nondouble(Ctx* c, int a, int b) noexcept nogil:
    """Plays of the roll a-b, a > b (R11, R13)."""
    cdef uint32_t m1, m2, plain
    cdef uint64_t pw
    cdef int f, t, f2, hit
    cdef int bar0 = c.occ & BAR_BIT
    cdef int larger_alone
    cdef int simple = not bar0 and c.outside >= 3  # no bar, no bear-off all turn

    # Order 1: the larger die, then the smaller.
    m1 = step_sources(c, a)
    while m1:
        f = fg_highest(m1)
        m1 &= ~(1u << f)
        t = f - a if f >= a else -1
        if c.count_only and not bar0 and t >= 0 and c.outside - (f >= 6 and t < 6) > 0:
            count_after_first(c, f, t, b, simple)  # no bar, no bear-off: no need to move
            continue
        if not bar0 and t >= 0 and c.outside - (f >= 6 and t < 6) > 0:
            if order1_onboard(c, f, t, b, simple) < 0:  # the same, written without moving
                return -1
            continue
        hit = do_step(c, f, t)
        pw = (<uint64_t> -1 << 16) | fg_step_word(0, f + 1, t + 1)  # the path so far (a word in a register)
        m2 = step_sources(c, b)
        if m2 == 0:
            if record(c, 1, pw) < 0:
                return -1
        plain = 0
        if not bar0 and t >= 0:
            # Two on-board steps by different checkers, neither landing where the other
            # started, give a position no other sequence gives: the same two steps in the
            # other order are skipped by order 2 below, and any other pair, a hop or a
            # bear-off changes other points. Only the rest need the dedup table.
            plain = m2 & ~((1u << t) | ((1u << b) - 1) | ((1u << (f + b)) if f + b < 24 else 0))
            if c.count_only:
                if plain and admit(c, 2, 0, 0, 1):
                    c.n += fg_popcount24(plain)
                m2 &= ~plain
        while m2:  # highest source first, the same order whether a step needs the table
            f2 = fg_highest(m2)
            m2 &= ~(1u << f2)
            if record_step(c, 1, f2, b, (plain >> f2) & 1, pw) < 0:
                return -1
        undo_step(c, f, t, hit)
    # R13: if the larger die alone was playable and no two-dice play exists, only the
    # larger die's plays are legal: the smaller die's single steps are not kept.
    larger_alone = c.best == 1

    # Order 2: the smaller die, then the larger.
    m1 = step_sources(c, b)
    while m1:
        f = fg_highest(m1)
        m1 &= ~(1u << f)
        t = f - b if f >= b else -1
        if c.best == 2 and not bar0 and t >= 0 and c.outside - (f >= 6 and t < 6) > 0:
            # As the restriction below, without moving: only a hop can be new.
            if hop_is_new(c, f, t, a):
                if c.count_only:
                    c.n += 1
                elif write_hop(c, f, t, t - a) < 0:
                    return -1
            continue
        hit = do_step(c, f, t)
        pw = (<uint64_t> -1 << 16) | fg_step_word(0, f + 1, t + 1)  # the path so far (a word in a register)
        m2 = step_sources(c, a)
        if m2 == 0:
            if not larger_alone and record(c, 1, pw) < 0:
                return -1
        elif c.best == 2 and not bar0 and t >= 0:
            # Order 1 already produced every pair of on-board steps taken from the
            # original position (any such pair is legal in either order here, with no
            # bar and no bear-off involved). New plays need the checker that just
            # landed to move on, or a bear-off.
            m2 &= (1u << t) | ~(POINTS << a)
        while m2:
            f2 = fg_highest(m2)
            m2 &= ~(1u << f2)
            if record_step(c, 1, f2, a, 0, pw) < 0:
                return -1
        undo_step(c, f, t, hit)
    return 0


# ---------------------------------------------------------------- bear-off counts
#
# Counting a non-double with every checker of the mover home (no bar) and no opposing
# checker on or below its highest point: no step can be blocked or hit, so which
# sequences are legal (R9 bear-off by occupancy, a second checker on a point only when it
# holds two) and which give equal positions (the same net change) depend only on whether
# each home point holds 0, 1 or 2+ checkers. The count of all 3**6 such classes for the 15
# non-double rolls is worked out once per process, by the counting search itself (about
# 2 ms with the doubles' table below, when the first Counter is made), and a generation
# of that kind becomes one lookup.

#
# Doubles of 3 and more in the same positions: every step is from a point at or above
# d - 1 (a move within home, or a bear-off from d - 1) while one stands there, then each
# bears off the highest checker left (R9), which is forced. So the plays depend only on
# the counts at d - 1 .. 6, each up to 4 (no play takes more from one point), and on how
# many of the checkers below are left for the forced steps (up to 4): 3,900 classes for
# the four doubles, filled the same way (smaller doubles would need 5**6 classes each).

cdef uint8_t BO_COUNT[15][729]   # [roll (a > b): (a-1)(a-2)/2 + b-1][sum of class(i) * 3**i]
cdef uint8_t BO_DCOUNT[4][3125]  # [d - 3][bo_double_key]
cdef uint16_t BO_T3[64]          # sum of 3**i over the bits i of a 6-bit mask
cdef bint bo_ready = 0
cdef bint bo_building = 0


cdef inline int bo_roll(int a, int b) noexcept nogil:
    """Row of BO_COUNT for the non-double a-b (either order)."""
    if a < b:
        a, b = b, a
    return (a - 1) * (a - 2) // 2 + b - 1


cdef inline int bo_double_key(const int8_t* own, int d) noexcept nogil:
    """Row of BO_DCOUNT[d - 3] for the mover's row `own` (all home): the counts at
    indices 5 down to d - 1, each up to 4, in base 5, then the checkers below, up to 4."""
    cdef int p, n, key = 0, low = 0
    for p in range(5, d - 2, -1):
        n = own[p]
        key = key * 5 + (n if n < 4 else 4)
    for p in range(d - 1):
        low += own[p]
    return key * 5 + (low if low < 4 else 4)


cdef int bearoff_init() except -1:
    """Fill BO_COUNT and BO_DCOUNT (once per process): the counting loop of Counter on
    one board of each class with each roll (a Counter made here does not come back here:
    bo_building)."""
    global bo_ready, bo_building
    cdef int a, b, key, i, r, k
    cdef Py_ssize_t row
    if bo_ready or bo_building:
        return 0
    for i in range(64):
        BO_T3[i] = 0
        r = 1
        for k in range(6):
            if (i >> k) & 1:
                BO_T3[i] += r
            r *= 3
    boards = np.zeros((15 * 729, 2, 25), dtype=np.int8)
    dice = np.zeros((15 * 729, 2), dtype=np.int8)
    counts = np.zeros(15 * 729, dtype=np.int64)
    cdef int8_t[:, :, ::1] bv = boards
    cdef int8_t[:, ::1] dv = dice
    for a in range(2, 7):
        for b in range(1, a):
            r = bo_roll(a, b)
            for key in range(729):
                row = r * 729 + key
                bv[row, 0, 0] = 15  # the opponent, in its home board: no contact
                k = key
                for i in range(6):
                    bv[row, 1, i] = k % 3
                    k //= 3
                dv[row, 0] = a
                dv[row, 1] = b
    # doubles: one board per class of BO_DCOUNT (classes of more than 15 checkers do not
    # occur and stay 0)
    dboards = np.zeros((4 * 3125, 2, 25), dtype=np.int8)
    ddice = np.zeros((4 * 3125, 2), dtype=np.int8)
    dcounts = np.zeros(4 * 3125, dtype=np.int64)
    cdef int8_t[:, :, ::1] dbv = dboards
    cdef int8_t[:, ::1] ddv = ddice
    cdef int total, nd = 0
    drows = np.zeros(4 * 3125, dtype=np.int32)
    cdef int32_t[::1] drow = drows
    for a in range(3, 7):
        r = 1
        for i in range(8 - a):
            r *= 5
        for key in range(r):
            k = key
            total = k % 5  # the checkers below d - 1, on index 0
            dbv[nd, 1, 0] = k % 5
            k //= 5
            for i in range(a - 1, 6):
                dbv[nd, 1, i] = k % 5
                total += k % 5
                k //= 5
            if total == 0 or total > 15:
                dbv[nd, 1, 0:6] = 0
                continue
            dbv[nd, 0, 0] = 15
            ddv[nd, 0] = a
            ddv[nd, 1] = a
            drow[nd] = (a - 3) * 3125 + key
            nd += 1
    bo_building = 1
    try:
        Counter(boards, dice, counts).count(0, 15 * 729)
        Counter(dboards, ddice, dcounts).count(0, nd)
    finally:
        bo_building = 0
    cdef int64_t[::1] cv = counts
    for row in range(15 * 729):
        c_assert(0 < cv[row] < 256)
        BO_COUNT[row // 729][row % 729] = <uint8_t> cv[row]
    cv = dcounts
    for row in range(nd):
        c_assert(0 < cv[row] < 256)
        BO_DCOUNT[drow[row] // 3125][drow[row] % 3125] = <uint8_t> cv[row]
    bo_ready = 1
    return 0


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


# ---------------------------------------------------------------- validation

cdef inline int board_error(const int8_t* b) noexcept nogil:
    """0 for a valid board (R4), else 1 negative, 2 over 15 on a side, 3 shared point."""
    if FG_SSE2_CHECK:
        return fg_board_error_sse2(b)  # the same checks, 16 bytes at a time
    return board_error_plain(b)


cdef inline int board_error_plain(const int8_t* b) noexcept nogil:
    """board_error in plain C, 8 bytes at a time."""
    cdef uint64_t w[6]
    cdef uint64_t neg = 0
    cdef int k, side
    cdef uint32_t big = 0, mine, theirs
    for k in range(3):
        w[k] = fg_load8(b + 8 * k)            # opponent, indices 0..23
        w[3 + k] = fg_load8(b + OWN + 8 * k)  # mover, indices 0..23
        neg |= w[k] | w[3 + k]
    if (neg & <uint64_t> 0x8080808080808080) or b[24] < 0 or b[OWN + 24] < 0:
        return 1
    for k in range(6):
        big |= fg_atleast16_8(w[k])
    if big or b[24] > 15 or b[OWN + 24] > 15:
        return 2
    for side in range(2):
        if (fg_bytesum8(w[3 * side]) + fg_bytesum8(w[3 * side + 1]) + fg_bytesum8(w[3 * side + 2])
                + b[side * OWN + 24]) > 15:
            return 2
    # Both sides on one physical point: my index t is the opponent's index 23 - t.
    mine = fg_nonzero8(w[3]) | (fg_nonzero8(w[4]) << 8) | (fg_nonzero8(w[5]) << 16)
    theirs = (fg_nonzero8(fg_rev8(w[2])) | (fg_nonzero8(fg_rev8(w[1])) << 8)
              | (fg_nonzero8(fg_rev8(w[0])) << 16))
    if mine & theirs:
        return 3
    return 0


def board_error_variants(const int8_t[:, ::1] board):
    """For tests: (board_error, its plain-C version) of one (2, 25) board; they must agree
    (the first is the SSE2 version where the build has it)."""
    return board_error(&board[0, 0]), board_error_plain(&board[0, 0])


def validate_board(const int8_t[:, ::1] board):
    """Error code of one (2, 25) board: 0 valid, 1 negative, 2 over 15, 3 shared point."""
    return board_error(&board[0, 0])


cdef extern from *:
    """
    /* 1 when one of the 8 bytes of w, read as int8, is outside 1..6 (branch-free; the
       sums stay within their bytes) */
    static inline int fg_bad_dice8(unsigned long long w) {
        unsigned long long low7 = w & 0x7F7F7F7F7F7F7F7FULL;
        return ((w | (low7 + 0x7979797979797979ULL) | ~(low7 + 0x7F7F7F7F7F7F7F7FULL))
                & 0x8080808080808080ULL) != 0;  /* negative, 7 and over, 0 */
    }
    """
    bint fg_bad_dice8(uint64_t w) noexcept nogil


def first_bad_dice(const int8_t[:, ::1] dice):
    """Index of the first row of an (N, 2) int8 array with a die outside 1..6, or -1.
    Eight dice at a time; the row is found one by one from the first word that fails."""
    cdef Py_ssize_t i, j = 0, n = dice.shape[0]
    cdef const int8_t* p
    if n == 0:
        return -1
    p = &dice[0, 0]
    with nogil:
        while j + 8 <= 2 * n and not fg_bad_dice8(fg_load8(p + j)):
            j += 8
        for i in range(j // 2, n):
            if not (1 <= dice[i, 0] <= 6 and 1 <= dice[i, 1] <= 6):
                break
        else:
            i = -1
    return i


def validate_boards(const int8_t[:, :, ::1] boards):
    """(index, code) of the first invalid board of a batch, or (-1, 0)."""
    cdef Py_ssize_t i, n = boards.shape[0]
    cdef int code = 0
    with nogil:
        for i in range(n):
            code = board_error(&boards[i, 0, 0])
            if code:
                break
    if code:
        return i, code
    return -1, 0


# ---------------------------------------------------------------- Python entry points

cdef Ctx* _single = NULL  # used under the GIL only, by single-position calls


cdef Ctx* single_ctx() except NULL:
    global _single
    if _single == NULL:
        _single = ctx_new(0, 256)
        if _single == NULL:
            raise MemoryError("fastgen: cannot allocate the generator context")
    _single.n = 0
    return _single


cdef inline int small_die(object d):
    """The value of a die given as a plain int 1..6, else 0."""
    cdef long v
    if type(d) is not int:
        return 0
    v = d
    return <int> v if 1 <= v <= 6 else 0


cdef object new_int8(int nd, cnp.npy_intp* dims, const void* src, size_t nbytes):
    cdef cnp.ndarray out = cnp.PyArray_EMPTY(nd, dims, cnp.NPY_INT8, 0)
    memcpy(cnp.PyArray_DATA(out), src, nbytes)
    return out


def legal_plays_fast(object board, object dice):
    """The common case in one call: a C-contiguous int8 (2, 25) array and a tuple or
    list of two ints. Returns (board copy, d1, d2, boards, moves), or None when the input
    is of another kind or invalid, so the caller takes the validating path.
    """
    cdef cnp.ndarray arr
    cdef int d1, d2, k
    cdef const int8_t* src
    cdef Ctx* c
    cdef cnp.npy_intp dims[3]
    if type(board) is not np.ndarray or (type(dice) is not tuple and type(dice) is not list):
        return None
    arr = <cnp.ndarray> board
    if (cnp.PyArray_NDIM(arr) != 2 or cnp.PyArray_DIMS(arr)[0] != 2 or cnp.PyArray_DIMS(arr)[1] != 25
            or cnp.PyArray_TYPE(arr) != cnp.NPY_INT8 or not cnp.PyArray_IS_C_CONTIGUOUS(arr)
            or len(dice) != 2):
        return None
    d1 = small_die(dice[0])
    d2 = small_die(dice[1])
    src = <const int8_t*> cnp.PyArray_DATA(arr)
    if d1 == 0 or d2 == 0 or board_error(src):
        return None
    c = single_ctx()
    k = generate(c, src, d1, d2)
    if k < 0:
        raise MemoryError("fastgen: out of memory generating plays")
    dims[0] = 2
    dims[1] = 25
    copy = new_int8(2, dims, src, BOARD_BYTES)
    dims[0] = k
    dims[1] = 2
    dims[2] = 25
    boards = new_int8(3, dims, c.boards, k * BOARD_BYTES)
    dims[1] = 4
    dims[2] = 2
    moves = new_int8(3, dims, c.moves, k * MOVE_BYTES)
    return copy, d1, d2, boards, moves


cdef int fill_range(Ctx* c, const int8_t[:, :, ::1] boards, const int8_t[:, ::1] dice,
                    int64_t[::1] offsets, Py_ssize_t lo, Py_ssize_t hi, const int* stop) noexcept nogil:
    """Generate positions lo..hi-1 into c; offsets[i + 1] gets the running total.

    Offsets are relative to the start of this context's output. Each board is checked
    (R4) just before its generation, so the check runs in the worker threads too.
    Returns 0, -1 on OOM, -3 at an invalid board, -4 when *stop is set.
    """
    cdef Py_ssize_t i
    for i in range(lo, hi):
        if fg_stopped(stop):
            return -4
        if board_error(&boards[i, 0, 0]):
            return -3
        if generate(c, &boards[i, 0, 0], dice[i, 0], dice[i, 1]) < 0:
            return -1
        offsets[i + 1] = c.n
    return 0


cdef object take_buffer(int8_t* data, int64_t n, int bytes_per, tuple tail):
    """Wrap a malloc'd buffer of n items as a numpy array that frees it (no copy)."""
    if n == 0:
        free(data)
        return np.empty((0,) + tail, dtype=np.int8)
    cdef cvarray arr = cvarray(shape=(n * bytes_per,), itemsize=1, format="b",
                               mode="c", allocate_buffer=False)
    arr.data = <char*> data
    arr.callback_free_data = free
    return np.asarray(arr).reshape((n,) + tail)


cdef class Part:
    """Output of one worker: its plays in its own buffers (offsets are relative to them)."""
    cdef Ctx* c
    cdef readonly int64_t count

    def __dealloc__(self):
        ctx_free(self.c)


def batch_part(const int8_t[:, :, ::1] boards, const int8_t[:, ::1] dice,
               int64_t[::1] offsets, Py_ssize_t lo, Py_ssize_t hi, StopFlag stop=None):
    """Generate positions lo..hi-1 without the GIL; writes offsets[lo+1 .. hi] relative
    to this part and returns the Part holding the plays, or None when a board of the
    range is invalid (the caller then reports the first invalid board) or when `stop`
    was set (the part is incomplete; the caller discards the batch)."""
    cdef const int* sp = flag_of(stop)
    cdef int64_t est = (hi - lo) * 20 + 64
    cdef Ctx* c = ctx_new(0, est)
    cdef int r
    if c == NULL:
        raise MemoryError("fastgen: cannot allocate the generator context")
    part = Part()
    part.c = c
    with nogil:
        r = fill_range(c, boards, dice, offsets, lo, hi, sp)
    if r == -3 or r == -4:
        return None
    if r < 0:
        raise MemoryError(f"fastgen: out of memory generating plays of positions {lo}..{hi - 1}")
    part.count = c.n
    return part


cdef int append_release(int8_t* dst, int8_t* src, int64_t nbytes) noexcept nogil:
    """Copy src to dst in 4 MiB pieces, handing each copied piece of src back to the OS
    at once, so a merge needs little more memory than its output."""
    cdef int64_t done = 0, piece = 4 << 20, k
    cdef uintptr_t lo, hi
    while done < nbytes:
        k = nbytes - done if nbytes - done < piece else piece
        memcpy(dst + done, src + done, k)
        lo = (<uintptr_t> (src + done) + 4095) & ~(<uintptr_t> 4095)
        hi = (<uintptr_t> (src + done + k)) & ~(<uintptr_t> 4095)
        if hi > lo:
            fg_discard(<void*> lo, hi - lo)
        done += k
    return 0


def merge_parts(list parts):
    """(boards, moves) arrays holding every part's plays in order; consumes the parts.

    The first part's buffers grow in place (realloc) and the others are appended, each
    released piece by piece as it is copied."""
    cdef Part first = parts[0], p
    cdef Ctx* c = first.c
    cdef int64_t total = 0, at
    cdef int8_t* nb
    cdef int8_t* nm
    for p in parts:
        total += p.count
    if len(parts) > 1:
        nb = <int8_t*> realloc(c.boards, (total if total else 1) * BOARD_BYTES)
        if nb == NULL:
            raise MemoryError("fastgen: out of memory merging batch parts")
        c.boards = nb
        nm = <int8_t*> realloc(c.moves, (total if total else 1) * MOVE_BYTES)
        if nm == NULL:
            raise MemoryError("fastgen: out of memory merging batch parts")
        c.moves = nm
        c.cap = total if total else 1
        advise_huge(c.boards, total * BOARD_BYTES)
        at = c.n
        for p in parts[1:]:
            with nogil:
                append_release(c.boards + at * BOARD_BYTES, p.c.boards, p.count * BOARD_BYTES)
                append_release(c.moves + at * MOVE_BYTES, p.c.moves, p.count * MOVE_BYTES)
            at += p.count
            ctx_free(p.c)
            p.c = NULL
        c.n = total
    # The unused tail of the buffers is not given back with realloc: that cost more than
    # it saved (the kernel remaps the pages), and pages never written use no memory.
    boards = take_buffer(c.boards, c.n, BOARD_BYTES, (2, 25))
    moves = take_buffer(c.moves, c.n, MOVE_BYTES, (4, 2))
    c.boards = NULL  # now owned by the arrays
    c.moves = NULL
    ctx_free(c)
    first.c = NULL
    return boards, moves


# ---------------------------------------------------------------- native random rollouts
#
# Whole games inside the core for the uniform-random policy: per turn, generate the plays
# into a small reused buffer (it stays in cache), pick one, turn the board over. Dice and
# choices come from the same counter-based hash as fastgen.sim.rollout's Python loop
# (splitmix64 of seed, game, turn and purpose), so both give identical games.

cdef enum:
    PURPOSE_DICE = 1
    PURPOSE_OPENING = 2
    PURPOSE_CHOICE = 3
    MAX_TURNS = 1000000   # a guard: random games end long before this

cdef uint64_t GOLDEN = 0x9E3779B97F4A7C15


cdef inline uint64_t mix64(uint64_t z) noexcept nogil:
    z = (z ^ (z >> 30)) * <uint64_t> 0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t> 0x94D049BB133111EB
    return z ^ (z >> 31)


cdef inline uint64_t game_hash(uint64_t key, uint64_t game, uint64_t turn) noexcept nogil:
    return mix64(mix64(key + game * GOLDEN) + (turn + 1) * GOLDEN)


cdef inline uint64_t uniform_index(uint64_t h, uint64_t n) noexcept nogil:
    return ((h >> 32) * n) >> 32


cdef inline uint64_t purpose_key(uint64_t seed, uint64_t purpose) noexcept nogil:
    """The per-(seed, purpose) constant of the hash (fastgen.sim.rollout computes the same)."""
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


cdef int play_games(Ctx* c, const int8_t[:, :, ::1] start, int from_opening, uint64_t seed,
                    const int8_t[:, ::1] opening_rolls, int64_t lo, int64_t hi,
                    int8_t[::1] winner, int8_t[::1] result, int32_t[::1] turns,
                    const int* stop, int64_t* long_game, int pubeval, int64_t max_turns) noexcept nogil:
    """Play games lo..hi-1 to the end, game g's outcome at index g - lo of the outputs,
    choosing uniformly at random, or pubeval's play when `pubeval` (see pub_choose).
    Returns 0, -1 when memory is short, -2 when a game reaches max_turns (its index in
    *long_game), -3 when *stop is set (polled every turn)."""
    cdef uint64_t kd = purpose_key(seed, PURPOSE_DICE)
    cdef uint64_t ko = purpose_key(seed, PURPOSE_OPENING)
    cdef uint64_t kc = purpose_key(seed, PURPOSE_CHOICE)
    cdef int8_t board[50]
    cdef const int8_t* after
    cdef int64_t g, t
    cdef int8_t dice[2]
    cdef int8_t res
    cdef int d1, d2, k
    cdef Py_ssize_t nstart = start.shape[0]
    for g in range(lo, hi):
        memcpy(board, &start[g % nstart, 0, 0], BOARD_BYTES)
        t = 0
        while True:
            if fg_stopped(stop):
                return -3
            roll_of(dice, kd, ko, g, t, from_opening and t == 0, &opening_rolls[0, 0])
            d1 = dice[0]
            d2 = dice[1]
            c.n = 0
            k = generate(c, board, d1, d2)
            if k < 0:
                return -1
            if pubeval:
                after = c.boards + pub_choose(board, d1, d2, c.boards, k) * BOARD_BYTES
            else:
                after = c.boards + uniform_index(game_hash(kc, g, t), <uint64_t> k) * BOARD_BYTES
            res = win_of(after)
            if res:  # R17: the mover bore off its last checker
                winner[g - lo] = t % 2
                turns[g - lo] = <int32_t> (t + 1)
                result[g - lo] = res
                break
            memcpy(board, after + OWN, 25)  # the other side is now on roll
            memcpy(board + OWN, after, 25)
            t += 1
            if t >= max_turns:
                long_game[0] = g
                return -2
    return 0


MAX_ROLLOUT_TURNS = MAX_TURNS


def rollout_random_range(const int8_t[:, :, ::1] start, bint from_opening, uint64_t seed,
                         const int8_t[:, ::1] opening_rolls, int64_t lo, int64_t hi,
                         int8_t[::1] winner, int8_t[::1] result, int32_t[::1] turns,
                         StopFlag stop=None, bint pubeval=False, int64_t max_turns=MAX_TURNS):
    """Play games lo..hi-1 with the uniform-random policy (or pubeval's choice when
    `pubeval`), without the GIL; game g's outcome goes to index g - lo of winner, result
    and turns (each at least hi - lo long). Returns -1, or the index of a game that
    reached max_turns turns (the rest of the range is then unplayed); returns early when
    `stop` is set."""
    cdef Ctx* c
    cdef int r
    cdef int64_t long_game = -1
    cdef const int* sp = flag_of(stop)
    if pubeval and not pub_loaded:
        raise RuntimeError("fastgen: pubeval weights not loaded (fastgen.sim.pubeval loads them)")
    if lo < 0 or hi < lo or min(winner.shape[0], result.shape[0], turns.shape[0]) < hi - lo:
        raise ValueError(f"fastgen: games {lo!r}..{hi!r} do not fit outputs of length {winner.shape[0]!r}")
    c = ctx_new(0, 4096)
    if c == NULL:
        raise MemoryError("fastgen: cannot allocate the generator context")
    with nogil:
        r = play_games(c, start, from_opening, seed, opening_rolls, lo, hi, winner, result, turns,
                       sp, &long_game, pubeval, max_turns)
    ctx_free(c)
    if r == -1:
        raise MemoryError("fastgen: out of memory in a rollout")
    return long_game


def roll_dice(uint64_t seed, const int64_t[::1] gid, const int64_t[::1] turn, const uint8_t[::1] opening,
              const int8_t[:, ::1] opening_rolls, int8_t[:, ::1] out):
    """out[j] = the roll of game gid[j] at turn turn[j], from the same hash as the native
    rollouts: an opening roll (one of opening_rolls) where opening[j], else one of 36."""
    cdef uint64_t kd = purpose_key(seed, PURPOSE_DICE)
    cdef uint64_t ko = purpose_key(seed, PURPOSE_OPENING)
    cdef Py_ssize_t j, n = gid.shape[0]
    with nogil:
        for j in range(n):
            roll_of(&out[j, 0], kd, ko, <uint64_t> gid[j], <uint64_t> turn[j], opening[j], &opening_rolls[0, 0])


def pool_turn(const int8_t[:, :, ::1] src, const int64_t[::1] offsets, const int64_t[::1] pick,
              int8_t[:, :, ::1] boards, int64_t[::1] gid, int64_t[::1] turn, int8_t[:, ::1] dice,
              int8_t[::1] winner, int8_t[::1] result, int32_t[::1] turns,
              const int8_t[:, :, ::1] start_boards, int64_t first_game, int64_t next_game, int64_t end,
              int64_t max_turns, uint64_t seed, bint from_opening, const int8_t[:, ::1] opening_rolls,
              int64_t[::1] info):
    """One turn of the batched rollout loop for the n = offsets.shape[0] - 1 games of the
    pool (boards, gid, turn, dice: their first n rows), after the policy chose pick[j]
    (relative to game j's range of src, the candidates).

    Checks every pick first (nothing is written if one is out of range: info[1] = its
    index). Then each game's position becomes its chosen candidate turned over (the other
    side on roll) and its turn count goes up; a game won by that play (R17) records
    winner/result/turns at gid - first_game and its slot takes the next new game
    (gid next_game, start_boards[gid % K], turn 0) while next_game < end, else leaves the
    pool, which closes up in order. Then the new pool's dice are rolled (as roll_dice;
    an opening roll at turn 0 when from_opening). Returns the new pool size; info[0] = the
    games finished, info[1] = -1 or the bad pick, info[2] = -1 or the first slot whose
    game reached max_turns, info[3] = the next new game."""
    cdef Py_ssize_t j, m = 0, n = offsets.shape[0] - 1, k_start = start_boards.shape[0]
    cdef int64_t p, g, done = 0
    cdef const int8_t* b
    cdef int8_t res
    cdef uint64_t kd = purpose_key(seed, PURPOSE_DICE)
    cdef uint64_t ko = purpose_key(seed, PURPOSE_OPENING)
    info[0] = 0
    info[1] = -1
    info[2] = -1
    info[3] = next_game
    if pick.shape[0] != n or src.shape[0] != offsets[n]:
        raise ValueError("pool_turn: pick and offsets do not match the candidates")
    with nogil:
        for j in range(n):
            p = pick[j]
            if p < 0 or p >= offsets[j + 1] - offsets[j]:
                info[1] = j
                break
    if info[1] >= 0:
        return n
    with nogil:
        for j in range(n):
            b = &src[offsets[j] + pick[j], 0, 0]
            res = win_of(b)
            if res == 0:  # the game goes on, in slot m (m <= j: rows j.. are not read yet)
                memcpy(&boards[m, 0, 0], b + OWN, 25)
                memcpy(&boards[m, 1, 0], b, 25)
                gid[m] = gid[j]
                turn[m] = turn[j] + 1
                if turn[m] >= max_turns and info[2] < 0:
                    info[2] = m
                m += 1
                continue
            done += 1
            g = gid[j] - first_game
            winner[g] = <int8_t> (turn[j] % 2)
            result[g] = res
            turns[g] = <int32_t> (turn[j] + 1)
            if next_game < end:
                gid[m] = next_game
                turn[m] = 0
                memcpy(&boards[m, 0, 0], &start_boards[next_game % k_start, 0, 0], 50)
                next_game += 1
                m += 1
        for j in range(m):
            roll_of(&dice[j, 0], kd, ko, <uint64_t> gid[j], <uint64_t> turn[j],
                    from_opening and turn[j] == 0, &opening_rolls[0, 0])
    info[0] = done
    info[3] = next_game
    return m


cdef inline uint64_t board_hash(const int8_t* b) noexcept nogil:
    """A 64-bit hash of the 50 bytes of a board (equal boards, equal hashes)."""
    cdef uint64_t w[7]
    w[6] = 0
    memcpy(w, b, 50)
    cdef uint64_t h = (w[0] * <uint64_t> 0x9E3779B97F4A7C15ULL) ^ (w[1] * <uint64_t> 0xC2B2AE3D27D4EB4FULL)
    h ^= (w[2] * <uint64_t> 0x165667B19E3779F9ULL) ^ (w[3] * <uint64_t> 0xD6E8FEB86659FD93ULL)
    h ^= (w[4] * <uint64_t> 0xFF51AFD7ED558CCDULL) ^ (w[5] * <uint64_t> 0xC4CEB9FE1A85EC53ULL)
    h ^= w[6] * <uint64_t> 0x94D049BB133111EBULL
    return mix64(h)


cdef inline uint64_t row_code(const int8_t* row) noexcept nogil:
    """The checkers of one side (25 counts of at most 15 checkers in all) as a bit string
    read from point 1 up: each point's count in ones, then a zero; left-aligned in 40
    bits (one-to-one, as in GNU Backgammon's position IDs)."""
    cdef uint64_t code = 0
    cdef int i, n, bits = 0
    for i in range(25):
        n = row[i]
        code = (code << (n + 1)) | ((((<uint64_t> 1) << n) - 1) << 1)
        bits += n + 1
    return code << (40 - bits)


def merge_children(const int8_t[:, :, ::1] kids, const int64_t[::1] offsets, const int64_t[::1] row_w,
                   int8_t[:, :, ::1] out, int64_t[::1] out_w, uint64_t[::1] out_key):
    """perft's merge of one expanded batch. Rows offsets[r]..offsets[r+1]-1 of *kids* (the
    plays of one position and roll, as plays_batch gives them) weigh row_w[r] each.
    Children whose mover bore off its last checker (R17: the game is over) are counted but
    dropped; the others are turned over (the other side on roll) and identical ones merged:
    out[:u] holds each distinct one once, in order of first appearance, and out_w[:u] the
    sum of its weights, and out_key[:u] a sort key that puts children with the same
    opponent (row 0) next to each other (row_code of row 0, then the first 24 bits of
    row 1's). Returns (u, the weighted number of all children). *out*, *out_w* and
    *out_key* need room for every child."""
    cdef Py_ssize_t rows = offsets.shape[0] - 1, r, i, u = 0
    cdef Py_ssize_t n = kids.shape[0]
    if offsets[rows] != n or row_w.shape[0] != rows or out.shape[0] < n or out_w.shape[0] < n or out_key.shape[0] < n:
        raise ValueError("merge_children: the arrays do not match")
    if n >= 0x7FFFFFFF:  # indices live in 32 bits of the table
        raise ValueError(f"merge_children: {n} children, more than one call merges")
    cdef int64_t total = 0, w
    cdef size_t size = 16
    while size < <size_t> (2 * n):
        size <<= 1
    cdef uint64_t* table = <uint64_t*> malloc(size * sizeof(uint64_t))
    if table == NULL:
        raise MemoryError("fastgen: out of memory merging perft children")
    cdef uint64_t h, tag, e
    cdef size_t slot, mask = size - 1
    cdef const int8_t* k
    cdef int8_t* o
    with nogil:
        memset(table, 0, size * sizeof(uint64_t))
        for r in range(rows):
            w = row_w[r]
            total += w * (offsets[r + 1] - offsets[r])
            for i in range(offsets[r], offsets[r + 1]):
                k = &kids[i, 0, 0]
                if win_of(k):  # R17: the game is over
                    continue
                h = board_hash(k)
                tag = h & <uint64_t> 0xFFFFFFFF00000000ULL
                slot = <size_t> h & mask
                while True:
                    e = table[slot]
                    if e == 0:
                        table[slot] = tag | <uint64_t> (u + 1)
                        o = &out[u, 0, 0]
                        memcpy(o, k + OWN, 25)
                        memcpy(o + OWN, k, 25)
                        out_w[u] = w
                        out_key[u] = (row_code(k + OWN) << 24) | (row_code(k) >> 16)
                        u += 1
                        break
                    if (e & <uint64_t> 0xFFFFFFFF00000000ULL) == tag:
                        o = &out[<Py_ssize_t> (e & 0xFFFFFFFFULL) - 1, 0, 0]
                        if memcmp(o, k + OWN, 25) == 0 and memcmp(o + OWN, k, 25) == 0:
                            out_w[<Py_ssize_t> (e & 0xFFFFFFFFULL) - 1] += w
                            break
                    slot = (slot + 1) & mask
    free(table)
    return u, total


# ---------------------------------------------------------------- two threads, no copy
#
# With two threads the output is written once, straight to its final place: one anonymous
# mapping is reserved (address space only), the split position `mid` is put at its middle,
# thread 0 generates positions mid-1, mid-2, ..., lo and lays their plays downward from the
# middle while thread 1 lays mid, mid+1, ..., hi-1 upward from it. The two blocks meet at
# the middle, so the result is one contiguous array with no merge copy. Each position is
# generated into a small per-thread scratch buffer that stays in cache, then copied once.
# If a half would not fit its reservation (far more plays than any real workload), the
# caller falls back to the ordinary path.

cdef size_t PAGE = 4096


cdef class Mapping:
    """An anonymous mapping reserved for the output of two-thread batches."""
    cdef char* base
    cdef readonly size_t length
    cdef readonly int bytes_per      # BOARD_BYTES or MOVE_BYTES: which pool it returns to

    def __dealloc__(self):
        if self.base != NULL:
            fg_unreserve(self.base, self.length)


# Mappings whose arrays are gone, kept for the next two-thread batch: pages already
# written stay in place, so the next batch does not pay the kernel to fault in and zero
# fresh memory (that was a third of a two-thread batch). At most SPARES of each kind are
# kept; release_memory() unmaps them.
cdef list _spares = []
cdef int SPARES = 2


cdef void give_back(Mapping m):
    """Keep m as a spare if fewer than SPARES of its kind are kept, else let it go."""
    cdef Mapping x
    cdef int kept = 0
    for x in _spares:
        kept += x.bytes_per == m.bytes_per
    if kept < SPARES:
        _spares.append(m)


cdef class Lease:
    """The memory numpy arrays of a two-thread batch view: part of a Mapping. When the
    last array goes, the mapping is kept as a spare (or unmapped)."""
    cdef Mapping m
    cdef char* data
    cdef Py_ssize_t nbytes

    def __dealloc__(self):
        if self.m is not None:
            give_back(self.m)

    def __getbuffer__(self, Py_buffer* buf, int flags):
        buf.buf = self.data
        buf.obj = self
        buf.len = self.nbytes
        buf.readonly = 0
        buf.itemsize = 1
        buf.format = b"b"
        buf.ndim = 1
        buf.shape = &self.nbytes
        buf.strides = NULL
        buf.suboffsets = NULL
        buf.internal = NULL

    def __releasebuffer__(self, Py_buffer* buf):
        pass


USES_MMAP = bool(FG_USES_MMAP)   # False in a FASTGEN_PORTABLE=1 build or without mmap


def release_memory():
    """Unmap the spare output mappings kept for reuse; returns the bytes of address space
    given back (their written pages are returned to the system with them)."""
    cdef Mapping m
    cdef size_t total = 0
    for m in _spares:
        total += m.length
    _spares.clear()
    return total


cdef Mapping reserve(int64_t plays_below, int64_t plays_above, int bytes_per, int64_t* centre):
    """A mapping with room for plays_below plays under its centre and plays_above over
    it: a spare when one is large enough, else a new reservation (address space only)."""
    cdef Mapping m
    cdef void* p
    cdef int64_t half, size
    for i, m in enumerate(_spares):
        half = <int64_t> (m.length // bytes_per) // 2
        if m.bytes_per == bytes_per and half >= plays_below and half >= plays_above:
            del _spares[i]
            centre[0] = half
            return m
    half = plays_below if plays_below > plays_above else plays_above
    size = (2 * half * bytes_per + PAGE - 1) & ~(<int64_t> PAGE - 1)
    p = fg_reserve(size)  # address space only where mmap exists (MAP_NORESERVE)
    if p == NULL:
        return None
    m = Mapping()
    m.base = <char*> p
    m.length = size
    m.bytes_per = bytes_per
    advise_huge(p, size)
    centre[0] = half
    return m


cdef object lease_array(Mapping m, int64_t first, int64_t count, int bytes_per, tuple tail):
    """The array of plays first..first+count-1 of the mapping (it keeps the mapping)."""
    cdef Lease lease
    if count == 0:
        give_back(m)
        return np.empty((0,) + tail, dtype=np.int8)
    lease = Lease()
    lease.m = m
    lease.data = m.base + first * bytes_per
    lease.nbytes = count * bytes_per
    return np.frombuffer(lease, dtype=np.int8).reshape((count,) + tail)


cdef int fill_half(Ctx* c, const int8_t[:, :, ::1] boards, const int8_t[:, ::1] dice,
                   int64_t[::1] counts, Py_ssize_t lo, Py_ssize_t hi, int backward,
                   int8_t* rb, int8_t* rm, int64_t room, int64_t* cursor,
                   const int* stop) noexcept nogil:
    """One thread's half (see above): rb and rm point at the centre of the boards and
    moves mappings, `room` plays fit on this side of it; *cursor gets the final offset
    from the centre, in plays. Returns 0, -1 when memory is short, 1 on overflow, 2 at an
    invalid board (R4), 3 when *stop was set."""
    cdef Py_ssize_t i, j
    cdef int64_t cur = 0
    cdef int k = 0
    cdef int8_t* own_boards
    cdef int8_t* own_moves
    cdef int64_t own_cap
    if not backward:
        # Upward: generate straight into the mapping (borrowed, fixed-size buffers).
        own_boards, own_moves, own_cap = c.boards, c.moves, c.cap
        c.boards = rb
        c.moves = rm
        c.cap = room
        c.n = 0
        c.fixed = 1
        for i in range(lo, hi):
            if fg_stopped(stop):
                k = -4
                break
            if board_error(&boards[i, 0, 0]):
                k = -3
                break
            k = generate(c, &boards[i, 0, 0], dice[i, 0], dice[i, 1])
            if k < 0:
                break
            counts[i] = k
        c.boards, c.moves, c.cap = own_boards, own_moves, own_cap
        c.fixed = 0
        cursor[0] = c.n
        return 2 if k == -3 else (3 if k == -4 else (1 if k < 0 else 0))
    for j in range(hi - lo):
        # Downward: each position into the cached scratch buffer, then to its place.
        i = hi - 1 - j
        if fg_stopped(stop):
            return 3
        if board_error(&boards[i, 0, 0]):
            return 2
        c.n = 0
        k = generate(c, &boards[i, 0, 0], dice[i, 0], dice[i, 1])
        if k < 0:
            return -1
        if k - cur > room:
            return 1
        cur -= k
        memcpy(rb + cur * BOARD_BYTES, c.boards, k * BOARD_BYTES)
        memcpy(rm + cur * MOVE_BYTES, c.moves, k * MOVE_BYTES)
        counts[i] = k
    cursor[0] = cur
    return 0


def balanced_bounds(const int8_t[:, :, ::1] boards, const int8_t[:, ::1] dice, int parts,
                    double first_share=0.0):
    """Bounds (parts + 1 indices) cutting a batch into contiguous ranges of about equal
    generation cost.

    The estimate follows measured costs (in units of ~10 ns): a fixed part plus the
    number of plays, which grows with the square of the points the mover occupies for a
    non-double and with the cube for a double. With `first_share` > 0 (two parts only),
    the first part gets that share of the cost instead of half.
    """
    cdef Py_ssize_t i, n = boards.shape[0]
    cdef Py_ssize_t step = n // 4096 + 1   # a sample of at most ~4,096 positions is enough
    cdef int64_t total = 0, acc = 0
    cdef uint32_t occ
    cdef int64_t o
    cdef int k = 1
    cdef int64_t* w = <int64_t*> malloc((n // step + 2) * sizeof(int64_t))
    bounds = np.zeros(parts + 1, dtype=np.int64)
    cdef int64_t[::1] bv = bounds
    if w == NULL:
        raise MemoryError()
    with nogil:
        i = 0
        while i < n:
            occ = (fg_nonzero8(fg_load8(&boards[i, 1, 0])) | (fg_nonzero8(fg_load8(&boards[i, 1, 8])) << 8)
                   | (fg_nonzero8(fg_load8(&boards[i, 1, 16])) << 16))
            o = fg_popcount(occ)
            w[i // step] = 10 + ((o * o * o * 6) // 10 if dice[i, 0] == dice[i, 1] else o * o)
            total += w[i // step]
            i += step
        i = 0
        while i < n:
            acc += w[i // step]
            if first_share > 0.0:
                if k == 1 and acc >= first_share * total:
                    bv[1] = min(i + step, n)
                    k = 2
            else:
                while k < parts and acc * parts >= total * k:
                    bv[k] = min(i + step, n)
                    k += 1
            i += step
        while k <= parts:
            bv[k] = n
            k += 1
    free(w)
    return bounds


cdef class PairJob:
    """State of a two-thread batch: run(0) and run(1) from two threads, then finish();
    with one thread, run(0) (empty) then run_upper over the batch in pieces."""
    cdef const int8_t[:, :, ::1] boards
    cdef const int8_t[:, ::1] dice
    cdef int64_t[::1] counts   # offsets[1:]: each position's plays, then their running sums
    cdef object offsets
    cdef Mapping mb
    cdef Mapping mm
    cdef Py_ssize_t n, mid
    cdef int64_t cap_b, mid_b, cap_m, mid_m
    cdef int64_t cursor[2]
    cdef int status[2]
    cdef Ctx* c          # run_upper's context, kept from one range to the next
    cdef Py_ssize_t next # run_upper: the first position not yet filled

    def __dealloc__(self):
        ctx_free(self.c)

    def __init__(self, const int8_t[:, :, ::1] boards, const int8_t[:, ::1] dice, Py_ssize_t mid,
                 int64_t per_position=160):
        self.boards = boards
        self.dice = dice
        self.n = boards.shape[0]
        self.mid = mid
        # the plays of position i go to offsets[i + 1], summed in place by finish(): one
        # array of fresh memory per batch, not two
        self.offsets = np.empty(self.n + 1, dtype=np.int64)
        self.offsets[0] = 0
        self.counts = self.offsets[1:]
        # Address space only (MAP_NORESERVE): pages become memory when written.
        below = mid * per_position + 4096
        above = (self.n - mid) * per_position + 4096
        self.mb = reserve(below, above, BOARD_BYTES, &self.mid_b)
        self.mm = reserve(below, above, MOVE_BYTES, &self.mid_m)
        if self.mb is not None:
            self.cap_b = <int64_t> (self.mb.length // BOARD_BYTES)
        if self.mm is not None:
            self.cap_m = <int64_t> (self.mm.length // MOVE_BYTES)
        self.status[0] = self.status[1] = -2
        self.next = mid

    @property
    def invalid(self):
        """A board of the batch is invalid: the caller reports the first one."""
        return self.status[0] == 2 or self.status[1] == 2

    @property
    def reserved(self):
        return self.mb is not None and self.mm is not None

    def run(self, int k, StopFlag stop=None):
        """Fill half k (0: the lower, laid downward; 1: the upper) without the GIL;
        returns early when `stop` is set (the job is then abandoned)."""
        cdef const int* sp = flag_of(stop)
        cdef int8_t* rb = <int8_t*> self.mb.base + self.mid_b * BOARD_BYTES
        cdef int8_t* rm = <int8_t*> self.mm.base + self.mid_m * MOVE_BYTES
        cdef int64_t below = min(self.mid_b, self.mid_m)
        cdef int64_t above = min(self.cap_b - self.mid_b, self.cap_m - self.mid_m)
        cdef int r
        cdef int64_t cur = 0
        cdef Ctx* c = ctx_new(0, 4096)
        if c == NULL:
            raise MemoryError("fastgen: cannot allocate the generator context")
        with nogil:
            if k == 0:
                r = fill_half(c, self.boards, self.dice, self.counts, 0, self.mid, 1, rb, rm, below, &cur, sp)
            else:
                r = fill_half(c, self.boards, self.dice, self.counts, self.mid, self.n, 0, rb, rm, above, &cur, sp)
        ctx_free(c)
        self.status[k] = r
        self.cursor[k] = cur
        if r == -1:
            raise MemoryError("fastgen: out of memory generating plays")

    def run_upper(self, Py_ssize_t hi):
        """Fill the upper half in pieces from the calling thread: positions up to hi - 1
        (the first not yet filled onward), their plays after those of the earlier pieces,
        as run(1) lays them. True while all is well; False once a board was invalid or the
        reservation did not suffice (see run), after which finish() and invalid report it.
        The calling thread handles Ctrl-C between two pieces."""
        cdef int8_t* rb = <int8_t*> self.mb.base + self.mid_b * BOARD_BYTES
        cdef int8_t* rm = <int8_t*> self.mm.base + self.mid_m * MOVE_BYTES
        cdef int64_t above = min(self.cap_b - self.mid_b, self.cap_m - self.mid_m)
        cdef int64_t cur = self.cursor[1]
        cdef int64_t more = 0
        cdef Py_ssize_t lo = self.next
        cdef int r
        if self.status[1] != -2 and self.status[1] != 0:
            return False
        if hi > self.n:
            hi = self.n
        if self.c == NULL:
            self.c = ctx_new(0, 16)  # generates into the mapping: no scratch needed
            if self.c == NULL:
                raise MemoryError("fastgen: cannot allocate the generator context")
        with nogil:
            r = fill_half(self.c, self.boards, self.dice, self.counts, lo, hi, 0,
                          rb + cur * BOARD_BYTES, rm + cur * MOVE_BYTES, above - cur, &more, &_never)
        self.next = hi
        self.status[1] = r
        self.cursor[1] = cur + more
        if r == -1:
            raise MemoryError("fastgen: out of memory generating plays")
        return r == 0

    def abandon(self):
        """Drop an unfinished job (e.g. stopped): its mappings become spares for the next
        batch, so memory reuse carries on."""
        if self.mb is not None:
            give_back(self.mb)
        if self.mm is not None:
            give_back(self.mm)
        self.mb = self.mm = None

    def finish(self):
        """(offsets, boards, moves), or None when a half overflowed its reservation.
        Called once."""
        if self.status[0] != 0 or self.status[1] != 0 or self.offsets is None:
            return None
        offsets = self.offsets
        self.offsets = None
        np.cumsum(offsets[1:], out=offsets[1:])  # in place
        count = self.cursor[1] - self.cursor[0]
        boards = lease_array(self.mb, self.mid_b + self.cursor[0], count, BOARD_BYTES, (2, 25))
        moves = lease_array(self.mm, self.mid_m + self.cursor[0], count, MOVE_BYTES, (4, 2))
        self.mb = self.mm = None
        return offsets, boards, moves


# ---------------------------------------------------------------- counting

cdef class Counter:
    """A counting context for one thread: count(lo, hi) writes counts[lo:hi] (R10 plays
    per position) without the GIL. Ranges can be taken in any order, so threads can share
    a batch dynamically."""
    cdef Ctx* c
    cdef const int8_t[:, :, ::1] boards
    cdef const int8_t[:, ::1] dice
    cdef int64_t[::1] counts

    def __cinit__(self, const int8_t[:, :, ::1] boards, const int8_t[:, ::1] dice, int64_t[::1] counts):
        bearoff_init()
        self.c = ctx_new(1, 16)
        if self.c == NULL:
            raise MemoryError("fastgen: cannot allocate the generator context")
        # Read under the GIL, so the tables another thread filled are seen whole; 0 while
        # they are being filled (by this thread or another): the search counts then.
        self.c.tables = bo_ready
        self.boards = boards
        self.dice = dice
        self.counts = counts

    def __dealloc__(self):
        ctx_free(self.c)

    def count(self, Py_ssize_t lo, Py_ssize_t hi, StopFlag stop=None):
        """Count positions lo..hi-1; False when one of their boards is invalid (R4).
        Returns early (True, counts incomplete) when `stop` is set."""
        cdef Py_ssize_t i
        cdef int bad = 0
        cdef const int* sp = flag_of(stop)
        with nogil:
            for i in range(lo, hi):
                if fg_stopped(sp):
                    break
                if board_error(&self.boards[i, 0, 0]):
                    bad = 1
                    break
                self.c.n = 0
                self.counts[i] = generate(self.c, &self.boards[i, 0, 0], self.dice[i, 0], self.dice[i, 1])
        return not bad


def count_rolls(const int8_t[:, :, ::1] boards, const int8_t[:, ::1] rolls, int64_t[:, ::1] out):
    """out[i, r] = the number of plays of boards[i] with rolls[r] (count_plays_batch for
    every pair, without repeating each board once per roll in memory: perft's last level).
    Returns -1, or the index of the first invalid board (R4; out is then incomplete).
    The rolls must be valid dice (1..6)."""
    cdef Py_ssize_t i, r, n = boards.shape[0], k = rolls.shape[0]
    cdef int64_t bad = -1
    if out.shape[0] != n or out.shape[1] != k or rolls.shape[1] != 2:
        raise ValueError("count_rolls: the arrays do not match")
    for r in range(k):
        if not (1 <= rolls[r, 0] <= 6 and 1 <= rolls[r, 1] <= 6):
            raise ValueError(f"count_rolls: roll {r} is not a pair of dice 1..6")
    bearoff_init()
    cdef Ctx* c = ctx_new(1, 16)
    if c == NULL:
        raise MemoryError("fastgen: cannot allocate the generator context")
    c.tables = bo_ready  # read under the GIL, as in Counter
    with nogil:
        for i in range(n):
            if board_error(&boards[i, 0, 0]):
                bad = i
                break
            for r in range(k):
                c.n = 0
                out[i, r] = generate(c, &boards[i, 0, 0], rolls[r, 0], rolls[r, 1])
    ctx_free(c)
    return bad


# ---------------------------------------------------------------- pubeval at core speed
#
# Tesauro's pubeval chooses a play by scoring every candidate after the move with a linear
# function of the position (fastgen/sim/pubeval.py describes the inputs and holds the
# published weights, loaded here once by pubeval_load). The play chosen must be the one
# GNU Backgammon's pubeval player chooses, so the score that decides is computed in single
# precision in exactly its order of operations (gnubg_score), and ties go to the play its
# generator finds first (egg_first). Scoring every candidate that way is slow, so:
#
# * a fast score works from the position before the move: the 24 point terms of that
#   position are looked up once, and a candidate only re-scores the points where the
#   mover's count changed (found by comparing 8 bytes at a time), in double precision;
# * the single-precision score differs from the exact one by less than PUB_MARGIN / 2
#   (about 75 rounded operations on partial sums below 512, 2**-15 each at most), so when
#   the best fast score leads every other by more than PUB_MARGIN it is the choice;
#   otherwise the candidates within PUB_MARGIN of it are scored the slow, exact way.
#
# Generation is unchanged: the candidates are generated into the context's small buffer,
# which stays in cache, and scored there.

cdef float PW[2][122]        # single-precision weights as GNU Backgammon holds them
cdef double PM[2][24][32]    # PM[race][i][n + 15]: the term of the mover's index i holding n
cdef bint pub_loaded = 0
cdef double PUB_MARGIN = 1e-2
cdef float PUB_ALL_OFF = 99999999.0


def pubeval_load(const double[::1] contact, const double[::1] race):
    """Load Tesauro's published weights (122 each, as in fastgen.sim.pubeval)."""
    global pub_loaded
    cdef int r, i, k, n
    cdef double v
    cdef const double* w
    if contact.shape[0] != 122 or race.shape[0] != 122:
        raise ValueError("pubeval weights must have 122 entries each")
    for r in range(2):
        w = &race[0] if r else &contact[0]
        # The inputs (n - 3) / 2, opponent's bar / 2 and checkers off / 15 are folded
        # into their weights, rounded to single precision as GNU Backgammon does.
        for i in range(120):
            PW[r][i] = <float> (w[i] / 2.0) if i % 5 == 4 else <float> w[i]
        PW[r][120] = <float> (w[120] / 2.0)
        PW[r][121] = <float> (w[121] / 15.0)
        for k in range(24):  # block k: the mover's point 24 - k, index 23 - k
            i = 5 * k
            for n in range(-15, 17):
                if n == -1:
                    v = PW[r][i]
                elif n == 1:
                    v = PW[r][i + 1]
                elif n == 2:
                    v = PW[r][i + 2]
                elif n == 3:
                    v = <double> PW[r][i + 2] + <double> PW[r][i + 3]
                elif n >= 4:
                    v = <double> PW[r][i + 2] + <double> PW[r][i + 4] * (n - 3)
                else:
                    v = 0.0
                PM[r][23 - k][n + 15] = v
    pub_loaded = 1


cdef extern from *:
    """
    /* bit i set when bytes a[i] and b[i] differ, i = 0..23 (SSE2 where the compiler targets
       it, else plain C; FG_PORTABLE: plain C) */
    static inline unsigned fg_diff24(const signed char* a, const signed char* b) {
    #ifdef FG_CORE_SSE2
        __m128i x0 = _mm_loadu_si128((const __m128i*) a), y0 = _mm_loadu_si128((const __m128i*) b);
        __m128i x1 = _mm_loadu_si128((const __m128i*) (a + 8)), y1 = _mm_loadu_si128((const __m128i*) (b + 8));
        unsigned eq = (unsigned) _mm_movemask_epi8(_mm_cmpeq_epi8(x0, y0))
                      | ((unsigned) _mm_movemask_epi8(_mm_cmpeq_epi8(x1, y1)) << 8);
        return ~eq & 0xFFFFFFu;
    #else
        unsigned m = 0;
        int i;
        for (i = 0; i < 24; i++)
            m |= (unsigned) (a[i] != b[i]) << i;
        return m;
    #endif
    }
    /* Sum over the indices i in `changed` of row[i][n] - before[i], n = c[25 + i] - c[23 - i]
       (the mover's count at i, or minus the opponent's); with `moved`, it gets the change
       in the mover's checkers on those points. */
    static inline double fg_pub_sum(const signed char* c, const signed char* b, const double* const* row,
                                    const double* before, unsigned changed, int* moved) {
        double s = 0.0;
        int mv = 0;
        while (changed) {
            unsigned i = (unsigned) fg_ctz32(changed);  /* _platform.h */
            int mine = c[25 + i];
            changed &= changed - 1;
            if (moved) mv += mine - b[25 + i];
            s += row[i][mine - c[23 - i]] - before[i];
        }
        if (moved) *moved = mv;
        return s;
    }
    """
    uint32_t fg_diff24(const int8_t* a, const int8_t* b) noexcept nogil
    double fg_pub_sum(const int8_t* c, const int8_t* b, const double* const* row, const double* before,
                      uint32_t changed, int* moved) noexcept nogil


cdef inline int pub_race(const int8_t* b) noexcept nogil:
    """1 when the position is a race for pubeval (no contact, or a side has no checker
    left), as GNU Backgammon classifies it: the rearmost checkers' indices (bar 24) sum
    to 22 or less."""
    cdef int me = 24, opp = 24
    while me >= 0 and b[OWN + me] == 0:
        me -= 1
    while opp >= 0 and b[opp] == 0:
        opp -= 1
    return me < 0 or opp < 0 or me + opp <= 22


cdef inline int pub_off(const int8_t* b) noexcept nogil:
    """The mover's checkers borne off (row 1 of a flat board)."""
    return 15 - (fg_bytesum8(fg_load8(b + OWN)) + fg_bytesum8(fg_load8(b + OWN + 8))
                 + fg_bytesum8(fg_load8(b + OWN + 16)) + b[OWN + 24])


cdef float gnubg_score(const int8_t* b, int race) noexcept nogil:
    """The score of the position after a move (row 1 moved), computed in single precision
    in GNU Backgammon's order of operations, so equal and unequal scores come out as
    there. Block k is the mover's point 24 - k: n is the mover's count there, or minus the
    opponent's."""
    cdef const float* w = PW[race]
    cdef int off = pub_off(b)
    cdef int k, i, n
    cdef float s, t
    if off == 15:
        return PUB_ALL_OFF
    s = w[120] * <float> b[24]
    t = w[121] * <float> off
    s = s + t
    for k in range(24):
        i = 5 * k
        n = b[OWN + 23 - k]
        if n == 0:
            n = -b[k]
        if n == -1:
            s = s + w[i]
        elif n == 1:
            s = s + w[i + 1]
        elif n == 2:
            s = s + w[i + 2]
        elif n == 3:
            t = w[i + 2] + w[i + 3]
            s = s + t
        elif n >= 4:
            t = w[i + 4] * <float> (n - 3)
            t = w[i + 2] + t
            s = s + t
    return s


cdef int egg_step(int8_t* b, int f, int d) noexcept nogil:
    """Play one step of d pips from index f (24: the bar) on a flat board if it is legal
    (R6-R9); returns 1 when played."""
    cdef int t = f - d, i
    if b[OWN + f] == 0 or (f != 24 and b[OWN + 24]):
        return 0
    if t < 0:
        for i in range(6, 25):
            if b[OWN + i]:
                return 0  # R9: bear off only with every checker home
        if t < -1:
            for i in range(f + 1, 6):
                if b[OWN + i]:
                    return 0  # a larger die bears off only from the highest point
    elif b[23 - t] >= 2:
        return 0
    b[OWN + f] -= 1
    if t >= 0:
        if b[23 - t] == 1:
            b[23 - t] = 0
            b[24] += 1
        b[OWN + t] += 1
    return 1


cdef int egg_first(const int8_t* board, int d0, int d1, const int8_t* cands,
                   const int* tied, int ntied) noexcept nogil:
    """Which of the tied candidates (indices into cands) GNU Backgammon's generator lists
    first for a non-double played with both dice; -1 when none is such a play.

    Its order: the dice as given, then swapped; the first die's checker from the highest
    index down (bar first); the second die's from there down (as given: from the same
    index or lower; swapped: strictly lower)."""
    cdef int8_t one[50]
    cdef int8_t two[50]
    cdef int seq, a, b, p1, p2, j
    for seq in range(2):
        a = d0 if seq == 0 else d1
        b = d1 if seq == 0 else d0
        for p1 in range(24, -1, -1):
            memcpy(one, board, BOARD_BYTES)
            if not egg_step(one, p1, a):
                continue
            for p2 in range(p1 - seq, -1, -1):
                memcpy(two, one, BOARD_BYTES)
                if not egg_step(two, p2, b):
                    continue
                for j in range(ntied):
                    if memcmp_board(two, cands + tied[j] * BOARD_BYTES) == 0:
                        return tied[j]
    return -1


ctypedef struct PubPos:
    const double* row[24]    # row[i][n]: the term of the mover's index i holding n (-15..15)
    double before[24]        # the terms of the position before the move
    double wbar              # weight of one opponent checker on the bar
    double woff              # weight of one checker of the mover's off
    int off                  # the mover's checkers off before the move
    int bears_off            # 0 when no play can bear off (more checkers out than steps)


cdef enum:
    PUB_TIED_MAX = 64


cdef inline void pub_setup(PubPos* p, const int8_t* board, int race, int steps) noexcept nogil:
    cdef int i, out = board[OWN + 24]
    for i in range(24):
        p.row[i] = &PM[race][i][15]
        p.before[i] = p.row[i][board[OWN + i] - board[23 - i]]
        if i >= 6:
            out += board[OWN + i]
    p.wbar = PW[race][120]
    p.woff = PW[race][121]
    p.off = pub_off(board)
    p.bears_off = out < steps  # R9: the last checker outside needs a step to come home


cdef inline double pub_fast(const int8_t* c, const int8_t* b, const PubPos* p) noexcept nogil:
    """The score of candidate c, less the score of the position b before the move minus
    its bar and off terms, in double precision: only the points whose counts changed are
    looked up (the same for every candidate, so it ranks them as the full score does)."""
    cdef uint32_t changed = fg_diff24(c + OWN, b + OWN)
    cdef int moved, off
    cdef double s
    if c[24] != b[24]:
        # Hits: a checker that hit and moved on left the point empty, its count unchanged.
        changed |= (fg_nonzero8(fg_rev8(fg_load8(c + 16) ^ fg_load8(b + 16)))
                    | (fg_nonzero8(fg_rev8(fg_load8(c + 8) ^ fg_load8(b + 8))) << 8)
                    | (fg_nonzero8(fg_rev8(fg_load8(c) ^ fg_load8(b))) << 16))
    if p.bears_off:
        s = fg_pub_sum(c, b, p.row, p.before, changed, &moved)
        off = p.off - moved - (c[OWN + 24] - b[OWN + 24])
    else:
        s = fg_pub_sum(c, b, p.row, p.before, changed, NULL)
        off = p.off
    if off == 15:
        return PUB_ALL_OFF
    return s + p.wbar * c[24] + p.woff * off


cdef int pub_choose(const int8_t* board, int d0, int d1, const int8_t* cands, int k) noexcept nogil:
    """Index (0..k-1) of pubeval's choice among the k candidates (positions after the
    move, generated from `board` with dice d0, d1 in that order), as GNU Backgammon's
    pubeval player chooses: the highest score, ties to the play its generator lists
    first (for doubles and one-die plays that is fastgen's order too)."""
    cdef int race
    cdef PubPos p
    cdef double s, best = -1e300, second = -1e300
    cdef const int8_t* c
    cdef int j, bi = 0
    cdef float fs, fbest
    cdef int tied[PUB_TIED_MAX]
    cdef int ntied = 0
    if k <= 1:
        return 0
    race = pub_race(board)
    pub_setup(&p, board, race, 4 if d0 == d1 else 2)
    for j in range(k):
        s = pub_fast(cands + j * BOARD_BYTES, board, &p)
        if s > best:
            second = best
            best = s
            bi = j
        elif s > second:
            second = s
    if best - second > PUB_MARGIN:
        return bi
    # Close call: the exact single-precision scores of the close candidates decide.
    fbest = -1e30
    for j in range(k):
        c = cands + j * BOARD_BYTES
        if pub_fast(c, board, &p) < best - PUB_MARGIN:
            continue
        fs = gnubg_score(c, race)
        if fs > fbest:
            fbest = fs
            ntied = 0
        if fs == fbest and ntied < PUB_TIED_MAX:
            tied[ntied] = j
            ntied += 1
    if ntied > 1 and d0 != d1:
        j = egg_first(board, d0, d1, cands, tied, ntied)
        if j >= 0:
            return j
    return tied[0]  # doubles, one-die plays: fastgen's order is GNU Backgammon's


def pubeval_best_batch(const int8_t[:, :, ::1] boards, const int8_t[:, ::1] dice, int8_t[:, :, ::1] out,
                       StopFlag stop=None):
    """out[i] = the position after pubeval's play of boards[i] with dice[i] (row 1 the
    side that moved). Returns -1, or the index of the first invalid board (R4); returns
    early when `stop` is set (polled between positions)."""
    cdef Py_ssize_t i, n = boards.shape[0]
    cdef Ctx* c
    cdef int k = 0, bad = -1
    cdef const int* sp = flag_of(stop)
    if not pub_loaded:
        raise RuntimeError("fastgen: pubeval weights not loaded (fastgen.sim.pubeval loads them)")
    c = ctx_new(0, 4096)
    if c == NULL:
        raise MemoryError("fastgen: cannot allocate the generator context")
    with nogil:
        for i in range(n):
            if fg_stopped(sp):
                break
            if board_error(&boards[i, 0, 0]):
                bad = i
                break
            c.n = 0
            k = generate(c, &boards[i, 0, 0], dice[i, 0], dice[i, 1])
            if k < 0:
                break
            k = pub_choose(&boards[i, 0, 0], dice[i, 0], dice[i, 1], c.boards, k)
            memcpy(&out[i, 0, 0], c.boards + k * BOARD_BYTES, BOARD_BYTES)
    ctx_free(c)
    if k < 0:
        raise MemoryError("fastgen: out of memory generating plays")
    return bad


def pubeval_pick(const int8_t[:, :, ::1] before, const int8_t[:, ::1] dice,
                 const int8_t[:, :, ::1] cands, const int64_t[::1] offsets, int64_t[::1] out):
    """out[g] = pubeval's choice (relative to offsets[g]) among the candidates
    cands[offsets[g]:offsets[g+1]] of position before[g] with dice[g] (plays_batch's
    output for those positions, in its order)."""
    cdef Py_ssize_t g, n = before.shape[0]
    if not pub_loaded:
        raise RuntimeError("fastgen: pubeval weights not loaded (fastgen.sim.pubeval loads them)")
    with nogil:
        for g in range(n):
            out[g] = pub_choose(&before[g, 0, 0], dice[g, 0], dice[g, 1], &cands[offsets[g], 0, 0],
                                <int> (offsets[g + 1] - offsets[g]))


def pubeval_egg_first(const int8_t[:, ::1] board, int d0, int d1, const int8_t[:, :, ::1] cands,
                      const int32_t[::1] tied):
    """For tests: which of cands[tied] GNU Backgammon's generator lists first for a
    non-double played with both dice (see egg_first), or -1."""
    return egg_first(&board[0, 0], d0, d1, &cands[0, 0, 0], <const int*> &tied[0], tied.shape[0])


include "_duel.pxi"
