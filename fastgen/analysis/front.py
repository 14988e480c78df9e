"""``analyse``: every decision of a match judged by an evaluator, the front door.

:func:`analyse` takes a :class:`fastgen.Match`, a :class:`fastgen.Game`, the path of a
match file (any format :func:`fastgen.read_match` reads: text ``.mat``, GNU Backgammon's
``.sgf``, eXtreme Gammon's ``.xg``), a folder of them (mixed) or a list of any of
these, and returns a :class:`fastgen.analysis.MatchAnalysis` (a list of them for a
folder or a list), computed by :func:`fastgen.analysis.single.analyse_match`, in this
process or, many matches at once, on a Dask cluster (:mod:`fastgen.analysis.many`).
"""

from __future__ import annotations

import os
from typing import Any, Callable

import numpy as np

from fastgen.players import specs
from fastgen.cube.met import MatchEquityTable
from fastgen.errors import InvalidArgumentError
from fastgen.formats.reader import match_files, read_match
from fastgen.games.game import Game
from fastgen.games.match import Match
from fastgen.sim.options import ClusterOptions, merge_options

from fastgen.analysis.options import AnalysisOptions

from fastgen.analysis.judge import search_depth
from fastgen.analysis.many import analyse_on_cluster
from fastgen.analysis.single import MatchAnalysis, analyse_match

__all__ = ["analyse"]


def _evaluator(spec: Any) -> tuple[Callable[[np.ndarray], Any], str]:
    found = specs.evaluator(spec)
    name = spec if isinstance(spec, str) else found.name
    return found, name


def _as_match(source: Any) -> tuple[Match, str | None]:
    if isinstance(source, Match):
        return source, None
    if isinstance(source, Game):
        return Match.from_records(0, [source.record], cube_cap=source.cube_cap, jacoby=source.jacoby), None
    if isinstance(source, (str, os.PathLike)):
        return read_match(source), os.fspath(source)
    raise InvalidArgumentError(f"analyse takes a fastgen.Match, a fastgen.Game or the path of a match file (.mat, "
                               f".sgf, .xg) or of a folder of them, got {source!r}")


def _sources(source: Any) -> tuple[list[tuple[Match, str | None]], bool]:
    """The matches of *source* with their paths, and whether a list is to be returned."""
    if isinstance(source, (list, tuple)):
        if not source:
            raise InvalidArgumentError("analyse needs at least one match: got an empty list")
        return [_as_match(s) for s in source], True
    if isinstance(source, (str, os.PathLike)) and os.path.isdir(source):
        files = match_files(source)
        if not files:
            raise InvalidArgumentError(f"no match file (.mat, .txt, .sgf, .xg) in the folder {os.fspath(source)!r}")
        return [_as_match(f) for f in files], True
    return [_as_match(source)], False


def analyse(source: Any, evaluator: Any = "baseline", *, plies: int = 0, cube: bool = True,
            met: MatchEquityTable | None = None, threads: int = 1,
            progress: Callable[[int], object] | None = None, workers: int | None = None,
            scheduler: str | None = None, client: Any = None, database: Any = "auto",
            options: AnalysisOptions | None = None, cluster: ClusterOptions | None = None) -> Any:
    """Judge every decision of *source* with *evaluator* (module docstring).

    Parameters
    ----------
    source:
        A :class:`fastgen.Match`, a :class:`fastgen.Game`, a match file's path (any
        format :func:`fastgen.read_match` reads), a folder's (its match files in name
        order, see :func:`fastgen.formats.reader.match_files`), or a list of any of these (a list
        of analyses is returned for a folder or a list).
    evaluator:
        An evaluator or an evaluator spec (``"baseline"``, ``"gnubg:0"``, ``PATH.npz``).
        ``"gnubg:N"`` (N = 1 to 3, GNU Backgammon's compiled nets) looks N plies ahead as
        GNU Backgammon's analysis does: each roll's plays valued at 0 ply, up to 16
        within 0.32 of the best (at 3 plies, then up to 4 within 0.08 at 2) and the play
        made valued N plies ahead, the cube decisions from N-ply probabilities, the luck
        at 0 ply.
    plies:
        0: the evaluator's own values; 1: each candidate play (the best 16 by their
        0-ply equity within 0.32 of the best, and the play made) and each cube decision
        valued after the next side's 21 rolls, as GNU Backgammon's 1-ply analysis does;
        the luck stays at 0 ply, as gnubg's. About 8 times as long as 0 ply.
    cube:
        Judge the cube decisions too.
    met:
        The match equity table (default: :func:`fastgen.cube.default_met`).
    threads:
        Threads of the move generator and of the evaluator (a compiled network uses
        them); the results are the same for any number.
    progress:
        Called with 1 after each match analysed.
    workers, scheduler, client:
        Analyse the matches on a Dask cluster, one task a match (:ref:`cluster-arguments`);
        the results equal the in-process ones.
    database:
        ``"auto"``: bear-offs of at most six checkers a side valued exactly from a
        two-sided database (built once, about half a second) where a match reaches one;
        None: by the evaluator; or a cubeful :func:`fastgen.bearoff.build_two_sided`
        database.
    options, cluster:
        *plies*, *cube*, *met*, *threads* and *database* as one
        :class:`fastgen.analysis.AnalysisOptions`, and *workers*, *scheduler* and
        *client* as one :class:`fastgen.sim.ClusterOptions`, instead of the keywords
        (not both). Each analysis keeps its options as ``analysis.options``.

    Raises
    ------
    fastgen.MatFileError
        A ``.mat`` file that cannot be read, naming the game and the move.
    """
    opts = merge_options(AnalysisOptions, options, plies=plies, cube=cube, met=met, threads=threads,
                         database=database)
    fn, name = _evaluator(evaluator)
    if opts.plies and search_depth(fn):
        raise InvalidArgumentError(f"the evaluator {name!r} already looks {search_depth(fn)} plies ahead: give the "
                                   f"depth once (plies=0 with it, or plies={opts.plies} with its 0-ply nets)")
    if progress is not None and not callable(progress):
        raise InvalidArgumentError(f"progress must be None or a callable, got {progress!r}")
    cluster = merge_options(ClusterOptions, cluster, "cluster", workers=workers, scheduler=scheduler, client=client)
    if cluster.out is not None or cluster.chunk_size is not None:
        raise InvalidArgumentError(f"an analysis runs one task a match and keeps no chunks: cluster.out and "
                                   f"cluster.chunk_size must be None, got {cluster!r}")
    matches, many = _sources(source)
    if cluster.on_cluster:
        out = analyse_on_cluster(matches, fn, name=name, plies=opts.plies, cube=opts.cube, met=opts.met,
                                 cluster=cluster, progress=progress, database=opts.database)
    else:
        out = []
        for match, where in matches:
            out.append(analyse_match(match, fn, name=name, plies=opts.plies, cube=opts.cube, met=opts.met,
                                     threads=opts.threads, source=where, database=opts.database))
            if progress is not None:
                progress(1)
    for analysis in out:
        analysis.options = opts
    return out if many else out[0]
