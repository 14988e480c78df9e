"""Bear-off databases in memory: one-sided roll distributions and two-sided equities.

Both hold GNU Backgammon's stored integers, so a database built here, written with
:func:`fastgen.bearoff.write_gnubg` and read back with :func:`fastgen.bearoff.read_gnubg`
is the same object, whichever of the file layouts was used.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fastgen.bearoff.index import n_positions
from fastgen.errors import OutsideDatabaseError

__all__ = ["OneSidedDatabase", "TwoSidedDatabase", "NDIST"]

#: Entries of a one-sided distribution: the probabilities of 0..31 rolls, as gnubg stores.
NDIST = 32


def _check_indices(index: np.ndarray, limit: int, what: str) -> np.ndarray:
    idx = np.asarray(index, dtype=np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= limit):
        bad = idx[(idx < 0) | (idx >= limit)][0]
        raise OutsideDatabaseError(f"{what} holds positions 0 to {limit - 1}, got position {int(bad)!r}")
    return idx


class OneSidedDatabase:
    """A one-sided bear-off database: up to 15 checkers on points 1 to ``points``.

    For each position (numbered as in :mod:`fastgen.bearoff.index`), the distribution of
    the number of rolls needed to bear every checker off, and with ``gammons`` (positions
    of all 15 checkers only) the distribution of rolls to bear off the first checker. The
    probabilities are stored as gnubg stores them, integers in 1/65535 summing to 65535.

    ``source`` is the file it was read from, if any. The arrays of a compressed file are
    decoded on demand (:meth:`distributions`); :attr:`rolls` and :attr:`gammon` decode the
    whole table.
    """

    kind = "one-sided"

    def __init__(self, points: int, *, rolls: np.ndarray | None = None, gammon: np.ndarray | None = None,
                 gammons: bool = True, packed: tuple[Any, ...] | None = None, source: str | None = None) -> None:
        self.points = points
        self.checkers = 15
        self.gammons = gammons
        self.size = n_positions(points, 15)
        self.source = source
        self._rolls = rolls
        self._gammon = gammon
        # compressed layout: (offset, nz, ioff, nzg, ioffg, data); nzg/ioffg None without
        # gammons, offset None when index_bytes holds the offsets (from_index)
        self._packed = packed
        #: the compressed file's index as it is written (see from_index), else None
        self.index_bytes: np.ndarray | None = None

    @classmethod
    def from_index(cls, points: int, index: np.ndarray, data: np.ndarray, *, gammons: bool = True,
                   source: str | None = None) -> "OneSidedDatabase":
        """A database held in gnubg's compressed layout: *index* (positions, 8) uint8 with
        gammons or (positions, 6) without, the entries of a compressed .bd file, and *data*
        the uint16 runs that follow them (see :mod:`fastgen.bearoff.files`)."""
        # no offset array: _unpack reads the offsets from the entries (a copy of them would
        # take 4 bytes a position, more than the builder's own work arrays on large builds)
        nzg, ioffg = (index[:, 6], index[:, 7]) if gammons else (None, None)
        db = cls(points, gammons=gammons, packed=(None, index[:, 4], index[:, 5], nzg, ioffg, data), source=source)
        db.index_bytes = index
        return db

    @property
    def runs(self) -> np.ndarray | None:
        """The uint16 runs of the compressed layout (what follows the index in a compressed
        file), or None when the database is held as tables."""
        return None if self._packed is None else self._packed[5]

    def storage(self) -> tuple[np.ndarray, ...]:
        """The arrays the database is held in, for compiled readers (see
        fastgen.bearoff._build.one_sided_outputs): (rolls, gammon, offset, nz, ioff, nzg,
        ioffg, data), the tables (positions, 32) with no rows when it is held compressed,
        the compressed layout's arrays empty when it is held as tables."""
        none8, none16 = np.zeros(0, np.uint8), np.zeros(0, np.uint16)
        empty = np.zeros((0, NDIST), np.uint16)
        if self._packed is None:
            assert self._rolls is not None
            gam = self._gammon if (self.gammons and self._gammon is not None) else empty
            return self._rolls, gam, np.zeros(0, np.uint32), none8, none8, none8, none8, none16
        offset, nz, ioff, nzg, ioffg, data = self._packed
        if offset is None:  # built in memory: the offsets, once, from the index entries
            assert self.index_bytes is not None
            offset = np.ascontiguousarray(self.index_bytes[:, :4]).view("<u4").reshape(self.size)
            self._packed = (offset, nz, ioff, nzg, ioffg, data)
        return (empty, empty, offset, nz, ioff, none8 if nzg is None else nzg,
                none8 if ioffg is None else ioffg, data)

    def __repr__(self) -> str:
        where = f", source={self.source!r}" if self.source else ""
        return f"<OneSidedDatabase points={self.points} positions={self.size} gammons={self.gammons}{where}>"

    def _unpack(self, idx: np.ndarray, which: int) -> np.ndarray:
        assert self._packed is not None
        offset, nz, ioff, nzg, ioffg, data = self._packed
        if offset is None:  # built in memory (from_index): the little-endian uint32 of each entry
            assert self.index_bytes is not None
            entry = self.index_bytes[idx, :4].astype(np.int64)
            base = entry[:, 0] | (entry[:, 1] << 8) | (entry[:, 2] << 16) | (entry[:, 3] << 24)
        else:
            base = offset[idx].astype(np.int64)
        if which == 0:
            start, count, first = base, nz[idx].astype(np.int64), ioff[idx].astype(np.int64)
        else:
            start = base + nz[idx]
            count, first = nzg[idx].astype(np.int64), ioffg[idx].astype(np.int64)
        out = np.zeros((idx.shape[0], NDIST), dtype=np.uint16)
        rows = np.arange(idx.shape[0])
        for k in range(int(count.max()) if count.size else 0):
            live = k < count
            out[rows[live], first[live] + k] = data[start[live] + k]
        return out

    def stored(self, index: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """The stored integers of positions *index*: (rolls (n, 32), gammon (n, 32) or None), uint16."""
        idx = _check_indices(np.atleast_1d(index), self.size, f"the one-sided database of {self.points} points")
        if self._packed is not None:
            return self._unpack(idx, 0), (self._unpack(idx, 1) if self.gammons else None)
        assert self._rolls is not None
        gam = self._gammon[idx] if (self.gammons and self._gammon is not None) else None
        return np.asarray(self._rolls[idx]), (None if gam is None else np.asarray(gam))

    def distributions(self, index: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """Probabilities (float64, rows summing to 1) of 0..31 rolls to bear off all checkers,
        and to bear off the first (None without gammons), for positions *index*."""
        rolls, gammon = self.stored(index)
        return rolls / 65535.0, (None if gammon is None else gammon / 65535.0)

    @property
    def rolls(self) -> np.ndarray:
        """(positions, 32) uint16: the whole roll-distribution table."""
        if self._rolls is None:
            self._rolls = self._unpack(np.arange(self.size), 0)
        return self._rolls

    @property
    def gammon(self) -> np.ndarray | None:
        """(positions, 32) uint16: the first-checker distributions, or None without gammons."""
        if not self.gammons:
            return None
        if self._gammon is None:
            self._gammon = self._unpack(np.arange(self.size), 1)
        return self._gammon

    def mean_rolls(self, index: np.ndarray) -> np.ndarray:
        """Expected number of rolls to bear off positions *index*."""
        rolls, _ = self.distributions(index)
        return rolls @ np.arange(NDIST, dtype=np.float64)


class TwoSidedDatabase:
    """A two-sided bear-off database: both sides with up to ``checkers`` checkers on
    points 1 to ``points``.

    ``values`` is (n, n, K) uint16 with n = n_positions(points, checkers), row = the side
    on roll, column = its opponent; K = 4 with ``cubeful`` (cubeless equity, then the
    no-double equities with the cube owned by the side on roll, centred, owned by the
    opponent, in units of the cube) or 1 (cubeless only). A stored q is the equity
    q / 32767.5 - 1.
    """

    kind = "two-sided"

    def __init__(self, points: int, checkers: int, values: np.ndarray, *, cubeful: bool = True,
                 source: str | None = None) -> None:
        self.points = points
        self.checkers = checkers
        self.cubeful = cubeful
        self.size = n_positions(points, checkers)
        self.values = values
        self.source = source

    def __repr__(self) -> str:
        where = f", source={self.source!r}" if self.source else ""
        return f"<TwoSidedDatabase points={self.points} checkers={self.checkers} cubeful={self.cubeful}{where}>"

    def equities(self, on_roll: np.ndarray, opponent: np.ndarray) -> np.ndarray:
        """(n, K) float64 equities of the side on roll for the position pairs given."""
        what = f"the two-sided database of {self.points}x{self.checkers}"
        a = _check_indices(np.atleast_1d(on_roll), self.size, what)
        b = _check_indices(np.atleast_1d(opponent), self.size, what)
        return np.asarray(self.values[a, b], dtype=np.float64) / 32767.5 - 1.0
