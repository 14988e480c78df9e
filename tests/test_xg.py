"""eXtreme Gammon ``.xg`` / ``.xgp`` files read by :mod:`fastgen.formats.xg`.

Matches eXtreme Gammon saved are read in ``test_xg_real.py``; here the files are made by
the test writer ``_xg_writer.py`` (its own hand-computed offsets from XG's published
description, its record layout the one XG's own files show): round trips of seeded
random matches (cubes, drops, resignations before and after a roll, Crawford games,
dead cubes, money sessions with the Jacoby rule, unplayed rolls, lost turns) with XG's
analysis, comments and match information, in several file versions; each of the
checks of XG's layout (positions from the right side, the cube decision records and
their DiceRolled, move lists, termination codes, scores) and ``errors="warn"``;
position files; every kind of damage (bad magic,
cuts at many offsets, flipped bytes, a cut zlib stream, impossible values, beavers and
other things fastgen does not play) giving XgFileError and nothing else; and a
Hypothesis fuzz (examples from the profile in conftest.py). When the independent reader
``xgparse`` (LGPL, derived from Michael Petch's xgdatatools; never imported by fastgen)
is installed, the writer's files are also read with it and compared.
"""

from __future__ import annotations

import os
import re
import struct
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import fastgen
import _xg_writer as W
from _matches import random_match, written_record
from fastgen.core.generate import legal_plays
from fastgen.core.ids import xgid
from fastgen.core.state import MatchState
from fastgen.core.notation import Play
from fastgen.errors import MatFileError, XgFileError
from fastgen.formats import xgrecords as xr
from fastgen.formats.convert import to_signed26
from fastgen.formats.xg import XgPosition, read_xg, read_xg_position
from fastgen.games.game import Game
from fastgen.games.match import Match

_FIXTURES = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large]
LEVELS = sorted(W.LEVELS)


def f32(x: float) -> float:
    return float(np.float32(x))


# --------------------------------------------------------------------------- helpers


def annotate(match: Match, seed: int) -> Match:
    """*match* with XG-style analysis on some plays, doubles, rolls (no-double decisions)
    and resignations, in the form read_xg gives it (float32 where XG keeps singles)."""
    rng = np.random.default_rng(seed)
    comments = ["Blunder! {braces} and a \\backslash", "two\nlines, é ü ß 日本", "plain"]

    def probs():
        w, g, b, lg, lb = rng.random(5)
        return [f32(w), f32(w * g), f32(w * g * b), f32((1 - w) * lg), f32((1 - w) * lg * lb)]

    for game in match.games:
        walker = Game(cube_cap=game.cube_cap, crawford=game.crawford, jacoby=game.jacoby)
        record = list(game.record)
        last = None  # the kind of the last action kept in XG's files (rejected resignations are not)
        for i, action in enumerate(record):
            ann: dict = {}
            if action.kind == "play" and rng.random() < 0.6:
                plays = walker.legal_plays()
                after = np.frombuffer(action.data, dtype=np.int8).reshape(2, 25)
                picks = list(rng.permutation(len(plays))[:min(len(plays), int(rng.integers(1, 6)))])
                cands = []
                for k in picks:
                    cands.append({"play": str(Play.from_arrays(walker.board, walker.dice, plays.moves[k],
                                                               plays.boards[k])),
                                  "equity": f32(rng.normal()), "probs": probs(), "level": str(rng.choice(LEVELS)),
                                  "played": bool((plays.boards[k] == after).all())})
                ann = {"source": "xg", "move_analysis": cands}
                if rng.random() < 0.8:
                    ann["error"] = float(rng.normal())
                if rng.random() < 0.8:
                    ann["luck"] = float(rng.normal())
            elif action.kind == "double" or (action.kind == "roll" and last != "take"
                                             and rng.random() < 0.2):  # (after a take: no cube decision)
                ann = {"source": "xg", "cube_analysis": {
                    "no_double": f32(rng.normal()), "double_take": f32(rng.normal()), "double_drop": f32(1.0),
                    "probs": probs(), "probs_double": probs(), "level": str(rng.choice(LEVELS))},
                    "error_cube": float(rng.normal())}
                if action.kind == "double":
                    ann["error_take"] = float(rng.normal())
            elif (action.kind == "resign" and i + 1 < len(record) and record[i + 1].kind == "accept"
                  and rng.random() < 0.7):
                ann = {"source": "xg", "error_resign": float(rng.normal()), "error_accept": float(rng.normal())}
            if ann and action.kind in ("play", "double") and rng.random() < 0.15:
                ann["comment"] = comments[int(rng.integers(len(comments)))]
            if ann:
                game.annotations[i] = ann
            walker.apply([action])
            if action.kind not in ("resign", "reject"):
                last = action.kind
    return match


def assert_same_match(a: Match, b: Match, annotations: bool = True) -> None:
    assert (b.length, b.names, b.score, len(b.games)) == (a.length, a.names, a.score, len(a.games))
    assert (b.crawford_rule, b.jacoby, b.cube_cap, b.info) == (a.crawford_rule, a.jacoby, a.cube_cap, a.info)
    for x, y in zip(a.games, b.games):
        assert written_record(x) == y.record
        assert (x.winner, x.points, x.result, x.crawford, x.resigned, x.dropped, x.cube_value, x.cube_owner) == (
            y.winner, y.points, y.result, y.crawford, y.resigned, y.dropped, y.cube_value, y.cube_owner)
        assert x.dice == y.dice
        if annotations:
            assert W.kept_annotations(x) == y.annotations


def repack(data: bytes, game_file: bytes | None = None, **replace: bytes) -> bytes:
    """*data* with its temp.xg (and any other archived file) replaced, checksums redone."""
    c = xr.unpack(data, "test")
    files = dict(c.files)
    if game_file is not None:
        files["temp.xg"] = game_file
    files.update({k.replace("_", "."): v for k, v in replace.items()})
    return data[:xr.HEADER_SIZE] + c.thumbnail + W.pack_archive(list(files.items()))


def game_file(data: bytes) -> bytearray:
    return bytearray(xr.unpack(data, "test").files["temp.xg"])


def records_of(data: bytes) -> list[xr.Record]:
    return xr.read_records(bytes(game_file(data)), "test")


def usable(m: Match) -> None:
    """What the reader answered is a match the rules replay."""
    again = Match.from_records(m.length, [g.record for g in m.games], names=m.names, cube_cap=m.cube_cap,
                               crawford=m.crawford_rule, jacoby=m.jacoby)
    assert again.score == m.score and len(again.games) == len(m.games)


GENERIC = re.compile(r": (IndexError|KeyError|TypeError|ValueError|AttributeError|OverflowError|ZeroDivisionError|"
                     r"struct\.error|UnicodeDecodeError|AssertionError)\b")


def expect_error(data, *words: str) -> XgFileError:
    with pytest.raises(XgFileError) as info:
        read_xg(data)
    text = str(info.value)
    assert not GENERIC.search(text), text
    for word in words:
        assert word in text, text
    return info.value


# --------------------------------------------------------------------------- layouts


def test_layouts_match_the_published_sizes_and_the_writers_offsets():
    assert xr.RECORD_SIZE == 2560 and xr.BEST_MOVE.dtype.itemsize == 2184 and xr.DOUBLE_ACTION.dtype.itemsize == 132
    # the offsets the published description lists for TSaveRec's match header
    published = {"SPlayer1": 9, "SPlayer2": 50, "MatchLength": 92, "Variation": 96, "Crawford": 100,
                 "Jacoby": 101, "Beaver": 102, "AutoDouble": 103, "Elo1": 104, "Elo2": 112, "exp1": 120,
                 "exp2": 124, "Date": 128, "SEvent": 136, "GameId": 268}
    pairs = [(xr.HEADER_MATCH_DTYPE, {**W.HM, **published}), (xr.HEADER_GAME_DTYPE, W.HG), (xr.CUBE_DTYPE, W.CU),
             (xr.DOUBLE_ACTION, W.DA), (xr.MOVE_DTYPE, W.MV), (xr.BEST_MOVE, W.BM), (xr.FOOTER_GAME_DTYPE, W.FG),
             (xr.FOOTER_MATCH_DTYPE, W.FM)]
    for layout, offsets in pairs:
        for name, off in offsets.items():
            assert xr.offset(layout, name) == off, name


# --------------------------------------------------------------------------- round trips


CASES = [(length, seed) for seed, length in enumerate([1, 3, 5, 7, 9, 0, 11, 5, 3, 0] * 6)]


@pytest.mark.parametrize("length, seed", CASES)
def test_random_matches_round_trip(length, seed):
    m = random_match(length, seed, p_resign=0.03, p_double=0.15, p_drop=0.3, stop_after_roll=seed % 3 == 0,
                     cube_cap=[64, 128, 1024][seed % 3], max_games=6 if length == 0 else 12)
    if length == 0 and seed % 2:
        m = _with_jacoby(m, seed)
    annotate(m, seed)
    options = dict(zero_pos_init=seed % 2 == 0, compress=seed % 5 != 1, compress_registry=seed % 7 != 2,
                   thumbnail=b"\xff\xd8fake jpeg\xff\xd9" * (seed % 4), version=(30, 30, 28, 24)[seed % 4])
    data = W.write_xg(m, **options)
    assert data[:4] == b"RGMH"
    assert_same_match(m, read_xg(data))


def _with_jacoby(m: Match, seed: int) -> Match:
    """The money session *m* replayed under the Jacoby rule (its games' actions kept)."""
    out = Match(0, seed=seed, names=m.names, jacoby=True, cube_cap=m.cube_cap)
    for g in m.games:
        out.new_game().apply(g.record)
    return out


def test_the_round_trips_cover_every_feature():
    kinds, flags = set(), set()
    for length, seed in CASES:
        m = random_match(length, seed, p_resign=0.03, p_double=0.15, p_drop=0.3, stop_after_roll=seed % 3 == 0,
                         cube_cap=[64, 128, 1024][seed % 3], max_games=6 if length == 0 else 12)
        for g in m.games:
            kinds |= {a.kind for a in g.record}
            flags |= {name for name, on in (("crawford", g.crawford), ("resigned", g.resigned),
                                            ("dropped", g.dropped), ("unfinished", not g.over),
                                            ("money", not length), ("redouble", g.cube_value >= 4)) if on}
            walker = Game(cube_cap=g.cube_cap)
            for a in g.record:
                if a.kind == "play" and len(walker.legal_plays()) == 1 and walker.legal_plays().moves[0, 0, 0] < 0:
                    flags.add("lost turn")
                walker.apply([a])
    assert {"opening", "roll", "play", "double", "take", "drop", "resign", "accept", "reject"} <= kinds
    assert {"crawford", "resigned", "dropped", "unfinished", "money", "redouble", "lost turn"} <= flags


def test_match_information_round_trips(tmp_path):
    info = {"event": "Nordic Open", "round": "Final", "place": "Oslo", "site": "XG Mobile", "date": "2024.08.15",
            "time": "21.23", "elo0": "1522.94/244", "elo1": "1829.00/0", "match_id": "491989142",
            "transcriber": "Åse Ødegård", "beaver": "On", "comment": "A fine match:\n{great} \\ play é 日本"}
    m = random_match(5, 3, names=("Ñoño Pérez", "Zoë 日本"))
    m.info.update(info)
    path = tmp_path / "match.xg"
    path.write_bytes(W.write_xg(m, header_comments="ignored when there is a match comment"))
    for source in (path, str(path), path.read_bytes()):
        back = read_xg(source)
        assert back.info == info and back.names == m.names
        assert_same_match(m, back)


def test_old_versions_read_the_ansi_fields_and_a_default_cube_cap():
    m = random_match(3, 4, names=("Ann", "Bo"), cube_cap=64)
    m.info.update({"event": "Club night", "place": "Pub"})
    back = read_xg(W.write_xg(m, version=22))
    assert back.names == ("Ann", "Bo") and back.info == {"event": "Club night", "place": "Pub"}
    assert back.cube_cap == 64
    assert read_xg(W.write_xg(m, version=7)).cube_cap == 1024  # no CubeLimit before version 8


def test_header_comments_are_the_comment_when_the_match_has_none():
    m = random_match(3, 5)
    assert read_xg(W.write_xg(m, header_comments="From the file header")).info["comment"] == "From the file header"


def test_money_session_with_a_starting_score_and_the_jacoby_rule():
    m = _with_jacoby(random_match(0, 11, max_games=8, p_double=0.2), 11)
    back = read_xg(W.write_xg(m, money_init=(7, 3)))
    assert back.length == 0 and back.jacoby and back.score == m.score
    assert_same_match(m, back)


def test_the_file_s_own_scores_and_crawford_flags_are_checked():
    m = random_match(5, 2, max_games=12)
    assert any(g.crawford for g in m.games)
    data = W.write_xg(m)
    gf = game_file(data)
    for rec in records_of(data):
        if rec.kind == xr.HEADER_GAME and rec.number > 2:
            bad = bytearray(gf)
            struct.pack_into("<i", bad, rec.offset + 12, int(rec.fields["score1"]) + 1)
            expect_error(repack(data, bytes(bad)), "starts at", f"record {rec.number}")
            bad = bytearray(gf)
            bad[rec.offset + 20] ^= 1
            expect_error(repack(data, bytes(bad)), "Crawford")
            break


def test_rtf_comments_become_plain_text():
    rtf = ("{\\rtf1\\ansi\\ansicpg1252\\deff0\\deflang1033{\\fonttbl{\\f0\\fnil\\fcharset0 Tahoma;}}"
           "{\\colortbl ;\\red255\\green0\\blue0;}{\\*\\generator Msftedit 5.41;}\\viewkind4\\uc1\\pard"
           "\\f0\\fs16 Caf\\'e9 \\{ok\\} \\u26085?\\u26412?\\par\r\nline\\tab two\\par}")
    assert xr.rtf_text(rtf) == "Café {ok} 日本\nline\ttwo"
    assert xr.rtf_text("  not rtf at all ") == "not rtf at all"
    assert xr.rtf_text("{\\rtf1 unclosed {\\b bold") == "unclosed bold"
    assert xr.read_comments(b"{\\rtf1 a\x01\x02b}\r\n\r\n{\\rtf1 c}\r\n") == ["ab", "", "c"]


# --------------------------------------------------------------------------- position files


@pytest.mark.parametrize("seed", range(12))
def test_position_files(seed):
    rng = np.random.default_rng(seed)
    m = random_match(7, seed + 100, max_games=1)
    g = m.games[0]
    walker = Game()
    stop = int(rng.integers(4, max(5, len(g.record) - 2)))
    for a in g.record[:stop]:
        if a.kind not in ("opening", "roll", "play"):
            continue
        walker.apply([a])
    if walker.dice is None:
        walker.roll((int(rng.integers(1, 7)), int(rng.integers(1, 7))))
    board, turn, dice = walker.board, walker.turn, walker.dice
    plays = walker.legal_plays()
    cands = [{"play": str(Play.from_arrays(board, dice, plays.moves[k], plays.boards[k])), "equity": f32(-0.1 * k),
              "probs": [f32(0.5), f32(0.1), f32(0.01), f32(0.2), f32(0.02)], "level": "XGRoller++",
              "played": k == 0} for k in range(min(len(plays), 4))]
    move_ann = {"source": "xg", "move_analysis": cands, "error": 0.0}
    owner = [None, 0, 1][seed % 3]
    data = W.write_xgp(board, turn, dice, cube_value=1 if owner is None else 4, cube_owner=owner, length=7,
                       score=(2, 5), move_ann=move_ann, played=plays.boards[0])
    pos = read_xg_position(data)
    assert isinstance(pos, XgPosition)
    assert (pos.board == board).all() and pos.turn == turn and pos.dice == dice
    assert (pos.cube_value, pos.cube_owner, pos.match_length, pos.score) == (1 if owner is None else 4, owner, 7,
                                                                               (2, 5))
    assert pos.annotations["move_analysis"] == cands
    state = MatchState(cube_value=pos.cube_value, cube_owner=owner, on_roll=turn, dice=dice, match_length=7,
                       score=(2, 5))
    assert pos.xgid == xgid(board, state)
    with pytest.raises(XgFileError, match="read_xg_position"):
        read_xg(data)


def test_position_file_at_a_cube_decision():
    board = fastgen.STARTING_BOARD.copy()
    ann = {"source": "xg", "cube_analysis": {"no_double": f32(0.1), "double_take": f32(0.2), "double_drop": 1.0,
                                             "probs": [f32(0.6), 0.0, 0.0, 0.0, 0.0],
                                             "probs_double": [f32(0.6), 0.0, 0.0, 0.0, 0.0], "level": "4-ply"},
           "error_cube": 0.25}
    pos = read_xg_position(W.write_xgp(board, 1, None, cube_ann=ann, cube_value=2, cube_owner=1))
    assert pos.dice is None and pos.turn == 1 and (pos.board == board).all()
    assert (pos.cube_value, pos.cube_owner) == (2, 1)
    assert pos.annotations == ann


def test_read_xg_position_of_a_match_file_is_its_opening():
    m = random_match(3, 8)
    pos = read_xg_position(W.write_xg(m))
    first = m.games[0].record[0]
    assert pos.turn == (0 if first.data[0] > first.data[1] else 1)
    assert (pos.board == fastgen.STARTING_BOARD).all()


# --------------------------------------------------------------------------- damage


@pytest.fixture(scope="module")
def sample() -> bytes:
    m = annotate(random_match(5, 21, p_double=0.2, p_resign=0.02), 21)
    return W.write_xg(m, thumbnail=b"\xff\xd8thumbnail\xff\xd9")


def test_bad_magic_and_header_fields(sample):
    expect_error(b"RGMX" + sample[4:], "RGMH")
    expect_error(sample[:4] + b"\x02" + sample[5:], "version")
    expect_error(b"", "header")
    expect_error(b"RGMH", "header")
    bad = bytearray(sample)
    struct.pack_into("<I", bad, 20, 5000)  # thumbnail size
    expect_error(bytes(bad))
    struct.pack_into("<I", bad, 20, 0xFFFFFFFF)
    expect_error(bytes(bad), "cut short")


def test_truncated_at_many_offsets(sample):
    cuts = sorted(set(range(0, len(sample), 97)) | {8231, 8232, 8233, len(sample) - 37, len(sample) - 36,
                                                    len(sample) - 1})
    for cut in cuts:
        expect_error(sample[:cut])


def test_flipped_bytes_in_the_archive(sample):
    start = xr.HEADER_SIZE + len(b"\xff\xd8thumbnail\xff\xd9")
    for at in list(range(start, len(sample), 37)) + [len(sample) - k for k in range(1, 37)]:
        bad = bytearray(sample)
        bad[at] ^= 0x10
        expect_error(bytes(bad))


def test_bytes_added_after_the_archive(sample):
    expect_error(sample + b"\0", "archive")


def test_a_cut_zlib_stream(sample):
    c = xr.unpack(sample, "t")
    game = c.files["temp.xg"]
    packed = zlib.compress(game)[:-20]
    # an archive whose registry and checksums are right but whose temp.xg stream is cut
    data = bytearray()
    rec = bytearray(532)
    W.ansi(rec, 0, 255, "temp.xg")
    W.put(rec, 512, "iiiIBB", len(game), len(packed), 0, zlib.crc32(game), 0, 2)
    data += packed
    arc = len(data)
    data += zlib.compress(bytes(rec))
    trailer = bytearray(36)
    W.put(trailer, 0, "IiiiiB", zlib.crc32(bytes(data)), 1, 1, len(data) - arc, arc, 1)
    expect_error(W.rich_header(b"") + bytes(data + trailer), "cut short")


def test_archive_faults():
    m = random_match(3, 1)
    good = W.write_xg(m)
    files = dict(xr.unpack(good, "t").files)
    head = W.rich_header(b"")
    expect_error(head + W.pack_archive([("temp.xgi", files["temp.xgi"])]), "no temp.xg")
    expect_error(head + W.pack_archive([("temp.xg", files["temp.xg"])] * 2), "twice")
    expect_error(head + W.pack_archive([("temp.xg", files["temp.xg"][:-1])]), "whole number")
    expect_error(head + W.pack_archive([("temp.xg", b"")]), "whole number")
    # a registry entry claiming a huge file is refused before anything is unpacked
    arc = W.pack_archive([("temp.xg", files["temp.xg"])], compress_registry=False)
    body, trailer = bytearray(arc[:-36]), bytearray(arc[-36:])
    reg = len(body) - 532
    struct.pack_into("<i", body, reg + 512, 2_000_000_000)
    struct.pack_into("<I", trailer, 0, zlib.crc32(bytes(body)))
    expect_error(head + bytes(body + trailer), "at most")
    struct.pack_into("<i", trailer, 4, 1_000_000)  # file count
    struct.pack_into("<I", trailer, 0, zlib.crc32(bytes(body)))
    expect_error(head + bytes(body + trailer), "files")


def _patched(data: bytes, kind: int, nth: int, edit) -> bytes:
    """*data* with the *nth* record of type *kind* changed by edit(buffer, offset)."""
    gf = game_file(data)
    recs = [r for r in records_of(data) if r.kind == kind]
    edit(gf, recs[nth].offset, recs[nth])
    return repack(data, bytes(gf))


def test_record_faults(sample):
    p = lambda kind, nth, fmt, off, *v: _patched(  # noqa: E731
        sample, kind, nth, lambda b, o, r: struct.pack_into("<" + fmt, b, o + off, *v))
    expect_error(p(xr.HEADER_MATCH, 0, "i", 556, 0), "DMLI")
    expect_error(p(xr.HEADER_MATCH, 0, "i", 552, 41), "version")
    expect_error(p(xr.HEADER_MATCH, 0, "i", 96, 1), "nackgammon")
    expect_error(p(xr.HEADER_MATCH, 0, "i", 92, -4), "match length")
    expect_error(p(xr.HEADER_MATCH, 0, "d", 128, float("nan")), "date")
    expect_error(p(xr.HEADER_GAME, 0, "i", 48, 7), "game number")
    expect_error(p(xr.HEADER_GAME, 0, "b", 21, 3), "starting position")
    expect_error(p(xr.HEADER_GAME, 0, "i", 64, 2), "automatic")
    expect_error(p(xr.MOVE, 0, "i", 64, 3), "ActifP")
    expect_error(p(xr.MOVE, 0, "ii", 100, 7, 1), "dice")
    expect_error(p(xr.MOVE, 0, "ii", 100, 3, 3), "re-roll")
    expect_error(p(xr.MOVE, 2, "b", 9 + 6, 9), "position before")
    expect_error(p(xr.MOVE, 2, "b", 35 + 6, 9), "position after")
    expect_error(p(xr.MOVE, 1, "i", 108, 3), "cube")
    expect_error(p(xr.MOVE, 1, "i", 120, 33), "at most 32")
    expect_error(p(xr.FOOTER_GAME, 0, "i", 28, 99), "points")
    expect_error(p(xr.FOOTER_GAME, 0, "i", 32, 1002), "settle")
    expect_error(p(xr.FOOTER_GAME, 0, "i", 32, 7), "Termination")
    expect_error(p(xr.FOOTER_GAME, 0, "i", 24, 0), "winner")
    gf = game_file(sample)
    gf[8] = 9
    expect_error(repack(sample, bytes(gf)), "entry type")
    gf = game_file(sample)
    expect_error(repack(sample, bytes(gf[xr.RECORD_SIZE:])), "match header")
    expect_error(repack(sample, bytes(gf[:xr.RECORD_SIZE] + gf)), "second match header")
    missing = bytearray(gf[:xr.RECORD_SIZE * 2])
    missing[xr.RECORD_SIZE + 8] = xr.MISSING
    expect_error(repack(sample, bytes(missing)), "missing")


def test_a_beaver_is_refused():
    m = random_match(0, 3, p_double=0.5, p_drop=0.0, max_games=3)
    data = W.write_xg(m)
    cubes = [r for r in records_of(data) if r.kind == xr.CUBE]
    first = next(k for k, r in enumerate(cubes) if int(r.fields["Double"]) == 1)
    assert {-2, 0, 1} <= {int(r.fields["Double"]) for r in cubes}  # one before every roll
    expect_error(_patched(data, xr.CUBE, first, lambda b, o, r: struct.pack_into("<i", b, o + 20, 2)), "beaver")
    expect_error(_patched(data, xr.CUBE, first, lambda b, o, r: struct.pack_into("<i", b, o + 24, 1)), "beaver")
    expect_error(_patched(data, xr.CUBE, first, lambda b, o, r: struct.pack_into("<i", b, o + 20, 5)), "Take")
    expect_error(_patched(data, xr.CUBE, first, lambda b, o, r: struct.pack_into("<i", b, o + 16, 4)), "Double")


def test_a_double_in_the_crawford_game_is_refused():
    m = random_match(3, 5, max_games=12)
    crawford = [i for i, g in enumerate(m.games) if g.crawford]
    assert crawford
    data = W.write_xg(m)
    recs = records_of(data)
    games = [r for r in recs if r.kind == xr.HEADER_GAME]
    start = games[crawford[0]].number
    move = next(r for r in recs[start:] if r.kind == xr.MOVE and r.number > start + 2)
    cube = recs[move.number - 2]  # the record of the decision before the roll: no cube action open
    assert cube.kind == xr.CUBE and int(cube.fields["Double"]) == -2
    gf = game_file(data)
    struct.pack_into("<ii", gf, cube.offset + 16, 1, 1)  # a double, taken
    expect_error(repack(data, bytes(gf)), "Crawford")


# --------------------------------------------------------------------------- XG's layout, checked


@pytest.fixture(scope="module")
def layout() -> tuple[Match, bytes]:
    """A 5-point match whose file holds every kind of record XG writes: a resignation
    before a roll (Double -1), a roll left unplayed, dead cubes (Double -2 by the owner),
    a match won with points to spare."""
    m = annotate(random_match(5, 34, p_resign=0.05, p_double=0.2, max_games=12), 34)
    data = W.write_xg(m)
    recs = records_of(data)
    assert any(r.kind == xr.CUBE and int(r.fields["Double"]) == -1 for r in recs)
    assert any(r.kind == xr.MOVE and not r.fields["Played"] for r in recs)
    assert max(m.score) > m.length
    assert_same_match(m, read_xg(data))
    return m, data


def _flip26(v) -> list[int]:
    v = [int(x) for x in v]
    return [-v[25]] + [-v[25 - i] for i in range(1, 25)] + [-v[0]]


def _edit(data: bytes, rec: xr.Record, fmt: str, off: int, *values) -> bytes:
    gf = game_file(data)
    struct.pack_into("<" + fmt, gf, rec.offset + off, *values)
    return repack(data, bytes(gf))


def test_positions_are_read_from_the_sides_xg_keeps_them(layout):
    _, data = layout
    recs = records_of(data)
    move = next(r for r in recs if r.kind == xr.MOVE and int(r.fields["ActifP"]) == -1 and r.fields["Played"]
                and _flip26(r.fields["PositionI"]) != list(r.fields["PositionI"])
                and _flip26(r.fields["PositionEnd"]) != list(r.fields["PositionEnd"]))
    # PositionI is kept from player 1's side, PositionEnd from the mover's: either from the other side is refused
    expect_error(_edit(data, move, "26b", 9, *_flip26(move.fields["PositionI"])), "position before the move",
                 "player 1's side")
    expect_error(_edit(data, move, "26b", 35, *_flip26(move.fields["PositionEnd"])), "position after the move")
    cube = recs[move.number - 2]
    assert cube.kind == xr.CUBE and int(cube.fields["Actif"]) == -1
    expect_error(_edit(data, cube, "26b", 36, *_flip26(cube.fields["Position"])), "cube decision",
                 "player 1's side")
    # the first game's PosInit is all zeros (the usual start, as XG leaves it), or the starting position
    first = next(r for r in recs if r.kind == xr.HEADER_GAME)
    assert not np.asarray(first.fields["PosInit"]).any()
    start = W.signed26(fastgen.STARTING_BOARD, False)
    assert_same_match(layout[0], read_xg(_edit(data, first, "26b", 21, *start)))


def test_cube_decision_records(layout):
    _, data = layout
    recs = records_of(data)
    cubes = [r for r in recs if r.kind == xr.CUBE]
    no_double = next(r for r in cubes if int(r.fields["Double"]) == 0)
    expect_error(_edit(data, no_double, "i", 16, -2), "Double is -2", "may double here")
    opening = cubes[0]  # before the opening roll: no cube decision open
    assert int(opening.fields["Double"]) == -2
    expect_error(_edit(data, opening, "i", 16, 0), "may not double")
    dead = next(r for r in cubes if int(r.fields["Double"]) == -2 and int(r.fields["CubeB"]) != 0
                and (int(r.fields["CubeB"]) > 0) == (int(r.fields["Actif"]) == 1))  # the owner's cube is dead
    expect_error(_edit(data, dead, "i", 16, 0), "may not double")
    # DiceRolled is the roll that follows
    dice = xr.short_string(no_double.fields["DiceRolled"])
    other = "66" if sorted(dice) != ["6", "6"] else "55"
    expect_error(_edit(data, no_double, "3s", 208, b"\x02" + other.encode()), "DiceRolled")
    # the cube it stores: log2 of its value, + owned by player 1, - by player 2
    owned = next(r for r in cubes if int(r.fields["CubeB"]) != 0)
    expect_error(_edit(data, owned, "i", 32, -int(owned.fields["CubeB"])), "cube it stores")
    expect_error(_edit(data, no_double, "i", 12, -int(no_double.fields["Actif"])), "on roll")


def test_a_resignation_before_the_roll(layout):
    m, data = layout
    recs = records_of(data)
    k = next(i for i, r in enumerate(recs) if r.kind == xr.CUBE and int(r.fields["Double"]) == -1)
    resign, footer = recs[k], recs[k + 1]
    assert footer.kind == xr.FOOTER_GAME and 101 <= int(footer.fields["Termination"]) <= 103
    game = m.games[sum(1 for r in recs[:k] if r.kind == xr.HEADER_GAME) - 1]
    assert game.resigned and game.record[-2].player == (0 if int(resign.fields["Actif"]) == 1 else 1)
    # the footer must make the side that resigned the loser
    expect_error(_edit(data, footer, "i", 24, -int(footer.fields["Winner"])), "resigned before rolling")
    # and end the game by a resignation
    expect_error(_edit(data, footer, "i", 32, 1), "Double -1")


def test_termination_104_is_a_resignation_of_the_points_won(layout):
    m, data = layout
    recs = records_of(data)
    footers = [r for r in recs if r.kind == xr.FOOTER_GAME]
    resigned = next(r for r in footers if 101 <= int(r.fields["Termination"]) <= 103)
    assert_same_match(m, read_xg(_edit(data, resigned, "i", 32, 104)))
    expect_error(_edit(data, resigned, "ii", 28, int(resigned.fields["Pointswon"]) * 5, 104), "104")
    plain = W.write_xg(random_match(7, 2, p_resign=0.0))
    played_out = next(r for r in records_of(plain) if r.kind == xr.FOOTER_GAME)
    assert int(played_out.fields["Termination"]) < 100
    expect_error(_edit(plain, played_out, "i", 32, 104), "resigned")


def test_scores_after_each_game(layout):
    m, data = layout
    recs = records_of(data)
    footers = [r for r in recs if r.kind == xr.FOOTER_GAME]
    expect_error(_edit(data, footers[0], "i", 12, int(footers[0].fields["Score1g"]) + 1), "score after the game")
    # XG holds the winner's score at the match length after some match-winning games
    last, final = footers[-1], recs[-1]
    assert final.kind == xr.FOOTER_MATCH
    capped = [min(int(last.fields[k]), m.length) for k in ("Score1g", "Score2g")]
    gf = game_file(data)
    struct.pack_into("<ii", gf, last.offset + 12, *capped)
    struct.pack_into("<ii", gf, final.offset + 12, *capped)
    assert_same_match(m, read_xg(repack(data, bytes(gf))))
    expect_error(_edit(data, final, "i", 12, int(final.fields["Score1m"]) + 1), "final score")


def test_move_lists_and_unplayed_rolls(layout):
    m, data = layout
    recs = records_of(data)
    moves = [r for r in recs if r.kind == xr.MOVE]
    move = next(r for r in moves if r.fields["Played"] and int(r.fields["Moves"][0]) >= 0)
    steps = [int(v) for v in move.fields["Moves"]]
    expect_error(_edit(data, move, "8i", 68, *([-1] * 8)), "move list")
    expect_error(_edit(data, move, "2i", 68, steps[1], steps[0]), "move list")
    for r in moves:  # a roll that cannot be played: Moves all -1, the position after the one before
        if r.fields["Played"] and int(r.fields["Moves"][0]) == -1:
            before = [int(v) for v in r.fields["PositionI"]]
            assert [int(v) for v in r.fields["PositionEnd"]] == (before if int(r.fields["ActifP"]) == 1
                                                                 else _flip26(before))
    unplayed = next(r for r in moves if not r.fields["Played"])
    assert not np.asarray(unplayed.fields["PositionEnd"]).any() and not np.asarray(unplayed.fields["Moves"]).any()
    expect_error(_edit(data, unplayed, "b", 35 + 6, 1), "left unplayed")
    expect_error(_edit(data, move, "B", 2308, 0), "left unplayed")


def test_errors_warn_reads_past_a_game_that_cannot_be_replayed(layout):
    m, data = layout
    recs = records_of(data)
    games = [r for r in recs if r.kind == xr.HEADER_GAME]
    end = games[2].number if len(games) > 2 else len(recs)
    # the last play of the second game (after its last double: the cube is the one it ends with)
    move = [r for r in recs[games[1].number:end] if r.kind == xr.MOVE and r.fields["Played"]][-1]
    bad = _edit(data, move, "b", 35 + 6, 9)  # a position after no legal play gives
    error = expect_error(bad, "position after the move")
    with pytest.warns(fastgen.formats.MatFileWarning, match="position after the move"):
        back = read_xg(bad, errors="warn")
    assert back.problems == [str(error).split(": ", 1)[1]]
    assert len(back.games) == len(m.games) and back.score == m.score
    broken = back.games[1]
    assert broken.resigned and (broken.winner, broken.points) == (m.games[1].winner, m.games[1].points)
    for x, y in zip(m.games[2:], back.games[2:]):
        assert written_record(x) == y.record
    assert read_xg(data, errors="warn").problems == []
    with pytest.raises(XgFileError, match="errors"):
        read_xg(data, errors="ignore")


def test_paths_that_are_no_files(tmp_path):
    with pytest.raises(XgFileError, match="does not exist"):
        read_xg(tmp_path / "nothing.xg")
    with pytest.raises(XgFileError, match="folder"):
        read_xg(tmp_path)
    with pytest.raises(XgFileError):
        read_xg(12)  # type: ignore[arg-type]
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe.xg"
        os.mkfifo(fifo)
        with pytest.raises(XgFileError, match="FIFO"):
            read_xg(fifo)
    assert issubclass(XgFileError, MatFileError)


def test_errors_name_the_file_and_the_place(tmp_path, sample):
    path = tmp_path / "bad.xg"
    path.write_bytes(_patched(sample, xr.MOVE, 3, lambda b, o, r: struct.pack_into("<b", b, o + 35 + 6, 9)))
    text = str(pytest.raises(XgFileError, read_xg, path).value)
    assert "bad.xg" in text and "record" in text and "byte" in text and "game 1" in text


# --------------------------------------------------------------------------- an independent reader


def test_the_writer_s_files_read_alike_with_xgparse(tmp_path):
    xgparse = pytest.importorskip("xgparse", reason="needs xgparse, an independent .xg reader: the peers extra "
                                  "(pip install 'fastgen-backgammon[peers]', Python 3.11 or later)")

    for seed in (1, 2, 5):
        m = annotate(random_match([5, 0, 3][seed % 3], seed, p_double=0.2, p_resign=0.02), seed)
        if seed == 1:
            m.info.update({"event": "Ev", "elo0": "1500.50/12", "date": "2024.08.15", "time": "21.23", "site": "FIBS"})
        path = tmp_path / f"m{seed}.xg"
        path.write_bytes(W.write_xg(m))
        recs = [r for r in xgparse.convert_xg_to_py_dataclasses(str(path)) if type(r).__name__ != "RolloutContextEntry"]
        names = [type(r).__name__ for r in recs]
        ours = [xr.ENTRY_NAMES[r.kind] for r in records_of(path.read_bytes())]
        assert len(names) == len(ours)
        head = recs[0]
        assert (head.player1, head.player2, head.version) == (m.names[0], m.names[1], 30)
        assert head.match_length == (m.length or 99999)
        if seed == 1:
            info = {"event": "Ev", "elo": (1500.5, 12), "date": "2024-08-15 21:23", "site": 1}
            assert (head.event, head.elo1, head.exp1, head.site_id) == (info["event"], *info["elo"], info["site"])
            assert str(head.date).startswith(info["date"])
        cubes = [r for r in recs if type(r).__name__ == "CubeEntry" and r.double == 1]
        answers = [(a.kind, b.kind) for g in m.games for a, b in zip(g.record, g.record[1:]) if a.kind == "double"]
        assert [("double", "take" if r.take else "drop") for r in cubes] == answers
        analysed = [r for r in recs if type(r).__name__ == "MoveEntry" and r.n_move_eval]
        wanted = [ann["move_analysis"] for g in m.games for i, ann in sorted(W.kept_annotations(g).items())
                  if "move_analysis" in ann and written_record(g)[i].kind == "play"]
        assert [r.n_move_eval for r in analysed] == [len(c) for c in wanted]
        for r, cands in zip(analysed, wanted):
            assert [f32(r.data_moves.eval[k][3]) for k in range(len(cands))] == [c["probs"][0] for c in cands]
            assert [f32(r.data_moves.eval[k][6]) for k in range(len(cands))] == [c["equity"] for c in cands]
        moves = [r for r in recs if type(r).__name__ == "MoveEntry"]
        games = [g for g in m.games]
        expected = []
        for g in games:
            walker = Game(cube_cap=g.cube_cap, crawford=g.crawford, jacoby=g.jacoby)
            for a in written_record(g):
                if a.kind in ("opening", "roll"):
                    walker.apply([a])
                    expected.append([walker.turn, walker.dice, walker.board, None])
                elif a.kind == "play":
                    expected[-1][3] = np.frombuffer(a.data, dtype=np.int8).reshape(2, 25)
                    walker.apply([a])
                else:
                    walker.apply([a])
        assert len(moves) == len(expected)
        for rec, (turn, dice, board, after) in zip(moves, expected):
            assert rec.active_p == (1 if turn == 0 else -1)
            assert tuple(rec.dice) == tuple(dice)
            assert list(rec.position_i) == W.signed26(board, turn == 1)  # from player 1's side
            if after is not None:
                assert list(rec.position_end) == W.signed26(after, False)  # from the mover's
        footers = [r for r in recs if type(r).__name__ == "FooterGameEntry"]
        for rec, g in zip(footers, [g for g in games if g.over]):
            assert (rec.winner, rec.points_won) == ((1 if g.winner == 0 else -1), g.points)


# --------------------------------------------------------------------------- fuzz


FUZZ_MATCH = annotate(random_match(3, 31, p_double=0.3, p_resign=0.03), 31)
FUZZ_FILE = W.write_xg(FUZZ_MATCH)
FUZZ_GAME = bytes(game_file(FUZZ_FILE))
XGP_FILE = W.write_xgp(fastgen.STARTING_BOARD, 1, (3, 1))
XGP_GAME = bytes(game_file(XGP_FILE))


def _source(name: str) -> bytes:
    """The undamaged inputs of the fuzz tests, by name (so that Hypothesis never shows
    their bytes)."""
    return {"match": FUZZ_FILE, "match records": FUZZ_GAME, "position": XGP_FILE,
            "position records": XGP_GAME}[name]


@st.composite
def damaged(draw, name: str, lo: int = 0) -> bytes:
    """The input *name* cut short, with bytes overwritten or inserted (one to four edits
    at or after byte *lo*)."""
    out = bytearray(_source(name))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["cut", "overwrite", "insert", "zero run", "flip"]))
        at = draw(st.integers(min(lo, max(len(out) - 1, 0)), max(len(out) - 1, 0)))
        if kind == "cut":
            del out[at:]
        elif kind == "overwrite" and out:
            chunk = draw(st.binary(min_size=1, max_size=8))
            out[at:at + len(chunk)] = chunk
        elif kind == "flip" and at < len(out):
            out[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "insert":
            out[at:at] = draw(st.binary(min_size=1, max_size=8))
        else:
            out[at:at + draw(st.integers(1, 64))] = b"\0" * 64
    return bytes(out)


def _read_or_refuse(data: bytes) -> None:
    try:
        m = read_xg(data)
    except XgFileError as exc:
        assert not GENERIC.search(str(exc)), str(exc)
        return
    usable(m)


@settings(suppress_health_check=_FIXTURES, deadline=None)
@given(damaged("match"))
def test_fuzz_damaged_files(data):
    _read_or_refuse(data)


@st.composite
def damaged_records(draw, name: str) -> bytes:
    """The temp.xg *name* with values overwritten in place (bytes, bits, little-endian
    integers XG gives meaning to) and whole records duplicated, dropped or swapped, so
    most damage keeps the file a whole number of records and meets the replay's checks."""
    out = bytearray(_source(name))
    values = st.sampled_from([-1, 0, 1, 2, -2, 3, 7, 24, 25, 99999, 100, 101, 103, 1000, -100, -1000, 2**31 - 1,
                              -2**31])
    for _ in range(draw(st.integers(1, 3))):
        if len(out) <= 9:
            break
        n = len(out) // xr.RECORD_SIZE
        kind = draw(st.sampled_from(["byte", "bit", "int", "duplicate", "drop", "swap", "cut"]))
        at = draw(st.integers(9, len(out) - 1))
        if kind == "byte":
            out[at] = draw(st.integers(0, 255))
        elif kind == "bit":
            out[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "int":
            at -= at % 4
            out[at:at + 4] = draw(values).to_bytes(4, "little", signed=True)
        elif kind == "cut":
            del out[at:]
        elif n >= 3:
            i, j = draw(st.integers(1, n - 1)), draw(st.integers(1, n - 1))
            rec = out[i * xr.RECORD_SIZE:(i + 1) * xr.RECORD_SIZE]
            if kind == "duplicate":
                out[j * xr.RECORD_SIZE:j * xr.RECORD_SIZE] = rec
            elif kind == "drop":
                del out[i * xr.RECORD_SIZE:(i + 1) * xr.RECORD_SIZE]
            else:
                out[i * xr.RECORD_SIZE:(i + 1) * xr.RECORD_SIZE] = out[j * xr.RECORD_SIZE:(j + 1) * xr.RECORD_SIZE]
                out[j * xr.RECORD_SIZE:(j + 1) * xr.RECORD_SIZE] = rec
    return bytes(out)


@settings(suppress_health_check=_FIXTURES, deadline=None)
@given(st.data())
def test_fuzz_damaged_records_with_good_checksums(data):
    """Damage inside temp.xg, the archive rebuilt around it: the record reader and the
    replay checks meet it (not the checksums)."""
    game = data.draw(damaged_records("match records") if data.draw(st.booleans()) else damaged("match records", 9))
    _read_or_refuse(repack(FUZZ_FILE, game))




@settings(suppress_health_check=_FIXTURES, deadline=None)
@given(st.data())
def test_fuzz_position_files(data):
    if data.draw(st.booleans()):
        blob = data.draw(damaged("position"))
    else:
        blob = repack(XGP_FILE, data.draw(damaged_records("position records")))
    try:
        pos = read_xg_position(blob)
    except XgFileError as exc:
        assert not GENERIC.search(str(exc)), str(exc)
        return
    assert pos.board.shape == (2, 25) and isinstance(pos.xgid, str)


def test_the_fuzz_inputs_are_read_when_undamaged():
    assert_same_match(FUZZ_MATCH, read_xg(FUZZ_FILE))
    assert (to_signed26(fastgen.STARTING_BOARD) == W.signed26(fastgen.STARTING_BOARD, True)).all()
    assert legal_plays(fastgen.STARTING_BOARD, (3, 1)).boards.shape[1:] == (2, 25)
