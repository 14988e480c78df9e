"""One way to read a match file of any format: :func:`read_match` looks at the content.

- eXtreme Gammon's ``.xg`` (and ``.xgp``) start with the bytes ``RGMH``
  (:func:`fastgen.formats.xg.read_xg`);
- GNU Backgammon's ``.sgf`` starts with ``(;`` (:func:`fastgen.formats.sgf.read_sgf`);
- anything else is read as a text match in the JellyFish layout that GNU Backgammon,
  eXtreme Gammon, BGBlitz and the online sites export (:func:`fastgen.formats.read_mat`).

The file's name plays no part, so a ``.txt`` export or a renamed file reads the same.
:func:`match_files` lists a folder's match files and :func:`read_matches` reads them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Union

from fastgen.errors import MatFileError
from fastgen.formats.checked import open_regular
from fastgen.formats.matfile import read_mat
from fastgen.formats.sgf import read_sgf
from fastgen.formats.xg import read_xg
from fastgen.games.match import Match

__all__ = ["read_match", "read_matches", "match_files", "match_format", "MATCH_SUFFIXES"]

#: The file name endings :func:`match_files` takes from a folder (in any case).
MATCH_SUFFIXES = (".mat", ".txt", ".sgf", ".xg")

Source = Union[str, "os.PathLike[str]", bytes]


def match_format(head: bytes) -> str:
    """``"xg"``, ``"sgf"`` or ``"mat"``: the format of a file starting with *head*."""
    if head.startswith(b"RGMH"):
        return "xg"
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    return "sgf" if text.startswith(b"(;") else "mat"


def _head(path: str | os.PathLike[str]) -> bytes:
    with open_regular(path, "match file", MatFileError) as fh:
        return fh.read(64)


def read_match(source: Source, *, errors: str = "raise") -> Match:
    """Read the match in *source*: a path (str or os.PathLike) or the file's bytes; the
    format is told from the content (module docstring).

    *errors*: ``"raise"`` (the default) raises at the first problem; ``"warn"`` reads on
    past what GNU Backgammon also reads past (see :func:`fastgen.formats.read_mat`), issuing a
    :class:`fastgen.formats.MatFileWarning` for each and keeping it in :attr:`Match.problems`.

    Raises :class:`fastgen.MatFileError` (:class:`fastgen.formats.SgfFileError` and
    :class:`fastgen.formats.XgFileError` are its kinds) naming the file and the place.
    """
    if errors not in ("raise", "warn"):
        raise MatFileError(f"errors must be 'raise' or 'warn', got {errors!r}")
    data: bytes | str | os.PathLike[str]
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        kind = match_format(data[:64])
    elif isinstance(source, (str, os.PathLike)):
        if isinstance(source, str) and "\n" in source:  # the file's text, not a path
            data = source.encode("utf-8")
            kind = match_format(source[:64].encode("utf-8"))
        else:
            data = source
            kind = match_format(_head(source))
    else:
        raise MatFileError(f"read_match needs a path or a file's bytes, got {source!r}")
    if kind == "xg":
        return read_xg(data, errors=errors)
    if kind == "sgf":
        return read_sgf(data)
    return read_mat(data, errors=errors)


def match_files(folder: str | os.PathLike[str]) -> list[Path]:
    """The match files of *folder* (names ending in :data:`MATCH_SUFFIXES`, in any
    case), in name order; not its subfolders."""
    path = Path(folder)
    if not path.is_dir():
        raise MatFileError(f"{os.fspath(folder)!r} is not a folder")
    return sorted(p for p in path.iterdir() if p.suffix.lower() in MATCH_SUFFIXES and p.is_file())


def read_matches(source: str | os.PathLike[str] | Iterable[str | os.PathLike[str]], *,
                 errors: str = "raise") -> list[Match]:
    """Every match of a folder (:func:`match_files`) or of a list of paths, each read
    by :func:`read_match`; formats may be mixed."""
    if isinstance(source, (str, os.PathLike)):
        paths: list = match_files(source)
    else:
        paths = list(source)
    return [read_match(p, errors=errors) for p in paths]
