# Part of fastgen/bearoff/_build.pyx (one extension: the C compiler inlines across the
# files it includes); the names and imports are _build.pyx's.
#
# The two-sided builder: the equities of every pair, shell by shell.


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
