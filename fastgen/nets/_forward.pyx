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

from fastgen.core._chooser cimport Chooser

from fastgen.nets._mlp cimport (
    FG_MLP_MAX_LAYERS, FG_MLP_MAX_WIDTH, FG_MLP_PAD, fg_mlp, fg_mlp_init, fg_mlp_scratch, fg_mlp_select, fg_mlp_rows,
    fg_mlp_choose,
)

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
