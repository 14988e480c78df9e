"""The in-process rollout engine: the pool of games.

Every turn, all unfinished games of the pool generate their plays in ONE
:func:`fastgen.plays_batch` call, a vectorized policy picks one play per game, and the core
(``pool_turn``) records finished games, refills their slots and rolls the next dice. The
policies ``"random"`` and ``"pubeval"``, and the greedy play of a compiled network
(:class:`fastgen.nets.Network`), can instead play whole games inside the core
(:func:`rollout_native`). Each game's dice and random choices come from a counter-based
hash (:mod:`fastgen.core.hashing`) of ``(seed, game index, turn, purpose)``, so game ``i``
is the same game whatever the batch size, the threads or the order games finish in. The
policies are read by :func:`fastgen.players.specs.policy`.
"""

from __future__ import annotations

import time

import numpy as np

from fastgen._util import check_int, run_game_ranges
from fastgen.core import _core
from fastgen.sim import _play
from fastgen.core.boards import STARTING_BOARD, as_boards  # R3
from fastgen.core.generate import plays_batch
from fastgen.errors import DeadPositionError, InvalidArgumentError, InvalidBoardError, TurnLimitError
from fastgen.core.ids import position_id
from fastgen.core.hashing import OPENING_DICE, roll_dice
from fastgen.players.policies import as_picks, raise_bad_pick, step_function
from fastgen.sim.options import GameOptions
from fastgen.sim.rollout.results import RolloutResult
from fastgen.players.specs import policy as policy_of

#: A game reaching this many turns stops the rollout with TurnLimitError (both engines).
#: Random games end within a few hundred turns.
MAX_TURNS = 1_000_000

#: Native rollouts of at least this many games run in worker threads while the calling
#: thread waits for Ctrl-C (fastgen._util.run_threads).
_WATCH_GAMES = 64




# --------------------------------------------------------------------------- the loop


def rollout_native(games, start_boards, from_opening, first, policy, options: GameOptions, progress,
                   network=None, name=None) -> RolloutResult:
    """Games first..first+games-1 played inside the core ("random" or "pubeval" policy, or
    the greedy play of a compiled *network*), ``options.batch_size`` games per call, in
    ``options.threads`` threads."""
    seed = options.seed
    stop = _core.StopFlag() if games >= _WATCH_GAMES else None
    winner = np.zeros(games, dtype=np.int8)
    result = np.zeros(games, dtype=np.int8)
    turns = np.zeros(games, dtype=np.int32)
    start = np.ascontiguousarray(start_boards, dtype=np.int8)

    def play_range(lo, hi):  # lo, hi relative to first
        return _play.rollout_random_range(
            start, from_opening, seed, OPENING_DICE, first + lo, first + hi,
            winner[lo:hi], result[lo:hi], turns[lo:hi], stop, policy == "pubeval", MAX_TURNS,
            None if network is None else network.chooser(),  # one chooser a range: one a thread
        )

    t0 = time.perf_counter()
    long_games = run_game_ranges(games, options.threads, options.batch_size, play_range, progress, stop)
    seconds = time.perf_counter() - t0
    if long_games:
        g = min(long_games)
        _raise_turn_limit(g, start[g % start.shape[0]], MAX_TURNS)
    return RolloutResult.cubeless(winner, result, turns, seed, name or policy, seconds, {"native": seconds})


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


def play_in_process(games: int | None, policy, start, first_game: int, options: GameOptions, progress) -> RolloutResult:
    """Games ``first_game .. first_game + games - 1`` of the run with ``options.seed``,
    played in this process: inside the core for ``"random"`` and ``"pubeval"`` (unless
    ``options.engine`` is ``"python"``), else by the batched pool loop. The arguments are
    :func:`fastgen.rollout`'s (*options* checked when built)."""
    first_game = check_int(first_game, "first_game", 0)
    if start is None:
        start_boards = STARTING_BOARD[None]
        from_opening = True
    else:
        start_boards, games = check_start(start, games)
        from_opening = False
    games = check_int(games, "games", 0)
    if progress is not None and not callable(progress):
        raise InvalidArgumentError(f"progress must be None or a callable, got {progress!r}")
    found = policy_of(policy)
    native = found.native
    if options.engine != "python" and isinstance(native, str):
        return rollout_native(games, start_boards, from_opening, first_game, native, options, progress)
    seed, batch_size, threads = options.seed, options.batch_size, options.threads
    name = policy if isinstance(policy, str) else found.name
    choose = step_function(found, seed, threads)
    network = None if isinstance(native, str) else native  # a compiled network's greedy play
    if options.engine == "native" and native is None:
        raise InvalidArgumentError(
            "the native engine plays the 'random' and 'pubeval' policies and compiled networks "
            f"(fastgen.nets.Network) only, got policy {policy!r}"
        )
    if options.engine != "python" and network is not None:
        return rollout_native(games, start_boards, from_opening, first_game, None, options, progress, network, name)
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
    dice = roll_dice(seed, gid, turn, np.full(k, from_opening))
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
        pick = as_picks(picked, k, choose.__name__)
        # In the core: check the picks, turn each chosen position over (the other side is
        # on roll), record won games (R17), refill their slots with new games or close up
        # the pool, and roll the next turn's dice (each game's dice and choices depend on
        # (seed, game, turn) only, so the order of the pool changes nothing).
        k = _play.pool_turn(
            batch.boards, batch.offsets, pick, boards, gid, turn, dice, winner, result, turns,
            start_boards, first_game, next_game, end, MAX_TURNS, seed, from_opening, OPENING_DICE, info,
        )
        if info[1] >= 0:
            raise_bad_pick(picked, batch.offsets, int(info[1]), choose.__name__)
        next_game = int(info[3])
        if progress is not None and info[0]:
            progress(int(info[0]))
        if info[2] >= 0:
            i = int(info[2])
            _raise_turn_limit(int(gid[i]), start_boards[gid[i] % n_start], MAX_TURNS)
    seconds = time.perf_counter() - t0
    timings = {"plays_batch": t_gen, "policy": t_policy, "other": seconds - t_gen - t_policy}
    return RolloutResult.cubeless(winner, result, turns, seed, name, seconds, timings)

