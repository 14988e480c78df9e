"""Running fastgen work on a Dask cluster (the optional ``dask`` extra).

Dask does placement, retries and data movement; this module only connects, checks that
what is sent can be pickled, sizes the chunks, and hands tasks out and their results back
as they finish:

* :func:`connect` gives a ``distributed.Client``: a ``LocalCluster`` of *workers*
  single-threaded processes on the loopback interface, an existing scheduler at an
  address, or the caller's own client;
* :func:`dumps_checked` pickles a payload with cloudpickle once, before any work starts,
  and raises :class:`fastgen.errors.NotPicklableError` when it cannot be sent;
* :func:`as_finished` submits one task per argument tuple and yields the results in the
  order they finish; stopping early (Ctrl-C, an error) cancels what is left;
* :func:`task_memory`, on the worker, lets a task reuse the memory it frees (see there);
* ``default_chunk_size`` sizes the chunks of a run by a ``ChunkRule`` (about so many
  chunks per worker, within bounds).

Tasks are pure functions of their arguments, so when a worker dies Dask recomputes its
tasks elsewhere and the results do not change. This module imports ``dask`` and
``distributed`` (the ``dask`` extra) only when a cluster is used, so ``import fastgen``
loads neither.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import hashlib
import logging
import math
import os
import pickle
import sys
import threading
from dataclasses import dataclass

from fastgen.errors import NotPicklableError
from fastgen._util import check_int, install_hint

__all__ = [
    "connect", "worker_count", "dumps_checked", "loads_cached", "as_finished", "task_memory",
    "ChunkRule", "GAME_CHUNKS", "default_chunk_size",
]

_NEEDS = "the cluster features need the dask extra"


def _distributed():
    """The ``distributed`` module, or ImportError saying which extra to install."""
    try:
        import distributed  # lazy: the dask extra, only when a cluster is used
    except ImportError as exc:  # pragma: no cover - the extra is installed in CI
        raise ImportError(f"{_NEEDS}: {install_hint('dask')}") from exc
    return distributed


@contextlib.contextmanager
def connect(workers=None, scheduler=None, client=None):
    """A ``distributed.Client`` for the duration of the ``with`` block.

    Exactly one of: *workers* (int >= 1: a new ``LocalCluster`` of that many worker
    processes with one thread each, on 127.0.0.1, without Dask's sampling profiler,
    closed at the end), *scheduler* (the address of a running scheduler,
    ``"tcp://host:8786"``; the connection is closed at the end) or *client* (used as
    is, left open).
    """
    given = [name for name, v in (("workers", workers), ("scheduler", scheduler), ("client", client)) if v is not None]
    if len(given) != 1:
        raise ValueError(f"give exactly one of workers, scheduler or client, got {given!r}")
    if client is not None:
        yield client
        return
    distributed = _distributed()
    if scheduler is not None:
        if not isinstance(scheduler, str) or not scheduler:
            raise ValueError(f"scheduler must be an address such as 'tcp://host:8786', got {scheduler!r}")
        with distributed.Client(scheduler, timeout="30s") as c:
            yield c
        return
    workers = check_int(workers, "workers", 1)
    import dask  # lazy: the dask extra, only when a cluster is used

    # Workers take the config in force when they start. Dask's sampling profiler stops
    # the task thread every 10 ms to read its stack; fastgen's tasks are long compiled
    # loops it cannot describe, and it cost several per cent of a perft run. Clusters
    # given by address or client keep their own settings.
    with dask.config.set({"distributed.worker.profile.enabled": False}):
        cluster = distributed.LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",  # loopback, any free port
            silence_logs=logging.ERROR,
        )
    with cluster, distributed.Client(cluster) as c:
        yield c


@dataclass(frozen=True)
class ChunkRule:
    """How a run of items (games, trials) is cut into chunks by default: about
    *per_worker* chunks per worker, rounded up to a multiple of *step*, within
    *least* .. *most* items (no upper bound when None); with *at_most_items*, never more
    than the run's items (and at least 1)."""

    per_worker: int
    step: int = 1
    least: int = 1
    most: int | None = None
    at_most_items: bool = False


#: Games of :func:`fastgen.rollout` and :func:`fastgen.duel`: about eight chunks per worker
#: (balance, and little lost when a worker dies), 1,000 .. 100,000 games each.
GAME_CHUNKS = ChunkRule(per_worker=8, least=1000, most=100_000, at_most_items=True)


def default_chunk_size(items: int, workers: int, rule: ChunkRule = GAME_CHUNKS) -> int:
    """Items per chunk for a run of *items* on *workers* workers, by *rule*.

    >>> default_chunk_size(100_000, 2), default_chunk_size(500, 2), default_chunk_size(10**9, 2)
    (6250, 500, 100000)
    """
    size = math.ceil(items / (rule.per_worker * max(1, workers)))
    size = max(rule.least, rule.step * math.ceil(size / rule.step))
    if rule.most is not None:
        size = min(rule.most, size)
    if rule.at_most_items:
        size = max(1, min(items, size))
    return size


def worker_count(client) -> int:
    """Number of workers the scheduler knows now (at least 1)."""
    return max(1, len(client.scheduler_info().get("workers", {})))


def dumps_checked(obj, what: str) -> bytes:
    """*obj* pickled with cloudpickle (and read back once), or NotPicklableError naming *what*."""
    try:
        import cloudpickle  # lazy: the dask extra, only when a cluster is used
    except ImportError as exc:  # pragma: no cover - part of the dask extra
        raise ImportError(f"{_NEEDS}: {install_hint('dask')}") from exc
    try:
        blob = cloudpickle.dumps(obj)
        cloudpickle.loads(blob)
    except Exception as exc:
        raise NotPicklableError(f"{what} cannot be sent to Dask workers ({exc}): {obj!r}") from exc
    return blob


_CACHE: dict = {}


def loads_cached(blob: bytes):
    """Unpickle *blob*, keeping the last few objects per process so that a worker running
    many tasks of one job unpickles its payload once."""
    key = hashlib.sha256(blob).digest()
    obj = _CACHE.get(key)
    if obj is None:
        obj = pickle.loads(blob)
        if len(_CACHE) >= 4:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = obj
    return obj


def as_finished(client, fn, blob: bytes, arg_tuples, key: str):
    """Run ``fn(blob, *args)`` for each tuple of *arg_tuples* on the cluster; yield
    ``(args, result)`` as tasks finish. Closing the generator early cancels the rest."""
    distributed = _distributed()
    futures = {}
    for i, args in enumerate(arg_tuples):
        f = client.submit(fn, blob, *args, key=f"{key}-{i}", pure=False)
        futures[f] = args
    try:
        for f in distributed.as_completed(futures):
            yield futures[f], f.result()
    finally:
        pending = [f for f in futures if not f.done()]
        if pending:
            client.cancel(pending)


# glibc's mallopt parameters, and the thresholds it uses when the environment fixes them
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_GLIBC_DEFAULT = 128 * 1024
#: Freed memory a task keeps for reuse, and the size from which blocks are mapped afresh.
TASK_TRIM, TASK_MMAP = 256 << 20, 32 << 20
#: Seconds without any task before the worker's own settings come back: the tasks of a
#: job follow each other closely and keep the memory the previous one warmed.
TASK_MEMORY_GRACE = 1.0
_mem_lock = threading.Lock()
_mem_users = 0
_mem_raised = False
_restore_timer = None


@functools.lru_cache(maxsize=None)
def _glibc():
    """glibc (as a ctypes library) when this process runs on it, else None; looked up
    once per process, not once per task."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # musl and others have no such symbol
        return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None
    except (OSError, AttributeError):
        return None


def _env_thresholds():
    """(trim, mmap) as the environment fixed them at start-up, or None when it fixed
    neither (glibc then adapts its thresholds itself, and is left alone)."""
    trim, mmap = os.environ.get("MALLOC_TRIM_THRESHOLD_"), os.environ.get("MALLOC_MMAP_THRESHOLD_")
    if trim is None and mmap is None:
        return None
    try:
        return (int(trim) if trim is not None else _GLIBC_DEFAULT, int(mmap) if mmap is not None else _GLIBC_DEFAULT)
    except ValueError:
        return None


def _restore(libc, env) -> None:
    """Put the environment's thresholds back and give the free memory back, unless a
    task has started since."""
    global _mem_raised
    with _mem_lock:
        if _mem_users == 0 and _mem_raised:
            libc.mallopt(_M_TRIM_THRESHOLD, env[0])
            libc.mallopt(_M_MMAP_THRESHOLD, env[1])
            libc.malloc_trim(0)
            _mem_raised = False


@contextlib.contextmanager
def task_memory():
    """For the duration of a task, let the worker process reuse the memory it frees.

    Dask's nanny starts workers with ``MALLOC_TRIM_THRESHOLD_=65536``, which on glibc
    also turns off the adaptive mmap threshold: every block over 128 KiB is then mapped
    afresh and every freed one given back, so each of a task's large numpy temporaries
    pays the first-touch cost of fresh pages again (about 9 us per 4 KiB here). A
    depth-4 perft from ``bJ3BATDgc/ABYA`` on one worker spent 4.6 s of system time
    against 0.8 s with reuse (25.0 against 20.1 s of CPU). Inside this block the
    thresholds are raised (blocks under 32 MiB come from the heap, up to 256 MiB of free
    memory is kept); once no such block has run on the worker for TASK_MEMORY_GRACE
    seconds they are set back to the environment's values and the free memory is given
    back (``malloc_trim``), as Dask intends. (Giving it back after every task made each
    task of a job fault its memory in again: +17% on that perft.) Where the environment
    set neither variable, or the C library is not glibc, nothing is changed.
    """
    global _mem_users, _mem_raised, _restore_timer
    libc, env = _glibc(), _env_thresholds()
    if libc is None or env is None:
        yield
        return
    with _mem_lock:
        _mem_users += 1
        if _restore_timer is not None:
            _restore_timer.cancel()
            _restore_timer = None
        if not _mem_raised:
            libc.mallopt(_M_TRIM_THRESHOLD, TASK_TRIM)
            libc.mallopt(_M_MMAP_THRESHOLD, TASK_MMAP)
            _mem_raised = True
    try:
        yield
    finally:
        with _mem_lock:
            _mem_users -= 1
            if _mem_users == 0:
                _restore_timer = threading.Timer(TASK_MEMORY_GRACE, _restore, (libc, env))
                _restore_timer.daemon = True
                _restore_timer.start()
