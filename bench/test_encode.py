"""Candidate features: time(plays_batch with encode=) against time(plays_batch) alone.

Run with ``pytest bench/test_encode.py``; the ratios are printed at the end (the
``generate_only`` test of each group is the baseline; "0.50x" means generate + encode
takes twice as long as generating). Two workloads:

* ``encode-vectors``: the whole vector workload in one call (42,000 positions, 667,603
  candidate plays, 529 MB of tesauro198 features). Every round allocates its features
  afresh (numpy frees and maps ~0.5 GB again: fresh pages, ~9 us per 4 KiB page the
  first time the machine touches them, far less after).
* ``encode-steps``: the same positions in calls of 1,024 (one VectorBackgammon step of
  1,024 games): the allocator reuses the memory of the previous call, as in an RL loop.
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
