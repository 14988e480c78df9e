"""FIBS board: lines (fastgen.formats.fibs): the documented example, every field,
rejections, and round trips on Hypothesis positions."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastgen
from fastgen.errors import InvalidFibsBoardError
from fastgen.formats.fibs import FibsBoard, format_board, parse_board
from strategies import bar_boards, bearoff_boards, contact_boards

# The example of FIBS's client documentation (boardstyle 3): the opening, O to play 6-2.
FIBS_EXAMPLE = (
    "board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:"
    "1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0"
)


def test_documented_example_every_field():
    fb = parse_board(FIBS_EXAMPLE + "\r\n")
    assert (fb.player, fb.opponent, fb.match_length, fb.player_score, fb.opponent_score) == ("You", "someplayer", 3, 0, 0)
    assert fb.points[1] == -2 and fb.points[6] == 5 and fb.points[24] == 2 and fb.points[19] == -5
    assert len(fb.points) == 26 and sum(p for p in fb.points if p > 0) == 15
    assert (fb.turn, fb.player_dice, fb.opponent_dice, fb.cube) == (1, (6, 2), (0, 0), 1)
    assert (fb.player_may_double, fb.opponent_may_double, fb.was_doubled) == (True, True, False)
    assert (fb.colour, fb.direction, fb.home, fb.bar) == (1, -1, 0, 25)
    assert (fb.player_off, fb.opponent_off, fb.player_on_bar, fb.opponent_on_bar) == (0, 0, 0, 0)
    assert (fb.can_move, fb.forced_move, fb.did_crawford, fb.redoubles) == (2, False, False, 0)
    assert fb.on_roll == "player" and fb.dice == (6, 2)
    assert np.array_equal(fb.board(), fastgen.STARTING_BOARD)
    assert fb.text() == FIBS_EXAMPLE == format_board(fb)


def test_x_moving_up_the_board_is_the_same_position():
    """The same position seen by X (colour -1) moving from 1 to 24 (direction 1)."""
    board = fastgen.STARTING_BOARD.copy()
    board[1, 24], board[1, 23] = 1, 1  # one of the player's back checkers on the bar
    board[0, 5], board[0, 24] = 4, 1
    up = FibsBoard.from_board(board, (5, 5), colour=-1, direction=1)
    down = FibsBoard.from_board(board, (5, 5))
    assert (up.home, up.bar, down.home, down.bar) == (25, 0, 0, 25)
    assert up.points[0] == -1 and up.points[25] == 1  # X's bar at 0, O's at 25, X negative
    assert up.player_on_bar == 1 and up.opponent_on_bar == 1 and up.can_move == 4
    assert np.array_equal(up.board(), board) and np.array_equal(down.board(), board)
    assert up.turn == -1 and up.on_roll == "player"


def test_opponent_on_roll_board_flips():
    fb = FibsBoard.from_board(fastgen.STARTING_BOARD, (4, 2), player_on_roll=False)
    assert fb.on_roll == "opponent" and fb.dice == (4, 2) and fb.player_dice == (0, 0) and fb.can_move == 0
    over = dataclasses.replace(fb, turn=0)
    assert over.on_roll is None and over.dice == (0, 0)


def _with(field_index: int, value: str) -> str:
    parts = FIBS_EXAMPLE.split(":")
    parts[field_index] = value
    return ":".join(parts)


@pytest.mark.parametrize(
    "line, words",
    [
        ("board:a:b:1", "4 fields"),
        (FIBS_EXAMPLE.replace("board:", "bored:"), "not 'board'"),
        (_with(1, ""), "player name"),
        (_with(3, "x"), "match_length must be an integer"),
        (_with(3, "-1"), "match length -1 is negative"),
        (_with(32, "2"), "turn 2"),
        (_with(33, "7"), "player dice 7-2"),
        (_with(33, "0"), "player dice 0-2"),
        (_with(37, "3"), "cube 3"),
        (_with(38, "2"), "player_may_double 2"),
        (_with(41, "0"), "colour 0"),
        (_with(43, "25"), "home 25 and bar 25"),
        (_with(9, "1"), "16 checkers in play"),  # one more O checker on O's 3 point
        (_with(8, "-1"), "opponent has 16"),  # one more X checker on O's 2 point
        (_with(31, "-1"), "opponent has checkers on its home entry 25"),  # X on O's bar entry
        (_with(6, "1"), "player has checkers on its home entry 0"),  # O on its own home entry
        (_with(47, "1"), "player_on_bar 1 differs"),
        (_with(45, "3"), "player has 15 checkers in play and 3 borne off"),
        (_with(49, "5"), "can_move 5"),
        # numeric fields are ASCII digits with an optional sign, nothing else (no int() leniency)
        (_with(3, "\n3"), r"match_length must be an integer, got '\\n3'"),
        (_with(3, "3\r\n"), r"match_length must be an integer, got '3\\r\\n'"),
        (_with(3, "\x0b3"), r"match_length must be an integer, got '\\x0b3'"),
        (_with(4, "\x1c0"), r"player_score must be an integer, got '\\x1c0'"),
        (_with(37, "1\u2028"), r"cube must be an integer, got '1\\u2028'"),
        (_with(37, " 1"), r"cube must be an integer, got ' 1'"),
        (_with(37, "1_0"), r"cube must be an integer, got '1_0'"),
        (_with(37, "\uff11"), r"cube must be an integer"),  # a fullwidth digit
        # a score is below the match length
        (_with(4, "5"), "score 5-0 in a 3-point match"),
        (_with(5, "3"), "score 0-3 in a 3-point match"),
    ],
)
def test_bad_lines_are_rejected_quoting_them(line, words):
    with pytest.raises(InvalidFibsBoardError, match=words) as info:
        parse_board(line)
    assert repr(line)[1:31] in str(info.value)  # quoted as repr() shows it


def test_not_a_str():
    with pytest.raises(InvalidFibsBoardError, match="must be a str"):
        parse_board(b"board:")


def test_signs_and_unlimited_matches():
    assert parse_board(_with(4, "+2")).player_score == 2
    assert parse_board(_with(7, "-2")) == parse_board(FIBS_EXAMPLE)  # the field already reads -2
    # an unlimited match is written with match length 9999: scores count up below it
    money = parse_board(_with(3, "9999").replace(":9999:0:0:", ":9999:9998:17:"))
    assert (money.match_length, money.player_score, money.opponent_score) == (9999, 9998, 17)
    with pytest.raises(InvalidFibsBoardError, match="score 9999-0 in a 9999-point match"):
        parse_board(_with(3, "9999").replace(":9999:0:0:", ":9999:9999:0:"))


def test_money_session_lines_of_gnubg():
    """GNU Backgammon writes a money session to an external player as match length 0,
    the scores being the points won so far (any size)."""
    money = parse_board(_with(3, "0").replace(":0:0:0:", ":0:12:3:", 1))
    assert (money.match_length, money.player_score, money.opponent_score) == (0, 12, 3)
    assert money.text() == _with(3, "0").replace(":0:0:0:", ":0:12:3:", 1)


@pytest.mark.parametrize("field, value", [("match_length", "abc"), ("match_length", 2.7), ("cube", 2.0),
                                          ("player_score", "1"), ("redoubles", None)])
def test_format_rejects_fields_that_are_not_integers(field, value):
    fb = parse_board(FIBS_EXAMPLE)
    with pytest.raises(InvalidFibsBoardError, match=f"{field} must be an integer, got {value!r}"):
        format_board(fb, **{field: value})
    with pytest.raises(InvalidFibsBoardError, match=f"{field} must be an integer, got {value!r}"):
        format_board(fastgen.STARTING_BOARD, (3, 1), **{field: value})
    assert format_board(fb, **{field: np.int64(1) if field != "redoubles" else 0}).startswith("board:You:")


@pytest.mark.parametrize("fields_, words", [
    (dict(cube=3), "cube 3 is not a power of 2"),
    (dict(cube=0), "cube 0 is not a power of 2"),
    (dict(player_score=5, match_length=3), "score 5-0 in a 3-point match"),
    (dict(match_length=-3), "match length -3 is negative"),
    (dict(player="a:b"), "fields"),
])
def test_format_writes_only_lines_parse_reads(fields_, words):
    fb = parse_board(FIBS_EXAMPLE)
    with pytest.raises(InvalidFibsBoardError, match=words):
        format_board(fb, **fields_)
    with pytest.raises(InvalidFibsBoardError, match=words):
        format_board(fastgen.STARTING_BOARD, (3, 1), **fields_)
    for ok in (dict(cube=1), dict(cube=64), dict(player_score=2)):
        assert parse_board(format_board(fb, **ok)) == dataclasses.replace(fb, **ok)


def test_format_rejects_unknown_fields():
    with pytest.raises(InvalidFibsBoardError, match="unexpected keyword"):
        format_board(fastgen.STARTING_BOARD, (3, 1), bogus=1)


any_board = st.one_of(contact_boards(), bar_boards(), bearoff_boards())
dice = st.tuples(st.integers(1, 6), st.integers(1, 6))


@settings(max_examples=300)
@given(any_board, dice, st.sampled_from([-1, 1]), st.sampled_from([-1, 1]), st.booleans(),
       st.sampled_from([1, 2, 4, 64]), st.integers(1, 25), st.booleans())
def test_round_trip(board, roll, colour, direction, player_on_roll, cube, length, crawford):
    fb = FibsBoard.from_board(
        board, roll, colour=colour, direction=direction, player_on_roll=player_on_roll, cube=cube,
        match_length=length, player_score=length - 1, did_crawford=crawford, player="p1", opponent="gnubg",
    )
    line = format_board(fb)
    again = parse_board(line)
    assert again == fb and again.text() == line
    assert np.array_equal(again.board(), board)
    on_roll = again.board(on_roll=True)
    assert np.array_equal(on_roll, board if player_on_roll else board[::-1])
    assert again.dice == roll
    assert again.player_off + int(board[1].sum()) == 15 and again.opponent_on_bar == board[0, 24]


# Lines GNU Backgammon 1.07 sent to an external player (fastgen serve-external) during a
# 3-point match: it writes 0 in the borne-off and bar count fields whatever the position.
GNUBG_LINES = [
    "board:gnubg:root:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:5:6:5:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1",
    "board:gnubg:root:3:0:0:0:-1:-1:0:0:0:5:0:3:0:0:0:-5:6:0:0:0:-2:0:-3:0:-1:0:-2:0:1:1:1:5:1:5:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1",
]


def test_gnubg_lines():
    opening = parse_board(GNUBG_LINES[0] + "\r\n")
    assert np.array_equal(opening.board(on_roll=True), fastgen.STARTING_BOARD) and opening.dice == (6, 5)
    assert opening.redoubles == 1 and opening.player_dice == opening.opponent_dice
    barred = parse_board(GNUBG_LINES[1])
    b = barred.board(on_roll=True)
    assert b[1, 24] == 1 and barred.player_on_bar == 0  # the checker on the bar, the count field 0
    assert b.sum() == 30 and barred.text() == GNUBG_LINES[1]
    assert len(fastgen.legal_plays(b, barred.dice)) >= 1
