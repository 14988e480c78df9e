/* The "contact" input scheme: hand-made features of a position, plain C.
 *
 * fastgen.core.features documents each feature (the definitions there and here are the
 * same); fastgen/core/_features.h encodes them for fastgen.encode, the compiled
 * networks' kernel (fastgen/core/_mlp.h) adds them to a network's first layer, and the
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

static inline int fg_contact_count(uint32_t m) {
    int n = 0;
    for (uint32_t x = m; x; x &= x - 1) n++;
    int d = 0;
    for (uint32_t x = m & FG_CONTACT_DOUBLES; x; x &= x - 1) d++;
    return 2 * n - d;
}

/* The ways to cover a distance d (0..24) with one roll, the 21 rolls numbered as in
 * fg_contact_bit: `direct` the rolls with a die of d (d <= 6); `nc` non-doubles (ca, cb)
 * with ca + cb = d (bit cbit), passing through the point after ca or after cb; `nd`
 * doubles of die da in ds steps (bit dbit), passing through every point in between.
 * Worked out once from those definitions (a table, so no division a call). */
typedef struct {
    uint32_t direct;
    int nc;
    int8_t ca[3], cb[3], cbit[3];
    int nd;
    int8_t da[3], ds[3], dbit[3];
} fg_contact_way;

static const fg_contact_way fg_contact_ways[25] = {
    {0x000000u, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, /* 0 */
    {0x00003fu, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, /* 1 */
    {0x0007c2u, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 1, {1, 0, 0}, {2, 0, 0}, {0, 0, 0}}, /* 2 */
    {0x007884u, 1, {1, 0, 0}, {2, 0, 0}, {1, 0, 0}, 1, {1, 0, 0}, {3, 0, 0}, {0, 0, 0}}, /* 3 */
    {0x039108u, 1, {1, 0, 0}, {3, 0, 0}, {2, 0, 0}, 2, {1, 2, 0}, {4, 2, 0}, {0, 6, 0}}, /* 4 */
    {0x0d2210u, 2, {1, 2, 0}, {4, 3, 0}, {3, 7, 0}, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, /* 5 */
    {0x1a4420u, 2, {1, 2, 0}, {5, 4, 0}, {4, 8, 0}, 2, {2, 3, 0}, {3, 2, 0}, {6, 11, 0}}, /* 6 */
    {0x000000u, 3, {1, 2, 3}, {6, 5, 4}, {5, 9, 12}, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, /* 7 */
    {0x000000u, 2, {2, 3, 0}, {6, 5, 0}, {10, 13, 0}, 2, {2, 4, 0}, {4, 2, 0}, {6, 15, 0}}, /* 8 */
    {0x000000u, 2, {3, 4, 0}, {6, 5, 0}, {14, 16, 0}, 1, {3, 0, 0}, {3, 0, 0}, {11, 0, 0}}, /* 9 */
    {0x000000u, 1, {4, 0, 0}, {6, 0, 0}, {17, 0, 0}, 1, {5, 0, 0}, {2, 0, 0}, {18, 0, 0}}, /* 10 */
    {0x000000u, 1, {5, 0, 0}, {6, 0, 0}, {19, 0, 0}, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, /* 11 */
    {0x000000u, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 3, {3, 4, 6}, {4, 3, 2}, {11, 15, 20}}, /* 12 */
    {0x000000u, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, /* 13 */
    {0x000000u, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, /* 14 */
    {0x000000u, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 1, {5, 0, 0}, {3, 0, 0}, {18, 0, 0}}, /* 15 */
    {0x000000u, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 1, {4, 0, 0}, {4, 0, 0}, {15, 0, 0}}, /* 16 */
    {0x000000u, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, /* 17 */
    {0x000000u, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 1, {6, 0, 0}, {3, 0, 0}, {20, 0, 0}}, /* 18 */
    {0x000000u, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, /* 19 */
    {0x000000u, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 1, {5, 0, 0}, {4, 0, 0}, {18, 0, 0}}, /* 20 */
    {0x000000u, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, /* 21 */
    {0x000000u, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, /* 22 */
    {0x000000u, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, /* 23 */
    {0x000000u, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 1, {6, 0, 0}, {4, 0, 0}, {20, 0, 0}}, /* 24 */
};

/* The rolls on which a checker at `from` (a point number in a numbering where it moves
 * down) reaches `to` (< from): with one die; with both dice one after the other, the
 * point after the first not held; with doubles in up to four steps, every point on the
 * way not held. held[p] (p = 0..25) marks the points it may not stop on; `to` itself is
 * the caller's to check. */
static inline uint32_t fg_contact_reach(int from, int to, const uint8_t* held) {
    int d = from - to;
    if (d <= 0 || d > 24) return 0;
    const fg_contact_way* w = &fg_contact_ways[d];
    uint32_t m = w->direct;
    for (int k = 0; k < w->nc; k++)
        if (!held[from - w->ca[k]] || !held[from - w->cb[k]]) m |= 1u << w->cbit[k];
    for (int k = 0; k < w->nd; k++) {
        int a = w->da[k], ok = 1;
        for (int s = 1; s < w->ds[k]; s++) ok &= !held[from - s * a];
        if (ok) m |= 1u << w->dbit[k];
    }
    return m;
}

/* The ten features of side `me` against `opp` (see the top of this file) into out[0..10);
 * returns the side's pip count. */
static int fg_contact_side(const int8_t* me, const int8_t* opp, float* out) {
    /* branch-free loops: a position's counts are unpredictable */
    int pips = 25 * me[24], blots = 0, home = 0, anchors = 0, back = me[24], prime = 0, run = 0, rear = 0;
    uint32_t blot_bits = 0, opp_bits = 0; /* bit p: my blot on my point p; a checker of the other side on my point p */
    uint8_t opp_held[26] = {0}; /* my point p held by the other side */
    uint8_t mirror[26] = {0};   /* my point p held by me, at index 25 - p: the other side's moves read downward */
    for (int i = 0; i < 24; i++) {
        int n = me[i], made = n >= 2;
        pips += (i + 1) * n;
        blots += n == 1;
        blot_bits |= (uint32_t)(n == 1) << (i + 1);
        home += made & (i < 6);
        anchors += made & (i >= 18);
        run = (run + 1) * made;
        prime = run > prime ? run : prime;
        back += (i >= 18) * n;
        rear = n ? i + 1 : rear;
        mirror[24 - i] = (uint8_t)made;
    }
    rear = me[24] ? 25 : rear;
    /* the other side in my numbering: its point q is my point 25 - q, its bar my point 0
     * (it enters on my points 1..6 and moves up) */
    for (int q = 0; q < 24; q++) {
        opp_held[24 - q] = (uint8_t)(opp[q] >= 2);
        opp_bits |= (uint32_t)(opp[q] != 0) << (24 - q);
    }
    /* the other side's rearmost checker, my numbering (its lowest point there; 0 its bar) */
    int opp_rear = opp[24] ? 0 : (opp_bits ? fg_ctz32(opp_bits) : 26);
    int past = 0;
    for (int i = 0; i < 24; i++) past += (i + 1 < opp_rear) * me[i];
    uint32_t hits = 0, all = (1u << 21) - 1;
    for (uint32_t bl = blot_bits; bl && hits != all; bl &= bl - 1) {
        int p = fg_ctz32(bl);
        if (opp[24]) {
            hits |= fg_contact_reach(25, 25 - p, mirror);
            continue;
        }
        /* the other side's checkers below p (my numbering), at most 24 pips away */
        for (uint32_t src = opp_bits & ((1u << p) - 1u); src; src &= src - 1) {
            int u = fg_ctz32(src);
            hits |= fg_contact_reach(25 - u, 25 - p, mirror);
        }
    }
    int escapes = 0;
    if (rear > 0) {
        int lowest = 0;
        for (int p = rear - 1; p >= 1 && p >= rear - 12; p--)
            if (opp_held[p]) lowest = p;
        if (!lowest) {
            escapes = 36;
        } else {
            uint32_t esc = 0;
            for (int to = lowest - 1; to >= 1 && to >= rear - 24; to--)
                if (!opp_held[to]) esc |= fg_contact_reach(rear, to, opp_held);
            escapes = fg_contact_count(esc);
        }
    }
    out[0] = (float)pips / 100.0f;
    out[1] = (float)fg_contact_count(hits) / 36.0f;
    out[2] = (float)blots / 5.0f;
    out[3] = (float)escapes / 36.0f;
    out[4] = (float)prime / 6.0f;
    out[5] = (float)home / 6.0f;
    out[6] = (float)anchors / 3.0f;
    out[7] = (float)back / 15.0f;
    out[8] = opp[24] ? ((float)home / 6.0f) * ((float)home / 6.0f) : 0.0f;
    out[9] = (float)past / 15.0f;
    return pips;
}

/* whether any checker of either side can still meet one of the other's */
static inline int fg_contact_contact(const int8_t* me, const int8_t* opp) {
    int mine = 0, theirs = 0; /* the rearmost checker of each, in its own numbering (25: bar) */
    for (int i = 24; i >= 0 && !mine; i--)
        if (me[i]) mine = i + 1;
    for (int i = 24; i >= 0 && !theirs; i--)
        if (opp[i]) theirs = i + 1;
    return mine + theirs > 25;
}

/* The 22 features of the board seen by `me` (on roll) against `opp` into out[0..22). */
static void fg_contact_features(const int8_t* me, const int8_t* opp, float* out) {
    int mine = fg_contact_side(me, opp, out);
    int theirs = fg_contact_side(opp, me, out + FG_CONTACT_PER_SIDE);
    out[20] = fg_contact_contact(me, opp) ? 0.0f : 1.0f;
    out[21] = (float)(theirs - mine) / 50.0f;
}

#endif /* FASTGEN_CONTACT_H */
