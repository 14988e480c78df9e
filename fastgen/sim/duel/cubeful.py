"""Games with the doubling cube: the batched loops of ``duel(a, b, games, cube=True)``
(money) and ``duel(a, b, matches=N, match_length=L)`` (matches).

Each turn, for every game still going (side on roll in row 1, before its roll):

1. the cube: where the side on roll may double (not before the opening roll; the cube centred or its own, below
   *max_cube*; in a match also not the Crawford game, not the leader of a
   post-Crawford game, not when the cube already wins it the match), its player's
   ``offer`` says whether it doubles; for each double, the other player's ``accept``
   says whether it takes. A pass ends the game: the doubler wins the cube's value
   before the double. A take doubles the cube and gives it to the taker;
2. the roll (each game its own dice from the seed; a mirrored pair of games, or of
   matches, shares them; a game's first roll is an opening roll), the plays
   (:func:`fastgen.plays_batch`) and the mover's choice (its player's ``chequer``
   policy);
3. a game whose mover has borne off its last checker ends: a single, gammon (the loser
   has none off) or backgammon (and a checker on the bar or in the winner's home
   board), times the cube. No Jacoby rule, no beavers.

A match goes on game after game until a player reaches *match_length*: the Crawford
rule applies (the game after a player first comes within one point has no cube), and
player *a* moves first in the match's even games of an even match, in its odd games
of an odd match, so both seats open alike. Players follow the cube protocol of
:class:`fastgen.players.policies.CubePolicy`.
"""

from __future__ import annotations

import numpy as np

from fastgen.core.hashing import roll_dice
from fastgen.players.policies import step_policy
from fastgen.sim.cubeplay import CubeTable, cube_phase, may_double, play_phase
from fastgen.sim.pool import MAX_TURNS, raise_turn_limit

__all__ = ["play_cube_games", "play_matches", "MAX_GAMES_A_MATCH"]

#: Games a match may hold (the dice of game j of match m are those of game id m * this + j).
MAX_GAMES_A_MATCH = 1 << 12

def _dice(t: CubeTable, live: np.ndarray, seed: int, from_opening: bool) -> np.ndarray:
    """The rolls of the slots *live*: the duel's dice of their games (game id, turn);
    a game over the turn limit raises first."""
    long_games = live[t.turn[live] >= MAX_TURNS]
    if long_games.size:
        g0 = int(long_games[0])
        raise_turn_limit(g0, t.start[t.dice_ids[g0] % t.start.shape[0]], MAX_TURNS)
    opening = np.full(live.size, from_opening) & (t.turn[live] == 0)
    return roll_dice(seed, t.dice_ids[live], t.turn[live], opening)


def play_cube_games(a, b, games: int, seed: int, start: np.ndarray, from_opening: bool, mirrored: bool,
                    max_cube: int, threads: int, progress=None, first: int = 0, log: bool = False):
    """Money games first..first+games-1 between cube players *a* and *b* (*a* moves
    first in the even games): (winner, result, cube, turns, records), winner 0 when *a*
    won; *result* 1, 2, 3 (a pass counts 1), *cube* the value it was played for, *turns*
    the plays made; *records* (with *log*) each game's actions, else None."""
    players = (a, b)
    choose = [step_policy(p.chequer, threads=threads) for p in players]
    gid = np.arange(first, first + games, dtype=np.int64)
    t = CubeTable(games, start, gid % 2, gid // 2 if mirrored else gid, log=log)
    winner = np.zeros(games, dtype=np.int8)
    result = np.zeros(games, dtype=np.int8)
    live = np.arange(games)
    while live.size:
        may = may_double(t, live, max_cube, from_opening=from_opening)
        passed, doublers = cube_phase(players, t, live, may, None)
        winner[passed], result[passed] = doublers, 1
        live = np.setdiff1d(live, passed, assume_unique=True)
        if not live.size:
            break
        ended, res = play_phase(players, choose, t, live, _dice(t, live, seed, from_opening), threads)
        winner[ended], result[ended] = t.on_roll[ended], res
        live = np.setdiff1d(live, ended, assume_unique=True)
        if progress is not None and passed.size + ended.size:
            progress(int(passed.size + ended.size))
    return winner, result, t.cube.copy(), t.plays.copy(), t.log


def play_matches(a, b, matches: int, length: int, seed: int, start: np.ndarray, from_opening: bool,
                 mirrored: bool, max_cube: int, threads: int, progress=None, first: int = 0, log: bool = False):
    """Matches first..first+matches-1 to *length* points between cube players *a* and
    *b*: (winner (matches,), score (matches, 2), games (matches,), records); winner 0
    when *a* won, score (a's, b's) at the end; *records* (with *log*) each match's
    games as lists of actions, else None."""
    players = (a, b)
    choose = [step_policy(p.chequer, threads=threads) for p in players]
    mid = np.arange(first, first + matches, dtype=np.int64)
    pair = mid // 2 if mirrored else mid
    game_no = np.zeros(matches, dtype=np.int64)
    score = np.zeros((matches, 2), dtype=np.int64)
    crawford = np.zeros(matches, dtype=bool)        # this game is the Crawford game
    crawford_done = np.zeros(matches, dtype=bool)   # a player has been within one point
    winner = np.zeros(matches, dtype=np.int8)
    t = CubeTable(matches, start, mid % 2, pair * MAX_GAMES_A_MATCH, log=log)
    records: list[list] | None = [[] for _ in range(matches)] if log else None

    def finish(slots: np.ndarray, won_by: np.ndarray, points: np.ndarray) -> np.ndarray:
        """Score finished games; start the next game where the match goes on; the slots whose match ended."""
        score[slots, won_by] += points
        if records is not None and t.log is not None:
            for i in slots:
                records[i].append(t.log[i])
        over = score[slots].max(axis=1) >= length
        done = slots[over]
        winner[done] = np.argmax(score[done], axis=1)
        going = slots[~over]
        was_crawford = crawford[going]
        near = (score[going] == length - 1).any(axis=1)
        crawford[going] = near & ~crawford_done[going] & ~was_crawford
        crawford_done[going] |= near
        game_no[going] += 1
        if (game_no[going] >= MAX_GAMES_A_MATCH).any():
            raise RuntimeError(f"a match of more than {MAX_GAMES_A_MATCH} games")
        t.new_game(going, ((mid[going] + game_no[going]) % 2).astype(np.int8),
                   pair[going] * MAX_GAMES_A_MATCH + game_no[going])
        return done

    live = np.arange(matches)
    while live.size:
        may = may_double(t, live, max_cube, length, score[live], crawford[live], from_opening=from_opening)
        passed, doublers = cube_phase(players, t, live, may, lambda i: t.match_state(i, length, score[i], crawford[i]))
        done = finish(passed, doublers, t.cube[passed].copy()) if passed.size else passed
        rolling = np.setdiff1d(live, passed, assume_unique=True)
        ended, res = play_phase(players, choose, t, rolling, _dice(t, rolling, seed, from_opening), threads)
        done2 = finish(ended, t.on_roll[ended], res.astype(np.int64) * t.cube[ended]) if ended.size else ended
        if progress is not None and done.size + done2.size:
            progress(int(done.size + done2.size))
        live = np.setdiff1d(live, np.concatenate([done, done2]), assume_unique=True)
    return winner, score, game_no + 1, records
