# cython: language_level=3
"""The compiled forward pass of fastgen.nets: nogil loops over the kernel in
fastgen/core/_mlp.h (plain C).

Private module. fastgen.nets.network checks the weights once (shapes, dtype, finite
values, the compiled limits) and the boards once (fastgen.core.boards); a ``Kernel``
holds the checked float32 arrays and trusts them, and its loops trust the boards.

Greedy games (``Kernel.play_games``) run whole inside this module: the generator comes
from the core's declarations (fastgen/core/_core.pxd, one rule engine), the dice from the
rollout hash (fastgen/core/_dice.pxd), so a game is the one the rollout pool plays with
the network's ``choose``.
"""

from libc.stdint cimport int8_t, int32_t, int64_t, uint64_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy

from fastgen.core._core cimport BOARD_BYTES, OWN, Ctx, StopFlag, ctx_new, ctx_free, generate, win_of
from fastgen.core._dice cimport PURPOSE_DICE, PURPOSE_OPENING, purpose_key, roll_of

cdef extern from "_platform.h":
    int fg_stopped(const int* flag) noexcept nogil   # the stop flag's poll (see _platform.h)

cdef int _never = 0      # the flag of calls made without a StopFlag: never set

cdef extern from "_mlp.h":
    enum:
        FG_MLP_MAX_LAYERS
        FG_MLP_MAX_WIDTH
        FG_MLP_PAD
    ctypedef struct fg_mlp:
        int n_layers
        int width[9]
        int padded[9]
        const float* table
        const float* bias0
        const float* w[8]
        const float* b[8]
        const float* w_last_t
        int activation
        int outputs
    void fg_mlp_init() noexcept nogil
    size_t fg_mlp_scratch(const fg_mlp* net) noexcept nogil
    int fg_mlp_select(int best) noexcept nogil
    void fg_mlp_rows(const fg_mlp* net, const int8_t* boards, int swap, int raw, float* out,
                     int64_t lo, int64_t hi, float* scratch) noexcept nogil
    void fg_mlp_choose(const fg_mlp* net, const int8_t* cand, const int64_t* offsets, int64_t g0,
                       int64_t g1, int64_t* choice, double* values, float* scratch) noexcept nogil

fg_mlp_init()


#: The compiled limits: weight layers, the widest layer; layers are padded to a multiple of PAD.
MAX_LAYERS = FG_MLP_MAX_LAYERS
MAX_WIDTH = FG_MLP_MAX_WIDTH
PAD = FG_MLP_PAD


def select_kernels(level=None):
    """Use the loops of *level*: 0 the plain C ones, 1 AVX2, 2 AVX-512F, None the best
    the CPU has (what import chooses); a level the CPU lacks falls back to the best
    below it. Returns the level in use. The levels agree within a few units in the last
    place (the tests compare them). Not thread-safe: call it while nothing evaluates."""
    return int(fg_mlp_select(-1 if level is None else int(level)))


cdef class Kernel:
    """A network's checked float32 arrays, as the kernel reads them."""

    cdef fg_mlp net
    cdef list keep

    def __init__(self, table, bias0, list hidden_w, list hidden_b, last_t, last_b, list widths,
                 int activation, int outputs):
        """*table*: (2 * 26 * 16, P1) the first layer's rows; *bias0*: (P1,); *hidden_w*,
        *hidden_b*: layers 1 .. L-2, (width[l], P[l+1]) and (P[l+1],); *last_t*:
        (outputs, P[L-1]) (unused for one layer); *last_b*: (outputs,); *widths*: the real
        widths, inputs first (P: each rounded up to a multiple of PAD). float32 C arrays,
        checked by the caller (fastgen/nets/network.py)."""
        cdef int n = len(widths) - 1
        cdef const float[:, ::1] w2
        cdef const float[::1] w1
        if not 1 <= n <= FG_MLP_MAX_LAYERS or len(hidden_w) != max(n - 2, 0) or len(hidden_b) != len(hidden_w):
            raise ValueError("Kernel: layers out of the compiled limits (checked by the caller)")
        self.keep = [table, bias0, last_t, last_b] + hidden_w + hidden_b
        self.net.n_layers = n
        for i in range(n + 1):
            self.net.width[i] = widths[i]
            self.net.padded[i] = (widths[i] + FG_MLP_PAD - 1) // FG_MLP_PAD * FG_MLP_PAD
            if i > 0 and self.net.padded[i] > FG_MLP_MAX_WIDTH:
                raise ValueError("Kernel: a layer wider than the compiled limit (checked by the caller)")
        w2 = table
        self.net.table = &w2[0, 0]
        w1 = bias0
        self.net.bias0 = &w1[0]
        for i in range(n - 2):
            w2 = hidden_w[i]
            self.net.w[i + 1] = &w2[0, 0]
            w1 = hidden_b[i]
            self.net.b[i + 1] = &w1[0]
        w2 = last_t
        self.net.w_last_t = &w2[0, 0]
        w1 = last_b
        self.net.b[n - 1] = &w1[0]
        self.net.activation = activation
        self.net.outputs = outputs

    def rows(self, const int8_t[:, :, ::1] boards, bint swap, bint raw, float[:, ::1] out,
             Py_ssize_t lo, Py_ssize_t hi):
        """Write out[lo..hi-1] for boards lo..hi-1 without the GIL: five consistent
        probabilities a row, or with *raw* the network's own outputs."""
        if hi <= lo:
            return
        cdef float* scratch = <float*>malloc(fg_mlp_scratch(&self.net) * sizeof(float))
        if scratch == NULL:
            raise MemoryError()
        with nogil:
            fg_mlp_rows(&self.net, &boards[0, 0, 0], swap, raw, &out[0, 0], lo, hi, scratch)
        free(scratch)

    def choose(self, const int8_t[:, :, ::1] cand, const int64_t[::1] offsets, int64_t[::1] choice,
               double[::1] values, Py_ssize_t g0, Py_ssize_t g1):
        """choice[g0..g1-1]: the greedy choice among each game's candidates, and
        values (one a candidate) each candidate's equity for the mover (see
        fg_mlp_choose in _mlp.h)."""
        if g1 <= g0 or cand.shape[0] == 0:
            return
        if values.shape[0] != cand.shape[0]:
            raise ValueError("Kernel.choose: values must have one entry a candidate (checked by the caller)")
        cdef float* scratch = <float*>malloc(fg_mlp_scratch(&self.net) * sizeof(float))
        if scratch == NULL:
            raise MemoryError()
        with nogil:
            fg_mlp_choose(&self.net, &cand[0, 0, 0], &offsets[0], g0, g1, &choice[0], &values[0], scratch)
        free(scratch)

    def play_games(self, const int8_t[:, :, ::1] start, bint from_opening, uint64_t seed,
                   const int8_t[:, ::1] opening_rolls, int64_t lo, int64_t hi,
                   int8_t[::1] winner, int8_t[::1] result, int32_t[::1] turns,
                   StopFlag stop=None, int64_t max_turns=1000000):
        """Play games lo..hi-1 to the end without the GIL, each turn's play the network's
        greedy choice (fg_mlp_choose) among the generator's plays, game g's outcome at
        index g - lo of winner, result and turns. Game g starts from start[g % len(start)]
        (the opening when *from_opening*: its first roll one of *opening_rolls*). Returns
        -1, or the index of a game that reached *max_turns* (the rest of the range is then
        unplayed); returns early when *stop* is set (polled every turn)."""
        cdef uint64_t kd = purpose_key(seed, PURPOSE_DICE)
        cdef uint64_t ko = purpose_key(seed, PURPOSE_OPENING)
        cdef const int* sp = &_never if stop is None else &stop.flag
        cdef int8_t board[50]
        cdef int8_t dice[2]
        cdef const int8_t* after
        cdef int64_t g, t, long_game = -1, choice
        cdef int64_t offsets[2]
        cdef int k, failed = 0, res
        cdef Py_ssize_t nstart = start.shape[0]
        cdef int64_t vcap = 256
        cdef double* values
        cdef double* grown
        cdef float* scratch
        cdef Ctx* c
        if lo < 0 or hi < lo or min(winner.shape[0], result.shape[0], turns.shape[0]) < hi - lo or nstart == 0:
            raise ValueError(f"Kernel.play_games: games {lo!r}..{hi!r} do not fit the outputs (checked by the caller)")
        c = ctx_new(0, 4096)
        scratch = <float*>malloc(fg_mlp_scratch(&self.net) * sizeof(float))
        values = <double*>malloc(vcap * sizeof(double))
        if c == NULL or scratch == NULL or values == NULL:
            ctx_free(c)
            free(scratch)
            free(values)
            raise MemoryError("fastgen: cannot allocate a network game loop")
        with nogil:
            for g in range(lo, hi):
                memcpy(board, &start[g % nstart, 0, 0], BOARD_BYTES)
                t = 0
                while True:
                    if fg_stopped(sp):
                        failed = -3
                        break
                    roll_of(dice, kd, ko, g, t, from_opening and t == 0, &opening_rolls[0, 0])
                    c.n = 0
                    k = generate(c, board, dice[0], dice[1])
                    if k < 0:
                        failed = -1
                        break
                    if k > vcap:
                        grown = <double*>realloc(values, k * sizeof(double))
                        if grown == NULL:
                            failed = -1
                            break
                        values = grown
                        vcap = k
                    offsets[0] = 0
                    offsets[1] = k
                    fg_mlp_choose(&self.net, c.boards, offsets, 0, 1, &choice, values, scratch)
                    after = c.boards + choice * BOARD_BYTES
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
                        long_game = g
                        failed = -2
                        break
                if failed:
                    break
        ctx_free(c)
        free(scratch)
        free(values)
        if failed == -1:
            raise MemoryError("fastgen: out of memory in a network game loop")
        return long_game
