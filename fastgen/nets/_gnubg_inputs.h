/* GNU Backgammon's network inputs, its position classes and its sigmoid, plain C.
 *
 * Written for fastgen from published definitions (the input descriptions of the enum
 * comments in gnubg's eval.c, the gnubg manual, gnubg's ChangeLog on PIPLOSS), with the
 * details they leave open settled by probing gnubg-nn as a black box; no gnubg code was
 * copied. Found by probing, and kept because gnubg's nets were trained with them: the
 * entering checker's indirect shot looks for a second blot two points past its first
 * landing point; BACKBONE does not count the 1-point; BACKRESCAPES is 0 when nothing
 * blocks; CONTAIN never looks at the bar; ACONTAIN and CONTAIN are rounded once.
 * fastgen/nets/_gnubg.pyx runs these functions over batches; tests/test_gnubg_inputs.py
 * holds them to gnubg-nn's 0-ply probabilities and to each input alone.
 *
 * Each side's points are read once a position into bit masks (fgg_side); the inputs are
 * then found by shifts, bit scans and small tables built by fgg_init, in int arithmetic
 * up to each input's one conversion to float, and mostly without branches (a mispredicted
 * branch costs more here than the arithmetic it would skip).
 *
 * A board is `const int8_t b[2][25]`, gnubg's layout and fastgen's: row 1 the side on
 * roll, row 0 the other side, each row in its own numbering (index 0..23 its points 1..24,
 * 24 its bar). The counts are trusted (0..15, at most 15 a side): the caller checks them.
 *
 * The encodings:
 *   race (214)      two blocks of 107, row 0's first: points 1..23 as four units each,
 *                   checkers off as 14 one-hot units, the pips to cross to home / 10.
 *   contact (250)   the 200 base units (row 0 then row 1, 25 points of four units each),
 *                   then two blocks of 25: the checkers off (3 units) of row 0 followed by
 *                   row 1's 22 hand-made inputs, then row 1's checkers off and row 0's
 *                   hand-made inputs (gnubg's nets were trained with the off units of the
 *                   two blocks exchanged, and keep it).
 *   crashed (250)   the same, with each block's off units its own side's (scaled by 5
 *                   rather than 3).
 */
#ifndef FASTGEN_GNUBG_INPUTS_H
#define FASTGEN_GNUBG_INPUTS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* position classes (our own numbering, in the order gnubg checks them) */
#define FGG_OVER 0     /* a side has no checker left: the game is over */
#define FGG_BEAROFF 1  /* no contact, both sides with every checker on their six home points */
#define FGG_RACE 2     /* no contact, not bear-off */
#define FGG_CRASHED 3  /* contact, and a side has collapsed its board (see fgg_crashed_side) */
#define FGG_CONTACT 4  /* contact otherwise */

#define FGG_RACE_WIDTH 214
#define FGG_CONTACT_WIDTH 250

/* PIPLOSS versions: what counts as a made home point when deciding which blots are
 * targets (1.00: any occupied point, an old quirk; 1.01: two or more checkers). */
#define FGG_V100 100
#define FGG_V101 101

/* ------------------------------------------------------------------ the tables */

/* exp(k / 10) / 10 for k = 0..99, and a copy of the last one at 100 */
static float fgg_exp10[101];
/* Escape counts over 12-bit masks of blocked points (see fgg_escapes) */
static uint8_t fgg_esc[4096];
static uint8_t fgg_esc1[4096];

/* The 39 ways a roll can move one checker to a hit, in this order: each die d alone
 * (ways 0..5: d - 1), two different dice a < b one after the other (6..20, ordered by a
 * then b), a double's die d taken 2, 3 or 4 times (21 + 3 (d - 1) + 0..2).
 * A way's intermediate landing points (a die alone has none) must be open: either of
 * a and b, every one of a double's. fgg_way_dist: the pips each way covers. */
static int fgg_way_dist[39];

static int fgg_lowest_bit(int m) {
    int k = 0;
    while (k < 12 && !(m & (1 << k))) k++;
    return k;
}

/* a point's four units by its count n: one-hot for 1, 2, 3; 3 and more also (n - 3) / 2 */
static inline void fgg_point_units(int n, float* u) {
    u[0] = n == 1 ? 1.0f : 0.0f;
    u[1] = n == 2 ? 1.0f : 0.0f;
    u[2] = n >= 3 ? 1.0f : 0.0f;
    u[3] = n > 3 ? (n - 3) / 2.0f : 0.0f;
}

/* the bar's four units, cumulative: at least 1, 2, 3 there, and (n - 3) / 2 beyond 3 */
static inline void fgg_bar_units(int n, float* u) {
    u[0] = n >= 1 ? 1.0f : 0.0f;
    u[1] = n >= 2 ? 1.0f : 0.0f;
    u[2] = n >= 3 ? 1.0f : 0.0f;
    u[3] = n > 3 ? (n - 3) / 2.0f : 0.0f;
}

/* ENTER's pips lost (of 36 rolls) with one (0) or two or more (1) checkers on the bar,
 * by the other side's made home points (6 bits): each double of a made point loses
 * 4 x its pips, each pair of made points 2 x their sum; with two on the bar a pair of
 * which one is made loses 2 x its pips */
static int fgg_enter_loss[2][64];

/* the off units of a non-crashed position: thirds of the first 9 checkers off */
static inline void fgg_off_contact(int off, float* u) {
    if (off <= 2) { u[0] = off / 3.0f; u[1] = 0.0f; u[2] = 0.0f; }
    else if (off <= 5) { u[0] = 1.0f; u[1] = (off - 3) / 3.0f; u[2] = 0.0f; }
    else { u[0] = 1.0f; u[1] = 1.0f; u[2] = (off - 6) / 3.0f; }
}

/* the off units of a crashed position: fifths of the 15 */
static inline void fgg_off_crashed(int off, float* u) {
    if (off <= 5) { u[0] = off / 5.0f; u[1] = 0.0f; u[2] = 0.0f; }
    else if (off <= 10) { u[0] = 1.0f; u[1] = (off - 5) / 5.0f; u[2] = 0.0f; }
    else { u[0] = 1.0f; u[1] = 1.0f; u[2] = (off - 10) / 5.0f; }
}

/* the units of a point and of the bar for each count 0..15 (fgg_point_units, fgg_bar_units) */
static float fgg_point_table[16][4];
static float fgg_bar_table[16][4];
/* the off units for each count 0..15 off, of a non-crashed [0] or crashed [1] position */
static float fgg_off_table[2][16][3];

static void fgg_init(void) {
    for (int two = 0; two < 2; two++)
        for (int home = 0; home < 64; home++) {
            int loss = 0;
            for (int i = 0; i < 6; i++) {
                const int mi = (home >> i) & 1;
                if (mi) loss += 4 * (i + 1);
                for (int j = i + 1; j < 6; j++) {
                    const int mj = (home >> j) & 1;
                    if (mi && mj) loss += 2 * (i + j + 2);
                    else if (two && mi) loss += 2 * (i + 1);
                    else if (two && mj) loss += 2 * (j + 1);
                }
            }
            fgg_enter_loss[two][home] = loss;
        }
    for (int n = 0; n < 16; n++) {
        fgg_point_units(n, fgg_point_table[n]);
        fgg_bar_units(n, fgg_bar_table[n]);
        fgg_off_contact(n, fgg_off_table[0][n]);
        fgg_off_crashed(n, fgg_off_table[1][n]);
    }
    for (int k = 0; k < 100; k++) fgg_exp10[k] = (float)(exp(k / 10.0) / 10.0);
    fgg_exp10[100] = fgg_exp10[99];

    /* A mask's bit k: the point k + 1 pips in front of a checker is blocked (two or
     * more of the other side). A roll (dice a > b or a double, 0-based faces) lets it
     * escape when the landing point of both dice (bit a + b + 1) is open and at least one
     * of the two single-die points is open; esc1 also asks the landing point to lie
     * beyond the first blocked one, and is 0 when none is blocked. */
    for (int m = 0; m < 4096; m++) {
        int e = 0, e1 = 0;
        const int low = fgg_lowest_bit(m); /* 12 when none: esc1 is then 0 (gnubg's count) */
        for (int a = 0; a < 6; a++)
            for (int b = 0; b <= a; b++) {
                int w = a == b ? 1 : 2;
                if (m & (1 << (a + b + 1))) continue;
                if ((m & (1 << a)) && (m & (1 << b))) continue;
                e += w;
                if (a + b + 1 > low) e1 += w;
            }
        fgg_esc[m] = (uint8_t)e;
        fgg_esc1[m] = (uint8_t)e1;
    }

    int n = 0;
    for (int d = 1; d <= 6; d++) fgg_way_dist[n++] = d;
    for (int a = 1; a <= 6; a++)
        for (int b = a + 1; b <= 6; b++) fgg_way_dist[n++] = a + b;
    for (int d = 1; d <= 6; d++)
        for (int k = 2; k <= 4; k++) fgg_way_dist[n++] = k * d;
}

/* ------------------------------------------------------------------ the sigmoid */

/* gnubg's sigmoid: 1 / (1 + e^x) (note the sign: a unit's activation is of minus its
 * sum), with e^x taken from the table of e^(k/10) and straight lines between its entries
 * (so slightly discontinuous at each tenth), and constant beyond |x| >= 10. */
static inline float fgg_sigmoid(float x) {
    if (!signbit(x)) {
        if (x < 10.0f) {
            const float x1 = 10.0f * x;
            const int i = (int)x1;
            return 1.0f / (1.0f + fgg_exp10[i] * ((float)(10 - i) + x1));
        }
        return 1.0f / 19931.370438230298f;
    }
    if (x > -10.0f) {
        const float x1 = -10.0f * x;
        const int i = (int)x1;
        return 1.0f - 1.0f / (1.0f + fgg_exp10[i] * ((float)(10 - i) + x1));
    }
    return 19930.370438230298f / 19931.370438230298f;
}

/* ------------------------------------------------------------------ classes */

/* the highest index holding a checker of the row, -1 when it has none */
static inline int fgg_rear(const int8_t* row) {
    for (int i = 24; i >= 0; i--)
        if (row[i]) return i;
    return -1;
}

static inline int fgg_on_board(const int8_t* row) {
    int t = 0;
    for (int i = 0; i < 25; i++) t += row[i];
    return t;
}

/* A side has "crashed" when few of its checkers are left outside its lowest points: at
 * most 6 on the board; or its 1-point holds two or more and at most 6 others are on the
 * board (or at most 6 beyond its 1- and 2-points, counting one of the 2-point's, when the
 * 2-point holds two or more too); or its 1-point holds at most one and at most 6 are
 * on the board beyond the 2-point's first checker. */
static inline int fgg_crashed_side(const int8_t* row) {
    const int tot = fgg_on_board(row);
    if (tot <= 6) return 1;
    if (row[0] > 1) {
        if (tot <= 6 + row[0]) return 1;
        if (row[1] > 1 && 1 + tot - row[0] - row[1] <= 6) return 1;
        return 0;
    }
    return tot <= 6 + (row[1] - 1);
}

/* The class of a position: over; contact when the two rearmost checkers can still meet
 * (their indices summing to more than 22), crashed if either side crashed; otherwise
 * bear-off when both sides are within gnubg's one-sided database (every checker on the
 * six home points, at most 15 of them: always so), else race. */
static inline int fgg_classify(const int8_t b[2][25]) {
    const int back = fgg_rear(b[1]), oback = fgg_rear(b[0]);
    if (back < 0 || oback < 0) return FGG_OVER;
    if (back + oback > 22) return fgg_crashed_side(b[0]) || fgg_crashed_side(b[1]) ? FGG_CRASHED : FGG_CONTACT;
    if (back < 6 && oback < 6) return FGG_BEAROFF;
    return FGG_RACE;
}

/* ------------------------------------------------------------------ base units */

/* the 200 base units: row 0's 24 points and bar, then row 1's */
static inline void fgg_base_units(const int8_t b[2][25], float* out) {
    for (int s = 0; s < 2; s++) {
        float* o = out + 100 * s;
        for (int i = 0; i < 24; i++) memcpy(o + 4 * i, fgg_point_table[b[s][i]], sizeof(fgg_point_table[0]));
        memcpy(o + 96, fgg_bar_table[b[s][24]], sizeof(fgg_bar_table[0]));
    }
}

/* ------------------------------------------------------------------ race */

static inline void fgg_race_inputs(const int8_t b[2][25], float* out) {
    for (int s = 0; s < 2; s++) {
        const int8_t* row = b[s];
        float* o = out + 107 * s;
        /* points 1..23 (a race has no checker further back) */
        for (int i = 0; i < 23; i++) memcpy(o + 4 * i, fgg_point_table[row[i]], sizeof(fgg_point_table[0]));
        /* checkers borne off: unit k is 1 when exactly k + 1 are off */
        const int off = 15 - fgg_on_board(row);
        for (int k = 0; k < 14; k++) o[92 + k] = off == k + 1 ? 1.0f : 0.0f;
        /* crossovers still to make: each checker counts the quarters of the board
         * (6 points each) it must cross to reach the home board */
        int cross = 0;
        for (int q = 1; q < 4; q++)
            for (int i = 6 * q; i < 6 * q + 6; i++) cross += q * row[i];
        o[106] = cross / 10.0f;
    }
}

/* ------------------------------------------------------------------ contact and crashed */

/* half-input indices within a 25-unit block (0..2 are the off units) */
enum {
    FGG_BREAK_CONTACT = 3, FGG_BACK_CHEQUER, FGG_BACK_ANCHOR, FGG_FORWARD_ANCHOR, FGG_PIPLOSS,
    FGG_P1, FGG_P2, FGG_BACKESCAPES, FGG_ACONTAIN, FGG_ACONTAIN2, FGG_CONTAIN, FGG_CONTAIN2,
    FGG_MOBILITY, FGG_MOMENT2, FGG_ENTER, FGG_ENTER2, FGG_TIMING, FGG_BACKBONE, FGG_BACKG,
    FGG_BACKG1, FGG_FREEPIP, FGG_BACKRESCAPES
};

/* A side's points as bit masks, found once a position and shared by both halves (and,
 * through made_x and blot_x, read in the other side's numbering by its shot counting). */
typedef struct {
    uint32_t occ;     /* bit i: row[i] > 0 (i = 0..24, 24 the bar) */
    uint32_t made;    /* bit i: row[i] >= 2 (the points 0..23 only) */
    uint32_t home2;   /* bit i: row[i] == 2, home points only (0..5) */
    uint32_t made_x;  /* bit 23 - i: row[i] >= 2 (the other side's numbering) */
    uint32_t blot_x;  /* bit 23 - i: row[i] == 1 */
    int on_board;     /* checkers on the points and the bar */
} fgg_side;

/* Eight counts (0..15) as the bytes of a word, the first the lowest (a portable load). */
static inline uint64_t fgg_load8(const int8_t* p) {
    uint64_t v = 0;
    for (int k = 7; k >= 0; k--) v = v << 8 | (uint8_t)p[k];
    return v;
}

/* The bytes' low bits (each byte 0 or 1) gathered into 8 bits: the first byte's lowest
 * (fgg_pack), or highest (fgg_pack_x) */
static inline uint32_t fgg_pack(uint64_t v) { return (uint32_t)((v * 0x0102040810204080ull) >> 56); }
static inline uint32_t fgg_pack_x(uint64_t v) { return (uint32_t)((v * 0x8040201008040201ull) >> 56); }

/* The masks of a row, eight points at a time: with counts of at most 15, adding 0x7f
 * (0x7e, 0x7d) to a byte sets its high bit when it holds one (two, three) or more. */
static inline void fgg_side_masks(const int8_t* row, fgg_side* s) {
    const uint64_t ones = 0x0101010101010101ull;
    uint32_t occ = 0, made = 0, made_x = 0, blot_x = 0;
    int t = row[24];
    for (int q = 0; q < 3; q++) {
        const uint64_t v = fgg_load8(row + 8 * q);
        const uint64_t one = ((v + 0x7f * ones) >> 7) & ones, two = ((v + 0x7e * ones) >> 7) & ones;
        occ |= fgg_pack(one) << 8 * q;
        made |= fgg_pack(two) << 8 * q;
        made_x |= fgg_pack_x(two) << (16 - 8 * q);
        blot_x |= fgg_pack_x(one & ~two) << (16 - 8 * q);
        t += (int)((v * ones) >> 56);
        if (q == 0) {
            const uint64_t three = ((v + 0x7d * ones) >> 7) & ones;
            s->home2 = fgg_pack(two & ~three) & 0x3Fu;
        }
    }
    s->occ = occ | (uint32_t)(row[24] > 0) << 24;
    s->made = made;
    s->made_x = made_x;
    s->blot_x = blot_x;
    s->on_board = t;
}

/* the highest and the lowest set bit of m (m != 0), and the bits set */
static inline int fgg_high_bit(uint32_t m) {
#if defined(__GNUC__) || defined(__clang__)
    return 31 - __builtin_clz(m);
#else
    int k = 31;
    while (!(m & (1u << k))) k--;
    return k;
#endif
}

static inline int fgg_low_bit(uint32_t m) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctz(m);
#else
    int k = 0;
    while (!(m & (1u << k))) k++;
    return k;
#endif
}

static inline int fgg_popcount(uint32_t m) { /* (no builtin: without -mpopcnt a call) */
    m = m - ((m >> 1) & 0x55555555u);
    m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
    return (int)((((m + (m >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24);
}

/* The base units that are not 0, straight from the counts, in index order (the same
 * list fgg_nonzero makes of fgg_base_units' 200 floats, without writing them): their
 * indices at[], values val[]; returns how many (at most 100). A point of n checkers has
 * one unit of 1 (n = 1, 2 or 3 and more) and, beyond 3, the fourth unit (n - 3) / 2; the
 * bar's units are cumulative. The occupied points are found as a bit mask first (counts
 * of at most 15) and walked bit by bit. */
static inline int fgg_base_nonzero(const int8_t b[2][25], int* at, float* val) {
    int m = 0;
    for (int s = 0; s < 2; s++) {
        const int8_t* row = b[s];
        const int base = 100 * s;
        uint32_t occ = 0;
        for (int q = 0; q < 3; q++) /* eight points at a time, as fgg_side_masks */
            occ |= fgg_pack(((fgg_load8(row + 8 * q) + 0x7f7f7f7f7f7f7f7full) >> 7) & 0x0101010101010101ull) << 8 * q;
        for (; occ; occ &= occ - 1) {
            const int i = fgg_low_bit(occ), n = row[i];
            at[m] = base + 4 * i + (n < 3 ? n - 1 : 2);
            val[m++] = 1.0f;
            if (n > 3) {
                at[m] = base + 4 * i + 3;
                val[m++] = (n - 3) / 2.0f;
            }
        }
        const int n = row[24];
        for (int u = 0; u < 3 && u < n; u++) {
            at[m] = base + 96 + u;
            val[m++] = 1.0f;
        }
        if (n > 3) {
            at[m] = base + 99;
            val[m++] = (n - 3) / 2.0f;
        }
    }
    return m;
}

/* Rolls (of 36) on which a checker of the other side, n pips in that side's numbering
 * (-1..24), gets past the points of `made` (a side's fgg_side.made) in the 12 pips in
 * front of it (see the table); `first`: it must also land beyond the first of them.
 * The mask's bit k is the row's index 24 + k - n: made shifted down by 24 - n (made
 * has no bit beyond 23, so nothing behind the checker comes in). */
static inline int fgg_escapes(uint32_t made, int n, int first) {
    const uint32_t m = (made >> (24 - n)) & 0xFFFu;
    return first ? fgg_esc1[m] : fgg_esc[m];
}

/* The shots' sums over the 21 rolls (a double counted once, two different dice twice):
 * pips lost, rolls hitting at least one checker, rolls hitting two. The rolls are
 * walked in loops over the dice, which give each roll's ways in fgg_way_dist's order: the
 * dice alone 0..5 (die - 1), the pairs a < b from 6 on in order, a double d's 2, 3 and
 * 4 steps at 21 + 3 (d - 1). */
typedef struct {
    int pips, one, two;
} fgg_shot_sums;

static inline void fgg_add_roll(fgg_shot_sums* t, int weight, int count, int pips) {
    t->pips += weight * pips;
    t->one += (count >= 1) * weight;
    t->two += (count >= 2) * weight;
}

static inline int fgg_max(int a, int b) { return a > b ? a : b; }

/* the pips lost to way w from its hitter hit[w] (at most 0 when it has none: hit[w] 0) */
static inline int fgg_way_pips(const int* hit, int w) { return hit[w] - fgg_way_dist[w] + 1; }

/* Nothing on our bar. Each roll's ways in turn: a way's hitter is its most advanced one
 * (1..23) and the pips lost are its hitter's index - dist + 1; a direct shot hits one
 * checker, a second one if it is the other die's and that die hits from another point or
 * from a point with a spare, or (a double) if a second checker of ours has the shot; an
 * indirect shot hits one, and a second when a blot of the other side lies on one of its
 * landing points. Each way's hitter first (0 when none: no hitter stands on index 0, so
 * hit[w] != 0 says it has one; its pips, fgg_way_pips, are then at most 0, which the
 * maxima below ignore) and its extra hit: for a direct shot a second hitter, for an
 * indirect one a blot on its way (the blots shifted like the open points in
 * fgg_shots_inputs). Then each roll, without branches. */
static inline void fgg_rolls_free(const int8_t* me, const fgg_side* sopp, const uint32_t* hitters,
                                  fgg_shot_sums* t) {
    const uint32_t blots = sopp->blot_x;
    uint32_t on[39];
    int w = 6;
    for (int a = 1; a <= 6; a++)
        for (int b = a + 1; b <= 6; b++) on[w++] = (blots << a) | (blots << b);
    for (int d = 1; d <= 6; d++) {
        on[w] = blots << d;
        on[w + 1] = on[w] | blots << 2 * d;
        on[w + 2] = on[w + 1] | blots << 3 * d;
        w += 3;
    }
    int hit[39], extra[39];
    for (w = 0; w < 6; w++) {
        const uint32_t m = hitters[w];
        hit[w] = fgg_high_bit(m | 1u);
        extra[w] = (m & (m - 1)) != 0;
    }
    for (; w < 39; w++) {
        hit[w] = fgg_high_bit(hitters[w] | 1u);
        extra[w] = (on[w] >> hit[w]) & 1u;
    }
    w = 6;
    for (int lo = 0; lo < 6; lo++)
        for (int hi = lo + 1; hi < 6; hi++, w++) {
            /* the dice lo + 1 < hi + 1: their direct shots, then both together */
            int count = (hit[lo] != 0) + ((hit[hi] != 0) & ((hit[hi] != hit[lo]) | (me[hit[hi]] > 1)));
            count = fgg_max(count, hit[w] != 0) + extra[w];
            const int pips = fgg_max(fgg_max(0, fgg_way_pips(hit, lo)),
                                     fgg_max(fgg_way_pips(hit, hi), fgg_way_pips(hit, w)));
            fgg_add_roll(t, 2, count, pips);
        }
    for (int d = 0; d < 6; d++) {
        /* the double of d + 1: its direct shot, then its 2, 3 and 4 steps */
        int count = (hit[d] != 0) + extra[d], pips = fgg_max(0, fgg_way_pips(hit, d));
        for (w = 21 + 3 * d; w < 24 + 3 * d; w++) {
            count = fgg_max(count, hit[w] != 0) + extra[w];
            pips = fgg_max(pips, fgg_way_pips(hit, w));
        }
        fgg_add_roll(t, 1, count, pips);
    }
}

/* One checker on our bar. A direct shot: by the entering checker; and, once a roll, by
 * the most advanced other hitter, when the roll's other way (the other die; for a double
 * its two-step way, as gnubg has it) lets the bar's checker enter first. Indirect shots:
 * only by the entering checker, with an extra hit for a blot near its way, where gnubg
 * looks at the other side's index mid + 1 for each intermediate landing point mid, two
 * points past the landing point of the entering checker's first step (mid - 1); the nets
 * learnt it so (mid + 1 is bit 22 - mid of blot_x). First each way's shot from the bar
 * (bar) and its pips (0 without one), each die's other hitters (rest) and the most
 * advanced one's pips (rpip), each indirect way's extra hit. */
static inline void fgg_rolls_bar1(const int8_t* opp, const fgg_side* sopp, const uint32_t* hitters,
                                  fgg_shot_sums* t) {
    const uint32_t blots = sopp->blot_x;
    int bar[39], pip[39], extra[39], rest[6], rpip[6];
    for (int w = 0; w < 39; w++) {
        bar[w] = (hitters[w] >> 24) & 1;
        pip[w] = bar[w] * (25 - fgg_way_dist[w]);
    }
    for (int d = 0; d < 6; d++) {
        const uint32_t m = hitters[d] & 0xFFFFFEu;
        rest[d] = m != 0;
        rpip[d] = fgg_high_bit(m | 1u) - d;
    }
    int w = 6;
    for (int a = 1; a <= 6; a++)
        for (int b = a + 1; b <= 6; b++) extra[w++] = ((blots >> (22 - a)) | (blots >> (22 - b))) & 1;
    for (int d = 1; d <= 6; d++) {
        extra[w] = (blots >> (22 - d)) & 1;
        extra[w + 1] = extra[w] | ((blots >> (22 - 2 * d)) & 1);
        extra[w + 2] = extra[w + 1] | ((blots >> (22 - 3 * d)) & 1);
        w += 3;
    }
    w = 6;
    for (int lo = 0; lo < 6; lo++)
        for (int hi = lo + 1; hi < 6; hi++, w++) {
            /* the dice lo + 1 < hi + 1 (the die hi + 1 enters on the index hi) */
            int count = bar[lo] + bar[hi], pips = fgg_max(pip[lo], pip[hi]);
            if (rest[lo] && opp[hi] < 2) {
                count++;
                pips = fgg_max(pips, rpip[lo]);
            } else if (rest[hi] && opp[lo] < 2) {
                count++;
                pips = fgg_max(pips, rpip[hi]);
            }
            if (bar[w]) count = fgg_max(count, 1) + extra[w];
            fgg_add_roll(t, 2, count, fgg_max(pips, pip[w]));
        }
    for (int d = 0; d < 6; d++) {
        /* the double of d + 1 (its two-step way enters on the index 2d + 1) */
        int count = bar[d], pips = pip[d];
        if (rest[d] && opp[2 * d + 1] < 2) {
            count++;
            pips = fgg_max(pips, rpip[d]);
        }
        for (w = 21 + 3 * d; w < 24 + 3 * d; w++) {
            if (bar[w]) count = fgg_max(count, 1) + extra[w];
            pips = fgg_max(pips, pip[w]);
        }
        fgg_add_roll(t, 1, count, pips);
    }
}

/* Two or more on our bar: only the direct shots of checkers entering (the dice's ways:
 * a double's two-step way is not one), pips 25 - dist */
static inline void fgg_rolls_bar2(const uint32_t* hitters, fgg_shot_sums* t) {
    int bar[6];
    for (int d = 0; d < 6; d++) bar[d] = (hitters[d] >> 24) & 1;
    for (int lo = 0; lo < 6; lo++) {
        for (int hi = lo + 1; hi < 6; hi++)
            fgg_add_roll(t, 2, bar[lo] + bar[hi], fgg_max(bar[lo] * (24 - lo), bar[hi] * (24 - hi)));
        fgg_add_roll(t, 1, bar[lo], bar[lo] * (24 - lo));
    }
}

/* hitters[w] for the 39 ways (see fgg_shots_inputs), written out in fgg_way_dist's
 * order: the dice alone, the pairs of different dice, the doubles' 2, 3 and 4 steps;
 * whether any way has a hitter */
static inline uint32_t fgg_hitters(uint32_t targets, uint32_t from, uint32_t open, uint32_t* hitters) {
    uint32_t any = 0;
    int w = 0;
    for (int d = 1; d <= 6; d++) any |= hitters[w++] = from & (targets << d);
    for (int a = 1; a <= 6; a++)
        for (int b = a + 1; b <= 6; b++)
            any |= hitters[w++] = from & (targets << (a + b)) & ((open << a) | (open << b));
    for (int d = 1; d <= 6; d++) {
        uint32_t path = open << d;
        any |= hitters[w++] = from & (targets << 2 * d) & path;
        path &= open << 2 * d;
        any |= hitters[w++] = from & (targets << 3 * d) & path;
        path &= open << 3 * d;
        any |= hitters[w++] = from & (targets << 4 * d) & path;
    }
    return any;
}

/* the same loops in AVX-512, and fgg_shots_select */
#include "_gnubg_shots_avx512.h"

/* Shots at the other side's blots: expected pips it loses (PIPLOSS) and rolls hitting at
 * least one (P1) or two (P2) checkers, by gnubg's rule of thumb: a roll's
 * hits and pips counted way by way (die by die), not by searching its plays. */
static inline void fgg_shots_inputs(const int8_t* me, const int8_t* opp, const fgg_side* sme,
                                    const fgg_side* sopp, int version, float* h) {
    /* home points made: which blots are worth hitting (the far ones only behind a
     * board of three points or more) */
    const uint32_t home = (version >= FGG_V101 ? sme->made : sme->occ) & 0x3Fu;
    const int made = fgg_popcount(home);
    /* In our numbering: the targets (the other side's blots, on its points 1..24, or
     * 1..22 behind a weak board: our indices 0..23 or 2..23), the hitters (any of our
     * checkers, the bar's included, but a home point of exactly two is not broken to
     * hit), and the points open to land on. hitters[w]: the hitters from which way w
     * reaches a target, its intermediate landing points open (all of them for a
     * double, either for two different dice). */
    const uint32_t targets = sopp->blot_x & (made > 2 ? 0xFFFFFFu : 0xFFFFFCu);
    const uint32_t from = sme->occ & ~sme->home2;
    const uint32_t open = ~sopp->made_x;
    uint32_t hitters[39];
    fgg_shot_sums t = {0, 0, 0};
#ifdef FGG_SHOTS_SIMD
    if (fgg_shots_level && me[24] <= 1) {
        if (targets) fgg_shots_avx512(targets, from, open, me[24], sme, sopp, &t);
    } else
#endif
    if (targets && fgg_hitters(targets, from, open, hitters)) {
        if (me[24] == 0) fgg_rolls_free(me, sopp, hitters, &t);
        else if (me[24] == 1) fgg_rolls_bar1(opp, sopp, hitters, &t);
        else fgg_rolls_bar2(hitters, &t);
    }
    h[FGG_PIPLOSS] = t.pips / (12.0f * 36.0f);
    h[FGG_P1] = t.one / 36.0f;
    h[FGG_P2] = t.two / 36.0f;
}

/* The 22 hand-made inputs of the side `me` against `opp` (each row in its own
 * numbering, sme and sopp their masks), into h[3..24]. */
static inline void fgg_half_inputs(const int8_t* me, const int8_t* opp, const fgg_side* sme,
                                   const fgg_side* sopp, int version, float* h) {
    /* the other side's rearmost checker, its numbering */
    const int ob = sopp->occ ? fgg_high_bit(sopp->occ) : -1;
    const int front = 23 - ob;     /* the same point in ours (-1: the other side's bar) */

    /* One walk over our occupied points (and bar) for the sums of BREAK_CONTACT,
     * FREEPIP, MOBILITY and MOMENT2's mean (see each below). */
    int brk = 0, freepip = 0, mob = 0, sum = 0;
    for (uint32_t left = sme->occ; left; left &= left - 1) {
        const int i = fgg_low_bit(left), c = me[i];
        if (i > front) brk += (i + 1 - front) * c;
        else if (i < front) freepip += (i + 1) * c;
        if (i >= 6) mob += (i - 5) * c * fgg_escapes(sopp->made, i, 0);
        sum += i * c;
    }

    /* BREAK_CONTACT: pips of our checkers still to pass the other's rearmost one */
    h[FGG_BREAK_CONTACT] = brk / 167.0f;

    /* FREEPIP: pips of our checkers already past it */
    h[FGG_FREEPIP] = freepip / 100.0f;

    /* TIMING: pips we can play before breaking the home board: the bar's and the far
     * checkers (a point's spares, or a lone blot), all checkers from the midpoint (or the
     * contact point) down to our 7-point, less the checkers still needed to fill the
     * home points below two */
    {
        int t = 24 * me[24], no = me[24];
        const int m = front > 11 ? front : 11;
        /* the far points: m + 1 .. 23 */
        for (uint32_t left = sme->occ & 0xFFFFFFu & (~0u << (m + 1)); left; left &= left - 1) {
            const int i = fgg_low_bit(left), c = me[i];
            if (c != 2) {
                const int spare = c > 2 ? c - 2 : 1;
                no += spare;
                t += i * spare;
            }
        }
        /* m .. 6 (the bar too when m is 24: no checker of the other side left) */
        for (uint32_t left = sme->occ & (0xFFFFFFFFu >> (31 - m)) & ~0x3Fu; left; left &= left - 1) {
            const int i = fgg_low_bit(left);
            no += me[i];
            t += i * me[i];
        }
        for (int i = 5; i >= 0; i--) {
            /* a point's spares add, its missing checkers (if that many are left) go */
            const int c = me[i];
            const int spare = c > 2 ? c - 2 : 0, need = c < 2 ? 2 - c : 0;
            const int change = spare - (no >= need ? need : 0);
            t += i * change;
            no += change;
        }
        h[FGG_TIMING] = t / 100.0f;
    }

    /* BACK_CHEQUER: our rearmost checker / 24 */
    const int back = sme->occ ? fgg_high_bit(sme->occ) : -1;
    h[FGG_BACK_CHEQUER] = back / 24.0f;

    /* BACK_ANCHOR: our rearmost point of two or more / 24 (-1 / 24 when none) */
    const int anchor = sme->made ? fgg_high_bit(sme->made) : -1;
    h[FGG_BACK_ANCHOR] = anchor / 24.0f;

    /* FORWARD_ANCHOR: our most forward point in the other's home board (or else the
     * highest of our 13..18 points) as its distance / 6 from the far end; 2 when none */
    {
        const uint32_t far = sme->made & (0x3Fu << 18), mid = sme->made & (0x3Fu << 12);
        const int f = far ? 24 - fgg_low_bit(far) : mid ? 24 - fgg_high_bit(mid) : 0;
        h[FGG_FORWARD_ANCHOR] = f ? f / 6.0f : 2.0f;
    }

    fgg_shots_inputs(me, opp, sme, sopp, version, h);

    /* BACKESCAPES, BACKRESCAPES: the other's rearmost checker's escaping rolls / 36 */
    h[FGG_BACKESCAPES] = fgg_escapes(sme->made, ob, 0) / 36.0f;
    h[FGG_BACKRESCAPES] = fgg_escapes(sme->made, ob, 1) / 36.0f;

    /* ACONTAIN: 1 - the fewest escapes (of 36) of a checker of the other side standing
     * anywhere from its 16-point back to its rearmost checker (its bar included);
     * CONTAIN: the same from its 16-point to its 24-point, whatever its rearmost checker
     * (never the bar); both squared too */
    {
        int fewest = 36, fewest_a = 36;
        for (int k = 15; k < 25; k++) {
            const int e = fgg_escapes(sme->made, k, 0);
            if (k <= ob && e < fewest_a) fewest_a = e;
            if (k < 24 && e < fewest) fewest = e;
        }
        h[FGG_ACONTAIN] = (36 - fewest_a) / 36.0f; /* (rounded once, as gnubg's) */
        h[FGG_ACONTAIN2] = h[FGG_ACONTAIN] * h[FGG_ACONTAIN];
        h[FGG_CONTAIN] = (36 - fewest) / 36.0f; /* (rounded once, as gnubg's) */
        h[FGG_CONTAIN2] = h[FGG_CONTAIN] * h[FGG_CONTAIN];
    }

    /* MOBILITY: our checkers outside our home board weighted by their distance from it
     * and by their escapes past the other's points */
    h[FGG_MOBILITY] = mob / 3600.0f;

    /* MOMENT2: the spread of our checkers behind their mean point (rounded up): the
     * mean square of their distances from it, rounded up, / 400 */
    {
        const int cnt = sme->on_board;
        const int c = cnt ? (sum + cnt - 1) / cnt : 0;
        int k = 0, j = 0;
        for (uint32_t left = c < 24 ? sme->occ >> (c + 1) << (c + 1) : 0; left; left &= left - 1) {
            const int i = fgg_low_bit(left);
            j += me[i];
            k += me[i] * (i - c) * (i - c);
        }
        if (j) k = (k + j - 1) / j;
        h[FGG_MOMENT2] = k / 400.0f;
    }

    /* ENTER: with a checker on our bar, the pips we expect to lose to rolls that do not
     * enter (doubles and pairs of the other's made home points; more with two on the
     * bar, when one die enters and the other does not): see fgg_enter_loss */
    {
        const int loss = me[24] > 0 ? fgg_enter_loss[me[24] > 1][sopp->made & 0x3F] : 0;
        h[FGG_ENTER] = loss / (36.0f * (49.0f / 6.0f));
    }

    /* ENTER2: how closed the other's home board is: (36 - (open points)^2) / 36 */
    {
        const int closed = fgg_popcount(sopp->made & 0x3F);
        h[FGG_ENTER2] = (36 - (closed - 6) * (closed - 6)) / 36.0f;
    }

    /* BACKBONE: how well our points behind the rearmost one are spaced to support it
     * (11 within 6 pips, less from 7 to 11), as 1 - the mean support / 11 */
    {
        int w = 0, tot = 0;
        const uint32_t points = sme->made & ~1u; /* (our 1-point is not counted) */
        if (points) {
            /* each other point d pips in front of the rearmost one pa supports it by 11
             * (d <= 6) or 13 - d (7..11), weighted by pa's checkers */
            const int pa = fgg_high_bit(points);
            const uint32_t others = points & ~(1u << pa);
            int support = 11 * fgg_popcount(others & ~(~0u << pa) & (~0u << (pa > 6 ? pa - 6 : 0)));
            for (int d = 7; d <= 11; d++)
                support += pa >= d ? (int)((others >> (pa - d)) & 1u) * (13 - d) : 0;
            w = support * me[pa];
            tot = fgg_popcount(others) * me[pa];
        }
        h[FGG_BACKBONE] = tot ? (float)(1.0 - w / (11.0 * tot)) : 0.0f; /* (in double) */
    }

    /* BACKG, BACKG1: a back game: with two or more of our points in the other's home
     * board, (our checkers there and on the bar - 3) / 4; with one, their count / 8 */
    {
        const int anchors = fgg_popcount(sme->made & (0x3Fu << 18));
        int tot = 0;
        for (int i = 18; i < 25; i++) tot += me[i];
        h[FGG_BACKG] = anchors > 1 ? (tot - 3) / 4.0f : 0.0f;
        h[FGG_BACKG1] = anchors == 1 ? tot / 8.0f : 0.0f;
    }
}

/* the 50 inputs past the base units of the contact net (crashed = 0) or of the crashed
 * net (crashed = 1), into out[200..249] (out[0..199] left alone) */
static inline void fgg_contact_extra(const int8_t b[2][25], int version, int crashed, float* out) {
    float* first = out + 200;   /* the side on roll's hand-made inputs */
    float* second = out + 225;  /* the other side's */
    fgg_side s0, s1;
    fgg_side_masks(b[0], &s0);
    fgg_side_masks(b[1], &s1);
    fgg_half_inputs(b[1], b[0], &s1, &s0, version, first);
    fgg_half_inputs(b[0], b[1], &s0, &s1, version, second);
    const float(*off)[3] = fgg_off_table[crashed != 0];
    const int off0 = 15 - s0.on_board, off1 = 15 - s1.on_board;
    /* the contact net's blocks carry each other's off units, the crashed net's their own */
    memcpy(first, off[crashed ? off1 : off0], sizeof(off[0]));
    memcpy(second, off[crashed ? off0 : off1], sizeof(off[0]));
}

/* the 250 inputs of the contact net (crashed = 0) or of the crashed net (crashed = 1) */
static inline void fgg_contact_inputs(const int8_t b[2][25], int version, int crashed, float* out) {
    fgg_base_units(b, out);
    fgg_contact_extra(b, version, crashed, out);
}

/* the same over a flat pointer to the 50 counts (rows 0 then 1), for Cython */
static inline int fgg_classify_flat(const int8_t* p) { return fgg_classify((const int8_t(*)[25])p); }
static inline void fgg_race_flat(const int8_t* p, float* out) { fgg_race_inputs((const int8_t(*)[25])p, out); }
static inline void fgg_contact_flat(const int8_t* p, int version, int crashed, float* out) {
    fgg_contact_inputs((const int8_t(*)[25])p, version, crashed, out);
}
static inline void fgg_contact_extra_flat(const int8_t* p, int version, int crashed, float* out) {
    fgg_contact_extra((const int8_t(*)[25])p, version, crashed, out);
}

#endif
