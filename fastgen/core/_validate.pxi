# Part of the compiled core: included into fastgen/core/_core.pyx (one extension, so
# the C compiler can inline across files); the names and imports are _core.pyx's.
#
# Validation: board checks (R4) and dice checks, word at a time.


# ---------------------------------------------------------------- validation

cdef extern from *:
    """
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
       FG_SSE2_CHECK is 0 and board_error_plain below is used without SSE2. */
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
    """
    bint FG_SSE2_CHECK
    int fg_board_error_sse2(const int8_t* b) noexcept nogil


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


cdef int board_check(const int8_t* b) noexcept nogil:
    """board_error for other extensions (declared in _core.pxd; the simulation's pubeval
    batch checks each board with it)."""
    return board_error(b)


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
