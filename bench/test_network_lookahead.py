"""fastgen's own network looking ahead, compiled (``baseline:1``, ``baseline:2``), against
the same search in numpy (:class:`fastgen.players.search.PlainLookahead`, what any
evaluator that is not compiled gets, batched over all the positions' rolls), timed in the
same run on the same positions.

    OPENBLAS_NUM_THREADS=1 nice python -m pytest bench/test_network_lookahead.py -s

Positions from games of mixed strength (contact, race and bear-off), warm memory (the
network loaded and each call run once before the timing), one thread unless said.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np
import pytest

from fastgen.players import evaluators
from fastgen.players.search import PlainLookahead

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
from _gnubg_positions import self_play  # noqa: E402


def best_of(call, repeats: int) -> float:
    """The shortest of *repeats* timings of ``call()``, seconds."""
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - t)
    return best


@pytest.fixture(scope="module")
def positions():
    boards = self_play(5, 60, 0.3)
    rng = np.random.default_rng(2)
    return np.ascontiguousarray(boards[rng.choice(len(boards), 200, replace=False)])


@pytest.mark.benchmark(group="network-lookahead")
def test_one_ply(benchmark, positions):
    net = evaluators.baseline()
    compiled, plain = net.at_ply(1), PlainLookahead(net, 1)
    compiled.evaluate(positions[:4]), plain.evaluate(positions[:4])
    n = len(positions)
    numpy_ms = best_of(lambda: plain.evaluate(positions), 2) / n * 1e3
    one = benchmark.pedantic(lambda: best_of(lambda: compiled.evaluate(positions), 3), rounds=1, iterations=1) / n * 1e3
    two = best_of(lambda: compiled.evaluate(positions, threads=2), 3) / n * 1e3
    benchmark.extra_info.update(positions=n, compiled_ms=one, compiled_2_threads_ms=two, numpy_ms=numpy_ms,
                                ratio=numpy_ms / one, threads_speedup=one / two)
    print(f"\nbaseline:1 on {n} positions, warm: compiled {one:.3f} ms a position ({two:.3f} with two threads, "
          f"{one / two:.2f}x); numpy {numpy_ms:.3f} ms: {numpy_ms / one:.1f}x")


@pytest.mark.benchmark(group="network-lookahead")
def test_two_plies(benchmark, positions):
    net = evaluators.baseline()
    few = np.ascontiguousarray(positions[:20])
    compiled, plain = net.at_ply(2), PlainLookahead(net, 2)
    compiled.evaluate(few[:1]), plain.evaluate(few[:1])
    n = len(few)
    numpy_ms = best_of(lambda: plain.evaluate(few), 1) / n * 1e3
    one = benchmark.pedantic(lambda: best_of(lambda: compiled.evaluate(few), 2), rounds=1, iterations=1) / n * 1e3
    two = best_of(lambda: compiled.evaluate(few, threads=2), 2) / n * 1e3
    benchmark.extra_info.update(positions=n, compiled_ms=one, compiled_2_threads_ms=two, numpy_ms=numpy_ms,
                                ratio=numpy_ms / one, threads_speedup=one / two)
    print(f"\nbaseline:2 on {n} positions, warm: compiled {one:.2f} ms a position ({two:.2f} with two threads, "
          f"{one / two:.2f}x); numpy {numpy_ms:.2f} ms: {numpy_ms / one:.1f}x")
