"""GNU Backgammon's bear-off files (.bd): writing them byte for byte, reading any of them.

Layout (all integers little-endian), as makebearoff writes it:

- a 40-byte header unless written without one (makebearoff -H): ``gnubg-OS-PP-15-G-C-0``
  (one-sided: points, checkers, gammons 0/1, compressed 0/1, normal-distribution 0) or
  ``gnubg-TS-PP-CC-F`` (two-sided: points, checkers, cubeful 0/1), padded with ``x`` to
  39 bytes and a newline;
- one-sided, uncompressed: per position 32 uint16 (rolls to bear off), then with gammons
  32 more (rolls to bear off the first checker);
- one-sided, compressed: per position an index entry of a uint32 offset (in uint16 units
  into the data that follow the index), the count and first roll of the non-zero run of
  the roll distribution (one byte each) and, with gammons, those of the first-checker
  distribution (8 bytes a position, 6 without gammons); then the runs themselves;
- two-sided: per pair (side on roll, opponent), row-major, 4 uint16 (cubeless, owned,
  centred, opponent owns) or 1 (cubeless) each.

Reading maps the file into memory (numpy.memmap) after checking the header and the size.
"""

from __future__ import annotations

import io
import os
import re
from typing import BinaryIO

import numpy as np

from fastgen.bearoff.database import NDIST, OneSidedDatabase, TwoSidedDatabase
from fastgen.bearoff.index import MAX_POINTS, n_positions
from fastgen.errors import BearoffFileError, InvalidArgumentError

__all__ = ["write_gnubg", "read_gnubg", "encode_gnubg", "HEADER_BYTES"]

HEADER_BYTES = 40

_OS = re.compile(rb"gnubg-OS-(\d\d)-15-([01])-([01])-([01])x*\n")
_TS = re.compile(rb"gnubg-TS-(\d\d)-(\d\d)-([01])x*\n")


def _header(text: str) -> bytes:
    return text.encode("ascii").ljust(HEADER_BYTES - 1, b"x") + b"\n"


#: Positions per chunk when packing a one-sided table (bounded temporary memory).
CHUNK = 1 << 16


def _runs(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first, count) of the non-zero run of each row of a (n, 32) table."""
    nonzero = table != 0
    first = np.argmax(nonzero, axis=1)
    last = NDIST - 1 - np.argmax(nonzero[:, ::-1], axis=1)
    return first, last - first + 1


def _tables(db: OneSidedDatabase) -> list[np.ndarray]:
    gammon = db.gammon
    return [db.rolls] + ([gammon] if gammon is not None else [])


def _write_one_sided_compressed(f: BinaryIO, db: OneSidedDatabase) -> None:
    """The index, then the runs, a chunk of positions at a time (a straight copy of a
    database built or read in this layout)."""
    runs = db.runs
    if db.index_bytes is not None and runs is not None:
        f.write(np.ascontiguousarray(db.index_bytes).data)
        f.write(np.ascontiguousarray(runs, dtype="<u2").data)
        return
    tables = _tables(db)
    size = db.size
    entry = 8 if db.gammons else 6
    index = np.zeros((size, entry), dtype=np.uint8)
    lengths = np.zeros(size, dtype=np.int64)
    for lo in range(0, size, CHUNK):
        hi = min(size, lo + CHUNK)
        for t, table in enumerate(tables):
            first, count = _runs(np.asarray(table[lo:hi]))
            index[lo:hi, 4 + 2 * t] = count
            index[lo:hi, 5 + 2 * t] = first
            lengths[lo:hi] += count
    offsets = np.zeros(size, dtype=np.int64)
    offsets[1:] = np.cumsum(lengths[:-1])
    index[:, :4] = offsets.astype("<u4").view(np.uint8).reshape(size, 4)
    f.write(index.tobytes())
    del index
    for lo in range(0, size, CHUNK):
        hi = min(size, lo + CHUNK)
        base = int(offsets[lo])
        data = np.zeros(int(offsets[hi - 1]) + int(lengths[hi - 1]) - base, dtype="<u2")
        pos = offsets[lo:hi].astype(np.int64) - base
        for table in tables:
            part = np.asarray(table[lo:hi])
            first, count = _runs(part)
            rows = np.arange(hi - lo)
            for k in range(int(count.max())):
                live = k < count
                data[pos[live] + k] = part[rows[live], first[live] + k]
            pos = pos + count
        f.write(data.tobytes())


def _write(f: BinaryIO, db: OneSidedDatabase | TwoSidedDatabase, compress: bool, header: bool) -> None:
    if isinstance(db, OneSidedDatabase):
        if header:
            f.write(_header(f"gnubg-OS-{db.points:02d}-15-{int(db.gammons)}-{int(bool(compress))}-0"))
        if compress:
            _write_one_sided_compressed(f, db)
            return
        tables = _tables(db)
        for lo in range(0, db.size, CHUNK):
            rows = [np.asarray(t[lo:lo + CHUNK], dtype="<u2") for t in tables]
            f.write(np.concatenate(rows, axis=1).tobytes())
    elif isinstance(db, TwoSidedDatabase):
        if header:
            f.write(_header(f"gnubg-TS-{db.points:02d}-{db.checkers:02d}-{int(db.cubeful)}"))
        for lo in range(0, db.size, 256):  # a few rows at a time: no copy of the whole table
            f.write(np.ascontiguousarray(db.values[lo:lo + 256], dtype="<u2").tobytes())
    else:
        raise InvalidArgumentError(f"expected a OneSidedDatabase or TwoSidedDatabase, got {db!r}")


def encode_gnubg(db: OneSidedDatabase | TwoSidedDatabase, *, compress: bool = True, header: bool = True) -> bytes:
    """The bytes of *db* as a gnubg .bd file (see :func:`write_gnubg`)."""
    buf = io.BytesIO()
    _write(buf, db, compress, header)
    return buf.getvalue()


def write_gnubg(path: str | os.PathLike[str], db: OneSidedDatabase | TwoSidedDatabase, *,
                compress: bool = True, header: bool = True) -> int:
    """Write *db* to *path* in gnubg's .bd format; returns the number of bytes written.

    One-sided databases are written compressed unless ``compress=False`` (makebearoff
    -c); a one-sided database built without gammons writes none (-g), a two-sided one
    built without cubeful values writes cubeless values only (-C). ``header=False`` (-H)
    leaves the 40-byte header out; such a file cannot be read back by gnubg or by
    :func:`read_gnubg`, which need the header to know the layout. The file is written a
    chunk at a time: little memory beyond the database itself.
    """
    with open(path, "wb") as f:
        _write(f, db, compress, header)
        return f.tell()


def _fail(path: str, what: str) -> BearoffFileError:
    return BearoffFileError(f"{path!r} is not a readable gnubg bear-off database: {what}")


def read_gnubg(path: str | os.PathLike[str]) -> OneSidedDatabase | TwoSidedDatabase:
    """Open any gnubg bear-off file with a header (one- or two-sided, compressed or not,
    with or without gammons or cubeful values), memory-mapped.

    BearoffFileError, naming the file and the fault, for a file that is not one (wrong
    type, bad header, a size that does not match the header: truncated or damaged).
    """
    name = os.fspath(path)
    try:
        size = os.path.getsize(name)
        with open(name, "rb") as f:
            head = f.read(HEADER_BYTES)
    except OSError as exc:
        raise BearoffFileError(f"cannot read bear-off database {name!r}: {exc.strerror or exc}") from None
    if len(head) < HEADER_BYTES:
        raise _fail(name, f"{size} bytes, shorter than the {HEADER_BYTES}-byte header")
    m = _OS.fullmatch(head)
    if m:
        return _read_one_sided(name, size, int(m[1]), m[2] == b"1", m[3] == b"1", m[4] == b"1")
    m = _TS.fullmatch(head)
    if m:
        return _read_two_sided(name, size, int(m[1]), int(m[2]), m[3] == b"1")
    raise _fail(name, f"the header {head[:24]!r} is neither gnubg-OS-... nor gnubg-TS-...")


def _dims(name: str, points: int, checkers: int) -> int:
    if not 1 <= points <= MAX_POINTS or not 1 <= checkers <= 15:
        raise _fail(name, f"the header gives {points} points and {checkers} checkers (fastgen reads 1 to {MAX_POINTS} points, 1 to 15 checkers)")
    return n_positions(points, checkers)


def _read_one_sided(name: str, size: int, points: int, gammons: bool, compressed: bool, normal: bool) -> OneSidedDatabase:
    if normal:
        raise _fail(name, "a normal-distribution approximation (makebearoff -n), which fastgen does not read")
    count = _dims(name, points, 15)
    width = NDIST * (2 if gammons else 1)
    if not compressed:
        want = HEADER_BYTES + count * width * 2
        if size != want:
            raise _fail(name, f"{size} bytes where {points} points uncompressed take {want} (truncated or damaged)")
        table = np.memmap(name, dtype="<u2", mode="r", offset=HEADER_BYTES, shape=(count, width))
        return OneSidedDatabase(points, rolls=table[:, :NDIST], gammon=table[:, NDIST:] if gammons else None,
                                gammons=gammons, source=name)
    entry = 8 if gammons else 6
    if size < HEADER_BYTES + count * entry:
        raise _fail(name, f"{size} bytes, too short for the index of {count} positions (truncated)")
    raw = np.memmap(name, dtype=np.uint8, mode="r", offset=HEADER_BYTES, shape=(count, entry))
    offset = np.ascontiguousarray(raw[:, :4]).view("<u4").reshape(count)
    nz, ioff = raw[:, 4], raw[:, 5]
    nzg = raw[:, 6] if gammons else None
    ioffg = raw[:, 7] if gammons else None
    total = nz.astype(np.int64) + (nzg.astype(np.int64) if nzg is not None else 0)
    data_bytes = size - HEADER_BYTES - count * entry
    expect = np.concatenate([[0], np.cumsum(total)[:-1]])
    if (
        data_bytes % 2
        or not np.array_equal(offset, expect)
        or (nz < 1).any() or (nz.astype(np.int64) + ioff > NDIST).any()
        or (nzg is not None and ioffg is not None and ((nzg < 1).any() or (nzg.astype(np.int64) + ioffg > NDIST).any()))
    ):
        raise _fail(name, "its index is damaged (offsets or runs out of order or out of range)")
    if data_bytes // 2 != int(total.sum()):
        raise _fail(name, f"{data_bytes // 2} stored values where its index needs {int(total.sum())} (truncated or damaged)")
    data = np.memmap(name, dtype="<u2", mode="r", offset=HEADER_BYTES + count * entry, shape=(data_bytes // 2,))
    packed = (offset, nz, ioff, nzg, ioffg, data)
    return OneSidedDatabase(points, gammons=gammons, packed=packed, source=name)


def _read_two_sided(name: str, size: int, points: int, checkers: int, cubeful: bool) -> TwoSidedDatabase:
    count = _dims(name, points, checkers)
    k = 4 if cubeful else 1
    want = HEADER_BYTES + count * count * k * 2
    if size != want:
        raise _fail(name, f"{size} bytes where {points}x{checkers} two-sided takes {want} (truncated or damaged)")
    values = np.memmap(name, dtype="<u2", mode="r", offset=HEADER_BYTES, shape=(count, count, k))
    return TwoSidedDatabase(points, checkers, values, cubeful=cubeful, source=name)
