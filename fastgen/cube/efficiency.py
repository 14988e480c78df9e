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

>>> import numpy as np, fastgen
>>> cube_life(np.stack([fastgen.STARTING_BOARD])).tolist()
[0.68]
"""

from __future__ import annotations

import numpy as np

from fastgen._typing import ArrayLike
from fastgen.core.boards import as_boards

__all__ = ["cube_life", "position_class", "CONTACT", "RACE", "BEAROFF", "CLASS_NAMES", "CONTACT_LIFE",
           "BEAROFF_LIFE", "BEAROFF2"]

#: Class codes of :func:`position_class`.
CONTACT, RACE, BEAROFF, BEAROFF2 = 0, 1, 2, 3
#: Their names, by code.
CLASS_NAMES = ("contact", "race", "bearoff", "bearoff2")
CONTACT_LIFE = 0.68
BEAROFF_LIFE = 0.60
_POINTS = np.arange(1, 26, dtype=np.uint8)


def _rearmost(rows: np.ndarray) -> np.ndarray:
    """(N,) the point (1..24, 25 the bar, 0 none) of each (N, 25) row's rearmost checker."""
    held = rows[:, ::-1] > 0
    first = np.argmax(held, axis=1)  # from the bar down: the first point held
    return np.where(held[np.arange(rows.shape[0]), first], 25 - first, 0).astype(np.uint8)


def position_class(boards: ArrayLike) -> np.ndarray:
    """(N,) int8 class codes of (N, 2, 25) *boards* (module docstring): CONTACT, RACE,
    BEAROFF, or BEAROFF2: a bear-off where both sides have at most six checkers left, the
    positions a two-sided database of 6 points and 6 checkers holds (the program answers
    those from such a database when it has one; their x is the bear-off one)."""
    arr = as_boards(boards)
    me, opp = _rearmost(arr[:, 1]).astype(np.int16), _rearmost(arr[:, 0]).astype(np.int16)
    out = np.full(arr.shape[0], CONTACT, dtype=np.int8)
    race = me + opp <= 25
    home = race & (me <= 6) & (opp <= 6)
    out[race] = RACE
    rows = np.nonzero(home)[0]
    out[rows] = BEAROFF
    left = arr[rows].sum(axis=2, dtype=np.int16).max(axis=1)
    out[rows[left <= 6]] = BEAROFF2
    return out


def cube_life(boards: ArrayLike, classes: np.ndarray | None = None) -> np.ndarray:
    """(N,) float64 cube life x of (N, 2, 25) *boards* (module docstring); *classes*:
    their :func:`position_class` if already known."""
    arr = as_boards(boards)
    cls = position_class(arr) if classes is None else classes
    x = np.where(cls == CONTACT, CONTACT_LIFE, BEAROFF_LIFE)
    race = np.nonzero(cls == RACE)[0]
    pips = arr[race, 1].astype(np.int32) @ _POINTS.astype(np.int32)
    x[race] = np.clip(0.55 + 0.00125 * pips, 0.60, 0.70)
    return x
