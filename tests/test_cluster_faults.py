"""A worker process killed in the middle of a rollout on a real Dask cluster (two worker
processes on 127.0.0.1, started here): its chunks are played again elsewhere and the
result equals the fault-free run. Skipped when the dask extra is absent."""

import os
import signal

import numpy as np
import pytest

import fastgen

distributed = pytest.importorskip("distributed", reason="dask not installed: pip install '.[dask]'")


@pytest.mark.parametrize("policy, games, chunk", [("random", 30_000, 500), ("pubeval", 600, 20)])
def test_killed_worker_loses_nothing(client, policy, games, chunk):
    ref = fastgen.rollout(games=games, policy=policy, seed=11)
    pids = client.run(os.getpid)  # worker address -> process id
    victim = sorted(pids.values())[0]
    killed = []

    def kill_once(n):
        if not killed:
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)

    got = fastgen.rollout(games=games, policy=policy, seed=11, client=client, chunk_size=chunk, progress=kill_once)
    assert killed == [victim]
    for k in ("winner", "result", "turns"):
        np.testing.assert_array_equal(getattr(got, k), getattr(ref, k), err_msg=k)
    assert got.timings["chunks_played"] == -(-games // chunk)
    # the process really died (the nanny starts a new one)
    client.wait_for_workers(2, timeout=60)
    assert victim not in client.run(os.getpid).values()
