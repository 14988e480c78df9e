"""The in-process rollout engine: the pool of games, the policies and the game hash.

Every turn, all unfinished games of the pool generate their plays in ONE
:func:`fastgen.plays_batch` call, a vectorized policy picks one play per game, and the core
(``pool_turn``) records finished games, refills their slots and rolls the next dice. The
policies ``"random"`` and ``"pubeval"`` can instead play whole games inside the core
(:func:`rollout_native`). Each game's dice and random choices come from a counter-based
hash (splitmix64) of ``(seed, game index, turn, purpose)``, so game ``i`` is the same game
whatever the batch size, the threads or the order games finish in.
"""

from __future__ import annotations

import time

import numpy as np

from fastgen._util import check_int, run_game_ranges
from fastgen.core import _core
from fastgen.core.boards import STARTING_BOARD, as_boards  # R3
from fastgen.core.generate import plays_batch
from fastgen import pubeval as _pubeval  # noqa: F401  (loads pubeval's weights into the core)
from fastgen.errors import DeadPositionError, InvalidArgumentError, InvalidBoardError, TurnLimitError
from fastgen.core.ids import position_id
from fastgen.games.game import OPENING_ROLLS
from fastgen.sim.rollout.results import RolloutResult

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
    fastgen.pubeval.pubeval_best): the highest score, race weights when the position
    before the move is a race, ties to the play GNU Backgammon's generator lists first."""
    def choose(candidates, offsets, gid, turn, boards, dice):
        pick = np.empty(boards.shape[0], dtype=np.int64)
        _core.pubeval_pick(boards, dice, candidates, offsets, pick)
        return pick

    choose.__name__ = "pubeval"
    return choose


def _user_policy(fn):
    """A user callable as the loop's policy: ``fn(candidates, offsets)``, or, when it has
    a true attribute ``wants_position`` (engines such as fastgen.engines.GnubgEngine
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


def resolve_policy(policy, seed):
    if callable(policy):
        return _user_policy(policy), getattr(policy, "__name__", "custom")
    if isinstance(policy, str) and policy == "random":
        return random_policy(seed), "random"
    if isinstance(policy, str) and policy == "pubeval":
        return pubeval_policy(seed), "pubeval"
    raise InvalidArgumentError(f"policy must be 'random', 'pubeval' or a callable, got {policy!r}")


# --------------------------------------------------------------------------- the loop


def rollout_native(
    games, seed, start_boards, from_opening, threads, chunk, progress, first=0, policy="random"
) -> RolloutResult:
    """Games first..first+games-1 played inside the core ("random" or "pubeval" policy),
    *chunk* games per call, in threads."""
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
    raise TurnLimitError(
        f"game {game} (start position ID {position_id(board)!r}) reached {limit:,} turns without "
        "ending; the rollout was stopped"
    )


def check_start(start, games):
    """Validated start boards (K, 2, 25) and the number of games."""
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
        i = int(dead[0])
        raise DeadPositionError(
            f"start board {i} (position ID {position_id(boards[i])!r}) can never end: neither side "
            "can move a checker with any roll (e.g. both on the bar facing closed boards), so "
            "every turn is lost forever"
        )
    if games is None:
        games = boards.shape[0]
    return boards, games


def play_in_process(
    games: int | None,
    policy,
    seed: int,
    start,
    batch_size: int,
    threads: int,
    progress,
    engine: str,
    first_game: int,
) -> RolloutResult:
    """Games ``first_game .. first_game + games - 1`` of the run with *seed*, played in this
    process: inside the core for ``"random"`` and ``"pubeval"`` (unless *engine* is
    ``"python"``), else by the batched pool loop. The arguments are :func:`fastgen.rollout`'s
    (*seed* already checked)."""
    first_game = check_int(first_game, "first_game", 0)
    check_int(batch_size, "batch_size", 1)
    if start is None:
        start_boards = STARTING_BOARD[None]
        from_opening = True
    else:
        start_boards, games = check_start(start, games)
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
        return rollout_native(
            games, seed, start_boards, from_opening, threads, batch_size, progress, first_game, policy
        )
    choose, name = resolve_policy(policy, seed)
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
        batch = plays_batch(boards[:k], dice[:k], threads=threads)
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

