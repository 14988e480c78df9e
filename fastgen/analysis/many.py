"""Many matches analysed on a Dask cluster (the optional ``dask`` extra): :func:`analyse`
with *workers*, *scheduler* or *client*.

Each match is one task, :func:`analyse_task`, that runs :func:`analyse_match` on a
worker exactly as this process would (the analysis depends on the match and the
evaluator only), so the results equal the in-process ones. The evaluator and the
settings are pickled once with cloudpickle; an evaluator that cannot be sent raises
:class:`fastgen.errors.NotPicklableError` before any work.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Callable

from fastgen.games.match import Match
from fastgen.sim.cluster import as_finished, dumps_checked, loads_cached, task_memory
from fastgen.sim.options import ClusterOptions

from fastgen.analysis.single import MatchAnalysis, analyse_match

__all__ = ["analyse_task", "analyse_on_cluster"]


@dataclass(frozen=True)
class _Job:
    evaluator: Any
    name: str
    plies: int
    cube: bool
    met: Any
    database: Any


def analyse_task(blob: bytes, match: Match, source: str | None, index: int) -> MatchAnalysis:
    """The Dask task: one match analysed with the pickled job *blob* (*index*: its
    place in the run, for the caller)."""
    job = loads_cached(blob)
    with task_memory():
        return analyse_match(match, job.evaluator, name=job.name, plies=job.plies, cube=job.cube, met=job.met,
                             source=source, database=job.database)


def analyse_on_cluster(matches: list[tuple[Match, str | None]], evaluator: Any, *, name: str, plies: int,
                       cube: bool, met: Any, cluster: ClusterOptions,
                       progress: Callable[[int], object] | None, database: Any = "auto") -> list[MatchAnalysis]:
    """The analyses of *matches* ((match, source) pairs) on a cluster, in their order."""
    blob = dumps_checked(_Job(evaluator, name, plies, cube, met, database), "the analysis's evaluator")
    out: list[Any] = [None] * len(matches)
    with cluster.connect() as c:
        key = f"fastgen-analyse-{uuid.uuid4().hex[:12]}"
        args = [(m, s, i) for i, (m, s) in enumerate(matches)]
        for (_, _, i), result in as_finished(c, analyse_task, blob, args, key):
            out[i] = result
            if progress is not None:
                progress(1)
    return out

