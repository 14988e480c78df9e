# Part of the simulation extension: included into fastgen/sim/_play.pyx (one extension,
# so the C compiler can inline across files); the names and imports are _play.pyx's.
#
# The batched Python loop's turn (fastgen.sim.pool): after the policies chose, the pool's
# games move on, finished ones are recorded and their slots refilled, and the next dice
# are rolled (the end of a game, R17, is _core.pxd's win_of).


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
