"""The equities behind an analysis, computed for a whole match in a few batches.

Everything is in the mover's terms, *normalised* to the cube on the table as GNU
Backgammon's analysis prints it (EMG: +1 wins the cube's value, -1 loses it; at match
play the match-winning chance turned into this scale by the score's MET values), with
the match-winning chance beside it at match play.

- **A play's equity** is the cubeful equity of the position after it, with the
  opponent on roll before its roll, at 0 ply: the evaluator's cubeless probabilities
  turned cubeful by :func:`fastgen.cube.cube_decisions`, and the opponent's cube
  action taken: its double/take or double/pass value (the smaller) where doubling
  gains whatever the answer, else its no double value; negated. Exact where the play
  ends the game. (A trailer after the Crawford game thus doubles at once.)
- **A roll's luck** is the equity after the best play with the roll rolled less the
  average, over the 21 rolls by their chances, of the equity after the best play of
  each; for a game's opening roll the average is over the 15 non-double rolls.
- **A cube decision** has the no double, double/take and double/pass equities of the
  doubler's position before its roll, and the proper action, from
  :func:`fastgen.cube.cube_decisions`.

At N plies (an evaluator searched N plies deep, such as ``gnubg:2`` or ``baseline:1``; or
``plies=N`` with a 0-ply evaluator, the same thing) the plays of each roll rolled that GNU
Backgammon's analysis filter keeps (the best 16 by their 0-ply equity within 0.32 of the
best) and the play made are valued again: to 2 plies cubefully, the opponent's no
double and double/take after its 21 rolls (:func:`fastgen.cube.lookahead.one_ply_batch`,
:func:`~fastgen.cube.lookahead.two_ply_batch`), then its cube action as above; the best
play is the best of these. A cube decision's no double and double/take are its
doubler's values at that depth. The luck stays at 0 ply, as the program's.

Where both sides have at most six checkers left, all in their home boards, the cubeful
values come from a two-sided bear-off database of 6 points and 6 checkers, as GNU
Backgammon takes them from its own (:func:`bearoff_database`, built once a process, in
about half a second, the first time a match reaches such a bear-off).

One call to the generator lists the plays of every turn's 21 rolls, one call to the
evaluator scores all of them (the turn's actual roll among them), and the cubeful
values are taken once for each score and cube found in the match.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

import numpy as np

from fastgen.core.boards import DISTINCT_ROLLS, ROLL_CHANCES
from fastgen.core.generate import plays_batch
from fastgen.core.state import MatchState
from fastgen.bearoff.build import build_two_sided
from fastgen.cube.decision import cube_decisions, proper_action
from fastgen.cube.efficiency import BEAROFF, CubeEfficiency, efficiency_for, position_class
from fastgen.cube.lookahead import Pruning, SearchMemo, pruning_of, searched_batch
from fastgen.cube.match import Score
from fastgen.cube.met import MatchEquityTable
from fastgen.players.evaluators import evaluate, group_best, opponent_probs
from fastgen.players.search import Search, depth_of, searched
from fastgen.games.game import result_types

from fastgen.analysis.walk import CubePoint, Turn, with_on_roll

__all__ = ["TurnValues", "CubeValues", "judge_turns", "judge_cubes", "score_of", "mwc_scale", "bearoff_database",
           "reaches_bearoff", "search_depth"]

_OPENING = np.array([r for r in DISTINCT_ROLLS if r[0] != r[1]], dtype=np.int8)


@dataclass
class TurnValues:
    """For each turn: its candidate plays (``boards`` (M, 2, 25) after, from the
    mover's view, turn i's rows ``offsets[i]:offsets[i + 1]``) and their ``moves``
    (M, 4, 2) as :func:`fastgen.plays_batch` gives them, their ``equity`` (M,)
    normalised, ``evaluated`` (M,) whether the row was valued at the analysis's plies
    (all at 0 ply; at 1 ply the filter's candidates and the play made: the others keep
    their 0-ply values), ``played`` (index into the rows, -1 when no play was made or it
    is not among them) and ``best`` (index, among the evaluated rows), ``luck`` (n,)
    normalised, ``mwc_scale`` (n,): the
    MWC of one unit of normalised equity at the turn's score (0 for money), and
    ``mwc_base`` (n,) the MWC of equity 0 (so an equity e is ``mwc_base + e *
    mwc_scale``)."""

    boards: np.ndarray
    moves: np.ndarray
    offsets: np.ndarray
    equity: np.ndarray
    evaluated: np.ndarray
    played: np.ndarray
    best: np.ndarray
    luck: np.ndarray
    mwc_scale: np.ndarray
    mwc_base: np.ndarray


@dataclass
class CubeValues:
    """For each cube point: ``equities`` (n, 3) no double, double/take, double/pass
    (the doubler's, normalised; NaN where it could not double), ``actions`` (the proper
    :class:`fastgen.cube.CubeAction`), ``mwc_scale`` as in :class:`TurnValues`."""

    equities: np.ndarray
    actions: list
    mwc_scale: np.ndarray


@lru_cache(maxsize=1)
def bearoff_database() -> Any:
    """The cubeful two-sided bear-off database of 6 points and 6 checkers (built on the
    first call, then kept)."""
    return build_two_sided(6, 6, cubeful=True, threads=2)


def reaches_bearoff(boards: np.ndarray) -> bool:
    """Whether a position the database holds can be valued from (N, 2, 25) *boards*
    (side on roll in row 1, before its roll): one where both sides are home, the
    opponent has at most six checkers left and the side on roll at most ten (one play
    bears off four at most)."""
    if not boards.shape[0]:
        return False
    home = position_class(boards) >= BEAROFF
    left = boards.sum(axis=2, dtype=np.int16)
    return bool((home & (left[:, 0] <= 6) & (left[:, 1] <= 10)).any())


def score_of(state: MatchState, met: MatchEquityTable) -> Score | None:
    """The side on roll's :class:`fastgen.cube.match.Score` of *state* (None for money)."""
    if not state.match_length:
        return None
    me = state.on_roll
    return Score(met, state.match_length - state.score[me], state.match_length - state.score[1 - me],
                 crawford=state.crawford, player=me)


def mwc_scale(state: MatchState, met: MatchEquityTable) -> float:
    """The match-winning chance of one unit of normalised equity at *state* (its side
    on roll, its cube): half the gap between winning and losing the cube (0 for money)."""
    score = score_of(state, met)
    if score is None:
        return 0.0
    c = state.cube_value
    return 0.5 * (score.win(c) - score.lose(c))


def _mwc_base(state: MatchState, met: MatchEquityTable) -> float:
    """The MWC of normalised equity 0 at *state*: midway between winning and losing the cube (0 for money)."""
    score = score_of(state, met)
    if score is None:
        return 0.0
    c = state.cube_value
    return 0.5 * (score.win(c) + score.lose(c))


def _flipped(state: MatchState) -> MatchState:
    return with_on_roll(state, 1 - state.on_roll)


def _after_values(after: np.ndarray, probs: np.ndarray, states: list[MatchState], row_state: np.ndarray,
                  met: MatchEquityTable, database: Any, efficiency: CubeEfficiency | None = None) -> np.ndarray:
    """The mover's normalised equity of each board *after* its play (mover in row 1),
    where *probs* are the opponent's cubeless probabilities on roll and
    ``states[row_state[i]]`` the mover's state."""
    out = np.empty(after.shape[0])
    res = result_types(after)
    for k, st in enumerate(states):
        rows = np.flatnonzero(row_state == k)
        if not rows.size:
            continue
        ended = rows[res[rows] > 0]
        going = rows[res[rows] == 0]
        if ended.size:
            points = res[ended].astype(np.float64)
            if st.jacoby and st.cube_owner is None and not st.match_length:
                points[:] = 1.0
            score = score_of(st, met)
            if score is not None:  # the MWC of the win, in the normalised scale of the cube
                c = st.cube_value
                points = np.array([float(score.equity(score.win(int(r) * c), c)) for r in res[ended]])
            out[ended] = points
        if going.size:
            d = cube_decisions(np.ascontiguousarray(after[going][:, ::-1]), probs[going], _flipped(st), met=met,
                               database=database, efficiency=efficiency)
            nd, dt, dp = d.equities.T
            with np.errstate(invalid="ignore"):  # NaN where the opponent cannot double: no double
                doubles = (dt >= nd) & (dp >= nd)
            out[going] = -np.where(doubles, np.minimum(dt, dp), nd)
    return out


def judge_turns(turns: list[Turn], evaluator: Callable[[np.ndarray], Any], met: MatchEquityTable, *,
                plies: int = 0, threads: int = 1, database: Any = None, memo: SearchMemo | None = None) -> TurnValues:
    """The plays and luck of *turns* at *plies* (module docstring); *memo*: where the
    cubeful searches are kept for :func:`judge_cubes`."""
    if plies:
        evaluator = searched(evaluator, plies)
    n = len(turns)
    states: list[MatchState] = []
    index: dict[MatchState, int] = {}

    def state_id(st: MatchState) -> int:
        if st not in index:
            index[st] = len(states)
            states.append(st)
        return index[st]

    # groups, one a (turn, roll, view): the view +1 the mover's, -1 its opponent's (the
    # other starter of an opening roll); its weight in the turn's average
    groups: list[tuple[int, float, float, int]] = []
    g_board: list[np.ndarray] = []
    g_dice: list[np.ndarray] = []
    actual = np.full(n, -1, dtype=np.int64)
    for t, turn in enumerate(turns):
        own = state_id(turn.state)
        dice = sorted(turn.dice)
        if turn.opening:
            rolls = [(r, 1.0, 1.0 / 30.0, own) for r in _OPENING]
            rolls += [(r, -1.0, 1.0 / 30.0, state_id(_flipped(turn.state))) for r in _OPENING]
        else:
            rolls = [(r, 1.0, float(w), own) for r, w in zip(DISTINCT_ROLLS, ROLL_CHANCES)]
        for r, sign, w, sid in rolls:
            if sign > 0 and list(r) == dice:
                actual[t] = len(groups)
            groups.append((t, sign, w, sid))
            g_board.append(turn.board)
            g_dice.append(r)
    if not n:
        empty = np.zeros(0)
        return TurnValues(np.zeros((0, 2, 25), np.int8), np.zeros((0, 4, 2), np.int8), np.zeros(1, np.int64),
                          empty, np.zeros(0, bool), np.zeros(0, np.int64), np.zeros(0, np.int64), empty, empty, empty)
    batch = plays_batch(np.stack(g_board), np.asarray(g_dice, dtype=np.int8), threads=threads)
    after = np.asarray(batch.boards)
    offsets = np.asarray(batch.offsets, dtype=np.int64)
    counts = np.diff(offsets)
    depth = search_depth(evaluator)
    base = searched(evaluator, 0) if depth else evaluator  # the luck and the filters' first look: 0 ply
    probs = opponent_probs(base, after, threads=threads)
    g_turn, g_sign, g_weight, g_state = (np.asarray(col) for col in zip(*groups))
    row_state = np.repeat(g_state.astype(np.int64), counts)
    # GNU Backgammon's nets bring their generation's cube life (1.07's by default)
    equity = _after_values(after, probs, states, row_state, met, database, efficiency_for(evaluator, 0))
    best_rows = group_best(equity, offsets)
    best_eq = equity[best_rows]
    average = np.bincount(g_turn.astype(np.int64), weights=g_weight * g_sign * best_eq, minlength=n)
    luck = best_eq[actual] - average
    # the candidates of each turn's actual roll
    lo, hi = offsets[actual], offsets[actual + 1]
    t_offsets = np.concatenate([[0], np.cumsum(hi - lo)])
    take = np.concatenate([np.arange(a, b) for a, b in zip(lo, hi)])
    boards = after[take]
    moves = np.asarray(batch.moves)[take]
    eq = equity[take]
    played = np.full(n, -1, dtype=np.int64)
    best = best_rows[actual] - lo
    for t, turn in enumerate(turns):
        if turn.after is None:
            continue
        cand = boards[t_offsets[t]:t_offsets[t + 1]]
        hit = np.flatnonzero((cand == turn.after).all(axis=(1, 2)))
        played[t] = int(hit[0]) if hit.size else -1
    evaluated = np.ones(eq.shape[0], dtype=bool)
    if depth:
        eq, evaluated = _searched_plays(turns, boards, eq, t_offsets, played, evaluator, depth, met, database,
                                        threads, memo)
        best = np.array([int(np.argmax(np.where(evaluated[a:b], eq[a:b], -np.inf))) if b > a else 0
                         for a, b in zip(t_offsets[:-1], t_offsets[1:])], dtype=np.int64)
    scale = np.array([mwc_scale(turn.state, met) for turn in turns])
    base = np.array([_mwc_base(turn.state, met) for turn in turns])
    return TurnValues(boards, moves, t_offsets, eq, evaluated, played, best, luck, scale, base)


def search_depth(evaluator: Any) -> int:
    """How many plies *evaluator* looks ahead when it is searched ply by ply (GNU
    Backgammon's compiled nets at ``gnubg:N``, a network at ``NAME:N``), else 0."""
    return depth_of(evaluator)


#: The depth to which a search looks cubefully (the cube's value and owner carried down,
#: each side's cube action at each ply: :func:`cubeful_after`); deeper, the N-ply
#: probabilities are turned cubeful by the 0-ply formula.
CUBEFUL_PLIES = 2


def _searched_plays(turns: list[Turn], boards: np.ndarray, eq: np.ndarray, offsets: np.ndarray, played: np.ndarray,
                    evaluator: Any, depth: int, met: MatchEquityTable, database: Any,
                    threads: int, memo: SearchMemo | None) -> tuple[np.ndarray, np.ndarray]:
    """Each turn's plays through GNU Backgammon's analysis filters to *depth* plies
    (:meth:`fastgen.players.search.Search.gnubg` with ``analysis=True``: up to 16 within
    0.32 of the best at 0 ply go on), each valued at a ply cubefully (to 2 plies:
    :func:`cubeful_after`; deeper, the cubeful equity of that ply's probabilities); the
    play made passes every filter, so it is judged at the depth of the best. Returns
    the equities and which rows were valued deepest in their turn."""
    search = Search.gnubg(depth, analysis=True)
    levels = [searched(evaluator, k) for k in range(depth + 1)]
    pruning = pruning_of(evaluator)
    out, evaluated = eq.copy(), np.zeros(eq.shape[0], dtype=bool)
    for t, turn in enumerate(turns):
        lo, hi = int(offsets[t]), int(offsets[t + 1])
        if hi == lo:
            continue
        rows = boards[lo:hi]

        def score(k: int, idx: np.ndarray, rows: np.ndarray = rows, lo: int = lo, st: MatchState = turn.state) -> np.ndarray:
            if k == 0:
                return eq[lo + idx]
            if k <= CUBEFUL_PLIES:  # GNU Backgammon's cubeful search: the cube at every ply
                return cubeful_after(rows[idx], [st] * idx.shape[0], levels[0], k, met, database, threads,
                                     memo=memo, pruning=pruning)
            theirs = opponent_probs(levels[k], rows[idx], threads=threads)
            return _after_values(rows[idx], theirs, [st], np.zeros(idx.shape[0], np.int64), met, database,
                                 efficiency_for(evaluator, k))

        p = int(played[t])
        e, ply = search.rank(score, hi - lo, keep=p if p >= 0 else None)
        top = int(ply.max())
        out[lo:hi] = e
        evaluated[lo:hi] = ply == top
    return out, evaluated


def _normalised(values: np.ndarray, state: MatchState, met: MatchEquityTable) -> np.ndarray:
    """Values as :func:`fastgen.cube.lookahead.one_ply_batch` gives them at *state*
    (money per unit of the cube, match MWC) as normalised equities."""
    score = score_of(state, met)
    return values if score is None else np.asarray(score.equity(values, state.cube_value), dtype=np.float64)


def cubeful_after(after: np.ndarray, movers: list[MatchState], evaluator: Any, depth: int, met: MatchEquityTable,
                  database: Any, threads: int, probs: np.ndarray | None = None,
                  memo: SearchMemo | None = None, pruning: Pruning | None = None) -> np.ndarray:
    """The mover's normalised equity after each play (*after*: (M, 2, 25), the mover in
    row 1, ``movers[i]`` its state) looked at *depth* (1 or 2) plies deeper, cube
    included: the opponent's no double and double/take at that depth
    (:func:`fastgen.cube.lookahead.one_ply_batch`, :func:`~fastgen.cube.lookahead.two_ply_batch`
    of *evaluator*, its 0-ply nets), then its cube action, double/pass the cube. A play
    that ends the game keeps its exact value. *probs*: an (M, 5) array that receives the
    opponent's probabilities, it on roll, along the search's plays (as GNU Backgammon's
    cubeful hint shows them; exact where the play ends the game). *memo*: the searches
    already made in this job (:class:`fastgen.cube.lookahead.SearchMemo`). *pruning*: the
    choices inside the search pruned (:class:`fastgen.cube.lookahead.Pruning`)."""
    out = np.empty(after.shape[0])
    res = result_types(after)
    ended = np.flatnonzero(res > 0)
    if probs is not None and ended.size:  # the opponent has lost
        probs[ended] = 0.0
        probs[ended, 3] = res[ended] >= 2
        probs[ended, 4] = res[ended] >= 3
    for e in ended.tolist():  # exact, as at 0 ply
        out[e] = _after_values(after[e:e + 1], np.zeros((1, 5)), [movers[e]], np.zeros(1, np.int64), met, None)[0]
    going = np.flatnonzero(res == 0)
    if not going.size:
        return out
    states: list[MatchState] = []
    index: dict[MatchState, int] = {}
    row_state = np.empty(going.size, dtype=np.int64)
    for i, g in enumerate(going):
        st = _flipped(movers[g])
        row_state[i] = index.setdefault(st, len(states))
        if row_state[i] == len(states):
            states.append(st)
    opp = np.ascontiguousarray(after[going][:, ::-1])
    found = np.zeros((going.size, 5))
    nd1, dt1 = searched_batch(opp, evaluator, states, row_state, depth, met=met, database=database, threads=threads,
                              efficiency=(efficiency_for(evaluator, 0), efficiency_for(evaluator, 1)), probs=found,
                              memo=memo, pruning=pruning)
    if probs is not None:
        probs[going] = found
    probs = evaluate(evaluator, opp, threads=threads)
    efficiency = efficiency_for(evaluator, depth)
    for k, st in enumerate(states):
        r = np.flatnonzero(row_state == k)
        d = cube_decisions(opp[r], probs[r], st, met=met, database=database, efficiency=efficiency)
        nd, dt, dp = _normalised(nd1[r], st, met), _normalised(dt1[r], st, met), d.equities[:, 2]
        with np.errstate(invalid="ignore"):  # NaN where the opponent cannot double: no double
            doubles = (dt >= nd) & (dp >= nd)
        out[going[r]] = -np.where(doubles, np.minimum(dt, dp), nd)
    return out


def judge_cubes(points: list[CubePoint], evaluator: Callable[[np.ndarray], Any], met: MatchEquityTable, *,
                plies: int = 0, threads: int = 1, database: Any = None, memo: SearchMemo | None = None) -> CubeValues:
    """The cube decisions of *points* at *plies* (module docstring); *memo*: the cubeful
    searches :func:`judge_turns` made (the position after a play is the next cube
    decision's), not made again."""
    if plies:
        evaluator = searched(evaluator, plies)
    n = len(points)
    equities = np.full((n, 3), np.nan)
    actions: list = [None] * n
    if not n:
        return CubeValues(equities, actions, np.zeros(0))
    boards = np.stack([p.board for p in points])
    probs = evaluate(evaluator, boards, threads=threads)
    efficiency = efficiency_for(evaluator, search_depth(evaluator))
    groups: dict[MatchState, list[int]] = {}
    for i, p in enumerate(points):
        groups.setdefault(p.state, []).append(i)
    for st, idx in groups.items():
        rows = np.asarray(idx)
        d = cube_decisions(boards[rows], probs[rows], st, met=met, database=database, efficiency=efficiency)
        equities[rows] = d.equities
        for k, r in enumerate(rows):
            actions[r] = d.actions[d.action[k]]
    depth = search_depth(evaluator)
    if 1 <= depth <= CUBEFUL_PLIES:  # GNU Backgammon's cubeful search on its 0-ply nets
        _lookahead_cubes(boards, points, equities, actions, probs, searched(evaluator, 0), depth, met, database,
                         threads, memo, pruning_of(evaluator))
    scale = np.array([mwc_scale(p.state, met) for p in points])
    return CubeValues(equities, actions, scale)


def _lookahead_cubes(boards: np.ndarray, points: list[CubePoint], equities: np.ndarray, actions: list,
                     probs: np.ndarray, evaluator: Callable[[np.ndarray], Any], depth: int, met: MatchEquityTable,
                     database: Any, threads: int, memo: SearchMemo | None, pruning: Pruning | None) -> None:
    """No double and double/take of the *points* where the side on roll may double, at
    *depth* (1 or 2) plies (:func:`fastgen.cube.lookahead.one_ply_batch`,
    :func:`~fastgen.cube.lookahead.two_ply_batch`), and the proper action from them, in
    place; double/pass stays the cube's value."""
    live = np.flatnonzero(~np.isnan(equities[:, 1]))
    if not live.size:
        return
    states = list(dict.fromkeys(points[i].state for i in live))
    index = {st: k for k, st in enumerate(states)}
    row_state = np.array([index[points[i].state] for i in live], dtype=np.int64)
    nd1, dt1 = searched_batch(np.ascontiguousarray(boards[live]), evaluator, states, row_state, depth, met=met,
                              database=database, threads=threads,
                              efficiency=(efficiency_for(evaluator, 0), efficiency_for(evaluator, 1)), memo=memo,
                              pruning=pruning)
    for j, i in enumerate(live):
        st = points[i].state
        nd, dt = (float(_normalised(np.array([v]), st, met)[0]) for v in (nd1[j], dt1[j]))
        dp = float(equities[i, 2])
        equities[i, :2] = nd, dt
        owned = st.cube_owner is not None and st.cube_owner == st.on_roll
        actions[i] = proper_action(nd, dt, dp, gammons=bool(probs[i, 1] > 0), owned=owned,
                                   money=not st.match_length, jacoby=st.jacoby)
