"""The one batched table of games that rollouts and duels play, and the checks of where
games start.

A pool holds up to *batch_size* games side by side: each game's id, turn, position (the
side on roll in row 1) and dice. Every turn, the games of each seat generate their plays
in one :func:`fastgen.plays_batch` call, that seat's policy picks one play per game, and
the core (``pool_turn``) turns the chosen positions over, records finished games, refills
their slots with new games and rolls the next dice. A rollout is one seat (one policy
plays both sides); a duel is two (player *a* moves first in the even games), optionally
mirrored (games 2k and 2k + 1 share the dice and start of pair k, seats swapped).

Policies with a native chooser (``"random"``, ``"pubeval"``, compiled networks' greedy
play) skip the table: :func:`play_native` plays whole games in the one compiled game loop
(``fastgen/sim/_loop.pxd``), a range of games per call, in threads. Both give the same
games: each game's dice and random choices depend only on ``(seed, game, turn)`` (the
counter-based hash of :mod:`fastgen.core.hashing`), never on the batch, the threads or
the order games finish in.

The cube loops (:mod:`fastgen.sim.cubeplay`) and the trials of a decision
(:mod:`fastgen.sim.decide.trials`) keep tables of their own: a cube phase before each
roll, and luck subtracted after it.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Sequence

import numpy as np

from fastgen._util import run_game_ranges
from fastgen.core import _core
from fastgen.core.boards import as_boards  # R3
from fastgen.core.generate import plays_batch
from fastgen.core.hashing import OPENING_DICE, roll_dice
from fastgen.core.ids import position_id
from fastgen.errors import DeadPositionError, InvalidBoardError, TurnLimitError
from fastgen.players.policies import as_picks, raise_bad_pick
from fastgen.sim import _play

__all__ = ["MAX_TURNS", "WATCH_GAMES", "play_pool", "play_native", "raise_turn_limit", "check_start",
           "dead_positions"]

#: A game reaching this many turns stops the run with TurnLimitError (every loop).
#: Random games end within a few hundred turns.
MAX_TURNS = 1_000_000

#: Native runs of at least this many games play in worker threads while the calling
#: thread waits for Ctrl-C (fastgen._util.run_threads).
WATCH_GAMES = 64

def raise_turn_limit(game: int, board: np.ndarray, limit: int) -> None:
    """Raise :class:`fastgen.errors.TurnLimitError` naming *game* and its start *board*."""
    raise TurnLimitError(
        f"game {game} (start position ID {position_id(board)!r}) reached {limit:,} turns without "
        "ending; the rollout was stopped"
    )


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

    >>> from fastgen.core.boards import STARTING_BOARD
    >>> b = np.zeros((2, 25), dtype=np.int8); b[:, :6] = 2; b[:, 24] = 3
    >>> dead_positions(b[None]).tolist(), dead_positions(STARTING_BOARD[None]).tolist()
    ([0], [])
    """
    arr = np.asarray(boards)
    dead = ~_mobile(arr[:, 1], arr[:, 0]) & ~_mobile(arr[:, 0], arr[:, 1])
    return np.flatnonzero(dead)


def check_start(start: Any, games: int | None) -> tuple[np.ndarray, int | None]:
    """Validated start boards (K, 2, 25) and the number of games (K when *games* is None)."""
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


def play_native(games: int, first: int, seats: Sequence[Any], start: np.ndarray, from_opening: bool, seed: int,
                *, alternate: bool, mirrored: bool, threads: int, batch_size: int,
                progress: Callable[[int], object] | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Games first..first+games-1 played whole in the compiled game loop: (winner, result,
    turns). *seats* (two policies): each with a native chooser
    (:meth:`fastgen.players.base.Policy.chooser`; one a range, so one a thread, and one
    for both seats when they are the same policy). The winner is the seat that
    won; *alternate*: seat 0 moves first in the even games (else always); *mirrored*:
    pairs share their dice and start. Ranges of at most *batch_size* games over
    *threads* threads."""
    stop = _core.StopFlag() if games >= WATCH_GAMES else None
    winner = np.zeros(games, dtype=np.int8)
    result = np.zeros(games, dtype=np.int8)
    turns = np.zeros(games, dtype=np.int32)
    start = np.ascontiguousarray(start, dtype=np.int8)
    def play_range(lo: int, hi: int) -> int:  # lo, hi relative to first
        a = seats[0].chooser(seed)
        b = a if seats[1] is seats[0] else seats[1].chooser(seed)
        return _play.play_range(
            start, from_opening, seed, OPENING_DICE, first + lo, first + hi, a, b,
            winner[lo:hi], result[lo:hi], turns[lo:hi], alternate=alternate, mirrored=mirrored, stop=stop,
            max_turns=MAX_TURNS,
        )

    long_games = run_game_ranges(games, threads, batch_size, play_range, progress, stop)
    if long_games:
        g = min(long_games)
        raise_turn_limit(g, start[(g // 2 if mirrored else g) % start.shape[0]], MAX_TURNS)
    return winner, result, turns


def play_pool(seats: Sequence[Callable[..., Any]], games: int, first: int, start: np.ndarray, from_opening: bool,
              seed: int, *, mirrored: bool, batch_size: int, threads: int,
              progress: Callable[[int], object] | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """Games first..first+games-1 played in the batched table: (winner, result, turns,
    timings). *seats*: one step function (a rollout: it plays both sides) or two (a
    duel: seat 0 moves first in the even games), each called
    ``f(candidates, offsets, game ids, turns, boards, dice)`` for its games of a turn
    (:func:`fastgen.players.policies.step_function`). The winner is 0 when the side that
    moved first won (one seat), else the seat that won. *mirrored* (two seats): games 2k
    and 2k + 1 share the dice and start of pair k. *timings*: seconds in ``plays_batch``
    and in the policies."""
    two = len(seats) == 2
    # pool_turn starts game g at starts[g % len(starts)]: mirrored, rows repeated twice so
    # that both games of pair g // 2 start at start[(g // 2) % K].
    starts = np.ascontiguousarray(np.repeat(start, 2, axis=0) if mirrored else start)
    winner = np.zeros(games, dtype=np.int8)
    result = np.zeros(games, dtype=np.int8)
    turns = np.zeros(games, dtype=np.int32)
    k = min(batch_size, games)
    gid = np.arange(first, first + k, dtype=np.int64)
    next_game = first + k
    boards = np.ascontiguousarray(starts[gid % starts.shape[0]])
    turn = np.zeros(k, dtype=np.int64)
    dice = roll_dice(seed, gid // 2 if mirrored else gid, turn, np.full(k, from_opening))
    info = np.zeros(4, dtype=np.int64)
    t_gen = t_policy = 0.0
    while k:
        if two:  # seat 0's games first, then seat 1's
            a_moves = (turn[:k] % 2 == 0) == (gid[:k] % 2 == 0)
            order = np.argsort(~a_moves, kind="stable")
            for arr in (boards, gid, turn, dice):
                arr[:k] = arr[:k][order]
            na = int(a_moves.sum())
            parts = [(lo, hi, choose) for lo, hi, choose in ((0, na, seats[0]), (na, k, seats[1])) if hi > lo]
        else:
            parts = [(0, k, seats[0])]
        srcs, offs, picks = [], [np.zeros(1, dtype=np.int64)], []
        for lo, hi, choose in parts:
            t1 = time.perf_counter()
            batch = plays_batch(boards[lo:hi], dice[lo:hi], threads=threads)
            t2 = time.perf_counter()
            picked = choose(batch.boards, batch.offsets, gid[lo:hi], turn[lo:hi], boards[lo:hi], dice[lo:hi])
            t_policy += time.perf_counter() - t2
            t_gen += t2 - t1
            pick = as_picks(picked, hi - lo, choose.__name__)
            counts = np.diff(batch.offsets)
            bad = np.flatnonzero((pick < 0) | (pick >= counts))
            if bad.size:
                raise_bad_pick(picked, batch.offsets, int(bad[0]), choose.__name__)
            srcs.append(batch.boards)
            offs.append(np.asarray(batch.offsets[1:], dtype=np.int64) + offs[-1][-1])
            picks.append(pick)
        if len(parts) == 1:
            src, offsets, pick = batch.boards, batch.offsets, picks[0]
        else:
            src, offsets, pick = np.ascontiguousarray(np.concatenate(srcs)), np.concatenate(offs), np.concatenate(picks)
        # In the core: turn each chosen position over (the other side is on roll), record
        # won games (R17), refill their slots with new games or close up the pool, and
        # roll the next turn's dice.
        k = _play.pool_turn(
            src, offsets, pick, boards, gid, turn, dice, winner, result, turns,
            starts, first, next_game, first + games, MAX_TURNS, seed, from_opening, OPENING_DICE, info,
        )
        next_game = int(info[3])
        if mirrored and k:  # pool_turn rolled game g's own dice: a pair shares game g // 2's
            dice[:k] = roll_dice(seed, gid[:k] // 2, turn[:k], from_opening & (turn[:k] == 0))
        if progress is not None and info[0]:
            progress(int(info[0]))
        if info[2] >= 0:
            g = int(gid[int(info[2])])
            raise_turn_limit(g, start[(g // 2 if mirrored else g) % start.shape[0]], MAX_TURNS)
    if two:  # pool_turn records the side that moved first; seat 0 moved first in the even games
        winner ^= ((first + np.arange(games)) % 2).astype(np.int8)
    return winner, result, turns, {"plays_batch": t_gen, "policy": t_policy}
