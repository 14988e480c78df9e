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
based hash of :mod:`fastgen.sim.pool`), so the same seed gives the same games whatever
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
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from fastgen.core import _core
from fastgen.core.boards import STARTING_BOARD
from fastgen.core.generate import plays_batch
from fastgen.errors import InvalidArgumentError
from fastgen.sim import pubeval as _pubeval  # noqa: F401  (loads pubeval's weights into the core)
from fastgen.sim.pool import (
    _OPENING_DICE,
    _WATCH_GAMES,
    MAX_TURNS,
    _as_picks,
    _raise_bad_pick,
    _raise_turn_limit,
    _roll_dice,
    check_start,
    resolve_policy,
)
from fastgen._typing import ArrayLike
from fastgen._util import check_int, run_game_ranges

__all__ = ["duel", "DuelResult", "Policy"]

#: A policy: "random", "pubeval" or a batch callable (see the module docstring).
Policy = Any

_BUILTIN = {"random": 0, "pubeval": 1}
_Z95 = 1.959963984540054


def _name(policy) -> str:
    if isinstance(policy, str):
        return policy
    return str(getattr(policy, "name", None) or getattr(policy, "__name__", None) or type(policy).__name__)


@dataclass
class DuelResult:
    """The games of a duel between policies *a* and *b*, seen from *a*.

    ``winner`` (0: *a* won, 1: *b* won), ``result`` (1 single, 2 gammon, 3 backgammon) and
    ``turns`` are arrays over the games; *a* moved first in the even games. Points are
    cubeless: a game is worth its result, positive when *a* won.
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

    @property
    def games(self) -> int:
        return int(self.winner.shape[0])

    @property
    def pairs(self) -> int:
        """Mirrored pairs (0 when not mirrored)."""
        return self.games // 2 if self.mirrored else 0

    @property
    def points(self) -> np.ndarray:
        """(games,) float: *a*'s points in each game."""
        return np.where(self.winner == 0, self.result, -self.result.astype(np.int16)).astype(float)

    def _samples(self) -> np.ndarray:
        """The independent samples: pair means when mirrored, else the games."""
        pts = self.points
        return pts.reshape(-1, 2).mean(axis=1) if self.mirrored else pts

    @property
    def ppg(self) -> float:
        """*a*'s mean points per game (negative: *b* is ahead)."""
        return float(self.points.mean()) if self.games else 0.0

    @property
    def ppg_se(self) -> float:
        """Standard error of :attr:`ppg` (over the pairs' means when mirrored)."""
        s = self._samples()
        return float(s.std(ddof=1) / math.sqrt(s.size)) if s.size > 1 else float("inf")

    @property
    def ci95(self) -> tuple[float, float]:
        """The 95% normal interval of :attr:`ppg`."""
        half = _Z95 * self.ppg_se
        return (self.ppg - half, self.ppg + half)

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
        }

    def __str__(self) -> str:
        lo, hi = self.ci95
        how = f"{self.pairs} mirrored pairs" if self.mirrored else "unmirrored"
        lines = [
            f"{self.a} vs {self.b}: {self.games} cubeless games ({how}), seed {self.seed}",
            f"{self.a} points/game: {self.ppg:+.4f} +/- {self.ppg_se:.4f} (95%: [{lo:+.4f}, {hi:+.4f}])",
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


def _check_policy(policy, which: str) -> None:
    if isinstance(policy, str):
        if policy not in _BUILTIN:
            raise InvalidArgumentError(f"policy {which} must be 'random', 'pubeval' or a callable, got {policy!r}")
    elif not callable(policy):
        raise InvalidArgumentError(f"policy {which} must be 'random', 'pubeval' or a callable, got {policy!r}")


def _duel_native(games, pol_a, pol_b, seed, start, from_opening, mirrored, threads, chunk, progress):
    stop = _core.StopFlag() if games >= _WATCH_GAMES else None
    winner = np.zeros(games, dtype=np.int8)
    result = np.zeros(games, dtype=np.int8)
    turns = np.zeros(games, dtype=np.int32)

    def play_range(lo, hi):
        return _core.duel_range(
            start, from_opening, seed, _OPENING_DICE, lo, hi, _BUILTIN[pol_a], _BUILTIN[pol_b], mirrored,
            winner[lo:hi], result[lo:hi], turns[lo:hi], stop, MAX_TURNS,
        )

    long_games = run_game_ranges(games, threads, chunk, play_range, progress, stop)
    if long_games:
        g = min(long_games)
        _raise_turn_limit(g, start[(g // 2 if mirrored else g) % start.shape[0]], MAX_TURNS)
    return winner, result, turns, {}


def _dice_ids(gid: np.ndarray, mirrored: bool) -> np.ndarray:
    return gid // 2 if mirrored else gid


def _duel_python(games, a, b, seed, start, from_opening, mirrored, batch_size, threads, progress):
    """The batched loop: each turn, one plays_batch call and one policy call for the games
    where *a* moves, the same for *b*, then one pool_turn call for all of them."""
    choose_a, _ = resolve_policy(a, seed)
    choose_b, _ = resolve_policy(b, seed)
    # pool_turn starts game g at starts[g % len(starts)]: mirrored, rows repeated twice so
    # that both games of pair g // 2 start at start[(g // 2) % K].
    starts = np.ascontiguousarray(np.repeat(start, 2, axis=0) if mirrored else start)
    winner = np.zeros(games, dtype=np.int8)
    result = np.zeros(games, dtype=np.int8)
    turns = np.zeros(games, dtype=np.int32)
    k = min(batch_size, games)
    gid = np.arange(k, dtype=np.int64)
    next_game = k
    boards = np.ascontiguousarray(starts[gid % starts.shape[0]])
    turn = np.zeros(k, dtype=np.int64)
    dice = _roll_dice(seed, _dice_ids(gid, mirrored), turn, np.full(k, from_opening))
    info = np.zeros(4, dtype=np.int64)
    t_gen = t_policy = 0.0
    while k:
        a_moves = (turn[:k] % 2 == 0) == (gid[:k] % 2 == 0)
        order = np.argsort(~a_moves, kind="stable")  # a's games first, then b's
        for arr in (boards, gid, turn, dice):
            arr[:k] = arr[:k][order]
        na = int(a_moves.sum())
        srcs, offs, picks = [], [np.zeros(1, dtype=np.int64)], []
        for lo, hi, choose in ((0, na, choose_a), (na, k, choose_b)):
            if hi == lo:
                continue
            t1 = time.perf_counter()
            batch = plays_batch(boards[lo:hi], dice[lo:hi], threads=threads)
            t2 = time.perf_counter()
            picked = choose(batch.boards, batch.offsets, gid[lo:hi], turn[lo:hi], boards[lo:hi], dice[lo:hi])
            t_policy += time.perf_counter() - t2
            t_gen += t2 - t1
            pick = _as_picks(picked, hi - lo, choose.__name__)
            counts = np.diff(batch.offsets)
            bad = np.flatnonzero((pick < 0) | (pick >= counts))
            if bad.size:
                _raise_bad_pick(picked, batch.offsets, int(bad[0]), choose.__name__)
            srcs.append(batch.boards)
            offs.append(np.asarray(batch.offsets[1:], dtype=np.int64) + offs[-1][-1])
            picks.append(pick)
        src = np.ascontiguousarray(np.concatenate(srcs) if len(srcs) > 1 else srcs[0])
        offsets = np.concatenate(offs)
        k = _core.pool_turn(
            src, offsets, np.concatenate(picks), boards, gid, turn, dice, winner, result, turns,
            starts, 0, next_game, games, MAX_TURNS, seed, from_opening, _OPENING_DICE, info,
        )
        next_game = int(info[3])
        if mirrored and k:  # pool_turn rolled game g's own dice: a pair shares game g // 2's
            dice[:k] = _roll_dice(seed, gid[:k] // 2, turn[:k], from_opening & (turn[:k] == 0))
        if progress is not None and info[0]:
            progress(int(info[0]))
        if info[2] >= 0:
            g = int(gid[int(info[2])])
            _raise_turn_limit(g, start[_dice_ids(np.int64(g), mirrored) % start.shape[0]], MAX_TURNS)
    # pool_turn records the winning side (0: the side that moved first); a moves first in
    # the even games.
    winner ^= (np.arange(games) % 2).astype(np.int8)
    return winner, result, turns, {"plays_batch": t_gen, "policy": t_policy}


def duel(
    a: Policy,
    b: Policy,
    games: int = 10000,
    *,
    seed: int = 0,
    mirrored: bool = True,
    start: ArrayLike | None = None,
    threads: int = 1,
    batch_size: int = 4096,
    progress: Callable[[int], object] | None = None,
    engine: str = "auto",
) -> DuelResult:
    """Play *games* cubeless money games between policies *a* and *b* to the end.

    Parameters
    ----------
    a, b:
        ``"random"``, ``"pubeval"``, or a batch policy callable (see the module
        docstring): e.g. :func:`fastgen.bots.policies.gnubg`, a
        :class:`fastgen.bots.engines.GnubgEngine`, :func:`fastgen.bots.policies.baseline`.
    games:
        Number of games; even when *mirrored* (pairs).
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
        Two built-in policies: games played in parallel. Otherwise: threads of each
        :func:`fastgen.plays_batch` call.
    batch_size:
        Games played side by side in the batched loop.
    progress:
        Optional callable receiving the number of games just finished.
    engine:
        ``"auto"`` (the core for two built-in policies), ``"native"`` or ``"python"`` (the
        batched loop even for built-in policies: the same games).

    Returns
    -------
    DuelResult

    Ctrl-C stops the duel promptly (KeyboardInterrupt).
    """
    _check_policy(a, "a")
    _check_policy(b, "b")
    seed = check_int(seed, "seed", 0, 2**64 - 1)
    games = check_int(games, "games", 1)
    threads = check_int(threads, "threads", 1)
    batch_size = check_int(batch_size, "batch_size", 1)
    if not isinstance(mirrored, (bool, np.bool_)):
        raise InvalidArgumentError(f"mirrored must be True or False, got {mirrored!r}")
    mirrored = bool(mirrored)
    if mirrored and games % 2:
        raise InvalidArgumentError(f"a mirrored duel plays pairs of games: games must be even, got {games!r}")
    if progress is not None and not callable(progress):
        raise InvalidArgumentError(f"progress must be None or a callable, got {progress!r}")
    if not isinstance(engine, str) or engine not in ("auto", "native", "python"):
        raise InvalidArgumentError(f"engine must be 'auto', 'native' or 'python', got {engine!r}")
    native = isinstance(a, str) and isinstance(b, str)
    if engine == "native" and not native:
        raise InvalidArgumentError(f"the native engine duels 'random' and 'pubeval' only, got {a!r} and {b!r}")
    if start is None:
        start_boards, from_opening = np.ascontiguousarray(STARTING_BOARD[None]), True
    else:
        start_boards, _ = check_start(start, games)
        start_boards, from_opening = np.ascontiguousarray(start_boards, dtype=np.int8), False
    t0 = time.perf_counter()
    if native and engine != "python":
        out = _duel_native(games, a, b, seed, start_boards, from_opening, mirrored, threads, batch_size, progress)
    else:
        out = _duel_python(games, a, b, seed, start_boards, from_opening, mirrored, batch_size, threads, progress)
    seconds = time.perf_counter() - t0
    winner, result, turns, timings = out
    timings = dict(timings, total=seconds)
    return DuelResult(_name(a), _name(b), seed, mirrored, winner, result, turns, seconds, timings)
