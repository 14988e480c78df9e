# Part of fastgen/bearoff/_build.pyx (one extension: the C compiler inlines across the
# files it includes); the names and imports are _build.pyx's.
#
# The plays of bear-off positions for the builders: the core's generate() on capped
# patterns, cached (Children), and the children table of the two-sided builder.


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
