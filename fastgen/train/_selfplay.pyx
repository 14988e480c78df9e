# cython: language_level=3
"""The compiled TD(lambda) self-play loop of fastgen.train: whole games of a network
against itself without the GIL, each followed by its training steps.

Private module, an extension built on the move generator (it cimports
fastgen/core/_core.pxd: the context, generate(), win_of) and the rollout hash
(_dice.pxd): every play comes from the one generator, every roll from the hash of
(seed, game, turn), so a game is the same in any thread. The arithmetic is in
_td.h; the plays are chosen by the compiled networks' kernel (fastgen/nets/_mlp.h) over
the learner's own weights, so a trained network plays as it trained.

One game, in ``Learner.play``:

1. the kernel's first-layer rows are rebuilt from the current weights;
2. the side on roll picks the candidate of highest cubeless equity (greedy; the dice
   are the only randomness); of each chosen afterstate, seen by the side that rolls
   next (the next turn's position), its non-zero inputs are kept, with the network's
   five outputs for it (its value V_t);
3. at the end, the lambda-returns: the last afterstate's target is the game's result
   for the loser (0, 0, 0, gammon, backgammon); for the others, backwards,
   G_t = (1 - lambda) flip(V_{t+1}) + lambda flip(G_{t+1}), flip seeing five outputs
   from the other side;
4. one gradient step a kept afterstate toward its G_t, each from a forward pass of the
   kept inputs at the weights as the steps before it left them (the offline forward
   view of TD(lambda), which sums to the same updates as eligibility traces applied at
   the end of the game). A gradient taken at the weights the game was played with
   instead would save that forward pass, but applies one stale gradient a move: the
   biases overshoot: a 32-unit network trained so for 20,000 games played no better
   than its first weights.

fastgen.train.td_lambda checks the arguments and owns the arrays; everything here trusts them.
"""

from libc.stdint cimport int8_t, int64_t, uint64_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy, memset

from fastgen.core._core cimport BOARD_BYTES, OWN, Ctx, StopFlag, ctx_new, ctx_free, win_of
from fastgen.sim._loop cimport Keys, Outcome, Seat, fg_stopped, keys_of, play_game

from fastgen.nets._mlp cimport (FG_CONTACT_WIDTH, FG_MLP_PAD, fg_mlp, fg_mlp_init, fg_mlp_scratch, fg_mlp_choose,
                                fg_mlp_select)

cdef extern from "_td.h":
    enum:
        FG_TD_INPUTS
        FG_TD_MAX_NNZ
    ctypedef struct fg_td_net:
        int contact
        int hidden
        int padded
        int outputs
        float* w1
        float* b1
        float* w2t
        float* b2
    int fg_td_encode(const int8_t* b, int contact, int* idx, float* val) noexcept nogil
    void fg_td_table(const fg_td_net* net, float* table, float* bias0, double* acc) noexcept nogil
    void fg_td_forward(const fg_td_net* net, const int* idx, const float* val, int nnz, float* h,
                       float* y) noexcept nogil
    double fg_td_step(fg_td_net* net, const int* idx, const float* val, int nnz, const float* h, const float* y,
                      const float* target, float lr, float* dh) noexcept nogil

fg_mlp_init()

#: Inputs of the trained networks: Tesauro's, and with the contact features.
INPUTS = FG_TD_INPUTS
CONTACT_INPUTS = FG_TD_INPUTS + FG_CONTACT_WIDTH
PAD = FG_MLP_PAD

cdef int _never = 0


def select_kernels(level=None):
    """Use the trainer's loops (and the kernel's, for its choices) of *level*: 0 plain C,
    1 AVX2, 2 AVX-512F, None the best the CPU has (what import chooses); a level the CPU
    lacks falls back to the best below it. Returns the level in use. For the tests; not
    thread-safe: call it while nothing trains."""
    return int(fg_mlp_select(-1 if level is None else int(level)))


cdef inline void flip5(const float* src, float* dst) noexcept nogil:
    """Five outputs seen by the other side."""
    dst[0] = 1.0 - src[0]
    dst[1] = src[3]
    dst[2] = src[4]
    dst[3] = src[1]
    dst[4] = src[2]


ctypedef struct Game:          # one game's kept afterstates (seen by the side that rolls next), grown as needed
    float* values              # (cap, 5): their values V_t (the outputs; the result for the last)
    float* targets             # (cap, 5)
    int* idx                   # (cap, FG_TD_MAX_NNZ): their non-zero inputs
    float* val                 # (cap, FG_TD_MAX_NNZ)
    int* nnz                   # (cap,)
    int64_t cap


cdef int regrow(void** p, int64_t nbytes) noexcept nogil:
    cdef void* q = realloc(p[0], nbytes)
    if q == NULL:
        return -1
    p[0] = q
    return 0


cdef int grow(Game* gm, int64_t need) noexcept nogil:
    """Room for *need* afterstates (0, or -1 when memory runs out); cap 0 allocates."""
    cdef int64_t cap = gm.cap if gm.cap > 0 else 256
    if need <= gm.cap:
        return 0
    while cap < need:
        cap *= 2
    if (regrow(<void**> &gm.values, cap * 5 * sizeof(float)) < 0
            or regrow(<void**> &gm.targets, cap * 5 * sizeof(float)) < 0
            or regrow(<void**> &gm.idx, cap * FG_TD_MAX_NNZ * sizeof(int)) < 0
            or regrow(<void**> &gm.val, cap * FG_TD_MAX_NNZ * sizeof(float)) < 0
            or regrow(<void**> &gm.nnz, cap * sizeof(int)) < 0):
        return -1
    gm.cap = cap
    return 0


ctypedef struct Turns:         # what the learner's choice of a turn reads and writes (the learner's own memory)
    fg_mlp* mlp
    fg_td_net* net
    double** values
    int64_t* vcap
    float* scratch
    float* h
    Game* gm


cdef int learn_turn(void* state, const int8_t* board, int d1, int d2, const int8_t* cands, int k,
                    uint64_t game, uint64_t turn) noexcept nogil:
    """The learner as a seat of the one game loop (a chooser, fastgen/core/_chooser.pxd):
    the candidate of highest cubeless equity (the only one when k is 1); its afterstate,
    seen by the side that rolls next, kept as turn *turn* of the game with its value
    (unless the play wins: the result is its value). -1 when memory runs out."""
    cdef Turns* s = <Turns*> state
    cdef int64_t t = <int64_t> turn, choice = 0
    cdef int64_t offsets[2]
    cdef double* grown
    cdef const int8_t* after
    cdef int8_t seen[50]
    cdef int* ix
    cdef float* vx
    if k > 1:
        if k > s.vcap[0]:
            grown = <double*> realloc(s.values[0], k * sizeof(double))
            if grown == NULL:
                return -1
            s.values[0] = grown
            s.vcap[0] = k
        offsets[0] = 0
        offsets[1] = k
        fg_mlp_choose(s.mlp, cands, offsets, 0, 1, &choice, s.values[0], s.scratch)
    after = cands + choice * BOARD_BYTES
    if grow(s.gm, t + 1) < 0:
        return -1
    memcpy(seen, after + OWN, 25)    # the next position: the side that rolls next on roll (row 1)
    memcpy(seen + OWN, after, 25)
    ix = s.gm.idx + t * FG_TD_MAX_NNZ
    vx = s.gm.val + t * FG_TD_MAX_NNZ
    s.gm.nnz[t] = fg_td_encode(seen, s.net.contact, ix, vx)
    if not win_of(after):
        fg_td_forward(s.net, ix, vx, s.gm.nnz[t], s.h, s.gm.values + t * 5)
    return <int> choice


cdef class Learner:
    """One copy of the weights being trained (float32 arrays owned by the caller, changed
    in place) with the scratch memory of one thread's self-play."""

    cdef fg_td_net net
    cdef fg_mlp mlp
    cdef float[:, ::1] w1
    cdef float[::1] b1
    cdef float[:, ::1] w2t
    cdef float[::1] b2
    cdef float* table
    cdef float* bias0
    cdef double* acc
    cdef float* scratch
    cdef float* h
    cdef float* dh
    cdef double* values          # one a candidate, vcap of them (grown as needed)
    cdef int64_t vcap
    cdef Game game

    def __init__(self, float[:, ::1] w1, float[::1] b1, float[:, ::1] w2t, float[::1] b2, int hidden):
        """w1 (198, P) or with the contact features (220, P), b1 (P,), w2t (5, P), b2 (5,)
        with P = hidden rounded up to PAD, zero beyond the real width (checked by the
        caller)."""
        cdef int P = w1.shape[1]
        self.net.contact = w1.shape[0] == FG_TD_INPUTS + FG_CONTACT_WIDTH
        self.mlp.n_extra = FG_CONTACT_WIDTH if self.net.contact else 0
        self.mlp.w_extra = &w1[FG_TD_INPUTS, 0] if self.net.contact else NULL
        self.w1, self.b1, self.w2t, self.b2 = w1, b1, w2t, b2
        self.net.hidden = hidden
        self.net.padded = P
        self.net.outputs = 5
        self.net.w1 = &w1[0, 0]
        self.net.b1 = &b1[0]
        self.net.w2t = &w2t[0, 0]
        self.net.b2 = &b2[0]
        self.mlp.n_layers = 2
        self.mlp.width[0] = FG_TD_INPUTS
        self.mlp.width[1] = hidden
        self.mlp.width[2] = 5
        self.mlp.padded[0] = (FG_TD_INPUTS + PAD - 1) // PAD * PAD
        self.mlp.padded[1] = P
        self.mlp.padded[2] = PAD
        self.mlp.w_last_t = &w2t[0, 0]
        self.mlp.b[1] = &b2[0]
        self.mlp.activation = 0
        self.mlp.outputs = 5
        self.table = <float*> malloc(2 * 26 * 16 * P * sizeof(float))
        self.bias0 = <float*> malloc(P * sizeof(float))
        self.acc = <double*> malloc(2 * P * sizeof(double))
        self.h = <float*> malloc(P * sizeof(float))
        self.dh = <float*> malloc(P * sizeof(float))
        self.vcap = 1024
        self.values = <double*> malloc(self.vcap * sizeof(double))
        self.mlp.table = self.table
        self.mlp.bias0 = self.bias0
        self.scratch = <float*> malloc(fg_mlp_scratch(&self.mlp) * sizeof(float))
        memset(&self.game, 0, sizeof(Game))
        if (self.table == NULL or self.bias0 == NULL or self.acc == NULL or self.h == NULL or self.dh == NULL
                or self.values == NULL or self.scratch == NULL or grow(&self.game, 256) < 0):
            raise MemoryError("fastgen: cannot allocate a learner")

    def __dealloc__(self):
        free(self.table)
        free(self.bias0)
        free(self.acc)
        free(self.h)
        free(self.dh)
        free(self.values)
        free(self.scratch)
        free(self.game.values)
        free(self.game.targets)
        free(self.game.idx)
        free(self.game.val)
        free(self.game.nnz)

    def forward(self, const int8_t[:, ::1] board):
        """(h, y): the hidden layer and the five outputs of one (2, 25) board (side on roll
        in row 1), as the training steps compute them."""
        cdef int idx[FG_TD_MAX_NNZ]
        cdef float val[FG_TD_MAX_NNZ]
        cdef float y[8]
        cdef int nnz = fg_td_encode(&board[0, 0], self.net.contact, idx, val)
        fg_td_forward(&self.net, idx, val, nnz, self.h, y)
        return [self.h[j] for j in range(self.net.hidden)], [y[o] for o in range(5)]

    def inputs(self, const int8_t[:, ::1] board):
        """The board's non-zero inputs as the training steps see them: [(index, value)]."""
        cdef int idx[FG_TD_MAX_NNZ]
        cdef float val[FG_TD_MAX_NNZ]
        cdef int nnz = fg_td_encode(&board[0, 0], self.net.contact, idx, val)
        return [(idx[k], val[k]) for k in range(nnz)]

    def learn(self, const int8_t[:, ::1] board, const float[::1] target, float lr):
        """One gradient step toward target (5) for one board; returns the cross-entropy
        before it."""
        cdef int idx[FG_TD_MAX_NNZ]
        cdef float val[FG_TD_MAX_NNZ]
        cdef float y[8]
        cdef int nnz = fg_td_encode(&board[0, 0], self.net.contact, idx, val)
        fg_td_forward(&self.net, idx, val, nnz, self.h, y)
        return fg_td_step(&self.net, idx, val, nnz, self.h, y, &target[0], lr, self.dh)

    def play(self, uint64_t seed, int64_t g0, int64_t g1, float lam, float lr, const int8_t[:, ::1] start,
             const int8_t[:, ::1] opening_rolls, int64_t max_turns, StopFlag stop=None):
        """Play and learn from games g0..g1-1 (dice: the rollout hash of seed, game, turn;
        the first roll an opening roll). Returns (games, afterstates, loss, gammons,
        backgammons, long_games): games finished and learnt from (fewer than asked when
        *stop* was set), their afterstates and summed cross-entropy before each step, and
        games abandoned at max_turns turns (not learnt from)."""
        cdef const int* sp = &_never if stop is None else &stop.flag
        cdef Ctx* c = ctx_new(0, 4096)
        if c == NULL:
            raise MemoryError("fastgen: cannot allocate the generator context")
        cdef int64_t done = 0, positions = 0, gammons = 0, backgammons = 0, long_games = 0
        cdef double loss = 0.0
        cdef int r
        with nogil:
            r = self._play(c, seed, g0, g1, lam, lr, &start[0, 0], &opening_rolls[0, 0], max_turns, sp,
                           &done, &positions, &loss, &gammons, &backgammons, &long_games)
        ctx_free(c)
        if r == -1:
            raise MemoryError("fastgen: out of memory in self-play")
        return done, positions, loss, gammons, backgammons, long_games

    cdef int _play(self, Ctx* c, uint64_t seed, int64_t g0, int64_t g1, float lam, float lr, const int8_t* start,
                   const int8_t* opening_rolls, int64_t max_turns, const int* stop, int64_t* done,
                   int64_t* positions, double* loss, int64_t* gammons, int64_t* backgammons,
                   int64_t* long_games) noexcept nogil:
        cdef Keys keys = keys_of(seed)
        cdef Outcome out
        cdef Seat seats[2]
        cdef Turns turns
        cdef int8_t board[50]
        cdef int64_t g, t, n
        cdef int res, i, r
        cdef int* ix
        cdef float* vx
        cdef float y[8]
        cdef float flipped[5]
        cdef float* gt
        cdef Game* gm = &self.game
        turns.mlp, turns.net, turns.values, turns.vcap = &self.mlp, &self.net, &self.values, &self.vcap
        turns.scratch, turns.h, turns.gm = self.scratch, self.h, gm
        seats[0].fn, seats[0].state = learn_turn, &turns
        seats[1] = seats[0]              # the network against itself
        for g in range(g0, g1):
            if fg_stopped(stop):
                return 0
            fg_td_table(&self.net, self.table, self.bias0, self.acc)
            memcpy(board, start, BOARD_BYTES)
            # the one game loop, not stopped within a game (a stop ends self-play between games)
            r = play_game(c, board, &keys, g, g, True, opening_rolls, seats, 0, &_never, max_turns, &out)
            if r == -1:
                return -1
            res = out.result if r == 0 else 0
            t = out.turns - 1
            if not res:
                long_games[0] += 1
                continue
            n = t + 1
            gt = gm.targets + t * 5
            gt[0] = 0.0
            gt[1] = 0.0
            gt[2] = 0.0
            gt[3] = 1.0 if res >= 2 else 0.0
            gt[4] = 1.0 if res == 3 else 0.0
            memcpy(gm.values + t * 5, gt, 5 * sizeof(float))   # the last afterstate's value: the result
            gammons[0] += res >= 2
            backgammons[0] += res == 3
            while t > 0:
                t -= 1
                flip5(gm.values + (t + 1) * 5, y)
                flip5(gm.targets + (t + 1) * 5, flipped)
                for i in range(5):
                    gm.targets[t * 5 + i] = (1.0 - lam) * y[i] + lam * flipped[i]
            for t in range(n):
                ix = gm.idx + t * FG_TD_MAX_NNZ
                vx = gm.val + t * FG_TD_MAX_NNZ
                fg_td_forward(&self.net, ix, vx, gm.nnz[t], self.h, y)
                loss[0] += fg_td_step(&self.net, ix, vx, gm.nnz[t], self.h, y, gm.targets + t * 5, lr, self.dh)
            positions[0] += n
            done[0] += 1
        return 0
