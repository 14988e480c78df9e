"""fastgen.sim.cluster.task_memory: a Dask task reuses the memory it frees, and the worker's
malloc settings are given back afterwards (no Dask needed: the settings are glibc's)."""

import subprocess
import sys
import tempfile
import threading

import pytest

from fastgen.sim import cluster
from _child import child_env

# A child Python started as Dask's nanny starts workers: it counts the page faults of
# allocating, touching and freeing a 1 MiB numpy array 40 times (under the 2 MiB of a
# transparent huge page, which would hide the faults), outside the block,
# inside it, and after it.
_FAULTS = """
import resource, time, numpy as np
from fastgen.sim import cluster
from fastgen.sim.cluster import task_memory, _glibc
def faults():
    f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(40):
        a = np.ones(1 << 20, dtype=np.uint8)
        del a
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0
before = faults()
with task_memory():
    faults()  # the first round maps the heap once
    inside = faults()
between = faults()  # within the grace period: still reused
cluster._restore_timer.join()
after = faults()
print(_glibc() is not None, before, inside, between, after)
"""


def test_task_memory_reuses_freed_pages_under_dask_settings():
    if cluster._glibc() is None:
        pytest.skip("task_memory acts on glibc only; this C library is not glibc")
    env = dict(child_env(), MALLOC_TRIM_THRESHOLD_="65536")
    out = subprocess.run([sys.executable, "-c", _FAULTS], cwd=tempfile.gettempdir(), env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    glibc, *counts = out.stdout.split()
    before, inside, between, after = map(int, counts)
    assert glibc == "True"
    pages = 40 * (1 << 20) // 4096
    assert before > pages // 2, counts  # every array mapped afresh
    assert inside < pages // 20, counts  # reused: a few faults at most
    assert between < pages // 20, counts  # the next task of a job finds it warm
    assert after > pages // 2, counts  # Dask's settings are back


class _FakeLibc:
    def __init__(self):
        self.calls = []

    def mallopt(self, param, value):
        self.calls.append(("mallopt", param, value))
        return 1

    def malloc_trim(self, pad):
        self.calls.append(("malloc_trim", pad))
        return 1


@pytest.fixture
def fake_libc(monkeypatch):
    libc = _FakeLibc()
    monkeypatch.setattr(cluster, "_glibc", lambda: libc)
    monkeypatch.setattr(cluster, "TASK_MEMORY_GRACE", 0.05)
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    return libc


def test_task_memory_leaves_adaptive_malloc_alone(fake_libc):
    """Without the environment variables glibc adapts its thresholds itself; a mallopt
    call would switch that off for good, so none is made."""
    with cluster.task_memory():
        pass
    assert fake_libc.calls == []


def test_task_memory_ignores_unreadable_settings(fake_libc, monkeypatch):
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "lots")
    with cluster.task_memory():
        pass
    assert fake_libc.calls == []


def test_task_memory_restores_the_environment_values(fake_libc, monkeypatch):
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "200000")
    with cluster.task_memory():
        assert fake_libc.calls == [("mallopt", -1, cluster.TASK_TRIM), ("mallopt", -3, cluster.TASK_MMAP)]
    with cluster.task_memory():  # the next task within the grace period changes nothing
        pass
    assert len(fake_libc.calls) == 2
    cluster._restore_timer.join()
    assert fake_libc.calls[2:] == [("mallopt", -1, 65536), ("mallopt", -3, 200000), ("malloc_trim", 0)]
    with cluster.task_memory():  # a task after that raises them again
        pass
    cluster._restore_timer.join()
    assert len(fake_libc.calls) == 10


def test_task_memory_overlapping_tasks_restore_once_at_the_end(fake_libc, monkeypatch):
    """Two tasks on the threads of one worker: the settings change when the first starts
    and come back after the last ends, even when one ends with an error."""
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    first_in, second_done = threading.Event(), threading.Event()

    def first():
        with cluster.task_memory():
            first_in.set()
            second_done.wait(10)

    t = threading.Thread(target=first)
    t.start()
    first_in.wait(10)
    with pytest.raises(RuntimeError):
        with cluster.task_memory():
            raise RuntimeError("task failed")
    assert len(fake_libc.calls) == 2  # the second task neither set nor restored
    second_done.set()
    t.join(10)
    cluster._restore_timer.join()
    assert fake_libc.calls[2:] == [("mallopt", -1, 65536), ("mallopt", -3, cluster._GLIBC_DEFAULT), ("malloc_trim", 0)]
