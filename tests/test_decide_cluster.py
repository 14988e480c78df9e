"""Rollouts that decide on a real Dask cluster (worker processes on 127.0.0.1, started
here): the table equals the in-process one to the last bit, whatever the chunking.
Skipped when the dask extra is absent."""

from __future__ import annotations

import numpy as np
import pytest

import fastgen
from fastgen.errors import InvalidArgumentError, NotPicklableError

pytest.importorskip("distributed", reason="dask not installed: pip install '.[dask]'")
pytest.importorskip("cloudpickle", reason="cloudpickle not installed: pip install '.[dask]'")

START = fastgen.STARTING_BOARD


def _pip_evaluator():
    """A float64 evaluator computed position by position (integer pip counts and blots,
    elementwise float64 arithmetic: no matrix product whose rounding could depend on the
    batch). Defined in a function so cloudpickle sends it by value."""
    place = np.arange(1, 26, dtype=np.int64)

    def pips(boards):
        b = boards.astype(np.int64)
        count = (b * place).sum(axis=2)  # (N, 2): the opponent's pips, then the roller's
        blots = (b[:, 1, :24] == 1).sum(axis=1)
        x = (count[:, 0] - count[:, 1]) / 25.0 - 0.3 * blots
        p = 1.0 / (1.0 + np.exp(-x))
        return np.stack([p, 0.2 * p * p, 0.01 * p * p, 0.2 * (1 - p) ** 2, 0.01 * (1 - p) ** 2], axis=1)

    pips.__name__ = "pips"
    return pips


def _same_table(a, b):
    assert [str(r.play) for r in a.rows] == [str(r.play) for r in b.rows]
    for ra, rb in zip(a.rows, b.rows):
        assert np.array_equal(ra.samples, rb.samples) and np.array_equal(ra.raw_samples, rb.raw_samples)
        assert (ra.equity, ra.equity_se, ra.diff, ra.diff_se, ra.p_best, ra.trials) == \
            (rb.equity, rb.equity_se, rb.diff, rb.diff_se, rb.p_best, rb.trials)


def test_workers_equal_in_process_row_for_row():
    net = _pip_evaluator()
    kw = dict(plays=3, trials=150, seed=4, truncate=12)
    ref = fastgen.rollout_plays(START, (4, 2), net, **kw)
    got = fastgen.rollout_plays(START, (4, 2), net, workers=2, chunk_size=36, **kw)  # 5 chunks, the last of 6
    _same_table(got, ref)
    assert got.stats["workers"] == 2 and got.stats["positions"] == ref.stats["positions"]  # the same evaluations


def test_client_runs_full_games_and_rollout_position(client):
    net = _pip_evaluator()
    ref = fastgen.rollout_position(START, net, trials=72, seed=1)
    _same_table(fastgen.rollout_position(START, net, trials=72, seed=1, client=client, chunk_size=25), ref)
    # with a stop rule: rounds of one chunk per worker, the stop checked between rounds
    t = fastgen.rollout_plays(START, (3, 1), net, trials=1296, truncate=2, stop_se=1.0, client=client, chunk_size=36)
    assert t.stopped == "stop_se" and t.rows[0].trials == 72


def test_cluster_arguments_are_checked():
    net = _pip_evaluator()
    with pytest.raises(InvalidArgumentError, match="at most one"):
        fastgen.rollout_plays(START, (3, 1), net, trials=4, workers=2, scheduler="tcp://127.0.0.1:1")
    with pytest.raises(InvalidArgumentError, match="workers"):
        fastgen.rollout_plays(START, (3, 1), net, trials=4, workers=0)
    with pytest.raises(InvalidArgumentError, match="chunk_size"):
        fastgen.rollout_plays(START, (3, 1), net, trials=4, chunk_size=0)
    import threading

    lock = threading.Lock()

    def locked(boards):
        with lock:
            return net(boards)

    with pytest.raises(NotPicklableError, match="locked"):
        fastgen.rollout_plays(START, (3, 1), locked, trials=4, workers=1)


def test_out_dir_resumes_on_the_cluster(client, tmp_path):
    net = _pip_evaluator()
    kw = dict(plays=2, trials=108, seed=2, truncate=10, chunk_size=36, out=tmp_path, key="pips")
    ref = fastgen.rollout_plays(START, (6, 1), net, **kw)  # in process, saving the 3 chunks
    (tmp_path / "part-000000000036-000000000072.npz").unlink()  # as if that chunk never finished
    got = fastgen.rollout_plays(START, (6, 1), net, client=client, **kw)
    assert got.stats["chunks_loaded"] == 2 and got.stats["chunks_played"] == 1
    _same_table(got, ref)


def test_ctrl_c_keeps_the_chunks_finished_from_trial_0(client, monkeypatch):
    # Ctrl-C at the front after chunks 36-72 and 0-36 came back (in that order), while
    # 72-108 is still out: the table holds trials 0-71, equal to the in-process ones.
    from fastgen.sim.decide import chunks as decide_chunks

    real = decide_chunks.as_finished

    def interrupted(*a, **k):
        done = sorted(real(*a, **k), key=lambda item: item[0][1])  # every chunk, by lo
        yield done[1]
        yield done[0]
        raise KeyboardInterrupt

    monkeypatch.setattr(decide_chunks, "as_finished", interrupted)
    net = _pip_evaluator()
    kw = dict(plays=2, trials=108, seed=8, truncate=6)
    t = fastgen.rollout_plays(START, (6, 5), net, client=client, chunk_size=36, **kw)
    assert t.interrupted and t.stopped == "interrupted" and [r.trials for r in t.rows] == [72, 72]
    ref = fastgen.rollout_plays(START, (6, 5), net, **{**kw, "trials": 72})
    _same_table(t, ref)
