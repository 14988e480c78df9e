# Part of the compiled core: included into fastgen/core/_core.pyx (one extension, so
# the C compiler can inline across files); the names and imports are _core.pyx's.
#
# Writing the plays of a double (R12): steps from non-increasing sources, no dedup.


# ---------------------------------------------------------------- doubles

cdef inline uint32_t double_sources(uint32_t occ, int outside, uint32_t blocked, int d, int maxf) noexcept nogil:
    """Sources of the next step of a double: bar first (R8), else sources <= maxf, so
    the steps of a play come from non-increasing sources."""
    if occ & BAR_BIT:
        return BAR_BIT if maxf == 24 and not (blocked >> (24 - d)) & 1 else 0
    return sources_for(occ, outside, blocked, d) & ((2u << maxf) - 1)


cdef inline void board_after(Ctx* c, int8_t* dst, int f, int t, uint32_t hits) noexcept nogil:
    """dst = the working board with one more checker moved f -> t (t = -1: off; none
    when f < 0) and the blots in `hits`, plus t's, sent to the bar (R7)."""
    cdef int tt
    memcpy(dst, c.b, BOARD_BYTES)
    if f >= 0:
        dst[OWN + f] -= 1
        if t >= 0:
            dst[OWN + t] += 1
            hits |= (1u << t) & c.blots
    while hits:
        tt = fg_highest(hits)
        hits &= ~(1u << tt)
        dst[23 - tt] = 0
        dst[24] += 1


cdef inline int leaf_double(Ctx* c, int depth, int f, int d, uint32_t hits) noexcept nogil:
    """Write the play of a double ending here: the `depth` steps on the path, plus one
    more step of d pips from f when f >= 0. The search moves only the mover's checkers;
    `hits` holds the landing points of the path that held a lone opposing checker (R7),
    applied here. Returns -1 when memory is short."""
    cdef int total = depth + (f >= 0)
    cdef int t = f - d if f >= d else -1
    cdef int8_t* dst
    if total < c.best:
        return 0  # R12: more steps can be played
    if total > c.best:
        c.best = total
        c.n = c.base
    if f >= 0:
        c.path[2 * depth] = f + 1
        c.path[2 * depth + 1] = t + 1
    dst = out_slot(c)
    if f >= 0:
        c.path[2 * depth] = -1
        c.path[2 * depth + 1] = -1
    if dst == NULL:
        return -1
    board_after(c, dst, f, t, hits)
    c.n += 1
    return 0


cdef inline int room_for_four_step(Ctx* c, int k) noexcept nogil:
    """Before writing k four-step plays of a double: four steps beat any shorter play
    written so far (R12), and room for k more plays; -1 when memory is short."""
    if c.best < 4:
        c.best = 4
        c.n = c.base
    if c.n + k > c.cap and grow(c, c.n + k) < 0:
        return -1
    return 0


cdef int last_steps_double(Ctx* c, int d, uint32_t m, uint32_t hits) noexcept nogil:
    """Write the four-step plays that end with one step from each source in m (three
    steps are on the path): one tight loop, room made once."""
    cdef int k = fg_popcount(m)
    cdef int f, t
    cdef int8_t* dst
    cdef int8_t* mv
    if room_for_four_step(c, k) < 0:
        return -1
    dst = c.boards + c.n * BOARD_BYTES
    mv = c.moves + c.n * MOVE_BYTES
    while m:
        f = fg_highest(m)
        m &= ~(1u << f)
        t = f - d if f >= d else -1
        board_after(c, dst, f, t, hits)
        memcpy(mv, c.path, 6)
        mv[6] = f + 1
        mv[7] = t + 1
        dst += BOARD_BYTES
        mv += MOVE_BYTES
    c.n += k
    return 0


cdef int last_two_double(Ctx* c, int d, uint32_t m2, uint32_t hits) noexcept nogil:
    """The plays of a double after two steps (on the path and the working board), when
    neither the bar nor a bear-off can take part (no checker on the bar, two or more
    outside home: each step takes at most one home): the third step from each source f2
    in m2, then the fourth from the sources left at or below f2, worked out from the masks
    (as count_double counts them: no recursion, no source recomputation), the third step
    applied to the working board only while its plays are written; in the order of
    write_double and last_steps_double: the same plays, boards and move lists."""
    cdef uint32_t ok = ~(c.blocked << d) & (POINTS << d) & POINTS  # steps that land open (R6)
    cdef uint32_t m3, h2, hh
    cdef int f2, t2, f3, t3, tt, k
    cdef uint64_t w2
    cdef uint64_t base = (<uint64_t> <uint8_t> c.path[0] | (<uint64_t> <uint8_t> c.path[1] << 8)
                          | (<uint64_t> <uint8_t> c.path[2] << 16) | (<uint64_t> <uint8_t> c.path[3] << 24))
    cdef int8_t* dst
    cdef int8_t* mv
    while m2:
        f2 = fg_highest(m2)
        m2 &= ~(1u << f2)
        t2 = f2 - d  # on the board: no bear-off
        # sources of the fourth step: f2 is left when its checker was not alone, t2 is
        # now occupied; at or below f2 (non-increasing), landing open
        m3 = (((c.occ & ~(<uint32_t> (c.b[OWN + f2] == 1) << f2)) | (1u << t2)) & ok) & ((2u << f2) - 1)
        w2 = base | (<uint64_t> (f2 + 1) << 32) | (<uint64_t> (t2 + 1) << 40)
        if m3 == 0:  # a three-step play (leaf_double)
            if c.best > 3:
                continue  # R12: more steps can be played
            if c.best < 3:
                c.best = 3
                c.n = c.base
            if ensure_room(c) < 0:
                return -1
            board_after(c, c.boards + c.n * BOARD_BYTES, f2, t2, hits)
            fg_put_moves(c.moves + c.n * MOVE_BYTES, w2 | (<uint64_t> 0xFFFF << 48))
            c.n += 1
            continue
        k = fg_popcount24(m3)
        if room_for_four_step(c, k) < 0:
            return -1
        dst = c.boards + c.n * BOARD_BYTES
        mv = c.moves + c.n * MOVE_BYTES
        h2 = hits | ((1u << t2) & c.blots)
        c.n += k
        c.b[OWN + f2] -= 1  # the third step on the working board for its leaves (undone below)
        c.b[OWN + t2] += 1
        while m3:
            f3 = fg_highest(m3)
            m3 &= ~(1u << f3)
            t3 = f3 - d
            memcpy(dst, c.b, BOARD_BYTES)
            dst[OWN + f3] -= 1
            dst[OWN + t3] += 1
            hh = h2 | ((1u << t3) & c.blots)
            while hh:  # R7: each blot landed on goes to the bar
                tt = fg_highest(hh)
                hh &= ~(1u << tt)
                dst[23 - tt] = 0
                dst[24] += 1
            fg_put_moves(mv, w2 | (<uint64_t> (f3 + 1) << 48) | (<uint64_t> (t3 + 1) << 56))
            dst += BOARD_BYTES
            mv += MOVE_BYTES
        c.b[OWN + f2] += 1
        c.b[OWN + t2] -= 1
    return 0


cdef int second_step_double(Ctx* c, int d, uint32_t m, uint32_t hits) noexcept nogil:
    """write_double after one step, with no checker on the bar and three or more outside
    home (so no bear-off in the three steps left): the second step from each source in
    m, then the sources of the third worked out from the masks and handed straight to
    last_two_double (or the two-step play written): the same plays in the same order."""
    cdef uint32_t ok = ~(c.blocked << d) & (POINTS << d) & POINTS  # steps that land open (R6)
    cdef uint32_t occ0 = c.occ
    cdef uint32_t m2, h
    cdef int out0 = c.outside
    cdef int f, t, r
    while m:
        f = fg_highest(m)
        m &= ~(1u << f)
        t = f - d  # on the board: no bear-off
        c.b[OWN + f] -= 1
        c.b[OWN + t] += 1
        c.occ = (occ0 & ~(<uint32_t> (c.b[OWN + f] == 0) << f)) | (1u << t)
        c.outside = out0 - (f >= 6 and t < 6)
        c.path[2] = f + 1
        c.path[3] = t + 1
        m2 = c.occ & ok & ((2u << f) - 1)  # non-increasing
        h = hits | ((1u << t) & c.blots)
        if m2:
            r = last_two_double(c, d, m2, h)
        else:
            r = leaf_double(c, 2, -1, d, h)
        c.b[OWN + f] += 1
        c.b[OWN + t] -= 1
        if r < 0:
            c.occ = occ0
            c.outside = out0
            return -1
    c.occ = occ0
    c.outside = out0
    c.path[2] = -1  # keep unused steps at -1
    c.path[3] = -1
    return 0


cdef int write_double(Ctx* c, int d, int depth, int maxf, uint32_t hits) noexcept nogil:
    """Plays of a double: steps of d pips from sources <= maxf, non-increasing, so every
    play is produced once (R12, no permutations). Moves the mover's checkers only;
    `hits` collects the blots landed on so far."""
    cdef uint32_t m, occ0
    cdef int f, t, out0, r
    if c.b[OWN + 24]:  # R8: bar first
        m = 0 if maxf != 24 or (c.blocked >> (24 - d)) & 1 else BAR_BIT
    else:
        m = sources_for(c.occ, c.outside, c.blocked, d) & ((2u << maxf) - 1)
    if m == 0:
        return leaf_double(c, depth, -1, d, hits)
    if depth == 3:
        return last_steps_double(c, d, m, hits)
    if depth == 2 and c.outside >= 2 and not c.b[OWN + 24]:
        return last_two_double(c, d, m, hits)
    if depth == 1 and c.outside >= 3 and not c.b[OWN + 24]:
        return second_step_double(c, d, m, hits)
    while m:
        f = fg_highest(m)
        m &= ~(1u << f)
        t = f - d if f >= d else -1
        occ0 = c.occ
        out0 = c.outside
        c.b[OWN + f] -= 1
        if c.b[OWN + f] == 0:
            c.occ &= ~(1u << f)
        if t >= 0:
            c.b[OWN + t] += 1
            c.occ |= 1u << t
            if f >= 6 and t < 6:
                c.outside -= 1
        c.path[2 * depth] = f + 1
        c.path[2 * depth + 1] = t + 1
        r = write_double(c, d, depth + 1, f, hits | (((1u << t) & c.blots) if t >= 0 else 0))
        c.b[OWN + f] += 1
        if t >= 0:
            c.b[OWN + t] -= 1
        c.occ = occ0
        c.outside = out0
        if r < 0:
            return -1
    c.path[2 * depth] = -1  # keep unused steps at -1
    c.path[2 * depth + 1] = -1
    return 0
