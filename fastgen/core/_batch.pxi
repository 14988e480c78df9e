# Part of the compiled core: included into fastgen/core/_core.pyx (one extension, so
# the C compiler can inline across files); the names and imports are _core.pyx's.
#
# Batches: single-position calls, batch parts and their merge, and the two-thread
# batch that writes its output straight into one reserved mapping.


# ---------------------------------------------------------------- single positions and batch parts

cdef Ctx* _single = NULL  # used under the GIL only, by single-position calls


cdef Ctx* single_ctx() except NULL:
    global _single
    if _single == NULL:
        _single = ctx_new(0, 256)
        if _single == NULL:
            raise MemoryError("fastgen: cannot allocate the generator context")
    _single.n = 0
    return _single


cdef inline int small_die(object d):
    """The value of a die given as a plain int 1..6, else 0."""
    cdef long v
    if type(d) is not int:
        return 0
    v = d
    return <int> v if 1 <= v <= 6 else 0


cdef object new_int8(int nd, cnp.npy_intp* dims, const void* src, size_t nbytes):
    cdef cnp.ndarray out = cnp.PyArray_EMPTY(nd, dims, cnp.NPY_INT8, 0)
    memcpy(cnp.PyArray_DATA(out), src, nbytes)
    return out


def legal_plays_fast(object board, object dice):
    """The common case in one call: a C-contiguous int8 (2, 25) array and a tuple or
    list of two ints. Returns (board copy, d1, d2, boards, moves), or None when the input
    is of another kind or invalid, so the caller takes the validating path.
    """
    cdef cnp.ndarray arr
    cdef int d1, d2, k
    cdef const int8_t* src
    cdef Ctx* c
    cdef cnp.npy_intp dims[3]
    if type(board) is not np.ndarray or (type(dice) is not tuple and type(dice) is not list):
        return None
    arr = <cnp.ndarray> board
    if (cnp.PyArray_NDIM(arr) != 2 or cnp.PyArray_DIMS(arr)[0] != 2 or cnp.PyArray_DIMS(arr)[1] != 25
            or cnp.PyArray_TYPE(arr) != cnp.NPY_INT8 or not cnp.PyArray_IS_C_CONTIGUOUS(arr)
            or len(dice) != 2):
        return None
    d1 = small_die(dice[0])
    d2 = small_die(dice[1])
    src = <const int8_t*> cnp.PyArray_DATA(arr)
    if d1 == 0 or d2 == 0 or board_error(src):
        return None
    c = single_ctx()
    k = generate(c, src, d1, d2)
    if k < 0:
        raise MemoryError("fastgen: out of memory generating plays")
    dims[0] = 2
    dims[1] = 25
    copy = new_int8(2, dims, src, BOARD_BYTES)
    dims[0] = k
    dims[1] = 2
    dims[2] = 25
    boards = new_int8(3, dims, c.boards, k * BOARD_BYTES)
    dims[1] = 4
    dims[2] = 2
    moves = new_int8(3, dims, c.moves, k * MOVE_BYTES)
    return copy, d1, d2, boards, moves


cdef int fill_range(Ctx* c, const int8_t[:, :, ::1] boards, const int8_t[:, ::1] dice,
                    int64_t[::1] offsets, Py_ssize_t lo, Py_ssize_t hi, const int* stop) noexcept nogil:
    """Generate positions lo..hi-1 into c; offsets[i + 1] gets the running total.

    Offsets are relative to the start of this context's output. Each board is checked
    (R4) just before its generation, so the check runs in the worker threads too.
    Returns 0, -1 on OOM, -3 at an invalid board, -4 when *stop is set.
    """
    cdef Py_ssize_t i
    for i in range(lo, hi):
        if fg_stopped(stop):
            return -4
        if board_error(&boards[i, 0, 0]):
            return -3
        if generate(c, &boards[i, 0, 0], dice[i, 0], dice[i, 1]) < 0:
            return -1
        offsets[i + 1] = c.n
    return 0


cdef object take_buffer(int8_t* data, int64_t n, int bytes_per, tuple tail):
    """Wrap a malloc'd buffer of n items as a numpy array that frees it (no copy)."""
    if n == 0:
        free(data)
        return np.empty((0,) + tail, dtype=np.int8)
    cdef cvarray arr = cvarray(shape=(n * bytes_per,), itemsize=1, format="b",
                               mode="c", allocate_buffer=False)
    arr.data = <char*> data
    arr.callback_free_data = free
    return np.asarray(arr).reshape((n,) + tail)


cdef class Part:
    """Output of one worker: its plays in its own buffers (offsets are relative to them)."""
    cdef Ctx* c
    cdef readonly int64_t count

    def __dealloc__(self):
        ctx_free(self.c)


def batch_part(const int8_t[:, :, ::1] boards, const int8_t[:, ::1] dice,
               int64_t[::1] offsets, Py_ssize_t lo, Py_ssize_t hi, StopFlag stop=None):
    """Generate positions lo..hi-1 without the GIL; writes offsets[lo+1 .. hi] relative
    to this part and returns the Part holding the plays, or None when a board of the
    range is invalid (the caller then reports the first invalid board) or when `stop`
    was set (the part is incomplete; the caller discards the batch)."""
    cdef const int* sp = flag_of(stop)
    cdef int64_t est = (hi - lo) * 20 + 64
    cdef Ctx* c = ctx_new(0, est)
    cdef int r
    if c == NULL:
        raise MemoryError("fastgen: cannot allocate the generator context")
    part = Part()
    part.c = c
    with nogil:
        r = fill_range(c, boards, dice, offsets, lo, hi, sp)
    if r == -3 or r == -4:
        return None
    if r < 0:
        raise MemoryError(f"fastgen: out of memory generating plays of positions {lo}..{hi - 1}")
    part.count = c.n
    return part


cdef int append_release(int8_t* dst, int8_t* src, int64_t nbytes) noexcept nogil:
    """Copy src to dst in 4 MiB pieces, handing each copied piece of src back to the OS
    at once, so a merge needs little more memory than its output."""
    cdef int64_t done = 0, piece = 4 << 20, k
    cdef uintptr_t lo, hi
    while done < nbytes:
        k = nbytes - done if nbytes - done < piece else piece
        memcpy(dst + done, src + done, k)
        lo = (<uintptr_t> (src + done) + 4095) & ~(<uintptr_t> 4095)
        hi = (<uintptr_t> (src + done + k)) & ~(<uintptr_t> 4095)
        if hi > lo:
            fg_discard(<void*> lo, hi - lo)
        done += k
    return 0


def merge_parts(list parts):
    """(boards, moves) arrays holding every part's plays in order; consumes the parts.

    The first part's buffers grow in place (realloc) and the others are appended, each
    released piece by piece as it is copied."""
    cdef Part first = parts[0], p
    cdef Ctx* c = first.c
    cdef int64_t total = 0, at
    cdef int8_t* nb
    cdef int8_t* nm
    for p in parts:
        total += p.count
    if len(parts) > 1:
        nb = <int8_t*> realloc(c.boards, (total if total else 1) * BOARD_BYTES)
        if nb == NULL:
            raise MemoryError("fastgen: out of memory merging batch parts")
        c.boards = nb
        nm = <int8_t*> realloc(c.moves, (total if total else 1) * MOVE_BYTES)
        if nm == NULL:
            raise MemoryError("fastgen: out of memory merging batch parts")
        c.moves = nm
        c.cap = total if total else 1
        advise_huge(c.boards, total * BOARD_BYTES)
        at = c.n
        for p in parts[1:]:
            with nogil:
                append_release(c.boards + at * BOARD_BYTES, p.c.boards, p.count * BOARD_BYTES)
                append_release(c.moves + at * MOVE_BYTES, p.c.moves, p.count * MOVE_BYTES)
            at += p.count
            ctx_free(p.c)
            p.c = NULL
        c.n = total
    # The unused tail of the buffers is not given back with realloc: that cost more than
    # it saved (the kernel remaps the pages), and pages never written use no memory.
    boards = take_buffer(c.boards, c.n, BOARD_BYTES, (2, 25))
    moves = take_buffer(c.moves, c.n, MOVE_BYTES, (4, 2))
    c.boards = NULL  # now owned by the arrays
    c.moves = NULL
    ctx_free(c)
    first.c = NULL
    return boards, moves


# ---------------------------------------------------------------- two threads, no copy
#
# With two threads the output is written once, straight to its final place: one anonymous
# mapping is reserved (address space only), the split position `mid` is put at its middle,
# thread 0 generates positions mid-1, mid-2, ..., lo and lays their plays downward from the
# middle while thread 1 lays mid, mid+1, ..., hi-1 upward from it. The two blocks meet at
# the middle, so the result is one contiguous array with no merge copy. Each position is
# generated into a small per-thread scratch buffer that stays in cache, then copied once.
# If a half would not fit its reservation (far more plays than any real workload), the
# caller falls back to the ordinary path.

cdef size_t PAGE = 4096


cdef class Mapping:
    """An anonymous mapping reserved for the output of two-thread batches."""
    cdef char* base
    cdef readonly size_t length
    cdef readonly int bytes_per      # BOARD_BYTES or MOVE_BYTES: which pool it returns to

    def __dealloc__(self):
        if self.base != NULL:
            fg_unreserve(self.base, self.length)


# Mappings whose arrays are gone, kept for the next two-thread batch: pages already
# written stay in place, so the next batch does not pay the kernel to fault in and zero
# fresh memory (that was a third of a two-thread batch). At most SPARES of each kind are
# kept; release_memory() unmaps them.
cdef list _spares = []
cdef int SPARES = 2


cdef void give_back(Mapping m):
    """Keep m as a spare if fewer than SPARES of its kind are kept, else let it go."""
    cdef Mapping x
    cdef int kept = 0
    for x in _spares:
        kept += x.bytes_per == m.bytes_per
    if kept < SPARES:
        _spares.append(m)


cdef class Lease:
    """The memory numpy arrays of a two-thread batch view: part of a Mapping. When the
    last array goes, the mapping is kept as a spare (or unmapped)."""
    cdef Mapping m
    cdef char* data
    cdef Py_ssize_t nbytes

    def __dealloc__(self):
        if self.m is not None:
            give_back(self.m)

    def __getbuffer__(self, Py_buffer* buf, int flags):
        buf.buf = self.data
        buf.obj = self
        buf.len = self.nbytes
        buf.readonly = 0
        buf.itemsize = 1
        buf.format = b"b"
        buf.ndim = 1
        buf.shape = &self.nbytes
        buf.strides = NULL
        buf.suboffsets = NULL
        buf.internal = NULL

    def __releasebuffer__(self, Py_buffer* buf):
        pass


USES_MMAP = bool(FG_USES_MMAP)   # False in a FASTGEN_PORTABLE=1 build or without mmap


def release_memory():
    """Unmap the spare output mappings kept for reuse; returns the bytes of address space
    given back (their written pages are returned to the system with them)."""
    cdef Mapping m
    cdef size_t total = 0
    for m in _spares:
        total += m.length
    _spares.clear()
    return total


cdef Mapping reserve(int64_t plays_below, int64_t plays_above, int bytes_per, int64_t* centre):
    """A mapping with room for plays_below plays under its centre and plays_above over
    it: a spare when one is large enough, else a new reservation (address space only)."""
    cdef Mapping m
    cdef void* p
    cdef int64_t half, size
    for i, m in enumerate(_spares):
        half = <int64_t> (m.length // bytes_per) // 2
        if m.bytes_per == bytes_per and half >= plays_below and half >= plays_above:
            del _spares[i]
            centre[0] = half
            return m
    half = plays_below if plays_below > plays_above else plays_above
    size = (2 * half * bytes_per + PAGE - 1) & ~(<int64_t> PAGE - 1)
    p = fg_reserve(size)  # address space only where mmap exists (MAP_NORESERVE)
    if p == NULL:
        return None
    m = Mapping()
    m.base = <char*> p
    m.length = size
    m.bytes_per = bytes_per
    advise_huge(p, size)
    centre[0] = half
    return m


cdef object lease_array(Mapping m, int64_t first, int64_t count, int bytes_per, tuple tail):
    """The array of plays first..first+count-1 of the mapping (it keeps the mapping)."""
    cdef Lease lease
    if count == 0:
        give_back(m)
        return np.empty((0,) + tail, dtype=np.int8)
    lease = Lease()
    lease.m = m
    lease.data = m.base + first * bytes_per
    lease.nbytes = count * bytes_per
    return np.frombuffer(lease, dtype=np.int8).reshape((count,) + tail)


cdef int fill_half(Ctx* c, const int8_t[:, :, ::1] boards, const int8_t[:, ::1] dice,
                   int64_t[::1] counts, Py_ssize_t lo, Py_ssize_t hi, int backward,
                   int8_t* rb, int8_t* rm, int64_t room, int64_t* cursor,
                   const int* stop) noexcept nogil:
    """One thread's half (see above): rb and rm point at the centre of the boards and
    moves mappings, `room` plays fit on this side of it; *cursor gets the final offset
    from the centre, in plays. Returns 0, -1 when memory is short, 1 on overflow, 2 at an
    invalid board (R4), 3 when *stop was set."""
    cdef Py_ssize_t i, j
    cdef int64_t cur = 0
    cdef int k = 0
    cdef int8_t* own_boards
    cdef int8_t* own_moves
    cdef int64_t own_cap
    if not backward:
        # Upward: generate straight into the mapping (borrowed, fixed-size buffers).
        own_boards, own_moves, own_cap = c.boards, c.moves, c.cap
        c.boards = rb
        c.moves = rm
        c.cap = room
        c.n = 0
        c.fixed = 1
        for i in range(lo, hi):
            if fg_stopped(stop):
                k = -4
                break
            if board_error(&boards[i, 0, 0]):
                k = -3
                break
            k = generate(c, &boards[i, 0, 0], dice[i, 0], dice[i, 1])
            if k < 0:
                break
            counts[i] = k
        c.boards, c.moves, c.cap = own_boards, own_moves, own_cap
        c.fixed = 0
        cursor[0] = c.n
        return 2 if k == -3 else (3 if k == -4 else (1 if k < 0 else 0))
    for j in range(hi - lo):
        # Downward: each position into the cached scratch buffer, then to its place.
        i = hi - 1 - j
        if fg_stopped(stop):
            return 3
        if board_error(&boards[i, 0, 0]):
            return 2
        c.n = 0
        k = generate(c, &boards[i, 0, 0], dice[i, 0], dice[i, 1])
        if k < 0:
            return -1
        if k - cur > room:
            return 1
        cur -= k
        memcpy(rb + cur * BOARD_BYTES, c.boards, k * BOARD_BYTES)
        memcpy(rm + cur * MOVE_BYTES, c.moves, k * MOVE_BYTES)
        counts[i] = k
    cursor[0] = cur
    return 0


def balanced_bounds(const int8_t[:, :, ::1] boards, const int8_t[:, ::1] dice, int parts,
                    double first_share=0.0):
    """Bounds (parts + 1 indices) cutting a batch into contiguous ranges of about equal
    generation cost.

    The estimate follows measured costs (in units of ~10 ns): a fixed part plus the
    number of plays, which grows with the square of the points the mover occupies for a
    non-double and with the cube for a double. With `first_share` > 0 (two parts only),
    the first part gets that share of the cost instead of half.
    """
    cdef Py_ssize_t i, n = boards.shape[0]
    cdef Py_ssize_t step = n // 4096 + 1   # a sample of at most ~4,096 positions is enough
    cdef int64_t total = 0, acc = 0
    cdef uint32_t occ
    cdef int64_t o
    cdef int k = 1
    cdef int64_t* w = <int64_t*> malloc((n // step + 2) * sizeof(int64_t))
    bounds = np.zeros(parts + 1, dtype=np.int64)
    cdef int64_t[::1] bv = bounds
    if w == NULL:
        raise MemoryError()
    with nogil:
        i = 0
        while i < n:
            occ = (fg_nonzero8(fg_load8(&boards[i, 1, 0])) | (fg_nonzero8(fg_load8(&boards[i, 1, 8])) << 8)
                   | (fg_nonzero8(fg_load8(&boards[i, 1, 16])) << 16))
            o = fg_popcount(occ)
            w[i // step] = 10 + ((o * o * o * 6) // 10 if dice[i, 0] == dice[i, 1] else o * o)
            total += w[i // step]
            i += step
        i = 0
        while i < n:
            acc += w[i // step]
            if first_share > 0.0:
                if k == 1 and acc >= first_share * total:
                    bv[1] = min(i + step, n)
                    k = 2
            else:
                while k < parts and acc * parts >= total * k:
                    bv[k] = min(i + step, n)
                    k += 1
            i += step
        while k <= parts:
            bv[k] = n
            k += 1
    free(w)
    return bounds


cdef class PairJob:
    """State of a two-thread batch: run(0) and run(1) from two threads, then finish();
    with one thread, run(0) (empty) then run_upper over the batch in pieces."""
    cdef const int8_t[:, :, ::1] boards
    cdef const int8_t[:, ::1] dice
    cdef int64_t[::1] counts   # offsets[1:]: each position's plays, then their running sums
    cdef object offsets
    cdef Mapping mb
    cdef Mapping mm
    cdef Py_ssize_t n, mid
    cdef int64_t cap_b, mid_b, cap_m, mid_m
    cdef int64_t cursor[2]
    cdef int status[2]
    cdef Ctx* c          # run_upper's context, kept from one range to the next
    cdef Py_ssize_t next # run_upper: the first position not yet filled

    def __dealloc__(self):
        ctx_free(self.c)

    def __init__(self, const int8_t[:, :, ::1] boards, const int8_t[:, ::1] dice, Py_ssize_t mid,
                 int64_t per_position=160):
        self.boards = boards
        self.dice = dice
        self.n = boards.shape[0]
        self.mid = mid
        # the plays of position i go to offsets[i + 1], summed in place by finish(): one
        # array of fresh memory per batch, not two
        self.offsets = np.empty(self.n + 1, dtype=np.int64)
        self.offsets[0] = 0
        self.counts = self.offsets[1:]
        # Address space only (MAP_NORESERVE): pages become memory when written.
        below = mid * per_position + 4096
        above = (self.n - mid) * per_position + 4096
        self.mb = reserve(below, above, BOARD_BYTES, &self.mid_b)
        self.mm = reserve(below, above, MOVE_BYTES, &self.mid_m)
        if self.mb is not None:
            self.cap_b = <int64_t> (self.mb.length // BOARD_BYTES)
        if self.mm is not None:
            self.cap_m = <int64_t> (self.mm.length // MOVE_BYTES)
        self.status[0] = self.status[1] = -2
        self.next = mid

    @property
    def invalid(self):
        """A board of the batch is invalid: the caller reports the first one."""
        return self.status[0] == 2 or self.status[1] == 2

    @property
    def reserved(self):
        return self.mb is not None and self.mm is not None

    def run(self, int k, StopFlag stop=None):
        """Fill half k (0: the lower, laid downward; 1: the upper) without the GIL;
        returns early when `stop` is set (the job is then abandoned)."""
        cdef const int* sp = flag_of(stop)
        cdef int8_t* rb = <int8_t*> self.mb.base + self.mid_b * BOARD_BYTES
        cdef int8_t* rm = <int8_t*> self.mm.base + self.mid_m * MOVE_BYTES
        cdef int64_t below = min(self.mid_b, self.mid_m)
        cdef int64_t above = min(self.cap_b - self.mid_b, self.cap_m - self.mid_m)
        cdef int r
        cdef int64_t cur = 0
        cdef Ctx* c = ctx_new(0, 4096)
        if c == NULL:
            raise MemoryError("fastgen: cannot allocate the generator context")
        with nogil:
            if k == 0:
                r = fill_half(c, self.boards, self.dice, self.counts, 0, self.mid, 1, rb, rm, below, &cur, sp)
            else:
                r = fill_half(c, self.boards, self.dice, self.counts, self.mid, self.n, 0, rb, rm, above, &cur, sp)
        ctx_free(c)
        self.status[k] = r
        self.cursor[k] = cur
        if r == -1:
            raise MemoryError("fastgen: out of memory generating plays")

    def run_upper(self, Py_ssize_t hi):
        """Fill the upper half in pieces from the calling thread: positions up to hi - 1
        (the first not yet filled onward), their plays after those of the earlier pieces,
        as run(1) lays them. True while all is well; False once a board was invalid or the
        reservation did not suffice (see run), after which finish() and invalid report it.
        The calling thread handles Ctrl-C between two pieces."""
        cdef int8_t* rb = <int8_t*> self.mb.base + self.mid_b * BOARD_BYTES
        cdef int8_t* rm = <int8_t*> self.mm.base + self.mid_m * MOVE_BYTES
        cdef int64_t above = min(self.cap_b - self.mid_b, self.cap_m - self.mid_m)
        cdef int64_t cur = self.cursor[1]
        cdef int64_t more = 0
        cdef Py_ssize_t lo = self.next
        cdef int r
        if self.status[1] != -2 and self.status[1] != 0:
            return False
        if hi > self.n:
            hi = self.n
        if self.c == NULL:
            self.c = ctx_new(0, 16)  # generates into the mapping: no scratch needed
            if self.c == NULL:
                raise MemoryError("fastgen: cannot allocate the generator context")
        with nogil:
            r = fill_half(self.c, self.boards, self.dice, self.counts, lo, hi, 0,
                          rb + cur * BOARD_BYTES, rm + cur * MOVE_BYTES, above - cur, &more, &_never)
        self.next = hi
        self.status[1] = r
        self.cursor[1] = cur + more
        if r == -1:
            raise MemoryError("fastgen: out of memory generating plays")
        return r == 0

    def abandon(self):
        """Drop an unfinished job (e.g. stopped): its mappings become spares for the next
        batch, so memory reuse carries on."""
        if self.mb is not None:
            give_back(self.mb)
        if self.mm is not None:
            give_back(self.mm)
        self.mb = self.mm = None

    def finish(self):
        """(offsets, boards, moves), or None when a half overflowed its reservation.
        Called once."""
        if self.status[0] != 0 or self.status[1] != 0 or self.offsets is None:
            return None
        offsets = self.offsets
        self.offsets = None
        np.cumsum(offsets[1:], out=offsets[1:])  # in place
        count = self.cursor[1] - self.cursor[0]
        boards = lease_array(self.mb, self.mid_b + self.cursor[0], count, BOARD_BYTES, (2, 25))
        moves = lease_array(self.mm, self.mid_m + self.cursor[0], count, MOVE_BYTES, (4, 2))
        self.mb = self.mm = None
        return offsets, boards, moves
