"""Rollouts that decide: where the time goes, and trials per second against GNU Backgammon.

    nice python -m pytest bench/test_decide.py -s --benchmark-disable-gc
    FASTGEN_BENCH_TRIALS=1296 FASTGEN_BENCH_GNUBG_TRIALS=1296 nice python -m pytest bench/test_decide.py -s

* ``test_overhead_with_a_gnubg_sized_network``: a variance-reduced rollout of the opening
  position (one row, ``rollout_position``) with a numpy network of GNU Backgammon's
  contact net size (250 inputs: ``tesauro198`` + ``raw``; 128 hidden; 5 outputs; random
  weights). Reports the share of the wall time spent outside the evaluator (goal: at
  most 15%) and the evaluator's mean batch size (goal: 10,000 positions a call).
* ``test_compiled_network_against_gnubg``: ``rollout_position`` of the opening position
  and ``rollout_plays`` of the opening 3-1's two best plays with a compiled
  :class:`fastgen.nets.Network` of that size that plays sensible games (taught GNU
  Backgammon's 0-ply evaluations: bench/data/SOURCE.md), and with GNU Backgammon's own
  nets compiled (``gnubg:0``: :mod:`fastgen.nets.gnubg`), against the gnubg program's own
  rollouts of the same positions (0 ply with pruning nets, variance reduction,
  quasi-random dice; cubeless), timed in the same run, one core each; also the share of
  the time outside the evaluator.
* ``test_machinery_against_gnubg``: trials per second of fastgen's machinery alone (a
  zero-cost evaluator, constant outputs) and of ``evaluators.gnubg(0)``, warm (a rollout
  of two trials with each first), against the Debian gnubg's own rollout of the same
  position (its defaults: 0 ply with pruning nets, variance reduction, quasi-random dice;
  cubeless), all timed in the same run on one core each. Goal: the machinery at 20x gnubg's trials per second.

The figures are printed and kept in ``benchmark.extra_info``; nothing is asserted (the
machine these run on is shared). FASTGEN_BENCH_TRIALS (default 324) and
FASTGEN_BENCH_GNUBG_TRIALS (default 324) set the trial counts.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np
import pytest

import fastgen
from fastgen.players import evaluators

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
from _gnubg_rollout import available, gnubg_rollout  # noqa: E402

TRIALS = int(os.environ.get("FASTGEN_BENCH_TRIALS", "324"))
GNUBG_TRIALS = int(os.environ.get("FASTGEN_BENCH_GNUBG_TRIALS", "324"))
START = fastgen.STARTING_BOARD


def _once(benchmark, fn):
    return benchmark.pedantic(fn, rounds=1, iterations=1)


@pytest.mark.benchmark(group="decide")
def test_overhead_with_a_gnubg_sized_network(benchmark):
    net = evaluators.random_network(hidden=128, schemes=("tesauro198", "raw"), seed=1)
    table = _once(benchmark, lambda: fastgen.rollout_position(START, net, trials=TRIALS))
    s = table.stats
    outside = 1 - s["seconds"] / s["seconds_total"]
    mean_batch = s["positions"] / s["calls"]
    benchmark.extra_info.update(trials=TRIALS, outside_evaluator=outside, mean_batch=mean_batch,
                                evaluator_seconds=s["seconds"], total_seconds=s["seconds_total"])
    print(f"\n{TRIALS} VR trials, 250-128-5 numpy network: {s['seconds_total']:.1f} s, "
          f"{100 * outside:.1f}% outside the evaluator (generation {s['generate']:.1f} s), "
          f"mean batch {mean_batch:,.0f} positions over {s['calls']} calls")


#: A 250-128-5 network (tesauro198 + raw inputs) that plays sensible games: taught GNU
#: Backgammon's 0-ply evaluations by ``examples/distil.py`` (see bench/data/SOURCE.md).
#: Random weights play games of their own lengths (hundreds of turns), so only a network
#: that plays like a real one times a rollout as users run it.
DISTILLED = os.path.join(os.path.dirname(__file__), "data", "distilled-250-128-5.npz")


def _gnubg_run(board, trials):
    """(trials, wall seconds) of the gnubg program rolling out *board*."""
    t0 = time.perf_counter()
    g = gnubg_rollout(fastgen.position_id(board), trials=trials, prune=True, quasi_random=True)
    return g["trials"], time.perf_counter() - t0


@pytest.mark.benchmark(group="decide")
@pytest.mark.parametrize("which", ["distilled", "gnubg:0"])
def test_compiled_network_against_gnubg(benchmark, which):
    """rollout_position of the opening position and rollout_plays of the opening 3-1's two
    best plays with the distilled 250-128-5 compiled network or GNU Backgammon's own nets
    compiled (``gnubg:0``, weights found), against the gnubg program rolling out the same
    positions (for the plays: the two positions after them, the opponent on roll), one
    core each, in the same run."""
    why = available()
    if why:
        pytest.skip(why)
    from fastgen.nets import Network

    net = Network.load(DISTILLED) if which == "distilled" else evaluators.gnubg(0)
    label = "distilled 250-128-5 network" if which == "distilled" else "gnubg's nets compiled (gnubg:0)"
    done, seconds = _gnubg_run(START, GNUBG_TRIALS)
    gnubg_rate = done / seconds
    table = _once(benchmark, lambda: fastgen.rollout_position(START, net, trials=TRIALS))
    s = table.stats
    rate = TRIALS / s["seconds_total"]
    outside = 1 - s["seconds"] / s["seconds_total"]
    plays_table = fastgen.rollout_plays(START, (3, 1), net, plays=2, trials=TRIALS)
    ps = plays_table.stats
    plays_rate = 2 * TRIALS / ps["seconds_total"]  # trials of both plays
    plays = [row.play for row in plays_table.rows]
    afters = [np.ascontiguousarray(p.board_after[::-1]) for p in plays]  # the opponent on roll
    runs = [_gnubg_run(b, GNUBG_TRIALS) for b in afters]
    g_plays = sum(n for n, _ in runs) / sum(s for _, s in runs)
    benchmark.extra_info.update(trials=TRIALS, fastgen_trials_per_s=rate, gnubg_trials_per_s=gnubg_rate,
                                ratio=rate / gnubg_rate, outside_evaluator=outside,
                                plays_trials_per_s=plays_rate, gnubg_plays_trials_per_s=g_plays,
                                plays_ratio=plays_rate / g_plays,
                                plays_outside_evaluator=1 - ps["seconds"] / ps["seconds_total"])
    print(f"\nopening position, {TRIALS} VR trials, {label}: {rate:.1f} trials/s; gnubg "
          f"program {gnubg_rate:.1f} trials/s: {rate / gnubg_rate:.2f}x; {100 * outside:.1f}% of the time outside "
          f"the evaluator")
    print(f"opening 3-1, its two best plays ({', '.join(map(str, plays))}), {TRIALS} VR trials each: "
          f"{plays_rate:.1f} trials/s; gnubg program {g_plays:.1f} trials/s: {plays_rate / g_plays:.2f}x; "
          f"{100 * (1 - ps['seconds'] / ps['seconds_total']):.1f}% of the time outside the evaluator")


@pytest.mark.benchmark(group="decide")
def test_machinery_against_gnubg(benchmark):
    why = available()
    if why:
        pytest.skip(why)
    rates = {}
    done, seconds = _gnubg_run(START, GNUBG_TRIALS)
    rates["gnubg program (0-ply, prune, VR, QR)"] = done / seconds
    zero = evaluators.constant()
    nets = evaluators.gnubg(0)
    # warm: the first rollout of a process builds the bear-off database its late turns
    # read, and the nets are read and their tables built, before any timing
    fastgen.rollout_position(START, zero, trials=2)
    fastgen.rollout_position(START, nets, trials=2)
    table = _once(benchmark, lambda: fastgen.rollout_position(START, zero, trials=TRIALS))
    rates["fastgen, zero-cost evaluator"] = TRIALS / table.seconds
    table2 = fastgen.rollout_position(START, zero, trials=TRIALS, threads=2)
    rates["fastgen, zero-cost evaluator, 2 threads"] = TRIALS / table2.seconds
    few = max(36, TRIALS // 9)
    table3 = fastgen.rollout_position(START, nets, trials=few)
    rates[f"fastgen, evaluators.gnubg(0) ({few} trials)"] = few / table3.seconds
    base = rates["gnubg program (0-ply, prune, VR, QR)"]
    benchmark.extra_info.update({k: v for k, v in rates.items()})
    print()
    for name, rate in rates.items():
        print(f"{name:<48}{rate:10.1f} trials/s {rate / base:8.1f}x gnubg")
