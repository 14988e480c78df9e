"""fastgen.train.refine: positions from the network's games, their rollouts (held to
rollout_position called directly), the data set's files (resumed, reused, refused when
made otherwise) and the fit (it learns a teacher's answers)."""

from __future__ import annotations

import os

from pathlib import Path

import numpy as np
import pytest

import fastgen
from fastgen.errors import CheckpointError, InvalidNetworkError
from fastgen.nets import Network
from fastgen.sim.decide.front import rollout_position
from fastgen.train import refine as sup
from fastgen.train.refine import SuperviseConfig, rollout_targets, sample_positions, supervise

#: A small network that plays sensible games (bench/data/SOURCE.md says how it was made).
NET = Network.load(Path(__file__).resolve().parent.parent / "bench" / "data" / "distilled-198-40-5.npz")
SMALL = SuperviseConfig(positions=24, trials=12, truncate=3, epochs=2, shard=10, seed=5)


def _trainable_copy() -> Network:
    rng = np.random.default_rng(0)
    return Network([rng.normal(0, 0.1, (198, 16)), rng.normal(0, 0.1, (16, 5))], [np.zeros(16), np.zeros(5)])


def test_positions_are_live_and_reproducible():
    boards, close = sample_positions(NET, 300, seed=2)
    again, close2 = sample_positions(NET, 300, seed=2)
    np.testing.assert_array_equal(boards, again)
    np.testing.assert_array_equal(close, close2)
    assert boards.shape == (300, 2, 25) and boards.dtype == np.int8
    fastgen.core.boards.as_boards(boards)  # every board legal (raises otherwise)
    assert (boards.sum(axis=2) > 0).all()  # nobody has borne off everything
    assert close.any()


def test_targets_are_rollout_position_on_the_same_seeds():
    boards, _ = sample_positions(NET, 6, seed=3)
    got = rollout_targets(NET, boards, SMALL, start=40)
    for i, b in enumerate(boards):
        row = rollout_position(b, NET, trials=12, seed=SMALL.seed + 40 + i, truncate=3).rows[0]
        np.testing.assert_array_equal(got[i], np.float32(row.probabilities))


def test_the_data_set_is_resumed_and_reused(tmp_path, monkeypatch):
    net = _trainable_copy()
    first = supervise(net, tmp_path / "d", SMALL)
    shards = sorted(f for f in os.listdir(tmp_path / "d") if f.startswith("targets-"))
    assert shards == ["targets-00000.npz", "targets-00001.npz", "targets-00002.npz"]
    with np.load(tmp_path / "d" / "targets-00001.npz") as z:
        kept = z["probabilities"].copy()
    with np.load(tmp_path / "d" / "positions.npz") as z:
        boards = z["boards"]
    np.testing.assert_array_equal(kept, rollout_targets(net, boards[10:20], SMALL, start=10))
    # a stopped run: the last shard missing is rolled out again, the others are read
    os.remove(tmp_path / "d" / "targets-00002.npz")
    calls = []
    real = sup.rollout_position

    def counting(*args, **kwargs):
        calls.append(kwargs["seed"])
        return real(*args, **kwargs)

    monkeypatch.setattr(sup, "rollout_position", counting)
    second = supervise(net, tmp_path / "d", SMALL)
    assert calls == [SMALL.seed + i for i in range(20, 24)]
    for a, b in zip(first.network.weights, second.network.weights):
        np.testing.assert_array_equal(a, b)
    # other settings, or another network, are refused
    with pytest.raises(CheckpointError, match="other settings"):
        supervise(net, tmp_path / "d", SuperviseConfig(positions=24, trials=13, truncate=3, shard=10, seed=5))
    with pytest.raises(CheckpointError, match="other settings"):
        supervise(NET, tmp_path / "d", SMALL)


def test_the_fit_learns_a_teachers_answers():
    """Targets from another network (the teacher): after the fit the held-out
    cross-entropy is lower than before by a clear margin (about 0.3 seen)."""
    student = _trainable_copy()
    boards, _ = sample_positions(NET, 2000, seed=4)
    targets = NET(boards).astype(np.float32)
    run = sup._fit(student, boards, targets, SuperviseConfig(positions=2000, epochs=6, lr=0.05, lr_end=0.01))
    assert run.trained == 1800 and run.held_out == 200
    assert run.after < run.before - 0.1, (run.before, run.after)


def test_only_trainable_networks():
    two = Network([np.zeros((198, 8)), np.zeros((8, 8)), np.zeros((8, 5))], [np.zeros(8), np.zeros(8), np.zeros(5)])
    with pytest.raises(InvalidNetworkError, match="one sigmoid hidden layer"):
        supervise(two, "unused", SMALL)


def test_rollouts_on_dask_equal_in_process(tmp_path):
    pytest.importorskip("distributed", reason="Dask rollouts need the dask extra")
    from fastgen.sim.cluster import connect

    boards, _ = sample_positions(NET, 3, seed=6)
    with connect(workers=2) as client:
        remote = rollout_targets(NET, boards, SMALL, client=client)
    np.testing.assert_array_equal(remote, rollout_targets(NET, boards, SMALL))
