"""Rollouts that decide: where the time goes, and trials per second against GNU Backgammon.

    nice python -m pytest bench/test_decide.py -s --benchmark-disable-gc
    FASTGEN_BENCH_TRIALS=1296 FASTGEN_BENCH_GNUBG_TRIALS=1296 nice python -m pytest bench/test_decide.py -s

* ``test_overhead_with_a_gnubg_sized_network``: a variance-reduced rollout of the opening
  position (one row, ``rollout_position``) with a numpy network of GNU Backgammon's
  contact net size (250 inputs: ``tesauro198`` + ``raw``; 128 hidden; 5 outputs; random
  weights). Reports the share of the wall time spent outside the evaluator (goal: at
  most 15%) and the evaluator's mean batch size (goal: 10,000 positions a call).
* ``test_compiled_network_against_gnubg``: the same rollout of the opening position with
  a compiled :class:`fastgen.nets.Network` holding the same weights
  against the gnubg program's own rollout (0 ply with pruning nets, variance reduction,
  quasi-random dice; cubeless), timed in the same run, one core each; also the share of
  the time outside the evaluator.
* ``test_machinery_against_gnubg``: trials per second of fastgen's machinery alone (a
  zero-cost evaluator, constant outputs) and of ``evaluators.gnubg(0)``, against the
  Debian gnubg's own rollout of the same position (its defaults: 0 ply with pruning nets,
  variance reduction, quasi-random dice; cubeless), all timed in the same run on one
  core each. Goal: the machinery at 20x gnubg's trials per second.

The figures are printed and kept in ``benchmark.extra_info``; nothing is asserted (the
machine these run on is shared). FASTGEN_BENCH_TRIALS (default 324) and
FASTGEN_BENCH_GNUBG_TRIALS (default 324) set the trial counts.
"""

from __future__ import annotations

import os
import sys
import time

import pytest

import fastgen
from fastgen import evaluators

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


@pytest.mark.benchmark(group="decide")
def test_compiled_network_against_gnubg(benchmark):
    why = available()
    if why:
        pytest.skip(why)
    from fastgen.nets import Network

    # the weights of test_overhead_with_a_gnubg_sized_network's numpy network: random
    # weights play games of their own lengths, so only the same weights compare
    ref = evaluators.random_network(hidden=128, schemes=("tesauro198", "raw"), seed=1)
    net = Network([ref.w1, ref.w2], [ref.b1, ref.b2], inputs=ref.schemes)
    pid = fastgen.position_id(START)
    t0 = time.perf_counter()
    g = gnubg_rollout(pid, trials=GNUBG_TRIALS, prune=True, quasi_random=True)
    gnubg_rate = g["trials"] / (time.perf_counter() - t0)
    table = _once(benchmark, lambda: fastgen.rollout_position(START, net, trials=TRIALS))
    s = table.stats
    rate = TRIALS / s["seconds_total"]
    outside = 1 - s["seconds"] / s["seconds_total"]
    benchmark.extra_info.update(trials=TRIALS, fastgen_trials_per_s=rate, gnubg_trials_per_s=gnubg_rate,
                                ratio=rate / gnubg_rate, outside_evaluator=outside)
    print(f"\n{TRIALS} VR trials, compiled 250-128-5 network: {rate:.1f} trials/s; gnubg program "
          f"{gnubg_rate:.1f} trials/s: {rate / gnubg_rate:.2f}x; {100 * outside:.1f}% of the time outside the evaluator")


@pytest.mark.benchmark(group="decide")
def test_machinery_against_gnubg(benchmark):
    why = available()
    if why:
        pytest.skip(why)
    pid = fastgen.position_id(START)
    rates = {}
    t0 = time.perf_counter()
    g = gnubg_rollout(pid, trials=GNUBG_TRIALS, prune=True, quasi_random=True)
    rates["gnubg program (0-ply, prune, VR, QR)"] = g["trials"] / (time.perf_counter() - t0)
    zero = evaluators.constant()
    table = _once(benchmark, lambda: fastgen.rollout_position(START, zero, trials=TRIALS))
    rates["fastgen, zero-cost evaluator"] = TRIALS / table.seconds
    table2 = fastgen.rollout_position(START, zero, trials=TRIALS, threads=2)
    rates["fastgen, zero-cost evaluator, 2 threads"] = TRIALS / table2.seconds
    few = max(36, TRIALS // 9)
    table3 = fastgen.rollout_position(START, evaluators.gnubg(0), trials=few)
    rates[f"fastgen, evaluators.gnubg(0) ({few} trials)"] = few / table3.seconds
    base = rates["gnubg program (0-ply, prune, VR, QR)"]
    benchmark.extra_info.update({k: v for k, v in rates.items()})
    print()
    for name, rate in rates.items():
        print(f"{name:<48}{rate:10.1f} trials/s {rate / base:8.1f}x gnubg")
