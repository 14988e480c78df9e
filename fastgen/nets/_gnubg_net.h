/* GNU Backgammon's nets evaluated as gnubg evaluates them, plain C: one position at a
 * time, its class (fastgen/nets/_gnubg_inputs.h), the inputs of its class's net, then
 * the net's forward pass with gnubg's sigmoid.
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

#include "_gnubg_inputs.h"
#include "_gnubg_sanity.h"

#define FGG_MAX_HIDDEN 128
#define FGG_MAX_INPUTS 250
/* floats of scratch memory fgg_net_outputs needs */
#define FGG_SCRATCH (3 * FGG_MAX_INPUTS + 2 * FGG_MAX_HIDDEN)

/* one net: float32 arrays as its file holds them */
typedef struct {
    int n_in, n_hid, n_out;
    const float* w;   /* n_in x n_hid, one row an input */
    const float* wo;  /* n_out x n_hid, one row an output */
    const float* th;  /* n_hid hidden thresholds */
    const float* to;  /* n_out output thresholds */
    float beta_h, beta_o;
} fgg_net;

/* the three nets of 0-ply evaluation, the inputs' version (FGG_V100 / FGG_V101) and the
 * tables of the race backgammon estimate (fastgen/nets/_gnubg_sanity.h) */
typedef struct {
    fgg_net race, crashed, contact;
    int version;
    fgg_race_tables tables;
} fgg_nets;

#if !defined(FG_PORTABLE) && (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
#define FGG_DISPATCH 1
#include <immintrin.h>
#endif

/* 0: the plain loops; 1: AVX2; 2: AVX-512F (the best the CPU has, chosen at import). The
 * vector loops do each lane's arithmetic exactly as the plain ones: the same results. */
static int fgg_level = 0;

static int fgg_select(int best) {
#ifdef FGG_DISPATCH
    __builtin_cpu_init();
    if (best < 0) best = 2;
    fgg_level = 0;
    if (best >= 1 && __builtin_cpu_supports("avx2")) fgg_level = 1;
    if (best >= 2 && __builtin_cpu_supports("avx512f")) fgg_level = 2;
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

/* h[j] = threshold_j + the inputs' terms in index order (an input of 1 adds its weight) */
static void fgg_hidden_plain(const fgg_net* net, int m, const int* at, const float* val, float* h) {
    const int nh = net->n_hid;
    memcpy(h, net->th, (size_t)nh * sizeof(float));
    for (int q = 0; q < m; q++) {
        const float xi = val[q];
        const float* row = net->w + (size_t)at[q] * nh;
        if (xi == 1.0f) {
            for (int j = 0; j < nh; j++) h[j] += row[j];
        } else {
            for (int j = 0; j < nh; j++) h[j] += xi * row[j];
        }
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
            if (val[q] == 1.0f) {
                for (int b = 0; b < 8; b++) s[b] = _mm256_add_ps(s[b], _mm256_loadu_ps(row + 8 * b));
            } else {
                const __m256 x = _mm256_set1_ps(val[q]);
                for (int b = 0; b < 8; b++) s[b] = _mm256_add_ps(s[b], _mm256_mul_ps(x, _mm256_loadu_ps(row + 8 * b)));
            }
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

/* all 128 hidden units (or 16 at a time) in 16-lane sums */
__attribute__((target("avx512f"))) static void fgg_hidden_avx512(const fgg_net* net, int m, const int* at,
                                                                  const float* val, float* h) {
    const int nh = net->n_hid;
    int j0 = 0;
    for (; j0 + 128 <= nh; j0 += 128) {
        __m512 s[8];
        for (int b = 0; b < 8; b++) s[b] = _mm512_loadu_ps(net->th + j0 + 16 * b);
        for (int q = 0; q < m; q++) {
            const float* row = net->w + (size_t)at[q] * nh + j0;
            if (val[q] == 1.0f) {
                for (int b = 0; b < 8; b++) s[b] = _mm512_add_ps(s[b], _mm512_loadu_ps(row + 16 * b));
            } else {
                const __m512 x = _mm512_set1_ps(val[q]);
                for (int b = 0; b < 8; b++) s[b] = _mm512_add_ps(s[b], _mm512_mul_ps(x, _mm512_loadu_ps(row + 16 * b)));
            }
        }
        for (int b = 0; b < 8; b++) _mm512_storeu_ps(h + j0 + 16 * b, s[b]);
    }
    for (; j0 + 16 <= nh; j0 += 16) {
        __m512 s = _mm512_loadu_ps(net->th + j0);
        for (int q = 0; q < m; q++) {
            const __m512 w = _mm512_loadu_ps(net->w + (size_t)at[q] * nh + j0);
            s = val[q] == 1.0f ? _mm512_add_ps(s, w) : _mm512_add_ps(s, _mm512_mul_ps(_mm512_set1_ps(val[q]), w));
        }
        _mm512_storeu_ps(h + j0, s);
    }
    for (int j = j0; j < nh; j++) {
        float t = net->th[j];
        for (int q = 0; q < m; q++) t += val[q] == 1.0f ? net->w[(size_t)at[q] * nh + j] : val[q] * net->w[(size_t)at[q] * nh + j];
        h[j] = t;
    }
}
#endif

/* out[0..4] = the net's five outputs for inputs x; h: scratch of 2 n_hid floats, at and
 * val: scratch of n_in each */
static void fgg_forward(const fgg_net* net, const float* x, float* h, int* at, float* val, float* out) {
    const int nh = net->n_hid;
    const int m = fgg_nonzero(x, net->n_in, at, val);
    float* a = h + nh;
#ifdef FGG_DISPATCH
    if (fgg_level == 2) {
        fgg_hidden_avx512(net, m, at, val, h);
        fgg_sigmoid_avx2(h, -net->beta_h, nh, a);
    } else if (fgg_level == 1) {
        fgg_hidden_avx2(net, m, at, val, h);
        fgg_sigmoid_avx2(h, -net->beta_h, nh, a);
    } else
#endif
    {
        fgg_hidden_plain(net, m, at, val, h);
        fgg_sigmoid_plain(h, -net->beta_h, nh, a);
    }
    /* the five outputs side by side, each summed over the hidden units in order */
    const float *v0 = net->wo, *v1 = v0 + nh, *v2 = v1 + nh, *v3 = v2 + nh, *v4 = v3 + nh;
    float r0 = net->to[0], r1 = net->to[1], r2 = net->to[2], r3 = net->to[3], r4 = net->to[4];
    for (int j = 0; j < nh; j++) {
        const float aj = a[j];
        r0 += aj * v0[j];
        r1 += aj * v1[j];
        r2 += aj * v2[j];
        r3 += aj * v3[j];
        r4 += aj * v4[j];
    }
    float r[5] = {r0, r1, r2, r3, r4};
    const int no = 5;
    const float bo = -net->beta_o;
    for (int k = 0; k < no; k++) out[k] = fgg_sigmoid(bo * r[k]);
}

/* The class of board b (50 int8: row 0 then row 1, row 1 on roll) and, for a race,
 * crashed or contact position, its class's net's five outputs in out[0..4] as gnubg
 * corrects them (fgg_correct: certain and impossible gammons, the race backgammon
 * estimate, clamps, the 1e-4 floor); out is left alone for the other classes.
 * scratch: FGG_SCRATCH floats. */
static int fgg_net_outputs(const fgg_nets* nets, const int8_t* b, float* out, float* scratch) {
    const int cls = fgg_classify_flat(b);
    float* x = scratch;
    float* h = scratch + FGG_MAX_INPUTS;             /* 2 FGG_MAX_HIDDEN */
    float* val = h + 2 * FGG_MAX_HIDDEN;              /* FGG_MAX_INPUTS */
    int* at = (int*)(val + FGG_MAX_INPUTS);           /* FGG_MAX_INPUTS */
    switch (cls) {
    case FGG_RACE:
        fgg_race_flat(b, x);
        fgg_forward(&nets->race, x, h, at, val, out);
        break;
    case FGG_CRASHED:
        fgg_contact_flat(b, nets->version, 1, x);
        fgg_forward(&nets->crashed, x, h, at, val, out);
        break;
    case FGG_CONTACT:
        fgg_contact_flat(b, nets->version, 0, x);
        fgg_forward(&nets->contact, x, h, at, val, out);
        break;
    default:
        return cls;
    }
    fgg_correct(b, cls, out, &nets->tables);
    return cls;
}

#endif
