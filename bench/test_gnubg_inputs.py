"""GNU Backgammon's network inputs compiled (fastgen.nets._gnubg) against gnubg-nn.

    OPENBLAS_NUM_THREADS=1 nice python -m pytest bench/test_bench_gnubg_inputs.py

Group ``gnubg-inputs``, on the shared 20,000 positions of random self-play
(``random_games``): each of classify, the race inputs, the contact and crashed inputs
(weights 1.01 and 1.00) over the whole batch in one call, against the baseline
``test_probabilities_gnubg_nn``: gnubg-nn's whole 0-ply evaluation (class, inputs, net,
its corrections), one Python call a position (that call's overhead included), 2,000
positions it has not seen a round. The ratios compare the inputs alone with a whole
evaluation, not like with like (gnubg-nn does not give its inputs alone): they show the
inputs' share of an evaluation's time. Nothing is asserted (the machine is shared).
"""

import numpy as np
import pytest

from fastgen.nets import _gnubg

GROUP = "gnubg-inputs"


def _whole(benchmark, fn, boards):
    benchmark.group = GROUP
    benchmark.extra_info["positions"] = len(boards)
    benchmark.pedantic(fn, args=(boards,), rounds=7, warmup_rounds=1)


@pytest.fixture(scope="module")
def boards(random_games):
    return np.ascontiguousarray(random_games[0])


def test_probabilities_gnubg_nn(benchmark, boards, gnubg):
    # gnubg-nn keeps a cache of its evaluations: each round takes 2,000 positions it has
    # not seen (the rounds' slices are disjoint)
    slices = iter(range(0, len(boards), 2000))

    def setup():
        lo = next(slices)
        return ([b.tolist() for b in boards[lo : lo + 2000]],), {}

    def run(few):
        for b in few:
            gnubg.probabilities(b, 0)

    benchmark.group = GROUP
    benchmark.extra_info["positions"] = 2000
    benchmark.pedantic(run, setup=setup, rounds=5)


def test_classify(benchmark, boards):
    _whole(benchmark, _gnubg.classify, boards)


def test_race_inputs(benchmark, boards):
    _whole(benchmark, _gnubg.race_inputs, boards)


@pytest.mark.parametrize("version", ["1.01", "1.00"])
def test_contact_inputs(benchmark, boards, version):
    _whole(benchmark, lambda b: _gnubg.contact_inputs(b, version), boards)


@pytest.mark.parametrize("version", ["1.01", "1.00"])
def test_crashed_inputs(benchmark, boards, version):
    _whole(benchmark, lambda b: _gnubg.crashed_inputs(b, version), boards)
