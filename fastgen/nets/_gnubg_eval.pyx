# cython: language_level=3
"""GNU Backgammon's 0-ply evaluation in nogil loops over the plain C of
fastgen/nets/_gnubg_net.h (classes and inputs: fastgen/nets/_gnubg_inputs.h; finished
games and bear-offs: fastgen/nets/_gnubg_bearoff.h).

Private module. fastgen.nets.gnubg reads the weights (fastgen.nets.gnubg_weights checks
their shapes), the bear-off databases and the boards once (fastgen.core.boards); a
``GnubgKernel`` holds the float32 arrays of the race, crashed and contact nets and the
databases' tables and trusts them, and its loops trust the boards.

Greedy games run whole inside the simulations' game loops (fastgen/sim/_play.pyx):
``GnubgKernel.chooser()`` gives them gnubg's 0-ply choice as a C function
(``GnubgChooser``, a ``Chooser`` of fastgen/core/_chooser.pxd).
"""

from libc.stdint cimport int8_t, int64_t, uint8_t, uint16_t, uint64_t
from libc.string cimport memcpy
from libc.stdlib cimport calloc, free, malloc, realloc

from fastgen.core._chooser cimport Chooser
from fastgen.core._core cimport BOARD_BYTES, OWN, Ctx, StopFlag, ctx_free, ctx_new, generate

cdef extern from "_gnubg_net.h":
    int FGG_MAX_HIDDEN, FGG_MAX_INPUTS
    ctypedef struct fgg_net:
        int n_in, n_hid, n_out
        const float* w
        const float* wo
        const float* th
        const float* to
        float beta_h, beta_o
    ctypedef struct fgg_race_tables:
        const unsigned short* bearoff
        const float* escape
    ctypedef struct fgg_bearoff_tables:
        const uint16_t* one
        const double* first
        const uint16_t* two
        int two_points, two_checkers, n_two
    ctypedef struct fgg_nets:
        fgg_net race, crashed, contact
        int version
        fgg_race_tables tables
        fgg_bearoff_tables bearoff
        fgg_net prune_race, prune_crashed, prune_contact
        int has_prune
    void fgg_init() noexcept nogil
    int fgg_select(int best) noexcept nogil
    ctypedef struct fgg_work:
        pass
    int fgg_queue(const fgg_nets* nets, fgg_work* w, const int8_t* b, float* out) noexcept nogil
    void fgg_flush_all(const fgg_nets* nets, fgg_work* w) noexcept nogil
    void fgg_prune(const fgg_nets* nets, fgg_work* w, const int8_t* b, int cls, float* out) noexcept nogil
    void fgg_correct(const int8_t *b, int cls, float *p, const void *extra) noexcept nogil
    int fgg_classify_flat(const int8_t* p) noexcept nogil
    int fgg_in_two(const fgg_bearoff_tables* t, const int8_t* b) noexcept nogil
    int FGG_OVER, FGG_BEAROFF, FGG_RACE, FGG_NEEDS_TABLE

cdef extern from "_platform.h":
    int fg_stopped(const int* flag) noexcept nogil   # the stop flag's poll (see _platform.h)

cdef extern from "_board_hash.h":
    uint64_t fg_board_slot(const int64_t* table, uint64_t mask, const int8_t* base, const int8_t* p) noexcept nogil


ctypedef struct PruneCache:
    # the pruning nets' corrected outputs of the boards of one pass (prune_keep's rows),
    # each distinct board valued once: the plays of different rolls often lead to the
    # same position. slot: a table of row numbers + 1 (0: empty; fg_board_slot), mask + 1;
    # out: five floats a row, at the row of the board's first occurrence; base: row 0.
    int64_t* slot
    uint64_t mask
    float* out
    const int8_t* base

fgg_init()
fgg_select(2)

#: The class ``rows`` gives a bear-off that needs the first-checker table before it is
#: attached (``GnubgKernel.attach_first``); its outputs are left alone.
NEEDS_TABLE = FGG_NEEDS_TABLE

#: The largest net the kernel takes (gnubg's have 250 inputs and 128 hidden units).
MAX_INPUTS = FGG_MAX_INPUTS
MAX_HIDDEN = FGG_MAX_HIDDEN


def select_kernels(level=None):
    """Use the loops of *level*: 0 the plain C ones, 1 AVX2, 2 AVX-512F, None the best the
    CPU has (what import chooses); a level the CPU lacks falls back to the best below it.
    Returns the level in use. Every level gives the same results to the bit (each vector
    lane does the plain loop's arithmetic in its order). Not thread-safe: call it while
    nothing evaluates."""
    return int(fgg_select(-1 if level is None else int(level)))


cdef int _point(fgg_net* net, spec, int width, list keep) except -1:
    arrays, beta_h, beta_o = spec
    cdef const float[:, ::1] w = arrays[0]
    cdef const float[:, ::1] wo = arrays[1]
    cdef const float[::1] th = arrays[2]
    cdef const float[::1] to = arrays[3]
    if w.shape[0] != width or not 0 < w.shape[1] <= FGG_MAX_HIDDEN or wo.shape[0] != 5 or wo.shape[1] != w.shape[1] \
            or th.shape[0] != w.shape[1] or to.shape[0] != 5:
        raise ValueError("GnubgKernel: a net out of the compiled limits (checked by the caller)")
    keep.extend(arrays)
    net.n_in = w.shape[0]
    net.n_hid = w.shape[1]
    net.n_out = wo.shape[0]
    net.w = &w[0, 0]
    net.wo = &wo[0, 0]
    net.th = &th[0]
    net.to = &to[0]
    net.beta_h = beta_h
    net.beta_o = beta_o
    return 0


cdef class GnubgKernel:
    """The race, crashed and contact nets' float32 arrays as the kernel reads them."""

    cdef fgg_nets nets
    cdef list keep

    def __init__(self, race, crashed, contact, int version, bearoff, escape, first=None, two=None, prune=None):
        """*race*, *crashed*, *contact*: each ``(arrays, beta_hidden, beta_output)`` with
        arrays the C-contiguous float32 (hidden weights (inputs, hidden), output weights
        (5, hidden), hidden thresholds, output thresholds) of a net of 214 (race) or 250
        inputs, at most MAX_HIDDEN hidden units and 5 outputs (checked by the caller);
        *version* 100 or 101, the inputs' PIPLOSS rule; *bearoff* (54264, 32) uint16, the
        one-sided database's turn distributions (gnubg_os0.bd); *escape* (924, 32)
        float32 (``fastgen.nets._gnubg.escape_table()``): the race backgammon estimate's
        tables; *first* (15504, 32) float64, the first-checker distributions of
        ``fastgen.bearoff.gnubg.first_checker_distributions()``, or None to attach them
        later (:meth:`attach_first`); *two*: None or
        ``(values, points, checkers)``, a two-sided database's cubeless values (n, n)
        uint16 for its positions of up to *checkers* checkers on *points* <= 12 points;
        *prune*: None or the pruning nets ``(race, crashed, contact)``, each as *race*
        above but of 200 inputs."""
        self.keep = []
        _point(&self.nets.race, race, 214, self.keep)
        _point(&self.nets.crashed, crashed, 250, self.keep)
        _point(&self.nets.contact, contact, 250, self.keep)
        if version not in (100, 101):
            raise ValueError("GnubgKernel: version must be 100 or 101 (checked by the caller)")
        self.nets.version = version
        self.nets.has_prune = 0
        if prune is not None:
            _point(&self.nets.prune_race, prune[0], 200, self.keep)
            _point(&self.nets.prune_crashed, prune[1], 200, self.keep)
            _point(&self.nets.prune_contact, prune[2], 200, self.keep)
            self.nets.has_prune = 1
        cdef const unsigned short[:, ::1] bo = bearoff
        cdef const float[:, ::1] es = escape
        cdef const unsigned short[:, ::1] tv
        if bo.shape[0] != 54264 or bo.shape[1] != 32 or es.shape[0] != 924 or es.shape[1] != 32:
            raise ValueError("GnubgKernel: race or bear-off tables of the wrong shape (checked by the caller)")
        self.keep.extend([bearoff, escape])
        self.nets.tables.bearoff = &bo[0, 0]
        self.nets.tables.escape = &es[0, 0]
        self.nets.bearoff.one = &bo[0, 0]
        self.nets.bearoff.first = NULL
        if first is not None:
            self.attach_first(first)
        self.nets.bearoff.two = NULL
        if two is not None:
            values, points, checkers = two
            tv = values
            if not 1 <= points <= 12 or not 1 <= checkers <= 15 or tv.shape[0] != tv.shape[1] or tv.shape[0] == 0:
                raise ValueError("GnubgKernel: a two-sided table out of range (checked by the caller)")
            self.keep.append(values)
            self.nets.bearoff.two = &tv[0, 0]
            self.nets.bearoff.two_points = points
            self.nets.bearoff.two_checkers = checkers
            self.nets.bearoff.n_two = tv.shape[0]

    def attach_first(self, first):
        """Attach the first-checker distributions (15504, 32) float64 (once; kept for the
        kernel's life, read-only)."""
        cdef const double[:, ::1] fc = first
        if fc.shape[0] != 15504 or fc.shape[1] != 32:
            raise ValueError("GnubgKernel: a first-checker table of the wrong shape (checked by the caller)")
        if self.nets.bearoff.first != NULL:
            return
        self.keep.append(first)
        self.nets.bearoff.first = &fc[0, 0]

    @property
    def has_first(self):
        """Whether the first-checker distributions are attached."""
        return self.nets.bearoff.first != NULL

    def _need_first(self):
        if self.nets.bearoff.first == NULL:
            raise ValueError("GnubgKernel: the first-checker table must be attached first (by the caller)")

    def rows(self, const int8_t[:, :, ::1] boards, bint swap, float[:, ::1] out, int8_t[::1] classes,
             Py_ssize_t lo, Py_ssize_t hi):
        """For boards lo..hi-1 without the GIL: classes[i] their class, and out[i] their
        five outputs (row 1 on roll, or row 0 with *swap*), gnubg's 0-ply evaluation; a
        bear-off that needs the first-checker table before it is attached gets the class
        NEEDS_TABLE and out[i] is left alone."""
        if hi <= lo:
            return
        # zeroed: the output layer runs on whole blocks, lanes with no position included
        cdef fgg_work* work = <fgg_work*> calloc(1, sizeof(fgg_work))
        if work == NULL:
            raise MemoryError()
        cdef int8_t turned[50]
        cdef Py_ssize_t i
        cdef const int8_t* b
        with nogil:
            for i in range(lo, hi):
                b = opponent_first(&boards[i, 0, 0], swap, turned)
                classes[i] = <int8_t> fgg_queue(&self.nets, work, b, &out[i, 0])
            fgg_flush_all(&self.nets, work)
        free(work)

    def ply_rows(self, const int8_t[:, :, ::1] boards, bint swap, double[:, ::1] out, Py_ssize_t lo,
                 Py_ssize_t hi, int plies, StopFlag stop=None, int prune=0):
        """out[i] for boards lo..hi-1 (row 1 on roll, or row 0 with *swap*) without the GIL:
        gnubg's evaluation at *plies* (1..MAX_PLIES; see plyn below). With *stop*, the
        loops poll its flag before each roll, at every ply, and return early once it is
        set (the rows not reached are left alone). With *prune* > 0 (the pruning nets
        attached), each choice among more than *prune* + floor(log2(plays)) plays keeps
        that many by the pruning nets before the full nets value them (see choose; GNU
        Backgammon's rule with *prune* 5). Returns whether they stopped."""
        if prune < 0 or (prune > 0 and not self.nets.has_prune):
            raise ValueError("GnubgKernel: prune needs the pruning nets (checked by the caller)")
        if not 1 <= plies <= MAX_PLIES:
            raise ValueError("GnubgKernel: plies out of range (checked by the caller)")
        if hi <= lo:
            return False
        self._need_first()
        cdef SearchN s
        cdef int rc
        s.prune = prune
        s.work = <fgg_work*> calloc(1, sizeof(fgg_work))
        if levels_init(&s.lv, plies) < 0 or s.work == NULL:
            searchn_free(&s)
            raise MemoryError()
        s.lv.stop = &stop.flag if stop is not None else NULL
        with nogil:
            rc = ply_loop(plyn_rows, &self.nets, &s, boards, swap, out, lo, hi, plies)
        searchn_free(&s)
        if rc < 0:
            raise MemoryError()
        return rc > 0

    @property
    def has_prune(self):
        """Whether the pruning nets are attached."""
        return self.nets.has_prune != 0

    def prune_keep(self, const int8_t[:, :, ::1] boards, bint swap, const int64_t[::1] offsets, int least,
                   const double[:, ::1] prices, uint8_t[::1] kept, Py_ssize_t g_lo, Py_ssize_t g_hi):
        """GNU Backgammon's pruned choice over groups g_lo..g_hi-1 of plays, without the GIL: group g is
        boards offsets[g]..offsets[g+1]-1 (the positions after a roll's plays, the
        opponent on roll in row 1, or row 0 with *swap*). A group of k boards, more than
        least + floor(log2(k)), all of one class with a pruning net, keeps that many best
        for the mover by 1 - 2 p0 + gw p3 + bw p4 - gl p1 - bl p2 on the pruning net's
        corrected outputs p (the opponent's), (gw, bw, gl, bl) = prices[g] (ties to the
        first): kept[i] 1 for those, 0 for the rest; every other group keeps all."""
        if not self.nets.has_prune:
            raise ValueError("GnubgKernel: no pruning nets attached (checked by the caller)")
        cdef Py_ssize_t groups = offsets.shape[0] - 1
        if (prices.shape[0] < groups or prices.shape[1] != 4 or kept.shape[0] != boards.shape[0]
                or not 0 <= g_lo <= g_hi <= groups):
            raise ValueError("GnubgKernel: prices or kept of the wrong shape (checked by the caller)")
        cdef fgg_work* work = <fgg_work*> calloc(1, sizeof(fgg_work))
        cdef int cap = 64
        cdef int* best = <int*> malloc(cap * sizeof(int))
        cdef double* val = <double*> malloc(cap * sizeof(double))
        cdef PruneCache cache
        cdef Py_ssize_t rows = offsets[g_hi] - offsets[g_lo], size = 1
        while size < 2 * rows:
            size <<= 1
        cache.slot = <int64_t*> calloc(size, sizeof(int64_t))
        cache.mask = <uint64_t> (size - 1)
        cache.out = <float*> malloc((rows + 1) * 5 * sizeof(float))
        cache.base = &boards[offsets[g_lo], 0, 0] if rows > 0 else NULL
        if work == NULL or best == NULL or val == NULL or cache.slot == NULL or cache.out == NULL:
            free(work)
            free(best)
            free(val)
            free(cache.slot)
            free(cache.out)
            raise MemoryError()
        cdef Py_ssize_t g, i, lo, hi
        cdef int k, keep, m, c, bad = 0
        with nogil:
            for g in range(g_lo, g_hi):
                lo = offsets[g]
                hi = offsets[g + 1]
                k = <int> (hi - lo)
                for i in range(lo, hi):
                    kept[i] = 1
                keep = prune_keep_count(least, k)
                if k <= keep:
                    continue
                if keep > cap:
                    cap = keep
                    free(best)
                    free(val)
                    best = <int*> malloc(cap * sizeof(int))
                    val = <double*> malloc(cap * sizeof(double))
                    if best == NULL or val == NULL:
                        bad = 1
                        break
                m = prune_select(&self.nets, work, &boards[lo, 0, 0], k, swap, least, &prices[g, 0], best, val,
                                 &cache)
                if m < 0:
                    continue
                for i in range(lo, hi):
                    kept[i] = 0
                for c in range(m):
                    kept[lo + best[c]] = 1
        free(work)
        free(best)
        free(val)
        free(cache.slot)
        free(cache.out)
        if bad:
            raise MemoryError()

    def prune_rows(self, const int8_t[:, :, ::1] boards, bint swap, float[:, ::1] out, int8_t[::1] classes,
                   Py_ssize_t lo, Py_ssize_t hi, bint corrected=False):
        """For boards lo..hi-1 without the GIL: classes[i] their class and, for a race,
        crashed or contact position, out[i] the pruning net of its class (raw outputs, or
        with *corrected* put through the full nets' corrections, as a search uses them;
        row 1 on roll, or row 0 with *swap*); the others' out[i] is left alone."""
        if not self.nets.has_prune:
            raise ValueError("GnubgKernel: no pruning nets attached (checked by the caller)")
        if hi <= lo:
            return
        cdef fgg_work* work = <fgg_work*> calloc(1, sizeof(fgg_work))
        if work == NULL:
            raise MemoryError()
        cdef int8_t turned[50]
        cdef Py_ssize_t i
        cdef const int8_t* b
        cdef int cls
        with nogil:
            for i in range(lo, hi):
                b = opponent_first(&boards[i, 0, 0], swap, turned)
                cls = fgg_classify_flat(b)
                classes[i] = <int8_t> cls
                if cls >= 2:
                    fgg_prune(&self.nets, work, b, cls, &out[i, 0])
                    if corrected:
                        fgg_correct(b, cls, &out[i, 0], &self.nets.tables)
        free(work)

    def chooser(self):
        """gnubg's 0-ply greedy play for the simulations' game loops (fastgen.sim._play),
        with scratch memory of its own: one a thread (the first-checker table attached)."""
        self._need_first()
        return GnubgChooser(self)


ctypedef struct GnubgState:
    const fgg_nets* nets
    fgg_work* work
    float* out       # five a candidate, grown as needed
    int cap


cdef int gnubg_choose(void* state, const int8_t* board, int d1, int d2, const int8_t* cands, int k,
                      uint64_t game, uint64_t turn) noexcept nogil:
    """The candidate whose position is best for the mover: minus the opponent's cubeless
    equity (in double from the float32 outputs, term by term as
    fastgen.players.evaluators.equity sums it), ties to the first; -1 when memory is
    short."""
    cdef GnubgState* s = <GnubgState*> state
    cdef float* grown
    cdef int8_t turned[50]
    cdef int c, best = 0
    cdef double v, best_v = 0.0
    cdef float* o
    if k > s.cap:
        grown = <float*> realloc(s.out, 5 * k * sizeof(float))
        if grown == NULL:
            return -1
        s.out = grown
        s.cap = k
    for c in range(k):
        # the candidate with the opponent (row 0) on roll
        memcpy(&turned[0], cands + 50 * c + 25, 25)
        memcpy(&turned[25], cands + 50 * c, 25)
        fgg_queue(s.nets, s.work, &turned[0], s.out + 5 * c)
    fgg_flush_all(s.nets, s.work)
    for c in range(k):
        o = s.out + 5 * c
        v = -(2.0 * <double> o[0] + <double> o[1] + <double> o[2] - <double> o[3] - <double> o[4] - 1.0)
        if c == 0 or v > best_v:
            best = c
            best_v = v
    return best


cdef class GnubgChooser(Chooser):
    """gnubg's 0-ply greedy play as the simulations' game loops call it (one thread at a
    time)."""

    cdef GnubgState st
    cdef GnubgKernel kernel   # keeps the nets' arrays alive

    def __cinit__(self, GnubgKernel kernel):
        self.kernel = kernel
        self.st.nets = &kernel.nets
        self.st.cap = 64
        self.st.work = <fgg_work*> calloc(1, sizeof(fgg_work))
        self.st.out = <float*> malloc(5 * self.st.cap * sizeof(float))
        if self.st.work == NULL or self.st.out == NULL:
            raise MemoryError("fastgen: cannot allocate gnubg's chooser")
        self.fn = gnubg_choose
        self.state = &self.st

    def __dealloc__(self):
        free(self.st.work)
        free(self.st.out)


include "_ply.pxi"


ctypedef struct SearchN:  # one thread's memory for plyn
    Levels lv
    fgg_work* work
    int prune                 # a choice among more plays keeps this many by the pruning nets; 0: none


cdef void searchn_free(SearchN* s) noexcept nogil:
    free(s.work)
    s.work = NULL
    levels_free(&s.lv)


cdef int plyn_rows(const void* nets, void* state, const int8_t* board, int depth, double* out) noexcept nogil:
    return plyn(<const fgg_nets*> nets, <SearchN*> state, board, depth, out)


cdef inline double mover_equity(const float* o) noexcept nogil:
    """The mover's cubeless equity after its play, from the opponent's outputs o."""
    return -(2.0 * <double> o[0] + <double> o[1] + <double> o[2] - <double> o[3] - <double> o[4] - 1.0)


cdef inline int prune_keep_count(int least, int k) noexcept nogil:
    """How many of *k* plays a pruned choice keeps: *least* plus floor(log2(k)) (GNU
    Backgammon's rule since its pruning nets stopped keeping a fixed ten: 5 plus the
    binary logarithm of the count; its source's comment, read for the rule)."""
    cdef int keep = least
    while k > 1:
        k >>= 1
        keep += 1
    return keep


cdef inline const int8_t* opponent_first(const int8_t* b, bint swap, int8_t* turned) noexcept nogil:
    """*b* (50 bytes) with its rows swapped into *turned* when *swap*, else *b* itself."""
    if not swap:
        return b
    memcpy(&turned[0], b + 25, 25)
    memcpy(&turned[25], b, 25)
    return &turned[0]


cdef void pruned_outputs(const fgg_nets* nets, fgg_work* w, const int8_t* raw, bint swap, int cls, float* o,
                         PruneCache* cache) noexcept nogil:
    """o[0..4]: the pruning net of class cls on the board at raw (50 bytes, the opponent on
    roll in row 1, or row 0 with *swap*), corrected as the full nets are; with *cache*,
    read from it when an equal board was valued before (the same bytes: the same
    answer), else valued and kept there."""
    cdef int8_t turned[50]
    cdef const int8_t* b
    cdef Py_ssize_t row = 0
    cdef uint64_t j = 0
    cdef int q
    if cache != NULL:
        row = (raw - cache.base) // BOARD_BYTES
        j = fg_board_slot(cache.slot, cache.mask, cache.base, raw)
        if cache.slot[j]:
            for q in range(5):
                o[q] = cache.out[(cache.slot[j] - 1) * 5 + q]
            return
    b = opponent_first(raw, swap, turned)
    fgg_prune(nets, w, b, cls, o)
    fgg_correct(b, cls, o, &nets.tables)
    if cache != NULL:
        cache.slot[j] = row + 1
        for q in range(5):
            cache.out[row * 5 + q] = o[q]


cdef int prune_select(const fgg_nets* nets, fgg_work* w, const int8_t* boards, int k, bint swap, int least,
                      const double* prices, int* best, double* val, PruneCache* cache) noexcept nogil:
    """GNU Backgammon's pruned choice among k positions after a roll's plays (boards[0..k-1],
    50 bytes each, the opponent on roll in row 1, or row 0 with *swap*): -1 when it does
    not prune (k <= least + floor(log2(k)), or the positions not all of one class with a
    pruning net: every play goes on); else m, with best[0..m-1] the indices of the m kept,
    the best for the mover first by the pruning net of their class (corrected as the full
    nets are: fgg_correct; read from *cache* when not NULL and an equal board was valued
    before), ties to the first. The mover's value: its cubeless equity when *prices* is
    NULL, else 1 - 2 p0 + gw p3 + bw p4 - gl p1 - bl p2 with (gw, bw, gl, bl) =
    prices[0..3]. best and val hold at least least + floor(log2(k)) entries."""
    cdef int8_t turned[50]
    cdef float o[5]
    cdef int keep = prune_keep_count(least, k), first = -1, cls, i, j, m = 0
    cdef double v
    if k <= keep:
        return -1
    for i in range(k):
        cls = fgg_classify_flat(opponent_first(boards + i * BOARD_BYTES, swap, turned))
        if i == 0:
            first = cls
        if cls != first or cls < FGG_RACE:
            return -1
    for i in range(k):
        pruned_outputs(nets, w, boards + i * BOARD_BYTES, swap, first, &o[0], cache)
        if prices == NULL:
            v = mover_equity(&o[0])
        else:
            v = (1.0 - 2.0 * <double> o[0] + prices[0] * <double> o[3] + prices[1] * <double> o[4]
                 - prices[2] * <double> o[1] - prices[3] * <double> o[2])
        j = m if m < keep else keep - 1
        if m == keep and v <= val[j]:
            continue
        while j > 0 and val[j - 1] < v:
            best[j] = best[j - 1]
            val[j] = val[j - 1]
            j -= 1
        best[j] = i
        val[j] = v
        if m < keep:
            m += 1
    return m


cdef int choose(const fgg_nets* nets, SearchN* s, int lvl, int k) noexcept nogil:
    """The play the mover makes among the k candidates in s.lv.ctx[lvl] (their positions with
    the opponent on roll valued at 0 ply into s.lv.out[lvl]): the best by cubeless equity,
    ties to the first.

    With s.prune > 0 (the pruning nets attached), GNU Backgammon's pruned choice: when
    there are more than K = s.prune + floor(log2(k)) candidates and every candidate's
    position (opponent on roll) is of one class that has a pruning net (race, crashed or
    contact), the pruning net of that class values each (its outputs put through the
    same corrections as the full nets', fgg_correct) and only the K best by the mover's
    cubeless equity on those (ties to the first) are valued by the full nets; the
    others' s.lv.out rows are left undefined. Otherwise every candidate is valued by the
    full nets."""
    cdef int8_t turned[50]
    cdef const int8_t* boards = s.lv.ctx[lvl].boards
    cdef int j, c, m = -1, best = 0
    cdef double v, best_v = 0.0
    cdef int* kept = s.lv.kept[lvl]
    if s.prune > 0 and nets.has_prune:
        m = prune_select(nets, s.work, boards, k, True, s.prune, NULL, kept, s.lv.eq[lvl], NULL)
    if m < 0:
        for j in range(k):
            # the play's position with the opponent (row 0) on roll
            fgg_queue(nets, s.work, opponent_first(boards + j * BOARD_BYTES, True, turned), s.lv.out[lvl] + 5 * j)
        fgg_flush_all(nets, s.work)
        for j in range(k):
            v = mover_equity(s.lv.out[lvl] + 5 * j)
            if j == 0 or v > best_v:
                best = j
                best_v = v
        return best
    for c in range(m):
        j = kept[c]
        fgg_queue(nets, s.work, opponent_first(boards + j * BOARD_BYTES, True, turned), s.lv.out[lvl] + 5 * j)
    fgg_flush_all(nets, s.work)
    best = kept[0]
    for c in range(m):
        j = kept[c]
        v = mover_equity(s.lv.out[lvl] + 5 * j)
        if c == 0 or v > best_v or (v == best_v and j < best):
            best = j
            best_v = v
    return best


cdef int plyn(const fgg_nets* nets, SearchN* s, const int8_t* board, int depth, double* out) noexcept nogil:
    """gnubg's evaluation of *board* (row 1 on roll) at *depth* >= 1 plies into out[0..4]:
    for each of the 21 rolls, every play valued at 0 ply (its position with the
    opponent on roll) and the best for the mover kept (minus the opponent's cubeless
    equity, ties to the first play in the generator's order), then the kept play's
    position valued at depth - 1 plies with the opponent on roll; those probabilities,
    seen from the mover, averaged over the 36 dice. A finished game, and a bear-off both
    sides of which fit the two-sided database, keep their 0-ply value at any depth, as
    gnubg keeps them (exact, no look ahead). 0 when done, 1 when s.lv.stop was set (out
    left alone), -1 when memory is short."""
    cdef float v0[5]
    cdef double acc[5]
    cdef double sub[5]
    cdef int8_t turned[50]
    cdef int d1, d2, k, best, q, rc
    cdef int lvl = depth - 1
    cdef float* o
    cdef const int8_t* after
    cdef Ctx* ctx = s.lv.ctx[lvl]
    cdef int cls = fgg_classify_flat(board)
    if cls == FGG_OVER or (cls == FGG_BEAROFF and fgg_in_two(&nets.bearoff, board)):
        fgg_queue(nets, s.work, board, &v0[0])
        fgg_flush_all(nets, s.work)
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
            best = choose(nets, s, lvl, k)
            if depth == 1:
                o = s.lv.out[lvl] + 5 * best
                for q in range(5):
                    sub[q] = o[q]
            else:
                after = ctx.boards + best * BOARD_BYTES
                memcpy(&turned[0], after + OWN, 25)
                memcpy(&turned[25], after, 25)
                rc = plyn(nets, s, &turned[0], depth - 1, &sub[0])
                if rc != 0:
                    return rc
            # sub: the opponent's probabilities, the opponent on roll
            add_reply(&acc[0], &sub[0], 1.0 if d1 == d2 else 2.0)
    for q in range(5):
        out[q] = acc[q] / 36.0
    return 0
