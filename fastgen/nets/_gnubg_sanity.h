/* What GNU Backgammon does to its nets' outputs at 0 ply, after the net, for race,
 * crashed and contact positions: plain C, one board at a time, no Python API.
 *
 * Worked out by feeding positions to gnubg-nn (GNU Backgammon's research build, weights
 * 1.01) as a black box and comparing its probabilities with its nets' raw outputs over
 * fastgen's inputs (fastgen/nets/_gnubg_inputs.h), guided by the published description
 * of gnubg's steps (a fact sheet, no code); no gnubg code was read or copied.
 * tests/test_gnubg_corrections.py holds these rules to gnubg-nn.
 *
 * A board is `const int8_t b[50]`: b[0..24] the side not on roll, b[25..49] the side on
 * roll, each in its own numbering (index 0..23 its points 1..24, 24 its bar; checkers off
 * = 15 - the sum). p holds the five outputs from the side on roll's view: P(win),
 * P(win gammon), P(win backgammon), P(lose gammon), P(lose backgammon), float32 as in
 * gnubg (gnubg-nn's outputs are all float32 values).
 *
 * The corrections, in the order they are applied:
 *
 * 1. Race backgammons (race only, and only with tables, see below). A side can only be
 *    backgammoned in a race if it still has all 15 checkers and some in the winner's
 *    home board (its own points 19..24); the winner then has every checker at home. Its
 *    backgammon output becomes the chance the winner bears off everything before the
 *    loser has brought all those stragglers out of the winner's home board:
 *        sum over t of P(winner needs exactly t turns) * P(stragglers need >= t' turns)
 *    with t' = t when the winner is on roll and t + 1 otherwise. The winner's turns are
 *    the one-sided bear-off database's (gnubg_os0.bd). The stragglers' turns: for at
 *    most 6 of them, a table of their own (escaping needs only a die at least as large
 *    as the distance to the edge, any checker at any time, played to need the fewest
 *    turns on average, and counting at most 5 turns: what would take longer is taken
 *    as out on the 5th); for 7 or more gnubg takes them as a bear-off position (a
 *    checker on the loser's point 19 + k as if on point 1 + k) and reads the bear-off
 *    database.
 * 2. Certain gammons (race only). A side with n checkers and `pips` pips left is taken
 *    to need at most T = max(ceil(n / 2), ceil(pips / 3)) turns to bear off (two
 *    checkers or three pips a turn: gnubg's own estimate, not the bear-off database's,
 *    and used whether or not its checkers are all at home). A loser with all 15
 *    checkers needs one die per crossing (its crossings: each checker counts 1, 2, 3 on
 *    its points 7-12, 13-18, 19-24) and one more to bear off its first checker, at most
 *    4 dice a turn. So when the other side has all 15 checkers and at least 4 (T - 1)
 *    crossings, T the side on roll's, the side on roll wins a gammon for certain:
 *    P(win) = P(win gammon) = 1. When the side on roll has all 15 and at least 4 T
 *    crossings, T the other side's, and the other side has borne off a checker, the
 *    side on roll loses a gammon for certain: P(win) = 0, P(lose gammon) = 1 (with 15
 *    checkers still on the board, the side not on roll is never given a certain
 *    gammon, however many crossings the side on roll has left). (gnubg's own test may be worded otherwise; this is what its
 *    outputs follow on every position tried.)
 * 3. Impossible backgammons (race only). A loser with no checker in the winner's home
 *    board can no longer be backgammoned: that backgammon output is 0.
 * 4. Impossible gammons (all three). A side that has borne off a checker cannot be
 *    gammoned: its opponent's gammon and backgammon outputs are 0.
 * 5. Consistency (all three), in this order: P(win gammon) <= P(win),
 *    P(lose gammon) <= 1 - P(win), P(win backgammon) <= P(win gammon),
 *    P(lose backgammon) <= P(lose gammon).
 * 6. Noise floor (all three): a gammon or backgammon output below 1e-4 becomes 0.
 *    P(win) is never touched by it.
 *
 * Known to differ (rare; tests/test_gnubg_corrections.py keeps them as expected failures):
 * with 7 or more stragglers gnubg-nn sometimes gives other values than the bear-off
 * estimate of step 1: exactly 1 for some sets of 7 or 8 stragglers against a winner on
 * roll of at most 3 turns (the estimate says 0.999), and 0 for 9 stragglers on the
 * winner's 6-point against a winner not on roll (the estimate says 0.0078). About 1 in
 * 1,000 random race positions with 7 or more stragglers, none in self-play.
 *
 * Not applied here: the bear-off and game-over classes (their values come from
 * databases and the rules), and anything else gnubg does for noise or at more plies.
 *
 * extra: NULL, or a `const fgg_race_tables *` (below). Without it step 1 is skipped and
 * the race net's backgammon outputs are kept (gnubg-nn would differ there).
 */
#ifndef FASTGEN_GNUBG_SANITY_H
#define FASTGEN_GNUBG_SANITY_H

#include <stdint.h>

#ifndef FGG_RACE
#define FGG_RACE 2
#define FGG_CRASHED 3
#define FGG_CONTACT 4
#endif

/* Distributions of turns, 32 entries each (entry t: exactly t turns), indexed by gnubg's
 * one-sided numbering of a position of checkers on points 1..6 (fgg_os_index).
 *   bearoff: the 54,264 positions of up to 15 checkers, as gnubg_os0.bd stores them:
 *            uint16 counts out of 65535.
 *   escape:  the 924 positions of up to 6 checkers: float probabilities that all of
 *            them are out of the six points after exactly t turns, the point k+1
 *            standing for a checker k+1 pips from the edge; nothing beyond t = 5
 *            (fastgen.nets._gnubg.escape_table builds it). */
typedef struct {
    const uint16_t *bearoff;
    const float *escape;
} fgg_race_tables;

#define FGG_OS_TURNS 32
#define FGG_ESCAPE_MAX 6

/* C(n, k) for n <= 21, k <= 6 */
static inline int fgg_binom(int n, int k) {
    if (k < 0 || n < k) return 0;
    int r = 1;
    for (int i = 1; i <= k; i++) r = r * (n - k + i) / i;
    return r;
}

/* gnubg's number of a one-sided position c[0..5] (checkers on points 1..6): positions
 * of fewer checkers first, then, among those of the same count, descending
 * lexicographic order of (c[0], ..., c[5]). */
static int fgg_os_index(const int c[6]) {
    int n = 0;
    for (int i = 0; i < 6; i++) n += c[i];
    if (n == 0) return 0;
    int idx = fgg_binom(n - 1 + 6, 6); /* positions of fewer than n checkers */
    int left = n;
    for (int i = 0; i < 5; i++) {
        /* tuples whose point i+1 holds more than c[i], the earlier points as here */
        for (int x = c[i] + 1; x <= left; x++) idx += fgg_binom(left - x + (5 - i) - 1, (5 - i) - 1);
        left -= c[i];
    }
    return idx;
}

/* chance the stragglers need t turns or more; tail[t] for t = 0..32 */
static void fgg_tail(const float *dist_f, const uint16_t *dist_u, double tail[FGG_OS_TURNS + 1]) {
    tail[FGG_OS_TURNS] = 0.0;
    for (int t = FGG_OS_TURNS - 1; t >= 0; t--)
        tail[t] = tail[t + 1] + (dist_f ? (double)dist_f[t] : dist_u[t] / 65535.0);
}

/* step 1 for one winner: w the winner's row, l the loser's; -1 if it does not apply */
static double fgg_race_bg(const int8_t *w, const int8_t *l, int winner_on_roll, const fgg_race_tables *tab) {
    int on = 0, strag = 0;
    for (int i = 0; i < 25; i++) on += l[i];
    for (int i = 18; i < 25; i++) strag += l[i];
    if (on != 15 || strag == 0 || l[24]) return -1.0;
    for (int i = 6; i < 25; i++)
        if (w[i]) return -1.0;
    int cw[6], cl[6];
    for (int i = 0; i < 6; i++) {
        cw[i] = w[i];
        cl[i] = l[18 + i];
    }
    const uint16_t *pw = tab->bearoff + (int64_t)fgg_os_index(cw) * FGG_OS_TURNS;
    double tail[FGG_OS_TURNS + 1];
    if (strag <= FGG_ESCAPE_MAX)
        fgg_tail(tab->escape + (int64_t)fgg_os_index(cl) * FGG_OS_TURNS, 0, tail);
    else
        fgg_tail(0, tab->bearoff + (int64_t)fgg_os_index(cl) * FGG_OS_TURNS, tail);
    double sum = 0.0;
    for (int t = 1; t < FGG_OS_TURNS; t++) {
        int s = winner_on_roll ? t : t + 1;
        if (s <= FGG_OS_TURNS) sum += pw[t] / 65535.0 * tail[s];
    }
    return sum;
}

/* step 2: a side's most turns to bear off, by gnubg's estimate: two checkers or three
 * pips a turn, whichever needs more turns */
static int fgg_max_turns(const int8_t *s) {
    int n = 0, pips = 0;
    for (int i = 0; i < 25; i++) {
        n += s[i];
        pips += (i + 1) * s[i];
    }
    int a = (n + 1) / 2, b = (pips + 2) / 3;
    return a > b ? a : b;
}

/* crossings to bring every checker home: 1, 2, 3 for points 7-12, 13-18, 19-24, 4 the bar */
static int fgg_crossings(const int8_t *s) {
    int c = 4 * s[24];
    for (int q = 1; q < 4; q++)
        for (int i = 6 * q; i < 6 * q + 6; i++) c += q * s[i];
    return c;
}

static inline int fgg_side_total(const int8_t *s) {
    int n = 0;
    for (int i = 0; i < 25; i++) n += s[i];
    return n;
}

/* the corrections of a race alone: the race backgammon estimate, certain wins and
 * losses, and with *stragglers* no backgammon without a straggler */
static void fgg_correct_race(const int8_t *b, float *p, const fgg_race_tables *tab, int stragglers) {
    const int8_t *them = b, *me = b + 25;
    if (tab) {
        double v = fgg_race_bg(me, them, 1, tab);
        if (v >= 0.0) p[2] = (float)v;
        v = fgg_race_bg(them, me, 0, tab);
        if (v >= 0.0) p[4] = (float)v;
    }
    int them_on = fgg_side_total(them), me_on = fgg_side_total(me);
    int t = fgg_max_turns(me);
    if (them_on == 15 && fgg_crossings(them) >= 4 * (t - 1)) p[0] = p[1] = 1.0f;
    t = fgg_max_turns(them);
    if (me_on == 15 && them_on < 15 && fgg_crossings(me) >= 4 * t) {
        p[0] = 0.0f;
        p[3] = 1.0f;
    }
    if (!stragglers) return;
    int strag = 0;
    for (int i = 18; i < 25; i++) strag += them[i];
    if (!strag) p[2] = 0.0f;
    strag = 0;
    for (int i = 18; i < 25; i++) strag += me[i];
    if (!strag) p[4] = 0.0f;
}

static void fgg_correct(const int8_t *b, int cls, float *p, const void *extra) {
    const int8_t *them = b, *me = b + 25;
    if (cls == FGG_RACE) fgg_correct_race(b, p, (const fgg_race_tables *)extra, 1);
    int them_on = fgg_side_total(them), me_on = fgg_side_total(me);
    if (them_on < 15) p[1] = p[2] = 0.0f;
    if (me_on < 15) p[3] = p[4] = 0.0f;
    if (p[1] > p[0]) p[1] = p[0];
    if (p[3] > 1.0f - p[0]) p[3] = 1.0f - p[0];
    if (p[2] > p[1]) p[2] = p[1];
    if (p[4] > p[3]) p[4] = p[3];
    for (int k = 1; k < 5; k++)
        if (p[k] < 1e-4f) p[k] = 0.0f;
}

#endif
