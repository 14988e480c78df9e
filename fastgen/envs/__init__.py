"""Reinforcement-learning environments over fastgen's exact move generation.

Imported explicitly (``import fastgen.envs``); ``import fastgen`` does not load it.
:func:`micro_mask` and the encoding helpers need only numpy; the environments need the
``rl`` extra (``pip install "fastgen[rl]"``: gymnasium, pettingzoo) and import it when
first used:

- :class:`BackgammonEnv` (:mod:`fastgen.envs.single`): a ``gymnasium.Env``, one agent
  against a fixed opponent policy;
- :mod:`fastgen.envs.backgammon_v0`: a PettingZoo AEC environment for two agents;
- :class:`VectorBackgammon` (:mod:`fastgen.envs.vector`): N self-play games stepped at
  once, Gymnasium's vector API.

Two action encodings: ``"micro"`` (one checker step per action, see
:mod:`fastgen.envs.micro`) and ``"afterstate"`` (the index of one of the turn's legal
plays, at most :data:`MAX_PLAYS`).
"""

import importlib

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
]

_LAZY = {"BackgammonEnv": "fastgen.envs.single", "VectorBackgammon": "fastgen.envs.vector"}


def __getattr__(name):
    """Load the gymnasium-based classes on first use (they need the ``rl`` extra)."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    if name == "backgammon_v0":
        return importlib.import_module("fastgen.envs.backgammon_v0")
    raise AttributeError(f"module 'fastgen.envs' has no attribute {name!r}")
