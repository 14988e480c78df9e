"""Hypothesis fuzzing of the text parsers: Position ID, Match ID, XGID and move text.

Each parser is fed arbitrary text, text over its own alphabet, and valid inputs with a
few characters changed. It may only return a value that round-trips or raise its own
fastgen error (a ValueError subclass); anything else (TypeError, IndexError, a plain
ValueError, a hang) fails. The number of examples comes from the profile in conftest.py
(derandomized in CI). A coverage-guided harness for the same parsers and read_mat is in
tests/fuzz/ (atheris, not run by the tests).
"""

from __future__ import annotations

import dataclasses
import string

from hypothesis import given, strategies as st

import fastgen
from fastgen import IllegalPlayError, InvalidMoveTextError, MatchState
from fastgen.errors import AmbiguousMoveError, InvalidMatchIDError, InvalidPositionIDError, InvalidXGIDError
from fastgen.core.notation import parse_move_text

from strategies import positions

B64 = string.ascii_letters + string.digits + "+/"
ODD = "\x00 \t\n/*()-:=,.\u00a0\uff10\uff15\u0665²٣éß"  # separators, NUL, Unicode digits and spaces
MOVE_ALPHABET = "0123456789 /*(),barofBAROF" + ODD


def mutate(text: str, data) -> str:
    """*text* with up to three characters replaced, inserted or deleted."""
    chars = list(text)
    for _ in range(data.draw(st.integers(0, 3))):
        kind = data.draw(st.sampled_from(["replace", "insert", "delete"]))
        i = data.draw(st.integers(0, len(chars)))
        c = data.draw(st.sampled_from(B64 + MOVE_ALPHABET))
        if kind == "insert":
            chars.insert(i, c)
        elif chars and kind == "replace":
            chars[min(i, len(chars) - 1)] = c
        elif chars:
            del chars[min(i, len(chars) - 1)]
    return "".join(chars)


# --------------------------------------------------------------------------- Position ID


def _check_pid(pid):
    try:
        board = fastgen.parse_position_id(pid)
    except InvalidPositionIDError as exc:
        assert repr(pid) in str(exc)
        return
    assert fastgen.position_id(board) == pid  # only canonical IDs are accepted


@given(st.text(max_size=40))
def test_position_id_any_text(text):
    _check_pid(text)


@given(st.text(alphabet=B64 + ODD, min_size=12, max_size=16))
def test_position_id_near_alphabet(text):
    _check_pid(text)


@given(positions, st.data())
def test_position_id_mutated(position, data):
    board, _ = position
    _check_pid(mutate(fastgen.position_id(board), data))


# --------------------------------------------------------------------------- Match ID


def _check_mid(mid):
    try:
        state = fastgen.parse_match_id(mid)
    except InvalidMatchIDError as exc:
        assert repr(mid) in str(exc)
        return
    assert isinstance(state, MatchState)
    # match_id writes the larger die first, so compare up to the order of the dice.
    again = fastgen.parse_match_id(fastgen.match_id(state))
    assert again == dataclasses.replace(state, dice=tuple(sorted(state.dice, reverse=True)))


@given(st.text(max_size=30))
def test_match_id_any_text(text):
    _check_mid(text)


@given(st.text(alphabet=B64, min_size=12, max_size=12))
def test_match_id_any_twelve_base64_characters(text):
    _check_mid(text)


@given(st.data())
def test_match_id_mutated(data):
    _check_mid(mutate("QYkqASAAIAAA", data))


@given(st.text(max_size=40), st.data())
def test_gnubg_id_pairs(text, data):
    for candidate in (text, mutate("4HPwATDgc/ABMA:cAkAAAAAAAAE", data)):
        try:
            board, state = fastgen.parse_gnubg_id(candidate)
        except InvalidMatchIDError:
            continue
        again = fastgen.parse_gnubg_id(fastgen.gnubg_id(board, state))
        assert (again[0] == board).all()
        assert again[1] == dataclasses.replace(state, dice=tuple(sorted(state.dice, reverse=True)))


# --------------------------------------------------------------------------- XGID

XG = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


def _check_xgid(text):
    try:
        board, state = fastgen.parse_xgid(text)
    except InvalidXGIDError as exc:
        assert repr(text) in str(exc)
        return
    again, state2 = fastgen.parse_xgid(fastgen.xgid(board, state))
    assert (again == board).all()


@given(st.text(max_size=80))
def test_xgid_any_text(text):
    _check_xgid(text)


@given(st.data())
def test_xgid_mutated(data):
    _check_xgid(mutate(XG, data))


@given(positions, st.integers(0, 15), st.integers(0, 9), st.data())
def test_xgid_of_random_positions_mutated(position, cube, length, data):
    board, dice = position
    state = MatchState(cube_value=1 << cube, match_length=length, dice=dice)
    text = fastgen.xgid(board, state)
    back, back_state = fastgen.parse_xgid(text)
    assert (back == board).all() and back_state.cube_value == state.cube_value
    _check_xgid(mutate(text, data))


# --------------------------------------------------------------------------- move text


def _check_move_text(text):
    try:
        moves = parse_move_text(text)
    except InvalidMoveTextError:
        return
    assert sum(len(points) - 1 for points, _ in moves) <= 4
    for points, stars in moves:
        assert all(0 <= p <= 25 for p in points) and stars <= set(points)


@given(st.text(max_size=60))
def test_move_text_any_text(text):
    _check_move_text(text)


@given(st.text(alphabet=MOVE_ALPHABET, max_size=40))
def test_move_text_near_alphabet(text):
    _check_move_text(text)


@given(positions, st.data())
def test_parse_play_of_mutated_legal_texts(position, data):
    board, dice = position
    plays = fastgen.legal_plays(board, dice)
    play = plays[data.draw(st.integers(0, len(plays) - 1))]
    assert fastgen.parse_play(board, dice, str(play), plays=plays) == play  # round trip
    text = mutate(str(play), data)
    try:
        found = fastgen.parse_play(board, dice, text, plays=plays)
    except (InvalidMoveTextError, AmbiguousMoveError, IllegalPlayError) as exc:
        assert isinstance(exc, ValueError) and repr(text) in str(exc)
        return
    assert found in plays


@given(positions, st.text(alphabet=MOVE_ALPHABET, max_size=30))
def test_check_play_of_random_texts(position, text):
    board, dice = position
    try:
        found = fastgen.check_play(board, dice, text)
    except (InvalidMoveTextError, AmbiguousMoveError, IllegalPlayError):
        return
    assert found in fastgen.legal_plays(board, dice)
