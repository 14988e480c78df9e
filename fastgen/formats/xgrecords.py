"""The byte layouts of eXtreme Gammon's ``.xg`` / ``.xgp`` files, and their checked unpacking.

Everything here follows eXtreme Gammon's published description of the format
(extremegammon.com/XGformat.aspx, "XG_format.pas" and "ZLibArchive.pas", (c) 2009-2014
GameSite 2000 Ltd, "freely redistributed"); :mod:`fastgen.formats.xg` turns the records
into matches. A file is:

1. a **RichGameHeader** of 8,232 bytes: the magic ``RGMH``, its version (1) and size
   (8,232), a JPEG thumbnail's offset and size, a GUID and four ``WideChar[1024]`` texts
   (game name, save name, level name, comments);
2. the thumbnail (``dwThumbnailSize`` bytes), then XG's **ZLib archive** (the Delphi
   "ZLBArchive" component) to the end of the file: the archived files one after the
   other (each a zlib stream, or stored as is), their **registry** (one 532-byte
   ``TZLBFileRec`` a file: name, path, original and packed sizes, start, CRC-32, status,
   level; usually zlib-compressed as a whole) and a 36-byte ``TZLBArchiveRec`` at the
   very end (CRC-32 of everything from the archive's start to it, file count, version,
   registry size, archive size, whether the registry is compressed);
3. in the archive, ``temp.xg``: the game as 2,560-byte ``TSaveRec`` records (a match
   header, then per game a game header, cube and move records and a game footer, then
   a match footer); ``temp.xgi`` (its first and last record again), ``temp.xgr``
   (2,184-byte rollout contexts) and ``temp.xgc`` (RTF comments, one a line).

Records are Delphi records: little-endian, each field aligned on its own size (doubles
on 8, integers and singles on 4, SmallInt and WideChar on 2, bytes, booleans and
``string[n]`` not at all), a record field on its largest member's alignment; the
variant part of ``TSaveRec`` starts at byte 9, after two 4-byte pointers and the entry
type. The layouts below are computed from the published field lists by those rules and
checked against the sizes and offsets the description gives (2,560 / 2,184 / 132 bytes;
``MatchLength`` at 92, ``GameId`` at 268).

What the fields hold in the files XG itself writes, where that differs from or goes
beyond the published comments (the side each position is seen from, PosInit's zeros,
the cube records' ``Double`` -2 and -1 and ``DiceRolled``, the move list's encoding, the
unplayed roll, ``Termination`` 104), is told in :mod:`fastgen.formats.xg`.

Every size read from the file is bounded before anything is allocated or decompressed,
every checksum is checked, and any fault raises :class:`~fastgen.errors.XgFileError`
naming the file and the place.
"""

from __future__ import annotations

import struct
import zlib
from typing import Any, NamedTuple

import numpy as np

from fastgen.errors import XgFileError
from fastgen.formats.checked import MiB

__all__ = [
    "RECORD_SIZE", "HEADER_SIZE", "MAX_VERSION", "HEADER_MATCH", "HEADER_GAME", "CUBE", "MOVE", "FOOTER_GAME",
    "FOOTER_MATCH", "COMMENT", "MISSING", "RECORD_DTYPES", "BEST_MOVE", "DOUBLE_ACTION", "Record", "XgContainer",
    "unpack", "read_records", "read_comments", "rtf_text", "short_string", "wide_string", "LEVEL_NAMES",
    "SITE_NAMES", "MAX_UNPACKED",
]

RECORD_SIZE = 2560  #: a TSaveRec
HEADER_SIZE = 8232  #: a TRichGameHeader
ROLLOUT_SIZE = 2184  #: a TRolloutContext
RGMH = 0x484D4752  #: RM_MAGICNUMBER, "RGMH"
DMLI = 0x494C4D44  #: the HeaderMatch Magic, "DMLI"
MAX_VERSION = 40  #: MaxSaveFileVersion: "XG2 will refuse any version higher than this"
#: Entry types (Typesave).
HEADER_MATCH, HEADER_GAME, CUBE, MOVE, FOOTER_GAME, FOOTER_MATCH, COMMENT, MISSING = range(8)
ENTRY_NAMES = ("match header", "game header", "cube", "move", "game footer", "match footer", "comment", "missing")
#: The most bytes the archived files may hold unpacked together (a long money session's
#: temp.xg is a few MiB); a file claiming more is refused before anything is unpacked.
MAX_UNPACKED = 128 * MiB
MAX_FILES = 64  #: archived files (XG writes four)
FILE_REC_SIZE = 532  #: a TZLBFileRec
ARCHIVE_REC_SIZE = 36  #: a TZLBArchiveRec

#: The PLAYERLEVEL table of the description (analysis levels).
LEVEL_NAMES = {0: "1-ply", 1: "2-ply", 2: "3-ply", 12: "3-ply red", 3: "4-ply", 4: "5-ply", 5: "6-ply",
               6: "7-ply", 100: "Rollout", 1000: "XGRoller", 1001: "XGRoller+", 1002: "XGRoller++",
               999: "Opening Book V1", 998: "Opening Book V2"}
#: The SITE ID table of the description.
SITE_NAMES = ("GammonSite", "FIBS", "TrueMoney Games", "GridGammon", "DailyGammon", "NetGammon", "VOG",
              "Gammon Empire/Play65", "Club Games", "PartyGammon", "XcitingGames", "BGRoom", "DiceArena",
              "Safe Harbor Games", "GameAccount", "XG Mobile")


# --------------------------------------------------------------------------- layouts

_ALIGN = {"i1": 1, "u1": 1, "<i2": 2, "<u2": 2, "<i4": 4, "<u4": 4, "<f4": 4, "<f8": 8}


class _Layout(NamedTuple):
    dtype: np.dtype
    align: int


def _f(kind: str, count: int = 1) -> tuple[Any, int]:
    """A field of *count* values of the numpy type *kind*: (format, alignment)."""
    return (kind if count == 1 else (kind, (count,))), _ALIGN[kind]


def _s(n: int) -> tuple[Any, int]:
    """``string[n]``: a length byte and n ANSI characters, not aligned."""
    return ("u1", (n + 1,)), 1


def _w(n: int) -> tuple[Any, int]:
    """``array [0..n-1] of WideChar`` (a TShortUnicodeString is 129 of them)."""
    return ("<u2", (n,)), 2


POS = ("i1", (26,)), 1  #: PositionEngine = array [0..25] of ShortInt
BOOL = _f("u1")
INT = _f("<i4")
DOUBLE = _f("<f8")


def _layout(fields: list[tuple[str, tuple[Any, int]]], start: int = 0, size: int | None = None) -> _Layout:
    """The numpy dtype of a Delphi record whose fields start at byte *start* (each aligned
    on its own alignment), padded to its largest alignment, or to *size* when given."""
    names, formats, offsets = [], [], []
    pos, biggest = start, 1
    for name, (fmt, align) in fields:
        dt = fmt.dtype if isinstance(fmt, _Layout) else np.dtype(fmt)
        pos = -(-pos // align) * align
        names.append(name)
        formats.append(dt)
        offsets.append(pos)
        pos += dt.itemsize
        biggest = max(biggest, align)
    end = -(-pos // biggest) * biggest
    if size is not None:
        if pos > size:  # pragma: no cover - the layouts are fixed
            raise AssertionError(f"a record of {pos} bytes does not fit {size}")
        end = size
    return _Layout(np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": end}), biggest)


def _rec(layout: _Layout) -> tuple[Any, int]:
    return layout.dtype, layout.align


EVAL_LEVEL = _layout([("Level", _f("<i2")), ("isDouble", BOOL), ("Fill1", _f("u1"))])
TIME_SETTING = _layout([("ClockType", INT), ("PerGame", BOOL), ("Time1", INT), ("Time2", INT), ("Penalty", INT),
                        ("TimeLeft1", INT), ("TimeLeft2", INT), ("PenaltyMoney", INT)])
BEST_MOVE = _layout([
    ("Pos", POS), ("Dice", _f("<i4", 2)), ("Level", INT), ("Score", _f("<i4", 2)), ("Cube", INT), ("CubePos", INT),
    ("Crawford", INT), ("Jacoby", INT), ("Nmoves", INT), ("PosPlayed", (("i1", (32, 26)), 1)),
    ("Moves", (("i1", (32, 8)), 1)), ("EvalLevel", ((EVAL_LEVEL.dtype, (32,)), EVAL_LEVEL.align)),
    ("Eval", (("<f4", (32, 7)), 4)), ("Irrelevant", BOOL), ("met", _f("i1")), ("Choice0", _f("i1")),
    ("Choice3", _f("i1")),
])
DOUBLE_ACTION = _layout([
    ("Pos", POS), ("Level", INT), ("Score", _f("<i4", 2)), ("Cube", INT), ("CubePos", INT), ("Jacoby", INT),
    ("Crawford", _f("<i2")), ("met", _f("<i2")), ("FlagDouble", _f("<i2")), ("isBeaver", _f("<i2")),
    ("Eval", _f("<f4", 7)), ("equB", _f("<f4")), ("equDouble", _f("<f4")), ("equDrop", _f("<f4")),
    ("LevelRequest", _f("<i2")), ("DoubleChoice3", _f("<i2")), ("EvalDouble", _f("<f4", 7)),
])
_HEAD = [("Previous", INT), ("Next", INT), ("EntryType", _f("u1"))]
_USTR = _w(129)
HEADER_MATCH_DTYPE = _layout(_HEAD + [
    ("SPlayer1", _s(40)), ("SPlayer2", _s(40)), ("MatchLength", INT), ("Variation", INT), ("Crawford", BOOL),
    ("Jacoby", BOOL), ("Beaver", BOOL), ("AutoDouble", BOOL), ("Elo1", DOUBLE), ("Elo2", DOUBLE), ("exp1", INT),
    ("exp2", INT), ("Date", DOUBLE), ("SEvent", _s(128)), ("GameId", INT), ("CompLevel1", INT),
    ("CompLevel2", INT), ("CountForElo", BOOL), ("AddtoProfile1", BOOL), ("AddtoProfile2", BOOL),
    ("SLocation", _s(128)), ("GameMode", INT), ("Imported", BOOL), ("SRound", _s(128)), ("Invert", INT),
    ("version", INT), ("Magic", INT), ("MoneyInitG", INT), ("MoneyInitScore", _f("<i4", 2)), ("Entered", BOOL),
    ("Counted", BOOL), ("UnratedImp", BOOL), ("CommentHeaderMatch", INT), ("CommentFooterMatch", INT),
    ("IsMoneyMatch", BOOL), ("WinMoney", _f("<f4")), ("LoseMoney", _f("<f4")), ("Currency", INT),
    ("FeeMoney", _f("<f4")), ("TableStake", _f("<f4")), ("SiteId", INT), ("CubeLimit", INT),
    ("AutoDoubleMax", INT), ("Transcribed", BOOL), ("Event", _USTR), ("Player1", _USTR), ("Player2", _USTR),
    ("Location", _USTR), ("Round", _USTR), ("TimeSetting", _rec(TIME_SETTING)), ("TotTimeDelayMove", INT),
    ("TotTimeDelayCube", INT), ("TotTimeDelayMoveDone", INT), ("TotTimeDelayCubeDone", INT),
    ("Transcriber", _USTR),
], size=RECORD_SIZE)
HEADER_GAME_DTYPE = _layout(_HEAD + [
    ("score1", INT), ("score2", INT), ("CrawfordApply", BOOL), ("PosInit", POS), ("GameNumber", INT),
    ("InProgress", BOOL), ("CommentHeaderGame", INT), ("CommentFooterGame", INT), ("NumberOfAutoDouble", INT),
], size=RECORD_SIZE)
CUBE_DTYPE = _layout(_HEAD + [
    ("Actif", INT), ("Double", INT), ("Take", INT), ("BeaverR", INT), ("RaccoonR", INT), ("CubeB", INT),
    ("Position", POS), ("DoubleD", _rec(DOUBLE_ACTION)), ("ErrCube", DOUBLE), ("DiceRolled", _s(2)),
    ("ErrTake", DOUBLE), ("RolloutindexD", INT), ("CompChoiceD", INT), ("AnalyzeC", INT), ("ErrBeaver", DOUBLE),
    ("ErrRaccoon", DOUBLE), ("AnalyzeCR", INT), ("inValid", INT), ("TutorCube", _f("i1")),
    ("TutorTake", _f("i1")), ("ErrTutorCube", DOUBLE), ("ErrTutorTake", DOUBLE), ("FlaggedDouble", BOOL),
    ("CommentCube", INT), ("EditedCube", BOOL), ("TimeDelayCube", BOOL), ("TimeDelayCubeDone", BOOL),
    ("NumberOfAutoDoubleCube", INT), ("TimeBot", INT), ("TimeTop", INT),
], size=RECORD_SIZE)
MOVE_DTYPE = _layout(_HEAD + [
    ("PositionI", POS), ("PositionEnd", POS), ("ActifP", INT), ("Moves", _f("<i4", 8)), ("Dice", _f("<i4", 2)),
    ("CubeA", INT), ("ErrorM", DOUBLE), ("NMoveEval", INT), ("DataMoves", _rec(BEST_MOVE)), ("Played", BOOL),
    ("ErrMove", DOUBLE), ("ErrLuck", DOUBLE), ("CompChoice", INT), ("InitEq", DOUBLE),
    ("RolloutindexM", _f("<i4", 32)), ("AnalyzeM", INT), ("AnalyzeL", INT), ("InvalidM", INT),
    ("PositionTutor", POS), ("Tutor", _f("i1")), ("ErrTutorMove", DOUBLE), ("Flagged", BOOL),
    ("CommentMove", INT), ("Editedmove", BOOL), ("TimeDelayMove", _f("<u4")), ("TimeDelayMoveDone", _f("<u4")),
    ("NumberOfAutoDoubleMove", INT), ("Filler", _f("<i4", 4)),
], size=RECORD_SIZE)
FOOTER_GAME_DTYPE = _layout(_HEAD + [
    ("Score1g", INT), ("Score2g", INT), ("CrawfordApplyg", BOOL), ("Winner", INT), ("Pointswon", INT),
    ("Termination", INT), ("ErrResign", DOUBLE), ("ErrTakeResign", DOUBLE), ("Eval", _f("<f8", 7)),
    ("EvalLevel", INT),
], size=RECORD_SIZE)
FOOTER_MATCH_DTYPE = _layout(_HEAD + [
    ("Score1m", INT), ("Score2m", INT), ("WinnerM", INT), ("Elo1m", DOUBLE), ("Elo2m", DOUBLE), ("exp1m", INT),
    ("exp2m", INT), ("Datem", DOUBLE),
], size=RECORD_SIZE)
#: The dtype of each entry type read (comment and missing records are not).
RECORD_DTYPES = {HEADER_MATCH: HEADER_MATCH_DTYPE.dtype, HEADER_GAME: HEADER_GAME_DTYPE.dtype,
                 CUBE: CUBE_DTYPE.dtype, MOVE: MOVE_DTYPE.dtype, FOOTER_GAME: FOOTER_GAME_DTYPE.dtype,
                 FOOTER_MATCH: FOOTER_MATCH_DTYPE.dtype}
RICH_HEADER = _layout([
    ("dwMagicNumber", _f("<u4")), ("dwHeaderVersion", _f("<u4")), ("dwHeaderSize", _f("<u4")),
    ("liThumbnailOffset", ("<i8", 1)), ("dwThumbnailSize", ("<u4", 1)), ("guidGameId", (("u1", (16,)), 1)),
    ("szGameName", (("<u2", (1024,)), 1)), ("szSaveName", (("<u2", (1024,)), 1)),
    ("szLevelName", (("<u2", (1024,)), 1)), ("szComments", (("<u2", (1024,)), 1)),
])  # a packed record: no alignment

# The sizes the description gives, checked once at import.
assert BEST_MOVE.dtype.itemsize == 2184 and DOUBLE_ACTION.dtype.itemsize == 132 and TIME_SETTING.dtype.itemsize == 32
assert RICH_HEADER.dtype.itemsize == HEADER_SIZE


def offset(layout: _Layout, name: str) -> int:
    """The byte offset of the field *name* in *layout*."""
    fields: Any = layout.dtype.fields or {}
    return int(fields[name][1])


assert offset(HEADER_MATCH_DTYPE, "MatchLength") == 92 and offset(HEADER_MATCH_DTYPE, "GameId") == 268
assert offset(HEADER_MATCH_DTYPE, "Magic") == 556 and offset(MOVE_DTYPE, "Filler") + 16 == RECORD_SIZE


# --------------------------------------------------------------------------- text fields


def short_string(raw: np.ndarray) -> str:
    """A Delphi ``string[n]`` (length byte, then ANSI characters, cp1252)."""
    data = bytes(raw)
    n = min(data[0], len(data) - 1)
    return data[1:1 + n].decode("cp1252", errors="replace")


def wide_string(raw: np.ndarray) -> str:
    """A ``#0``-terminated ``array of WideChar`` (UTF-16)."""
    data = bytes(np.asarray(raw, dtype="<u2"))
    for i in range(0, len(data), 2):
        if data[i] == 0 and data[i + 1] == 0:
            data = data[:i]
            break
    return data.decode("utf-16-le", errors="replace")


# --------------------------------------------------------------------------- the container


class XgContainer(NamedTuple):
    """What an ``.xg`` file holds around its records."""

    header: np.void  #: the RichGameHeader (RICH_HEADER dtype)
    thumbnail: bytes  #: the JPEG thumbnail (may be empty)
    files: dict[str, bytes]  #: the archived files by lower-case name (temp.xg ...)


def _fail(name: str, message: str) -> XgFileError:
    return XgFileError(f"cannot read the .xg file {name}: {message}")


def _inflate(data: bytes, size: int, name: str, what: str) -> bytes:
    """The zlib stream *data* unpacked, which must be exactly *size* bytes (never more
    than size + 1 bytes are made) and end exactly where *data* ends."""
    d = zlib.decompressobj()
    try:
        out = d.decompress(data, size + 1)
    except zlib.error as exc:
        raise _fail(name, f"{what} is not a whole zlib stream ({exc})") from None
    except MemoryError:  # pragma: no cover - sizes are bounded
        raise _fail(name, f"{what} needs more memory than there is") from None
    if len(out) > size or d.unconsumed_tail:
        raise _fail(name, f"{what} unpacks to more than the {size:,} bytes its registry gives")
    if not d.eof:
        raise _fail(name, f"{what} is a zlib stream cut short ({len(out):,} of {size:,} bytes unpacked)")
    if len(out) != size:
        raise _fail(name, f"{what} unpacks to {len(out):,} bytes, not the {size:,} its registry gives")
    if d.unused_data:
        raise _fail(name, f"{what} has {len(d.unused_data):,} bytes after its zlib stream")
    return out


def unpack(data: bytes, name: str) -> XgContainer:
    """The header, thumbnail and archived files of the ``.xg`` file *data* (*name* is
    quoted in errors), every size and checksum checked."""
    if len(data) < HEADER_SIZE:
        raise _fail(name, f"it holds {len(data):,} bytes, fewer than the {HEADER_SIZE:,}-byte header of an .xg file")
    header = np.frombuffer(data, dtype=RICH_HEADER.dtype, count=1)[0]
    if int(header["dwMagicNumber"]) != RGMH:
        raise _fail(name, f"it does not start with 'RGMH' (bytes 0-3 are {data[:4]!r}): not an eXtreme Gammon file")
    if int(header["dwHeaderVersion"]) != 1 or int(header["dwHeaderSize"]) != HEADER_SIZE:
        raise _fail(name, f"its header (byte 4) gives version {int(header['dwHeaderVersion'])} and size "
                          f"{int(header['dwHeaderSize'])}, not version 1 and size {HEADER_SIZE}")
    thumb = int(header["dwThumbnailSize"])
    start = HEADER_SIZE + thumb  # "the content of the file is starting at SizeOf(header) + dwThumbnailSize"
    if start + ARCHIVE_REC_SIZE > len(data):
        raise _fail(name, f"it is cut short: its header (byte 20) gives a {thumb:,}-byte thumbnail, and the "
                          f"file holds {len(data):,} bytes, no room for the archive after it")
    end = len(data) - ARCHIVE_REC_SIZE
    crc, count, version, reg_size, arc_size, compressed = struct.unpack_from("<IiiiiB", data, end)
    where = f"the archive record at byte {end:,}"
    if not 0 <= arc_size <= end - start or not 0 <= reg_size <= end - start - arc_size:
        raise _fail(name, f"{where} gives {arc_size:,} bytes of files and a {reg_size:,}-byte registry, which "
                          f"do not fit the {end - start:,} bytes after byte {start:,}: the file is cut short or damaged")
    if start + arc_size + reg_size != end:
        raise _fail(name, f"{where} accounts for {arc_size + reg_size:,} bytes, but {end - start:,} bytes stand "
                          f"between the thumbnail and it: the file is cut short, damaged or has bytes added")
    if zlib.crc32(memoryview(data)[start:end]) != crc:
        raise _fail(name, f"the archive's checksum (CRC-32 of bytes {start:,} to {end:,}) fails: the file is damaged")
    if not 1 <= count <= MAX_FILES or compressed not in (0, 1) or version != 1 or any(data[end + 21:]):
        raise _fail(name, f"{where} gives {count} files, archive version {version} and a compression flag "
                          f"{compressed}, or holds bytes where the format keeps zeros: it is damaged")
    registry = bytes(data[start + arc_size:end])
    reg_bytes = count * FILE_REC_SIZE
    if compressed:
        registry = _inflate(registry, reg_bytes, name, f"the archive registry (byte {start + arc_size:,})")
    elif len(registry) != reg_bytes:
        raise _fail(name, f"the archive registry holds {len(registry):,} bytes, not {reg_bytes:,} for {count} files")
    files: dict[str, bytes] = {}
    total = 0
    for i in range(count):
        rec = registry[i * FILE_REC_SIZE:(i + 1) * FILE_REC_SIZE]
        fname = rec[1:1 + min(rec[0], 255)].decode("latin-1").lower()
        osize, csize, fstart, fcrc = struct.unpack_from("<iiiI", rec, 512)
        status, level = rec[528], rec[529]
        what = f"the archived file {fname!r} (entry {i + 1} of the registry)"
        if status not in (0, 1) or level > 3:
            raise _fail(name, f"{what} has status {status} and level {level}: neither compressed nor stored")
        if not (0 <= fstart and 0 <= csize and fstart + csize <= arc_size):
            raise _fail(name, f"{what} claims {csize:,} bytes at archive offset {fstart:,}, outside the "
                              f"{arc_size:,} bytes of files")
        total += osize
        if osize < 0 or total > MAX_UNPACKED:
            raise _fail(name, f"{what} claims {osize:,} bytes unpacked: the files may hold at most "
                              f"{MAX_UNPACKED:,} bytes together")
        packed = data[start + fstart:start + fstart + csize]
        if status == 1:  # fsStored
            if csize != osize:
                raise _fail(name, f"{what} is stored as {csize:,} bytes but claims {osize:,}")
            content = bytes(packed)
        else:
            content = _inflate(bytes(packed), osize, name, f"{what} at byte {start + fstart:,}")
        if zlib.crc32(content) != fcrc:
            raise _fail(name, f"{what} fails its CRC-32 check: the file is damaged")
        if fname in files:
            raise _fail(name, f"the archive holds {fname!r} twice")
        files[fname] = content
    return XgContainer(header, bytes(data[HEADER_SIZE:start]), files)


# --------------------------------------------------------------------------- records


class Record(NamedTuple):
    """One TSaveRec: its number (from 1), entry type and fields (None for the types not
    read: comment, missing)."""

    number: int
    kind: int
    fields: Any  # np.void of RECORD_DTYPES[kind], or None

    @property
    def offset(self) -> int:
        """Its byte offset in temp.xg."""
        return (self.number - 1) * RECORD_SIZE

    def where(self) -> str:
        name = ENTRY_NAMES[self.kind] if 0 <= self.kind < len(ENTRY_NAMES) else f"type {self.kind}"
        return f"record {self.number} ({name}, byte {self.offset:,} of temp.xg)"


def read_records(game_file: bytes, name: str) -> list[Record]:
    """The TSaveRec records of *game_file* (temp.xg); XgFileError when it is not a whole
    number of records or holds an unknown entry type."""
    if len(game_file) % RECORD_SIZE or not game_file:
        raise _fail(name, f"its temp.xg holds {len(game_file):,} bytes, not a whole number of "
                          f"{RECORD_SIZE:,}-byte records")
    out = []
    for i in range(len(game_file) // RECORD_SIZE):
        kind = game_file[i * RECORD_SIZE + 8]
        if kind > MISSING:
            raise _fail(name, f"record {i + 1} (byte {i * RECORD_SIZE:,} of temp.xg) has entry type {kind}, "
                              f"which is none of the {MISSING + 1} the format has")
        dtype = RECORD_DTYPES.get(kind)
        fields = None if dtype is None else np.frombuffer(game_file, dtype=dtype, count=1,
                                                           offset=i * RECORD_SIZE)[0]
        out.append(Record(i + 1, kind, fields))
    return out


def read_comments(data: bytes) -> list[str]:
    """The comments of temp.xgc as plain text: one a CRLF-separated line, ``#1#2`` within
    standing for a line break, each RTF (:func:`rtf_text`)."""
    if not data:
        return []
    lines = data.split(b"\r\n")
    if lines and not lines[-1]:
        lines.pop()
    return [rtf_text(line.replace(b"\x01\x02", b"\r\n").decode("cp1252", errors="replace")) for line in lines]


#: Destinations whose text is not the comment's (font and colour tables and the like).
_SKIP_GROUPS = {"fonttbl", "colortbl", "stylesheet", "info", "pict", "object", "header", "footer", "generator",
                "themedata", "datastore", "latentstyles", "listtable", "listoverridetable", "rsidtbl",
                "xmlnstbl", "filetbl", "revtbl", "mmathPr", "pgdsctbl"}
_BREAKS = {"par": "\n", "line": "\n", "tab": "\t", "emdash": "\u2014", "endash": "\u2013", "bullet": "\u2022",
           "lquote": "\u2018", "rquote": "\u2019", "ldblquote": "\u201c", "rdblquote": "\u201d"}


def rtf_text(rtf: str) -> str:
    """The plain text of the RTF document *rtf* (text that is not RTF is returned as is,
    stripped): paragraphs become line breaks, ``\\'hh`` and ``\\uN`` characters are
    decoded, tables and other destinations are left out. One pass, no recursion."""
    if not rtf.lstrip().startswith("{\\rtf"):
        return rtf.strip()
    out: list[str] = []
    skip_stack: list[tuple[bool, int]] = []
    skip, uc, pending_skip = False, 1, 0
    i, n = 0, len(rtf)
    group_start = False
    while i < n:
        c = rtf[i]
        if c == "{":
            skip_stack.append((skip, uc))
            group_start = True
            i += 1
            continue
        if c == "}":
            skip, uc = skip_stack.pop() if skip_stack else (skip, uc)
            group_start = False
            i += 1
            continue
        if c == "\\" and i + 1 < n:
            nxt = rtf[i + 1]
            if nxt in "\\{}":
                if pending_skip:
                    pending_skip -= 1
                elif not skip:
                    out.append(nxt)
                i += 2
            elif nxt == "'":
                if pending_skip:
                    pending_skip -= 1
                elif not skip:
                    try:
                        out.append(bytes([int(rtf[i + 2:i + 4], 16)]).decode("cp1252", errors="replace"))
                    except ValueError:
                        pass
                i += 4
            elif nxt == "*":
                skip = True
                i += 2
            elif nxt.isalpha() and nxt.isascii():
                j = i + 1
                while j < n and rtf[j].isascii() and rtf[j].isalpha() and j - i < 40:
                    j += 1
                word = rtf[i + 1:j]
                k = j
                if k < n and rtf[k] == "-":
                    k += 1
                while k < n and rtf[k].isdigit() and k - j < 12:
                    k += 1
                arg = rtf[j:k]
                if k < n and rtf[k] == " ":
                    k += 1
                i = k
                if group_start and word in _SKIP_GROUPS:
                    skip = True
                elif word == "uc" and arg.lstrip("-").isdigit():
                    uc = max(0, int(arg))
                elif word == "u" and arg.lstrip("-").isdigit():
                    if not skip:
                        out.append(chr(int(arg) % 0x10000))
                    pending_skip = uc
                elif word in _BREAKS and not skip:
                    out.append(_BREAKS[word])
            else:
                i += 2
            group_start = False
            continue
        if c not in "\r\n":
            if pending_skip:
                pending_skip -= 1
            elif not skip:
                out.append(c)
        group_start = False
        i += 1
    return "".join(out).strip()
