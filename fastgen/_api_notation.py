"""Public names of the readable layer (notation, IDs, converters, validation, Board).

``fastgen/__init__.py`` does ``from fastgen._api_notation import *`` so these appear as
``fastgen.Play``, ``fastgen.check_play`` and so on.
"""

from fastgen.board import Board
from fastgen.convert import from_pubeval28, from_signed26, to_pubeval28, to_signed26
from fastgen.errors import (
    AmbiguousMoveError,
    IllegalPlayError,
    IllegalReason,
    InvalidMatchIDError,
    InvalidMatchStateError,
    InvalidMoveTextError,
    InvalidXGIDError,
)
from fastgen.ids import (
    GameState,
    MatchState,
    Resignation,
    format_gnubg_id,
    match_id,
    match_state_from_id,
    parse_gnubg_id,
    parse_xgid,
    xgid,
)
from fastgen.notation import Play, format_play, parse_play
from fastgen.validate import check_play, legal_steps

__all__ = [
    "AmbiguousMoveError",
    "Board",
    "GameState",
    "IllegalPlayError",
    "IllegalReason",
    "InvalidMatchIDError",
    "InvalidMatchStateError",
    "InvalidMoveTextError",
    "InvalidXGIDError",
    "MatchState",
    "Play",
    "Resignation",
    "check_play",
    "format_gnubg_id",
    "format_play",
    "from_pubeval28",
    "from_signed26",
    "legal_steps",
    "match_id",
    "match_state_from_id",
    "parse_gnubg_id",
    "parse_play",
    "parse_xgid",
    "to_pubeval28",
    "to_signed26",
    "xgid",
]
