"""Cube decisions at 1 and 2 plies: the 21 rolls looked at before the formula is used.

For each of the two ways the game can go on (no double: the cube as it is; double,
take: twice the cube, owned by the opponent), the side on roll's value is the average
over its 21 rolls (a double 1/36, the others 2/36) of its play, each play valued as the
opponent then sees the position at 0 ply, cube included, and the play of each roll
chosen once, the best with the cube as it is (equal values by cubeless equity), as GNU
Backgammon's program chooses it: the opponent's
cubeful value with its cube action (no double; or, where it may double and doubling
gains whatever the answer, the smaller of double/take and double/pass), from the 0-ply
formula of :mod:`fastgen.cube.decision`, turned round to the side on roll. A play that
bears off the last checker is worth its result exactly (a gammon counting single under
the Jacoby rule with the cube centred). :func:`one_ply_batch` values many positions at
once, each at its own score and cube. Money values are per unit of the cube on
the table; match values are match-winning chances. Double/pass is not looked at: it is
worth the cube. :func:`two_ply_batch` looks one ply further the same way. With a
:class:`Pruning` (GNU Backgammon's nets searched as its program searches by default:
:func:`pruning_of`), each roll's play is chosen among the few its pruning nets rank
best, and only those are valued by the full nets.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from fastgen.core import _features
from fastgen.core.boards import DISTINCT_ROLLS, ROLL_CHANCES, distinct_boards
from fastgen.core.generate import plays_batch
from fastgen.core.state import MatchState
from fastgen.cube.decision import check_state, decide_values, may_double
from fastgen.cube.efficiency import CubeEfficiency, check_efficiency, classes_of
from fastgen.cube.match import Score
from fastgen.cube.met import MatchEquityTable, default_met
from fastgen.games.game import results_of
from fastgen.nets.probs import checked_answer

__all__ = ["one_ply_batch", "two_ply_batch", "one_ply_values", "searched_batch", "SearchMemo", "Pruning", "pruning_of"]

def _branches(state: MatchState, c_branch: str) -> tuple[int, int | None] | None:
    """The cube (value, owner) of branch *c_branch* ("nd": as it is; "dt": doubled, the
    opponent owning it) for the side on roll of *state*; None where it cannot double."""
    if c_branch == "dt" and not may_double(state):
        return None
    me, c = state.on_roll, state.cube_value
    return (c, state.cube_owner) if c_branch == "nd" else (2 * c, 1 - me)


def _opponent_state(state: MatchState, cube: int, owner: int | None) -> MatchState:
    return MatchState(match_length=state.match_length, score=state.score, cube_value=cube, cube_owner=owner,
                      crawford=state.crawford, jacoby=state.jacoby, on_roll=1 - state.on_roll,
                      max_cube=state.max_cube)


def _score(state: MatchState, met: MatchEquityTable) -> Score | None:
    if not state.match_length:
        return None
    me = state.on_roll
    return Score(met, state.match_length - state.score[me], state.match_length - state.score[1 - me],
                 crawford=state.crawford, player=me)


def _ended_values(res: np.ndarray, state: MatchState, cube: int, owner: int | None, score: Score | None) -> np.ndarray:
    """The side on roll's value of plays that end the game (results *res*), in its units."""
    points = res.astype(np.int64)
    if score is None:
        if state.jacoby and owner is None:  # gammons count single with the cube centred
            points[:] = 1
        return points * cube / state.cube_value
    return np.array([score.win(int(r) * cube) for r in points], dtype=np.float64)


def _opponents(states: list[MatchState], row_st: np.ndarray, c_branch: str
               ) -> tuple[list[MatchState], np.ndarray, np.ndarray]:
    """The opponent's states in branch *c_branch* of the movers at ``states[row_st]``
    (each made once), each row's index among them, and each opponent state's scale: the
    mover's money value is -scale times the opponent's (NaN in match play)."""
    opp_states: list[MatchState] = []
    index: dict[MatchState, int] = {}
    to_opp = np.zeros(len(states), dtype=np.int64)
    for k in np.unique(row_st).tolist():
        state = states[k]
        cube, owner = _branches(state, c_branch)  # type: ignore[misc]
        opp_state = _opponent_state(state, cube, owner)
        to_opp[k] = index.setdefault(opp_state, len(opp_states))
        if to_opp[k] == len(opp_states):
            opp_states.append(opp_state)
    ratio = 1.0 if c_branch == "nd" else 2.0  # the branch's cube over the mover's
    sign = np.array([np.nan if st.match_length else ratio for st in opp_states])
    return opp_states, to_opp[row_st], sign


def _action(nd: np.ndarray, dt: np.ndarray, dp: np.ndarray) -> np.ndarray:
    """The value of the side on roll's cube action: the smaller of double/take and
    double/pass where doubling gains whatever the answer, else no double."""
    with np.errstate(invalid="ignore"):  # NaN where the side on roll cannot double
        doubles = (dt >= nd) & (dp >= nd)
    return np.where(doubles, np.minimum(dt, dp), nd)


class Pruning:
    """GNU Backgammon's pruned choice of a play inside its search, with the pruning nets
    of *nets* (:meth:`fastgen.nets.gnubg.GnubgNetworks.pruning`): among a roll's *k*
    plays, when there are more than ``least + floor(log2(k))`` and every play's position
    (the opponent on roll) is of one class with a pruning net (race, crashed or
    contact), each is valued by that class's pruning net (corrected as the full nets
    are) and only that many, the best for the mover by its cubeless value at the node's
    score and cube (money: its cubeless equity; match: its cubeless match-winning
    chances), ties to the first, are valued by the full nets and may be chosen. The
    rule is the program's (its source read for the rule, 1.07: ``least`` 5); fastgen's
    compiled search prunes the same way (:class:`fastgen.nets.gnubg.GnubgLookahead`)."""

    def __init__(self, nets: Any, least: int = 5) -> None:
        self.nets = nets
        self.least = least

    def kept(self, turned: np.ndarray, offsets: np.ndarray, states: list[MatchState], roll_state: np.ndarray,
             met: MatchEquityTable, threads: int = 1) -> np.ndarray:
        """(N,) bool: which of the plays (*turned*: their positions, the opponent on roll;
        roll g's plays ``offsets[g]`` to ``offsets[g + 1] - 1``) may be chosen, the mover
        of roll g at ``states[roll_state[g]]``; *threads* share the rolls."""
        prices = np.ones((offsets.shape[0] - 1, 4))  # money: the cubeless equity
        for k in np.unique(roll_state).tolist():
            score = _score(states[k], met)
            if score is not None:  # match: the gammon and backgammon prices at the cube on the table
                prices[roll_state == k] = score.prices(states[k].cube_value)
        return np.asarray(self.nets.pruned(turned, offsets, prices, least=self.least, threads=threads), dtype=bool)


def pruning_of(evaluator: Any) -> Pruning | None:
    """The pruning of a searched *evaluator* (GNU Backgammon's nets at N plies made with
    ``prune=True``, as its program searches by default), else None."""
    return Pruning(evaluator.nets) if getattr(evaluator, "prune", False) else None


def _distinct_answer(evaluator: Callable[[np.ndarray], Any], boards: np.ndarray, threads: int) -> np.ndarray:
    """:func:`fastgen.nets.probs.checked_answer` of (N, 2, 25) *boards*; an evaluator whose
    positions are costly (its attribute ``distinct_only``: GNU Backgammon's nets, a
    look-ahead) is asked about each distinct position once: the plays of different rolls
    and of equal boards often lead to the same position (four in ten of a 2-ply
    search's)."""
    split = distinct_boards(boards) if getattr(evaluator, "distinct_only", False) else None
    if split is None:
        return checked_answer(evaluator, boards, threads)
    distinct, back = split
    return checked_answer(evaluator, np.ascontiguousarray(boards[distinct]), threads)[back]


class _Replies:
    """The plays of n boards' 21 rolls each (their boards, offsets, results, the
    opponent's 0-ply probabilities and the classes), generated and evaluated once. With
    *pruning* (a :class:`Pruning` and the movers' ``(states, row_state, met)``), only the
    plays it keeps are evaluated and may be chosen (:attr:`kept`)."""

    def __init__(self, boards: np.ndarray, evaluator: Callable[[np.ndarray], Any], threads: int,
                 pruning: tuple[Pruning, list[MatchState], np.ndarray, MatchEquityTable] | None = None) -> None:
        n = boards.shape[0]
        batch = plays_batch(np.repeat(boards, len(DISTINCT_ROLLS), axis=0), np.tile(DISTINCT_ROLLS, (n, 1)),
                            threads=threads)
        self.n = n
        self.after = np.asarray(batch.boards)
        self.offsets = np.asarray(batch.offsets, dtype=np.int64)
        self.group = np.repeat(np.arange(self.offsets.shape[0] - 1), np.diff(self.offsets))  # each play's roll
        self.row_board = self.group // len(DISTINCT_ROLLS)
        measures = _features.row_measures(self.after)  # each side's checkers left, rearmost and far back
        self.res = results_of(measures)
        self.going = self.res == 0
        self.turned = np.ascontiguousarray(self.after[:, ::-1])  # the opponent on roll
        self.kept = np.ones(self.after.shape[0], dtype=bool)
        if pruning is not None:
            pruner, states, row_state, met = pruning
            roll_state = np.repeat(np.asarray(row_state, dtype=np.int64), len(DISTINCT_ROLLS))
            self.kept = pruner.kept(self.turned, self.offsets, states, roll_state, met, threads)
        valued = self.going & self.kept
        opp_boards = self.turned[valued]
        # (N, 5) finite probabilities, or InvalidOutputError naming the evaluator
        probs = _distinct_answer(evaluator, opp_boards, threads) if opp_boards.shape[0] else np.zeros((0, 5))
        self.opp_probs = np.zeros((self.after.shape[0], 5))
        self.opp_probs[valued] = np.clip(probs, 0.0, 1.0)  # checked by checked_answer (or trusted)
        self.full = measures[:, :, 0] == 15  # (N, 2): each side still has all its checkers
        self.classes = classes_of(measures)  # the same from either side: once for every branch
        self.chances = np.tile(ROLL_CHANCES, n)

    def zero_ply(self, states: list[MatchState], row_st: np.ndarray, c_branch: str, met: MatchEquityTable,
                 database: Any, efficiency: CubeEfficiency | None) -> np.ndarray:
        """Each play's value for the side on roll in branch *c_branch*, the opponent's
        0-ply cube action taken (NaN in the boards whose side cannot double there)."""
        values = np.full(self.after.shape[0], np.nan)  # NaN: a play pruned away, never chosen
        for k, state in enumerate(states):
            rows = np.flatnonzero(row_st == k)
            if not rows.size:
                continue
            cube_owner = _branches(state, c_branch)
            if cube_owner is None:  # no double/take where the side on roll cannot double
                values[rows] = np.nan
                continue
            cube, owner = cube_owner
            score = _score(state, met)
            ended, live = rows[~self.going[rows]], rows[self.going[rows] & self.kept[rows]]
            if ended.size:
                values[ended] = _ended_values(self.res[ended], state, cube, owner, score)
            if live.size:
                v = _action(*self.decide(live, _opponent_state(state, cube, owner), met, database, efficiency))
                values[live] = -v * cube / state.cube_value if score is None else 1.0 - v
        return values

    def decide(self, rows: np.ndarray, state: MatchState, met: MatchEquityTable, database: Any,
               efficiency: CubeEfficiency | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The opponent's 0-ply no double, double/take and double/pass
        (:func:`fastgen.cube.decision.decide_values`) after the plays *rows*, it on roll at
        *state*."""
        full = self.full[rows]
        return decide_values(self.turned[rows], self.opp_probs[rows], state, met=met, database=database,
                             classes=self.classes[rows], efficiency=check_efficiency(efficiency),
                             gammons=(full[:, 1], full[:, 0]))

    def choose(self, values: np.ndarray) -> np.ndarray:
        """Each roll's play (global index) by *values*: the largest, equal values by the
        play's cubeless equity for the side on roll, then the generator's order."""
        op = self.opp_probs
        cubeless = -(2.0 * op[:, 0] - 1.0 + op[:, 1] + op[:, 2] - op[:, 3] - op[:, 4])
        cubeless[~self.going] = self.res[~self.going]
        starts = self.offsets[:-1]
        group = self.group
        top = values == np.fmax.reduceat(values, starts)[group]  # NaN never the largest
        tied = np.where(top, cubeless, -np.inf)
        top &= tied == np.maximum.reduceat(tied, starts)[group]
        first = np.minimum.reduceat(np.where(top, np.arange(values.shape[0]), values.shape[0]), starts)
        return np.where(first == values.shape[0], starts, first)  # a roll of NaN values only: its first play

    def average(self, best: np.ndarray) -> np.ndarray:
        """Each board's average over its 21 rolls of *best* (one value a roll)."""
        return np.bincount(np.repeat(np.arange(self.n), len(DISTINCT_ROLLS)), weights=best * self.chances,
                           minlength=self.n)

    def probabilities(self, chosen: np.ndarray, below: np.ndarray | None = None) -> np.ndarray:
        """(n, 5): each board's probabilities for its side on roll, the average over its 21
        rolls of the *chosen* play's (one a roll): a play that ends the game exactly, the
        others from the opponent's probabilities after it, on roll: its 0-ply ones, or
        *below* (one row a chosen play that does not end the game, in order) when the
        search goes deeper."""
        theirs = self.opp_probs[chosen].copy()
        going = self.going[chosen]
        if below is not None:
            theirs[going] = below
        mine = np.empty_like(theirs)
        mine[:, 0] = 1.0 - theirs[:, 0]
        mine[:, 1:3] = theirs[:, 3:5]
        mine[:, 3:5] = theirs[:, 1:3]
        res = self.res[chosen][~going]
        mine[~going] = 0.0
        mine[~going, 0] = 1.0
        mine[~going, 1] = res >= 2
        mine[~going, 2] = res >= 3
        weighted = self.chances[:, None] * mine
        return weighted.reshape(self.n, len(DISTINCT_ROLLS), 5).sum(axis=1) + 0.0  # no -0.0


def one_ply_batch(boards: np.ndarray, evaluator: Callable[[np.ndarray], Any], states: list[MatchState],
                  row_state: np.ndarray, *, met: MatchEquityTable | None = None, database: Any = None,
                  threads: int = 1, efficiency: CubeEfficiency | None = None,
                  probs: np.ndarray | None = None, pruning: Pruning | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(no double, double take) of each of *boards* ((N, 2, 25), side on roll in row 1,
    before its roll) at 1 ply (module docstring; each roll's play is chosen once, by its
    value with the cube as it is, equal values by cubeless equity, and valued in both
    ways the game goes on, as GNU Backgammon's program does), board i at ``states[row_state[i]]``:
    money per unit of the state's cube, match MWC (double/take NaN where the side on roll
    cannot double: :func:`fastgen.cube.decision.may_double`). All the boards' 21 rolls go
    through the generator and the evaluator at once (its answers checked by
    :func:`fastgen.nets.probs.checked_answer`); a state no cube question can be asked at is
    refused first (:func:`fastgen.cube.decision.check_state`). *efficiency*: the
    opponent's cube life after each roll (:func:`fastgen.cube.efficiency.gnubg_efficiency`;
    default GNU Backgammon 1.07's). *probs*: an (N, 5) array that receives each board's
    probabilities for its side on roll along the plays chosen (the average over the rolls
    of the chosen play's: the cubeful search's own probabilities, as GNU Backgammon's
    cubeful evaluation gives them beside its equities). *pruning*: each roll's play
    chosen among the plays it keeps (:class:`Pruning`; GNU Backgammon's default), else
    among all."""
    states = [check_state(st) for st in states]  # refused here, before any work, as cube_decisions refuses them
    met = default_met() if met is None else met
    n = boards.shape[0]
    if not n:
        return np.empty(0), np.empty(0)
    row_state = np.asarray(row_state, dtype=np.int64)
    rep = _Replies(boards, evaluator, threads, None if pruning is None else (pruning, states, row_state, met))
    nd, dt, found, _ = _one_ply(rep, states, row_state, met, database, efficiency)
    if probs is not None:
        probs[:] = found
    return nd, dt


def _one_ply(rep: _Replies, states: list[MatchState], row_state: np.ndarray, met: MatchEquityTable, database: Any,
             efficiency: CubeEfficiency | None, chosen: np.ndarray | None = None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`one_ply_batch` of the boards whose replies *rep* holds, board i at
    ``states[row_state[i]]`` (checked by the caller): no double, double take, the
    probabilities along the plays chosen and those plays (each roll's, by its value with
    the cube as it is; or *chosen*, when a search above has chosen them already)."""
    row_st = row_state[rep.row_board]
    out = []
    for c_branch in ("nd", "dt"):
        values = rep.zero_ply(states, row_st, c_branch, met, database, efficiency)
        if chosen is None:  # each roll's play, chosen once, by the cube as it is
            chosen = rep.choose(values)
        out.append(rep.average(values[chosen]))
    assert chosen is not None
    return out[0], out[1], rep.probabilities(chosen), chosen


def two_ply_batch(boards: np.ndarray, evaluator: Callable[[np.ndarray], Any], states: list[MatchState],
                  row_state: np.ndarray, *, met: MatchEquityTable | None = None, database: Any = None,
                  threads: int = 1, efficiency: tuple[CubeEfficiency | None, CubeEfficiency | None] = (None, None),
                  probs: np.ndarray | None = None, pruning: Pruning | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(no double, double take) of each of *boards* at 2 plies, in the units of
    :func:`one_ply_batch`: the play of each of the side on roll's 21 rolls is chosen once,
    by the value :func:`one_ply_batch` gives each play with the cube as it is (the
    opponent's 0-ply cube action taken; equal values by the play's cubeless equity, then
    the generator's order); then for each way the game goes on (the cube as it is;
    doubled and taken) the average over the rolls of the chosen play's value: the
    opponent's 1-ply no double and double/take there (:func:`one_ply_batch`, its replies
    chosen once, in the branch with the cube as it is, and valued in both) and its cube
    action, double/pass the cube. GNU Backgammon's 2-ply cubeful evaluation as its
    program computes it (see tests/test_hint_gnubg_nply.py). *efficiency*: the cube life
    at 0 and at 1 ply (:func:`fastgen.cube.efficiency.efficiency_for`). *probs*: as in
    :func:`one_ply_batch`, along the plays chosen with the cube as it is at both plies.
    *pruning*: as in :func:`one_ply_batch`, at both plies (the opponent's replies pruned
    at its score and cube as it is)."""
    states = [check_state(st) for st in states]
    met = default_met() if met is None else met
    n = boards.shape[0]
    if not n:
        return np.empty(0), np.empty(0)
    row_state = np.asarray(row_state, dtype=np.int64)
    rep = _Replies(boards, evaluator, threads, None if pruning is None else (pruning, states, row_state, met))
    row_st = row_state[rep.row_board]
    out = []
    chosen = going = np.zeros(0, dtype=np.int64)
    replies: _Replies | None = None  # the opponent's replies after the chosen plays: the same in both ways
    replies_chosen: np.ndarray | None = None  # and the play it makes of each of its rolls
    for c_branch in ("nd", "dt"):
        values = rep.zero_ply(states, row_st, c_branch, met, database, efficiency[0])
        if c_branch == "nd":  # each roll's play, chosen once, by the cube as it is
            chosen = rep.choose(values)
            going = chosen[rep.going[chosen]]
            if going.size:
                opp_states, opp_row, _ = _opponents(states, row_st[going], "nd")
                replies = _Replies(np.ascontiguousarray(rep.after[going][:, ::-1]), evaluator, threads,
                                   None if pruning is None else (pruning, opp_states, opp_row, met))
        best = values[chosen].copy()
        live = going[~np.isnan(values[going])]
        if live.size and replies is not None:
            # the opponent on roll after each chosen play: its 1-ply no double and double/take
            live_st = row_st[live]
            opp_states, opp_row, sign = _opponents(states, live_st, c_branch)
            # the opponent's replies are chosen once, in the search with the cube as it is
            # above (its cube as it is there), and valued in both ways the game goes on
            if live.size == going.size:
                nd1, dt1, below, picked = _one_ply(replies, opp_states, opp_row, met, database, efficiency[1],
                                                   replies_chosen)
                replies_chosen = picked
            else:  # the boards whose side can double here among all the chosen plays' (the others any state)
                full = np.zeros(going.size, dtype=np.int64)
                at = np.searchsorted(going, live)
                full[at] = opp_row
                nd1, dt1, _, _ = _one_ply(replies, opp_states, full, met, database, efficiency[1], replies_chosen)
                nd1, dt1 = nd1[at], dt1[at]
            if c_branch == "nd" and probs is not None:  # the opponent's, along the plays chosen by the cube as it is
                probs[:] = rep.probabilities(chosen, below)
            dp = np.empty(live.size)
            for k, st in enumerate(opp_states):
                rows = np.flatnonzero(opp_row == k)
                dp[rows] = rep.decide(live[rows], st, met, database, efficiency[1])[2]
            v = _action(nd1, dt1, dp)
            scale = sign[opp_row]
            best[np.searchsorted(chosen, live)] = np.where(np.isnan(scale), 1.0 - v, -v * scale)
        elif c_branch == "nd" and probs is not None:  # no chosen play leaves the game going
            probs[:] = rep.probabilities(chosen)
        out.append(rep.average(best))
    return out[0], out[1]


def one_ply_values(board: np.ndarray, evaluator: Callable[[np.ndarray], Any], state: MatchState,
                   *, met: MatchEquityTable | None = None, database: Any = None,
                   threads: int = 1, efficiency: CubeEfficiency | None = None) -> tuple[float, float]:
    """(no double, double take) of one *board* at 1 ply: :func:`one_ply_batch`."""
    nd, dt = one_ply_batch(board[None], evaluator, [state], np.zeros(1, np.int64), met=met, database=database,
                           threads=threads, efficiency=efficiency)
    return float(nd[0]), float(dt[0])


class SearchMemo:
    """The answers of :func:`searched_batch` already found, kept for the rest of one job
    (an analysis: a play's value looks at the position the next cube decision asks about,
    at the same state and depth): no double, double take and the probabilities, keyed by
    the board's bytes, its state and the depth. It holds at most *limit* positions (some
    200 bytes each) and starts afresh when full; the same evaluator, table, database and
    cube life are the caller's to keep for all of them."""

    def __init__(self, limit: int = 100_000) -> None:
        self.limit = limit
        self.hits = 0
        self._found: dict[tuple[bytes, MatchState, int], tuple[float, float, np.ndarray]] = {}

    def __len__(self) -> int:
        return len(self._found)

    def get(self, key: tuple[bytes, MatchState, int]) -> tuple[float, float, np.ndarray] | None:
        hit = self._found.get(key)
        self.hits += hit is not None
        return hit

    def put(self, key: tuple[bytes, MatchState, int], value: tuple[float, float, np.ndarray]) -> None:
        if len(self._found) >= self.limit:
            self._found.clear()
        self._found[key] = value


def searched_batch(boards: np.ndarray, evaluator: Callable[[np.ndarray], Any], states: list[MatchState],
                   row_state: np.ndarray, depth: int, *, met: MatchEquityTable | None = None, database: Any = None,
                   threads: int = 1, efficiency: tuple[CubeEfficiency | None, CubeEfficiency | None] = (None, None),
                   probs: np.ndarray | None = None, memo: SearchMemo | None = None,
                   pruning: Pruning | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(no double, double take) of *boards* at *depth* (1: :func:`one_ply_batch`, with the
    cube life ``efficiency[1]``; 2: :func:`two_ply_batch`), *probs* filled as they fill it;
    with a *memo*, the boards it holds at their state and depth are not searched again and
    the others are added to it. *pruning*: the choices inside the search pruned
    (:class:`Pruning`, :func:`pruning_of`); without it every play is valued."""
    n = boards.shape[0]
    nd, dt = np.empty(n), np.empty(n)
    found = np.zeros((n, 5))
    keys = [(boards[i].tobytes(), states[row_state[i]], depth) for i in range(n)] if memo is not None else []
    todo = np.arange(n)
    if memo is not None:
        missing = []
        for i, key in enumerate(keys):
            hit = memo.get(key)
            if hit is None:
                missing.append(i)
            else:
                nd[i], dt[i], found[i] = hit
        todo = np.asarray(missing, dtype=np.int64)
    if todo.size:
        sub = np.ascontiguousarray(boards[todo])
        rows = np.asarray(row_state, dtype=np.int64)[todo]
        part = np.zeros((todo.size, 5))
        if depth == 1:
            a, b = one_ply_batch(sub, evaluator, states, rows, met=met, database=database, threads=threads,
                                 efficiency=efficiency[1], probs=part, pruning=pruning)
        else:
            a, b = two_ply_batch(sub, evaluator, states, rows, met=met, database=database, threads=threads,
                                 efficiency=efficiency, probs=part, pruning=pruning)
        nd[todo], dt[todo], found[todo] = a, b, part
        if memo is not None:
            for j, i in enumerate(todo.tolist()):
                memo.put(keys[i], (float(a[j]), float(b[j]), part[j].copy()))
    if probs is not None:
        probs[:] = found
    return nd, dt
