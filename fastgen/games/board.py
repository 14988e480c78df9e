"""A board for people: :class:`Board` with a move stack, IDs and a text diagram.

This is the convenient, checked layer (python-chess's ``Board``), not the hot path: use
``fastgen.legal_plays`` / ``fastgen.plays_batch`` on arrays for bulk work.

The board is always seen from the side on roll (docs/RULES.md R4): ``X`` in the diagram is the
side on roll, moving from its 24 point down to 1; ``O`` is the opponent. After
:meth:`Board.push` the board is turned (``fastgen.swap_sides``) so that the other side is
on roll.

>>> board = Board()
>>> board.push("8/5 6/5", (3, 1))
>>> board.pip_count()
(167, 163)
>>> str(board.pop())
'8/5 6/5'
>>> board == Board()
True
"""

from __future__ import annotations

import dataclasses

import numpy as np

from fastgen.core.boards import STARTING_BOARD, as_board, as_dice, swap_sides
from fastgen.core.generate import legal_plays
from fastgen.errors import InvalidDiceError, InvalidMatchStateError
from fastgen.core.ids import parse_position_id, parse_xgid, position_id, xgid
from fastgen.core.state import MatchState
from fastgen.core.notation import Play, draw_board
from fastgen.core.validate import check_play
from typing import TYPE_CHECKING
from fastgen._typing import ArrayLike, DiceLike, Int8Array, StepsLike

if TYPE_CHECKING:
    from fastgen.core.plays import Plays

__all__ = ["Board"]


class Board:
    """A position with the side on roll, a stack of played :class:`Play` values and a state.

    ``Board()`` is the starting position (R3); ``Board(array)`` any valid (2, 25) board;
    :meth:`from_position_id` and :meth:`from_xgid` read the interchange IDs.
    ``state`` is an optional :class:`~fastgen.core.state.MatchState` (cube, score, dice) kept
    for :meth:`xgid`; pushing a play hands the turn over in it too.
    """

    def __init__(self, board: ArrayLike | None = None, state: MatchState | None = None) -> None:
        arr = STARTING_BOARD if board is None else board
        self._array = np.array(as_board(arr), copy=True)
        self._array.setflags(write=False)
        self.state = state
        self._stack: list[tuple[Play, np.ndarray, MatchState | None]] = []  # (Play, board before, state before)

    @property
    def state(self) -> MatchState | None:
        """The :class:`~fastgen.core.state.MatchState` kept with the board, or None."""
        return self._state

    @state.setter
    def state(self, state) -> None:
        if state is not None and not isinstance(state, MatchState):
            raise InvalidMatchStateError(f"state must be None or a MatchState, got {state!r}")
        self._state = state

    # ----------------------------------------------------------------- constructors

    @classmethod
    def from_position_id(cls, pid: str) -> "Board":
        """The board of a GNU Backgammon Position ID.

        >>> Board.from_position_id('4HPwATDgc/ABMA') == Board()
        True
        """
        return cls(parse_position_id(pid))

    @classmethod
    def from_xgid(cls, text: str) -> "Board":
        """The board (and :class:`MatchState`) of an XGID, seen from the side on roll.

        >>> Board.from_xgid('XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10') == Board()
        True
        """
        board, state = parse_xgid(text)
        return cls(board, state)

    # ----------------------------------------------------------------- queries

    @property
    def array(self) -> Int8Array:
        """The canonical (2, 25) int8 board, read-only (row 1 = side on roll)."""
        return self._array

    def legal_plays(self, dice: DiceLike) -> Plays:
        """Every legal play with *dice* (a :class:`fastgen.Plays`)."""
        return legal_plays(self._array, dice)

    def pip_count(self) -> tuple[int, int]:
        """Pips still to travel, ``(side on roll, opponent)``; bar checkers count 25 (R3)."""
        weights = np.arange(1, 26)
        return int(self._array[1] @ weights), int(self._array[0] @ weights)

    def borne_off(self) -> tuple[int, int]:
        """Checkers borne off, ``(side on roll, opponent)``."""
        return 15 - int(self._array[1].sum()), 15 - int(self._array[0].sum())

    def position_id(self) -> str:
        """The GNU Backgammon Position ID."""
        return position_id(self._array)

    def xgid(self) -> str:
        """The XGID of the board and its :attr:`state` (default: a money game, to roll)."""
        return xgid(self._array, self.state)

    # ----------------------------------------------------------------- the stack

    def push(self, play: Play | str | StepsLike, dice: DiceLike | None = None) -> None:
        """Play *play* (a :class:`Play`, a move text or steps) and hand the turn over.

        The play is checked (:func:`fastgen.check_play`): an illegal one raises
        :class:`~fastgen.errors.IllegalPlayError` and leaves the board unchanged. *dice*
        defaults to the play's own dice, then to ``state.dice``.
        """
        if dice is None:
            if isinstance(play, Play):
                dice = play.dice
            elif self.state is not None and self.state.dice != (0, 0):
                dice = self.state.dice
            else:
                raise InvalidDiceError(f"push({play!r}) needs the dice: push(play, (d1, d2))")
        dice = as_dice(dice)
        checked = check_play(self._array, dice, play)
        self._stack.append((checked, self._array, self.state))
        after = swap_sides(checked.board_after)
        after.setflags(write=False)
        self._array = after
        if self.state is not None:
            other = 1 - self.state.on_roll
            self.state = _replace_state(self.state, on_roll=other, turn=other, dice=(0, 0))

    def pop(self) -> Play:
        """Take back the last play and return it (IndexError if none)."""
        play, before, state = self._stack.pop()
        self._array = before
        self.state = state
        return play

    def peek(self) -> Play:
        """The last play pushed (IndexError if none)."""
        return self._stack[-1][0]

    @property
    def move_stack(self) -> list[Play]:
        """The plays pushed so far, oldest first."""
        return [entry[0] for entry in self._stack]

    # ----------------------------------------------------------------- dunder

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return bool(np.array_equal(self._array, other._array))

    def __hash__(self) -> int:
        return hash(self._array.tobytes())

    def __repr__(self) -> str:
        return f"Board.from_position_id({self.position_id()!r})"

    def _repr_svg_(self) -> str | None:
        """The board as SVG (:func:`fastgen.formats.svg.board`) for Jupyter, with the dice and
        cube of :attr:`state` when it has them."""
        dice = cube = None
        if self.state is not None:
            if self.state.dice != (0, 0):
                dice = self.state.dice
            owner = self.state.cube_owner
            cube = (self.state.cube_value, None if owner is None else int(owner == self.state.on_roll))
        return draw_board(self._array, dice=dice, cube=cube)

    def __str__(self) -> str:
        """A text diagram from the side on roll (X, bottom, home board on the right).

        >>> print(Board())
          13 14 15 16 17 18      19 20 21 22 23 24
        +------------------+---+------------------+  O: 167 pips, 0 off
        |  X           O   |   |  O              X|
        |  X           O   |   |  O              X|
        |  X           O   |   |  O               |
        |  X               |   |  O               |
        |  X               |   |  O               |
        |                  |BAR|                  |
        |  O               |   |  X               |
        |  O               |   |  X               |
        |  O           X   |   |  X               |
        |  O           X   |   |  X              O|
        |  O           X   |   |  X              O|
        +------------------+---+------------------+  X: 167 pips, 0 off (on roll)
          12 11 10  9  8  7       6  5  4  3  2  1
        """
        mine, opp = self._array[1], self._array[0]

        def cell(point: int):
            """(symbol, count) on the mover's *point*."""
            if mine[point - 1]:
                return "X", int(mine[point - 1])
            if opp[24 - point]:
                return "O", int(opp[24 - point])
            return " ", 0

        def column(point: int, depth: int) -> str:
            symbol, count = cell(point)
            if count > depth:
                if depth == 4 and count > 5:
                    return f"{count:>3}"
                return f"  {symbol}"
            return "   "

        top_left, top_right = range(13, 19), range(19, 25)
        bottom_left, bottom_right = range(12, 6, -1), range(6, 0, -1)
        pips = self.pip_count()
        off = self.borne_off()

        def labels(left, right) -> str:
            return " " + "".join(f"{p:3d}" for p in left) + "     " + "".join(f"{p:3d}" for p in right)

        def row(left, right, depth: int, bar: str) -> str:
            return (
                "|" + "".join(column(p, depth) for p in left) + "|" + bar + "|"
                + "".join(column(p, depth) for p in right) + "|"
            )

        border = "+" + "-" * 18 + "+---+" + "-" * 18 + "+"
        lines = [labels(top_left, top_right), f"{border}  O: {pips[1]} pips, {off[1]} off"]
        for depth in range(5):
            bar = f"O{int(opp[24]):<2d}" if depth == 0 and opp[24] else "   "
            lines.append(row(top_left, top_right, depth, bar))
        lines.append("|" + " " * 18 + "|BAR|" + " " * 18 + "|")
        for depth in range(4, -1, -1):
            bar = f"X{int(mine[24]):<2d}" if depth == 0 and mine[24] else "   "
            lines.append(row(bottom_left, bottom_right, depth, bar))
        lines.append(f"{border}  X: {pips[0]} pips, {off[0]} off (on roll)")
        lines.append(labels(bottom_left, bottom_right))
        return "\n".join(lines)


def _replace_state(state: MatchState, **changes) -> MatchState:
    return dataclasses.replace(state, **changes)
