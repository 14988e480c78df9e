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

fgg_init()

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
