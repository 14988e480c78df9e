"""Game flow: a board for people (``Board``, in ``board``), one game with its cube and
record (``Game``, in ``game``), and matches (``Match``, in ``match``).

``Game``, ``Match`` and the names of a game's results are imported on first use
(``fastgen.games.GameAction``); the errors of an action a game or match does not allow
are importable here.
"""

from importlib import import_module as _import_module
from typing import TYPE_CHECKING

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

    def __getattr__(name: str) -> object:
        """Import a name of a game or a match on first use (PEP 562)."""
        if name not in _LAZY_NAMES:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(_import_module(_LAZY_NAMES[name]), name)
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(globals()) | set(__all__))

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
