"""Move-generation throughput: single, batch, count and threads, with in-run baselines.

Run with ``pytest bench`` (never part of the tests). Ratios are printed at the end.

Both sides are timed alike: inputs converted before the timer, and results either
dropped as a user's loop drops them (the default; a batch then reuses the memory of an
earlier one) or, in the ``kept`` tests (``extra_info["results"] = "kept"``), every result
of every round kept alive, so each batch writes fresh memory. Ratios compare tests of the
same kind.
"""

import numpy as np
import pytest

import fastgen
from fastgen import reference

ORACLE_SAMPLE = 210  # generations: the oracle is ~1000x slower than the core


def _dice_list(dice):
    return [(int(a), int(b)) for a, b in dice]


def _gnubg_items(boards, dice):
    """gnubg-nn's input (nested lists and ints), converted before any timer."""
    return [(b.tolist(), int(d[0]), int(d[1])) for b, d in zip(boards, dice)]


def _gnubg_loop(gnubg, boards, dice):
    """A user's loop over gnubg_nn.moves: each result dropped."""
    items = _gnubg_items(boards, dice)
    moves = gnubg.moves

    def loop():
        for b, d1, d2 in items:
            moves(b, d1, d2)

    return loop


KEPT_ROUNDS = 5  # kept tests hold every round's output: a fixed, small number of rounds


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
def test_batch_plays_batch_kept(benchmark, workload):
    """Every round's batch kept alive: no batch can reuse another's memory."""
    name, (boards, dice) = workload
    benchmark.group = f"batch-{name}"
    benchmark.extra_info["positions"] = len(boards)
    benchmark.extra_info["results"] = "kept"
    kept = []
    fastgen.release_memory()
    benchmark.pedantic(lambda: kept.append(fastgen.plays_batch(boards, dice)), rounds=KEPT_ROUNDS)
    kept.clear()
    fastgen.release_memory()


@pytest.mark.benchmark(group="batch")
def test_batch_gnubg_nn_kept(benchmark, workload, gnubg):
    """Every result of every round kept alive, as test_batch_plays_batch_kept does."""
    name, (boards, dice) = workload
    benchmark.group = f"batch-{name}"
    benchmark.extra_info["positions"] = len(boards)
    benchmark.extra_info["results"] = "kept"
    items = _gnubg_items(boards, dice)
    moves = gnubg.moves
    kept = []
    benchmark.pedantic(lambda: kept.append([moves(b, d1, d2) for b, d1, d2 in items]), rounds=KEPT_ROUNDS)


@pytest.mark.benchmark(group="batch")
def test_batch_oracle(benchmark, workload):
    name, (boards, dice) = workload
    benchmark.group = f"batch-{name}"
    idx = np.linspace(0, len(boards) - 1, ORACLE_SAMPLE).astype(int)
    dl = _dice_list(dice[idx])
    sample = boards[idx]
    benchmark.extra_info["positions"] = len(idx)

    def loop():
        for b, d in zip(sample, dl):
            reference.legal_plays(b, d)

    benchmark.pedantic(loop, rounds=3)


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
    pairs = list(zip(sample, dl))

    def loop():
        for b, d in pairs:
            fastgen.legal_plays(b, d)

    benchmark(loop)


@pytest.mark.benchmark(group="single")
def test_single_gnubg_nn(benchmark, vectors, gnubg):
    boards, dice = vectors
    benchmark.extra_info["positions"] = SINGLE
    benchmark(_gnubg_loop(gnubg, boards[:SINGLE], dice[:SINGLE]))


# ---------------------------------------------------------------- threads
# (threads=1 vs threads=2 ratios are printed for every group that has both)
