"""Dask cluster throughput and overhead (the dask extra): rollouts and perft on local
clusters of 1 and 2 single-threaded worker processes (127.0.0.1, started before the
timer), against the same work in this process.

Printed at the end of ``pytest bench/test_cluster.py`` (see conftest.py):

* games/s (random-policy rollout, 500,000 games, over 10 s in one process) and perft
  nodes/s (depths 1-4 from ``bJ3BATDgc/ABYA``, two checkers on the bar against a
  three-point board, from ``t90OAAC72w0AAA``, a bear-off with all 30 checkers home, and
  from ``3QGzwATPJwKJQA``, a middle game of random self-play with a checker on the bar:
  31,480,717,975 nodes, over 10 s in one process) in process, with 1 worker (and the
  cluster path's overhead against in process at equal work) and with 2 workers (the
  ratio to 1 worker);
* trials/s of a decision rollout (``rollout_plays`` of the opening 3-1, its two best plays,
  2,592 variance-reduced trials each, with the zero-cost evaluator ``evaluators.constant()``
  so that the rollout machinery, not an evaluator, is what is spread) in process, with 1
  worker and with 2 workers (the ratio to 1 worker);
* the fixed cost of one chunk and of one perft task: 200 one-game chunks, and 200 perft
  tasks of one depth-1 subtree each, against the same work in process, divided by 200.

Cluster start-up (a few seconds) is outside the timer; each round reuses the same worker
processes, whose memory is warm after the first round (warm-up rounds are not timed).
"""

import contextlib
import os

import pytest

import fastgen
from fastgen.players import evaluators
from fastgen.search.perft import perft_run

distributed = pytest.importorskip("distributed", reason="dask not installed: pip install '.[dask]'")

GAMES = 500_000
PERFT_POSITIONS, PERFT_DEPTH = ("bJ3BATDgc/ABYA", "t90OAAC72w0AAA", "3QGzwATPJwKJQA"), 4
PERFT_NODES = {  # sum(perft(..., 4)), checked
    "bJ3BATDgc/ABYA": 4_513_713_970,
    "t90OAAC72w0AAA": 10_896_235_763,
    "3QGzwATPJwKJQA": 16_070_768_242,
}
DECIDE_TRIALS, DECIDE_PLAYS = 2592, 2
SMALL = 200  # one-game chunks / one-subtree perft tasks for the fixed costs
ROUNDS = int(os.environ.get("FASTGEN_BENCH_ROUNDS", "3"))


@pytest.fixture(scope="module")
def clients():
    """Clusters of 1 and 2 workers made as ``workers=N`` makes them (fastgen.sim.cluster.connect)."""
    from fastgen.sim.cluster import connect

    with contextlib.ExitStack() as stack:
        made = {}
        for n in (1, 2):
            client = stack.enter_context(connect(workers=n))
            client.wait_for_workers(n)
            made[n] = client
        yield made


def _run(benchmark, fn):
    benchmark.pedantic(fn, rounds=ROUNDS, iterations=1, warmup_rounds=1)


@pytest.mark.benchmark(group="cluster-rollout")
@pytest.mark.parametrize("workers", [0, 1, 2], ids=["in-process", "1-worker", "2-workers"])
def test_rollout_throughput(benchmark, clients, workers):
    benchmark.extra_info.update(items=GAMES, unit="games", workers=workers)
    if workers == 0:
        _run(benchmark, lambda: fastgen.rollout(games=GAMES, seed=1))
    else:
        _run(benchmark, lambda: fastgen.rollout(games=GAMES, seed=1, client=clients[workers]))


@pytest.mark.benchmark(group="cluster-perft")
@pytest.mark.parametrize("workers", [0, 1, 2], ids=["in-process", "1-worker", "2-workers"])
def test_perft_throughput(benchmark, clients, workers):
    boards = {pid: fastgen.parse_position_id(pid) for pid in PERFT_POSITIONS}
    benchmark.extra_info.update(items=sum(PERFT_NODES.values()), unit="nodes", workers=workers)
    client = clients.get(workers)
    runs = []

    def run():
        runs.append({pid: sum(perft_run(b, PERFT_DEPTH, client=client).counts) for pid, b in boards.items()})

    _run(benchmark, run)
    assert all(r == PERFT_NODES for r in runs)


@pytest.mark.benchmark(group="cluster-decide")
@pytest.mark.parametrize("workers", [0, 1, 2], ids=["in-process", "1-worker", "2-workers"])
def test_decide_throughput(benchmark, clients, workers):
    board = fastgen.STARTING_BOARD
    benchmark.extra_info.update(items=DECIDE_TRIALS * DECIDE_PLAYS, unit="trials", workers=workers)
    client = clients.get(workers)
    tables = []

    def run():
        tables.append(fastgen.rollout_plays(board, (3, 1), evaluators.constant(), plays=DECIDE_PLAYS,
                                            trials=DECIDE_TRIALS, seed=1, client=client))

    _run(benchmark, run)
    assert all(t.rows[0].trials == DECIDE_TRIALS for t in tables)


@pytest.mark.benchmark(group="cluster-fixed-cost")
@pytest.mark.parametrize("case", ["rollout-in-process", "rollout-chunks", "perft-in-process", "perft-tasks"])
def test_fixed_cost(benchmark, clients, case):
    benchmark.extra_info.update(calls=SMALL, per="chunk" if case.startswith("rollout") else "task")
    board = fastgen.STARTING_BOARD
    if case == "rollout-in-process":
        _run(benchmark, lambda: fastgen.rollout(games=SMALL, seed=1))
    elif case == "rollout-chunks":
        _run(benchmark, lambda: fastgen.rollout(games=SMALL, seed=1, client=clients[1], chunk_size=1))
    elif case == "perft-in-process":
        _run(benchmark, lambda: perft_run(board, 2))
    else:  # the 447 depth-1 subtrees merged to fewer positions, SMALL tasks
        _run(benchmark, lambda: perft_run(board, 2, client=clients[1], split_depth=1, tasks=SMALL))
