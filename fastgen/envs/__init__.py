"""Reinforcement-learning environments over fastgen's exact move generation.

Imported explicitly (``import fastgen.envs``); ``import fastgen`` does not load it.
:func:`micro_mask` and the encoding helpers need only numpy; the environments need the
``rl`` extra (``pip install "fastgen-backgammon[rl]"``: gymnasium, pettingzoo) and import it when
first used:

- :class:`BackgammonEnv` (:mod:`fastgen.envs.single`): a ``gymnasium.Env``, one agent
  against a fixed opponent policy;
- :mod:`fastgen.envs.backgammon_v0`: a PettingZoo AEC environment for two agents;
- :class:`VectorBackgammon` (:mod:`fastgen.envs.vector`): N self-play games stepped at
  once, Gymnasium's vector API.

Two action encodings: ``"micro"`` (one checker step per action, see
:mod:`fastgen.envs.micro`) and ``"afterstate"`` (the index of one of the turn's legal
plays, at most :data:`MAX_PLAYS`). An option an environment does not accept raises
:class:`InvalidEnvOptionError`.
"""

import importlib
from types import ModuleType

from fastgen._util import install_hint, lazy_attributes
from fastgen.errors import InvalidEnvOptionError

from fastgen.envs.micro import NUM_MICRO_ACTIONS, PASS, action_of, micro_mask, step_of
from fastgen.envs.engine import MAX_PLAYS

__all__ = [
    "NUM_MICRO_ACTIONS",
    "PASS",
    "MAX_PLAYS",
    "action_of",
    "step_of",
    "micro_mask",
    "BackgammonEnv",
    "VectorBackgammon",
    "backgammon_v0",
    "InvalidEnvOptionError",
]

_RL_PACKAGES = ("gymnasium", "pettingzoo")


def _load(name: str, module: str) -> ModuleType:
    """Import *module*; a missing gymnasium or pettingzoo is reported with the command
    that installs the ``rl`` extra (still a :class:`ModuleNotFoundError`)."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        missing = (exc.name or "").partition(".")[0]
        if missing not in _RL_PACKAGES:
            raise
        raise ModuleNotFoundError(
            f"fastgen.envs.{name} needs {missing} (the rl extra: gymnasium and pettingzoo): {install_hint('rl')}",
            name=exc.name,
        ) from exc


#: The gymnasium-based environments, loaded on first use (they need the ``rl`` extra).
__getattr__, __dir__ = lazy_attributes(__name__, {"BackgammonEnv": "fastgen.envs.single",
                                                  "VectorBackgammon": "fastgen.envs.vector",
                                                  "backgammon_v0": "fastgen.envs.backgammon_v0"}, load=_load)
