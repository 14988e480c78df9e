# Bear-off database builders (fastgen.bearoff): the one-sided roll distributions and the
# two-sided equities of GNU Backgammon's .bd files, computed from fastgen's own move
# generation (fastgen.core._core.generate), without the GIL.
#
# Positions of up to C checkers on P points are numbered as gnubg numbers them (see
# fastgen/bearoff/index.py): by number of checkers, then in descending lexicographic order
# of (count on point 1, ..., count on point P). A play only moves checkers down or off, so
# every child of a position has a smaller number: one pass in index order suffices for the
# one-sided database, and "shells" of max(player, opponent) for the two-sided one.
#
# The arithmetic is integer and reproduces gnubg's files bit for bit (docs/guides/bearoff.rst):
# - one-sided: each probability is an integer in 1/65535; a position's distribution is
#   sum over the 21 rolls of weight (1 or 2) x the chosen child's stored distribution,
#   shifted by one roll, divided by 36 and rounded half up; the largest entry then takes
#   whatever makes the total exactly 65535. The play chosen is the child with the smallest
#   mean (sum k x p_k of the stored values), the first in generation order on a tie; the
#   first-checker ("gammon") distribution chooses its own child by its own mean.
# - two-sided: a stored value q encodes an equity e = q / 32767.5 - 1 rounded towards
#   32768 (floor at or above, ceiling below). Sums run in units of 1/131070, where a no-
#   double equity is 4q - 131070 and a doubled one 2 (4q - 131071), a pass (+1) once
#   q >= 49151. The four values of a pair are cubeless, cube owned by the side on roll,
#   centred, owned by the opponent, all "no double" equities normalised to the cube.

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memset

import numpy as np

from fastgen.core._core cimport Ctx, ctx_new, ctx_free, generate

cdef extern from "_platform.h":
    int fg_stopped(const int* flag) nogil
    void fg_request_stop(int* flag) nogil

cdef enum:
    MAXP = 15          # points, the most a board's home side can hold for a build
    NDIST = 32         # entries of a one-sided distribution (rolls 0..31), as gnubg stores
    U = 131070         # two-sided sums: 1.0 in these units

cdef int ROLL_A[21]
cdef int ROLL_B[21]
cdef int ROLL_W[21]
cdef int64_t BINOM[64][MAXP + 2]     # BINOM[n][k] = n choose k, n < 64, k <= MAXP + 1
cdef int64_t SUFFIX[MAXP + 1][16]    # see rank_of
cdef int64_t LEVEL[MAXP + 1][16]


cdef void _init_tables() noexcept:
    cdef int a, b, r = 0, n, k
    for a in range(1, 7):
        for b in range(1, a + 1):
            ROLL_A[r] = a
            ROLL_B[r] = b
            ROLL_W[r] = 1 if a == b else 2
            r += 1
    for n in range(64):
        for k in range(MAXP + 2):
            if k == 0:
                BINOM[n][k] = 1
            elif n == 0:
                BINOM[n][k] = 0
            else:
                BINOM[n][k] = BINOM[n - 1][k - 1] + BINOM[n - 1][k]
    for k in range(MAXP + 1):
        for n in range(16):
            SUFFIX[k][n] = BINOM[n - 1 + k][k] if n > 0 else 0
            LEVEL[k][n] = BINOM[n - 1 + k][k] if n > 0 else 0


_init_tables()


cdef class BuildStop:
    """Asks a running build to stop; set from any thread (see fastgen._util.run_threads)."""
    cdef int flag

    def set(self):
        """Ask the build loops reading this flag to stop."""
        fg_request_stop(&self.flag)

    def is_set(self):
        """True once set() was called."""
        return fg_stopped(&self.flag) != 0


cdef inline int64_t rank_of(const int8_t* a, int P) noexcept nogil:
    """gnubg's number of the position a[0..P-1] (checkers on points 1..P).

    With s_j = a[j] + ... + a[P-1] (the checkers on points above j) and n = s_0, the number
    is C(n - 1 + P, P) (the positions of fewer checkers) plus, for j = 1..P-1, C(s_j - 1 +
    P - j, P - j) when s_j > 0 (those of n checkers with more on point j, the same above).
    SUFFIX[k][s] holds C(s - 1 + k, k) (0 for s = 0) and LEVEL[P][n] = C(n - 1 + P, P)."""
    cdef int j, s = 0
    cdef int64_t idx = 0
    for j in range(P - 1, 0, -1):
        s += a[j]
        idx += SUFFIX[P - j][s]
    return idx + LEVEL[P][s + a[0]]


cdef inline int next_position(int8_t* a, int P) noexcept nogil:
    """Step a[0..P-1] to the next position in gnubg's order (the total may grow by one)."""
    cdef int j = P - 2, i, rest, n
    while j >= 0 and a[j] == 0:
        j -= 1
    if j < 0:   # (0, ..., 0, n): the first position of n + 1 checkers
        n = a[P - 1] + 1
        for i in range(P):
            a[i] = 0
        a[0] = n
        return 0
    rest = 0
    for i in range(j + 1, P):
        rest += a[i]
        a[i] = 0
    a[j] -= 1
    a[j + 1] = rest + 1
    return 0


def rank_positions(const int8_t[:, ::1] a):
    """gnubg's numbers of the rows of a (N, P) int8 array of checker counts (checked by the caller)."""
    cdef Py_ssize_t i, N = a.shape[0]
    cdef int P = a.shape[1]
    out = np.empty(N, dtype=np.int64)
    cdef int64_t[::1] o = out
    with nogil:
        for i in range(N):
            o[i] = rank_of(&a[i, 0], P)
    return out


cdef int play_children(Ctx* ctx, int8_t* board, int P, int r, int64_t** buf, int64_t* cap) noexcept nogil:
    """Generate the plays of the mover's bear-off position in `board` with roll r; write
    their numbers to *buf (grown as needed). Returns how many, or -1 when memory is short."""
    cdef int k, m
    cdef int64_t* nb
    ctx.n = 0
    m = generate(ctx, board, ROLL_A[r], ROLL_B[r])
    if m < 0:
        return -1
    if m > cap[0]:
        nb = <int64_t*> realloc(buf[0], m * sizeof(int64_t))
        if nb == NULL:
            return -1
        buf[0] = nb
        cap[0] = m
    for k in range(m):
        buf[0][k] = rank_of(<const int8_t*> ctx.boards + <int64_t> k * 50 + 25, P)
    return m


cdef inline void settle(int64_t* tot, uint16_t* out) noexcept nogil:
    """tot (in 1/36 of a stored unit) -> stored values summing to exactly 65535."""
    cdef int k, big = 0
    cdef int64_t s = 0, v
    for k in range(NDIST):
        v = (2 * tot[k] + 36) // 72
        out[k] = <uint16_t> v
        s += v
        if out[k] > out[big]:
            big = k
    out[big] = <uint16_t> (out[big] + (65535 - s))


def one_sided(int P, uint16_t[:, ::1] dist, uint16_t[:, ::1] gdist, int64_t[::1] mean,
              int64_t[::1] gmean, uint8_t[:, ::1] span, int8_t[::1] cursor, int64_t start,
              int64_t stop, BuildStop flag=None):
    """Fill rows start..stop-1 of the one-sided database of P points (15 checkers).

    dist (N, 32) and mean (N,) hold every row below start already; gdist/gmean likewise
    for the first-checker distribution (a (0, 32) array: not computed), span (N, 2) the
    first and one past the last non-zero entry of each row of dist. cursor (P,) is the
    position of row start and is left at row stop. Returns stop, or the row where a stop
    request ended the work, or -1 when memory is short.
    """
    cdef int gam = gdist.shape[0] > 0
    cdef int8_t board[50]
    cdef int64_t tot[NDIST]
    cdef int64_t gtot[NDIST]
    cdef int64_t i, best, gbest, j, m, bm, gm
    cdef int r, k, n, w, nchk, lo, hi
    cdef int64_t* buf = NULL
    cdef int64_t cap = 0
    cdef int never = 0
    cdef const int* stopf = &never if flag is None else &flag.flag
    cdef Ctx* ctx
    cdef int64_t done = stop
    with nogil:
        ctx = ctx_new(0, 4096)
        if ctx == NULL:
            done = -1
        else:
            memset(board, 0, 50)
            for i in range(start, stop):
                if (i & 1023) == 0 and fg_stopped(stopf):
                    done = i
                    break
                nchk = 0
                for k in range(P):
                    board[25 + k] = cursor[k]
                    nchk += cursor[k]
                if i == 0:   # nothing left: borne off in 0 rolls
                    memset(&dist[0, 0], 0, NDIST * 2)
                    dist[0, 0] = 65535
                    mean[0] = 0
                    span[0, 0] = 0
                    span[0, 1] = 1
                else:
                    memset(tot, 0, sizeof(tot))
                    memset(gtot, 0, sizeof(gtot))
                    for r in range(21):
                        n = play_children(ctx, board, P, r, &buf, &cap)
                        if n < 0:
                            done = -1
                            break
                        best = buf[0]
                        bm = mean[best]
                        gbest = buf[0]
                        for j in range(1, n):
                            if mean[buf[j]] < bm:
                                best = buf[j]
                                bm = mean[best]
                        w = ROLL_W[r]
                        hi = span[best, 1] + 1
                        if hi > NDIST:
                            hi = NDIST
                        for k in range(span[best, 0] + 1, hi):
                            tot[k] += w * dist[best, k - 1]
                        if gam and nchk == 15:
                            gm = gmean[gbest]
                            for j in range(1, n):
                                if gmean[buf[j]] < gm:
                                    gbest = buf[j]
                                    gm = gmean[gbest]
                            for k in range(1, NDIST):
                                gtot[k] += w * gdist[gbest, k - 1]
                    if done == -1:
                        break
                    settle(tot, &dist[i, 0])
                    m = 0
                    lo = NDIST
                    hi = 0
                    for k in range(NDIST):
                        m += k * dist[i, k]
                        if dist[i, k]:
                            if k < lo:
                                lo = k
                            hi = k + 1
                    mean[i] = m
                    span[i, 0] = <uint8_t> lo
                    span[i, 1] = <uint8_t> hi
                if gam:
                    if nchk == 15:
                        settle(gtot, &gdist[i, 0])
                    else:   # a checker is already off
                        memset(&gdist[i, 0], 0, NDIST * 2)
                        gdist[i, 0] = 65535
                    m = 0
                    for k in range(NDIST):
                        m += k * gdist[i, k]
                    gmean[i] = m
                next_position(<int8_t*> &cursor[0], P)
            ctx_free(ctx)
        free(buf)
    return done


cdef inline int64_t packed_at(const uint8_t* e) noexcept nogil:
    """The uint32 offset (little-endian) at the front of a compressed index entry."""
    return <int64_t> e[0] | (<int64_t> e[1] << 8) | (<int64_t> e[2] << 16) | (<int64_t> e[3] << 24)


cdef inline int64_t pack_run(const uint16_t* v, uint8_t* e, uint16_t* data, int64_t used) noexcept nogil:
    """Append the non-zero run of the distribution v to data[used:], its count and first
    roll to e[0], e[1]; returns the new length of data."""
    cdef int k, lo = NDIST, hi = 0
    for k in range(NDIST):
        if v[k]:
            if k < lo:
                lo = k
            hi = k + 1
    e[0] = <uint8_t> (hi - lo)
    e[1] = <uint8_t> lo
    for k in range(lo, hi):
        data[used] = v[k]
        used += 1
    return used


def one_sided_packed(int P, uint8_t[:, ::1] index, uint16_t[::1] data, int64_t used,
                     uint32_t[::1] mean, uint32_t[::1] gmean, int8_t[::1] cursor,
                     int64_t start, int64_t stop, BuildStop flag=None):
    """Fill rows start..stop-1 of the one-sided database of P points in gnubg's compressed
    layout, the children's distributions read back from it.

    index (N, 8) with gammons or (N, 6) without holds per position the uint32 offset of its
    runs in data (little-endian), the count and first roll of the non-zero run of its roll
    distribution and, with gammons, of its first-checker one; data[:used] holds the runs of
    the rows below start. mean/gmean (N,) are the means sum k x p_k (gmean unused without
    gammons). cursor (P,) is the position of row start and is left at the row reached.
    Returns (row reached, new used): the row reached is stop, or the row where a stop
    request ended the work or where data had no room for 64 more values (the caller grows
    data and calls again from there), or -1 when memory is short.
    """
    cdef int gam = index.shape[1] == 8
    cdef int E = index.shape[1]
    cdef int8_t board[50]
    cdef int64_t tot[NDIST]
    cdef int64_t gtot[NDIST]
    cdef uint16_t row[NDIST]
    cdef int64_t i, best, gbest, j, m, base
    cdef uint32_t bm, gm
    cdef int r, k, n, w, nchk, lo, cnt
    cdef int64_t* buf = NULL
    cdef int64_t cap = 0
    cdef int never = 0
    cdef const int* stopf = &never if flag is None else &flag.flag
    cdef Ctx* ctx
    cdef int64_t done = stop
    cdef uint8_t* ix = &index[0, 0]
    cdef uint8_t* e
    cdef uint16_t* d = &data[0]
    cdef int64_t room = data.shape[0]
    with nogil:
        ctx = ctx_new(0, 4096)
        if ctx == NULL:
            done = -1
        else:
            memset(board, 0, 50)
            for i in range(start, stop):
                if ((i & 1023) == 0 and fg_stopped(stopf)) or used + 2 * NDIST > room:
                    done = i
                    break
                nchk = 0
                for k in range(P):
                    board[25 + k] = cursor[k]
                    nchk += cursor[k]
                memset(row, 0, sizeof(row))
                if i == 0:   # nothing left: borne off in 0 rolls
                    row[0] = 65535
                else:
                    memset(tot, 0, sizeof(tot))
                    memset(gtot, 0, sizeof(gtot))
                    for r in range(21):
                        n = play_children(ctx, board, P, r, &buf, &cap)
                        if n < 0:
                            done = -1
                            break
                        best = buf[0]
                        bm = mean[best]
                        gbest = buf[0]
                        for j in range(1, n):
                            if mean[buf[j]] < bm:
                                best = buf[j]
                                bm = mean[best]
                        w = ROLL_W[r]
                        e = ix + best * E
                        base = packed_at(e)
                        cnt = e[4]
                        lo = e[5]
                        if lo + cnt >= NDIST:
                            cnt = NDIST - 1 - lo
                        for k in range(cnt):
                            tot[lo + k + 1] += w * d[base + k]
                        if gam and nchk == 15:
                            gm = gmean[gbest]
                            for j in range(1, n):
                                if gmean[buf[j]] < gm:
                                    gbest = buf[j]
                                    gm = gmean[gbest]
                            e = ix + gbest * E
                            base = packed_at(e) + e[4]
                            cnt = e[6]
                            lo = e[7]
                            if lo + cnt >= NDIST:
                                cnt = NDIST - 1 - lo
                            for k in range(cnt):
                                gtot[lo + k + 1] += w * d[base + k]
                    if done == -1:
                        break
                    settle(tot, row)
                m = 0
                for k in range(NDIST):
                    m += k * row[k]
                mean[i] = <uint32_t> m
                e = ix + i * E
                e[0] = <uint8_t> (used & 255)
                e[1] = <uint8_t> ((used >> 8) & 255)
                e[2] = <uint8_t> ((used >> 16) & 255)
                e[3] = <uint8_t> ((used >> 24) & 255)
                used = pack_run(row, e + 4, d, used)
                if gam:
                    memset(row, 0, sizeof(row))
                    if nchk == 15 and i > 0:
                        settle(gtot, row)
                    else:   # a checker is already off
                        row[0] = 65535
                    m = 0
                    for k in range(NDIST):
                        m += k * row[k]
                    gmean[i] = <uint32_t> m
                    used = pack_run(row, e + 6, d, used)
                next_position(<int8_t*> &cursor[0], P)
            ctx_free(ctx)
        free(buf)
    return done, used


def children_table(int P, int C, int64_t[::1] offsets):
    """The plays of every position of up to C checkers on P points, for each of the 21 rolls.

    offsets (N * 21 + 1,) is filled; returns the (M,) int32 numbers of the children, the
    plays of position p with roll r being children[offsets[21 p + r]:offsets[21 p + r + 1]].
    """
    cdef int64_t N = offsets.shape[0] // 21
    cdef int8_t board[50]
    cdef int64_t i, total = 0, kcap = 1 << 16
    cdef int r, n, k, err = 0
    cdef int64_t* buf = NULL
    cdef int64_t cap = 0
    cdef int32_t* kids = <int32_t*> malloc(kcap * sizeof(int32_t))
    cdef int32_t* nk
    cdef Ctx* ctx
    if kids == NULL:
        raise MemoryError()
    with nogil:
        ctx = ctx_new(0, 4096)
        if ctx == NULL:
            err = 1
        else:
            memset(board, 0, 50)
            offsets[0] = 0
            for i in range(N):
                for r in range(21):
                    n = play_children(ctx, board, P, r, &buf, &cap)
                    if n < 0:
                        err = 1
                        break
                    if total + n > kcap:
                        kcap = 2 * (total + n)
                        nk = <int32_t*> realloc(kids, kcap * sizeof(int32_t))
                        if nk == NULL:
                            err = 1
                            break
                        kids = nk
                    for k in range(n):
                        kids[total + k] = <int32_t> buf[k]
                    total += n
                    offsets[i * 21 + r + 1] = total
                if err:
                    break
                next_position(&board[25], P)
            ctx_free(ctx)
        free(buf)
    if err:
        free(kids)
        raise MemoryError()
    out = np.empty(total, dtype=np.int32)
    cdef int32_t[::1] ov = out
    for i in range(total):
        ov[i] = kids[i]
    free(kids)
    return out


cdef inline int64_t ts_encode(int64_t S) noexcept nogil:
    """The stored value of the sum S (36 x the equity, in 1/131070): (e + 1) x 32767.5
    rounded towards 32768."""
    cdef int64_t num = S + 36 * <int64_t> U
    if num >= 144 * <int64_t> 32768:
        return num // 144
    return (num + 143) // 144   # num >= 0: the ceiling


cdef inline void ts_pair(uint16_t* out, int64_t n, int K, int64_t p, int64_t o,
                         const int64_t* off, const int32_t* kids) noexcept nogil:
    """Value(s) of player p on roll against opponent o (both > 0)."""
    cdef int64_t S0 = 0, S1 = 0, S2 = 0, S3 = 0
    cdef int64_t v0, v1, v2, v3, m0, m1, m2, m3, dt
    cdef int r, w
    cdef int64_t j, lo, hi
    cdef const uint16_t* row = out + o * n * K
    cdef const uint16_t* q
    for r in range(21):
        lo = off[p * 21 + r]
        hi = off[p * 21 + r + 1]
        w = ROLL_W[r]
        if K == 1:
            m0 = U
            for j in range(lo, hi):
                v0 = 4 * <int64_t> row[kids[j]] - U
                if v0 < m0:
                    m0 = v0
            S0 -= w * m0
        else:
            m0 = U
            m1 = U
            m2 = U
            m3 = U
            for j in range(lo, hi):
                q = row + kids[j] * 4
                v0 = 4 * <int64_t> q[0] - U
                v1 = 4 * <int64_t> q[3] - U
                # the opponent doubles when 2 q3 - q_nd >= 32767 (a take at 2 (4 q3 - U - 1),
                # a pass once q3 >= 49151), else plays on at its no-double value
                dt = U if q[3] >= 49151 else 2 * (4 * <int64_t> q[3] - U - 1)
                v2 = dt if 2 * <int64_t> q[3] - q[2] >= 32767 else 4 * <int64_t> q[2] - U
                v3 = dt if 2 * <int64_t> q[3] - q[1] >= 32767 else 4 * <int64_t> q[1] - U
                if v0 < m0:
                    m0 = v0
                if v1 < m1:
                    m1 = v1
                if v2 < m2:
                    m2 = v2
                if v3 < m3:
                    m3 = v3
            S0 -= w * m0
            S1 -= w * m1
            S2 -= w * m2
            S3 -= w * m3
    q = out + (p * n + o) * K
    (<uint16_t*> q)[0] = <uint16_t> ts_encode(S0)
    if K == 4:
        (<uint16_t*> q)[1] = <uint16_t> ts_encode(S1)
        (<uint16_t*> q)[2] = <uint16_t> ts_encode(S2)
        (<uint16_t*> q)[3] = <uint16_t> ts_encode(S3)


def two_sided(uint16_t[:, :, ::1] out, const int64_t[::1] offsets, const int32_t[::1] kids,
              int64_t m_start, int64_t m_stop, int part, int parts, int phase,
              BuildStop flag=None):
    """Shells m_start..m_stop-1 of the two-sided table out (n, n, K), K = 4 or 1.

    Shell m holds the pairs whose larger number is m: first row m (player m against
    opponents 0..m), then column m (players 0..m-1 against m). Within each half the pairs
    are independent, so `parts` threads may share a shell: this call does the pairs of
    index part, part + parts, ...; phase 0 does rows, 1 columns (a caller with one part
    passes phase -1 for both). Returns the first shell not done (m_stop unless stopped).
    """
    cdef int64_t n = out.shape[0]
    cdef int K = out.shape[2]
    cdef int64_t m, o, p, j
    cdef int never = 0
    cdef const int* stopf = &never if flag is None else &flag.flag
    cdef uint16_t* base = &out[0, 0, 0]
    cdef const int64_t* off = &offsets[0]
    cdef const int32_t* kd = &kids[0] if kids.shape[0] > 0 else NULL
    cdef int64_t done = m_stop
    with nogil:
        for m in range(m_start, m_stop):
            if fg_stopped(stopf):
                done = m
                break
            if phase != 1:
                o = part
                while o <= m:
                    if m == 0:
                        for j in range(K):
                            base[j] = 65535
                    elif o == 0:
                        for j in range(K):
                            base[(m * n) * K + j] = 0
                    elif o < m:
                        ts_pair(base, n, K, m, o, off, kd)
                    o += parts
                if parts == 1 and m > 0:
                    ts_pair(base, n, K, m, m, off, kd)
            if phase != 0:
                p = part
                while p < m:
                    if p == 0:
                        for j in range(K):
                            base[m * K + j] = 65535
                    else:
                        ts_pair(base, n, K, p, m, off, kd)
                    p += parts
    return done


def two_sided_diagonal(uint16_t[:, :, ::1] out, const int64_t[::1] offsets, const int32_t[::1] kids, int64_t m):
    """The pair (m, m), between the row and column halves of a shell split over threads."""
    cdef int64_t n = out.shape[0]
    cdef int K = out.shape[2]
    if m > 0:
        with nogil:
            ts_pair(&out[0, 0, 0], n, K, m, m, &offsets[0], &kids[0])
