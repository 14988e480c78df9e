# Part of the compiled core: included into fastgen/core/_core.pyx (one extension, so
# the C compiler can inline across files); the names and imports are _core.pyx's.
#
# Counting plays without writing them: doubles by search and closed forms,
# non-doubles in closed form, bear-offs by table, and the Counter that runs them.


# ---------------------------------------------------------------- counting doubles

cdef inline void mask_step(const int8_t* own, int f, int d, uint32_t* occ, int* outside,
                           uint32_t* ones) noexcept nogil:
    """What one legal step of d pips from f does to the occupancy mask, the count of
    checkers outside home and the mask of points holding exactly one checker, read from
    the mover's row `own` before the step (left as it is); branch-free."""
    cdef int t, n = own[f]
    occ[0] &= ~(<uint32_t> (n == 1) << f)
    ones[0] = (ones[0] & ~(1u << f)) | (<uint32_t> (n == 2) << f)
    if f >= d:
        t = f - d
        occ[0] |= 1u << t
        ones[0] = (ones[0] & ~(1u << t)) | (<uint32_t> (own[t] == 0) << t)
        outside[0] -= (f >= 6) & (t < 6)


cdef inline void count_leaf(int depth, int* best, int64_t* count, int64_t k) noexcept nogil:
    """k plays of `depth` steps: counted unless a longer play exists (R12)."""
    if depth > best[0]:
        best[0] = depth
        count[0] = 0
    if depth == best[0]:
        count[0] += k


cdef inline void count_last_three(uint32_t m, uint32_t occ, uint32_t ones, uint32_t twos, uint32_t ok, int d,
                                  int* best, int64_t* count) noexcept nogil:
    """Counting a double: the plays of its last three steps after the first, from the
    sources m (bit f: a step of d from f is legal, f at or below the first step's source),
    in closed form, with no checker on the bar and at least three outside home (so no
    bear-off can come into them). `occ`: the occupied points, `ones` and `twos` those
    holding exactly one and two checkers, `ok` the points whose step of d lands open.

    A second step from f1 (y-th source from the bottom of m) leaves y + e(f1) sources for
    the third, e = 1 when f1 - d becomes a new source (empty and in ok: N) and -1 when f1
    loses its last checker (O), and count_double's two-step closed form gives the plays
    after it from those sources and their singles and new-source cases, which change only
    at f1 and f1 - d. Summed over f1 these are sums of ranks over O and N, so only their
    points are visited."""
    cdef uint32_t O = m & ones
    cdef uint32_t nall = ((ok & ~occ) << d) & POINTS   # x - d empty and in ok
    cdef uint32_t N = m & nall
    cdef uint32_t x = O | N
    cdef int64_t k = fg_popcount24(m)
    cdef int64_t t, y, r, three
    cdef int f
    # sum over f1 of: y(y+1)/2 (two-step plays from y sources), e's correction, less the
    # singles among the sources left, plus the new sources among them
    t = (k * (k + 1) * (k + 2)) // 6 + fg_popcount24(O) - fg_popcount24(m & twos) \
        + fg_popcount24(m & (O << d)) - 2 * fg_popcount24(N) + fg_popcount24(N & (nall << d))
    three = (k * (k + 1)) // 2
    while x:
        f = fg_highest(x)
        x &= ~(1u << f)
        y = fg_popcount24(m & ((2u << f) - 1))  # sources at or below f
        r = k - y + 1                           # sources at or above f
        if (O >> f) & 1:
            t -= r
            if not (N >> f) & 1:
                t -= y
                three -= 1
        if (N >> f) & 1:
            t += r
            if not (O >> f) & 1:
                t += y + 1
                three += 1
    if t:
        count_leaf(4, best, count, t)
    elif three:
        count_leaf(3, best, count, three)
    else:
        count_leaf(2, best, count, k)


cdef void count_double(Ctx* c, int d, int* best, int64_t* count) noexcept nogil:
    """Counting a double: the search of write_double on the mover's row only (no keys,
    no opponent: for one die value every play is produced once), copy-make, the last two
    steps counted without moving. Sets *best to the most steps playable and *count to
    the plays using that many (R12).

    The last two steps in closed form, when no bar and no bear-off can be involved: the
    sources of the fourth step after a third from f2 are those of the third at or below
    f2 (k, k-1, ..., 1 of them down the k sources of m2), less f2 when its checker was
    alone, plus f2 - d when that point was empty and a source itself (its step lands
    open)."""
    cdef int8_t o0[25]
    cdef int8_t o1[25]
    cdef uint32_t blocked = c.blocked
    cdef uint32_t m0, m1, m2, m3, occ1, occ2, occ3, ones0, ones1, ones2, twos0, twos1
    cdef int f0, f1, f2, t2, out1, out2, out3
    cdef int64_t k, s
    cdef uint32_t ok = ~(blocked << d) & (POINTS << d) & POINTS  # sources whose step lands open (R6)
    memcpy(o0, c.b + OWN, 25)
    best[0] = 0
    count[0] = 0
    m0 = double_sources(c.occ, c.outside, blocked, d, 24)
    if m0 == 0:
        count[0] = 1  # R14: no step at all
        return
    ones0 = ((fg_nonzero8(fg_load8(o0)) & ~fg_atleast2_8(fg_load8(o0)))
             | ((fg_nonzero8(fg_load8(o0 + 8)) & ~fg_atleast2_8(fg_load8(o0 + 8))) << 8)
             | ((fg_nonzero8(fg_load8(o0 + 16)) & ~fg_atleast2_8(fg_load8(o0 + 16))) << 16)
             | (<uint32_t> (o0[24] == 1) << 24))
    twos0 = ((fg_atleast2_8(fg_load8(o0)) & ~fg_atleast3_8(fg_load8(o0)))
             | ((fg_atleast2_8(fg_load8(o0 + 8)) & ~fg_atleast3_8(fg_load8(o0 + 8))) << 8)
             | ((fg_atleast2_8(fg_load8(o0 + 16)) & ~fg_atleast3_8(fg_load8(o0 + 16))) << 16))
    while m0:
        f0 = fg_highest(m0)
        m0 &= ~(1u << f0)
        occ1 = c.occ
        out1 = c.outside
        ones1 = ones0
        mask_step(o0, f0, d, &occ1, &out1, &ones1)
        m1 = double_sources(occ1, out1, blocked, d, f0)
        if m1 == 0:
            count_leaf(1, best, count, 1)
            continue
        if out1 >= 3 and not occ1 & BAR_BIT:
            # the last three steps in closed form (see count_last_three)
            twos1 = twos0 & ~(1u << f0)
            if o0[f0] == 3:
                twos1 |= 1u << f0
            if f0 >= d:
                twos1 = (twos1 & ~(1u << (f0 - d))) | (<uint32_t> (o0[f0 - d] == 1) << (f0 - d))
            count_last_three(m1, occ1, ones1, twos1, ok, d, best, count)
            continue
        memcpy(o1, o0, 25)  # the row after the first step, for the loops below
        o1[f0] -= 1
        if f0 >= d:
            o1[f0 - d] += 1
        while m1:
            f1 = fg_highest(m1)
            m1 &= ~(1u << f1)
            occ2 = occ1
            out2 = out1
            ones2 = ones1
            mask_step(o1, f1, d, &occ2, &out2, &ones2)  # the third level needs no row
            m2 = double_sources(occ2, out2, blocked, d, f1)
            if m2 == 0:
                count_leaf(2, best, count, 1)
                continue
            if out2 >= 2 and not occ2 & BAR_BIT:
                k = fg_popcount24(m2)
                s = (k * (k + 1)) // 2 - fg_popcount24(m2 & ones2) + fg_popcount24(m2 & ((ok & ~occ2) << d) & POINTS)
                if s:
                    count_leaf(4, best, count, s)
                else:
                    count_leaf(3, best, count, k)
                continue
            while m2:
                f2 = fg_highest(m2)
                m2 &= ~(1u << f2)
                occ3 = (occ2 & ~(1u << f2)) if (ones2 >> f2) & 1 else occ2
                out3 = out2
                if f2 >= d:
                    t2 = f2 - d
                    occ3 |= 1u << t2
                    if f2 >= 6 and t2 < 6:
                        out3 -= 1
                m3 = double_sources(occ3, out3, blocked, d, f2)
                if m3:
                    count_leaf(4, best, count, fg_popcount(m3))
                else:
                    count_leaf(3, best, count, 1)


# ---------------------------------------------------------------- counting non-doubles


cdef void count_after_first(Ctx* c, int f, int t, int b, int simple) noexcept nogil:
    """Counting only: order 1 after a first on-board step f -> t with no bar and no
    bear-off possible afterwards, worked out from the masks and keys without moving.
    Same plays as the general loop of gen_nondouble, in the same admission order rules.

    `simple`: no bar and no bear-off anywhere in this generation. Then the two second
    steps that need the table in general are decided by rule: the hop (t moving on) is
    always new here (the only other sequence giving its checkers, from f - b, comes
    later), and the swap (f + b onto f) repeats order 1's hop from f + b exactly when
    that hop was legal with the same hits, i.e. f + b - a is open and holds no blot.
    Nothing needs the table then: order 2 decides by rule too (hop_is_new)."""
    cdef uint32_t occ2, m2, plain, special
    cdef uint64_t k[2]
    cdef uint64_t q[2]
    cdef int f2, t2, n2
    occ2 = (c.occ & ~((1u << f) if c.b[OWN + f] == 1 else 0)) | (1u << t)
    m2 = occ2 & ~(c.blocked << b) & (POINTS << b) & POINTS  # on-board second steps (R6)
    if simple and m2:
        n2 = fg_popcount24(m2)
        if f + b < 24 and (m2 >> (f + b)) & 1 and not ((c.blocked | c.blots) >> (t + b)) & 1:
            n2 -= 1  # the swap: f + b - a = t + b
        if admit(c, 2, 0, 0, 1):
            c.n += n2
        return
    k[0] = c.ka
    k[1] = c.kb
    key_move(k, f, t)
    if c.b[23 - t] == 1:  # R7: the first step hits
        k[1] ^= hit_bit(t)
    if m2 == 0:
        if admit(c, 1, k[0], k[1], 0):
            c.n += 1
        return
    plain = m2 & ~((1u << t) | ((1u << (f + b)) if f + b < 24 else 0))
    if plain and admit(c, 2, 0, 0, 1):
        c.n += fg_popcount24(plain)
    special = m2 & ~plain
    while special:
        f2 = fg_highest(special)
        special &= ~(1u << f2)
        t2 = f2 - b
        q[0] = k[0]
        q[1] = k[1]
        key_move(q, f2, t2)
        if t2 != t and c.b[23 - t2] == 1:
            q[1] ^= hit_bit(t2)
        if admit(c, 2, q[0], q[1], 0):
            c.n += 1


cdef inline int count_simple(uint32_t occ, uint32_t ones, uint32_t blocked, uint32_t blots, int a, int b) noexcept nogil:
    """Counting the non-double a-b (a > b) with no checker on the bar and at least two
    outside home (no bear-off all turn: the first step can bring one of them home, not
    both): the plays of gen_nondouble in closed form, or 0
    when no two-dice play comes from the larger die first (the caller then searches).
    `ones`: the points holding exactly one of the mover's checkers.

    Order 1 (a from f, then b) gives, summed over the sources f of a, the sources of b
    after that step: all of them (B), less f when its checker was alone, plus f - a when
    it was empty and a source of b, less the swap that repeats order 1's hop from f + b
    (count_after_first). Order 2 adds only the hops hop_is_new accepts. With one checker
    outside, these are the plays that bear nothing off; count_one_out_bearoffs counts
    the others."""
    cdef uint32_t A = occ & ~(blocked << a) & (POINTS << a) & POINTS   # sources of a (R6)
    cdef uint32_t okb = ~(blocked << b) & (POINTS << b) & POINTS      # steps of b landing open
    cdef uint32_t B = occ & okb
    cdef int n
    n = (fg_popcount24(A) * fg_popcount24(B) - fg_popcount24(A & B & ones)
         + fg_popcount24(A & ((okb & ~occ) << a) & POINTS)
         - fg_popcount24(A & (B >> b) & ~((blocked | blots) << (a - b))))
    if n == 0:
        return 0
    # order 2: b from f onto an empty t = f - b, then a on to an open t - a, new when
    # f - a is blocked or a blot, or t is a blot
    return n + fg_popcount24(B & ~(occ << b) & ((~blocked & POINTS) << (a + b))
                             & (((blocked | blots) << a) | (blots << b)) & POINTS)


cdef inline int count_from_bar(uint32_t occ, int bar, uint32_t blocked, uint32_t blots, int a, int b) noexcept nogil:
    """Counting the non-double a-b with `bar` checkers on the bar (occ: the points, bar
    excluded), or 0 when no play uses both dice (the caller then searches).

    Two or more on the bar: each die can only enter one (R8), so there is one play.
    One: enter with one die, then the other die from any point (the entered checker's
    included; it is outside home, so no bear-off). The two orders give the same
    position only as the entered checker's hop to 24 - a - b, and only when neither
    entry point holds a blot (the hits would differ)."""
    cdef int ea = not (blocked >> (24 - a)) & 1   # entry points open (R6)
    cdef int eb = not (blocked >> (24 - b)) & 1
    cdef uint32_t oka, okb
    cdef int n = 0
    if bar >= 2:
        return 1
    if ea:  # enter with a, then b from anywhere
        okb = ~(blocked << b) & (POINTS << b) & POINTS
        n += fg_popcount24((occ | (1u << (24 - a))) & okb)
    if eb:  # enter with b, then a
        oka = ~(blocked << a) & (POINTS << a) & POINTS
        n += fg_popcount24((occ | (1u << (24 - b))) & oka)
    if ea and eb and not (blocked >> (24 - a - b)) & 1 and not ((blots >> (24 - a)) | (blots >> (24 - b))) & 1:
        n -= 1  # the hop, reached both ways with the same hits
    return n


cdef inline int bearoff_source(uint32_t occ, int d) noexcept nogil:
    """The point a step of d bears off from with every checker home (R9), or -1."""
    if (occ >> (d - 1)) & 1:
        return d - 1
    if (occ >> (d - 1)) == 0:
        return fg_highest(occ)
    return -1


cdef inline int count_one_out_bearoffs(uint32_t occ, uint32_t blocked, uint32_t blots, int a, int b) noexcept nogil:
    """With one checker outside home (on x, the highest point; no bar), the plays
    count_simple leaves out: the checker comes home with one die and the other die bears
    off (R9), one play for each order at most. Both orders give the same position only
    when each bears that checker off itself, with the same hits (no blot on x - a or
    x - b). Every other play of the turn moves two checkers on the board or hops, as
    count_simple counts them (a bear-off changes the number of checkers, so none of
    those repeats it)."""
    cdef int x = fg_highest(occ)
    cdef int g = -2, h = -2, n = 0
    if x - a < 6 and not (blocked >> (x - a)) & 1:  # home with a, then b bears off
        g = bearoff_source((occ & ~(1u << x)) | (1u << (x - a)), b)
        n += g >= 0
    if x - b < 6 and not (blocked >> (x - b)) & 1:  # home with b, then a bears off
        h = bearoff_source((occ & ~(1u << x)) | (1u << (x - b)), a)
        n += h >= 0
    if g == x - a and h == x - b and not ((blots >> (x - a)) | (blots >> (x - b))) & 1:
        n -= 1
    return n


# ---------------------------------------------------------------- bear-off counts
#
# Counting a non-double with every checker of the mover home (no bar) and no opposing
# checker on or below its highest point: no step can be blocked or hit, so which
# sequences are legal (R9 bear-off by occupancy, a second checker on a point only when it
# holds two) and which give equal positions (the same net change) depend only on whether
# each home point holds 0, 1 or 2+ checkers. The count of all 3**6 such classes for the 15
# non-double rolls is worked out once per process, by the counting search itself (about
# 2 ms with the doubles' table below, when the first Counter is made), and a generation
# of that kind becomes one lookup.

#
# Doubles of 3 and more in the same positions: every step is from a point at or above
# d - 1 (a move within home, or a bear-off from d - 1) while one stands there, then each
# bears off the highest checker left (R9), which is forced. So the plays depend only on
# the counts at d - 1 .. 6, each up to 4 (no play takes more from one point), and on how
# many of the checkers below are left for the forced steps (up to 4): 3,900 classes for
# the four doubles, filled the same way (smaller doubles would need 5**6 classes each).

cdef uint8_t BO_COUNT[15][729]   # [roll (a > b): (a-1)(a-2)/2 + b-1][sum of class(i) * 3**i]
cdef uint8_t BO_DCOUNT[4][3125]  # [d - 3][bo_double_key]
cdef uint16_t BO_T3[64]          # sum of 3**i over the bits i of a 6-bit mask
cdef bint bo_ready = 0
cdef bint bo_building = 0


cdef inline int bo_roll(int a, int b) noexcept nogil:
    """Row of BO_COUNT for the non-double a-b (either order)."""
    if a < b:
        a, b = b, a
    return (a - 1) * (a - 2) // 2 + b - 1


cdef inline int bo_double_key(const int8_t* own, int d) noexcept nogil:
    """Row of BO_DCOUNT[d - 3] for the mover's row `own` (all home): the counts at
    indices 5 down to d - 1, each up to 4, in base 5, then the checkers below, up to 4."""
    cdef int p, n, key = 0, low = 0
    for p in range(5, d - 2, -1):
        n = own[p]
        key = key * 5 + (n if n < 4 else 4)
    for p in range(d - 1):
        low += own[p]
    return key * 5 + (low if low < 4 else 4)


cdef int bearoff_init() except -1:
    """Fill BO_COUNT and BO_DCOUNT (once per process): the counting loop of Counter on
    one board of each class with each roll (a Counter made here does not come back here:
    bo_building)."""
    global bo_ready, bo_building
    cdef int a, b, key, i, r, k
    cdef Py_ssize_t row
    if bo_ready or bo_building:
        return 0
    for i in range(64):
        BO_T3[i] = 0
        r = 1
        for k in range(6):
            if (i >> k) & 1:
                BO_T3[i] += r
            r *= 3
    boards = np.zeros((15 * 729, 2, 25), dtype=np.int8)
    dice = np.zeros((15 * 729, 2), dtype=np.int8)
    counts = np.zeros(15 * 729, dtype=np.int64)
    cdef int8_t[:, :, ::1] bv = boards
    cdef int8_t[:, ::1] dv = dice
    for a in range(2, 7):
        for b in range(1, a):
            r = bo_roll(a, b)
            for key in range(729):
                row = r * 729 + key
                bv[row, 0, 0] = 15  # the opponent, in its home board: no contact
                k = key
                for i in range(6):
                    bv[row, 1, i] = k % 3
                    k //= 3
                dv[row, 0] = a
                dv[row, 1] = b
    # doubles: one board per class of BO_DCOUNT (classes of more than 15 checkers do not
    # occur and stay 0)
    dboards = np.zeros((4 * 3125, 2, 25), dtype=np.int8)
    ddice = np.zeros((4 * 3125, 2), dtype=np.int8)
    dcounts = np.zeros(4 * 3125, dtype=np.int64)
    cdef int8_t[:, :, ::1] dbv = dboards
    cdef int8_t[:, ::1] ddv = ddice
    cdef int total, nd = 0
    drows = np.zeros(4 * 3125, dtype=np.int32)
    cdef int32_t[::1] drow = drows
    for a in range(3, 7):
        r = 1
        for i in range(8 - a):
            r *= 5
        for key in range(r):
            k = key
            total = k % 5  # the checkers below d - 1, on index 0
            dbv[nd, 1, 0] = k % 5
            k //= 5
            for i in range(a - 1, 6):
                dbv[nd, 1, i] = k % 5
                total += k % 5
                k //= 5
            if total == 0 or total > 15:
                dbv[nd, 1, 0:6] = 0
                continue
            dbv[nd, 0, 0] = 15
            ddv[nd, 0] = a
            ddv[nd, 1] = a
            drow[nd] = (a - 3) * 3125 + key
            nd += 1
    bo_building = 1
    try:
        Counter(boards, dice, counts).count(0, 15 * 729)
        Counter(dboards, ddice, dcounts).count(0, nd)
    finally:
        bo_building = 0
    cdef int64_t[::1] cv = counts
    for row in range(15 * 729):
        c_assert(0 < cv[row] < 256)
        BO_COUNT[row // 729][row % 729] = <uint8_t> cv[row]
    cv = dcounts
    for row in range(nd):
        c_assert(0 < cv[row] < 256)
        BO_DCOUNT[drow[row] // 3125][drow[row] % 3125] = <uint8_t> cv[row]
    bo_ready = 1
    return 0


# ---------------------------------------------------------------- counting batches

cdef Ctx* counting_ctx() except NULL:
    """A counting context, the bear-off tables filled first (once per process)."""
    cdef Ctx* c
    bearoff_init()
    c = ctx_new(1, 16)
    if c == NULL:
        raise MemoryError("fastgen: cannot allocate the generator context")
    # Read under the GIL, so the tables another thread filled are seen whole; 0 while
    # they are being filled (by this thread or another): the search counts then.
    c.tables = bo_ready
    return c


cdef Py_ssize_t count_range(Ctx* c, const int8_t* boards, const int8_t* dice, int own_dice, Py_ssize_t nrolls,
                            int64_t* out, Py_ssize_t lo, Py_ssize_t hi, const int* stop) noexcept nogil:
    """Count the plays of boards lo..hi-1 (50 bytes each), each board checked first (R4).
    With `own_dice`, board i with its own roll dice[2i], dice[2i + 1] into out[i];
    otherwise with each of the `nrolls` rolls in dice into out[i * nrolls + r]. Returns
    -1, or the index of the first invalid board (the counts before it are written);
    stops early when *stop is set (polled between boards)."""
    cdef Py_ssize_t i, r
    cdef const int8_t* b
    for i in range(lo, hi):
        if fg_stopped(stop):
            break
        b = boards + i * BOARD_BYTES
        if board_error(b):
            return i
        if own_dice:
            c.n = 0
            out[i] = generate(c, b, dice[2 * i], dice[2 * i + 1])
        else:
            for r in range(nrolls):
                c.n = 0
                out[i * nrolls + r] = generate(c, b, dice[2 * r], dice[2 * r + 1])
    return -1


cdef class Counter:
    """A counting context for one thread: count(lo, hi) writes counts[lo:hi] (R10 plays
    per position) without the GIL. Ranges can be taken in any order, so threads can share
    a batch dynamically."""
    cdef Ctx* c
    cdef const int8_t[:, :, ::1] boards
    cdef const int8_t[:, ::1] dice
    cdef int64_t[::1] counts

    def __cinit__(self, const int8_t[:, :, ::1] boards, const int8_t[:, ::1] dice, int64_t[::1] counts):
        if dice.shape[0] < boards.shape[0] or counts.shape[0] < boards.shape[0]:
            raise ValueError("Counter: the arrays do not match")
        self.c = counting_ctx()
        self.boards = boards
        self.dice = dice
        self.counts = counts

    def __dealloc__(self):
        ctx_free(self.c)

    def count(self, Py_ssize_t lo, Py_ssize_t hi, StopFlag stop=None):
        """Count positions lo..hi-1; False when one of their boards is invalid (R4).
        Returns early (True, counts incomplete) when `stop` is set."""
        cdef Py_ssize_t bad
        cdef const int* sp = flag_of(stop)
        if lo < 0 or hi > self.boards.shape[0]:
            raise ValueError(f"Counter.count: positions {lo!r}..{hi!r} are not in the batch")
        if hi <= lo:
            return True
        with nogil:
            bad = count_range(self.c, &self.boards[0, 0, 0], &self.dice[0, 0], 1, 0, &self.counts[0], lo, hi, sp)
        return bad < 0
