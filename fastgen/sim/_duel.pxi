# Part of the simulation extension: included into fastgen/sim/_play.pyx (one extension,
# so the C compiler can inline across files); the names and imports are _play.pyx's.
#
# Duels: two policies, each the uniform-random choice (0), pubeval's (1) or a chooser of
# another extension (2: a compiled network's greedy play), play
# whole games against each other in one loop, as play_games plays one policy against
# itself. Dice come from roll_of and random choices from the same counter-based hash, so
# fastgen.sim.duel.front's batched loop plays the same games.
#
# Game g: player a moves first when g is even, player b when g is odd. Mirrored, the
# pair g // 2 gives both games of the pair the same dice (roll_of of game g // 2) and the
# same start position (start[(g // 2) % K]), with the seats swapped (duplicate
# backgammon); unmirrored, game g uses its own dice and start[g % K].

cdef int play_duel(Ctx* c, const int8_t[:, :, ::1] start, int from_opening, uint64_t seed,
                   const int8_t* opening_rolls, int64_t lo, int64_t hi, int pol_a, int pol_b,
                   int mirrored, int8_t[::1] winner, int8_t[::1] result, int32_t[::1] turns,
                   const int* stop, int64_t* long_game, int64_t max_turns, choose_fn fn_a, void* st_a,
                   choose_fn fn_b, void* st_b) noexcept nogil:
    """Play games lo..hi-1 of a duel, game g's outcome at index g - lo: winner 0 (player
    a) or 1 (player b), result (R17), turns. A policy code 2 is the player's chooser
    (fn_a(st_a, ...), fn_b(st_b, ...)). Returns as play_games."""
    cdef uint64_t kd = purpose_key(seed, PURPOSE_DICE)
    cdef uint64_t ko = purpose_key(seed, PURPOSE_OPENING)
    cdef uint64_t kc = purpose_key(seed, PURPOSE_CHOICE)
    cdef int8_t board[50]
    cdef const int8_t* after
    cdef int64_t g, t, dg
    cdef int8_t dice[2]
    cdef int8_t res
    cdef int k, a_moves, pol
    cdef Py_ssize_t nstart = start.shape[0]
    for g in range(lo, hi):
        dg = g // 2 if mirrored else g
        memcpy(board, &start[dg % nstart, 0, 0], BOARD_BYTES)
        t = 0
        while True:
            if fg_stopped(stop):
                return -3
            roll_of(dice, kd, ko, <uint64_t> dg, <uint64_t> t, from_opening and t == 0, opening_rolls)
            c.n = 0
            k = generate(c, board, dice[0], dice[1])
            if k < 0:
                return -1
            a_moves = (t % 2 == 0) == (g % 2 == 0)
            pol = pol_a if a_moves else pol_b
            if pol == 2:
                k = ext_choose(fn_a if a_moves else fn_b, st_a if a_moves else st_b, board, dice[0], dice[1],
                               c.boards, k, <uint64_t> g, <uint64_t> t)
                if k < 0:
                    return -1
                after = c.boards + k * BOARD_BYTES
            elif pol:
                after = c.boards + pub_choose(board, dice[0], dice[1], c.boards, k) * BOARD_BYTES
            else:
                after = c.boards + uniform_index(game_hash(kc, <uint64_t> g, <uint64_t> t), <uint64_t> k) * BOARD_BYTES
            res = win_of(after)
            if res:  # R17: the mover bore off its last checker
                winner[g - lo] = 0 if a_moves else 1
                turns[g - lo] = <int32_t> (t + 1)
                result[g - lo] = res
                break
            memcpy(board, after + OWN, 25)  # the other side is now on roll
            memcpy(board + OWN, after, 25)
            t += 1
            if t >= max_turns:
                long_game[0] = g
                return -2
    return 0


def duel_range(const int8_t[:, :, ::1] start, bint from_opening, uint64_t seed,
               const int8_t[:, ::1] opening_rolls, int64_t lo, int64_t hi, int pol_a, int pol_b,
               bint mirrored, int8_t[::1] winner, int8_t[::1] result, int32_t[::1] turns,
               StopFlag stop=None, int64_t max_turns=MAX_TURNS, Chooser chooser_a=None,
               Chooser chooser_b=None):
    """Play games lo..hi-1 of a duel between policies pol_a and pol_b (0 random, 1
    pubeval, 2 the player's chooser: a policy of another extension, see
    fastgen/core/_chooser.pxd) without the GIL (see play_duel); outputs at index g - lo.
    Returns -1, or the index of a game that reached max_turns; returns early when `stop`
    is set."""
    cdef Ctx* c
    cdef int r
    cdef int64_t long_game = -1
    cdef const int* sp = flag_of(stop)
    if pol_a not in (0, 1, 2) or pol_b not in (0, 1, 2):
        raise ValueError(f"fastgen: duel policies must be 0 (random), 1 (pubeval) or 2, got {pol_a!r}, {pol_b!r}")
    if (pol_a == 2) != (chooser_a is not None) or (pol_b == 2) != (chooser_b is not None):
        raise ValueError("fastgen: a duel policy 2 needs its chooser, and only it")
    if lo < 0 or hi < lo or min(winner.shape[0], result.shape[0], turns.shape[0]) < hi - lo:
        raise ValueError(f"fastgen: games {lo!r}..{hi!r} do not fit outputs of length {winner.shape[0]!r}")
    if start.shape[0] == 0 or opening_rolls.shape[0] != 15 or opening_rolls.shape[1] != 2:
        raise ValueError("fastgen: duel_range needs start boards and the 15 opening rolls")
    c = ctx_new(0, 4096)
    if c == NULL:
        raise MemoryError("fastgen: cannot allocate the generator context")
    cdef choose_fn fn_a = fn_of(chooser_a), fn_b = fn_of(chooser_b)
    cdef void* st_a = state_of(chooser_a)
    cdef void* st_b = state_of(chooser_b)
    with nogil:
        r = play_duel(c, start, from_opening, seed, &opening_rolls[0, 0], lo, hi, pol_a, pol_b, mirrored,
                      winner, result, turns, sp, &long_game, max_turns, fn_a, st_a, fn_b, st_b)
    ctx_free(c)
    if r == -1:
        raise MemoryError("fastgen: out of memory in a duel")
    return long_game
