"""Money games with the doubling cube: the batched loop of ``duel(a, b, games, cube=True)``.

Each turn, for every game still going (side on roll in row 1, before its roll):

1. the cube: where the side on roll may double (the cube centred or its own, below
   *max_cube*), its player's ``offer`` says whether it doubles; for each double, the
   other player's ``accept`` says whether it takes. A pass ends the game: the doubler
   wins the cube's value before the double. A take doubles the cube and gives it to
   the taker;
2. the roll (the duel's dice: game g's, or pair g // 2's when mirrored; the first roll
   an opening roll), the plays (:func:`fastgen.plays_batch`) and the mover's choice (its
   player's ``chequer`` policy);
3. a game whose mover has borne off its last checker ends: a single, gammon (the loser
   has none off) or backgammon (and a checker on the bar or in the winner's home
   board), times the cube. No Jacoby rule, no beavers.

Players follow the cube protocol of :class:`fastgen.policies.CubePolicy`.
"""

from __future__ import annotations

import numpy as np

from fastgen.core.generate import plays_batch
from fastgen.core.hashing import roll_dice
from fastgen.policies import as_picks, raise_bad_pick, step_policy
from fastgen.sim.rollout.pool import MAX_TURNS, _raise_turn_limit

__all__ = ["play_cube_games"]

_CENTRED = -1


def _results(after: np.ndarray) -> np.ndarray:
    """(N,) 0 (game goes on), 1, 2 or 3 for afterstates, the mover in row 1."""
    won = after[:, 1].sum(axis=1) == 0
    gammon = after[:, 0].sum(axis=1) == 15
    backgammon = after[:, 0, 18:].sum(axis=1) > 0
    return np.where(won, 1 + gammon + (gammon & backgammon), 0).astype(np.int8)


def play_cube_games(a, b, games: int, seed: int, start: np.ndarray, from_opening: bool, mirrored: bool,
                    max_cube: int, threads: int, progress=None):
    """Games 0..games-1 between cube players *a* and *b* (*a* moves first in the even
    games): (winner, result, cube, turns), winner 0 when *a* won; *result* 1, 2, 3 (a
    pass counts 1), *cube* the value it was played for, *turns* the plays made."""
    players = (a, b)
    choose = [step_policy(p.chequer) for p in players]
    gid = np.arange(games, dtype=np.int64)
    boards = np.ascontiguousarray(start[(gid // 2 if mirrored else gid) % start.shape[0]])
    first = (gid % 2).astype(np.int8)           # the player (0: a) who moves first
    on_roll = first.copy()                       # the player on roll now
    owner = np.full(games, _CENTRED, dtype=np.int8)
    cube = np.ones(games, dtype=np.int64)
    turn = np.zeros(games, dtype=np.int64)
    plays = np.zeros(games, dtype=np.int32)
    winner = np.zeros(games, dtype=np.int8)
    result = np.zeros(games, dtype=np.int8)
    live = np.arange(games)
    dice_ids = gid // 2 if mirrored else gid
    while live.size:
        # 1. the cube
        may = ((owner[live] == _CENTRED) | (owner[live] == on_roll[live])) & (cube[live] < max_cube)
        passed = np.zeros(live.size, dtype=bool)
        for p in (0, 1):
            rows = np.flatnonzero(may & (on_roll[live] == p))
            if not rows.size:
                continue
            g = live[rows]
            doubles = np.asarray(players[p].offer(boards[g], owner[g] == p), dtype=bool)
            dbl = rows[doubles]
            if not dbl.size:
                continue
            g = live[dbl]
            takes = np.asarray(players[1 - p].accept(boards[g], owner[g] == p), dtype=bool)
            done = g[~takes]
            winner[done], result[done] = p, 1
            passed[dbl[~takes]] = True
            kept = g[takes]
            cube[kept] *= 2
            owner[kept] = 1 - p
        if progress is not None and passed.any():
            progress(int(passed.sum()))
        live = live[~passed]
        if not live.size:
            break
        # 2. the roll and the plays
        dice = roll_dice(seed, dice_ids[live], turn[live], np.full(live.size, from_opening) & (turn[live] == 0))
        batch = plays_batch(boards[live], dice, threads=threads)
        offsets = np.asarray(batch.offsets, dtype=np.int64)
        pick = np.zeros(live.size, dtype=np.int64)
        for p in (0, 1):
            rows = np.flatnonzero(on_roll[live] == p)
            if not rows.size:
                continue
            sub_off = np.concatenate([[0], np.cumsum(offsets[rows + 1] - offsets[rows])])
            cand = np.concatenate([batch.boards[offsets[r]:offsets[r + 1]] for r in rows])
            picked = choose[p](cand, sub_off, live[rows], turn[live[rows]], boards[live[rows]], dice[rows])
            got = as_picks(picked, rows.size, getattr(players[p].chequer, "__name__", "policy"))
            counts = np.diff(sub_off)
            bad = np.flatnonzero((got < 0) | (got >= counts))
            if bad.size:
                raise_bad_pick(picked, sub_off, int(bad[0]), getattr(players[p].chequer, "__name__", "policy"))
            pick[rows] = got
        after = batch.boards[offsets[:-1] + pick]
        # 3. the end of a game, or the next turn
        res = _results(after)
        ended = res > 0
        g = live[ended]
        winner[g], result[g] = on_roll[g], res[ended]
        plays[live] += 1
        going = live[~ended]
        boards[going] = after[~ended][:, ::-1]
        on_roll[going] ^= 1
        turn[going] += 1
        if progress is not None and ended.any():
            progress(int(ended.sum()))
        long_games = going[turn[going] >= MAX_TURNS]
        if long_games.size:
            g0 = int(long_games[0])
            _raise_turn_limit(g0, start[dice_ids[g0] % start.shape[0]], MAX_TURNS)
        live = going
    return winner, result, cube, plays
