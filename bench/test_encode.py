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
cost is mostly memory bandwidth once the output leaves the core's caches.
"""

import pytest

import fastgen

STEP = 1024


def _steps(boards, dice, **kw):
    def run():
        for lo in range(0, len(boards), STEP):
            fastgen.plays_batch(boards[lo : lo + STEP], dice[lo : lo + STEP], **kw)

    return run


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
