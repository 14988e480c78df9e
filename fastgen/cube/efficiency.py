"""Cube life: how much of a live cube's value a position keeps, by position class.

A cube is *live* when its owner can use it at exactly the right moment (double when
the opponent's take becomes a pass), *dead* when it can never be turned again. Real
positions lie between: the cubeful equity is the dead-cube equity times 1 - x plus the
live-cube equity times x, with x the *cube life* (Janowski's cube efficiency). Long
games with contact keep more of it than short races, where the game may end before the
cube can be used well. The classes and values are GNU Backgammon's defaults, so that
cube decisions match the program's:

========  ==================================================================  =========
class     the position (board with the side on roll in row 1)                 x
========  ==================================================================  =========
contact   the sides can still meet (a checker of one side is behind one of    0.68
          the other's)
race      no contact, and a side still has a checker outside its home         0.55 + 0.00125 x the
          board                                                               pips of the side on
                                                                              roll, kept in
                                                                              [0.60, 0.70]
bearoff   no contact, every checker of both sides in its home board           0.60
========  ==================================================================  =========

The race's x grows with its length: 0.60 up to 40 pips, 0.70 from 120. The program
also marks as *crashed* some contact positions (a side with few checkers left off its
lowest points); their x is the contact one, so the class is not needed here.

These are the values of GNU Backgammon 1.07, what Debian installs (:data:`GNUBG_1_07`,
the default). GNU Backgammon 1.08 changed them for evaluations at 0 and 1 ply (its
commit 4975982b of 2023-12-20, which its ChangeLog says roughly halves the cube error
rate there), keeping 1.07's at 2 plies and more; :func:`gnubg_efficiency` gives either
set, and :func:`cube_life` and :func:`fastgen.cube.cube_decisions` take one as
*efficiency*:

- contact (and crashed): 0.68 in 1.07, 0.76 in 1.08 at 0 and 1 ply;
- race: 0.55 + 0.00125 x pips kept in [0.60, 0.70] in 1.07, 0.60 + 0.0025 x pips kept
  in [0.60, 0.80] in 1.08 at 0 and 1 ply;
- bear-off: 0.60 in both.

The bear-off value 0.60 is 1.07's, checked against the program; 1.08 keeps the race's
lower bound at 0.60 at every ply, and it is taken to keep the bear-off value too.

>>> import numpy as np, fastgen
>>> cube_life(np.stack([fastgen.STARTING_BOARD])).tolist()
[0.68]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fastgen._typing import ArrayLike
from fastgen.core import _features
from fastgen.core.boards import as_boards
from fastgen.errors import InvalidCubeStateError

__all__ = ["cube_life", "position_class", "CONTACT", "RACE", "BEAROFF", "CLASS_NAMES", "CONTACT_LIFE",
           "BEAROFF_LIFE", "BEAROFF2", "CubeEfficiency", "GNUBG_1_07", "gnubg_efficiency", "check_efficiency"]

#: Class codes of :func:`position_class`.
CONTACT, RACE, BEAROFF, BEAROFF2 = 0, 1, 2, 3
#: Their names, by code.
CLASS_NAMES = ("contact", "race", "bearoff", "bearoff2")
CONTACT_LIFE = 0.68
BEAROFF_LIFE = 0.60


@dataclass(frozen=True)
class CubeEfficiency:
    """One set of cube-life constants (module docstring): *contact* (GNU Backgammon's
    crashed positions take the same value in every set so far), the race's
    ``race_coefficient + race_factor x pips`` kept in ``[race_min, race_max]``, and
    *bearoff*; *name* says whose they are."""

    name: str
    contact: float
    race_factor: float
    race_coefficient: float
    race_min: float
    race_max: float
    bearoff: float


#: GNU Backgammon 1.07's constants, at every ply: fastgen's default.
GNUBG_1_07 = CubeEfficiency("gnubg 1.07", CONTACT_LIFE, 0.00125, 0.55, 0.60, 0.70, BEAROFF_LIFE)
#: GNU Backgammon 1.08's constants for 0- and 1-ply evaluations.
_GNUBG_1_08_LOW = CubeEfficiency("gnubg 1.08, 0 and 1 ply", 0.76, 0.0025, 0.60, 0.60, 0.80, BEAROFF_LIFE)


def gnubg_efficiency(version: str = "1.07", plies: int = 0) -> CubeEfficiency:
    """GNU Backgammon's cube-life constants of *version* (``"1.07"``, or ``"1.08"`` for
    1.08 and later) for evaluations at *plies* (module docstring): 1.07's at every ply,
    1.08's own at 0 and 1 ply and 1.07's from 2 plies on. Anything else raises
    :class:`~fastgen.errors.InvalidCubeStateError` quoting it.

    >>> gnubg_efficiency("1.08", plies=0).contact, gnubg_efficiency("1.08", plies=2).contact
    (0.76, 0.68)
    """
    if version not in ("1.07", "1.08"):
        raise InvalidCubeStateError(f"version must be '1.07' or '1.08' (GNU Backgammon's cube-life sets), got "
                                    f"{version!r}")
    if isinstance(plies, bool) or not isinstance(plies, (int, np.integer)) or plies < 0:
        raise InvalidCubeStateError(f"plies must be an int >= 0, got {plies!r}")
    return _GNUBG_1_08_LOW if version == "1.08" and plies <= 1 else GNUBG_1_07


def efficiency_for(evaluator: Any, plies: int = 0) -> CubeEfficiency | None:
    """The cube-life constants that go with *evaluator*'s probabilities at *plies*:
    GNU Backgammon's own nets carry their generation (their attribute ``cube_version``:
    ``"1.07"`` for the weights 1.00 of gnubg 1.07, ``"1.08"`` for the 1.01 ones) and get
    that version's :func:`gnubg_efficiency`; None (the default, 1.07's) for any other
    evaluator."""
    version = getattr(evaluator, "cube_version", None)
    return None if version is None else gnubg_efficiency(version, plies)


_POINTS = np.arange(1, 26, dtype=np.uint8)


def position_class(boards: ArrayLike) -> np.ndarray:
    """(N,) int8 class codes of (N, 2, 25) *boards* (module docstring): CONTACT, RACE,
    BEAROFF, or BEAROFF2: a bear-off where both sides have at most six checkers left, the
    positions a two-sided database of 6 points and 6 checkers holds (the program answers
    those from such a database when it has one; their x is the bear-off one)."""
    return classes_of(_features.row_measures(as_boards(boards)))


def classes_of(measures: np.ndarray) -> np.ndarray:
    """:func:`position_class` from the boards' (N, 2, 3) row measures
    (``fastgen.core._features.row_measures``: each row's checkers left and rearmost
    checker), for a caller that has them already."""
    m = measures.astype(np.int16)
    me, opp = m[:, 1, 1], m[:, 0, 1]
    out = np.full(m.shape[0], CONTACT, dtype=np.int8)
    race = me + opp <= 25
    home = race & (me <= 6) & (opp <= 6)
    out[race] = RACE
    out[home] = BEAROFF
    out[home & (m[:, :, 0].max(axis=1) <= 6)] = BEAROFF2
    return out


def cube_life(boards: ArrayLike, classes: np.ndarray | None = None,
              efficiency: CubeEfficiency | None = None) -> np.ndarray:
    """(N,) float64 cube life x of (N, 2, 25) *boards* (module docstring); *classes*:
    their :func:`position_class` if already known; *efficiency*: the constants
    (:class:`CubeEfficiency`, default :data:`GNUBG_1_07`)."""
    eff = check_efficiency(efficiency)
    arr = as_boards(boards)
    cls = position_class(arr) if classes is None else classes
    x = np.where(cls == CONTACT, eff.contact, eff.bearoff)
    race = np.nonzero(cls == RACE)[0]
    pips = arr[race, 1].astype(np.int32) @ _POINTS.astype(np.int32)
    x[race] = np.clip(eff.race_coefficient + eff.race_factor * pips, eff.race_min, eff.race_max)
    return x


def check_efficiency(efficiency: object) -> CubeEfficiency:
    """*efficiency* itself, or :data:`GNUBG_1_07` for None; anything but a
    :class:`CubeEfficiency` raises :class:`~fastgen.errors.InvalidCubeStateError`
    quoting it."""
    if efficiency is None:
        return GNUBG_1_07
    if not isinstance(efficiency, CubeEfficiency):
        raise InvalidCubeStateError(f"efficiency must be a fastgen.cube.efficiency.CubeEfficiency (e.g. "
                                    f"gnubg_efficiency('1.08', plies=0)) or None, got {efficiency!r}")
    return efficiency
