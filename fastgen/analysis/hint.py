"""Which play: the legal plays of a position and roll, ranked by an evaluator, as GNU
Backgammon's ``hint`` lists them.

:func:`hint` values each play by the position after it, the opponent on roll before its
roll, with the equities of the analysis (:mod:`fastgen.analysis.judge`): by default the
**cubeful** equity, the evaluator's cubeless probabilities turned cubeful at the
position's cube and score, the opponent's cube action taken (money: in units of the
cube's value; match play: normalised, with the match-winning chance beside it);
with ``cubeless=True`` the cubeless money equity. Each play's probabilities are the
mover's after it: P(win), P(win gammon), P(win backgammon), P(lose gammon), P(lose
backgammon). The best play comes first; plays of equal equity keep the generator's order.

The evaluator decides the depth: ``"gnubg:0"`` is GNU Backgammon's 0-ply hint (the same
plays in the same order, the same equities, with the program's weights), ``"gnubg:1"``
its 1-ply probabilities (the cubeful equity is then taken from them as at 0 ply).

>>> import fastgen
>>> h = fastgen.hint(fastgen.STARTING_BOARD, (3, 1), "baseline")
>>> h.plays[0].play, len(h.plays)
('8/5 6/5', 16)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fastgen.core.boards import as_board, as_dice
from fastgen.core.generate import plays_batch
from fastgen.core.notation import format_play
from fastgen.core.state import MatchState
from fastgen.cube.decision import check_state
from fastgen.cube.efficiency import efficiency_for
from fastgen.cube.met import MatchEquityTable, default_met
from fastgen.errors import InvalidArgumentError
from fastgen.players import specs
from fastgen.players.evaluators import _weighted, flip, opponent_probs
from fastgen._util import check_threads

from fastgen.analysis.judge import _after_values, _mwc_base, bearoff_database, mwc_scale, reaches_bearoff

__all__ = ["hint", "Hint", "HintPlay"]


@dataclass(frozen=True)
class HintPlay:
    """One play of a :class:`Hint`: its text (GNU Backgammon's notation), its equity
    (cubeful, normalised to the cube at match play, unless the hint is cubeless), the
    match-winning chance at match play (None for money or a cubeless hint), the mover's
    five probabilities after it, and the position after it (the mover in row 1)."""

    play: str
    equity: float
    probs: tuple[float, float, float, float, float]
    board: np.ndarray = field(repr=False, compare=False)
    mwc: float | None = None


@dataclass(frozen=True)
class Hint:
    """The plays of one position and roll, best first (:func:`hint`), and how they were
    judged: the evaluator's name, whether the equities are cubeful, the state."""

    plays: list[HintPlay]
    evaluator: str
    cubeful: bool
    state: MatchState
    dice: tuple[int, int]

    def as_dict(self) -> dict:
        """The plays as JSON-ready data: ``{"plays": [{"play", "equity", "probs"[, "mwc"]}, ...]}``
        best first, with the evaluator, ``cubeful`` and the dice."""
        rows = []
        for p in self.plays:
            row: dict[str, Any] = {"play": p.play, "equity": p.equity, "probs": list(p.probs)}
            if p.mwc is not None:
                row["mwc"] = p.mwc
            rows.append(row)
        return {"plays": rows, "evaluator": self.evaluator, "cubeful": self.cubeful, "dice": list(self.dice)}


def hint(board: Any, dice: Any, evaluator: Any = "baseline", state: MatchState | None = None, *,
         cubeless: bool = False, met: MatchEquityTable | None = None, threads: int = 1,
         database: Any = "auto") -> Hint:
    """The legal plays of *board* ((2, 25), side on roll in row 1) with *dice*, ranked by
    *evaluator* (an evaluator or a spec: ``"baseline"``, ``"gnubg:0"``, ``"gnubg:1"``,
    ``PATH.npz``) as the module docstring says. *state*: the cube and score (a
    :class:`fastgen.MatchState`; default a money game, cube centred), its side on roll
    the side on roll of *board* (its dice, when rolled, must be *dice*). *met*: the match equity table (default
    :func:`fastgen.cube.default_met`). *threads*: of the generator and the evaluator (the
    same answer for any number). *database*: ``"auto"``, bear-offs of at most six
    checkers a side cubeful from a two-sided database, as the analysis values them;
    None: by the evaluator."""
    arr = as_board(board)
    roll = as_dice(dice)
    if isinstance(state, MatchState) and state.dice != (0, 0):  # a state of this turn, its dice rolled
        if sorted(state.dice) != sorted(roll):
            raise InvalidArgumentError(f"the state's dice {state.dice} are not the dice given, {roll}")
        state = dataclasses.replace(state, dice=(0, 0))
    st = check_state(MatchState() if state is None else state)
    threads = check_threads(threads)
    if not isinstance(cubeless, bool):
        raise InvalidArgumentError(f"cubeless must be True or False, got {cubeless!r}")
    if database != "auto" and database is not None and not hasattr(database, "values"):
        raise InvalidArgumentError(f"database must be 'auto', None or a two-sided bear-off database, got {database!r}")
    found = specs.evaluator(evaluator)
    name = evaluator if isinstance(evaluator, str) else found.name
    met = default_met() if met is None else met
    batch = plays_batch(arr[None], np.asarray([roll], dtype=np.int8), threads=threads)
    after = np.asarray(batch.boards)
    moves = np.asarray(batch.moves)
    theirs = opponent_probs(found, after, threads=threads)
    mine = flip(theirs)
    if cubeless:
        equity = 1.0 - _weighted(theirs)
        mwc = None
    else:
        db = bearoff_database() if database == "auto" and reaches_bearoff(after[:, ::-1]) else \
            (None if database == "auto" else database)
        equity = _after_values(after, theirs, [st], np.zeros(after.shape[0], np.int64), met, db,
                               efficiency_for(found, 0))
        mwc = _mwc_base(st, met) + mwc_scale(st, met) * equity if st.match_length else None
    order = np.argsort(-equity, kind="stable")
    plays = [HintPlay(format_play(arr, moves[i]), float(equity[i]), tuple(float(x) for x in mine[i]),  # type: ignore[arg-type]
                      after[i].copy(), None if mwc is None else float(mwc[i]))
             for i in order]
    return Hint(plays, name, not cubeless, st, roll)
