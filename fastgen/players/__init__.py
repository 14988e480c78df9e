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

from fastgen._util import lazy_attributes
from fastgen.errors import EngineError, InvalidSpecError

_SUBMODULES = ["base", "specs", "evaluators", "policies", "engines", "pubeval"]
__all__ = [*_SUBMODULES, "InvalidSpecError", "EngineError"]

#: The submodules, loaded on first use (``fastgen.players.evaluators``, PEP 562).
__getattr__, __dir__ = lazy_attributes(__name__, {name: f"{__name__}.{name}" for name in _SUBMODULES})
