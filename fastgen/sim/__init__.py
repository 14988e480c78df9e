"""Many games, cut by job: ``rollout/`` (games to the end, in process and on Dask),
``decide/`` (rollouts that rank the plays of a decision), ``duel/`` (one policy against
another, and serving a policy to GNU Backgammon), over a shared chunk store (``store``)
and cluster layer (``cluster``).

The front doors are top-level (:func:`fastgen.rollout`, :func:`fastgen.rollout_plays`,
:func:`fastgen.rollout_position`, :func:`fastgen.rollout_cube`, :func:`fastgen.duel`,
:func:`fastgen.duel_matches`); their options objects (:class:`GameOptions`,
:class:`TrialOptions`, :class:`ClusterOptions`), results and helpers are imported from
here on first use (``fastgen.sim.RolloutResult``), and the errors of games that cannot
end and of work sent to a cluster are importable here.
"""

from typing import TYPE_CHECKING

from fastgen._util import lazy_attributes
from fastgen.errors import DeadPositionError, EndlessGameError, NotPicklableError, RolloutStoreError, TurnLimitError

#: The public names imported on first use (PEP 562), each from the module that defines it.
_LAZY_NAMES: dict[str, str] = {
    **dict.fromkeys(("RolloutResult", "RolloutSummary", "summarize"), "fastgen.sim.rollout.results"),
    "rollout_dice": "fastgen.sim.decide.dice",
    "RolloutTable": "fastgen.sim.decide.table",
    "CubeRollout": "fastgen.sim.decide.cubeful",
    **dict.fromkeys(("DuelResult", "MatchDuelResult"), "fastgen.sim.duel.front"),
    **dict.fromkeys(("GameOptions", "TrialOptions", "ClusterOptions"), "fastgen.sim.options"),
}

if TYPE_CHECKING:
    from fastgen.sim.decide.dice import rollout_dice
    from fastgen.sim.decide.cubeful import CubeRollout
    from fastgen.sim.decide.table import RolloutTable
    from fastgen.sim.duel.front import DuelResult, MatchDuelResult
    from fastgen.sim.options import ClusterOptions, GameOptions, TrialOptions
    from fastgen.sim.rollout.results import RolloutResult, RolloutSummary, summarize
else:
    __getattr__, __dir__ = lazy_attributes(__name__, _LAZY_NAMES)

__all__ = [
    "GameOptions",
    "TrialOptions",
    "ClusterOptions",
    "RolloutResult",
    "RolloutSummary",
    "summarize",
    "rollout_dice",
    "RolloutTable",
    "CubeRollout",
    "DuelResult",
    "MatchDuelResult",
    "EndlessGameError",
    "DeadPositionError",
    "TurnLimitError",
    "NotPicklableError",
    "RolloutStoreError",
]
