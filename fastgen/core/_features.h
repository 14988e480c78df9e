/* Network input encoders: the row kernels of fastgen.core._features (see _features.pyx).
 *
 * A row is one (2, 25) int8 board seen from `mover` (its 25 counts: points 1..24, bar)
 * against `opp`. Counts are trusted: 0..15, at most 15 a side (checked in Python first).
 * Plain C, no Python objects; the per-point loops are unrolled so that each point costs a
 * byte load and one 16-byte table copy. */
#ifndef FASTGEN_FEATURES_H
#define FASTGEN_FEATURES_H

#include <stdint.h>
#include <string.h>

#include "_contact.h"
/* FG_PORTABLE (FASTGEN_PORTABLE=1 builds): plain C only, as on a CPU without SSE2/AVX2. */
#if defined(__SSE2__) && !defined(FG_PORTABLE)
#define FG_SSE2 1
#include <emmintrin.h>
#endif
#if !defined(FG_PORTABLE) && (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
#define FG_X86_DISPATCH 1
#include <immintrin.h>
#endif

#if defined(__GNUC__) && !defined(__clang__)
#define FG_UNROLL _Pragma("GCC unroll 24")
#elif defined(__clang__)
#define FG_UNROLL _Pragma("unroll")
#else
#define FG_UNROLL
#endif

/* Tesauro's four units for n checkers: [n >= 1, n >= 2, n >= 3, max(n - 3, 0) / 2]. */
static float fg_units[16][4];
/* The units of two neighbouring points (n1, n2) side by side: 32 bytes, one AVX copy. */
static float fg_units2[256][8];
/* n / 15 as float32 (correctly rounded, as numpy's float32(n) / 15). */
static float fg_fifteenths[16];

/* 1 when the AVX2 row kernel may run on this CPU (checked once at import). */
static int fg_use_avx2 = 0;

static void fg_init_tables(void) {
    for (int n = 0; n < 16; n++) {
        fg_units[n][0] = n >= 1 ? 1.0f : 0.0f;
        fg_units[n][1] = n >= 2 ? 1.0f : 0.0f;
        fg_units[n][2] = n >= 3 ? 1.0f : 0.0f;
        fg_units[n][3] = n > 3 ? (float)(n - 3) * 0.5f : 0.0f;
        fg_fifteenths[n] = (float)n / 15.0f;
    }
    for (int a = 0; a < 16; a++)
        for (int b = 0; b < 16; b++) {
            memcpy(fg_units2[a * 16 + b], fg_units[a], 4 * sizeof(float));
            memcpy(fg_units2[a * 16 + b] + 4, fg_units[b], 4 * sizeof(float));
        }
#ifdef FG_X86_DISPATCH
    __builtin_cpu_init();
    fg_use_avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
#endif
}

/* Checkers of one side not borne off: the sum of its 25 counts (all non-negative). */
static inline int fg_side_total(const int8_t* s) {
#ifdef FG_SSE2
    /* psadbw sums unsigned bytes: 16 + 8 bytes in two instructions, then the bar */
    __m128i zero = _mm_setzero_si128();
    __m128i a = _mm_sad_epu8(_mm_loadu_si128((const __m128i*)s), zero);
    __m128i b = _mm_sad_epu8(_mm_loadl_epi64((const __m128i*)(s + 16)), zero);
    a = _mm_add_epi64(a, b);
    return _mm_cvtsi128_si32(a) + _mm_cvtsi128_si32(_mm_srli_si128(a, 8)) + s[24];
#else
    int t = 0;
    for (int i = 0; i < 25; i++) t += s[i];
    return t;
#endif
}

static inline void fg_units_side(const int8_t* s, float* o) {
    FG_UNROLL
    for (int i = 0; i < 24; i++) memcpy(o + 4 * i, fg_units[(uint8_t)s[i]], 4 * sizeof(float));
}

static inline void fg_tesauro_row(const int8_t* mover, const int8_t* opp, float* o) {
    fg_units_side(mover, o);
    fg_units_side(opp, o + 96);
    o[192] = (float)mover[24] * 0.5f;
    o[193] = (float)opp[24] * 0.5f;
    o[194] = fg_fifteenths[15 - fg_side_total(mover)];
    o[195] = fg_fifteenths[15 - fg_side_total(opp)];
    o[196] = 1.0f;
    o[197] = 0.0f;
}

static inline void fg_raw_row(const int8_t* mover, const int8_t* opp, float* o) {
    /* a division, correctly rounded: the same float32 as the table and as numpy */
    for (int i = 0; i < 25; i++) o[i] = (float)mover[i] / 15.0f;
    for (int i = 0; i < 25; i++) o[25 + i] = (float)opp[i] / 15.0f;
    o[50] = fg_fifteenths[15 - fg_side_total(mover)];
    o[51] = fg_fifteenths[15 - fg_side_total(opp)];
}

#ifdef FG_X86_DISPATCH
/* The same row with 32-byte copies of two points' units at a time (AVX2 registers). */
__attribute__((target("avx2")))
static void fg_tesauro_rows_avx2(const int8_t* boards, int mover_off, int opp_off, float* out,
                                 int64_t width, int64_t lo, int64_t hi) {
    for (int64_t k = lo; k < hi; k++) {
        const int8_t* mover = boards + 50 * k + mover_off;
        const int8_t* opp = boards + 50 * k + opp_off;
        float* o = out + width * k;
        FG_UNROLL
        for (int i = 0; i < 12; i++)
            _mm256_storeu_ps(o + 8 * i, _mm256_loadu_ps(fg_units2[(uint8_t)mover[2 * i] * 16 + (uint8_t)mover[2 * i + 1]]));
        FG_UNROLL
        for (int i = 0; i < 12; i++)
            _mm256_storeu_ps(o + 96 + 8 * i, _mm256_loadu_ps(fg_units2[(uint8_t)opp[2 * i] * 16 + (uint8_t)opp[2 * i + 1]]));
        o[192] = (float)mover[24] * 0.5f;
        o[193] = (float)opp[24] * 0.5f;
        o[194] = fg_fifteenths[15 - fg_side_total(mover)];
        o[195] = fg_fifteenths[15 - fg_side_total(opp)];
        o[196] = 1.0f;
        o[197] = 0.0f;
    }
}

/* Eight counts to eight floats n / 15 (a correctly rounded division, as above). */
__attribute__((target("avx2")))
static inline void fg_raw8_avx2(const int8_t* s, float* o) {
    __m256i n = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i*)s));
    _mm256_storeu_ps(o, _mm256_div_ps(_mm256_cvtepi32_ps(n), _mm256_set1_ps(15.0f)));
}

__attribute__((target("avx2")))
static void fg_raw_rows_avx2(const int8_t* boards, int mover_off, int opp_off, float* out,
                             int64_t width, int64_t lo, int64_t hi) {
    for (int64_t k = lo; k < hi; k++) {
        const int8_t* mover = boards + 50 * k + mover_off;
        const int8_t* opp = boards + 50 * k + opp_off;
        float* o = out + width * k;
        for (int i = 0; i < 24; i += 8) fg_raw8_avx2(mover + i, o + i);
        o[24] = fg_fifteenths[(uint8_t)mover[24]];
        for (int i = 0; i < 24; i += 8) fg_raw8_avx2(opp + i, o + 25 + i);
        o[49] = fg_fifteenths[(uint8_t)opp[24]];
        o[50] = fg_fifteenths[15 - fg_side_total(mover)];
        o[51] = fg_fifteenths[15 - fg_side_total(opp)];
    }
}
#endif

/* Which row kernels run: 1 = the best this CPU supports, 0 = the portable C ones
 * (for tests). Returns 1 when the AVX2 kernels are now in use. */
static int fg_select_kernels(int best) {
    fg_use_avx2 = 0;
#ifdef FG_X86_DISPATCH
    if (best) fg_use_avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
#endif
    return fg_use_avx2;
}

/* Rows lo..hi-1 of a C-contiguous (N, 2, 25) batch into a C-contiguous (N, width) output.
 * scheme 0: tesauro198 (width 198); 1: raw (width 52). swap: the mover is row 0. */
static void fg_encode_range(const int8_t* boards, int scheme, int swap, float* out,
                            int64_t width, int64_t lo, int64_t hi) {
    int mover_off = swap ? 0 : 25, opp_off = swap ? 25 : 0;
    if (scheme == 2) {
        for (int64_t k = lo; k < hi; k++)
            fg_contact_features(boards + 50 * k + mover_off, boards + 50 * k + opp_off, out + width * k);
        return;
    }
    if (scheme == 0) {
#ifdef FG_X86_DISPATCH
        if (fg_use_avx2) {
            fg_tesauro_rows_avx2(boards, mover_off, opp_off, out, width, lo, hi);
            return;
        }
#endif
        for (int64_t k = lo; k < hi; k++)
            fg_tesauro_row(boards + 50 * k + mover_off, boards + 50 * k + opp_off, out + width * k);
    } else {
#ifdef FG_X86_DISPATCH
        if (fg_use_avx2) {
            fg_raw_rows_avx2(boards, mover_off, opp_off, out, width, lo, hi);
            return;
        }
#endif
        for (int64_t k = lo; k < hi; k++)
            fg_raw_row(boards + 50 * k + mover_off, boards + 50 * k + opp_off, out + width * k);
    }
}

#endif
