"""eXtreme Gammon ``.xg`` files that XG itself saved, read by :mod:`fastgen.formats.xg`.

The files in ``tests/data/matches/gbf`` (MIT licensed) are live tournament matches
transcribed in XG and analysed by it. ``test.xg`` is the same match as ``test.txt`` (XG's
own text export of it, which :func:`fastgen.formats.read_mat` reads as GNU Backgammon does) and
``test.sgf`` (GNU Backgammon's save of it): the three must give the same games, action
by action. In ``Squire-Jørgensen-Harmand-Unger 7 point match 18-08-2024.xg`` an illegal
play stood (XG marks it invalid): it is read with ``errors="warn"``.
"""

from __future__ import annotations

import importlib
import math
from pathlib import Path

import numpy as np
import pytest

import fastgen
from fastgen.core.notation import Play
from fastgen.errors import MatFileWarning, XgFileError
from fastgen.formats.xg import read_xg, read_xg_position
from fastgen.games.game import Game

DATA = Path(__file__).parent / "data" / "matches" / "gbf"
REAL = sorted(DATA.glob("*.xg"))
#: The file whose seventh game holds a play XG marks invalid (14/11 8/5 with 43): the place.
ILLEGAL = {"Squire-Jørgensen-Harmand-Unger 7 point match 18-08-2024.xg": "game 7, record 582 (move"}


def _read(path: Path) -> fastgen.Match:
    if path.name in ILLEGAL:
        with pytest.warns(MatFileWarning):
            return read_xg(path, errors="warn")
    return read_xg(path)


def _actions(game) -> list:
    return [(kind, player, bytes(data) if isinstance(data, (bytes, bytearray, np.ndarray)) else data)
            for kind, player, data in game.record]


def _same_games(xg, other) -> None:
    """Game by game: the same actions (rolls, plays as boards after, cube actions,
    resignations), winners, points and results."""
    assert len(xg.games) == len(other.games)
    for number, (a, b) in enumerate(zip(xg.games, other.games), 1):
        assert _actions(a) == _actions(b), f"game {number}"
        assert (a.winner, a.points, a.result, a.resigned, a.dropped, a.crawford) == (
            b.winner, b.points, b.result, b.resigned, b.dropped, b.crawford), f"game {number}"
    assert (xg.length, xg.score, xg.names) == (other.length, other.score, other.names)


def test_there_are_real_files():
    assert len(REAL) == 8 and (DATA / "test.xg") in REAL


@pytest.mark.parametrize("path", REAL, ids=[p.name for p in REAL])
def test_every_real_file_reads(path):
    m = _read(path)
    assert m.length in (7, 9, 11) and m.games and all(g.over for g in m.games)
    assert m.over and max(m.score) >= m.length
    assert all(m.names) and m.info["date"].startswith("20") and m.info["event"]
    if path.name in ILLEGAL:
        assert len(m.problems) == 1 and ILLEGAL[path.name] in m.problems[0] and "InvalidM" in m.problems[0]
    else:
        assert m.problems == []


@pytest.mark.parametrize("name", sorted(ILLEGAL))
def test_an_illegal_play_that_stood_raises_by_default(name):
    with pytest.raises(XgFileError, match="marks the move invalid") as info:
        read_xg(DATA / name)
    assert ILLEGAL[name] in str(info.value) and name in str(info.value)
    m = _read(DATA / name)
    broken = m.games[6]  # ended by the result its footer gives, where the replay stopped
    assert broken.resigned and (broken.winner, broken.points) == (0, 2)
    assert m.score == (7, 6) and m.winner == 0  # and the last game is read in full
    assert not m.games[7].resigned or m.games[7].record[-1].kind == "accept"


def test_test_xg_is_its_text_export():
    xg = read_xg(DATA / "test.xg")
    _same_games(xg, fastgen.formats.read_mat(DATA / "test.txt"))
    # what the games hold: drops, resignations after a roll left unplayed, rolls that cannot be played
    kinds = {a[0] for g in xg.games for a in g.record}
    assert {"opening", "roll", "play", "double", "take", "drop", "resign", "accept"} <= kinds
    assert [g.points for g in xg.games] == [1, 2, 1, 1, 2, 2, 2] and xg.score == (7, 4)


def test_test_xg_is_gnu_backgammon_s_sgf():
    try:
        sgf = importlib.import_module("fastgen.formats.sgf")
    except ImportError as exc:
        pytest.skip(f"fastgen.formats.sgf is not there yet ({exc}): test.sgf cannot be compared")
    _same_games(read_xg(DATA / "test.xg"), sgf.read_sgf(DATA / "test.sgf"))


def test_names_and_match_information():
    xg = read_xg(DATA / "test.xg")
    text = fastgen.formats.read_mat(DATA / "test.txt")
    assert xg.names == ("Kévin Unger", "Maxence Job") == text.names
    assert xg.info == {"event": "HSBT Paris 2023", "round": "Tableau Or 2",
                       "place": "Paris, Fédération Française de Bridge", "date": "2023.11.26", "time": "09.30",
                       "elo0": "1600.00/0", "elo1": "1600.00/0", "match_id": "755933700",
                       "transcriber": "Kévin Unger"}
    for key in ("event", "round", "date", "time", "elo0", "elo1", "transcriber"):
        assert xg.info[key] == text.info[key], key
    assert xg.info["place"] == text.info["site"]  # XG's location, exported as the site
    # the export lists the players the other way round and negates the id, as XG does then
    assert text.info["match_id"] == "-" + xg.info["match_id"]
    assert (xg.length, xg.crawford_rule, xg.jacoby, xg.cube_cap) == (7, True, False, 1024)
    other = read_xg(DATA / "Lux Heuler-Franzosen 7 point match 12.08.2024.xg")
    assert other.names == ("Lux Heuler", "Franzosen")
    assert (other.info["event"], other.info["place"], other.info["date"]) == ("Doppel WM", "Aachen", "2024.08.11")


def test_comments_are_read():
    m = read_xg(DATA / "match_with_comment.xg")
    comments = [(g.record[i].kind, a["comment"]) for g in m.games for i, a in sorted(g.annotations.items())
                if "comment" in a]
    assert comments == [("play", "coup assez difficile"),
                        ("play", "les double 66 sont toujpurs difficiles à trouver")]


@pytest.mark.parametrize("path", REAL, ids=[p.name for p in REAL])
def test_the_analysis_of_each_play_holds_the_play_made(path):
    m = _read(path)
    plays = analysed = 0
    for game in m.games:
        walker = Game(cube_cap=game.cube_cap, crawford=game.crawford, jacoby=game.jacoby)
        for i, action in enumerate(game.record):
            ann = game.annotations.get(i, {})
            if action.kind == "play":
                plays += 1
                legal = walker.legal_plays()
                after = np.frombuffer(bytes(action.data), dtype=np.int8).reshape(2, 25)
                k = int(np.flatnonzero((legal.boards == after).all(axis=(1, 2)))[0])
                made = str(Play.from_arrays(walker.board, walker.dice, legal.moves[k], legal.boards[k]))
                candidates = ann.get("move_analysis", [])
                if candidates:
                    analysed += 1
                    assert ann["source"] == "xg"
                    assert [c["play"] for c in candidates if c["played"]] == [made]
                    assert len({c["play"] for c in candidates}) == len(candidates)
                    for c in candidates:
                        assert -3.0 <= c["equity"] <= 3.0 and all(0.0 <= p <= 1.0 for p in c["probs"])
                        assert c["level"]  # (XG's 1-ply race gammons may pass its wins a little)
                    # XG's error: the play's equity less the first (best) candidate's
                    best, mine = candidates[0]["equity"], next(c for c in candidates if c["played"])["equity"]
                    assert math.isclose(ann["error"], mine - best, abs_tol=2e-3)
                    assert abs(ann["luck"]) <= 3.0
            elif "cube_analysis" in ann:
                cube = ann["cube_analysis"]
                assert cube["double_drop"] == 1.0 and all(0.0 <= p <= 1.0 for p in cube["probs"])
            walker.apply([action])
    assert analysed >= 0.95 * plays and plays > 100


def test_read_xg_position_of_a_real_match_is_its_opening():
    pos = read_xg_position(DATA / "test.xg")
    assert (pos.turn, pos.dice, pos.match_length, pos.score, pos.cube_value) == (0, (5, 1), 7, (0, 0), 1)
    assert (pos.board == fastgen.STARTING_BOARD).all()
    assert [c["play"] for c in pos.annotations["move_analysis"] if c["played"]] == ["24/23 13/8"]
