"""What the benchmarks share for timing a call the way its users run it warm."""

from __future__ import annotations

import time
from typing import Any, Callable


def best_of(fn: Callable[[], Any], reps: int = 5) -> float:
    """The shortest of *reps* timed calls of *fn*, in seconds, after one untimed call
    (warm memory: the first call fills the caches and the allocator's pools)."""
    fn()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)
