"""GNU Backgammon's nets compiled against gnubg-nn, in one run.

    OPENBLAS_NUM_THREADS=1 nice python -m pytest bench/test_gnubg_nets.py -s

The baseline is gnubg-nn (the ``peers`` extra, weights 1.01) as its users call it at its
best: ``gnubg_nn.probabilities(board, 0)`` once a position, the boards already Python
lists (the conversion is not timed), each position new to its cache (the first pass
over the positions; a second pass, answered from its cache, is reported too). fastgen is
:func:`fastgen.nets.gnubg.load`'s evaluator on the same positions as one (N, 2, 25)
batch, warm memory (the best of several calls after a first). The positions: 100,000 of
mixed classes from games of mixed strength (tests/_gnubg_positions.py), in game order.

* ``test_evaluation``: microseconds a position, fastgen one thread and two, gnubg-nn
  fresh and cached; the ratios (goal: 10x gnubg-nn fresh with one thread; two threads
  1.7x one), and the share of each class.
* ``test_one_ply``: gnubg's 1-ply evaluation (:class:`fastgen.nets.gnubg.GnubgLookahead`
  unpruned, as gnubg-nn searches) of 1,000 of the positions against
  ``gnubg_nn.probabilities(board, 1)`` on positions new to its cache; then ``gnubg:1`` as
  it runs by default, pruned as the program prunes.
* ``test_two_plies``: the same at 2 plies, 200 of the positions, against
  ``gnubg_nn.probabilities(board, 2)``.
* ``test_greedy_play``: a duel's turns: ``fastgen.duel("gnubg:0", "gnubg:0", ...)``
  against gnubg-nn's own player (``gnubg-nn:0``) in turns a second, 1,000 games each,
  warm (each side's nets loaded by a first duel of two games).

Nothing is asserted: the machine is shared, and its speed varies through the day.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np
import pytest

import fastgen
from fastgen.nets import gnubg

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
from _gnubg_positions import mixed  # noqa: E402
from _timing import best_of  # noqa: E402

gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg-nn not installed: pip install '.[peers]'")

N = 100_000


@pytest.fixture(scope="module")
def positions():
    boards = mixed(21, 2000)
    rng = np.random.default_rng(1)
    start = int(rng.integers(0, max(1, len(boards) - N)))
    return np.ascontiguousarray(boards[start:start + N])


@pytest.mark.benchmark(group="gnubg-nets")
def test_evaluation(benchmark, positions):
    nets = gnubg.load()
    n = len(positions)
    lists = positions.tolist()
    probabilities = gnubg_nn.probabilities
    t = time.perf_counter()
    for b in lists:
        probabilities(b, 0)
    fresh = (time.perf_counter() - t) / n * 1e6
    t = time.perf_counter()
    for b in lists:
        probabilities(b, 0)
    cached = (time.perf_counter() - t) / n * 1e6
    one = benchmark.pedantic(lambda: best_of(lambda: nets.evaluate(positions)), rounds=1, iterations=1) / n * 1e6
    two = best_of(lambda: nets.evaluate(positions, threads=2)) / n * 1e6
    shares = np.bincount(gnubg.classify(positions), minlength=5) / n
    benchmark.extra_info.update(positions=n, fastgen_us=one, fastgen_2_threads_us=two, gnubg_nn_fresh_us=fresh,
                                gnubg_nn_cached_us=cached, ratio=fresh / one, ratio_cached=cached / one,
                                threads_speedup=one / two,
                                classes={c: float(s) for c, s in zip(gnubg.CLASSES, shares)})
    print(f"\n{n:,} positions ({', '.join(f'{c} {100 * s:.0f}%' for c, s in zip(gnubg.CLASSES, shares) if s)}), "
          f"warm memory:\n  fastgen compiled: {one:.3f} us a position, one thread; {two:.3f} with two "
          f"({one / two:.2f}x)\n  gnubg-nn, one call a position: {fresh:.3f} us on new positions "
          f"({fresh / one:.1f}x fastgen's time), {cached:.3f} us from its cache ({cached / one:.1f}x)")


@pytest.mark.benchmark(group="gnubg-nets")
def test_one_ply(benchmark, positions):
    ahead = gnubg.load().at_ply(1, prune=False)
    pruned = gnubg.load().at_ply(1)
    few = np.ascontiguousarray(positions[::100][:1000])
    n = len(few)
    lists = few.tolist()
    probabilities = gnubg_nn.probabilities
    t = time.perf_counter()
    for b in lists:
        probabilities(b, 1)
    fresh = (time.perf_counter() - t) / n * 1e3
    one = benchmark.pedantic(lambda: best_of(lambda: ahead.evaluate(few), 3), rounds=1, iterations=1) / n * 1e3
    two = best_of(lambda: ahead.evaluate(few, threads=2), 3) / n * 1e3
    cut = best_of(lambda: pruned.evaluate(few), 3) / n * 1e3
    benchmark.extra_info.update(positions=n, fastgen_ms=one, fastgen_2_threads_ms=two, gnubg_nn_fresh_ms=fresh,
                                ratio=fresh / one, threads_speedup=one / two, fastgen_pruned_ms=cut)
    print(f"\n{n:,} positions at 1 ply, warm memory: fastgen compiled, unpruned, {one:.3f} ms a position, one "
          f"thread; {two:.3f} with two ({one / two:.2f}x)\n  gnubg-nn, one call a position: {fresh:.3f} ms on new "
          f"positions ({fresh / one:.1f}x fastgen's time)\n  fastgen pruned (gnubg:1, the program's default): "
          f"{cut:.3f} ms a position")


@pytest.mark.benchmark(group="gnubg-nets")
def test_two_plies(benchmark, positions):
    ahead = gnubg.load().at_ply(2, prune=False)
    pruned = gnubg.load().at_ply(2)
    few = np.ascontiguousarray(positions[::500][:200])
    n = len(few)
    lists = few.tolist()
    probabilities = gnubg_nn.probabilities
    t = time.perf_counter()
    for b in lists:
        probabilities(b, 2)
    fresh = (time.perf_counter() - t) / n * 1e3
    one = benchmark.pedantic(lambda: best_of(lambda: ahead.evaluate(few), 2), rounds=1, iterations=1) / n * 1e3
    two = best_of(lambda: ahead.evaluate(few, threads=2), 2) / n * 1e3
    cut = best_of(lambda: pruned.evaluate(few), 2) / n * 1e3
    benchmark.extra_info.update(positions=n, fastgen_ms=one, fastgen_2_threads_ms=two, gnubg_nn_fresh_ms=fresh,
                                ratio=fresh / one, threads_speedup=one / two, fastgen_pruned_ms=cut)
    print(f"\n{n:,} positions at 2 plies, warm memory: fastgen compiled, unpruned, {one:.2f} ms a position, one "
          f"thread; {two:.2f} with two ({one / two:.2f}x)\n  gnubg-nn, one call a position: {fresh:.2f} ms on new "
          f"positions ({fresh / one:.1f}x fastgen's time)\n  fastgen pruned (gnubg:2, the program's default): "
          f"{cut:.2f} ms a position")


@pytest.mark.benchmark(group="gnubg-nets")
def test_greedy_play(benchmark):
    games = 1000
    # warm: each side's nets loaded (and gnubg-nn imported) before the timing; a duel
    # of a few hundred games is otherwise mostly the nets' loading
    fastgen.duel("gnubg:0", "gnubg:0", 2, seed=2)
    fastgen.duel("gnubg-nn:0", "gnubg-nn:0", 2, seed=2)
    mine = benchmark.pedantic(lambda: fastgen.duel("gnubg:0", "gnubg:0", games, seed=1), rounds=1, iterations=1)
    t = time.perf_counter()
    theirs = fastgen.duel("gnubg-nn:0", "gnubg-nn:0", games, seed=1)
    nn_seconds = time.perf_counter() - t
    rate, nn_rate = int(mine.turns.sum()) / mine.seconds, int(theirs.turns.sum()) / nn_seconds
    benchmark.extra_info.update(turns_per_s=rate, gnubg_nn_turns_per_s=nn_rate, ratio=rate / nn_rate)
    print(f"\n{games} greedy games of gnubg:0 against itself: {rate:,.0f} turns/s; gnubg-nn's own player "
          f"(gnubg-nn:0): {nn_rate:,.0f} turns/s: {rate / nn_rate:.1f}x")
