"""Checked reading of the files fastgen reads: one way in for every reader.

Every file fastgen reads from a user (networks, checkpoints, training data, match equity
tables, match files, ONNX graphs, curve logs) comes in through these functions, so each
reader refuses the same faults the same way, with the reader's own
:class:`~fastgen.errors.FastgenError` subclass naming the file:

- only a **regular file** is opened: a FIFO, a device (``/dev/zero``), a socket or a
  folder is refused before anything is read (a FIFO is opened without blocking, so a
  reader never waits for a writer that does not come);
- its **size is bounded** before it is read (the file's size from ``fstat``, and never
  more than the bound is read, for a file that grows while it is read);
- an ``.npz`` archive is read member by member: no pickled objects, no encrypted or
  unusually compressed member, and an array's size is checked against what its member
  holds **before anything is allocated** (a small file claiming a huge array is refused,
  not allocated);
- a fault of any kind while decoding (``zlib.error``, a header numpy cannot parse, a
  nesting too deep for Python, too little memory) becomes the reader's error, never a
  foreign exception.

Writing goes the other way through :func:`fastgen._util.atomic_write` (whole or not at
all), and :func:`check_destination` tells, before long work, whether its result can be
written where it is asked to go.
"""

from __future__ import annotations

import io
import json
import math
import os
import stat
import zipfile
from typing import IO, Any

import numpy as np

from fastgen.errors import FastgenError

__all__ = ["MiB", "open_regular", "read_bytes", "read_text", "read_npz", "parse_json", "check_destination",
           "decoding"]

MiB = 1 << 20

#: The default bound of a file read whole, and of the arrays an ``.npz`` holds together.
DEFAULT_LIMIT = 1024 * MiB
#: Members an ``.npz`` may hold (a network or checkpoint holds a few dozen).
MAX_MEMBERS = 4096

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _name(source: Any) -> str:
    return repr(os.fspath(source)) if isinstance(source, (str, bytes, os.PathLike)) else repr(source)


def _size_text(n: int) -> str:
    return f"{n / MiB:,.1f} MiB" if n >= MiB else f"{n:,} bytes"


class decoding:
    """``with decoding(what, name, error):`` turns any exception the body raises, other
    than a :class:`FastgenError`, into *error* (``"cannot read the WHAT NAME: TYPE:
    message"``): the one place where a reader's foreign exceptions (zlib.error,
    RecursionError, MemoryError, a numpy header error ...) become its own."""

    def __init__(self, what: str, name: str, error: type[FastgenError]) -> None:
        self.what, self.name, self.error = what, name, error

    def __enter__(self) -> "decoding":
        return self

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> None:
        if exc is None or isinstance(exc, FastgenError) or not isinstance(exc, Exception):
            return  # success, our own error, or KeyboardInterrupt / SystemExit: passed on
        if isinstance(exc, RecursionError):
            why = "it nests too deeply to read"
        elif isinstance(exc, MemoryError):
            why = "there is not enough memory to read it"
        else:
            text = " ".join(str(exc).split())[:200]
            why = type(exc).__name__ + (f": {text}" if text else "")
        raise self.error(f"cannot read the {self.what} {self.name}: {why}") from None


def open_regular(path: str | os.PathLike[str], what: str, error: type[FastgenError]) -> IO[bytes]:
    """*path* open for binary reading; *error* naming the file when it does not exist,
    cannot be opened, or is not a regular file (nothing is read from a FIFO or device,
    and opening a FIFO does not block)."""
    name = _name(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(os.fspath(path), flags)
    except FileNotFoundError:
        raise error(f"cannot read the {what} {name}: it does not exist") from None
    except OSError as exc:
        raise error(f"cannot read the {what} {name}: {exc.strerror or exc}") from None
    except (TypeError, ValueError) as exc:  # a NUL in the path, a path of the wrong type
        raise error(f"cannot read the {what} {name}: {exc}") from None
    try:
        mode = os.fstat(fd).st_mode
        for test, kind in _KINDS:
            if test(mode):
                raise error(f"cannot read the {what} {name}: it is {kind}, not a regular file")
        if not stat.S_ISREG(mode):
            raise error(f"cannot read the {what} {name}: it is not a regular file")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path: str | os.PathLike[str], what: str, error: type[FastgenError], limit: int = DEFAULT_LIMIT) -> bytes:
    """The whole regular file *path* (:func:`open_regular`), refused with *error* when it
    is larger than *limit* bytes (checked before reading, and never more than *limit*
    + 1 bytes read)."""
    with open_regular(path, what, error) as f:
        size = os.fstat(f.fileno()).st_size
        name = _name(path)
        if size > limit:
            raise error(f"cannot read the {what} {name}: it holds {_size_text(size)}, more than the "
                        f"{_size_text(limit)} a {what} may hold")
        try:
            data = f.read(limit + 1)
        except OSError as exc:
            raise error(f"cannot read the {what} {name}: {exc.strerror or exc}") from None
        if len(data) > limit:
            raise error(f"cannot read the {what} {name}: it grew past {_size_text(limit)} while it was read")
        return data


def read_text(path: str | os.PathLike[str], what: str, error: type[FastgenError], limit: int = 64 * MiB,
              encoding: str = "utf-8") -> str:
    """The regular file *path* as text (:func:`read_bytes`); *error* when it is not
    *encoding*."""
    data = read_bytes(path, what, error, limit)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise error(f"cannot read the {what} {_name(path)}: it is not {encoding} text (byte {exc.start})") from None


def parse_json(text: str | bytes, what: str, name: str, error: type[FastgenError]) -> Any:
    """*text* parsed as JSON; *error* (quoting *name*) when it is not JSON or nests too
    deeply for Python."""
    with decoding(what, name, error):
        try:
            return json.loads(text)
        except ValueError as exc:
            raise error(f"cannot read the {what} {name}: not JSON ({exc})") from None


def _array(member: IO[bytes], info: zipfile.ZipInfo, limit: int) -> np.ndarray:
    """The array in the ``.npy`` member *member* (sizes checked before reading its data)."""
    fmt = np.lib.format
    version = fmt.read_magic(member)
    if version == (1, 0):
        shape, fortran, dtype = fmt.read_array_header_1_0(member)
    elif version in ((2, 0), (3, 0)):
        shape, fortran, dtype = fmt.read_array_header_2_0(member)
    else:
        raise ValueError(f"an .npy format version {version} numpy does not write")
    if dtype.hasobject:
        raise ValueError("it holds Python objects (pickles), which fastgen never loads")
    if dtype.itemsize == 0:
        raise ValueError(f"an array of zero-size items ({dtype})")
    count = math.prod(int(n) for n in shape)
    need = count * dtype.itemsize
    header = 8 + (2 if version == (1, 0) else 4)  # magic, version, header length field
    here = member.tell() if member.seekable() else None
    have = info.file_size - (here if here is not None else header)
    if need > limit or need != have:
        raise ValueError(f"its header claims {shape} items of {dtype} ({_size_text(need)}) where the member holds "
                         f"{_size_text(max(have, 0))}")
    data = member.read(need)
    if len(data) != need:
        raise ValueError(f"it holds {_size_text(len(data))} of the {_size_text(need)} its header claims")
    flat = np.frombuffer(data, dtype=dtype, count=count)
    return flat.reshape(shape, order="F" if fortran else "C").copy(order="K")


def read_npz(source: Any, what: str, error: type[FastgenError], limit: int = DEFAULT_LIMIT) -> dict[str, np.ndarray]:
    """Every array of the ``.npz`` archive *source* (a path, or a binary file object) by
    name, read as the module docstring says; *error* naming the file on any fault."""
    name = _name(source)
    if isinstance(source, (str, os.PathLike)):
        data = read_bytes(source, what, error, limit)
    else:
        with decoding(what, name, error):
            data = source.read(limit + 1)
        if not isinstance(data, bytes) or len(data) > limit:
            raise error(f"cannot read the {what} {name}: not a binary file of at most {_size_text(limit)}")
    out: dict[str, np.ndarray] = {}
    with decoding(what, name, error):
        try:
            archive = zipfile.ZipFile(io.BytesIO(data))
        except zipfile.BadZipFile:
            raise error(f"cannot read the {what} {name}: not an .npz archive (a zip file), or a truncated one") from None
        with archive:
            infos = archive.infolist()
            if len(infos) > MAX_MEMBERS:
                raise error(f"cannot read the {what} {name}: {len(infos):,} members, more than {MAX_MEMBERS:,}")
            total = 0
            for info in infos:
                where = f"cannot read the {what} {name}: its member {info.filename!r}"
                if not info.filename.endswith(".npy"):
                    raise error(f"{where} is not an .npy array")
                if info.flag_bits & 0x1:
                    raise error(f"{where} is encrypted")
                if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                    raise error(f"{where} is compressed by method {info.compress_type}, which numpy never writes")
                total += info.file_size
                if total > limit:
                    raise error(f"cannot read the {what} {name}: its arrays hold more than {_size_text(limit)}")
                key = info.filename[:-4]
                if key in out:
                    raise error(f"{where} appears twice")
                with archive.open(info) as member:
                    try:
                        out[key] = _array(member, info, limit)
                    except ValueError as exc:
                        raise error(f"{where}: {exc}") from None
    return out


def check_destination(path: str | os.PathLike[str], what: str, error: type[FastgenError]) -> str:
    """*path* as a string when a file can be written there: its folder exists and is a
    writable folder, and *path* is not itself a folder; *error* saying which, before any
    long work whose result would go there."""
    name = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(name))
    if os.path.isdir(name):
        raise error(f"cannot write the {what} {name!r}: it is a folder")
    if not os.path.isdir(folder):
        why = "does not exist" if not os.path.exists(folder) else "is not a folder"
        raise error(f"cannot write the {what} {name!r}: its folder {folder!r} {why}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise error(f"cannot write the {what} {name!r}: its folder {folder!r} is not writable")
    return name
