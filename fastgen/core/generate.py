"""Move generation, the public entry points over the compiled core.

Inputs are validated once here (fastgen.core.boards); the core then runs on raw int8 buffers.
"""

from __future__ import annotations

import threading

import numpy as np

from fastgen.core import _core
from fastgen._util import check_int, check_stopped, check_threads, run_threads
from fastgen.core.boards import as_board, as_boards, as_dice, as_dice_batch
from fastgen.core.features import encode_trusted, release_spare, scheme_width
from fastgen.core.plays import PlayBatch, Plays
from typing import Iterator
from fastgen._typing import ArrayLike, DiceLike, Int64Array

__all__ = ["legal_plays", "plays_batch", "count_plays_batch", "iter_plays_batch", "release_memory"]

#: Batches of at least this many positions run in worker threads while the calling thread
#: waits for Ctrl-C (see fastgen._util.run_threads): smaller ones take milliseconds, less
#: than the ~0.1 ms a thread costs to start would be worth.
WATCH_FROM = 32768


#: count_plays_batch with one thread counts in the calling thread, this many positions per
#: call into the core (about a millisecond of plain positions, well under a second of the
#: heaviest), so KeyboardInterrupt comes between two of them.
COUNT_RANGE = 8192

#: plays_batch with one thread generates in the calling thread, this many positions per
#: call into the core (about two milliseconds of vector-workload positions, well under a
#: second of the heaviest), so KeyboardInterrupt comes between two of them.
PLAYS_RANGE = 8192


def _stop_flag(n: int) -> _core.StopFlag | None:
    """A StopFlag for a batch of n positions, or None when it is too small to watch."""
    return _core.StopFlag() if n >= WATCH_FROM else None


def legal_plays(board: ArrayLike, dice: DiceLike) -> Plays:
    """Every legal play of *board* (row 1 on roll) with *dice*, distinct by result.

    Implements docs/RULES.md R5-R14: bar first, blocked and intermediate points, hits,
    bear-off, the maximum-dice and larger-die rules. The result always holds at least one
    play: a lost turn is the unchanged position with no steps (R14).

    >>> import fastgen
    >>> plays = fastgen.legal_plays(fastgen.STARTING_BOARD, (6, 5))
    >>> len(plays), plays.boards.shape, plays.moves.shape
    (7, (7, 2, 25), (7, 4, 2))
    """
    try:
        fast = _core.legal_plays_fast(board, dice)
    except OverflowError:  # a die too large for a C long: the checks below say so
        fast = None
    if fast is not None:
        copy, d1, d2, boards, moves = fast
        return Plays(copy, (d1, d2), boards, moves)
    # Other input kinds: convert (raising the specific error for bad input), then the
    # same fast call, which now accepts them.
    fast = _core.legal_plays_fast(as_board(board), as_dice(dice))
    if fast is None:  # pragma: no cover
        raise AssertionError("the core rejected a board and dice that as_board and as_dice accept")
    copy, d1, d2, boards, moves = fast
    return Plays(copy, (d1, d2), boards, moves)


def _run_parts(boards: np.ndarray, dice: np.ndarray, threads: int) -> tuple[np.ndarray, list[_core.Part]]:
    """Run the core over contiguous ranges, one per thread; returns (offsets, parts)."""
    stop = _stop_flag(boards.shape[0])
    n = boards.shape[0]
    offsets = np.zeros(n + 1, dtype=np.int64)
    threads = max(1, min(threads, n))
    bounds = _core.balanced_bounds(boards, dice, threads).tolist()
    found: list[_core.Part | None] = [None] * threads

    def work(k: int) -> None:
        found[k] = _core.batch_part(boards, dice, offsets, bounds[k], bounds[k + 1], stop)

    run_threads(work, threads, stop)
    parts = [part for part in found if part is not None]
    if len(parts) < threads:
        as_boards(boards)  # a board is invalid: raise for the first one
        raise AssertionError("the core rejected a board that as_boards accepts")  # pragma: no cover
    # Each part's offsets are relative to its own output: shift them to global rows.
    shift = 0
    for k, part in enumerate(parts):
        lo, hi = bounds[k], bounds[k + 1]
        if shift:
            offsets[lo + 1 : hi + 1] += shift
        shift += part.count
    return offsets, parts


def _mapped(boards: np.ndarray, dice: np.ndarray, threads: int):
    """One or two threads writing straight into one reserved output mapping (see
    _core.PairJob), reusing the memory of earlier batches whose arrays are gone; None when
    the reservation could not be made or did not suffice, so the caller takes the usual
    path. With one thread the whole batch is the upper half."""
    if threads == 1:
        mid = 0
    else:  # the lower half is laid out downward through a scratch buffer: give it less
        mid = int(_core.balanced_bounds(boards, dice, 2, 0.45)[1])
    job = _core.PairJob(boards, dice, mid)
    if not job.reserved:
        job.abandon()
        return None
    try:
        if threads == 1:
            # In the calling thread, in ranges of PLAYS_RANGE positions: no worker thread
            # to start and wait for, and Ctrl-C is raised between two ranges.
            job.run(0)  # an empty range
            n = boards.shape[0]
            for lo in range(0, max(n, 1), PLAYS_RANGE):
                check_stopped()  # a share of a call side by side whose other shares stopped
                if not job.run_upper(min(lo + PLAYS_RANGE, n)):
                    break
        else:
            stop = _stop_flag(boards.shape[0])
            run_threads(lambda k: job.run(k, stop), 2, stop)
    except BaseException:
        job.abandon()  # Ctrl-C or an error: the mappings go back to the spares
        raise
    if job.invalid:
        as_boards(boards)  # raises for the first invalid board
        raise AssertionError("the core rejected a board that as_boards accepts")  # pragma: no cover
    return job.finish()


def plays_batch(boards: ArrayLike, dice: ArrayLike, *, threads: int = 1, encode: str | None = None) -> PlayBatch:
    """The plays of N positions at once, without the GIL.

    *boards* is (N, 2, 25), *dice* (N, 2). The plays of position i are rows
    ``offsets[i]:offsets[i+1]`` of the result's ``boards`` and ``moves``, in the same order
    as :func:`legal_plays` gives them. ``threads`` splits the batch into that many
    contiguous ranges run in parallel; the output is identical for any thread count.

    The output is written once, straight into memory that becomes the result arrays.
    With one or two threads that memory comes from a mapping that, once the arrays of a
    batch are gone, is kept for the next batch (at most two of each kind), which saves
    the kernel's cost of handing out fresh pages; :func:`release_memory` gives it back.

    Ctrl-C: with one thread a large batch runs in the calling thread in ranges of
    PLAYS_RANGE positions, and KeyboardInterrupt is raised between two; with more, a
    batch of WATCH_FROM positions or more runs in worker threads that stop within a
    position of KeyboardInterrupt, which is then raised here.

    ``encode="tesauro198"`` (or another scheme of :func:`fastgen.encode`) also fills the
    result's ``features``, (M, F) float32: each play's resulting board encoded as the
    side to roll next sees it (``encode(swap_sides(board))``, see :class:`PlayBatch`),
    in one compiled pass over the output (split over ``threads`` too).

    >>> import fastgen, numpy as np
    >>> b = np.stack([fastgen.STARTING_BOARD] * 2)
    >>> batch = fastgen.plays_batch(b, [(6, 5), (1, 1)])
    >>> batch.counts.tolist()
    [7, 42]
    >>> fastgen.plays_batch(b, [(6, 5), (1, 1)], encode="tesauro198").features.shape
    (49, 198)
    """
    arr = as_boards(boards, check_counts=False)  # counts are checked in the core
    dice_arr = as_dice_batch(dice, arr.shape[0])
    threads = check_threads(threads)
    if encode is not None:
        scheme_width(encode)  # an unknown scheme fails before any work
    # The mapped path pays a fixed cost (~20 us) and wins on large batches only.
    done = None
    if (threads == 1 and arr.shape[0] >= 8192) or (threads == 2 and arr.shape[0] >= 1024):
        done = _mapped(arr, dice_arr, threads)
    if done is None:
        offsets, parts = _run_parts(arr, dice_arr, threads)
        done = (offsets, *_core.merge_parts(parts))
    batch = PlayBatch(arr, dice_arr, *done)
    if encode is not None:
        batch.features = encode_trusted(batch.boards, encode, next_player=True, threads=threads)
    return batch


def count_plays_batch(boards: ArrayLike, dice: ArrayLike, *, threads: int = 1) -> Int64Array:
    """Number of distinct legal plays of each of N positions, (N,) int64 (perft-style).

    Same counts as ``len(legal_plays(b, d))`` per position, without building the plays.
    With one thread it runs in the calling thread (Ctrl-C is raised within
    milliseconds); with several the batch is shared out in small ranges as threads come
    free, and a batch of WATCH_FROM positions or more stops promptly on Ctrl-C.

    >>> import fastgen, numpy as np
    >>> fastgen.count_plays_batch(np.stack([fastgen.STARTING_BOARD] * 2), [(3, 1), (6, 6)]).tolist()
    [16, 11]
    """
    arr = as_boards(boards, check_counts=False)  # counts are checked in the core
    dice_arr = as_dice_batch(dice, arr.shape[0])
    threads = check_threads(threads)
    n = arr.shape[0]
    counts = np.zeros(n, dtype=np.int64)
    if threads == 1:
        # In the calling thread, in ranges of at most COUNT_RANGE positions: Ctrl-C is
        # raised between two ranges (milliseconds apart), and no thread is started.
        counter = _core.Counter(arr, dice_arr, counts)
        for lo in range(0, n, COUNT_RANGE):
            if not counter.count(lo, min(lo + COUNT_RANGE, n)):
                as_boards(arr)  # raises for the first invalid board
                raise AssertionError("the core rejected a board that as_boards accepts")  # pragma: no cover
        return counts
    step = max(256, -(-n // (16 * threads)))
    ranges = [(lo, min(lo + step, n)) for lo in range(0, n, step)]
    threads = max(1, min(threads, len(ranges)))
    ok = [True] * threads
    lock = threading.Lock()

    stop = _stop_flag(n)

    def work(k):
        counter = _core.Counter(arr, dice_arr, counts)
        while True:
            with lock:
                if not ranges or (stop is not None and stop.is_set()):
                    return
                lo, hi = ranges.pop()
            if not counter.count(lo, hi, stop):
                ok[k] = False
                return

    run_threads(work, threads, stop)
    if not all(ok):
        as_boards(arr)  # raises for the first invalid board
        raise AssertionError("the core rejected a board that as_boards accepts")  # pragma: no cover
    return counts


def iter_plays_batch(
    boards: ArrayLike, dice: ArrayLike, *, chunk_size: int = 65536, threads: int = 1, encode: str | None = None
) -> Iterator[tuple[int, PlayBatch]]:
    """Yield ``(start, PlayBatch)`` for consecutive chunks of a large batch.

    Each chunk covers positions ``start .. start + len(batch) - 1``; the input arrays are
    sliced (views, no copy), so only one chunk's output is alive at a time if the caller
    drops it before asking for the next. ``encode`` is passed on to :func:`plays_batch`.
    """
    check_int(chunk_size, "chunk_size", 1)
    arr = as_boards(boards)
    dice_arr = as_dice_batch(dice, arr.shape[0])
    for start in range(0, arr.shape[0], chunk_size):
        yield start, plays_batch(arr[start : start + chunk_size], dice_arr[start : start + chunk_size], threads=threads, encode=encode)


def release_memory() -> int:
    """Give back the output memory :func:`plays_batch` (and :func:`fastgen.encode`) keep
    for reuse once the arrays of earlier batches are gone; returns the bytes of address
    space released.

    >>> import fastgen
    >>> fastgen.release_memory() >= 0
    True
    """
    return _core.release_memory() + release_spare()
