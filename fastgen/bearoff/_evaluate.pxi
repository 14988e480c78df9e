# Part of fastgen/bearoff/_build.pyx (one extension: the C compiler inlines across the
# files it includes); the names and imports are _build.pyx's.
#
# Reading: the side numbers of a batch of boards, and the one-sided outputs of pairs of
# positions, in nogil loops (fastgen/bearoff/evaluate.py checks the inputs).


def side_numbers(const int8_t[:, :, ::1] boards, int side, int P, int C):
    """gnubg's number of row `side` of each (2, 25) board in the database of up to C
    checkers on P points, -1 where that row has a checker above point P (or on the bar)
    or more than C checkers."""
    cdef Py_ssize_t i, N = boards.shape[0]
    cdef int j, total
    cdef const int8_t* row
    out = np.empty(N, dtype=np.int64)
    cdef int64_t[::1] o = out
    with nogil:
        for i in range(N):
            row = &boards[i, side, 0]
            total = 0
            for j in range(P):
                total += row[j]
            for j in range(P, 25):
                if row[j]:
                    total = C + 1
            o[i] = rank_of(row, P) if total <= C else -1
    return out


cdef inline void dist_of(int64_t x, uint32_t* v, const uint16_t[:, :] table, const uint32_t[:] offset,
                         const uint8_t[:] count, const uint8_t[:] first, const uint16_t[:] data,
                         int64_t skip) noexcept nogil:
    """v[0..31] = the stored distribution of position x: a row of `table`, or (a table of
    no rows) the run of the compressed layout, `skip` values after the position's offset."""
    cdef int k
    cdef int64_t base
    if table.shape[0] > 0:
        for k in range(NDIST):
            v[k] = table[x, k]
        return
    memset(v, 0, NDIST * sizeof(uint32_t))
    base = offset[x] + skip
    for k in range(count[x]):
        v[first[x] + k] = data[base + k]


def one_sided_outputs(const int64_t[::1] me, const int64_t[::1] opp, double[:, ::1] out,
                      const uint16_t[:, :] rolls, const uint16_t[:, :] gammon, const uint32_t[:] offset,
                      const uint8_t[:] nz, const uint8_t[:] ioff, const uint8_t[:] nzg,
                      const uint8_t[:] ioffg, const uint16_t[:] data):
    """out[k] = gnubg's five outputs for the side on roll at position me[k] against the
    opponent at opp[k], from a one-sided database: its tables rolls/gammon (N, 32) (gammon
    with no rows without gammons), or, when rolls has no rows, its compressed layout
    (offset, the runs' counts and first rolls nz/ioff and nzg/ioffg (empty without
    gammons), data). With A, B the two roll distributions (integers in 1/65535),
    P(win) = sum_i A_i P(B >= i); P(win gammon) = sum_i A_i P(G_B >= i) and P(lose gammon) =
    sum_j B_j P(G_A > j) from the first-checker distributions G; exact integer sums. Each
    sum is at most 65535 x 65535 when the distributions sum to 65535 (read_gnubg checks
    that); one of an unchecked file (verify=False) is capped there, so no output leaves
    [0, 1]."""
    cdef Py_ssize_t k, n = me.shape[0]
    cdef int i
    cdef int gam = gammon.shape[0] > 0 if rolls.shape[0] > 0 else nzg.shape[0] > 0
    cdef uint32_t a[NDIST]
    cdef uint32_t b[NDIST]
    cdef uint32_t ga[NDIST]
    cdef uint32_t gb[NDIST]
    cdef uint64_t tail, s0, s1, s3
    cdef uint64_t full = <uint64_t> 65535 * 65535
    cdef double scale = 1.0 / (65535.0 * 65535.0)
    with nogil:
        for k in range(n):
            dist_of(me[k], a, rolls, offset, nz, ioff, data, 0)
            dist_of(opp[k], b, rolls, offset, nz, ioff, data, 0)
            tail = 0
            s0 = 0
            for i in range(NDIST - 1, -1, -1):   # tail = P(B >= i)
                tail += b[i]
                s0 += <uint64_t> a[i] * tail
            out[k, 0] = (s0 if s0 < full else full) * scale
            out[k, 1] = 0.0
            out[k, 2] = 0.0
            out[k, 3] = 0.0
            out[k, 4] = 0.0
            if gam:
                if rolls.shape[0] > 0:
                    dist_of(me[k], ga, gammon, offset, nz, ioff, data, 0)
                    dist_of(opp[k], gb, gammon, offset, nz, ioff, data, 0)
                else:
                    dist_of(me[k], ga, gammon, offset, nzg, ioffg, data, nz[me[k]])
                    dist_of(opp[k], gb, gammon, offset, nzg, ioffg, data, nz[opp[k]])
                tail = 0
                s1 = 0
                for i in range(NDIST - 1, -1, -1):   # tail = P(G_B >= i)
                    tail += gb[i]
                    s1 += <uint64_t> a[i] * tail
                tail = 0
                s3 = 0
                for i in range(NDIST - 1, -1, -1):   # tail = P(G_A > i)
                    s3 += <uint64_t> b[i] * tail
                    tail += ga[i]
                out[k, 1] = (s1 if s1 < full else full) * scale
                out[k, 3] = (s3 if s3 < full else full) * scale
