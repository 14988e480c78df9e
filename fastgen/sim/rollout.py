"""Bulk cubeless rollouts: many games at once over one ``plays_batch`` call per turn.

Every turn, all unfinished games of the pool generate their plays in ONE
:func:`fastgen.plays_batch` call, a vectorized policy picks one play per game, finished
games report their result, and the rest swap sides. Finished games are replaced by new
ones so the pool stays full.

Reproducibility does not depend on the batch size or on the order games finish in:
each game's dice and random choices come from a counter-based hash (splitmix64) of
``(seed, game index, turn, purpose)``, never from a shared sequential stream. So game
``i`` of ``rollout(seed=S)`` is the same game whatever ``batch_size`` or ``threads``.

>>> r = rollout(games=64, seed=1, batch_size=16)
>>> r2 = rollout(games=64, seed=1, batch_size=64)
>>> bool((r.winner == r2.winner).all() and (r.turns == r2.turns).all())
True
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from fastgen.core.boards import STARTING_BOARD  # R3
from fastgen.errors import DeadPositionError, InvalidArgumentError, InvalidBoardError, TurnLimitError
from fastgen.games.game import OPENING_ROLLS
import os
from typing import Any, Callable
from fastgen._typing import ArrayLike

__all__ = [
    "rollout",
    "RolloutResult",
    "RolloutSummary",
    "summarize",
    "random_policy",
    "pubeval_policy",
    "game_hash",
    "dead_positions",
]

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_U64_GAMMA = np.uint64(_GAMMA)
_S30, _S27, _S31, _S32 = (np.uint64(s) for s in (30, 27, 31, 32))

#: Purposes of the counter-based hash.
PURPOSE_DICE, PURPOSE_OPENING, PURPOSE_CHOICE = 1, 2, 3

_OPENING_DICE = np.array(OPENING_ROLLS, dtype=np.int8)  # (15, 2), larger die first

#: A game reaching this many turns stops the rollout with TurnLimitError (both engines).
#: Random games end within a few hundred turns.
MAX_TURNS = 1_000_000

#: Native rollouts of at least this many games run in worker threads while the calling
#: thread waits for Ctrl-C (fastgen._util.run_threads).
_WATCH_GAMES = 64



def _mix(z: np.ndarray) -> np.ndarray:
    """The splitmix64 finalizer on a uint64 array (wrapping arithmetic)."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


def _mix_int(x: int) -> int:
    """The splitmix64 finalizer on a Python int (for per-call constants)."""
    x &= _MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    return x ^ (x >> 31)


def game_hash(seed: int, games, turns, purpose: int) -> np.ndarray:
    """64-bit hash of ``(seed, game, turn, purpose)`` for arrays of games and turns.

    >>> int(game_hash(1, np.array([0]), np.array([0]), 1)[0]) == int(game_hash(1, np.array([0]), np.array([0]), 1)[0])
    True
    """
    key = np.uint64(_mix_int(_mix_int(seed * _GAMMA + purpose) + _GAMMA))
    g = np.asarray(games).astype(np.uint64)
    t = np.asarray(turns).astype(np.uint64)
    z = _mix(key + g * _U64_GAMMA)
    return _mix(z + (t + np.uint64(1)) * _U64_GAMMA)


def _uniform_index(h: np.ndarray, n) -> np.ndarray:
    """Map 64-bit hashes to 0..n-1 (n < 2**32) from the high 32 bits, nearly unbiased."""
    return ((h >> _S32) * np.asarray(n, dtype=np.uint64)) >> _S32


def _roll_dice(seed: int, gid: np.ndarray, turn: np.ndarray, opening: np.ndarray) -> np.ndarray:
    """(A, 2) int8 dice: a uniform roll of 36, or an opening roll (R16) where *opening*
    (each side rolls one die, ties re-rolled, the higher starts with both: the first play
    is uniform over the 15 non-double rolls). The hash is game_hash's, computed in the
    core (the same numbers as ``_uniform_index(game_hash(...), 36)``)."""
    from fastgen.core import _core

    dice = np.empty((gid.shape[0], 2), dtype=np.int8)
    _core.roll_dice(
        seed,
        np.ascontiguousarray(gid, dtype=np.int64),
        np.ascontiguousarray(turn, dtype=np.int64),
        np.ascontiguousarray(opening, dtype=np.uint8),
        _OPENING_DICE,
        dice,
    )
    return dice


# --------------------------------------------------------------------------- policies


def random_policy(seed: int):
    """Uniform choice over the distinct plays of each game, from the counter-based hash."""

    def choose(candidates, offsets, gid, turn, boards, dice):
        counts = np.diff(offsets)
        h = game_hash(seed, gid, turn, PURPOSE_CHOICE)
        return _uniform_index(h, counts).astype(np.int64)

    choose.__name__ = "random"
    return choose


def pubeval_policy(seed: int = 0):
    """Tesauro's pubeval, as GNU Backgammon's pubeval player chooses (see
    fastgen.sim.pubeval.pubeval_best): the highest score, race weights when the position
    before the move is a race, ties to the play GNU Backgammon's generator lists first."""
    from fastgen.core import _core

    def choose(candidates, offsets, gid, turn, boards, dice):
        pick = np.empty(boards.shape[0], dtype=np.int64)
        _core.pubeval_pick(boards, dice, candidates, offsets, pick)
        return pick

    choose.__name__ = "pubeval"
    return choose


def _user_policy(fn):
    """A user callable as the loop's policy: ``fn(candidates, offsets)``, or, when it has
    a true attribute ``wants_position`` (engines such as fastgen.bots.engines.GnubgEngine
    that need the position and the roll), ``fn(candidates, offsets, boards, dice)`` with
    the (G, 2, 25) positions before the play (side on roll in row 1) and the (G, 2) dice."""
    name = getattr(fn, "__name__", type(fn).__name__)

    if getattr(fn, "wants_position", False):

        def choose(candidates, offsets, gid, turn, boards, dice):
            return fn(candidates, offsets, boards, dice)

    else:

        def choose(candidates, offsets, gid, turn, boards, dice):
            return fn(candidates, offsets)

    choose.__name__ = name
    return choose


def _as_picks(picked, g: int, name: str) -> np.ndarray:
    """A policy's answer as (g,) int64 (the range of each index is checked in the core)."""
    if type(picked) is np.ndarray and picked.dtype == np.int64 and picked.shape == (g,):
        return np.ascontiguousarray(picked)
    try:
        idx = np.asarray(picked)
    except (TypeError, ValueError):
        idx = None
    if idx is None or idx.shape != (g,) or idx.dtype.kind not in "iu":
        raise InvalidArgumentError(f"policy {name!r} must return {g} integer indices, got {picked!r}")
    picks = np.ascontiguousarray(idx, dtype=np.int64)
    if idx.dtype.kind == "u":  # values past int64 wrap to negatives: make them -1
        picks[idx > np.iinfo(np.int64).max] = -1  # out of range anyway: the core names the game
    return picks


def _raise_bad_pick(picked, offsets: np.ndarray, i: int, name: str):
    counts = np.diff(offsets)
    raise InvalidArgumentError(
        f"policy {name!r} returned index {int(np.asarray(picked)[i])} for game {i} which has {int(counts[i])} plays"
    )


def _resolve_policy(policy, seed):
    if callable(policy):
        return _user_policy(policy), getattr(policy, "__name__", "custom")
    if isinstance(policy, str) and policy == "random":
        return random_policy(seed), "random"
    if isinstance(policy, str) and policy == "pubeval":
        return pubeval_policy(seed), "pubeval"
    raise InvalidArgumentError(f"policy must be 'random', 'pubeval' or a callable, got {policy!r}")


# --------------------------------------------------------------------------- results


def _wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score 95% interval of a binomial proportion k/n."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class RolloutSummary:
    """Rates per side (0 = the side that moved first) with Wilson 95% intervals."""

    games: int
    win: tuple[float, float]
    gammon: tuple[float, float]
    backgammon: tuple[float, float]
    intervals: dict
    points_per_game: float
    points_per_game_interval: tuple[float, float]
    average_turns: float
    seconds: float
    games_per_second: float
    turns_per_second: float
    policy: str
    seed: int

    def as_dict(self) -> dict:
        """Plain JSON-serializable dict."""
        return {
            "games": self.games,
            "policy": self.policy,
            "seed": self.seed,
            "win": list(self.win),
            "gammon": list(self.gammon),
            "backgammon": list(self.backgammon),
            "intervals": {k: [list(v[0]), list(v[1])] for k, v in self.intervals.items()},
            "points_per_game": self.points_per_game,
            "points_per_game_interval": list(self.points_per_game_interval),
            "average_turns": self.average_turns,
            "seconds": self.seconds,
            "games_per_second": self.games_per_second,
            "turns_per_second": self.turns_per_second,
        }

    def __str__(self) -> str:
        lines = [f"{self.games} games, policy {self.policy}, seed {self.seed}"]
        lines.append(f"{'':<12}{'side 0 (first)':>26}{'side 1':>26}")
        for key in ("win", "gammon", "backgammon"):
            cells = []
            for side in (0, 1):
                rate = getattr(self, key)[side]
                lo, hi = self.intervals[key][side]
                cells.append(f"{100 * rate:6.2f}% [{100 * lo:5.2f}, {100 * hi:5.2f}]")
            lines.append(f"{key:<12}{cells[0]:>26}{cells[1]:>26}")
        lo, hi = self.points_per_game_interval
        lines.append(f"points/game (side 0): {self.points_per_game:+.4f} [{lo:+.4f}, {hi:+.4f}]")
        lines.append(f"average turns: {self.average_turns:.2f}")
        lines.append(
            f"time: {self.seconds:.3f} s, {self.games_per_second:,.0f} games/s, "
            f"{self.turns_per_second:,.0f} turns/s"
        )
        return "\n".join(lines)


@dataclass
class RolloutResult:
    """Per-game outcome arrays of a rollout.

    ``winner`` (0 = the side that moved first), ``result`` (1 single, 2 gammon,
    3 backgammon), ``turns`` (plays made, lost turns included) and ``points``
    (cubeless: equal to ``result``), each of shape (games,).

    ``timings`` (the batched loop of a callable policy, or ``engine="python"``): seconds in
    ``plays_batch``, in the ``policy`` call itself, and ``other`` (checking the policy's
    answer, turning the chosen positions over, recording finished games and refilling
    their slots, rolling the dice: one compiled call per turn).
    """

    winner: np.ndarray
    result: np.ndarray
    turns: np.ndarray
    points: np.ndarray
    seed: int
    policy: str
    seconds: float = 0.0
    timings: dict = field(default_factory=dict)

    @classmethod
    def cubeless(cls, winner, result, turns, seed, policy, seconds, timings) -> "RolloutResult":
        """A result of cubeless games: each game scores its result type (R17, cube 1)."""
        return cls(winner, result, turns, result.astype(np.int16), seed, policy, seconds, timings)

    @property
    def games(self) -> int:
        return int(self.winner.shape[0])

    @property
    def total_turns(self) -> int:
        return int(self.turns.sum())

    def summary(self) -> RolloutSummary:
        """Win / gammon / backgammon rates per side with 95% intervals."""
        return summarize(self)

    def __repr__(self) -> str:
        return f"<RolloutResult games={self.games} policy={self.policy!r} seed={self.seed} turns={self.total_turns}>"


def summarize(result: RolloutResult) -> RolloutSummary:
    """Summary statistics of a :class:`RolloutResult`."""
    if not isinstance(result, RolloutResult):
        raise InvalidArgumentError(f"summarize needs a RolloutResult (from rollout()), got {result!r}")
    n = result.games
    rates = {}
    intervals = {}
    for key, mask in (
        ("win", np.ones(n, dtype=bool)),
        ("gammon", result.result >= 2),
        ("backgammon", result.result == 3),
    ):
        counts = [int(((result.winner == side) & mask).sum()) for side in (0, 1)]
        rates[key] = tuple(c / n if n else 0.0 for c in counts)
        intervals[key] = tuple(_wilson(c, n) for c in counts)
    signed = np.where(result.winner == 0, result.points, -result.points).astype(float)
    ppg = float(signed.mean()) if n else 0.0
    half = 1.96 * float(signed.std(ddof=1)) / math.sqrt(n) if n > 1 else float("inf")
    seconds = result.seconds
    return RolloutSummary(
        games=n,
        win=rates["win"],
        gammon=rates["gammon"],
        backgammon=rates["backgammon"],
        intervals=intervals,
        points_per_game=ppg,
        points_per_game_interval=(ppg - half, ppg + half),
        average_turns=float(result.turns.mean()) if n else 0.0,
        seconds=seconds,
        games_per_second=n / seconds if seconds > 0 else float("inf"),
        turns_per_second=result.total_turns / seconds if seconds > 0 else float("inf"),
        policy=result.policy,
        seed=result.seed,
    )


# --------------------------------------------------------------------------- the loop


def _rollout_native(
    games, seed, start_boards, from_opening, threads, chunk, progress, first=0, policy="random"
) -> RolloutResult:
    """Games first..first+games-1 played inside the core ("random" or "pubeval" policy),
    *chunk* games per call, in threads."""
    from fastgen.core import _core
    from fastgen._util import check_int, run_game_ranges

    threads = check_int(threads, "threads", 1)
    stop = _core.StopFlag() if games >= _WATCH_GAMES else None
    winner = np.zeros(games, dtype=np.int8)
    result = np.zeros(games, dtype=np.int8)
    turns = np.zeros(games, dtype=np.int32)
    start = np.ascontiguousarray(start_boards, dtype=np.int8)

    def play_range(lo, hi):  # lo, hi relative to first
        return _core.rollout_random_range(
            start, from_opening, seed, _OPENING_DICE, first + lo, first + hi,
            winner[lo:hi], result[lo:hi], turns[lo:hi], stop, policy == "pubeval", MAX_TURNS,
        )

    t0 = time.perf_counter()
    long_games = run_game_ranges(games, threads, chunk, play_range, progress, stop)
    seconds = time.perf_counter() - t0
    if long_games:
        g = min(long_games)
        _raise_turn_limit(g, start[g % start.shape[0]], MAX_TURNS)
    return RolloutResult.cubeless(winner, result, turns, seed, policy, seconds, {"native": seconds})


def _mobile(own: np.ndarray, opp: np.ndarray) -> np.ndarray:
    """(K,) bool: the side with rows *own* (K, 25) can move a checker with some die, facing
    *opp* (K, 25) (its own numbering). Exact by R6, R8 and R9: with a checker on the bar
    only an entry can move (die d enters on my index 24 - d unless blocked); otherwise a
    side with every checker home can always bear off with a 6, and one with a checker
    outside moves when some die lands it on an open point."""
    blocked = opp[:, 23::-1] >= 2  # my index i is blocked when the opponent has 2+ on 23 - i
    occupied = own[:, :24] > 0
    on_bar = own[:, 24] > 0
    can_enter = ~blocked[:, 18:24].all(axis=1)
    all_home = ~occupied[:, 6:24].any(axis=1)
    step = np.zeros(own.shape[0], dtype=bool)
    for d in range(1, 7):
        step |= (occupied[:, d:24] & ~blocked[:, : 24 - d]).any(axis=1)
    return np.where(on_bar, can_enter, all_home | step)


def dead_positions(boards) -> np.ndarray:
    """Indices of the boards (K, 2, 25) from which no game can end: neither side can move
    a checker with any roll, so every turn is lost and the position never changes (e.g.
    both sides on the bar facing closed boards). Exact for that: a position where some
    checker can move is never reported. Boards must be valid (fastgen.core.boards.as_boards).

    >>> b = np.zeros((2, 25), dtype=np.int8); b[:, :6] = 2; b[:, 24] = 3
    >>> dead_positions(b[None]).tolist(), dead_positions(STARTING_BOARD[None]).tolist()
    ([0], [])
    """
    arr = np.asarray(boards)
    dead = ~_mobile(arr[:, 1], arr[:, 0]) & ~_mobile(arr[:, 0], arr[:, 1])
    return np.flatnonzero(dead)


def _raise_turn_limit(game: int, board: np.ndarray, limit: int):
    from fastgen.formats.ids import position_id

    raise TurnLimitError(
        f"game {game} (start position ID {position_id(board)!r}) reached {limit:,} turns without "
        "ending; the rollout was stopped"
    )


def _start_boards(start, games):
    """Validated start boards (K, 2, 25) and the number of games."""
    from fastgen.core.boards import as_boards

    arr = np.asarray(start)
    if arr.ndim == 2:
        arr = arr[None]
    boards = as_boards(arr)
    if boards.shape[0] == 0:
        raise InvalidBoardError("start must hold at least one board")
    finished = np.flatnonzero((boards.sum(axis=2) == 0).any(axis=1))
    if finished.size:
        i = int(finished[0])
        raise InvalidBoardError(f"start board {i} is a finished game (a side has no checkers left): {boards[i]!r}")
    dead = dead_positions(boards)
    if dead.size:
        from fastgen.formats.ids import position_id

        i = int(dead[0])
        raise DeadPositionError(
            f"start board {i} (position ID {position_id(boards[i])!r}) can never end: neither side "
            "can move a checker with any roll (e.g. both on the bar facing closed boards), so "
            "every turn is lost forever"
        )
    if games is None:
        games = boards.shape[0]
    return boards, games


#: The seed of :func:`rollout` (and of ``fastgen rollout``) when none is given.
DEFAULT_SEED = 0


def rollout(
    games: int | None = 10000,
    policy: str | Callable[..., Any] = "random",
    seed: int = DEFAULT_SEED,
    start: ArrayLike | None = None,
    batch_size: int = 4096,
    threads: int = 1,
    progress: Callable[[int], object] | None = None,
    engine: str = "auto",
    *,
    first_game: int = 0,
    workers: int | None = None,
    scheduler: str | None = None,
    client: Any = None,
    chunk_size: int | None = None,
    out: str | os.PathLike[str] | None = None,
) -> RolloutResult:
    """Play *games* cubeless games to the end and return their outcomes.

    Parameters
    ----------
    games:
        Number of games. With *start* and ``games=None``: one game per start board.
    policy:
        ``"random"`` (uniform over the distinct plays), ``"pubeval"`` (Tesauro's
        evaluation) or a callable ``f(candidate_boards (M, 2, 25), offsets (G+1,)) ->
        (G,) indices`` relative to each game's range, called once per turn for all games
        (``f(candidates, offsets, boards, dice)`` when it has ``wants_position = True``:
        the positions before the play and their dice too).
    seed:
        Non-negative int; the same seed gives the same games whatever *batch_size*.
    start:
        None: every game starts with the opening roll (R16). Else a board (2, 25) or
        boards (K, 2, 25) with the side on roll in row 1; game i starts at
        ``start[i % K]`` with an ordinary roll (doubles allowed).
    batch_size:
        Number of games played side by side (the pool size of each ``plays_batch`` call).
    threads:
        Passed to :func:`fastgen.plays_batch`.
    progress:
        Optional callable receiving the number of games finished at each turn.
    engine:
        ``"native"`` plays whole games inside the compiled core (the ``"random"`` and
        ``"pubeval"`` policies: no candidate arrays are built, each thread plays a range
        of games), ``"python"``
        runs the batched loop above, ``"auto"`` (default) picks native when it can.
        Both give identical games for the same seed.
    first_game:
        Index of the first game: the call plays games ``first_game .. first_game +
        games - 1`` of the run with this seed (a slice of a larger rollout).
    workers, scheduler, client, chunk_size, out:
        Spread the games over a Dask cluster (the ``dask`` extra): *workers* starts a local
        cluster of that many single-threaded processes, *scheduler* (``"tcp://host:8786"``)
        or *client* (a ``distributed.Client``) uses an existing one. Games go out in chunks
        of *chunk_size* and come back as arrays; the result equals the in-process one game
        for game. *out*, a directory, keeps finished chunks as they arrive and resumes an
        interrupted run with the same arguments. See :mod:`fastgen.sim.rollout_chunks`.

    Ctrl-C stops either engine within a turn (KeyboardInterrupt). A start position
    where no game can end raises :class:`fastgen.errors.DeadPositionError` before any
    game is played (see :func:`dead_positions`); a game reaching MAX_TURNS raises
    :class:`fastgen.errors.TurnLimitError`.
    """
    import fastgen
    from fastgen.core import _core
    from fastgen._util import check_int

    seed = check_int(seed, "seed", 0, 2**64 - 1)
    if workers is not None or scheduler is not None or client is not None or out is not None:
        from fastgen.sim.rollout_chunks import rollout_chunked

        return rollout_chunked(
            games=games, policy=policy, seed=seed, start=start, batch_size=batch_size, threads=threads,
            progress=progress, engine=engine, first_game=first_game, workers=workers, scheduler=scheduler,
            client=client, chunk_size=chunk_size, out=out,
        )
    first_game = check_int(first_game, "first_game", 0)
    check_int(batch_size, "batch_size", 1)
    if start is None:
        start_boards = STARTING_BOARD[None]
        from_opening = True
    else:
        start_boards, games = _start_boards(start, games)
        from_opening = False
    games = check_int(games, "games", 0)
    if progress is not None and not callable(progress):
        raise InvalidArgumentError(f"progress must be None or a callable, got {progress!r}")
    if not isinstance(engine, str) or engine not in ("auto", "native", "python"):
        raise InvalidArgumentError(f"engine must be 'auto', 'native' or 'python', got {engine!r}")
    native = isinstance(policy, str) and policy in ("random", "pubeval")
    if engine == "native" and not native:
        raise InvalidArgumentError(
            f"the native engine plays the 'random' and 'pubeval' policies only, got policy {policy!r}"
        )
    if engine != "python" and native:
        return _rollout_native(
            games, seed, start_boards, from_opening, threads, batch_size, progress, first_game, policy
        )
    choose, name = _resolve_policy(policy, seed)
    n_start = start_boards.shape[0]

    winner = np.zeros(games, dtype=np.int8)
    result = np.zeros(games, dtype=np.int8)
    turns = np.zeros(games, dtype=np.int32)

    # The pool: game gid[j] at turn turn[j], its position boards[j] (side on roll in row 1).
    # A finished game's slot takes the next new game in place; once none is left, finished
    # games leave the pool. Each game's dice and choices depend on (seed, game, turn)
    # only, so the order of the pool changes nothing.
    next_game, end = first_game, first_game + games
    k = min(batch_size, games)
    gid = np.arange(next_game, next_game + k, dtype=np.int64)
    next_game += k
    boards = np.ascontiguousarray(start_boards[gid % n_start])
    turn = np.zeros(k, dtype=np.int64)
    dice = _roll_dice(seed, gid, turn, np.full(k, from_opening))
    info = np.zeros(4, dtype=np.int64)
    t_gen = t_policy = 0.0
    t0 = time.perf_counter()
    while k:
        t1 = time.perf_counter()
        batch = fastgen.plays_batch(boards[:k], dice[:k], threads=threads)
        t2 = time.perf_counter()
        picked = choose(batch.boards, batch.offsets, gid[:k], turn[:k], boards[:k], dice[:k])
        t3 = time.perf_counter()
        t_gen += t2 - t1
        t_policy += t3 - t2
        pick = _as_picks(picked, k, choose.__name__)
        # In the core: check the picks, turn each chosen position over (the other side is
        # on roll), record won games (R17), refill their slots with new games or close up
        # the pool, and roll the next turn's dice (each game's dice and choices depend on
        # (seed, game, turn) only, so the order of the pool changes nothing).
        k = _core.pool_turn(
            batch.boards, batch.offsets, pick, boards, gid, turn, dice, winner, result, turns,
            start_boards, first_game, next_game, end, MAX_TURNS, seed, from_opening, _OPENING_DICE, info,
        )
        if info[1] >= 0:
            _raise_bad_pick(picked, batch.offsets, int(info[1]), choose.__name__)
        next_game = int(info[3])
        if progress is not None and info[0]:
            progress(int(info[0]))
        if info[2] >= 0:
            i = int(info[2])
            _raise_turn_limit(int(gid[i]), start_boards[gid[i] % n_start], MAX_TURNS)
    seconds = time.perf_counter() - t0
    timings = {"plays_batch": t_gen, "policy": t_policy, "other": seconds - t_gen - t_policy}
    return RolloutResult.cubeless(winner, result, turns, seed, name, seconds, timings)
