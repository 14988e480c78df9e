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


def run_threads(work, count: int) -> None:
    """Run ``work(k)`` for k in range(count) in parallel (the work releases the GIL in the
    core): k = 0 in the calling thread, the others in new threads. Re-raises the first
    exception in the caller's thread once all have finished."""
    errors = []

    def guarded(k):
        try:
            work(k)
        except BaseException as exc:  # re-raised below
            errors.append(exc)

    pool = [threading.Thread(target=guarded, args=(k,)) for k in range(1, count)]
    for t in pool:
        t.start()
    guarded(0)
    for t in pool:
        t.join()
    if errors:
        raise errors[0]
