# Part of the simulation extension: included into fastgen/sim/_play.pyx (one extension,
# so the C compiler can inline across files); the names and imports are _play.pyx's.
#
# Whole games in compiled code, a range of them a call, each played by the one game loop
# (_loop.pxd's play_game) between two seats: a rollout's policy against itself, or a
# duel's two players. Each seat is a native policy's chooser (fastgen/core/_chooser.pxd):
# the random policy's, pubeval's, a compiled network's greedy play.
#
# Game g of a rollout: its dice are game g's, its first mover is seat 0, and the winner
# recorded is the seat that won, so 0 when the side that moved first won. Game g of a
# duel (*alternate*): player a (seat 0) moves first when g is even, player b when g is
# odd. Mirrored, the pair g // 2 gives both games of the pair the same dice (those of
# game g // 2) and the same start position (start[(g // 2) % K]), with the seats swapped
# (duplicate backgammon); unmirrored, game g uses its own dice and start[g % K].

cdef enum:
    MAX_TURNS = 1000000   # a guard: random games end long before this

MAX_ROLLOUT_TURNS = MAX_TURNS


cdef int play_games(Ctx* c, const int8_t[:, :, ::1] start, int from_opening, uint64_t seed,
                    const int8_t* opening_rolls, int64_t lo, int64_t hi, const Seat* seats, int alternate,
                    int mirrored, int8_t[::1] winner, int8_t[::1] result, int32_t[::1] turns,
                    const int* stop, int64_t* long_game, int64_t max_turns) noexcept nogil:
    """Play games lo..hi-1, game g's outcome at index g - lo: winner (the seat), result
    (R17), turns. Returns 0, -1 when memory is short (or a chooser failed), -2 when a
    game reaches max_turns (its index in *long_game), -3 when *stop is set."""
    cdef Keys keys = keys_of(seed)
    cdef int8_t board[50]
    cdef Outcome out
    cdef int64_t g, dg
    cdef int r
    cdef Py_ssize_t nstart = start.shape[0]
    for g in range(lo, hi):
        dg = g // 2 if mirrored else g
        memcpy(board, &start[dg % nstart, 0, 0], BOARD_BYTES)
        r = play_game(c, board, &keys, g, dg, from_opening, opening_rolls, seats, <int> (g % 2) if alternate else 0,
                      stop, max_turns, &out)
        if r == -2:
            long_game[0] = g
        if r:
            return r
        winner[g - lo] = out.winner
        result[g - lo] = out.result
        turns[g - lo] = out.turns
    return 0


def play_range(const int8_t[:, :, ::1] start, bint from_opening, uint64_t seed,
               const int8_t[:, ::1] opening_rolls, int64_t lo, int64_t hi, Chooser chooser_a not None,
               Chooser chooser_b not None, int8_t[::1] winner, int8_t[::1] result, int32_t[::1] turns, *,
               bint alternate=False, bint mirrored=False, StopFlag stop=None, int64_t max_turns=MAX_TURNS):
    """Play games lo..hi-1 without the GIL between seat a (chooser_a: a native policy, see
    fastgen/core/_chooser.pxd) and seat b (chooser_b; the same object for a policy that
    keeps no scratch memory, or one a seat); a rollout plays one policy in both seats
    (*alternate* False: seat a always first), a
    duel alternates the first mover (and *mirrored* pairs the games). Game g's winning
    seat, result and turns go to index g - lo of the outputs (each at least hi - lo
    long). Returns -1, or the index of a game that reached max_turns (the rest of the
    range is then unplayed); returns early when `stop` is set."""
    cdef Ctx* c
    cdef int r
    cdef int64_t long_game = -1
    cdef const int* sp = flag_of(stop)
    cdef Seat seats[2]
    if chooser_a.fn == NULL or chooser_b.fn == NULL:
        raise ValueError("fastgen: a seat's chooser has no function (a bare Chooser)")
    if lo < 0 or hi < lo or min(winner.shape[0], result.shape[0], turns.shape[0]) < hi - lo:
        raise ValueError(f"fastgen: games {lo!r}..{hi!r} do not fit outputs of length {winner.shape[0]!r}")
    if start.shape[0] == 0 or opening_rolls.shape[0] != 15 or opening_rolls.shape[1] != 2:
        raise ValueError("fastgen: play_range needs start boards and the 15 opening rolls")
    seats[0].fn, seats[0].state = chooser_a.fn, chooser_a.state
    seats[1].fn, seats[1].state = chooser_b.fn, chooser_b.state
    c = ctx_new(0, 4096)
    if c == NULL:
        raise MemoryError("fastgen: cannot allocate the generator context")
    with nogil:
        r = play_games(c, start, from_opening, seed, &opening_rolls[0, 0], lo, hi, seats, alternate, mirrored,
                       winner, result, turns, sp, &long_game, max_turns)
    ctx_free(c)
    if r == -1:
        raise MemoryError("fastgen: out of memory in a game (or a chooser failed)")
    return long_game
