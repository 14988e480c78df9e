"""FIBS ``board:`` lines: the position format of FIBS clients and GNU Backgammon's
external-player protocol.

A line is 53 colon-separated fields::

    board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0

``board``, the player's and the opponent's names, the match length (9999: unlimited)
and both scores, the 26 board entries (index 0 and 25 are the bars; O's checkers
positive, X's negative), whose turn it is (-1 X, 1 O, 0 game over), the player's and the
opponent's dice, the cube value, whether the player and the opponent may double, whether
the opponent has just doubled, the player's colour (-1 X, 1 O) and direction (-1: the
player moves from point 24 to point 1, so the player's point p is entry p; 1: from 1 to
24, entry 25 - p), the player's home and bar entries (0 and 25 for direction -1, else 25
and 0), the checkers each side has borne off and has on the bar, how many checkers the
player can move, the forced-move flag, the Crawford flag and the number of redoubles.

:func:`parse_board` reads a line into a :class:`FibsBoard` (every field checked),
:func:`format_board` writes one, and :meth:`FibsBoard.board` /
:meth:`FibsBoard.from_board` convert to and from fastgen's (2, 25) board (the player in
row 1).

>>> fb = parse_board("board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0")
>>> fb.player, fb.match_length, fb.on_roll, fb.dice
('You', 3, 'player', (6, 2))
>>> import fastgen
>>> bool((fb.board() == fastgen.STARTING_BOARD).all())
True
>>> format_board(fb) == fb.text()
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from fastgen.core.boards import as_board, as_dice
from fastgen.errors import InvalidBoardError, InvalidDiceError, InvalidFibsBoardError
from fastgen._typing import ArrayLike, Int8Array

__all__ = ["FibsBoard", "parse_board", "format_board", "UNLIMITED", "MONEY"]

#: The match length FIBS writes for an unlimited match (money play).
UNLIMITED = 9999
#: The match length GNU Backgammon writes to an external player in a money session.
MONEY = 0

_N_FIELDS = 53
_MAX_SHOWN = 200  # characters of a bad line quoted in an error


def _quote(text: str) -> str:
    return repr(text if len(text) <= _MAX_SHOWN else text[:_MAX_SHOWN] + "...")


@dataclass(frozen=True)
class FibsBoard:
    """Every field of a FIBS ``board:`` line (see the module docstring for their order).

    ``points`` holds the 26 board entries as written (O positive, X negative); the
    flags are bools; ``player_dice`` and ``opponent_dice`` are pairs, (0, 0) when not
    rolled.
    """

    player: str
    opponent: str
    match_length: int
    player_score: int
    opponent_score: int
    points: tuple[int, ...]
    turn: int
    player_dice: tuple[int, int]
    opponent_dice: tuple[int, int]
    cube: int
    player_may_double: bool
    opponent_may_double: bool
    was_doubled: bool
    colour: int
    direction: int
    home: int
    bar: int
    player_off: int
    opponent_off: int
    player_on_bar: int
    opponent_on_bar: int
    can_move: int
    forced_move: bool
    did_crawford: bool
    redoubles: int

    @property
    def on_roll(self) -> str | None:
        """``"player"``, ``"opponent"``, or None when the game is over (turn 0)."""
        if self.turn == 0:
            return None
        return "player" if self.turn == self.colour else "opponent"

    @property
    def dice(self) -> tuple[int, int]:
        """The dice of the side on roll ((0, 0) when it has not rolled or the game is over)."""
        return self.player_dice if self.on_roll == "player" else self.opponent_dice if self.on_roll else (0, 0)

    def _entry(self, point: int) -> int:
        """The board entry of the player's point *point* (0..25, 25 = the player's bar)."""
        return point if self.direction == -1 else 25 - point

    def board(self, *, on_roll: bool = False) -> Int8Array:
        """The position as a fastgen (2, 25) int8 board with the player in row 1 (or, with
        *on_roll*, the side on roll in row 1, as move generation wants it)."""
        out = np.zeros((2, 25), dtype=np.int8)
        for p in range(1, 26):
            mine = self.points[self._entry(p)] * self.colour
            theirs = -self.points[self._entry(25 - p)] * self.colour
            out[1, p - 1] = max(mine, 0)
            out[0, p - 1] = max(theirs, 0)
        if on_roll and self.on_roll == "opponent":
            out = out[::-1].copy()
        return out

    @classmethod
    def from_board(
        cls,
        board: ArrayLike,
        dice: Any = (0, 0),
        *,
        player_on_roll: bool = True,
        player: str = "You",
        opponent: str = "opponent",
        match_length: int = UNLIMITED,
        player_score: int = 0,
        opponent_score: int = 0,
        colour: int = 1,
        direction: int = -1,
        cube: int = 1,
        player_may_double: bool = False,
        opponent_may_double: bool = False,
        was_doubled: bool = False,
        did_crawford: bool = False,
        redoubles: int = 0,
    ) -> "FibsBoard":
        """The FIBS fields of fastgen *board* (the player in row 1) with *dice* rolled by
        the side on roll (the player unless *player_on_roll* is false); ``can_move`` is the
        number of checkers the roll lets the player move (as FIBS reports: 4 for a double,
        else 2) when the player is on roll with dice, else 0."""
        arr = as_board(board)
        d = (0, 0) if tuple(dice) == (0, 0) else as_dice(dice)
        if colour not in (-1, 1) or direction not in (-1, 1):
            raise InvalidFibsBoardError(f"colour and direction must be -1 or 1, got {colour!r}, {direction!r}")
        points = [0] * 26
        for p in range(1, 26):
            mine, theirs = int(arr[1, p - 1]), int(arr[0, p - 1])
            e_mine = p if direction == -1 else 25 - p
            e_theirs = 25 - e_mine
            points[e_mine] += mine * colour
            points[e_theirs] -= theirs * colour
        turn = colour if player_on_roll else -colour
        can_move = (4 if d[0] == d[1] else 2) if player_on_roll and d != (0, 0) else 0
        fb = cls(
            player=player,
            opponent=opponent,
            match_length=match_length,
            player_score=player_score,
            opponent_score=opponent_score,
            points=tuple(points),
            turn=turn,
            player_dice=d if player_on_roll else (0, 0),
            opponent_dice=(0, 0) if player_on_roll else d,
            cube=cube,
            player_may_double=bool(player_may_double),
            opponent_may_double=bool(opponent_may_double),
            was_doubled=bool(was_doubled),
            colour=colour,
            direction=direction,
            home=0 if direction == -1 else 25,
            bar=25 if direction == -1 else 0,
            player_off=15 - int(arr[1].sum()),
            opponent_off=15 - int(arr[0].sum()),
            player_on_bar=int(arr[1, 24]),
            opponent_on_bar=int(arr[0, 24]),
            can_move=can_move,
            forced_move=False,
            did_crawford=bool(did_crawford),
            redoubles=redoubles,
        )
        return parse_board(fb.text())  # every field checked once, in one place

    def text(self) -> str:
        """The FIBS ``board:`` line (no line ending)."""
        return format_board(self)


#: A numeric field: ASCII digits (at most 6) with an optional sign, nothing around them.
_INT_RE = re.compile(r"[+-]?[0-9]{1,6}", re.ASCII)


def _int(field: str, name: str, text: str) -> int:
    if not _INT_RE.fullmatch(field):
        raise InvalidFibsBoardError(f"FIBS board {name} must be an integer, got {field!r} in {_quote(text)}")
    return int(field)


def _check(ok: bool, what: str, text: str) -> None:
    if not ok:
        raise InvalidFibsBoardError(f"FIBS board line {_quote(text)}: {what}")


def parse_board(text: str) -> FibsBoard:
    """Read a FIBS ``board:`` line (a trailing line ending is allowed).

    Raises :class:`~fastgen.errors.InvalidFibsBoardError` quoting the line when a field is
    missing, not a number (ASCII digits with an optional sign, nothing else), out of
    range (a score at or above the match length; an unlimited match is written as
    :data:`UNLIMITED`, 9999, and GNU Backgammon writes a money session as match length
    :data:`MONEY`, 0, its scores the points won so far), or the position is impossible (a side with
    other than 15 checkers on the board, on the bar and borne off together, a bar count
    that disagrees with the bar entry, a checker on a
    side's own home entry). The borne-off and bar counts may also be 0 whatever the
    position: GNU Backgammon's external-player lines always write 0 there.

    >>> parse_board("board:a:b:1")
    Traceback (most recent call last):
    ...
    fastgen.errors.InvalidFibsBoardError: FIBS board line 'board:a:b:1': 4 fields, a board line has 53
    """
    if not isinstance(text, str):
        raise InvalidFibsBoardError(f"a FIBS board line must be a str, got {text!r}")
    line = text.rstrip("\r\n")
    parts = line.split(":")
    _check(len(parts) == _N_FIELDS, f"{len(parts)} fields, a board line has {_N_FIELDS}", line)
    _check(parts[0] == "board", f"starts with {parts[0]!r}, not 'board'", line)
    for name, value in (("player", parts[1]), ("opponent", parts[2])):
        _check(
            value != "" and value.isprintable() and value == value.strip(),
            f"the {name} name {value!r} must be non-empty printable text",
            line,
        )
    names = (
        ["match_length", "player_score", "opponent_score"]
        + [f"point {i}" for i in range(26)]
        + ["turn", "player die 1", "player die 2", "opponent die 1", "opponent die 2", "cube",
           "player_may_double", "opponent_may_double", "was_doubled", "colour", "direction", "home",
           "bar", "player_off", "opponent_off", "player_on_bar", "opponent_on_bar", "can_move",
           "forced_move", "did_crawford", "redoubles"]
    )
    v = [_int(f, n, line) for f, n in zip(parts[3:], names)]
    length, s_me, s_opp = v[0:3]
    points = tuple(v[3:29])
    (turn, pd1, pd2, od1, od2, cube, me_dbl, opp_dbl, doubled, colour, direction, home, bar,
     me_off, opp_off, me_bar, opp_bar, can_move, forced, crawford, redoubles) = v[29:50]
    _check(length >= 0, f"match length {length} is negative", line)
    _check(s_me >= 0 and s_opp >= 0, f"negative score {s_me}, {s_opp}", line)
    _check(length == MONEY or (s_me < length and s_opp < length),
           f"score {s_me}-{s_opp} in a {length}-point match: a score is below the match length", line)
    _check(turn in (-1, 0, 1), f"turn {turn} is not -1, 0 or 1", line)
    for who, (a, b) in (("player", (pd1, pd2)), ("opponent", (od1, od2))):
        _check((a, b) == (0, 0) or (1 <= a <= 6 and 1 <= b <= 6), f"{who} dice {a}-{b} are not 0-0 or 1..6", line)
    _check(cube >= 1 and cube & (cube - 1) == 0, f"cube {cube} is not a power of 2", line)
    for name, flag in (("player_may_double", me_dbl), ("opponent_may_double", opp_dbl), ("was_doubled", doubled),
                       ("forced_move", forced), ("did_crawford", crawford)):
        _check(flag in (0, 1), f"{name} {flag} is not 0 or 1", line)
    _check(colour in (-1, 1), f"colour {colour} is not -1 or 1", line)
    _check(direction in (-1, 1), f"direction {direction} is not -1 or 1", line)
    want_home, want_bar = (0, 25) if direction == -1 else (25, 0)
    _check((home, bar) == (want_home, want_bar),
           f"home {home} and bar {bar} do not fit direction {direction} (home {want_home}, bar {want_bar})", line)
    _check(0 <= can_move <= 4, f"can_move {can_move} is not 0..4", line)
    _check(redoubles >= 0, f"redoubles {redoubles} is negative", line)
    mine = [max(p * colour, 0) for p in points]
    theirs = [max(-p * colour, 0) for p in points]
    _check(mine[home] == 0, f"the player has checkers on its home entry {home}", line)
    _check(theirs[bar] == 0, f"the opponent has checkers on its home entry {bar}", line)
    # GNU Backgammon writes 0 in the four count fields whatever the position: a count
    # must agree with the board, or be 0.
    _check(me_bar in (mine[bar], 0), f"player_on_bar {me_bar} differs from the {mine[bar]} checkers at entry {bar}", line)
    _check(opp_bar in (theirs[home], 0),
           f"opponent_on_bar {opp_bar} differs from the {theirs[home]} checkers at entry {home}", line)
    for who, side, off in (("player", mine, me_off), ("opponent", theirs, opp_off)):
        _check(sum(side) <= 15 and off in (15 - sum(side), 0),
               f"the {who} has {sum(side)} checkers in play and {off} borne off, not 15", line)
    return FibsBoard(
        player=parts[1],
        opponent=parts[2],
        match_length=length,
        player_score=s_me,
        opponent_score=s_opp,
        points=points,
        turn=turn,
        player_dice=(pd1, pd2),
        opponent_dice=(od1, od2),
        cube=cube,
        player_may_double=bool(me_dbl),
        opponent_may_double=bool(opp_dbl),
        was_doubled=bool(doubled),
        colour=colour,
        direction=direction,
        home=home,
        bar=bar,
        player_off=me_off,
        opponent_off=opp_off,
        player_on_bar=me_bar,
        opponent_on_bar=opp_bar,
        can_move=can_move,
        forced_move=bool(forced),
        did_crawford=bool(crawford),
        redoubles=redoubles,
    )


def format_board(board: FibsBoard | ArrayLike, dice: Any = (0, 0), **fields_: Any) -> str:
    """The FIBS ``board:`` line of a :class:`FibsBoard`, or of a fastgen (2, 25) *board*
    (the player in row 1) with *dice* and the keyword fields of
    :meth:`FibsBoard.from_board`. Keyword fields given with a FibsBoard replace its own.

    The line is checked as :func:`parse_board` checks one, so what is written reads
    back: InvalidFibsBoardError quoting a field that is not an integer (a float, a
    string) or a line that breaks a rule (a cube that is not a power of two, a score at
    or above the match length).

    >>> import fastgen
    >>> format_board(fastgen.STARTING_BOARD, (3, 1), player="You", opponent="gnubg")[:40]
    'board:You:gnubg:9999:0:0:0:-2:0:0:0:0:5:'
    """
    if isinstance(board, FibsBoard):
        fb = replace(board, **fields_) if fields_ else board
    else:
        try:
            fb = FibsBoard.from_board(board, dice, **fields_)
        except TypeError as exc:  # an unknown keyword
            raise InvalidFibsBoardError(f"format_board: {exc}") from None
        except (InvalidBoardError, InvalidDiceError):
            raise
    for name in ("player", "opponent"):
        if not isinstance(getattr(fb, name), str):
            raise InvalidFibsBoardError(f"FIBS board {name} must be a str, got {getattr(fb, name)!r}")
    out = ["board", fb.player, fb.opponent]
    for f in fields(FibsBoard)[2:]:
        value = getattr(fb, f.name)
        for x in value if isinstance(value, tuple) else (value,):
            out.append(_field_text(x, f.name))
    line = ":".join(out)
    parse_board(line)  # every field checked, as for a line read: what is written reads back
    return line


def _field_text(value: Any, name: str) -> str:
    """The text of a numeric field: an int (a bool for a flag, a numpy integer), never
    a float or a string, which int() would round or read."""
    if isinstance(value, (bool, np.bool_)):
        return str(int(value))
    if not isinstance(value, (int, np.integer)):
        raise InvalidFibsBoardError(f"FIBS board {name} must be an integer, got {value!r}")
    return str(int(value))
