# cython: language_level=3
"""The compiled forward pass of fastgen.nets: nogil loops over the kernel in
fastgen/nets/_mlp.h (plain C).

Private module. fastgen.nets.network checks the weights once (shapes, dtype, finite
values, the compiled limits) and the boards once (fastgen.core.boards); a ``Kernel``
holds the checked float32 arrays and trusts them, and its loops trust the boards.

Greedy games run whole inside the simulations' game loops (fastgen/sim/_play.pyx:
rollouts and duels): ``Kernel.chooser()`` gives them the network's choice as a C function
(``NetChooser``, a ``Chooser`` of fastgen/core/_chooser.pxd, the core's ABI of a native
policy), so every play still comes from the one generator and every roll from the
rollout hash, and neither extension imports the other.
"""

from libc.stdint cimport int8_t, int32_t, int64_t, uint64_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy

from fastgen.core._chooser cimport Chooser
from fastgen.core._core cimport BOARD_BYTES, OWN, Ctx, StopFlag, ctx_free, ctx_new, generate, win_of

from fastgen.nets._mlp cimport (
    FG_MLP_MAX_LAYERS, FG_MLP_MAX_WIDTH, FG_MLP_PAD, fg_mlp, fg_mlp_init, fg_mlp_scratch, fg_mlp_select, fg_mlp_rows,
    fg_mlp_choose,
)

cdef extern from "_platform.h":
    int fg_stopped(const int* flag) noexcept nogil   # the stop flag's poll (see _platform.h)

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
                 int activation, int outputs, extra=None):
        """*table*: (2 * 26 * 16, P1) the first layer's rows; *bias0*: (P1,); *hidden_w*,
        *hidden_b*: layers 1 .. L-2, (width[l], P[l+1]) and (P[l+1],); *last_t*:
        (outputs, P[L-1]) (unused for one layer); *last_b*: (outputs,); *widths*: the real
        widths, inputs first (P: each rounded up to a multiple of PAD); *extra*: None, or
        the "contact" features' rows of the first layer, (22, P1). float32 C arrays,
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
        self.net.n_extra = 0
        self.net.w_extra = NULL
        if extra is not None:
            self.keep.append(extra)
            w2 = extra
            self.net.n_extra = w2.shape[0]
            self.net.w_extra = &w2[0, 0]

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

    def chooser(self):
        """The network's greedy play for the simulations' game loops (fastgen.sim._play), with
        scratch memory of its own: one a thread."""
        return NetChooser(self)

    def ply_rows(self, const int8_t[:, :, ::1] boards, bint swap, double[:, ::1] out, Py_ssize_t lo,
                 Py_ssize_t hi, int plies, StopFlag stop=None):
        """out[i] for boards lo..hi-1 (row 1 on roll, or row 0 with *swap*) without the GIL:
        the network's evaluation at *plies* (1..MAX_PLIES; see plyn below). With *stop*, the
        loops poll its flag before each roll, at every ply, and return early once it is
        set (the rows not reached are left alone). Returns whether they stopped."""
        if not 1 <= plies <= MAX_PLIES:
            raise ValueError("Kernel: plies out of range (checked by the caller)")
        if hi <= lo:
            return False
        cdef Look s
        cdef int rc
        s.net = &self.net
        s.scratch = <float*> malloc(fg_mlp_scratch(&self.net) * sizeof(float))
        if levels_init(&s.lv, plies) < 0 or s.scratch == NULL:
            look_free(&s)
            raise MemoryError()
        s.lv.stop = &stop.flag if stop is not None else NULL
        with nogil:
            rc = ply_loop(plyn_rows, &self.net, &s, boards, swap, out, lo, hi, plies)
        look_free(&s)
        if rc < 0:
            raise MemoryError()
        return rc > 0


ctypedef struct NetState:
    const fg_mlp* net
    float* scratch
    double* values   # one a candidate, grown as needed
    int64_t vcap


cdef int net_choose(void* state, const int8_t* board, int d1, int d2, const int8_t* cands, int k,
                    uint64_t game, uint64_t turn) noexcept nogil:
    """The greedy choice among k candidates (fg_mlp_choose of one game), -1 when memory
    is short."""
    cdef NetState* s = <NetState*> state
    cdef int64_t offsets[2]
    cdef int64_t choice = 0
    cdef double* grown
    if k > s.vcap:
        grown = <double*> realloc(s.values, k * sizeof(double))
        if grown == NULL:
            return -1
        s.values = grown
        s.vcap = k
    offsets[0] = 0
    offsets[1] = k
    fg_mlp_choose(s.net, cands, offsets, 0, 1, &choice, s.values, s.scratch)
    return <int> choice


cdef class NetChooser(Chooser):
    """A network's greedy play as the simulations' game loops call it (one thread at a time)."""

    cdef NetState st
    cdef Kernel kernel   # keeps the network's arrays alive

    def __cinit__(self, Kernel kernel):
        self.kernel = kernel
        self.st.net = &kernel.net
        self.st.vcap = 256
        self.st.scratch = <float*> malloc(fg_mlp_scratch(&kernel.net) * sizeof(float))
        self.st.values = <double*> malloc(self.st.vcap * sizeof(double))
        if self.st.scratch == NULL or self.st.values == NULL:
            raise MemoryError("fastgen: cannot allocate a network's chooser")
        self.fn = net_choose
        self.state = &self.st

    def __dealloc__(self):
        free(self.st.scratch)
        free(self.st.values)


# --------------------------------------------------------------------------- looking ahead

include "_ply.pxi"


ctypedef struct Look:  # one thread's memory for plyn
    Levels lv
    const fg_mlp* net
    float* scratch


cdef void look_free(Look* s) noexcept nogil:
    free(s.scratch)
    s.scratch = NULL
    levels_free(&s.lv)


cdef int plyn_rows(const void* nets, void* state, const int8_t* board, int depth, double* out) noexcept nogil:
    return plyn(<const fg_mlp*> nets, <Look*> state, board, depth, out)


cdef int plyn(const fg_mlp* net, Look* s, const int8_t* board, int depth, double* out) noexcept nogil:
    """The network's evaluation of *board* (row 1 on roll) at *depth* >= 1 plies into
    out[0..4]: for each of the 21 rolls, the play the network makes at 0 ply (fg_mlp_choose:
    the best for the mover, exact where it bears off the last checker, ties to the first
    in the generator's order), its position valued at depth - 1 plies with the opponent
    on roll (at 0 ply the network; a finished game exactly, looked no further); those
    probabilities, seen from the mover, averaged over the 36 dice. A finished board (a
    side with no checker left) keeps its 0-ply value. 0 when done, 1 when s.lv.stop was set
    (out left alone), -1 when memory is short."""
    cdef float v0[5]
    cdef double acc[5]
    cdef double sub[5]
    cdef int8_t turned[50]
    cdef int d1, d2, k, q, rc, w, i, left0 = 0, left1 = 0
    cdef int64_t best = 0
    cdef int64_t offsets[2]
    cdef int lvl = depth - 1
    cdef const int8_t* after
    cdef Ctx* ctx = s.lv.ctx[lvl]
    for i in range(25):
        left0 |= board[i]
        left1 |= board[OWN + i]
    if left0 == 0 or left1 == 0:
        fg_mlp_rows(net, board, 0, 0, &v0[0], 0, 1, s.scratch)
        for q in range(5):
            out[q] = v0[q]
        return 0
    for q in range(5):
        acc[q] = 0.0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            if s.lv.stop != NULL and fg_stopped(s.lv.stop):
                return 1
            ctx.n = 0
            k = generate(ctx, board, d1, d2)
            if k < 0:
                return -1
            if levels_grow(&s.lv, lvl, k) < 0:
                return -1
            offsets[0] = 0
            offsets[1] = k
            fg_mlp_choose(net, ctx.boards, &offsets[0], 0, 1, &best, s.lv.eq[lvl], s.scratch)
            after = ctx.boards + best * BOARD_BYTES
            w = win_of(after)
            if w:  # the mover has borne off its last checker: sub is the opponent's loss
                sub[0] = 0.0
                sub[1] = 0.0
                sub[2] = 0.0
                sub[3] = 1.0 if w >= 2 else 0.0
                sub[4] = 1.0 if w >= 3 else 0.0
            elif depth == 1:
                fg_mlp_rows(net, after, 1, 0, &v0[0], 0, 1, s.scratch)
                for q in range(5):
                    sub[q] = v0[q]
            else:
                memcpy(&turned[0], after + OWN, 25)
                memcpy(&turned[25], after, 25)
                rc = plyn(net, s, &turned[0], depth - 1, &sub[0])
                if rc != 0:
                    return rc
            # sub: the opponent's probabilities, the opponent on roll
            add_reply(&acc[0], &sub[0], 1.0 if d1 == d2 else 2.0)
    for q in range(5):
        out[q] = acc[q] / 36.0
    return 0
