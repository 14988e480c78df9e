"""Public names of the game, match, rollout and pubeval modules (re-exported by fastgen)."""

from fastgen.errors import (
    CrawfordDoubleError,
    CubeCapError,
    CubeOwnershipError,
    DoubleAfterRollError,
    GameOverError,
    IllegalActionError,
    IllegalDoubleError,
    IllegalGamePlayError,
    MatFileError,
    OutOfOrderError,
    OutOfTurnError,
)
from fastgen.game import BACKGAMMON, GAMMON, OPENING_ROLLS, SINGLE, Game, GameAction, result_type
from fastgen.match import Match
from fastgen.matfile import read_mat, write_mat
from fastgen.rollout import RolloutResult, RolloutSummary, rollout, summarize

__all__ = [
    "Game",
    "GameAction",
    "Match",
    "OPENING_ROLLS",
    "SINGLE",
    "GAMMON",
    "BACKGAMMON",
    "result_type",
    "read_mat",
    "write_mat",
    "rollout",
    "RolloutResult",
    "RolloutSummary",
    "summarize",
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
    "MatFileError",
]
