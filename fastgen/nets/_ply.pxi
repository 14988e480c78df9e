# What the compiled look aheads share (included by _forward.pyx, fastgen's networks, and
# _gnubg_eval.pyx, GNU Backgammon's nets): each ply's generator and candidate buffers,
# the reply's probabilities turned round and added to the roll average, and the loop
# over a batch's rows. Each module's plyn(nets, state, board, depth, out) does the
# evaluating; the state it takes starts with a Levels.

cdef enum:
    FG_MAX_PLIES = 3
#: The deepest look ahead compiled (a plain 3-ply evaluation values some 4 million
#: positions at 0 ply: seconds each).
MAX_PLIES = FG_MAX_PLIES


ctypedef struct Levels:  # one thread's memory a ply: a generator and its candidates' values
    Ctx* ctx[FG_MAX_PLIES]
    float* out[FG_MAX_PLIES]   # five a candidate (the positions' 0-ply outputs)
    double* eq[FG_MAX_PLIES]   # one a candidate (the mover's equity)
    int* kept[FG_MAX_PLIES]    # the candidates a pruned choice keeps
    int cap[FG_MAX_PLIES]
    const int* stop            # polled before each roll at every ply; NULL: never


cdef int levels_init(Levels* s, int plies) noexcept nogil:
    """Buffers for *plies* levels; -1 when memory is short (levels_free still frees)."""
    cdef int lvl, bad = 0
    s.stop = NULL
    for lvl in range(FG_MAX_PLIES):
        s.cap[lvl] = 0
        s.ctx[lvl] = NULL
        s.out[lvl] = NULL
        s.eq[lvl] = NULL
        s.kept[lvl] = NULL
        if lvl < plies:
            s.cap[lvl] = 64
            s.ctx[lvl] = ctx_new(0, 256)
            s.out[lvl] = <float*> malloc(5 * 64 * sizeof(float))
            s.eq[lvl] = <double*> malloc(64 * sizeof(double))
            s.kept[lvl] = <int*> malloc(64 * sizeof(int))
            bad = bad or s.ctx[lvl] == NULL or s.out[lvl] == NULL or s.eq[lvl] == NULL or s.kept[lvl] == NULL
    return -1 if bad else 0


cdef void levels_free(Levels* s) noexcept nogil:
    cdef int lvl
    for lvl in range(FG_MAX_PLIES):
        if s.ctx[lvl] != NULL:
            ctx_free(s.ctx[lvl])
            s.ctx[lvl] = NULL
        free(s.out[lvl])
        free(s.eq[lvl])
        free(s.kept[lvl])
        s.out[lvl] = NULL
        s.eq[lvl] = NULL
        s.kept[lvl] = NULL


cdef int levels_grow(Levels* s, int lvl, int k) noexcept nogil:
    """Room for k candidates at level lvl; -1 when memory is short."""
    if k <= s.cap[lvl]:
        return 0
    cdef float* o = <float*> realloc(s.out[lvl], 5 * k * sizeof(float))
    if o == NULL:
        return -1
    s.out[lvl] = o
    cdef double* e = <double*> realloc(s.eq[lvl], k * sizeof(double))
    if e == NULL:
        return -1
    s.eq[lvl] = e
    cdef int* kp = <int*> realloc(s.kept[lvl], k * sizeof(int))
    if kp == NULL:
        return -1
    s.kept[lvl] = kp
    s.cap[lvl] = k
    return 0


cdef inline void add_reply(double* acc, const double* sub, double wgt) noexcept nogil:
    """Add *sub* (the opponent's probabilities, the opponent on roll), turned round to the
    mover, weighted *wgt* (2 a roll of two numbers, 1 a double) into *acc*."""
    acc[0] += wgt * (1.0 - sub[0])
    acc[1] += wgt * sub[3]
    acc[2] += wgt * sub[4]
    acc[3] += wgt * sub[1]
    acc[4] += wgt * sub[2]


ctypedef int (*plyn_fn)(const void* nets, void* state, const int8_t* board, int depth, double* out) noexcept nogil


cdef int ply_loop(plyn_fn plyn_of, const void* nets, void* state, const int8_t[:, :, ::1] boards, bint swap,
                  double[:, ::1] out, Py_ssize_t lo, Py_ssize_t hi, int plies) noexcept nogil:
    """out[i] = plyn(boards[i]) for lo <= i < hi (row 1 on roll, or row 0 with *swap*):
    0 when done, 1 when stopped (the rows not reached left alone), -1 when memory is short."""
    cdef int8_t turned[50]
    cdef Py_ssize_t i
    cdef const int8_t* b
    cdef int rc = 0
    for i in range(lo, hi):
        b = &boards[i, 0, 0]
        if swap:
            memcpy(&turned[0], b + 25, 25)
            memcpy(&turned[25], b, 25)
            b = &turned[0]
        rc = plyn_of(nets, state, b, plies, &out[i, 0])
        if rc != 0:
            break
    return rc
