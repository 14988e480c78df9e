"""Threads reaching the network: one thread against two, timed in the same run.

Run with ``pytest bench/test_threads.py -s`` (never part of the tests). Each workload is
run with ``threads=1`` and ``threads=2``, warm (the shipped baseline network loaded and the
generator's memory reused by a first, untimed call), and the two results must be equal to
the last bit (a thread count changes the speed, never the answer):

- ``decision``: :func:`fastgen.rollout_plays` of the opening 3-1's four best plays, 648
  trials each, variance reduction on; with two threads the trials of each block are
  played in two groups side by side;
- ``cubeful``: :func:`fastgen.rollout_cube` of a cube decision (the opening position
  after 6-5, money), 648 trials a line, in blocks side by side;
- ``analyse``: :func:`fastgen.analysis.analyse` of the 7-point example match
  (``docs/_data/example-7pt.mat``) at 1 ply, what ``fastgen analyse FILE --plies 1
  --threads N`` runs; and at 0 ply. Only its network calls are shared between the
  threads: about a quarter of its time at 1 ply, the rest being the cube arithmetic in
  Python, so two threads gain little here.

The summary prints each workload's speed-up (one thread's median time over two threads')
and keeps it in ``benchmark.extra_info``. The speed-up needs two free cores: on a machine
busy with other work it is lower.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

import fastgen
from fastgen.analysis import analyse
from fastgen.players import evaluators

MATCH = Path(__file__).resolve().parents[1] / "docs" / "_data" / "example-7pt.mat"
TRIALS = 648
_TIMES: dict[tuple[str, int], float] = {}
_RESULTS: dict[tuple[str, int], object] = {}


@pytest.fixture(scope="module")
def net():
    return evaluators.baseline()


def _decision(net, threads):
    t = fastgen.rollout_plays(fastgen.STARTING_BOARD, (3, 1), net, plays=4, trials=TRIALS, threads=threads)
    return b"".join(np.asarray(r.samples).tobytes() for r in t.rows)


def _cubeful(net, threads):
    board = fastgen.legal_plays(fastgen.STARTING_BOARD, (6, 5))[0].board_after
    r = fastgen.rollout_cube(fastgen.swap_sides(board), net, trials=TRIALS, threads=threads)
    return repr(dataclasses.replace(r, seconds=0.0))  # all but the time it took


def _analyse(net, threads, plies):
    data = analyse(MATCH, net, plies=plies, threads=threads).to_dict()
    data.pop("seconds", None)  # the time it took
    return json.dumps(data, sort_keys=True)


WORKLOADS = {
    "decision": _decision,
    "cubeful": _cubeful,
    "analyse-1ply": lambda net, threads: _analyse(net, threads, 1),
    "analyse-0ply": lambda net, threads: _analyse(net, threads, 0),
}


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("workload", list(WORKLOADS))
def test_threads(benchmark, net, workload, threads):
    benchmark.group = f"threads: {workload}"
    fn = WORKLOADS[workload]
    fn(net, threads)  # warm: the network loaded, the generator's memory in use
    result = benchmark.pedantic(lambda: fn(net, threads), rounds=3, iterations=1)
    _TIMES[(workload, threads)] = benchmark.stats.stats.median
    _RESULTS[(workload, threads)] = result
    other = _RESULTS.get((workload, 3 - threads))
    assert other is None or other == result, f"{workload}: threads=1 and threads=2 answered differently"
    if (workload, 1) in _TIMES and (workload, 2) in _TIMES:
        speedup = _TIMES[(workload, 1)] / _TIMES[(workload, 2)]
        benchmark.extra_info["speedup_two_threads"] = speedup
        print(f"\n{workload}: one thread {_TIMES[(workload, 1)]:.3f} s, two threads {_TIMES[(workload, 2)]:.3f} s, "
              f"speed-up {speedup:.2f}x (warm)")
