"""Duels on a Dask cluster (the optional ``dask`` extra): :func:`fastgen.duel` with
*workers*, *scheduler* or *client*.

The games are cut into chunks of consecutive game numbers (an even number of games
each when mirrored, so a pair never straddles two chunks); each chunk is one task,
:func:`play_duel_chunk`, that plays games ``lo .. hi - 1`` of the duel exactly as the
in-process duel plays them (each game's dice and choices depend on ``(seed, game,
turn)`` only). So the result equals the in-process one, game for game. The policies and
the run's settings are pickled once with cloudpickle (a policy that cannot be sent, such
as a running GnubgEngine, raises :class:`fastgen.errors.NotPicklableError` first).
"""

from __future__ import annotations

import dataclasses
import uuid
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from fastgen.sim.cluster import GAME_CHUNKS, ChunkRule, as_finished, default_chunk_size, dumps_checked, loads_cached
from fastgen.sim.cluster import task_memory, worker_count
from fastgen.sim.duel.cubeful import play_cube_games, play_matches
from fastgen.sim.duel.play import play_duel_games
from fastgen.sim.options import ClusterOptions, GameOptions

__all__ = ["play_duel_chunk", "duel_chunked", "play_cube_chunk", "cube_duel_chunked"]

#: Matches are cut finer than games: a match is many games.
MATCH_CHUNKS = ChunkRule(per_worker=8, least=50, most=10_000, at_most_items=True)


@dataclass(frozen=True)
class _DuelJob:
    """What every chunk of one duel needs (pickled once, sent with each task)."""

    a: Any
    b: Any
    start: np.ndarray
    from_opening: bool
    mirrored: bool
    options: GameOptions  # one thread per task: a worker is one process of one thread


def play_duel_chunk(blob: bytes, lo: int, hi: int):
    """The Dask task: games lo..hi-1 of the pickled duel *blob* as (winner, result, turns)."""
    job = loads_cached(blob)
    with task_memory():
        w, r, t, _ = play_duel_games(job.a, job.b, hi - lo, lo, job.start, job.from_opening, job.mirrored, job.options, None)
    return w, r, t


def duel_chunked(
    a, b, games: int, start: np.ndarray, from_opening: bool, mirrored: bool, options: GameOptions,
    cluster: ClusterOptions, progress: Callable[[int], object] | None,
):
    """The games of a duel on a cluster: (winner, result, turns, timings)."""
    job = _DuelJob(a, b, start, from_opening, mirrored, dataclasses.replace(options, threads=1))
    blob = dumps_checked(job, "the duel's policies")
    winner = np.zeros(games, dtype=np.int8)
    result = np.zeros(games, dtype=np.int8)
    turns = np.zeros(games, dtype=np.int32)
    with cluster.connect() as c:
        size = cluster.chunk_size or default_chunk_size(games, worker_count(c), GAME_CHUNKS)
        size += size % 2 if mirrored else 0
        ranges = [(lo, min(lo + size, games)) for lo in range(0, games, size)]
        key = f"fastgen-duel-{uuid.uuid4().hex[:12]}"
        for (lo, hi), (w, r, t) in as_finished(c, play_duel_chunk, blob, ranges, key):
            winner[lo:hi], result[lo:hi], turns[lo:hi] = w, r, t
            if progress is not None:
                progress(hi - lo)
    return winner, result, turns, {"chunks": len(ranges), "chunk_size": size}


@dataclass(frozen=True)
class _CubeDuelJob:
    """What every chunk of one duel with the cube needs: the cube players, the run's
    settings and, for matches, their length (None: money games)."""

    a: Any
    b: Any
    seed: int
    start: np.ndarray
    from_opening: bool
    mirrored: bool
    max_cube: int
    match_length: int | None
    log: bool


def play_cube_chunk(blob: bytes, lo: int, hi: int):
    """The Dask task: money games (or matches) lo..hi-1 of the pickled duel *blob*, as
    the in-process loops return them."""
    job = loads_cached(blob)
    with task_memory():
        if job.match_length is None:
            return play_cube_games(job.a, job.b, hi - lo, job.seed, job.start, job.from_opening, job.mirrored,
                                   job.max_cube, 1, None, lo, job.log)
        return play_matches(job.a, job.b, hi - lo, job.match_length, job.seed, job.start, job.from_opening,
                            job.mirrored, job.max_cube, 1, None, lo, job.log)


def cube_duel_chunked(a, b, n: int, *, seed: int, start: np.ndarray, from_opening: bool, mirrored: bool,
                      max_cube: int, match_length: int | None, log: bool, cluster: ClusterOptions,
                      progress: Callable[[int], object] | None):
    """The *n* money games (or matches) of a duel with the cube on a cluster: the
    in-process loop's arrays, joined in order (records: one list), and the timings."""
    job = _CubeDuelJob(a, b, seed, start, from_opening, mirrored, max_cube, match_length, log)
    blob = dumps_checked(job, "the duel's cube players")
    parts: dict[int, tuple] = {}
    with cluster.connect() as c:
        rule = GAME_CHUNKS if match_length is None else MATCH_CHUNKS
        size = cluster.chunk_size or default_chunk_size(n, worker_count(c), rule)
        size += size % 2 if mirrored else 0
        ranges = [(lo, min(lo + size, n)) for lo in range(0, n, size)]
        key = f"fastgen-cube-duel-{uuid.uuid4().hex[:12]}"
        for (lo, hi), part in as_finished(c, play_cube_chunk, blob, ranges, key):
            parts[lo] = part
            if progress is not None:
                progress(hi - lo)
    ordered = [parts[lo] for lo, _ in ranges]
    arrays = tuple(np.concatenate([p[k] for p in ordered]) for k in range(len(ordered[0]) - 1))
    records = [r for p in ordered for r in p[-1]] if log else None
    return arrays, records, {"chunks": len(ranges), "chunk_size": size}
