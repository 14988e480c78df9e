# Part of fastgen/bearoff/_build.pyx (one extension: the C compiler inlines across the
# files it includes); the names and imports are _build.pyx's.
#
# The one-sided builder, in gnubg's compressed layout, and its expansion to tables.


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


cdef enum:
    MEAN_SHIFT = 5     # a stored mean key is the mean >> 5: a mean (sum k x p_k) is at most
                       # 31 x 65535 < 2**21, so its key fits 16 bits


cdef inline int64_t run_mean(const uint8_t* e, const uint16_t* d, int g) noexcept nogil:
    """The exact mean sum k x p_k of the roll distribution (g = 0) or first-checker one
    (g = 1) of the position with compressed index entry e, from its run in d."""
    cdef int64_t base = packed_at(e) + (e[4] if g else 0), m = 0
    cdef int cnt = e[6] if g else e[4], lo = e[7] if g else e[5], k
    for k in range(cnt):
        m += (lo + k) * <int64_t> d[base + k]
    return m


cdef inline int64_t pick(const int64_t* kids, int n, const uint16_t* key, int64_t full,
                         const uint8_t* ix, int E, const uint16_t* d, int g) noexcept nogil:
    """The play gnubg chooses among the children kids[:n]: the smallest mean, the first on
    a tie. key[x - full] is the mean key (mean >> MEAN_SHIFT) of child x >= full, 0 below
    (no mean); equal keys are settled by the exact means, read from the runs."""
    cdef int64_t best = kids[0], c, bm = -1, cm
    cdef uint32_t bt = key[best - full] if best >= full else 0, t
    cdef int j
    for j in range(1, n):
        c = kids[j]
        t = key[c - full] if c >= full else 0
        if t < bt:
            best = c
            bt = t
            bm = -1
        elif t == bt:
            if bm < 0:
                bm = run_mean(ix + best * E, d, g)
            cm = run_mean(ix + c * E, d, g)
            if cm < bm:
                best = c
                bm = cm
    return best


def one_sided_packed(int P, uint8_t[:, ::1] index, uint16_t[::1] data, int64_t used,
                     uint16_t[::1] mean, uint16_t[::1] gmean, int8_t[::1] cursor,
                     int64_t start, int64_t stop, Children kids, BuildStop flag=None):
    """Fill rows start..stop-1 of the one-sided database of P points in gnubg's compressed
    layout, the children's distributions read back from it.

    index (N, 8) with gammons or (N, 6) without holds per position the uint32 offset of its
    runs in data (little-endian), the count and first roll of the non-zero run of its roll
    distribution and, with gammons, of its first-checker one; data[:used] holds the runs of
    the rows below start. mean (N,) holds the mean keys (see pick) of the roll
    distributions, gmean those of the first-checker ones for the last gmean.shape[0]
    positions, the ones of 15 checkers (the others have none to bear off first: their mean
    is 0); unused without gammons. Two bytes a position each, not the four of an exact
    mean: on the largest builds they are most of the memory beside the file's own. cursor (P,) is the position of row start and is left at the row reached.
    Returns (row reached, new used): the row reached is stop, or the row where a stop
    request ended the work or where data had no room for 64 more values (the caller grows
    data and calls again from there), or -1 when memory is short.
    """
    cdef int gam = index.shape[1] == 8
    cdef int E = index.shape[1]
    cdef int64_t tot[NDIST]
    cdef int64_t gtot[NDIST]
    cdef uint16_t row[NDIST]
    cdef int64_t i, best, gbest, j, m, base
    cdef int64_t full = index.shape[0] - gmean.shape[0]   # the first position of 15 checkers
    cdef int r, k, n, w, nchk, lo, cnt
    cdef int64_t* buf
    cdef int never = 0
    cdef const int* stopf = &never if flag is None else &flag.flag
    cdef int64_t done = stop
    cdef uint8_t* ix = &index[0, 0]
    cdef uint8_t* e
    cdef uint16_t* d = &data[0]
    cdef int64_t room = data.shape[0]
    cdef const uint16_t* mk = &mean[0]
    cdef const uint16_t* gk = &gmean[0] if gmean.shape[0] > 0 else NULL
    with nogil:
        for i in range(start, stop):
            if ((i & 1023) == 0 and fg_stopped(stopf)) or used + 2 * NDIST > room:
                done = i
                break
            nchk = 0
            for k in range(P):
                nchk += cursor[k]
            memset(row, 0, sizeof(row))
            if i == 0:   # nothing left: borne off in 0 rolls
                row[0] = 65535
            else:
                memset(tot, 0, sizeof(tot))
                memset(gtot, 0, sizeof(gtot))
                if kids.at(<const int8_t*> &cursor[0]) < 0:
                    done = -1
                    break
                for r in range(21):
                    n = kids.plays(r)
                    if n < 0:
                        done = -1
                        break
                    buf = kids.ranks
                    best = pick(buf, n, mk, 0, ix, E, d, 0)
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
                        gbest = pick(buf, n, gk, full, ix, E, d, 1)
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
            mean[i] = <uint16_t> (m >> MEAN_SHIFT)
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
                if i >= full:
                    gmean[i - full] = <uint16_t> (m >> MEAN_SHIFT)
                used = pack_run(row, e + 6, d, used)
            next_position(<int8_t*> &cursor[0], P)
    return done, used


def expand(const uint8_t[:, ::1] index, const uint16_t[::1] data, uint16_t[:, ::1] rolls,
           uint16_t[:, ::1] gammon):
    """Write the (N, 32) tables of a database held in the compressed layout (index (N, 8)
    with gammons, (N, 6) without, and its runs in data); gammon is (0, 32) without."""
    cdef int64_t i, base, N = index.shape[0]
    cdef int k, g = index.shape[1] == 8 and gammon.shape[0] == N
    cdef const uint8_t* e
    with nogil:
        for i in range(N):
            e = &index[i, 0]
            base = packed_at(e)
            for k in range(e[4]):
                rolls[i, e[5] + k] = data[base + k]
            if g:
                base += e[4]
                for k in range(e[6]):
                    gammon[i, e[7] + k] = data[base + k]
