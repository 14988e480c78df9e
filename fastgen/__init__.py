"""fastgen: every legal backgammon play, fast and correct.

The board is GNU Backgammon's (2, 25) int8 layout (docs/RULES.md R4): row 0 the opponent,
row 1 the side on roll, index i = own point i + 1, index 24 = bar.

>>> import fastgen
>>> len(fastgen.legal_plays(fastgen.STARTING_BOARD, (3, 1)))
16

The top level holds what a user reaches for first: the generator, boards and plays, match
state and IDs, games and matches, the main verbs (rollouts, duels, perft, the cube
decision), the errors those meet, and the subpackages; everything else is reached from
its subpackage (``fastgen.formats.read_sgf``, ``fastgen.games.GameOverError``). Each public
name comes from the module that defines it: the generator and its readable layer are
imported with the package, the rest (games, rollouts, duels, subpackages ...) on first
use, so ``import fastgen`` stays quick. The optional extras (``rl``, ``dask``, ``pgx``,
``peers``) are never imported by ``import fastgen``. A name that left the top level still
works for one release, with a DeprecationWarning naming its new place.
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

from importlib import import_module as _import_module
from typing import TYPE_CHECKING

from fastgen._version import __version__
from fastgen.core.boards import STARTING_BOARD, swap_sides
from fastgen.errors import (
    FastgenError,
    IllegalActionError,
    IllegalPlayError,
    InvalidArgumentError,
    InvalidBoardError,
    InvalidDiceError,
    InvalidMoveTextError,
    InvalidSpecError,
    MatFileError,
)
from fastgen.core.features import encode
from fastgen.core.generate import count_plays_batch, iter_plays_batch, legal_plays, plays_batch, release_memory
from fastgen.core.ids import (
    gnubg_id,
    match_id,
    parse_gnubg_id,
    parse_match_id,
    parse_position_id,
    parse_xgid,
    position_id,
    xgid,
)
from fastgen.core.state import GameState, MatchState, Resignation
from fastgen.core.notation import Play, format_play
from fastgen.core.plays import PlayBatch, Plays
from fastgen.core.validate import check_play, legal_steps, parse_play
from fastgen.games.board import Board
from fastgen.formats import svg as _svg  # draws Play, Board and Game in Jupyter (it installs their drawers)

#: The public names imported on first use (PEP 562), each from the module that defines
#: it: games, match files, rollouts, duels, perft, pubeval and the cube decision are
#: loaded when a program first asks for one.
_LAZY_NAMES: dict[str, str] = {
    "Game": "fastgen.games.game",
    "Match": "fastgen.games.match",
    "write_mat": "fastgen.formats.matfile",
    **dict.fromkeys(("read_match", "read_matches"), "fastgen.formats.reader"),
    "rollout": "fastgen.sim.rollout.front",
    **dict.fromkeys(("rollout_plays", "rollout_position"), "fastgen.sim.decide.front"),
    **dict.fromkeys(("duel", "duel_matches"), "fastgen.sim.duel.front"),
    "rollout_cube": "fastgen.sim.decide.cubeful",
    **dict.fromkeys(("perft", "perft_weighted"), "fastgen.search.perft"),
    "pubeval_best": "fastgen.players.pubeval",
    "cube_action": "fastgen.cube.action",
    "hint": "fastgen.analysis.hint",
    **dict.fromkeys(("Search", "MoveFilter"), "fastgen.players.search"),
}
#: Subpackages reached as attributes (``fastgen.bearoff.build_one_sided``), imported on
#: first use too.
_LAZY_MODULES = ("analysis", "bearoff", "cube", "envs", "formats", "games", "nets", "players", "search", "sim", "train")
#: Modules that moved (:mod:`fastgen._compat`): the old names still import, with a warning.
_MOVED_MODULES = ("engines", "evaluators", "policies", "pubeval", "specs", "board", "fibs", "svg")


def _to(place: str, *names: str) -> dict[str, tuple[str, str]]:
    return {name: (place, name) for name in names}


#: Names that left the top level, each with its new place and name there:
#: ``fastgen.NAME`` still gives it for one release, with a DeprecationWarning naming it.
_MOVED_NAMES: dict[str, tuple[str, str]] = {
    # renamed: one pattern for the IDs, NAME(...) writes one and parse_NAME(text) reads it
    "board_from_position_id": ("fastgen", "parse_position_id"),
    "match_state_from_id": ("fastgen", "parse_match_id"),
    "format_gnubg_id": ("fastgen", "gnubg_id"),
    **_to("fastgen.formats", "to_signed26", "from_signed26", "to_pubeval28", "from_pubeval28", "read_mat",
          "read_mat_files", "MatchBatch", "read_sgf", "write_sgf", "read_xg", "read_xg_position", "XgPosition",
          "MatFileWarning", "SgfFileError", "XgFileError", "InvalidFibsBoardError", "InvalidSVGOptionError"),
    **_to("fastgen.games", "GameAction", "OPENING_ROLLS", "SINGLE", "GAMMON", "BACKGAMMON", "result_type",
          "GameOverError", "OutOfTurnError", "OutOfOrderError", "IllegalGamePlayError", "IllegalDoubleError",
          "DoubleAfterRollError", "CrawfordDoubleError", "CubeOwnershipError", "CubeCapError",
          "InvalidResignationError"),
    **_to("fastgen.sim", "RolloutResult", "RolloutSummary", "summarize", "rollout_dice", "RolloutTable",
          "DuelResult", "EndlessGameError", "DeadPositionError", "TurnLimitError", "NotPicklableError",
          "RolloutStoreError"),
    # the errors of IDs, move text, network inputs and output arrays: the core's, in fastgen.errors
    **_to("fastgen.errors", "IllegalReason", "AmbiguousMoveError", "InvalidPositionIDError",
          "InvalidMatchIDError", "InvalidMatchStateError", "InvalidXGIDError", "UnknownSchemeError",
          "InvalidOutputError"),
    **_to("fastgen.players", "EngineError"),
    **_to("fastgen.envs", "InvalidEnvOptionError"),
    **_to("fastgen.bearoff", "BearoffFileError", "OutsideDatabaseError"),
    **_to("fastgen.nets", "InvalidNetworkError", "NetworkFileError"),
    **_to("fastgen.cube", "METFileError", "InvalidCubeStateError"),
    **_to("fastgen.train", "CheckpointError"),
}
del _to

if TYPE_CHECKING:  # what type checkers see: the same names, imported as usual
    from fastgen import analysis, bearoff, cube, envs, formats, games, nets, players, search, sim, train
    from fastgen.analysis.hint import hint
    from fastgen.cube.action import cube_action
    from fastgen.formats.matfile import write_mat
    from fastgen.formats.reader import read_match, read_matches
    from fastgen.games.game import Game
    from fastgen.games.match import Match
    from fastgen.players.pubeval import pubeval_best
    from fastgen.players.search import MoveFilter, Search
    from fastgen.search.perft import perft, perft_weighted
    from fastgen.sim.decide.front import rollout_plays, rollout_position
    from fastgen.sim.decide.cubeful import rollout_cube
    from fastgen.sim.duel.front import duel, duel_matches
    from fastgen.sim.rollout.front import rollout
else:

    def __getattr__(name: str) -> object:
        """Import a lazily loaded public name or subpackage on first use (PEP 562); give
        a name that left the top level from its new place, with a DeprecationWarning."""
        if name in _LAZY_NAMES:
            value = getattr(_import_module(_LAZY_NAMES[name]), name)
        elif name in _LAZY_MODULES:
            value = _import_module(f"{__name__}.{name}")
        elif name in _MOVED_MODULES:
            return _import_module(f"{__name__}.{name}")  # the old name, with its warning
        elif name in _MOVED_NAMES:
            place, new = _MOVED_NAMES[name]
            _compat.deprecated(f"fastgen.{name}", f"{place}.{new}")
            return getattr(_import_module(place), new)  # not kept: each use warns
        else:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        globals()[name] = value  # found directly from now on
        return value

    def __dir__() -> list[str]:
        return sorted(set(globals()) | set(__all__))

__all__ = [
    "__version__",
    # the generator (fastgen.core.generate, fastgen.core.plays, fastgen.core.boards)
    "legal_plays",
    "plays_batch",
    "count_plays_batch",
    "iter_plays_batch",
    "release_memory",
    "Plays",
    "PlayBatch",
    "STARTING_BOARD",
    "swap_sides",
    "encode",
    # boards and plays
    "Board",
    "Play",
    "format_play",
    "parse_play",
    "check_play",
    "legal_steps",
    # match state and IDs: NAME(...) writes one, parse_NAME(text) reads it
    "MatchState",
    "GameState",
    "Resignation",
    "position_id",
    "parse_position_id",
    "match_id",
    "parse_match_id",
    "gnubg_id",
    "parse_gnubg_id",
    "xgid",
    "parse_xgid",
    # games and matches
    "Game",
    "Match",
    "read_match",
    "read_matches",
    "write_mat",
    # the main verbs
    "rollout",
    "rollout_plays",
    "rollout_position",
    "rollout_cube",
    "duel",
    "duel_matches",
    "perft",
    "perft_weighted",
    "pubeval_best",
    "cube_action",
    "hint",
    "Search",
    "MoveFilter",
    # the errors the functions above raise (every error: fastgen.errors, and beside its subsystem)
    "FastgenError",
    "InvalidArgumentError",
    "InvalidBoardError",
    "InvalidDiceError",
    "InvalidMoveTextError",
    "IllegalPlayError",
    "IllegalActionError",
    "InvalidSpecError",
    "MatFileError",
    # the subpackages
    "analysis",
    "bearoff",
    "cube",
    "envs",
    "formats",
    "games",
    "nets",
    "players",
    "search",
    "sim",
    "train",
]
