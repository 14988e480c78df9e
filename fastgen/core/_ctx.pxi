# Part of the compiled core: included into fastgen/core/_core.pyx (one extension, so
# the C compiler can inline across files); the names and imports are _core.pyx's.
#
# The generation context and the steps of a search: context lifetime and output
# buffers, one step on the working board with its key, and the leaves (dedup table,
# admission by dice used, writing a play).


# ---------------------------------------------------------------- context lifetime

cdef Ctx* ctx_new(int count_only, int64_t cap) noexcept nogil:
    """A fresh context, or NULL when memory is short."""
    cdef Ctx* c = <Ctx*> calloc(1, sizeof(Ctx))
    if c == NULL:
        return NULL
    c.count_only = count_only
    c.table = <Slot*> calloc(1 << HASH_BITS, sizeof(Slot))
    if cap < 16:
        cap = 16
    if not count_only:
        c.boards = <int8_t*> malloc(cap * BOARD_BYTES)
        c.moves = <int8_t*> malloc(cap * MOVE_BYTES)
    c.cap = cap
    if not count_only and c.boards != NULL and c.moves != NULL:
        advise_huge(c.boards, cap * BOARD_BYTES)
        advise_huge(c.moves, cap * MOVE_BYTES)
    if (c.table == NULL or (not count_only and (c.boards == NULL or c.moves == NULL))):
        ctx_free(c)
        return NULL
    return c


cdef void ctx_free(Ctx* c) noexcept nogil:
    if c == NULL:
        return
    free(c.table)
    free(c.boards)
    free(c.moves)
    free(c)


cdef void advise_huge(void* p, int64_t nbytes) noexcept nogil:
    """Ask for transparent huge pages on a large output buffer: a batch writes tens of
    MB of fresh memory, and 4 KiB page faults were a third of its time. Advisory only."""
    cdef uintptr_t start, end
    if nbytes < (4 << 20):
        return
    start = (<uintptr_t> p + 4095) & ~(<uintptr_t> 4095)
    end = (<uintptr_t> p + <uintptr_t> nbytes) & ~(<uintptr_t> 4095)
    if end > start:
        fg_advise_huge(<void*> start, end - start)


cdef inline int ensure_room(Ctx* c) noexcept nogil:
    """Make room for one more play; -1 when memory is short (buffers left intact)."""
    if c.n < c.cap:
        return 0
    return grow(c, c.n + 1)


cdef int grow(Ctx* c, int64_t need) noexcept nogil:
    """Grow the output buffers to hold at least `need` plays (by half again, at least);
    -1 when memory is short or the buffers are borrowed (fixed)."""
    cdef int64_t cap
    cdef int8_t* nb
    cdef int8_t* nm
    if need <= c.cap:
        return 0
    if c.fixed:
        return -1
    cap = c.cap + (c.cap >> 1) + 64
    if cap < need:
        cap = need
    nb = <int8_t*> realloc(c.boards, cap * BOARD_BYTES)
    if nb == NULL:
        return -1
    c.boards = nb
    nm = <int8_t*> realloc(c.moves, cap * MOVE_BYTES)
    if nm == NULL:
        return -1
    c.moves = nm
    c.cap = cap
    advise_huge(c.boards, cap * BOARD_BYTES)
    advise_huge(c.moves, cap * MOVE_BYTES)
    return 0


cdef void new_table(Ctx* c) noexcept nogil:
    """Forget every key in O(1): bump the stamp (64 bits: it never wraps)."""
    c.stamp += 1


# ---------------------------------------------------------------- one step

cdef inline uint64_t nibble(int i) noexcept nogil:
    return (<uint64_t> 1) << (4 * (i & 15))


cdef inline uint64_t hit_bit(int t) noexcept nogil:
    return (<uint64_t> 1) << (36 + t)


cdef inline uint32_t sources_for(uint32_t occ, int outside, uint32_t blocked, int d) noexcept nogil:
    """Bit f set when a step of d pips from index f is legal, with no checker on the bar:
    occupancy `occ`, `outside` checkers not home, `blocked` points (R6, R9)."""
    cdef uint32_t m
    # On-board steps land on index f-d >= 0, which must not be blocked (R6).
    m = occ & ~(blocked << d) & (POINTS << d) & POINTS
    if outside == 0 and occ:
        # R9 bear-off, judged before this step: exact from index d-1, or from the
        # highest occupied point when nothing stands on d-1 or above.
        if (occ >> (d - 1)) & 1:
            m |= 1u << (d - 1)
        elif (occ >> (d - 1)) == 0:
            m |= 1u << fg_highest(occ)
    return m


cdef inline uint32_t step_sources(Ctx* c, int d) noexcept nogil:
    """Bit f set when a step of d pips from index f is legal now (bit 24 = the bar)."""
    if c.occ & BAR_BIT:
        # R8: only the bar may move; it enters on my point 25-d, index 24-d (R6).
        return 0 if (c.blocked >> (24 - d)) & 1 else BAR_BIT
    return sources_for(c.occ, c.outside, c.blocked, d)


cdef inline int do_step(Ctx* c, int f, int t) noexcept nogil:
    """Move one checker from index f to t (-1 = off); returns 1 when it hit a blot (R7)."""
    cdef int hit = 0
    c.b[OWN + f] -= 1
    if c.b[OWN + f] == 0:
        c.occ &= ~(1u << f)
    if f < 16:
        c.ka -= nibble(f)
    else:
        c.kb -= nibble(f)
    if t >= 0:
        if c.b[23 - t] == 1:  # R7: the blot goes to the opponent's bar
            c.b[23 - t] = 0
            c.b[24] += 1
            c.kb ^= hit_bit(t)
            hit = 1
        c.b[OWN + t] += 1
        c.occ |= 1u << t
        if t < 16:
            c.ka += nibble(t)
        else:
            c.kb += nibble(t)
        if f >= 6 and t < 6:
            c.outside -= 1
    return hit


cdef inline void undo_step(Ctx* c, int f, int t, int hit) noexcept nogil:
    if t >= 0:
        if f >= 6 and t < 6:
            c.outside += 1
        c.b[OWN + t] -= 1
        if c.b[OWN + t] == 0:
            c.occ &= ~(1u << t)
        if t < 16:
            c.ka -= nibble(t)
        else:
            c.kb -= nibble(t)
        if hit:
            c.b[23 - t] = 1
            c.b[24] -= 1
            c.kb ^= hit_bit(t)
    c.b[OWN + f] += 1
    c.occ |= 1u << f
    if f < 16:
        c.ka += nibble(f)
    else:
        c.kb += nibble(f)


cdef inline void key_move(uint64_t* k, int f, int t) noexcept nogil:
    """Key arithmetic of one checker moving from index f to on-board index t."""
    k[0 if f < 16 else 1] -= nibble(f)
    k[0 if t < 16 else 1] += nibble(t)


# ---------------------------------------------------------------- leaves

cdef inline uint32_t slot_of(uint64_t ka, uint64_t kb) noexcept nogil:
    cdef uint64_t h = (ka ^ (kb * <uint64_t> 0x9E3779B97F4A7C15)) * <uint64_t> 0xBF58476D1CE4E5B9
    return <uint32_t> (h >> (64 - HASH_BITS))


cdef inline int seen(Ctx* c, uint64_t ka, uint64_t kb) noexcept nogil:
    """1 when position (ka, kb) is already in this generation's table, else 0 (and it
    is now)."""
    cdef uint32_t s = slot_of(ka, kb)
    cdef Slot* e = &c.table[s]
    while e.stamp == c.stamp:
        if e.ka == ka and e.kb == kb:
            return 1
        s = (s + 1) & ((1 << HASH_BITS) - 1)
        e = &c.table[s]
    e.stamp = c.stamp
    e.ka = ka
    e.kb = kb
    return 0


cdef inline int admit(Ctx* c, int depth, uint64_t ka, uint64_t kb, int unique) noexcept nogil:
    """1 when a sequence of `depth` steps ending in position (ka, kb) is a new play.
    `unique`: the caller knows no other sequence gives this position (no lookup)."""
    if depth < c.best:
        return 0  # R11/R12: a sequence using more dice exists
    if depth > c.best:
        c.best = depth  # everything kept so far used fewer dice: drop it
        c.n = c.base
        new_table(c)
    if c.dedup and not unique:  # R10: plays are distinct by resulting position
        return not seen(c, ka, kb)
    return 1


cdef inline int8_t* out_slot(Ctx* c) noexcept nogil:
    """Room for one play: copies the path (unused steps are -1), returns its board slot."""
    if ensure_room(c) < 0:
        return NULL
    memcpy(c.moves + c.n * MOVE_BYTES, c.path, MOVE_BYTES)
    return c.boards + c.n * BOARD_BYTES


cdef int record(Ctx* c, int depth, uint64_t path) noexcept nogil:
    """The current position, reached in `depth` steps (the move-list word `path`, see
    fg_put_moves), is a complete sequence."""
    if not admit(c, depth, c.ka, c.kb, 0):
        return 0
    if not c.count_only:
        if ensure_room(c) < 0:
            return -1
        fg_put_moves(c.moves + c.n * MOVE_BYTES, path)
        memcpy(c.boards + c.n * BOARD_BYTES, c.b, BOARD_BYTES)
    c.n += 1
    return 0


cdef int record_step(Ctx* c, int depth, int f, int d, int unique, uint64_t path) noexcept nogil:
    """The current position plus one last step of d pips from f (legal, not applied):
    a complete sequence of depth + 1 steps. Cheaper than do/record/undo. `unique`: no
    other sequence gives this position, so it needs no key and no lookup."""
    cdef int t = f - d
    cdef uint64_t ka = c.ka, kb = c.kb
    cdef int8_t* dst
    cdef int hit = 0
    if t < 0:
        t = -1
    if c.dedup and not unique:
        if f < 16:
            ka -= nibble(f)
        else:
            kb -= nibble(f)
        if t >= 0:
            if t < 16:
                ka += nibble(t)
            else:
                kb += nibble(t)
            if c.b[23 - t] == 1:
                kb ^= hit_bit(t)
    if not admit(c, depth + 1, ka, kb, unique):
        return 0
    if not c.count_only:
        if ensure_room(c) < 0:
            return -1
        fg_put_moves(c.moves + c.n * MOVE_BYTES, (path & ~fg_step_word(depth, -1, -1)) | fg_step_word(depth, f + 1, t + 1))
        dst = c.boards + c.n * BOARD_BYTES
        memcpy(dst, c.b, BOARD_BYTES)
        dst[OWN + f] -= 1
        if t >= 0:
            dst[OWN + t] += 1
            if dst[23 - t] == 1:
                dst[23 - t] = 0
                dst[24] += 1
    c.n += 1
    return 0
