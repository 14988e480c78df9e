# Bit and word helpers of the compiled modules (C inline functions): masks of the 24
# points, popcounts, byte tricks over 8 board bytes at a time, move lists as words.
#
# Cimported by the move generator (_core.pyx), pubeval (fastgen/players/_pubeval.pyx), the
# .mat scanner and the RL environments' kernel (fastgen/envs/_kernel.pyx): each gets its
# own copy of these inline functions, so one definition serves them all. The word and bit builtins are
# _platform.h's, each with its portable fallback (FASTGEN_PORTABLE=1 builds only those);
# a module cimporting this file needs fastgen/core on its include path.

from libc.stdint cimport int8_t, uint32_t, uint64_t

cdef extern from "_platform.h":
    int fg_clz32(uint32_t m) noexcept nogil       # m != 0
    int fg_ctz32(uint32_t m) noexcept nogil       # m != 0
    uint64_t fg_bswap64(uint64_t x) noexcept nogil


# ---------------------------------------------------------------- bit tricks

cdef extern from *:
    """
    #include <string.h>
    /* SSE2 where the compiler targets it (the core's board check, pubeval's changed points) */
    #if defined(__SSE2__) && !defined(FG_PORTABLE) && !defined(FG_CORE_SSE2)
    #define FG_CORE_SSE2 1
    #include <emmintrin.h>
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
