"""The state of a game beside its checkers: :class:`MatchState` (cube, turn, dice,
score, in GNU Backgammon's terms), with its :class:`GameState` and :class:`Resignation`
fields. Checked when built (:class:`~fastgen.errors.InvalidMatchStateError` quoting it);
the IDs that carry it (Match ID, XGID) are :mod:`fastgen.core.ids`.
"""

from __future__ import annotations

import dataclasses
import enum

import numpy as np

from fastgen.errors import InvalidMatchStateError

__all__ = ["GameState", "Resignation", "MatchState", "MAX15"]

#: The largest score, match length or cube a Match ID holds (15 bits).
MAX15 = (1 << 15) - 1


class GameState(enum.IntEnum):
    """Game state field of the Match ID (bits 8-10)."""

    NONE = 0
    PLAYING = 1
    OVER = 2
    RESIGNED = 3
    DROPPED = 4


class Resignation(enum.IntEnum):
    """Resignation offered (Match ID bits 13-14)."""

    NONE = 0
    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3


@dataclasses.dataclass(frozen=True)
class MatchState:
    """Everything about a game but the checkers: cube, turn, dice, score (GNU Backgammon terms).

    Players are 0 and 1 as in gnubg; ``on_roll`` is the dice owner (the side whose view
    the board shows), ``turn`` the player who must act now (differs from ``on_roll`` only
    while a double or resignation awaits an answer). ``cube_owner`` is ``None`` when the
    cube is centred. ``dice`` is ``(0, 0)`` before the roll. ``match_length`` 0 means a
    money game; ``score`` is ``(player 0, player 1)``, one of them past the length once
    the match is over (as in gnubg's IDs after the last game). ``beaver`` and ``max_cube`` exist
    only in XGIDs (the Match ID cannot hold them).

    >>> MatchState(dice=(5, 2), match_length=9, score=(2, 4), cube_value=2, cube_owner=0)
    ... # doctest: +ELLIPSIS
    MatchState(cube_value=2, cube_owner=0, on_roll=1, turn=1, crawford=False, ...)
    """

    cube_value: int = 1
    cube_owner: int | None = None
    on_roll: int = 1
    turn: int | None = None
    crawford: bool = False
    game_state: GameState = GameState.PLAYING
    doubled: bool = False
    resigned: Resignation = Resignation.NONE
    dice: tuple[int, int] = (0, 0)
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    jacoby: bool = False
    beaver: bool = False
    max_cube: int = 1024

    def __post_init__(self):
        set_ = lambda name, value: object.__setattr__(self, name, value)  # noqa: E731
        if self.turn is None:
            set_("turn", self.on_roll)

        def fail(what):
            raise InvalidMatchStateError(f"{what} in {self!r}")

        def is_int(v):  # Python and numpy integers; never bools, floats or strings
            return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))

        def is_flag(v):
            return isinstance(v, (bool, np.bool_)) or (is_int(v) and v in (0, 1))

        for name in ("cube_value", "max_cube"):
            value = getattr(self, name)
            if not is_int(value) or value < 1 or value & (value - 1) or value > 1 << 15:
                fail(f"{name} must be a power of two from 1 to 32768, got {value!r}")
            set_(name, int(value))
        if self.cube_owner is not None and not (is_int(self.cube_owner) and self.cube_owner in (0, 1)):
            fail(f"cube_owner must be None (centred), 0 or 1, got {self.cube_owner!r}")
        if self.cube_owner is not None:
            set_("cube_owner", int(self.cube_owner))
        for name in ("on_roll", "turn"):
            if not is_int(getattr(self, name)) or getattr(self, name) not in (0, 1):
                fail(f"{name} must be player 0 or 1, got {getattr(self, name)!r}")
            set_(name, int(getattr(self, name)))
        for name, kind, top in (("game_state", GameState, 4), ("resigned", Resignation, 3)):
            value = getattr(self, name)
            if not is_int(value) or not 0 <= value <= top:
                fail(f"{name} must be 0..{top}, got {value!r}")
            set_(name, kind(int(value)))
        pairs = []
        for name in ("dice", "score"):
            value = getattr(self, name)
            try:
                pair = tuple(value) if not isinstance(value, (str, bytes)) else ()
            except TypeError:
                pair = ()
            if len(pair) != 2 or not all(is_int(x) for x in pair):
                fail(f"{name} must be a pair of integers, got {value!r}")
            pairs.append(tuple(int(x) for x in pair))
        dice, score = pairs
        if not all(0 <= d <= 6 for d in dice) or (0 in dice and dice != (0, 0)):
            fail(f"dice must be two dice 1..6 or (0, 0) before the roll, got {self.dice!r}")
        if not all(0 <= x <= MAX15 for x in score):
            fail(f"score must be two integers 0..{MAX15}, got {self.score!r}")
        if not is_int(self.match_length) or not 0 <= self.match_length <= MAX15:
            fail(f"match_length must be 0 (money) to {MAX15}, got {self.match_length!r}")
        set_("match_length", int(self.match_length))
        if self.match_length and min(score) >= self.match_length:
            # one side past the length is a finished match (gnubg's IDs after the last game)
            fail(f"a score {score} where both sides reached the match length {self.match_length}")
        for name in ("crawford", "doubled", "jacoby", "beaver"):
            if not is_flag(getattr(self, name)):
                fail(f"{name} must be True or False, got {getattr(self, name)!r}")
            set_(name, bool(getattr(self, name)))
        if self.crawford and not self.match_length:
            fail("a money game has no Crawford game")
        set_("dice", dice)
        set_("score", score)


