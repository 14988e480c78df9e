# The one compiled game loop: a game played to its end between two seats, each a native
# policy's choice (fastgen/core/_chooser.pxd): the random policy's, pubeval's, a
# compiled network's greedy play, the trainer's learner.
# Inline, so that each extension that plays whole games compiles it into its own loops:
# the simulations' rollouts and duels (fastgen/sim/_play.pyx) and the trainer's
# self-play (fastgen/train/_selfplay.pyx, whose learner is a seat's chooser).
#
# Dice come from the rollout hash (fastgen/core/_dice.pxd) of the game's dice id and the
# turn (a chooser is told the game id and the turn: the random policy hashes them), so a
# game is the same in any thread, batch or order, and the batched Python loops play the
# same games.

from libc.stdint cimport int8_t, int32_t, int64_t, uint64_t
from libc.string cimport memcpy

from fastgen.core._core cimport BOARD_BYTES, OWN, Ctx, generate, win_of
from fastgen.core._dice cimport PURPOSE_DICE, PURPOSE_OPENING, purpose_key, roll_of
from fastgen.core._chooser cimport choose_fn

cdef extern from "_platform.h":
    int fg_stopped(const int* flag) noexcept nogil   # the stop flag's poll (see _platform.h)

ctypedef struct Seat:    # who plays a side: a native policy's function and its state
    choose_fn fn
    void* state

ctypedef struct Keys:    # the hash's per-seed constants of the dice and the opening roll
    uint64_t dice
    uint64_t opening

ctypedef struct Outcome: # how a game ended: the seat that bore off last, its result (R17), the turns played
    int8_t winner
    int8_t result
    int32_t turns


cdef inline Keys keys_of(uint64_t seed) noexcept nogil:
    cdef Keys k
    k.dice = purpose_key(seed, PURPOSE_DICE)
    k.opening = purpose_key(seed, PURPOSE_OPENING)
    return k


cdef inline int play_game(Ctx* c, int8_t* board, const Keys* keys, int64_t game, int64_t dice_id,
                          bint from_opening, const int8_t* opening_rolls, const Seat* seats, int first,
                          const int* stop, int64_t max_turns, Outcome* out) noexcept nogil:
    """Play *game* from *board* (50 bytes, side on roll in row 1; overwritten as the game
    goes) to its end: seat *first* (0 or 1) rolls first, then the seats alternate. Turn
    t rolls roll_of(dice_id, t) (an opening roll at turn 0 when *from_opening*); the
    seat's chooser is called with (game, t). Returns 0 with *out
    filled, -1 when memory is short or a chooser fails (or answers out of range), -2 when
    the game reaches *max_turns* turns, -3 when *stop is set (polled every turn)."""
    cdef int8_t dice[2]
    cdef const int8_t* after
    cdef const Seat* s
    cdef int64_t t = 0
    cdef int k, j, seat
    cdef int8_t res
    while True:
        if fg_stopped(stop):
            return -3
        roll_of(dice, keys.dice, keys.opening, <uint64_t> dice_id, <uint64_t> t, from_opening and t == 0,
                opening_rolls)
        c.n = 0
        k = generate(c, board, dice[0], dice[1])
        if k < 0:
            return -1
        seat = first ^ <int> (t & 1)
        s = &seats[seat]
        j = s.fn(s.state, board, dice[0], dice[1], c.boards, k, <uint64_t> game, <uint64_t> t)
        if j < 0 or j >= k:
            return -1
        after = c.boards + j * BOARD_BYTES
        res = win_of(after)
        if res:  # R17: the mover bore off its last checker
            out.winner = <int8_t> seat
            out.result = res
            out.turns = <int32_t> (t + 1)
            return 0
        memcpy(board, after + OWN, 25)  # the other side is now on roll
        memcpy(board + OWN, after, 25)
        t += 1
        if t >= max_turns:
            return -2
