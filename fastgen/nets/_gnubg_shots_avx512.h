/* GNU Backgammon's shot inputs (PIPLOSS, P1, P2) in AVX-512 loops. Included by
 * fastgen/nets/_gnubg_inputs.h where its plain shot loops end (it reads their fgg_side,
 * fgg_shot_sums and fgg_add_roll's meaning), not on its own.
 *
 * fgg_hitters, fgg_rolls_free and fgg_rolls_bar1 for AVX-512 (F and CD): the 39 ways in
 * three vectors of 16 lanes (ways 0..15, 16..31, 32..38), each lane doing the plain
 * loops' integer arithmetic for its way; then the 15 rolls of two different dice side by
 * side in one vector and the 6 doubles in another, their ways' values brought in by
 * permutes. Integers throughout: the same sums as the plain loops
 * (tests/test_gnubg_shots.py compares the inputs, the instruction-set test the nets'
 * outputs). */
#ifndef FASTGEN_GNUBG_SHOTS_AVX512_H
#define FASTGEN_GNUBG_SHOTS_AVX512_H

#if !defined(FG_PORTABLE) && (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
#define FGG_SHOTS_SIMD 1
#include <immintrin.h>

/* A way's lanes (48: lanes past 38 unused): the pips it covers; the shifts p1..p4 of its
 * intermediate landing points, a way's path being (x << p1 | x << p2) & (x << p3) & (x <<
 * p4) of the open points x, its landing points' blots (x << p1 | x << p2 | x << p3 | x <<
 * p4) of the blots x, over the terms it counts (n12, n3, n4: ~0 when a term is not
 * counted). Then each roll's ways: a roll of two dice (lanes 0..14) its two dice
 * alone and its way of both; a double (lanes 0..5) its 2-, 3- and 4-step ways, as
 * indices into ways 16..47. */
typedef struct {
    int32_t dist[48], p1[48], p2[48], p3[48], p4[48], n12[48], n3[48], n4[48];
    int32_t pair_lo[16], pair_hi[16], pair_w[16], dbl_w[3][16], dbl_entry[16];
} fgg_way_lanes;
static fgg_way_lanes fgg_lanes;
static int fgg_shots_level = 0;

static void fgg_lanes_init(void) {
    fgg_way_lanes* L = &fgg_lanes;
    memset(L, 0, sizeof(*L));
    for (int w = 0; w < 48; w++) L->n12[w] = L->n3[w] = L->n4[w] = -1;
    int w = 0;
    for (int d = 1; d <= 6; d++, w++) L->dist[w] = d;
    for (int a = 1; a <= 6; a++)
        for (int b = a + 1; b <= 6; b++, w++) {
            L->dist[w] = a + b;
            L->p1[w] = a;
            L->p2[w] = b;
            L->n12[w] = 0;
        }
    for (int d = 1; d <= 6; d++)
        for (int k = 2; k <= 4; k++, w++) {
            L->dist[w] = k * d;
            L->p1[w] = L->p2[w] = d;
            L->n12[w] = 0;
            if (k >= 3) L->p3[w] = 2 * d, L->n3[w] = 0;
            if (k >= 4) L->p4[w] = 3 * d, L->n4[w] = 0;
        }
    int p = 0;
    for (int lo = 0; lo < 6; lo++)
        for (int hi = lo + 1; hi < 6; hi++, p++) L->pair_lo[p] = lo, L->pair_hi[p] = hi, L->pair_w[p] = 6 + p;
    for (int d = 0; d < 6; d++) {
        for (int k = 0; k < 3; k++) L->dbl_w[k][d] = 21 + 3 * d + k - 16;
        L->dbl_entry[d] = 2 * d + 1; /* where a double's two-step way enters from the bar */
    }
}

#define FGG_AVX512_SHOTS __attribute__((target("avx512f,avx512cd,popcnt"), always_inline)) static inline

/* the hitters of the 16 ways from lane k (fgg_hitters' masks), or-ed into *any (lanes of
 * valid only) */
FGG_AVX512_SHOTS __m512i fgg_hitters16(int k, __m512i targets, __m512i from, __m512i open, __mmask16 valid,
                                       __m512i* any) {
    const fgg_way_lanes* L = &fgg_lanes;
    __m512i path = _mm512_or_si512(_mm512_sllv_epi32(open, _mm512_loadu_si512(L->p1 + k)),
                                   _mm512_sllv_epi32(open, _mm512_loadu_si512(L->p2 + k)));
    path = _mm512_or_si512(path, _mm512_loadu_si512(L->n12 + k));
    path = _mm512_and_si512(path, _mm512_or_si512(_mm512_sllv_epi32(open, _mm512_loadu_si512(L->p3 + k)),
                                                  _mm512_loadu_si512(L->n3 + k)));
    path = _mm512_and_si512(path, _mm512_or_si512(_mm512_sllv_epi32(open, _mm512_loadu_si512(L->p4 + k)),
                                                  _mm512_loadu_si512(L->n4 + k)));
    const __m512i m = _mm512_and_si512(_mm512_and_si512(from, _mm512_sllv_epi32(targets, _mm512_loadu_si512(L->dist + k))),
                                       path);
    *any = _mm512_mask_or_epi32(*any, valid, *any, m);
    return m;
}

/* a way's landing points' blots, each term shifted by shift(p) = p (left: free) or 22 - p
 * (right: from the bar), the bit each then reads: bit hit (free) or bit 0 (bar) */
FGG_AVX512_SHOTS __m512i fgg_blots16(int k, __m512i blots, int bar) {
    const fgg_way_lanes* L = &fgg_lanes;
    const __m512i p1 = _mm512_loadu_si512(L->p1 + k), p2 = _mm512_loadu_si512(L->p2 + k);
    const __m512i p3 = _mm512_loadu_si512(L->p3 + k), p4 = _mm512_loadu_si512(L->p4 + k);
    const __m512i n3 = _mm512_loadu_si512(L->n3 + k), n4 = _mm512_loadu_si512(L->n4 + k);
    if (bar) {
        const __m512i t = _mm512_set1_epi32(22);
        __m512i on = _mm512_or_si512(_mm512_srlv_epi32(blots, _mm512_sub_epi32(t, p1)),
                                     _mm512_srlv_epi32(blots, _mm512_sub_epi32(t, p2)));
        on = _mm512_or_si512(on, _mm512_andnot_si512(n3, _mm512_srlv_epi32(blots, _mm512_sub_epi32(t, p3))));
        return _mm512_or_si512(on, _mm512_andnot_si512(n4, _mm512_srlv_epi32(blots, _mm512_sub_epi32(t, p4))));
    }
    __m512i on = _mm512_or_si512(_mm512_sllv_epi32(blots, p1), _mm512_sllv_epi32(blots, p2));
    on = _mm512_or_si512(on, _mm512_andnot_si512(n3, _mm512_sllv_epi32(blots, p3)));
    return _mm512_or_si512(on, _mm512_andnot_si512(n4, _mm512_sllv_epi32(blots, p4)));
}

/* the highest set bit of each lane of m | 1 (0 when m is 0) */
FGG_AVX512_SHOTS __m512i fgg_high16(__m512i m) {
    return _mm512_sub_epi32(_mm512_set1_epi32(31), _mm512_lzcnt_epi32(_mm512_or_si512(m, _mm512_set1_epi32(1))));
}

/* 1 in the lanes of mask k, else 0 */
FGG_AVX512_SHOTS __m512i fgg_ones16(__mmask16 k) { return _mm512_maskz_mov_epi32(k, _mm512_set1_epi32(1)); }

/* fgg_add_roll over the lanes of `lanes`, each of weight `weight` */
FGG_AVX512_SHOTS void fgg_add_rolls16(fgg_shot_sums* t, int weight, __mmask16 lanes, __m512i count, __m512i pips) {
    t->pips += weight * _mm512_mask_reduce_add_epi32(lanes, pips);
    t->one += weight * (int)_mm_popcnt_u32(_mm512_mask_cmpge_epi32_mask(lanes, count, _mm512_set1_epi32(1)));
    t->two += weight * (int)_mm_popcnt_u32(_mm512_mask_cmpge_epi32_mask(lanes, count, _mm512_set1_epi32(2)));
}

/* fgg_rolls_free from the hitters' vectors m[0..2] */
FGG_AVX512_SHOTS void fgg_rolls_free16(const __m512i* m, const fgg_side* sme, const fgg_side* sopp, fgg_shot_sums* t) {
    const fgg_way_lanes* L = &fgg_lanes;
    const __m512i zero = _mm512_setzero_si512(), one = _mm512_set1_epi32(1);
    const __m512i blots = _mm512_set1_epi32((int)sopp->blot_x);
    __m512i h[3], e[3], wp[3];
    for (int v = 0; v < 3; v++) {
        h[v] = fgg_high16(m[v]);
        e[v] = _mm512_and_si512(_mm512_srlv_epi32(fgg_blots16(16 * v, blots, 0), h[v]), one);
        wp[v] = _mm512_add_epi32(_mm512_sub_epi32(h[v], _mm512_loadu_si512(L->dist + 16 * v)), one);
    }
    /* the dice alone (lanes 0..5): a second hitter is their extra hit */
    e[0] = _mm512_mask_blend_epi32(0x3F, e[0], fgg_ones16(_mm512_test_epi32_mask(m[0], _mm512_sub_epi32(m[0], one))));
    /* rolls of two different dice */
    const __m512i ilo = _mm512_loadu_si512(L->pair_lo), ihi = _mm512_loadu_si512(L->pair_hi);
    const __m512i iw = _mm512_loadu_si512(L->pair_w);
    const __m512i hlo = _mm512_permutexvar_epi32(ilo, h[0]), hhi = _mm512_permutexvar_epi32(ihi, h[0]);
    const __m512i hw = _mm512_permutex2var_epi32(h[0], iw, h[1]);
    const __m512i made_hi = _mm512_srlv_epi32(_mm512_set1_epi32((int)sme->made), hhi);
    const __mmask16 second = _mm512_test_epi32_mask(hhi, hhi)
                             & (_mm512_cmpneq_epi32_mask(hhi, hlo) | _mm512_test_epi32_mask(made_hi, one));
    __m512i count = _mm512_add_epi32(fgg_ones16(_mm512_test_epi32_mask(hlo, hlo)), fgg_ones16(second));
    count = _mm512_add_epi32(_mm512_max_epi32(count, fgg_ones16(_mm512_test_epi32_mask(hw, hw))),
                             _mm512_permutex2var_epi32(e[0], iw, e[1]));
    __m512i pips = _mm512_max_epi32(_mm512_max_epi32(zero, _mm512_permutexvar_epi32(ilo, wp[0])),
                                    _mm512_max_epi32(_mm512_permutexvar_epi32(ihi, wp[0]),
                                                     _mm512_permutex2var_epi32(wp[0], iw, wp[1])));
    fgg_add_rolls16(t, 2, 0x7FFF, count, pips);
    /* the doubles: the die alone, then its 2, 3 and 4 steps */
    count = _mm512_add_epi32(fgg_ones16(_mm512_test_epi32_mask(h[0], h[0])), e[0]);
    pips = _mm512_max_epi32(zero, wp[0]);
    for (int s = 0; s < 3; s++) {
        const __m512i ix = _mm512_loadu_si512(L->dbl_w[s]);
        const __m512i hs = _mm512_permutex2var_epi32(h[1], ix, h[2]);
        count = _mm512_add_epi32(_mm512_max_epi32(count, fgg_ones16(_mm512_test_epi32_mask(hs, hs))),
                                 _mm512_permutex2var_epi32(e[1], ix, e[2]));
        pips = _mm512_max_epi32(pips, _mm512_permutex2var_epi32(wp[1], ix, wp[2]));
    }
    fgg_add_rolls16(t, 1, 0x3F, count, pips);
}

/* fgg_rolls_bar1 from the hitters' vectors m[0..2] */
FGG_AVX512_SHOTS void fgg_rolls_bar1_16(const __m512i* m, const fgg_side* sopp, fgg_shot_sums* t) {
    const fgg_way_lanes* L = &fgg_lanes;
    const __m512i one = _mm512_set1_epi32(1), bar_bit = _mm512_set1_epi32(1 << 24);
    const __m512i blots = _mm512_set1_epi32((int)sopp->blot_x), made = _mm512_set1_epi32((int)sopp->made);
    __mmask16 bar[3];
    __m512i pip[3], e[3];
    for (int v = 0; v < 3; v++) {
        bar[v] = _mm512_test_epi32_mask(m[v], bar_bit);
        pip[v] = _mm512_maskz_sub_epi32(bar[v], _mm512_set1_epi32(25), _mm512_loadu_si512(L->dist + 16 * v));
        e[v] = _mm512_and_si512(fgg_blots16(16 * v, blots, 1), one);
    }
    /* the dice alone (lanes 0..5): their other hitters, the most advanced one's pips */
    const __m512i rest_m = _mm512_and_si512(m[0], _mm512_set1_epi32(0xFFFFFE));
    const __m512i rest = fgg_ones16(_mm512_test_epi32_mask(rest_m, rest_m));
    const __m512i rpip = _mm512_add_epi32(_mm512_sub_epi32(fgg_high16(rest_m), _mm512_loadu_si512(L->dist)), one);
    const __m512i bar0 = fgg_ones16(bar[0]), bar1 = fgg_ones16(bar[1]), bar2 = fgg_ones16(bar[2]);
    /* rolls of two different dice: the die hi + 1 enters on the index hi */
    const __m512i ilo = _mm512_loadu_si512(L->pair_lo), ihi = _mm512_loadu_si512(L->pair_hi);
    const __m512i iw = _mm512_loadu_si512(L->pair_w);
    const __mmask16 c_lo = _mm512_test_epi32_mask(_mm512_permutexvar_epi32(ilo, rest), one)
                           & ~_mm512_test_epi32_mask(_mm512_srlv_epi32(made, ihi), one);
    const __mmask16 c_hi = ~c_lo & _mm512_test_epi32_mask(_mm512_permutexvar_epi32(ihi, rest), one)
                           & ~_mm512_test_epi32_mask(_mm512_srlv_epi32(made, ilo), one);
    __m512i count = _mm512_add_epi32(_mm512_permutexvar_epi32(ilo, bar0), _mm512_permutexvar_epi32(ihi, bar0));
    count = _mm512_add_epi32(count, fgg_ones16(c_lo | c_hi));
    __m512i pips = _mm512_max_epi32(_mm512_permutexvar_epi32(ilo, pip[0]), _mm512_permutexvar_epi32(ihi, pip[0]));
    pips = _mm512_mask_max_epi32(pips, c_lo, pips, _mm512_permutexvar_epi32(ilo, rpip));
    pips = _mm512_mask_max_epi32(pips, c_hi, pips, _mm512_permutexvar_epi32(ihi, rpip));
    const __mmask16 bw = _mm512_test_epi32_mask(_mm512_permutex2var_epi32(bar0, iw, bar1), one);
    count = _mm512_mask_add_epi32(count, bw, _mm512_max_epi32(count, one), _mm512_permutex2var_epi32(e[0], iw, e[1]));
    pips = _mm512_max_epi32(pips, _mm512_permutex2var_epi32(pip[0], iw, pip[1]));
    fgg_add_rolls16(t, 2, 0x7FFF, count, pips);
    /* the doubles (the two-step way enters on the index 2d + 1) */
    const __mmask16 c = _mm512_test_epi32_mask(rest, one)
                        & ~_mm512_test_epi32_mask(_mm512_srlv_epi32(made, _mm512_loadu_si512(L->dbl_entry)), one);
    count = _mm512_add_epi32(bar0, fgg_ones16(c));
    pips = _mm512_mask_max_epi32(pip[0], c, pip[0], rpip);
    for (int s = 0; s < 3; s++) {
        const __m512i ix = _mm512_loadu_si512(L->dbl_w[s]);
        const __mmask16 bs = _mm512_test_epi32_mask(_mm512_permutex2var_epi32(bar1, ix, bar2), one);
        count = _mm512_mask_add_epi32(count, bs, _mm512_max_epi32(count, one), _mm512_permutex2var_epi32(e[1], ix, e[2]));
        pips = _mm512_max_epi32(pips, _mm512_permutex2var_epi32(pip[1], ix, pip[2]));
    }
    fgg_add_rolls16(t, 1, 0x3F, count, pips);
}

/* fgg_shots_inputs' sums for our bar holding `on_bar` (0 or 1) checkers */
__attribute__((target("avx512f,avx512cd,popcnt"))) static void fgg_shots_avx512(
    uint32_t targets, uint32_t from, uint32_t open, int on_bar, const fgg_side* sme, const fgg_side* sopp,
    fgg_shot_sums* t) {
    const __m512i tv = _mm512_set1_epi32((int)targets), fv = _mm512_set1_epi32((int)from);
    const __m512i ov = _mm512_set1_epi32((int)open);
    __m512i any = _mm512_setzero_si512(), m[3];
    m[0] = fgg_hitters16(0, tv, fv, ov, 0xFFFF, &any);
    m[1] = fgg_hitters16(16, tv, fv, ov, 0xFFFF, &any);
    m[2] = fgg_hitters16(32, tv, fv, ov, 0x7F, &any);
    if (!_mm512_test_epi32_mask(any, any)) return;
    if (on_bar == 0) fgg_rolls_free16(m, sme, sopp, t);
    else fgg_rolls_bar1_16(m, sopp, t);
}

/* use fgg_shots_avx512 (on: the CPU has AVX-512 F and CD) or the plain loops */
static inline int fgg_shots_select(int on) {
    if (!fgg_lanes.dist[0]) fgg_lanes_init();
    __builtin_cpu_init();
    fgg_shots_level = on && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd")
                      && __builtin_cpu_supports("popcnt");
    return fgg_shots_level;
}
#else
static inline int fgg_shots_select(int on) { (void)on; return 0; }
#endif

#endif
