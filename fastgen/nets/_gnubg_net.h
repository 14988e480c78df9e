/* GNU Backgammon's nets evaluated as gnubg evaluates them, plain C: each position's
 * class (fastgen/nets/_gnubg_inputs.h), the inputs of its class's net, its hidden layer
 * with gnubg's sigmoid, then the output layer for blocks of positions of the same net
 * at once (fgg_queue, fgg_flush: one vector lane a position).
 *
 * The forward pass is the one gnubg's weights files describe (the file layout is in
 * fastgen/nets/gnubg_weights.py): hidden unit j is sigmoid(-beta_hidden * h_j) with
 * h_j = threshold_j + sum_i x_i w_ij, output k is sigmoid(-beta_output * r_k) with
 * r_k = threshold_k + sum_j a_j v_kj, where sigmoid(x) = 1 / (1 + e^x) is gnubg's table
 * version (fgg_sigmoid). Each sum runs in float32 in that order: the threshold first, then
 * the inputs (the hidden units) one by one in index order. That order is kept on purpose:
 * gnubg's sigmoid jumps a little at every tenth of its argument, so a sum rounded in
 * another order can land in the next bin and move an output by up to 1e-3. An input of
 * 0 adds nothing and is skipped (most of the 200 point units are 0: the first layer costs
 * what the occupied points and the hand-made inputs cost). The hidden units are summed
 * side by side (every unit's own sum still runs in input order), so the compiler's
 * vector loops change no rounding; fused multiply-adds are off for the whole build
 * (setup.py), as gnubg-nn's build has none.
 *
 * No gnubg code is copied here: the arithmetic is the weights files' meaning, its order
 * was settled by comparing with gnubg-nn as a black box (tests/test_gnubg_inputs.py).
 */
#ifndef FASTGEN_GNUBG_NET_H
#define FASTGEN_GNUBG_NET_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "_gnubg_bearoff.h"
#include "_gnubg_inputs.h"
#include "_gnubg_sanity.h"

#define FGG_MAX_HIDDEN 128
/* fgg_queue's answer for a bear-off that needs the first-checker table not attached yet */
#define FGG_NEEDS_TABLE 5
#define FGG_MAX_INPUTS 250

/* one net: float32 arrays as its file holds them */
typedef struct {
    int n_in, n_hid, n_out;
    const float* w;   /* n_in x n_hid, one row an input */
    const float* wo;  /* n_out x n_hid, one row an output */
    const float* th;  /* n_hid hidden thresholds */
    const float* to;  /* n_out output thresholds */
    float beta_h, beta_o;
} fgg_net;

/* the three nets of 0-ply evaluation, the inputs' version (FGG_V100 / FGG_V101), the
 * tables of the race backgammon estimate (fastgen/nets/_gnubg_sanity.h) and the bear-off
 * databases (fastgen/nets/_gnubg_bearoff.h) */
typedef struct {
    fgg_net race, crashed, contact;
    int version;
    fgg_race_tables tables;
    fgg_bearoff_tables bearoff;
    /* the pruning nets of the same file (200 inputs: the base units; fgg_prune), when
     * has_prune */
    fgg_net prune_race, prune_crashed, prune_contact;
    int has_prune;
} fgg_nets;

#if !defined(FG_PORTABLE) && (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
#define FGG_DISPATCH 1
#include <immintrin.h>
#endif

/* 0: the plain loops; 1: AVX2; 2: AVX-512F (the best the CPU has, chosen at import). The
 * vector loops do each lane's arithmetic exactly as the plain ones: the same results. */
static int fgg_level = 0;

#ifdef FGG_DISPATCH
static void fgg_pack8_init(void);
#endif

static int fgg_select(int best) {
#ifdef FGG_DISPATCH
    __builtin_cpu_init();
    fgg_pack8_init();
    if (best < 0) best = 2;
    fgg_level = 0;
    if (best >= 1 && __builtin_cpu_supports("avx2")) fgg_level = 1;
    if (best >= 2 && __builtin_cpu_supports("avx512f")) fgg_level = 2;
    fgg_shots_select(fgg_level == 2);
#else
    (void)best;
#endif
    return fgg_level;
}

/* the inputs that are not 0, as (index, value) pairs; returns how many */
static inline int fgg_nonzero(const float* x, int n, int* at, float* val) {
    int m = 0;
    for (int i = 0; i < n; i++) { /* without a branch: which inputs are 0 is unpredictable */
        at[m] = i;
        val[m] = x[i];
        m += x[i] != 0.0f;
    }
    return m;
}

#ifdef FGG_DISPATCH
/* For fgg_nonzero_avx2: for each 8-bit mask, the positions of its set bits packed to
 * the front (a permutation's first entries), and how many are set. Made by fgg_select. */
static uint8_t fgg_pack8[256][8];
static uint8_t fgg_count8[256];

static void fgg_pack8_init(void) {
    for (int mask = 0; mask < 256; mask++) {
        int c = 0;
        for (int k = 0; k < 8; k++)
            if (mask >> k & 1) fgg_pack8[mask][c++] = (uint8_t)k;
        fgg_count8[mask] = (uint8_t)c;
    }
}

/* fgg_nonzero 8 inputs at a time: the non-zero lanes' values and indices permuted to
 * the front (fgg_pack8) and stored whole. Writes up to 7 entries past the count (and
 * reads x up to 7 past n, masked: the tail is loaded with a mask). */
__attribute__((target("avx2"))) static int fgg_nonzero_avx2(const float* x, int n, int* at, float* val) {
    const __m256 zero = _mm256_setzero_ps();
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    int m = 0;
    for (int i = 0; i < n; i += 8) {
        /* the tail's lanes past n loaded as 0 (masked), so never counted */
        const __m256i in = _mm256_cmpgt_epi32(_mm256_set1_epi32(n - i), lane);
        const __m256 v = _mm256_maskload_ps(x + i, in);
        const int k = _mm256_movemask_ps(_mm256_cmp_ps(v, zero, _CMP_NEQ_UQ)); /* as x != 0.0f */
        const __m256i perm = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i*)fgg_pack8[k]));
        _mm256_storeu_ps(val + m, _mm256_permutevar8x32_ps(v, perm));
        _mm256_storeu_si256((__m256i*)(at + m), _mm256_add_epi32(perm, _mm256_set1_epi32(i)));
        m += fgg_count8[k];
    }
    return m;
}

/* fgg_nonzero 16 inputs at a time, their indices counted from `first`: the non-zero
 * lanes' values and indices packed to the front of a register (compress) and stored
 * whole. The packing goes through a register, not a compressing store to memory: that
 * one is microcoded and slow on some CPUs (AMD Zen 4). Writes up to 15 entries past the
 * count: at and val need FGG_MAX_INPUTS + 16. */
__attribute__((target("avx512f,popcnt"))) static int fgg_nonzero_from_avx512(const float* x, int n, int first, int* at,
                                                                             float* val) {
    const __m512 zero = _mm512_setzero_ps();
    const __m512i step = _mm512_set1_epi32(16);
    __m512i idx = _mm512_add_epi32(_mm512_set1_epi32(first),
                                   _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    int m = 0;
    for (int i = 0; i < n; i += 16) {
        const __mmask16 in = n - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - i)) - 1);
        const __m512 v = _mm512_maskz_loadu_ps(in, x + i);
        const __mmask16 k = _mm512_mask_cmp_ps_mask(in, v, zero, _CMP_NEQ_UQ); /* as x != 0.0f */
        _mm512_storeu_ps(val + m, _mm512_maskz_compress_ps(k, v));
        _mm512_storeu_si512((void*)(at + m), _mm512_maskz_compress_epi32(k, idx));
        m += _mm_popcnt_u32(k);
        idx = _mm512_add_epi32(idx, step);
    }
    return m;
}

/* the same with the indices from 0 */
__attribute__((target("avx512f,popcnt"))) static int fgg_nonzero_avx512(const float* x, int n, int* at, float* val) {
    return fgg_nonzero_from_avx512(x, n, 0, at, val);
}

/* The base units that are not 0 (fgg_base_nonzero's list: the 200 units' indices and
 * values in index order) eight points at a time: each point's two possible entries, its
 * one-hot unit (1, 2, 3 or more checkers: 4i + min(n, 3) - 1, value 1) and its fourth
 * unit (more than 3: 4i + 3, value (n - 3) / 2), side by side in a 16-lane vector, the
 * absent ones packed out; the bar's cumulative units one by one. Writes up to 15 entries
 * past the count. */
__attribute__((target("avx512f,popcnt"))) static int fgg_base_nonzero_avx512(const int8_t* b, int* at, float* val) {
    /* lane 2k: point k's one-hot unit, lane 2k + 1: its fourth unit */
    const __m512i pair = _mm512_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7);
    const __m512i need = _mm512_setr_epi32(1, 4, 1, 4, 1, 4, 1, 4, 1, 4, 1, 4, 1, 4, 1, 4);
    const __mmask16 fourth = 0xAAAA; /* the odd lanes */
    const __m512i one = _mm512_set1_epi32(1), three = _mm512_set1_epi32(3);
    const __m512 half = _mm512_set1_ps(0.5f), onef = _mm512_set1_ps(1.0f);
    int m = 0;
    for (int s = 0; s < 2; s++) {
        const int8_t* row = b + 25 * s;
        for (int p0 = 0; p0 < 24; p0 += 8) {
            /* the counts of points p0..p0+7, each twice */
            const __m512i n8 = _mm512_cvtepi8_epi32(_mm_loadl_epi64((const __m128i*)(row + p0)));
            const __m512i n = _mm512_permutexvar_epi32(pair, n8);
            const __mmask16 k = _mm512_cmpge_epi32_mask(n, need);
            /* one-hot: 4i + min(n, 3) - 1; fourth: 4i + 3 */
            const __m512i i4 = _mm512_slli_epi32(_mm512_add_epi32(pair, _mm512_set1_epi32(p0)), 2);
            const __m512i unit = _mm512_mask_blend_epi32(fourth, _mm512_sub_epi32(_mm512_min_epi32(n, three), one), three);
            const __m512i idx = _mm512_add_epi32(_mm512_set1_epi32(100 * s), _mm512_add_epi32(i4, unit));
            /* (n - 3) / 2 as the plain loop's division: exact, so the same as * 0.5 */
            const __m512 v = _mm512_mask_blend_ps(fourth, onef,
                                                  _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(n, three)), half));
            _mm512_storeu_si512((void*)(at + m), _mm512_maskz_compress_epi32(k, idx));
            _mm512_storeu_ps(val + m, _mm512_maskz_compress_ps(k, v));
            m += _mm_popcnt_u32(k);
        }
        const int n = row[24]; /* the bar: at least 1, 2, 3 there, and (n - 3) / 2 beyond 3 */
        for (int u = 0; u < 3 && u < n; u++) {
            at[m] = 100 * s + 96 + u;
            val[m++] = 1.0f;
        }
        if (n > 3) {
            at[m] = 100 * s + 99;
            val[m++] = (n - 3) / 2.0f;
        }
    }
    return m;
}
#endif

/* h[j] = threshold_j + the inputs' terms in index order. 32 units at a time in a small
 * array the compiler keeps in registers (summing into h in memory would load and store
 * every unit for every input). Every input is multiplied, 1s too: 1 * w is w exactly,
 * and a branch on it would be mispredicted often. */
static void fgg_hidden_plain(const fgg_net* net, int m, const int* at, const float* val, float* h) {
    const int nh = net->n_hid;
    int j0 = 0;
    for (; j0 + 16 <= nh; j0 += 16) {
        float t[16];
        for (int b = 0; b < 16; b++) t[b] = net->th[j0 + b];
        for (int q = 0; q < m; q++) {
            const float xi = val[q];
            const float* row = net->w + (size_t)at[q] * nh + j0;
            for (int b = 0; b < 16; b++) t[b] += xi * row[b];
        }
        for (int b = 0; b < 16; b++) h[j0 + b] = t[b];
    }
    for (; j0 < nh; j0++) {
        float t = net->th[j0];
        for (int q = 0; q < m; q++) t += val[q] * net->w[(size_t)at[q] * nh + j0];
        h[j0] = t;
    }
}

static void fgg_sigmoid_plain(const float* in, float scale, int n, float* out) {
    for (int j = 0; j < n; j++) out[j] = fgg_sigmoid(scale * in[j]);
}

#ifdef FGG_DISPATCH
/* 64 hidden units at a time in eight 8-lane sums (AVX2 has 16 registers) */
__attribute__((target("avx2"))) static void fgg_hidden_avx2(const fgg_net* net, int m, const int* at,
                                                             const float* val, float* h) {
    const int nh = net->n_hid;
    int j0 = 0;
    for (; j0 + 64 <= nh; j0 += 64) {
        __m256 s[8];
        for (int b = 0; b < 8; b++) s[b] = _mm256_loadu_ps(net->th + j0 + 8 * b);
        for (int q = 0; q < m; q++) {
            const float* row = net->w + (size_t)at[q] * nh + j0;
            const __m256 x = _mm256_set1_ps(val[q]); /* 1s multiplied too: see fgg_hidden_avx512 */
            for (int b = 0; b < 8; b++) s[b] = _mm256_add_ps(s[b], _mm256_mul_ps(x, _mm256_loadu_ps(row + 8 * b)));
        }
        for (int b = 0; b < 8; b++) _mm256_storeu_ps(h + j0 + 8 * b, s[b]);
    }
    for (int j = j0; j < nh; j++) {
        float t = net->th[j];
        for (int q = 0; q < m; q++) t += val[q] == 1.0f ? net->w[(size_t)at[q] * nh + j] : val[q] * net->w[(size_t)at[q] * nh + j];
        h[j] = t;
    }
}

/* gnubg's sigmoid of scale * in[j], eight at a time: fgg_sigmoid's steps in each lane */
__attribute__((target("avx2"))) static void fgg_sigmoid_avx2(const float* in, float scale, int n, float* out) {
    const __m256 sc = _mm256_set1_ps(scale), ten = _mm256_set1_ps(10.0f), one = _mm256_set1_ps(1.0f);
    const __m256 sign = _mm256_set1_ps(-0.0f);
    const __m256 far_pos = _mm256_set1_ps(1.0f / 19931.370438230298f);
    const __m256 far_neg = _mm256_set1_ps(19930.370438230298f / 19931.370438230298f);
    const __m256i tens = _mm256_set1_epi32(10), last = _mm256_set1_epi32(100), zero = _mm256_setzero_si256();
    int j = 0;
    for (; j + 8 <= n; j += 8) {
        const __m256 x = _mm256_mul_ps(sc, _mm256_loadu_ps(in + j));
        const __m256 neg = _mm256_and_ps(x, sign);  /* the sign bit */
        const __m256 a = _mm256_andnot_ps(sign, x); /* |x| */
        const __m256 far = _mm256_cmp_ps(a, ten, _CMP_GE_OQ);
        const __m256 x1 = _mm256_mul_ps(ten, a);
        /* 10 |x| just below 100 may round to 100: fgg_exp10[100] is there for it, as in fgg_sigmoid;
         * lanes of |x| >= 10 read within the table too, and are replaced below */
        const __m256i i = _mm256_max_epi32(_mm256_min_epi32(_mm256_cvttps_epi32(x1), last), zero);
        const __m256 e = _mm256_i32gather_ps(fgg_exp10, i, 4);
        const __m256 k = _mm256_add_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(tens, i)), x1);
        const __m256 t = _mm256_div_ps(one, _mm256_add_ps(one, _mm256_mul_ps(e, k)));
        const __m256 isneg = _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_castps_si256(neg), _mm256_castps_si256(sign)));
        __m256 r = _mm256_blendv_ps(t, _mm256_sub_ps(one, t), isneg);
        r = _mm256_blendv_ps(r, _mm256_blendv_ps(far_pos, far_neg, isneg), far);
        _mm256_storeu_ps(out + j, r);
    }
    for (; j < n; j++) out[j] = fgg_sigmoid(scale * in[j]);
}

/* fgg_sigmoid_avx2 16 lanes at a time. The table look-up is four two-register permutes
 * (fgg_exp10's 101 entries held in 7 registers, e[0..6], 32 entries a permute) and
 * blends by the index's high bits, instead of a gather: cheaper on CPUs whose gathers
 * are slow. The arithmetic is fgg_sigmoid_avx2's, lane by lane: of x = sc * in. */
__attribute__((target("avx512f"), always_inline)) static inline __m512 fgg_sigmoid16(__m512 in, __m512 sc, const __m512* e) {
    const __m512 ten = _mm512_set1_ps(10.0f), one = _mm512_set1_ps(1.0f);
    const __m512i sign = _mm512_set1_epi32((int)0x80000000u), abs_bits = _mm512_set1_epi32(0x7FFFFFFF);
    const __m512 far_pos = _mm512_set1_ps(1.0f / 19931.370438230298f);
    const __m512 far_neg = _mm512_set1_ps(19930.370438230298f / 19931.370438230298f);
    const __m512i tens = _mm512_set1_epi32(10), last = _mm512_set1_epi32(100), zero = _mm512_setzero_si512();
    const __m512 x = _mm512_mul_ps(sc, in);
    const __mmask16 isneg = _mm512_test_epi32_mask(_mm512_castps_si512(x), sign);
    const __m512 a = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(x), abs_bits)); /* |x| */
    const __mmask16 far = _mm512_cmp_ps_mask(a, ten, _CMP_GE_OQ);
    const __m512 x1 = _mm512_mul_ps(ten, a);
    const __m512i i = _mm512_max_epi32(_mm512_min_epi32(_mm512_cvttps_epi32(x1), last), zero);
    __m512 ex = _mm512_permutex2var_ps(e[0], i, e[1]); /* the permutes read the index's low 5 bits */
    ex = _mm512_mask_blend_ps(_mm512_cmpge_epi32_mask(i, _mm512_set1_epi32(32)), ex, _mm512_permutex2var_ps(e[2], i, e[3]));
    ex = _mm512_mask_blend_ps(_mm512_cmpge_epi32_mask(i, _mm512_set1_epi32(64)), ex, _mm512_permutex2var_ps(e[4], i, e[5]));
    ex = _mm512_mask_blend_ps(_mm512_cmpge_epi32_mask(i, _mm512_set1_epi32(96)), ex, _mm512_permutexvar_ps(i, e[6]));
    const __m512 k = _mm512_add_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(tens, i)), x1);
    const __m512 t = _mm512_div_ps(one, _mm512_add_ps(one, _mm512_mul_ps(ex, k)));
    const __m512 r = _mm512_mask_blend_ps(isneg, t, _mm512_sub_ps(one, t));
    return _mm512_mask_blend_ps(far, r, _mm512_mask_blend_ps(isneg, far_pos, far_neg));
}

/* fgg_exp10 in the 7 registers fgg_sigmoid16 reads */
__attribute__((target("avx512f"), always_inline)) static inline void fgg_exp10_regs(__m512* e) {
    for (int k = 0; k < 6; k++) e[k] = _mm512_loadu_ps(fgg_exp10 + 16 * k);
    e[6] = _mm512_maskz_loadu_ps(0x1F, fgg_exp10 + 96); /* entries 96..100 */
}

__attribute__((target("avx512f"))) static void fgg_sigmoid_avx512(const float* in, float scale, int n, float* out) {
    __m512 e[7];
    fgg_exp10_regs(e);
    const __m512 sc = _mm512_set1_ps(scale);
    int j = 0;
    for (; j + 16 <= n; j += 16) _mm512_storeu_ps(out + j, fgg_sigmoid16(_mm512_loadu_ps(in + j), sc, e));
    for (; j < n; j++) out[j] = fgg_sigmoid(scale * in[j]);
}

/* all 128 hidden units (or 16 at a time) in 16-lane sums. Every input's weights are
 * multiplied, 1s too: 1 * w is w exactly (the same sums), and which inputs are 1 is
 * too irregular for a branch to predict; the multiplies are nearly free (other ports
 * than the adds). */
__attribute__((target("avx512f"))) static void fgg_hidden_avx512(const fgg_net* net, int m, const int* at,
                                                                  const float* val, float* h, float* act) {
    const int nh = net->n_hid;
    __m512 e[7];
    fgg_exp10_regs(e);
    const __m512 sc = _mm512_set1_ps(-net->beta_h);
    int j0 = 0;
    for (; j0 + 128 <= nh; j0 += 128) {
        __m512 s[8];
        for (int b = 0; b < 8; b++) s[b] = _mm512_loadu_ps(net->th + j0 + 16 * b);
        for (int q = 0; q < m; q++) {
            const float* row = net->w + (size_t)at[q] * nh + j0;
            const __m512 x = _mm512_set1_ps(val[q]);
            for (int b = 0; b < 8; b++) s[b] = _mm512_add_ps(s[b], _mm512_mul_ps(x, _mm512_loadu_ps(row + 16 * b)));
        }
        /* the sigmoid straight from the sums' registers */
        for (int b = 0; b < 8; b++) _mm512_storeu_ps(act + j0 + 16 * b, fgg_sigmoid16(s[b], sc, e));
    }
    /* units past the blocks of 128 (the pruning nets' 16 or 8), 16 at a time, the last
     * block masked: the same sums lane by lane, their sigmoid from the register */
    for (; j0 < nh; j0 += 16) {
        const __mmask16 in = nh - j0 >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (nh - j0)) - 1);
        __m512 s = _mm512_maskz_loadu_ps(in, net->th + j0);
        for (int q = 0; q < m; q++)
            s = _mm512_add_ps(s, _mm512_mul_ps(_mm512_set1_ps(val[q]),
                                               _mm512_maskz_loadu_ps(in, net->w + (size_t)at[q] * nh + j0)));
        _mm512_mask_storeu_ps(act + j0, in, fgg_sigmoid16(s, sc, e));
    }
    (void)h;
}
#endif

/* a[0..n_hid-1] = the net's hidden activations for the inputs that are not 0, at[0..m-1]
 * and val[0..m-1] in index order (the hidden sums, then gnubg's sigmoid of each); h:
 * scratch of n_hid floats */
static void fgg_activations_of(const fgg_net* net, int m, const int* at, const float* val, float* h, float* a) {
#ifdef FGG_DISPATCH
    if (fgg_level == 2) {
        fgg_hidden_avx512(net, m, at, val, h, a); /* (the sigmoid included) */
        return;
    }
    if (fgg_level == 1) {
        fgg_hidden_avx2(net, m, at, val, h);
        fgg_sigmoid_avx2(h, -net->beta_h, net->n_hid, a);
        return;
    }
#endif
    fgg_hidden_plain(net, m, at, val, h);
    fgg_sigmoid_plain(h, -net->beta_h, net->n_hid, a);
}

/* fgg_base_nonzero by the loops of fgg_level (AVX-512 writes up to 15 entries past the
 * count) */
static inline int fgg_base_list(const int8_t* b, int* at, float* val) {
#ifdef FGG_DISPATCH
    if (fgg_level == 2) return fgg_base_nonzero_avx512(b, at, val);
#endif
    return fgg_base_nonzero((const int8_t(*)[25])b, at, val);
}

/* fgg_nonzero by the loops of fgg_level (up to 15 entries written past the count) */
static inline int fgg_nonzero_best(const float* x, int n, int* at, float* val) {
#ifdef FGG_DISPATCH
    if (fgg_level == 2) return fgg_nonzero_avx512(x, n, at, val);
    if (fgg_level == 1) return fgg_nonzero_avx2(x, n, at, val);
#endif
    return fgg_nonzero(x, n, at, val);
}

/* the same for inputs x[0..n_in-1]; at and val: scratch of n_in + 16 each */
static void fgg_activations(const fgg_net* net, const float* x, float* h, int* at, float* val, float* a) {
    fgg_activations_of(net, fgg_nonzero_best(x, net->n_in, at, val), at, val, h, a);
}

/* the same for a contact or crashed position (board b): x holds only its inputs past
 * the 200 base units (x[200..249], fgg_contact_extra); the base units that are not 0
 * are listed straight from the counts (AVX-512; the plain loops write the 200 floats
 * and scan them): the same list, in index order */
static void fgg_activations_contact(const fgg_net* net, const int8_t* b, float* x, float* h, int* at, float* val,
                                    float* a) {
    int m;
#ifdef FGG_DISPATCH
    if (fgg_level == 2) {
        m = fgg_base_nonzero_avx512(b, at, val);
        m += fgg_nonzero_from_avx512(x + 200, net->n_in - 200, 200, at + m, val + m);
    } else
#endif
    {
        fgg_base_units((const int8_t(*)[25])b, x);
        m = fgg_nonzero_best(x, net->n_in, at, val);
    }
    fgg_activations_of(net, m, at, val, h, a);
}

/* ------------------------------------------------------------------ blocks of positions
 *
 * An output is a sum of 128 terms that must be added one after the other (the order is
 * gnubg's): one position's five outputs are five chains of 128 dependent adds, bound by
 * the adder's latency, not its throughput. So positions wait, their hidden activations
 * kept, until FGG_BLOCK of the same net are there; then the output layer runs once for
 * all of them, each vector lane one position (its own sums, in the same order: the
 * same rounding as one position alone). A lane-wise sum wants unit j of every waiting
 * position in one vector: the activations are written a position a row (where the
 * sigmoid puts them), and transposed at the flush, 16 units at a time in registers for
 * AVX-512 (cheaper than 128 scattered stores a position), into a buffer otherwise. */

#define FGG_BLOCK 16

/* the positions waiting for one net's output layer */
typedef struct {
    float rows[FGG_BLOCK][FGG_MAX_HIDDEN]; /* activations, a position a row */
    int8_t b[FGG_BLOCK][50];             /* the boards (for the corrections) */
    float* out[FGG_BLOCK];               /* where each position's five outputs go */
    int n;                               /* how many are waiting */
} fgg_pending;

/* what fgg_queue and fgg_flush_all work in: one per thread; zeroed before first use
 * (lanes with no position waiting are computed too, and must hold finite numbers) */
typedef struct {
    fgg_pending wait[3]; /* race, crashed, contact */
    float x[FGG_MAX_INPUTS], h[FGG_MAX_HIDDEN];
    float cols[FGG_MAX_HIDDEN * FGG_BLOCK]; /* the flush's transposed rows: [j * FGG_BLOCK + lane] */
    float val[FGG_MAX_INPUTS + 16]; /* + 16: fgg_nonzero_avx512 / _avx2 store whole vectors */
    int at[FGG_MAX_INPUTS + 16];
} fgg_work;

/* r[k * FGG_BLOCK + lane] = threshold_k + sum over j in order of a_j v_kj, every lane */
static void fgg_outputs_plain(const fgg_net* net, const float* a, float* r) {
    const int nh = net->n_hid;
    for (int k = 0; k < 5; k++)
        for (int l = 0; l < FGG_BLOCK; l++) r[k * FGG_BLOCK + l] = net->to[k];
    for (int j = 0; j < nh; j++) {
        const float* aj = a + j * FGG_BLOCK;
        for (int k = 0; k < 5; k++) {
            const float v = net->wo[k * nh + j];
            float* rk = r + k * FGG_BLOCK;
            for (int l = 0; l < FGG_BLOCK; l++) rk[l] += aj[l] * v;
        }
    }
}

#ifdef FGG_DISPATCH
/* the same, 8 lanes a vector: ten independent sums (five outputs, two halves) */
__attribute__((target("avx2"))) static void fgg_outputs_avx2(const fgg_net* net, const float* a, float* r) {
    const int nh = net->n_hid;
    __m256 s[10];
    for (int k = 0; k < 5; k++) s[2 * k] = s[2 * k + 1] = _mm256_set1_ps(net->to[k]);
    for (int j = 0; j < nh; j++) {
        const __m256 lo = _mm256_loadu_ps(a + j * FGG_BLOCK), hi = _mm256_loadu_ps(a + j * FGG_BLOCK + 8);
        for (int k = 0; k < 5; k++) {
            const __m256 v = _mm256_set1_ps(net->wo[k * nh + j]);
            s[2 * k] = _mm256_add_ps(s[2 * k], _mm256_mul_ps(lo, v));
            s[2 * k + 1] = _mm256_add_ps(s[2 * k + 1], _mm256_mul_ps(hi, v));
        }
    }
    for (int k = 0; k < 10; k++) _mm256_storeu_ps(r + 8 * k, s[k]);
}

/* the same, 16 lanes a vector (five independent sums), over the activations a position
 * a row (rows[lane][j]): each 16 x 16 square of them transposed in registers first */
__attribute__((target("avx512f"))) static void fgg_outputs_avx512(const fgg_net* net, const float (*rows)[FGG_MAX_HIDDEN],
                                                                   float* r) {
    const int nh = net->n_hid;
    __m512 s[5];
    for (int k = 0; k < 5; k++) s[k] = _mm512_set1_ps(net->to[k]);
    int j0 = 0;
    for (; j0 + 16 <= nh; j0 += 16) {
        /* the transpose: pairs of rows interleaved (ps), then pairs of pairs (pd): u[4i+k]
         * has, in its 128-bit lane L, element 4L+k of rows 4i..4i+3; then the 128-bit
         * lanes gathered (two shuffles): column 4L+k = lane L of u[k], u[4+k], u[8+k], u[12+k] */
        __m512 t[16], u[16], col[16];
        for (int i = 0; i < 8; i++) {
            const __m512 x = _mm512_loadu_ps(rows[2 * i] + j0), y = _mm512_loadu_ps(rows[2 * i + 1] + j0);
            t[2 * i] = _mm512_unpacklo_ps(x, y);
            t[2 * i + 1] = _mm512_unpackhi_ps(x, y);
        }
        for (int i = 0; i < 4; i++) {
            const __m512d a0 = _mm512_castps_pd(t[4 * i]), a1 = _mm512_castps_pd(t[4 * i + 1]);
            const __m512d a2 = _mm512_castps_pd(t[4 * i + 2]), a3 = _mm512_castps_pd(t[4 * i + 3]);
            u[4 * i] = _mm512_castpd_ps(_mm512_unpacklo_pd(a0, a2));
            u[4 * i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a0, a2));
            u[4 * i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(a1, a3));
            u[4 * i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(a1, a3));
        }
        for (int k = 0; k < 4; k++) {
            const __m512 v = _mm512_shuffle_f32x4(u[k], u[4 + k], 0x88), w = _mm512_shuffle_f32x4(u[k], u[4 + k], 0xDD);
            const __m512 v2 = _mm512_shuffle_f32x4(u[8 + k], u[12 + k], 0x88);
            const __m512 w2 = _mm512_shuffle_f32x4(u[8 + k], u[12 + k], 0xDD);
            col[k] = _mm512_shuffle_f32x4(v, v2, 0x88);      /* lane 0: column k */
            col[4 + k] = _mm512_shuffle_f32x4(w, w2, 0x88);  /* lane 1 */
            col[8 + k] = _mm512_shuffle_f32x4(v, v2, 0xDD);  /* lane 2 */
            col[12 + k] = _mm512_shuffle_f32x4(w, w2, 0xDD); /* lane 3 */
        }
        for (int c = 0; c < 16; c++)
            for (int k = 0; k < 5; k++)
                s[k] = _mm512_add_ps(s[k], _mm512_mul_ps(col[c], _mm512_set1_ps(net->wo[k * nh + j0 + c])));
    }
    for (; j0 < nh; j0++) { /* units past the last square of 16 (none in gnubg's nets) */
        float c[FGG_BLOCK];
        for (int l = 0; l < FGG_BLOCK; l++) c[l] = rows[l][j0];
        const __m512 cj = _mm512_loadu_ps(c);
        for (int k = 0; k < 5; k++) s[k] = _mm512_add_ps(s[k], _mm512_mul_ps(cj, _mm512_set1_ps(net->wo[k * nh + j0])));
    }
    for (int k = 0; k < 5; k++) _mm512_storeu_ps(r + 16 * k, s[k]);
}
#endif

/* the waiting positions of class cls: their output layer, gnubg's sigmoid of each
 * output, the corrections (fgg_correct), written where each goes */
static void fgg_flush(const fgg_nets* nets, fgg_work* w, int cls) {
    fgg_pending* p = &w->wait[cls - FGG_RACE];
    if (p->n == 0) return;
    const fgg_net* net = cls == FGG_RACE ? &nets->race : cls == FGG_CRASHED ? &nets->crashed : &nets->contact;
    float r[5 * FGG_BLOCK];
#ifdef FGG_DISPATCH
    if (fgg_level == 2) {
        fgg_outputs_avx512(net, (const float (*)[FGG_MAX_HIDDEN])p->rows, r);
    } else
#endif
    {
        for (int j = 0; j < net->n_hid; j++)
            for (int l = 0; l < FGG_BLOCK; l++) w->cols[j * FGG_BLOCK + l] = p->rows[l][j];
#ifdef FGG_DISPATCH
        if (fgg_level == 1) fgg_outputs_avx2(net, w->cols, r);
        else
#endif
            fgg_outputs_plain(net, w->cols, r);
    }
    /* the outputs' sigmoid for the whole block at once too (fgg_sigmoid's branches on
     * the sign would be a coin toss a position) */
    float sg[5 * FGG_BLOCK];
#ifdef FGG_DISPATCH
    if (fgg_level == 2) fgg_sigmoid_avx512(r, -net->beta_o, 5 * FGG_BLOCK, sg);
    else if (fgg_level == 1) fgg_sigmoid_avx2(r, -net->beta_o, 5 * FGG_BLOCK, sg);
    else
#endif
        fgg_sigmoid_plain(r, -net->beta_o, 5 * FGG_BLOCK, sg);
    for (int l = 0; l < p->n; l++) {
        float* out = p->out[l];
        for (int k = 0; k < 5; k++) out[k] = sg[k * FGG_BLOCK + l];
        fgg_correct(p->b[l], cls, out, &nets->tables);
    }
    p->n = 0;
}

/* Board b (50 int8: row 0 then row 1, row 1 on roll): returns its class and gives its
 * five outputs in out[0..4]. A finished game's and a bear-off position's are written at
 * once (fastgen/nets/_gnubg_bearoff.h; FGG_NEEDS_TABLE, out untouched, for one that
 * needs the first-checker table before it is attached); a race, crashed or contact position's (its
 * class's net's outputs as gnubg corrects them: certain and impossible gammons, the race
 * backgammon estimate, clamps, the 1e-4 floor, fgg_correct) once FGG_BLOCK positions of
 * that class are waiting, or at fgg_flush_all. b is copied, out must stay valid until
 * then. */
static int fgg_queue(const fgg_nets* nets, fgg_work* w, const int8_t* b, float* out) {
    const int cls = fgg_classify_flat(b);
    const fgg_net* net;
    switch (cls) {
    case FGG_RACE:
        fgg_race_flat(b, w->x);
        net = &nets->race;
        break;
    case FGG_CRASHED:
        fgg_contact_extra_flat(b, nets->version, 1, w->x);
        net = &nets->crashed;
        break;
    case FGG_CONTACT:
        fgg_contact_extra_flat(b, nets->version, 0, w->x);
        net = &nets->contact;
        break;
    case FGG_BEAROFF:
        return fgg_bearoff(&nets->bearoff, b, out) < 0 ? FGG_NEEDS_TABLE : cls;
    default:
        fgg_over(b, out);
        return cls;
    }
    fgg_pending* p = &w->wait[cls - FGG_RACE];
    const int l = p->n;
    if (cls == FGG_RACE) fgg_activations(net, w->x, w->h, w->at, w->val, p->rows[l]);
    else fgg_activations_contact(net, b, w->x, w->h, w->at, w->val, p->rows[l]);
    memcpy(p->b[l], b, 50);
    p->out[l] = out;
    if (++p->n == FGG_BLOCK) fgg_flush(nets, w, cls);
    return cls;
}

/* The pruning net of class cls (FGG_RACE, FGG_CRASHED or FGG_CONTACT; nets->has_prune)
 * on board b (50 int8, row 1 on roll): its five outputs in out[0..4], uncorrected but for
 * a race's, whose backgammon chances and certain wins and losses are set as after the
 * race net (fgg_correct_race; found against gnubg-nn's pruning evaluation as a black
 * box: no straggler test, no clamps, no floor). Its inputs are
 * the 200 base units whatever the class, read from the board as the list of those not 0
 * (fgg_base_list); the output sums run in order, one position at
 * a time (the nets are small: 16 or 8 hidden units). */
static void fgg_prune(const fgg_nets* nets, fgg_work* w, const int8_t* b, int cls, float* out) {
    const fgg_net* net = cls == FGG_RACE ? &nets->prune_race : cls == FGG_CRASHED ? &nets->prune_crashed
                                                                                 : &nets->prune_contact;
    float a[FGG_MAX_HIDDEN], r[5];
    const int m = fgg_base_list(b, w->at, w->val);
    fgg_activations_of(net, m, w->at, w->val, w->h, a);
    const int nh = net->n_hid;
    /* the five sums side by side (each still in order of the hidden units): five chains
     * of adds at once, not one after the other */
    for (int k = 0; k < 5; k++) r[k] = net->to[k];
    for (int j = 0; j < nh; j++)
        for (int k = 0; k < 5; k++) r[k] += a[j] * net->wo[k * nh + j];
    fgg_sigmoid_plain(r, -net->beta_o, 5, out);
    if (cls == FGG_RACE) fgg_correct_race(b, out, &nets->tables, 0);
}

/* the outputs of every position still waiting */
static void fgg_flush_all(const fgg_nets* nets, fgg_work* w) {
    fgg_flush(nets, w, FGG_RACE);
    fgg_flush(nets, w, FGG_CRASHED);
    fgg_flush(nets, w, FGG_CONTACT);
}

#endif
