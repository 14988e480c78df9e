"""Rollouts that decide in chunks of trials: on a Dask cluster (the ``dask`` extra).

``fastgen.rollout_plays(..., workers=N | scheduler=ADDRESS | client=CLIENT)`` comes here.
The trials are cut into chunks of ``chunk_size`` consecutive trial ids (by default whole
blocks of 36, about four chunks per worker); each chunk is one task that plays those
trials of every candidate still rolled out (:func:`fastgen.sim.decide.trials.play_range`)
and returns the per-trial values. Trial ``k``'s dice depend only on ``(seed, k, turn)``,
so the values do not depend on the chunking, the workers or the order chunks finish in:
with an evaluator that computes each position on its own in float64, the table equals the
in-process one to the last bit.

With ``out=DIR`` (in process or on a cluster) every finished chunk is written to
``DIR/part-<lo>-<hi>.npz`` (to a temporary name, then renamed: a part is complete or
absent) next to ``DIR/manifest.json``, which records the run (position, dice,
candidates, evaluator name, trials, seed, options, chunk size) and the run's
identity: the SHA-256 of those fields and of the evaluator's content (a
network's weights and input schemes, a compiled one or a
:class:`fastgen.players.evaluators.ReferenceNetwork`; ``gnubg:N`` by its plies
and gnubg-nn's version, or the caller's ``key=`` for any other callable: without one,
``out`` is refused for such an evaluator). Every part carries the identity too. Running
again with the same arguments loads the finished parts and plays only the missing
chunks, to the identical table; a directory of another run, or a part of another run,
of the wrong shape or with values no trial can produce (non-finite, an outcome outside
[0, 1]) raises :class:`fastgen.errors.RolloutStoreError` naming it
(``resume="recompute"`` plays such a chunk again instead).

The cluster is reached through :mod:`fastgen.sim.cluster` as
:mod:`fastgen.sim.rollout.chunks` does: the job (start positions, evaluator, options) is
pickled once with cloudpickle (NotPicklableError naming the evaluator otherwise) and sent
with each task.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from fastgen.sim.cluster import ChunkRule, as_finished, dumps_checked, loads_cached, task_memory, worker_count
from fastgen.sim.decide.trials import play_range
from fastgen.sim.options import ClusterOptions, TrialOptions
from fastgen.sim.store import ChunkStore, bad_values

__all__ = ["TrialJob", "play_job", "trial_chunk", "TRIAL_CHUNKS", "ClusterRunner", "TrialStore"]

#: Default chunks: about four per worker (balance against the per-task overhead), in
#: whole blocks of 36 trials.
TRIAL_CHUNKS = ChunkRule(per_worker=4, step=36, least=36)


@dataclass(frozen=True)
class TrialJob:
    """What every chunk of one rollout needs: the start positions (C, 2, 25) (side on roll
    in row 1), whose view the values take, the evaluator, the block size and the trial
    options."""

    starts: np.ndarray
    self_first: bool
    evaluator: Any
    pool_games: int
    options: TrialOptions


def play_job(job: TrialJob, rows: tuple, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray, dict]:
    """Trials ``lo .. hi-1`` of the start positions *rows*: ``(raw, estimate, stats)``,
    the arrays (len(rows), hi - lo, 5)."""
    stats: dict = {}
    t0 = time.perf_counter()
    raw, est = play_range(job.starts[list(rows)], job.self_first, job.evaluator, lo, hi,
                          pool_games=job.pool_games, stats=stats, **job.options.play())
    stats["chunk_seconds"] = time.perf_counter() - t0
    return raw, est, stats


def trial_chunk(blob: bytes, rows: tuple, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray, dict]:
    """The Dask task: :func:`play_job` of the pickled job *blob*."""
    with task_memory():
        return play_job(loads_cached(blob), rows, lo, hi)


class ClusterRunner:
    """The cluster for the duration of a ``with`` block: ``run`` plays chunks of trials."""

    def __init__(self, job: TrialJob, name: str, cluster: ClusterOptions):
        self.blob = dumps_checked(job, f"evaluator {name!r}")
        self._connect = cluster.connect()
        self.workers = 1
        self._client: Any = None

    def __enter__(self) -> "ClusterRunner":
        self._client = self._connect.__enter__()
        self.workers = worker_count(self._client)
        return self

    def __exit__(self, *exc) -> Any:
        return self._connect.__exit__(*exc)

    def run(self, rows: list, ranges: list, got: dict, done: Callable[[int, int, np.ndarray, np.ndarray], None]) -> None:
        """Play the trial *ranges* ``(lo, hi)`` of the start positions *rows*, storing
        ``got[lo] = (hi, raw, estimate, stats)`` as each finishes (so that the caller keeps
        what finished when Ctrl-C stops it) and calling ``done(lo, hi, raw, estimate)``."""
        key = f"fastgen-decide-{uuid.uuid4().hex[:12]}"
        args = [(tuple(rows), lo, hi) for lo, hi in ranges]
        for (_, lo, hi), (raw, est, stats) in as_finished(self._client, trial_chunk, self.blob, args, key):
            done(lo, hi, raw, est)
            got[lo] = (hi, raw, est, stats)


class TrialStore(ChunkStore):
    """A directory of finished chunks of trials with a manifest (see the module docstring).

    *half_moves* bounds the half-moves of a trial (the truncation, or MAX_HALF_MOVES):
    a raw outcome is within [0, 1] and a variance-reduced estimate differs from it by at
    most one luck term in [-1, 1] per half-move; without variance reduction
    (*variance_reduction* False) the estimate is the outcome."""

    FORMAT = "fastgen-decide-chunks/2"
    WHAT = "fastgen.rollout_plays"

    def __init__(self, path, run: dict, content: str, rows: int, half_moves: int, variance_reduction: bool,
                 resume: str = "check") -> None:
        super().__init__(path, run, content, resume=resume)
        self.rows, self.half_moves, self.variance_reduction = rows, half_moves, variance_reduction

    def check_part(self, lo: int, hi: int, arrays: list) -> str | None:
        raw, est = arrays
        want = (self.rows, hi - lo, 5)
        if raw.shape != want or est.shape != want:
            return f"has arrays of shape {raw.shape} and {est.shape}, not {want}"
        h = float(self.half_moves)
        why = bad_values("outcomes", raw, 0.0, 1.0) or bad_values("estimates", est, -h, 1.0 + h)
        if why is None and not self.variance_reduction and not np.array_equal(raw, est):
            why = "holds estimates that differ from the outcomes (the run has no variance reduction)"
        return why

    def load(self, grid: list, rows: int) -> dict:
        """``{lo: (hi, raw, estimate, {})}`` of the parts on *grid* of the run's *rows*
        active candidates (all of them: ``out`` does not combine with the stop rules)."""
        self.rows = rows
        return {lo: (hi, raw, est, {}) for lo, hi, (raw, est) in self.parts(grid, ("raw", "estimate"))}

    def save_trials(self, lo: int, hi: int, raw: np.ndarray, est: np.ndarray) -> None:
        """Keep the values of trials lo..hi-1."""
        self.save(lo, hi, raw=raw, estimate=est)
