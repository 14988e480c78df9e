/* The "contact" input scheme: hand-made features of a position, plain C.
 *
 * fastgen.core.features documents each feature (the definitions there and here are the
 * same); fastgen/core/_features.h encodes them for fastgen.encode, the compiled
 * networks' kernel (fastgen/nets/_mlp.h) adds them to a network's first layer, and the
 * trainer (fastgen/train/_td.h) learns their weights.
 *
 * A board is seen from its side on roll X (`me`: 25 counts, its points 1..24 at 0..23 and
 * its bar at 24) against the other side Y (`opp`, in Y's own numbering). Y's point q is
 * X's point 25 - q. The features are computed twice, for (X, Y) and for (Y, X), ten
 * each, then two about both sides:
 *
 *   0 pips / 100              the side's pip count (bar 25)
 *   1 shots / 36              rolls of the other side that hit at least one of the side's blots
 *   2 blots / 5               the side's points with exactly one checker
 *   3 escapes / 36            rolls taking the side's rearmost checker past the other side's blockade
 *   4 prime / 6               the longest run of consecutive points the side holds (2+ checkers)
 *   5 home points / 6         points 1..6 the side holds
 *   6 anchors / 3             points 19..24 the side holds (in the other side's home board)
 *   7 back checkers / 15      the side's checkers on points 19..24 and the bar
 *   8 other's dance chance    (home points / 6)^2 when the other side has a checker on the bar, else 0
 *   9 past contact / 15       the side's checkers no other-side checker can still meet
 *  20 race                    1 when no checker of either side can meet one of the other's
 *  21 pip lead / 50           (the other's pips - the side on roll's pips) / 50
 *
 * Shots: the other side hits a blot on a roll when one of its checkers can reach the blot
 * with one die (direct), with both dice one after the other (the point after the first
 * die not held by the side), or with doubles in two, three or four steps (every point on
 * the way not held). When the other side has a checker on its bar, only hits by a
 * checker entering from the bar are counted.
 *
 * Escapes: the side's rearmost checker (its bar, else its highest point) escapes on a
 * roll when it can move, by one die or by steps as above (each landing point not held by
 * the other side), to a point below every point the other side holds within 12 pips in
 * front of it; 36 when the other side holds none there, 0 when the side has no checker.
 */
#ifndef FASTGEN_CONTACT_H
#define FASTGEN_CONTACT_H

#include <stdint.h>

#include "_platform.h" /* fg_ctz32 */

#define FG_CONTACT_WIDTH 22
#define FG_CONTACT_PER_SIDE 10

/* The 21 rolls as bits: roll (a, b), a <= b, is bit fg_contact_bit(a, b); doubles are
 * the bits of FG_CONTACT_DOUBLES. A set of rolls counts 2 a non-double, 1 a double. */
static inline int fg_contact_bit(int a, int b) {
    if (a > b) { int t = a; a = b; b = t; }
    /* rolls before (a, .): 6 + 5 + ... for the smaller dice below a */
    return (a - 1) * (14 - a) / 2 + (b - a);
}
#define FG_CONTACT_DOUBLES ((1u << 0) | (1u << 6) | (1u << 11) | (1u << 15) | (1u << 18) | (1u << 20))

/* set bits of m */
static inline int fg_contact_bits(uint32_t m) {
    int n = 0;
    for (; m; m &= m - 1) n++;
    return n;
}

static inline int fg_contact_count(uint32_t m) {
    return 2 * fg_contact_bits(m) - fg_contact_bits(m & FG_CONTACT_DOUBLES);
}

/* The rolls (bits as fg_contact_bit) on which a checker on a point of `src` (bit p:
 * point p of a numbering in which it moves toward higher bits, or toward lower bits when
 * `down`) lands on a point of `target`: with one die; with both dice one after the other,
 * the point after the first not in `block`; with doubles in up to four steps, every point
 * on the way not in `block`. Every source and target at once, by shifting the sets of
 * points (a checker moves at most 24 pips, so 64 bits hold every landing point): no
 * loop over checkers. */
static inline uint32_t fg_contact_rolls(uint64_t src, uint64_t block, uint64_t target, int down) {
    uint32_t m = 0;
    const uint64_t open = ~block;
    uint64_t step[7];
    for (int a = 1; a <= 6; a++) step[a] = down ? src >> a : src << a;
    int bit = 0;
    for (int a = 1; a <= 6; a++) {
        /* the double a-a: up to four steps */
        uint64_t t = step[a], reach = t;
        for (int s = 1; s < 4; s++) {
            t &= open;
            t = down ? t >> a : t << a;
            reach |= t;
        }
        m |= (uint32_t)((reach & target) != 0) << bit++;
        for (int b = a + 1; b <= 6; b++) {
            uint64_t ab = step[a] & open, ba = step[b] & open;
            reach = step[a] | step[b] | (down ? (ab >> b) | (ba >> a) : (ab << b) | (ba << a));
            m |= (uint32_t)((reach & target) != 0) << bit++;
        }
    }
    return m;
}

/* One side's row (25 counts: its points 1..24 at 0..23, its bar at 24) as bit masks
 * over the indices i = 0..24 and two sums: what fg_contact_side needs of it. */
typedef struct {
    uint32_t nz;   /* bit i: a checker at index i */
    uint32_t blot; /* bit i: exactly one */
    uint32_t made; /* bit i: two or more */
    int pips;      /* sum of (i + 1) * count: the pip count (the bar 25) */
    int back;      /* checkers at indices 18..24: points 19..24 and the bar */
} fg_contact_scan;

#if !defined(FG_PORTABLE) && (defined(__SSE2__) || defined(_M_X64))
#include <emmintrin.h>
/* SSE2 (every x86-64 CPU): two overlapping 16-byte loads, bytes 0..15 and 9..24 of the
 * row, so nothing beyond its 25 bytes is read. */
static inline void fg_contact_scan_row(const int8_t* row, fg_contact_scan* sc) {
    const __m128i lo = _mm_loadu_si128((const __m128i*)row);
    const __m128i hi = _mm_loadu_si128((const __m128i*)(row + 9));
    const __m128i zero = _mm_setzero_si128(), one = _mm_set1_epi8(1);
    uint32_t nz = (uint32_t)_mm_movemask_epi8(_mm_cmpgt_epi8(lo, zero)) |
                  ((uint32_t)_mm_movemask_epi8(_mm_cmpgt_epi8(hi, zero)) << 9);
    uint32_t blot = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(lo, one)) |
                    ((uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(hi, one)) << 9);
    uint32_t made = (uint32_t)_mm_movemask_epi8(_mm_cmpgt_epi8(lo, one)) |
                    ((uint32_t)_mm_movemask_epi8(_mm_cmpgt_epi8(hi, one)) << 9);
    /* pips: counts widened to 16 bits times their weights i + 1 (0 for the lanes of hi
     * that repeat lo's indices 9..15) */
    const __m128i w0 = _mm_setr_epi16(1, 2, 3, 4, 5, 6, 7, 8), w1 = _mm_setr_epi16(9, 10, 11, 12, 13, 14, 15, 16);
    const __m128i w2 = _mm_setr_epi16(0, 0, 0, 0, 0, 0, 0, 17), w3 = _mm_setr_epi16(18, 19, 20, 21, 22, 23, 24, 25);
    __m128i sum = _mm_add_epi32(_mm_madd_epi16(_mm_unpacklo_epi8(lo, zero), w0), _mm_madd_epi16(_mm_unpackhi_epi8(lo, zero), w1));
    sum = _mm_add_epi32(sum, _mm_add_epi32(_mm_madd_epi16(_mm_unpacklo_epi8(hi, zero), w2),
                                           _mm_madd_epi16(_mm_unpackhi_epi8(hi, zero), w3)));
    sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, _MM_SHUFFLE(1, 0, 3, 2)));
    sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, _MM_SHUFFLE(2, 3, 0, 1)));
    /* back: hi's lanes 9..15 are indices 18..24 (counts are 0..15, so byte sums are exact) */
    const __m128i top = _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1, -1, -1, -1, -1, -1);
    __m128i b = _mm_sad_epu8(_mm_and_si128(hi, top), zero);
    sc->nz = nz;
    sc->blot = blot;
    sc->made = made;
    sc->pips = _mm_cvtsi128_si32(sum);
    sc->back = _mm_cvtsi128_si32(b) + _mm_cvtsi128_si32(_mm_srli_si128(b, 8));
}
#else
static inline void fg_contact_scan_row(const int8_t* row, fg_contact_scan* sc) {
    uint32_t nz = 0, blot = 0, made = 0;
    int pips = 0, back = 0;
    for (int i = 0; i < 25; i++) {
        int n = row[i];
        nz |= (uint32_t)(n > 0) << i;
        blot |= (uint32_t)(n == 1) << i;
        made |= (uint32_t)(n > 1) << i;
        pips += (i + 1) * n;
        back += (i >= 18) * n;
    }
    sc->nz = nz;
    sc->blot = blot;
    sc->made = made;
    sc->pips = pips;
    sc->back = back;
}
#endif

/* bits 0..24 of m in reverse order (bit i to bit 24 - i): a side's indices in the
 * other side's numbering (its index q, point q + 1, is the other's point 24 - q) */
static inline uint32_t fg_contact_flip25(uint32_t m) {
    m = ((m >> 1) & 0x55555555u) | ((m & 0x55555555u) << 1);
    m = ((m >> 2) & 0x33333333u) | ((m & 0x33333333u) << 2);
    m = ((m >> 4) & 0x0F0F0F0Fu) | ((m & 0x0F0F0F0Fu) << 4);
    m = ((m >> 8) & 0x00FF00FFu) | ((m & 0x00FF00FFu) << 8);
    m = (m >> 16) | (m << 16);
    return m >> 7;
}

/* The ten features of side `me` (its row and scan) against the other side (its row and
 * scan) into out[0..10) (see the top of this file). */
static void fg_contact_side(const int8_t* me, const fg_contact_scan* ms, const int8_t* opp, const fg_contact_scan* os,
                            float* out) {
    /* sets of points are bit masks in my numbering: bit p my point p (1..24), bit 0 the
     * other side's bar (it enters on my points 1..6 and moves up), bit 25 my bar */
    const uint32_t points = 0xFFFFFFu; /* indices 0..23 */
    uint32_t blot_bits = (ms->blot & points) << 1, made_bits = (ms->made & points) << 1;
    int blots = fg_contact_bits(ms->blot & points);
    int home = fg_contact_bits(ms->made & 0x3Fu);
    int anchors = fg_contact_bits(ms->made & 0xFC0000u);
    int prime = 0;
    for (uint32_t run = ms->made & points; run; run &= run >> 1) prime++;
    int rear = ms->nz ? 32 - fg_clz32(ms->nz) : 0; /* the rearmost checker's point, 25 the bar */
    /* the other side in my numbering: its index q (its point q + 1) is my point 24 - q */
    uint32_t opp_held = fg_contact_flip25(os->made & points);
    uint32_t opp_bits = fg_contact_flip25(os->nz & points);
    int opp_on_bar = opp[24] != 0;
    /* the other side's rearmost checker, my numbering (its lowest point there; 0 its bar) */
    int opp_rear = opp_on_bar ? 0 : (opp_bits ? fg_ctz32(opp_bits) : 26);
    int past = 0;
    for (int i = 0; i + 1 < opp_rear && i < 24; i++) past += me[i];
    /* shots: from the bar only when the other side has a checker there */
    uint32_t hits = blot_bits ? fg_contact_rolls(opp_on_bar ? 1u : opp_bits, made_bits, blot_bits, 0) : 0;
    int escapes = 0;
    if (rear > 0) {
        /* the lowest point the other side holds within 12 pips in front of the rearmost */
        int from = rear - 12 < 1 ? 1 : rear - 12;
        uint32_t window = opp_held & ((1u << rear) - 1u) & ~((1u << from) - 1u);
        if (!window) {
            escapes = 36;
        } else {
            int lowest = fg_ctz32(window);
            uint32_t below = ((1u << lowest) - 1u) & ~1u & ~opp_held; /* my points 1..lowest-1 it does not hold */
            escapes = fg_contact_count(fg_contact_rolls((uint64_t)1 << rear, opp_held, below, 1));
        }
    }
    out[0] = (float)ms->pips / 100.0f;
    out[1] = (float)fg_contact_count(hits) / 36.0f;
    out[2] = (float)blots / 5.0f;
    out[3] = (float)escapes / 36.0f;
    out[4] = (float)prime / 6.0f;
    out[5] = (float)home / 6.0f;
    out[6] = (float)anchors / 3.0f;
    out[7] = (float)ms->back / 15.0f;
    out[8] = opp_on_bar ? ((float)home / 6.0f) * ((float)home / 6.0f) : 0.0f;
    out[9] = (float)past / 15.0f;
}

/* The 22 features of the board seen by `me` (on roll) against `opp` into out[0..22). */
static void fg_contact_features(const int8_t* me, const int8_t* opp, float* out) {
    fg_contact_scan ms, os;
    fg_contact_scan_row(me, &ms);
    fg_contact_scan_row(opp, &os);
    fg_contact_side(me, &ms, opp, &os, out);
    fg_contact_side(opp, &os, me, &ms, out + FG_CONTACT_PER_SIDE);
    /* contact: the rearmost checkers (points, 25 the bar) meet when their sum tops 25 */
    int mine = ms.nz ? 32 - fg_clz32(ms.nz) : 0, theirs = os.nz ? 32 - fg_clz32(os.nz) : 0;
    out[20] = mine + theirs > 25 ? 0.0f : 1.0f;
    out[21] = (float)(os.pips - ms.pips) / 50.0f;
}

#endif /* FASTGEN_CONTACT_H */
