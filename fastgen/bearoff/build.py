"""Building bear-off databases: the checked Python front of the compiled builders.

The work runs in fastgen.bearoff._build without the GIL, from fastgen's own move
generation (fastgen.core._core.generate), in a worker thread while the calling thread
waits: Ctrl-C stops a long build within a fraction of a second (KeyboardInterrupt is
raised here, nothing is left running). See docs/guides/bearoff.rst for the arithmetic,
which reproduces GNU Backgammon's makebearoff byte for byte.
"""

from __future__ import annotations

import threading
from typing import Callable, Optional

import numpy as np

from fastgen._util import check_int, check_threads, run_threads
from fastgen.bearoff import _build
from fastgen.bearoff.database import NDIST, OneSidedDatabase, TwoSidedDatabase
from fastgen.bearoff.index import check_dimensions, n_positions
from fastgen.errors import InvalidArgumentError

__all__ = ["build_one_sided", "build_two_sided", "Progress"]

#: ``progress(done, total)`` is called from the worker thread as a build advances.
Progress = Optional[Callable[[int, int], None]]

#: One-sided: positions per call into the core (well under a second each).
ONE_SIDED_CHUNK = 1 << 16


def children(points: int) -> _build.Children:
    """The builders' source of plays (see _build.Children), its cache sized by the points.

    Up to 6 points every pattern's plays stay cached (about 10 MB for 6 points): the
    6-point file builds in about half the time of plain generation. With more points the
    doubles' patterns repeat too little (2 to 3 times) to pay for their memory, so
    doubles are generated directly and a smaller cache holds the non-doubles' lists
    (their patterns repeat 50 to 80 times): 5 MB for 7 and 8 points, 1.3 MB from 9 on,
    where the database is large and its memory counts most (a larger cache gained
    little there: the doubles' generation dominates). Memory is allocated untouched;
    only what is used is paid for.
    """
    if points <= 6:
        return _build.Children(points, 1 << 21, 15, True)
    if points <= 8:
        return _build.Children(points, 1 << 19, 14, False)
    return _build.Children(points, 1 << 17, 12, False)


def build_one_sided(points: int, *, gammons: bool = True, compress: bool = False,
                    progress: Progress = None) -> OneSidedDatabase:
    """The one-sided bear-off database of up to 15 checkers on *points* points (1 to 12).

    For every position and each of the 21 rolls the play kept is the one whose stored
    roll distribution has the smallest mean (the first such play in fastgen's generation
    order); with *gammons* the first-checker distribution of 15-checker positions chooses
    its own play by its own mean. The result is what makebearoff -o *points* computes.

    The database is built in gnubg's compressed layout (only the non-zero run of each
    distribution is kept, the children read back through the index). With *compress* it
    is returned so, about a quarter of the memory, written to a compressed .bd file as it
    is, its :attr:`~OneSidedDatabase.rolls` decoded on demand; without, it is expanded to
    the uncompressed (positions, 32) tables.

    >>> from fastgen.bearoff import build_one_sided
    >>> db = build_one_sided(2)
    >>> db.stored([5])[0][0, :3].tolist()    # two checkers on point 2: 26/36 in one roll
    [0, 47331, 18204]
    """
    points, _ = check_dimensions(points)
    if not isinstance(gammons, (bool, np.bool_)):
        raise InvalidArgumentError(f"gammons must be True or False, got {gammons!r}")
    if not isinstance(compress, (bool, np.bool_)):
        raise InvalidArgumentError(f"compress must be True or False, got {compress!r}")
    packed = _build_one_sided_packed(points, bool(gammons), progress)
    if compress:
        return packed
    # the uncompressed tables, expanded from the compressed layout (one builder for both)
    assert packed.index_bytes is not None and packed.runs is not None
    size = n_positions(points, 15)
    rolls = np.zeros((size, NDIST), dtype=np.uint16)
    gammon = np.zeros((size if gammons else 0, NDIST), dtype=np.uint16)
    _build.expand(packed.index_bytes, packed.runs, rolls, gammon)
    return OneSidedDatabase(points, rolls=rolls, gammon=gammon if gammons else None, gammons=gammons)


def _build_one_sided_packed(points: int, gammons: bool, progress: Progress) -> OneSidedDatabase:
    """build_one_sided(compress=True): the index and the runs of a compressed .bd file."""
    size = n_positions(points, 15)
    index = np.zeros((size, 8 if gammons else 6), dtype=np.uint8)
    data = np.zeros(1 << 16, dtype=np.uint16)
    used = 0
    mean = np.zeros(size, dtype=np.uint16)  # mean keys (see _build.pick)
    # first-checker means: only positions of 15 checkers have one that is not 0
    gmean = np.zeros(size - n_positions(points, 14) if gammons else 0, dtype=np.uint16)
    cursor = np.zeros(points, dtype=np.int8)
    kids = children(points)
    stop = _build.BuildStop()
    failed: list[str] = []

    def work(_k: int) -> None:
        nonlocal data, used
        start = 0
        while start < size and not stop.is_set():
            end = min(size, start + ONE_SIDED_CHUNK)
            if used + 2 * NDIST > data.shape[0]:
                # grown in place (realloc, numpy zero-fills the new part) by a 64th: at most
                # 1.6% unused at the peak, and large reallocs move pages, not bytes (mremap)
                data.resize(data.shape[0] + max(1 << 16, data.shape[0] // 64), refcheck=False)
            got, used = _build.one_sided_packed(points, index, data, used, mean, gmean, cursor, start, end, kids, stop)
            if got < 0:
                failed.append("out of memory")
                return
            start = got
            if progress is not None:
                progress(start, size)

    run_threads(work, 1, stop=stop)
    if failed:
        raise MemoryError(f"building the one-sided database of {points} points: {failed[0]}")
    del mean, gmean
    data.resize(used, refcheck=False)
    return OneSidedDatabase.from_index(points, index, data, gammons=gammons)


def children_table(points: int, checkers: int) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, children): the plays of every position of up to *checkers* on *points*
    points for each of the 21 rolls, as position numbers (see _build.children_table)."""
    size = n_positions(points, checkers)
    offsets = np.zeros(size * 21 + 1, dtype=np.int64)
    kids = _build.children_table(points, checkers, offsets, children(points))
    return offsets, kids


def build_two_sided(points: int, checkers: int, *, cubeful: bool = True, threads: int = 1,
                    progress: Progress = None) -> TwoSidedDatabase:
    """The two-sided bear-off database: both sides with up to *checkers* (1 to 15) on
    *points* (1 to 12) points, exact equities for the side on roll.

    Cubeless equities always; with *cubeful* also the no-double equities with the cube
    owned by the side on roll, centred and owned by the opponent (money play, doubles
    and takes chosen optimally). The same values as makebearoff -t PxC. *threads* (1 or
    2 are sensible) splits each step of the recursion; the result is the same.

    The table takes n x n x 8 bytes (n x n x 2 without *cubeful*), n = n_positions(points,
    checkers): 6.8 MB for 6x6, 513 MB for 6x10.

    >>> from fastgen.bearoff import build_two_sided
    >>> db = build_two_sided(2, 2)
    >>> db.values[5, 5].tolist()    # 2 on point 2 each: cubeless, owned, centred, opponent's
    [52387, 52387, 48342, 48342]
    """
    points, checkers = check_dimensions(points, checkers)
    if not isinstance(cubeful, (bool, np.bool_)):
        raise InvalidArgumentError(f"cubeful must be True or False, got {cubeful!r}")
    threads = check_threads(threads)
    offsets, kids = children_table(points, checkers)
    size = n_positions(points, checkers)
    values = np.zeros((size, size, 4 if cubeful else 1), dtype=np.uint16)
    stop = _build.BuildStop()
    step = max(1, size // 200)

    if threads == 1:
        def work(_k: int) -> None:
            m = 0
            while m < size and not stop.is_set():
                m = _build.two_sided(values, offsets, kids, m, min(size, m + step), 0, 1, -1, stop)
                if progress is not None:
                    progress(m * m, size * size)

        run_threads(work, 1, stop=stop)
        return TwoSidedDatabase(points, checkers, values, cubeful=cubeful)

    barrier = threading.Barrier(threads)

    def part(k: int) -> None:
        # Shell m: row m split over the threads, then the pair (m, m), then column m.
        try:
            for m in range(size):
                if stop.is_set():
                    break
                _build.two_sided(values, offsets, kids, m, m + 1, k, threads, 0, stop)
                barrier.wait()
                if k == 0:
                    _build.two_sided_diagonal(values, offsets, kids, m)
                barrier.wait()
                _build.two_sided(values, offsets, kids, m, m + 1, k, threads, 1, stop)
                barrier.wait()
                if k == 0 and progress is not None and m % step == 0:
                    progress(m * m, size * size)
        except threading.BrokenBarrierError:
            return
        finally:
            if stop.is_set():
                barrier.abort()

    run_threads(part, threads, stop=stop)
    return TwoSidedDatabase(points, checkers, values, cubeful=cubeful)
