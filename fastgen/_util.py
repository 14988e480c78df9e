"""Small shared helpers: argument checks and running work in threads."""

from __future__ import annotations

import threading

import numpy as np

from fastgen.errors import InvalidArgumentError


def check_int(value, name: str, minimum: int, maximum: int | None = None) -> int:
    """*value* as an int >= *minimum* (0 or 1) and, if given, <= *maximum*;
    InvalidArgumentError (a ValueError) quoting it otherwise (bools, floats and strings
    refused; numpy integers accepted)."""
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, (int, np.integer))
        or value < minimum
        or (maximum is not None and value > maximum)
    ):
        kind = "a positive integer" if minimum == 1 else "a non-negative integer"
        if maximum is not None:
            kind += f" at most {maximum}"
        raise InvalidArgumentError(f"{name} must be {kind}, got {value!r}")
    return int(value)


#: Seconds the waiting thread sleeps between looks at pending signals (Ctrl-C).
POLL_SECONDS = 0.05


def run_threads(work, count: int, stop=None) -> None:
    """Run ``work(k)`` for k in range(count) in parallel (the work releases the GIL in the
    core). Re-raises the first exception in the caller's thread once all have finished.

    Without *stop*: k = 0 runs in the calling thread, the others in new threads. With
    *stop* (a ``fastgen._core.StopFlag`` the work passes to the core): every ``work(k)``
    runs in a new thread while the calling thread waits, waking every POLL_SECONDS so
    Python runs its signal handlers; on KeyboardInterrupt (or any exception there) it
    sets *stop*, waits for the workers (the core polls the flag between positions or
    turns) and re-raises, so a long call stops promptly and leaves nothing running.
    """
    errors = []

    def guarded(k):
        try:
            work(k)
        except BaseException as exc:  # re-raised below
            errors.append(exc)

    if stop is None:
        pool = [threading.Thread(target=guarded, args=(k,)) for k in range(1, count)]
        for t in pool:
            t.start()
        guarded(0)
        for t in pool:
            t.join()
    else:
        _watch(guarded, count, stop)
    if errors:
        raise errors[0]


def _watch(guarded, count: int, stop) -> None:
    """Run guarded(k) for k in range(count) in new threads; wait for them in this thread,
    letting Python handle signals, and on any exception here set *stop* and wait for the
    workers before re-raising. Waits on an Event, not Thread.join: a join interrupted
    by KeyboardInterrupt can mark a still-running thread as finished (CPython 3.11)."""
    lock = threading.Lock()
    left = [count]
    done = threading.Event()

    def worker(k):
        try:
            guarded(k)
        finally:
            with lock:
                left[0] -= 1
                if left[0] == 0:
                    done.set()

    pool = [threading.Thread(target=worker, args=(k,), name=f"fastgen-worker-{k}") for k in range(count)]
    started = 0
    try:
        for t in pool:
            t.start()
            started += 1
        while not done.wait(POLL_SECONDS):
            pass
    except BaseException:
        stop.set()
        with lock:  # threads never started never finish: stop waiting for them
            left[0] -= count - started
            if left[0] == 0:
                done.set()
        done.wait()
        raise
    finally:
        for t in pool[:started]:
            t.join()
