"""Position ID, Match ID, the combined gnubg ID and XGID (fastgen.core.ids)."""

from __future__ import annotations

import base64
import dataclasses
import random

import numpy as np
import pytest

import fastgen
from fastgen.errors import (
    InvalidMatchIDError,
    InvalidMatchStateError,
    InvalidPositionIDError,
    InvalidXGIDError,
)
from fastgen.core.ids import (
    parse_position_id,
    gnubg_id,
    match_id,
    parse_match_id,
    parse_gnubg_id,
    parse_xgid,
    position_id,
    xgid,
)
from fastgen.core.state import GameState, MatchState, Resignation

from _positions import random_board

START = fastgen.STARTING_BOARD
OPENING_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


def random_boards(seed, n):
    rng = random.Random(seed)
    return [random_board(rng) for _ in range(n)]


def random_state(rng: random.Random) -> MatchState:
    length = rng.choice([0, 0, 1, 3, 5, 7, 9, 11, 25])
    score = (rng.randint(0, max(length - 1, 0)), rng.randint(0, max(length - 1, 0))) if length else (
        rng.randint(0, 40), rng.randint(0, 40))
    dice = rng.choice([(0, 0)] + [(a, b) for a in range(1, 7) for b in range(1, 7) if a >= b])
    on_roll = rng.randint(0, 1)
    doubled = dice == (0, 0) and rng.random() < 0.3
    return MatchState(
        cube_value=1 << rng.randint(0, 6),
        cube_owner=rng.choice([None, 0, 1]),
        on_roll=on_roll,
        turn=1 - on_roll if doubled else on_roll,
        crawford=bool(length) and rng.random() < 0.2,
        game_state=GameState.PLAYING,
        doubled=doubled,
        dice=dice,
        match_length=length,
        score=score,
        jacoby=not length and rng.random() < 0.5,
        beaver=not length and rng.random() < 0.5,
        max_cube=1 << rng.randint(6, 10),
    )


# --------------------------------------------------------------------------- Position ID


def test_position_id_start():
    assert position_id(START) == "4HPwATDgc/ABMA"


def test_position_id_round_trip_many_random_positions():
    for board in random_boards(1, 3000):
        pid = position_id(board)
        assert len(pid) == 14
        assert (parse_position_id(pid) == board).all()


def test_position_id_matches_gnubg():
    gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg-nn (GNU Backgammon's bindings) not installed: pip install '.[peers]'")
    for board in random_boards(2, 1500):
        pid = position_id(board)
        assert gnubg_nn.position_id(board.tolist()) == pid
        assert np.array_equal(np.array(gnubg_nn.board_from_position_id(pid)), board)


@pytest.mark.parametrize("bad", ["", "4HPwATDgc/ABM", "4HPwATDgc/ABMA=", "4HPwATDgc/AB!A", None, 14, "//////////////"])
def test_bad_position_ids(bad):
    with pytest.raises(InvalidPositionIDError) as info:
        parse_position_id(bad)
    assert repr(bad) in str(info.value)


# --------------------------------------------------------------------------- Match ID


def test_manual_example_match_id():
    # gnubg manual, "A technical description of the Match ID": score 2-4 in a 9 point
    # match, player 0 holds a 2-cube, player 1 has just rolled 52.
    state = parse_match_id("QYkqASAAIAAA")
    assert state.cube_value == 2
    assert state.cube_owner == 0
    assert state.on_roll == 1 and state.turn == 1
    assert state.crawford is False
    assert state.game_state is GameState.PLAYING
    assert state.doubled is False and state.resigned is Resignation.NONE
    assert state.dice == (5, 2)
    assert state.match_length == 9
    assert state.score == (2, 4)
    assert match_id(state) == "QYkqASAAIAAA"


def test_start_of_session_match_id():
    # 'cAgAAAAAAAAA' as gnubg shows before a money session: centred 1-cube, player 1 to
    # act, no game started, no dice, money; bit 66 clear means the Jacoby rule is on.
    state = parse_match_id("cAgAAAAAAAAA")
    assert (state.cube_value, state.cube_owner, state.on_roll, state.turn) == (1, None, 1, 1)
    assert state.game_state is GameState.NONE
    assert state.dice == (0, 0) and state.match_length == 0 and state.score == (0, 0)
    assert state.jacoby is True
    assert match_id(state) == "cAgAAAAAAAAA"


def test_default_state_and_jacoby_bit():
    assert match_id(MatchState()) == "cAkAAAAAAAAE"  # playing, Jacoby off: bit 66 set
    assert match_id(MatchState(jacoby=True)) == "cAkAAAAAAAAA"


@pytest.mark.parametrize(
    "field, value, start, width",
    [("cube_value", 8, 0, 4), ("on_roll", 0, 6, 1), ("crawford", True, 7, 1), ("turn", 0, 11, 1),
     ("doubled", True, 12, 1), ("resigned", Resignation.GAMMON, 13, 2), ("match_length", 7, 21, 15)],
)
def test_match_id_bit_positions(field, value, start, width):
    base = MatchState(match_length=9 if field != "match_length" else 0, jacoby=True)
    changed = dataclasses.replace(base, **{field: value})
    key = lambda s: int.from_bytes(base64.b64decode(match_id(s)), "little")  # noqa: E731
    diff = key(base) ^ key(changed)
    assert diff and diff >> start << start == diff and diff >> (start + width) == 0


def test_match_id_round_trip_random_states():
    rng = random.Random(3)
    for _ in range(3000):
        state = random_state(rng)
        back = parse_match_id(match_id(state))
        # The Match ID has no beaver or max-cube field, and stores the larger die first.
        want = dataclasses.replace(state, beaver=False, max_cube=1024,
                                   dice=tuple(sorted(state.dice, reverse=True)))
        assert back == want


@pytest.mark.parametrize(
    "bad",
    ["", "cAgAAAAAAAA", "cAgAAAAAAAAAA", "cAgAAAAAAAA!", None, 7,
     ],
)
def test_bad_match_ids(bad):
    with pytest.raises(InvalidMatchIDError) as info:
        parse_match_id(bad)
    assert repr(bad) in str(info.value)


def id_from_key(key: int) -> str:
    return base64.b64encode(key.to_bytes(9, "little")).decode()


def test_key_helper_matches_manual_example():
    # the manual's key, written from its bit list: cube 2, owner 0, player 1 on roll, ...
    key = 1 | (1 << 6) | (1 << 8) | (1 << 11) | (5 << 15) | (2 << 18) | (9 << 21) | (2 << 36) | (4 << 51)
    assert id_from_key(key) == "QYkqASAAIAAA"


@pytest.mark.parametrize(
    "key, why",
    [
        ((2 << 4) | (1 << 8), "cube owner code 2"),
        ((3 << 4) | (1 << 8) | (7 << 15) | (1 << 18), "a die of 7"),
        ((3 << 4) | (1 << 8) | (3 << 15), "one die rolled, the other not"),
        ((3 << 4) | (5 << 8), "game state 5"),
        ((3 << 4) | (3 << 21) | (5 << 36) | (3 << 51), "both sides past a 3-point match"),
        ((3 << 4) | (1 << 7), "Crawford in a money game"),
        ((3 << 4) | (1 << 70), "stray bit above bit 66"),
    ],
)
def test_impossible_match_ids(key, why):
    mid = id_from_key(key)
    with pytest.raises(InvalidMatchIDError) as info:
        parse_match_id(mid)
    assert repr(mid) in str(info.value), why


@pytest.mark.parametrize(
    "kwargs",
    [dict(cube_value=3), dict(cube_value=0), dict(cube_owner=2), dict(on_roll=2), dict(dice=(7, 1)),
     dict(dice=(3, 0)), dict(match_length=3, score=(4, 3)), dict(crawford=True), dict(game_state=9),
     dict(score=(-1, 0)), dict(dice="ab")],
)
def test_bad_match_states(kwargs):
    with pytest.raises(InvalidMatchStateError):
        MatchState(**kwargs)


def test_finished_match_ids_and_final_scores():
    # gnubg's ID after it won a 7-point match 8-1 (a gammon on a 4-cube), from the program
    state = parse_match_id("AgLgABAAQAAE")
    assert (state.match_length, state.score, state.game_state) == (7, (1, 8), GameState.OVER)
    assert match_id(state) == "AgLgABAAQAAE"
    final = MatchState(match_length=3, score=(4, 2), game_state=GameState.OVER)  # won 4-2 by a gammon
    assert parse_match_id(match_id(final)) == final


# --------------------------------------------------------------------------- gnubg ID


def test_gnubg_id_round_trip():
    rng = random.Random(4)
    for board in random_boards(4, 500):
        state = dataclasses.replace(random_state(rng), beaver=False, max_cube=1024)
        state = dataclasses.replace(state, dice=tuple(sorted(state.dice, reverse=True)))
        text = gnubg_id(board, state)
        assert len(text) == 27
        b2, s2 = parse_gnubg_id(text)
        assert (b2 == board).all() and s2 == state


@pytest.mark.parametrize("bad", ["4HPwATDgc/ABMA", "4HPwATDgc/ABMA:cAgAAAAAAAA", "4HPwATDgc/ABM:cAgAAAAAAAAA",
                                 "4HPwATDgc/ABMA:cAgAAAAAAAAA:x", None])
def test_bad_gnubg_ids(bad):
    with pytest.raises(InvalidMatchIDError) as info:
        parse_gnubg_id(bad)
    assert repr(bad) in str(info.value)


# --------------------------------------------------------------------------- XGID


def test_opening_xgid():
    assert xgid(START) == OPENING_XGID
    board, state = parse_xgid(OPENING_XGID)
    assert (board == START).all()
    assert state.on_roll == 1 and state.match_length == 0 and state.dice == (0, 0)
    assert state.cube_value == 1 and state.cube_owner is None and state.max_cube == 1024


@pytest.mark.parametrize(
    "text, mine, opp",
    [
        # Checkers on both bars: bottom (on roll) has 2 on its 6 and 3 on the bar;
        # top has 2 on its bar and 3 on its 6 (character 19 = bottom's 19 = top's 6).
        ("XGID=b-----B------------c-----C:0:0:1:00:0:0:0:0:8", {6: 2, 25: 3}, {25: 2, 6: 3}),
        ("XGID=-CCCBBB------------cccbbb-:0:0:1:00:0:0:0:0:8",
         {1: 3, 2: 3, 3: 3, 4: 2, 5: 2, 6: 2}, {6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 1: 2}),
    ],
)
def test_xgid_position_layout(text, mine, opp):
    board, state = parse_xgid(text)
    for point, n in mine.items():
        assert board[1, 24 if point == 25 else point - 1] == n
    for point, n in opp.items():  # opponent's own numbering
        assert board[0, 24 if point == 25 else point - 1] == n
    assert xgid(board, state) == text


def test_xgid_top_player_on_roll_turns_the_board():
    text = "XGID=-CCCBBB------------cccbbb-:0:0:-1:31:0:0:0:0:8"
    board, state = parse_xgid(text)
    assert state.on_roll == 0 and state.dice == (3, 1)
    assert board[1, :6].tolist() == [2, 2, 2, 3, 3, 3]  # the top player's home board
    assert xgid(board, state) == text


def test_xgid_fields():
    board, state = parse_xgid("XGID=-b----E-C---eE---c-e----B-:2:-1:1:52:3:1:1:7:10")
    assert state.cube_value == 4 and state.cube_owner == 0  # -1 = top = gnubg player 0
    assert state.dice == (5, 2) and state.score == (1, 3)  # (player 0 = top, player 1 = bottom)
    assert state.crawford is True and state.match_length == 7
    _, money = parse_xgid("XGID=-b----E-C---eE---c-e----B-:1:1:1:00:0:0:3:0:8")
    assert money.jacoby and money.beaver and money.cube_owner == 1 and money.max_cube == 256
    _, doubled = parse_xgid("XGID=-b----E-C---eE---c-e----B-:1:0:1:D:0:0:0:5:10")
    assert doubled.doubled and doubled.on_roll == 1 and doubled.turn == 0


def test_xgid_round_trip_random():
    rng = random.Random(5)
    for board in random_boards(5, 1500):
        state = random_state(rng)
        text = xgid(board, state)
        b2, s2 = parse_xgid(text)
        assert (b2 == board).all(), text
        assert s2 == dataclasses.replace(state, game_state=GameState.PLAYING), text
        assert xgid(b2, s2) == text


def test_xgid_and_gnubg_id_agree():
    rng = random.Random(6)
    for board in random_boards(6, 300):
        state = dataclasses.replace(random_state(rng), beaver=False, max_cube=1024, jacoby=False)
        state = dataclasses.replace(state, dice=tuple(sorted(state.dice, reverse=True)))
        b1, s1 = parse_xgid(xgid(board, state))
        b2, s2 = parse_gnubg_id(gnubg_id(board, state))
        assert (b1 == b2).all() and s1 == s2


@pytest.mark.parametrize(
    "bad",
    [
        "XGID=-b----E-C---eE---c-e----B:0:0:1:00:0:0:0:0:10",      # 25 position characters
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10:1",   # extra field
        "XGID=-b----E-C---eE---c-e----B-:0:2:1:00:0:0:0:0:10",     # owner 2
        "XGID=-b----E-C---eE---c-e----B-:0:0:0:00:0:0:0:0:10",     # turn 0
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:7x:0:0:0:0:10",     # dice
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:70:0:0:0:0:10",     # die 7 with a 0
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:77:0:0:0:0:10",     # die 7
        "XGID=-b----E-C---eE---c-e----B-:16:0:1:00:0:0:0:0:10",    # cube 2**16
        "XGID=-b----E-C---eE---c-e----BB:0:0:1:00:0:0:0:0:10",     # 17 bottom checkers
        "XGID=Bb----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10",     # bottom on the top bar
        "XGID=-b----E-C---eE---c-e----Bb:0:0:1:00:0:0:0:0:10",     # top on the bottom bar
        "XGID=-b----E-C---eE---c-e----P-:0:0:1:00:0:0:0:0:10",     # 16 on a point
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:9:8:0:7:10",     # both scores past the length
        "",
        None,
    ],
)
def test_bad_xgids(bad):
    with pytest.raises(InvalidXGIDError) as info:
        parse_xgid(bad)
    assert repr(bad) in str(info.value)


def test_match_id_matches_gnubg():
    gnubg = pytest.importorskip("gnubg", reason="gnubg (GNU Backgammon's Python module) not installed: pip install '.[peers]'")
    rng = random.Random(7)
    for _ in range(2000):
        state = random_state(rng)
        cubeinfo = gnubg.cubeinfo(
            state.cube_value, -1 if state.cube_owner is None else state.cube_owner, state.on_roll,
            state.match_length, state.score, int(state.crawford), 0,
        )
        posinfo = gnubg.posinfo(state.turn, 0, int(state.doubled), int(state.game_state), state.dice)
        theirs = gnubg.match_id(cubeinfo, posinfo)
        decoded = parse_match_id(theirs)
        # gnubg's module sets the Jacoby bit itself (on in money play, off in a match)
        # and writes no score for money play.
        want = dataclasses.replace(state, jacoby=decoded.jacoby, beaver=False, max_cube=1024,
                                   dice=tuple(sorted(state.dice, reverse=True)),
                                   score=state.score if state.match_length else (0, 0))
        assert decoded == want
        assert match_id(decoded) == theirs
