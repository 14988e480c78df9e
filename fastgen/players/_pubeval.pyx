# cython: language_level=3
"""Tesauro's pubeval at core speed, choosing as GNU Backgammon's pubeval player does.

Private module of fastgen.players (fastgen.players.pubeval and the pubeval policy call
it), an extension of its own built on the move generator: it cimports the generator's
declarations (fastgen/core/_core.pxd: the context, generate(), the board check, the stop
flag) and the shared bit helpers (fastgen/core/_bits.pxd). Tesauro's published weights
are compiled in and its tables filled when this module loads, so nothing has to be
imported first. Its choice, pub_choose, is declared in _pubeval.pxd, and
:class:`PubevalChooser` hands it to the game loops as a native policy
(fastgen/core/_chooser.pxd), so they play pubeval with no Python a turn. The Python
layers check the inputs; everything here trusts them and runs without the GIL.
"""

from libc.stdint cimport int8_t, int32_t, int64_t, uint32_t, uint64_t
from libc.string cimport memcmp, memcpy

from fastgen.core._chooser cimport Chooser

from fastgen.core._core cimport BOARD_BYTES, OWN, Ctx, StopFlag, ctx_new, ctx_free, generate, board_check
from fastgen.core._bits cimport fg_load8, fg_rev8, fg_nonzero8, fg_bytesum8

cdef extern from "_platform.h":
    int fg_stopped(const int* flag) noexcept nogil   # the stop flag's poll (see _platform.h)


cdef int _never = 0      # the flag of calls made without a StopFlag: never set


cdef inline const int* flag_of(StopFlag stop):
    return &_never if stop is None else &stop.flag


# ---------------------------------------------------------------- pubeval at core speed
#
# Tesauro's pubeval chooses a play by scoring every candidate after the move with a linear
# function of the position (fastgen/players/pubeval.py describes the inputs; the published
# weights are compiled in below, and pub_tables fills the tables from them when the
# module loads, so nothing has to be imported first). The play chosen must be the one
# GNU Backgammon's pubeval player chooses, so the score that decides is computed in single
# precision in exactly its order of operations (gnubg_score), and ties go to the play its
# generator finds first (egg_first). Scoring every candidate that way is slow, so:
#
# * a fast score works from the position before the move: the 24 point terms of that
#   position are looked up once, and a candidate only re-scores the points where the
#   mover's count changed (found by comparing 8 bytes at a time), in double precision;
# * the single-precision score differs from the exact one by less than PUB_MARGIN / 2
#   (about 75 rounded operations on partial sums below 512, 2**-15 each at most), so when
#   the best fast score leads every other by more than PUB_MARGIN it is the choice;
#   otherwise the candidates within PUB_MARGIN of it are scored the slow, exact way.
#
# Generation is unchanged: the candidates are generated into the context's small buffer,
# which stays in cache, and scored there.

cdef extern from *:
    """
    /* Tesauro's published weights (pubeval.c, 1993), 122 each: wc (contact), wr (race) */
    static const double fg_pub_contact[122] = {
        .25696, -.66937, -1.66135, -2.02487, -2.53398, -.16092, -1.11725, -1.06654, -.92830, -1.99558,
        -1.10388, -.80802, .09856, -.62086, -1.27999, -.59220, -.73667, .89032, -.38933, -1.59847,
        -1.50197, -.60966, 1.56166, -.47389, -1.80390, -.83425, -.97741, -1.41371, .24500, .10970,
        -1.36476, -1.05572, 1.15420, .11069, -.38319, -.74816, -.59244, .81116, -.39511, .11424,
        -.73169, -.56074, 1.09792, .15977, .13786, -1.18435, -.43363, 1.06169, -.21329, .04798,
        -.94373, -.22982, 1.22737, -.13099, -.06295, -.75882, -.13658, 1.78389, .30416, .36797,
        -.69851, .13003, 1.23070, .40868, -.21081, -.64073, .31061, 1.59554, .65718, .25429,
        -.80789, .08240, 1.78964, .54304, .41174, -1.06161, .07851, 2.01451, .49786, .91936,
        -.90750, .05941, 1.83120, .58722, 1.28777, -.83711, -.33248, 2.64983, .52698, .82132,
        -.58897, -1.18223, 3.35809, .62017, .57353, -.07276, -.36214, 4.37655, .45481, .21746,
        .10504, -.61977, 3.54001, .04612, -.18108, .63211, -.87046, 2.47673, -.48016, -1.27157,
        .86505, -1.11342, 1.24612, -.82385, -2.77082, 1.23606, -1.59529, .10438, -1.30206, -4.11520,
        5.62596, -2.75800
    };
    static const double fg_pub_race[122] = {
        .00000, -.17160, .27010, .29906, -.08471, .00000, -1.40375, -1.05121, .07217, -.01351,
        .00000, -1.29506, -2.16183, .13246, -1.03508, .00000, -2.29847, -2.34631, .17253, .08302,
        .00000, -1.27266, -2.87401, -.07456, -.34240, .00000, -1.34640, -2.46556, -.13022, -.01591,
        .00000, .27448, .60015, .48302, .25236, .00000, .39521, .68178, .05281, .09266,
        .00000, .24855, -.06844, -.37646, .05685, .00000, .17405, .00430, .74427, .00576,
        .00000, .12392, .31202, -.91035, -.16270, .00000, .01418, -.10839, -.02781, -.88035,
        .00000, 1.07274, 2.00366, 1.16242, .22520, .00000, .85631, 1.06349, 1.49549, .18966,
        .00000, .37183, -.50352, -.14818, .12039, .00000, .13681, .13978, 1.11245, -.12707,
        .00000, -.22082, .20178, -.06285, -.52728, .00000, -.13597, -.19412, -.09308, -1.26062,
        .00000, 3.05454, 5.16874, 1.50680, 5.35000, .00000, 2.19605, 3.85390, .88296, 2.30052,
        .00000, .92321, 1.08744, -.11696, -.78560, .00000, -.09795, -.83050, -1.09167, -4.94251,
        .00000, -1.00316, -3.66465, -2.56906, -9.67677, .00000, -2.77982, -7.26713, -3.40177, -12.32252,
        .00000, 3.42040
    };
    """
    const double fg_pub_contact[122]
    const double fg_pub_race[122]


cdef float PW[2][122]        # single-precision weights as GNU Backgammon holds them
cdef double PM[2][24][32]    # PM[race][i][n + 15]: the term of the mover's index i holding n
cdef double PUB_MARGIN = 1e-2
cdef float PUB_ALL_OFF = 99999999.0


cdef void pub_tables() noexcept nogil:
    """Fill PW and PM from the published weights (run once, when the module loads)."""
    cdef int r, i, k, n
    cdef double v
    cdef const double* w
    for r in range(2):
        w = &fg_pub_race[0] if r else &fg_pub_contact[0]
        # The inputs (n - 3) / 2, opponent's bar / 2 and checkers off / 15 are folded
        # into their weights, rounded to single precision as GNU Backgammon does.
        for i in range(120):
            PW[r][i] = <float> (w[i] / 2.0) if i % 5 == 4 else <float> w[i]
        PW[r][120] = <float> (w[120] / 2.0)
        PW[r][121] = <float> (w[121] / 15.0)
        for k in range(24):  # block k: the mover's point 24 - k, index 23 - k
            i = 5 * k
            for n in range(-15, 17):
                if n == -1:
                    v = PW[r][i]
                elif n == 1:
                    v = PW[r][i + 1]
                elif n == 2:
                    v = PW[r][i + 2]
                elif n == 3:
                    v = <double> PW[r][i + 2] + <double> PW[r][i + 3]
                elif n >= 4:
                    v = <double> PW[r][i + 2] + <double> PW[r][i + 4] * (n - 3)
                else:
                    v = 0.0
                PM[r][23 - k][n + 15] = v


pub_tables()


def pubeval_weights():
    """Tesauro's published weights as compiled in: (contact, race), 122 floats each."""
    return [fg_pub_contact[i] for i in range(122)], [fg_pub_race[i] for i in range(122)]


cdef extern from *:
    """
    /* bit i set when bytes a[i] and b[i] differ, i = 0..23 (SSE2 where the compiler targets
       it, else plain C; FG_PORTABLE: plain C) */
    static inline unsigned fg_diff24(const signed char* a, const signed char* b) {
    #ifdef FG_CORE_SSE2
        __m128i x0 = _mm_loadu_si128((const __m128i*) a), y0 = _mm_loadu_si128((const __m128i*) b);
        __m128i x1 = _mm_loadu_si128((const __m128i*) (a + 8)), y1 = _mm_loadu_si128((const __m128i*) (b + 8));
        unsigned eq = (unsigned) _mm_movemask_epi8(_mm_cmpeq_epi8(x0, y0))
                      | ((unsigned) _mm_movemask_epi8(_mm_cmpeq_epi8(x1, y1)) << 8);
        return ~eq & 0xFFFFFFu;
    #else
        unsigned m = 0;
        int i;
        for (i = 0; i < 24; i++)
            m |= (unsigned) (a[i] != b[i]) << i;
        return m;
    #endif
    }
    /* Sum over the indices i in `changed` of row[i][n] - before[i], n = c[25 + i] - c[23 - i]
       (the mover's count at i, or minus the opponent's); with `moved`, it gets the change
       in the mover's checkers on those points. */
    static inline double fg_pub_sum(const signed char* c, const signed char* b, const double* const* row,
                                    const double* before, unsigned changed, int* moved) {
        double s = 0.0;
        int mv = 0;
        while (changed) {
            unsigned i = (unsigned) fg_ctz32(changed);  /* _platform.h */
            int mine = c[25 + i];
            changed &= changed - 1;
            if (moved) mv += mine - b[25 + i];
            s += row[i][mine - c[23 - i]] - before[i];
        }
        if (moved) *moved = mv;
        return s;
    }
    """
    uint32_t fg_diff24(const int8_t* a, const int8_t* b) noexcept nogil
    double fg_pub_sum(const int8_t* c, const int8_t* b, const double* const* row, const double* before,
                      uint32_t changed, int* moved) noexcept nogil


cdef inline int pub_race(const int8_t* b) noexcept nogil:
    """1 when the position is a race for pubeval (no contact, or a side has no checker
    left), as GNU Backgammon classifies it: the rearmost checkers' indices (bar 24) sum
    to 22 or less."""
    cdef int me = 24, opp = 24
    while me >= 0 and b[OWN + me] == 0:
        me -= 1
    while opp >= 0 and b[opp] == 0:
        opp -= 1
    return me < 0 or opp < 0 or me + opp <= 22


cdef inline int pub_off(const int8_t* b) noexcept nogil:
    """The mover's checkers borne off (row 1 of a flat board)."""
    return 15 - (fg_bytesum8(fg_load8(b + OWN)) + fg_bytesum8(fg_load8(b + OWN + 8))
                 + fg_bytesum8(fg_load8(b + OWN + 16)) + b[OWN + 24])


cdef float gnubg_score(const int8_t* b, int race) noexcept nogil:
    """The score of the position after a move (row 1 moved), computed in single precision
    in GNU Backgammon's order of operations, so equal and unequal scores come out as
    there. Block k is the mover's point 24 - k: n is the mover's count there, or minus the
    opponent's."""
    cdef const float* w = PW[race]
    cdef int off = pub_off(b)
    cdef int k, i, n
    cdef float s, t
    if off == 15:
        return PUB_ALL_OFF
    s = w[120] * <float> b[24]
    t = w[121] * <float> off
    s = s + t
    for k in range(24):
        i = 5 * k
        n = b[OWN + 23 - k]
        if n == 0:
            n = -b[k]
        if n == -1:
            s = s + w[i]
        elif n == 1:
            s = s + w[i + 1]
        elif n == 2:
            s = s + w[i + 2]
        elif n == 3:
            t = w[i + 2] + w[i + 3]
            s = s + t
        elif n >= 4:
            t = w[i + 4] * <float> (n - 3)
            t = w[i + 2] + t
            s = s + t
    return s


cdef int egg_step(int8_t* b, int f, int d) noexcept nogil:
    """Play one step of d pips from index f (24: the bar) on a flat board if it is legal
    (R6-R9); returns 1 when played."""
    cdef int t = f - d, i
    if b[OWN + f] == 0 or (f != 24 and b[OWN + 24]):
        return 0
    if t < 0:
        for i in range(6, 25):
            if b[OWN + i]:
                return 0  # R9: bear off only with every checker home
        if t < -1:
            for i in range(f + 1, 6):
                if b[OWN + i]:
                    return 0  # a larger die bears off only from the highest point
    elif b[23 - t] >= 2:
        return 0
    b[OWN + f] -= 1
    if t >= 0:
        if b[23 - t] == 1:
            b[23 - t] = 0
            b[24] += 1
        b[OWN + t] += 1
    return 1


cdef int egg_first(const int8_t* board, int d0, int d1, const int8_t* cands,
                   const int* tied, int ntied) noexcept nogil:
    """Which of the tied candidates (indices into cands) GNU Backgammon's generator lists
    first for a non-double played with both dice; -1 when none is such a play.

    Its order: the dice as given, then swapped; the first die's checker from the highest
    index down (bar first); the second die's from there down (as given: from the same
    index or lower; swapped: strictly lower)."""
    cdef int8_t one[50]
    cdef int8_t two[50]
    cdef int seq, a, b, p1, p2, j
    for seq in range(2):
        a = d0 if seq == 0 else d1
        b = d1 if seq == 0 else d0
        for p1 in range(24, -1, -1):
            memcpy(one, board, BOARD_BYTES)
            if not egg_step(one, p1, a):
                continue
            for p2 in range(p1 - seq, -1, -1):
                memcpy(two, one, BOARD_BYTES)
                if not egg_step(two, p2, b):
                    continue
                for j in range(ntied):
                    if memcmp(two, cands + tied[j] * BOARD_BYTES, BOARD_BYTES) == 0:
                        return tied[j]
    return -1


ctypedef struct PubPos:
    const double* row[24]    # row[i][n]: the term of the mover's index i holding n (-15..15)
    double before[24]        # the terms of the position before the move
    double wbar              # weight of one opponent checker on the bar
    double woff              # weight of one checker of the mover's off
    int off                  # the mover's checkers off before the move
    int bears_off            # 0 when no play can bear off (more checkers out than steps)


cdef enum:
    PUB_TIED_MAX = 64


cdef inline void pub_setup(PubPos* p, const int8_t* board, int race, int steps) noexcept nogil:
    cdef int i, out = board[OWN + 24]
    for i in range(24):
        p.row[i] = &PM[race][i][15]
        p.before[i] = p.row[i][board[OWN + i] - board[23 - i]]
        if i >= 6:
            out += board[OWN + i]
    p.wbar = PW[race][120]
    p.woff = PW[race][121]
    p.off = pub_off(board)
    p.bears_off = out < steps  # R9: the last checker outside needs a step to come home


cdef inline double pub_fast(const int8_t* c, const int8_t* b, const PubPos* p) noexcept nogil:
    """The score of candidate c, less the score of the position b before the move minus
    its bar and off terms, in double precision: only the points whose counts changed are
    looked up (the same for every candidate, so it ranks them as the full score does)."""
    cdef uint32_t changed = fg_diff24(c + OWN, b + OWN)
    cdef int moved, off
    cdef double s
    if c[24] != b[24]:
        # Hits: a checker that hit and moved on left the point empty, its count unchanged.
        changed |= (fg_nonzero8(fg_rev8(fg_load8(c + 16) ^ fg_load8(b + 16)))
                    | (fg_nonzero8(fg_rev8(fg_load8(c + 8) ^ fg_load8(b + 8))) << 8)
                    | (fg_nonzero8(fg_rev8(fg_load8(c) ^ fg_load8(b))) << 16))
    if p.bears_off:
        s = fg_pub_sum(c, b, p.row, p.before, changed, &moved)
        off = p.off - moved - (c[OWN + 24] - b[OWN + 24])
    else:
        s = fg_pub_sum(c, b, p.row, p.before, changed, NULL)
        off = p.off
    if off == 15:
        return PUB_ALL_OFF
    return s + p.wbar * c[24] + p.woff * off


cdef int pub_choose(const int8_t* board, int d0, int d1, const int8_t* cands, int k) noexcept nogil:
    """Index (0..k-1) of pubeval's choice among the k candidates (positions after the
    move, generated from `board` with dice d0, d1 in that order), as GNU Backgammon's
    pubeval player chooses: the highest score, ties to the play its generator lists
    first (for doubles and one-die plays that is fastgen's order too)."""
    cdef int race
    cdef PubPos p
    cdef double s, best = -1e300, second = -1e300
    cdef const int8_t* c
    cdef int j, bi = 0
    cdef float fs, fbest
    cdef int tied[PUB_TIED_MAX]
    cdef int ntied = 0
    if k <= 1:
        return 0
    race = pub_race(board)
    pub_setup(&p, board, race, 4 if d0 == d1 else 2)
    for j in range(k):
        s = pub_fast(cands + j * BOARD_BYTES, board, &p)
        if s > best:
            second = best
            best = s
            bi = j
        elif s > second:
            second = s
    if best - second > PUB_MARGIN:
        return bi
    # Close call: the exact single-precision scores of the close candidates decide.
    fbest = -1e30
    for j in range(k):
        c = cands + j * BOARD_BYTES
        if pub_fast(c, board, &p) < best - PUB_MARGIN:
            continue
        fs = gnubg_score(c, race)
        if fs > fbest:
            fbest = fs
            ntied = 0
        if fs == fbest and ntied < PUB_TIED_MAX:
            tied[ntied] = j
            ntied += 1
    if ntied > 1 and d0 != d1:
        j = egg_first(board, d0, d1, cands, tied, ntied)
        if j >= 0:
            return j
    return tied[0]  # doubles, one-die plays: fastgen's order is GNU Backgammon's


def pubeval_best_batch(const int8_t[:, :, ::1] boards, const int8_t[:, ::1] dice, int8_t[:, :, ::1] out,
                       StopFlag stop=None):
    """out[i] = the position after pubeval's play of boards[i] with dice[i] (row 1 the
    side that moved). Returns -1, or the index of the first invalid board (R4); returns
    early when `stop` is set (polled between positions)."""
    cdef Py_ssize_t i, n = boards.shape[0]
    cdef Ctx* c
    cdef int k = 0, bad = -1
    cdef const int* sp = flag_of(stop)
    c = ctx_new(0, 4096)
    if c == NULL:
        raise MemoryError("fastgen: cannot allocate the generator context")
    with nogil:
        for i in range(n):
            if fg_stopped(sp):
                break
            if board_check(&boards[i, 0, 0]):
                bad = i
                break
            c.n = 0
            k = generate(c, &boards[i, 0, 0], dice[i, 0], dice[i, 1])
            if k < 0:
                break
            k = pub_choose(&boards[i, 0, 0], dice[i, 0], dice[i, 1], c.boards, k)
            memcpy(&out[i, 0, 0], c.boards + k * BOARD_BYTES, BOARD_BYTES)
    ctx_free(c)
    if k < 0:
        raise MemoryError("fastgen: out of memory generating plays")
    return bad


def pubeval_pick(const int8_t[:, :, ::1] before, const int8_t[:, ::1] dice,
                 const int8_t[:, :, ::1] cands, const int64_t[::1] offsets, int64_t[::1] out):
    """out[g] = pubeval's choice (relative to offsets[g]) among the candidates
    cands[offsets[g]:offsets[g+1]] of position before[g] with dice[g] (plays_batch's
    output for those positions, in its order)."""
    cdef Py_ssize_t g, n = before.shape[0]
    with nogil:
        for g in range(n):
            out[g] = pub_choose(&before[g, 0, 0], dice[g, 0], dice[g, 1], &cands[offsets[g], 0, 0],
                                <int> (offsets[g + 1] - offsets[g]))


def pubeval_egg_first(const int8_t[:, ::1] board, int d0, int d1, const int8_t[:, :, ::1] cands,
                      const int32_t[::1] tied):
    """For tests: which of cands[tied] GNU Backgammon's generator lists first for a
    non-double played with both dice (see egg_first), or -1."""
    return egg_first(&board[0, 0], d0, d1, &cands[0, 0, 0], <const int*> &tied[0], tied.shape[0])


cdef int pub_chooser_fn(void* state, const int8_t* board, int d1, int d2, const int8_t* cands, int k,
                        uint64_t game, uint64_t turn) noexcept nogil:
    return pub_choose(board, d1, d2, cands, k)


cdef class PubevalChooser(Chooser):
    """Pubeval's choice for the game loops (pub_choose). It keeps no scratch memory: any
    number of threads may share it."""

    def __cinit__(self):
        self.fn = pub_chooser_fn
        self.state = NULL
