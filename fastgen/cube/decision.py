"""Cube decisions: should the side on roll double, and should its opponent take?

:func:`cube_decisions` answers for many positions at one score and cube (arrays);
:func:`fastgen.cube.action.cube_action` for one position, evaluating it if no
probabilities are given.
Both work from the five cubeless probabilities of the side on roll, before its roll,
the way GNU Backgammon decides at 0-ply: the cubeful values of *no double*, *double,
take* and *double, pass* (:mod:`fastgen.cube.money`, :mod:`fastgen.cube.match`) with
the cube life of the position's class (:mod:`fastgen.cube.efficiency`), compared as
equities normalised to the cube on the table. With ND, DT, DP those three:

- double when DT >= ND and DP >= ND (a double gains whatever the answer); the
  opponent takes when DP > DT. A double that gains less than 1e-5 is *optional*;
- otherwise no double, or *too good* to double (ND above what a double gets: play on
  for a gammon) when the side on roll can win a gammon and the double would be passed
  or the position is worth more than a pass;
- money play with beavers: a take worth at least -2 after the double (DT in [-2, 0])
  is a *beaver*, and "no double, beaver" when the double would lose more than half of
  the no-double equity;
- *redouble* in the names when the side on roll owns the cube.

The side on roll cannot double in the Crawford game, in a post-Crawford game when it
is the one a point from winning, when the cube on the table already wins it the match,
when the cube is at its cap (the state's ``max_cube``), or when its opponent owns the
cube: :attr:`CubeAction.CANNOT_DOUBLE`, with the no-double value and no double values
(NaN).

A state no cube question can be asked at is refused (:func:`check_state`:
:class:`~fastgen.errors.InvalidCubeStateError` quoting it): a game that is not being
played (over, resigned, dropped, not started), dice already rolled (a side doubles only
before its roll), a cube above its cap, a score that leaves a player 0 or more than 64
points away, a Crawford game where not exactly one side is 1 point away, and a cube
turned or owned in the Crawford game.

A side that has borne off a checker can no longer lose a gammon: its gammon
probabilities are taken as 0 whatever the evaluator said.

Bear-offs of at most six checkers a side: given a two-sided bear-off *database* with
cubeful values of 6 points and 6 checkers or more (:func:`fastgen.bearoff.build_two_sided`),
the exact values are used there, as the program does with its own database.
"""

from __future__ import annotations

import enum
from html import escape
from dataclasses import dataclass
from typing import Any

import numpy as np

from fastgen._typing import ArrayLike
from fastgen.core.boards import as_boards
from fastgen.bearoff.database import TwoSidedDatabase
from fastgen.bearoff.index import side_index_trusted
from fastgen.core.state import GameState, MatchState
from fastgen.cube.efficiency import CLASS_NAMES, CubeEfficiency, check_efficiency, cube_life, position_class
from fastgen.cube.match import Score, Split, dead_mwc, match_decision
from fastgen.cube.met import MAX_AWAY, MatchEquityTable, default_met
from fastgen.cube.money import CENTRED, OPPONENT, OWN, cubeful_equity, money_decision
from fastgen.errors import InvalidCubeStateError

__all__ = ["CubeAction", "CubeDecision", "CubeDecisions", "cube_decisions", "proper_action", "check_state",
           "may_double", "may_double_rule", "OPTIONAL"]

#: A double gaining less than this (normalised equity) is optional.
OPTIONAL = 1e-5


class CubeAction(enum.Enum):
    """The proper cube action, named as GNU Backgammon names it."""

    DOUBLE_TAKE = "Double, take"
    DOUBLE_PASS = "Double, pass"
    DOUBLE_BEAVER = "Double, beaver"
    NO_DOUBLE_TAKE = "No double, take"
    NO_DOUBLE_BEAVER = "No double, beaver"
    TOO_GOOD_TAKE = "Too good to double, take"
    TOO_GOOD_PASS = "Too good to double, pass"
    OPTIONAL_DOUBLE_TAKE = "Optional double, take"
    OPTIONAL_DOUBLE_PASS = "Optional double, pass"
    OPTIONAL_DOUBLE_BEAVER = "Optional double, beaver"
    REDOUBLE_TAKE = "Redouble, take"
    REDOUBLE_PASS = "Redouble, pass"
    NO_REDOUBLE_TAKE = "No redouble, take"
    NO_REDOUBLE_BEAVER = "No redouble, beaver"
    TOO_GOOD_REDOUBLE_TAKE = "Too good to redouble, take"
    TOO_GOOD_REDOUBLE_PASS = "Too good to redouble, pass"
    OPTIONAL_REDOUBLE_TAKE = "Optional redouble, take"
    OPTIONAL_REDOUBLE_PASS = "Optional redouble, pass"
    CANNOT_DOUBLE = "You cannot double"

    @property
    def doubles(self) -> bool:
        """The side on roll should double (optional doubles included)."""
        return self.value.startswith(("Double", "Redouble", "Optional"))


# The decision's codes: an index into _NAMES[redouble]
_NAMES = {
    False: (CubeAction.DOUBLE_TAKE, CubeAction.DOUBLE_PASS, CubeAction.DOUBLE_BEAVER, CubeAction.NO_DOUBLE_TAKE,
            CubeAction.NO_DOUBLE_BEAVER, CubeAction.TOO_GOOD_TAKE, CubeAction.TOO_GOOD_PASS,
            CubeAction.OPTIONAL_DOUBLE_TAKE, CubeAction.OPTIONAL_DOUBLE_PASS, CubeAction.OPTIONAL_DOUBLE_BEAVER,
            CubeAction.CANNOT_DOUBLE, CubeAction.NO_DOUBLE_BEAVER),
    True: (CubeAction.REDOUBLE_TAKE, CubeAction.REDOUBLE_PASS, CubeAction.DOUBLE_BEAVER, CubeAction.NO_REDOUBLE_TAKE,
           CubeAction.NO_DOUBLE_BEAVER, CubeAction.TOO_GOOD_REDOUBLE_TAKE, CubeAction.TOO_GOOD_REDOUBLE_PASS,
           CubeAction.OPTIONAL_REDOUBLE_TAKE, CubeAction.OPTIONAL_REDOUBLE_PASS, CubeAction.OPTIONAL_DOUBLE_BEAVER,
           CubeAction.CANNOT_DOUBLE, CubeAction.NO_REDOUBLE_BEAVER),
}
# ND_BEAVER: the beaver a double would get is worth more than half the no-double equity
# (named "No double, beaver" whoever owns the cube); NR_BEAVER: no double, and a double
# would be beavered ("No redouble, beaver" when the side on roll owns the cube)
(D_TAKE, D_PASS, D_BEAVER, ND_TAKE, ND_BEAVER, TG_TAKE, TG_PASS, OPT_TAKE, OPT_PASS, OPT_BEAVER,
 CANNOT, NR_BEAVER) = range(12)


def _codes(nd, dt, dp, wg, *, beavers: bool, pass_may_be_optional: bool) -> np.ndarray:
    """The decision codes of normalised (nd, dt, dp) arrays (module docstring)."""
    gam = wg > 0
    beaver = beavers & (dt >= -2.0) & (dt <= 0.0)
    opt_take = np.abs(dt - nd) <= OPTIONAL
    opt_pass = (np.abs(nd - dp) <= OPTIONAL) & gam & pass_may_be_optional
    too_good_pass = np.where(gam, TG_PASS, D_PASS)
    double_taken = np.where(beaver, np.where(2.0 * dt < nd, ND_BEAVER, np.where(opt_take, OPT_BEAVER, D_BEAVER)),
                            np.where(opt_take, OPT_TAKE, D_TAKE))
    double = np.where(dp > dt, double_taken, np.where(opt_pass, OPT_PASS, D_PASS))
    no_double = np.where(
        nd > dt,
        np.where(dt > dp, too_good_pass,
                 np.where(nd > dp, np.where(gam, TG_TAKE, ND_TAKE), np.where(beaver, NR_BEAVER, ND_TAKE))),
        too_good_pass)
    return np.where((dt >= nd) & (dp >= nd), double, no_double).astype(np.int8)


def proper_action(no_double: float, double_take: float, double_pass: float, *, gammons: bool = True,
                  owned: bool = False, money: bool = True, beavers: bool = True, jacoby: bool = False) -> CubeAction:
    """The proper action for three cubeful values already known (a rollout's, say),
    as equities normalised to the cube on the table, by the rules of the module
    docstring. *gammons*: the side on roll can still win a gammon; *owned*: it owns the
    cube (a redouble); *money*, *beavers*, *jacoby*: the game's terms."""
    code = _codes(np.array([no_double]), np.array([double_take]), np.array([double_pass]),
                  np.array([1.0 if gammons else 0.0]), beavers=beavers and money,
                  pass_may_be_optional=not money or owned or not jacoby)
    return _NAMES[owned][int(code[0])]


@dataclass(frozen=True)
class CubeDecision:
    """One position's cube decision.

    ``no_double``, ``double_take``, ``double_pass``: money: equities per unit of the
    cube on the table (as GNU Backgammon prints them: double, pass is +1); match: the
    side on roll's match-winning chances. ``equities``: the three as equities
    normalised to the cube on the table (the same as the first three in money play).
    ``cubeless``: the cubeless money equity, or in match play the dead-cube MWC.
    ``probs``: the five cubeless probabilities used. ``action``: the proper action;
    ``doubles``: it is a double (optional ones included); ``takes``: the answer to a
    double is to take (a beaver counts). ``position_class`` and ``cube_life``: the class
    and x used."""

    no_double: float
    double_take: float
    double_pass: float
    equities: tuple[float, float, float]
    cubeless: float
    probs: tuple[float, float, float, float, float]
    action: CubeAction
    doubles: bool
    takes: bool
    match: bool
    position_class: str
    cube_life: float

    @property
    def ranked(self) -> tuple[tuple[str, float, float], ...]:
        """The three lines as GNU Backgammon's hint lists them, the proper one first:
        ``(label, value, value minus the first line's value)``. After a proper double
        (or redouble) the opponent's proper answer comes first, then the other answer,
        then "No double"; otherwise "No double" first, then the two answers from the
        higher value down. A position where the side cannot double has one line."""
        nd = ("No double", self.no_double)
        if self.action is CubeAction.CANNOT_DOUBLE:
            return ((nd[0], nd[1], 0.0),)
        dt, dp = ("Double, take", self.double_take), ("Double, pass", self.double_pass)
        lines: tuple[tuple[str, float], ...]
        if self.action.value.startswith(("Double", "Redouble")):
            answers = (dt, dp) if self.takes else (dp, dt)
            lines = (*answers, nd)
        else:
            lines = (nd, *sorted((dt, dp), key=lambda line: -line[1]))
        return tuple((label, value, value - lines[0][1]) for label, value in lines)

    def _repr_html_(self) -> str:
        """The decision as a small HTML table for Jupyter: the lines ranked as
        :attr:`ranked` (money: equity per cube on the table; match: match-winning
        chances), what each costs against the first, the proper action above them."""
        def value(x: float) -> str:
            return f"{100 * x:.2f}%" if self.match else f"{x:+.3f}"

        rows = "".join(f"<tr><td>{name}</td><td>{value(v)}</td><td>{'' if i == 0 else value(cost)}</td></tr>"
                       for i, (name, v, cost) in enumerate(self.ranked))
        p = self.probs
        return (f'<div class="fastgen-cube"><p><b>Proper cube action: {escape(self.action.value)}</b></p>'
                f"<table><tr><th></th><th>{'MWC' if self.match else 'equity'}</th><th>cost</th></tr>{rows}</table>"
                f"<p>cubeless: win {p[0]:.3f} (gammon {p[1]:.3f}, backgammon {p[2]:.3f}), lose gammon {p[3]:.3f}, "
                f"lose backgammon {p[4]:.3f}; {escape(self.position_class)} position, cube life "
                f"{self.cube_life:.2f}</p></div>")


@dataclass(frozen=True)
class CubeDecisions:
    """Many positions' decisions at one state: (N,) arrays named as
    :class:`CubeDecision`'s fields (``equities`` (N, 3), ``probs`` (N, 5), ``action``
    int8 codes into :attr:`actions`), and ``match``. ``decision(i)`` is position *i*'s
    :class:`CubeDecision`."""

    no_double: np.ndarray
    double_take: np.ndarray
    double_pass: np.ndarray
    equities: np.ndarray
    cubeless: np.ndarray
    probs: np.ndarray
    action: np.ndarray
    actions: tuple[CubeAction, ...]
    takes: np.ndarray
    match: bool
    position_class: np.ndarray
    cube_life: np.ndarray

    @property
    def doubles(self) -> np.ndarray:
        """(N,) bool: the proper action is a double."""
        codes = np.array([a.doubles for a in self.actions])
        return codes[self.action]

    def decision(self, i: int) -> CubeDecision:
        """Position *i*'s :class:`CubeDecision`."""
        action = self.actions[int(self.action[i])]
        nd, dt, dp = (float(v) for v in self.equities[i])
        p, wg, wb, lg, lb = (float(v) for v in self.probs[i])
        return CubeDecision(float(self.no_double[i]), float(self.double_take[i]), float(self.double_pass[i]),
                            (nd, dt, dp), float(self.cubeless[i]), (p, wg, wb, lg, lb), action, action.doubles, bool(self.takes[i]),
                            self.match, CLASS_NAMES[int(self.position_class[i])], float(self.cube_life[i]))

    def __len__(self) -> int:
        return int(self.action.shape[0])


def _quoted(value: Any) -> str:
    text = " ".join(repr(value).split())
    return text if len(text) <= 200 else text[:200] + "..."


def as_numbers(probs: Any) -> np.ndarray:
    """*probs* as a float64 array when it is an array (or nested sequence) of real
    numbers; :class:`~fastgen.errors.InvalidCubeStateError` quoting it otherwise (a dict,
    None, strings, a ragged list)."""
    try:
        raw = np.asarray(probs)
        kind = raw.dtype.kind
        arr = raw.astype(np.float64) if kind in "iuf" else None
    except (TypeError, ValueError):
        arr = None
    if arr is None:
        raise InvalidCubeStateError(f"probs must be numbers, five a board (win, win gammon, win backgammon, lose "
                                    f"gammon, lose backgammon), got {_quoted(probs)}")
    return arr


def _check_probs(probs: Any, n: int) -> np.ndarray:
    arr = as_numbers(probs)
    if arr.shape != (n, 5):
        raise InvalidCubeStateError(f"probs must be ({n}, 5) cubeless probabilities (one row a board), got shape "
                                    f"{arr.shape}: {_quoted(probs)}")
    p, wg, wb, lg, lb = arr.T
    eps = 1e-6
    bad = ~np.isfinite(arr).all(axis=1) | (arr < -eps).any(axis=1) | (arr > 1 + eps).any(axis=1)
    bad |= (wb > wg + eps) | (lb > lg + eps) | (wg > p + eps) | (lg > 1 - p + eps)
    if bad.any():
        i = int(np.nonzero(bad)[0][0])
        raise InvalidCubeStateError(
            f"probs row {i} is not five cubeless probabilities (win, win gammon, win backgammon, lose gammon, lose "
            f"backgammon: each in [0, 1], backgammons within gammons, gammons within their side): {arr[i].tolist()!r}")
    return np.clip(arr, 0.0, 1.0)


def _state_of(state: Any) -> MatchState:
    if state is None:
        return MatchState()
    if not isinstance(state, MatchState):
        raise InvalidCubeStateError(f"state must be a fastgen.MatchState or None (money, cube centred), got {state!r}")
    return state


def _owner(state: MatchState) -> int:
    if state.cube_owner is None:
        return CENTRED
    return OWN if state.cube_owner == state.on_roll else OPPONENT


def _aways(state: MatchState) -> tuple[int, int]:
    me = state.on_roll
    return state.match_length - state.score[me], state.match_length - state.score[1 - me]


def check_state(state: Any) -> MatchState:
    """*state* (None: money, cube centred) as a :class:`fastgen.MatchState` a cube
    question can be asked at; :class:`~fastgen.errors.InvalidCubeStateError` quoting it
    when no such question has an answer (module docstring)."""
    st = _state_of(state)
    if st.game_state is not GameState.PLAYING:
        why = {GameState.NONE: "no game has started", GameState.OVER: "the game is over",
               GameState.RESIGNED: "the game ended by resignation", GameState.DROPPED: "the game ended by a "
               "passed double"}[st.game_state]
        raise InvalidCubeStateError(f"{why} (game_state {st.game_state.name}): there is no cube decision to make: "
                                    f"{st!r}")
    if st.dice != (0, 0):
        raise InvalidCubeStateError(f"the dice are already rolled ({st.dice[0]}-{st.dice[1]}): a side may double "
                                    f"only before its roll: {st!r}")
    if st.cube_value > st.max_cube:
        raise InvalidCubeStateError(f"the cube at {st.cube_value} is above its cap, max_cube {st.max_cube}: {st!r}")
    if st.match_length:
        away, opponent_away = _aways(st)
        if not (1 <= away <= MAX_AWAY and 1 <= opponent_away <= MAX_AWAY):
            raise InvalidCubeStateError(f"the score must leave both players 1 to {MAX_AWAY} points away: {st!r}")
        if st.crawford and (away == 1) == (opponent_away == 1):
            raise InvalidCubeStateError(
                f"a Crawford game needs exactly one player 1 point from winning the match; the score "
                f"{st.score[0]}-{st.score[1]} of a {st.match_length}-point match leaves the side on roll {away} "
                f"away and its opponent {opponent_away} away: {st!r}")
        if st.crawford and (st.cube_value != 1 or st.cube_owner is not None):
            raise InvalidCubeStateError(f"no one doubles in the Crawford game, yet the cube is at {st.cube_value}"
                                        f"{'' if st.cube_owner is None else f' and owned by player {st.cube_owner}'}: "
                                        f"{st!r}")
    return st


def may_double_rule(cube: Any, max_cube: Any, opponent_owns: Any, away: Any, opponent_away: Any,
                    crawford: Any) -> np.ndarray:
    """Whether the side on roll may double, elementwise over arrays that broadcast
    together: *cube* the cube's value, *max_cube* its cap, *opponent_owns* whether the
    opponent owns the cube, *away* and *opponent_away* the points the side on roll and
    its opponent need to win the match (0: money play), *crawford* whether this is the
    Crawford game. A side may double with the cube centred or its own and below its cap;
    in a match also not in the Crawford game, not in a later game as the one a point
    from winning, and not when the cube on the table already wins it the match."""
    cube = np.asarray(cube)
    away = np.asarray(away)
    opponent_away = np.asarray(opponent_away)
    crawford = np.asarray(crawford, dtype=bool)
    may = ~np.asarray(opponent_owns, dtype=bool) & (cube < max_cube)
    post_crawford = ~crawford & (np.minimum(away, opponent_away) == 1)
    in_match = ~crawford & (cube < away) & ~(post_crawford & (away == 1))
    return may & ((away == 0) | in_match)


def _may_double(state: MatchState, away: int, opponent_away: int, owner: int) -> bool:
    return bool(may_double_rule(state.cube_value, state.max_cube, owner == OPPONENT, away, opponent_away,
                                state.crawford))


def may_double(state: MatchState) -> bool:
    """Whether the side on roll may double at the :func:`checked <check_state>` *state*
    (module docstring); where it may not, a decision is :attr:`CubeAction.CANNOT_DOUBLE`."""
    away, opponent_away = _aways(state) if state.match_length else (0, 0)
    return _may_double(state, away, opponent_away, _owner(state))


def _bearoff_values(arr: np.ndarray, database: Any) -> tuple[np.ndarray, np.ndarray]:
    """(mask, (n, 4) values): which boards the two-sided *database* holds and its
    equities (cubeless, owned, centred, opponent owns) for them."""
    if not isinstance(database, TwoSidedDatabase) or not database.cubeful:
        raise InvalidCubeStateError(f"database must be a cubeful fastgen.bearoff two-sided database, got {database!r}")
    me = side_index_trusted(arr, 1, database.points, database.checkers)
    opp = side_index_trusted(arr, 0, database.points, database.checkers)
    mask = (me >= 0) & (opp >= 0)
    return mask, database.equities(me[mask], opp[mask])


def cube_decisions(boards: ArrayLike, probs: ArrayLike, state: MatchState | None = None, *,
                   met: MatchEquityTable | None = None, beavers: bool = True, database: Any = None,
                   classes: np.ndarray | None = None, efficiency: CubeEfficiency | None = None) -> CubeDecisions:
    """The cube decisions of (N, 2, 25) *boards* (side on roll in row 1, before its
    roll) with their (N, 5) cubeless *probs*, all at one *state* (a
    :class:`fastgen.MatchState`: its match length, score, cube value and owner, the
    Crawford flag, the Jacoby rule, ``on_roll`` the player the board shows on roll;
    None: money, cube centred). *met*: the match equity table (default
    :func:`~fastgen.cube.default_met`); *beavers*: money play allows beavers; *database*:
    a two-sided cubeful bear-off database (module docstring); *classes*: the boards'
    :func:`~fastgen.cube.efficiency.position_class` if already known (the same whichever
    side is on roll); *efficiency*: the cube-life constants
    (:func:`~fastgen.cube.efficiency.gnubg_efficiency`; default GNU Backgammon 1.07's).
    Module docstring for the rules; bad input raises :class:`~fastgen.errors.InvalidCubeStateError` quoting it."""
    arr = as_boards(boards)
    n = arr.shape[0]
    st = check_state(state)
    eff = check_efficiency(efficiency)
    pr = _check_probs(probs, n)
    if classes is None:
        cls = position_class(arr)
    else:
        cls = np.asarray(classes)
        if cls.shape != (n,) or cls.dtype != np.int8:
            raise InvalidCubeStateError(f"classes must be the boards' (N,) int8 position classes, got "
                                        f"{_quoted(classes)}")
        out_of_range = np.flatnonzero((cls < 0) | (cls >= len(CLASS_NAMES)))
        if out_of_range.size:
            i = int(out_of_range[0])
            raise InvalidCubeStateError(f"classes[{i}] is {int(cls[i])}, not a position class code (0 to "
                                        f"{len(CLASS_NAMES) - 1}: {', '.join(CLASS_NAMES)})")
    if met is not None and not isinstance(met, MatchEquityTable):
        raise InvalidCubeStateError(f"met must be a fastgen.cube.MatchEquityTable, got {met!r}")
    owner = _owner(st)
    nd, dt, dp, x, score, split = _answers(arr, pr, st, met, database, cls, eff, None)
    c = st.cube_value
    match = score is not None
    if score is not None:
        eq = np.stack([score.equity(v, c) for v in (nd, dt, dp)], axis=1)
        cubeless = dead_mwc(score, pr if split is None else split, c)
    else:
        eq = np.stack([nd, dt, dp], axis=1)
        p, wg, wb, lg, lb = pr.T
        cubeless = 2.0 * p - 1.0 + wg + wb - lg - lb
    if may_double(st):
        codes = _codes(eq[:, 0], eq[:, 1], eq[:, 2], pr[:, 1], beavers=beavers and not match,
                       pass_may_be_optional=match or owner == OWN or not st.jacoby)
    else:
        codes = np.full(n, CANNOT, dtype=np.int8)
        dt = np.full(n, np.nan)
        dp = np.full(n, np.nan)
        eq[:, 1:] = np.nan
    takes = (eq[:, 2] > eq[:, 1]) & (codes != CANNOT)
    return CubeDecisions(nd, dt, dp, eq, cubeless, pr, codes, _NAMES[owner == OWN], takes, match, cls, x)


def decide_values(arr: np.ndarray, pr: np.ndarray, st: MatchState, *, met: MatchEquityTable | None,
                  database: Any = None, classes: np.ndarray, efficiency: CubeEfficiency,
                  gammons: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(no double, double take, double pass) of :func:`cube_decisions` alone, of inputs
    already checked (the look ahead's own boards and probabilities, checked once where
    they were made: *pr* (N, 5) within [0, 1], which this modifies; *classes* and
    *efficiency* given; *gammons*: whether each side, the opponent and the side on roll,
    still has all 15 checkers, if already known), in their own units (money per unit of
    the cube, match MWC; NaN double/take and double/pass where the side on roll cannot
    double): what a look ahead needs at every node."""
    nd, dt, dp, _, _, _ = _answers(arr, pr, st, met, database, classes, efficiency, gammons)
    if not may_double(st):
        dt = np.full(arr.shape[0], np.nan)
        dp = np.full(arr.shape[0], np.nan)
    return nd, dt, dp


def _answers(arr: np.ndarray, pr: np.ndarray, st: MatchState, met: MatchEquityTable | None, database: Any,
             cls: np.ndarray, eff: CubeEfficiency, gammons: tuple[np.ndarray, np.ndarray] | None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, Score | None, Split | None]:
    """The three answers' raw values of :func:`cube_decisions`, the cube life x, and at match
    play the score and the probabilities' :class:`~fastgen.cube.match.Split` (else None)."""
    n = arr.shape[0]
    # gammons that can no longer happen count nothing (an evaluator may give them a trace)
    if gammons is None:
        gammons = (arr[:, 0].sum(axis=1, dtype=np.int16) == 15, arr[:, 1].sum(axis=1, dtype=np.int16) == 15)
    pr[~gammons[0], 1:3] = 0.0
    pr[~gammons[1], 3:5] = 0.0
    owner = _owner(st)
    x = cube_life(arr, cls, eff)
    x_double = x.copy()
    exact = np.zeros(n, dtype=bool)
    db_values = np.zeros((0, 4))
    if database is not None:
        exact, db_values = _bearoff_values(arr, database)
        pr[exact] = 0.0
        pr[exact, 0] = (db_values[:, 0] + 1.0) / 2.0
    c = st.cube_value
    if not st.match_length:
        nd, dt, dp = money_decision(pr, x, owner, jacoby=st.jacoby)
        if exact.any():
            nd[exact] = db_values[:, 2 if owner == CENTRED else 1 if owner == OWN else 3]
            dt[exact] = 2.0 * db_values[:, 3]
        return nd, dt, dp, x, None, None
    met = default_met() if met is None else met
    away, opponent_away = _aways(st)  # both 1 to MAX_AWAY: check_state
    score = Score(met, away, opponent_away, crawford=st.crawford, player=st.on_roll)
    if exact.any():  # the cube life that reproduces the database's money values (at most the bear-off one)
        for target, col, own in ((x, {CENTRED: 2, OWN: 1}.get(owner, 3), owner), (x_double, 3, OPPONENT)):
            sub = pr[exact]
            ecl = db_values[:, 0]
            ecf1 = cubeful_equity(sub, 1.0, own)
            with np.errstate(divide="ignore", invalid="ignore"):
                life = np.where(np.abs(ecl - ecf1) > 1e-4, (db_values[:, col] - ecl) / (ecf1 - ecl), 0.6)
            target[exact] = np.clip(life, 0.0, 0.6)
    split = Split(pr)
    nd, dt, dp = match_decision(score, split, x, c, owner, x_double)
    return nd, dt, dp, x, score, split
