# cython: language_level=3
"""perft's compiled steps: merging identical children of a level, and counting every
roll of a board (the last level).

Private module of perft (fastgen.search.perft), a small extension of its own built on
the move generator: it cimports the generator's declarations (fastgen/core/_core.pxd:
the counting batch, the end of a game) and the rollout hash's mixer
(fastgen/core/_dice.pxd). perft checks the inputs; everything here trusts them and runs
without the GIL.
"""

from libc.stdint cimport int8_t, int64_t, uint64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memcmp, memcpy, memset

from fastgen.core._core cimport OWN, Ctx, ctx_free, counting_ctx, count_range, win_of
from fastgen.core._dice cimport mix64


cdef int _never = 0      # the stop flag of the last level: never set


# ---------------------------------------------------------------- merging a level

cdef inline uint64_t board_hash(const int8_t* b) noexcept nogil:
    """A 64-bit hash of the 50 bytes of a board (equal boards, equal hashes)."""
    cdef uint64_t w[7]
    w[6] = 0
    memcpy(w, b, 50)
    cdef uint64_t h = (w[0] * <uint64_t> 0x9E3779B97F4A7C15ULL) ^ (w[1] * <uint64_t> 0xC2B2AE3D27D4EB4FULL)
    h ^= (w[2] * <uint64_t> 0x165667B19E3779F9ULL) ^ (w[3] * <uint64_t> 0xD6E8FEB86659FD93ULL)
    h ^= (w[4] * <uint64_t> 0xFF51AFD7ED558CCDULL) ^ (w[5] * <uint64_t> 0xC4CEB9FE1A85EC53ULL)
    h ^= w[6] * <uint64_t> 0x94D049BB133111EBULL
    return mix64(h)


cdef inline uint64_t row_code(const int8_t* row) noexcept nogil:
    """The checkers of one side (25 counts of at most 15 checkers in all) as a bit string
    read from point 1 up: each point's count in ones, then a zero; left-aligned in 40
    bits (one-to-one, as in GNU Backgammon's position IDs)."""
    cdef uint64_t code = 0
    cdef int i, n, bits = 0
    for i in range(25):
        n = row[i]
        code = (code << (n + 1)) | ((((<uint64_t> 1) << n) - 1) << 1)
        bits += n + 1
    return code << (40 - bits)


def merge_children(const int8_t[:, :, ::1] kids, const int64_t[::1] offsets, const int64_t[::1] row_w,
                   int8_t[:, :, ::1] out, int64_t[::1] out_w, uint64_t[::1] out_key):
    """perft's merge of one expanded batch. Rows offsets[r]..offsets[r+1]-1 of *kids* (the
    plays of one position and roll, as plays_batch gives them) weigh row_w[r] each.
    Children whose mover bore off its last checker (R17: the game is over) are counted but
    dropped; the others are turned over (the other side on roll) and identical ones merged:
    out[:u] holds each distinct one once, in order of first appearance, and out_w[:u] the
    sum of its weights, and out_key[:u] a sort key that puts children with the same
    opponent (row 0) next to each other (row_code of row 0, then the first 24 bits of
    row 1's). Returns (u, the weighted number of all children). *out*, *out_w* and
    *out_key* need room for every child."""
    cdef Py_ssize_t rows = offsets.shape[0] - 1, r, i, u = 0
    cdef Py_ssize_t n = kids.shape[0]
    if offsets[rows] != n or row_w.shape[0] != rows or out.shape[0] < n or out_w.shape[0] < n or out_key.shape[0] < n:
        raise ValueError("merge_children: the arrays do not match")
    if n >= 0x7FFFFFFF:  # indices live in 32 bits of the table
        raise ValueError(f"merge_children: {n} children, more than one call merges")
    cdef int64_t total = 0, w
    cdef size_t size = 16
    while size < <size_t> (2 * n):
        size <<= 1
    cdef uint64_t* table = <uint64_t*> malloc(size * sizeof(uint64_t))
    if table == NULL:
        raise MemoryError("fastgen: out of memory merging perft children")
    cdef uint64_t h, tag, e
    cdef size_t slot, mask = size - 1
    cdef const int8_t* k
    cdef int8_t* o
    with nogil:
        memset(table, 0, size * sizeof(uint64_t))
        for r in range(rows):
            w = row_w[r]
            total += w * (offsets[r + 1] - offsets[r])
            for i in range(offsets[r], offsets[r + 1]):
                k = &kids[i, 0, 0]
                if win_of(k):  # R17: the game is over
                    continue
                h = board_hash(k)
                tag = h & <uint64_t> 0xFFFFFFFF00000000ULL
                slot = <size_t> h & mask
                while True:
                    e = table[slot]
                    if e == 0:
                        table[slot] = tag | <uint64_t> (u + 1)
                        o = &out[u, 0, 0]
                        memcpy(o, k + OWN, 25)
                        memcpy(o + OWN, k, 25)
                        out_w[u] = w
                        out_key[u] = (row_code(k + OWN) << 24) | (row_code(k) >> 16)
                        u += 1
                        break
                    if (e & <uint64_t> 0xFFFFFFFF00000000ULL) == tag:
                        o = &out[<Py_ssize_t> (e & 0xFFFFFFFFULL) - 1, 0, 0]
                        if memcmp(o, k + OWN, 25) == 0 and memcmp(o + OWN, k, 25) == 0:
                            out_w[<Py_ssize_t> (e & 0xFFFFFFFFULL) - 1] += w
                            break
                    slot = (slot + 1) & mask
    free(table)
    return u, total


# ---------------------------------------------------------------- the last level

def count_rolls(const int8_t[:, :, ::1] boards, const int8_t[:, ::1] rolls, int64_t[:, ::1] out):
    """out[i, r] = the number of plays of boards[i] with rolls[r] (count_plays_batch for
    every pair, without repeating each board once per roll in memory: perft's last level).
    Returns -1, or the index of the first invalid board (R4; out is then incomplete).
    The rolls must be valid dice (1..6)."""
    cdef Py_ssize_t r, n = boards.shape[0], k = rolls.shape[0]
    cdef Py_ssize_t bad = -1
    cdef Ctx* c
    if out.shape[0] != n or out.shape[1] != k or rolls.shape[1] != 2:
        raise ValueError("count_rolls: the arrays do not match")
    for r in range(k):
        if not (1 <= rolls[r, 0] <= 6 and 1 <= rolls[r, 1] <= 6):
            raise ValueError(f"count_rolls: roll {r} is not a pair of dice 1..6")
    if n == 0:
        return -1
    c = counting_ctx()
    with nogil:
        bad = count_range(c, &boards[0, 0, 0], &rolls[0, 0] if k else NULL, 0, k,
                          &out[0, 0] if k else NULL, 0, n, &_never)
    ctx_free(c)
    return bad
