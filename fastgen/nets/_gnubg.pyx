# cython: language_level=3
"""GNU Backgammon's network inputs, position classes and sigmoid, compiled: nogil loops
over the plain C of fastgen/nets/_gnubg_inputs.h.

Private module, for reading gnubg's own weights (its nets are not fastgen's: other
inputs, another sigmoid). Written from published definitions (the enum comments of
gnubg's eval.c describing each input, the gnubg manual, gnubg's ChangeLog) and held to
gnubg-nn, used as a black box, by tests/test_gnubg_inputs.py; no gnubg code is in it.

Boards are (N, 2, 25) in fastgen's layout, which is gnubg's: row 1 the side on roll, row
0 the other side, each in its own numbering (index 0..23 its points 1..24, 24 its bar).
They are checked once here (fastgen.core.boards), then the loops trust them.

- ``classify(boards)``: each position's class, one of OVER (a side has borne off every
  checker), BEAROFF (no contact and every checker of both sides on their home boards:
  gnubg's one-sided bear-off database), RACE (no contact otherwise), CRASHED (contact,
  and a side has few checkers left outside its lowest points: gnubg's crashed net),
  CONTACT.
- ``race_inputs(boards)``: the race net's 214 inputs: per side, its points 1..23, its
  checkers off, its crossovers.
- ``contact_inputs(boards, version)``, ``crashed_inputs(boards, version)``: the 250 inputs
  of the contact and crashed nets: 200 units for the checkers on the points and the bars,
  then per side its checkers off and 22 hand-made measures (shots, escapes, containment,
  timing, anchors...). *version* 1.01 (gnubg 1.01's weights, which gnubg-nn ships) or 1.00
  (the older weights): they differ in one measure (PIPLOSS: which home points count as made).
- ``sigmoid(x)``: gnubg's 1 / (1 + e^x), e^x from a table of tenths and straight lines
  between them, constant beyond |x| >= 10; float32.
"""

from libc.stdint cimport int8_t

import numpy as np

from fastgen.core.boards import as_boards

cdef extern from "_gnubg_inputs.h":
    int FGG_OVER, FGG_BEAROFF, FGG_RACE, FGG_CRASHED, FGG_CONTACT
    int FGG_RACE_WIDTH, FGG_CONTACT_WIDTH, FGG_V100, FGG_V101
    void fgg_init() noexcept nogil
    float fgg_sigmoid(float x) noexcept nogil
    int fgg_classify_flat(const int8_t* b) noexcept nogil
    void fgg_race_flat(const int8_t* b, float* out) noexcept nogil
    void fgg_contact_flat(const int8_t* b, int version, int crashed, float* out) noexcept nogil
    int fgg_shots_select(int on) noexcept nogil

fgg_init()
fgg_shots_select(0)

#: The classes ``classify`` returns.
OVER = FGG_OVER
BEAROFF = FGG_BEAROFF
RACE = FGG_RACE
CRASHED = FGG_CRASHED
CONTACT = FGG_CONTACT
#: The encodings' widths.
RACE_WIDTH = FGG_RACE_WIDTH
CONTACT_WIDTH = FGG_CONTACT_WIDTH


cdef int _version(version) except -1:
    if isinstance(version, str):
        code = {"1.00": FGG_V100, "1.0": FGG_V100, "1.01": FGG_V101}.get(version.strip())
    else:
        code = {100: FGG_V100, 101: FGG_V101}.get(round(float(version) * 100))
    if code is None:
        raise ValueError(f"version must be 1.00 or 1.01 (gnubg's weights), got {version!r}")
    return code


def classify(boards):
    """Each board's class: an int8 array (N,) of OVER, BEAROFF, RACE, CRASHED, CONTACT."""
    cdef const int8_t[:, :, ::1] b = as_boards(boards)
    out = np.empty(b.shape[0], dtype=np.int8)
    cdef int8_t[::1] o = out
    cdef Py_ssize_t i
    with nogil:
        for i in range(b.shape[0]):
            o[i] = <int8_t>fgg_classify_flat(&b[i, 0, 0])
    return out


def race_inputs(boards):
    """The race net's inputs of each board: float32 (N, 214)."""
    cdef const int8_t[:, :, ::1] b = as_boards(boards)
    out = np.zeros((b.shape[0], FGG_RACE_WIDTH), dtype=np.float32)
    cdef float[:, ::1] o = out
    cdef Py_ssize_t i
    with nogil:
        for i in range(b.shape[0]):
            fgg_race_flat(&b[i, 0, 0], &o[i, 0])
    return out


cdef object _contact_like(boards, version, int crashed):
    cdef int v = _version(version)
    cdef const int8_t[:, :, ::1] b = as_boards(boards)
    out = np.zeros((b.shape[0], FGG_CONTACT_WIDTH), dtype=np.float32)
    cdef float[:, ::1] o = out
    cdef Py_ssize_t i
    with nogil:
        for i in range(b.shape[0]):
            fgg_contact_flat(&b[i, 0, 0], v, crashed, &o[i, 0])
    return out


def select_shots(on):
    """Compute this module's shot inputs (PIPLOSS, P1, P2 of :func:`contact_inputs` and
    :func:`crashed_inputs`) by the AVX-512 loops (*on*, when the CPU has AVX-512 F and
    CD: the 39 ways of hitting a vector lane each) or by the plain ones (the default
    here; the evaluator's kernel uses the vector loops when it selects AVX-512). Returns
    whether the vector loops are in use. The two give the same integers: for tests."""
    return bool(fgg_shots_select(1 if on else 0))


def contact_inputs(boards, version=1.01):
    """The contact net's inputs of each board: float32 (N, 250); *version* 1.01 or 1.00."""
    return _contact_like(boards, version, 0)


def crashed_inputs(boards, version=1.01):
    """The crashed net's inputs of each board: float32 (N, 250); *version* 1.01 or 1.00."""
    return _contact_like(boards, version, 1)


def sigmoid(x):
    """gnubg's sigmoid 1 / (1 + e^x) of each element: float32, of *x*'s shape."""
    arr = np.array(x, dtype=np.float32, order="C", copy=True)
    cdef float[::1] v = arr.reshape(-1)
    cdef Py_ssize_t i
    with nogil:
        for i in range(v.shape[0]):
            v[i] = fgg_sigmoid(v[i])
    return arr


# ------------------------------------------------------------------ after the net

cdef extern from "_gnubg_sanity.h":
    ctypedef struct fgg_race_tables:
        const unsigned short *bearoff
        const float *escape
    void fgg_correct(const int8_t *b, int cls, float *p, const void *extra) noexcept nogil


# The escape table's positions: up to 6 checkers on points 1..6, as base-7 codes (the
# count on point k+1 its k-th digit) while it is built.
DEF ESC_POSITIONS = 924
DEF ESC_CODES = 117649  # 7 ** 6
DEF ESC_TURNS = 32


cdef int _esc_code(const int* pos) noexcept nogil:
    cdef int k, c = 0
    for k in range(5, -1, -1):
        c = c * 7 + pos[k]
    return c


cdef void _esc_reach(int* pos, const int* dice, int step, int steps, const int* index, unsigned char* seen,
                     int* found, int* n) noexcept nogil:
    """Every position pos can reach with dice[step..steps-1] played in that order, each
    new one's index appended to found (seen marks them by code): any checker moves, a
    die at least its distance takes it out; all dice are used while a checker is left."""
    cdef int i, d, c, left = 0
    if step < steps:
        for i in range(6):
            left += pos[i]
    if step == steps or left == 0:
        c = _esc_code(pos)
        if not seen[c]:
            seen[c] = 1
            found[n[0]] = index[c]
            n[0] += 1
        return
    d = dice[step]
    for i in range(6):
        if pos[i]:
            pos[i] -= 1
            if i - d >= 0:
                pos[i - d] += 1
            _esc_reach(pos, dice, step + 1, steps, index, seen, found, n)
            if i - d >= 0:
                pos[i - d] -= 1
            pos[i] += 1


def escape_table():
    """(924, 32) float32: for each position of up to 6 checkers on points 1..6 (gnubg's
    one-sided numbering), the chance they need exactly t turns to all leave the six
    points when each turn is played to need the fewest turns on average (ties to the
    lower number); gnubg counts at most 5 turns (what would need more is taken as 5).
    Compiled: a few milliseconds."""
    from fastgen.bearoff import index_position

    cdef const int[:, ::1] positions = np.ascontiguousarray(index_position(np.arange(ESC_POSITIONS), 6),
                                                             dtype=np.int32)
    index_arr = np.full(ESC_CODES, -1, dtype=np.int32)
    seen_arr = np.zeros(ESC_CODES, dtype=np.uint8)
    mean_arr = np.zeros(ESC_POSITIONS)
    dist_arr = np.zeros((ESC_POSITIONS, ESC_TURNS))
    cdef int[::1] index = index_arr
    cdef unsigned char[::1] seen = seen_arr
    cdef double[::1] mean = mean_arr
    cdef double[:, ::1] dist = dist_arr
    cdef int pos[6]
    cdef int start[6]
    cdef int dice[4]
    cdef int found[4096]
    cdef int idx, k, a, b, r, o, n, j, best, steps
    cdef double w
    for idx in range(ESC_POSITIONS):
        for k in range(6):
            pos[k] = positions[idx, k]
        index[_esc_code(pos)] = idx
    dist[0, 0] = 1.0
    with nogil:
        # fewer checkers come first: every move leads to a smaller index
        for idx in range(1, ESC_POSITIONS):
            for k in range(6):
                start[k] = positions[idx, k]
            for a in range(1, 7):  # the 21 rolls, the larger die first
                for b in range(1, a + 1):
                    w = (1.0 if a == b else 2.0) / 36.0
                    n = 0
                    for o in range(1 if a == b else 2):  # each order of the dice
                        steps = 4 if a == b else 2
                        for r in range(steps):
                            dice[r] = a
                        if a != b:
                            dice[1 - o] = b
                        for k in range(6):
                            pos[k] = start[k]
                        _esc_reach(pos, dice, 0, steps, &index[0], &seen[0], found, &n)
                    best = found[0]
                    for j in range(n):
                        k = found[j]
                        if mean[k] < mean[best] or (mean[k] == mean[best] and k < best):
                            best = k
                    for j in range(n):  # clear the marks for the next roll
                        for k in range(6):
                            pos[k] = positions[found[j], k]
                        seen[_esc_code(pos)] = 0
                    mean[idx] += w * (1 + mean[best])
                    for k in range(1, ESC_TURNS):
                        dist[idx, k] += w * dist[best, k - 1]
    dist_arr[:, 5] += dist_arr[:, 6:].sum(1)
    dist_arr[:, 6:] = 0
    return dist_arr.astype(np.float32)


_ESCAPE = []


def _shared_escape_table():
    """escape_table() made once a process, read-only."""
    if not _ESCAPE:
        table = np.ascontiguousarray(escape_table(), dtype=np.float32)
        table.flags.writeable = False
        _ESCAPE.append(table)
    return _ESCAPE[0]


class RaceTables:
    """What the race backgammon estimate reads: a one-sided bear-off database of 6 points
    (gnubg_os0.bd, read by fastgen.bearoff.read_gnubg) and the escape table."""

    def __init__(self, bearoff_db):
        if bearoff_db.points != 6 or bearoff_db.size != 54264:
            raise ValueError(f"need gnubg's one-sided database of 6 points and 15 checkers, got {bearoff_db!r}")
        self.bearoff = np.ascontiguousarray(bearoff_db.rolls, dtype=np.uint16)
        self.escape = _shared_escape_table()


def correct(boards, probs, classes, tables=None):
    """gnubg's corrections after the net (see _gnubg_sanity.h) applied to *probs* (N, 5):
    a corrected float32 copy. *classes* (N,) from ``classify``; rows of other classes than
    RACE, CRASHED, CONTACT are returned unchanged. *tables* a RaceTables, or None to keep
    the race net's backgammon outputs."""
    cdef const int8_t[:, :, ::1] b = as_boards(boards)
    out = np.array(probs, dtype=np.float32, order="C", copy=True)
    cls_arr = np.ascontiguousarray(classes, dtype=np.int8)
    if out.ndim != 2 or out.shape[1] != 5 or out.shape[0] != b.shape[0] or cls_arr.shape != (b.shape[0],):
        raise ValueError(f"need probs (N, 5) and classes (N,) for {b.shape[0]} boards, got {out.shape} and {cls_arr.shape}")
    cdef float[:, ::1] o = out
    cdef const int8_t[::1] c = cls_arr
    cdef fgg_race_tables tab
    cdef const unsigned short[:, ::1] bo
    cdef const float[:, ::1] es
    cdef const void *extra = NULL
    if tables is not None:
        bo = tables.bearoff
        es = tables.escape
        tab.bearoff = &bo[0, 0]
        tab.escape = &es[0, 0]
        extra = &tab
    cdef Py_ssize_t i
    with nogil:
        for i in range(b.shape[0]):
            if c[i] == FGG_RACE or c[i] == FGG_CRASHED or c[i] == FGG_CONTACT:
                fgg_correct(&b[i, 0, 0], c[i], &o[i, 0], extra)
    return out
