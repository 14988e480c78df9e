"""Match equity tables: the chance of winning the match from any score.

A :class:`MatchEquityTable` holds, for matches up to :data:`MAX_AWAY` points, the
pre-Crawford table ``pre[i, j]`` (the chance of a player *i* + 1 points away when the
opponent is *j* + 1 away; row 0 is the Crawford game) and one post-Crawford row a
player, ``post[p, t]`` (player *p* trailing, *t* + 1 away, the leader one point away,
after the Crawford game). A file covers matches up to its length; beyond it the tables
are extended the way GNU Backgammon extends them, so that a table read here answers
exactly as the program does with the same file:

- post-Crawford: the file's values up to *length* - 1 away; from *length* away on,
  each value is the chance of winning the next game (one half) times the chance after
  it, the trailer winning a gammon one game in four:
  ``post[t] = 1/2 (1/4 post[t - 4] + 3/4 post[t - 2])`` (1 where the index is below
  0), and a table that short has the free drops taken off at 2 and 4 away (0.015 and
  0.004), as its own values would have them;
- pre-Crawford rows from *length* on: a normal approximation of the race to the match's
  end: with a game's point swing of standard deviation s(n) for a player n away (1.24,
  1.27, 1.47, 1.50, 1.60, 1.61, 1.66, 1.68, 1.70, 1.72 for n = 1..10, then 1.77), the
  player *n0* away against *n1* away wins with chance
  ``Phi(6) - Phi((n0 - n1) / (sqrt(s(n0)^2 + s(n1)^2) sqrt((n0 + n1) / 2)))`` (0 beyond six
  standard deviations), and every missing value is one minus its mirror.

:func:`default_met` is GNU Backgammon's default table (Kazaross XG2, 25 points;
package data); :func:`read_met` reads any explicit table file of the program
(:mod:`fastgen.cube.met_files`).

>>> met = default_met()
>>> met.name, round(met.mwc(3, 5), 5), round(met.mwc(1, 2, crawford=True), 5)
('Kazaross XG2 25 point MET', 0.64795, 0.67736)
>>> round(met.mwc(2, 1), 5)            # post-Crawford: 2-away trailer against 1-away
0.48803
"""

from __future__ import annotations

import math
import os
from functools import lru_cache
from importlib import resources

import numpy as np

from fastgen._typing import ArrayLike
from fastgen.cube.met_files import METFile, parse_met, read_met_file
from fastgen.errors import InvalidCubeStateError, METFileError

__all__ = ["MatchEquityTable", "default_met", "read_met", "MAX_AWAY"]

#: The longest match a table answers for (GNU Backgammon's limit).
MAX_AWAY = 64

#: Standard deviation of a game's point swing for a player n away (index n), then 1.77.
_SWING = (0.0, 1.24, 1.27, 1.47, 1.50, 1.60, 1.61, 1.66, 1.68, 1.70, 1.72)
_FREE_DROPS = {1: 0.015, 3: 0.004}  # post-Crawford index (2 and 4 away): the free drop's value


def _swing(n: int) -> float:
    return _SWING[n] if n < len(_SWING) else 1.77


def _phi(z: float) -> float:
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def _extend_post(row: np.ndarray, length: int) -> np.ndarray:
    out = np.empty(MAX_AWAY)
    out[: length - 1] = row[: length - 1]
    for t in range(length - 1, MAX_AWAY):
        four = out[t - 4] if t >= 4 else 1.0
        two = out[t - 2] if t >= 2 else 1.0
        out[t] = 0.5 * (0.25 * four + 0.75 * two)
        if t in _FREE_DROPS:
            out[t] -= _FREE_DROPS[t]
    return out


def _extend_pre(pre: np.ndarray, length: int) -> np.ndarray:
    out = np.zeros((MAX_AWAY, MAX_AWAY))
    out[:length, :length] = pre[:length, :length]
    for i in range(length, MAX_AWAY):
        n0 = i + 1
        for j in range(i + 1):
            n1 = j + 1
            sigma = math.sqrt(_swing(n0) ** 2 + _swing(n1) ** 2) * math.sqrt((n0 + n1) / 2.0)
            out[i, j] = _phi(6.0) - _phi((n0 - n1) / sigma) if 6.0 * sigma > n0 - n1 else 0.0
    for i in range(length):
        out[i, length:] = 1.0 - out[length:, i]
    for i in range(length, MAX_AWAY):
        out[i, i + 1:] = 1.0 - out[i + 1:, i]
    return out


class MatchEquityTable:
    """A match equity table extended to :data:`MAX_AWAY` points (module docstring).

    *name*, *description*, *length* (the longest match its source covers), *source*;
    ``pre`` (MAX_AWAY, MAX_AWAY) and ``post`` (2, MAX_AWAY) read-only float64 arrays.
    Make one with :func:`default_met`, :func:`read_met`, from a parsed file
    (:class:`~fastgen.cube.met_files.METFile`) or from arrays (:meth:`from_arrays`);
    every way checks the table with :func:`~fastgen.cube.met_files.check_table`
    (:class:`~fastgen.errors.METFileError` naming the first bad entry)."""

    def __init__(self, table: METFile) -> None:
        if not isinstance(table, METFile):
            raise METFileError(f"a MatchEquityTable is made from a fastgen.cube.met_files.METFile (or with "
                               f"MatchEquityTable.from_arrays), got {table!r}"[:300])
        self.name = table.name
        self.description = table.description
        self.length = table.length
        self.source = table.source
        self.pre = _extend_pre(table.pre, table.length)
        self.post = np.stack([_extend_post(table.post[p], table.length) for p in (0, 1)])
        self.pre.flags.writeable = False
        self.post.flags.writeable = False

    @classmethod
    def from_arrays(cls, pre: ArrayLike, post: ArrayLike, *, name: str = "", description: str = "",
                    source: str = "<arrays>") -> "MatchEquityTable":
        """The table of a (length, length) pre-Crawford array *pre* and a (2, length)
        post-Crawford array *post* (row p: player p trailing; a single row serves both
        players), laid out as a file's (:mod:`fastgen.cube.met_files`), checked as a
        file's table is.

        >>> t = MatchEquityTable.from_arrays([[0.5, 0.7], [0.3, 0.5]], [0.5, 0.4])
        >>> round(t.mwc(1, 2, crawford=True), 3), t.length
        (0.7, 2)
        >>> MatchEquityTable.from_arrays([[0.5, 0.5], [0.5, 0.5]], [0.5, 0.4])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        fastgen.errors.METFileError: <arrays>: pre-Crawford row 1, column 2 (1 away against 2 away): 0.5 is not ...
        """
        try:
            arr = np.asarray(pre)
            length = arr.shape[0] if arr.ndim == 2 else -1
            rows = np.asarray(post)
        except (TypeError, ValueError) as exc:
            raise METFileError(f"{source}: the tables must be arrays of numbers: {exc}") from None
        if length < 1:
            raise METFileError(f"{source}: the pre-Crawford table must be a square (length, length) array, got "
                               f"shape {arr.shape}")
        if rows.ndim == 1:
            rows = np.stack([rows, rows])
        return cls(METFile(name, description, length, arr, rows, source))

    def mwc(self, away: int, opponent_away: int, *, crawford: bool = False, player: int = 0) -> float:
        """The chance that a player *away* points from winning wins the match against
        an opponent *opponent_away* away (both at least 1). With one of them 1 away, the
        game is the Crawford game if *crawford*, else a post-Crawford game. *player*
        (0 or 1) says which side of an asymmetric table the player is: the tables are
        stored for player 0, player 1's chance is one minus player 0's."""
        for name, v in (("away", away), ("opponent_away", opponent_away)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 1 <= v <= MAX_AWAY:
                raise InvalidCubeStateError(f"{name} must be a whole number from 1 to {MAX_AWAY}, got {v!r}")
        if player not in (0, 1):
            raise InvalidCubeStateError(f"player must be 0 or 1, got {player!r}")
        a = (away - 1, opponent_away - 1) if player == 0 else (opponent_away - 1, away - 1)
        v0 = self.player0(a[0], a[1], post=not crawford and min(a) == 0)
        return v0 if player == 0 else 1.0 - v0

    def player0(self, a0: int, a1: int, *, post: bool) -> float:
        """Player 0's chance with player 0 needing *a0* + 1 points and player 1 *a1* + 1
        (a negative one has won: 1 or 0), in a post-Crawford game if *post*."""
        if a0 < 0:
            return 1.0
        if a1 < 0:
            return 0.0
        if post:
            return float(1.0 - self.post[1, a1]) if a0 == 0 else float(self.post[0, a0])
        return float(self.pre[a0, a1])

    def __repr__(self) -> str:
        return f"<fastgen.cube.MatchEquityTable {self.name!r} length={self.length}>"


def read_met(path: str | os.PathLike[str]) -> MatchEquityTable:
    """The table of a GNU Backgammon match equity file (an explicit XML table, such as
    those of ``/usr/share/gnubg/met/``); a file that is not one raises
    :class:`~fastgen.errors.METFileError` naming it."""
    return MatchEquityTable(read_met_file(path))


@lru_cache(maxsize=1)
def default_met() -> MatchEquityTable:
    """GNU Backgammon's default table, Kazaross XG2 (25 points), shipped with fastgen
    (``fastgen/data/Kazaross-XG2.xml``, its source and notice in ``fastgen/data/SOURCE.md``)."""
    data = resources.files("fastgen").joinpath("data").joinpath("Kazaross-XG2.xml").read_bytes()
    return MatchEquityTable(parse_met(data, "fastgen/data/Kazaross-XG2.xml"))
