"""Players: typed evaluators, policies and cube players, and the one resolver from a spec or an object to a player.

- :mod:`fastgen.players.base`: the types (:class:`~fastgen.players.base.Evaluator`,
  :class:`~fastgen.players.base.Policy`, :class:`~fastgen.players.base.CubePlayer`,
  :class:`~fastgen.players.base.Turn`) and the wrappers of a user's plain callables;
- :mod:`fastgen.players.specs`: the spec grammar and the resolver (``"baseline"``,
  ``"gnubg:0"``, ``"PATH.npz"``, ``"module:callable"`` ... or an object, to a typed player);
- :mod:`fastgen.players.evaluators`, :mod:`fastgen.players.policies`: the ready-made ones;
- :mod:`fastgen.players.engines`: GNU Backgammon as a player over its external socket;
- :mod:`fastgen.players.pubeval`: Tesauro's pubeval.

The submodules are imported on first use; the errors of a spec and of an external engine
are importable here.
"""

import importlib

from fastgen.errors import EngineError, InvalidSpecError

_SUBMODULES = ["base", "specs", "evaluators", "policies", "engines", "pubeval"]
__all__ = [*_SUBMODULES, "InvalidSpecError", "EngineError"]


def __getattr__(name: str) -> object:
    """Load a submodule on first use (``fastgen.players.evaluators``)."""
    if name in _SUBMODULES:
        return importlib.import_module(f"fastgen.players.{name}")
    raise AttributeError(f"module 'fastgen.players' has no attribute {name!r}")
