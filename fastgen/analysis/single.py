"""One match analysed: :func:`analyse_match` and its result, :class:`MatchAnalysis`.

The records of every play with its roll and of every cube decision
(:mod:`fastgen.analysis.records`), built from the values
:mod:`fastgen.analysis.judge` computes for the turns and cube decisions
:mod:`fastgen.analysis.walk` finds, and each player's totals
(:mod:`fastgen.analysis.stats`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from fastgen._util import atomic_write
from fastgen.core.notation import format_play
from fastgen.cube.met import MatchEquityTable, default_met
from fastgen.games.match import Match

from fastgen.analysis.html import html_report
from fastgen.cube.lookahead import SearchMemo
from fastgen.analysis.judge import (CubeValues, TurnValues, bearoff_database, judge_cubes, judge_turns, search_depth,
                                    reaches_bearoff)
from fastgen.analysis.records import CubeRecord, MoveRecord, luck_mark, skill_mark
from fastgen.analysis.report import statistics_table
from fastgen.analysis.stats import PlayerStats, fibs_rating_difference, player_stats
from fastgen.analysis.walk import CubePoint, Turn, walk

__all__ = ["analyse_match", "game_results", "match_results", "MatchAnalysis", "CLOSE_CUBE"]

#: A no double counts as a *close* cube decision when the best cube action's equity is
#: within this of double/take (at most 1, a pass); every double, take and pass counts.
CLOSE_CUBE = 0.16


@dataclass
class MatchAnalysis:
    """The analysis of one match: ``decisions`` (:class:`MoveRecord` and
    :class:`CubeRecord`, in match order), ``players`` (two :class:`PlayerStats`, player
    0 first, named as the match file names them), the match's ``length`` (0: money),
    ``score`` and ``names``, the ``evaluator`` used and ``seconds`` taken; ``finished``
    is False when the record stops before the match (or a money game) ends: the
    decisions made are judged, and the results count the finished games only."""

    names: tuple[str, str]
    length: int
    score: tuple[int, int]
    decisions: list = field(repr=False)
    players: list[PlayerStats] = field(repr=False)
    evaluator: str = ""
    plies: int = 0
    seconds: float = 0.0
    source: str | None = None
    finished: bool = True
    #: The :class:`fastgen.analysis.AnalysisOptions` of :func:`fastgen.analysis.analyse`.
    options: Any = field(default=None, repr=False, compare=False)

    @property
    def moves(self) -> list[MoveRecord]:
        return [d for d in self.decisions if d.kind == "move"]

    @property
    def cube_decisions(self) -> list[CubeRecord]:
        return [d for d in self.decisions if d.kind != "move"]

    @property
    def luck_rating_difference(self) -> float | None:
        """The luck-based FIBS rating difference (player 0's; match play only, None
        otherwise or where undefined): :func:`fastgen.analysis.stats.fibs_rating_difference`
        at 0.5 plus player 0's luck-adjusted result."""
        if not self.length:
            return None
        return fibs_rating_difference(0.5 + self.players[0].luck_adjusted_result, self.length)

    def worst(self, n: int = 10) -> list:
        """The *n* decisions with the largest errors, the worst first."""
        return sorted((d for d in self.decisions if d.error < 0), key=lambda d: d.error)[:n]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: the match, each player's totals and every decision."""
        return {"names": list(self.names), "length": self.length, "score": list(self.score),
                "evaluator": self.evaluator, "plies": self.plies, "seconds": self.seconds, "source": self.source,
                "luck_rating_difference": self.luck_rating_difference, "finished": self.finished,
                "players": [p.to_dict() for p in self.players], "decisions": [d.to_dict() for d in self.decisions]}

    def to_html(self, path: Any = None, worst: int = 10) -> str:
        """The analysis as one HTML page (:func:`fastgen.analysis.html.html_report`: the
        equity plot, the *worst* decisions drawn, the totals); written to *path* if given.
        Needs matplotlib (the ``plot`` extra)."""
        text = html_report(self, worst=worst)
        if path is not None:
            with atomic_write(path, "w", encoding="utf-8") as f:  # a failed write leaves the old report whole
                f.write(text)
        return text

    def _repr_html_(self) -> str:
        """A compact HTML fragment for Jupyter: the equity plot and the totals table
        (:func:`fastgen.analysis.html.html_report`; without matplotlib, the table only)."""
        try:
            return html_report(self, worst=0, fragment=True)
        except ImportError:  # no plot extra: the table still shows
            return html_report(self, worst=0, fragment=True, plot=False)

    def __str__(self) -> str:
        return statistics_table(self)


def _move_records(turns: list[Turn], v: TurnValues) -> list[MoveRecord]:
    out = []
    for t, turn in enumerate(turns):
        lo, hi = int(v.offsets[t]), int(v.offsets[t + 1])
        best = lo + int(v.best[t])
        played = int(v.played[t])
        best_eq = float(v.equity[best])
        if played >= 0:
            eq = float(v.equity[lo + played])
            error = min(eq - best_eq, 0.0)
            rank = 1 + int(((v.equity[lo:hi] > eq + 1e-12) & v.evaluated[lo:hi]).sum())  # the filtered out rank below
            play: str | None = format_play(turn.board, v.moves[lo + played])
        else:
            eq, error, rank, play = float("nan"), 0.0, 0, None
        forced = hi - lo <= 1
        luck = float(v.luck[t])
        out.append(MoveRecord(
            game=turn.game, move=turn.move, player=turn.player, board=turn.board, state=turn.state,
            dice=turn.dice, opening=turn.opening, candidates=hi - lo, play=play,
            best_play=format_play(turn.board, v.moves[best]), played=None if played < 0 else v.boards[lo + played],
            best=v.boards[best], equity=eq, best_equity=best_eq, error=error, rank=rank, luck=luck,
            error_mwc=error * float(v.mwc_scale[t]), luck_mwc=luck * float(v.mwc_scale[t]),
            mark=None if forced or played < 0 else skill_mark(error), luck_mark=luck_mark(luck),
            mwc=float(v.mwc_base[t] + eq * v.mwc_scale[t]) if turn.state.match_length else float("nan")))
    return out


def _cube_records(points: list[CubePoint], v: CubeValues) -> list[CubeRecord]:
    out = []
    for i, p in enumerate(points):
        nd, dt, dp = (float(x) for x in v.equities[i])
        action = v.actions[i]
        if np.isnan(dt):  # the side on roll could not double: no decision (a double made anyway is not judged)
            if p.kind == "no double":
                continue
            error, close = 0.0, False
        else:
            doubled = min(dt, dp)
            best = doubled if dt >= nd and dp >= nd else nd  # the doubler's best: double where it gains
            if p.kind in ("no double", "double"):
                error = (nd if p.kind == "no double" else doubled) - best
            else:  # the doubled side, in its own terms
                error = (-dt if p.kind == "take" else -dp) + doubled
            close = p.kind != "no double" or best - min(dt, 1.0) < CLOSE_CUBE
        out.append(CubeRecord(game=p.game, move=p.move, player=p.player, kind=p.kind, board=p.board, state=p.state,
                              no_double=nd, double_take=dt, double_pass=dp, proper=action, error=min(error, 0.0),
                              error_mwc=min(error, 0.0) * float(v.mwc_scale[i]), close=bool(close),
                              mark=skill_mark(error)))
    return out


def game_results(match: Match, met: MatchEquityTable) -> list[tuple[float, float] | None]:
    """Each game's result for (player 0, player 1): the points won and lost (money), or
    the match equity the winner gained and its opponent lost (match); None for a game
    not finished."""
    out: list[tuple[float, float] | None] = []
    for i, game in enumerate(match.games):
        if game.winner is None:
            out.append(None)
            continue
        if not match.length:
            won = float(game.points) if game.winner == 0 else -float(game.points)
            out.append((won, -won))
            continue
        before = match.scores_before(i)
        after = list(before)
        after[game.winner] += game.points
        a0, a1 = (match.length - before[0], match.length - before[1])
        post = not game.crawford and min(a0, a1) == 1
        e0 = met.player0(a0 - 1, a1 - 1, post=post)
        b0, b1 = (match.length - after[0], match.length - after[1])
        e1 = met.player0(b0 - 1, b1 - 1, post=(game.crawford or post) and min(b0, b1) == 1)
        out.append((e1 - e0, e0 - e1))
    return out


def _totals(per_game: list[tuple[float, float] | None]) -> tuple[float, float]:
    """The two players' sums over the finished games of :func:`game_results`."""
    done = [g for g in per_game if g is not None]
    return math.fsum(g[0] for g in done), math.fsum(g[1] for g in done)


def match_results(match: Match, met: MatchEquityTable) -> tuple[float, float]:
    """Each player's actual result (:mod:`fastgen.analysis.stats`): points won (money),
    or the sum over games of the match equity the game's winner gained (match)."""
    return _totals(game_results(match, met))


def analyse_match(match: Match, evaluator: Callable[[np.ndarray], Any], *, name: str = "", plies: int = 0,
                  cube: bool = True, met: MatchEquityTable | None = None, threads: int = 1,
                  source: str | None = None, database: Any = "auto") -> MatchAnalysis:
    """The analysis of one :class:`fastgen.Match` with an evaluator already resolved
    (:func:`analyse` is the front door); *database*: ``"auto"`` (the two-sided bear-off
    database where the match reaches a bear-off), None or a cubeful two-sided database."""
    t0 = time.perf_counter()
    met = default_met() if met is None else met
    turns, points = walk(match)
    if isinstance(database, str) and database == "auto":
        boards = np.stack([t.board for t in turns]) if turns else np.zeros((0, 2, 25), np.int8)
        database = bearoff_database() if reaches_bearoff(boards) else None
    memo = SearchMemo()  # a play's cubeful search is the next cube decision's
    moves = _move_records(turns, judge_turns(turns, evaluator, met, plies=plies, threads=threads, database=database,
                                             memo=memo))
    cubes = _cube_records(points, judge_cubes(points, evaluator, met, plies=plies, threads=threads,
                                              database=database, memo=memo)) if cube else []
    # match order: a turn's cube decisions (no double, or double then take or pass) before its roll
    decisions: list = sorted([*cubes, *moves], key=lambda d: (d.game, d.move, d.kind == "move"))
    names = (match.names[0], match.names[1])
    per_game = game_results(match, met)
    players = player_stats(names, match.length, moves, cubes, _totals(per_game), per_game)
    return MatchAnalysis(names=names, length=match.length, score=match.score, decisions=decisions,
                         players=players, evaluator=name, plies=plies or search_depth(evaluator),
                         seconds=time.perf_counter() - t0, source=source,
                         finished=(match.over if match.length else all(g.over for g in match.games)))


