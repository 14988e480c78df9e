# cython: language_level=3
"""The compiled move generator: every legal play of a position and roll (R5-R14).

Private module. The public layer (fastgen.generate) validates inputs once; everything
here trusts them and runs without the GIL over raw int8 buffers.

How the search works
--------------------
* The working board is a flat (2, 25) int8 array; a step edits it in place and is undone
  on the way back, so no board is copied until a play is written out.
* Each position carries an exact 124-bit key (mover's counts in 4-bit nibbles plus one bit
  per point where a blot was hit). The opponent's row only changes by hits, so the key
  identifies the resulting position exactly; the dedup table compares keys, never boards.
* Doubles: steps are taken from non-increasing source points. Any legal sequence of one
  die value stays legal when reordered that way (bar first, higher checkers home before
  bearing off), and for one die value distinct multisets of sources give distinct
  positions, so every play is produced exactly once and needs no dedup at all.
* Non-doubles: larger die first, then smaller (order 1), then the reverse (order 2).
  Once a two-dice play is known, order 2 only tries what order 1 cannot have produced:
  the checker that just moved moving on, bear-offs, and bar cases.
* Maximum dice (R11-R13): a leaf using more dice than any before drops what was written
  for this generation; leaves using fewer are never written. With one die playable, the
  larger die's plays come first and the smaller die's are then skipped (R13).
"""

from libc.stdint cimport int8_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memcpy, memset

cimport cython
from cython.view cimport array as cvarray

import numpy as np
cimport numpy as cnp

cnp.import_array()

cdef extern from "assert.h":
    void c_assert "assert"(bint condition) noexcept nogil


# ---------------------------------------------------------------- context lifetime

cdef Ctx* ctx_new(int count_only, int64_t cap) noexcept nogil:
    """A fresh context, or NULL when memory is short."""
    cdef Ctx* c = <Ctx*> calloc(1, sizeof(Ctx))
    if c == NULL:
        return NULL
    c.count_only = count_only
    c.hka = <uint64_t*> malloc(sizeof(uint64_t) << HASH_BITS)
    c.hkb = <uint64_t*> malloc(sizeof(uint64_t) << HASH_BITS)
    c.hstamp = <uint32_t*> calloc(1 << HASH_BITS, sizeof(uint32_t))
    if cap < 16:
        cap = 16
    if not count_only:
        c.boards = <int8_t*> malloc(cap * BOARD_BYTES)
        c.moves = <int8_t*> malloc(cap * MOVE_BYTES)
    c.cap = cap
    if (c.hka == NULL or c.hkb == NULL or c.hstamp == NULL
            or (not count_only and (c.boards == NULL or c.moves == NULL))):
        ctx_free(c)
        return NULL
    return c


cdef void ctx_free(Ctx* c) noexcept nogil:
    if c == NULL:
        return
    free(c.hka)
    free(c.hkb)
    free(c.hstamp)
    free(c.boards)
    free(c.moves)
    free(c)


cdef int ensure_room(Ctx* c) noexcept nogil:
    """Make room for one more play; -1 when memory is short (buffers left intact)."""
    cdef int64_t cap
    cdef int8_t* nb
    cdef int8_t* nm
    if c.n < c.cap:
        return 0
    cap = c.cap + (c.cap >> 1) + 64
    nb = <int8_t*> realloc(c.boards, cap * BOARD_BYTES)
    if nb == NULL:
        return -1
    c.boards = nb
    nm = <int8_t*> realloc(c.moves, cap * MOVE_BYTES)
    if nm == NULL:
        return -1
    c.moves = nm
    c.cap = cap
    return 0


cdef void new_table(Ctx* c) noexcept nogil:
    """Forget every key (O(1): bump the stamp; clear only when it wraps)."""
    c.stamp += 1
    if c.stamp == 0:
        memset(c.hstamp, 0, sizeof(uint32_t) << HASH_BITS)
        c.stamp = 1


# ---------------------------------------------------------------- one step

cdef inline void key_inc(Ctx* c, int i) noexcept nogil:
    if i < 16:
        c.ka += (<uint64_t> 1) << (4 * i)
    else:
        c.kb += (<uint64_t> 1) << (4 * (i - 16))


cdef inline void key_dec(Ctx* c, int i) noexcept nogil:
    if i < 16:
        c.ka -= (<uint64_t> 1) << (4 * i)
    else:
        c.kb -= (<uint64_t> 1) << (4 * (i - 16))


cdef inline int target(Ctx* c, int f, int d) noexcept nogil:
    """Landing index of a step of `d` pips from index f: >= 0 a point, -1 off, -2 illegal.

    The caller guarantees a checker on f and that the bar rule (R8) allows f.
    """
    cdef int t = f - d
    cdef int i
    if t >= 0:
        # R6: a point with 2+ opposing checkers is blocked. My index t is the
        # opponent's index 23 - t.
        if c.b[23 - t] >= 2:
            return -2
        return t
    # R9: bearing off needs every checker home, judged before this step.
    if c.outside:
        return -2
    if t == -1:
        return -1  # exact
    for i in range(f + 1, 6):  # higher die: only from the highest occupied point
        if c.b[OWN + i]:
            return -2
    return -1


cdef inline int do_step(Ctx* c, int f, int t) noexcept nogil:
    """Move one checker from index f to t (-1 = off); returns 1 when it hit a blot (R7)."""
    cdef int hit = 0
    c.b[OWN + f] -= 1
    key_dec(c, f)
    if t >= 0:
        if c.b[23 - t] == 1:
            c.b[23 - t] = 0
            c.b[24] += 1
            c.kb ^= (<uint64_t> 1) << (36 + t)
            hit = 1
        c.b[OWN + t] += 1
        key_inc(c, t)
        if f >= 6 and t < 6:
            c.outside -= 1
    return hit


cdef inline void undo_step(Ctx* c, int f, int t, int hit) noexcept nogil:
    if t >= 0:
        if f >= 6 and t < 6:
            c.outside += 1
        c.b[OWN + t] -= 1
        key_dec(c, t)
        if hit:
            c.b[23 - t] = 1
            c.b[24] -= 1
            c.kb ^= (<uint64_t> 1) << (36 + t)
    c.b[OWN + f] += 1
    key_inc(c, f)


# ---------------------------------------------------------------- leaves

cdef inline uint32_t slot_of(uint64_t ka, uint64_t kb) noexcept nogil:
    cdef uint64_t h = (ka ^ (kb * <uint64_t> 0x9E3779B97F4A7C15)) * <uint64_t> 0xBF58476D1CE4E5B9
    return <uint32_t> (h >> (64 - HASH_BITS))


cdef int record(Ctx* c, int depth) noexcept nogil:
    """A complete sequence of `depth` steps ends here; keep it if it is a new legal play.

    Returns -1 when memory is short, else 0.
    """
    cdef uint32_t s
    cdef int8_t* m
    cdef int j
    if depth < c.best:
        return 0  # R11/R12: a sequence using more dice exists
    if depth > c.best:
        c.best = depth  # everything kept so far used fewer dice: drop it
        c.n = c.base
        new_table(c)
    if c.dedup:  # R10: plays are distinct by resulting position
        s = slot_of(c.ka, c.kb)
        while c.hstamp[s] == c.stamp:
            if c.hka[s] == c.ka and c.hkb[s] == c.kb:
                return 0
            s = (s + 1) & ((1 << HASH_BITS) - 1)
        c.hstamp[s] = c.stamp
        c.hka[s] = c.ka
        c.hkb[s] = c.kb
    if c.count_only:
        c.n += 1
        return 0
    if ensure_room(c) < 0:
        return -1
    memcpy(c.boards + c.n * BOARD_BYTES, c.b, BOARD_BYTES)
    m = c.moves + c.n * MOVE_BYTES
    for j in range(8):
        m[j] = c.path[j] if j < 2 * depth else -1
    c.n += 1
    return 0


# ---------------------------------------------------------------- doubles

cdef int dfs_double(Ctx* c, int d, int depth, int maxf) noexcept nogil:
    """Steps of `d` pips from sources <= maxf, non-increasing (R12, no permutations)."""
    cdef int f, t, hit, moved = 0
    if depth == 4:
        return record(c, 4)
    if c.b[OWN + 24]:
        maxf = 24 if maxf == 24 else -1  # R8: bar first
        f = 24
    for f in range(maxf, -1, -1):
        if not c.b[OWN + f]:
            continue
        t = target(c, f, d)
        if t == -2:
            if f == 24:
                break  # R8/R14: the bar checker cannot enter, nothing else may move
            continue
        moved = 1
        hit = do_step(c, f, t)
        c.path[2 * depth] = f + 1
        c.path[2 * depth + 1] = t + 1
        if dfs_double(c, d, depth + 1, f) < 0:
            return -1
        undo_step(c, f, t, hit)
        if f == 24 and c.b[OWN + 24]:
            break  # the next bar checker was tried in the recursion
    if not moved:
        return record(c, depth)
    return 0


# ---------------------------------------------------------------- non-doubles

cdef inline int first_source(Ctx* c) noexcept nogil:
    """Highest index a step may start from: the bar if occupied (R8), else 23."""
    return 24 if c.b[OWN + 24] else 23


cdef int second_steps(Ctx* c, int d, int only_from, int skip_on_board_from_others) noexcept nogil:
    """All second steps of `d` pips after one step; returns steps tried, or -1 on OOM.

    only_from >= 0 restricts the source to that index. With skip_on_board_from_others,
    an on-board step from any other index is counted but not recorded (order 1 had it).
    """
    cdef int f, t, hit, tried = 0, top = first_source(c)
    for f in range(top, -1, -1):
        if not c.b[OWN + f]:
            continue
        if top == 24 and f != 24:
            break
        if only_from >= 0 and f != only_from:
            continue
        t = target(c, f, d)
        if t == -2:
            continue
        tried += 1
        if skip_on_board_from_others and t >= 0 and f != skip_on_board_from_others - 1:
            continue
        hit = do_step(c, f, t)
        c.path[2] = f + 1
        c.path[3] = t + 1
        if record(c, 2) < 0:
            return -1
        undo_step(c, f, t, hit)
    return tried


cdef int gen_nondouble(Ctx* c, int a, int b) noexcept nogil:
    """Plays of the roll a-b, a > b (R11, R13)."""
    cdef int f, t, hit, tried, top
    cdef int bar0 = c.b[OWN + 24]
    cdef int larger_alone

    # Order 1: the larger die, then the smaller.
    top = first_source(c)
    for f in range(top, -1, -1):
        if not c.b[OWN + f]:
            continue
        if top == 24 and f != 24:
            break
        t = target(c, f, a)
        if t == -2:
            continue
        hit = do_step(c, f, t)
        c.path[0] = f + 1
        c.path[1] = t + 1
        tried = second_steps(c, b, -1, 0)
        if tried < 0:
            return -1
        if tried == 0 and record(c, 1) < 0:
            return -1
        undo_step(c, f, t, hit)
    # R13: if the larger die alone was playable and no two-dice play exists, only the
    # larger die's plays are legal; the smaller die's single steps are not kept.
    larger_alone = c.best == 1

    # Order 2: the smaller die, then the larger.
    top = first_source(c)
    for f in range(top, -1, -1):
        if not c.b[OWN + f]:
            continue
        if top == 24 and f != 24:
            break
        t = target(c, f, b)
        if t == -2:
            continue
        hit = do_step(c, f, t)
        c.path[0] = f + 1
        c.path[1] = t + 1
        if c.best == 2 and bar0 == 0 and t >= 0 and c.outside:
            # Order 1 already produced every pair of on-board steps by different
            # checkers; only the checker that just landed can give something new.
            if second_steps(c, a, t, 0) < 0:
                return -1
        else:
            tried = second_steps(c, a, -1, (t + 1) if (c.best == 2 and bar0 == 0 and t >= 0) else 0)
            if tried < 0:
                return -1
            if tried == 0 and not larger_alone and record(c, 1) < 0:
                return -1
        undo_step(c, f, t, hit)
    return 0


# ---------------------------------------------------------------- one generation

cdef int generate(Ctx* c, const int8_t* board, int d1, int d2) noexcept nogil:
    """Append the legal plays of `board` with dice d1, d2 to the context's output.

    Returns the number of plays appended (>= 1), or -1 when memory is short.
    """
    cdef int i, r
    memcpy(c.b, board, BOARD_BYTES)
    c.outside = 0
    c.ka = 0
    c.kb = 0
    for i in range(6, 25):
        c.outside += c.b[OWN + i]
    for i in range(16):
        c.ka |= (<uint64_t> c.b[OWN + i]) << (4 * i)
    for i in range(16, 25):
        c.kb |= (<uint64_t> c.b[OWN + i]) << (4 * (i - 16))
    memset(c.path, -1, 8)
    c.best = 0
    c.base = c.n
    new_table(c)
    if d1 == d2:
        c.dedup = 0
        r = dfs_double(c, d1, 0, 24)
    else:
        c.dedup = 1
        r = gen_nondouble(c, d1 if d1 > d2 else d2, d2 if d1 > d2 else d1)
        if r == 0 and c.n == c.base:
            r = record(c, 0)  # R14: no step at all, the turn is lost
    if r < 0:
        return -1
    c_assert(memcmp_board(c.b, board) == 0)  # every step was undone
    return <int> (c.n - c.base)


cdef int memcmp_board(const int8_t* x, const int8_t* y) noexcept nogil:
    cdef int i
    for i in range(BOARD_BYTES):
        if x[i] != y[i]:
            return 1
    return 0


# ---------------------------------------------------------------- validation

cdef int board_error(const int8_t* b) noexcept nogil:
    """0 for a valid board (R4), else 1 negative, 2 over 15 on a side, 3 shared point."""
    cdef int row, i, total
    for row in range(2):
        total = 0
        for i in range(25):
            if b[row * 25 + i] < 0:
                return 1
            total += b[row * 25 + i]
        if total > 15:
            return 2
    for i in range(24):
        if b[i] > 0 and b[OWN + 23 - i] > 0:
            return 3
    return 0


def validate_board(const int8_t[:, ::1] board):
    """Error code of one (2, 25) board: 0 valid, 1 negative, 2 over 15, 3 shared point."""
    return board_error(&board[0, 0])


def validate_boards(const int8_t[:, :, ::1] boards):
    """(index, code) of the first invalid board of a batch, or (-1, 0)."""
    cdef Py_ssize_t i, n = boards.shape[0]
    cdef int code = 0
    with nogil:
        for i in range(n):
            code = board_error(&boards[i, 0, 0])
            if code:
                break
    if code:
        return i, code
    return -1, 0


# ---------------------------------------------------------------- Python entry points

cdef Ctx* _single = NULL  # used under the GIL only, by single-position calls


cdef Ctx* single_ctx() except NULL:
    global _single
    if _single == NULL:
        _single = ctx_new(0, 256)
        if _single == NULL:
            raise MemoryError("fastgen: cannot allocate the generator context")
    _single.n = 0
    return _single


def legal_plays_arrays(const int8_t[:, ::1] board, int d1, int d2):
    """(boards, moves) arrays of one validated position; holds the GIL (it is short)."""
    cdef Ctx* c = single_ctx()
    cdef int k = generate(c, &board[0, 0], d1, d2)
    if k < 0:
        raise MemoryError("fastgen: out of memory generating plays")
    boards = np.empty((k, 2, 25), dtype=np.int8)
    moves = np.empty((k, 4, 2), dtype=np.int8)
    cdef int8_t[:, :, ::1] bv = boards
    cdef int8_t[:, :, ::1] mv = moves
    memcpy(&bv[0, 0, 0], c.boards, k * BOARD_BYTES)
    memcpy(&mv[0, 0, 0], c.moves, k * MOVE_BYTES)
    return boards, moves


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


def count_plays(const int8_t[:, ::1] board, int d1, int d2):
    """Number of legal plays of one validated position."""
    cdef Ctx* c = single_ctx()
    c.count_only = 1
    cdef int k = generate(c, &board[0, 0], d1, d2)
    c.count_only = 0
    return k


cdef int fill_range(Ctx* c, const int8_t[:, :, ::1] boards, const int8_t[:, ::1] dice,
                    int64_t[::1] offsets, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    """Generate positions lo..hi-1 into c; offsets[i + 1] gets the running total.

    Offsets are relative to the start of this context's output. Returns -1 on OOM.
    """
    cdef Py_ssize_t i
    for i in range(lo, hi):
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


cdef shrink(Ctx* c):
    """Give back the unused tail of the output buffers."""
    cdef int64_t n = c.n if c.n > 0 else 1
    cdef int8_t* p
    p = <int8_t*> realloc(c.boards, n * BOARD_BYTES)
    if p != NULL:
        c.boards = p
    p = <int8_t*> realloc(c.moves, n * MOVE_BYTES)
    if p != NULL:
        c.moves = p
    c.cap = n


class _Part:
    """Output of one worker: offsets relative to its own buffers, and those buffers."""
    __slots__ = ("boards", "moves", "count")


def batch_part(const int8_t[:, :, ::1] boards, const int8_t[:, ::1] dice,
               int64_t[::1] offsets, Py_ssize_t lo, Py_ssize_t hi, bint count_only):
    """Generate positions lo..hi-1 without the GIL.

    Writes offsets[lo+1 .. hi] relative to this part and returns a _Part whose boards
    and moves arrays own their memory (None when count_only).
    """
    cdef int64_t est = (hi - lo) * 24 + 64
    cdef Ctx* c = ctx_new(count_only, 16 if count_only else est)
    cdef int r
    if c == NULL:
        raise MemoryError("fastgen: cannot allocate the generator context")
    with nogil:
        r = fill_range(c, boards, dice, offsets, lo, hi)
    if r < 0:
        ctx_free(c)
        raise MemoryError(f"fastgen: out of memory generating plays of positions {lo}..{hi - 1}")
    part = _Part()
    part.count = c.n
    if count_only:
        part.boards = part.moves = None
        ctx_free(c)
        return part
    shrink(c)
    part.boards = take_buffer(c.boards, c.n, BOARD_BYTES, (2, 25))
    part.moves = take_buffer(c.moves, c.n, MOVE_BYTES, (4, 2))
    c.boards = NULL  # now owned by the arrays
    c.moves = NULL
    ctx_free(c)
    return part
