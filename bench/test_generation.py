"""Move-generation throughput: single, batch, count and threads, with in-run baselines.

Run with ``pytest bench`` (never part of the tests). Ratios are printed at the end.
"""

import numpy as np
import pytest

import fastgen
from fastgen import reference

ORACLE_SAMPLE = 210  # generations: the oracle is ~1000x slower than the core


def _dice_list(dice):
    return [(int(a), int(b)) for a, b in dice]


def _gnubg_loop(gnubg, boards, dice):
    lists = [b.tolist() for b in boards]
    dl = _dice_list(dice)
    return lambda: [gnubg.moves(b, d[0], d[1]) for b, d in zip(lists, dl)]


WORKLOADS = ["vectors", "random_games"]


@pytest.fixture(params=WORKLOADS)
def workload(request):
    return request.param, request.getfixturevalue(request.param)


# ---------------------------------------------------------------- batch
@pytest.mark.benchmark(group="batch")
@pytest.mark.parametrize("threads", [1, 2])
def test_batch_plays_batch(benchmark, workload, threads):
    name, (boards, dice) = workload
    benchmark.group = f"batch-{name}"
    benchmark.extra_info["positions"] = len(boards)
    benchmark.extra_info["threads"] = threads
    benchmark(fastgen.plays_batch, boards, dice, threads=threads)


@pytest.mark.benchmark(group="batch")
def test_batch_gnubg_nn(benchmark, workload, gnubg):
    name, (boards, dice) = workload
    benchmark.group = f"batch-{name}"
    benchmark.extra_info["positions"] = len(boards)
    benchmark(_gnubg_loop(gnubg, boards, dice))


@pytest.mark.benchmark(group="batch")
def test_batch_oracle(benchmark, workload):
    name, (boards, dice) = workload
    benchmark.group = f"batch-{name}"
    idx = np.linspace(0, len(boards) - 1, ORACLE_SAMPLE).astype(int)
    dl = _dice_list(dice[idx])
    sample = boards[idx]
    benchmark.extra_info["positions"] = len(idx)
    benchmark.pedantic(lambda: [reference.legal_plays(b, d) for b, d in zip(sample, dl)], rounds=3)


# ---------------------------------------------------------------- count
@pytest.mark.benchmark(group="count")
@pytest.mark.parametrize("threads", [1, 2])
def test_count_plays_batch(benchmark, vectors, threads):
    boards, dice = vectors
    benchmark.extra_info["positions"] = len(boards)
    benchmark.extra_info["threads"] = threads
    benchmark(fastgen.count_plays_batch, boards, dice, threads=threads)


@pytest.mark.benchmark(group="count")
def test_count_gnubg_nn(benchmark, vectors, gnubg):
    boards, dice = vectors
    benchmark.extra_info["positions"] = len(boards)
    benchmark(_gnubg_loop(gnubg, boards, dice))


# ---------------------------------------------------------------- single
SINGLE = 4_200  # generations per round, one Python call each


@pytest.mark.benchmark(group="single")
def test_single_legal_plays(benchmark, vectors):
    boards, dice = vectors
    sample = list(boards[:SINGLE])
    dl = _dice_list(dice[:SINGLE])
    benchmark.extra_info["positions"] = SINGLE
    benchmark(lambda: [fastgen.legal_plays(b, d) for b, d in zip(sample, dl)])


@pytest.mark.benchmark(group="single")
def test_single_gnubg_nn(benchmark, vectors, gnubg):
    boards, dice = vectors
    benchmark.extra_info["positions"] = SINGLE
    benchmark(_gnubg_loop(gnubg, boards[:SINGLE], dice[:SINGLE]))


# ---------------------------------------------------------------- threads
# (threads=1 vs threads=2 ratios are printed for every group that has both)
