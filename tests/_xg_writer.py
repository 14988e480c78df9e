"""A writer of eXtreme Gammon ``.xg`` / ``.xgp`` files, for the tests only.

Built from XG's published description of the format (extremegammon.com/XGformat.aspx:
XG_format.pas and ZLibArchive.pas, "freely redistributed"), not from any parser's code:
the field offsets below were worked out by hand from the published field lists and
Delphi's alignment rules (a field on its own size, doubles on 8, ``string[n]`` and
booleans unaligned; the variant part of a record at byte 9), independently of the
reader's layout tables in :mod:`fastgen.formats.xgrecords`, so the two check each other.

:func:`write_xg` turns a fastgen :class:`Match` (with its games' annotations, in the form
:func:`fastgen.formats.xg.read_xg` gives them) into a file: the RichGameHeader, an
optional thumbnail and the ZLib archive of temp.xgi, temp.xg, temp.xgr and temp.xgc.
:func:`write_xgp` writes a position file. Options choose the file version, compression
and a thumbnail.

The records are laid out as eXtreme Gammon's own files hold them (checked against the
matches XG saved in ``tests/data/matches/gbf``): a game header (PosInit all zeros in
the first game, the starting position after), a cube record before every roll
(``Double`` -2 when no cube decision is open, 0 no double, 1 a double with ``Take``;
-1 when the side on roll resigns instead of rolling; ``DiceRolled`` the roll that
follows, "77" when none does), a move record for every roll (``PositionI`` and a cube
record's ``Position`` from player 1's side, ``PositionEnd``, ``Moves`` and the analyses
from the mover's; a roll left unplayed with ``Played`` 0 and zeros after it) and a
game footer (``Termination`` 100 + the result for a resignation, the score after the
game counted on).
"""

from __future__ import annotations

import datetime
import struct
import zlib

import numpy as np

from fastgen.core.boards import STARTING_BOARD
from fastgen.core.generate import legal_plays
from fastgen.core.notation import Play
from fastgen.formats.convert import to_signed26

from _matches import kept_indices, written_record  # the tests folder is on the path (the suite's and the fuzz command's)
from fastgen.games.game import Game

REC = 2560
HEADER = 8232
SITES = ("GammonSite", "FIBS", "TrueMoney Games", "GridGammon", "DailyGammon", "NetGammon", "VOG",
         "Gammon Empire/Play65", "Club Games", "PartyGammon", "XcitingGames", "BGRoom", "DiceArena",
         "Safe Harbor Games", "GameAccount", "XG Mobile")
LEVELS = {"1-ply": 0, "2-ply": 1, "3-ply": 2, "3-ply red": 12, "4-ply": 3, "5-ply": 4, "6-ply": 5, "7-ply": 6,
          "Rollout": 100, "XGRoller": 1000, "XGRoller+": 1001, "XGRoller++": 1002}
NOT_ANALYSED = -1000.0

# Offsets in a TSaveRec, by entry type (worked out from XG_format.pas).
HM = dict(SPlayer1=9, SPlayer2=50, MatchLength=92, Variation=96, Crawford=100, Jacoby=101, Beaver=102,
          AutoDouble=103, Elo1=104, Elo2=112, exp1=120, exp2=124, Date=128, SEvent=136, GameId=268,
          CompLevel1=272, CompLevel2=276, SLocation=283, GameMode=412, SRound=417, Invert=548, version=552,
          Magic=556, MoneyInitScore=564, CommentHeaderMatch=576, CommentFooterMatch=580, SiteId=608,
          CubeLimit=612, Transcribed=620, Event=622, Player1=880, Player2=1138, Location=1396, Round=1654,
          Transcriber=1960)
HG = dict(score1=12, score2=16, CrawfordApply=20, PosInit=21, GameNumber=48, InProgress=52, CommentHeaderGame=56,
          CommentFooterGame=60, NumberOfAutoDouble=64)
CU = dict(Actif=12, Double=16, Take=20, BeaverR=24, RaccoonR=28, CubeB=32, Position=36, DoubleD=64, ErrCube=200,
          DiceRolled=208, ErrTake=216, RolloutindexD=224, AnalyzeC=232, ErrBeaver=240, ErrRaccoon=248,
          TutorCube=264, ErrTutorCube=272, ErrTutorTake=280, CommentCube=292)
DA = dict(Pos=0, Level=28, Score=32, Cube=40, CubePos=44, Jacoby=48, Crawford=52, FlagDouble=56, Eval=60, equB=88,
          equDouble=92, equDrop=96, LevelRequest=100, EvalDouble=104)
MV = dict(PositionI=9, PositionEnd=35, ActifP=64, Moves=68, Dice=100, CubeA=108, ErrorM=112, NMoveEval=120,
          DataMoves=124, Played=2308, ErrMove=2312, ErrLuck=2320, CompChoice=2328, InitEq=2336,
          RolloutindexM=2344, AnalyzeM=2472, AnalyzeL=2476, PositionTutor=2484, Tutor=2510, ErrTutorMove=2512,
          CommentMove=2524)
BM = dict(Pos=0, Dice=28, Level=36, Score=40, Cube=48, CubePos=52, Crawford=56, Jacoby=60, Nmoves=64, PosPlayed=68,
          Moves=900, EvalLevel=1156, Eval=1284)
FG = dict(Score1g=12, Score2g=16, CrawfordApplyg=20, Winner=24, Pointswon=28, Termination=32, ErrResign=40,
          ErrTakeResign=48, Eval=56, EvalLevel=112)
FM = dict(Score1m=12, Score2m=16, WinnerM=20, Elo1m=24, Elo2m=32, exp1m=40, exp2m=44, Datem=48)


def put(buf: bytearray, off: int, fmt: str, *values) -> None:
    struct.pack_into("<" + fmt, buf, off, *values)


def ansi(buf: bytearray, off: int, n: int, text: str) -> None:
    """A Delphi ``string[n]``."""
    data = text.encode("cp1252", errors="replace")[:n]
    buf[off] = len(data)
    buf[off + 1:off + 1 + len(data)] = data


def wide(buf: bytearray, off: int, chars: int, text: str) -> None:
    """A #0-terminated ``array of WideChar`` of *chars* characters."""
    data = text.encode("utf-16-le")[:2 * (chars - 1)]
    buf[off:off + len(data)] = data


def record(kind: int) -> bytearray:
    buf = bytearray(REC)
    buf[8] = kind
    return buf


def signed26(board, flip: bool) -> list[int]:
    """XG's PositionEngine of a (2, 25) board from the mover's view; turned round (seen
    from player 1's side) when *flip*."""
    v = [int(x) for x in to_signed26(np.asarray(board, dtype=np.int8))]
    if flip:
        v = [-v[25]] + [-v[25 - i] for i in range(1, 25)] + [-v[0]]
    return v


def cube_code(value: int, owner) -> int:
    """log2 of the cube, + when XG's player 1 (fastgen's 0) owns it, - for player 2."""
    exp = value.bit_length() - 1
    return 0 if owner is None else exp if owner == 0 else -exp


def xg_steps(moves) -> list[int]:
    """A play's steps as XG's Moves: from, to pairs from the mover's side (0..23 the
    points, 24 the bar, -1 borne off), -1 after the last; all -1 for no step."""
    out = []
    for src, dst in moves:
        out += [24 if src == 25 else src - 1, -1 if dst == 0 else dst - 1]
    return (out + [-1] * 8)[:8]


def tdatetime(date: str, time: str | None) -> float:
    day = datetime.datetime.strptime(date, "%Y.%m.%d") - datetime.datetime(1899, 12, 30)
    minutes = 0
    if time:
        hh, mm = time.split(".")
        minutes = int(hh) * 60 + int(mm)
    return day.days + minutes / 1440


def rtf(text: str) -> str:
    out = []
    for ch in text:
        if ch in "\\{}":
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\par ")
        elif ord(ch) > 127:
            n = ord(ch)
            out.append(f"\\u{n - 65536 if n > 32767 else n}?")
        else:
            out.append(ch)
    return "{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0\\fnil Segoe UI;}}{\\*\\generator XG;}\\f0\\fs20 " + "".join(out) + "\\par}"


# --------------------------------------------------------------------------- the container


def pack_archive(files: list[tuple[str, bytes]], *, compress: bool = True, compress_registry: bool = True) -> bytes:
    """XG's ZLib archive (ZLBArchive 1.52) of *files*: the files, their registry, the
    36-byte archive record with the CRC-32 of everything before it."""
    data = bytearray()
    registry = bytearray()
    for name, content in files:
        packed = zlib.compress(content)
        stored = not compress or len(packed) >= len(content)
        rec = bytearray(532)
        ansi(rec, 0, 255, name)
        put(rec, 512, "iiiIBB", len(content), len(content) if stored else len(packed), len(data),
            zlib.crc32(content), 1 if stored else 0, 0 if stored else 2)
        data += content if stored else packed
        registry += rec
    archive_size = len(data)
    data += zlib.compress(bytes(registry)) if compress_registry else registry
    trailer = bytearray(36)
    put(trailer, 0, "IiiiiB", zlib.crc32(bytes(data)), len(files), 1, len(data) - archive_size, archive_size,
        int(compress_registry))
    return bytes(data + trailer)


def rich_header(thumbnail: bytes, game_name: str = "", comments: str = "") -> bytes:
    buf = bytearray(HEADER)
    put(buf, 0, "IIIqI", 0x484D4752, 1, HEADER, 0, len(thumbnail))
    buf[24:40] = bytes(range(1, 17))  # the GUID
    wide(buf, 40, 1024, game_name)
    wide(buf, 40 + 2048 * 3, 1024, comments)
    return bytes(buf)


def container(records: list[bytes], comments: list[str], *, thumbnail: bytes = b"", compress: bool = True,
              compress_registry: bool = True, header_comments: str = "", game_name: str = "") -> bytes:
    game = b"".join(records)
    xgc = b"".join(rtf(c).replace("\r\n", "\x01\x02").encode("cp1252") + b"\r\n" for c in comments)
    files = [("temp.xgi", records[0] + records[-1]), ("temp.xg", game), ("temp.xgr", b""), ("temp.xgc", xgc)]
    return (rich_header(thumbnail, game_name, header_comments) + thumbnail
            + pack_archive(files, compress=compress, compress_registry=compress_registry))


# --------------------------------------------------------------------------- records


class _Comments:
    def __init__(self) -> None:
        self.items: list[str] = []

    def index(self, text: str | None) -> int:
        if not text:
            return -1
        self.items.append(text)
        return len(self.items) - 1


def header_match(names, length: int, *, crawford: bool, jacoby: bool, cube_cap: int, info: dict, version: int,
                 comment_index: int, money_init=(0, 0)) -> bytes:
    buf = record(0)
    ansi(buf, HM["SPlayer1"], 40, names[0])
    ansi(buf, HM["SPlayer2"], 40, names[1])
    put(buf, HM["MatchLength"], "ii", length or 99999, 0)
    put(buf, HM["Crawford"], "BBBB", int(crawford), int(jacoby), int(info.get("beaver") == "On"), 0)
    for side in (0, 1):
        if f"elo{side}" in info:
            elo, exp = info[f"elo{side}"].split("/")
            put(buf, HM[f"Elo{side + 1}"], "d", float(elo))
            put(buf, HM[f"exp{side + 1}"], "i", int(exp))
    if "date" in info:
        put(buf, HM["Date"], "d", tdatetime(info["date"], info.get("time")))
    ansi(buf, HM["SEvent"], 128, info.get("event", ""))
    put(buf, HM["GameId"], "iii", int(info.get("match_id", 0)), -1, -1)
    ansi(buf, HM["SLocation"], 128, info.get("place", ""))
    ansi(buf, HM["SRound"], 128, info.get("round", ""))
    put(buf, HM["Invert"], "iiii", 1, version, 0x494C4D44, 0)
    put(buf, HM["MoneyInitScore"], "ii", *money_init)
    put(buf, HM["CommentHeaderMatch"], "ii", comment_index, -1)
    put(buf, HM["SiteId"], "i", SITES.index(info["site"]) if "site" in info else -1)
    if version >= 8:
        put(buf, HM["CubeLimit"], "i", cube_cap.bit_length() - 1)
    if version >= 24:
        put(buf, HM["Transcribed"], "B", int("transcriber" in info))
        for key, field in (("event", "Event"), ("place", "Location"), ("round", "Round")):
            wide(buf, HM[field], 129, info.get(key, ""))
        wide(buf, HM["Player1"], 129, names[0])
        wide(buf, HM["Player2"], 129, names[1])
    if version >= 30:
        wide(buf, HM["Transcriber"], 129, info.get("transcriber", ""))
    return bytes(buf)


def header_game(score, crawford: bool, number: int, in_progress: bool, pos_init=None) -> bytes:
    """A game header; *pos_init* None leaves PosInit all zeros, as XG does for the usual
    starting position of a match's first game."""
    buf = record(1)
    put(buf, HG["score1"], "iiB", score[0], score[1], int(crawford))
    put(buf, HG["PosInit"], "26b", *(pos_init if pos_init is not None else [0] * 26))
    put(buf, HG["GameNumber"], "iB", number, int(in_progress))
    put(buf, HG["CommentHeaderGame"], "iii", -1, -1, 0)
    return bytes(buf)


def _eval7(probs, equity) -> list[float]:
    w, wg, wbg, lg, lbg = probs
    return [lbg, lg, 1.0 - w, w, wg, wbg, equity]


def dice_text(dice) -> str:
    """A cube record's DiceRolled: the roll that followed, "77" when none did."""
    return "77" if dice is None else f"{dice[0]}{dice[1]}"


def cube_record(actif: int, double: int, take: int, cube_b: int, board, ann: dict, comments: _Comments,
                rolled=None) -> bytes:
    """A Cube record of *actif* (0 / 1) deciding from *board* (its own view): Position
    from player 1's side, the analysis from *actif*'s; *rolled* the dice that followed."""
    buf = record(2)
    put(buf, CU["Actif"], "iiiiii", 1 if actif == 0 else -1, double, take if double == 1 else -1, -1, -1, cube_b)
    put(buf, CU["Position"], "26b", *signed26(board, actif == 1))
    d = CU["DoubleD"]
    analysis = ann.get("cube_analysis")
    if analysis:
        put(buf, d + DA["Pos"], "26b", *signed26(board, False))
        put(buf, d + DA["Level"], "i", LEVELS[analysis["level"]])
        best = max((analysis["no_double"], 0), (min(analysis["double_take"], analysis["double_drop"]), 1))
        flag = 0 if best[1] == 0 else 1 if analysis["double_take"] < analysis["double_drop"] else 2
        put(buf, d + DA["FlagDouble"], "h", flag)
        put(buf, d + DA["Eval"], "7f", *_eval7(analysis["probs"], analysis["no_double"]))
        put(buf, d + DA["equB"], "fff", analysis["no_double"], analysis["double_take"], analysis["double_drop"])
        put(buf, d + DA["EvalDouble"], "7f", *_eval7(analysis["probs_double"], analysis["double_take"]))
        put(buf, CU["AnalyzeC"], "i", LEVELS[analysis["level"]])
    else:
        put(buf, d + DA["FlagDouble"], "h", -100)
        put(buf, CU["AnalyzeC"], "i", -1)
    put(buf, CU["ErrCube"], "d", ann.get("error_cube", NOT_ANALYSED))
    ansi(buf, CU["DiceRolled"], 2, dice_text(rolled))
    put(buf, CU["ErrTake"], "d", ann.get("error_take", NOT_ANALYSED))
    put(buf, CU["RolloutindexD"], "i", -1)
    put(buf, CU["ErrBeaver"], "dd", NOT_ANALYSED, NOT_ANALYSED)
    put(buf, CU["TutorCube"], "bb", -1, -1)  # and TutorTake
    put(buf, CU["ErrTutorCube"], "dd", NOT_ANALYSED, NOT_ANALYSED)
    put(buf, CU["CommentCube"], "i", comments.index(ann.get("comment")))
    return bytes(buf)


def move_record(player: int, board, dice, cube_b: int, after, steps, ann: dict, comments: _Comments,
                score=(0, 0), length: int = 0) -> bytes:
    """A Move record of *player*'s roll *dice* from *board* (its own view) to *after*
    (None: the roll was left unplayed): PositionI from player 1's side, PositionEnd,
    the move list and the analysis from the mover's."""
    buf = record(3)
    put(buf, MV["PositionI"], "26b", *signed26(board, player == 1))
    if after is not None:
        put(buf, MV["PositionEnd"], "26b", *signed26(after, False))
        put(buf, MV["Moves"], "8i", *xg_steps(steps))
    put(buf, MV["ActifP"], "i", 1 if player == 0 else -1)
    put(buf, MV["Dice"], "iii", dice[0], dice[1], cube_b)
    candidates = ann.get("move_analysis", [])
    put(buf, MV["NMoveEval"], "i", len(candidates))
    dm = MV["DataMoves"]
    put(buf, dm + BM["Pos"], "26b", *signed26(board, False))
    put(buf, dm + BM["Dice"], "iii", dice[0], dice[1], 2)
    away = [length - score[player], length - score[1 - player]] if length else [0, 0]
    put(buf, dm + BM["Score"], "ii", *away)
    owner = 0 if cube_b == 0 else 1 if (cube_b > 0) == (player == 0) else -1
    put(buf, dm + BM["Cube"], "ii", 1 << abs(cube_b), owner)
    put(buf, dm + BM["Nmoves"], "i", len(candidates))
    if candidates:
        plays = legal_plays(np.asarray(board, dtype=np.int8), dice)
        texts = {str(Play.from_arrays(board, dice, plays.moves[k], plays.boards[k])): k for k in range(len(plays))}
        for i, cand in enumerate(candidates):
            k = texts[cand["play"]]
            put(buf, dm + BM["PosPlayed"] + 26 * i, "26b", *signed26(plays.boards[k], False))
            steps_k = [(int(a), int(b)) for a, b in plays.moves[k].tolist() if a >= 0]
            put(buf, dm + BM["Moves"] + 8 * i, "8b", *(xg_steps(steps_k)[:2 * len(steps_k) + 1] + [0] * 8)[:8])
            put(buf, dm + BM["EvalLevel"] + 4 * i, "hBB", LEVELS[cand["level"]], 0, 0)
            put(buf, dm + BM["Eval"] + 28 * i, "7f", *_eval7(cand["probs"], cand["equity"]))
    put(buf, MV["Played"], "B", int(after is not None))
    put(buf, MV["ErrMove"], "dd", ann.get("error", NOT_ANALYSED), ann.get("luck", NOT_ANALYSED))
    put(buf, MV["RolloutindexM"], "32i", *([-1] * 32))
    put(buf, MV["Tutor"], "b", -1)
    put(buf, MV["ErrTutorMove"], "d", NOT_ANALYSED)
    put(buf, MV["CommentMove"], "i", comments.index(ann.get("comment")))
    return bytes(buf)


def footer_game(score_after, crawford_next: bool, winner: int, points: int, termination: int, ann: dict) -> bytes:
    buf = record(4)
    put(buf, FG["Score1g"], "iiB", score_after[0], score_after[1], int(crawford_next))
    put(buf, FG["Winner"], "iii", 1 if winner == 0 else -1, points, termination)
    put(buf, FG["ErrResign"], "dd", ann.get("error_resign", NOT_ANALYSED), ann.get("error_accept", NOT_ANALYSED))
    return bytes(buf)


def footer_match(score, winner) -> bytes:
    buf = record(5)
    put(buf, FM["Score1m"], "iii", score[0], score[1], 0 if winner is None else 1 if winner == 0 else -1)
    return bytes(buf)


# --------------------------------------------------------------------------- a match


def kept_annotations(game) -> dict:
    """*game*'s annotations at the indices of its written record (rejected resignation
    offers are not in XG's files, so later indices move down)."""
    return {j: game.annotations[i] for j, i in enumerate(kept_indices(game)) if i in game.annotations}


def cube_open(walker: Game, length: int, score) -> bool:
    """Whether XG offers the side on roll a cube decision (else it writes Double -2):
    the rules let it double and, in a match, the cube is below the points it needs."""
    if walker.turn is None or not walker.may_double:
        return False
    return not length or walker.cube_value < length - score[walker.turn]


def _game_records(game, number: int, score, comments: _Comments, length: int, raw_score,
                  zero_pos_init: bool) -> list[bytes]:
    """The records of one game as XG writes them, replaying its record (rejected
    resignations left out): a cube record before every roll, a move record for every
    roll, the footer. *score* is the score XG shows (a money session's counted on from
    its first game's), *raw_score* the match's."""
    out = [header_game(score, game.crawford, number, not game.over,
                       None if zero_pos_init else signed26(STARTING_BOARD, False))]
    walker = Game(cube_cap=game.cube_cap, crawford=game.crawford, jacoby=game.jacoby)
    record_ = written_record(game)
    kept = kept_annotations(game)
    rolled = None  # (player, dice, board, annotation) of a roll not played yet
    resign_ann: dict = {}
    decided = False  # the side on roll has made its cube decision (a double taken)

    def code() -> int:
        return cube_code(walker.cube_value, walker.cube_owner)

    def unplayed():
        nonlocal rolled
        if rolled is not None:
            player, dice, board, ann = rolled
            out.append(move_record(player, board, dice, code(), None, [], ann, comments, raw_score, length))
            rolled = None

    def next_roll(i: int):
        nxt = record_[i] if i < len(record_) else None
        return tuple(nxt.data) if nxt is not None and nxt.kind == "roll" else None

    i = 0
    while i < len(record_):
        kind, player, data = record_[i]
        ann = kept.get(i, {})
        if kind in ("opening", "roll"):
            dice = tuple(data)
            if kind == "opening":
                starter = 0 if data[0] > data[1] else 1
                dice = (max(data), min(data))
            else:
                starter = player
            if not decided:
                double = 0 if cube_open(walker, length, raw_score) else -2
                out.append(cube_record(starter, double, 0, code(), walker.board if walker.turn is not None
                                       else STARTING_BOARD, ann, comments, dice))
            decided = False
            walker.roll(tuple(data), player=None if kind == "opening" else player)
            move_keys = {k: v for k, v in ann.items() if k in ("move_analysis", "error", "luck")}
            rolled = (walker.turn, dice, walker.board, move_keys)
        elif kind == "play":
            _, dice, board, _ = rolled
            plays = walker.legal_plays()
            after = np.frombuffer(data, dtype=np.int8).reshape(2, 25)
            k = int(np.flatnonzero((plays.boards == after).all(axis=(1, 2)))[0])
            steps = [(int(a), int(b)) for a, b in plays.moves[k].tolist() if a >= 0]
            out.append(move_record(player, board, dice, code(), after, steps, ann, comments, raw_score, length))
            rolled = None
            walker.play(after, player=player)
        elif kind == "double":
            take = record_[i + 1].kind == "take"
            out.append(cube_record(player, 1, int(take), code(), walker.board, ann, comments,
                                   next_roll(i + 2) if take else None))
            walker.double(player=player)
            walker.take() if take else walker.drop()
            decided = take
            i += 1
        elif kind == "resign":
            unplayed()
            if walker.turn == player and walker.dice is None:  # XG: the side on roll resigns instead of rolling
                out.append(cube_record(player, -1, 0, code(), walker.board, {}, comments))
            walker.resign(data, player=player)
            walker.accept_resignation()
            resign_ann = ann
            i += 1
        i += 1
    unplayed()
    if game.over:
        term = 100 + game.result if game.resigned else 0 if game.dropped else game.result
        after_score = list(score)
        after_score[game.winner] += game.points
        out.append(footer_game(after_score, False, game.winner, game.points, term, resign_ann))
    return out


def write_xg(match, *, version: int = 30, thumbnail: bytes = b"", compress: bool = True,
             compress_registry: bool = True, money_init=(0, 0), match_footer: bool = True, header_comments: str = "",
             zero_pos_init: bool = True) -> bytes:
    """*match* as the bytes of an .xg file, laid out as eXtreme Gammon writes it.
    *zero_pos_init* leaves the first game's PosInit all zeros (as XG mostly does)."""
    comments = _Comments()
    info = dict(match.info)
    head = header_match(match.names, match.length, crawford=match.crawford_rule, jacoby=match.jacoby,
                        cube_cap=match.cube_cap, info=info, version=version,
                        comment_index=comments.index(info.get("comment")), money_init=money_init)
    records = [head]
    for index, game in enumerate(match.games):
        s = match.scores_before(index)
        records += _game_records(game, index + 1, (s[0] + money_init[0], s[1] + money_init[1]), comments,
                                 match.length, s, zero_pos_init and index == 0)
    if match_footer and (match.over or (not match.length and match.games and match.games[-1].over)):
        s = match.score
        records.append(footer_match((s[0] + money_init[0], s[1] + money_init[1]), match.winner))
    return container(records, comments.items, thumbnail=thumbnail, compress=compress,
                     compress_registry=compress_registry, header_comments=header_comments,
                     game_name=f"{match.names[0]} vs {match.names[1]}")


def write_xgp(board, turn: int, dice, *, cube_value: int = 1, cube_owner=None, length: int = 0, score=(0, 0),
              crawford: bool = False, names=("Alice", "Bob"), move_ann: dict | None = None,
              cube_ann: dict | None = None, played=None, version: int = 30) -> bytes:
    """A position file: the match and game headers (PosInit *board* from player 1's
    side), a cube record and, when *dice*, a move record of *board* (*turn*'s view)."""
    comments = _Comments()
    records = [header_match(names, length, crawford=bool(length), jacoby=False, cube_cap=1024, info={},
                            version=version, comment_index=-1),
               header_game(score, crawford, 1, True, pos_init=signed26(board, turn == 1))]
    code = cube_code(cube_value, cube_owner)
    records.append(cube_record(turn, 0 if cube_ann else -2, 0, code, board, cube_ann or {}, comments, dice))
    if dice is not None:
        steps = []
        if played is not None:
            plays = legal_plays(np.asarray(board, dtype=np.int8), dice)
            k = int(np.flatnonzero((plays.boards == played).all(axis=(1, 2)))[0])
            steps = [(int(a), int(b)) for a, b in plays.moves[k].tolist() if a >= 0]
        records.append(move_record(turn, board, dice, code, played, steps, move_ann or {}, comments, score, length))
    return container(records, comments.items)
