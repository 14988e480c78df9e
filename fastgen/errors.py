"""Exceptions raised by fastgen.

Every error about bad input subclasses :class:`ValueError` (python-chess style) and
quotes the offending value with ``!r`` so the caller can see what was rejected.
"""

import enum


class FastgenError(Exception):
    """Base class of every exception fastgen raises on purpose."""


class InvalidArgumentError(FastgenError, ValueError):
    """An argument of the wrong type or out of range (a count, a seed, a thread number...)."""


class InvalidBoardError(FastgenError, ValueError):
    """A board is not a valid (2, 25) position (docs/RULES.md R4)."""


class InvalidDiceError(FastgenError, ValueError):
    """Dice are not a pair of integers in 1..6 (R5)."""


class InvalidPositionIDError(FastgenError, ValueError):
    """A GNU Backgammon Position ID is malformed or encodes an impossible position."""


class UnknownSchemeError(FastgenError, ValueError):
    """An encoding scheme name :func:`fastgen.encode` does not know (see ``fastgen.core.features.SCHEMES``)."""


class InvalidOutputError(InvalidArgumentError):
    """An ``out=`` array has the wrong dtype, shape or layout, or is read-only; or an
    evaluator answered something that is not (N, 5) probabilities (the message quotes the
    first bad row, the rule it breaks and the position's GNU Backgammon Position ID)."""


class InvalidSVGOptionError(FastgenError, ValueError):
    """An option of :func:`fastgen.formats.svg.board` (cube, size) that cannot be drawn."""


# --------------------------------------------------------------------------- game flow
# Raised by fastgen.games.game / fastgen.games.match. An illegal action never changes the state.


class IllegalActionError(FastgenError, ValueError):
    """An action a game or match does not allow now (R16-R20); the state is unchanged."""


class GameOverError(IllegalActionError):
    """An action was attempted after the game (or match) ended."""


class OutOfTurnError(IllegalActionError):
    """A player acted when it was the other player's turn to act."""


class OutOfOrderError(IllegalActionError):
    """An action came at the wrong moment (e.g. playing before rolling, rolling twice)."""


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


class InvalidResignationError(IllegalActionError):
    """A resignation offer names no result type: it must be single (1), gammon (2) or
    backgammon (3)."""


class MatFileError(FastgenError, ValueError):
    """A ``.mat`` match file could not be read (the message quotes the offending line), or
    a match cannot be written in the format (e.g. a player name holding a colon).

    The readers of the other match formats raise its subclasses, so one ``except
    MatFileError`` catches a damaged match file of any format."""


class MatFileWarning(UserWarning):
    """A problem a match reader read past when asked to (``errors="warn"``), as GNU
    Backgammon warns and goes on; the message names the place, as the error would."""


class SgfFileError(MatFileError):
    """A GNU Backgammon ``.sgf`` file could not be read (the message names the file and the
    place: the byte offset, the game and the node), or a match cannot be written as one."""


class XgFileError(MatFileError):
    """An eXtreme Gammon ``.xg`` / ``.xgp`` file could not be read (the message names the
    file and the place: the byte offset, the record and the game)."""


class InvalidMoveTextError(FastgenError, ValueError):
    """A move text (``"8/5 6/5"``) cannot be read: bad syntax or impossible point numbers."""


class AmbiguousMoveError(FastgenError, ValueError):
    """A move text fits more than one legal play (e.g. ``24/13`` when two blots could be hit)."""


class InvalidMatchIDError(FastgenError, ValueError):
    """A GNU Backgammon Match ID (or ``PositionID:MatchID`` pair) is malformed."""


class InvalidMatchStateError(FastgenError, ValueError):
    """A :class:`fastgen.core.state.MatchState` field holds a value the formats cannot express."""


class InvalidXGIDError(FastgenError, ValueError):
    """An eXtreme Gammon XGID string is malformed or encodes an impossible position."""


class IllegalReason(enum.Enum):
    """Why a proposed play is not legal (docs/RULES.md R15); the ``reason`` of :class:`IllegalPlayError`."""

    BAR_FIRST = "a checker on the bar must enter before any other checker moves (R8)"
    LANDING_BLOCKED = "the landing point is blocked by two or more opposing checkers (R6)"
    INTERMEDIATE_BLOCKED = (
        "a checker using several dice stops on every intermediate point, "
        "and this one is blocked (R6)"
    )
    DIE_NOT_IN_ROLL = "no unused die of that number is left in the roll (R5)"
    MORE_DICE_POSSIBLE = "a play using more of the dice exists, so it must be played (R11, R12)"
    LARGER_DIE_REQUIRED = "when only one die can be played, the larger one must be played (R13)"
    BEAROFF_NOT_ALLOWED = (
        "bearing off is allowed only when all of the side's checkers are in its home board (R9)"
    )
    BEAROFF_HIGHER_OCCUPIED = (
        "a die larger than the point bears off only when no checker stands on a higher point (R9)"
    )
    NO_CHECKER = "there is no checker of the side on roll on that point (or the bar)"

    @property
    def rule(self) -> str:
        """The rule in words a player understands."""
        return self.value


class IllegalPlayError(FastgenError, ValueError):
    """A proposed play is not one of the legal plays (R15).

    ``reason`` is an :class:`IllegalReason`; ``step`` is the offending ``(from, to)`` step
    in the mover's numbering (25 = bar, 0 = off), or ``None`` when the play as a whole is
    at fault (too few dice played).
    """

    def __init__(self, message: str, reason: "IllegalReason", step=None):
        super().__init__(message)
        self.reason = reason
        self.step = step


class IllegalGamePlayError(IllegalPlayError, IllegalActionError):
    """A play proposed to a :class:`fastgen.Game` is not legal (R10-R15).

    Both an :class:`IllegalPlayError` (``reason`` / ``step`` as diagnosed; ``reason`` is
    None when the play was given as a resulting position) and an
    :class:`IllegalActionError` (the game state is unchanged).
    """

    def __init__(self, message: str, reason=None, step=None):
        super().__init__(message, reason, step)


# --------------------------------------------------------------------------- clusters
# Raised by fastgen.sim.cluster and fastgen.sim.rollout.chunks before any work is sent out.


class NotPicklableError(FastgenError, ValueError):
    """A policy (or other object) cannot be sent to Dask workers: cloudpickle refused it."""


class RolloutStoreError(FastgenError, ValueError):
    """A rollout output directory (``out=`` / ``--resume``) is unreadable or belongs to a
    different run."""


# --------------------------------------------------------------------------- rollouts


class EndlessGameError(FastgenError, ValueError):
    """A rollout game cannot end or did not end; the message quotes its Position ID."""


class DeadPositionError(EndlessGameError):
    """A start position where no game can end: neither side can move a checker with any
    roll (e.g. both sides on the bar facing closed boards), so every turn is lost forever.
    Detected before any game is played."""


class TurnLimitError(EndlessGameError):
    """A rollout game reached the turn limit (a last-resort guard; random games end
    within a few hundred turns)."""


class InvalidEnvOptionError(FastgenError, ValueError):
    """An RL environment (:mod:`fastgen.envs`) was given an option it does not accept."""


# --------------------------------------------------------------------------- bots and engines
# Raised by fastgen.formats.fibs, fastgen.players.engines, fastgen.players.policies and fastgen.sim.duel.


class InvalidFibsBoardError(FastgenError, ValueError):
    """A FIBS ``board:`` line is malformed or describes an impossible position."""


class EngineError(FastgenError, ValueError):
    """An external engine (GNU Backgammon) answered an illegal or unreadable move, crashed,
    or did not answer in time; the message names the position (its FIBS line)."""


class InvalidSpecError(InvalidArgumentError):
    """A policy or evaluator spec (``"baseline"``, ``"gnubg:0"``, ``"mybot:policy"``, a
    weights file ...) that names nothing known, cannot be loaded, or gives an object that
    cannot be called the way a policy or an evaluator is; the message quotes the spec."""


# --------------------------------------------------------------------------- bear-off databases


class BearoffFileError(FastgenError, ValueError):
    """A bear-off database file (GNU Backgammon's .bd format) that cannot be read: wrong
    type, bad header, truncated or damaged. The message names the file and the fault."""


class OutsideDatabaseError(FastgenError, ValueError):
    """A position a bear-off database does not hold (checkers outside its points, too many
    checkers, contact), or database dimensions out of range."""


# --------------------------------------------------------------------------- networks


class InvalidNetworkError(InvalidArgumentError):
    """Network weights fastgen cannot run: wrong shapes or dtype, NaN or infinity, an
    unknown input scheme or activation, a layer wider than the compiled limit. The
    message quotes what was wrong."""


class NetworkFileError(FastgenError, ValueError):
    """A network file (fastgen's ``.npz`` layout or an ONNX graph) that cannot be read:
    missing, truncated, of another kind or version, or a graph of operators fastgen does
    not run. The message names the file and the fault."""


class GnubgWeightsNotFoundError(NetworkFileError):
    """No GNU Backgammon weights file was found where
    :func:`fastgen.nets.gnubg_weights.find_weights` looks (fastgen never ships gnubg's
    weights): the message lists every place looked at, or names the path given that
    holds no file."""


class CheckpointError(FastgenError, ValueError):
    """A training checkpoint that cannot be resumed: missing, not a checkpoint fastgen's
    trainer wrote, or written for other settings than the ones asked for. The message
    names the file and the fault."""


class METFileError(FastgenError, ValueError):
    """A match equity table file that cannot be read: missing, not GNU Backgammon's XML
    layout, a table of the wrong shape, a value that is not a chance, or a table of a
    kind given by parameters only. The message names the file and the fault."""


class InvalidCubeStateError(InvalidArgumentError):
    """A cube question that has no answer: probabilities that are not five chances in
    order, a score or cube the match cannot reach, a cube owned during the Crawford
    game. The message quotes the input."""
