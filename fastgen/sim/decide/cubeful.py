"""Cubeful rollouts: the cube decision of a position settled by playing it out.

:func:`rollout_cube` (``fastgen.rollout_cube``) answers "double or
not, take or pass" for a position before its roll by playing *trials* games from it
twice, on the same dice:

- **no double**: the side on roll rolls with the cube as it is;
- **double, take**: the cube is turned (twice the value, owned by the opponent) and
  the side on roll rolls;

after which both sides play on with the evaluator's greedy plays and its 0-ply cube
decisions (:func:`fastgen.players.policies.cube_policy`: doubling, taking, passing, redoubling
as the position goes) until the game ends. A game's value is the side on roll's points
(result times the cube, a pass worth the cube before the double) per unit of the cube on
the table (money), or its match-winning chance at the score the game leaves (match).
*Double, pass* needs no rollout: +1 per cube, or the MWC of winning the cube.

Trial *k* throws the dice of trial *k* of :mod:`fastgen.sim.decide.dice` in both
games (common random numbers, the first two rolls stratified when *quasi_random*), so
the two estimates are paired: the standard error of their difference is usually far
below either one's.

Variance reduction (*variance_reduction*, on by default): at every roll, its luck is
the value of the roll's best play minus the average of that over the 21 rolls, values
being the mover's cubeless equity after the play at 0 ply (a play bearing off the last
checker its exact result) times the cube, seen by the side on roll of the rolled-out
position; in a match, that equity times half the MWC swing between winning and losing
the cube at the score. A game's value minus the sum of its luck has the same mean
(each luck averages 0 over the 21 rolls whatever the position) and, as the luck is
most of what makes games differ, a much smaller spread. It costs the 21 rolls' plays
and evaluations at every turn.
The proper action is then decided from the three values by the rules of
:mod:`fastgen.cube.decision`.

With *threads* > 1 and a compiled network, the trials are played in blocks side by side,
one thread a block: one block's Python bookkeeping runs while another's network and move
generator run. Every value is computed for each game on its own (no sum whose rounding
depends on the batch), so the answer is the same to the last bit for any thread count.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from fastgen.players import specs
from fastgen.core.boards import DISTINCT_ROLLS, as_board
from fastgen.core.ids import position_id
from fastgen.core.state import MatchState
from fastgen.core._core import StopFlag
from fastgen.core.generate import plays_batch
from fastgen.cube.decision import CubeAction, cube_decisions, proper_action
from fastgen.cube.match import Score
from fastgen.cube.met import MatchEquityTable, default_met
from fastgen.errors import InvalidArgumentError, InvalidCubeStateError
from fastgen.nets.network import Network as CompiledNetwork
from fastgen.players.base import runs_without_gil
from fastgen.players.evaluators import ReferenceNetwork, equity, evaluate
from fastgen.players.policies import cube_policy, step_policy
from fastgen.games.game import result_types
from fastgen.sim.cubeplay import CENTRED, CubeTable, cube_phase, may_double, play_phase
from fastgen.sim.decide.dice import dice_at
from fastgen.sim.options import TrialOptions, merge_options
from fastgen.sim.pool import MAX_TURNS, raise_turn_limit
from fastgen._util import check_int, check_stopped, side_by_side

__all__ = ["CubeRollout", "rollout_cube"]


@dataclass
class CubeRollout:
    """A cubeful rollout's answer: ``no_double``, ``double_take``, ``double_pass``
    (money: per unit of the cube on the table; match: MWC), the standard errors of the
    first two and of their difference (paired), ``equities`` the three normalised to
    the cube on the table, and ``action`` the proper action they give."""

    board: np.ndarray
    state: MatchState
    evaluator: str
    trials: int
    seed: int
    quasi_random: bool
    variance_reduction: bool
    match: bool
    no_double: float
    double_take: float
    double_pass: float
    no_double_se: float
    double_take_se: float
    difference_se: float
    equities: tuple[float, float, float]
    action: CubeAction
    seconds: float = 0.0
    stats: dict = field(default_factory=dict)
    #: The :class:`fastgen.sim.TrialOptions` that played the trials.
    options: Any = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict:
        """The answer as plain JSON-serializable values."""
        return {"position_id": position_id(self.board), "evaluator": self.evaluator, "trials": self.trials,
                "seed": self.seed, "quasi_random": self.quasi_random,
                "variance_reduction": self.variance_reduction, "match": self.match,
                "match_length": self.state.match_length, "score": list(self.state.score),
                "cube_value": self.state.cube_value, "cube_owner": self.state.cube_owner,
                "no_double": self.no_double, "double_take": self.double_take, "double_pass": self.double_pass,
                "no_double_se": self.no_double_se, "double_take_se": self.double_take_se,
                "difference_se": self.difference_se, "equities": list(self.equities), "action": self.action.value,
                "seconds": self.seconds}

    def __str__(self) -> str:
        def v(x: float) -> str:
            return f"{100 * x:8.3f}%" if self.match else f"{x:+8.4f}"

        def se(x: float) -> str:
            return f"{100 * x:.3f}%" if self.match else f"{x:.4f}"

        return "\n".join([
            f"cubeful rollout of {position_id(self.board)} ({self.trials} trials, {self.evaluator}, seed {self.seed})",
            f"  No double    {v(self.no_double)} +/- {se(self.no_double_se)}",
            f"  Double, take {v(self.double_take)} +/- {se(self.double_take_se)}  "
            f"(difference +/- {se(self.difference_se)})",
            f"  Double, pass {v(self.double_pass)}",
            f"Proper cube action: {self.action.value}",
        ])


#: Each distinct roll's chances out of 36 (1 for a double, 2 for the others).
_ROLL_WEIGHTS = [1.0 if a == b else 2.0 for a, b in DISTINCT_ROLLS.tolist()]
#: The index in DISTINCT_ROLLS of each ordered roll (d1 - 1, d2 - 1).
_ROLL_INDEX = np.zeros((6, 6), dtype=np.int64)
for _i, (_a, _b) in enumerate(DISTINCT_ROLLS):
    _ROLL_INDEX[_a - 1, _b - 1] = _ROLL_INDEX[_b - 1, _a - 1] = _i


def _luck(evaluator: Any, boards: np.ndarray, dice: np.ndarray, threads: int) -> np.ndarray:
    """(n,) the luck of each roll *dice* of *boards* (side on roll in row 1), in that
    side's cubeless equity (module docstring). Each roll's play is the evaluator's
    greedy choice (a network's own ``choose`` where it has one), valued once."""
    n = boards.shape[0]
    batch = plays_batch(np.repeat(boards, len(DISTINCT_ROLLS), axis=0), np.tile(DISTINCT_ROLLS, (n, 1)),
                        threads=threads)
    after = np.asarray(batch.boards)
    offsets = np.asarray(batch.offsets, dtype=np.int64)
    if isinstance(evaluator, (CompiledNetwork, ReferenceNetwork)):
        picks = evaluator.choose(after, offsets, threads=threads) if isinstance(evaluator, CompiledNetwork) \
            else evaluator.choose(after, offsets)
        chosen = after[offsets[:-1] + np.asarray(picks, dtype=np.int64)]
        res = result_types(chosen)
        best = res.astype(np.float64)
        going = np.flatnonzero(res == 0)
        if going.size:
            probs = evaluate(evaluator, np.ascontiguousarray(chosen[going][:, ::-1]), threads=threads)
            best[going] = -equity(probs)
    else:
        res = result_types(after)
        values = res.astype(np.float64)
        going = np.flatnonzero(res == 0)
        if going.size:
            probs = evaluate(evaluator, np.ascontiguousarray(after[going][:, ::-1]), threads=threads)
            values[going] = -equity(probs)
        best = np.maximum.reduceat(values, offsets[:-1])
    best = best.reshape(n, len(DISTINCT_ROLLS))
    actual = best[np.arange(n), _ROLL_INDEX[dice[:, 0] - 1, dice[:, 1] - 1]]
    total = best[:, 0] * _ROLL_WEIGHTS[0]
    for r in range(1, len(DISTINCT_ROLLS)):  # roll by roll, each position on its own: the same in any batch
        total = total + best[:, r] * _ROLL_WEIGHTS[r]
    return actual - total / 36.0  # exact when every roll has the same value


#: Trials a block of trials played side by side gets at least, and at most (a turn of
#: a block is a fraction of a second: Ctrl-C stops the other threads that soon); see
#: :func:`_side_by_side`.
MIN_GROUP = 8
BLOCK_TRIALS = 512


@dataclass
class _Games:
    """The games of one cubeful rollout (both lines, slot ``i`` and ``i + trials`` on
    trial ``i``'s dice) and what playing them needs; :meth:`play` plays a set of slots
    to their end, filling ``points`` and ``luck``."""

    ev: Any
    st: MatchState
    score: Score | None
    arr: np.ndarray
    t: CubeTable
    k: np.ndarray
    points: np.ndarray
    luck: np.ndarray
    max_cube: int
    seed: int
    quasi_random: bool
    variance_reduction: bool

    def play(self, live: np.ndarray, threads: int, progress: Callable[[int], object] | None = None) -> int:
        """Play the slots *live* to their end with *threads* threads a step; returns the
        turns played. *progress* is called with the trials of *live* finished after each
        turn. In a block played side by side whose call is stopping,
        :class:`fastgen._util.Stopped` ends it between two steps."""
        ev, st, score, t, k = self.ev, self.st, self.score, self.t, self.k
        me, c = st.on_roll, st.cube_value
        player = cube_policy(ev, threads=threads)
        players, choose = (player, player), [step_policy(player.chequer, threads=threads)] * 2
        trials = int(np.unique(k[live]).size)
        turn = 0

        def states(i: int) -> MatchState:
            return t.match_state(i, st.match_length, st.score, st.crawford)

        while live.size:
            check_stopped()
            if turn:
                may = may_double(t, live, self.max_cube, st.match_length,
                                 np.broadcast_to(np.array(st.score), (live.size, 2)), np.full(live.size, st.crawford))
                passed, doublers = cube_phase(players, t, live, may, states if st.match_length else None)
                self.points[passed] = np.where(doublers == me, 1, -1) * t.cube[passed]
                live = np.setdiff1d(live, passed, assume_unique=True)
                if not live.size:
                    break
            if turn >= MAX_TURNS:
                raise_turn_limit(int(k[live[0]]), self.arr, MAX_TURNS)
            dice = dice_at(self.seed, t.dice_ids[live], turn, self.quasi_random)
            if self.variance_reduction:
                sign = np.where(t.on_roll[live] == me, 1.0, -1.0)
                cubes = t.cube[live]
                if score is None:
                    scale = cubes / c
                else:
                    scale = np.array([(score.win(int(v)) - score.lose(int(v))) / 2.0 for v in cubes])
                self.luck[live] += sign * scale * _luck(ev, t.boards[live], dice, threads)
            ended, res = play_phase(players, choose, t, live, dice, threads)
            self.points[ended] = np.where(t.on_roll[ended] == me, 1, -1) * res.astype(np.int64) * t.cube[ended]
            live = np.setdiff1d(live, ended, assume_unique=True)
            turn += 1
            if progress is not None:
                progress(int(trials - np.unique(k[live]).size))
        return turn


def _side_by_side(games: _Games, threads: int, trials: int, progress: Callable[[int], object] | None) -> int:
    """:meth:`_Games.play` of the trials (both lines of each) in blocks of consecutive
    trials (as many for each thread, of at most :data:`BLOCK_TRIALS`), *threads*
    threads each taking the next block as one comes free; the first
    thread is the calling one (where Ctrl-C arrives, stopping the others at their next
    chunk of compiled work: :func:`fastgen._util.side_by_side`; and where *progress* is
    called with the trials finished in every block). A compiled network keeps no state
    and runs without the GIL, so one block's Python work runs while another's network
    does. Each slot's values are computed for
    it alone (row by row), so they are the same as one thread's. Returns the turns
    played (the longest block's)."""
    per_thread = -(-trials // (threads * -(-trials // (threads * BLOCK_TRIALS))))  # as many blocks each
    size = max(MIN_GROUP, per_thread)
    blocks = iter(range(0, trials, size))
    lock = threading.Lock()
    done: dict[int, int] = {}
    turns = [0]
    stop = StopFlag()

    def work(k: int) -> None:
        while not stop.is_set():
            with lock:
                lo = next(blocks, None)
            if lo is None:
                return
            hi = min(trials, lo + size)

            def count(finished: int, lo: int = lo) -> None:
                done[lo] = finished
                if progress is not None and k == 0:
                    progress(sum(done.values()))

            got = games.play(np.r_[lo:hi, trials + lo : trials + hi], 1, count)
            with lock:
                turns[0] = max(turns[0], got)

    side_by_side(work, threads, stop)
    if progress is not None:
        progress(trials)
    return turns[0]


def rollout_cube(board: Any, evaluator: Callable[[np.ndarray], Any] | str, state: MatchState | None = None, *,
                 trials: int = 1296, seed: int = 0, quasi_random: bool = True, threads: int = 1,
                 met: MatchEquityTable | None = None, max_cube: int = 64, beavers: bool = True,
                 variance_reduction: bool = True, progress: Callable[[int], object] | None = None,
                 options: TrialOptions | None = None) -> CubeRollout:
    """Roll out the cube decision of *board* (side on roll in row 1, before its roll)
    at *state* (a :class:`fastgen.MatchState`; None: money, cube centred), *trials*
    games for each of no double and double/take on common dice (module docstring),
    with *evaluator*'s greedy plays and 0-ply cube decisions. *met*: the match equity
    table (default GNU Backgammon's); *beavers*: money play names a take worth a beaver
    so (the trials play no beavers); *variance_reduction*: subtract each roll's luck
    (module docstring); *progress*: called with the trials finished; *options*: *trials*,
    *seed*, *quasi_random*, *variance_reduction* and *threads* as one
    :class:`fastgen.sim.TrialOptions` instead of the keywords (not both; its stop and
    truncation rules do not apply here), kept on the answer as ``options``.
    Bad input raises a ValueError subclass quoting it; Ctrl-C stops it promptly."""
    arr = as_board(board)
    ev = specs.evaluator(evaluator)
    st = MatchState(on_roll=1) if state is None else state
    if not isinstance(st, MatchState):
        raise InvalidCubeStateError(f"state must be a fastgen.MatchState or None (money, cube centred), got {state!r}")
    opts = merge_options(TrialOptions, options, trials=trials, seed=seed, quasi_random=quasi_random, threads=threads,
                         variance_reduction=variance_reduction)
    unused = [f for f in ("truncate", "stop_se", "stop_z", "min_trials") if getattr(opts, f) is not None]
    if opts.truncate_bearoff:
        unused.append("truncate_bearoff")
    if unused:
        raise InvalidArgumentError(f"a cubeful rollout plays every trial to the end: {', '.join(unused)} does not "
                                   f"apply, got options={opts!r}")
    trials, seed, threads = opts.trials, opts.seed, opts.threads
    quasi_random, variance_reduction = opts.quasi_random, opts.variance_reduction
    check_int(max_cube, "max_cube", 2, 1 << 20)
    if (arr.sum(axis=1) == 0).any():
        raise InvalidArgumentError(f"the position {position_id(arr)!r} is a finished game")
    probs = evaluate(ev, arr[None], threads=threads)
    first = cube_decisions(arr[None], probs, st, met=met).decision(0)  # checks the state; can it double?
    if first.action is CubeAction.CANNOT_DOUBLE:
        raise InvalidCubeStateError(f"the side on roll cannot double at this state, so there is no cube decision to "
                                    f"roll out: {st!r}")
    me, c = st.on_roll, st.cube_value
    met = default_met() if met is None and st.match_length else met
    score = None
    if st.match_length:
        assert met is not None
        score = Score(met, st.match_length - st.score[me], st.match_length - st.score[1 - me], crawford=st.crawford,
                      player=me)
    n = 2 * trials
    k = np.tile(np.arange(trials, dtype=np.int64), 2)
    t = CubeTable(n, np.ascontiguousarray(arr[None]), np.full(n, me, dtype=np.int8), k * 0)
    t.dice_ids[:] = k
    owner0 = CENTRED if st.cube_owner is None else st.cube_owner
    t.owner[:trials], t.cube[:trials] = owner0, c
    t.owner[trials:], t.cube[trials:] = 1 - me, 2 * c
    points = np.zeros(n, dtype=np.int64)   # the side on roll's points, signed
    luck = np.zeros(n)                      # the luck of its games, in its values' units
    games = _Games(ev, st, score, arr, t, k, points, luck, max_cube, seed, bool(quasi_random),
                   bool(variance_reduction))
    t0 = time.perf_counter()
    if threads > 1 and trials >= 2 * MIN_GROUP and runs_without_gil(ev):
        turn = _side_by_side(games, threads, trials, progress)
    else:
        turn = games.play(np.arange(n), threads, progress)
    if score is None:
        values = points / c
        dp = 1.0
    else:
        lookup = {int(v): (score.win(int(v)) if v > 0 else score.lose(int(-v))) for v in np.unique(points)}
        values = np.array([lookup[int(v)] for v in points])
        dp = score.win(c)
    values = values - luck
    nd_v, dt_v = values[:trials], values[trials:]

    def se(x: np.ndarray) -> float:
        return float(x.std(ddof=1) / math.sqrt(x.size)) if x.size > 1 else float("inf")

    nd, dt = float(nd_v.mean()), float(dt_v.mean())
    eq = (nd, dt, dp) if score is None else tuple(float(score.equity(v, c)) for v in (nd, dt, dp))
    action = proper_action(eq[0], eq[1], eq[2], gammons=bool(first.probs[1] > 0), owned=owner0 == me,
                           money=score is None, beavers=bool(beavers), jacoby=st.jacoby)
    name = ev.name
    return CubeRollout(arr.copy(), st, str(name), trials, seed, bool(quasi_random), bool(variance_reduction),
                       score is not None, nd, dt, float(dp),
                       se(nd_v), se(dt_v), se(dt_v - nd_v), (float(eq[0]), float(eq[1]), float(eq[2])), action,
                       time.perf_counter() - t0, {"turns": turn}, opts)
