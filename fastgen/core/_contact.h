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

/* The rolls on which a checker at `from` (a point number in a numbering where it moves
 * down) reaches `to` (< from): with one die; with both dice one after the other, the
 * point after the first not held; with doubles in up to four steps, every point on the
 * way not held. held[p] (p = 0..25) marks the points it may not stop on; `to` itself is
 * the caller's to check. */
static inline uint32_t fg_contact_reach(int from, int to, const uint8_t* held) {
    int d = from - to;
    uint32_t m = 0;
    if (d <= 0 || d > 24) return 0;
    if (d <= 6)
        for (int x = 1; x <= 6; x++) m |= 1u << fg_contact_bit(d, x);
    for (int a = 1; a <= 5; a++) {
        int b = d - a;
        if (b > a && b <= 6 && (!held[from - a] || !held[from - b])) m |= 1u << fg_contact_bit(a, b);
    }
    for (int a = 1; a <= 6; a++) {
        if (d % a || d / a < 2 || d / a > 4) continue;
        int ok = 1;
        for (int s = 1; s < d / a && ok; s++) ok = !held[from - s * a];
        if (ok) m |= 1u << fg_contact_bit(a, a);
    }
    return m;
}

/* The ten features of side `me` against `opp` (see the top of this file) into out[0..10);
 * returns the side's pip count. */
static int fg_contact_side(const int8_t* me, const int8_t* opp, float* out) {
    int pips = 25 * me[24], blots = 0, home = 0, anchors = 0, back = me[24], prime = 0, run = 0;
    int rear = me[24] ? 25 : 0;
    for (int i = 0; i < 24; i++) {
        int n = me[i];
        pips += (i + 1) * n;
        if (n == 1) blots++;
        if (n >= 2) {
            if (i < 6) home++;
            if (i >= 18) anchors++;
            run++;
            if (run > prime) prime = run;
        } else {
            run = 0;
        }
        if (i >= 18) back += n;
        if (n && !me[24]) rear = i + 1;
    }
    /* the other side in my numbering: its point q is my point 25 - q, its bar my point 0
     * (it enters on my points 1..6 and moves up) */
    uint8_t opp_held[26] = {0}; /* my point p held by the other side */
    uint8_t mirror[26] = {0};   /* my point p held by me, at index 25 - p: the other side's moves read downward */
    int opp_rear = opp[24] ? 0 : 26; /* the other side's rearmost checker, my numbering (lowest) */
    for (int q = 0; q < 24; q++) {
        int p = 24 - q;
        if (opp[q] >= 2) opp_held[p] = 1;
        if (opp[q] && p < opp_rear) opp_rear = p;
    }
    for (int i = 0; i < 24; i++)
        if (me[i] >= 2) mirror[24 - i] = 1;
    int past = 0;
    for (int i = 0; i < 24 && i + 1 < opp_rear; i++) past += me[i];
    uint32_t hits = 0;
    for (int p = 1; p <= 24 && blots; p++) {
        if (me[p - 1] != 1) continue;
        if (opp[24]) {
            hits |= fg_contact_reach(25, 25 - p, mirror);
            continue;
        }
        for (int q = 0; q < 24; q++) {
            int u = 24 - q;
            if (opp[q] && u < p) hits |= fg_contact_reach(25 - u, 25 - p, mirror);
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
