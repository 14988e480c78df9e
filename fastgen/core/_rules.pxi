# Part of the compiled core: included into fastgen/core/_core.pyx (one extension, so
# the C compiler can inline across files); the names and imports are _core.pyx's.
#
# The rules one step at a time, for extensions outside the search that cimport them from
# _core.pxd (the RL environments' kernel, fastgen/envs/_kernel.pyx): the search's own
# steps, sources and counting, step application and game value, so there is one rule
# engine.


# ---------------------------------------------------------------- single steps

cdef uint32_t playable_steps(Ctx* c, const int8_t* board, int d, int more, int w) noexcept nogil:
    """Bit f set when a step of d pips from the mover's index f (bit 24: the bar) is legal
    on the valid flat board `board` (R6, R8, R9) and leaves `more` steps playable after it
    (R11, R12): with w != d, one step of w (more is 0 or 1); with w == d, `more` steps of
    d (the rest of a double, double_steps_left). c: a counting context, used as
    the search's working board."""
    cdef uint64_t o0 = fg_load8(board + OWN), o1 = fg_load8(board + OWN + 8), o2 = fg_load8(board + OWN + 16)
    cdef int bar = board[OWN + 24]
    cdef uint32_t m, ok = 0
    cdef int f, t, hit
    memcpy(c.b, board, BOARD_BYTES)
    c.occ = fg_nonzero8(o0) | (fg_nonzero8(o1) << 8) | (fg_nonzero8(o2) << 16) | ((bar != 0) << 24)
    c.outside = fg_bytesum8(o0 & <uint64_t> 0xFFFF000000000000) + fg_bytesum8(o1) + fg_bytesum8(o2) + bar
    c.blocked = (fg_atleast2_8(fg_rev8(fg_load8(board + 16))) | (fg_atleast2_8(fg_rev8(fg_load8(board + 8))) << 8)
                 | (fg_atleast2_8(fg_rev8(fg_load8(board))) << 16))
    m = step_sources(c, d)
    if more <= 0:
        return m
    while m:
        f = fg_highest(m)
        m &= ~(1u << f)
        t = f - d if f >= d else -1
        hit = do_step(c, f, t)
        if w != d:
            if step_sources(c, w):
                ok |= 1u << f
        elif double_steps_left(c, d, more, 24):
            ok |= 1u << f
        undo_step(c, f, t, hit)
    return ok


cdef int double_steps_left(Ctx* c, int d, int more, int maxf) noexcept nogil:
    """1 when `more` steps of d can be played from the working position: the search of
    write_double (sources at or below maxf, non-increasing, which any such sequence can
    be put in), stopping at the first sequence found."""
    cdef uint32_t m = double_sources(c.occ, c.outside, c.blocked, d, maxf)
    cdef int f, t, hit, ok
    if more <= 1 or m == 0:
        return m != 0
    while m:
        f = fg_highest(m)
        m &= ~(1u << f)
        t = f - d if f >= d else -1
        hit = do_step(c, f, t)
        ok = double_steps_left(c, d, more - 1, f)
        undo_step(c, f, t, hit)
        if ok:
            return 1
    return 0


cdef void play_step(int8_t* board, int f, int d) noexcept nogil:
    """Move one of the mover's checkers d pips from index f (24: the bar; a legal step)
    on a flat board, off when it passes index 0; a lone opposing checker where it lands
    goes to the bar (R7)."""
    cdef int t = f - d
    board[OWN + f] -= 1
    if t >= 0:
        if board[23 - t] == 1:
            board[23 - t] = 0
            board[24] += 1
        board[OWN + t] += 1


cdef int game_value(const int8_t* board) noexcept nogil:
    """0 while the side that just moved (row 1) has checkers left, else what it won (R17):
    1, 2 (gammon) or 3 (backgammon); win_of for other extensions."""
    return win_of(board)
