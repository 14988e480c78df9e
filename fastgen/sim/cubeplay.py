"""Games with the doubling cube, many at once: the steps the cube loops share.

:class:`CubeTable` holds the games in play, one slot each (board with the side on roll
in row 1, the player on roll, cube owner and value, turn, dice id);
:func:`cube_phase` asks the side on roll's player whether it doubles and the other
whether it takes (the cube protocol of :class:`fastgen.players.policies.CubePolicy`);
:func:`play_phase` plays one roll of every slot with its mover's chequer policy and
says which games ended and how (:func:`fastgen.games.game.result_types`). Used by the money and match duels
(:mod:`fastgen.sim.duel.cubeful`) and the cubeful rollouts
(:mod:`fastgen.sim.decide.cubeful`); when a side may double is
:func:`fastgen.cube.decision.may_double_rule`, the rule the cube decisions use.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fastgen.core.generate import plays_batch
from fastgen.core.state import MatchState
from fastgen.cube.decision import may_double_rule
from fastgen.games.game import GameAction, result_types
from fastgen.players.policies import as_picks, raise_bad_pick

__all__ = ["CENTRED", "CubeTable", "may_double", "cube_phase", "play_phase"]

#: The cube owner code of a centred cube (else the owner's player, 0 or 1).
CENTRED = -1


class CubeTable:
    """The games in play, one slot each: board (side on roll in row 1), player on roll
    (0: a), cube owner (a player, or centred), cube value, turn, dice id; with *log*,
    each slot's game so far as :class:`fastgen.games.game.GameAction` entries (games
    from the opening position, whose first roll is an opening roll)."""

    def __init__(self, n: int, start: np.ndarray, first: np.ndarray, dice_ids: np.ndarray, log: bool = False) -> None:
        self.start = start
        self.boards = np.ascontiguousarray(start[dice_ids % start.shape[0]])
        self.on_roll = first.astype(np.int8)
        self.owner = np.full(n, CENTRED, dtype=np.int8)
        self.cube = np.ones(n, dtype=np.int64)
        self.turn = np.zeros(n, dtype=np.int64)
        self.plays = np.zeros(n, dtype=np.int32)
        self.dice_ids = dice_ids.astype(np.int64)
        self.log: list[list[GameAction]] | None = [[] for _ in range(n)] if log else None

    def match_state(self, i: int, length: int, score: Any, crawford: Any) -> MatchState:
        """Slot *i*'s game as a :class:`fastgen.MatchState` at *score* (player 0's,
        player 1's) of a match of *length* points, its side on roll on roll."""
        owner = None if self.owner[i] == CENTRED else int(self.owner[i])
        return MatchState(match_length=length, score=(int(score[0]), int(score[1])), cube_value=int(self.cube[i]),
                          cube_owner=owner, crawford=bool(crawford), on_roll=int(self.on_roll[i]))

    def new_game(self, slots: np.ndarray, first: np.ndarray, dice_ids: np.ndarray) -> None:
        self.dice_ids[slots] = dice_ids
        self.boards[slots] = self.start[dice_ids % self.start.shape[0]]
        self.on_roll[slots] = first
        self.owner[slots] = CENTRED
        self.cube[slots] = 1
        self.turn[slots] = 0
        if self.log is not None:
            for i in slots:
                self.log[i] = []


def may_double(t: CubeTable, live: np.ndarray, max_cube: int, length: int = 0, score: np.ndarray | None = None,
               crawford: np.ndarray | None = None, *, from_opening: bool = False) -> np.ndarray:
    """(n,) bool: whether the side on roll of each slot of *live* may double: the cube
    centred or its own and below *max_cube*; in a match of *length* points (with
    *score* (n, 2) the players' scores and *crawford* (n,) the Crawford game's flag)
    also not in the Crawford game, not as the leader a point from winning after it, and
    not when the cube on the table already wins it the match
    (:func:`fastgen.cube.decision.may_double_rule`). With *from_opening* (the
    games began at the opening position) never before a game's opening roll, whose
    first mover plays it at once (R16)."""
    roller = t.on_roll[live]
    cube = t.cube[live]
    opponent_owns = (t.owner[live] != CENTRED) & (t.owner[live] != roller)
    if length:
        assert score is not None and crawford is not None
        rows = np.arange(live.size)
        may = may_double_rule(cube, max_cube, opponent_owns, length - score[rows, roller],
                              length - score[rows, 1 - roller], crawford)
    else:
        may = may_double_rule(cube, max_cube, opponent_owns, 0, 0, False)
    if from_opening:
        may &= t.turn[live] > 0
    return may


def cube_phase(players, t: CubeTable, live: np.ndarray, may: np.ndarray, states) -> tuple[np.ndarray, np.ndarray]:
    """Offers and answers where *may*; returns (slots passed, the doubler of each)."""
    passed, doublers = [], []
    for p in (0, 1):
        rows = np.flatnonzero(may & (t.on_roll[live] == p))
        if not rows.size:
            continue
        g = live[rows]
        st = None if states is None else [states(i) for i in g]
        doubles = np.asarray(players[p].offer(t.boards[g], t.owner[g] == p, st), dtype=bool)
        if not doubles.any():
            continue
        g = g[doubles]
        st = None if st is None else [s for s, d in zip(st, doubles) if d]
        takes = np.asarray(players[1 - p].accept(t.boards[g], t.owner[g] == p, st), dtype=bool)
        if t.log is not None:
            for i, took in zip(g, takes):
                t.log[i] += [GameAction("double", p, int(t.cube[i]) * 2), GameAction("take" if took else "drop", 1 - p)]
        passed.append(g[~takes])
        doublers.append(np.full(int((~takes).sum()), p, dtype=np.int8))
        kept = g[takes]
        t.cube[kept] *= 2
        t.owner[kept] = 1 - p
    if not passed:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int8)
    return np.concatenate(passed), np.concatenate(doublers)


def play_phase(players, choose, t: CubeTable, live: np.ndarray, dice: np.ndarray,
               threads: int) -> tuple[np.ndarray, np.ndarray]:
    """One roll (*dice*, (n, 2)) and play for every slot of *live*; returns (slots
    ended, their results). The callers bound the turns (``t.turn``)."""
    batch = plays_batch(t.boards[live], dice, threads=threads)
    offsets = np.asarray(batch.offsets, dtype=np.int64)
    pick = np.zeros(live.size, dtype=np.int64)
    for p in (0, 1):
        rows = np.flatnonzero(t.on_roll[live] == p)
        if not rows.size:
            continue
        sub_off = np.concatenate([[0], np.cumsum(offsets[rows + 1] - offsets[rows])])
        cand = np.concatenate([batch.boards[offsets[r]:offsets[r + 1]] for r in rows])
        g = live[rows]
        picked = choose[p](cand, sub_off, t.dice_ids[g], t.turn[g], t.boards[g], dice[rows])
        name = players[p].chequer.name
        got = as_picks(picked, rows.size, name)
        bad = np.flatnonzero((got < 0) | (got >= np.diff(sub_off)))
        if bad.size:
            raise_bad_pick(picked, sub_off, int(bad[0]), name)
        pick[rows] = got
    after = batch.boards[offsets[:-1] + pick]
    if t.log is not None:
        _log_turns(t, live, dice, after)
    res = result_types(after)
    ended = res > 0
    t.plays[live] += 1
    going = live[~ended]
    t.boards[going] = after[~ended][:, ::-1]
    t.on_roll[going] ^= 1
    t.turn[going] += 1
    return live[ended], res[ended]


def _log_turns(t: CubeTable, live: np.ndarray, dice: np.ndarray, after: np.ndarray) -> None:
    """Log each slot's roll (a game's first is its opening roll: the two dice, player
    0's first, the higher the mover's) and play (the board after, from the mover's view)."""
    assert t.log is not None
    for k, i in enumerate(live):
        p = int(t.on_roll[i])
        d = (int(dice[k, 0]), int(dice[k, 1]))
        if t.turn[i] == 0:
            hi, lo = max(d), min(d)
            t.log[i].append(GameAction("opening", p, (hi, lo) if p == 0 else (lo, hi)))
        else:
            t.log[i].append(GameAction("roll", p, d))
        t.log[i].append(GameAction("play", p, after[k].tobytes()))
