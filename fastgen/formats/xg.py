"""eXtreme Gammon's ``.xg`` match files and ``.xgp`` position files, read.

:func:`read_xg` turns a match or money session saved by eXtreme Gammon (XG) into a
:class:`~fastgen.games.match.Match` whose games were replayed through fastgen's rules;
:func:`read_xg_position` reads the one position an ``.xgp`` file holds as an
:class:`XgPosition` (board, dice, cube, score and XG's analysis). The byte layouts and
their checked unpacking are in :mod:`fastgen.formats.xgrecords` (from XG's published
description of the format); this module gives the records their meaning:

- **Players.** XG's player 1 is fastgen's player 0 (the left column of XG's ``.mat``
  exports), player 2 is player 1; ``Actif``/``ActifP``/``Winner`` +1 / -1 name them.
- **Match header.** ``MatchLength`` (99999 = a money session, length 0), the Crawford
  and Jacoby rules, ``CubeLimit`` (read as a power of two: 1..15 as the exponent, as
  XGIDs hold it; larger values as the largest power of two not above them; 0 or a file
  older than version 8: 1024), the names (the Unicode ones of version 24 on, else the
  ANSI ones) and :attr:`Match.info`: ``event``, ``round``, ``place`` (XG's location),
  ``site`` (XG's site table), ``date`` (``YYYY.MM.DD``) and ``time`` (``HH.MM``),
  ``elo0``/``elo1`` (``"rating/experience"`` as XG exports them), ``match_id`` (XG's
  game id), ``transcriber``, ``beaver`` (``"On"`` when the session allowed beavers) and
  ``comment`` (the match comment, else the file header's comments).
- **Positions** are XG's ``PositionEngine``: ``[0]`` the opponent's bar (<= 0),
  ``[1..24]`` the points, ``[25]`` the own bar (>= 0), positive the checkers of the side
  it is seen from. What XG's own files hold (checked on matches it saved): a game
  header's ``PosInit``, a cube record's ``Position`` and a move's ``PositionI`` (the
  position before it) are seen from player 1's side whoever acts (turned round here for
  player 2); a move's ``PositionEnd`` (after it) and the analyses (``DataMoves``,
  ``DoubleD``) are seen from the side that moves. ``PosInit`` is the starting position,
  or all zeros for it (as XG leaves it in a match's first game). Every stored position
  must be the replay's, and the play made is the unique legal play giving
  ``PositionEnd``; XG's own list of the play (``Moves``: from, to pairs from the
  mover's side, 0..23 the points, 24 the bar, a negative destination bearing off, -1
  ending the list; all -1 for a roll that cannot be played) must make it too. A roll
  left unplayed (the roller resigned, or the file ends) is a move record with
  ``Played`` 0 whose ``PositionEnd`` and ``Moves`` are all zeros. A move XG itself marks
  invalid (``InvalidM``: an illegal play that stood in a live match) cannot be
  replayed: it raises, or with ``errors="warn"`` ends its game as the footer says.
- **Cube records** come before every roll, by the side on roll (``Actif``), their
  ``DiceRolled`` the roll that follows (it must be the next move's; "77" when none
  does). ``Double`` -2: no cube decision open (before the opening roll, in the Crawford
  game, a cube the opponent owns or at the cap, or a dead cube: in a match, one worth
  the points its owner still needs); 0: no double; 1: a double, ``Take`` 1 a take, 0 a
  drop (2, or ``BeaverR`` / ``RaccoonR`` 1: a beaver, refused); -1: the side on roll
  resigns instead of rolling (the game footer follows). ``CubeB`` and a move's
  ``CubeA`` are log2 of the cube, + when player 1 owns it, - for player 2, 0 centred.
- **Game footers.** ``Termination`` 0 (a drop) and 1..3 (single, gammon, backgammon)
  must be how the replay ended; 101..103 is a resignation of that result and 104 one
  worth ``Pointswon`` (XG writes it for some resignations that end the match),
  recorded as the loser's offer and the winner's acceptance. ``Winner`` and
  ``Pointswon`` (the cube times the result) must agree, and ``Score1g``/``Score2g``
  (the score after the game; XG holds the winner's at the match length after some
  match-winning games) must be the games'. A money session's scores count on from its
  first game's.
- **Analysis** goes to :attr:`Game.annotations`, keyed by the index of the action in
  :attr:`Game.record`: a move's at its ``play`` (``{"source": "xg", "move_analysis":
  [{"play", "equity", "probs", "level", "played"}, ...], "error": ErrMove, "luck":
  ErrLuck}``, the candidates in XG's order, each a legal play, ``played`` marking the
  one made; ``probs`` are P(win), P(win gammon), P(win backgammon), P(lose gammon),
  P(lose backgammon) as fastgen's evaluators give them), a double's at its ``double``
  (``{"source": "xg", "cube_analysis": {"no_double", "double_take", "double_drop",
  "probs", "probs_double", "level"}, "error_cube": ErrCube, "error_take": ErrTake}``; a
  cube decision is analysed unless its ``FlagDouble`` is -100), a decision not to double
  at the action that follows it (the roll), a resignation's errors (and the analysis of
  a resignation before the roll) at its ``resign`` (``error_resign``,
  ``error_accept``); a roll left unplayed keeps its analysis at the roll. Errors XG
  marks as not analysed (-1000) are left out; a record's comment (temp.xgc, RTF made
  plain text) is kept under ``comment``.

Left out, each raising :class:`~fastgen.errors.XgFileError` when a file needs it:
beavers and raccoons (fastgen does not play them), automatic doubles, settlements
(``Termination`` 1000 and more), variations other than backgammon (nackgammon,
hypergammon, longgammon), records XG marks as missing, and games that do not start from
the starting position (:func:`read_xg_position` reads those). Rollouts (temp.xgr), game
comments, clocks and money stakes are not read. Rejected resignations leave no trace in
XG's files.

Every problem raises :class:`~fastgen.errors.XgFileError` (a
:class:`~fastgen.errors.MatFileError`), naming the file and the place: the byte offset,
the record number and the game (``errors="warn"`` reads past a game the rules cannot
replay: see :func:`read_xg`); nothing else escapes, and every size read from the file
is bounded before anything is allocated.
"""

from __future__ import annotations

import dataclasses
import datetime
import math
import os
import warnings
from typing import Any

import numpy as np

from fastgen.core.boards import STARTING_BOARD
from fastgen.core.generate import legal_plays
from fastgen.core.ids import position_id, xgid
from fastgen.core.state import MatchState
from fastgen.core.notation import Play
from fastgen.errors import FastgenError, MatFileWarning, XgFileError
from fastgen.formats import xgrecords as xr
from fastgen.formats.checked import MiB, decoding, read_bytes
from fastgen.games.game import Game
from fastgen.games.match import Match

__all__ = ["read_xg", "read_xg_position", "XgPosition", "LIMIT", "DEFAULT_CUBE_CAP"]

#: The largest .xg / .xgp file read (a long session is a few MiB).
LIMIT = 64 * MiB
#: The cube cap of a file that gives none (XG's own largest cube).
DEFAULT_CUBE_CAP = 1024
_MONEY = 99999  # MatchLength of a money session
_NOT_ANALYSED = -1000.0
_NO_CUBE_ANALYSIS = -100  # FlagDouble of a cube decision XG did not analyse
_WHAT = ".xg file"


# --------------------------------------------------------------------------- the file


@dataclasses.dataclass
class _File:
    name: str
    container: xr.XgContainer
    records: list[xr.Record]
    comments: list[str]
    version: int
    header: Any  # the match header's fields


def _load(source: Any) -> tuple[bytes, str]:
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        if len(data) > LIMIT:
            raise XgFileError(f"cannot read the given .xg bytes: {len(data):,} bytes, more than the {LIMIT:,} "
                              "an .xg file may hold")
        return data, "(the given bytes)"
    if isinstance(source, (str, os.PathLike)):
        name = repr(os.fspath(source))
        return read_bytes(source, _WHAT, XgFileError, LIMIT), name
    raise XgFileError(f"an .xg file is read from a path or from its bytes, got {type(source).__name__}")


def _parse(data: bytes, name: str) -> _File:
    container = xr.unpack(data, name)
    game_file = container.files.get("temp.xg")
    if game_file is None:
        raise XgFileError(f"cannot read the .xg file {name}: its archive holds no temp.xg "
                          f"(it holds {sorted(container.files)})")
    records = xr.read_records(game_file, name)
    first = records[0]
    if first.kind != xr.HEADER_MATCH:
        raise XgFileError(f"cannot read the .xg file {name}: {first.where()} is not the match header")
    h = first.fields
    if int(h["Magic"]) != xr.DMLI:
        raise XgFileError(f"cannot read the .xg file {name}: {first.where()} lacks the magic number 'DMLI' at "
                          "byte 556: not an eXtreme Gammon game file")
    version = int(h["version"])
    if not 1 <= version <= xr.MAX_VERSION:
        raise XgFileError(f"cannot read the .xg file {name}: its file version (byte 552) is {version}; eXtreme "
                          f"Gammon writes 1 to {xr.MAX_VERSION}")
    return _File(name, container, records, xr.read_comments(container.files.get("temp.xgc", b"")), version, h)


def _fail(f: _File, where: str, message: str) -> XgFileError:
    return XgFileError(f"cannot read the .xg file {f.name}: {where}: {message}")


def _comment(f: _File, index: int) -> str | None:
    return (f.comments[index] or None) if 0 <= index < len(f.comments) else None


# --------------------------------------------------------------------------- the match header


def _text(h: Any, version: int, unicode: str, ansi: str) -> str:
    text = xr.wide_string(h[unicode]) if version >= 24 else ""
    return text or xr.short_string(h[ansi])


def _date(f: _File, where: str, value: float) -> dict[str, str]:
    if value == 0.0:
        return {}
    if not math.isfinite(value) or not 0.0 < value < 2958465.0:  # 1899-12-30 to 9999-12-31
        raise _fail(f, where, f"the date {value!r} (days since 1899-12-30) is no date")
    minutes = round(value * 1440)
    when = datetime.datetime(1899, 12, 30) + datetime.timedelta(minutes=minutes)
    out = {"date": when.strftime("%Y.%m.%d")}
    if minutes % 1440:
        out["time"] = when.strftime("%H.%M")
    return out


def _info(f: _File) -> dict[str, str]:
    h, v, where = f.header, f.version, f.records[0].where()
    info: dict[str, str] = {}
    for key, unicode, ansi in (("event", "Event", "SEvent"), ("round", "Round", "SRound"),
                               ("place", "Location", "SLocation")):
        text = _text(h, v, unicode, ansi)
        if text:
            info[key] = text
    site = int(h["SiteId"])
    if 0 <= site < len(xr.SITE_NAMES):
        info["site"] = xr.SITE_NAMES[site]
    info.update(_date(f, where, float(h["Date"])))
    for side in (0, 1):
        elo, exp = float(h[f"Elo{side + 1}"]), int(h[f"exp{side + 1}"])
        if not math.isfinite(elo) or abs(elo) > 1e6:
            raise _fail(f, where, f"player {side + 1}'s rating {elo!r} is no rating")
        if elo or exp:
            info[f"elo{side}"] = f"{elo:.2f}/{exp}"
    if int(h["GameId"]):
        info["match_id"] = str(int(h["GameId"]))
    if v >= 30 and xr.wide_string(h["Transcriber"]):
        info["transcriber"] = xr.wide_string(h["Transcriber"])
    if h["Beaver"]:
        info["beaver"] = "On"
    comment = _comment(f, int(h["CommentHeaderMatch"])) or xr.wide_string(f.container.header["szComments"]).strip()
    if comment:
        info["comment"] = comment
    return info


def _cube_cap(f: _File) -> int:
    if f.version < 8:
        return DEFAULT_CUBE_CAP
    value = int(f.header["CubeLimit"])
    if value < 0:
        raise _fail(f, f.records[0].where(), f"the cube limit {value} is no cube value")
    if value == 0:
        return DEFAULT_CUBE_CAP
    if value <= 15:
        return 1 << value
    return 1 << (min(value, 1 << 15).bit_length() - 1)


def _rules(f: _File) -> dict[str, Any]:
    """The Match arguments the match header gives."""
    h, where = f.header, f.records[0].where()
    if int(h["Variation"]) != 0:
        kinds = {1: "nackgammon", 2: "hypergammon", 3: "longgammon"}
        kind = kinds.get(int(h["Variation"]), f"variation {int(h['Variation'])}")
        raise _fail(f, where, f"the session is played as {kind}: fastgen reads backgammon only")
    length = int(h["MatchLength"])
    if length in (_MONEY, 0):
        length = 0
    elif not 1 <= length <= 32767:
        raise _fail(f, where, f"the match length {length} is neither 1..32767 nor 99999 (money)")
    names = tuple(_text(h, f.version, f"Player{i + 1}", f"SPlayer{i + 1}") or f"Player {i + 1}" for i in (0, 1))
    return dict(length=length, names=names, crawford=bool(h["Crawford"]), jacoby=bool(h["Jacoby"]) and not length,
                cube_cap=_cube_cap(f), info=_info(f))


# --------------------------------------------------------------------------- positions


def _player(f: _File, where: str, value: int, field: str) -> int:
    if value not in (1, -1):
        raise _fail(f, where, f"{field} is {value}: a player is 1 or -1")
    return 0 if value == 1 else 1


def _flip(pos: np.ndarray) -> np.ndarray:
    """The 26-vector seen from the other side."""
    out = np.empty(26, dtype=np.int64)
    out[0], out[25] = -pos[25], -pos[0]
    out[1:25] = -pos[24:0:-1]
    return out


def _boards(vecs: Any) -> tuple[np.ndarray, np.ndarray]:
    """The (N, 2, 25) boards of the (N, 26) vectors *vecs* (as fastgen's
    :func:`~fastgen.formats.convert.from_signed26` reads them) and which are positions:
    counts in -15..15, the bars' signs right, at most 15 checkers a side."""
    v = np.asarray(vecs, dtype=np.int64).reshape(-1, 26)
    boards = np.zeros((v.shape[0], 2, 25), dtype=np.int64)
    points = v[:, 1:25]
    boards[:, 1, :24] = np.maximum(points, 0)
    boards[:, 0, 23::-1] = np.maximum(-points, 0)
    boards[:, 1, 24] = v[:, 25]
    boards[:, 0, 24] = -v[:, 0]
    ok = ((v >= -15) & (v <= 15)).all(axis=1) & (v[:, 0] <= 0) & (v[:, 25] >= 0) & (boards.sum(axis=2) <= 15).all(
        axis=1)
    return np.where(ok[:, None, None], boards, 0).astype(np.int8), ok


def _board(pos: Any) -> np.ndarray | None:
    """The (2, 25) board of the 26-vector *pos*, None when it is no position."""
    boards, ok = _boards(pos)
    return boards[0] if ok[0] else None


def _seen_by(pos: Any, player: int, absolute: bool) -> np.ndarray | None:
    """The board, from *player*'s side, of a stored position: an *absolute* one (a game
    header's, a cube record's, a move's ``PositionI``) is kept from player 1's side and is
    turned round for player 2; the others (``PositionEnd``, the analyses) are kept from
    the mover's side."""
    arr = np.asarray(pos, dtype=np.int64)
    return _board(_flip(arr) if absolute and player == 1 else arr)


def _shown(pos: Any) -> str:
    board = _board(np.asarray(pos, dtype=np.int64))
    raw = np.asarray(pos).tolist()
    return f"{raw} (Position ID {position_id(board)})" if board is not None else f"{raw} (no position)"


def _check_position(f: _File, where: str, pos: Any, player: int, board: np.ndarray, what: str,
                    absolute: bool) -> None:
    """XgFileError unless the stored *pos* is the replay's *board* (from *player*'s side)."""
    mine = _seen_by(pos, player, absolute)
    if mine is None or not (mine == board).all():
        side = "player 1's side" if absolute else f"the side of player {player + 1}, who moves"
        raise _fail(f, where, f"the {what} it stores (from {side}), {_shown(pos)}, is not the replay's "
                              f"(Position ID {position_id(board)})")


def _steps(board: np.ndarray, moves: Any) -> np.ndarray | None:
    """The board after XG's move list *moves* (from, to pairs from the mover's side: 0..23
    the points 1..24, 24 the bar, a negative destination bearing off, a source of -1
    ending the list) is played from *board* (mover in row 1); None when a step is not a
    checker move."""
    b = np.asarray(board, dtype=np.int64).copy()
    values = [int(v) for v in np.asarray(moves).ravel()]
    for i in range(0, len(values) - 1, 2):
        src, dst = values[i], values[i + 1]
        if src == -1:
            break
        if not (0 <= src <= 24 and -6 <= dst < src and dst <= 23) or b[1, src] <= 0:
            return None
        b[1, src] -= 1
        if dst >= 0:
            opp = 23 - dst
            if b[0, opp] >= 2:
                return None
            if b[0, opp] == 1:
                b[0, opp], b[0, 24] = 0, b[0, 24] + 1
            b[1, dst] += 1
    return b


# --------------------------------------------------------------------------- analysis


def _number(f: _File, where: str, value: Any, field: str) -> float:
    x = float(value)
    if not math.isfinite(x) or abs(x) > 1e9:
        raise _fail(f, where, f"{field} {x!r} is no number XG writes")
    return x


def _probs(f: _File, where: str, ev: Any, field: str) -> list[float]:
    """fastgen's five probabilities of XG's (lose bg, lose g, lose, win, win g, win bg, ...)."""
    vals = [_number(f, where, ev[i], field) for i in range(6)]
    return [vals[3], vals[4], vals[5], vals[1], vals[0]]


def _level(value: Any) -> str:
    return xr.LEVEL_NAMES.get(int(value), str(int(value)))


def _error(f: _File, where: str, ann: dict[str, Any], key: str, value: Any, field: str) -> None:
    x = float(value)
    if x != _NOT_ANALYSED:
        ann[key] = _number(f, where, x, field)


def _move_annotation(f: _File, where: str, m: Any, board: np.ndarray, dice: tuple[int, int], plays: Any,
                     played: np.ndarray | None) -> dict[str, Any]:
    """XG's analysis of the roll *dice* from *board*: its candidate plays (kept from the
    mover's side, each one of the legal *plays*), *played* marking the one made."""
    ann: dict[str, Any] = {"source": "xg"}
    dm = m["DataMoves"]
    count, listed = int(m["NMoveEval"]), int(dm["Nmoves"])
    if not (0 <= count <= 32 and 0 <= listed <= 32):
        raise _fail(f, where, f"it lists {count} analysed moves ({listed} in its analysis): at most 32")
    n = min(count, listed)
    candidates = []
    if n:
        afters, ok = _boards(np.asarray(dm["PosPlayed"][:n], dtype=np.int64))
        hits = (afters[:, None] == plays.boards[None]).all(axis=(2, 3)) & ok[:, None]
    for i in range(n):
        hit = np.flatnonzero(hits[i])
        if not hit.size:
            raise _fail(f, where, f"analysed move {i + 1} of {n}, {_shown(dm['PosPlayed'][i])}, is none of the "
                                  f"{len(plays)} legal plays of {dice} from Position ID {position_id(board)}")
        k = int(hit[0])
        ev = dm["Eval"][i]
        candidates.append({"play": str(Play.from_arrays(board, dice, plays.moves[k], plays.boards[k])),
                           "equity": _number(f, where, ev[6], "an analysed move's equity"),
                           "probs": _probs(f, where, ev, "an analysed move's probability"),
                           "level": _level(dm["EvalLevel"][i]["Level"]),
                           "played": bool(played is not None and (afters[i] == played).all())})
    if candidates:
        ann["move_analysis"] = candidates
    return _finish(f, where, ann, (("error", m, "ErrMove"), ("luck", m, "ErrLuck")), int(m["CommentMove"]))


def _finish(f: _File, where: str, ann: dict[str, Any], errors: tuple, comment_index: int) -> dict[str, Any]:
    """*ann* with XG's error figures (key, record, field) and the record's comment."""
    for key, rec, field in errors:
        _error(f, where, ann, key, rec[field], field)
    comment = _comment(f, comment_index)
    if comment:
        ann["comment"] = comment
    return ann


def _cube_annotation(f: _File, where: str, c: Any) -> dict[str, Any]:
    ann: dict[str, Any] = {"source": "xg"}
    d = c["DoubleD"]
    if int(d["FlagDouble"]) != _NO_CUBE_ANALYSIS:
        ann["cube_analysis"] = {
            "no_double": _number(f, where, d["equB"], "the no-double equity"),
            "double_take": _number(f, where, d["equDouble"], "the double/take equity"),
            "double_drop": _number(f, where, d["equDrop"], "the double/drop equity"),
            "probs": _probs(f, where, d["Eval"], "a probability"),
            "probs_double": _probs(f, where, d["EvalDouble"], "a probability"),
            "level": _level(d["Level"]),
        }
    return _finish(f, where, ann, (("error_cube", c, "ErrCube"), ("error_take", c, "ErrTake")), int(c["CommentCube"]))


def _merge(target: dict[int, dict[str, Any]], index: int, ann: dict[str, Any] | None) -> None:
    if ann and len(ann) > 1:
        target.setdefault(index, {}).update(ann)


def _dice_rolled(c: Any) -> tuple[int, int] | None:
    """A cube record's ``DiceRolled`` (``string[2]``): the roll that followed the
    decision, None when none did (XG writes "77")."""
    text = xr.short_string(c["DiceRolled"])
    if len(text) == 2 and all("1" <= ch <= "6" for ch in text):
        return int(text[0]), int(text[1])
    return None


# --------------------------------------------------------------------------- replay


class _Replay:
    """Replays the records of a file into a match, checking each against the replay."""

    def __init__(self, f: _File, match: Match, errors: str = "raise") -> None:
        self.f, self.match, self.errors = f, match, errors
        self.game: Game | None = None
        self.ended = False  # the current game's footer was read
        self.unplayed = False  # the current game's last roll was left unplayed
        self.resigning: int | None = None  # the side to act, who resigned before rolling (Double -1)
        self.announced: tuple[int, tuple[int, int], xr.Record] | None = None  # (player, DiceRolled, cube record)
        self.pending: dict[str, Any] | None = None  # analysis of a decision not to double
        self.offset: tuple[int, int] | None = None  # a money session's score before its first game
        self.closed = False  # the match footer was read
        self.broken = False  # the current game could not be replayed on (errors="warn")

    def where(self, rec: xr.Record) -> str:
        return f"game {len(self.match.games)}, {rec.where()}" if self.game is not None else rec.where()

    def fail(self, rec: xr.Record, message: str) -> XgFileError:
        return _fail(self.f, self.where(rec), message)

    def run(self) -> None:
        handlers = {xr.HEADER_GAME: self.header_game, xr.CUBE: self.cube, xr.MOVE: self.move,
                    xr.FOOTER_GAME: self.footer_game, xr.FOOTER_MATCH: self.footer_match}
        for rec in self.f.records[1:]:
            if rec.kind == xr.COMMENT:
                continue
            if self.closed:
                raise self.fail(rec, "a record after the match footer")
            if rec.kind == xr.HEADER_MATCH:
                raise self.fail(rec, "a second match header")
            if rec.kind == xr.MISSING:
                raise self.fail(rec, "XG marks a game as missing here; fastgen cannot replay a missing game")
            if rec.kind not in (xr.HEADER_GAME, xr.FOOTER_MATCH) and (self.game is None or self.ended):
                raise self.fail(rec, "a record outside a game (no game header before it)")
            if self.broken and rec.kind in (xr.CUBE, xr.MOVE):
                continue  # the rest of a game that could not be replayed (errors="warn")
            try:
                handlers[rec.kind](rec)
            except FastgenError as exc:  # XgFileError, or an action the rules refuse
                error = exc if isinstance(exc, XgFileError) else self.fail(rec, str(exc))
                if self.errors == "raise" or rec.kind not in (xr.CUBE, xr.MOVE, xr.FOOTER_GAME):
                    raise error from None
                self.problem(error)
                if rec.kind == xr.FOOTER_GAME:
                    self.end_as_written(rec)
                else:
                    self.broken = True

    def problem(self, error: XgFileError) -> None:
        """Raise *error*, or (errors="warn") keep its message and go on."""
        if self.errors == "raise":
            raise error
        text, prefix = str(error), f"cannot read the .xg file {self.f.name}: "
        text = text[len(prefix):] if text.startswith(prefix) else text
        self.match.problems.append(text)
        warnings.warn(text, MatFileWarning, stacklevel=4)

    def end_as_written(self, rec: xr.Record) -> None:
        """End a game that could not be replayed to its end by the result its footer
        gives (errors="warn"): a resignation of the points won, accepted where the replay
        stopped; a game the replay ended keeps the replay's result."""
        game, fg = self.game, rec.fields
        assert game is not None
        winner = _player(self.f, self.where(rec), int(fg["Winner"]), "the game's winner")
        if not game.over:
            if game.pending_double:
                game.take()
            if game.pending_resignation is not None:
                game.reject_resignation()
            cube, points = game.cube_value, max(int(fg["Pointswon"]), 1)
            game.resign(min(3, -(-points // cube)), player=1 - winner)
            game.accept_resignation(player=winner)
        self.ended, self.broken, self.unplayed, self.resigning, self.announced = True, False, False, None, None

    def check_announced(self, rec: xr.Record) -> None:
        """XgFileError when a cube record said a roll followed (DiceRolled) and *rec*,
        not a move, comes instead."""
        if self.announced is not None:
            player, dice, cube = self.announced
            self.announced = None
            raise self.fail(rec, f"{cube.where()} says player {player + 1} rolled {dice[0]}{dice[1]} next "
                                 "(DiceRolled), but no move of that roll follows it")

    def attach(self, game: Game) -> None:
        """Key the pending no-double analysis to the action just made."""
        if self.pending is not None:
            _merge(game.annotations, len(game.record) - 1, self.pending)
            self.pending = None

    def header_game(self, rec: xr.Record) -> None:
        g = rec.fields
        if self.game is not None and not self.game.over:
            raise self.fail(rec, f"game {len(self.match.games)} has no end, but another game starts")
        number = int(g["GameNumber"])
        if number != len(self.match.games) + 1:
            raise _fail(self.f, rec.where(), f"game number {number} where game {len(self.match.games) + 1} comes")
        pos = np.asarray(g["PosInit"], dtype=np.int64)
        start = _board(pos) if pos.any() else STARTING_BOARD  # XG leaves it all zeros for the usual start
        if start is None or not (start == STARTING_BOARD).all():
            raise _fail(self.f, rec.where(), f"game {number} starts from {_shown(g['PosInit'])}, not the starting "
                        "position: the file holds a position (read it with read_xg_position)")
        score = (int(g["score1"]), int(g["score2"]))
        if self.offset is None:
            self.offset = score if not self.match.length else (0, 0)
        expected = self.scores()
        if score != expected:
            self.problem(_fail(self.f, rec.where(), f"game {number} starts at {score[0]}-{score[1]}, but the games "
                               f"before give {expected[0]}-{expected[1]}"))
        if self.f.version >= 26 and int(g["NumberOfAutoDouble"]):
            raise _fail(self.f, rec.where(), f"game {number} starts with {int(g['NumberOfAutoDouble'])} automatic "
                        "doubles, which fastgen does not play")
        try:
            game = self.match.new_game()
        except FastgenError as exc:
            raise _fail(self.f, rec.where(), f"game {number} cannot start: {exc}") from None
        if bool(g["CrawfordApply"]) != game.crawford:
            says = "applies" if game.crawford else "does not apply"
            self.problem(self.fail(rec, f"the file's Crawford flag ({int(g['CrawfordApply'])}) disagrees with the "
                                        f"score and the match's rules: the Crawford rule {says} to this game"))
        self.game, self.ended, self.unplayed, self.resigning, self.pending = game, False, False, None, None
        self.broken, self.announced = False, None

    def scores(self) -> tuple[int, int]:
        """The score of the games so far (a money session's counted on from its first
        game's)."""
        s, off = self.match.score, self.offset or (0, 0)
        return s[0] + off[0], s[1] + off[1]

    def check_score(self, rec: xr.Record, score: tuple[int, int], what: str) -> None:
        """XgFileError unless *score* is the games' score: counted on, or (as XG keeps
        some match-winning games) with the winner's held at the match length."""
        expected, length = self.scores(), self.match.length
        if score != expected and not (length and score == (min(expected[0], length), min(expected[1], length))):
            raise self.fail(rec, f"the {what} is {score[0]}-{score[1]} in the file, {expected[0]}-{expected[1]} "
                                 "in the replay")

    def cube(self, rec: xr.Record) -> None:
        game, c = self.game, rec.fields
        assert game is not None
        where = self.where(rec)
        self.check_announced(rec)
        actif = _player(self.f, where, int(c["Actif"]), "the cube record's active player (Actif)")
        double, cube_b = int(c["Double"]), int(c["CubeB"])
        if double not in (-2, -1, 0, 1) or abs(cube_b) > 15:
            raise self.fail(rec, f"Double is {double} and CubeB {cube_b}: no cube decision")
        if game.over or self.unplayed or self.resigning is not None:
            raise self.fail(rec, "a cube decision after the game ended, a roll or a resignation")
        if game.turn is not None and actif != game.turn:
            raise self.fail(rec, f"a cube decision of player {actif + 1}, but player {game.turn + 1} is on roll")
        _check_position(self.f, where, c["Position"], actif, game.board, "position of the cube decision", True)
        self.check_cube(rec, cube_b)
        open_ = self.cube_open(actif)
        if double == 0 and not open_:
            raise self.fail(rec, f"Double is 0 (no double), but player {actif + 1} may not double here (XG writes "
                                 "-2)")
        if double == -2 and open_:
            raise self.fail(rec, f"Double is -2 (no cube action open), but player {actif + 1} may double here")
        ann = _cube_annotation(self.f, where, c)
        rolled = _dice_rolled(c)
        if rolled is not None and double != -1:
            self.announced = (actif, rolled, rec)
        if double in (-2, 0):
            self.pending = ann if len(ann) > 1 else None
            return
        if double == -1:  # the side to act resigns instead of rolling: the game footer tells what
            self.resigning, self.pending = actif, ann if len(ann) > 1 else None
            return
        take = int(c["Take"])
        if take == 2 or int(c["BeaverR"]) > 0 or int(c["RaccoonR"]) > 0:
            raise self.fail(rec, "the double is beavered: fastgen does not play beavers")
        if take not in (0, 1):
            raise self.fail(rec, f"Take is {take}: 0 (drop), 1 (take) or 2 (beaver)")
        game.double(player=actif)
        _merge(game.annotations, len(game.record) - 1, ann)
        (game.take if take else game.drop)(player=1 - actif)

    def cube_open(self, actif: int) -> bool:
        """Whether XG offers *actif* a cube decision: the rules let it double and, in a
        match, the cube is not dead (its value is below the points *actif* needs)."""
        game, length = self.game, self.match.length
        assert game is not None
        if game.turn is None or not game.may_double:
            return False
        return not length or game.cube_value < length - self.match.score[actif]

    def check_cube(self, rec: xr.Record, cube_b: int) -> None:
        """XgFileError unless *cube_b* (log2 of the cube, + when player 1 owns it, - for
        player 2, 0 centred) is the replay's cube."""
        game = self.game
        assert game is not None
        owner = None if cube_b == 0 else 0 if cube_b > 0 else 1
        if (1 << abs(cube_b)) != game.cube_value or owner != game.cube_owner:
            holder = "centred" if game.cube_owner is None else f"owned by player {game.cube_owner + 1}"
            raise self.fail(rec, f"the cube it stores (log2 {cube_b}) is not the replay's: {game.cube_value}, "
                            f"{holder}")

    def move(self, rec: xr.Record) -> None:
        game, m = self.game, rec.fields
        assert game is not None
        where = self.where(rec)
        player = _player(self.f, where, int(m["ActifP"]), "the move's player (ActifP)")
        dice = (int(m["Dice"][0]), int(m["Dice"][1]))
        if not all(1 <= d <= 6 for d in dice):
            raise self.fail(rec, f"the dice {dice} are not two dice 1..6")
        if game.over or self.unplayed or self.resigning is not None:
            raise self.fail(rec, "a move after the game ended, a roll left unplayed or a resignation")
        if game.turn is None and dice[0] == dice[1]:
            raise self.fail(rec, f"the opening roll {dice} is a double, which the rules (R16) re-roll")
        if self.announced is not None:
            said, rolled, cube = self.announced
            if (said, sorted(rolled)) != (player, sorted(dice)):
                raise self.fail(rec, f"player {player + 1} rolls {dice[0]}{dice[1]}, but {cube.where()} says player "
                                     f"{said + 1} rolled {rolled[0]}{rolled[1]} (DiceRolled)")
            self.announced = None
        if game.turn is None:
            hi, lo = max(dice), min(dice)
            game.roll((hi, lo) if player == 0 else (lo, hi))
        else:
            if player != game.turn:
                raise self.fail(rec, f"player {player + 1} moves, but player {game.turn + 1} is on roll")
            game.roll(dice, player=player)
        self.attach(game)
        board = game.board
        _check_position(self.f, where, m["PositionI"], player, board, "position before the move", True)
        if abs(int(m["CubeA"])) > 15:
            raise self.fail(rec, f"the cube (CubeA {int(m['CubeA'])}) is no cube")
        self.check_cube(rec, int(m["CubeA"]))
        plays = game.legal_plays()
        rolled = game.dice or dice
        if not m["Played"]:  # rolled, then the game ended (a resignation) or the file does
            if np.asarray(m["PositionEnd"]).any() or np.asarray(m["Moves"]).any():
                raise self.fail(rec, "a roll left unplayed (Played 0) stores a play: its position after and "
                                     "its move list are not all zeros")
            self.unplayed = True
            _merge(game.annotations, len(game.record) - 1,
                   _move_annotation(self.f, where, m, board, rolled, plays, None))
            return
        after = _board(m["PositionEnd"])  # from the mover's side
        hit = np.flatnonzero((plays.boards == after).all(axis=(1, 2))) if after is not None else np.empty(0)
        if not hit.size:
            marked = (f"; XG marks the move invalid (InvalidM {int(m['InvalidM'])}): an illegal play that stood, "
                      "which the rules cannot replay (errors='warn' reads the match on)") if int(m["InvalidM"]) else ""
            raise self.fail(rec, f"the position after the move (from the mover's side), {_shown(m['PositionEnd'])}, "
                            f"is none of the {len(plays)} legal plays of {rolled} from Position ID "
                            f"{position_id(board)}{marked}")
        stepped = _steps(board, m["Moves"])
        if stepped is None or not (stepped == after).all():
            raise self.fail(rec, f"its move list {np.asarray(m['Moves']).tolist()} does not make the position after "
                                 "the move it stores")
        game.play(plays.boards[int(hit[0])], player=player)
        _merge(game.annotations, len(game.record) - 1,
               _move_annotation(self.f, where, m, board, rolled, plays, after))

    def footer_game(self, rec: xr.Record) -> None:
        game, fg = self.game, rec.fields
        assert game is not None
        if self.broken:
            self.end_as_written(rec)
            return
        self.check_announced(rec)
        where = self.where(rec)
        winner = _player(self.f, where, int(fg["Winner"]), "the game's winner")
        term, points = int(fg["Termination"]), int(fg["Pointswon"])
        if term >= 1000:
            raise self.fail(rec, f"the game was settled (Termination {term}): fastgen has no settlements")
        if 101 <= term <= 104:
            self.resign(rec, winner, term, points)
        elif 0 <= term <= 3:
            if self.resigning is not None:
                raise self.fail(rec, "the side to act resigned (Double -1), but the footer does not end the game "
                                     "by a resignation")
            kinds = ("a dropped double", "a single game", "a gammon", "a backgammon")
            ended = game.over and (game.dropped if term == 0 else not game.dropped and game.result == term)
            if not ended:
                state = "goes on" if not game.over else "ended otherwise"
                raise self.fail(rec, f"the file says the game ended by {kinds[term]}; in the replay it {state}")
        else:
            raise self.fail(rec, f"Termination {term} is no way a game ends")
        if game.winner != winner or game.points != points:
            raise self.fail(rec, f"the file says player {winner + 1} won {points} points; the replay gives "
                            f"player {(game.winner or 0) + 1} {game.points}")
        self.check_score(rec, (int(fg["Score1g"]), int(fg["Score2g"])), "score after the game")
        self.ended = True

    def resign(self, rec: xr.Record, winner: int, term: int, points: int) -> None:
        """The game's end by a resignation (Termination 101..103: of a single game, a
        gammon, a backgammon; 104: of what the points won make), the loser resigning."""
        game = self.game
        assert game is not None
        if game.over:
            raise self.fail(rec, "the file says the game was resigned; the replay ended it already")
        if game.pending_double:
            raise self.fail(rec, "a resignation while a double awaits its answer")
        if self.resigning is not None and self.resigning != 1 - winner:
            raise self.fail(rec, f"player {self.resigning + 1} resigned before rolling (Double -1), but the "
                                 f"footer has player {self.resigning + 1} win")
        result = term - 100
        if term == 104:
            fits = [r for r in (1, 2, 3) if r * game.cube_value == points]
            if not fits:
                raise self.fail(rec, f"a resignation (Termination 104) of {points} points with the cube at "
                                     f"{game.cube_value}: no single game, gammon or backgammon is worth that")
            result = fits[0]
        game.resign(result, player=1 - winner)
        ann: dict[str, Any] = {"source": "xg"}
        _error(self.f, self.where(rec), ann, "error_resign", rec.fields["ErrResign"], "ErrResign")
        _error(self.f, self.where(rec), ann, "error_accept", rec.fields["ErrTakeResign"], "ErrTakeResign")
        self.attach(game)
        _merge(game.annotations, len(game.record) - 1, ann)
        game.accept_resignation(player=winner)
        self.unplayed, self.resigning = False, None

    def footer_match(self, rec: xr.Record) -> None:
        fm = rec.fields  # (a session stopped during a game keeps that game unfinished)
        winner = int(fm["WinnerM"])
        self.closed = True
        if self.match.over and winner in (1, -1) and (0 if winner == 1 else 1) != self.match.winner:
            self.problem(self.fail(rec, f"the file says player {1 if winner == 1 else 2} won the match; the games "
                                        f"give player {(self.match.winner or 0) + 1}"))
        game = self.match.game
        if game is not None and game.over:
            try:
                self.check_score(rec, (int(fm["Score1m"]), int(fm["Score2m"])), "final score")
            except XgFileError as exc:
                self.problem(exc)


def read_xg(source: str | os.PathLike[str] | bytes, *, errors: str = "raise") -> Match:
    """The match or money session of the eXtreme Gammon file *source* (a path, or the
    file's bytes), every game replayed through fastgen's rules and checked against the
    positions the file stores; XG's analysis is in each game's :attr:`~Game.annotations`
    (see the module docstring for what is read and how).

    *errors*: ``"raise"`` (the default) raises at the first record the replay
    contradicts. ``"warn"`` reads on past a game that cannot be replayed (such as a
    game with an illegal move that stood, which XG keeps and marks invalid): the game
    is kept up to the problem and ended by the result its footer gives, a score or
    Crawford flag the games contradict is read past, and each problem is issued as a
    :class:`~fastgen.errors.MatFileWarning` and kept in :attr:`Match.problems`. A file
    that cannot be read at all raises in both modes.

    Raises :class:`~fastgen.errors.XgFileError`, naming the file and the place, for
    anything it cannot read; nothing else.
    """
    if errors not in ("raise", "warn"):
        raise XgFileError(f"errors must be 'raise' or 'warn', got {errors!r}")
    data, name = _load(source)
    with decoding(_WHAT, name, XgFileError):
        f = _parse(data, name)
        try:
            match = Match(**_rules(f))
        except FastgenError as exc:
            raise _fail(f, f.records[0].where(), f"the match header describes no match: {exc}") from None
        _Replay(f, match, errors).run()
        return match


# --------------------------------------------------------------------------- positions (.xgp)


@dataclasses.dataclass(frozen=True, eq=False)
class XgPosition:
    """The position an ``.xgp`` file holds (or the first decision of an ``.xg`` file).

    ``board`` is fastgen's (2, 25) board from the side on roll (row 1 = ``turn``); ``turn``
    is the player to act (0 = XG's player 1); ``dice`` the roll of a checker play, None at
    a cube decision; ``cube_owner`` None when the cube is centred. ``annotations`` holds
    XG's analysis as :func:`read_xg` keeps it for an action (``move_analysis`` with its
    candidate plays, ``cube_analysis``, errors and the comment). ``state`` and ``xgid``
    give the position in GNU Backgammon's and XG's terms.
    """

    board: np.ndarray
    turn: int
    dice: tuple[int, int] | None
    cube_value: int
    cube_owner: int | None
    match_length: int
    score: tuple[int, int]
    crawford: bool
    jacoby: bool
    cube_cap: int
    names: tuple[str, str]
    info: dict[str, str]
    annotations: dict[str, Any]

    @property
    def state(self) -> MatchState:
        """The position's :class:`~fastgen.core.state.MatchState`."""
        return MatchState(cube_value=self.cube_value, cube_owner=self.cube_owner, on_roll=self.turn,
                          crawford=self.crawford, dice=self.dice or (0, 0), match_length=self.match_length,
                          score=self.score, jacoby=self.jacoby, beaver=self.info.get("beaver") == "On",
                          max_cube=min(self.cube_cap, 1 << 15))

    @property
    def xgid(self) -> str:
        """The position's XGID."""
        return xgid(self.board, self.state)


def read_xg_position(source: str | os.PathLike[str] | bytes) -> XgPosition:
    """The position of the eXtreme Gammon position file (``.xgp``) *source*: the first
    checker play or cube decision of its (first) game, with XG's analysis.

    A cube decision not to double (or with no cube action open) followed by the same
    player's checker play (how XG saves a position at a checker play) is read as the
    checker play, both analyses kept. Raises :class:`~fastgen.errors.XgFileError` for
    anything it cannot read.
    """
    data, name = _load(source)
    with decoding(_WHAT, name, XgFileError):
        f = _parse(data, name)
        rules = _rules(f)
        records = f.records
        first = next((i for i, r in enumerate(records) if r.kind == xr.HEADER_GAME), None)
        if first is None:
            raise XgFileError(f"cannot read the .xg file {name}: it holds no game")
        g = records[first].fields
        k = first + 1
        while k < len(records) and records[k].kind == xr.COMMENT:
            k += 1
        if k >= len(records) or records[k].kind not in (xr.CUBE, xr.MOVE):
            raise _fail(f, records[first].where(), "the game holds no checker play or cube decision")
        rec = records[k]
        annotations: dict[str, Any] = {}
        if rec.kind == xr.CUBE:
            annotations.update(_cube_annotation(f, rec.where(), rec.fields))
            nxt = records[k + 1] if k + 1 < len(records) else None
            if (int(rec.fields["Double"]) in (-2, 0) and nxt is not None and nxt.kind == xr.MOVE
                    and int(nxt.fields["ActifP"]) == int(rec.fields["Actif"])):
                rec = nxt  # XG's record of a position at a checker play: no double, then the play
        where = rec.where()
        fields = rec.fields
        if rec.kind == xr.MOVE:
            player = _player(f, where, int(fields["ActifP"]), "the move's player (ActifP)")
            dice: tuple[int, int] | None = (int(fields["Dice"][0]), int(fields["Dice"][1]))
            if not all(1 <= d <= 6 for d in dice or ()):
                raise _fail(f, where, f"the dice {dice} are not two dice 1..6")
            pos, cube_b = fields["PositionI"], int(fields["CubeA"])
        else:
            player = _player(f, where, int(fields["Actif"]), "the cube record's active player (Actif)")
            dice = None
            pos = fields["Position"] if np.asarray(fields["Position"]).any() else g["PosInit"]
            cube_b = int(fields["CubeB"])
        board = _seen_by(pos, player, True) if np.asarray(pos).any() else STARTING_BOARD.copy()
        if board is None:
            raise _fail(f, where, f"{_shown(pos)} is no position")
        if abs(cube_b) > 15:
            raise _fail(f, where, f"the cube (log2 {cube_b}) is no cube")
        if rec.kind == xr.MOVE and dice is not None:
            plays = legal_plays(board, dice)
            played = _board(fields["PositionEnd"]) if fields["Played"] else None
            annotations.update(_move_annotation(f, where, fields, board, dice, plays, played))
        position = XgPosition(
            board=board, turn=player, dice=dice, cube_value=1 << abs(cube_b),
            cube_owner=None if cube_b == 0 else 0 if cube_b > 0 else 1, match_length=rules["length"],
            score=(int(g["score1"]), int(g["score2"])), crawford=bool(g["CrawfordApply"]) and bool(rules["length"]),
            jacoby=rules["jacoby"], cube_cap=rules["cube_cap"], names=rules["names"], info=rules["info"],
            annotations=annotations if len(annotations) > 1 else {})
        try:
            position.state
        except FastgenError as exc:
            raise _fail(f, where, f"the position's cube, score or rules are impossible: {exc}") from None
        return position
