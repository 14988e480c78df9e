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

Reading maps the file into memory (numpy.memmap) after checking the header and the size,
then checks the tables in compiled loops (see :func:`read_gnubg`).
"""

from __future__ import annotations

import io
import os
import re
import stat
from typing import IO

import numpy as np

from fastgen._util import atomic_write
from fastgen.bearoff import _build
from fastgen.bearoff.database import NDIST, OneSidedDatabase, TwoSidedDatabase
from fastgen.bearoff.index import MAX_POINTS, index_position, n_positions
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


def _write_one_sided_compressed(f: IO[bytes], db: OneSidedDatabase) -> None:
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


def _write(f: IO[bytes], db: OneSidedDatabase | TwoSidedDatabase, compress: bool, header: bool) -> None:
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
    chunk at a time: little memory beyond the database itself, into a temporary file
    beside *path* that then replaces it (see :func:`fastgen._util.atomic_write`): a
    reader that has the old file open keeps reading it, and an interrupted write leaves
    the old file, or none, never part of one.
    """
    with atomic_write(path, "wb") as f:
        _write(f, db, compress, header)
        return f.tell()


def _fail(path: str, what: str) -> BearoffFileError:
    return BearoffFileError(f"{path!r} is not a readable gnubg bear-off database: {what}")


def read_gnubg(path: str | os.PathLike[str], *, verify: bool = True) -> OneSidedDatabase | TwoSidedDatabase:
    """Open any gnubg bear-off file with a header (one- or two-sided, compressed or not,
    with or without gammons or cubeful values), memory-mapped.

    BearoffFileError, naming the file and the fault, for a file that is not one: not a
    regular file (a directory, a FIFO), a wrong type, a bad header, a size that does not
    match the header (truncated or damaged), or, checked in compiled loops as the file
    is opened, a damaged table. The first bad position is named. What is checked is what
    every gnubg file holds:

    - one-sided: each distribution (of the rolls to bear off, and with gammons of the
      rolls to bear off the first checker) sums to exactly 65535; position 0 needs 0
      rolls and every other position at least one; the first checker of a position of
      fewer than 15 checkers is off already (0 rolls), that of 15 needs at least one;
      in the compressed layout the index (each offset the sum of the runs before it,
      runs of 1 to 32 values within rolls 0..31) and the runs (non-zero at both ends,
      filling the file exactly);
    - two-sided: every stored value is an equity in [-1, 1] whatever its bits, so the
      checks are those of a finished game: a side on roll with no checker left has won
      (65535 in row 0), one whose opponent has none left has lost (0 in column 0).

    ``verify=False`` skips the checks of the stored values, for a file known to be
    good (the compressed layout's index is still checked: a damaged one would read
    outside the file). Evaluation caps each output at 1 whatever the file holds.
    """
    name = os.fspath(path)
    try:
        info = os.stat(name)
        if not stat.S_ISREG(info.st_mode):
            raise _fail(name, "not a regular file (a directory, FIFO or device); a database is a file on disk")
        size = info.st_size
        with open(name, "rb") as f:
            head = f.read(HEADER_BYTES)
    except OSError as exc:
        raise BearoffFileError(f"cannot read bear-off database {name!r}: {exc.strerror or exc}") from None
    if len(head) < HEADER_BYTES:
        raise _fail(name, f"{size} bytes, shorter than the {HEADER_BYTES}-byte header")
    m = _OS.fullmatch(head)
    if m:
        return _read_one_sided(name, size, int(m[1]), m[2] == b"1", m[3] == b"1", m[4] == b"1", verify)
    m = _TS.fullmatch(head)
    if m:
        return _read_two_sided(name, size, int(m[1]), int(m[2]), m[3] == b"1", verify)
    raise _fail(name, f"the header {head[:24]!r} is neither gnubg-OS-... nor gnubg-TS-...")


def _dims(name: str, points: int, checkers: int) -> int:
    if not 1 <= points <= MAX_POINTS or not 1 <= checkers <= 15:
        raise _fail(name, f"the header gives {points} points and {checkers} checkers (fastgen reads 1 to {MAX_POINTS} points, 1 to 15 checkers)")
    return n_positions(points, checkers)


def _where(points: int, checkers: int, x: int) -> str:
    """Position number x and its checkers, for a message."""
    return f"position {x} (checkers on points 1 to {points}: {index_position(x, points, checkers).tolist()})"


_WHICH = {0: "rolls to bear off", 1: "rolls to bear off the first checker"}


def _one_sided_fault(name: str, db: OneSidedDatabase, x: int, fault: int, got: int, stored: int) -> BearoffFileError:
    """The error of a fault code of _build.verify_one_sided (see fastgen/bearoff/_verify.pxi)."""
    if fault == 24:
        return _fail(name, f"{stored} stored values where its index needs {got} (truncated or damaged)")
    where = _where(db.points, 15, x)
    run = "first-checker run" if fault > 30 else "run"
    if fault in (21, 22, 23, 32, 33):
        what = {21: f"its offset {got} is not the sum of the runs before it",
                22: f"its {run} holds {got} values (1 to 32)",
                23: f"its {run} starts at roll {got} and passes roll 31",
                32: f"its {run} holds {got} values (1 to 32)",
                33: f"its {run} starts at roll {got} and passes roll 31"}[fault]
        return _fail(name, f"its index is damaged at {where}: {what}")
    which = _WHICH[fault >= 10]
    code = fault % 10
    if code == 1:
        what = f"its distribution of {which} sums to {got}, not 65535"
    elif code == 2:
        zero = (x == 0) if fault < 10 else (x < n_positions(db.points, 14))
        want = "65535 (nothing left to bear off)" if zero else "0"
        what = f"its probability of 0 {which} is {got}/65535 where it must be {want}"
    else:
        what = f"its compressed run of {which} stores 0 for roll {got}, an end of the run"
    return _fail(name, f"{where} is damaged: {what}")


def _verify_one_sided(name: str, db: OneSidedDatabase, values: bool, stored: int) -> None:
    rolls, gammon, offset, nz, ioff, nzg, ioffg, data = db.storage()
    x, fault, got = _build.verify_one_sided(rolls, gammon, offset, nz, ioff, nzg, ioffg, data,
                                            n_positions(db.points, 14), int(values))
    if fault:
        raise _one_sided_fault(name, db, x, fault, got, stored)


def _read_one_sided(name: str, size: int, points: int, gammons: bool, compressed: bool, normal: bool,
                    verify: bool) -> OneSidedDatabase:
    if normal:
        raise _fail(name, "a normal-distribution approximation (makebearoff -n), which fastgen does not read")
    count = _dims(name, points, 15)
    width = NDIST * (2 if gammons else 1)
    if not compressed:
        want = HEADER_BYTES + count * width * 2
        if size != want:
            raise _fail(name, f"{size} bytes where {points} points uncompressed take {want} (truncated or damaged)")
        table = np.memmap(name, dtype="<u2", mode="r", offset=HEADER_BYTES, shape=(count, width))
        db = OneSidedDatabase(points, rolls=table[:, :NDIST], gammon=table[:, NDIST:] if gammons else None,
                              gammons=gammons, source=name)
        if verify:
            _verify_one_sided(name, db, True, count * width)
        return db
    entry = 8 if gammons else 6
    if size < HEADER_BYTES + count * entry:
        raise _fail(name, f"{size} bytes, too short for the index of {count} positions (truncated)")
    data_bytes = size - HEADER_BYTES - count * entry
    if data_bytes % 2 or data_bytes == 0:
        raise _fail(name, f"{data_bytes} bytes of runs after its index, not a positive even number (truncated or damaged)")
    raw = np.memmap(name, dtype=np.uint8, mode="r", offset=HEADER_BYTES, shape=(count, entry))
    offset = np.ascontiguousarray(raw[:, :4]).view("<u4").reshape(count)
    nz, ioff = raw[:, 4], raw[:, 5]
    nzg = raw[:, 6] if gammons else None
    ioffg = raw[:, 7] if gammons else None
    data = np.memmap(name, dtype="<u2", mode="r", offset=HEADER_BYTES + count * entry, shape=(data_bytes // 2,))
    db = OneSidedDatabase(points, gammons=gammons, packed=(offset, nz, ioff, nzg, ioffg, data), source=name)
    _verify_one_sided(name, db, verify, data_bytes // 2)  # the index always: it says where to read
    return db


def _read_two_sided(name: str, size: int, points: int, checkers: int, cubeful: bool, verify: bool) -> TwoSidedDatabase:
    count = _dims(name, points, checkers)
    k = 4 if cubeful else 1
    want = HEADER_BYTES + count * count * k * 2
    if size != want:
        raise _fail(name, f"{size} bytes where {points}x{checkers} two-sided takes {want} (truncated or damaged)")
    values = np.memmap(name, dtype="<u2", mode="r", offset=HEADER_BYTES, shape=(count, count, k))
    if verify:
        i, fault, got = _build.verify_two_sided(values)
        if fault == 41:
            raise _fail(name, f"the pair (0, {i}) is damaged: the side on roll has no checker left and has won, "
                              f"yet {got} is stored where every gnubg file holds 65535")
        if fault:
            raise _fail(name, f"the pair ({i}, 0) is damaged: the side on roll's opponent has no checker left and has "
                              f"won, yet {got} is stored where every gnubg file holds 0")
    return TwoSidedDatabase(points, checkers, values, cubeful=cubeful, source=name)
