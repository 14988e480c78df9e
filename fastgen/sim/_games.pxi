# Part of the simulation extension: included into fastgen/sim/_play.pyx (one extension,
# so the C compiler can inline across files); the names and imports are _play.pyx's.
#
# Whole games: native random, pubeval or external-chooser games, and
# the batched rollout pool's turn (the end of a game, R17, is _core.pxd's win_of).


# ---------------------------------------------------------------- native random rollouts
#
# Whole games in compiled code for the uniform-random policy: per turn, generate the plays
# into a small reused buffer (it stays in cache), pick one, turn the board over. Dice and
# choices come from the same counter-based hash as fastgen.sim.rollout.front's Python loop
# (splitmix64 of seed, game, turn and purpose: _dice.pxd), so both give identical games.

cdef enum:
    MAX_TURNS = 1000000   # a guard: random games end long before this


cdef int play_games(Ctx* c, const int8_t[:, :, ::1] start, int from_opening, uint64_t seed,
                    const int8_t[:, ::1] opening_rolls, int64_t lo, int64_t hi,
                    int8_t[::1] winner, int8_t[::1] result, int32_t[::1] turns,
                    const int* stop, int64_t* long_game, int pubeval, int64_t max_turns,
                    choose_fn chooser, void* state) noexcept nogil:
    """Play games lo..hi-1 to the end, game g's outcome at index g - lo of the outputs,
    choosing uniformly at random, or pubeval's play when `pubeval` (see pub_choose), or
    the play of `chooser(state, ...)` when it is not NULL (-1 from it: out of memory).
    Returns 0, -1 when memory is short, -2 when a game reaches max_turns (its index in
    *long_game), -3 when *stop is set (polled every turn)."""
    cdef uint64_t kd = purpose_key(seed, PURPOSE_DICE)
    cdef uint64_t ko = purpose_key(seed, PURPOSE_OPENING)
    cdef uint64_t kc = purpose_key(seed, PURPOSE_CHOICE)
    cdef int8_t board[50]
    cdef const int8_t* after
    cdef int64_t g, t
    cdef int8_t dice[2]
    cdef int8_t res
    cdef int d1, d2, k
    cdef Py_ssize_t nstart = start.shape[0]
    for g in range(lo, hi):
        memcpy(board, &start[g % nstart, 0, 0], BOARD_BYTES)
        t = 0
        while True:
            if fg_stopped(stop):
                return -3
            roll_of(dice, kd, ko, g, t, from_opening and t == 0, &opening_rolls[0, 0])
            d1 = dice[0]
            d2 = dice[1]
            c.n = 0
            k = generate(c, board, d1, d2)
            if k < 0:
                return -1
            if chooser != NULL:
                k = ext_choose(chooser, state, board, d1, d2, c.boards, k, <uint64_t> g, <uint64_t> t)
                if k < 0:
                    return -1
                after = c.boards + k * BOARD_BYTES
            elif pubeval:
                after = c.boards + pub_choose(board, d1, d2, c.boards, k) * BOARD_BYTES
            else:
                after = c.boards + uniform_index(game_hash(kc, g, t), <uint64_t> k) * BOARD_BYTES
            res = win_of(after)
            if res:  # R17: the mover bore off its last checker
                winner[g - lo] = t % 2
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


MAX_ROLLOUT_TURNS = MAX_TURNS


def rollout_random_range(const int8_t[:, :, ::1] start, bint from_opening, uint64_t seed,
                         const int8_t[:, ::1] opening_rolls, int64_t lo, int64_t hi,
                         int8_t[::1] winner, int8_t[::1] result, int32_t[::1] turns,
                         StopFlag stop=None, bint pubeval=False, int64_t max_turns=MAX_TURNS,
                         Chooser chooser=None):
    """Play games lo..hi-1 with the uniform-random policy (or pubeval's choice when
    `pubeval`, or `chooser`'s: a policy of another extension, see
    fastgen/core/_chooser.pxd), without the GIL; game g's outcome goes to index g - lo
    of winner, result and turns (each at least hi - lo long). Returns -1, or the index of a game that
    reached max_turns turns (the rest of the range is then unplayed); returns early when
    `stop` is set."""
    cdef Ctx* c
    cdef int r
    cdef int64_t long_game = -1
    cdef const int* sp = flag_of(stop)
    if lo < 0 or hi < lo or min(winner.shape[0], result.shape[0], turns.shape[0]) < hi - lo:
        raise ValueError(f"fastgen: games {lo!r}..{hi!r} do not fit outputs of length {winner.shape[0]!r}")
    c = ctx_new(0, 4096)
    if c == NULL:
        raise MemoryError("fastgen: cannot allocate the generator context")
    cdef choose_fn fn = fn_of(chooser)
    cdef void* state = state_of(chooser)
    with nogil:
        r = play_games(c, start, from_opening, seed, opening_rolls, lo, hi, winner, result, turns,
                       sp, &long_game, pubeval, max_turns, fn, state)
    ctx_free(c)
    if r == -1:
        raise MemoryError("fastgen: out of memory in a rollout")
    return long_game


def pool_turn(const int8_t[:, :, ::1] src, const int64_t[::1] offsets, const int64_t[::1] pick,
              int8_t[:, :, ::1] boards, int64_t[::1] gid, int64_t[::1] turn, int8_t[:, ::1] dice,
              int8_t[::1] winner, int8_t[::1] result, int32_t[::1] turns,
              const int8_t[:, :, ::1] start_boards, int64_t first_game, int64_t next_game, int64_t end,
              int64_t max_turns, uint64_t seed, bint from_opening, const int8_t[:, ::1] opening_rolls,
              int64_t[::1] info):
    """One turn of the batched rollout loop for the n = offsets.shape[0] - 1 games of the
    pool (boards, gid, turn, dice: their first n rows), after the policy chose pick[j]
    (relative to game j's range of src, the candidates).

    Checks every pick first (nothing is written if one is out of range: info[1] = its
    index). Then each game's position becomes its chosen candidate turned over (the other
    side on roll) and its turn count goes up; a game won by that play (R17) records
    winner/result/turns at gid - first_game and its slot takes the next new game
    (gid next_game, start_boards[gid % K], turn 0) while next_game < end, else leaves the
    pool, which closes up in order. Then the new pool's dice are rolled (as
    fastgen.core.hashing.roll_dice does; an opening roll at turn 0 when from_opening).
    Returns the new pool size; info[0] = the games finished, info[1] = -1 or the bad
    pick, info[2] = -1 or the first slot whose game reached max_turns, info[3] = the next
    new game."""
    cdef Py_ssize_t j, m = 0, n = offsets.shape[0] - 1, k_start = start_boards.shape[0]
    cdef int64_t p, g, done = 0
    cdef const int8_t* b
    cdef int8_t res
    cdef uint64_t kd = purpose_key(seed, PURPOSE_DICE)
    cdef uint64_t ko = purpose_key(seed, PURPOSE_OPENING)
    info[0] = 0
    info[1] = -1
    info[2] = -1
    info[3] = next_game
    if pick.shape[0] != n or src.shape[0] != offsets[n]:
        raise ValueError("pool_turn: pick and offsets do not match the candidates")
    with nogil:
        for j in range(n):
            p = pick[j]
            if p < 0 or p >= offsets[j + 1] - offsets[j]:
                info[1] = j
                break
    if info[1] >= 0:
        return n
    with nogil:
        for j in range(n):
            b = &src[offsets[j] + pick[j], 0, 0]
            res = win_of(b)
            if res == 0:  # the game goes on, in slot m (m <= j: rows j.. are not read yet)
                memcpy(&boards[m, 0, 0], b + OWN, 25)
                memcpy(&boards[m, 1, 0], b, 25)
                gid[m] = gid[j]
                turn[m] = turn[j] + 1
                if turn[m] >= max_turns and info[2] < 0:
                    info[2] = m
                m += 1
                continue
            done += 1
            g = gid[j] - first_game
            winner[g] = <int8_t> (turn[j] % 2)
            result[g] = res
            turns[g] = <int32_t> (turn[j] + 1)
            if next_game < end:
                gid[m] = next_game
                turn[m] = 0
                memcpy(&boards[m, 0, 0], &start_boards[next_game % k_start, 0, 0], 50)
                next_game += 1
                m += 1
        for j in range(m):
            roll_of(&dice[j, 0], kd, ko, <uint64_t> gid[j], <uint64_t> turn[j],
                    from_opening and turn[j] == 0, &opening_rolls[0, 0])
    info[0] = done
    info[3] = next_game
    return m
