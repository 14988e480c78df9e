/* The forward pass of a feed-forward network over board inputs: the kernel of
 * fastgen.nets (see fastgen/nets/_forward.pyx and fastgen/nets/network.py), plain C,
 * no Python objects.
 *
 * The first layer never sees an input vector. Every input of fastgen's schemes is a
 * function of one count (a point's checkers of one side, its bar, its borne-off
 * checkers), so the first layer is a sum over the board's non-empty counts of one
 * precomputed row each: table[side][point][n] = the first layer's weights times the
 * units of n checkers there, every scheme side by side (built in float64, rounded to
 * float32, by network.py). Point 0..23 is a point in the side's own numbering, 24 its
 * bar, 25 its borne-off checkers; side 0 is the side on roll. A board with 20 non-empty
 * counts costs 20 row additions; the constant inputs (Tesauro's turn units) are folded
 * into the first bias.
 *
 * Two ways through the first layer:
 * - from a board (fg_first): the bias plus the rows of its counts;
 * - from another board's first layer (the candidates of one position differ by a few
 *   checkers): minus the rows of the counts that differ, plus their new rows.
 *
 * Layers are stored padded to a multiple of 16 units (zero weights, zero biases), so the
 * vector loops need no tails; the padding units never reach an output (their weights
 * into the next layer are zero, and the loops over a layer's inputs stop at its real
 * width).
 *
 * The loops exist three times: plain C (any CPU; SSE2 vectors on x86-64 where the
 * compiler finds them), and with AVX2 or AVX-512F intrinsics (_mlp_simd.h, included
 * once for each; AVX2 with FMA), the best the CPU has chosen once at import. They add
 * the layers' sums in the same order with no fused multiply-add (-ffp-contract=off);
 * they differ by a few units in the last place (the activations' fused multiply-adds in
 * the vector copies, a reciprocal estimate refined by a Newton step instead of a
 * division, the last layer's lanes added in a tree). The exponential is computed here
 * (_mlp_simd.h's fg_exp2: relative error below 2e-7). */
#ifndef FASTGEN_MLP_H
#define FASTGEN_MLP_H

#include <stdint.h>
#include <string.h>

#include "_contact.h" /* fastgen/core: the contact features (and _platform.h) */

#define FG_MLP_MAX_LAYERS 8
#define FG_MLP_MAX_WIDTH 2048 /* the widest hidden layer (padded width) */
#define FG_MLP_PAD 16          /* every layer's width is padded to a multiple of this */
#define FG_MLP_MAX_SCHEMES 4
#define FG_MLP_COUNTS 52 /* rows of 16 counts per side: 26 a side, 2 sides */

#define FG_ACT_SIGMOID 0
#define FG_ACT_TANH 1
#define FG_ACT_RELU 2

#if !defined(FG_PORTABLE) && (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
#define FG_MLP_DISPATCH 1
#include <immintrin.h>
#endif

typedef struct {
    int n_layers;
    int width[FG_MLP_MAX_LAYERS + 1];  /* real widths: width[0] inputs ... width[n_layers] outputs */
    int padded[FG_MLP_MAX_LAYERS + 1]; /* widths rounded up to a multiple of FG_MLP_PAD */
    const float* table;                /* (2, 26, 16, padded[1]): the first layer's rows */
    const float* bias0;                /* (padded[1],): the first bias plus the constant inputs */
    const float* w[FG_MLP_MAX_LAYERS]; /* layer l >= 1: (width[l], padded[l+1]), row-major */
    const float* b[FG_MLP_MAX_LAYERS]; /* layer l >= 1: (padded[l+1],) */
    const float* w_last_t;             /* the last layer (l >= 1) transposed: (outputs, padded[L-1]) */
    int activation;
    int outputs; /* 5 or 3 */
    int n_extra;          /* 0, or FG_CONTACT_WIDTH: the "contact" features go through the first layer too */
    const float* w_extra; /* (n_extra, padded[1]): their rows of the first layer */
} fg_mlp;

/* 0: the plain loops; 1: AVX2; 2: AVX-512F (the best the CPU has, chosen at import) */
static int fg_mlp_level = 0;

static int fg_mlp_select(int best) {
#ifdef FG_MLP_DISPATCH
    __builtin_cpu_init();
    if (best < 0) best = 2;
    fg_mlp_level = 0;
    if (best >= 1 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) fg_mlp_level = 1;
    if (best >= 2 && __builtin_cpu_supports("avx512f")) fg_mlp_level = 2;
#else
    (void)best;
#endif
    return fg_mlp_level;
}

static void fg_mlp_init(void) { fg_mlp_select(2); }

/* ------------------------------------------------------------------ the counts */

static inline int fg_mlp_total(const int8_t* s) {
    int t = 0;
    for (int i = 0; i < 25; i++) t += s[i];
    return t;
}

/* whether a side (25 counts) has no checker left on the board */
static inline int fg_mlp_empty(const int8_t* s) {
    uint64_t a, b, c;
    memcpy(&a, s, 8);
    memcpy(&b, s + 8, 8);
    memcpy(&c, s + 16, 8);
    return (a | b | c | (uint64_t)(uint8_t)s[24]) == 0;
}

static inline const float* fg_mlp_row(const fg_mlp* net, int side, int point, int n) {
    return net->table + ((size_t)((side * 26 + point) * 16 + n)) * (size_t)net->padded[1];
}

#if defined(__SSE2__) && !defined(FG_PORTABLE)
#include <emmintrin.h>
/* bit p set when counts p of a and b (25 each) differ; *ta, *tb: their sums */
static inline uint32_t fg_mlp_differ(const int8_t* a, const int8_t* b, int* ta, int* tb) {
    __m128i zero = _mm_setzero_si128();
    __m128i a0 = _mm_loadu_si128((const __m128i*)a), a1 = _mm_loadl_epi64((const __m128i*)(a + 16));
    __m128i b0 = _mm_loadu_si128((const __m128i*)b), b1 = _mm_loadl_epi64((const __m128i*)(b + 16));
    uint32_t same = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(a0, b0))
                    | ((uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(a1, b1)) & 0xffu) << 16;
    __m128i sa = _mm_add_epi64(_mm_sad_epu8(a0, zero), _mm_sad_epu8(a1, zero));
    __m128i sb = _mm_add_epi64(_mm_sad_epu8(b0, zero), _mm_sad_epu8(b1, zero));
    *ta = _mm_cvtsi128_si32(sa) + _mm_cvtsi128_si32(_mm_srli_si128(sa, 8)) + a[24];
    *tb = _mm_cvtsi128_si32(sb) + _mm_cvtsi128_si32(_mm_srli_si128(sb, 8)) + b[24];
    return (~same & 0xffffffu) | (a[24] != b[24] ? 1u << 24 : 0u);
}
#else
static inline uint32_t fg_mlp_differ(const int8_t* a, const int8_t* b, int* ta, int* tb) {
    uint32_t m = 0;
    int sa = 0, sb = 0;
    for (int p = 0; p < 25; p++) {
        sa += a[p];
        sb += b[p];
        m |= (uint32_t)(a[p] != b[p]) << p;
    }
    *ta = sa;
    *tb = sb;
    return m;
}
#endif

/* 25 counts of nothing (read as 16 + 8 + 1 bytes) */
static const int8_t fg_mlp_zeros[32];

/* bit p set when count p (of 25) is not zero; *total: the counts' sum */
static inline uint32_t fg_mlp_nonzero(const int8_t* s, int* total) {
    int none;
    return fg_mlp_differ(s, fg_mlp_zeros, total, &none);
}

/* The rows of the board seen by `mover` (25 counts) against `opp`: at most 34. */
static inline int fg_mlp_rows_of(const fg_mlp* net, const int8_t* mover, const int8_t* opp, const float** rows) {
    int k = 0;
    size_t step = (size_t)net->padded[1];
    for (int side = 0; side < 2; side++) {
        const int8_t* s = side ? opp : mover;
        const float* first = fg_mlp_row(net, side, 0, 0);
        int total;
        uint32_t m = fg_mlp_nonzero(s, &total);
        while (m) {
            int p = fg_ctz32(m);
            m &= m - 1;
            rows[k++] = first + (size_t)(p * 16 + s[p]) * step;
        }
        if (total < 15) rows[k++] = fg_mlp_row(net, side, 25, 15 - total);
    }
    return k;
}

/* The rows that leave (`out`) and enter (`in`) going from board (m0, o0) to (m1, o1). */
static inline int fg_mlp_delta_of(const fg_mlp* net, const int8_t* m0, const int8_t* o0, const int8_t* m1,
                                  const int8_t* o1, const float** out, int* n_out, const float** in) {
    int ko = 0, ki = 0;
    size_t step = (size_t)net->padded[1];
    for (int side = 0; side < 2; side++) {
        const int8_t* a = side ? o0 : m0;
        const int8_t* b = side ? o1 : m1;
        const float* first = fg_mlp_row(net, side, 0, 0);
        int la, lb;
        uint32_t m = fg_mlp_differ(a, b, &la, &lb);
        while (m) { /* each row written, kept when its count is not zero: no branch to mispredict */
            int p = fg_ctz32(m);
            m &= m - 1;
            out[ko] = first + (size_t)(p * 16 + a[p]) * step;
            ko += a[p] != 0;
            in[ki] = first + (size_t)(p * 16 + b[p]) * step;
            ki += b[p] != 0;
        }
        if (la != lb) {
            if (la < 15) out[ko++] = fg_mlp_row(net, side, 25, 15 - la);
            if (lb < 15) in[ki++] = fg_mlp_row(net, side, 25, 15 - lb);
        }
    }
    *n_out = ko;
    return ki;
}

/* ------------------------------------------------------------------ outputs */

/* The five probabilities of the outputs (three-output networks: 0 for both backgammons),
 * made consistent as fastgen/nets/probs.py's make_consistent does. */
static inline void fg_mlp_probs(const fg_mlp* net, const float* y, float* p) {
    if (net->outputs == 5) {
        memcpy(p, y, 5 * sizeof(float));
    } else {
        p[0] = y[0]; p[1] = y[1]; p[2] = 0.0f; p[3] = y[2]; p[4] = 0.0f;
    }
    if (p[1] > p[0]) p[1] = p[0];
    if (p[2] > p[1]) p[2] = p[1];
    float lose = 1.0f - p[0];
    if (p[3] > lose) p[3] = lose;
    if (p[4] > p[3]) p[4] = p[3];
}

/* ------------------------------------------------------------------ the loops */

/* Positions go through the layers in blocks of FG_MLP_BLOCK: the first layer of each,
 * then each later layer for the whole block, so the activations of different positions
 * (long chains of dependent operations each) overlap in the processor. */
#define FG_MLP_BLOCK 16

/* The stride of the block buffers: the widest (padded) layer before the outputs. */
static inline int fg_mlp_stride(const fg_mlp* net) {
    int ws = net->padded[1];
    for (int l = 1; l < net->n_layers; l++)
        if (net->padded[l] > ws) ws = net->padded[l];
    return ws;
}

/* The scratch's parts: A, N, M (FG_MLP_BLOCK * ws floats each), base (ws), Z (FG_MLP_BLOCK * 8). */
#define FG_MLP_SCRATCH_PARTS(scratch, ws, A, N, M, base, Z) \
    float* A = (scratch);                                    \
    float* N = A + (size_t)FG_MLP_BLOCK * (ws);              \
    float* M = N + (size_t)FG_MLP_BLOCK * (ws);              \
    float* base = M + (size_t)FG_MLP_BLOCK * (ws);           \
    float* Z = base + (ws)

/* Floats of scratch memory the loops need for `net`. */
static size_t fg_mlp_scratch(const fg_mlp* net) {
    return (size_t)(3 * FG_MLP_BLOCK + 1) * (size_t)fg_mlp_stride(net) + FG_MLP_BLOCK * 8;
}

/* t rounded to the nearest integer (|t| < 2^22): adding 1.5 * 2^23 rounds */
static inline float fg_round_plain(float t) {
    const float magic = 12582912.0f;
    return (t + magic) - magic;
}

/* p * 2^r for an integer r in [-126, 127], from the exponent bits */
static inline float fg_scale_plain(float p, float r) {
    int32_t bits = (int32_t)((uint32_t)((int32_t)r + 127) << 23);
    float f;
    memcpy(&f, &bits, sizeof f);
    return p * f;
}

/* The plain loops: the template over a "vector" of one float. */
#define FG_SIMD(name) name##_plain
#define FG_SIMD_TARGET
#define FG_VL 1
#define FG_V float
#define FG_VLOAD(p) (*(p))
#define FG_VSTORE(p, v) (*(p) = (v))
#define FG_VADD(a, b) ((a) + (b))
#define FG_VSUB(a, b) ((a) - (b))
#define FG_VMUL(a, b) ((a) * (b))
#define FG_VMIN(a, b) ((a) < (b) ? (a) : (b))
#define FG_VMAX(a, b) ((a) > (b) ? (a) : (b))
#define FG_VSET1(x) (x)
#define FG_VZERO() 0.0f
#define FG_VRCP(d) (1.0f / (d))
#define FG_VFMA(a, b, c) ((a) * (b) + (c))
#define FG_VFNMA(a, b, c) ((c) - (a) * (b))
#define FG_VROUND fg_round_plain
#define FG_VSCALE fg_scale_plain
#define FG_VHSUM5(a, b, c, d, e, z) ((z)[0] = (a), (z)[1] = (b), (z)[2] = (c), (z)[3] = (d), (z)[4] = (e))
#include "_mlp_simd.h"

#ifdef FG_MLP_DISPATCH
/* z[0..5) = the sums of the lanes of s0..s4 (z[5..8) are written too): pairs of lanes
 * added within each vector (hadd), then the two halves. */
__attribute__((target("avx2"))) static inline void fg_hsum5_avx2(__m256 s0, __m256 s1, __m256 s2, __m256 s3,
                                                                 __m256 s4, float* z) {
    __m256 zero = _mm256_setzero_ps();
    __m256 u0 = _mm256_hadd_ps(_mm256_hadd_ps(s0, s1), _mm256_hadd_ps(s2, s3));
    __m256 u1 = _mm256_hadd_ps(_mm256_hadd_ps(s4, zero), zero);
    _mm_storeu_ps(z, _mm_add_ps(_mm256_castps256_ps128(u0), _mm256_extractf128_ps(u0, 1)));
    _mm_storeu_ps(z + 4, _mm_add_ps(_mm256_castps256_ps128(u1), _mm256_extractf128_ps(u1, 1)));
}

/* p * 2^r (r integers in [-126, 127]) from the exponent bits */
__attribute__((target("avx2"))) static inline __m256 fg_scale_avx2(__m256 p, __m256 r) {
    __m256i bits = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(r), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(p, _mm256_castsi256_ps(bits));
}

/* the same for 16 lanes: each vector's halves added first */
__attribute__((target("avx512f"))) static inline __m256 fg_fold512(__m512 s) {
    return _mm256_add_ps(_mm512_castps512_ps256(s), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(s), 1)));
}
__attribute__((target("avx512f"))) static inline void fg_hsum5_avx512(__m512 s0, __m512 s1, __m512 s2, __m512 s3,
                                                                     __m512 s4, float* z) {
    fg_hsum5_avx2(fg_fold512(s0), fg_fold512(s1), fg_fold512(s2), fg_fold512(s3), fg_fold512(s4), z);
}

/* The vector loops: 8 lanes (AVX2) and 16 lanes (AVX-512F). */
#define FG_SIMD(name) name##_avx2
#define FG_SIMD_TARGET __attribute__((target("avx2,fma")))
#define FG_VL 8
#define FG_V __m256
#define FG_VLOAD _mm256_loadu_ps
#define FG_VSTORE _mm256_storeu_ps
#define FG_VADD _mm256_add_ps
#define FG_VSUB _mm256_sub_ps
#define FG_VMUL _mm256_mul_ps
#define FG_VMIN _mm256_min_ps
#define FG_VMAX _mm256_max_ps
#define FG_VSET1 _mm256_set1_ps
#define FG_VZERO _mm256_setzero_ps
#define FG_VRCP _mm256_rcp_ps
#define FG_VFMA _mm256_fmadd_ps
#define FG_VFNMA _mm256_fnmadd_ps
#define FG_VROUND(t) _mm256_round_ps((t), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define FG_VSCALE fg_scale_avx2
#define FG_VHSUM5 fg_hsum5_avx2
#include "_mlp_simd.h"

#define FG_SIMD(name) name##_avx512
#define FG_SIMD_TARGET __attribute__((target("avx512f")))
#define FG_VL 16
#define FG_V __m512
#define FG_VLOAD _mm512_loadu_ps
#define FG_VSTORE _mm512_storeu_ps
#define FG_VADD _mm512_add_ps
#define FG_VSUB _mm512_sub_ps
#define FG_VMUL _mm512_mul_ps
#define FG_VMIN _mm512_min_ps
#define FG_VMAX _mm512_max_ps
#define FG_VSET1 _mm512_set1_ps
#define FG_VZERO _mm512_setzero_ps
#define FG_VRCP _mm512_rcp14_ps
#define FG_VFMA _mm512_fmadd_ps
#define FG_VFNMA _mm512_fnmadd_ps
#define FG_VROUND(t) _mm512_roundscale_ps((t), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define FG_VSCALE _mm512_scalef_ps
#define FG_VHSUM5 fg_hsum5_avx512
#include "_mlp_simd.h"
#endif

/* out rows lo..hi-1 of boards ((2, 25) int8 each), seen from row 1 (or row 0 with swap):
 * five consistent probabilities a row, or with raw the network's outputs (net->outputs
 * floats a row). scratch: fg_mlp_scratch(net) floats. */
static inline void fg_mlp_rows(const fg_mlp* net, const int8_t* boards, int swap, int raw, float* out, int64_t lo, int64_t hi,
                        float* scratch) {
#ifdef FG_MLP_DISPATCH
    if (fg_mlp_level == 2) {
        fg_rows_avx512(net, boards, swap, raw, out, lo, hi, scratch);
        return;
    }
    if (fg_mlp_level == 1) {
        fg_rows_avx2(net, boards, swap, raw, out, lo, hi, scratch);
        return;
    }
#endif
    fg_rows_plain(net, boards, swap, raw, out, lo, hi, scratch);
}

/* Greedy choice among the candidates of games g0..g1-1: the candidates of game g are
 * boards offsets[g]..offsets[g+1]-1, the mover in row 1 (a play's result), each
 * evaluated for the opponent (row 0 on roll). A game's first live candidate goes
 * through the first layer from its counts, the others from the first one's by the
 * counts that differ (never a chain of updates, so no error builds up). A candidate
 * where the mover has borne off every checker is scored exactly (a win; a gammon when
 * the opponent has borne off none; a backgammon when it also has a checker on the bar
 * or in the mover's home board). values[c] gets each candidate's cubeless equity for
 * the mover: minus the opponent's, from its consistent probabilities in double; a
 * three-output network scores every candidate by its own outputs (no exact wins), the
 * equity in float32, as the numpy network's player does. choice[g] is the index
 * (relative to offsets[g]) of the game's highest value, ties to the first. scratch:
 * fg_mlp_scratch(net) floats. */
static inline void fg_mlp_choose(const fg_mlp* net, const int8_t* cand, const int64_t* offsets, int64_t g0, int64_t g1,
                          int64_t* choice, double* values, float* scratch) {
#ifdef FG_MLP_DISPATCH
    if (fg_mlp_level == 2) {
        fg_choose_avx512(net, cand, offsets, g0, g1, values, scratch);
    } else if (fg_mlp_level == 1) {
        fg_choose_avx2(net, cand, offsets, g0, g1, values, scratch);
    } else
#endif
        fg_choose_plain(net, cand, offsets, g0, g1, values, scratch);
    for (int64_t g = g0; g < g1; g++) {
        int64_t lo = offsets[g], hi = offsets[g + 1], best = lo;
        for (int64_t c = lo + 1; c < hi; c++)
            if (values[c] > values[best]) best = c;
        choice[g] = best - lo;
    }
}

#endif /* FASTGEN_MLP_H */
