# cython: language_level=3
"""Compiled game kernel of the RL environments: micro-action masks and steps for N games.

The rules come from the move generator (fastgen.core._core), not from code of its own:
which steps a micro action may take is the core's playable_steps, its search's own
single steps (R6-R9) kept when the turn can still be completed after them (one step of
the other die left, or the rest of a double, found by the core's search), and how many
dice a turn must use (R11, R12) is the most steps playable_steps finds; a step is played, with its hit (R7), by the core's play_step, and a game's
value (R17) is the core's. The Python side validates every input and owns the arrays; the
functions here trust them and run without the GIL.

Board layout (R4): 50 int8 per game, row 0 (opponent) then row 1 (mover); the mover's
point p is index 24 + p (p = 25 the bar at 49), the opponent's checkers on the mover's
point p sit at index 24 - p. The core numbers the mover's points by index p - 1, so its
source masks shifted up by one are masks of points.

Per-game turn state:
  left[g, v - 1]  dice of value v still to play (a double starts with four);
  todo[g]         steps still to play (the maximum-dice count minus steps played);
  forced[g]       0, or the die every step must use (the larger-die rule R13: with
                  non-doubles where only one die can be played).
Micro action a = source * 6 + (die - 1); a = 0 is the pass / end of turn.
"""

from libc.string cimport memcpy, memset
from libc.stdint cimport int8_t, uint8_t, int64_t, uint64_t

from fastgen.core._core cimport Ctx, ctx_new, ctx_free, playable_steps, play_step, game_value
from fastgen.core._bits cimport fg_highest  # highest set bit, with _platform.h's portable paths

cdef int NA = 156


ctypedef unsigned int bits

cdef inline bits sources(Ctx* c, const int8_t *b, int v) noexcept nogil:
    """Bit set of the points (bit p = point p, 25 the bar) a step with die v may start
    from on board b (the core's rule, R6, R8, R9)."""
    return playable_steps(c, b, v, 0, v) << 1


cdef int max_steps(Ctx* c, const int8_t *b, int d1, int d2) noexcept nogil:
    """The most dice of the roll d1-d2 that can be played on b (R11, R12), by the core's
    playable_steps: both dice when a step of one leaves a step of the other, four down
    to one steps of a double when its search finds that many."""
    cdef int n
    if d1 != d2:
        if playable_steps(c, b, d1, 1, d2) or playable_steps(c, b, d2, 1, d1):
            return 2
        return 1 if playable_steps(c, b, d1, 0, d1) or playable_steps(c, b, d2, 0, d2) else 0
    for n in range(4, 0, -1):
        if playable_steps(c, b, d1, n - 1, d1):
            return n
    return 0


cdef void start_one(Ctx* c, const int8_t *b, int d1, int d2, int8_t *left, int8_t *todo, int8_t *forced) noexcept nogil:
    """Turn state for a fresh roll: the maximum number of dice playable (R11, R12) and
    the larger-die rule (R13)."""
    cdef int n, big, small
    memset(left, 0, 6)
    forced[0] = 0
    if d1 == d2:
        left[d1 - 1] = 4
    else:
        left[d1 - 1] = 1
        left[d2 - 1] = 1
    n = max_steps(c, b, d1, d2)
    todo[0] = n
    if n == 1 and d1 != d2:
        big = d1 if d1 > d2 else d2
        small = d1 + d2 - big
        forced[0] = big if sources(c, b, big) else small


cdef void mask_one(Ctx* c, const int8_t *b, int8_t *left, int todo, int forced, uint8_t *out, uint8_t *lst) noexcept nogil:
    """Micro-action mask of one game: steps after which the turn can still be completed
    (the core's playable_steps). Also lists them: lst[0] their number (at most 30: 15
    occupied points, two dice), lst[1..] the actions."""
    cdef int v, w, s, kinds = 0
    cdef bint any_step = False
    cdef bits m
    memset(out, 0, NA)
    lst[0] = 0
    if todo > 0:
        for v in range(6):
            kinds += left[v] > 0
        for v in range(1, 7):
            if left[v - 1] == 0:
                continue
            # the die of the steps left after this one: v again with one die value left
            # for several steps (a double), else the other die
            w = v
            if kinds > 1:
                for w in range(1, 7):
                    if w != v and left[w - 1]:
                        break
            m = playable_steps(c, b, v, todo - 1, w) << 1
            if forced and v != forced:
                # R13 binds the larger die, but a smaller die bearing off a checker the
                # larger one also bears off gives the same play: allowed too
                m &= sources(c, b, forced) & ((2u << v) - 1u)
            while m:
                s = fg_highest(m)
                m ^= 1u << s
                out[s * 6 + v - 1] = 1
                lst[0] += 1
                lst[lst[0]] = s * 6 + v - 1
                any_step = True
    if not any_step:
        out[0] = 1
        lst[0] = 1
        lst[1] = 0


cdef inline void step_apply(int8_t *b, int s, int d) noexcept nogil:
    """Move a checker of the board from point s with die d (a legal step); hit a blot
    (R7): the core's play_step."""
    play_step(b, s - 1, d)


# --------------------------------------------------------------------------- random dice


cdef inline uint64_t splitmix(uint64_t *state) noexcept nogil:
    cdef uint64_t z
    state[0] += 0x9E3779B97F4A7C15ULL
    z = state[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline int die(uint64_t *state) noexcept nogil:
    return <int>(((splitmix(state) >> 32) * 6) >> 32) + 1


cdef void roll(uint64_t *state, int8_t *dice, bint opening) noexcept nogil:
    """A uniform roll of two dice; an opening roll (R16) is never a double."""
    dice[0] = die(state)
    dice[1] = die(state)
    while opening and dice[0] == dice[1]:
        dice[0] = die(state)
        dice[1] = die(state)


cdef Ctx* counting_ctx() except NULL:
    """A context of the core for one call (count-only: no output buffers), the working
    board of playable_steps."""
    cdef Ctx* c = ctx_new(1, 16)
    if c == NULL:
        raise MemoryError("fastgen: cannot allocate the generator context")
    return c


# --------------------------------------------------------------------------- Python API


def prefix_mask(uint8_t[:, ::1] out, const int64_t[::1] counts, int64_t[::1] previous):
    """Make row g of *out* allow exactly actions 0 .. counts[g] - 1, given that it allowed
    0 .. previous[g] - 1; *previous* becomes *counts*. Only the difference is written."""
    cdef Py_ssize_t g, a
    cdef int64_t c, p
    with nogil:
        for g in range(out.shape[0]):
            c = counts[g]
            p = previous[g]
            if c > p:
                memset(&out[g, p], 1, c - p)
            elif p > c:
                memset(&out[g, c], 0, p - c)
            previous[g] = c


def sample_listed(const uint8_t[:, ::1] legal, uint64_t[::1] states, int64_t[::1] out):
    """A uniformly random action per game from the lists masks() writes, from each
    game's own random state."""
    cdef Py_ssize_t g
    cdef uint64_t pick
    with nogil:
        for g in range(legal.shape[0]):
            pick = ((splitmix(&states[g]) >> 32) * <uint64_t>legal[g, 0]) >> 32
            out[g] = legal[g, 1 + pick]


def sample_below(const int64_t[::1] counts, uint64_t[::1] states, int64_t[::1] out):
    """A uniformly random integer in 0 .. counts[g] - 1 per game, from its own random state."""
    cdef Py_ssize_t g
    with nogil:
        for g in range(counts.shape[0]):
            out[g] = <int64_t>(((splitmix(&states[g]) >> 32) * <uint64_t>counts[g]) >> 32)


def sample(const uint8_t[:, ::1] mask, uint64_t[::1] states, int64_t[::1] out):
    """A uniformly random allowed action per row of *mask* (rows with none give -1),
    from each row's own random state."""
    cdef Py_ssize_t g, a, width = mask.shape[1]
    cdef int64_t count, pick
    with nogil:
        for g in range(mask.shape[0]):
            count = 0
            for a in range(width):
                count += mask[g, a]
            out[g] = -1
            if count == 0:
                continue
            pick = <int64_t>(((splitmix(&states[g]) >> 32) * <uint64_t>count) >> 32)
            for a in range(width):
                if mask[g, a]:
                    if pick == 0:
                        out[g] = a
                        break
                    pick -= 1



def start_turns(const int8_t[:, :, ::1] boards, const int8_t[:, ::1] dice, const int64_t[::1] games,
                int8_t[:, ::1] left, int8_t[::1] todo, int8_t[::1] forced):
    """Set the turn state of *games* from their boards (mover on row 1) and dice."""
    cdef Py_ssize_t k, g
    cdef Ctx* c = counting_ctx()
    with nogil:
        for k in range(games.shape[0]):
            g = games[k]
            start_one(c, &boards[g, 0, 0], dice[g, 0], dice[g, 1], &left[g, 0], &todo[g], &forced[g])
    ctx_free(c)


def masks(const int8_t[:, :, ::1] boards, int8_t[:, ::1] left, const int8_t[::1] todo,
          const int8_t[::1] forced, uint8_t[:, ::1] out, uint8_t[:, ::1] legal):
    """Write the (N, 156) micro-action masks of N games into *out*, and into *legal*
    (N, 32) each game's count of allowed actions then the actions."""
    cdef Py_ssize_t g
    cdef Ctx* c = counting_ctx()
    with nogil:
        for g in range(boards.shape[0]):
            mask_one(c, &boards[g, 0, 0], &left[g, 0], todo[g], forced[g], &out[g, 0], &legal[g, 0])
    ctx_free(c)


def apply_steps(int8_t[:, :, ::1] boards, int8_t[:, ::1] left, int8_t[::1] todo,
                const int64_t[::1] games, const int64_t[::1] actions):
    """Play micro action actions[k] (a legal step, not the pass) in game games[k]."""
    cdef Py_ssize_t k, g
    cdef int a
    with nogil:
        for k in range(games.shape[0]):
            g = games[k]
            a = actions[k]
            step_apply(&boards[g, 0, 0], a // 6, a % 6 + 1)
            left[g, a % 6] -= 1
            todo[g] -= 1


def seed_states(uint64_t[::1] states, const uint64_t[::1] seeds):
    """Game g's random state from its own seed seeds[g] (splitmix64 mixing)."""
    cdef Py_ssize_t g
    cdef uint64_t s
    for g in range(states.shape[0]):
        s = seeds[g]
        states[g] = splitmix(&s)


def roll_dice(uint64_t[::1] states, int8_t[:, ::1] dice, const uint8_t[::1] opening):
    """Roll for every game from its own random state (an opening roll where opening[g])."""
    cdef Py_ssize_t g
    with nogil:
        for g in range(states.shape[0]):
            roll(&states[g], &dice[g, 0], opening[g])


def micro_step(int8_t[:, :, ::1] boards, int8_t[:, ::1] dice, int8_t[:, ::1] left, int8_t[::1] todo,
               int8_t[::1] forced, uint64_t[::1] states, int8_t[::1] player, const int64_t[:] actions,
               float[::1] reward, uint8_t[::1] terminated, uint8_t[::1] truncated,
               uint8_t[:, ::1] mask, uint8_t[:, ::1] legal, int8_t[:, :, ::1] final, const int8_t[:, ::1] start, bint autoreset,
               int max_passes):
    """One micro action in each of N games (actions already checked against *mask*).

    A step is played; when it ends the turn (no step left) the sides swap and the next
    roll is made, and turns with no legal step are passed for the player (at most
    *max_passes* in a row, then the game is truncated). A step that bears off the last
    checker ends the game: reward[g] = 1/2/3 to the player who moved, terminated[g] = 1,
    and with *autoreset* the game starts over from *start* with an opening roll; the board
    a game ended on (the winner's view) is copied to final[g] first.
    Finally the mask (and list, see masks()) of every game's new state is written. Returns -1, or the first game
    whose action the old mask does not allow (then nothing was changed).
    """
    cdef Py_ssize_t g, n = boards.shape[0]
    cdef int64_t a
    cdef int passes, won
    cdef int8_t *b
    cdef int8_t tmp[25]
    cdef Py_ssize_t bad = -1
    cdef Ctx* c
    with nogil:
        for g in range(n):
            a = actions[g]
            if a < 0 or a >= NA or not mask[g, a]:
                bad = g
                break
    if bad >= 0:
        return bad
    c = counting_ctx()
    with nogil:
        for g in range(n):
            reward[g] = 0
            terminated[g] = 0
            truncated[g] = 0
            a = actions[g]
            b = &boards[g, 0, 0]
            if a != 0:
                step_apply(b, a // 6, a % 6 + 1)
                left[g, a % 6] -= 1
                todo[g] -= 1
                won = game_value(b)  # R17: 0 while the mover has checkers left
                if won:
                    reward[g] = won
                    terminated[g] = 1
            elif todo[g] != 0:
                pass  # the caller never sends a pass while steps remain
            if not terminated[g] and todo[g] == 0:
                passes = 0
                while True:  # end of turn: swap sides, roll, skip turns with no step
                    memcpy(tmp, b, 25)
                    memcpy(b, b + 25, 25)
                    memcpy(b + 25, tmp, 25)
                    player[g] ^= 1
                    roll(&states[g], &dice[g, 0], False)
                    start_one(c, b, dice[g, 0], dice[g, 1], &left[g, 0], &todo[g], &forced[g])
                    if todo[g] > 0:
                        break
                    passes += 1
                    if passes >= max_passes:
                        truncated[g] = 1
                        break
            if terminated[g] or truncated[g]:
                memcpy(&final[g, 0, 0], b, 50)
            if autoreset and (terminated[g] or truncated[g]):
                memcpy(b, &start[0, 0], 50)
                roll(&states[g], &dice[g, 0], True)
                player[g] = dice[g, 0] < dice[g, 1]  # player 0 moves first with the higher die
                start_one(c, b, dice[g, 0], dice[g, 1], &left[g, 0], &todo[g], &forced[g])
            mask_one(c, b, &left[g, 0], todo[g], forced[g], &mask[g, 0], &legal[g, 0])
    ctx_free(c)
    return -1
