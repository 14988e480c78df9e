# Declarations of the compiled networks' kernel (fastgen/nets/_mlp.h, plain C), cimported
# by the extensions that run it: the forward pass of fastgen.nets (fastgen/nets/_forward.pyx)
# and the trainer's self-play (fastgen/train/_selfplay.pyx). Declarations only: no module
# of this name is built.

from libc.stdint cimport int8_t, int64_t

cdef extern from "_mlp.h":
    enum:
        FG_MLP_MAX_LAYERS
        FG_MLP_MAX_WIDTH
        FG_MLP_PAD
        FG_CONTACT_WIDTH
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
        int n_extra
        const float* w_extra
    void fg_mlp_init() noexcept nogil
    size_t fg_mlp_scratch(const fg_mlp* net) noexcept nogil
    int fg_mlp_select(int best) noexcept nogil
    void fg_mlp_rows(const fg_mlp* net, const int8_t* boards, int swap, int raw, float* out,
                     int64_t lo, int64_t hi, float* scratch) noexcept nogil
    void fg_mlp_choose(const fg_mlp* net, const int8_t* cand, const int64_t* offsets, int64_t g0,
                       int64_t g1, int64_t* choice, double* values, float* scratch) noexcept nogil
