"""The options objects of the simulations (fastgen.sim.options): each bad value refused
once with an error quoting it, and the engines given the objects play what the public
functions given the keywords play."""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest

import fastgen
from fastgen.players import evaluators
from fastgen.errors import InvalidArgumentError
from fastgen.sim.cluster import GAME_CHUNKS, ChunkRule, default_chunk_size
from fastgen.sim.decide.chunks import TRIAL_CHUNKS
from fastgen.sim.decide.trials import simulate
from fastgen.sim.duel.play import play_duel_games
from fastgen.sim.options import ClusterOptions, GameOptions, TrialOptions
from fastgen.sim.rollout.pool import play_in_process


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(seed=-1), "seed must be a non-negative integer at most 18446744073709551615, got -1"),
        (dict(seed=2**64), "seed must be .* got 18446744073709551616"),
        (dict(seed=1.5), "seed must be .* got 1.5"),
        (dict(batch_size=0), "batch_size must be a positive integer, got 0"),
        (dict(threads=True), "threads must be a positive integer at most 1024, got True"),
        (dict(engine="gpu"), "engine must be 'auto', 'native' or 'python', got 'gpu'"),
        (dict(engine=None), "engine must be .* got None"),
    ],
)
def test_game_options_refuse_bad_values(kwargs, words):
    with pytest.raises(InvalidArgumentError, match=words):
        GameOptions(**kwargs)


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(trials=0), "trials must be a positive integer at most 1099511627776, got 0"),
        (dict(trials=2**40 + 1), "trials must be .* got 1099511627777"),
        (dict(seed=-3), "seed must be .* got -3"),
        (dict(variance_reduction=1), "variance_reduction must be True or False, got 1"),
        (dict(quasi_random="yes"), "quasi_random must be True or False, got 'yes'"),
        (dict(truncate_bearoff=None), "truncate_bearoff must be True or False, got None"),
        (dict(truncate=-1), "truncate must be a non-negative integer, got -1"),
        (dict(stop_se=0), "stop_se must be None or a positive number, got 0"),
        (dict(stop_se=float("nan")), "stop_se must be None or a positive number, got nan"),
        (dict(stop_z="2"), "stop_z must be None or a positive number, got '2'"),
        (dict(stop_z=True), "stop_z must be None or a positive number, got True"),
        (dict(min_trials=0), "min_trials must be a positive integer, got 0"),
        (dict(threads=0), "threads must be a positive integer at most 1024, got 0"),
    ],
)
def test_trial_options_refuse_bad_values(kwargs, words):
    with pytest.raises(InvalidArgumentError, match=words):
        TrialOptions(**kwargs)


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(workers=2, scheduler="tcp://127.0.0.1:1"),
         r"give at most one of workers, scheduler or client, got \{'workers': 2, 'scheduler': 'tcp://127.0.0.1:1'\}"),
        (dict(workers=0), "workers must be a positive integer, got 0"),
        (dict(workers="2"), "workers must be a positive integer, got '2'"),
        (dict(scheduler=""), "scheduler must be an address such as 'tcp://host:8786', got ''"),
        (dict(scheduler=8786), "scheduler must be .* got 8786"),
        (dict(chunk_size=0), "chunk_size must be a positive integer, got 0"),
        (dict(out=""), "out must be None or a directory path, got ''"),
        (dict(out=3), "out must be None or a directory path, got 3"),
    ],
)
def test_cluster_options_refuse_bad_values(kwargs, words):
    with pytest.raises(InvalidArgumentError, match=words):
        ClusterOptions(**kwargs)


def test_options_are_normalized_frozen_and_picklable(tmp_path):
    opts = TrialOptions(trials=np.int64(72), seed=np.uint64(3), stop_se=np.float32(0.5), quasi_random=np.bool_(False))
    assert (type(opts.trials), type(opts.seed), type(opts.stop_se), type(opts.quasi_random)) == (int, int, float, bool)
    assert opts.stops and not TrialOptions().stops
    assert opts.play() == dict(seed=3, variance_reduction=True, quasi_random=False, truncate=None, threads=1,
                               truncate_bearoff=False)
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.trials = 0  # type: ignore[misc]
    # replace() checks the new value again
    with pytest.raises(InvalidArgumentError, match="got 0"):
        dataclasses.replace(GameOptions(), threads=0)
    assert pickle.loads(pickle.dumps(GameOptions(seed=5, engine="python"))) == GameOptions(seed=5, engine="python")
    c = ClusterOptions(out=tmp_path)
    assert c.chunked and not c.on_cluster
    assert ClusterOptions(workers=2).on_cluster and not ClusterOptions().chunked


def test_the_public_functions_check_through_the_options():
    # the same errors from the keywords of each public function
    with pytest.raises(InvalidArgumentError, match="at most one of workers, scheduler or client"):
        fastgen.rollout(games=10, workers=1, scheduler="tcp://127.0.0.1:1")
    with pytest.raises(InvalidArgumentError, match="chunk_size must be a positive integer, got 0"):
        fastgen.rollout(games=10, chunk_size=0)
    with pytest.raises(InvalidArgumentError, match="out must be None or a directory path, got 3"):
        fastgen.rollout(games=10, out=3)
    with pytest.raises(InvalidArgumentError, match="batch_size must be a positive integer, got 0"):
        fastgen.duel("pubeval", "random", 10, batch_size=0)
    net = evaluators.random_network(hidden=8, seed=1)
    with pytest.raises(InvalidArgumentError, match="min_trials must be a positive integer, got 0"):
        fastgen.rollout_position(fastgen.STARTING_BOARD, net, min_trials=0)
    with pytest.raises(InvalidArgumentError, match="out must be None or a directory path, got ''"):
        fastgen.rollout_plays(fastgen.STARTING_BOARD, (3, 1), net, out="")


def _same_games(x, y):
    return all(np.array_equal(getattr(x, k), getattr(y, k)) for k in ("winner", "result", "turns"))


@pytest.mark.parametrize("policy, engine", [("random", "native"), ("pubeval", "python")])
def test_a_rollout_from_keywords_equals_the_engine_given_the_options(policy, engine):
    kw = dict(seed=11, batch_size=50, threads=2, engine=engine)
    public = fastgen.rollout(games=120, policy=policy, first_game=7, **kw)
    engine_run = play_in_process(120, policy, None, 7, GameOptions(**kw), None)
    assert _same_games(public, engine_run) and public.seed == engine_run.seed == 11


def test_a_duel_from_keywords_equals_the_engine_given_the_options():
    d = fastgen.duel("pubeval", "random", 60, seed=4, engine="python", batch_size=16)
    w, r, t, _ = play_duel_games("pubeval", "random", 60, 0, fastgen.STARTING_BOARD[None].copy(), True, True,
                                 GameOptions(seed=4, engine="python", batch_size=16), None)
    assert np.array_equal(d.winner, w) and np.array_equal(d.result, r) and np.array_equal(d.turns, t)


def test_a_position_rollout_from_keywords_equals_simulate_given_the_options():
    net = evaluators.random_network(hidden=8, seed=1)
    opts = TrialOptions(trials=36, seed=3, truncate=4)
    table = fastgen.rollout_position(fastgen.STARTING_BOARD, net, trials=36, seed=3, truncate=4)
    raw, est = simulate(fastgen.STARTING_BOARD[None].copy(), True, net, np.arange(36, dtype=np.int64), **opts.play())
    assert np.array_equal(table.rows[0].samples, est[0]) and np.array_equal(table.rows[0].raw_samples, raw[0])


def test_the_chunk_rules():
    # games: about 8 chunks per worker within 1,000 .. 100,000 games, never more than the games
    assert [default_chunk_size(g, 2, GAME_CHUNKS) for g in (0, 10, 5000, 160_000, 10**8)] == [1, 10, 1000, 10_000, 100_000]
    # trials: about 4 chunks per worker, whole blocks of 36
    assert [default_chunk_size(t, 2, TRIAL_CHUNKS) for t in (1, 100, 1296, 5000)] == [36, 36, 180, 648]
    assert default_chunk_size(1000, 3, ChunkRule(per_worker=1, step=10, least=10, most=200)) == 200
