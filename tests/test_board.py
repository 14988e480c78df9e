"""The people's Board (fastgen.games.board): constructors, push/pop/peek, IDs, diagram."""

from __future__ import annotations

import random

import numpy as np
import pytest

import fastgen
from fastgen.games.board import Board
from fastgen.errors import IllegalPlayError, InvalidBoardError, InvalidDiceError, InvalidPositionIDError, InvalidXGIDError
from fastgen.core.ids import parse_xgid

from _positions import random_board

START = fastgen.STARTING_BOARD


def test_constructors_agree():
    assert Board() == Board(START) == Board.from_position_id("4HPwATDgc/ABMA")
    assert Board.from_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10") == Board()
    assert Board().pip_count() == (167, 167)  # R3
    assert Board().borne_off() == (0, 0)


def test_bad_input():
    with pytest.raises(InvalidBoardError):
        Board(np.zeros((2, 24), dtype=np.int8))
    with pytest.raises(InvalidPositionIDError):
        Board.from_position_id("nope")
    with pytest.raises(InvalidXGIDError):
        Board.from_xgid("XGID=nope")


def test_push_pop_peek():
    board = Board()
    board.push("8/5 6/5", (3, 1))
    assert str(board.peek()) == "8/5 6/5"
    assert board.pip_count() == (167, 163)  # the other side is on roll now
    assert board.array[0, 4] == 2  # my 5 point is row 0 now
    board.push("24/13", (6, 5))
    assert [str(p) for p in board.move_stack] == ["8/5 6/5", "24/13"]
    assert str(board.pop()) == "24/13"
    assert str(board.pop()) == "8/5 6/5"
    assert board == Board()
    with pytest.raises(IndexError):
        board.pop()


def test_push_play_object_and_hit():
    board = Board()
    board.push("24/18 13/11", (6, 2))  # leaves blots
    plays = board.legal_plays((6, 1))
    hit = next(p for p in plays if "*" in str(p))
    board.push(hit)
    assert board.array[1, 24] >= 1  # the first side has a checker on the bar now
    assert board.peek() == hit


def test_illegal_push_leaves_board_unchanged():
    board = Board()
    with pytest.raises(IllegalPlayError):
        board.push("24/18", (6, 5))
    assert board == Board() and board.move_stack == []
    with pytest.raises(InvalidDiceError):
        board.push("24/18")


def test_state_follows_the_turn():
    board = Board.from_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:7:10")
    board.push("8/5 6/5")  # dice from the state
    assert board.state.on_roll == 0 and board.state.dice == (0, 0)
    assert board.xgid().startswith("XGID=") and ":-1:00:" in board.xgid()
    again, state = parse_xgid(board.xgid())
    assert (again == board.array).all()


def test_random_game_push_pop_round_trip():
    rng = random.Random(9)
    board = Board()
    history = [board.array.copy()]
    for _ in range(60):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        plays = board.legal_plays(dice)
        board.push(plays[rng.randrange(len(plays))])
        history.append(board.array.copy())
        if not board.array[0].any():  # the side that just moved has borne off all
            break
    while board.move_stack:
        assert (board.array == history.pop()).all()
        board.pop()
    assert board == Board()


def test_repr_is_runnable_and_str_is_a_diagram():
    rng = random.Random(10)
    for _ in range(50):
        board = Board(random_board(rng))
        assert eval(repr(board), {"Board": Board}) == board
        text = str(board)
        assert text.count("\n") == 14
        assert f"X: {board.pip_count()[0]} pips" in text
        assert f"O: {board.pip_count()[1]} pips" in text


def test_position_id_and_xgid():
    board = Board()
    assert board.position_id() == "4HPwATDgc/ABMA"
    assert board.xgid() == "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    assert hash(board) == hash(Board())


def test_array_is_read_only():
    with pytest.raises(ValueError):
        Board().array[0, 0] = 1
