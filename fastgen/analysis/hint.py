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
plays in the same order, the same equities, with the program's weights); ``"gnubg:N"``
(N = 1 to 3) looks N plies ahead through GNU Backgammon's move filters, as its ``hint``
does: every play valued at 0 ply, up to 8 within 0.16 of the best valued again at N
plies (at 3 plies, up to 2 of those within 0.04 at 2 plies first) and listed first.
To 2 plies the cubeful equity comes from a cubeful search, as the program's
(:func:`fastgen.analysis.judge.cubeful_after`: the cube carried down, each side's cube
action at each ply), and so do the probabilities beside it (averaged along the plays
that search chose, as the program's cubeful ``hint`` prints them); at 3 plies, and
cubeless, both from the probabilities found there.

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
from fastgen.cube.lookahead import pruning_of
from fastgen.cube.met import MatchEquityTable, default_met
from fastgen.errors import InvalidArgumentError
from fastgen.players import specs
from fastgen.players.evaluators import _weighted, flip, opponent_probs
from fastgen.players.search import Search, depth_of, searched
from fastgen._util import check_threads

from fastgen.analysis.judge import (CUBEFUL_PLIES, _after_values, _mwc_base, bearoff_database, cubeful_after,
                                   mwc_scale, reaches_bearoff)

__all__ = ["hint", "Hint", "HintPlay"]


@dataclass(frozen=True)
class HintPlay:
    """One play of a :class:`Hint`: its text (GNU Backgammon's notation), its equity
    (cubeful, normalised to the cube at match play, unless the hint is cubeless), the
    match-winning chance at match play (None for money or a cubeless hint), the mover's
    five probabilities after it, the position after it (the mover in row 1), and the
    ply it was valued at (below the evaluator's when a move filter left it behind)."""

    play: str
    equity: float
    probs: tuple[float, float, float, float, float]
    board: np.ndarray = field(repr=False, compare=False)
    mwc: float | None = None
    ply: int = 0


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
        """The plays as JSON-ready data: ``{"plays": [{"play", "equity", "probs", "ply"[, "mwc"]}, ...]}``
        best first, with the evaluator, ``cubeful`` and the dice."""
        rows = []
        for p in self.plays:
            row: dict[str, Any] = {"play": p.play, "equity": p.equity, "probs": list(p.probs), "ply": p.ply}
            if p.mwc is not None:
                row["mwc"] = p.mwc
            rows.append(row)
        return {"plays": rows, "evaluator": self.evaluator, "cubeful": self.cubeful, "dice": list(self.dice)}


def hint(board: Any, dice: Any, evaluator: Any = "baseline", state: MatchState | None = None, *,
         cubeless: bool = False, met: MatchEquityTable | None = None, threads: int = 1,
         database: Any = "auto", search: Search | None = None) -> Hint:
    """The legal plays of *board* ((2, 25), side on roll in row 1) with *dice*, ranked by
    *evaluator* (an evaluator or a spec: ``"baseline"``, ``"gnubg:0"``, ``"gnubg:1"``,
    ``PATH.npz``) as the module docstring says. *state*: the cube and score (a
    :class:`fastgen.MatchState`; default a money game, cube centred), its side on roll
    the side on roll of *board* (its dice, when rolled, must be *dice*). *met*: the match equity table (default
    :func:`fastgen.cube.default_met`). *threads*: of the generator and the evaluator (the
    same answer for any number). *database*: ``"auto"``, bear-offs of at most six
    checkers a side cubeful from a two-sided database, as the analysis values them;
    None: by the evaluator. *search*: how an evaluator of N >= 1 plies that can be
    searched ply by ply (GNU Backgammon's compiled nets, ``"gnubg:N"``) gets there: a
    :class:`fastgen.players.search.Search` of its depth; by default GNU Backgammon's move
    filters for it (:meth:`Search.gnubg <fastgen.players.search.Search.gnubg>`), so that
    the plays that pass them are valued at N plies and listed first, the others keep
    the value of the ply they stopped at, as the program's ``hint`` lists them."""
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
    n = after.shape[0]
    search = _search_of(found, search)
    levels = [found] if search is None else [searched(found, k) for k in range(search.plies + 1)]
    pruning = pruning_of(found)
    db = None if cubeless else (bearoff_database() if database == "auto" and reaches_bearoff(after[:, ::-1]) else
                                (None if database == "auto" else database))
    theirs = np.zeros((n, 5))

    def score(k: int, rows: np.ndarray) -> np.ndarray:
        if not cubeless and 1 <= k <= CUBEFUL_PLIES and search is not None:  # the cube at every ply
            along = np.zeros((rows.shape[0], 5))  # the probabilities along the cubeful search's plays
            values = cubeful_after(after[rows], [st] * rows.shape[0], levels[0], k, met, db, threads, probs=along,
                                   pruning=pruning)
            theirs[rows] = along
            return values
        theirs[rows] = opponent_probs(levels[k], after[rows], threads=threads)
        if cubeless:
            return 1.0 - _weighted(theirs[rows])
        return _after_values(after[rows], theirs[rows], [st], np.zeros(rows.shape[0], np.int64), met, db,
                             efficiency_for(found, k))

    if search is None:
        equity, ply = score(0, np.arange(n)), np.zeros(n, np.int64)
    else:
        equity, ply = search.rank(score, n)
    mine = flip(theirs)
    mwc = None if cubeless or not st.match_length else _mwc_base(st, met) + mwc_scale(st, met) * equity
    order = Search.order(equity, ply)
    plays = [HintPlay(format_play(arr, moves[i]), float(equity[i]), tuple(float(x) for x in mine[i]),  # type: ignore[arg-type]
                      after[i].copy(), None if mwc is None else float(mwc[i]),
                      int(ply[i]) if search is not None else int(getattr(found, "plies", 0) or 0))
             for i in order]
    return Hint(plays, name, not cubeless, st, roll)


def _search_of(found: Any, search: Any) -> Search | None:
    """The search *found* is looked through with (None: valued as it is, one call)."""
    plies = depth_of(found)
    deep = plies >= 1
    if search is None:
        return Search.gnubg(plies) if deep else None
    if not isinstance(search, Search):
        raise InvalidArgumentError(f"search must be a fastgen Search, got {search!r}")
    if not deep or search.plies != plies:
        raise InvalidArgumentError(f"a search of {search.plies} plies needs an evaluator searched to as many "
                                   f"(such as 'gnubg:{search.plies}'), got {getattr(found, 'name', found)!r}")
    return search
