"""The games of a duel, games ``first .. first + games - 1``: inside the core when both
players are built-in policies or compiled networks' greedy play, else in the batched loop
(the same games). Used by
:func:`fastgen.sim.duel.front.duel` in this process and by :mod:`fastgen.sim.duel.chunks` on
Dask workers.

Game g: player a moves first when g is even. Mirrored, games 2k and 2k + 1 share the
dice of pair k (``roll_of`` of game k) and the start position ``start[k % K]``.
"""

from __future__ import annotations

import time

import numpy as np

from fastgen.core import _core
from fastgen.sim import _play
from fastgen.core.generate import plays_batch
from fastgen.core.hashing import OPENING_DICE, roll_dice
from fastgen.players.policies import as_picks, raise_bad_pick
from fastgen.sim.options import GameOptions
from fastgen.sim.rollout.pool import _WATCH_GAMES, MAX_TURNS, _raise_turn_limit
from fastgen.players.specs import policy as policy_of, resolve_policy
from fastgen._util import run_game_ranges

__all__ = ["BUILTIN", "native_player", "play_duel_games"]

#: The built-in policies the core plays, and their codes in duel_range.
BUILTIN = {"random": 0, "pubeval": 1}


def play_duel_games(a, b, games, first, start, from_opening, mirrored, options: GameOptions, progress):
    """Games first..first+games-1 (*first* even when *mirrored*): (winner, result, turns,
    timings), winner 0 when *a* won. *start*: (K, 2, 25) int8 boards, checked."""
    seed, threads, batch_size = options.seed, options.threads, options.batch_size
    if options.engine != "python" and native_player(a) is not None and native_player(b) is not None:
        return _duel_native(games, first, a, b, seed, start, from_opening, mirrored, threads, batch_size, progress)
    return _duel_python(games, first, a, b, seed, start, from_opening, mirrored, batch_size, threads, progress)


def native_player(policy):
    """How the core plays *policy* (a resolved spec): its built-in code (``"random"``,
    ``"pubeval"``), the compiled network whose greedy play it is (code 2, with the
    network's chooser), or None when only the batched loop can."""
    native = policy_of(policy).native
    return BUILTIN[native] if isinstance(native, str) else native


def _duel_native(games, first, pol_a, pol_b, seed, start, from_opening, mirrored, threads, chunk, progress):
    stop = _core.StopFlag() if games >= _WATCH_GAMES else None
    winner = np.zeros(games, dtype=np.int8)
    result = np.zeros(games, dtype=np.int8)
    turns = np.zeros(games, dtype=np.int32)
    players = [native_player(pol_a), native_player(pol_b)]
    codes = [p if isinstance(p, int) else 2 for p in players]

    def play_range(lo, hi):  # relative to first; a network's chooser a range, so one a thread
        ch_a, ch_b = (None if isinstance(p, int) else p.chooser() for p in players)
        return _play.duel_range(
            start, from_opening, seed, OPENING_DICE, first + lo, first + hi, codes[0], codes[1],
            mirrored, winner[lo:hi], result[lo:hi], turns[lo:hi], stop, MAX_TURNS, ch_a, ch_b,
        )

    long_games = run_game_ranges(games, threads, chunk, play_range, progress, stop)
    if long_games:
        g = min(long_games)
        _raise_turn_limit(g, start[(g // 2 if mirrored else g) % start.shape[0]], MAX_TURNS)
    return winner, result, turns, {}


def _dice_ids(gid: np.ndarray, mirrored: bool) -> np.ndarray:
    return gid // 2 if mirrored else gid


def _duel_python(games, first, a, b, seed, start, from_opening, mirrored, batch_size, threads, progress):
    """The batched loop: each turn, one plays_batch call and one policy call for the games
    where *a* moves, the same for *b*, then one pool_turn call for all of them."""
    choose_a, _ = resolve_policy(a, seed, threads)
    choose_b, _ = resolve_policy(b, seed, threads)
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
    dice = roll_dice(seed, _dice_ids(gid, mirrored), turn, np.full(k, from_opening))
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
            pick = as_picks(picked, hi - lo, choose.__name__)
            counts = np.diff(batch.offsets)
            bad = np.flatnonzero((pick < 0) | (pick >= counts))
            if bad.size:
                raise_bad_pick(picked, batch.offsets, int(bad[0]), choose.__name__)
            srcs.append(batch.boards)
            offs.append(np.asarray(batch.offsets[1:], dtype=np.int64) + offs[-1][-1])
            picks.append(pick)
        src = np.ascontiguousarray(np.concatenate(srcs) if len(srcs) > 1 else srcs[0])
        offsets = np.concatenate(offs)
        k = _play.pool_turn(
            src, offsets, np.concatenate(picks), boards, gid, turn, dice, winner, result, turns,
            starts, first, next_game, first + games, MAX_TURNS, seed, from_opening, OPENING_DICE, info,
        )
        next_game = int(info[3])
        if mirrored and k:  # pool_turn rolled game g's own dice: a pair shares game g // 2's
            dice[:k] = roll_dice(seed, gid[:k] // 2, turn[:k], from_opening & (turn[:k] == 0))
        if progress is not None and info[0]:
            progress(int(info[0]))
        if info[2] >= 0:
            g = int(gid[int(info[2])])
            _raise_turn_limit(g, start[_dice_ids(np.int64(g), mirrored) % start.shape[0]], MAX_TURNS)
    # pool_turn records the winning side (0: the side that moved first); a moves first in
    # the even games.
    winner ^= ((first + np.arange(games)) % 2).astype(np.int8)
    return winner, result, turns, {"plays_batch": t_gen, "policy": t_policy}
