"""Bots against bots: cubeless money games between two policies, with duplicate dice.

:func:`duel` plays *games* games between policies *a* and *b* and returns a
:class:`DuelResult`: *a*'s points per game with its standard error and 95% interval, and
each side's win, gammon and backgammon rates.

Mirrored (the default), the games come in pairs that share their dice sequence and start
position with the seats swapped: in game 2k player *a* moves first, in game 2k + 1
player *b* does, and at every turn index both games roll the same dice (duplicate
backgammon). Luck largely cancels within a pair, so the standard error, computed over
the pairs' mean points, is smaller than over the same number of independent games.
Unmirrored, game g has its own dice and *a* moves first in the even games.

Each game's dice and random choices depend only on ``(seed, game, turn)`` (the counter-
based hash of :mod:`fastgen.core.hashing`), so the same seed gives the same games whatever
*threads* or *batch_size*. Two built-in policies ("random", "pubeval") duel inside the
compiled core at rollout speed; any other policy goes through the batched loop (one
:func:`fastgen.plays_batch` call per turn for each side's games), with the batch
protocol of :func:`fastgen.rollout`: ``f(candidates, offsets) -> (G,) indices``, or
``f(candidates, offsets, boards, dice)`` for a callable with ``wants_position = True``.

>>> r = duel("pubeval", "random", 200, seed=1)
>>> r.games, r.pairs, r.ppg > 0
(200, 100, True)
>>> duel("pubeval", "random", 200, seed=1, threads=2).ppg == r.ppg
True

:func:`duel_matches` plays whole matches to a number of points with the cube between
two cube players and returns a :class:`MatchDuelResult` (*a*'s match-winning chance).
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from fastgen.core.boards import STARTING_BOARD
from fastgen.games.game import Game
from fastgen.games.match import Match
from fastgen.players import specs
from fastgen.players import base
from fastgen.errors import InvalidArgumentError, InvalidSpecError
from fastgen.sim.duel.chunks import cube_duel_chunked, duel_chunked
from fastgen.sim.duel.cubeful import play_cube_games, play_matches
from fastgen.sim.duel.play import native_player, play_duel_games
from fastgen.sim.options import ClusterOptions, GameOptions, merge_options
from fastgen.sim.pool import check_start
from fastgen._typing import ArrayLike
from fastgen._util import check_int

__all__ = ["duel", "duel_matches", "DuelResult", "MatchDuelResult", "Policy"]

#: A policy: a spec of fastgen.players.specs ("random", "pubeval", "baseline" ...) or a batch callable.
Policy = Any

_Z95 = 1.959963984540054

#: The most games one duel plays (its per-game result arrays take 6 bytes a game).
MAX_GAMES = 2**31 - 1


def _standard_error(samples: np.ndarray) -> float:
    """The standard error of the mean of independent *samples* (inf for fewer than two)."""
    return float(samples.std(ddof=1) / math.sqrt(samples.size)) if samples.size > 1 else float("inf")


def _interval(mean: float, se: float) -> tuple[float, float]:
    """The 95% normal interval of *mean* with standard error *se*."""
    return (mean - _Z95 * se, mean + _Z95 * se)


def _spread(se: float, fmt: str, mean: float, unit: str) -> str:
    """``+/- SE (95%: [LO, HI])`` in *fmt*, or ``+/- n/a (95%: n/a: ...)`` when there is no
    interval to show: a single sample (*unit*: a mirrored pair, a game, a match) has no
    standard error (inf), and samples that are all equal have none to go by (0)."""
    if not math.isfinite(se) or se <= 0:
        why = f"a single {unit}" if not math.isfinite(se) else f"every {unit} scored the same"
        return f"+/- n/a (95%: n/a: {why})"
    lo, hi = _interval(mean, se)
    return f"+/- {se:{fmt.lstrip('+')}} (95%: [{lo:{fmt}}, {hi:{fmt}}])"


def _name(policy) -> str:
    if isinstance(policy, str):
        return policy
    return str(getattr(policy, "name", None) or getattr(policy, "__name__", None) or type(policy).__name__)


@dataclass
class DuelResult:
    """The games of a duel between policies *a* and *b*, seen from *a*.

    ``winner`` (0: *a* won, 1: *b* won), ``result`` (1 single, 2 gammon, 3 backgammon) and
    ``turns`` are arrays over the games; *a* moved first in the even games. Points are
    cubeless: a game is worth its result, positive when *a* won; with the cube
    (``cube=True``), ``cube`` holds the value each game was played for (a game passed
    counts a single game at the value before the double), and points are the result
    times the cube.
    """

    a: str
    b: str
    seed: int
    mirrored: bool
    winner: np.ndarray
    result: np.ndarray
    turns: np.ndarray
    seconds: float = 0.0
    timings: dict = field(default_factory=dict)
    cube: np.ndarray | None = None
    records: list | None = field(default=None, repr=False)
    max_cube: int = 64
    #: The :class:`fastgen.sim.GameOptions` that played the games.
    options: Any = field(default=None, repr=False, compare=False)

    @property
    def games(self) -> int:
        return int(self.winner.shape[0])

    def game(self, index: int) -> Game:
        """Game *index* of a duel with the cube played with ``records=True``, rebuilt as
        a :class:`fastgen.Game` (every action checked by its rules; player 0 is *a*)."""
        if self.records is None:
            raise InvalidArgumentError("this duel kept no records: play it with cube=True, records=True")
        index = check_int(index, "index", 0, self.games - 1)
        return Game.replay(self.records[index], cube_cap=self.max_cube)

    @property
    def pairs(self) -> int:
        """Mirrored pairs (0 when not mirrored)."""
        return self.games // 2 if self.mirrored else 0

    @property
    def points(self) -> np.ndarray:
        """(games,) float: *a*'s points in each game."""
        pts = np.where(self.winner == 0, self.result, -self.result.astype(np.int16)).astype(float)
        return pts if self.cube is None else pts * self.cube

    @property
    def _unit(self) -> str:
        return "mirrored pair" if self.mirrored else "game"

    def _samples(self) -> np.ndarray:
        """The independent samples: pair means when mirrored, else the games."""
        pts = self.points
        return pts.reshape(-1, 2).mean(axis=1) if self.mirrored else pts

    @property
    def ppg(self) -> float:
        """*a*'s mean points per game (negative when *b* is ahead)."""
        return float(self.points.mean()) if self.games else 0.0

    @property
    def ppg_se(self) -> float:
        """Standard error of :attr:`ppg` (over the pairs' means when mirrored)."""
        return _standard_error(self._samples())

    @property
    def ci95(self) -> tuple[float, float]:
        """The 95% normal interval of :attr:`ppg`."""
        return _interval(self.ppg, self.ppg_se)

    def rates(self, side: str) -> dict:
        """Win, gammon (backgammons included) and backgammon rates of *side* ("a" or "b")
        over all games."""
        if side not in ("a", "b"):
            raise InvalidArgumentError(f"side must be 'a' or 'b', got {side!r}")
        won = self.winner == (0 if side == "a" else 1)
        n = max(self.games, 1)
        return {
            "win": float(won.sum() / n),
            "gammon": float((won & (self.result >= 2)).sum() / n),
            "backgammon": float((won & (self.result == 3)).sum() / n),
        }

    @property
    def total_turns(self) -> int:
        return int(self.turns.sum())

    def to_dict(self) -> dict:
        """A plain JSON-serializable dict of the figures (not the per-game arrays)."""
        lo, hi = self.ci95
        return {
            "a": self.a,
            "b": self.b,
            "games": self.games,
            "pairs": self.pairs,
            "mirrored": self.mirrored,
            "seed": self.seed,
            "ppg": self.ppg,
            "ppg_se": self.ppg_se,
            "ci95": [lo, hi],
            "a_rates": self.rates("a"),
            "b_rates": self.rates("b"),
            "turns": self.total_turns,
            "average_turns": self.total_turns / self.games if self.games else 0.0,
            "seconds": self.seconds,
            "games_per_second": self.games / self.seconds if self.seconds > 0 else None,
            "timings": dict(self.timings),
            "cube": self.cube is not None,
            "average_cube": float(self.cube.mean()) if self.cube is not None and self.games else None,
        }

    def __str__(self) -> str:
        how = f"{self.pairs} mirrored pairs" if self.mirrored else "unmirrored"
        lines = [
            f"{self.a} vs {self.b}: {self.games} {'cubeless games' if self.cube is None else 'money games with the cube'} "
            f"({how}), seed {self.seed}",
            f"{self.a} points/game: {self.ppg:+.4f} {_spread(self.ppg_se, '+.4f', self.ppg, self._unit)}",
        ]
        for side, name in (("a", self.a), ("b", self.b)):
            r = self.rates(side)
            lines.append(
                f"  {name:<12} wins {100 * r['win']:6.2f}%  gammons {100 * r['gammon']:5.2f}%  "
                f"backgammons {100 * r['backgammon']:5.2f}%"
            )
        rate = f", {self.games / self.seconds:,.0f} games/s" if self.seconds > 0 else ""
        lines.append(f"{self.total_turns:,} turns in {self.seconds:.2f} s{rate}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<DuelResult {self.a!r} vs {self.b!r} games={self.games} ppg={self.ppg:+.4f}>"


@dataclass
class MatchDuelResult:
    """The matches of a duel between cube players *a* and *b*, seen from *a*: ``winner``
    (0: *a* won the match), ``score`` (matches, 2) the final scores (a's, b's) and
    ``games`` the games each match took; *a* moved first in the first game of the even
    matches. Mirrored: matches 2k and 2k + 1 share their dice with the seats swapped."""

    a: str
    b: str
    seed: int
    mirrored: bool
    match_length: int
    winner: np.ndarray
    score: np.ndarray
    games: np.ndarray
    seconds: float = 0.0
    records: list | None = field(default=None, repr=False)
    max_cube: int = 64
    #: The :class:`fastgen.sim.GameOptions` that played the games.
    options: Any = field(default=None, repr=False, compare=False)

    @property
    def matches(self) -> int:
        return int(self.winner.shape[0])

    def match(self, index: int, names: tuple[str, str] | None = None) -> Match:
        """Match *index* of a duel played with ``records=True``, rebuilt as a
        :class:`fastgen.Match` (every game and action checked by its rules; player 0 is
        *a*), ready for :func:`fastgen.write_mat`. *names*: the players' names in it
        (by default *a* and *b*, a colon made a space, as a ``.mat`` file needs)."""
        if self.records is None:
            raise InvalidArgumentError("this duel kept no records: play it with records=True")
        index = check_int(index, "index", 0, self.matches - 1)
        if names is None:
            names = (self.a.replace(":", " "), self.b.replace(":", " "))
        return Match.from_records(self.match_length, self.records[index], names=names, cube_cap=self.max_cube)

    def _samples(self) -> np.ndarray:
        won = (self.winner == 0).astype(float)
        return won.reshape(-1, 2).mean(axis=1) if self.mirrored else won

    @property
    def mwc(self) -> float:
        """*a*'s share of the matches won, its match-winning chance."""
        return float((self.winner == 0).mean()) if self.matches else 0.0

    @property
    def mwc_se(self) -> float:
        """Standard error of :attr:`mwc` (over the pairs' means when mirrored)."""
        return _standard_error(self._samples())

    @property
    def ci95(self) -> tuple[float, float]:
        """The 95% normal interval of :attr:`mwc`."""
        return _interval(self.mwc, self.mwc_se)

    def to_dict(self) -> dict:
        """A plain JSON-serializable dict of the figures."""
        lo, hi = self.ci95
        return {"a": self.a, "b": self.b, "matches": self.matches, "match_length": self.match_length,
                "mirrored": self.mirrored, "seed": self.seed, "mwc": self.mwc, "mwc_se": self.mwc_se, "ci95": [lo, hi],
                "games": int(self.games.sum()), "average_games": float(self.games.mean()) if self.matches else 0.0,
                "seconds": self.seconds}

    def __str__(self) -> str:
        how = f"{self.matches // 2} mirrored pairs" if self.mirrored else "unmirrored"
        unit = "mirrored pair" if self.mirrored else "match"
        return "\n".join([
            f"{self.a} vs {self.b}: {self.matches} matches to {self.match_length} ({how}), seed {self.seed}",
            f"{self.a} match-winning chance: {self.mwc:.2%} {_spread(self.mwc_se, '.2%', self.mwc, unit)}",
            f"{int(self.games.sum()):,} games in {self.seconds:.2f} s",
        ])


def _resolve(policy: Any, which: str, owned: list[Any]) -> Any:
    """*policy* read by :func:`fastgen.players.specs.policy`; what a string spec started (an
    engine process) joins *owned*, to be closed when the duel ends."""
    if not isinstance(policy, (str, base.Policy, base.Evaluator)) and not callable(policy):
        raise InvalidArgumentError(f"policy {which} must be a spec ({specs.GRAMMAR}), a policy or a callable, "
                                   f"got {policy!r}")
    try:
        found = specs.policy(policy)
    except InvalidSpecError:
        raise
    except InvalidArgumentError as exc:
        raise InvalidArgumentError(f"policy {which}: {exc}") from None
    if isinstance(policy, str):
        owned.append(found)  # what a spec started (an engine's process) is closed with the duel
    return found


def duel(
    a: Policy,
    b: Policy,
    games: int | None = None,
    *,
    seed: int = 0,
    mirrored: bool = True,
    start: ArrayLike | None = None,
    threads: int = 1,
    batch_size: int = 4096,
    progress: Callable[[int], object] | None = None,
    engine: str = "auto",
    workers: int | None = None,
    scheduler: str | None = None,
    client: Any = None,
    chunk_size: int | None = None,
    cube: bool = False,
    max_cube: int = 64,
    matches: int | None = None,
    match_length: int | None = None,
    records: bool = False,
    options: GameOptions | None = None,
    cluster: ClusterOptions | None = None,
) -> DuelResult:
    """Play *games* cubeless money games between policies *a* and *b* to the end.

    Parameters
    ----------
    a, b:
        A policy spec (:mod:`fastgen.players.specs`: ``"random"``, ``"pubeval"``,
        ``"baseline"``, ``"gnubg:1"``, ``"mybot:policy"`` ...) or a batch policy callable
        (see the module docstring): e.g. :func:`fastgen.players.policies.gnubg`, a
        :class:`fastgen.players.engines.GnubgEngine`, :func:`fastgen.players.policies.baseline`, a
        network (a compiled :class:`fastgen.nets.Network` or a
        :class:`fastgen.players.evaluators.ReferenceNetwork`: it plays greedily). An engine a spec starts
        is closed when the duel ends.
    games:
        Number of games (at most MAX_GAMES; 10,000 when not given); even when
        *mirrored* (pairs).
    seed:
        Non-negative int; the same seed gives the same games whatever *threads* or
        *batch_size*.
    mirrored:
        Play every dice sequence twice with the seats swapped (duplicate backgammon); the
        standard error is then taken over the pairs.
    start:
        None (every game starts with the opening roll, R16) or a board (2, 25) or boards
        (K, 2, 25) with the side on roll (the first to move) in row 1.
    threads:
        Games played in parallel when the core plays both policies whole (the built-in
        ones, compiled networks); otherwise the threads of each :func:`fastgen.plays_batch`
        call and of the policies' networks. The results are the same for any number.
    batch_size:
        Games played side by side in the batched loop.
    progress:
        Optional callable receiving the number of games just finished.
    engine:
        ``"auto"`` (the core for two built-in policies), ``"native"`` or ``"python"`` (the
        batched loop even for built-in policies: the same games).
    workers, scheduler, client, chunk_size:
        Play the games on a Dask cluster, in chunks of *chunk_size* games: see
        :ref:`cluster-arguments`. The result equals the in-process one game for game.
    cube, max_cube:
        Money games with the doubling cube (no Jacoby rule, no beavers), the cube going
        no higher than *max_cube* (a power of two): *a* and *b* are then cube
        players (:func:`fastgen.players.policies.cube_policy` of an evaluator,
        :class:`fastgen.players.policies.CubePolicy`), or evaluators or evaluator specs
        (``"baseline"``, ``"gnubg:0"``), which play as their ``cube_policy``. Points
        count the cube (:class:`DuelResult`).
    matches, match_length:
        Deprecated: use :func:`duel_matches`, which these call (with a
        DeprecationWarning) and whose :class:`MatchDuelResult` they return.
    records:
        With the cube, from the opening position: keep every game's actions, so that
        ``result.game(i)`` (money) or ``result.match(i)`` (matches) rebuilds it as a
        :class:`fastgen.Game` or :class:`fastgen.Match` checked by its rules, and a match
        can be written as a ``.mat`` file (:func:`fastgen.write_mat`).
    options, cluster:
        *seed*, *batch_size*, *threads* and *engine* as one
        :class:`fastgen.sim.GameOptions`, and *workers*, *scheduler*, *client* and
        *chunk_size* as one :class:`fastgen.sim.ClusterOptions`, instead of the keywords
        (not both).

    Returns
    -------
    DuelResult
        Points per game of *a*, with its standard error and 95% interval; the options
        that played the games as ``result.options``.

    Raises
    ------
    KeyboardInterrupt
        On Ctrl-C, promptly.
    """
    if not isinstance(cube, (bool, np.bool_)):
        raise InvalidArgumentError(f"cube must be True or False, got {cube!r}")
    if matches is not None or match_length is not None:
        warnings.warn("duel(matches=N, match_length=L) is deprecated and will be removed in fastgen 0.3: "
                      "use fastgen.duel_matches(a, b, N, L)", DeprecationWarning, stacklevel=2)
        if games is not None:
            raise InvalidArgumentError(f"give games or matches, not both: games={games!r}, matches={matches!r}")
        if matches is None or match_length is None:
            raise InvalidArgumentError(f"matches and match_length go together, got matches={matches!r}, "
                                       f"match_length={match_length!r}")
        return duel_matches(a, b, matches, match_length, seed=seed, mirrored=mirrored, start=start,  # type: ignore
                            threads=threads, progress=progress, max_cube=max_cube, records=records,
                            workers=workers, scheduler=scheduler, client=client, chunk_size=chunk_size,
                            options=options, cluster=cluster)
    options = merge_options(GameOptions, options, seed=seed, batch_size=batch_size, threads=threads, engine=engine)
    cluster = merge_options(ClusterOptions, cluster, "cluster", workers=workers, scheduler=scheduler, client=client,
                            chunk_size=chunk_size)
    if cluster.out is not None:
        raise InvalidArgumentError(f"a duel keeps no chunks: cluster.out must be None, got {cluster.out!r}")
    games = 10000 if games is None else games
    if cube:
        return _cube_duel(a, b, games, mirrored=mirrored, start=start, progress=progress, max_cube=max_cube,
                          records=records, options=options, cluster=cluster)
    if records:
        raise InvalidArgumentError("records are kept for duels with the cube (cube=True, or duel_matches)")
    names = (_name(a), _name(b))
    games = check_int(games, "games", 1, MAX_GAMES)
    owned: list[Any] = []  # engines the specs started: closed when the duel ends
    try:
        a = _resolve(a, "a", owned)
        b = _resolve(b, "b", owned)
        if not isinstance(mirrored, (bool, np.bool_)):
            raise InvalidArgumentError(f"mirrored must be True or False, got {mirrored!r}")
        mirrored = bool(mirrored)
        if mirrored and games % 2:
            raise InvalidArgumentError(f"a mirrored duel plays pairs of games: games must be even, got {games!r}")
        if progress is not None and not callable(progress):
            raise InvalidArgumentError(f"progress must be None or a callable, got {progress!r}")
        if engine == "native" and (native_player(a) is None or native_player(b) is None):
            raise InvalidArgumentError(
                "the native engine duels 'random', 'pubeval', compiled networks (fastgen.nets.Network) and gnubg's nets "
                f"only, got {a!r} and {b!r}"
            )
        if start is None:
            start_boards, from_opening = np.ascontiguousarray(STARTING_BOARD[None]), True
        else:
            start_boards, _ = check_start(start, games)
            start_boards, from_opening = np.ascontiguousarray(start_boards, dtype=np.int8), False
        t0 = time.perf_counter()
        if cluster.on_cluster:
            out = duel_chunked(a, b, games, start_boards, from_opening, mirrored, options, cluster, progress)
        else:
            out = play_duel_games(a, b, games, 0, start_boards, from_opening, mirrored, options, progress)
        seconds = time.perf_counter() - t0
        winner, result, turns, timings = out
        timings = dict(timings, total=seconds)
        return DuelResult(names[0], names[1], options.seed, mirrored, winner, result, turns, seconds, timings,
                          options=options)
    finally:
        for started in owned:
            started.close()


def _cube_player(player: Any, which: str, threads: int = 1) -> Any:
    try:
        return specs.cube_player(player, threads)
    except (InvalidArgumentError, InvalidSpecError) as exc:
        raise InvalidArgumentError(f"{which}: a duel with the cube needs a cube player (fastgen.players.policies.cube_policy "
                                   f"of an evaluator), an evaluator or an evaluator spec: {exc}") from None


def duel_matches(
    a: Policy,
    b: Policy,
    matches: int,
    match_length: int,
    *,
    seed: int = 0,
    mirrored: bool = True,
    start: ArrayLike | None = None,
    threads: int = 1,
    progress: Callable[[int], object] | None = None,
    max_cube: int = 64,
    records: bool = False,
    workers: int | None = None,
    scheduler: str | None = None,
    client: Any = None,
    chunk_size: int | None = None,
    options: GameOptions | None = None,
    cluster: ClusterOptions | None = None,
) -> MatchDuelResult:
    """Play *matches* matches to *match_length* points (1 to 64) between cube players
    *a* and *b*, with the cube and the Crawford rule.

    *a* and *b* are cube players (:func:`fastgen.players.policies.cube_policy` of an
    evaluator, :class:`fastgen.players.policies.CubePolicy`), or evaluators or evaluator
    specs (``"baseline"``, ``"gnubg:0"``), which play as their ``cube_policy``. Mirrored
    (the default), matches 2k and 2k + 1 share their dice with the seats swapped, so
    *matches* must be even. *seed*, *start*, *threads*, *progress*, *max_cube*,
    *records* and the cluster arguments are :func:`duel`'s; *options* and *cluster*
    take them as objects (:class:`fastgen.sim.GameOptions`,
    :class:`fastgen.sim.ClusterOptions`) instead of keywords. The same seed gives the
    same matches whatever *threads*.

    Returns a :class:`MatchDuelResult`: each match's winner, final score and games, *a*'s
    match-winning chance with its standard error, and ``result.options``.

    >>> r = duel_matches("baseline", "baseline", 2, 1, seed=3)
    >>> r.matches, r.match_length, sorted(r.score.max(axis=1).tolist())
    (2, 1, [1, 1])
    """
    options = merge_options(GameOptions, options, seed=seed, threads=threads)
    cluster = merge_options(ClusterOptions, cluster, "cluster", workers=workers, scheduler=scheduler, client=client,
                            chunk_size=chunk_size)
    if cluster.out is not None:
        raise InvalidArgumentError(f"a duel keeps no chunks: cluster.out must be None, got {cluster.out!r}")
    return _cube_duel(a, b, matches, mirrored=mirrored, start=start, progress=progress, max_cube=max_cube,
                      records=records, options=options, cluster=cluster, match_length=match_length)


def _cube_duel(a: Any, b: Any, games: int, *, mirrored: Any, start: Any, progress: Any, max_cube: int, records: Any,
               options: GameOptions, cluster: ClusterOptions, match_length: int | None = None) -> Any:
    seed, threads = options.seed, options.threads
    games = check_int(games, "games" if match_length is None else "matches", 1, MAX_GAMES)
    max_cube = check_int(max_cube, "max_cube", 2, 1 << 20)
    if max_cube & (max_cube - 1):
        raise InvalidArgumentError(f"max_cube must be a power of two (the cube doubles), got {max_cube!r}")
    if not isinstance(records, (bool, np.bool_)):
        raise InvalidArgumentError(f"records must be True or False, got {records!r}")
    if records and start is not None:
        raise InvalidArgumentError("records are kept for games from the opening position: start must be None")
    if progress is not None and not callable(progress):
        raise InvalidArgumentError(f"progress must be None or a callable, got {progress!r}")
    if match_length is not None:
        check_int(match_length, "match_length", 1, 64)
    check_int(seed, "seed", 0, 2**63 - 1)
    if not isinstance(mirrored, (bool, np.bool_)):
        raise InvalidArgumentError(f"mirrored must be True or False, got {mirrored!r}")
    if mirrored and games % 2:
        raise InvalidArgumentError(f"a mirrored duel plays pairs: the number of games or matches must be even, "
                                   f"got {games!r}")
    pa, pb = _cube_player(a, "a", threads), _cube_player(b, "b", threads)
    if start is None:
        start_boards, from_opening = np.ascontiguousarray(STARTING_BOARD[None]), True
    else:
        start_boards, _ = check_start(start, games)
        start_boards, from_opening = np.ascontiguousarray(start_boards, dtype=np.int8), False
    t0 = time.perf_counter()
    timings: dict = {}
    if cluster.on_cluster:
        arrays, kept, timings = cube_duel_chunked(
            pa, pb, games, seed=seed, start=start_boards, from_opening=from_opening, mirrored=bool(mirrored),
            max_cube=max_cube, match_length=match_length, log=bool(records), cluster=cluster, progress=progress)
    elif match_length is not None:
        *arrays, kept = play_matches(pa, pb, games, match_length, seed, start_boards, from_opening, bool(mirrored),
                                     max_cube, threads, progress, 0, bool(records))
    else:
        *arrays, kept = play_cube_games(pa, pb, games, seed, start_boards, from_opening, bool(mirrored), max_cube,
                                        threads, progress, 0, bool(records))
    seconds = time.perf_counter() - t0
    if match_length is not None:
        winner, score, played = arrays
        return MatchDuelResult(_name(pa), _name(pb), seed, bool(mirrored), match_length, winner, score, played,
                               seconds, kept, max_cube, options)
    winner, result, cube, turns = arrays
    return DuelResult(_name(pa), _name(pb), seed, bool(mirrored), winner, result, turns, seconds,
                      dict(timings, total=seconds), cube, kept, max_cube, options)
