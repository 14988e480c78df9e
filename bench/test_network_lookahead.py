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

import numpy as np
import pytest

from fastgen.players import evaluators
from fastgen.players.search import PlainLookahead

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
from _gnubg_positions import self_play  # noqa: E402
from _timing import best_of  # noqa: E402


@pytest.fixture(scope="module")
def positions():
    boards = self_play(5, 60, 0.3)
    rng = np.random.default_rng(2)
    return np.ascontiguousarray(boards[rng.choice(len(boards), 200, replace=False)])


@pytest.mark.benchmark(group="network-lookahead")
@pytest.mark.parametrize(("plies", "count", "reps"), [(1, 200, 3), (2, 20, 2)], ids=["one-ply", "two-plies"])
def test_lookahead(benchmark, positions, plies, count, reps):
    """baseline:N on *count* positions: compiled (one thread and two) against numpy."""
    net = evaluators.baseline()
    todo = np.ascontiguousarray(positions[:count])
    compiled, plain = net.at_ply(plies), PlainLookahead(net, plies)
    numpy_ms = best_of(lambda: plain.evaluate(todo), 1) / count * 1e3
    one = benchmark.pedantic(lambda: best_of(lambda: compiled.evaluate(todo), reps), rounds=1,
                             iterations=1) / count * 1e3
    two = best_of(lambda: compiled.evaluate(todo, threads=2), reps) / count * 1e3
    benchmark.extra_info.update(positions=count, compiled_ms=one, compiled_2_threads_ms=two, numpy_ms=numpy_ms,
                                ratio=numpy_ms / one, threads_speedup=one / two)
    print(f"\nbaseline:{plies} on {count} positions, warm: compiled {one:.3f} ms a position ({two:.3f} with two "
          f"threads, {one / two:.2f}x); numpy {numpy_ms:.3f} ms: {numpy_ms / one:.1f}x")
