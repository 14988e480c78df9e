"""Rollouts in seeded chunks: spread over a Dask cluster, kept on disk as they finish.

``fastgen.rollout(..., workers=N | scheduler=ADDRESS | client=CLIENT | out=DIR)`` comes
here. The games ``first_game .. first_game + games - 1`` are cut into chunks of
``chunk_size`` consecutive games; each chunk is one call of the ordinary in-process
:func:`fastgen.rollout` with ``first_game=lo``. Game i's dice and choices come from a
counter-based hash of ``(seed, i, turn)``, so the result does not depend on the chunk
size, the number of workers, the order chunks finish in, or a chunk being recomputed after
a worker died: it equals the in-process rollout game for game.

Each chunk comes back as three small arrays (winner int8, result int8, turns int32).
With ``out=DIR`` every finished chunk is written to ``DIR/part-<lo>-<hi>.npz`` (written
to a temporary name, then renamed: a part is either complete or absent) next to
``DIR/manifest.json``, which records the run (games, seed, policy, start positions, chunk
size) and its identity: the SHA-256 of those fields and of the policy's content
(:func:`policy_identity`); every part carries the identity too. Running again with the
same ``out`` and the same arguments loads the finished parts and plays only the missing
chunks, so an interrupted run finishes to the identical result; a directory of another
run, or a part of another run, of the wrong shape or with values no game can produce
(a winner not 0 or 1, a result not 1, 2 or 3, turns outside 1 .. MAX_TURNS), is refused
with :class:`RolloutStoreError` naming it (``resume="recompute"`` plays such a chunk
again).

Ctrl-C raises :class:`RolloutInterrupted` (a ``KeyboardInterrupt``) whose ``result`` holds
the games of the chunks that had finished.
"""

from __future__ import annotations

import hashlib
import os
import time
import uuid
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from fastgen._util import check_int
from fastgen.core.ids import position_id
from fastgen.sim.cluster import GAME_CHUNKS, as_finished, default_chunk_size, dumps_checked, loads_cached
from fastgen.sim.cluster import task_memory, worker_count
from fastgen.sim.options import ClusterOptions, GameOptions
from fastgen.errors import InvalidArgumentError
from fastgen.sim.pool import MAX_TURNS, check_start
from fastgen.sim.rollout.pool import play_in_process
from fastgen.players.specs import policy as policy_of
from fastgen.sim.rollout.results import RolloutResult
from fastgen.sim.store import RESUME_MODES, ChunkStore, bad_values, evaluator_identity

__all__ = ["rollout_chunked", "RolloutInterrupted", "RolloutStore", "play_chunk", "policy_identity"]


class RolloutInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a chunked rollout. ``result`` is a :class:`fastgen.sim.RolloutResult` of
    the games of the finished chunks (``finished`` of ``total`` games)."""

    def __init__(self, result, total: int):
        super().__init__(f"rollout interrupted: {result.games} of {total} games finished")
        self.result = result
        self.finished = result.games
        self.total = total


@dataclass(frozen=True)
class _Job:
    """What every chunk of one run needs (pickled once, sent with each task)."""

    policy: str | Callable[..., Any]
    start: np.ndarray | None  # (K, 2, 25) int8 boards, or None for the opening
    options: GameOptions


def _play(job: _Job, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    t0 = time.perf_counter()
    r = play_in_process(hi - lo, job.policy, job.start, lo, job.options, None)
    return r.winner, r.result, r.turns, time.perf_counter() - t0


def play_chunk(blob: bytes, lo: int, hi: int):
    """The Dask task: games lo..hi-1 of the pickled job *blob*, as ``(winner, result,
    turns, seconds)``."""
    with task_memory():
        return _play(loads_cached(blob), lo, hi)


# --------------------------------------------------------------------------- the store


def policy_identity(policy, key: str | None) -> str | None:
    """What identifies *policy* (as given to :func:`fastgen.rollout`) in an ``out`` run's
    digest: *key* when given; a spec of the grammar by its text, a ``PATH.npz`` spec by
    the SHA-256 of the file too; a network (compiled or a :class:`fastgen.players.evaluators.ReferenceNetwork`) by its digest;
    None for a ``module:callable`` spec or any other callable (opaque)."""
    if key is not None or not isinstance(policy, str):
        return evaluator_identity(policy, key, "policy")
    if policy.lower().endswith(".npz"):
        try:
            with open(policy, "rb") as f:
                return f"spec:{policy}:sha256 {hashlib.sha256(f.read()).hexdigest()}"
        except OSError:
            return None  # the spec's own check reports the file
    kind = policy.split(":")[0]
    if kind in ("random", "pubeval", "baseline", "gnubg", "gnubg-nn", "gnubg-engine", "network"):
        return f"spec:{policy}"
    return None


def check_resume(out, content: str | None, name: str, resume: str) -> None:
    """InvalidArgumentError for *out* with an opaque policy (no *content*) or a bad *resume*."""
    if resume not in RESUME_MODES:
        raise InvalidArgumentError(f"resume must be one of {RESUME_MODES!r}, got {resume!r}")
    if out is not None and content is None:
        raise InvalidArgumentError(
            f"out={out!r} needs to know the policy {name!r}: it is a callable fastgen cannot identify, so pass "
            "key='...' (a text that changes whenever the policy's choices would), or run without out"
        )


class RolloutStore(ChunkStore):
    """A directory of finished chunks of games (see the module docstring)."""

    FORMAT = "fastgen-rollout-chunks/2"
    WHAT = "fastgen.rollout"
    CONTENT = "policy"

    def check_part(self, lo: int, hi: int, arrays: list) -> str | None:
        want = (hi - lo,)
        if any(a.shape != want for a in arrays):
            return f"has arrays of shapes {[a.shape for a in arrays]}, not {want}"
        winner, result, turns = arrays
        why = bad_values("winners", winner, 0, 1) or bad_values("results", result, 1, 3)
        why = why or bad_values("turns", turns, 1, MAX_TURNS)
        if why is None and not all(np.issubdtype(a.dtype, np.integer) for a in arrays):
            why = f"has arrays of dtypes {[str(a.dtype) for a in arrays]}, not integers"
        return why

    def load(self, grid):
        """Yield ``(lo, hi, winner, result, turns)`` for every part on *grid* that fits."""
        for lo, hi, arrays in self.parts(grid, ("winner", "result", "turns")):
            yield (lo, hi, *arrays)


# --------------------------------------------------------------------------- the driver


def rollout_chunked(games, policy, start, first_game, options: GameOptions, cluster: ClusterOptions, progress,
                    content: str | None = None, resume: str = "check"):
    """:func:`fastgen.rollout` in chunks, on a Dask cluster when *cluster* names one, else
    in this process; finished chunks kept in ``cluster.out`` (*content* the policy's
    identity, :func:`policy_identity`)."""
    start_boards = None
    if start is not None:
        start_boards, games = check_start(start, games)
    games = check_int(games, "games", 0)
    # Every argument check of the in-process call, before any work is sent out.
    play_in_process(0, policy, start_boards, first_game, options, None)
    seed, out, chunk_size = options.seed, cluster.out, cluster.chunk_size
    name = policy_of(policy).name  # the policy the front door resolved
    check_resume(out, content, name, resume)
    job = _Job(policy, start_boards, options)
    on_cluster = cluster.on_cluster
    blob = b""  # the pickled job, for the cluster
    if on_cluster:
        blob = dumps_checked(job, f"policy {name!r}")

    end = first_game + games
    winner = np.zeros(games, dtype=np.int8)
    result = np.zeros(games, dtype=np.int8)
    turns = np.zeros(games, dtype=np.int32)
    finished = np.zeros(games, dtype=bool)
    stats = {"chunks_loaded": 0, "chunks_played": 0, "chunk_seconds": 0.0}

    def accept(lo, hi, w, r, t):
        a, b = lo - first_game, hi - first_game
        winner[a:b], result[a:b], turns[a:b] = w, r, t
        finished[a:b] = True
        if progress is not None:
            progress(hi - lo)

    def plan(n_workers):
        size = chunk_size
        store = None
        if out is not None:
            size = size or RolloutStore.stored_chunk_size(out) or default_chunk_size(games, n_workers, GAME_CHUNKS)
            run = {
                "games": games, "first_game": first_game, "seed": seed, "policy": name,
                "start": None if start_boards is None else [position_id(b) for b in start_boards],
                "chunk_size": size,
            }
            store = RolloutStore(out, run, str(content), {"batch_size": options.batch_size, "engine": options.engine},
                                 resume)
        size = size or default_chunk_size(games, n_workers, GAME_CHUNKS)
        grid = [(lo, min(lo + size, end)) for lo in range(first_game, end, size)]
        if store is not None:
            for lo, hi, w, r, t in store.load(grid):
                accept(lo, hi, w, r, t)
                stats["chunks_loaded"] += 1
        todo = [(lo, hi) for lo, hi in grid if not finished[lo - first_game]]
        return size, grid, todo, store

    def finish(lo, hi, w, r, t, seconds, store):
        if store is not None:
            store.save(lo, hi, winner=w, result=r, turns=t)
        accept(lo, hi, w, r, t)
        stats["chunks_played"] += 1
        stats["chunk_seconds"] += seconds

    t0 = t_connect = time.perf_counter()
    try:
        if on_cluster:
            with cluster.connect() as c:
                n_workers = worker_count(c)
                t0 = time.perf_counter()  # games/s counts from here: cluster start-up apart
                size, grid, todo, store = plan(n_workers)
                key = f"fastgen-rollout-{uuid.uuid4().hex[:12]}"
                for (lo, hi), (w, r, t, s) in as_finished(c, play_chunk, blob, todo, key):
                    finish(lo, hi, w, r, t, s, store)
                seconds = time.perf_counter() - t0  # before the cluster shuts down
        else:
            n_workers = 1
            size, grid, todo, store = plan(1)
            for lo, hi in todo:
                finish(lo, hi, *_play(job, lo, hi), store)
            seconds = time.perf_counter() - t0
    except KeyboardInterrupt:
        seconds = time.perf_counter() - t0
        partial = RolloutResult.cubeless(
            winner[finished], result[finished], turns[finished], seed, name, seconds, dict(stats)
        )
        raise RolloutInterrupted(partial, games) from None
    timings = {"wall": seconds, "connect": t0 - t_connect, "workers": n_workers, "chunk_size": size, "chunks": len(grid), **stats}
    return RolloutResult.cubeless(winner, result, turns, seed, name, seconds, timings)
