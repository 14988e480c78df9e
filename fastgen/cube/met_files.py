"""GNU Backgammon's match equity table files (XML), read into arrays.

The format (gnubg's ``met.dtd``; the files of ``/usr/share/gnubg/met/`` in Debian's
gnubg): a ``<met>`` element holding

- ``<info>``: ``<name>``, ``<description>`` and ``<length>`` (the longest match the
  table covers);
- ``<pre-crawford-table type="explicit">``: rows of ``<me>`` values; row *i*, value *j*
  (from 0) is the match-winning chance of a player *i* + 1 points away when the
  opponent is *j* + 1 away, before the Crawford game has been played (row 0, one point
  away, is the Crawford game itself);
- one or two ``<post-crawford-table type="explicit" player="both|0|1">``: one row; value
  *j* is the chance of the trailer, *j* + 1 away, when the leader is one point away and
  the Crawford game has been played (the last, *length* away, may be left out: GNU
  Backgammon recomputes it; NaN here when missing). ``player="both"`` serves both players; otherwise
  one table a player.

Tables of another ``type`` (gnubg's ``zadeh`` and ``mec`` tables are computed from
parameters by its own formulas) are not read: :class:`~fastgen.errors.METFileError`
says so. So does any file that is not such XML, a table of the wrong shape, or a value
outside [0, 1], quoting what it found.

Every table, read from a file or built in Python (a :class:`METFile` made by hand), is
checked by :func:`check_table`, which refuses a table that cannot be one of match
equities, naming its first bad entry (rows and columns counted from 1, as points away):

- every value is a number in [0, 1] (the post-Crawford value at *length* away may be
  missing, NaN: it is recomputed);
- pre-Crawford, row *i* (the player *i* away) and column *j* (its opponent *j* away):
  the values never fall along a row (the opponent needing more points is never worse)
  and never rise down a column (needing more points oneself is never better);
- a player ahead is more likely to win than at the same scores the other way round:
  row *i*, column *j* above row *j*, column *i* for *i* < *j* (monotonicity makes it
  at least as large; a table flat across the diagonal, such as 0.5 everywhere, has no
  game worth winning and is refused);
- each post-Crawford row never rises as the trailer needs more points;
- at double match point after the Crawford game (both 1 away) the two players' values
  describe the same game, so they add to 1 (within 0.001, the rounding of values given
  to three decimals).

Equal neighbours are accepted (real tables round values near 0 and 1, and some give
equal values two scores apart). The diagonal (equal scores) is *not* required to be 0.5:
GNU Backgammon's ``jac050`` and ``jac100`` tables make player 0 the favourite (0.51 to
0.64 there). Every explicit table GNU Backgammon ships passes.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Any

import numpy as np

from fastgen.formats.checked import MiB, read_bytes
from fastgen.errors import METFileError

__all__ = ["METFile", "check_table", "parse_met", "read_met_file", "MAX_LENGTH", "DMP_TOLERANCE"]

#: The longest match a file may describe (gnubg's limit is 64 points).
MAX_LENGTH = 64
#: How far from 1 the two players' post-Crawford values at double match point may add.
DMP_TOLERANCE = 1e-3
#: The largest file read as a table (the largest gnubg ships is under 40 kB).
MAX_FILE = 4 * MiB


@dataclass(frozen=True)
class METFile:
    """What a file holds: *name*, *description*, *length*, *pre* (length, length) and
    *post* (2, length), row p the post-Crawford chances of player p as the trailer.
    Made by :func:`parse_met` or by hand: either way the table is checked by
    :func:`check_table` (:class:`~fastgen.errors.METFileError` naming its first bad
    entry) and its arrays are kept as read-only float64 copies."""

    name: str
    description: str
    length: int
    pre: np.ndarray
    post: np.ndarray
    source: str = "<table>"

    def __post_init__(self) -> None:
        pre, post = check_table(self.pre, self.post, self.length, self.source)
        object.__setattr__(self, "length", int(self.length))
        object.__setattr__(self, "pre", pre)
        object.__setattr__(self, "post", post)


def _matrix(value: Any, shape: tuple[int, int], what: str, source: str) -> np.ndarray:
    try:
        arr = np.array(value, dtype=np.float64)  # a copy: the caller's array may change later
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.shape != shape or np.asarray(value).dtype.kind not in "iuf":
        text = " ".join(repr(value).split())
        raise METFileError(f"{source}: the {what} must be {shape[0]} x {shape[1]} numbers, got "
                           f"{text[:200]}{'...' if len(text) > 200 else ''}")
    arr.flags.writeable = False
    return arr


def check_table(pre: Any, post: Any, length: Any, source: str = "<table>") -> tuple[np.ndarray, np.ndarray]:
    """(pre, post) as read-only float64 arrays when they can be a match equity table of
    *length* points (the module docstring's rules); :class:`~fastgen.errors.METFileError`
    naming *source* and the first bad entry otherwise. *pre* is (length, length), *post*
    (2, length) (module docstring). The one check of every table, from a file or not."""
    if isinstance(length, bool) or not isinstance(length, (int, np.integer)) or not 1 <= length <= MAX_LENGTH:
        raise METFileError(f"{source}: the table's length must be a whole number from 1 to {MAX_LENGTH}, "
                           f"got {length!r}")
    n = int(length)
    a = _matrix(pre, (n, n), "pre-Crawford table", source)
    b = _matrix(post, (2, n), "post-Crawford table (one row a player)", source)
    for r, c in np.argwhere(~((a >= 0.0) & (a <= 1.0))):
        raise METFileError(f"{source}: pre-Crawford row {r + 1}, column {c + 1}: {float(a[r, c])!r} is not a "
                           f"match-winning chance in [0, 1]")
    used = b[:, : n - 1]  # the value at `length` away is recomputed: it may be missing (NaN)
    for p, t in np.argwhere(~((used >= 0.0) & (used <= 1.0))):
        raise METFileError(f"{source}: post-Crawford table of player {p}, value {t + 1}: {float(used[p, t])!r} "
                           f"is not a match-winning chance in [0, 1]")
    last = b[:, n - 1]
    for p in np.flatnonzero(~np.isnan(last) & ~((last >= 0.0) & (last <= 1.0))):
        raise METFileError(f"{source}: post-Crawford table of player {p}, value {n}: {float(last[p])!r} is not a "
                           f"match-winning chance in [0, 1]")
    # pre-Crawford: the first bad entry in reading order, whichever rule it breaks
    left = np.zeros((n, n), dtype=bool)
    left[:, 1:] = a[:, 1:] < a[:, :-1]
    above = np.zeros((n, n), dtype=bool)
    above[1:, :] = a[1:, :] > a[:-1, :]
    mirror = np.triu(a <= a.T, 1)
    bad = left | above | mirror
    if bad.any():
        r, c = (int(k) for k in np.argwhere(bad)[0])
        v = float(a[r, c])
        where = f"{source}: pre-Crawford row {r + 1}, column {c + 1} ({r + 1} away against {c + 1} away): {v!r}"
        if left[r, c]:
            raise METFileError(f"{where} is less than the entry to its left, {float(a[r, c - 1])!r}: a player's chance "
                               f"must not fall as its opponent needs more points")
        if above[r, c]:
            raise METFileError(f"{where} is more than the entry above it, {float(a[r - 1, c])!r}: a player's chance "
                               f"must not rise as it needs more points")
        raise METFileError(f"{where} is not more than row {c + 1}, column {r + 1}, {float(a[c, r])!r}: a player "
                           f"ahead must be more likely to win than at the same scores the other way round")
    for p in (0, 1):
        row = b[p, :n] if not np.isnan(b[p, n - 1]) else b[p, : n - 1]
        up = np.flatnonzero(row[1:] > row[:-1])
        if up.size:
            t = int(up[0]) + 1
            raise METFileError(f"{source}: post-Crawford table of player {p}, value {t + 1} ({t + 1} away): "
                               f"{float(row[t])!r} is more than the value before it, {float(row[t - 1])!r}: the "
                               f"trailer's chance must not rise as it needs more points")
    if n > 1 and abs(b[0, 0] + b[1, 0] - 1.0) > DMP_TOLERANCE:
        raise METFileError(f"{source}: post-Crawford value 1 (double match point) of player 0, {float(b[0, 0])!r}, "
                           f"and of player 1, {float(b[1, 0])!r}, must add to 1: they are the same game")
    return a, b


def _values(row: ET.Element, where: str, source: str) -> list[float]:
    out = []
    for me in row.findall("me"):
        text = (me.text or "").strip()
        try:
            v = float(text)
        except ValueError:
            raise METFileError(f"{source}: {where} has a value that is not a number: {text!r}") from None
        if not 0.0 <= v <= 1.0:
            raise METFileError(f"{source}: {where} has a match-winning chance outside [0, 1]: {text!r}")
        out.append(v)
    return out


def _explicit(table: ET.Element, what: str, source: str) -> None:
    kind = table.get("type", "explicit")
    if kind != "explicit":
        raise METFileError(f"{source}: the {what} is of type {kind!r}, computed from parameters by GNU Backgammon's "
                           f"own formulas; only explicit tables (rows of values) are read")


def parse_met(text: str | bytes, source: str = "<string>") -> METFile:
    """Parse the XML text of a match equity table file (module docstring)."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise METFileError(f"{source}: not an XML match equity table: {exc}") from None
    if root.tag != "met":
        raise METFileError(f"{source}: the root element is <{root.tag}>, not <met>")
    pre_el = root.find("pre-crawford-table")
    if pre_el is None:
        raise METFileError(f"{source}: no <pre-crawford-table>")
    _explicit(pre_el, "pre-Crawford table", source)
    info = root.find("info")
    name = (info.findtext("name") if info is not None else None) or ""
    description = (info.findtext("description") if info is not None else None) or ""
    length_text = (info.findtext("length") if info is not None else None)
    try:
        length = int((length_text or "").strip())
    except ValueError:
        raise METFileError(f"{source}: <info><length> must be a whole number, got {length_text!r}") from None
    if not 1 <= length <= MAX_LENGTH:
        raise METFileError(f"{source}: <info><length> must be from 1 to {MAX_LENGTH}, got {length_text!r}")
    rows = [_values(r, f"pre-Crawford row {i + 1}", source) for i, r in enumerate(pre_el.findall("row"))]
    if len(rows) < length or any(len(r) < length for r in rows[:length]):
        shape = f"{len(rows)} rows of " + "/".join(sorted({str(len(r)) for r in rows})) if rows else "no rows"
        raise METFileError(f"{source}: the pre-Crawford table must be {length} x {length} (its <length>), got {shape}")
    pre = np.array([r[:length] for r in rows[:length]], dtype=np.float64)
    post = np.empty((2, length), dtype=np.float64)
    seen = set()
    for table in root.findall("post-crawford-table"):
        _explicit(table, "post-Crawford table", source)
        player = table.get("player", "both")
        if player not in ("both", "0", "1"):
            raise METFileError(f"{source}: a post-Crawford table's player must be 'both', '0' or '1', got {player!r}")
        row_el = table.find("row")
        values = _values(row_el, f"post-Crawford table of player {player}", source) if row_el is not None else []
        if len(values) < length - 1:  # the value at `length` away is recomputed (fastgen.cube.met), so may be left out
            raise METFileError(f"{source}: the post-Crawford table of player {player} needs {length - 1} values or "
                               f"more, got {len(values)}")
        values = (values + [np.nan])[:length]
        for p in ((0, 1) if player == "both" else (int(player),)):
            post[p] = values
            seen.add(p)
    if seen != {0, 1}:
        raise METFileError(f"{source}: no post-Crawford table for player {min({0, 1} - seen)}")
    return METFile(name.strip(), " ".join(description.split()), length, pre, post, source)


def read_met_file(path: str | os.PathLike[str]) -> METFile:
    """Read a match equity table file (module docstring) from *path*: a regular file of at
    most 4 MiB (:func:`fastgen.formats.checked.read_bytes`: a FIFO, a device or a folder is refused
    at once, without waiting for a writer)."""
    data = read_bytes(path, "match equity table", METFileError, limit=MAX_FILE)
    return parse_met(data, os.fsdecode(path))
