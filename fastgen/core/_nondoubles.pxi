# Part of the compiled core: included into fastgen/core/_core.pyx (one extension, so
# the C compiler can inline across files); the names and imports are _core.pyx's.
#
# Writing the plays of a non-double (R11, R13): larger die first, then smaller,
# with the dedup table only where two sequences can meet.


# ---------------------------------------------------------------- non-doubles

cdef inline int hop_is_new(Ctx* c, int f, int t, int a) noexcept nogil:
    """Order 2 after an on-board step f -> t by the smaller die, with no bar and no
    bear-off possible, once a two-dice play is known: only the checker on t moving on by
    a (to t - a) can give a new play (see gen_nondouble). 1 when it does, worked out from
    the masks without moving and without the dedup table: order 1 already produced the
    same position with the same hits when a checker of the mover stood on t (it moved by
    a first, then f's checker by b), or when f - a is open and neither f - a nor t holds
    a blot (the same checker by a then b); any other sequence changes other points."""
    cdef int t2 = t - a
    if t2 < 0 or (c.blocked >> t2) & 1 or c.b[OWN + t]:
        return 0
    return ((c.blocked | c.blots) >> (f - a)) & 1 or (c.blots >> t) & 1


cdef int write_hop(Ctx* c, int f, int t, int t2) noexcept nogil:
    """Write the play f -> t -> t2 (both on board, legal) of the working position."""
    cdef int8_t* dst
    if ensure_room(c) < 0:
        return -1
    memset(c.moves + c.n * MOVE_BYTES, -1, MOVE_BYTES)
    dst = c.moves + c.n * MOVE_BYTES
    dst[0] = f + 1
    dst[1] = t + 1
    dst[2] = t + 1
    dst[3] = t2 + 1
    dst = c.boards + c.n * BOARD_BYTES
    memcpy(dst, c.b, BOARD_BYTES)
    dst[OWN + f] -= 1
    dst[OWN + t2] += 1
    if (c.blots >> t) & 1:  # R7: each landing point's blot goes to the bar
        dst[23 - t] = 0
        dst[24] += 1
    if (c.blots >> t2) & 1:
        dst[23 - t2] = 0
        dst[24] += 1
    c.n += 1
    return 0


cdef inline int order1_onboard(Ctx* c, int f, int t, int b, int simple) noexcept nogil:
    """Order 1 after an on-board first step f -> t with no bar and no bear-off possible
    after it: the same plays, in the same order, as the general loop of gen_nondouble
    (record, record_step), written from a local copy of the board after the first step
    (no do/undo) in one tight loop whose state the output stores cannot alias. Returns
    -1 when memory is short."""
    cdef int8_t w[50]
    cdef uint64_t mw
    cdef int hit
    cdef uint32_t occ2, m2, plain
    cdef uint64_t k[2]
    cdef uint64_t q[2]
    cdef int f2, t2
    cdef int64_t n
    cdef int8_t* dst
    cdef int8_t* boards
    cdef int8_t* moves
    memcpy(w, c.b, BOARD_BYTES)
    w[OWN + f] -= 1
    w[OWN + t] += 1
    hit = w[23 - t] == 1
    if hit:  # R7: the first step hits
        w[23 - t] = 0
        w[24] += 1
    occ2 = (c.occ & ~((1u << f) if w[OWN + f] == 0 else 0)) | (1u << t)
    m2 = occ2 & ~(c.blocked << b) & (POINTS << b) & POINTS  # on-board second steps (R6)
    if m2 == 0 or not simple:
        # the key after the first step: for the table (never needed in a simple turn
        # with a second step)
        k[0] = c.ka
        k[1] = c.kb
        key_move(k, f, t)
        if hit:
            k[1] ^= hit_bit(t)
    if m2 == 0:
        if admit(c, 1, k[0], k[1], 0):
            if ensure_room(c) < 0:
                return -1
            memcpy(c.boards + c.n * BOARD_BYTES, w, BOARD_BYTES)
            fg_put_moves(c.moves + c.n * MOVE_BYTES, (<uint64_t> -1 << 16) | fg_step_word(0, f + 1, t + 1))
            c.n += 1
        return 0
    # the two-step move lists as words (see fg_put_moves): mw + f2 * 0x1010000 has the
    # second step (f2 + 1, f2 + 1 - b) in bytes 2 and 3 (exact sums, no carry)
    mw = (<uint64_t> 0xFFFFFFFF00010000u - (<uint64_t> (b - 1) << 24)) + <uint64_t> (f + 1) + (<uint64_t> (t + 1) << 8)
    if c.best < 2:
        c.best = 2  # two dice beat anything kept so far (R11)
        c.n = c.base
        new_table(c)
    n = c.n
    if n + 24 > c.cap and grow(c, n + 24) < 0:  # room for any m2 (24 points at most)
        return -1
    boards = c.boards
    moves = c.moves
    # Pairs that need the table: see gen_nondouble.
    plain = m2 & ~((1u << t) | ((1u << (f + b)) if f + b < 24 else 0))
    if simple:
        # No bar, no bear-off all turn: the hop and the swap are decided by rule, as in
        # count_after_first, and nothing needs the table.
        if f + b < 24 and not ((c.blocked | c.blots) >> (t + b)) & 1:
            m2 &= ~(1u << (f + b))  # the swap repeats order 1's hop from f + b
        plain = m2
    while m2:
        f2 = fg_highest(m2)
        m2 &= ~(1u << f2)
        t2 = f2 - b
        if not (plain >> f2) & 1:
            q[0] = k[0]
            q[1] = k[1]
            key_move(q, f2, t2)
            if w[23 - t2] == 1:
                q[1] ^= hit_bit(t2)
            if seen(c, q[0], q[1]):
                continue
        dst = boards + n * BOARD_BYTES
        memcpy(dst, w, BOARD_BYTES)
        dst[OWN + f2] -= 1
        dst[OWN + t2] += 1
        if w[23 - t2] == 1:
            dst[23 - t2] = 0
            dst[24] += 1
        fg_put_moves(moves + n * MOVE_BYTES, mw + <uint64_t> f2 * 0x1010000u)
        n += 1
    c.n = n
    return 0


cdef int gen_nondouble(Ctx* c, int a, int b) noexcept nogil:
    """Plays of the roll a-b, a > b (R11, R13)."""
    cdef uint32_t m1, m2, plain
    cdef uint64_t pw
    cdef int f, t, f2, hit
    cdef int bar0 = c.occ & BAR_BIT
    cdef int larger_alone
    cdef int simple = not bar0 and c.outside >= 3  # no bar, no bear-off all turn

    # Order 1: the larger die, then the smaller.
    m1 = step_sources(c, a)
    while m1:
        f = fg_highest(m1)
        m1 &= ~(1u << f)
        t = f - a if f >= a else -1
        if c.count_only and not bar0 and t >= 0 and c.outside - (f >= 6 and t < 6) > 0:
            count_after_first(c, f, t, b, simple)  # no bar, no bear-off: no need to move
            continue
        if not bar0 and t >= 0 and c.outside - (f >= 6 and t < 6) > 0:
            if order1_onboard(c, f, t, b, simple) < 0:  # the same, written without moving
                return -1
            continue
        hit = do_step(c, f, t)
        pw = (<uint64_t> -1 << 16) | fg_step_word(0, f + 1, t + 1)  # the path so far (a word in a register)
        m2 = step_sources(c, b)
        if m2 == 0:
            if record(c, 1, pw) < 0:
                return -1
        plain = 0
        if not bar0 and t >= 0:
            # Two on-board steps by different checkers, neither landing where the other
            # started, give a position no other sequence gives: the same two steps in the
            # other order are skipped by order 2 below, and any other pair, a hop or a
            # bear-off changes other points. Only the rest need the dedup table.
            plain = m2 & ~((1u << t) | ((1u << b) - 1) | ((1u << (f + b)) if f + b < 24 else 0))
            if c.count_only:
                if plain and admit(c, 2, 0, 0, 1):
                    c.n += fg_popcount24(plain)
                m2 &= ~plain
        while m2:  # highest source first, the same order whether a step needs the table
            f2 = fg_highest(m2)
            m2 &= ~(1u << f2)
            if record_step(c, 1, f2, b, (plain >> f2) & 1, pw) < 0:
                return -1
        undo_step(c, f, t, hit)
    # R13: if the larger die alone was playable and no two-dice play exists, only the
    # larger die's plays are legal: the smaller die's single steps are not kept.
    larger_alone = c.best == 1

    # Order 2: the smaller die, then the larger.
    m1 = step_sources(c, b)
    while m1:
        f = fg_highest(m1)
        m1 &= ~(1u << f)
        t = f - b if f >= b else -1
        if c.best == 2 and not bar0 and t >= 0 and c.outside - (f >= 6 and t < 6) > 0:
            # As the restriction below, without moving: only a hop can be new.
            if hop_is_new(c, f, t, a):
                if c.count_only:
                    c.n += 1
                elif write_hop(c, f, t, t - a) < 0:
                    return -1
            continue
        hit = do_step(c, f, t)
        pw = (<uint64_t> -1 << 16) | fg_step_word(0, f + 1, t + 1)  # the path so far (a word in a register)
        m2 = step_sources(c, a)
        if m2 == 0:
            if not larger_alone and record(c, 1, pw) < 0:
                return -1
        elif c.best == 2 and not bar0 and t >= 0:
            # Order 1 already produced every pair of on-board steps taken from the
            # original position (any such pair is legal in either order here, with no
            # bar and no bear-off involved). New plays need the checker that just
            # landed to move on, or a bear-off.
            m2 &= (1u << t) | ~(POINTS << a)
        while m2:
            f2 = fg_highest(m2)
            m2 &= ~(1u << f2)
            if record_step(c, 1, f2, a, 0, pw) < 0:
                return -1
        undo_step(c, f, t, hit)
    return 0
