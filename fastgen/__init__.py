"""fastgen: every legal backgammon play, fast and correct.

The board is GNU Backgammon's (2, 25) int8 layout (docs/RULES.md R4): row 0 the opponent,
row 1 the side on roll, index i = own point i + 1, index 24 = bar.

>>> import fastgen
>>> len(fastgen.legal_plays(fastgen.STARTING_BOARD, (3, 1)))
16

Each public name is imported here from the module that defines it. The optional extras
(``rl``, ``dask``, ``pgx``, ``peers``) are never imported by ``import fastgen``.
"""

import importlib.util as _importlib_util

if any(_importlib_util.find_spec(f"fastgen.core.{m}") is None for m in ("_core", "_features")):
    raise ImportError(  # checked first: a clear message instead of a failed import below
        f"fastgen's compiled modules (fastgen.core._core, fastgen.core._features) are not built in {__path__[0]!r}. "
        "Python is importing the source tree, e.g. from the repository root after "
        "`pip install .`. Either build them in place there "
        "(`python setup.py build_ext --inplace`) or run Python from another directory "
        "so that the installed fastgen is imported."
    )
del _importlib_util

from fastgen._version import __version__
from fastgen.board import Board
from fastgen.core.boards import STARTING_BOARD, swap_sides
from fastgen.formats.convert import from_pubeval28, from_signed26, to_pubeval28, to_signed26
from fastgen.errors import (
    AmbiguousMoveError,
    BearoffFileError,
    CrawfordDoubleError,
    CubeCapError,
    CubeOwnershipError,
    DeadPositionError,
    DoubleAfterRollError,
    EndlessGameError,
    EngineError,
    FastgenError,
    GameOverError,
    IllegalActionError,
    IllegalDoubleError,
    IllegalGamePlayError,
    IllegalPlayError,
    IllegalReason,
    InvalidArgumentError,
    InvalidBoardError,
    InvalidDiceError,
    InvalidEnvOptionError,
    InvalidSpecError,
    InvalidFibsBoardError,
    InvalidMatchIDError,
    InvalidMatchStateError,
    InvalidMoveTextError,
    InvalidOutputError,
    InvalidPositionIDError,
    InvalidResignationError,
    InvalidSVGOptionError,
    InvalidXGIDError,
    MatFileError,
    OutsideDatabaseError,
    NotPicklableError,
    OutOfOrderError,
    OutOfTurnError,
    RolloutStoreError,
    TurnLimitError,
    UnknownSchemeError,
)
from fastgen.core.features import encode
from fastgen import fibs  # FIBS board: lines (parse_board, format_board)
from fastgen import svg  # fastgen.svg.board: boards as SVG (standard library only)
from fastgen import bearoff  # fastgen.bearoff: bear-off databases (gnubg's .bd files)
from fastgen.games.game import BACKGAMMON, GAMMON, OPENING_ROLLS, SINGLE, Game, GameAction, result_type
from fastgen.core.generate import count_plays_batch, iter_plays_batch, legal_plays, plays_batch, release_memory
from fastgen.core.ids import (
    GameState,
    MatchState,
    Resignation,
    board_from_position_id,
    format_gnubg_id,
    match_id,
    match_state_from_id,
    parse_gnubg_id,
    parse_xgid,
    position_id,
    xgid,
)
from fastgen.games.match import Match
from fastgen.formats.matfile import read_mat, write_mat
from fastgen.core.notation import Play, format_play
from fastgen.core.plays import PlayBatch, Plays
from fastgen.perft import perft, perft_weighted  # the game-tree count; Dask only when asked
from fastgen.pubeval import pubeval_best
from fastgen.sim.rollout.results import RolloutResult, RolloutSummary, summarize
from fastgen.sim.rollout.front import rollout
from fastgen.sim.decide.front import rollout_plays, rollout_position
from fastgen.sim.decide.dice import rollout_dice
from fastgen.sim.decide.table import RolloutTable
from fastgen import evaluators  # the evaluator protocol, gnubg, greedy (gnubg-nn only when asked)
from fastgen.sim.duel.front import DuelResult, duel
from fastgen import engines, policies, specs  # GnubgEngine; gnubg(plies), baseline; the spec grammar
from fastgen.core.validate import check_play, legal_steps, parse_play

__all__ = [
    "__version__",
    # generation (fastgen.core.generate, fastgen.core.plays, fastgen.core.boards)
    "STARTING_BOARD",
    "swap_sides",
    "encode",
    "legal_plays",
    "plays_batch",
    "count_plays_batch",
    "iter_plays_batch",
    "release_memory",
    "Plays",
    "PlayBatch",
    # the readable layer
    "Play",
    "format_play",
    "parse_play",
    "check_play",
    "legal_steps",
    "Board",
    "position_id",
    "board_from_position_id",
    "GameState",
    "MatchState",
    "Resignation",
    "match_id",
    "match_state_from_id",
    "format_gnubg_id",
    "parse_gnubg_id",
    "xgid",
    "parse_xgid",
    "to_signed26",
    "from_signed26",
    "to_pubeval28",
    "from_pubeval28",
    # game flow
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
    # rollouts that decide
    "rollout_plays",
    "rollout_position",
    "rollout_dice",
    "RolloutTable",
    "evaluators",
    "duel",
    "DuelResult",
    "engines",
    "policies",
    "specs",
    # exceptions
    "FastgenError",
    "InvalidArgumentError",
    "InvalidBoardError",
    "InvalidDiceError",
    "InvalidPositionIDError",
    "InvalidMoveTextError",
    "AmbiguousMoveError",
    "IllegalPlayError",
    "IllegalReason",
    "InvalidMatchIDError",
    "InvalidMatchStateError",
    "InvalidXGIDError",
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
    "BearoffFileError",
    "OutsideDatabaseError",
    "UnknownSchemeError",
    "InvalidOutputError",
    "InvalidResignationError",
    "InvalidSVGOptionError",
    "EndlessGameError",
    "DeadPositionError",
    "TurnLimitError",
    "NotPicklableError",
    "RolloutStoreError",
    "InvalidEnvOptionError",
    "InvalidFibsBoardError",
    "EngineError",
    "InvalidSpecError",
    "fibs",
    "pubeval_best",
    "perft",
    "perft_weighted",
]
