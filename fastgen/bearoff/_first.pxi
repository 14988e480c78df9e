# Part of fastgen/bearoff/_build.pyx (one extension: the C compiler inlines across the
# files it includes); the names and imports are _build.pyx's.
#
# The first-checker distributions gnubg-nn's bear-off gammons read (fastgen.bearoff.gnubg:
# first_checker_distributions), over the positions of 15 checkers on 6 points.


def first_checker(Children kids, const int8_t[:, ::1] positions, int64_t start, int horizon,
                  double[:, ::1] dist):
    """Fill dist (N, 32) for the N positions of 15 checkers on 6 points, numbers start..
    start + N - 1 (positions (N, 6) their counts, in that order): row i the chance that
    its first checker comes off on turn t, turns past *horizon* counted at it. A roll
    bears one off when any of its plays does (and 2-2 does from checkers on points 1 and
    3 only, as gnubg-nn has it); otherwise it is played to the child of the smallest mean
    turn, the first in generation order on a tie. The rolls are summed in the order
    (1, 1), (1, 2), ..., (1, 6), (2, 2), ..., (6, 6), each times its weight of 36.
    Every child of a position has a smaller number, so one pass in order sees the
    children first. Returns 0, or -1 when memory is short."""
    cdef int64_t N = positions.shape[0], i, c, best, n
    cdef int P = positions.shape[1]
    cdef int order[21]
    cdef int a, b, r, k, t, q, bears, only_1_3
    cdef double w, m
    cdef double per[NDIST]
    cdef double[::1] mean = np.zeros(N)
    cdef int done = 0
    if P != 6 or dist.shape[0] != N or dist.shape[1] != NDIST or not 0 < horizon < NDIST - 1:
        raise ValueError("first_checker: need positions (N, 6) and dist (N, 32) (checked by the caller)")
    q = 0
    for a in range(1, 7):  # each roll's place among the builders' rolls (larger die first)
        for b in range(a, 7):
            for r in range(21):
                if ROLL_A[r] == b and ROLL_B[r] == a:
                    order[q] = r
            q += 1
    with nogil:
        for i in range(N):
            if kids.at(&positions[i, 0]) < 0:
                done = -1
                break
            only_1_3 = positions[i, 1] == 0 and positions[i, 3] == 0 and positions[i, 4] == 0 and positions[i, 5] == 0
            for t in range(NDIST):
                dist[i, t] = 0.0
            for q in range(21):
                r = order[q]
                n = kids.plays(r)
                if n < 0:
                    done = -1
                    break
                bears = ROLL_A[r] == 2 and ROLL_B[r] == 2 and only_1_3
                for k in range(n):
                    if kids.ranks[k] < start:
                        bears = 1
                per[0] = 0.0
                if bears:
                    for t in range(1, NDIST):
                        per[t] = 0.0
                    per[1] = 1.0
                else:
                    best = kids.ranks[0] - start
                    for k in range(1, n):
                        c = kids.ranks[k] - start
                        if mean[c] < mean[best]:
                            best = c
                    for t in range(1, NDIST):
                        per[t] = dist[best, t - 1]
                w = ROLL_W[r] / 36.0
                for t in range(NDIST):
                    dist[i, t] += per[t] * w
            if done:
                break
            for t in range(horizon + 1, NDIST):
                dist[i, horizon] += dist[i, t]
                dist[i, t] = 0.0
            m = 0.0
            for t in range(1, horizon + 1):
                m += t * dist[i, t]
            mean[i] = m
    return done
