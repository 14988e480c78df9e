"""Exceptions raised by fastgen.

Every error about bad input subclasses :class:`ValueError` (python-chess style) and
quotes the offending value with ``!r`` so the caller can see what was rejected.
"""


class FastgenError(Exception):
    """Base class of every exception fastgen raises on purpose."""


class InvalidBoardError(FastgenError, ValueError):
    """A board is not a valid (2, 25) position (RULES.md R4)."""


class InvalidDiceError(FastgenError, ValueError):
    """Dice are not a pair of integers in 1..6 (R5)."""


class InvalidPositionIDError(FastgenError, ValueError):
    """A GNU Backgammon Position ID is malformed or encodes an impossible position."""


# --------------------------------------------------------------------------- game flow
# Raised by fastgen.game / fastgen.match. An illegal action never changes the state.


class IllegalActionError(FastgenError, ValueError):
    """An action a game or match does not allow now (R16-R20); the state is unchanged."""


class GameOverError(IllegalActionError):
    """An action was attempted after the game (or match) ended."""


class OutOfTurnError(IllegalActionError):
    """A player acted when it was the other player's turn to act."""


class OutOfOrderError(IllegalActionError):
    """An action came at the wrong moment (e.g. playing before rolling, rolling twice)."""


class IllegalPlayError(IllegalActionError):
    """A proposed play is not one of the legal plays for the position and roll (R10-R15)."""


class IllegalDoubleError(IllegalActionError):
    """A double that the cube rules forbid (R18, R20)."""


class DoubleAfterRollError(IllegalDoubleError):
    """R18: a side may double only before rolling."""


class CrawfordDoubleError(IllegalDoubleError):
    """R20: no doubling at all in the Crawford game."""


class CubeOwnershipError(IllegalDoubleError):
    """R18: only the cube's owner may redouble (a centred cube may be turned by either side)."""


class CubeCapError(IllegalDoubleError):
    """R18: doubling would take the cube past its cap (64 by default)."""


class MatFileError(FastgenError, ValueError):
    """A ``.mat`` match file could not be read; the message quotes the offending line."""
