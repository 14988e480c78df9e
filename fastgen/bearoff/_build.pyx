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

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, malloc, realloc, free
from libc.string cimport memcpy, memmove, memset

import numpy as np

from fastgen.errors import InvalidArgumentError

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
cdef int ROLL_I[21]     # the roll's place among the rolls of its kind (doubles, non-doubles)
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
            ROLL_I[r] = a - 1 if a == b else r - a + 1   # doubles 0..5; non-doubles 0..14 in order
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


cdef struct Bucket:     # the cached plays of one capped pattern, every roll of one kind (one cache line)
    uint64_t key          # the capped pattern, 3 bits a point, and the kind (bit 63: doubles)
    uint32_t stamp        # live when equal to the cache's stamp
    uint32_t off          # its first play in the arena; the rolls' lists follow one another
    uint16_t ends[15]     # one past each roll's last play, from off (non-doubles 15, doubles 6)
    uint16_t pad[9]


cdef inline uint64_t suffix_nibbles(const int8_t* a, int P) noexcept nogil:
    """The suffix sums s_j = a[j] + ... + a[P-1] of a position, s_j in nibble j (each <= 15)."""
    cdef int j
    cdef uint64_t s = 0, w = 0
    for j in range(P - 1, -1, -1):
        s += <uint64_t> a[j]
        w |= s << (4 * j)
    return w


cdef enum:
    MIN_ARENA = 1 << 14   # plays: more than the lists of one pattern of each kind can hold


cdef class Children:
    """The plays of bear-off positions, as the children's position numbers, from the core's
    generate(), with the play lists cached by pattern.

    The builders' boards hold the mover's checkers on its home points and nothing else:
    no opposing checker blocks a point or stands to be hit, and every checker is home. A
    step's legality then depends only on which points are occupied (R6 has nothing to
    block, R9 bears off from the exact point or, with nothing above, from the highest),
    and a turn takes at most 2 checkers from a point (4 with a double). So the position
    with every count capped at that number has the same plays, step for step and in the
    same order (generate makes the same decisions), each one's result differing from the
    real one by the checkers the cap removed. Positions sharing a capped pattern share
    one generation: a 6-point database has 729 patterns at cap 2 and 13,126 at cap 4 for
    its 54,264 positions.

    A play is kept as what it takes from each suffix sum (s_j, the checkers on points
    above j: see rank_of), a nibble a point in one 64-bit word (P <= 12, at most 15 per
    nibble). A child's number is then the position's suffix word minus the play's (no
    borrow: a play takes no more than is there), looked up a byte (two points) at a time
    in `pairs`. A bucket (one cache line) holds a pattern's lists for the 15 non-doubles,
    or for the 6 doubles, generated together and stored one after the other. The cache
    is bounded (the arena and bucket counts given) and starts afresh when full;
    doubles=False generates doubles directly instead (their patterns repeat little on
    many points). tests/test_bearoff_children.py checks the capped plays against the
    uncapped ones over every position of 6 points and every roll, and the cache against
    plain generation.

    Use: at(counts) once per position, then plays(r) for each roll.
    """
    cdef Ctx* ctx
    cdef int P
    cdef int npairs              # bytes of a suffix word: ceil(P / 2)
    cdef int64_t pairs[6][256]   # pairs[p][s_2p + 16 s_2p+1]: that byte's share of the number
    cdef Bucket* table
    cdef int64_t slots           # buckets, a power of 2
    cdef int slot_bits
    cdef int64_t keys            # live buckets
    cdef uint32_t stamp
    cdef uint64_t* arena         # the plays' suffix words
    cdef int64_t arena_cap       # in plays
    cdef int64_t used            # in plays
    cdef int64_t* ranks          # the children's numbers of the last call of plays()
    cdef int64_t ranks_cap
    cdef int doubles             # 1: doubles are cached too
    cdef int8_t counts[16]       # the position of the last at()
    cdef uint64_t top            # its suffix word
    cdef Bucket* cur[2]          # its buckets: non-doubles, doubles
    cdef readonly int64_t hits, misses

    def __cinit__(self, int P, int64_t arena_plays=1 << 20, int slot_bits=15, bint doubles=True):
        cdef int p, lo, hi, j, k, s_j
        cdef int64_t part[2]
        if not 1 <= P <= 12 or arena_plays < MIN_ARENA or arena_plays >= (<int64_t> 1) << 32 or not 4 <= slot_bits <= 30:
            raise InvalidArgumentError(f"Children(P={P}, arena_plays={arena_plays}, slot_bits={slot_bits}): "
                                       f"P runs from 1 to 12, slot_bits from 4 to 30, arena_plays from {MIN_ARENA} to 2**32 - 1")
        self.P = P
        self.npairs = (P + 1) // 2
        self.doubles = doubles
        self.slots = (<int64_t> 1) << slot_bits
        self.slot_bits = slot_bits
        self.stamp = 1
        self.arena_cap = arena_plays
        # rank_of term by term: LEVEL[P][s_0] for point 1, SUFFIX[P - j][s_j] for j >= 1
        for p in range(6):
            for lo in range(16):
                for hi in range(16):
                    for k in range(2):
                        j = 2 * p + k
                        s_j = lo if k == 0 else hi
                        if j >= P:
                            part[k] = 0
                        elif j == 0:
                            part[k] = LEVEL[P][s_j]
                        else:
                            part[k] = SUFFIX[P - j][s_j]
                    self.pairs[p][lo + 16 * hi] = part[0] + part[1]
        self.ctx = ctx_new(0, 4096)
        self.table = <Bucket*> calloc(self.slots, sizeof(Bucket))
        self.arena = <uint64_t*> malloc(arena_plays * sizeof(uint64_t))
        if self.ctx == NULL or self.table == NULL or self.arena == NULL:
            raise MemoryError()

    def __dealloc__(self):
        ctx_free(self.ctx)
        free(self.table)
        free(self.arena)
        free(self.ranks)

    @property
    def arena_bytes(self):
        """The memory the cache holds (arena and buckets), in bytes."""
        return self.arena_cap * sizeof(uint64_t) + self.slots * sizeof(Bucket)

    cdef int room(self, int64_t n) noexcept nogil:
        """Room for n numbers in self.ranks; -1 when memory is short."""
        cdef int64_t* nr
        if n > self.ranks_cap:
            nr = <int64_t*> realloc(self.ranks, n * sizeof(int64_t))
            if nr == NULL:
                return -1
            self.ranks = nr
            self.ranks_cap = n
        return 0

    cdef void forget(self) noexcept nogil:
        """Start afresh: every bucket and the arena free (a 32-bit stamp; cleared on wrap)."""
        self.stamp += 1
        if self.stamp == 0:
            memset(self.table, 0, self.slots * sizeof(Bucket))
            self.stamp = 1
        self.keys = 0
        self.used = 0

    cdef int fill(self, Bucket* e, int dbl) noexcept nogil:
        """Generate the plays of the capped pattern of self.counts for every roll of the
        kind (doubles or not) into the arena, their ends into e. 1 when the arena had to
        start afresh (every other bucket is gone), 0, or -1 when memory is short."""
        cdef int8_t board[50]
        cdef int r, k, j, m, i = 0, P = self.P, cap = 4 if dbl else 2
        cdef uint64_t top
        cdef int64_t n = 0
        memset(board, 0, 50)
        for j in range(P):
            board[25 + j] = self.counts[j] if self.counts[j] < cap else cap
        top = suffix_nibbles(board + 25, P)
        for r in range(21):
            if (ROLL_A[r] == ROLL_B[r]) != dbl:
                continue
            self.ctx.n = 0
            m = generate(self.ctx, board, ROLL_A[r], ROLL_B[r])
            if m < 0:
                return -1
            if self.used + n + m > self.arena_cap:
                if self.used == 0:   # cannot happen: MIN_ARENA holds a pattern's lists
                    return -1
                self.forget()   # and again, into the empty arena
                return -1 if self.fill(e, dbl) < 0 else 1
            for k in range(m):
                self.arena[self.used + n + k] = top - suffix_nibbles(<const int8_t*> self.ctx.boards + <int64_t> k * 50 + 25, P)
            n += m
            e.ends[i] = <uint16_t> n
            i += 1
        e.off = <uint32_t> self.used
        self.used += n
        return 0

    cdef Bucket* bucket(self, int dbl, int* reset) noexcept nogil:
        """The bucket of self.counts' pattern for the kind, filled on a miss (NULL when
        memory is short); *reset is set when the cache started afresh meanwhile."""
        cdef int j, cap = 4 if dbl else 2, got
        cdef uint64_t key = (<uint64_t> dbl) << 63
        cdef int64_t s, s0
        cdef Bucket* e
        cdef Bucket made
        for j in range(self.P):
            key |= (<uint64_t> (self.counts[j] if self.counts[j] < cap else cap)) << (3 * j)
        s0 = <int64_t> ((key * <uint64_t> 0x9E3779B97F4A7C15) >> (64 - self.slot_bits))
        s = s0
        e = &self.table[s]
        while e.stamp == self.stamp and e.key != key:
            s = (s + 1) & (self.slots - 1)
            e = &self.table[s]
        if e.stamp == self.stamp:
            self.hits += 1
            return e
        self.misses += 1
        if 4 * (self.keys + 1) > 3 * self.slots:   # the table is full: start afresh
            self.forget()
            reset[0] = 1
            e = &self.table[s0]
        got = self.fill(&made, dbl)
        if got < 0:
            return NULL
        if got:   # the arena started afresh: so did the table, where s0 is now free
            reset[0] = 1
            e = &self.table[s0]
        e.off = made.off
        memcpy(e.ends, made.ends, sizeof(made.ends))
        e.key = key
        e.stamp = self.stamp
        self.keys += 1
        return e

    cdef int at(self, const int8_t* counts) noexcept nogil:
        """Make the position `counts` (P points) the current one; -1 when memory is short."""
        cdef int reset = 0
        memset(self.counts, 0, 16)
        memcpy(self.counts, counts, self.P)
        self.top = suffix_nibbles(self.counts, self.P)
        self.cur[0] = self.bucket(0, &reset)
        if self.cur[0] == NULL:
            return -1
        if self.doubles:
            reset = 0
            self.cur[1] = self.bucket(1, &reset)
            if self.cur[1] == NULL:
                return -1
            if reset:   # the non-doubles' bucket went with the rest: again (fits after a reset)
                self.cur[0] = self.bucket(0, &reset)
                if self.cur[0] == NULL:
                    return -1
        return 0

    cdef int64_t direct(self, int r) noexcept nogil:
        """plays(r) without the cache: generate from the position itself."""
        cdef int8_t board[50]
        cdef int64_t m, k
        memset(board, 0, 50)
        memcpy(board + 25, self.counts, self.P)
        self.ctx.n = 0
        m = generate(self.ctx, board, ROLL_A[r], ROLL_B[r])
        if m < 0 or self.room(m) < 0:
            return -1
        for k in range(m):
            self.ranks[k] = rank_of(<const int8_t*> self.ctx.boards + k * 50 + 25, self.P)
        return m

    cdef int64_t plays(self, int r) noexcept nogil:
        """The numbers of the children of the current position with roll r, in generation
        order, to self.ranks; returns how many, -1 when memory is short."""
        cdef int dbl = ROLL_A[r] == ROLL_B[r], i = ROLL_I[r], p
        cdef Bucket* e
        cdef const uint64_t* d
        cdef int64_t n, k, v, lo
        cdef uint64_t w
        if dbl and not self.doubles:
            return self.direct(r)
        e = self.cur[dbl]
        lo = e.ends[i - 1] if i > 0 else 0
        n = e.ends[i] - lo
        d = self.arena + e.off + lo
        if self.room(n) < 0:
            return -1
        for k in range(n):
            w = self.top - d[k]
            v = self.pairs[0][w & 255]
            for p in range(1, self.npairs):
                v += self.pairs[p][(w >> (8 * p)) & 255]
            self.ranks[k] = v
        return n


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
              int64_t stop, Children kids, BuildStop flag=None):
    """Fill rows start..stop-1 of the one-sided database of P points (15 checkers).

    dist (N, 32) and mean (N,) hold every row below start already; gdist/gmean likewise
    for the first-checker distribution (a (0, 32) array: not computed), span (N, 2) the
    first and one past the last non-zero entry of each row of dist. cursor (P,) is the
    position of row start and is left at row stop. Returns stop, or the row where a stop
    request ended the work, or -1 when memory is short.
    """
    cdef int gam = gdist.shape[0] > 0
    cdef int64_t tot[NDIST]
    cdef int64_t gtot[NDIST]
    cdef int64_t i, best, gbest, j, m, bm, gm
    cdef int r, k, n, w, nchk, lo, hi
    cdef int64_t* buf
    cdef int never = 0
    cdef const int* stopf = &never if flag is None else &flag.flag
    cdef int64_t done = stop
    with nogil:
        for i in range(start, stop):
            if (i & 1023) == 0 and fg_stopped(stopf):
                done = i
                break
            nchk = 0
            for k in range(P):
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
                if kids.at(<const int8_t*> &cursor[0]) < 0:
                    done = -1
                    break
                for r in range(21):
                    n = kids.plays(r)
                    if n < 0:
                        done = -1
                        break
                    buf = kids.ranks
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


def children_table(int P, int C, int64_t[::1] offsets, Children plays=None):
    """The plays of every position of up to C checkers on P points, for each of the 21 rolls.

    offsets (N * 21 + 1,) is filled; returns the (M,) int32 numbers of the children, the
    plays of position p with roll r being children[offsets[21 p + r]:offsets[21 p + r + 1]],
    found through `plays` (a fresh Children(P) by default).
    """
    cdef int64_t N = offsets.shape[0] // 21
    cdef int8_t cursor[MAXP]
    cdef int64_t i, n, total = 0, kcap = 1 << 16
    cdef int r, k, err = 0
    cdef int64_t* buf
    cdef int32_t* kids = <int32_t*> malloc(kcap * sizeof(int32_t))
    cdef int32_t* nk
    if plays is None:
        plays = Children(P)
    if kids == NULL:
        raise MemoryError()
    with nogil:
        memset(cursor, 0, MAXP)
        offsets[0] = 0
        for i in range(N):
            if plays.at(cursor) < 0:
                err = 1
                break
            for r in range(21):
                n = plays.plays(r)
                if n < 0:
                    err = 1
                    break
                buf = plays.ranks
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
            next_position(cursor, P)
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
