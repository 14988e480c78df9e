"""Candidate features: time(plays_batch with encode=) against time(plays_batch) alone.

Run with ``pytest bench/test_encode.py``; the ratios are printed at the end (the
``generate_only`` test of each group is the baseline; "0.50x" means generate + encode
takes twice as long as generating). Two workloads:

* ``encode-vectors``: the whole vector workload in one call (42,000 positions, 667,603
  candidate plays, 529 MB of tesauro198 features). Results are dropped after each round,
  so both sides write into memory kept from the previous round (plays_batch's output
  mappings, fastgen.encode's kept buffer): reused pages, not fresh ones.
* ``encode-steps``: the same positions in calls of 1,024 (one VectorBackgammon step of
  1,024 games, 13 MB of tesauro198 features a step), as in an RL loop.

tesauro198 writes 792 bytes per candidate against the 50 of the board itself, so its
cost is mostly memory bandwidth once the output leaves the core's caches. The
``write_floor`` row of each group is the least any tesauro198 encoder can cost here:
plays_batch followed by numpy's ``fill`` of a float32 array of the same shape as the
features (allocated before the timer, reused every round), i.e. only writing the bytes.
"""

import numpy as np
import pytest

import fastgen

STEP = 1024


def _steps(boards, dice, **kw):
    def run():
        for lo in range(0, len(boards), STEP):
            fastgen.plays_batch(boards[lo : lo + STEP], dice[lo : lo + STEP], **kw)

    return run


def _floor(boards, dice, step):
    """plays_batch in calls of *step*, each followed by a fill of its (M, 198) float32."""
    plays = fastgen.count_plays_batch(boards, dice)
    rows = max(int(plays[lo : lo + step].sum()) for lo in range(0, len(boards), step))
    out = np.ones((rows, 198), dtype=np.float32)

    def run():
        for lo in range(0, len(boards), step):
            m = len(fastgen.plays_batch(boards[lo : lo + step], dice[lo : lo + step]).boards)
            out[:m].fill(0.5)

    return run


def test_write_floor_whole(benchmark, vectors):
    boards, dice = vectors
    benchmark.group = "encode-vectors"
    benchmark.extra_info["positions"] = len(boards)
    benchmark.pedantic(_floor(boards, dice, len(boards)), rounds=7, warmup_rounds=1)


def test_write_floor_steps(benchmark, vectors):
    boards, dice = vectors
    benchmark.group = "encode-steps"
    benchmark.extra_info["positions"] = len(boards)
    benchmark.pedantic(_floor(boards, dice, STEP), rounds=7, warmup_rounds=1)


@pytest.mark.parametrize("scheme", [None, "tesauro198", "raw"], ids=["generate_only", "tesauro198", "raw"])
def test_encode_whole(benchmark, vectors, scheme):
    boards, dice = vectors
    benchmark.group = "encode-vectors"
    benchmark.extra_info["positions"] = len(boards)
    benchmark.pedantic(fastgen.plays_batch, (boards, dice), {"encode": scheme}, rounds=7, warmup_rounds=1)


@pytest.mark.parametrize("scheme", [None, "tesauro198", "raw"], ids=["generate_only", "tesauro198", "raw"])
def test_encode_steps(benchmark, vectors, scheme):
    boards, dice = vectors
    benchmark.group = "encode-steps"
    benchmark.extra_info["positions"] = len(boards)
    benchmark.pedantic(_steps(boards, dice, encode=scheme), rounds=7, warmup_rounds=1)
