"""Interchange IDs: GNU Backgammon Position ID and Match ID, and eXtreme Gammon's XGID.

Position ID: 14 base64 characters holding 80 bits. For each side, row 0 (the side *not*
on roll) first, then row 1, for each index 0..24 of that row: as many 1 bits as
checkers, then one 0 bit. Bits fill each byte from its least significant bit; the 10
bytes are base64-encoded and the two padding characters dropped.

Match ID (GNU Backgammon manual, "A technical description of the Match ID"): 12 base64
characters holding a 9-byte key, bits numbered from the least significant bit of byte 0:

====== ===== ====================================================================
bits   width field
====== ===== ====================================================================
0-3    4     log2 of the cube value
4-5    2     cube owner: 0 / 1 = player 0 / 1, 3 = centred
6      1     player on roll, or who did roll (the dice owner)
7      1     Crawford game
8-10   3     game state: 0 none, 1 playing, 2 over, 3 resigned, 4 dropped cube
11     1     turn: the player who must act now (the taker when a double is offered)
12     1     a double is offered
13-14  2     resignation offered: 0 none, 1 single, 2 gammon, 3 backgammon
15-17  3     first die (the larger), 0 if not rolled
18-20  3     second die
21-35  15    match length, 0 for money
36-50  15    score of player 0
51-65  15    score of player 1
66     1     set when the Jacoby rule is *off* (gnubg's matchid.c; not in the manual)
====== ===== ====================================================================

The combined form is ``PositionID:MatchID``; the Position ID shows the board from the
side of the player on roll (bit 6), like fastgen's canonical board.

XGID (eXtreme Gammon): ``XGID=pppp...:cube:owner:turn:dice:score_bottom:score_top:
crawford_jacoby:length:max_cube``. The 26-character position is seen from the *bottom*
player: character 0 is the top player's bar, 1..24 the bottom player's points 1..24,
25 the bottom player's bar; ``A``..``O`` are that many bottom checkers, ``a``..``o`` top
checkers, ``-`` an empty point. ``cube`` and ``max_cube`` are log2 values, ``owner`` and
``turn`` are 1 (bottom), -1 (top) or 0 (centred cube), ``dice`` is two digits or ``00``
(to roll) or ``D`` (doubled; ``B``/``R`` beaver/raccoon are read as doubled),
``crawford_jacoby`` is the Crawford flag in a match and Jacoby (1) + beaver (2) in money
play, ``length`` 0 means money. fastgen maps gnubg's player 1 to XG's bottom player (both
programs draw their user at the bottom) and player 0 to the top, whoever is on roll; the
board returned is still seen from the side on roll. (GNU Backgammon's own ``set xgid``
command instead names the side on roll player 1, and drops a Crawford flag when nobody is
1-away and the scores of a money game: the same situation, labelled differently.)
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import cast

import numpy as np

from fastgen._compat import deprecated
from fastgen.core.boards import as_board
from fastgen.core.state import GameState, MatchState, Resignation
from fastgen.errors import (
    InvalidBoardError,
    InvalidMatchIDError,
    InvalidMatchStateError,
    InvalidPositionIDError,
    InvalidXGIDError,
)
from fastgen._typing import ArrayLike, Int8Array

__all__ = [
    "position_id",
    "parse_position_id",
    "match_id",
    "parse_match_id",
    "gnubg_id",
    "parse_gnubg_id",
    "xgid",
    "parse_xgid",
]

_PID_RE = re.compile(r"[A-Za-z0-9+/]{14}\Z")


def position_id(board: ArrayLike) -> str:
    """Return the 14-character GNU Backgammon Position ID of *board*.

    >>> from fastgen import STARTING_BOARD
    >>> position_id(STARTING_BOARD)
    '4HPwATDgc/ABMA'
    """
    arr = as_board(board)
    key = 0
    nbits = 0
    for row in (0, 1):
        for count in arr[row].tolist():
            key |= ((1 << count) - 1) << nbits  # `count` one bits ...
            nbits += count + 1  # ... then a zero bit
    return base64.b64encode(key.to_bytes(10, "little")).decode("ascii")[:14]


def parse_position_id(text: str) -> Int8Array:
    """Decode a Position ID into a (2, 25) int8 board; the inverse of :func:`position_id`.

    Raises :class:`InvalidPositionIDError` quoting *text* when it is not 14 base64
    characters or does not encode a valid position.

    >>> parse_position_id('4HPwATDgc/ABMA')[1, :].tolist()[:8]
    [0, 0, 0, 0, 0, 5, 0, 3]
    """
    if not isinstance(text, str) or not _PID_RE.match(text):
        raise InvalidPositionIDError(
            f"a Position ID is 14 base64 characters (A-Z a-z 0-9 + /), got {text!r}"
        )
    if text[-1] not in "AQgw":  # 14 characters carry 84 bits: the last 4 must be zero
        raise InvalidPositionIDError(
            f"Position ID {text!r} is not canonical: its last character sets bits past the 80 it holds"
        )
    try:
        raw = base64.b64decode(text + "==", validate=True)
    except (binascii.Error, ValueError):  # pragma: no cover - the regex already guards this
        raise InvalidPositionIDError(f"Position ID {text!r} is not valid base64") from None
    key = int.from_bytes(raw, "little")
    board = np.zeros((2, 25), dtype=np.int8)
    bit = 0
    for row in (0, 1):
        for index in range(25):
            count = 0
            while bit < 80 and (key >> bit) & 1:
                count += 1
                bit += 1
            if bit >= 80 or count > 15:
                raise InvalidPositionIDError(
                    f"Position ID {text!r} does not encode a position (too many checkers)"
                )
            board[row, index] = count
            bit += 1  # the terminating zero bit
    if key >> bit:
        raise InvalidPositionIDError(f"Position ID {text!r} has stray bits after the position")
    try:
        return as_board(board)
    except InvalidBoardError as exc:
        raise InvalidPositionIDError(f"Position ID {text!r} encodes an invalid position: {exc}") from None


# --------------------------------------------------------------------------- Match ID


def _set_bits(key: int, start: int, width: int, value: int) -> int:
    return key | ((value & ((1 << width) - 1)) << start)


def _get_bits(key: int, start: int, width: int) -> int:
    return (key >> start) & ((1 << width) - 1)


def match_id(state: MatchState) -> str:
    """The 12-character GNU Backgammon Match ID of *state*.

    >>> match_id(MatchState(cube_value=2, cube_owner=0, on_roll=1, dice=(5, 2),
    ...                     match_length=9, score=(2, 4), jacoby=True))
    'QYkqASAAIAAA'
    """
    if not isinstance(state, MatchState):
        raise InvalidMatchStateError(f"match_id needs a MatchState, got {state!r}")
    high, low = max(state.dice), min(state.dice)
    key = 0
    key = _set_bits(key, 0, 4, state.cube_value.bit_length() - 1)
    key = _set_bits(key, 4, 2, 3 if state.cube_owner is None else state.cube_owner)
    key = _set_bits(key, 6, 1, state.on_roll)
    key = _set_bits(key, 7, 1, state.crawford)
    key = _set_bits(key, 8, 3, int(state.game_state))
    key = _set_bits(key, 11, 1, state.on_roll if state.turn is None else state.turn)
    key = _set_bits(key, 12, 1, state.doubled)
    key = _set_bits(key, 13, 2, int(state.resigned))
    key = _set_bits(key, 15, 3, high)
    key = _set_bits(key, 18, 3, low)
    key = _set_bits(key, 21, 15, state.match_length)
    key = _set_bits(key, 36, 15, state.score[0])
    key = _set_bits(key, 51, 15, state.score[1])
    key = _set_bits(key, 66, 1, not state.jacoby)
    return base64.b64encode(key.to_bytes(9, "little")).decode("ascii")


_MID_RE = re.compile(r"[A-Za-z0-9+/]{12}\Z")


def parse_match_id(text: str) -> MatchState:
    """Decode a Match ID; the inverse of :func:`match_id`.

    Raises :class:`InvalidMatchIDError` quoting *text* when it is not 12 base64
    characters or holds impossible values (a die of 7, cube owner 2, both scores at or
    past the match length, a Crawford money game, stray bits). A finished match's ID (one
    score past the length, as gnubg writes after the last game) is valid.

    >>> s = parse_match_id('QYkqASAAIAAA')   # the gnubg manual's example
    >>> s.cube_value, s.cube_owner, s.on_roll, s.dice, s.match_length, s.score
    (2, 0, 1, (5, 2), 9, (2, 4))
    """
    if not isinstance(text, str) or not _MID_RE.match(text):
        raise InvalidMatchIDError(f"a Match ID is 12 base64 characters (A-Z a-z 0-9 + /), got {text!r}")
    key = int.from_bytes(base64.b64decode(text), "little")
    owner = _get_bits(key, 4, 2)
    if owner == 2:
        raise InvalidMatchIDError(f"Match ID {text!r} has cube owner code 2 (only 0, 1, 3 exist)")
    if key >> 67:
        raise InvalidMatchIDError(f"Match ID {text!r} has stray bits after bit 66")
    dice = (_get_bits(key, 15, 3), _get_bits(key, 18, 3))
    try:
        return MatchState(
            cube_value=1 << _get_bits(key, 0, 4),
            cube_owner=None if owner == 3 else owner,
            on_roll=_get_bits(key, 6, 1),
            crawford=bool(_get_bits(key, 7, 1)),
            # Plain ints: MatchState checks them (5..7 are not states) and makes them enums.
            game_state=cast(GameState, _get_bits(key, 8, 3)),
            turn=_get_bits(key, 11, 1),
            doubled=bool(_get_bits(key, 12, 1)),
            resigned=cast(Resignation, _get_bits(key, 13, 2)),
            dice=dice,
            match_length=_get_bits(key, 21, 15),
            score=(_get_bits(key, 36, 15), _get_bits(key, 51, 15)),
            jacoby=not _get_bits(key, 66, 1),
        )
    except InvalidMatchStateError as exc:
        raise InvalidMatchIDError(f"Match ID {text!r} does not encode a valid match state: {exc}") from None


def gnubg_id(board: ArrayLike, state: MatchState) -> str:
    """The combined GNU Backgammon ID ``PositionID:MatchID``.

    >>> from fastgen import STARTING_BOARD
    >>> gnubg_id(STARTING_BOARD, MatchState())
    '4HPwATDgc/ABMA:cAkAAAAAAAAE'
    """
    return f"{position_id(board)}:{match_id(state)}"


def parse_gnubg_id(text: str) -> tuple[Int8Array, MatchState]:
    """Split and decode ``PositionID:MatchID`` into ``(board, MatchState)``.

    >>> board, state = parse_gnubg_id('4HPwATDgc/ABMA:cAgAAAAAAAAA')
    >>> state.on_roll, state.game_state.name, state.jacoby
    (1, 'NONE', True)
    """
    if not isinstance(text, str) or text.strip().count(":") != 1:
        raise InvalidMatchIDError(f"a GNU Backgammon ID is 'PositionID:MatchID', got {text!r}")
    pid, mid = text.strip().split(":")
    try:
        board = parse_position_id(pid)
    except InvalidPositionIDError as exc:
        raise InvalidMatchIDError(f"bad Position ID in {text!r}: {exc}") from None
    try:
        state = parse_match_id(mid)
    except InvalidMatchIDError as exc:
        raise InvalidMatchIDError(f"bad Match ID in {text!r}: {exc}") from None
    return board, state


# --------------------------------------------------------------------------- XGID

_XG_OPPONENT = {1: 0, 0: 1}  # gnubg player -> other player


def _xg_side(player: int) -> int:
    """XGID side code of a gnubg player: 1 = bottom (player 1), -1 = top (player 0)."""
    return 1 if player == 1 else -1


def xgid(board: ArrayLike, state: MatchState | None = None) -> str:
    """The XGID of *board* (row 1 on roll, as always) with *state* (default: money, to roll).

    >>> from fastgen import STARTING_BOARD
    >>> xgid(STARTING_BOARD)
    'XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10'
    """
    arr = as_board(board)
    if state is None:
        state = MatchState()
    if not isinstance(state, MatchState):
        raise InvalidMatchStateError(f"xgid needs a MatchState, got {state!r}")
    # Rows seen from the bottom player (gnubg player 1): (bottom, top).
    bottom, top = (arr[1], arr[0]) if state.on_roll == 1 else (arr[0], arr[1])
    chars = []
    for i in range(26):
        if i == 0:
            n_bottom, n_top = 0, int(top[24])
        elif i == 25:
            n_bottom, n_top = int(bottom[24]), 0
        else:
            n_bottom, n_top = int(bottom[i - 1]), int(top[24 - i])
        chars.append(chr(64 + n_bottom) if n_bottom else chr(96 + n_top) if n_top else "-")
    owner = 0 if state.cube_owner is None else _xg_side(state.cube_owner)
    if state.doubled:
        dice = "D"
    else:
        dice = f"{state.dice[0]}{state.dice[1]}"
    if state.match_length:
        flags = int(state.crawford)
    else:
        flags = int(state.jacoby) | (int(state.beaver) << 1)
    fields = [
        "".join(chars),
        str(state.cube_value.bit_length() - 1),
        str(owner),
        str(_xg_side(state.on_roll)),
        dice,
        str(state.score[1]),
        str(state.score[0]),
        str(flags),
        str(state.match_length),
        str(state.max_cube.bit_length() - 1),
    ]
    return "XGID=" + ":".join(fields)


# ASCII digits only ("\\d" would take fullwidth and other Unicode digits), at most five
# per number (every field fits in 15 bits), so no huge string reaches int().
_XGID_RE = re.compile(
    r"(?:XGID=)?([A-Za-z-]{26}):([0-9]{1,5}):(-?[0-9]{1,5}):(-?[0-9]{1,5}):([0-9][0-9]|[DBR]):"
    r"([0-9]{1,5}):([0-9]{1,5}):([0-9]{1,5}):([0-9]{1,5})(?::([0-9]{1,5}))?\Z",
    re.ASCII,
)


def parse_xgid(text: str) -> tuple[Int8Array, MatchState]:
    """Decode an XGID into ``(board, MatchState)``; the board is seen from the side on roll.

    Raises :class:`InvalidXGIDError` quoting *text* when a field is malformed or the
    position is impossible.

    >>> board, state = parse_xgid('XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10')
    >>> from fastgen import STARTING_BOARD
    >>> bool((board == STARTING_BOARD).all()), state.on_roll, state.match_length
    (True, 1, 0)
    """
    if not isinstance(text, str):
        raise InvalidXGIDError(f"an XGID is a string, got {text!r}")
    match = _XGID_RE.match(text.strip())
    if not match:
        raise InvalidXGIDError(
            "an XGID is 'XGID=<26 position characters>:cube:owner:turn:dice:score:score:"
            f"crawford:length[:max_cube]', got {text!r}"
        )
    pos, cube, owner, turn, dice, s_bottom, s_top, flags, length, max_cube = match.groups()
    bottom = np.zeros(25, dtype=np.int64)
    top = np.zeros(25, dtype=np.int64)
    for i, ch in enumerate(pos):
        if ch == "-":
            continue
        n = ord(ch.lower()) - 96
        if n > 15:
            raise InvalidXGIDError(f"XGID {text!r} puts {n} checkers on one point (at most 15)")
        if ch.isupper():
            if i == 0:
                raise InvalidXGIDError(f"XGID {text!r} puts bottom checkers on the top player's bar")
            bottom[24 if i == 25 else i - 1] = n
        else:
            if i == 25:
                raise InvalidXGIDError(f"XGID {text!r} puts top checkers on the bottom player's bar")
            top[24 if i == 0 else 24 - i] = n
    try:
        owner_code, turn_code = int(owner), int(turn)
        if owner_code not in (-1, 0, 1):
            raise InvalidXGIDError(f"XGID {text!r}: cube owner must be -1, 0 or 1, got {owner}")
        if turn_code not in (-1, 1):
            raise InvalidXGIDError(f"XGID {text!r}: turn must be 1 (bottom) or -1 (top), got {turn}")
        if int(cube) > 15 or (max_cube is not None and int(max_cube) > 15):
            raise InvalidXGIDError(f"XGID {text!r}: cube values are log2 values 0..15")
        on_roll = 1 if turn_code == 1 else 0
        doubled = dice in ("D", "B", "R")
        dice_pair = (0, 0) if doubled else (int(dice[0]), int(dice[1]))
        match_length = int(length)
        flag_bits = int(flags)
        state = MatchState(
            cube_value=1 << int(cube),
            cube_owner=None if owner_code == 0 else (1 if owner_code == 1 else 0),
            on_roll=on_roll,
            turn=_XG_OPPONENT[on_roll] if doubled else on_roll,
            crawford=bool(flag_bits & 1) if match_length else False,
            doubled=doubled,
            dice=dice_pair,
            match_length=match_length,
            score=(int(s_top), int(s_bottom)),
            jacoby=bool(flag_bits & 1) if not match_length else False,
            beaver=bool(flag_bits & 2) if not match_length else False,
            max_cube=1 << int(max_cube) if max_cube is not None else 1024,
        )
    except InvalidMatchStateError as exc:
        raise InvalidXGIDError(f"XGID {text!r} holds an impossible match state: {exc}") from None
    rows = np.stack([top, bottom]) if on_roll == 1 else np.stack([bottom, top])
    try:
        board = as_board(rows.astype(np.int8))
    except InvalidBoardError as exc:
        raise InvalidXGIDError(f"XGID {text!r} encodes an invalid position: {exc}") from None
    return board, state


# --------------------------------------------------------------------------- old names
# Kept for one release: each warns and calls its new name.


def board_from_position_id(pid: str) -> Int8Array:
    """Deprecated name of :func:`parse_position_id`."""
    deprecated("fastgen.core.ids.board_from_position_id", "fastgen.parse_position_id")
    return parse_position_id(pid)


def match_state_from_id(mid: str) -> MatchState:
    """Deprecated name of :func:`parse_match_id`."""
    deprecated("fastgen.core.ids.match_state_from_id", "fastgen.parse_match_id")
    return parse_match_id(mid)


def format_gnubg_id(board: ArrayLike, state: MatchState) -> str:
    """Deprecated name of :func:`gnubg_id`."""
    deprecated("fastgen.core.ids.format_gnubg_id", "fastgen.gnubg_id")
    return gnubg_id(board, state)
