"""Duel throughput against its baseline, rollout(policy="pubeval"), timed in the same run.

Group ``duel``: ``duel("pubeval", "random")`` (two built-in policies in one game loop in
the core) and ``rollout(policy="pubeval")``, per game. The target: the duel reaches
at least 80% of the rollout's games per second. ``test_duel_speed_ratio`` times the two
interleaved (five rounds each, medians) and asserts that ratio; the machine may be
shared, so compare medians, not single runs.
"""

import statistics
import time

import pytest

import fastgen
from fastgen.sim.duel.front import duel

GAMES = 4_000


@pytest.mark.benchmark(group="duel")
def test_duel_pubeval_random(benchmark):
    benchmark.extra_info["positions"] = GAMES  # per game
    benchmark(duel, "pubeval", "random", GAMES, seed=1)


@pytest.mark.benchmark(group="duel")
def test_rollout_pubeval_baseline(benchmark):
    benchmark.extra_info["positions"] = GAMES
    benchmark(fastgen.rollout, GAMES, policy="pubeval", seed=1)


def test_duel_speed_ratio():
    """games/s of duel("pubeval", "random") over games/s of rollout(policy="pubeval")."""
    t_duel, t_roll = [], []
    for rnd in range(5):
        t0 = time.perf_counter()
        fastgen.rollout(GAMES, policy="pubeval", seed=rnd)
        t1 = time.perf_counter()
        duel("pubeval", "random", GAMES, seed=rnd)
        t2 = time.perf_counter()
        t_roll.append(t1 - t0)
        t_duel.append(t2 - t1)
    ratio = statistics.median(t_roll) / statistics.median(t_duel)
    print(f"duel/rollout games per second: {ratio:.2f}")
    assert ratio >= 0.8
