"""One position's cube decision, at 0 or 1 ply: :func:`cube_action`.

At 0 ply the position's five cubeless probabilities (given, or an evaluator's) go
through the formula of :mod:`fastgen.cube.decision`; at 1 ply an evaluator's 21 rolls
are looked at first (:mod:`fastgen.cube.lookahead`) for no double and double/take.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

import numpy as np

from fastgen._typing import ArrayLike
from fastgen.core.boards import as_board
from fastgen.core.state import MatchState
from fastgen.cube.decision import (CubeAction, CubeDecision, as_numbers, check_state, cube_decisions, may_double,
                                   proper_action)
from fastgen.cube.efficiency import efficiency_for
from fastgen.cube.lookahead import pruning_of, searched_batch
from fastgen.cube.match import Score
from fastgen.cube.met import MatchEquityTable, default_met
from fastgen.errors import InvalidCubeStateError
from fastgen.nets.probs import checked_answer
from fastgen._util import check_threads

__all__ = ["cube_action"]


def cube_action(board: ArrayLike, probs: ArrayLike | None = None, state: MatchState | None = None, *,
                evaluator: Callable[[np.ndarray], Any] | None = None, plies: int = 0,
                met: MatchEquityTable | None = None, beavers: bool = True, database: Any = None,
                threads: int = 1) -> CubeDecision:
    """The cube decision of one *board* ((2, 25), side on roll in row 1, before its
    roll): with its five cubeless *probs*, or those an *evaluator* (any fastgen
    evaluator: ``evaluators.baseline()``, ``evaluators.gnubg(0)``, a network) gives.
    *plies*: 0, or 1 to look at the evaluator's 21 rolls first (module docstring; needs
    an *evaluator*); an evaluator that looks ahead itself takes 0: GNU Backgammon's nets
    at ``gnubg:1`` and ``gnubg:2`` decide by GNU Backgammon's cubeful search at that
    depth (:func:`~fastgen.cube.lookahead.one_ply_batch`,
    :func:`~fastgen.cube.lookahead.two_ply_batch`), deeper their N-ply probabilities are
    turned cubeful by the formula, with the cube life of its depth. A searched decision's
    probabilities (and cubeless equity) are the search's own, averaged along the plays it
    chose, as the program prints them. *state*, *met*, *beavers*, *database*: as
    :func:`~fastgen.cube.decision.cube_decisions`. *threads*: the threads of the move
    generator and of the evaluator (a compiled network uses them); the decision is the
    same for any number.

    >>> import fastgen
    >>> from fastgen.cube import cube_action
    >>> d = cube_action(fastgen.STARTING_BOARD, [0.827, 0.313, 0.012, 0.034, 0.000], fastgen.MatchState(jacoby=True))
    >>> d.action, round(d.no_double, 3), round(d.double_take, 3), d.double_pass
    (<CubeAction.DOUBLE_PASS: 'Double, pass'>, 0.889, 1.772, 1.0)
    """
    arr = as_board(board)[None]
    if (probs is None) == (evaluator is None):
        raise InvalidCubeStateError("cube_action needs exactly one of probs and evaluator")
    if plies not in (0, 1) or isinstance(plies, bool):
        raise InvalidCubeStateError(f"plies must be 0 or 1, got {plies!r}")
    st = check_state(state)  # before the evaluator is asked anything
    threads = check_threads(threads)
    # GNU Backgammon's nets bring their generation's cube life (1.07's by default), by
    # the depth of their probabilities (gnubg:N looks N plies ahead itself)
    depth = getattr(evaluator, "plies", 0)
    if plies and isinstance(depth, int) and depth > 0:
        raise InvalidCubeStateError(f"the evaluator {getattr(evaluator, 'name', evaluator)!r} already looks {depth} "
                                    f"plies ahead: give the depth once (plies=0 with it)")
    depth = depth if isinstance(depth, int) else 0
    # GNU Backgammon's nets searched 1 or 2 plies deep: the cubeful search on their 0-ply nets
    searched = 1 <= depth <= 2 and getattr(evaluator, "nets", None) is not None
    efficiency = None if evaluator is None else efficiency_for(evaluator, plies or depth)
    if probs is None:
        if not callable(evaluator):
            raise InvalidCubeStateError(f"evaluator must be a fastgen evaluator (a callable), got {evaluator!r}")
        if not ((plies or searched) and may_double(st)):  # else the search below gives them
            probs = checked_answer(evaluator, arr, threads)  # (1, 5) finite, or InvalidOutputError naming it
    elif plies:
        raise InvalidCubeStateError("a 1-ply cube decision looks at the rolls with an evaluator: give evaluator=, not probs")
    else:
        given = as_numbers(probs)
        probs = given.reshape(1, -1) if given.ndim == 1 else given
    if probs is not None:
        zero = cube_decisions(arr, probs, st, met=met, beavers=beavers, database=database,
                              efficiency=efficiency).decision(0)
        if not (plies or searched) or zero.action is CubeAction.CANNOT_DOUBLE:
            return zero
    score = None
    if st.match_length:
        me = st.on_roll
        score = Score(default_met() if met is None else met, st.match_length - st.score[me],
                      st.match_length - st.score[1 - me], crawford=st.crawford, player=me)
    assert evaluator is not None
    base = evaluator.nets if searched else evaluator  # type: ignore[attr-defined]
    levels = depth if searched else 1
    along = np.zeros((1, 5))  # the probabilities along the search's plays, as the program prints them
    nd2, dt2 = searched_batch(arr, base, [st], np.zeros(1, np.int64), levels, met=met, database=database,
                              threads=threads, efficiency=(efficiency_for(base, 0), efficiency_for(base, 1)) if searched
                              else (None, efficiency), probs=along, pruning=pruning_of(evaluator) if searched else None)
    nd, dt = float(nd2[0]), float(dt2[0])
    zero = cube_decisions(arr, along, st, met=met, beavers=beavers, database=database,
                          efficiency=efficiency).decision(0)
    dp = zero.double_pass
    c = st.cube_value
    eq = (nd, dt, dp) if score is None else tuple(float(score.equity(v, c)) for v in (nd, dt, dp))
    owned = st.cube_owner is not None and st.cube_owner == st.on_roll
    action = proper_action(eq[0], eq[1], eq[2], gammons=zero.probs[1] > 0, owned=owned, money=score is None,
                           beavers=beavers, jacoby=st.jacoby)
    takes = eq[2] > eq[1]
    return dataclasses.replace(zero, no_double=nd, double_take=dt, equities=(eq[0], eq[1], eq[2]), action=action,
                               doubles=action.doubles, takes=bool(takes))
