"""Game flow: a board for people (``Board``, in ``board``), one game with its cube and
record (``Game``, in ``game``), and matches (``Match``, in ``match``).

``Game``, ``Match`` and the names of a game's results are imported on first use
(``fastgen.games.GameAction``); the errors of an action a game or match does not allow
are importable here.
"""

from typing import TYPE_CHECKING

from fastgen._util import lazy_attributes
from fastgen.errors import (
    CrawfordDoubleError,
    CubeCapError,
    CubeOwnershipError,
    DoubleAfterRollError,
    GameOverError,
    IllegalActionError,
    IllegalDoubleError,
    IllegalGamePlayError,
    InvalidResignationError,
    OutOfOrderError,
    OutOfTurnError,
)
from fastgen.games.board import Board

#: The public names imported on first use (PEP 562), each from the module that defines it.
_LAZY_NAMES: dict[str, str] = {
    **dict.fromkeys(("Game", "GameAction", "OPENING_ROLLS", "SINGLE", "GAMMON", "BACKGAMMON", "result_type"),
                    "fastgen.games.game"),
    "Match": "fastgen.games.match",
}

if TYPE_CHECKING:
    from fastgen.games.game import BACKGAMMON, GAMMON, OPENING_ROLLS, SINGLE, Game, GameAction, result_type
    from fastgen.games.match import Match
else:
    __getattr__, __dir__ = lazy_attributes(__name__, _LAZY_NAMES)

__all__ = [
    "Board",
    "Game",
    "GameAction",
    "Match",
    "OPENING_ROLLS",
    "SINGLE",
    "GAMMON",
    "BACKGAMMON",
    "result_type",
    "IllegalActionError",
    "GameOverError",
    "OutOfTurnError",
    "OutOfOrderError",
    "IllegalGamePlayError",
    "IllegalDoubleError",
    "DoubleAfterRollError",
    "CrawfordDoubleError",
    "CubeOwnershipError",
    "CubeCapError",
    "InvalidResignationError",
]
