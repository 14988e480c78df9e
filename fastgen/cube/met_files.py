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
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass

import numpy as np

from fastgen.errors import METFileError

__all__ = ["METFile", "parse_met", "read_met_file", "MAX_LENGTH"]

#: The longest match a file may describe (gnubg's limit is 64 points).
MAX_LENGTH = 64


@dataclass(frozen=True)
class METFile:
    """What a file holds: *name*, *description*, *length*, *pre* (length, length) and
    *post* (2, length), row p the post-Crawford chances of player p as the trailer."""

    name: str
    description: str
    length: int
    pre: np.ndarray
    post: np.ndarray
    source: str


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
    """Read a match equity table file (module docstring) from *path*."""
    source = os.fspath(path)
    try:
        with open(source, "rb") as f:
            data = f.read(1 << 22)
            if f.read(1):
                raise METFileError(f"{source}: larger than 4 MB, not a match equity table")
    except OSError as exc:
        raise METFileError(f"cannot read the match equity table {source!r}: {exc.strerror or exc}") from None
    return parse_met(data, source)
