"""The micro-action encoding: one checker step per action, 156 actions.

``action = source * 6 + (die - 1)`` with 26 sources: 1..24 the mover's points and 25 the
bar; a step from ``source`` with ``die`` lands on ``source - die``, or bears the checker
off when that is 0 or below (R9; below 0 only from the highest occupied point). Action 0
(source 0) is the pass, the end of the turn; actions 1..5 are never legal. This is the
layout of pgx and of Stochastic MuZero's backgammon.

:func:`micro_mask` says which actions may come next so that the turn still ends in a
legal play (R10-R14): after the steps already played it allows exactly the steps some
legal play continues with, and only the pass once the turn is complete or when no step
is possible. Walking the mask step by step reaches exactly the boards of
:func:`fastgen.legal_plays`.

>>> import fastgen
>>> from fastgen.envs import micro_mask, action_of
>>> mask = micro_mask(fastgen.STARTING_BOARD, (6, 5))
>>> [step_of(a) for a in mask.nonzero()[0]]
[(8, 5), (8, 6), (13, 5), (13, 6), (24, 6)]
>>> bool(mask[action_of(24, 6)]), bool(mask[action_of(24, 5)]), bool(mask[PASS])
(True, False, False)
"""

from __future__ import annotations

import numpy as np

from fastgen.errors import InvalidMoveTextError
from fastgen.core.validate import legal_steps

__all__ = ["NUM_MICRO_ACTIONS", "PASS", "action_of", "step_of", "micro_mask"]

#: Size of the micro-action space (26 sources x 6 dice).
NUM_MICRO_ACTIONS = 156

#: The pass / end-of-turn action.
PASS = 0


def action_of(source: int, die: int) -> int:
    """The micro action that moves a checker from *source* (1..24, 25 = bar) with *die*.

    >>> action_of(25, 3), action_of(6, 6)
    (152, 41)
    """
    if isinstance(source, bool) or not isinstance(source, (int, np.integer)) or not 1 <= source <= 25:
        raise InvalidMoveTextError(f"a step's source is a point 1..24 or 25 (the bar), got {source!r}")
    if isinstance(die, bool) or not isinstance(die, (int, np.integer)) or not 1 <= die <= 6:
        raise InvalidMoveTextError(f"a step's die is 1..6, got {die!r}")
    return int(source) * 6 + int(die) - 1


def step_of(action: int) -> tuple:
    """``(source, die)`` of a micro action other than the pass (inverse of :func:`action_of`).

    >>> step_of(152)
    (25, 3)
    """
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 6 <= action < NUM_MICRO_ACTIONS:
        raise InvalidMoveTextError(f"a step action is an int 6..155, got {action!r}")
    return int(action) // 6, int(action) % 6 + 1


def micro_mask(board, dice, played=()) -> np.ndarray:
    """The (156,) bool mask of the micro actions that may come next.

    *board* is a (2, 25) board with the mover on row 1 as it was at the start of the
    turn, *dice* the roll, *played* the steps made so far this turn, each ``(from, to)``
    or ``(from, to, die)`` in the mover's numbering (as :func:`fastgen.legal_steps` takes
    them; give the die when a bear-off could have used either die). A step is allowed
    when some legal play continues with it (maximum-dice and larger-die rules, R11-R13);
    when the turn is complete or no step is possible only action 0 is allowed. A
    *played* sequence no legal play starts with raises :class:`fastgen.IllegalPlayError`
    with the reason.

    >>> import fastgen
    >>> m = micro_mask(fastgen.STARTING_BOARD, (6, 5), [(24, 18)])
    >>> [step_of(a) for a in m.nonzero()[0]]
    [(8, 5), (13, 5), (18, 5)]
    >>> micro_mask(fastgen.STARTING_BOARD, (6, 5), [(24, 18), (18, 13)]).nonzero()[0].tolist()
    [0]
    """
    mask = np.zeros(NUM_MICRO_ACTIONS, dtype=bool)
    for source, _target, die in legal_steps(board, dice, played):
        mask[source * 6 + die - 1] = True
    if not mask.any():
        mask[PASS] = True
    return mask
