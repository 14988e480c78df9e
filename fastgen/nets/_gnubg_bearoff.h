/* GNU Backgammon's 0-ply value of finished games and bear-off positions, plain C, the
 * same numbers fastgen.bearoff.gnubg.gnubg_bearoff gives (its docstring has the rules and
 * how each was measured against gnubg-nn; that numpy version is this one's reference in
 * tests/test_gnubg_bearoff.py). Board b: 50 int8, row 0 then row 1, row 1 on roll; out:
 * P(win), P(win gammon), P(win backgammon), P(lose gammon), P(lose backgammon) of row 1.
 *
 * - Over (a side has no checker left): the exact result.
 * - Two-sided database, where both sides fit it: P(win) from the stored cubeless value q,
 *   (q / 32767.5 - 1) / 2 + 0.5 in float32; no gammons.
 * - One-sided database otherwise: with A, B the stored turn distributions (integers out
 *   of 65535) of the side on roll and of its opponent, P(win) = sum over i <= j of
 *   A_i B_j / 65535^2 rounded to float32, or 1 when a product A_i B_j reaches 2^31; a
 *   side with all 15 checkers can be gammoned, by the first-checker distributions of
 *   fastgen.bearoff.gnubg.first_checker_distributions (float64, as numpy sums them:
 *   fgg_pairwise32); a gammon below 1e-4 is 0; no backgammons.
 */
#ifndef FASTGEN_GNUBG_BEAROFF_H
#define FASTGEN_GNUBG_BEAROFF_H

#include <stdint.h>

#define FGG_BO_TURNS 32
#define FGG_BO_FULL 15
/* gnubg's number of the first one-sided position of 15 checkers on 6 points, C(20, 6) */
#define FGG_BO_FIRST_FULL 38760

typedef struct {
    const uint16_t* one;     /* 54264 x 32: the one-sided database's turn distributions */
    const double* first;     /* 15504 x 32: first-checker distributions of 15 checkers, or NULL
                              * until a position needs them */
    const uint16_t* two;     /* n_two x n_two cubeless values q, or NULL */
    int two_points, two_checkers, n_two;
} fgg_bearoff_tables;

/* C(n, k), small arguments */
static inline int fgg_bo_binom(int n, int k) {
    if (k < 0 || n < k) return 0;
    int r = 1;
    for (int i = 1; i <= k; i++) r = r * (n - k + i) / i;
    return r;
}

/* gnubg's number of the one-sided position c[0..p-1] of n checkers on p points: the
 * positions of fewer checkers first, then among those of n, descending lexicographic
 * order of (c[0], ..., c[p-1]) (fastgen.bearoff.index has the numbering). */
static inline int fgg_bo_number(const int8_t* c, int p, int n) {
    if (n == 0) return 0;
    int idx = fgg_bo_binom(n - 1 + p, p), rest = n;
    for (int i = 0; i < p - 1; i++) {
        const int m = rest - c[i] - 1;
        if (m >= 0) idx += fgg_bo_binom(m + p - i - 1, p - i - 1);
        rest -= c[i];
    }
    return idx;
}

/* numpy's sum of 32 contiguous doubles (its pairwise sum: eight running sums, then
 * added in pairs), so the values equal the numpy reference's to the bit */
static inline double fgg_pairwise32(const double* v) {
    double r[8];
    for (int k = 0; k < 8; k++) r[k] = v[k];
    for (int i = 8; i < FGG_BO_TURNS; i += 8)
        for (int k = 0; k < 8; k++) r[k] += v[i + k];
    return ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
}

/* a gammon output as gnubg-nn gives it: float32, 0 below 1e-4 */
static inline float fgg_bo_gammon(double g) {
    const float f = (float)g;
    return (double)f < 1e-4 ? 0.0f : f;
}

/* the exact result of a finished game for row 1 */
static inline void fgg_over(const int8_t* b, float* out) {
    int mine = 0, theirs = 0;
    for (int i = 0; i < 25; i++) {
        mine += b[25 + i];
        theirs += b[i];
    }
    const int won = mine == 0;
    const int8_t* loser = won ? b : b + 25;
    const int gammon = (won ? theirs : mine) == FGG_BO_FULL;
    int back = 0;
    for (int i = 18; i < 25; i++) back += loser[i];
    const float g = gammon ? 1.0f : 0.0f, bg = gammon && back > 0 ? 1.0f : 0.0f;
    out[0] = won ? 1.0f : 0.0f;
    out[1] = won ? g : 0.0f;
    out[2] = won ? bg : 0.0f;
    out[3] = won ? 0.0f : g;
    out[4] = won ? 0.0f : bg;
}

/* whether both sides of bear-off position b fit the two-sided database (gnubg's value
 * there is exact: it looks no further ahead) */
static inline int fgg_in_two(const fgg_bearoff_tables* t, const int8_t* b) {
    if (t->two == NULL) return 0;
    int n_me = 0, n_opp = 0;
    for (int i = 0; i < 25; i++) {
        if (i >= t->two_points && (b[i] || b[25 + i])) return 0;
        n_me += b[25 + i];
        n_opp += b[i];
    }
    return n_me <= t->two_checkers && n_opp <= t->two_checkers;
}

/* a bear-off position (each side with a checker left, all on its points 1 to 6); 0, or
 * -1 with out untouched when a side has all 15 checkers and the first-checker table is
 * not there yet (t->first NULL: the caller attaches it and asks again) */
static inline int fgg_bearoff(const fgg_bearoff_tables* t, const int8_t* b, float* out) {
    const int8_t* opp = b;
    const int8_t* me = b + 25;
    int n_me = 0, n_opp = 0;
    for (int i = 0; i < 6; i++) {
        n_me += me[i];
        n_opp += opp[i];
    }
    if (t->first == NULL && (n_me == FGG_BO_FULL || n_opp == FGG_BO_FULL)) return -1;
    out[1] = out[2] = out[3] = out[4] = 0.0f;
    if (t->two != NULL && n_me <= t->two_checkers && n_opp <= t->two_checkers) {
        int fits = 1;
        for (int i = t->two_points; i < 6; i++)
            if (me[i] || opp[i]) fits = 0;
        if (fits) {
            const int a = fgg_bo_number(me, t->two_points, n_me), o = fgg_bo_number(opp, t->two_points, n_opp);
            const float q = (float)t->two[(int64_t)a * t->n_two + o];
            out[0] = (q / 32767.5f - 1.0f) / 2.0f + 0.5f;
            return 0;
        }
    }
    const int ia = fgg_bo_number(me, 6, n_me), ib = fgg_bo_number(opp, 6, n_opp);
    const uint16_t* A = t->one + (int64_t)ia * FGG_BO_TURNS;
    const uint16_t* B = t->one + (int64_t)ib * FGG_BO_TURNS;
    /* P(B >= i) and max over j >= i of B_j, integers */
    int64_t tail[FGG_BO_TURNS];
    int64_t latest[FGG_BO_TURNS];
    int64_t s = 0, mx = 0;
    for (int i = FGG_BO_TURNS - 1; i >= 0; i--) {
        s += B[i];
        if (B[i] > mx) mx = B[i];
        tail[i] = s;
        latest[i] = mx;
    }
    int64_t wins = 0;
    int certain = 0;
    for (int i = 0; i < FGG_BO_TURNS; i++) {
        wins += (int64_t)A[i] * tail[i];
        if ((int64_t)A[i] * latest[i] >= ((int64_t)1 << 31)) certain = 1;
    }
    out[0] = certain ? 1.0f : (float)((double)wins / (65535.0 * 65535.0));
    double terms[FGG_BO_TURNS];
    if (ib >= FGG_BO_FIRST_FULL) { /* the opponent can be gammoned */
        const double* g = t->first + (int64_t)(ib - FGG_BO_FIRST_FULL) * FGG_BO_TURNS;
        double at_least = 0.0; /* P(G_B >= i), summed from the last turn down */
        double al[FGG_BO_TURNS];
        for (int i = FGG_BO_TURNS - 1; i >= 0; i--) al[i] = at_least = at_least + g[i];
        for (int i = 0; i < FGG_BO_TURNS; i++) terms[i] = ((double)A[i] / 65535.0) * al[i];
        out[1] = fgg_bo_gammon(fgg_pairwise32(terms));
    }
    if (ia >= FGG_BO_FIRST_FULL) { /* the side on roll can be gammoned */
        const double* g = t->first + (int64_t)(ia - FGG_BO_FIRST_FULL) * FGG_BO_TURNS;
        double beyond[FGG_BO_TURNS]; /* P(G_A > j) */
        double acc = 0.0;
        beyond[FGG_BO_TURNS - 1] = 0.0;
        for (int j = FGG_BO_TURNS - 1; j >= 1; j--) beyond[j - 1] = acc = acc + g[j];
        for (int j = 0; j < FGG_BO_TURNS; j++) terms[j] = ((double)B[j] / 65535.0) * beyond[j];
        out[3] = fgg_bo_gammon(fgg_pairwise32(terms));
    }
    return 0;
}

#endif
