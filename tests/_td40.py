"""A small numpy network for the tests: ``tests/data/td40.npz``, in the one hidden layer
layout of :class:`fastgen.players.evaluators.ReferenceNetwork` (Tesauro's 198 inputs, 40
sigmoid hidden units, three outputs), trained for 15 minutes by ``examples/td_bot.py``. It was fastgen's
shipped baseline before the compiled trainer's; the tests use it where they need a
trained three-output numpy network (one that plays games of sensible length)."""

from __future__ import annotations

from pathlib import Path

from fastgen.players.evaluators import ReferenceNetwork

PATH = Path(__file__).resolve().parent / "data" / "td40.npz"


def td40() -> ReferenceNetwork:
    """The network, named ``td40``."""
    return ReferenceNetwork.load(PATH, name="td40")
