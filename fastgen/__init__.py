"""fastgen: every legal backgammon play, fast and correct.

The board is GNU Backgammon's (2, 25) int8 layout (docs/RULES.md R4): row 0 the opponent,
row 1 the side on roll, index i = own point i + 1, index 24 = bar.

>>> import fastgen
>>> len(fastgen.legal_plays(fastgen.STARTING_BOARD, (3, 1)))
16

Each public name comes from the module that defines it: the generator and its readable
layer are imported with the package, the rest (games, rollouts, duels, evaluators,
bear-off databases ...) on first use, so ``import fastgen`` stays quick. The optional
extras (``rl``, ``dask``, ``pgx``, ``peers``) are never imported by ``import fastgen``.
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

from fastgen import _compat

_compat.install()

import sys as _sys
from importlib import import_module as _import_module
from types import ModuleType as _ModuleType
from typing import TYPE_CHECKING

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
    InvalidNetworkError,
    InvalidOutputError,
    InvalidPositionIDError,
    InvalidResignationError,
    InvalidSVGOptionError,
    InvalidXGIDError,
    MatFileError,
    MatFileWarning,
    SgfFileError,
    XgFileError,
    NetworkFileError,
    CheckpointError,
    InvalidCubeStateError,
    METFileError,
    OutsideDatabaseError,
    NotPicklableError,
    OutOfOrderError,
    OutOfTurnError,
    RolloutStoreError,
    TurnLimitError,
    UnknownSchemeError,
)
from fastgen.core.features import encode
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
from fastgen.core.notation import Play, format_play
from fastgen.core.plays import PlayBatch, Plays
from fastgen.core.validate import check_play, legal_steps, parse_play

#: The public names imported on first use (PEP 562), each from the module that defines
#: it: games, .mat files, rollouts, duels, evaluators, engines and policies, bear-off
#: databases, FIBS lines and pubeval are loaded when a program first asks for one.
_LAZY_NAMES: dict[str, str] = {
    **dict.fromkeys(("BACKGAMMON", "GAMMON", "OPENING_ROLLS", "SINGLE", "Game", "GameAction", "result_type"),
                    "fastgen.games.game"),
    "Match": "fastgen.games.match",
    "read_mat": "fastgen.formats.matfile",
    "write_mat": "fastgen.formats.matfile",
    **dict.fromkeys(("read_match", "read_matches"), "fastgen.formats.reader"),
    **dict.fromkeys(("read_mat_files", "MatchBatch"), "fastgen.formats.matbatch"),
    **dict.fromkeys(("read_sgf", "write_sgf"), "fastgen.formats.sgf"),
    **dict.fromkeys(("read_xg", "read_xg_position", "XgPosition"), "fastgen.formats.xg"),
    "pubeval_best": "fastgen.players.pubeval",
    "perft": "fastgen.perft",
    "perft_weighted": "fastgen.perft",
    "RolloutResult": "fastgen.sim.rollout.results",
    "RolloutSummary": "fastgen.sim.rollout.results",
    "summarize": "fastgen.sim.rollout.results",
    "rollout": "fastgen.sim.rollout.front",
    "rollout_plays": "fastgen.sim.decide.front",
    "rollout_position": "fastgen.sim.decide.front",
    "rollout_dice": "fastgen.sim.decide.dice",
    "RolloutTable": "fastgen.sim.decide.table",
    "duel": "fastgen.sim.duel.front",
    "DuelResult": "fastgen.sim.duel.front",
}
#: Submodules and subpackages reached as attributes (``fastgen.bearoff.build_one_sided``),
#: imported on first use too.
_LAZY_MODULES = ("bearoff", "cube", "envs", "fibs", "games", "nets", "players", "sim")
#: Modules that moved (:mod:`fastgen._compat`): the old names still import, with a warning.
_MOVED_MODULES = ("engines", "evaluators", "policies", "pubeval", "specs")

if TYPE_CHECKING:  # what type checkers see: the same names, imported as usual
    from fastgen import bearoff, cube, envs, fibs, games, nets, players, sim
    from fastgen.formats.matfile import read_mat, write_mat
    from fastgen.formats.matbatch import MatchBatch, read_mat_files
    from fastgen.formats.reader import read_match, read_matches
    from fastgen.formats.sgf import read_sgf, write_sgf
    from fastgen.formats.xg import XgPosition, read_xg, read_xg_position
    from fastgen.games.game import BACKGAMMON, GAMMON, OPENING_ROLLS, SINGLE, Game, GameAction, result_type
    from fastgen.games.match import Match
    from fastgen.perft import perft, perft_weighted
    from fastgen.players.pubeval import pubeval_best
    from fastgen.sim.decide.dice import rollout_dice
    from fastgen.sim.decide.front import rollout_plays, rollout_position
    from fastgen.sim.decide.table import RolloutTable
    from fastgen.sim.duel.front import DuelResult, duel
    from fastgen.sim.rollout.front import rollout
    from fastgen.sim.rollout.results import RolloutResult, RolloutSummary, summarize
else:

    def __getattr__(name: str) -> object:
        """Import a lazily loaded public name or submodule on first use (PEP 562)."""
        if name in _LAZY_NAMES:
            value = getattr(_import_module(_LAZY_NAMES[name]), name)
        elif name in _LAZY_MODULES:
            value = _import_module(f"{__name__}.{name}")
        elif name in _MOVED_MODULES:
            return _import_module(f"{__name__}.{name}")  # the old name, with its warning
        else:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        globals()[name] = value  # found directly from now on
        return value

    def __dir__() -> list[str]:
        return sorted(set(globals()) | set(__all__) | set(_LAZY_MODULES))

    class _Package(_ModuleType):
        """The package's module type: the import system sets each submodule it loads as an
        attribute of its package, and the module fastgen.perft would so replace the public
        function of its name; the function keeps it."""

        def __setattr__(self, name: str, value: object) -> None:
            if name in _LAZY_NAMES and isinstance(value, _ModuleType):
                return
            super().__setattr__(name, value)

    _sys.modules[__name__].__class__ = _Package

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
    "read_match",
    "read_matches",
    "read_mat_files",
    "MatchBatch",
    "read_sgf",
    "write_sgf",
    "read_xg",
    "read_xg_position",
    "XgPosition",
    "rollout",
    "RolloutResult",
    "RolloutSummary",
    "summarize",
    # rollouts that decide
    "rollout_plays",
    "rollout_position",
    "rollout_dice",
    "RolloutTable",
    "players",
    "duel",
    "DuelResult",
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
    "MatFileWarning",
    "SgfFileError",
    "XgFileError",
    "BearoffFileError",
    "OutsideDatabaseError",
    "InvalidNetworkError",
    "NetworkFileError",
    "CheckpointError",
    "InvalidCubeStateError",
    "METFileError",
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
